//! `--fail-on` and the dead ends: the threshold gates findings and never skips or
//! unreadable files; `--no-discover` alone is a usage error; a large
//! `~/.claude.json` is audited; every other skip prints a `--config` line that
//! scans the file when pasted, and none when it would fail.

use std::process::Command;

use crate::util::{approved_lock, Env};

const GATES: [&str; 4] = ["critical", "high", "medium", "low"];

/// The exit code of `doctor --fail-on <gate>` for each gate, most severe first.
fn codes(env: &Env) -> Vec<i32> {
    GATES
        .iter()
        .map(|g| env.doctor(&["--json", "--fail-on", g]).code)
        .collect()
}

#[test]
fn a_pinned_setup_with_only_low_findings_passes_at_medium() {
    // Pinned version, no lock: the only finding is WRD-DOCTOR-NO-LOCK (low).
    let env = Env::new();
    env.cursor(serde_json::json!({"mem": {"command": "npx", "args": ["-y", "pkg@1.2.3"]}}));
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"]);
    assert_eq!(codes(&env), [0, 0, 0, 1]);
}

#[test]
fn each_gate_fails_at_its_severity_and_not_below() {
    // One finding of each severity, alone (a lock covers the launch where the
    // finding is not NO-LOCK itself).
    let cases: [(&str, serde_json::Value, [i32; 4]); 3] = [
        // High: an unpinned npx launch.
        (
            "WRD-SUP-NPX-UNPINNED",
            serde_json::json!({"command": "npx", "args": ["-y", "pkg"]}),
            [0, 1, 1, 1],
        ),
        // Medium: a remote endpoint without authentication.
        (
            "WRD-AUTH-NOAUTH",
            serde_json::json!({"url": "https://mcp.example.com/mcp"}),
            [0, 0, 1, 1],
        ),
        // Critical: a GitHub token in the environment (also high: a literal).
        (
            "WRD-SEC-GITHUB",
            serde_json::json!({"command": "node", "args": ["s.js"], "env": {"GITHUB_TOKEN": crate::util::GHP_CLI}}),
            [1, 1, 1, 1],
        ),
    ];
    for (rule, server, want) in cases {
        let env = Env::new();
        env.cursor(serde_json::json!({ "s": server.clone() }));
        let lock = match server["url"].as_str() {
            Some(url) => crate::util::approved_url_lock(url),
            None => {
                let args: Vec<&str> = server["args"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                    .unwrap_or_default();
                approved_lock(server["command"].as_str().unwrap_or(""), &args)
            }
        };
        env.write("work/warden.lock", lock.to_string());
        let run = env.doctor(&["--json"]);
        run.expect_code(1);
        assert!(
            run.rule_ids().contains(&rule.to_string()),
            "{rule}: {}",
            run.stdout
        );
        assert!(!run.rule_ids().contains(&"WRD-DOCTOR-NO-LOCK".to_string()));
        assert_eq!(codes(&env), want, "{rule}: {:?}", run.rule_ids());
    }
}

#[test]
fn skips_and_unreadable_files_keep_their_codes_whatever_the_gate() {
    // A skipped file (a symlinked ~/.cursor/mcp.json) and nothing else: 1 at every
    // gate, though no finding reaches it.
    let env = Env::new();
    let real = env.write(
        "elsewhere/mcp.json",
        serde_json::json!({"mcpServers": {}}).to_string(),
    );
    env.symlink(&real, "home/.cursor/mcp.json");
    assert_eq!(codes(&env), [1, 1, 1, 1]);
    // An unreadable file: 2 at every gate.
    let env = Env::new();
    env.write("home/.cursor/mcp.json", "{ not json");
    assert_eq!(codes(&env), [2, 2, 2, 2]);
    // `auth audit` shares the contract.
    let env = Env::new();
    let cfg = env.write(
        "work/mcp.json",
        serde_json::json!({"mcpServers": {"r": {"url": "https://mcp.example.com/mcp"}}})
            .to_string(),
    );
    let audit = |gate: &str| {
        crate::util::Run::from(
            env.command(&[
                "auth",
                "audit",
                cfg.to_str().expect("utf-8"),
                "--fail-on",
                gate,
            ])
            .output()
            .expect("run"),
        )
        .code
    };
    assert_eq!(GATES.map(audit), [0, 0, 1, 1]);
    let bad = env.write("work/bad.json", "{");
    let run = crate::util::Run::from(
        env.command(&[
            "auth",
            "audit",
            bad.to_str().expect("utf-8"),
            "--fail-on",
            "critical",
        ])
        .output()
        .expect("run"),
    );
    run.expect_code(2);
}

#[test]
fn no_discover_without_config_is_a_usage_error() {
    let env = Env::new();
    env.cursor(serde_json::json!({"s": {"command": "npx", "args": ["-y", "pkg"]}}));
    for extra in [&[][..], &["--json"][..], &["--fail-on", "low"][..]] {
        let mut args = vec!["--no-discover"];
        args.extend_from_slice(extra);
        let run = env.doctor(&args);
        run.expect_code(2);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", run.stderr);
        assert!(lines[0].starts_with("error: --no-discover"), "{}", lines[0]);
        assert!(lines[0].contains("--config"), "{}", lines[0]);
    }
    // With a --config path it scans that file alone.
    let cfg = env.write(
        "work/mcp.json",
        serde_json::json!({"mcpServers": {"x": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}}})
            .to_string(),
    );
    let run = env.doctor(&[
        "--no-discover",
        "--json",
        "--config",
        cfg.to_str().expect("utf-8"),
    ]);
    run.expect_code(1);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"]);
}

/// A JSON config of at least `size` bytes declaring server `name`: the padding is
/// an unrelated member, as session history is in `~/.claude.json`.
fn padded(servers_key: &str, name: &str, size: usize) -> String {
    let head = format!(
        "{{\"{servers_key}\": {{\"{name}\": {{\"command\": \"npx\", \"args\": [\"-y\", \"pkg@1.0.0\"]}}}}, \"history\": ["
    );
    let item = "\"a session line that Claude Code keeps in its history\",";
    let mut out = String::with_capacity(size + 256);
    out.push_str(&head);
    while out.len() < size {
        out.push_str(item);
    }
    out.push_str("\"end\"]}");
    out
}

#[test]
fn a_claude_json_over_eight_mib_is_audited() {
    let env = Env::new();
    env.write("home/.claude.json", padded("mcpServers", "heavy", 12 << 20));
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert!(
        run.rules()
            .contains(&("WRD-DOCTOR-NO-LOCK".into(), "~/.claude.json#heavy".into())),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stderr.contains("skipping"), "{}", run.stderr);
    // Beyond its own cap it is skipped, and no `--config` line is printed for it
    // (it would not be known to parse within the child's limits). Sparse: never
    // read, so its bytes need not exist.
    let env = Env::new();
    let file = std::fs::File::create(env.home().join(".claude.json")).expect("create");
    file.set_len((64 << 20) + 1).expect("set_len");
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("skipping ~/.claude.json"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("mcp-warden doctor --config"),
        "{}",
        run.stderr
    );
}

/// The `--config` line printed for a skipped file, if any.
fn rescan(stderr: &str, shown: &str) -> Option<String> {
    let line = stderr
        .lines()
        .find(|l| l.starts_with(&format!("warning: skipping {shown}:")))?;
    let start = line.find("(to scan it anyway: ")? + "(to scan it anyway: ".len();
    Some(line[start..line.len() - 1].to_string())
}

/// Run `line` in bash as the user would paste it: `mcp-warden` on PATH, the same
/// home, cwd the work directory.
fn paste(env: &Env, line: &str) -> crate::util::Run {
    let bin = crate::util::bin();
    let dir = bin.parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    crate::util::Run::from(
        Command::new("bash")
            .args(["-c", line])
            .current_dir(env.work())
            .env_clear()
            .env("PATH", path)
            .env("HOME", env.home())
            .output()
            .expect("bash"),
    )
}

#[test]
fn the_printed_rescan_line_scans_the_skipped_file() {
    // An oversized Cursor config, and a symlinked Windsurf one whose path needs
    // quoting: each skip prints a line, and each line, pasted, audits the file.
    let env = Env::new();
    env.write(
        "home/.cursor/mcp.json",
        padded("mcpServers", "big", 9 << 20),
    );
    let real = env.write(
        "elsewhere/it's here/mcp_config.json",
        serde_json::json!({"mcpServers": {"linked": {"command": "npx", "args": ["-y", "pkg"]}}})
            .to_string(),
    );
    env.symlink(&real, "home/.codeium/windsurf/mcp_config.json");
    let run = env.doctor(&[]);
    run.expect_code(1);
    for (shown, server) in [
        ("~/.cursor/mcp.json", "big"),
        ("~/.codeium/windsurf/mcp_config.json", "linked"),
    ] {
        let line = rescan(&run.stderr, shown)
            .unwrap_or_else(|| panic!("no rescan line for {shown}:\n{}", run.stderr));
        assert!(line.starts_with("mcp-warden doctor --config "), "{line}");
        let pasted = paste(&env, &format!("{line} --json"));
        assert_ne!(pasted.code, 2, "{line}\n{}", pasted.stderr);
        assert!(
            pasted
                .rules()
                .iter()
                .any(|(_, t)| t.ends_with(&format!("#{server}"))),
            "{line}: {}\n{}",
            pasted.stdout,
            pasted.stderr
        );
        assert!(
            !pasted.stderr.contains(&format!("skipping {shown}")),
            "{}",
            pasted.stderr
        );
    }
}

#[test]
fn no_rescan_line_where_config_would_refuse_the_file() {
    // A FIFO where ~/.cursor/mcp.json belongs: --config refuses it too.
    let env = Env::new();
    env.mkdir("home/.cursor");
    nix::unistd::mkfifo(
        &env.home().join(".cursor/mcp.json"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .expect("mkfifo");
    let run = env.doctor(&[]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("skipping ~/.cursor/mcp.json"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("doctor --config"), "{}", run.stderr);
    // A link to a path with a control character: the line names the documented
    // path, which prints exactly, and scans the file through the link.
    let env = Env::new();
    let real = env.write(
        "elsewhere/x.json",
        serde_json::json!({"mcpServers": {}}).to_string(),
    );
    std::fs::create_dir_all(env.home().join(".cursor")).expect("mkdir");
    let odd = env.root().join("odd\u{1b}[31m");
    std::fs::create_dir_all(&odd).expect("mkdir");
    std::fs::rename(&real, odd.join("mcp.json")).expect("rename");
    env.symlink(&odd.join("mcp.json"), "home/.cursor/mcp.json");
    let run = env.doctor(&[]);
    run.expect_code(1);
    let line = rescan(&run.stderr, "~/.cursor/mcp.json").expect("rescan line");
    assert_ne!(paste(&env, &line).code, 2);
}
