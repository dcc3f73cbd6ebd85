//! Which names carry authentication material: config keys (env, headers, URL query
//! parameters, JSON keys) and command-line flags.
//!
//! One word-based rule serves the audit and the pin-command masking, so a name the
//! audit treats as auth-shaped is also masked, and vice versa. Names are split into
//! words (`OPENAI_API_KEY` → `openai api key`, `xAuthToken` → `x auth token`) instead
//! of the earlier implementation's substring test, which made `AUTHOR`, `--authority`,
//! `--tokenizer` and `MAX_TOKENS` auth-shaped.

use super::text::words;

/// Whole names (words joined by `-`) that are auth-shaped on their own.
const EXACT_KEYS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "apikey",
    "token",
    "cookie",
    "auth",
];

/// Flags whose value is a credential, local to the pin command (DOCTOR.md §3): wider
/// than the config keys because launch lines carry credentials in more shapes
/// (Smithery's `--key <uuid>`, mcp-remote's `--header "Authorization: …"`).
const FLAG_NAMES: &[&str] = &[
    "key",
    "api-key",
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "pat",
    "bearer",
    "credential",
    "credentials",
    "cookie",
    "auth",
    "authorization",
    "header",
    "h",
];

/// Words that make a name auth-shaped wherever they appear.
const STRONG_WORDS: &[&str] = &[
    "secret",
    "secrets",
    "password",
    "passwd",
    "passphrase",
    "credential",
    "credentials",
    "creds",
    "cookie",
    "cookies",
    "bearer",
    "authorization",
    "authn",
    "auth",
    "apikey",
    "pat",
    "token",
];

/// Words that start with `auth` or contain `token`/`secret` but name something else.
const BENIGN_WORDS: &[&str] = &[
    "author",
    "authors",
    "authored",
    "authoring",
    "authorship",
    "authority",
    "authorities",
    "authoritative",
    "authorize",
    "authorized",
    "authorizes",
    "secretary",
    "secretariat",
];

/// A last word that says the name describes a credential rather than holding one:
/// `TOKEN_URL`, `AUTH_TYPE`, `SECRET_NAME`, `PASSWORD_FILE`, `TOKEN_LIMIT`.
const DESCRIPTOR_WORDS: &[&str] = &[
    "url",
    "uri",
    "urls",
    "endpoint",
    "endpoints",
    "host",
    "hostname",
    "port",
    "domain",
    "type",
    "kind",
    "mode",
    "method",
    "scheme",
    "provider",
    "strategy",
    "flow",
    "file",
    "filename",
    "path",
    "dir",
    "directory",
    "location",
    "enabled",
    "enable",
    "disabled",
    "disable",
    "required",
    "timeout",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "lifetime",
    "scope",
    "scopes",
    "audience",
    "issuer",
    "realm",
    "version",
    "format",
    "name",
    "user",
    "username",
    "email",
    "id",
    "prefix",
    "limit",
    "count",
    "size",
    "length",
    "region",
    "store",
    "backend",
    "algorithm",
    "alg",
];

/// `<word> key` names that are not credentials.
const BENIGN_KEY_PREFIXES: &[&str] = &[
    "sort",
    "primary",
    "partition",
    "foreign",
    "hash",
    "cache",
    "group",
    "index",
    "unique",
    "order",
    "shard",
    "sharding",
    "routing",
    "public",
    "publishable",
    "lookup",
    "row",
    "column",
    "map",
    "dict",
    "composite",
    "natural",
    "surrogate",
    "idempotency",
    "dedup",
    "dedupe",
    "hot",
    "shortcut",
];

fn strong_word(w: &str) -> bool {
    if BENIGN_WORDS.contains(&w) {
        return false;
    }
    if STRONG_WORDS.contains(&w) {
        return true;
    }
    // Run-together names: `githubtoken`, `clientsecret`, `pgpassword`, `authtoken`.
    // `maxtokens` and `tokenizer` count tokens, they do not hold one.
    (w.contains("token") && !w.ends_with("tokens") && !w.contains("tokeniz"))
        || (w.contains("secret") && !w.contains("secretar"))
        || w.contains("password")
        || w.contains("passwd")
        || w.contains("apikey")
        || w.starts_with("auth")
}

/// `ws` joined with `-` is `key` (compared piecewise: no joined string is built;
/// this runs for every query key of every URL).
fn joined_is(ws: &[String], key: &str) -> bool {
    let mut parts = key.split('-');
    ws.iter().all(|w| parts.next() == Some(w.as_str())) && parts.next().is_none()
}

fn words_are_auth(ws: &[String]) -> bool {
    let Some(last) = ws.last() else {
        return false;
    };
    if EXACT_KEYS.iter().any(|k| joined_is(ws, k)) {
        return true;
    }
    if DESCRIPTOR_WORDS.contains(&last.as_str()) {
        return false;
    }
    if ws.iter().any(|w| strong_word(w)) {
        return true;
    }
    // `API_KEY`, `OPENAI_KEY`, `X-Goog-Api-Key`, `Ocp-Apim-Subscription-Key`; not
    // `SORT_KEY` or `PUBLIC_KEY`, and not a bare `KEY` config key.
    ws.len() >= 2 && last == "key" && !BENIGN_KEY_PREFIXES.contains(&ws[ws.len() - 2].as_str())
}

/// Fragments one of which every auth-shaped name contains, in any case: every
/// entry of [`EXACT_KEYS`] and [`STRONG_WORDS`], the run-together forms of
/// `strong_word`, and `<word> key`. A cheap negative test, so the printers can ask
/// about every `KEY=` they print without splitting each key into words
/// (`fragments_cover_every_auth_word` keeps it in step with the lists).
const AUTH_FRAGMENTS: &[&str] = &[
    "auth", "token", "secret", "pass", "key", "cookie", "bearer", "cred", "pat",
];

/// False only for a name that cannot be auth-shaped. Non-ASCII names are always
/// examined: Unicode lowercasing maps some other letters onto ASCII ones (U+212A
/// KELVIN SIGN lowercases to `k`).
///
/// One pass over the name, each place tried against the fragments that start with
/// its letter, instead of one pass per fragment: it is asked about every flag and
/// `KEY=` of every launch by the audit and by Next steps.
fn may_be_auth(name: &str) -> bool {
    if !name.is_ascii() {
        return true;
    }
    let b = name.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        // Most bytes start no fragment: one table lookup says so.
        let mut starting = FRAGMENTS_STARTING_WITH
            .get(usize::from(c))
            .copied()
            .unwrap_or(0);
        while starting != 0 {
            let index = starting.trailing_zeros() as usize;
            starting &= starting - 1;
            let matched = AUTH_FRAGMENTS.get(index).is_some_and(|f| {
                b.get(i..i + f.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(f.as_bytes()))
            });
            if matched {
                return true;
            }
        }
        false
    })
}

/// For each byte, the set (bit `i` for `AUTH_FRAGMENTS[i]`) of fragments whose first
/// letter it is, in either case ([`may_be_auth`]).
const FRAGMENTS_STARTING_WITH: [u16; 256] = {
    assert!(AUTH_FRAGMENTS.len() <= 16, "one bit per fragment in a u16");
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < AUTH_FRAGMENTS.len() {
        let first = AUTH_FRAGMENTS[i].as_bytes()[0];
        table[first.to_ascii_lowercase() as usize] |= 1 << i;
        table[first.to_ascii_uppercase() as usize] |= 1 << i;
        i += 1;
    }
    table
};

/// Whether `name` contains the lowercase ASCII `fragment`, in any case; always true
/// for a non-ASCII name (see [`may_be_auth`]).
fn contains_ignore_case(name: &str, fragment: &str) -> bool {
    if !name.is_ascii() {
        return true;
    }
    name.as_bytes()
        .windows(fragment.len())
        .any(|w| w.eq_ignore_ascii_case(fragment.as_bytes()))
}

/// Whether a config key (env name, header name, URL query key, JSON key) names
/// authentication material.
pub(crate) fn is_auth_key(name: &str) -> bool {
    may_be_auth(name) && words_are_auth(&words(name))
}

/// Whether a command-line flag or a `KEY=value` key is auth-shaped for the pin
/// command: the doctor-local flag set (case-insensitive, with or without dashes, raw
/// or `_`→`-` folded), or an auth-shaped key.
pub(crate) fn is_auth_flag(token: &str) -> bool {
    let name = token.trim_start_matches('-');
    if name.is_empty() {
        return false;
    }
    if in_flag_names(name) {
        return true;
    }
    // The word rules below need an auth fragment or `header` somewhere in the name:
    // most flags and query keys have neither, and splitting each into words was most
    // of the time on a query of thousands of pairs.
    if !may_be_auth(name) && !contains_ignore_case(name, "header") {
        return false;
    }
    let ws = words(name);
    words_are_auth(&ws)
        || (ws.iter().any(|w| w == "header" || w == "headers")
            && !ws
                .last()
                .is_some_and(|l| DESCRIPTOR_WORDS.contains(&l.as_str())))
}

/// `name` lowercased, with `_` folded to `-`, is one of [`FLAG_NAMES`]. ASCII
/// names are compared in place; others are lowercased first (a non-ASCII letter
/// such as the Kelvin sign can lowercase to ASCII).
fn in_flag_names(name: &str) -> bool {
    if name.is_ascii() {
        let fold = |b: u8| match b {
            b'_' => b'-',
            b => b.to_ascii_lowercase(),
        };
        return FLAG_NAMES.iter().any(|f| {
            f.len() == name.len() && f.bytes().zip(name.bytes()).all(|(a, b)| a == fold(b))
        });
    }
    let folded = name.to_lowercase().replace('_', "-");
    FLAG_NAMES.contains(&folded.as_str())
}

/// Flags whose value is a whole HTTP header (`--header "Authorization: Bearer …"`).
pub(crate) fn is_header_flag(token: &str) -> bool {
    let name = token.trim_start_matches('-').to_lowercase();
    matches!(name.as_str(), "h" | "header" | "headers")
        || name.ends_with("-header")
        || name.ends_with("_header")
}

/// Query keys that are auth-shaped by name alone (case-insensitive).
const QUERY_KEYS: &[&str] = &[
    "api_key",
    "apikey",
    "key",
    "token",
    "access_token",
    "secret",
    "sig",
    "signature",
    "auth",
];

/// URL query keys that carry a credential even when the word rule would not say so
/// (`sig`, `signature`, `key`).
pub(crate) fn is_auth_query_key(key: &str) -> bool {
    let listed = if key.is_ascii() {
        QUERY_KEYS.iter().any(|q| q.eq_ignore_ascii_case(key))
    } else {
        QUERY_KEYS.contains(&key.to_lowercase().as_str())
    };
    listed || is_auth_flag(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_cover_every_auth_word() {
        for w in FLAG_NAMES {
            // Matched exactly before the fragments are consulted.
            assert!(is_auth_flag(w) && is_auth_flag(&format!("--{w}")), "{w}");
        }
        for w in EXACT_KEYS.iter().chain(STRONG_WORDS) {
            assert!(may_be_auth(w), "{w}");
            assert!(may_be_auth(&w.to_uppercase()), "{w}");
        }
        assert!(may_be_auth("OPENAI_KEY") && may_be_auth("githubtoken"));
        assert!(!may_be_auth("MAX_RETRIES") && !may_be_auth("--port"));
        // Non-ASCII names are never filtered out.
        assert!(is_auth_key("TO\u{212A}EN"));
    }

    /// The one-pass fragment test answers as one case-insensitive search per
    /// fragment does, on names built from pieces of the fragments, their cases and
    /// their neighbours (a fragment cut at the end, glued to another, repeated).
    #[test]
    fn may_be_auth_agrees_with_a_search_per_fragment() {
        let naive = |name: &str| {
            !name.is_ascii()
                || AUTH_FRAGMENTS.iter().any(|f| {
                    name.as_bytes()
                        .windows(f.len())
                        .any(|w| w.eq_ignore_ascii_case(f.as_bytes()))
                })
        };
        let pieces = [
            "a", "au", "AUT", "auth", "t", "to", "TOKE", "token", "se", "SECRE", "secret", "pa",
            "pas", "PASS", "pat", "p", "k", "ke", "KEY", "c", "coo", "COOKI", "cookie", "cr",
            "cre", "cred", "b", "bea", "BEARE", "bearer", "_", "-", "x", "é",
        ];
        let mut generated = crate::test_gen::Generated::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let name = generated.text(&pieces, 24);
            assert_eq!(may_be_auth(&name), naive(&name), "{name:?}");
        }
        for name in ["", "a", "pa", "pat", "PaT", "xke", "kex", "bearer"] {
            assert_eq!(may_be_auth(name), naive(name), "{name:?}");
        }
    }

    #[test]
    fn auth_keys() {
        for k in [
            "Authorization",
            "X-API-Key",
            "api-key",
            "apikey",
            "token",
            "X-Auth-Token",
            "Api-Token",
            "Private-Token",
            "Cookie",
            "Proxy-Authorization",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "BRAVE_API_KEY",
            "OPENAI_KEY",
            "PGPASSWORD",
            "DB_PASSWORD",
            "CLIENT_SECRET",
            "authToken",
            "GITHUBTOKEN",
            "X-Goog-Api-Key",
            "Ocp-Apim-Subscription-Key",
            "SLACK_BOT_TOKEN",
            "GITHUB_PAT",
            "AUTH",
            "JWT_SECRET",
            "SECRET_KEY_BASE",
            "x-access-token",
        ] {
            assert!(is_auth_key(k), "{k}");
        }
        for k in [
            "AUTHOR",
            "AUTHOR_NAME",
            "MAX_TOKENS",
            "maxTokens",
            "TOKENIZER_PATH",
            "TOKEN_URL",
            "AUTH_TYPE",
            "SECRET_NAME",
            "PASSWORD_FILE",
            "SORT_KEY",
            "PUBLIC_KEY",
            "KEY",
            "PATH",
            "HOME",
            "OAUTH_CLIENT_ID",
            "AWS_ACCESS_KEY_ID",
            "X-Request-Id",
            "Content-Type",
            "API_KEY_FILE",
        ] {
            assert!(!is_auth_key(k), "{k}");
        }
    }

    #[test]
    fn in_place_comparisons_equal_the_allocating_ones() {
        let pieces = [
            "-", "_", "a", "K", "key", "Token", "API", "auth", "\u{212A}", "é", "h", "x",
        ];
        let mut generated = crate::test_gen::Generated::new(0x6a09_e667_f3bc_c908);
        for _ in 0..20_000 {
            let name = generated.text(&pieces, 6);
            let folded = name.to_lowercase().replace('_', "-");
            assert_eq!(
                in_flag_names(&name),
                FLAG_NAMES.contains(&folded.as_str()),
                "{name:?}"
            );
            let ws = words(&name);
            assert_eq!(
                EXACT_KEYS.iter().any(|k| joined_is(&ws, k)),
                EXACT_KEYS.contains(&ws.join("-").as_str()),
                "{name:?}"
            );
            assert_eq!(
                is_auth_query_key(&name),
                QUERY_KEYS.contains(&name.to_lowercase().as_str()) || is_auth_flag(&name),
                "{name:?}"
            );
        }
        // The Kelvin sign lowercases to an ASCII `k`.
        assert!(in_flag_names("\u{212A}ey"));
        assert!(is_auth_query_key("\u{212A}EY"));
    }

    #[test]
    fn auth_flags() {
        for f in [
            "--key",
            "-key",
            "key",
            "--api-key",
            "--openai_api_key",
            "--openai-api-key",
            "--token",
            "--pat",
            "--bearer",
            "--credentials",
            "--cookie",
            "--auth",
            "--header",
            "-H",
            "-h",
            "--TOKEN",
            "--client-secret",
            "--extra-header",
            "Authorization",
        ] {
            assert!(is_auth_flag(f), "{f}");
        }
        for f in [
            "--author",
            "--authority",
            "--tokenizer",
            "-k",
            "--keyfile",
            "--oauth-client-id",
            "--port",
            "--header-file",
            "-y",
            "--",
        ] {
            assert!(!is_auth_flag(f), "{f}");
        }
    }
}
