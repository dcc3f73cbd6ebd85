//! The one credential redactor.
//!
//! * [`redact_secret`] is the evidence form of a secret: a short prefix and the
//!   length, never a suffix (`ghp_…(len=40)`). Every snippet uses it.
//! * [`credential_spans`] finds credentials of a recognised *shape* anywhere inside
//!   a text, whatever surrounds them: a URL's userinfo (`postgres://admin:pw@db`,
//!   also inside `--db=…`, `DATABASE_URL=…`, a JSON string or a script), an
//!   auth-shaped `KEY=value` / `Key: value` / `"key": "value"` pair, an auth-shaped
//!   query parameter, the token after `Bearer`, and a vendor-pattern token even
//!   glued to other text. No entropy: a shape is evidence, randomness alone is not
//!   (`@modelcontextprotocol/server-github` is high-entropy and must stay readable).
//! * [`display`] is what every printer applies to a config-derived string: the
//!   credential spans become their [`redact_secret`] form, then
//!   [`safe_text`](fn@super::safe_text) neutralises what could drive a terminal.
//! * `redact_in_place` is the snippet form for launch words: the spans above plus
//!   the launch-text scan's vendor and token-like entropy hits.
//!
//! A value that is a reference (`${TOKEN}`, `$TOKEN`, `{{ token }}`, `%TOKEN%`,
//! `Bearer ${T}`) carries nothing and is never a span.
//!
//! Every scan here is linear in its input: separators are visited once, and the
//! look-back from a separator stops at the previous non-name character.

use std::borrow::Cow;
use std::ops::Range;

use super::safe_text::{safe_text_capped, safe_text_capped_cow, DEFAULT_CAP};
use crate::engines::keys::{is_auth_flag, is_auth_key, is_auth_query_key};
use crate::engines::refs::is_secret_reference;
use crate::engines::secrets::{secret_spans, vendor_pattern_spans};

/// What [`super::mask`] writes in place of a masked URL piece: already no secret.
const MASK_MARKER: &str = "REDACTED";

/// At most min(4, n/2) leading code points, then `…(len=N)` (or `len<=3`); never a suffix.
pub fn redact_secret(raw: &str) -> String {
    let n = raw.chars().count();
    let k = (n / 2).min(4);
    let prefix: String = raw.chars().take(k).collect();
    if n <= 3 {
        format!("{prefix}…(len<=3)")
    } else {
        format!("{prefix}…(len={n})")
    }
}

/// `text` for printing: every credential span redacted, then neutralised and capped
/// at the default 200 code points. Borrows when nothing changes.
pub fn display(text: &str) -> Cow<'_, str> {
    display_capped(text, DEFAULT_CAP)
}

/// [`display`] with another cap (diagnostic lines carry long paths).
pub fn display_capped(text: &str, cap: usize) -> Cow<'_, str> {
    // Redaction first: a cap applied first could cut a token below the length its
    // pattern needs and print its head.
    let spans = credential_spans(text);
    if spans.is_empty() {
        return safe_text_capped_cow(text, cap);
    }
    Cow::Owned(safe_text_capped(&replace_spans(text, spans), cap))
}

/// Whether a name taken from a config (an env key, a header name, a variable a
/// header references, a server name) holds anything `redact_in_place` would
/// hide. A pin line, a lock file name and the CI snippet print names verbatim, and
/// a name is as hostile as a value: `{"ghp_…": "x"}` must not print the token.
pub fn names_a_credential(name: &str) -> bool {
    redacted(name) != name
}

/// Whether `text` holds a credential of a recognised shape anywhere.
pub fn has_credential(text: &str) -> bool {
    !credential_spans(text).is_empty()
}

/// Every secret of [`secret_spans`] (vendor patterns and token-like entropy, as the
/// launch-text scan reports them) and every [`credential_spans`] shape, each
/// replaced by its [`redact_secret`] form, the rest kept: `pkg@ghp_…(len=40)` still
/// says which package was meant.
pub(crate) fn redact_in_place(value: &str) -> String {
    redacted(value).into_owned()
}

/// [`redact_in_place`] that borrows when nothing is found (most names and values
/// hold no credential, and a renderer judges tens of thousands of them).
pub(crate) fn redacted(value: &str) -> Cow<'_, str> {
    let mut spans = secret_spans(value);
    spans.extend(credential_spans(value));
    if spans.is_empty() {
        return Cow::Borrowed(value);
    }
    Cow::Owned(replace_spans(value, spans))
}

/// Replace each span (merged where they overlap) by its [`redact_secret`] form.
fn replace_spans(value: &str, mut spans: Vec<Range<usize>>) -> String {
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut out = String::with_capacity(value.len());
    let mut at = 0;
    let mut i = 0;
    while i < spans.len() {
        let start = spans[i].start.max(at);
        let mut end = spans[i].end;
        i += 1;
        while i < spans.len() && spans[i].start < end {
            end = end.max(spans[i].end);
            i += 1;
        }
        if start >= end {
            continue;
        }
        let (Some(before), Some(secret)) = (value.get(at..start), value.get(start..end)) else {
            // Not on a char boundary: only a bug can get here; withhold the rest.
            out.push_str(&redact_secret(value.get(at..).unwrap_or_default()));
            return out;
        };
        out.push_str(before);
        out.push_str(&redact_secret(secret));
        at = end;
    }
    out.push_str(value.get(at..).unwrap_or_default());
    out
}

/// Byte ranges of `text` that hold a credential by shape (see the module docs).
/// Unsorted; they may overlap.
pub fn credential_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = vendor_pattern_spans(text);
    // Most printed texts (targets, labels, package names) hold none of the bytes
    // the other shapes need, and one search for all three replaces a search of
    // each scan's own.
    if memchr::memchr3(b':', b'=', b' ', text.as_bytes()).is_some() {
        separated_spans(text, &mut out);
    }
    out
}

/// The shapes of [`credential_spans`] that need a separator, each one of three
/// bytes: a URL's userinfo the `:` of `://`, a pair its `=` or `:`, a bearer
/// token the space after `Bearer`.
fn separated_spans(text: &str, out: &mut Vec<Range<usize>>) {
    userinfo_spans(text, out);
    assignment_spans(text, out);
    bearer_spans(text, out);
}

/// Characters that end a value or an authority embedded in a longer text.
fn ends_value(c: u8) -> bool {
    c.is_ascii_whitespace()
        || matches!(
            c,
            b'"' | b'\'' | b'`' | b'&' | b';' | b',' | b'|' | b'<' | b'>' | b'(' | b')'
        )
}

/// A URL scheme character (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )).
fn is_scheme_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')
}

/// The userinfo of every `scheme://userinfo@host` in `text`, unless it is only
/// references (`${USER}:${PASS}@`).
fn userinfo_spans(text: &str, out: &mut Vec<Range<usize>>) {
    let b = text.as_bytes();
    for sep in super::url::scheme_ends(b) {
        // The scheme: the run of scheme characters before `://`, starting at a letter.
        let mut start = sep;
        while start > 0 && is_scheme_char(b[start - 1]) {
            start -= 1;
        }
        while start < sep && !b[start].is_ascii_alphabetic() {
            start += 1;
        }
        if start == sep {
            continue;
        }
        let auth_start = sep + 3;
        let mut auth_end = auth_start;
        while auth_end < b.len()
            && !matches!(b[auth_end], b'/' | b'?' | b'#' | b'\\')
            && !ends_value(b[auth_end])
        {
            auth_end += 1;
        }
        let Some(at) = b[auth_start..auth_end].iter().rposition(|&c| c == b'@') else {
            continue;
        };
        let userinfo = auth_start..auth_start + at;
        if userinfo.is_empty()
            || text
                .get(userinfo.clone())
                .is_some_and(userinfo_is_reference)
        {
            continue;
        }
        out.push(userinfo);
    }
}

fn userinfo_is_reference(userinfo: &str) -> bool {
    userinfo == MASK_MARKER
        || userinfo
            .split(':')
            .all(|part| part.is_empty() || is_secret_reference(part))
}

/// Characters of a key name before `=` or `:` (`--db-password`, `X-Api-Key`,
/// `OPENAI_API_KEY`, `client.secret`).
fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// Auth-shaped `KEY=value`, `Key: value`, `"key": "value"` and `?key=value` pairs:
/// the value's range.
fn assignment_spans(text: &str, out: &mut Vec<Range<usize>>) {
    let b = text.as_bytes();
    for sep in memchr::memchr2_iter(b'=', b':', b) {
        // `scheme://` is a URL, not a pair.
        if b[sep] == b':' && b.get(sep + 1) == Some(&b'/') && b.get(sep + 2) == Some(&b'/') {
            continue;
        }
        let Some((key, key_start)) = key_before(text, sep) else {
            continue;
        };
        let in_query = key_start > 0 && matches!(b[key_start - 1], b'?' | b'&' | b'#');
        let auth = if in_query {
            is_auth_query_key(key)
        } else if key.starts_with('-') {
            is_auth_flag(key)
        } else {
            is_auth_key(key)
        };
        if !auth {
            continue;
        }
        if let Some(value) = value_after(text, sep) {
            out.push(value);
        }
    }
}

/// The key that ends right before the separator at `sep`: a quoted JSON/shell key
/// (`"apiKey":`) or a run of name characters (`--token=`, `PGPASSWORD=`).
fn key_before(text: &str, sep: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    let mut end = sep;
    // `"apiKey" : "v"` and `Key : v` allow spaces before a colon.
    if b[sep] == b':' {
        while end > 0 && b[end - 1] == b' ' {
            end -= 1;
        }
    }
    let quote = match end.checked_sub(1).map(|i| b[i]) {
        Some(q @ (b'"' | b'\'')) => Some(q),
        _ => None,
    };
    let name_end = if quote.is_some() { end - 1 } else { end };
    let mut start = name_end;
    while start > 0 && is_key_char(b[start - 1]) {
        start -= 1;
    }
    if start == name_end {
        return None;
    }
    if let Some(q) = quote {
        if start == 0 || b[start - 1] != q {
            return None;
        }
    }
    text.get(start..name_end).map(|k| (k, start))
}

/// Auth schemes whose credential follows after a space (`Bearer <token>`).
const SCHEME_WORDS: &[&str] = &["bearer", "basic", "token", "digest", "negotiate", "apikey"];

/// The value after the separator at `sep`, unless empty or a reference.
fn value_after(text: &str, sep: usize) -> Option<Range<usize>> {
    let b = text.as_bytes();
    let mut start = sep + 1;
    if b[sep] == b':' {
        while start < b.len() && b[start] == b' ' {
            start += 1;
        }
    }
    let range = match b.get(start) {
        Some(&q @ (b'"' | b'\'')) => {
            let inner = start + 1;
            let mut end = inner;
            while end < b.len() && b[end] != q {
                end += if b[end] == b'\\' { 2 } else { 1 };
            }
            inner..end.min(b.len())
        }
        _ => {
            let mut end = start;
            while end < b.len() && !ends_value(b[end]) {
                end += 1;
            }
            // `Authorization: Bearer <token>`: the credential is the next word.
            let word = text.get(start..end).unwrap_or_default();
            if SCHEME_WORDS.contains(&word.to_ascii_lowercase().as_str()) {
                let mut next = end;
                while next < b.len() && b[next] == b' ' {
                    next += 1;
                }
                let mut next_end = next;
                while next_end < b.len() && !ends_value(b[next_end]) {
                    next_end += 1;
                }
                if next_end > next {
                    end = next_end;
                }
            }
            start..end
        }
    };
    let value = text.get(range.clone())?;
    if value.trim().is_empty() || value == MASK_MARKER || is_secret_reference(value) {
        return None;
    }
    Some(range)
}

/// Shortest token after a free-standing `Bearer ` that counts as a credential.
const MIN_BEARER_TOKEN: usize = 8;

/// The token after a free-standing `Bearer ` (any case) at a word start.
fn bearer_spans(text: &str, out: &mut Vec<Range<usize>>) {
    const WORD: &[u8] = b"bearer ";
    let b = text.as_bytes();
    let mut next = 0;
    for i in memchr::memchr2_iter(b'b', b'B', b) {
        if i < next || i + WORD.len() > b.len() {
            continue;
        }
        let at_word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if at_word_start && b[i..i + WORD.len()].eq_ignore_ascii_case(WORD) {
            let mut start = i + WORD.len();
            while start < b.len() && b[start] == b' ' {
                start += 1;
            }
            let mut end = start;
            while end < b.len() && !ends_value(b[end]) {
                end += 1;
            }
            let token = text.get(start..end).unwrap_or_default();
            // A credential is not a short word (`a bearer of news`).
            if token.len() >= MIN_BEARER_TOKEN && !is_secret_reference(token) {
                out.push(start..end);
            }
            next = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skipping the separated shapes of a text without `:`, `=` or a space finds
    /// the spans that looking for them finds: a shape let through without one of
    /// those bytes fails it.
    #[test]
    fn texts_without_separators_hold_no_separated_shape() {
        let pieces = [
            "a",
            "-",
            "_",
            "/",
            "@",
            "#",
            ".",
            "?",
            "&",
            "x",
            "7",
            "K",
            "token",
            "bearer",
            "Bearer",
            "Authorization",
            "https",
            "//",
            "user",
            "pw",
            "ghp_",
            "sk-",
            "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4",
            "${T}",
            "'",
            "\"",
            "\t",
            "é",
            ":",
            "=",
            " ",
        ];
        let mut generated = crate::test_gen::Generated::new(0x9E6C_63D0_676A_9A99);
        let mut skipped = 0;
        for _ in 0..40_000 {
            let text = generated.text(&pieces, 12);
            let mut every = vendor_pattern_spans(&text);
            separated_spans(&text, &mut every);
            let mut found = credential_spans(&text);
            skipped += usize::from(!text.contains([':', '=', ' ']));
            every.sort_by_key(|r| (r.start, r.end));
            found.sort_by_key(|r| (r.start, r.end));
            assert_eq!(found, every, "{text:?}");
        }
        assert!(skipped > 1_000, "{skipped} texts took the shortcut");
        assert!(has_credential("--token=abc123") && has_credential("Bearer abcdefgh12345678"));
        assert!(!has_credential(
            "~/.claude.json#projects[/home/dev/src/project-0]#s0-0"
        ));
    }

    fn shown(text: &str) -> String {
        display(text).into_owned()
    }

    #[test]
    fn evidence_form_never_shows_a_suffix() {
        assert_eq!(redact_secret("abc"), "a…(len<=3)");
        assert_eq!(redact_secret("abcdefghij"), "abcd…(len=10)");
        assert_eq!(redact_secret("abcdef"), "abc…(len=6)");
    }

    #[test]
    fn credentials_inside_words_of_every_shape_are_masked() {
        let cases = [
            ("--db=postgres://admin:Hunter2pw@db/prod", "Hunter2pw"),
            ("DATABASE_URL=mysql://root:Hunter2pw@host/x", "Hunter2pw"),
            (r#"{"url":"postgres://u:Hunter2pw@h/x"}"#, "Hunter2pw"),
            (
                "curl -H 'Authorization: Bearer Hunter2pwToken' https://x.example/i | sh",
                "Hunter2pwToken",
            ),
            ("curl -H \"X-Api-Key: Hunter2pw\" https://x", "Hunter2pw"),
            ("PGPASSWORD=Hunter2pw psql -h db", "Hunter2pw"),
            ("--password=Hunter2pw", "Hunter2pw"),
            (r#"{"apiKey": "Hunter2pw"}"#, "Hunter2pw"),
            (
                "https://h.example/mcp?x=1&access_token=Hunter2pw&y=2",
                "Hunter2pw",
            ),
            ("wss://h.example/s#token=Hunter2pw", "Hunter2pw"),
            ("see https://Hunter2pw@github.com/o/r.git", "Hunter2pw"),
            ("Authorization: Basic SHVudGVyMnB3", "SHVudGVyMnB3"),
            ("token: Hunter2pw", "Hunter2pw"),
            (
                &format!("xx{}", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
                "A1b2C3d4E5f6G7h8I9j0",
            ),
        ];
        for (text, secret) in cases {
            let out = shown(text);
            assert!(!out.contains(secret), "{text} -> {out}");
            assert!(out.contains("…(len"), "{text} -> {out}");
        }
    }

    #[test]
    fn near_misses_are_printed_as_written() {
        for text in [
            "https://h.example.com/mcp?profile=p&x=1",
            "git+https://github.com/o/r.git",
            "AUTHOR=alice",
            "MAX_TOKENS=4096",
            "TOKEN_URL=https://auth.example/token",
            "--authority=x",
            "Authorization: Bearer ${GITHUB_TOKEN}",
            "postgres://${DB_USER}:${DB_PASS}@db/prod",
            "API_KEY=${API_KEY}",
            "remote MCP endpoint 'h.example' declares no authentication (no Authorization/token header or env)",
            "@modelcontextprotocol/server-github",
            "a bearer of news",
        ] {
            assert_eq!(shown(text), text, "{text}");
        }
    }

    #[test]
    fn overlapping_spans_are_redacted_once() {
        let text = "postgres://admin:ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8@db";
        let out = shown(text);
        assert_eq!(out.matches("…(len").count(), 1, "{out}");
        assert!(
            out.starts_with("postgres://") && out.ends_with("@db"),
            "{out}"
        );
    }

    #[test]
    fn display_neutralises_after_redacting() {
        assert_eq!(shown("a\u{1b}[2Kb"), "a\u{FFFD}[2Kb");
        let long = format!("token={}", "x".repeat(500));
        let out = shown(&long);
        assert!(!out.contains("xxxxx"), "{out}");
    }

    #[test]
    fn degenerate_separator_runs_do_not_panic() {
        // Runs of separators and half-formed shapes at every offset: no index
        // arithmetic may step outside the text or off a char boundary.
        for text in [
            "=".repeat(1 << 20),
            ":".repeat(1 << 20),
            "a=".repeat(1 << 19),
            "://@".repeat(1 << 18),
            "bearer ".repeat(1 << 17),
            "é=\"é:'é://é@".repeat(1 << 14),
        ] {
            let _ = display(&text);
        }
    }
}
