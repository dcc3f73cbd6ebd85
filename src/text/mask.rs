//! Masking for the printed `mcp-warden pin` command (DOCTOR.md §3): which launch
//! arguments and which URL parts must never reach the terminal.
//!
//! This module decides *what* is masked; the renderer decides how a mask is printed.
//! The same argument classification feeds the auth audit (`crate::engines::auth`), so a
//! credential that is masked here is also reported there, and the evidence snippets
//! of the supply-chain checks are built from it.
//!
//! Rules, in order, for one argument (`prev` is the previous raw argument):
//! 1. a vendor-pattern secret anywhere in it masks it (entropy alone never does);
//! 2. a JSON object with an auth-shaped key (at any depth) is masked whole;
//! 3. a URL (`scheme://…`) is masked when [`mask_url`] would change it;
//! 4. `KEY=value` / `Key: value` (the earlier separator wins) with an auth-shaped
//!    key masks unless the value is a reference or empty; a header-carrying key
//!    (`--header=Authorization: …`) is judged on the header's value;
//! 5. after a flag (`-x`/`--x`, no `=`) that is auth-shaped, the argument masks
//!    unless it is a reference, empty, or itself a `--flag`; after a header flag the
//!    header's value decides.
//!
//! Auth-shaped means `super::keys::is_auth_flag`: word-based, so `--author`,
//! `--authority` and `--tokenizer` do not mask, and the argument after a combined
//! `--token=x` is not masked either.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use super::redact::{has_credential, redact_in_place, redact_secret};
use super::safe_text::{safe_text_capped, safe_text_capped_cow, ARGV_CAP};
use super::url::{split, UrlParts};
use crate::engines::keys::{is_auth_flag, is_auth_key, is_auth_query_key, is_header_flag};
use crate::engines::refs::is_secret_reference;
use crate::engines::secrets::{has_vendor_secret, looks_like_token};
use crate::engines::shell::{split_words, Tok};
use crate::engines::text::shannon_entropy;

/// How one argument is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgView<'a> {
    /// Printed as written (after safe_text and shell quoting).
    Verbatim(&'a str),
    /// Replaced by the quoted placeholder `'<REDACTED>'`.
    Redacted,
}

/// How a URL is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlView {
    /// Nothing to mask: print the URL byte-for-byte.
    Verbatim,
    /// Some query values, path segments or the fragment were replaced by `REDACTED`.
    Rewritten(String),
    /// The URL embeds userinfo: print `<REDACTED: url embeds a credential>`.
    Credential,
}

/// JSON arguments nested deeper than this are masked whole if they have any
/// auth-shaped key on the way down; deeper keys are not inspected.
const MAX_JSON_DEPTH: usize = 32;

/// Minimum length of a path segment, query value or fragment judged token-like.
const TOKEN_MIN_LEN: usize = 20;
/// Entropy threshold for URL pieces (lower than the finding threshold: a URL path
/// has no other context to go on).
const URL_ENTROPY_THRESHOLD: f64 = 3.5;

/// An auth-shaped key and the value it carries, found in one launch argument or URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Credential {
    /// The flag, `KEY`, header name, JSON key or query key, as written.
    pub key: String,
    /// The value as written (JSON string values decoded; URL values percent-decoded).
    /// It may be a reference: the audit decides.
    pub value: String,
}

#[derive(Debug, Default)]
pub(crate) struct ArgClass {
    pub mask: bool,
    pub credentials: Vec<Credential>,
}

fn is_ref(v: &str) -> bool {
    is_secret_reference(v)
}

/// `KEY=value` or `Key: value`, split at the earlier separator. The key must be a
/// single word (no whitespace) so prose and shell snippets are not read as pairs.
fn split_kv(arg: &str) -> Option<(&str, &str)> {
    let i = memchr::memchr2(b'=', b':', arg.as_bytes())?;
    let key = arg[..i].trim();
    if key.is_empty() || key.chars().any(char::is_whitespace) {
        return None;
    }
    Some((key, &arg[i + 1..]))
}

/// A header value (`Authorization: Bearer …`): masked unless what it sends is a
/// reference; a credential when the header name is auth-shaped.
fn classify_header(value: &str, out: &mut ArgClass) {
    match split_kv(value) {
        Some((name, v)) => {
            if !v.trim().is_empty() && !is_ref(v) {
                out.mask = true;
            }
            if is_auth_key(name) && !v.trim().is_empty() {
                out.credentials.push(Credential {
                    key: name.to_string(),
                    value: v.trim_start().to_string(),
                });
            }
        }
        None => {
            if !value.trim().is_empty() && !is_ref(value) {
                out.mask = true;
            }
        }
    }
}

fn classify_value(key: &str, value: &str, out: &mut ArgClass) {
    if is_header_flag(key) {
        classify_header(value, out);
        return;
    }
    if value.trim().is_empty() {
        return;
    }
    if !is_ref(value) {
        out.mask = true;
    }
    out.credentials.push(Credential {
        key: key.to_string(),
        value: value.to_string(),
    });
}

fn walk_json(map: &serde_json::Map<String, Value>, depth: usize, out: &mut ArgClass) {
    for (k, v) in map {
        if is_auth_flag(k) {
            out.mask = true;
            if let Value::String(s) = v {
                if !s.trim().is_empty() {
                    out.credentials.push(Credential {
                        key: k.clone(),
                        value: s.clone(),
                    });
                }
            }
        }
        if let Value::Object(inner) = v {
            if depth < MAX_JSON_DEPTH {
                walk_json(inner, depth + 1, out);
            }
        }
    }
}

/// Whether `s` starts with `scheme://`.
pub(crate) fn is_url(s: &str) -> bool {
    super::url::has_scheme(s)
}

/// How deep a script inside an argument (`sh -c "… sh -c '…'"`) is split into words
/// to judge its words like arguments.
const MAX_SCRIPT_DEPTH: usize = 4;

/// Classify one launch argument: whether the pin command must mask it, and which
/// auth-shaped key/value pairs it carries.
///
/// Beyond the shape rules of the module docs, an argument is also masked when a
/// credential sits anywhere inside it ([`credential_spans`]: `--db=postgres://u:p@h`,
/// a JSON string holding such a URL, `Authorization: Bearer …` inside a script), or
/// when it is a script one of whose words would be masked as an argument
/// (`sh -c "tool --token abc"`). Those two add to the mask only: the audit reports the
/// credentials of the shape rules.
pub(crate) fn classify_arg(prev: Option<&str>, arg: &str) -> ArgClass {
    classify_at_depth(prev, arg, 0)
}

/// The auth-shaped key/value pairs one launch argument carries (the shape rules'
/// credentials, as [`classify_arg`] finds them), without deciding the mask: the
/// audit reports credentials and prints no argument, and the mask's own scans (a
/// vendor pattern anywhere, a credential inside, a script's words) were most of its
/// time on arguments that carry nothing.
pub(crate) fn arg_credentials(prev: Option<&str>, arg: &str) -> Vec<Credential> {
    classify_for(prev, arg, Purpose::Credentials).credentials
}

/// What a classification is for: the printed line needs the mask and the
/// credentials, the audit only the credentials.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Mask,
    Credentials,
}

fn classify_at_depth(prev: Option<&str>, arg: &str, depth: usize) -> ArgClass {
    let mut out = classify_for(prev, arg, Purpose::Mask);
    if !out.mask && has_credential(arg) {
        out.mask = true;
    }
    if !out.mask && depth < MAX_SCRIPT_DEPTH && arg.contains(char::is_whitespace) {
        out.mask = script_has_masked_word(arg, depth + 1);
    }
    out
}

/// A word without `=`, `:` or `{`: most launch arguments (`-y`, `@scope/pkg@1.2.0`,
/// `./server.js`). Such a word is no JSON object, URL, `KEY=value` or `Key: value`
/// pair, so rules 2–4 are not looked for; rule 1, the flag before it (rule 5), the
/// credential scan and the script split still judge it. Skipping those scans took
/// the masking of `npx -y @scope/pkg@1.2.0` from about 255 to about 165 ns: every
/// uncovered launch of a home is masked for its pin line.
fn is_plain_word(arg: &str) -> bool {
    memchr::memchr3(b'=', b':', b'{', arg.as_bytes()).is_none()
}

/// Whether a word of the script `text`, judged as an argument after the word before
/// it, would be masked.
fn script_has_masked_word(text: &str, depth: usize) -> bool {
    let mut prev: Option<String> = None;
    for tok in split_words(text) {
        match tok {
            Tok::Word(w) => {
                if classify_at_depth(prev.as_deref(), &w, depth).mask {
                    return true;
                }
                prev = Some(w.into_owned());
            }
            Tok::Op(_) => prev = None,
        }
    }
    false
}

/// The shape rules 1–5 of the module docs (for `Purpose::Credentials`, the mask is
/// left unset and only what it needs alone is skipped).
fn classify_for(prev: Option<&str>, arg: &str, purpose: Purpose) -> ArgClass {
    classify_with(prev, arg, purpose, is_plain_word(arg))
}

/// [`classify_for`], told whether `arg` [`is_plain_word`]: rules 2–4 and the
/// `--flag=user:password` form are looked for only when it is not.
fn classify_with(prev: Option<&str>, arg: &str, purpose: Purpose, plain: bool) -> ArgClass {
    let mut out = ArgClass {
        mask: purpose == Purpose::Mask && has_vendor_secret(arg),
        credentials: Vec::new(),
    };
    if !plain {
        if arg.trim_start().starts_with('{') {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(arg) {
                walk_json(&map, 0, &mut out);
                return out;
            }
        }
        if is_url(arg) {
            if purpose == Purpose::Mask && mask_url(arg) != UrlView::Verbatim {
                out.mask = true;
            }
            out.credentials.extend(url_credentials(arg));
            return out;
        }
        if let Some((key, value)) = split_kv(arg) {
            if is_auth_flag(key) {
                classify_value(key, value, &mut out);
                return out;
            }
        }
    }
    if let Some(p) = prev {
        if p.starts_with('-') && !p.contains('=') && is_auth_flag(p) && !arg.starts_with("--") {
            classify_value(p, arg, &mut out);
        }
        if is_user_password(p, arg) {
            out.mask = true;
        }
    }
    if !plain {
        if let Some((flag, value)) = arg.split_once('=') {
            if is_user_password(flag, value) {
                out.mask = true;
            }
        }
    }
    out
}

/// `curl -u user:password`, `--user=…`, `--proxy-user …`, `-U …`: a `name:secret` pair
/// after a flag that takes one. A value after the colon that is only digits is a
/// `uid:gid` (`docker run -u 1000:1000`) and a reference carries nothing.
fn is_user_password(flag: &str, value: &str) -> bool {
    const USER_PASSWORD_FLAGS: &[&str] = &["-u", "--user", "-U", "--proxy-user"];
    if !USER_PASSWORD_FLAGS.contains(&flag) {
        return false;
    }
    match value.split_once(':') {
        Some((_, secret)) => {
            !secret.is_empty() && !secret.bytes().all(|b| b.is_ascii_digit()) && !is_ref(secret)
        }
        None => false,
    }
}

/// Decide, argument by argument, what the printed pin command may show.
pub fn mask_args(args: &[String]) -> Vec<ArgView<'_>> {
    let mut prev: Option<&str> = None;
    args.iter()
        .map(|a| {
            let view = if classify_arg(prev, a).mask {
                ArgView::Redacted
            } else {
                ArgView::Verbatim(a.as_str())
            };
            prev = Some(a.as_str());
            view
        })
        .collect()
}

/// Printed instead of an argument that carries a credential.
pub const REDACTED_ARG: &str = "<REDACTED>";

/// Printed instead of a URL that carries a credential.
pub const REDACTED_URL: &str = "<REDACTED: url embeds a credential>";

/// One word of a line the user pastes or commits, before quoting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown<'a> {
    /// The word as printed: after [`safe_text`](fn@super::safe_text) (capped at
    /// [`ARGV_CAP`] code points), and holding no credential of any recognised shape.
    Word(Cow<'a, str>),
    /// Withheld: printed as a placeholder ([`REDACTED_ARG`] or [`REDACTED_URL`]).
    Withheld,
}

/// How a launch word is printed: withheld when `classify_arg` masks it, or when
/// its *printed* form holds a credential shape (neutralising a character can create
/// a word boundary the raw text lacked, `\u{200D}ghp_…`; a command word is not an
/// argument `classify_arg` judges).
pub fn shown_word<'a>(prev: Option<&str>, word: &'a str, is_argument: bool) -> Shown<'a> {
    if is_argument && classify_arg(prev, word).mask {
        return Shown::Withheld;
    }
    let printed = safe_text_capped_cow(word, ARGV_CAP);
    // An argument `classify_arg` passed holds no credential shape as written; only a
    // printed form that differs (or the command, which it does not judge) is scanned.
    let scanned = is_argument && matches!(printed, Cow::Borrowed(_));
    if !scanned && has_credential(&printed) {
        return Shown::Withheld;
    }
    Shown::Word(printed)
}

/// The command and arguments of a stdio server as a pasted line may show them (the
/// command first; `None` when the server declares none).
pub fn shown_argv<'a>(
    command: Option<&'a str>,
    args: &'a [String],
) -> (Option<Shown<'a>>, Vec<Shown<'a>>) {
    let command = command.map(|c| shown_word(None, c, false));
    let mut prev: Option<&str> = None;
    let args = args
        .iter()
        .map(|a| {
            let shown = shown_word(prev, a, true);
            prev = Some(a.as_str());
            shown
        })
        .collect();
    (command, args)
}

/// How a server URL is printed: byte-for-byte after safe_text when nothing needs
/// masking, with the [`mask_url`] edits otherwise, and withheld when it embeds userinfo
/// or its printed form still holds a credential shape.
pub fn shown_url(url: &str) -> Shown<'_> {
    let safe = safe_text_capped_cow(url, ARGV_CAP);
    let shown = match mask_url(&safe) {
        UrlView::Verbatim => safe,
        UrlView::Rewritten(s) => Cow::Owned(safe_text_capped(&s, ARGV_CAP)),
        UrlView::Credential => return Shown::Withheld,
    };
    if has_credential(&shown) {
        return Shown::Withheld;
    }
    Shown::Word(shown)
}

/// Percent-decode (and `+` → space when `plus` is set), lossily. Borrows when there
/// is nothing to decode: a URL query of thousands of plain pairs is judged pair by
/// pair, and copying each key and value was most of that time.
pub(crate) fn percent_decode(s: &str, plus: bool) -> Cow<'_, str> {
    if !s.bytes().any(|c| c == b'%' || (plus && c == b'+')) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(percent_decode_owned(s, plus))
}

fn percent_decode_owned(s: &str, plus: bool) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A URL piece that is a secret by itself: a vendor pattern, or 20+ characters that
/// are high-entropy *and* token-like (so `/server-sequential-thinking/` stays).
pub(crate) fn is_token_piece(s: &str) -> bool {
    has_vendor_secret(s)
        || (s.chars().count() >= TOKEN_MIN_LEN
            && shannon_entropy(s) >= URL_ENTROPY_THRESHOLD
            && looks_like_token(s))
}

/// `(key, value)` ranges of `&`-separated pairs inside `range` of `url`.
fn pairs(url: &str, range: Range<usize>) -> Vec<(Range<usize>, Option<Range<usize>>)> {
    let mut out = Vec::new();
    let mut start = range.start;
    for piece in url[range.clone()].split('&') {
        let end = start + piece.len();
        match piece.find('=') {
            Some(eq) => out.push((start..start + eq, Some(start + eq + 1..end))),
            None => out.push((start..end, None)),
        }
        start = end + 1;
    }
    out
}

/// Whether a query or fragment pair must hide its value.
fn pair_is_secret(url: &str, key: &Range<usize>, value: &Range<usize>) -> bool {
    if value.is_empty() {
        return false;
    }
    let k = percent_decode(&url[key.clone()], true);
    let v = percent_decode(&url[value.clone()], true);
    (is_auth_query_key(&k) && !v.trim().is_empty() && !is_ref(&v)) || is_token_piece(&v)
}

/// The edits that mask a URL, without the userinfo rule.
fn url_edits(url: &str, p: &UrlParts) -> Vec<Range<usize>> {
    let mut edits = Vec::new();
    let mut start = p.path.start;
    for seg in url[p.path.clone()].split('/') {
        let end = start + seg.len();
        if !seg.is_empty() && is_token_piece(&percent_decode(seg, false)) {
            edits.push(start..end);
        }
        start = end + 1;
    }
    if let Some(q) = p.query.clone() {
        for (k, v) in pairs(url, q) {
            if let Some(v) = v {
                if pair_is_secret(url, &k, &v) {
                    edits.push(v);
                }
            }
        }
    }
    if let Some(f) = p.fragment.clone().filter(|f| !f.is_empty()) {
        let whole = is_token_piece(&percent_decode(&url[f.clone()], false));
        let any_pair = pairs(url, f.clone())
            .iter()
            .any(|(k, v)| v.as_ref().is_some_and(|v| pair_is_secret(url, k, v)));
        if whole || any_pair {
            edits.push(f);
        }
    }
    edits
}

fn apply(url: &str, edits: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(url.len());
    let mut at = 0;
    for e in edits {
        out.push_str(&url[at..e.start]);
        out.push_str("REDACTED");
        at = e.end;
    }
    out.push_str(&url[at..]);
    out
}

/// Decide what the printed `--url` may show. `url` has already been through safe_text.
///
/// Userinfo masks the whole URL. Otherwise an auth-shaped query value, a token-like
/// query value, path segment or fragment, and a fragment with an auth-shaped pair
/// become `REDACTED`; every other byte is kept as written (the query is never
/// re-encoded). Scheme and host always stay visible.
pub fn mask_url(url: &str) -> UrlView {
    let p = split(url);
    if p.userinfo(url).is_some() {
        return UrlView::Credential;
    }
    let edits = url_edits(url, &p);
    if edits.is_empty() {
        UrlView::Verbatim
    } else {
        UrlView::Rewritten(apply(url, &edits))
    }
}

/// Auth-shaped query and fragment pairs of a URL, values percent-decoded.
pub(crate) fn url_credentials(url: &str) -> Vec<Credential> {
    let p = split(url);
    let mut out = Vec::new();
    for range in [p.query.clone(), p.fragment.clone()].into_iter().flatten() {
        for (k, v) in pairs(url, range) {
            let Some(v) = v else { continue };
            let key = percent_decode(&url[k], true).into_owned();
            let value = percent_decode(&url[v], true).into_owned();
            if is_auth_query_key(&key) && !value.trim().is_empty() {
                out.push(Credential { key, value });
            }
        }
    }
    out
}

/// An endpoint for an error message: `scheme://host[:port]/path` with the
/// userinfo, query and fragment dropped and every token-like path segment replaced
/// by `REDACTED`, so a capture error never prints a credential that the URL carried.
pub fn display_url(url: &str) -> String {
    let p = split(url);
    let mut out = match p.scheme(url) {
        Some(s) => format!("{s}://{}", p.host(url)),
        None => p.host(url).to_string(),
    };
    let path = &url[p.path.clone()];
    for (i, seg) in path.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        if !seg.is_empty() && is_token_piece(&percent_decode(seg, false)) {
            out.push_str("REDACTED");
        } else {
            out.push_str(seg);
        }
    }
    out
}

/// A URL fit for an evidence snippet: userinfo replaced by `REDACTED` (the host
/// stays, unlike the pin command), then the [`mask_url`] edits.
fn snippet_url(url: &str) -> String {
    let p = split(url);
    let mut edits = Vec::new();
    if let Some(u) = p.userinfo(url) {
        edits.push(p.authority.start..p.authority.start + u.len());
    }
    edits.extend(url_edits(url, &p));
    edits.sort_by_key(|e| e.start);
    apply(url, &edits)
}

/// Evidence-safe forms of a sequence of words (an argv, or a shell script split into
/// words): a word the pin command would mask is shown as [`redact_secret`] of it (a
/// URL as its masked form), and any secret left inside other words is redacted in
/// place. Used for the WRD-SUP-* snippets.
pub(crate) fn snippet_words<S: AsRef<str>>(words: &[S]) -> Vec<String> {
    let mut prev: Option<&str> = None;
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        let w = w.as_ref();
        let class = classify_arg(prev, w);
        let shown = if is_url(w) {
            redact_in_place(&snippet_url(w))
        } else if !class.credentials.is_empty() {
            // Masked for its shape (after an auth flag, `KEY=value`, JSON): the whole
            // word is the secret.
            redact_secret(w)
        } else {
            // A vendor token or a credential inside the word is redacted in place, so
            // `pkg-ghp_…(len=40)` still names the package; a word masked for a reason
            // no span shows (a script word after `--token`) is withheld whole.
            let in_place = redact_in_place(w);
            if class.mask && in_place == w {
                redact_secret(w)
            } else {
                in_place
            }
        };
        out.push(shown);
        prev = Some(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const UUID: &str = "8b1f2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
    const BEARER: &str = "ghs_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8";
    const GHP_ENG: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const HIGH: &str = "qZ8vB2nM4kL7pX1cR9tW5yA3sD6fG0hJ";

    fn views(args: &[&str]) -> Vec<Option<String>> {
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        mask_args(&owned)
            .into_iter()
            .map(|v| match v {
                ArgView::Verbatim(s) => Some(s.to_string()),
                ArgView::Redacted => None,
            })
            .collect()
    }

    fn v(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    /// The plain-word path decides as every rule would: the mask, and the audit's
    /// credentials, of a generated word after a generated flag are those of the
    /// classification that looks for every shape. A byte let into `is_plain_word`
    /// that starts one of rules 2–4 (`:` of a URL or pair, `=`, `{`) fails it.
    #[test]
    fn plain_words_are_classified_as_every_rule_would() {
        let every_rule = |prev: Option<&str>, arg: &str| {
            let mut out = classify_with(prev, arg, Purpose::Mask, false);
            out.mask = out.mask
                || has_credential(arg)
                || (arg.contains(char::is_whitespace) && script_has_masked_word(arg, 1));
            out
        };
        let pieces = [
            "a",
            "-",
            "--",
            "_",
            ".",
            "/",
            "@",
            "K",
            "J",
            "x",
            "7",
            "sk-",
            "ghp_",
            "AKIA",
            "eyJ",
            "xoxb-",
            "token",
            "bearer",
            "Bearer ",
            " ",
            "=",
            ":",
            "//",
            "{",
            "}",
            "\"",
            "user",
            "-u",
            "pw",
            "${T}",
            "é",
            "\t",
            "\u{b}",
            "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4",
        ];
        let flags = [
            None,
            Some("-y"),
            Some("--token"),
            Some("-u"),
            Some("--header"),
            Some("--api-key=x"),
        ];
        let mut generated = crate::test_gen::Generated::new(0x2545_F491_4F6C_DD1D);
        let mut plain = 0;
        for i in 0..40_000 {
            let arg = generated.text(&pieces, 10);
            let prev = flags[i % flags.len()];
            plain += usize::from(is_plain_word(&arg));
            let fast = classify_at_depth(prev, &arg, 0);
            let full = every_rule(prev, &arg);
            assert_eq!(fast.mask, full.mask, "{prev:?} {arg:?}");
            assert_eq!(
                arg_credentials(prev, &arg),
                classify_with(prev, &arg, Purpose::Credentials, false).credentials,
                "{prev:?} {arg:?}"
            );
        }
        // Both paths were taken, and plain words were masked and passed.
        assert!(plain > 1_000, "{plain} plain words");
        assert!(classify_arg(None, GHP_ENG).mask && is_plain_word(GHP_ENG));
        assert!(!classify_arg(Some("-y"), "@scope/pkg@1.2.0").mask);
        assert!(classify_arg(Some("--token"), "abc123").mask && is_plain_word("abc123"));
    }

    /// The audit's credentials are the printed line's: every argument after every
    /// other, whatever its shape.
    #[test]
    fn credentials_alone_are_the_credentials_of_the_full_classification() {
        let words = [
            "",
            "-y",
            "--token",
            "--token=abc123",
            "--api-key",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
            "${TOKEN}",
            "API_KEY=s3cr3t-value",
            "Authorization: Bearer abc.def",
            "-H",
            "--header",
            "X-Api-Key: k",
            "https://u:p@host.example.com/x?token=abc&x=1#key=v",
            "https://host.example.com/mcp",
            r#"{"token": "abc", "nested": {"password": "p"}}"#,
            r#"{"a": 1"#,
            "sh -c \"tool --token abc\"",
            "-u",
            "user:pass",
            "--user=me:1000",
            "postgres://u:p@h/db",
            "@scope/pkg@1.2.3",
            "--password",
            " ",
        ];
        for prev in std::iter::once(None).chain(words.iter().map(|w| Some(*w))) {
            for arg in words {
                assert_eq!(
                    arg_credentials(prev, arg),
                    classify_arg(prev, arg).credentials,
                    "{prev:?} then {arg:?}"
                );
            }
        }
    }

    #[test]
    fn user_password_flags_mask_their_pair() {
        assert_eq!(views(&["-u", "admin:Hunter2pw"]), [v("-u"), None]);
        assert_eq!(views(&["--user=admin:Hunter2pw"]), [None]);
        assert_eq!(views(&["--proxy-user", "a:b"]), [v("--proxy-user"), None]);
        // Near misses: a uid:gid, a reference, a flag without a pair.
        assert_eq!(views(&["-u", "1000:1000"]), [v("-u"), v("1000:1000")]);
        assert_eq!(views(&["-u", "admin:${PW}"]), [v("-u"), v("admin:${PW}")]);
        assert_eq!(
            views(&["python", "-u", "server.py"]),
            [v("python"), v("-u"), v("server.py")]
        );
        // Inside a script, judged word by word.
        let script = "curl -u admin:Hunter2pw https://x.example/i";
        assert_eq!(views(&["-c", script]), [v("-c"), None]);
    }

    #[test]
    fn display_url_hides_credentials() {
        assert_eq!(
            display_url("https://u:p@h.example:8443/mcp?token=x#f"),
            "https://h.example:8443/mcp"
        );
        assert_eq!(
            display_url("https://h.example/api/mcp/s/qZ8vB2nM4kL7pX1cR9tW5yA3sD6fG0hJ/mcp"),
            "https://h.example/api/mcp/s/REDACTED/mcp"
        );
        assert_eq!(display_url("wss://a:b@h.example"), "wss://h.example");
    }

    // doctor-reference test 17.
    #[test]
    fn doctor_test_17_secret_shaped_args_and_url_credentials() {
        assert_eq!(
            views(&["s.js", "--token", GHP_ENG, "a b"]),
            [v("s.js"), v("--token"), None, v("a b")]
        );
        assert_eq!(
            views(&["-y", "@modelcontextprotocol/server-github"]),
            [v("-y"), v("@modelcontextprotocol/server-github")]
        );
        let flagged = views(&[
            "--api-key",
            HIGH,
            "--api-key",
            "${KEY}",
            &format!("TOKEN={HIGH}"),
        ]);
        assert_eq!(
            flagged,
            [v("--api-key"), None, v("--api-key"), v("${KEY}"), None]
        );
        assert_eq!(
            mask_url("https://u:tok@h.example.com/mcp"),
            UrlView::Credential
        );
        assert_eq!(mask_url("https://h.example.com/mcp"), UrlView::Verbatim);
    }

    // doctor-reference tests 33a–e.
    #[test]
    fn doctor_test_33_flag_header_and_json_shapes() {
        assert_eq!(
            views(&["run", "@x/y", "--key", UUID]),
            [v("run"), v("@x/y"), v("--key"), None]
        );
        let h = format!("Authorization: Bearer {BEARER}");
        assert_eq!(views(&["--header", &h]), [v("--header"), None]);
        let h = format!("Authorization=Bearer {BEARER}");
        assert_eq!(views(&["-H", &h]), [v("-H"), None]);
        let json = format!("{{\"apiKey\": \"{UUID}\"}}");
        assert_eq!(views(&["--config", &json]), [v("--config"), None]);
        let h = format!("Authorization: Bearer {BEARER}");
        assert_eq!(views(&[&h]), [None]);
    }

    // doctor-reference test 34.
    #[test]
    fn doctor_test_34_references_and_package_names_stay() {
        let args = [
            "--key",
            "${SMITHERY_KEY}",
            "--key",
            "%SMITHERY_KEY%",
            "-y",
            "@smithery/cli@1.2.3",
        ];
        let expected: Vec<Option<String>> = args.iter().map(|a| v(a)).collect();
        assert_eq!(views(&args), expected);
    }

    // doctor-reference tests 35a–c.
    #[test]
    fn doctor_test_35_url_path_tokens_and_auth_query() {
        assert_eq!(
            mask_url(&format!(
                "https://mcp.zapier.com/api/mcp/s/{BEARER}{BEARER}/mcp"
            )),
            UrlView::Rewritten("https://mcp.zapier.com/api/mcp/s/REDACTED/mcp".into())
        );
        assert_eq!(
            mask_url(&format!(
                "https://server.smithery.ai/x/mcp?api_key={UUID}&profile=p"
            )),
            UrlView::Rewritten(
                "https://server.smithery.ai/x/mcp?api_key=REDACTED&profile=p".into()
            )
        );
        assert_eq!(
            mask_url(&format!("https://h.example.com/mcp?token={UUID}")),
            UrlView::Rewritten("https://h.example.com/mcp?token=REDACTED".into())
        );
    }

    // doctor-reference test 49.
    #[test]
    fn doctor_test_49_underscored_auth_flag() {
        assert_eq!(
            views(&["--openai_api_key", BEARER]),
            [v("--openai_api_key"), None]
        );
        // Not a vendor hit: the flag alone decides.
        assert_eq!(
            views(&["--openai_api_key", UUID]),
            [v("--openai_api_key"), None]
        );
    }

    // doctor-reference test 50.
    #[test]
    fn doctor_test_50_fragment_and_clean_round_trip() {
        assert_eq!(
            mask_url(&format!("https://h.example.com/mcp#token={UUID}")),
            UrlView::Rewritten("https://h.example.com/mcp#REDACTED".into())
        );
        assert_eq!(
            mask_url("https://h.example.com/a%20b/mcp?profile=p&x=1#frag"),
            UrlView::Verbatim
        );
    }

    #[test]
    fn vendor_always_masks_entropy_never_does() {
        assert_eq!(views(&[GHP_ENG]), [None]);
        assert_eq!(views(&["-k", GHP_ENG]), [v("-k"), None]);
        assert_eq!(views(&["-k", UUID]), [v("-k"), v(UUID)]);
        assert_eq!(views(&[HIGH]), [v(HIGH)]);
        assert_eq!(
            views(&["@modelcontextprotocol/server-sequential-thinking"]),
            [v("@modelcontextprotocol/server-sequential-thinking")]
        );
    }

    #[test]
    fn substring_flags_do_not_mask_unlike_reference() {
        assert_eq!(views(&["--author", "alice"]), [v("--author"), v("alice")]);
        assert_eq!(views(&["--authority", "x"]), [v("--authority"), v("x")]);
        assert_eq!(views(&["--tokenizer", "x"]), [v("--tokenizer"), v("x")]);
        assert_eq!(
            views(&["--oauth-client-id", "x"]),
            [v("--oauth-client-id"), v("x")]
        );
        // The argument after a combined `--token=x` is a new argument.
        assert_eq!(views(&["--token=x", "next"]), [None, v("next")]);
    }

    #[test]
    fn flag_forms() {
        assert_eq!(views(&["--API_KEY", "abc"]), [v("--API_KEY"), None]);
        assert_eq!(views(&["--password", "hunter2"]), [v("--password"), None]);
        assert_eq!(views(&["--cookie", "sid=abc"]), [v("--cookie"), None]);
        assert_eq!(
            views(&["--token", "--verbose"]),
            [v("--token"), v("--verbose")]
        );
        assert_eq!(views(&["--token", ""]), [v("--token"), v("")]);
        assert_eq!(views(&["token", "abc"]), [v("token"), v("abc")]);
        assert_eq!(views(&["api_key=abc"]), [None]);
        assert_eq!(views(&["api_key=${K}"]), [v("api_key=${K}")]);
        assert_eq!(views(&["X-API-Key: abc"]), [None]);
        assert_eq!(views(&["--port=8080"]), [v("--port=8080")]);
        assert_eq!(views(&["C:\\tools\\srv.js"]), [v("C:\\tools\\srv.js")]);
    }

    #[test]
    fn header_flag_with_reference_is_printed_unlike_reference() {
        assert_eq!(
            views(&["--header", "Authorization: Bearer ${TOKEN}"]),
            [v("--header"), v("Authorization: Bearer ${TOKEN}")]
        );
        assert_eq!(
            views(&["--header", "X-Tenant: acme"]),
            [v("--header"), None]
        );
    }

    #[test]
    fn json_args() {
        assert_eq!(views(&["{\"auth\": {\"user\": \"x\"}}"]), [None]);
        assert_eq!(views(&["{\"nested\": {\"token\": \"x\"}}"]), [None]);
        assert_eq!(views(&["{\"port\": 8080}"]), [v("{\"port\": 8080}")]);
        assert_eq!(views(&["{not json"]), [v("{not json")]);
    }

    #[test]
    fn url_args_are_masked_when_the_url_would_be() {
        let u = format!("https://h.example.com/mcp?api_key={UUID}");
        assert_eq!(views(&[&u]), [None]);
        assert_eq!(
            views(&["https://h.example.com/mcp"]),
            [v("https://h.example.com/mcp")]
        );
    }

    #[test]
    fn url_rules() {
        assert_eq!(
            mask_url("https://h.example.com/server-sequential-thinking/mcp"),
            UrlView::Verbatim
        );
        assert_eq!(
            mask_url("https://h.example.com/mcp?key="),
            UrlView::Verbatim
        );
        assert_eq!(
            mask_url("https://h.example.com/mcp?api_key=${KEY}"),
            UrlView::Verbatim
        );
        assert_eq!(
            mask_url("https://h.example.com/mcp?a=b%20c&sig=abc&x=1"),
            UrlView::Rewritten("https://h.example.com/mcp?a=b%20c&sig=REDACTED&x=1".into())
        );
        assert_eq!(
            mask_url(&format!("https://h.example.com/mcp?x={GHP_ENG}")),
            UrlView::Rewritten("https://h.example.com/mcp?x=REDACTED".into())
        );
        assert_eq!(
            mask_url(&format!("https://h.example.com/{UUID}/mcp")),
            UrlView::Rewritten("https://h.example.com/REDACTED/mcp".into())
        );
        assert_eq!(
            mask_url("https://h.example.com/mcp#section-2"),
            UrlView::Verbatim
        );
        assert_eq!(mask_url("https://@h.example.com"), UrlView::Credential);
        assert_eq!(mask_url("not a url"), UrlView::Verbatim);
        assert_eq!(mask_url(""), UrlView::Verbatim);
        assert_eq!(mask_url("https://h.example.com/%"), UrlView::Verbatim);
    }

    #[test]
    fn snippets_redact_credentials() {
        let words = [
            "curl",
            "-H",
            "Authorization: Bearer abc123",
            "https://u:p@x.example/i?token=zzz",
            "|",
            "sh",
        ];
        let s = snippet_words(&words).join(" ");
        assert!(
            !s.contains("abc123") && !s.contains("u:p") && !s.contains("zzz"),
            "{s}"
        );
        assert!(s.contains("x.example") && s.ends_with("| sh"), "{s}");
        let s = snippet_words(&["--api-key", "KEY123"]).join(" ");
        assert_eq!(s, "--api-key KEY…(len=6)");
    }
}
