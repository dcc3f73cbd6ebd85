//! Discovery: the documented set per platform, the walk-up, symlinks, the size cap,
//! `--config` handling, and the loaders' shapes as seen from the binary.

use serde_json::json;

use crate::util::*;

/// The reference's F1 home (darwin layout).
fn fake_home(env: &Env) {
    env.cursor(json!({"gh": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": GHP_CLI}}}));
    env.write(
        "home/Library/Application Support/Claude/claude_desktop_config.json",
        json!({"mcpServers": {"remote": {"url": "http://mcp.example.com/sse"}}}).to_string(),
    );
    env.write(
        "home/.claude.json",
        json!({"projects": {"/repo": {"mcpServers": {"ok": {"url": "https://h.example.com", "headers": {"Authorization": "Bearer ${T}"}}}}}})
            .to_string(),
    );
}

#[test]
fn no_configs_is_exit_zero_with_the_searched_count() {
    // User and system locations, then the 14 files of the one project directory
    // (cwd alone here): darwin and linux 26 + 14; win32 without APPDATA or
    // ProgramData loses the 11 locations derived from them.
    for (platform, searched) in [("darwin", 40), ("linux", 40), ("win32", 29)] {
        let env = Env::with_platform(platform);
        let run = env.doctor(&[]);
        run.expect_code(0);
        assert_eq!(
            run.stdout,
            format!("no MCP configs found (searched {searched} well-known location(s); pass --config to add one)\n")
        );
    }
}

#[test]
fn cwd_equal_to_home_searches_each_location_once() {
    let env = Env::new();
    let run = env.doctor_in(&env.home(), &[]);
    run.expect_code(0);
    // 40 less the five project files that are also user files at home:
    // `.cursor/mcp.json`, `.claude/settings.json`, `.codex/config.toml`,
    // `.gemini/settings.json`, `.kiro/settings/mcp.json`.
    assert!(
        run.stdout.contains("searched 35 well-known"),
        "{}",
        run.stdout
    );
}

#[test]
fn unknown_platform_is_a_usage_error() {
    let env = Env::new();
    let out = env
        .command(&["doctor", "--platform", "plan9"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn darwin_fake_home_reports_every_client_and_redacts_the_token() {
    let env = Env::with_platform("darwin");
    fake_home(&env);
    let run = env.doctor(&[]);
    run.expect_code(1);
    for needle in [
        "MCP posture — 3 config source(s), 3 server(s)",
        "Claude Code  ~/.claude.json#projects[/repo]  (1 server(s))",
        "Cursor  ~/.cursor/mcp.json  (1 server(s))",
        "Claude Desktop  ~/Library/Application Support/Claude/claude_desktop_config.json  (1 server(s))",
        "WRD-AUTH-TOKEN-IN-CONFIG",
        "WRD-AUTH-PLAINTEXT-HTTP",
        "WRD-SUP-NPX-UNPINNED",
        "Next steps",
        // WRD-DOCTOR-NO-LOCK is folded into Next steps; the summary counts it.
        "3 without an approved lock (3 with none, under Next steps)",
    ] {
        assert!(run.stdout.contains(needle), "missing {needle:?} in\n{}", run.stdout);
    }
    assert!(!run.all().contains(GHP_CLI));
    assert!(!run.all().contains("i2 "));
    assert_eq!(
        run.pin_lines(),
        [
            // The header's `${T}` is passed for pin to expand; the env value never
            // appears, only the name pin passes on.
            "mcp-warden pin --url https://h.example.com --header 'Authorization: Bearer ${T}' --approve --approver you@example.com --lock ok.warden.lock",
            // Flagged critical / high: pinned unapproved, approved after review.
            "mcp-warden pin npx -y @modelcontextprotocol/server-github --env GITHUB_TOKEN --lock gh.warden.lock",
            "mcp-warden pin --url http://mcp.example.com/sse --lock remote.warden.lock",
        ]
    );
}

#[test]
fn darwin_fake_home_jsonl_matches_the_documented_lines() {
    let env = Env::with_platform("darwin");
    fake_home(&env);
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    // The documented seven fields, in their order and spelling; the location
    // fields follow them.
    let expected = r#"{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/.claude.json#projects[/repo]#ok", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "ok", "file": "~/.claude.json", "server": "ok", "project": "/repo", "#;
    assert!(run.stdout.starts_with(expected), "{}", run.stdout);
    let rules = run.rules();
    assert!(rules.contains(&("WRD-SEC-GITHUB".into(), "~/.cursor/mcp.json#gh".into())));
    assert!(rules.contains(&(
        "WRD-AUTH-NOAUTH".into(),
        "~/Library/Application Support/Claude/claude_desktop_config.json#remote".into()
    )));
    assert_eq!(rules.len(), 8, "{}", run.stdout);
    assert!(!run.stdout.contains(GHP_CLI));
}

#[test]
fn linux_and_win32_layouts_are_discovered() {
    let env = Env::new();
    env.write(
        "home/.config/Claude/claude_desktop_config.json",
        r#"{"mcpServers": {"d": {"url": "http://l.example.com"}}}"#,
    );
    env.write(
        "home/.config/Code/User/mcp.json",
        "{ // c\n \"servers\": {\"vs\": {\"url\": \"http://h.example.com\"},}, }",
    );
    env.write(
        "home/.codeium/windsurf/mcp_config.json",
        r#"{"mcpServers": {"w": {"command": "node", "args": ["w.js"]}}}"#,
    );
    env.write(
        "home/.codex/config.toml",
        "[mcp_servers.gh]\ncommand = \"npx\"\nargs = [\"-y\", \"@x/y\"]\n",
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    let targets: Vec<String> = run.rules().into_iter().map(|(_, t)| t).collect();
    for t in [
        "~/.config/Claude/claude_desktop_config.json#d",
        "~/.config/Code/User/mcp.json#vs",
        "~/.codeium/windsurf/mcp_config.json#w",
        "~/.codex/config.toml#gh",
    ] {
        assert!(targets.iter().any(|x| x == t), "missing {t} in {targets:?}");
    }
    assert!(run.rules().contains(&(
        "WRD-SUP-NPX-UNPINNED".into(),
        "~/.codex/config.toml#gh".into()
    )));
}

#[test]
fn windows_shape_is_discovered_through_injected_appdata_and_never_guessed() {
    let mut env = Env::with_platform("win32");
    let appdata = env.mkdir("AppData/Roaming");
    env.write(
        "AppData/Roaming/Claude/claude_desktop_config.json",
        r#"{"mcpServers": {"win": {"url": "http://mcp.example.com"}}}"#,
    );
    // Without APPDATA the entry is absent.
    env.doctor(&[]).expect_code(0);
    env.extra_env
        .push(("APPDATA".into(), appdata.clone().into()));
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    let target = format!(
        "{}/Claude/claude_desktop_config.json#win",
        appdata.display()
    );
    assert!(
        run.rules()
            .contains(&("WRD-AUTH-PLAINTEXT-HTTP".into(), target)),
        "{}",
        run.stdout
    );
    // APPDATA is ignored on the other platforms.
    let linux = Env {
        dir: env.dir,
        platform: "linux",
        extra_env: env.extra_env,
    };
    linux.doctor(&[]).expect_code(0);
}

#[test]
fn walk_up_stops_at_home_and_at_git() {
    let env = Env::new();
    let cwd = env.mkdir("home/a/b");
    env.write(
        "home/.mcp.json",
        json!({"mcpServers": {"p": {"url": "https://h.example.com", "headers": {"Authorization": "Bearer ${T}"}}}}).to_string(),
    );
    env.write(
        "home/a/b/.mcp.json",
        json!({"mcpServers": {"c": {"command": "node"}}}).to_string(),
    );
    let run = env.doctor_in(&cwd, &["--json"]);
    let targets: Vec<String> = run.rules().into_iter().map(|(_, t)| t).collect();
    assert!(
        targets.contains(&"~/.mcp.json#p".to_string()),
        "{targets:?}"
    );
    assert!(
        targets.contains(&"~/a/b/.mcp.json#c".to_string()),
        "{targets:?}"
    );
    env.mkdir("home/a/.git");
    let run = env.doctor_in(&cwd, &["--json"]);
    let targets: Vec<String> = run.rules().into_iter().map(|(_, t)| t).collect();
    assert!(
        !targets.contains(&"~/.mcp.json#p".to_string()),
        "{targets:?}"
    );
    assert!(targets.contains(&"~/a/b/.mcp.json#c".to_string()));
}

#[test]
fn walk_up_outside_home_never_reads_a_parent_mcp_json() {
    let env = Env::new();
    let cwd = env.mkdir("shared/proj");
    env.write(
        "shared/.mcp.json",
        r#"{"mcpServers": {"planted": {"url": "http://x.example.com"}}}"#,
    );
    let run = env.doctor_in(&cwd, &[]);
    run.expect_code(0);
    assert!(!run.all().contains("planted"));
    // A repository boundary at cwd itself keeps the parent out too.
    env.mkdir("shared/proj/.git");
    let run = env.doctor_in(&cwd, &[]);
    run.expect_code(0);
    assert!(!run.all().contains("planted"));
    // A boundary above cwd includes that directory.
    std::fs::remove_dir(env.root().join("shared/proj/.git")).expect("rmdir");
    env.mkdir("shared/.git");
    let run = env.doctor_in(&cwd, &["--json"]);
    run.expect_code(1);
    assert!(run.all().contains("planted"));
}

#[test]
fn walk_up_is_bounded_to_32_levels() {
    let env = Env::new();
    env.mkdir(".git");
    env.write(
        ".mcp.json",
        r#"{"mcpServers": {"far": {"url": "http://x.example.com"}}}"#,
    );
    let deep31: String = (0..31).map(|i| format!("d{i}/")).collect();
    let cwd31 = env.mkdir(&deep31);
    // 31 levels below the boundary: the walk visits 31 + 1 = 32 directories.
    let run = env.doctor_in(&cwd31, &["--json"]);
    assert!(
        run.all().contains("far"),
        "32-level walk should reach the boundary"
    );
    let cwd32 = env.mkdir(&format!("{deep31}d31"));
    let run = env.doctor_in(&cwd32, &[]);
    run.expect_code(0);
    assert!(
        !run.all().contains("far"),
        "a walk past 32 levels is unbounded: cwd only"
    );
}

#[test]
fn symlinked_config_file_is_skipped_and_never_read() {
    let env = Env::new();
    let target = env.write(
        "outside.json",
        r#"{"mcpServers": {"planted": {"url": "http://x.example.com"}}}"#,
    );
    env.symlink(&target, "home/.cursor/mcp.json");
    let run = env.doctor(&[]);
    run.expect_code(1);
    assert!(
        run.stderr.contains(&format!(
            "warning: skipping ~/.cursor/mcp.json: symlink in path (to scan it anyway: \
             mcp-warden doctor --config {}/.cursor/mcp.json)",
            env.home().display()
        )),
        "{}",
        run.stderr
    );
    assert!(!run.all().contains("planted"));
    assert!(!run.all().contains("no MCP configs found"));
    assert!(!run.all().contains("doctor clean"));
}

#[test]
fn symlinked_directory_component_is_skipped() {
    let env = Env::new();
    env.write(
        "elsewhere/mcp.json",
        r#"{"mcpServers": {"planted": {"command": "x"}}}"#,
    );
    env.symlink(&env.root().join("elsewhere"), "home/.cursor");
    let run = env.doctor(&[]);
    run.expect_code(1);
    assert!(run.stderr.contains("symlink in path"));
    assert!(!run.all().contains("planted"));
}

#[test]
fn symlinked_project_directory_component_is_skipped() {
    let env = Env::new();
    env.write(
        "elsewhere/mcp.json",
        r#"{"mcpServers": {"planted": {"command": "x"}}}"#,
    );
    env.symlink(&env.root().join("elsewhere"), "work/.vscode");
    let run = env.doctor(&[]);
    run.expect_code(1);
    assert!(run.stderr.contains("symlink in path"));
    assert!(!run.all().contains("planted"));
}

#[test]
fn symlink_below_appdata_is_skipped_even_outside_home() {
    let mut env = Env::with_platform("win32");
    let appdata = env.mkdir("AppData/Roaming");
    env.write(
        "elsewhere/claude_desktop_config.json",
        r#"{"mcpServers": {"planted": {"command": "x"}}}"#,
    );
    env.symlink(&env.root().join("elsewhere"), "AppData/Roaming/Claude");
    env.extra_env.push(("APPDATA".into(), appdata.into()));
    let run = env.doctor(&[]);
    run.expect_code(1);
    assert!(run.stderr.contains("symlink in path"), "{}", run.stderr);
    assert!(!run.all().contains("planted"));
}

#[test]
fn skipped_symlink_beside_a_valid_empty_config_is_never_green() {
    let env = Env::new();
    env.cursor(json!({}));
    let target = env.write(
        "outside.json",
        r#"{"mcpServers": {"planted": {"url": "http://x.example.com"}}}"#,
    );
    env.symlink(&target, "home/.codeium/windsurf/mcp_config.json");
    let run = env.doctor(&[]);
    run.expect_code(1);
    assert!(
        run.stdout.contains(
            "no posture findings, but at least one config or lock was skipped (see warnings)"
        ),
        "{}",
        run.stdout
    );
    for absent in ["no MCP configs found", "doctor clean", "planted"] {
        assert!(!run.all().contains(absent));
    }
}

/// A discovered file (at `rel` below home, shown as `shown`) of exactly `cap`
/// bytes is read, one of a byte more is skipped unread.
fn size_cap_boundary(rel: &str, shown: &str, cap: u64) {
    let env = Env::new();
    let path = env.home().join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(cap + 1).expect("sparse");
    let run = env.doctor(&[]);
    run.expect_code(1);
    let over = format!(
        "warning: skipping {shown}: {} bytes exceeds the {cap}-byte cap",
        cap + 1
    );
    assert!(run.stderr.contains(&over), "{}", run.stderr);
    // Exactly the cap is read (and here fails to parse: zero bytes are not JSON).
    file.set_len(cap).expect("truncate");
    let run = env.doctor(&[]);
    run.expect_code(2);
    assert!(
        run.stderr.contains(&format!("invalid JSON in {shown}")),
        "{}",
        run.stderr
    );
}

#[test]
fn size_cap_allows_exactly_8_mib_and_skips_one_byte_more() {
    size_cap_boundary(".cursor/mcp.json", "~/.cursor/mcp.json", 8 << 20);
}

#[test]
fn claude_json_cap_allows_exactly_64_mib_and_skips_one_byte_more() {
    // Claude Code keeps session history in it.
    size_cap_boundary(".claude.json", "~/.claude.json", 64 << 20);
}

#[test]
fn explicit_config_has_no_size_cap() {
    let env = Env::new();
    let mut body =
        String::from(r#"{"mcpServers": {"a": {"command": "node", "args": ["s.js"]}}, "pad": ""#);
    body.push_str(&"x".repeat(9 * 1024 * 1024));
    body.push_str("\"}");
    let path = env.write("big.json", body);
    let run = env.doctor(&["--no-discover", "--config", path.to_str().expect("utf-8")]);
    run.expect_code(1);
    assert!(
        // Read and audited: its server is listed under Next steps for pinning.
        run.stdout.contains("Next steps") && run.stdout.contains("big.json#a'"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

#[test]
fn malformed_explicit_configs_fail_closed() {
    let env = Env::new();
    for (name, body) in [
        ("bad.json", "{oops"),
        ("list.json", "[]"),
        ("num.json", r#"{"mcpServers": 3}"#),
        ("config.toml", "a = ["),
    ] {
        let path = env.write(name, body);
        let run = env.doctor(&["--no-discover", "--config", path.to_str().expect("utf-8")]);
        run.expect_code(2);
        assert!(run.stdout.is_empty(), "{name}: {}", run.stdout);
        assert!(run.stderr.starts_with("error: "), "{name}: {}", run.stderr);
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
    }
    let run = env.doctor(&["--no-discover", "--config", "missing.json"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("error: cannot read missing.json"),
        "{}",
        run.stderr
    );
}

#[test]
fn malformed_discovered_neighbour_warns_and_the_scan_continues() {
    let env = Env::new();
    env.cursor(json!({"ok": {"url": "http://h.example.com"}}));
    env.write("home/.codeium/windsurf/mcp_config.json", "{");
    let run = env.doctor(&[]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("warning: invalid JSON in ~/.codeium/windsurf/mcp_config.json"),
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains("(scan continues; final exit will be 2)"));
    assert!(run.stdout.contains("WRD-AUTH-PLAINTEXT-HTTP"));
    assert!(!run.all().contains("doctor clean"));
}

#[test]
fn only_unreadable_files_never_print_clean_or_no_configs() {
    let env = Env::new();
    env.write("home/.codeium/windsurf/mcp_config.json", "{");
    let run = env.doctor(&[]);
    run.expect_code(2);
    assert!(!run.all().contains("doctor clean"), "{}", run.all());
    assert!(!run.all().contains("no MCP configs found"));
}

#[test]
fn jsonc_is_accepted_only_where_vs_code_reads_it() {
    let env = Env::new();
    let body = "{\n  // user comment\n  \"servers\": { /* block */ \"vs\": {\"url\": \"https://h.example.com\",},},\n}\n";
    env.write("home/.config/Code/User/mcp.json", body);
    let run = env.doctor(&["--json"]);
    assert!(
        run.rules()
            .iter()
            .any(|(_, t)| t == "~/.config/Code/User/mcp.json#vs"),
        "{}",
        run.all()
    );
    env.write("home/.cursor/mcp.json", body);
    let run = env.doctor(&[]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("invalid JSON in ~/.cursor/mcp.json"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("JSONC"),
        "the error should say the file looks like JSONC: {}",
        run.stderr
    );
}

#[test]
fn project_vscode_jsonc_keeps_strings_byte_for_byte() {
    let env = Env::new();
    env.write(
        "work/.vscode/mcp.json",
        r#"{"servers": {"s": {"command": "sh", "args": ["-c", "echo {a, }", "x, ]", "//not-a-comment", "/* k */"],},},}"#,
    );
    let run = env.doctor(&[]);
    run.expect_code(1);
    let line = run.pin_lines().into_iter().next().expect("a pin line");
    assert!(
        line.starts_with("mcp-warden pin sh -c 'echo {a, }' 'x, ]' //not-a-comment '/* k */'"),
        "{line}"
    );
}

#[test]
fn claude_json_top_level_and_projects_are_separate_sources() {
    let env = Env::new();
    env.write(
        "home/.claude.json",
        json!({"mcpServers": {"global": {"command": "x"}}, "projects": {"/repo": {"mcpServers": {"local": {"command": "y"}}}, "/bare": {}}})
            .to_string(),
    );
    let run = env.doctor(&["--json"]);
    let targets: Vec<String> = run.rules().into_iter().map(|(_, t)| t).collect();
    assert!(
        targets.contains(&"~/.claude.json#global".to_string()),
        "{targets:?}"
    );
    assert!(targets.contains(&"~/.claude.json#projects[/repo]#local".to_string()));
}

#[test]
fn one_malformed_claude_project_does_not_hide_the_others() {
    let env = Env::new();
    env.write(
        "home/.claude.json",
        r#"{"projects": {"/bad": {"mcpServers": 3}, "/good": {"mcpServers": {"ok": {"url": "http://h.example.com"}}}}}"#,
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(2);
    assert!(run
        .rules()
        .iter()
        .any(|(r, t)| r == "WRD-AUTH-PLAINTEXT-HTTP" && t == "~/.claude.json#projects[/good]#ok"));
    assert!(
        run.stderr.contains("~/.claude.json#projects[/bad]"),
        "{}",
        run.stderr
    );
}

#[test]
fn wrong_typed_server_fields_are_reported_not_dropped() {
    let env = Env::new();
    env.cursor(json!({
        "str": "npx something",
        "num_args": {"command": "node", "args": ["a", 1, true]},
        "ok": {"url": "http://h.example.com"}
    }));
    let run = env.doctor(&["--json"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("~/.cursor/mcp.json#str"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("~/.cursor/mcp.json#num_args"),
        "{}",
        run.stderr
    );
    assert!(run
        .rules()
        .iter()
        .any(|(_, t)| t == "~/.cursor/mcp.json#ok"));
    // Never re-spelled as another language's literal.
    assert!(!run.all().contains("True"));
}

#[test]
fn explicit_config_is_deduped_by_resolved_path_and_replaces_discovery() {
    let env = Env::new();
    let mine = env.write(
        "mine.json",
        r#"{"mcpServers": {"a": {"url": "http://h.example.com"}}}"#,
    );
    let link = env.symlink(&mine, "link.json");
    let m = mine.to_str().expect("utf-8");
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        m,
        "--config",
        m,
        "--config",
        link.to_str().expect("utf-8"),
        "--json",
    ]);
    run.expect_code(1);
    assert_eq!(
        run.stderr.matches("scanning it once").count(),
        2,
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.contains("WRD-AUTH-PLAINTEXT-HTTP"))
            .count(),
        1
    );

    // A discovered symlink (a skip) is replaced by naming its target: no skip remains.
    let target = env.write("outside.json", r#"{"mcpServers": {"b": {"url": "https://h.example.com", "headers": {"Authorization": "Bearer ${T}"}}}}"#);
    env.symlink(&target, "home/.cursor/mcp.json");
    let run = env.doctor(&["--config", target.to_str().expect("utf-8"), "--json"]);
    assert!(!run.stderr.contains("symlink in path"), "{}", run.stderr);
    let lines = run.jsonl();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(lines[0]["rule_id"], "WRD-DOCTOR-NO-LOCK");
}

#[test]
fn explicit_format_inference_by_name() {
    let env = Env::new();
    let toml = env.write(
        "codex.toml",
        "[mcp_servers.t]\ncommand = \"uvx\"\nargs = [\"pkg\"]\n",
    );
    let jsonc = env.write(
        "proj/.vscode/mcp.json",
        "{\"servers\": {\"j\": {\"command\": \"node\"},}}",
    );
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        toml.to_str().expect("utf-8"),
        "--config",
        jsonc.to_str().expect("utf-8"),
        "--json",
    ]);
    run.expect_code(1);
    assert!(
        run.rule_ids().contains(&"WRD-SUP-UVX-UNPINNED".to_string()),
        "{}",
        run.all()
    );
    assert!(run
        .rules()
        .iter()
        .any(|(_, t)| t.ends_with(".vscode/mcp.json#j")));
}

#[test]
fn no_discover_without_config_is_refused_before_any_scan() {
    let env = Env::new();
    env.cursor(json!({"a": {"url": "http://h.example.com"}}));
    // Scanning nothing and exiting 0 would be green for a run that looked at nothing.
    let run = env.doctor(&["--no-discover"]);
    run.expect_code(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.starts_with("error: --no-discover"),
        "{}",
        run.stderr
    );
}

#[test]
fn config_without_servers_is_not_called_missing() {
    let env = Env::new();
    env.cursor(json!({}));
    let run = env.doctor(&[]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("no MCP servers configured (1 config file(s) read"),
        "{}",
        run.stdout
    );
}

// ---- the symlink rule comes first; a non-regular file is a skip, never an absence

/// Every run here must skip `shown` with a warning naming it, exit 1, print no
/// "no MCP configs found" / "doctor clean", and never read `planted`.
#[track_caller]
fn assert_skipped(run: &Run, shown: &str, why: &str) {
    run.expect_code(1);
    assert!(
        run.stderr
            .lines()
            .any(|l| l.starts_with(&format!("warning: skipping {shown}: ")) && l.contains(why)),
        "{}",
        run.stderr
    );
    for absent in ["no MCP configs found", "doctor clean", "planted"] {
        assert!(!run.all().contains(absent), "{absent}: {}", run.all());
    }
}

#[test]
fn dangling_and_directory_and_fifo_symlinks_at_a_config_path_are_skipped() {
    /// What a planted link points at, made inside the test's directory.
    type Target = fn(&Env) -> std::path::PathBuf;
    let targets: [(&str, Target); 4] = [
        ("dangling", |env| env.root().join("nothing-here")),
        ("directory", |env| env.mkdir("a-directory")),
        ("fifo", |env| {
            let p = env.root().join("fifo");
            crate::bounded::mkfifo(&p);
            p
        }),
        ("device", |_| std::path::PathBuf::from("/dev/null")),
    ];
    for (what, target) in targets {
        for (rel, shown) in [
            ("home/.cursor/mcp.json", "~/.cursor/mcp.json"),
            ("home/.claude.json", "~/.claude.json"),
            ("work/.mcp.json", ".mcp.json"),
        ] {
            let env = Env::new();
            let t = target(&env);
            env.symlink(&t, rel);
            let run = crate::bounded::doctor(&env, &[]);
            let shown = if rel.starts_with("work/") {
                env.work().join(shown).display().to_string()
            } else {
                shown.to_string()
            };
            assert_skipped(&run, &shown, "symlink in path");
            // The same with --json: stdout holds nothing, the skip is still not green.
            let run = crate::bounded::doctor(&env, &["--json"]);
            assert_skipped(&run, &shown, "symlink in path");
            assert!(run.no_jsonl_findings(), "{what}: {}", run.stdout);
        }
    }
}

#[test]
fn a_dangling_symlinked_directory_below_the_base_is_skipped() {
    let env = Env::new();
    env.symlink(&env.root().join("gone"), "home/.cursor");
    env.symlink(&env.root().join("gone"), "work/.vscode");
    let run = crate::bounded::doctor(&env, &[]);
    assert_skipped(&run, "~/.cursor/mcp.json", "symlink in path at ~/.cursor");
    assert!(
        run.stderr.contains(&format!(
            "skipping {}: symlink in path at {}",
            env.work().join(".vscode/mcp.json").display(),
            env.work().join(".vscode").display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn fifo_socket_device_and_directory_at_a_config_path_are_skipped_unread() {
    let env = Env::new();
    crate::bounded::mkfifo(&env.home().join(".cursor/mcp.json"));
    let _socket = crate::bounded::socket(&env.home().join(".codeium/windsurf/mcp_config.json"));
    env.mkdir("home/.claude.json");
    env.mkdir("work/.mcp.json");
    let run = crate::bounded::doctor(&env, &[]);
    assert_skipped(&run, "~/.cursor/mcp.json", "a FIFO, not a regular file");
    assert_skipped(
        &run,
        "~/.codeium/windsurf/mcp_config.json",
        "a socket, not a regular file",
    );
    assert_skipped(&run, "~/.claude.json", "a directory, not a regular file");
    assert_skipped(
        &run,
        &env.work().join(".mcp.json").display().to_string(),
        "a directory, not a regular file",
    );
    // The FIFO is still a FIFO with nothing read from it: a writer would block.
    let meta = std::fs::symlink_metadata(env.home().join(".cursor/mcp.json")).expect("lstat");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
}

#[test]
fn a_skipped_non_regular_file_beside_a_clean_config_is_never_green() {
    let env = Env::new();
    env.cursor(json!({}));
    crate::bounded::mkfifo(&env.home().join(".codex/config.toml"));
    let run = crate::bounded::doctor(&env, &[]);
    run.expect_code(1);
    assert!(
        run.stdout.contains(
            "no posture findings, but at least one config or lock was skipped (see warnings)"
        ),
        "{}",
        run.stdout
    );
    let sarif = env.root().join("d.sarif");
    let run = crate::bounded::doctor(&env, &["--sarif", sarif.to_str().expect("utf-8")]);
    run.expect_code(1);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("written")).expect("json");
    assert_eq!(log["runs"][0]["properties"]["skippedConfigs"], json!(1));
}

#[test]
fn explicit_config_must_be_a_regular_file_and_is_never_opened_otherwise() {
    let env = Env::new();
    let fifo = env.root().join("fifo.json");
    crate::bounded::mkfifo(&fifo);
    let dir = env.mkdir("dir.json");
    let link_to_fifo = env.symlink(&fifo, "link-to-fifo.json");
    let socket_path = env.root().join("s.json");
    let _socket = crate::bounded::socket(&socket_path);
    for (path, kind) in [
        (fifo.clone(), "a FIFO"),
        (dir, "a directory"),
        (link_to_fifo, "a FIFO"),
        (std::path::PathBuf::from("/dev/null"), "a character device"),
        (socket_path, "a socket"),
    ] {
        let p = path.to_str().expect("utf-8");
        let run = crate::bounded::doctor(&env, &["--no-discover", "--config", p]);
        run.expect_code(2);
        assert!(
            run.stderr.contains(&format!(
                "error: cannot read {p}: {kind}, not a regular file"
            )),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        let run = crate::bounded::output(env.command(&["auth", "audit", p]));
        run.expect_code(2);
        assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    }
    // A symlink to a regular file is followed (the user named it).
    let real = env.write(
        "real.json",
        r#"{"mcpServers": {"ok": {"url": "https://h.example.com", "headers": {"Authorization": "${T}"}}}}"#,
    );
    let link = env.symlink(&real, "link.json");
    let run = crate::bounded::doctor(
        &env,
        &["--no-discover", "--config", link.to_str().expect("utf-8")],
    );
    assert!(run.code == 1 && run.all().contains("ok"), "{}", run.all());
}
