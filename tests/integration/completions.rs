//! `mcp-warden completions SHELL` and `mcp-warden man [COMMAND]`: generated from the
//! one CLI definition, so every subcommand is in them.

use crate::util::*;

const SUBCOMMANDS: &[&str] = &[
    "doctor",
    "auth",
    "sandbox",
    "pin",
    "check",
    "lock",
    "completions",
    "man",
];

#[test]
fn every_shells_completions_name_every_subcommand_and_doctors_options() {
    let env = Env::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = Run::from(env.command(&["completions", shell]).output().expect("run"));
        run.expect_code(0);
        for sub in SUBCOMMANDS {
            assert!(run.stdout.contains(sub), "{shell}: {sub} missing");
        }
        for option in ["fail-on", "ignore-file", "color", "sarif"] {
            assert!(run.stdout.contains(option), "{shell}: --{option} missing");
        }
    }
    // The bash script is valid bash and registers the completion.
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok()
    {
        let run = Run::from(env.command(&["completions", "bash"]).output().expect("run"));
        let script = env.write("completion.bash", &run.stdout);
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}' && complete -p mcp-warden",
                script.display()
            ))
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bad = Run::from(env.command(&["completions", "tcsh"]).output().expect("run"));
    bad.expect_code(2);
}

#[test]
fn every_command_has_a_man_page_that_names_it() {
    let env = Env::new();
    let root = Run::from(env.command(&["man"]).output().expect("run"));
    root.expect_code(0);
    assert!(root.stdout.contains(".TH MCP-WARDEN 1"), "{}", root.stdout);
    for sub in SUBCOMMANDS {
        assert!(root.stdout.contains(sub), "the main page lists {sub}");
    }
    for page in [
        "doctor",
        "auth",
        "auth-audit",
        "sandbox",
        "sandbox-status",
        "sandbox-selftest",
        "pin",
        "check",
        "lock",
        "lock-rotate",
        "completions",
        "man",
    ] {
        let run = Run::from(env.command(&["man", page]).output().expect("run"));
        run.expect_code(0);
        let title = format!(".TH MCP-WARDEN-{} 1", page.to_uppercase());
        assert!(run.stdout.contains(&title), "{page}: {}", run.stdout);
        let name = format!("mcp\\-warden\\-{}", page.replace('-', "\\-"));
        assert!(run.stdout.contains(&name), "{page}: {}", run.stdout);
    }
    // pin's and check's OPTIONS: pin_and_check_options_complete_in_every_shell_….
    let bad = Run::from(env.command(&["man", "nope"]).output().expect("run"));
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("no man page for nope"),
        "{}",
        bad.stderr
    );
    // Rendered by man itself where it is installed: no roff warnings.
    if std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok()
    {
        let page = env.write(
            "doctor.1",
            &Run::from(env.command(&["man", "doctor"]).output().expect("run")).stdout,
        );
        let out = std::process::Command::new("man")
            .args(["-l", "--warnings"])
            .arg(&page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "80")
            .output()
            .expect("man");
        let rendered = String::from_utf8_lossy(&out.stdout);
        assert!(rendered.contains("mcp-warden-doctor"), "{rendered}");
    }
}

/// `pin` and `check` parse their own argv from one option table
/// (`mcp_warden::pin::options::OPTIONS`); the completion scripts and man pages are
/// built from the same table, so each of the table's options is offered for
/// exactly the commands that take it, in every shell.
#[test]
fn pin_and_check_options_complete_in_every_shell_and_fill_their_man_pages() {
    use mcp_warden::pin::options::{Which, OPTIONS};
    // The options users type are in the table (an emptied table would pass the rest).
    for long in [
        "--url",
        "--header",
        "--env",
        "--lock",
        "--approve",
        "--approver",
        "--timeout",
        "--json",
        "--sarif",
    ] {
        assert!(
            OPTIONS.iter().any(|o| o.long == long),
            "{long} left the table"
        );
    }
    let env = Env::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = Run::from(env.command(&["completions", shell]).output().expect("run"));
        run.expect_code(0);
        for which in [Which::Pin, Which::Check] {
            let section = completion_section(shell, &run.stdout, which.name());
            for option in OPTIONS {
                let name = option.long.trim_start_matches('-');
                let offered = match shell {
                    "bash" => section
                        .split(['"', ' ', '\n'])
                        .any(|word| word == option.long),
                    "zsh" if option.takes_value() => section.contains(&format!("--{name}=[")),
                    "zsh" => section.contains(&format!("'{}[", option.long)),
                    "fish" => section.contains(&format!(" -l {name} ")),
                    "powershell" => section.contains(&format!("::new('{}'", option.long)),
                    _ => section.contains(&format!("cand {} ", option.long)),
                };
                assert_eq!(
                    offered,
                    option.applies_to(which),
                    "{shell}: {} for {}:\n{section}",
                    option.long,
                    which.name()
                );
            }
        }
    }
    // Driven through bash itself: what `mcp-warden pin --<TAB>` offers.
    let run = Run::from(env.command(&["completions", "bash"]).output().expect("run"));
    let script = env.write("completion.bash", &run.stdout);
    for (which, command) in [(Which::Pin, "pin"), (Which::Check, "check")] {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}' && fn=$(complete -p mcp-warden | sed 's/.*-F \\([^ ]*\\).*/\\1/') \
                 && COMP_WORDS=(mcp-warden {command} --) && COMP_CWORD=2 \
                 && \"$fn\" mcp-warden -- {command} && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                script.display()
            ))
            .output()
            .expect("bash");
        let offered = String::from_utf8_lossy(&out.stdout);
        let offered: Vec<&str> = offered.lines().collect();
        for option in OPTIONS {
            assert_eq!(
                offered.contains(&option.long),
                option.applies_to(which),
                "bash offers {offered:?} after `mcp-warden {command} --`"
            );
        }
    }
    // Every subcommand's options complete in bash, not only pin's and check's.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && fn=$(complete -p mcp-warden | sed 's/.*-F \\([^ ]*\\).*/\\1/') \
             && COMP_WORDS=(mcp-warden doctor --) && COMP_CWORD=2 \
             && \"$fn\" mcp-warden -- doctor && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        ))
        .output()
        .expect("bash");
    let offered = String::from_utf8_lossy(&out.stdout);
    for option in ["--fail-on", "--ignore-file", "--sarif", "--home"] {
        assert!(offered.lines().any(|l| l == option), "doctor: {offered}");
    }
    // The man pages list each option of their command in OPTIONS, and no other.
    for which in [Which::Pin, Which::Check] {
        let run = Run::from(env.command(&["man", which.name()]).output().expect("run"));
        run.expect_code(0);
        let options = run
            .stdout
            .split_once(".SH OPTIONS")
            .map(|(_, rest)| rest)
            .expect("an OPTIONS section");
        for option in OPTIONS {
            let roff = format!("\\fB{}\\fR", option.long.replace('-', "\\-"));
            assert_eq!(
                options.contains(&roff),
                option.applies_to(which),
                "man {}: {}\n{options}",
                which.name(),
                option.long
            );
        }
    }
}

/// The part of a completion script that completes `command`'s own words.
fn completion_section<'a>(shell: &str, script: &'a str, command: &str) -> &'a str {
    let (start, end) = match shell {
        "bash" => (
            format!(" mcp__warden__subcmd__{command})"),
            ";;".to_string(),
        ),
        "zsh" => (format!("\n({command})\n"), "\n;;".to_string()),
        "fish" => {
            // One line per option, each naming the subcommand.
            let marker = format!("__fish_mcp_warden_using_subcommand {command}\"");
            let first = script.find(&marker).expect("fish names the subcommand");
            let last = script.rfind(&marker).expect("fish names the subcommand");
            let end = script[last..].find('\n').map_or(script.len(), |n| last + n);
            return &script[first..end];
        }
        "powershell" => (format!("'mcp-warden;{command}' {{"), "break".to_string()),
        // Help text may hold `}` (`${VAR}`): the section closes on a line of its own.
        _ => (
            format!("&'mcp-warden;{command}'= {{"),
            "\n        }".to_string(),
        ),
    };
    let from = script
        .find(&start)
        .unwrap_or_else(|| panic!("{shell}: no section for {command}"));
    let rest = &script[from..];
    let to = rest.find(&end).unwrap_or(rest.len());
    &rest[..to]
}
