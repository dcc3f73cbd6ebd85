//! How human output is drawn: whether it is coloured, and how wide it may be. One
//! decision for every printer of colour — the doctor report, `--servers`, `auth
//! audit` and clap's own usage errors and help — so `--color`, `NO_COLOR`,
//! `CLICOLOR`, `CLICOLOR_FORCE` and `TERM=dumb` mean the same thing everywhere.
//!
//! Colour is ANSI SGR around fixed words only (severities, headings); it never
//! goes into a line meant to be pasted, nor into JSONL or SARIF.

use std::ffi::OsString;

use crate::cli::ColorChoice;
use crate::rules::Severity;

pub use crate::output::Stream;

impl Stream {
    /// The columns available on this stream: the terminal's width when it is a
    /// terminal, else `COLUMNS` when it holds a width, else [`DEFAULT_WIDTH`].
    pub fn width(self) -> usize {
        self.terminal_width()
            .or_else(|| columns(std::env::var_os("COLUMNS")))
            .unwrap_or(DEFAULT_WIDTH)
    }

    /// Whether output to this stream is coloured under `choice` and the process
    /// environment (see [`use_color`]).
    pub fn color(self, choice: ColorChoice) -> bool {
        use_color(choice, self.is_terminal(), |name| std::env::var_os(name))
    }
}

/// The width of a pipe when `COLUMNS` does not say.
pub const DEFAULT_WIDTH: usize = 80;

/// `COLUMNS` as a width: a positive decimal number of at most 65535 (a terminal's
/// width is 16 bits); anything else is ignored.
pub fn columns(value: Option<OsString>) -> Option<usize> {
    let text = value?.into_string().ok()?;
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|&w| w > 0).map(usize::from)
}

/// The colour decision, in precedence order:
///
/// 1. `--color never` / `--color always` decide alone;
/// 2. `NO_COLOR` set to anything non-empty: no colour (<https://no-color.org>);
/// 3. `CLICOLOR_FORCE` set and not `0`: colour, even to a pipe;
/// 4. `CLICOLOR=0`: no colour;
/// 5. not a terminal: no colour;
/// 6. `TERM=dumb`: no colour;
/// 7. otherwise colour.
///
/// `NO_COLOR` beats `CLICOLOR_FORCE` as in clap's own `anstream`, so a user's
/// opt-out is never undone by another program's setting; a flag beats both.
pub fn use_color(
    choice: ColorChoice,
    is_terminal: bool,
    var: impl Fn(&str) -> Option<OsString>,
) -> bool {
    match choice {
        ColorChoice::Never => false,
        ColorChoice::Always => true,
        ColorChoice::Auto => {
            if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                return false;
            }
            if var("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
                return true;
            }
            if var("CLICOLOR").is_some_and(|v| v == "0") {
                return false;
            }
            is_terminal && var("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

/// The last `--color` option of an argument list (`--color WHEN` or
/// `--color=WHEN`), for deciding the colour of clap's own messages before clap
/// has parsed anything. `None` when absent or not a valid choice (clap then
/// reports it, drawn by the environment's decision). Words after `--` are
/// operands, not options.
pub fn color_choice_in(args: &[OsString]) -> Option<ColorChoice> {
    let mut choice = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(word) = word.to_str() else { continue };
        if word == "--" {
            break;
        }
        let value = if word == "--color" {
            words.next().and_then(|v| v.to_str())
        } else if let Some(v) = word.strip_prefix("--color=") {
            Some(v)
        } else {
            continue;
        };
        choice = match value {
            Some("auto") => Some(ColorChoice::Auto),
            Some("always") => Some(ColorChoice::Always),
            Some("never") => Some(ColorChoice::Never),
            _ => choice,
        };
    }
    choice
}

pub const BOLD: &str = "\x1b[1m";
pub const RED: &str = "\x1b[31m";
pub const BOLD_RED: &str = "\x1b[1;31m";
pub const YELLOW: &str = "\x1b[33m";
pub const GREEN: &str = "\x1b[32m";
pub const CYAN: &str = "\x1b[36m";
pub const BLUE: &str = "\x1b[34m";
pub const RESET: &str = "\x1b[0m";

/// The colour of a severity word.
pub fn severity_sgr(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => BOLD_RED,
        Severity::High => RED,
        Severity::Medium => YELLOW,
        Severity::Low => BLUE,
    }
}

/// Append `text`, wrapped in `sgr` … reset when `color` is on.
pub fn push_painted(buf: &mut String, color: bool, sgr: &str, text: &str) {
    if color && !sgr.is_empty() && !text.is_empty() {
        buf.push_str(sgr);
        buf.push_str(text);
        buf.push_str(RESET);
    } else {
        buf.push_str(text);
    }
}

/// `text` wrapped in `sgr` … reset when `color` is on.
pub fn paint(color: bool, sgr: &str, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_painted(&mut out, color, sgr, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(choice: ColorChoice, tty: bool, vars: &[(&str, &str)]) -> bool {
        use_color(choice, tty, |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn precedence_table() {
        use ColorChoice::{Always, Auto, Never};
        // (choice, terminal, environment, colour)
        type Vars<'a> = &'a [(&'a str, &'a str)];
        let table: &[(ColorChoice, bool, Vars, bool)] = &[
            (Auto, true, &[("TERM", "xterm")], true),
            (Auto, true, &[], true),
            (Auto, false, &[("TERM", "xterm")], false),
            // NO_COLOR: any non-empty value; empty is unset.
            (Auto, true, &[("NO_COLOR", "1")], false),
            (Auto, true, &[("NO_COLOR", "0")], false),
            (Auto, true, &[("NO_COLOR", "")], true),
            // CLICOLOR=0 turns it off; other values leave the terminal rule.
            (Auto, true, &[("CLICOLOR", "0")], false),
            (Auto, true, &[("CLICOLOR", "1")], true),
            (Auto, false, &[("CLICOLOR", "1")], false),
            // CLICOLOR_FORCE: non-zero forces it, even to a pipe, past CLICOLOR=0
            // and TERM=dumb; 0 or empty does nothing.
            (Auto, false, &[("CLICOLOR_FORCE", "1")], true),
            (Auto, false, &[("CLICOLOR_FORCE", "yes")], true),
            (Auto, false, &[("CLICOLOR_FORCE", "0")], false),
            (Auto, false, &[("CLICOLOR_FORCE", "")], false),
            (Auto, true, &[("CLICOLOR_FORCE", "0")], true),
            (
                Auto,
                false,
                &[("CLICOLOR_FORCE", "1"), ("CLICOLOR", "0")],
                true,
            ),
            (
                Auto,
                true,
                &[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")],
                true,
            ),
            // NO_COLOR beats CLICOLOR_FORCE.
            (
                Auto,
                false,
                &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
                false,
            ),
            // TERM=dumb on a terminal.
            (Auto, true, &[("TERM", "dumb")], false),
            // The flag beats every variable.
            (
                Never,
                true,
                &[("CLICOLOR_FORCE", "1"), ("TERM", "xterm")],
                false,
            ),
            (Never, true, &[], false),
            (
                Always,
                false,
                &[("NO_COLOR", "1"), ("CLICOLOR", "0"), ("TERM", "dumb")],
                true,
            ),
        ];
        for (choice, tty, vars, expected) in table {
            assert_eq!(
                decide(*choice, *tty, vars),
                *expected,
                "{choice:?} tty={tty} {vars:?}"
            );
        }
    }

    #[test]
    fn columns_must_be_a_width() {
        let c = |s: &str| columns(Some(OsString::from(s)));
        assert_eq!(c("120"), Some(120));
        assert_eq!(c(" 60 "), Some(60));
        for bad in [
            "",
            "0",
            "-80",
            "+80",
            "80x",
            "abc",
            "65536",
            "1e3",
            "99999999999999999999",
        ] {
            assert_eq!(c(bad), None, "{bad:?}");
        }
        assert_eq!(columns(None), None);
    }

    #[test]
    fn color_option_is_found_before_parsing() {
        let args = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        assert_eq!(color_choice_in(&args(&["doctor"])), None);
        assert_eq!(
            color_choice_in(&args(&["doctor", "--color", "never"])),
            Some(ColorChoice::Never)
        );
        assert_eq!(
            color_choice_in(&args(&["doctor", "--color=always", "--color", "never"])),
            Some(ColorChoice::Never)
        );
        assert_eq!(color_choice_in(&args(&["doctor", "--color=bogus"])), None);
        assert_eq!(
            color_choice_in(&args(&["auth", "audit", "--", "--color=always"])),
            None
        );
    }

    #[test]
    fn paint_only_with_colour() {
        assert_eq!(paint(false, RED, "high"), "high");
        assert_eq!(paint(true, RED, "high"), "\x1b[31mhigh\x1b[0m");
        assert_eq!(paint(true, "", "x"), "x");
    }
}
