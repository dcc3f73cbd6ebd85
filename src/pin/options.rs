//! `pin` and `check` options, defined once.
//!
//! `pin` and `check` parse their own argv (a server argv may itself hold options,
//! see [`super::commands`]), so clap cannot describe them. Instead this table is the
//! one definition: the parser looks options up here, `--help` is generated from it,
//! and doctor's Next steps asks [`is_pin_option`] whether a server word could be
//! read as one of pin's options (and so must go after `--`). An option added here is
//! parsed, documented and quoted around at once; nothing else lists option names.

use std::fmt::Write as _;

/// Which command an argv belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Pin,
    Check,
}

impl Which {
    pub fn name(self) -> &'static str {
        match self {
            Which::Pin => "pin",
            Which::Check => "check",
        }
    }
}

/// What an option sets (the parser's `match` is over this, not over spellings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Url,
    Header,
    Env,
    Lock,
    Approve,
    Approver,
    Timeout,
    Json,
    Sarif,
    Help,
    Version,
}

/// One option: its spellings, its value, the commands that take it and its help.
#[derive(Debug)]
pub struct OptionDef {
    pub opt: Opt,
    pub long: &'static str,
    pub short: Option<&'static str>,
    /// The value's name in help (`URL`), or `None` for a flag.
    pub value: Option<&'static str>,
    pub pin: bool,
    pub check: bool,
    /// Help lines for `pin`; `check_help` replaces them for `check` when set.
    pub help: &'static [&'static str],
    pub check_help: Option<&'static [&'static str]>,
}

impl OptionDef {
    pub fn takes_value(&self) -> bool {
        self.value.is_some()
    }

    pub fn applies_to(&self, which: Which) -> bool {
        match which {
            Which::Pin => self.pin,
            Which::Check => self.check,
        }
    }

    /// The help lines this option shows for `which`.
    pub fn help_for(&self, which: Which) -> &'static [&'static str] {
        match (which, self.check_help) {
            (Which::Check, Some(lines)) => lines,
            _ => self.help,
        }
    }
}

/// Every option of `pin` and `check`, in help order.
pub static OPTIONS: &[OptionDef] = &[
    OptionDef {
        opt: Opt::Url,
        long: "--url",
        short: None,
        value: Some("URL"),
        pin: true,
        check: true,
        help: &["Streamable HTTP endpoint of a running server"],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Header,
        long: "--header",
        short: None,
        value: Some("'K: V'"),
        pin: true,
        check: true,
        help: &[
            "HTTP header for --url (repeatable); $VAR and ${VAR}",
            "in the value are expanded from the environment",
        ],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Env,
        long: "--env",
        short: None,
        value: Some("NAME"),
        pin: true,
        check: true,
        help: &[
            "Pass NAME from this environment to the server",
            "(repeatable; the value never appears on the line)",
        ],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Lock,
        long: "--lock",
        short: None,
        value: Some("PATH"),
        pin: true,
        check: true,
        help: &["Lock to write [default: warden.lock]"],
        check_help: Some(&["Baseline lock [default: warden.lock]"]),
    },
    OptionDef {
        opt: Opt::Approve,
        long: "--approve",
        short: None,
        value: None,
        pin: true,
        check: false,
        help: &["Record approval of the pinned surface"],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Approver,
        long: "--approver",
        short: None,
        value: Some("ID"),
        pin: true,
        check: false,
        help: &["Approver identity (or WARDEN_APPROVER)"],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Timeout,
        long: "--timeout",
        short: None,
        value: Some("SECONDS"),
        pin: true,
        check: true,
        help: &["Limit for the whole capture [default: 30]"],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Json,
        long: "--json",
        short: None,
        value: None,
        pin: true,
        check: true,
        help: &["Print findings as JSONL"],
        check_help: Some(&["Print findings and drift as JSONL"]),
    },
    OptionDef {
        opt: Opt::Sarif,
        long: "--sarif",
        short: None,
        value: Some("PATH"),
        pin: true,
        check: true,
        help: &[
            "Write findings as SARIF 2.1.0 (never through a symlink;",
            "- writes it to stdout and the summary to stderr)",
        ],
        check_help: Some(&[
            "Write findings and drift as SARIF 2.1.0 (never through",
            "a symlink; - writes it to stdout and the summary to",
            "stderr)",
        ]),
    },
    OptionDef {
        opt: Opt::Help,
        long: "--help",
        short: Some("-h"),
        value: None,
        pin: true,
        check: true,
        help: &["Print help"],
        check_help: None,
    },
    OptionDef {
        opt: Opt::Version,
        long: "--version",
        short: Some("-V"),
        value: None,
        pin: true,
        check: true,
        help: &["Print version"],
        check_help: None,
    },
];

/// The option spelled `word` (`--url`, `-h`), whichever command takes it.
pub fn lookup(word: &str) -> Option<&'static OptionDef> {
    OPTIONS
        .iter()
        .find(|o| o.long == word || o.short == Some(word))
}

/// Whether `pin` or `check` could read `word` as one of its own options: an option
/// spelling, `--name=value` for a valued option, the `--` separator, or a cluster
/// of short flags that contains one (`-hv`). Next steps prints a server argv with
/// such a word after `--`.
pub fn is_pin_option(word: &str) -> bool {
    if word == "--" || lookup(word).is_some() {
        return true;
    }
    if let Some((name, _)) = word.split_once('=') {
        if name.starts_with("--") && lookup(name).is_some() {
            return true;
        }
    }
    if let Some(cluster) = word.strip_prefix('-') {
        if !cluster.starts_with('-')
            && !cluster.is_empty()
            && cluster.chars().all(|c| c.is_ascii_alphanumeric())
            && cluster.chars().any(is_short_option)
        {
            return true;
        }
    }
    false
}

/// Whether `-c` is one of the options' short spellings. Asked in place, not from a
/// list built per call: Next steps asks for every `-y` of every launch of a run.
fn is_short_option(c: char) -> bool {
    OPTIONS
        .iter()
        .filter_map(|o| o.short.and_then(|s| s.strip_prefix('-')))
        .any(|s| s.starts_with(c))
}

const PIN_ABOUT: &str = "\
Pin an MCP server's declared surface (tools, resources, prompts) into a
warden.lock. The server is spawned from its argv, never through a shell, with
only HOME, LOGNAME, PATH, SHELL, TERM and USER from this environment, plus the
variables named with --env.

Without `--`, the server argv starts at the first word that is not an option,
and options for pin are taken only from the end of the line.";

const CHECK_ABOUT: &str = "\
Re-capture a server and compare its declared surface with warden.lock.
Sigstore signature verification (--verify) is not supported by this version.";

/// What `pin` or `check` does, as its help (and man page) describes it.
pub fn about(which: Which) -> &'static str {
    match which {
        Which::Pin => PIN_ABOUT,
        Which::Check => CHECK_ABOUT,
    }
}

/// The exit statuses of `pin` or `check`, one line.
pub fn exit_status(which: Which) -> &'static str {
    match which {
        Which::Pin => "Exit status: 0 pinned (findings do not fail the pin), 2 error.",
        Which::Check => "Exit status: 0 no drift, 1 drift, 2 error.",
    }
}

/// `mcp-warden pin --help` / `mcp-warden check --help`, built from [`OPTIONS`].
pub fn help(which: Which) -> String {
    let name = which.name();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Usage: mcp-warden {name} [OPTIONS] -- SERVER_CMD [ARGS]..."
    );
    let _ = writeln!(
        out,
        "       mcp-warden {name} SERVER_CMD [ARGS]... [OPTIONS]"
    );
    let _ = writeln!(out, "       mcp-warden {name} --url URL [OPTIONS]");
    out.push('\n');
    out.push_str(about(which));
    out.push_str("\n\nOptions:\n");
    let spelled = |o: &OptionDef| {
        let mut s = match o.short {
            Some(short) => format!("{short}, {}", o.long),
            None => format!("    {}", o.long),
        };
        if let Some(v) = o.value {
            s.push(' ');
            s.push_str(v);
        }
        s
    };
    let shown: Vec<&OptionDef> = OPTIONS.iter().filter(|o| o.applies_to(which)).collect();
    let column = shown.iter().map(|o| spelled(o).len()).max().unwrap_or(0) + 2;
    for o in shown {
        let left = spelled(o);
        for (i, line) in o.help_for(which).iter().enumerate() {
            let lead = if i == 0 { left.as_str() } else { "" };
            let _ = writeln!(out, "  {lead:<column$}{line}");
        }
    }
    out.push('\n');
    out.push_str(exit_status(which));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_unique() {
        let mut seen = crate::hash::HashSet::default();
        for o in OPTIONS {
            assert!(seen.insert(o.long), "{}", o.long);
            if let Some(s) = o.short {
                assert!(seen.insert(s), "{s}");
            }
        }
    }

    #[test]
    fn help_lists_every_option_of_its_command_and_no_other() {
        for which in [Which::Pin, Which::Check] {
            let text = help(which);
            for o in OPTIONS {
                assert_eq!(
                    text.contains(&format!(" {} ", o.long))
                        || text.contains(&format!(" {}\n", o.long)),
                    o.applies_to(which),
                    "{} in {} help",
                    o.long,
                    which.name()
                );
            }
            assert!(text.lines().all(|l| l.len() <= 80), "{text}");
        }
    }

    #[test]
    fn option_words_are_recognised_in_every_spelling() {
        for o in OPTIONS {
            assert!(is_pin_option(o.long));
            if o.takes_value() {
                assert!(is_pin_option(&format!("{}=x", o.long)));
            }
        }
        assert!(is_pin_option("--"));
        assert!(is_pin_option("-hv"));
        assert!(is_pin_option("-xV"));
        assert!(!is_pin_option("-y"));
        assert!(!is_pin_option("--yes"));
        assert!(!is_pin_option("pkg@1.2.3"));
        assert!(!is_pin_option("--approve-all"));
    }
}
