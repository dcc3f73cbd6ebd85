//! WRD-SEC-*: vendor secret patterns and the entropy heuristic.
//!
//! This module owns *what a secret looks like*: the vendor regexes, the entropy
//! heuristic, and the token-likeness test that keeps the heuristic quiet on package
//! names and paths in launch arguments and URLs. It never decides whether a value is
//! a reference or a placeholder (see `super::refs`), and every snippet it builds
//! goes through [`redact_secret`].

use crate::hash::HashSet;
use crate::hash::HashSetExt;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet, RegexSetBuilder};

use super::text::shannon_entropy;
use crate::model::EngineFinding;
use crate::rules::RuleId;
use crate::text::redact::redact_secret;

/// Entropy threshold, minimum token length and alphanumeric share of the reference.
pub(crate) const ENTROPY_THRESHOLD: f64 = 4.0;
const ENTROPY_MIN_LEN: usize = 24;
const ALNUM_DOMINANCE: f64 = 0.80;

/// Vendor patterns, searched in this order (the reference's order, which fixes the
/// order of findings for one value before sorting).
///
/// Beyond the reference: OpenAI project/service-account/admin keys and Anthropic keys
/// (`sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`, `sk-ant-…`) under WRD-SEC-OPENAI,
/// fine-grained GitHub tokens (`github_pat_…`) under WRD-SEC-GITHUB, and encrypted /
/// PGP private-key armour under WRD-SEC-PRIVKEY. The reference caught these only by
/// entropy (high, not critical), or not at all.
const VENDOR_PATTERNS: [(RuleId, &str); 6] = [
    (
        RuleId::SecOpenai,
        r"\bsk-(?:[A-Za-z0-9]{20,}\b|(?:proj|svcacct|admin|ant)-[A-Za-z0-9_-]{20,})",
    ),
    (
        RuleId::SecGithub,
        r"\bgh[pousr]_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{22,}",
    ),
    (RuleId::SecAwsAkid, r"\bAKIA[0-9A-Z]{16}\b"),
    (RuleId::SecSlack, r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b"),
    (
        RuleId::SecPrivkey,
        r"-----BEGIN (?:RSA |EC |OPENSSH |DSA |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----",
    ),
    (
        RuleId::SecJwt,
        r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b",
    ),
];

static VENDORS: LazyLock<Vec<(RuleId, Regex)>> = LazyLock::new(|| {
    VENDOR_PATTERNS
        .into_iter()
        .map(|(rule, pat)| (rule, Regex::new(pat).expect("constant vendor pattern")))
        .collect()
});

/// All bounded patterns in one automaton: most values hold no secret, and one pass
/// answers "any vendor pattern?" instead of one pass per pattern.
static VENDOR_SET: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(VENDOR_PATTERNS.iter().map(|(_, pat)| *pat)).expect("constant vendor patterns")
});

/// [`VENDOR_SET`] without Unicode, for ASCII values (nearly all of them). The
/// patterns' classes are ASCII already; only `\b` differs, and on ASCII text a
/// Unicode word character is an ASCII one, so both answer alike (a test checks).
/// Half the compile time of the Unicode form, which needs the Unicode word table.
static VENDOR_SET_ASCII: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSetBuilder::new(VENDOR_PATTERNS.iter().map(|(_, pat)| *pat))
        .unicode(false)
        .build()
        .expect("constant vendor patterns, ASCII form")
});

/// The length of the shortest text any vendor pattern matches, bounded or not
/// (`xoxb-` and ten characters; a test derives it from the patterns).
const SHORTEST_VENDOR_TOKEN: usize = 15;

/// Whether `value` may hold a vendor token: it is long enough for the shortest one
/// and contains a piece every match of some pattern starts with (`sk-`, `gh[pousr]_`,
/// `github_pat_`, `AKIA`, `xox[baprs]-`, `-----BEGIN `, `eyJ`). A necessary
/// condition, never a verdict: when it holds, the patterns decide.
///
/// Why: every launch word, env value and header is asked "any vendor token?" by the
/// audit, the lock namer, Next steps and the table, and nearly every answer is no.
/// This test answers most of them without the regex set's per-call setup (its
/// cache pool is shared between the threads that ask), and a home whose words hold
/// none of these pieces never compiles the sets at all. A test checks the pieces and
/// the length against the literals and the minimum length of every pattern, bounded
/// and unbounded, so a new pattern cannot slip past it.
fn may_hold_vendor_token(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() < SHORTEST_VENDOR_TOKEN {
        return false;
    }
    // Every piece holds one of four bytes that are rare in launch words, so only
    // the places of those bytes are looked at: `-` (`sk-`, `xox?-`, `-----BEGIN `),
    // `_` (`gh?_`, `github_pat_`), `K` (`AKIA`) and `J` (`eyJ`).
    let piece_at = |i: usize| {
        let from = |back: usize| i.checked_sub(back).map_or(&[][..], |start| &b[start..]);
        match b[i] {
            b'-' => {
                from(2).starts_with(b"sk-")
                    || matches!(
                        from(4),
                        [b'x', b'o', b'x', b'b' | b'a' | b'p' | b'r' | b's', b'-', ..]
                    )
                    || from(0).starts_with(b"-----BEGIN ")
            }
            b'_' => {
                matches!(
                    from(3),
                    [b'g', b'h', b'p' | b'o' | b'u' | b's' | b'r', b'_', ..]
                ) || from(6).starts_with(b"github_pat_")
            }
            b'K' => from(1).starts_with(b"AKIA"),
            b'J' => from(2).starts_with(b"eyJ"),
            _ => false,
        }
    };
    memchr::memchr3_iter(b'-', b'_', b'K', b).any(piece_at)
        || memchr::memchr_iter(b'J', b).any(piece_at)
}

/// Whether any bounded vendor pattern matches `value`, in the form its text needs.
fn any_vendor(value: &str) -> bool {
    if !may_hold_vendor_token(value) {
        return false;
    }
    if value.is_ascii() {
        VENDOR_SET_ASCII.is_match(value)
    } else {
        VENDOR_SET.is_match(value)
    }
}

/// The vendor patterns without their word boundaries, in one automaton like
/// [`VENDOR_SET`]. Findings keep the boundaries (the reference's verdicts); what may
/// be *printed* does not: a token glued to other text (`xyzghp_…`) is still a token
/// to whoever reads the line.
static VENDOR_UNBOUNDED_SET: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(
        VENDOR_PATTERNS
            .iter()
            .map(|(_, pat)| pat.replace(r"\b", "")),
    )
    .expect("constant vendor patterns")
});

/// How strict the entropy heuristic is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entropy {
    /// The reference heuristic, unchanged: header and env values.
    Reference,
    /// The reference heuristic AND [`looks_like_token`]: launch arguments and URL
    /// parts, where package names and paths (`@modelcontextprotocol/server-github`,
    /// `--allowed-directories=/home/alice/Documents`) clear 4.0 bits/char.
    TokenLike,
}

/// One secret found in a value: its rule and where it sits.
pub(crate) struct Hit {
    pub rule: RuleId,
    pub span: Range<usize>,
}

fn is_entropy_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '=' | '.' | '-')
}

fn hits(value: &str, mode: Entropy) -> Vec<Hit> {
    let mut out = Vec::new();
    // Shorter than any vendor token and than an entropy token (most names, flags
    // and commands): nothing to find, and nothing made to look for it.
    if value.len() < SHORTEST_VENDOR_TOKEN.min(ENTROPY_MIN_LEN) {
        return out;
    }
    // Made at the first vendor match or token kept (most values have none): each
    // new set draws a seed of its own.
    let mut seen: Option<HashSet<&str>> = None;
    // One pass answers the common case (no vendor secret); only then are the
    // per-pattern regexes compiled and run.
    if any_vendor(value) {
        for (rule, re) in VENDORS.iter() {
            for m in re.find_iter(value) {
                seen.get_or_insert_with(HashSet::new).insert(m.as_str());
                out.push(Hit {
                    rule: *rule,
                    span: m.range(),
                });
            }
        }
    }
    // Vendor matches by start, swept once alongside the tokens (which come in
    // position order): `reach` is the furthest end of any match starting before the
    // current token ends, so "overlaps a vendor match" is one comparison instead of
    // a pass over every match per token.
    let mut vendor_spans: Vec<Range<usize>> = out.iter().map(|h| h.span.clone()).collect();
    vendor_spans.sort_by_key(|s| s.start);
    let mut next_span = 0;
    let mut reach = 0;

    // Candidate tokens: maximal runs of the reference's token alphabet (it splits on
    // everything else). All runs are ASCII, so byte length is code-point length.
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_entropy_char(bytes[i] as char) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_entropy_char(bytes[i] as char) {
            i += 1;
        }
        let token = &value[start..i];
        if token.len() < ENTROPY_MIN_LEN || token.contains('.') {
            continue;
        }
        // The reference skips a token that contains, or is contained in, a string
        // already matched. Position overlap with a vendor match plus exact repeats
        // give the same verdicts on real values in linear time.
        while let Some(span) = vendor_spans.get(next_span).filter(|s| s.start < i) {
            reach = reach.max(span.end);
            next_span += 1;
        }
        if reach > start || seen.as_ref().is_some_and(|seen| seen.contains(token)) {
            continue;
        }
        let alnum = token.bytes().filter(u8::is_ascii_alphanumeric).count();
        if (alnum as f64) / (token.len() as f64) < ALNUM_DOMINANCE {
            continue;
        }
        if shannon_entropy(token) < ENTROPY_THRESHOLD {
            continue;
        }
        if mode == Entropy::TokenLike && !looks_like_token(token) {
            continue;
        }
        seen.get_or_insert_with(HashSet::new).insert(token);
        out.push(Hit {
            rule: RuleId::SecEntropy,
            span: start..i,
        });
    }
    out
}

/// The message of a vendor-pattern finding after its rule id, as the earlier
/// implementation wrote it (`pin` records it so in a lock). Doctor, which knows the
/// field, names it at the end ([`name_the_field`]).
pub const VENDOR_MESSAGE: &str = "possible secret in field";
/// The message of an entropy finding after its rule id.
pub const ENTROPY_MESSAGE: &str = "high-entropy token (possible secret)";

/// `message` naming `field` when it is one of this engine's messages, which do not
/// say where the secret is: `WRD-SEC-SLACK: possible secret in field env.SLACK_TOKEN`,
/// `WRD-SEC-ENTROPY: high-entropy token (possible secret) in field args[2]`. A reader
/// of the message alone (a SARIF alert, a JSONL line) then knows which value to
/// revoke and replace.
pub fn name_the_field(message: &mut crate::model::Message, field: &str) {
    let joint = if message.ends_with(VENDOR_MESSAGE) {
        " "
    } else if message.ends_with(ENTROPY_MESSAGE) {
        " in field "
    } else {
        return;
    };
    let message = message.to_mut();
    message.push_str(joint);
    message.push_str(field);
}

fn to_findings(value: &str, hits: Vec<Hit>) -> Vec<EngineFinding> {
    hits.into_iter()
        .map(|h| {
            let raw = value.get(h.span).unwrap_or_default();
            let message = if h.rule == RuleId::SecEntropy {
                format!("WRD-SEC-ENTROPY: {ENTROPY_MESSAGE}")
            } else {
                format!("{}: {VENDOR_MESSAGE}", h.rule.as_str())
            };
            EngineFinding::new(h.rule, message, redact_secret(raw))
        })
        .collect()
}

/// Vendor-pattern and entropy findings in one header or env value, exactly as the
/// reference scans them. Vendor findings come first, then entropy. Snippets are
/// redacted.
pub fn scan_field(value: &str) -> Vec<EngineFinding> {
    to_findings(value, hits(value, Entropy::Reference))
}

/// Like [`scan_field`], for launch arguments and URL parts: the entropy heuristic
/// additionally requires `looks_like_token`.
pub fn scan_launch_text(value: &str) -> Vec<EngineFinding> {
    to_findings(value, hits(value, Entropy::TokenLike))
}

/// True when the value contains a vendor-pattern secret (not entropy alone).
pub fn has_vendor_secret(value: &str) -> bool {
    any_vendor(value)
}

/// True when a vendor pattern occurs anywhere in the value, even glued to other text.
/// A superset of [`has_vendor_secret`], for deciding what a printed line may show.
pub fn contains_vendor_pattern(value: &str) -> bool {
    may_hold_vendor_token(value) && VENDOR_UNBOUNDED_SET.is_match(value)
}

/// Byte ranges of every secret [`scan_launch_text`] would report, for in-place
/// redaction of evidence snippets.
pub(crate) fn secret_spans(value: &str) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = hits(value, Entropy::TokenLike)
        .into_iter()
        .map(|h| h.span)
        .collect();
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    spans
}

/// The vendor patterns without their word boundaries, one regex each, for
/// [`vendor_pattern_spans`]; compiled only when [`VENDOR_UNBOUNDED_SET`] matched.
static VENDORS_UNBOUNDED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    VENDOR_PATTERNS
        .iter()
        .map(|(_, pat)| Regex::new(&pat.replace(r"\b", "")).expect("constant vendor pattern"))
        .collect()
});

/// Byte ranges of every vendor-pattern token in `value`, even glued to other text
/// (the spans of [`contains_vendor_pattern`]).
pub(crate) fn vendor_pattern_spans(value: &str) -> Vec<Range<usize>> {
    if !contains_vendor_pattern(value) {
        return Vec::new();
    }
    VENDORS_UNBOUNDED
        .iter()
        .flat_map(|re| re.find_iter(value).map(|m| m.range()))
        .collect()
}

/// Whether an alphanumeric piece reads as a word (or a number) rather than as
/// random data: all digits, all lowercase, all uppercase, or word-cased letters
/// (`AppData`, `getHTTPResponse`) — no lone lowercase letter between capitals and no
/// capital run longer than six letters in the middle.
fn is_wordy(piece: &str) -> bool {
    if piece.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    if !piece.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false; // letters mixed with digits: `aB3xK9`, `9f8e7d`
    }
    let b = piece.as_bytes();
    let mut i = 0;
    let mut first = true;
    while i < b.len() {
        let upper = b[i].is_ascii_uppercase();
        let start = i;
        while i < b.len() && b[i].is_ascii_uppercase() == upper {
            i += 1;
        }
        let run = i - start;
        let at_end = i == b.len();
        if upper && run > 6 && !at_end && !first {
            return false;
        }
        if !upper && run == 1 && !first && !at_end {
            return false; // `SkZ`: a lone lowercase letter between capitals
        }
        first = false;
    }
    true
}

/// The token-likeness rule (documented in `docs/divergences-engines.md`): split the
/// candidate at every non-alphanumeric character; it looks like a token when the
/// pieces that do not read as words ([`is_wordy`]) add up to 16 or more characters.
///
/// `@modelcontextprotocol/server-sequential-thinking`, `/home/alice/AppData/npm` and
/// `context7-mcp` are words; `aB3xK9mQ7pL2wR5tY8vN4jH6`, a base64 blob, a hex key or
/// a UUID are not.
pub(crate) fn looks_like_token(candidate: &str) -> bool {
    let mut non_word = 0usize;
    for piece in candidate.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !piece.is_empty() && !is_wordy(piece) {
            non_word += piece.len();
        }
    }
    non_word >= 16
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    fn rules(v: &str) -> Vec<(String, String)> {
        scan_field(v)
            .into_iter()
            .map(|f| (f.rule.as_str().to_string(), f.snippet))
            .collect()
    }

    fn pair(r: &str, s: &str) -> (String, String) {
        (r.to_string(), s.to_string())
    }

    /// Every vendor pattern, in both forms (with and without its word boundaries).
    fn every_vendor_form() -> Vec<String> {
        VENDOR_PATTERNS
            .iter()
            .flat_map(|(_, pat)| [pat.to_string(), pat.replace(r"\b", "")])
            .collect()
    }

    /// `may_hold_vendor_token` is a necessary condition of every pattern, derived
    /// from the patterns themselves: each form's shortest match is at least
    /// `SHORTEST_VENDOR_TOKEN` bytes, and every literal a match can start with passes
    /// the prefilter wherever it sits in a value. A pattern added or changed so that
    /// a match could escape the prefilter fails here.
    #[test]
    fn vendor_prefilter_covers_every_pattern() {
        use regex_syntax::hir::literal::{ExtractKind, Extractor};
        let mut shortest = usize::MAX;
        for form in every_vendor_form() {
            let hir = regex_syntax::parse(&form).unwrap();
            let min = hir.properties().minimum_len().unwrap();
            assert!(min >= SHORTEST_VENDOR_TOKEN, "{form}: matches {min} bytes");
            shortest = shortest.min(min);
            let prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
            let literals = prefixes
                .literals()
                .unwrap_or_else(|| panic!("{form}: no finite prefixes"));
            assert!(!literals.is_empty(), "{form}");
            for literal in literals {
                let literal = std::str::from_utf8(literal.as_bytes()).unwrap();
                assert!(!literal.is_empty(), "{form}: a match may start anywhere");
                // '.' starts no piece, so only `literal` can make these pass.
                let pad = ".".repeat(SHORTEST_VENDOR_TOKEN);
                for value in [
                    format!("{literal}{pad}"),
                    format!("..{literal}{pad}"),
                    format!("{pad}{literal}"),
                ] {
                    assert!(may_hold_vendor_token(&value), "{form}: {value:?}");
                }
            }
        }
        assert_eq!(
            shortest, SHORTEST_VENDOR_TOKEN,
            "the length check is as strict as it can be"
        );
    }

    /// Near misses: the prefilter refuses what no pattern could match (too short, or
    /// a piece cut or changed by one byte), and on values built from pieces of
    /// tokens it never refuses what the sets match.
    #[test]
    fn vendor_prefilter_near_misses_and_agreement() {
        for value in [
            "npx",
            "@modelcontextprotocol/server-github",
            "--api-key=${API_KEY}",
            "xoxb-123456789",
            "s-k-AAAAAAAAAAAAAAAAAAAAAAA",
            "ghx_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "AKI_IOSFODNN7EXAMPLE",
            "xoxc-1234567890-abcdef",
            "----BEGIN PRIVATE KEY-----",
            "-----BEGINRSA PRIVATE KEY-----",
            "eYJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.abcdefghijkl",
        ] {
            assert!(!may_hold_vendor_token(value), "{value:?}");
        }
        let pieces = [
            "sk-",
            "proj-",
            "gh",
            "p_",
            "s_",
            "github_pat_",
            "AKIA",
            "xox",
            "b-",
            "-----BEGIN ",
            "RSA ",
            "PRIVATE KEY-----",
            "eyJ",
            ".",
            "abcdefghij.",
            "A1",
            "a_",
            "0123456789ABCDEF",
            "Z",
            " ",
            "é",
            "A1b2",
            "A1b2A1b2A1b2A1b2A1b2",
        ];
        // Sequences of up to eleven pieces (far too many to try them all): a fixed
        // pseudo-random sample of 200,000, the same every run.
        let mut matched = [[0usize; VENDOR_PATTERNS.len()]; 2];
        let mut generated = crate::test_gen::Generated::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200_000 {
            let value = generated.text(&pieces, 12);
            for (i, set) in [&*VENDOR_SET, &*VENDOR_UNBOUNDED_SET]
                .into_iter()
                .enumerate()
            {
                for pattern in set.matches(&value).iter() {
                    matched[i][pattern] += 1;
                    assert!(may_hold_vendor_token(&value), "{value:?}");
                }
            }
        }
        // The sample reaches every pattern in both forms, so it can catch a gap.
        assert!(matched.iter().flatten().all(|&n| n > 0), "{matched:?}");
    }

    /// The ASCII form of the vendor set answers exactly as the Unicode one on ASCII
    /// text: every pattern's token, alone, glued to word and non-word characters on
    /// either side, cut one short, and in every pairing with the others.
    #[test]
    fn ascii_vendor_set_agrees_with_the_unicode_one_on_ascii() {
        let tokens = [
            format!("sk-{}", "A1".repeat(10)),
            format!("sk-proj-{}", "a_".repeat(10)),
            format!("ghp_{}", "a".repeat(36)),
            format!("github_pat_{}", "B_".repeat(11)),
            "AKIAIOSFODNN7EXAMPLE".to_string(),
            format!("xoxb-{}", "1-".repeat(5)),
            "-----BEGIN ENCRYPTED PRIVATE KEY-----".to_string(),
            format!("eyJ{0}.{0}.{0}", "abcDEF_-12"),
        ];
        let edges = ["", " ", "x", "_", "9", "-", ".", "/", "=", "\"", "\t"];
        let mut cases = vec![String::new()];
        for t in &tokens {
            let short = &t[..t.len() - 1];
            for before in edges {
                for after in edges {
                    cases.push(format!("{before}{t}{after}"));
                    cases.push(format!("{before}{short}{after}"));
                }
            }
            for u in &tokens {
                cases.push(format!("{t}{u}"));
                cases.push(format!("{t} {u}"));
            }
        }
        for case in &cases {
            assert!(case.is_ascii());
            assert_eq!(
                VENDOR_SET_ASCII
                    .matches(case)
                    .into_iter()
                    .collect::<Vec<_>>(),
                VENDOR_SET.matches(case).into_iter().collect::<Vec<_>>(),
                "{case:?}"
            );
        }
    }

    // engines-reference §10.B, vectors 12–24.
    #[test]
    fn reference_vectors_10b() {
        let f = scan_field("token sk-ABCDEFGHIJ1234567890XYZ");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, RuleId::SecOpenai);
        assert_eq!(f[0].message, "WRD-SEC-OPENAI: possible secret in field");
        assert_eq!(f[0].snippet, "sk-A…(len=26)");
        assert_eq!(f[0].rule.severity().as_str(), "critical");

        assert_eq!(
            rules("AKIAIOSFODNN7EXAMPLE"),
            [pair("WRD-SEC-AWS-AKID", "AKIA…(len=20)")]
        );
        let gh = format!("ghp_{}", "a".repeat(36));
        assert_eq!(rules(&gh), [pair("WRD-SEC-GITHUB", "ghp_…(len=40)")]);
        assert_eq!(
            rules("-----BEGIN RSA PRIVATE KEY-----"),
            [pair("WRD-SEC-PRIVKEY", "----…(len=31)")]
        );
        let jwt =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4";
        assert_eq!(rules(jwt), [pair("WRD-SEC-JWT", "eyJh…(len=83)")]);
        assert_eq!(RuleId::SecJwt.severity().as_str(), "high");

        let f = scan_field("Zk8sQpR2mWvX9bN4tLcH7jYdAe6gUf3Q");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, RuleId::SecEntropy);
        assert_eq!(
            f[0].message,
            "WRD-SEC-ENTROPY: high-entropy token (possible secret)"
        );
        assert_eq!(f[0].snippet, "Zk8s…(len=32)");

        assert!(
            rules("this is a perfectly normal description of a tool that reads files").is_empty()
        );
        assert_eq!(
            rules("sk-ABCDEFGHIJ1234567890KLMNOPQRST"),
            [pair("WRD-SEC-OPENAI", "sk-A…(len=33)")]
        );
        let f = scan_field("key is sk-A1b2C3d4E5f6G7h8I9j0");
        assert!(!f.is_empty());
        for x in &f {
            assert!(!x.snippet.contains("sk-A1b2C3d4E5f6G7h8I9j0"));
            assert!(x.snippet.contains('…') && x.snippet.contains("(len="));
        }
        assert_eq!(
            rules("xoxb-1234567890-abcdef"),
            [pair("WRD-SEC-SLACK", "xoxb…(len=22)")]
        );
        assert_eq!(
            rules("aB3xK9mQ7pL2wR5tY8vN4jH6"),
            [pair("WRD-SEC-ENTROPY", "aB3x…(len=24)")]
        );
        assert!(rules("9f8e7d6c5b4a3e2d1c0b9a8f").is_empty());
        assert!(scan_field("").is_empty());
    }

    #[test]
    fn openai_project_key_is_vendor_unlike_reference() {
        // Reference vector 24 reported only WRD-SEC-ENTROPY (high).
        assert_eq!(
            rules("sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
            [pair("WRD-SEC-OPENAI", "sk-p…(len=44)")]
        );
        assert_eq!(
            rules("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz01"),
            [pair("WRD-SEC-OPENAI", "sk-a…(len=41)")]
        );
        // A hyphenated word after `sk-` is not a key.
        assert!(rules("sk-learn-compatible-models-here").is_empty());
    }

    #[test]
    fn fine_grained_github_token_is_vendor_unlike_reference() {
        let t = format!("github_pat_{}", "A1b2C3d4E5".repeat(4));
        assert_eq!(rules(&t)[0].0, "WRD-SEC-GITHUB");
        assert!(!has_vendor_secret("github_pat_short"));
    }

    #[test]
    fn vendor_near_misses() {
        assert!(rules("sk-short123").is_empty());
        assert!(rules(&format!("ghp_{}", "a".repeat(35))).is_empty());
        assert!(rules("AKIAIOSFODNN7EXAMPL").is_empty());
        assert!(rules("xoxz-1234567890-abcdef").is_empty());
        assert!(rules("-----BEGIN PUBLIC KEY-----").is_empty());
        assert!(rules("eyJhbGci.eyJzdWIi.Sfl").is_empty());
    }

    /// The shortest vendor token (15 bytes) is found alone, where `hits` starts
    /// looking; one byte shorter is below every pattern and is not.
    #[test]
    fn shortest_vendor_token_is_found_and_one_byte_less_is_not() {
        assert_eq!(
            rules("xoxb-1234567890"),
            [pair("WRD-SEC-SLACK", "xoxb…(len=15)")]
        );
        assert!(rules("xoxb-123456789").is_empty());
    }

    #[test]
    fn repeated_entropy_token_is_reported_once_like_reference() {
        let v = "aB3xK9mQ7pL2wR5tY8vN4jH6 aB3xK9mQ7pL2wR5tY8vN4jH6";
        assert_eq!(rules(v).len(), 1);
    }

    #[test]
    fn launch_text_entropy_requires_token_shape() {
        for benign in [
            "@modelcontextprotocol/server-github",
            "@modelcontextprotocol/server-sequential-thinking",
            "C:/Users/alice/AppData/Roaming/npm/node_modules/server",
            "--allowed-directories=/home/alice/Documents/work",
        ] {
            assert!(scan_launch_text(benign).is_empty(), "{benign}");
        }
        assert_eq!(
            scan_launch_text("aB3xK9mQ7pL2wR5tY8vN4jH6")[0].rule,
            RuleId::SecEntropy
        );
        assert_eq!(
            scan_launch_text("--key=Zk8sQpR2mWvX9bN4tLcH7jYdAe6gUf3Q").len(),
            1
        );
    }

    #[test]
    fn token_likeness() {
        assert!(!looks_like_token("server-sequential-thinking"));
        assert!(!looks_like_token("modelcontextprotocol/server-everything"));
        assert!(!looks_like_token("getHTTPResponseCodeFromServer"));
        assert!(looks_like_token("4AAQSkZJRgABAQAAAQABAAD"));
        assert!(looks_like_token("8b1f2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"));
        assert!(looks_like_token("9f8e7d6c5b4a3e2d1c0b9a8f"));
        assert!(!looks_like_token("context7-mcp"));
    }

    #[test]
    fn vendor_overlap_sweep_equals_the_pairwise_test() {
        // The entropy pass skips a token that overlaps any vendor match; the sweep
        // over matches sorted by start must skip exactly the tokens the pairwise test
        // did, for matches of several patterns in any order.
        let pieces = [
            "AKIAIOSFODNN7EXAMPLE",
            "sk-ABCDEFGHIJ1234567890XYZ",
            "xoxb-1234567890-abcdef",
            "aB3xK9mQ7pL2wR5tY8vN4jH6",
            "Zk8sQpR2mWvX9bN4tLcH7jYdAe6gUf3Q",
            " ",
            "-",
            "_",
            "/",
            "=",
        ];
        let mut generated = crate::test_gen::Generated::new(0x1234_5678_9abc_def1);
        for _ in 0..3000 {
            let value = generated.text(&pieces, 10);
            let found = hits(&value, Entropy::Reference);
            let vendor: Vec<Range<usize>> = found
                .iter()
                .filter(|h| h.rule != RuleId::SecEntropy)
                .map(|h| h.span.clone())
                .collect();
            for h in found.iter().filter(|h| h.rule == RuleId::SecEntropy) {
                assert!(
                    !vendor
                        .iter()
                        .any(|s| s.start < h.span.end && h.span.start < s.end),
                    "{value:?}: entropy hit {:?} overlaps a vendor match",
                    h.span
                );
            }
            // And no token that overlaps nothing was dropped: the heuristic alone
            // (pairwise overlap, exact repeats) finds the same entropy hits.
            let mut seen: HashSet<&str> = found
                .iter()
                .filter(|h| h.rule != RuleId::SecEntropy)
                .map(|h| &value[h.span.clone()])
                .collect();
            let expected: Vec<Range<usize>> = value
                .match_indices(|c: char| is_entropy_char(c))
                .fold(Vec::<Range<usize>>::new(), |mut runs, (i, c)| {
                    match runs.last_mut() {
                        Some(r) if r.end == i => r.end = i + c.len(),
                        _ => runs.push(i..i + c.len()),
                    }
                    runs
                })
                .into_iter()
                .filter(|r| {
                    let t = &value[r.clone()];
                    t.len() >= ENTROPY_MIN_LEN
                        && !t.contains('.')
                        && !vendor.iter().any(|s| s.start < r.end && r.start < s.end)
                        && (t.bytes().filter(u8::is_ascii_alphanumeric).count() as f64)
                            / (t.len() as f64)
                            >= ALNUM_DOMINANCE
                        && shannon_entropy(t) >= ENTROPY_THRESHOLD
                        && seen.insert(t)
                })
                .collect();
            let got: Vec<Range<usize>> = found
                .iter()
                .filter(|h| h.rule == RuleId::SecEntropy)
                .map(|h| h.span.clone())
                .collect();
            assert_eq!(got, expected, "{value:?}");
        }
    }
}
