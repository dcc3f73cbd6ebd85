//! Does a value carry a credential, or only point at one or stand in for one?
//!
//! This module owns the reference rules (`${VAR}` with shell defaults checked at any
//! depth, `$VAR`, `{{ x }}`, `%VAR%`), the secret-locator rules (secret-manager URIs
//! and credential-file paths whose segments are not themselves tokens), and the
//! placeholder rules — the newest behaviour of the earlier implementation (its
//! review items F1–F6 / N1–N5 / NF-1..3), written as hand parsers so that every
//! scan is linear in the input and recursion is bounded.

use std::ops::Range;

use super::pattern::Pattern;
use super::text::{is_py_space, py_strip, shannon_entropy};

/// Nested `${…}` deeper than this is not accepted as a reference: the value is then
/// judged as a literal, which is the conservative verdict.
const MAX_REF_DEPTH: usize = 16;

/// Words that may sit beside a reference or an `<slot>` and still mean "no literal
/// here" (a closed set: `correcthorse ${T}` is a literal).
const SCHEME_WORDS: &[&str] = &["bearer", "token", "basic", "apikey", "negotiate", "digest"];

const PLACEHOLDER_TOKENS: &[&str] = &[
    "your",
    "yours",
    "placeholder",
    "example",
    "changeme",
    "todo",
    "tbd",
    "here",
    "insert",
    "replace",
    "dummy",
    "sample",
    "fake",
    "fill",
    "redacted",
    "abc123",
    "12345",
    "123456",
    "1234567890",
];
const FILLER_TOKENS: &[&str] = &[
    "key",
    "api",
    "apikey",
    "token",
    "secret",
    "password",
    "pass",
    "access",
    "auth",
    "id",
    "value",
    "string",
    "goes",
    "me",
    "in",
    "the",
    "a",
    "an",
    "to",
    "with",
    "my",
    "name",
    "bearer",
    "github",
    "gitlab",
    "openai",
    "anthropic",
    "slack",
    "aws",
    "google",
    "azure",
    "notion",
    "stripe",
    "brave",
    "tavily",
    "exa",
    "firecrawl",
];
const PLACEHOLDER_PHRASES: &[&str] = &[
    "change-me",
    "goes-here",
    "add-your",
    "put-your",
    "api-key-here",
];
const PLACEHOLDER_EXACT: &[&str] = &["n/a", "none", "null", "-"];
/// The only short bare words that are a scheme or type slot rather than a credential
/// (an allowlist: `admin`, `qwerty`, `letmein` are working secrets).
const SCHEME_TYPE_WORDS: &[&str] = &[
    "basic",
    "bearer",
    "token",
    "apikey",
    "api-key",
    "digest",
    "negotiate",
    "oauth",
    "none",
];
const SECRET_URI_SCHEMES: &[&str] = &[
    "op",
    "vault",
    "awssm",
    "gcpsm",
    "azkv",
    "secretref",
    "keyring",
    "pass",
];

pub(crate) static ANGLE_SLOT: Pattern =
    Pattern::with_ascii_form(r"<[^<>]{1,64}>", r"<[\x00-\x3B\x3D\x3F-\x7F]{1,64}>");

/// The operator of a `${NAME…}` expansion.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    /// `${NAME}`
    None,
    /// `-`, `:-`, `+`, `:+`, `=`, `:=`: the word is substituted text.
    Default,
    /// `?`, `:?`: the word is an error message.
    Message,
    /// `:` followed by anything else (`${NAME:0:4}` substring forms).
    Other,
}

struct Ref {
    span: Range<usize>,
    op: Op,
    word: Range<usize>,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// For each `{`, the index of its matching `}` (stack matching, linear).
fn brace_matches(b: &[u8]) -> Vec<Option<usize>> {
    let mut out = vec![None; b.len()];
    let mut stack = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        if c == b'{' {
            stack.push(i);
        } else if c == b'}' {
            if let Some(o) = stack.pop() {
                out[o] = Some(i);
            }
        }
    }
    out
}

/// Parse `${NAME[op WORD]}` starting at `i` (`b[i] == '$'`). Returns the end
/// (exclusive), the operator and the word range. WORD may hold any text except bare
/// braces, plus nested `${…}` expansions (validated recursively, bounded depth).
fn parse_braced(
    b: &[u8],
    m: &[Option<usize>],
    i: usize,
    depth: usize,
) -> Option<(usize, Op, Range<usize>)> {
    if depth > MAX_REF_DEPTH || b.get(i) != Some(&b'$') || b.get(i + 1) != Some(&b'{') {
        return None;
    }
    let close = m.get(i + 1).copied().flatten()?;
    let mut k = i + 2;
    if !b.get(k).copied().is_some_and(is_name_start) {
        return None;
    }
    while k < close && is_name_char(b[k]) {
        k += 1;
    }
    if k == close {
        return Some((close + 1, Op::None, k..k));
    }
    let op = match b[k] {
        b':' => {
            k += 1;
            match b.get(k) {
                Some(b'-' | b'+' | b'=') if k < close => {
                    k += 1;
                    Op::Default
                }
                Some(b'?') if k < close => {
                    k += 1;
                    Op::Message
                }
                _ => Op::Other,
            }
        }
        b'-' | b'+' | b'=' => {
            k += 1;
            Op::Default
        }
        b'?' => {
            k += 1;
            Op::Message
        }
        _ => return None,
    };
    let word = k..close;
    let mut p = k;
    while p < close {
        match b[p] {
            b'{' => return None,
            b'$' if b.get(p + 1) == Some(&b'{') => {
                let (end, _, _) = parse_braced(b, m, p, depth + 1)?;
                p = end;
            }
            _ => p += 1,
        }
    }
    Some((close + 1, op, word))
}

/// Every reference in `v`, left to right, non-overlapping — the same matches the
/// reference's `${…}|$NAME|{{…}}|%NAME%` alternation finds.
fn scan_refs(v: &str, depth: usize) -> Vec<Ref> {
    let b = v.as_bytes();
    let m = brace_matches(b);
    // next_close[i]: index of the first `}` at or after i (for `{{…}}` in O(1)).
    let mut next_close = vec![None; b.len() + 1];
    for i in (0..b.len()).rev() {
        next_close[i] = if b[i] == b'}' {
            Some(i)
        } else {
            next_close[i + 1]
        };
    }
    let mut out = Vec::new();
    let mut p = 0;
    while p < b.len() {
        let c = b[p];
        if c == b'$' {
            if let Some((end, op, word)) = parse_braced(b, &m, p, depth) {
                out.push(Ref {
                    span: p..end,
                    op,
                    word,
                });
                p = end;
                continue;
            }
            if b.get(p + 1).copied().is_some_and(is_name_start) {
                let mut e = p + 2;
                while e < b.len() && is_name_char(b[e]) {
                    e += 1;
                }
                out.push(Ref {
                    span: p..e,
                    op: Op::None,
                    word: e..e,
                });
                p = e;
                continue;
            }
        } else if c == b'{' && b.get(p + 1) == Some(&b'{') {
            if let Some(q) = next_close.get(p + 2).copied().flatten() {
                if q >= p + 3 && b.get(q + 1) == Some(&b'}') {
                    out.push(Ref {
                        span: p..q + 2,
                        op: Op::None,
                        word: q..q,
                    });
                    p = q + 2;
                    continue;
                }
            }
        } else if c == b'%' && b.get(p + 1).copied().is_some_and(is_name_start) {
            let mut e = p + 2;
            while e < b.len() && is_name_char(b[e]) {
                e += 1;
            }
            if b.get(e) == Some(&b'%') {
                out.push(Ref {
                    span: p..e + 1,
                    op: Op::None,
                    word: e..e,
                });
                p = e + 1;
                continue;
            }
        }
        p += 1;
    }
    out
}

fn only_scheme_words(text: &str) -> bool {
    text.split(is_py_space)
        .filter(|t| !t.is_empty())
        .all(|t| SCHEME_WORDS.contains(&t.to_lowercase().as_str()))
}

/// Whether a reference's default or message is harmless.
fn ref_is_clean(v: &str, r: &Ref, depth: usize) -> bool {
    let word = v.get(r.word.clone()).unwrap_or_default();
    match r.op {
        Op::None => true,
        // A default is substituted text: a literal unless empty, itself a reference
        // (checked recursively — `${T:-${U:-hunter2!}}` bottoms out on a literal), or
        // a placeholder.
        Op::Default => {
            let d = py_strip(word);
            d.is_empty() || reference_at_depth(d, depth + 1) || looks_like_placeholder(d)
        }
        // A message is never substituted, but a token parked in it is still a secret
        // (`${API_KEY:?9f8e…}`); substring forms get the same check.
        Op::Message | Op::Other => {
            !text_carries_a_token(word)
                && depth < MAX_REF_DEPTH
                && scan_refs(word, depth + 1)
                    .iter()
                    .all(|inner| ref_is_clean(word, inner, depth + 1))
        }
    }
}

fn reference_at_depth(value: &str, depth: usize) -> bool {
    if depth > MAX_REF_DEPTH {
        return false;
    }
    let v = py_strip(value);
    if is_secret_locator(v) {
        return true;
    }
    let refs = scan_refs(v, depth);
    if refs.is_empty() {
        return false;
    }
    if !refs.iter().all(|r| ref_is_clean(v, r, depth)) {
        return false;
    }
    let mut remainder = String::with_capacity(v.len());
    let mut at = 0;
    for r in &refs {
        remainder.push_str(v.get(at..r.span.start).unwrap_or_default());
        remainder.push(' ');
        at = r.span.end;
    }
    remainder.push_str(v.get(at..).unwrap_or_default());
    only_scheme_words(&remainder)
}

/// True when the value carries its secret by reference, not as a literal.
///
/// * a secret-manager URI or credential-file path (`is_secret_locator`);
/// * or at least one reference (`${VAR}`, `$VAR`, `{{ x }}`, `%VAR%`), every
///   `${VAR:-default}` default (any depth) empty / a reference / a placeholder, no
///   token parked in a `${VAR:?message}`, and nothing left beside the references but
///   auth scheme words (`Bearer ${T}`).
pub fn is_secret_reference(value: &str) -> bool {
    reference_at_depth(value, 0)
}

fn alnum_token(seg: &str) -> bool {
    let n = seg.chars().count();
    if n < 16 {
        return false;
    }
    if n >= 20 {
        return true;
    }
    is_mixed_case(seg) || shannon_entropy(seg) >= 3.5
}

fn is_mixed_case(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_lowercase()) && s.chars().any(|c| c.is_ascii_uppercase())
}

fn is_alnum(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A `-`/`_`-joined piece that carries a token: one of its parts is a token-shaped
/// alphanumeric run with a digit, or, after dropping digit-only parts and word parts
/// (4+ letters, not all hex), what remains switches between letters and digits 3+
/// times and is 20+ characters (16+ if mixed case).
fn separated_token(seg: &str) -> bool {
    let parts: Vec<&str> = seg.split(['-', '_']).filter(|p| !p.is_empty()).collect();
    if parts
        .iter()
        .any(|p| alnum_token(p) && p.bytes().any(|b| b.is_ascii_digit()))
    {
        return true;
    }
    let core: String = parts
        .iter()
        .filter(|p| {
            let digits = p.bytes().all(|b| b.is_ascii_digit());
            let word = p.len() >= 4 && p.bytes().all(|b| b.is_ascii_alphabetic());
            let hex = p
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_digit());
            !digits && (!word || hex)
        })
        .copied()
        .collect();
    let min_len = if is_mixed_case(&core) { 16 } else { 20 };
    let b = core.as_bytes();
    let switches = b
        .windows(2)
        .filter(|w| {
            (w[0].is_ascii_alphabetic() && w[1].is_ascii_digit())
                || (w[0].is_ascii_digit() && w[1].is_ascii_alphabetic())
        })
        .count();
    core.len() >= min_len && switches >= 3
}

/// A path or URI segment that is itself token-shaped, not a name.
fn tokenish_segment(seg: &str) -> bool {
    if !seg.contains(['.', '~']) && is_alnum(seg) {
        return alnum_token(seg);
    }
    // In a dotted name the alphanumeric pieces are a stem and an extension; only
    // separator-joined pieces are judged.
    seg.split(['.', '~']).any(|p| {
        !p.is_empty()
            && !is_alnum(p)
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && separated_token(p)
    })
}

/// Any `[A-Za-z0-9_-]` run of free text (a fragment, a `:?` message) that is a token.
fn text_carries_a_token(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .any(|run| !run.is_empty() && tokenish_segment(run))
}

fn is_path_segment(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-'))
}

fn segments_are_a_locator(rest: &str) -> bool {
    let segs: Vec<&str> = rest.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
    segs.len() >= 2
        && segs
            .iter()
            .all(|s| is_path_segment(s) && !tokenish_segment(s))
}

/// A secret-manager URI (`op://vault/item/field`) or credential-file path
/// (`~/.config/app/keys.json`): at least two path segments, none token-shaped; a URI
/// fragment must name a field (`#key`), not carry a token.
pub(crate) fn is_secret_locator(v: &str) -> bool {
    let parts = crate::text::url::split(v);
    if let Some(scheme) = parts.scheme(v) {
        // Everything after `://`: a locator's "authority" is its first segment.
        let rest = &v[parts.authority.start..];
        let known = SECRET_URI_SCHEMES
            .iter()
            .any(|s| s.eq_ignore_ascii_case(scheme));
        if known && !rest.is_empty() && !rest.chars().any(is_py_space) {
            let (path, fragment) = rest.split_once('#').unwrap_or((rest, ""));
            if !fragment.is_empty()
                && (!is_path_segment(fragment) || text_carries_a_token(fragment))
            {
                return false;
            }
            return segments_are_a_locator(path);
        }
    }
    let b = v.as_bytes();
    let prefix = if v.starts_with("~/") || v.starts_with("./") {
        2
    } else if v.starts_with("../") {
        3
    } else if v.starts_with('/') {
        1
    } else if b.len() >= 3
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && matches!(b[2], b'/' | b'\\')
    {
        3
    } else {
        return false;
    };
    segments_are_a_locator(&v[prefix..])
}

/// True when the value is an obvious fill-me-in (`YOUR KEY GOES HERE`, `<token>`,
/// `changeme`, `sk-...`), not a working credential.
///
/// Bounded on purpose: unless every token is a placeholder or filler word, a value of
/// 16+ characters containing a digit is never downgraded, and the only short bare
/// words accepted are scheme/type slots.
pub(crate) fn looks_like_placeholder(value: &str) -> bool {
    let v = py_strip(value).to_lowercase();
    if v.is_empty() {
        return false;
    }
    let tokens: Vec<&str> = v
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .collect();
    let is_x_run = |t: &str| t.len() >= 3 && t.bytes().all(|b| b == b'x');
    let strong = tokens
        .iter()
        .any(|t| PLACEHOLDER_TOKENS.contains(t) || is_x_run(t));
    let joined = format!("-{}-", tokens.join("-"));
    let mut phrase_tokens: Vec<&str> = Vec::new();
    for phrase in PLACEHOLDER_PHRASES {
        if joined.contains(&format!("-{phrase}-")) {
            phrase_tokens.extend(phrase.split('-'));
        }
    }
    let filler_ok = !tokens.is_empty()
        && tokens.iter().all(|t| {
            PLACEHOLDER_TOKENS.contains(t)
                || FILLER_TOKENS.contains(t)
                || phrase_tokens.contains(t)
                || is_x_run(t)
        });
    if filler_ok && (strong || !phrase_tokens.is_empty() || (tokens[0] == "my" && tokens.len() > 1))
    {
        return true;
    }
    if v.chars().count() >= 16 && v.chars().any(char::is_numeric) {
        return false; // hard floor: a long value with a digit and a real token
    }
    if PLACEHOLDER_EXACT.contains(&v.as_str()) || v == "..." {
        return true;
    }
    if v.ends_with("...") && (v.chars().count() <= 12 || filler_ok) {
        return true; // `sk-...`, `your-key...` — never `<key>...`
    }
    let slot = ANGLE_SLOT.for_haystack(&v);
    if slot.is_match(&v) && only_scheme_words(&slot.replace_all(&v, " ")) {
        return true;
    }
    SCHEME_TYPE_WORDS.contains(&v.replace('_', "-").as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        for v in [
            "${T}",
            "$T",
            "{{ secret }}",
            "%TOKEN%",
            "Bearer ${GMAIL_TOKEN}",
            "bearer $GMAIL_TOKEN",
            "Token {{ secret }}",
            "${TOKEN:-}",
            "${TOKEN:-${OTHER}}",
            "${TOKEN:-$OTHER}",
            "${TOKEN:?required}",
            "${TOKEN?required}",
            "${T:-${U:-}}",
            "${T:-${U:-changeme}}",
            "${TOKEN:-changeme}",
            "${GITHUB_TOKEN:-}",
            "${API_KEY:?required}",
            "op://Private/GitHub/token",
            "vault://secret/data/app#key",
            "%USERPROFILE_TOKEN%",
            "~/.config/app/keys.json",
            "/Users/me/.secrets/token",
            "${A:-${B:-${C:-${D:-}}}}",
        ] {
            assert!(is_secret_reference(v), "{v}");
        }
        for v in [
            "",
            "hunter2",
            "${TOKEN:=hunter2!}",
            "${T:-${U:-hunter2!}}",
            "${T:-${U:-9f8e7d6c5b4a}}",
            "${TOKEN:-9f8e7d6c5b4a}",
            "correcthorse ${TOKEN}",
            "${API_KEY:?9f8e7d6c5b4a3e2d1c0b9a8f}",
            "${A:-${B:-${C:-${D:-hunter2}}}}",
            "${T",
            "{{}}",
            "%%",
            "$",
            "vault://secret/data/app#9f8e7d6c5b4a3e2d1c0b9a8f",
        ] {
            assert!(!is_secret_reference(v), "{v}");
        }
    }

    #[test]
    fn deep_nesting_is_bounded_and_literal() {
        let mut v = String::new();
        for _ in 0..5000 {
            v.push_str("${A:-");
        }
        v.push_str(&"}".repeat(5000));
        assert!(!is_secret_reference(&v));
        let open = "${A:-".repeat(20000);
        assert!(!is_secret_reference(&open));
        assert!(!is_secret_reference(&"{{".repeat(20000)));
        assert!(!is_secret_reference(&"%A".repeat(20000)));
    }

    #[test]
    fn placeholders() {
        for v in [
            "YOUR KEY GOES HERE",
            "<your-api-key>",
            "xxx",
            "changeme",
            "basic",
            "your_github_token",
            "api-key",
            "goes-here",
            "fill-me-in",
            "my-api-key",
            "change_me",
            "Bearer <token>",
            "sk-...",
            "your-api-key-goes-here-12345",
            "YOUR_API_KEY_1234567890",
            "...",
            "your-key...",
            "none",
            "oauth",
        ] {
            assert!(looks_like_placeholder(v), "{v}");
        }
        for v in [
            "hunter2!",
            "qwerty",
            "admin",
            "example-9f8e7d6c5b4a",
            "abc...9f8e7d6c5b4a",
            "abc",
            "x",
            "correcthorse <token>",
        ] {
            assert!(!looks_like_placeholder(v), "{v}");
        }
    }
}
