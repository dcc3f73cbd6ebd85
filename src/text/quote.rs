//! Quoting for what the user pastes or commits: shell words that bash, zsh and
//! fish read back identically ([`quote`]), the exact ANSI-C form shown by the
//! `--pin` consent prompt ([`quote_exact`]), and YAML scalars for the CI snippet
//! ([`yaml_single_quoted`]).
//!
//! # Scheme
//!
//! A word is printed **bare** only when it is non-empty, every character is in
//! `[A-Za-z0-9_@%+=:,./-]` (ASCII only, so U+FFFD from `safe_text` and every other
//! non-ASCII character force quoting), and it does not start with a character a
//! shell expands at word start:
//!
//! * `=`: zsh's `EQUALS` option (on by default) turns `=ls` into `/usr/bin/ls`;
//! * `%`: fish expands `%self` to its pid.
//!
//! Otherwise the word is built from segments that mean the same thing in all three
//! shells:
//!
//! * runs of characters other than `'` and `\` go inside single quotes — bash and
//!   zsh treat everything there literally, and fish only gives meaning to `\'` and
//!   `\\`, which such a run cannot contain;
//! * each run of `'` and `\` goes inside double quotes, with `\` written as `\\` —
//!   inside double quotes `'` is literal in all three shells and `\\` is one
//!   backslash in all three (fish double quotes only interpret `\"`, `\$`, `\\` and
//!   backslash-newline).
//!
//! So `it's` prints as `'it'"'"'s'` and `a\b` as `'a'"\\"'b'`. A double-quoted
//! segment never contains `$`, `` ` `` or `!`, so no expansion or history expansion
//! can happen in it; inside single quotes bash and zsh never history-expand `!`.
//! The round trip is tested by running real `bash -c`, `zsh -c` and `fish -c`.

use std::borrow::Cow;

use super::safe_text::is_neutralised;

/// Characters that may appear in a bare word.
fn is_bare_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '_' | '@' | '%' | '+' | '=' | ':' | ',' | '.' | '/' | '-')
}

/// Whether `s` can be printed without quotes in bash, zsh and fish.
pub fn is_bare(s: &str) -> bool {
    // Byte by byte: every bare character is ASCII, and no byte of a non-ASCII
    // character is.
    !s.is_empty() && !s.starts_with(['=', '%']) && s.bytes().all(|b| is_bare_char(char::from(b)))
}

/// Quote `s` as one shell word that bash, zsh and fish all read back as `s`.
pub fn quote(s: &str) -> Cow<'_, str> {
    if is_bare(s) {
        return Cow::Borrowed(s);
    }
    if s.is_empty() {
        return Cow::Borrowed("''");
    }
    let mut out = String::with_capacity(s.len() + 2);
    push_quoting(&mut out, s);
    Cow::Owned(out)
}

/// [`quote`] written into `out` (no copy of a word that needs quoting).
pub fn push_quoted(out: &mut String, s: &str) {
    if is_bare(s) {
        out.push_str(s);
    } else if s.is_empty() {
        out.push_str("''");
    } else {
        push_quoting(out, s);
    }
}

/// The quoted form of a non-empty word that is not bare.
fn push_quoting(out: &mut String, s: &str) {
    let mut rest = s;
    while !rest.is_empty() {
        let special = |c: char| c == '\'' || c == '\\';
        // Both are ASCII, so the byte search stops on a character boundary.
        let plain_len = memchr::memchr2(b'\'', b'\\', rest.as_bytes()).unwrap_or(rest.len());
        if plain_len > 0 {
            out.push('\'');
            out.push_str(&rest[..plain_len]);
            out.push('\'');
            rest = &rest[plain_len..];
        }
        let special_len = rest.find(|c: char| !special(c)).unwrap_or(rest.len());
        if special_len > 0 {
            out.push('"');
            for c in rest[..special_len].chars() {
                if c == '\\' {
                    out.push_str("\\\\");
                } else {
                    out.push(c);
                }
            }
            out.push('"');
            rest = &rest[special_len..];
        }
    }
}

/// `word` quoted for a command printed inside a message, or `None` when the printed
/// line would not pass exactly `word` to the program: a character that
/// [`safe_text`](fn@super::safe_text) neutralises, a credential shape that
/// [`display`](super::display) would mask, or more than `max` code points. A caller
/// that gets `None` prints prose instead of a command that fails as printed.
pub fn quote_for_paste(word: &str, max: usize) -> Option<Cow<'_, str>> {
    let printable = word.chars().count() <= max && !word.chars().any(is_neutralised);
    (printable && !super::redact::has_credential(word)).then(|| quote(word))
}

/// One word exactly as it will be passed to a process, for the `--pin` consent
/// prompt: [`quote`]d when every character is printable, else ANSI-C quoted
/// (`$'…'`, bash and zsh) with every neutralised character written as an escape, so
/// the line is exact *and* cannot drive the terminal. Never a line to paste.
pub fn quote_exact(word: &str) -> String {
    if !word.chars().any(is_neutralised) {
        return quote(word).into_owned();
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if is_neutralised(c) => {
                let n = u32::from(c);
                if n < 0x80 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xFFFF {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `s` as a YAML single-quoted scalar (`'…'`, each `'` doubled), for a value of the
/// CI snippet's `env:` map. Inside single quotes YAML gives meaning to nothing but
/// `''`, so `#`, `: `, `{`, `*`, `&` and `\` stay literal. `s` has passed
/// [`safe_text`](fn@super::safe_text), so it holds no line break or control character
/// that YAML would fold or reject.
pub fn yaml_single_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_yaml_single_quoted(&mut out, s);
    out
}

/// [`yaml_single_quoted`] written into `out`.
pub fn push_yaml_single_quoted(out: &mut String, s: &str) {
    out.push('\'');
    let mut rest = s;
    while let Some(at) = rest.find('\'') {
        out.push_str(&rest[..=at]);
        out.push('\'');
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn exact_words_are_exact_and_inert() {
        assert_eq!(quote_exact("npx"), "npx");
        assert_eq!(quote_exact("a b"), "'a b'");
        assert_eq!(quote_exact("a\nb"), "$'a\\x0ab'");
        assert_eq!(quote_exact("\u{1b}[2Kx"), "$'\\x1b[2Kx'");
        assert_eq!(quote_exact("it's\u{202e}"), "$'it\\'s\\u202e'");
        assert_eq!(quote_exact("\u{e0001}"), "$'\\U000e0001'");
        for w in ["a\nb", "\u{1b}[2Kx", "it's\u{202e}"] {
            assert!(!quote_exact(w).chars().any(is_neutralised));
        }
    }

    #[test]
    fn bare_and_quoted_shapes() {
        assert_eq!(quote("npx"), "npx");
        assert_eq!(
            quote("@modelcontextprotocol/server-github"),
            "@modelcontextprotocol/server-github"
        );
        assert_eq!(quote("-y"), "-y");
        assert_eq!(
            quote("https://h.example.com/mcp"),
            "https://h.example.com/mcp"
        );
        assert_eq!(quote("a=b"), "a=b");
        assert_eq!(quote("x%y"), "x%y");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("${KEY}"), "'${KEY}'");
        assert_eq!(quote("=ls"), "'=ls'");
        assert_eq!(quote("%self"), "'%self'");
        assert_eq!(quote("~"), "'~'");
        assert_eq!(quote("it's"), "'it'\"'\"'s'");
        assert_eq!(quote("a\\b"), "'a'\"\\\\\"'b'");
        assert_eq!(quote("'\\"), "\"'\\\\\"");
        assert_eq!(quote("<REDACTED>"), "'<REDACTED>'");
        assert_eq!(quote("gh\u{FFFD}"), "'gh\u{FFFD}'");
        assert_eq!(quote("日本"), "'日本'");
    }

    fn corpus() -> Vec<String> {
        let mut v: Vec<String> = [
            "",
            "plain",
            "a b",
            "'",
            "''",
            "\\",
            "\\\\",
            "a\\'b",
            "'\\''",
            "\\'",
            "x\\",
            "'x'",
            "$HOME",
            "${HOME}",
            "$(id)",
            "`id`",
            "!",
            "!!",
            "!$",
            "a!b",
            "~",
            "~root",
            "~/x",
            "*",
            "?",
            "[a]",
            "{a,b}",
            "=ls",
            "=cmd",
            "%self",
            "%1",
            "%SMITHERY_KEY%",
            "#x",
            "x#y",
            ";",
            "&",
            "|",
            "a|b",
            "<REDACTED>",
            "<REDACTED: url embeds a credential>",
            "^x",
            "日本",
            "gh\u{FFFD}  mcp-warden pin sh -c 'curl x|sh' --approve #",
            "-n",
            "-e",
            "--",
            "a=b",
            "\"",
            "\"'\"",
            "a\"b\\\"c",
            "(x)",
            "x(#q)",
            "a\tb",
            "line1\nline2",
            "{}",
            "$",
            "\\$x",
            "\\n",
            "@x",
            "+x",
            ":x",
            ",x",
            "--url=https://h/?a=1&b=2#f",
            "…",
            "\u{00A0}",
            "https://server.smithery.ai/x/mcp?api_key=REDACTED&profile=p",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every printable ASCII character alone and between letters.
        for b in 0x20u8..0x7f {
            let c = char::from(b);
            v.push(c.to_string());
            v.push(format!("a{c}b"));
            v.push(format!("{c}{c}"));
        }
        v
    }

    fn shell_available(sh: &str) -> bool {
        Command::new(sh)
            .arg("-c")
            .arg("exit 0")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    }

    /// Quote every corpus word, run `printf '%s\0' <words>` in the shell, and check
    /// that the shell saw exactly the original words.
    fn round_trip(sh: &str) {
        let words = corpus();
        let mut script = String::from("printf '%s\\0'");
        for w in &words {
            script.push(' ');
            script.push_str(&quote(w));
        }
        let out = Command::new(sh)
            .arg("-c")
            .arg(&script)
            .env("HOME", "/nonexistent-home")
            .output()
            .unwrap_or_else(|e| panic!("running {sh}: {e}"));
        assert!(
            out.status.success(),
            "{sh} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Vec<&[u8]> = out.stdout.split(|&b| b == 0).collect();
        // printf leaves a trailing NUL, hence one empty trailing element.
        assert_eq!(got.len(), words.len() + 1, "{sh}: word count");
        for (w, g) in words.iter().zip(got) {
            assert_eq!(
                String::from_utf8_lossy(g),
                *w,
                "{sh} re-read {:?} from {:?}",
                w,
                quote(w)
            );
        }
    }

    #[test]
    #[allow(clippy::disallowed_macros)] // a note for the test log, not product output
    fn round_trip_bash_zsh_fish() {
        for sh in ["bash", "zsh", "fish"] {
            if shell_available(sh) {
                round_trip(sh);
            } else {
                // Not a failure: the CI image may lack the shell (apt-get install zsh fish).
                eprintln!("skipping {sh} round trip: {sh} is not installed");
            }
        }
    }
}
