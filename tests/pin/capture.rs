//! Capture behaviour: happy path, pagination, limits, hostile and broken servers,
//! process-group cleanup, the doctor-printed command line, the library API.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{pin, read_json, run, server, surface, tempdir};

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

#[test]
fn happy_path_writes_pretty_lock_and_summary() {
    let tmp = tempdir();
    let s = surface(
        tmp.path(),
        "s",
        &json!({"tools": [{"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]}),
    );
    let r = pin(tmp.path(), "warden.lock", &s, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("pinned -> warden.lock\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("tools=1 resources=0 prompts=0"));
    assert!(r.stdout.contains("WRD-CAP-FS-READ"));
    let text = std::fs::read_to_string(tmp.path().join("warden.lock")).expect("lock");
    assert!(text.starts_with("{\n  \"schema_version\": 4,\n"));
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    assert!(
        !text.contains("Read a file"),
        "raw description leaked into the lock"
    );
    let lock = read_json(&tmp.path().join("warden.lock"));
    assert_eq!(lock["pin"]["approved"], json!(false));
    assert_eq!(lock["pin"]["pinner"]["tool"], json!("mcp-warden"));
    assert_eq!(lock["pin"]["attestations"], json!([]));
}

#[test]
fn json_and_sarif_outputs() {
    let tmp = tempdir();
    let s = surface(
        tmp.path(),
        "s",
        &json!({"tools": [{"name": "run_command", "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}]}),
    );
    let r = pin(
        tmp.path(),
        "l.lock",
        &s,
        &["--json", "--sarif", "out.sarif"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r.stdout.lines().next().expect("a JSONL line");
    let v: Value = serde_json::from_str(line).expect("jsonl");
    assert_eq!(v["kind"], json!("finding"));
    assert_eq!(v["rule_id"], json!("WRD-CAP-SHELL"));
    assert_eq!(v["level"], json!("error"));
    assert!(line.starts_with("{\"kind\": \"finding\", \"rule_id\": "));
    let sarif = read_json(&tmp.path().join("out.sarif"));
    assert_eq!(sarif["version"], json!("2.1.0"));
    assert_eq!(
        sarif["runs"][0]["results"][0]["ruleId"],
        json!("WRD-CAP-SHELL")
    );
    let loc = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], json!("l.lock"));
    let line = loc["region"]["startLine"].as_u64().expect("line") as usize;
    let text = std::fs::read_to_string(tmp.path().join("l.lock")).expect("lock");
    let at = text.lines().nth(line - 1).expect("line exists");
    assert!(at.contains("\"name\": \"run_command\""), "{at}");
}

#[test]
fn pagination_collects_every_page() {
    let tmp = tempdir();
    let tools: Vec<Value> = (0..5).map(|i| tool(&format!("t{i}"))).collect();
    let paged = surface(
        tmp.path(),
        "paged",
        &json!({"tools": tools, "page_size": {"tools": 2}}),
    );
    let single = surface(tmp.path(), "single", &json!({"tools": tools}));
    assert_eq!(pin(tmp.path(), "a.lock", &paged, &[]).code, 0);
    assert_eq!(pin(tmp.path(), "b.lock", &single, &[]).code, 0);
    let (a, b) = (
        read_json(&tmp.path().join("a.lock")),
        read_json(&tmp.path().join("b.lock")),
    );
    let names: Vec<&str> = a["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    assert_eq!(a["tools"], b["tools"]);
}

#[test]
fn endless_cursor_hits_the_page_cap() {
    let tmp = tempdir();
    let s = surface(
        tmp.path(),
        "s",
        &json!({"tools": [], "endless": "tools/list"}),
    );
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("256"), "{}", r.stderr);
    assert!(!tmp.path().join("l.lock").exists());
}

#[test]
fn later_page_failure_fails_closed_first_page_unsupported_is_empty() {
    let tmp = tempdir();
    let tools: Vec<Value> = (0..4).map(|i| tool(&format!("t{i}"))).collect();
    let s = surface(
        tmp.path(),
        "s",
        &json!({"tools": tools, "page_size": {"tools": 2}, "fail_page": {"tools/list": 2}}),
    );
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("page 2"), "{}", r.stderr);

    // Undeclared and "method not found": an empty section.
    let s = surface(
        tmp.path(),
        "s2",
        &json!({"capabilities": {"tools": {}}, "tools": [tool("x")]}),
    );
    let r = pin(tmp.path(), "l2.lock", &s, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Declared but "method not found": refused (a broken server is not pinned as empty).
    let s = surface(
        tmp.path(),
        "s3",
        &json!({"capabilities": {"tools": {}, "prompts": {}}, "tools": [tool("x")]}),
    );
    let r = pin(tmp.path(), "l3.lock", &s, &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("prompts/list failed for a declared capability"),
        "{}",
        r.stderr
    );
}

/// Live (non-zombie) processes whose process group is `pgid`. Zombies are
/// excluded: once killed, an orphan waits for init to reap it, which a
/// container's init may do late.
fn live_members(pgid: i32) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            out.push(stat.clone());
        }
    }
    out
}

fn group_alive(pgid: i32) -> bool {
    if nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), None).is_err() {
        return false;
    }
    // Signals are delivered asynchronously; allow a moment for SIGKILL to land.
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end {
        if live_members(pgid).is_empty() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[test]
fn hung_server_times_out_and_its_group_is_killed() {
    let tmp = tempdir();
    let pidfile = tmp.path().join("pid");
    let s = surface(
        tmp.path(),
        "s",
        &json!({"behavior": "spawn_child", "pidfile": pidfile.display().to_string()}),
    );
    let started = Instant::now();
    let r = pin(tmp.path(), "l.lock", &s, &["--timeout", "2"]);
    let elapsed = started.elapsed();
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("did not complete the handshake within 2s"),
        "{}",
        r.stderr
    );
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
    let pgid: i32 = std::fs::read_to_string(&pidfile)
        .expect("pidfile")
        .trim()
        .parse()
        .expect("pid");
    // The server and the `sleep` it left behind are both gone.
    assert!(!group_alive(pgid), "process group {pgid} survived");
    assert!(!tmp.path().join("l.lock").exists());
}

#[test]
fn early_exit_reports_status_and_stderr() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"behavior": "exit"}));
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("exited before completing"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("exit status 3"), "{}", r.stderr);
    assert!(
        r.stderr.contains("exiting early on purpose"),
        "{}",
        r.stderr
    );
}

#[test]
fn stdout_flood_and_garbage_are_refused() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "flood", &json!({"behavior": "flood"}));
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("larger than"), "{}", r.stderr);
    let s = surface(tmp.path(), "garbage", &json!({"behavior": "garbage"}));
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not JSON-RPC"), "{}", r.stderr);
}

#[test]
fn a_server_that_never_reads_cannot_stall_us() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"behavior": "deaf"}));
    let started = Instant::now();
    let r = pin(tmp.path(), "l.lock", &s, &["--timeout", "20"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unrelated messages"), "{}", r.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn missing_command_and_usage_errors() {
    let tmp = tempdir();
    let r = run(
        &["pin", "--", "definitely-not-a-command-xyz"],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("command not found"), "{}", r.stderr);
    let r = run(&["pin"], tmp.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .contains("provide either a server command or --url"));
    let r = run(
        &["pin", "--url", "http://127.0.0.1:9/x", "--", "node"],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("mutually exclusive"));
    let r = run(&["pin", "--approve", "--", "node"], tmp.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--approve requires --approver"));
    let r = run(&["pin", "--help"], tmp.path(), &[]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("Usage: mcp-warden pin"));
}

#[test]
fn notifications_and_server_requests_are_tolerated() {
    let tmp = tempdir();
    let s = surface(
        tmp.path(),
        "s",
        &json!({"behavior": "chatty", "tools": [tool("a")]}),
    );
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn hostile_names_never_reach_the_terminal_raw() {
    let tmp = tempdir();
    let s = surface(
        tmp.path(),
        "s",
        &json!({"tools": [{"name": "read\u{1b}[31m_file\u{202e}", "inputSchema": {"type": "object", "properties": {"path": {}}}}]}),
    );
    let r = pin(tmp.path(), "l.lock", &s, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stdout.contains('\u{1b}'),
        "escape reached stdout: {:?}",
        r.stdout
    );
}

#[test]
fn doctor_printed_line_runs_through_a_shell() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"tools": [tool("a")]}));
    // Exactly the shape doctor prints: server argv first, pin options at the end.
    let line = format!(
        "{} pin python3 {} {} --approve --approver me@example.invalid --lock srv.warden.lock",
        crate::util::bin(),
        server(),
        s
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &line])
        .current_dir(tmp.path())
        .env_remove("WARDEN_APPROVER")
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lock = read_json(&tmp.path().join("srv.warden.lock"));
    assert_eq!(lock["pin"]["approved"], json!(true));
    assert_eq!(lock["pin"]["approver"], json!("me@example.invalid"));
    assert_eq!(lock["server"]["command"], json!("python3"));
    assert_eq!(lock["server"]["args"], json!([server(), s]));
    assert_eq!(lock["pin"]["approved_digest"], lock["overall_digest"]);
    assert_eq!(lock["pin"]["attestations"][0]["role"], json!("approver"));
}

#[test]
fn approver_from_environment() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"tools": [tool("a")]}));
    let server = server();
    let r = run(
        &[
            "pin",
            "--approve",
            "--lock",
            "l.lock",
            "--",
            "python3",
            &server,
            &s,
        ],
        tmp.path(),
        &[("WARDEN_APPROVER", "env-approver")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("approved by: env-approver"));
}

#[test]
fn minimal_environment_only() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"env_echo": "MCPW_PARENT_SECRET"}));
    let server = server();
    let r = run(
        &["pin", "--lock", "l.lock", "--", "python3", &server, &s],
        tmp.path(),
        &[("MCPW_PARENT_SECRET", "leaked")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lock = read_json(&tmp.path().join("l.lock"));
    assert_eq!(lock["tools"][0]["name"], json!("unset"));
}

#[test]
fn library_api_for_doctor_pin() {
    use mcp_warden::model::ServerSpec;
    use mcp_warden::pin::{capture_and_build, write_lock_exclusive, WriteError};
    let tmp = tempdir();
    let project = tmp.path().join("myproject");
    std::fs::create_dir(&project).expect("mkdir");
    let s = surface(
        tmp.path(),
        "s",
        &json!({"env_echo": "MCPW_CONFIG_VAR", "cwd_echo": true}),
    );
    let args = [server(), s];
    let spec = ServerSpec::stdio("python3", &[args[0].as_str(), args[1].as_str()])
        .with_env(vec![("MCPW_CONFIG_VAR".into(), "from-config".into())]);
    let lock = capture_and_build(&spec, Some(&project), Duration::from_secs(20)).expect("captured");
    let names: Vec<&str> = lock.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["cwd:myproject", "from-config"]);
    assert!(!lock.pin.approved);
    let path = tmp.path().join("x.warden.lock");
    write_lock_exclusive(&path, &lock).expect("first write");
    assert!(matches!(
        write_lock_exclusive(&path, &lock),
        Err(WriteError::Exists(_))
    ));
    // A dangling symlink is refused too, never followed.
    let link = tmp.path().join("link.lock");
    std::os::unix::fs::symlink(tmp.path().join("elsewhere"), &link).expect("symlink");
    assert!(write_lock_exclusive(&link, &lock).is_err());
    assert!(!tmp.path().join("elsewhere").exists());
    assert!(mcp_warden::pin::write_lock_replace(&link, &lock).is_err());
    assert!(Path::new(&path).exists());
}

#[test]
fn next_steps_lines_round_trip_through_a_shell() {
    use mcp_warden::model::ServerSpec;
    use mcp_warden::render::next_steps::{check_command, pin_command, Approval};
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"tools": [tool("a")]}));
    let extras: [&[&str]; 6] = [
        &[],
        &["--json"],
        &["--lock", "decoy.lock"],
        &["a b", "it's", "$HOME"],
        &["--", "z", "--approve"],
        &["-h"],
    ];
    for (i, extra) in extras.iter().enumerate() {
        let mut args = vec![server(), s.clone()];
        args.extend(extra.iter().map(|e| e.to_string()));
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let spec = ServerSpec::stdio("python3", &words);
        let lock_name = format!("l{i}.warden.lock");
        let bin = crate::util::bin();
        for (line, expect_lock) in [
            (pin_command(&spec, &lock_name, Approval::AtPin), true),
            (check_command(&spec, &lock_name), false),
        ] {
            let line = line.replacen("mcp-warden", bin, 1);
            let out = std::process::Command::new("bash")
                .args(["-c", &line])
                .current_dir(tmp.path())
                .env_remove("WARDEN_APPROVER")
                .output()
                .expect("bash");
            assert!(
                out.status.success(),
                "{line}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            if expect_lock {
                let lock = read_json(&tmp.path().join(&lock_name));
                assert_eq!(lock["server"]["args"], json!(args), "{line}");
                assert_eq!(lock["pin"]["approved"], json!(true));
            }
        }
    }
}

#[test]
fn doctor_covers_a_server_after_its_printed_pin_line_runs() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &json!({"tools": [tool("a")]}));
    let cfg = json!({"mcpServers": {"fx": {"command": "python3", "args": [server(), s]}}});
    std::fs::write(tmp.path().join(".mcp.json"), cfg.to_string()).expect("config");
    let doctor = ["doctor", "--config", ".mcp.json", "--no-discover"];
    let before = run(&doctor, tmp.path(), &[]);
    assert_eq!(before.code, 1, "{}{}", before.stdout, before.stderr);
    // The server has no lock: it is listed under Next steps and counted.
    assert!(
        before
            .stdout
            .contains("1 without an approved lock (1 with none, under Next steps)"),
        "{}",
        before.stdout
    );
    // A `--config` file is not user-level: the pin line records no approval and the
    // `lock rotate` line after it does, once the lock was reviewed. Run both, as printed.
    let lines: Vec<String> = before
        .stdout
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("mcp-warden pin ") || l.starts_with("mcp-warden lock rotate "))
        .map(|l| l.replacen("mcp-warden", crate::util::bin(), 1))
        .collect();
    assert_eq!(lines.len(), 2, "{}", before.stdout);
    assert!(!lines[0].contains("--approve"), "{}", lines[0]);
    for line in &lines {
        let out = std::process::Command::new("bash")
            .args(["-c", line])
            .current_dir(tmp.path())
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "{line}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let after = run(&doctor, tmp.path(), &[]);
    assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
    assert!(!after.stdout.contains("WRD-DOCTOR"), "{}", after.stdout);
    assert!(
        after.stdout.contains("0 without an approved lock"),
        "{}",
        after.stdout
    );
}

/// Every pin-time rule fires on the tool that should fire it and on no near miss.
#[test]
fn pin_time_rules_fire_and_near_misses_stay_quiet() {
    let tmp = tempdir();
    let props = |names: &[&str]| {
        let p: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.to_string(), json!({"type": "string"})))
            .collect();
        json!({"type": "object", "properties": p})
    };
    let tools = json!([
        {"name": "run_command", "inputSchema": props(&["command"])},
        {"name": "write_file", "inputSchema": props(&["path", "content"])},
        {"name": "read_file", "inputSchema": props(&["path"])},
        {"name": "fetch_page", "inputSchema": props(&["url"])},
        {"name": "run_query", "inputSchema": props(&["sql"])},
        {"name": "broken", "inputSchema": "object"},
        // Near misses: a substring is not a token, and a write verb without a path.
        {"name": "shellfish_facts", "inputSchema": props(&["species"])},
        {"name": "create_note", "inputSchema": props(&["title"])},
        {"name": "get_time", "inputSchema": props(&["timezone"])},
        {"name": "describe", "inputSchema": {"type": "object"}}
    ]);
    let s = surface(tmp.path(), "s", &json!({ "tools": tools }));
    let r = pin(tmp.path(), "l.lock", &s, &["--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let found: Vec<(String, String)> = r
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| {
            (
                v["rule_id"].as_str().unwrap_or("").to_string(),
                v["target"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    for (rule, tool) in [
        ("WRD-CAP-SHELL", "run_command"),
        ("WRD-CAP-FS-WRITE", "write_file"),
        ("WRD-CAP-FS-READ", "read_file"),
        ("WRD-CAP-HTTP", "fetch_page"),
        ("WRD-CAP-SQL", "run_query"),
        ("WRD-SCHEMA-MALFORMED", "broken"),
    ] {
        assert!(
            found.contains(&(rule.to_string(), format!("tools/{tool}"))),
            "{rule} did not fire on {tool}: {found:?}"
        );
    }
    for quiet in ["shellfish_facts", "create_note", "get_time", "describe"] {
        assert!(
            !found.iter().any(|(_, t)| *t == format!("tools/{quiet}")),
            "{quiet} fired: {found:?}"
        );
    }
}
