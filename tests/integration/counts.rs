//! No count bound fails a valid file within its byte cap: a file may hold as many
//! servers, project sections, list entries, settings and suppression entries as its
//! bytes can encode, and doctor reads every one of them (the counts the protocol
//! once refused: 50,000 servers, 20,000 sections, 4,096 entries, 256 settings,
//! 4,096 suppression entries).

use crate::util::Env;

/// The `--json` summary of a run, checked to be a normal one: every file read, none
/// unreadable or skipped, no problem, exit 1 (the no-lock findings every server has).
#[track_caller]
fn read_whole(env: &Env, args: &[&str]) -> serde_json::Value {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    let run = env.doctor(&full);
    assert!(!run.stderr.contains("error:"), "{}", run.stderr);
    assert!(!run.stderr.contains("cannot read"), "{}", run.stderr);
    let summary = run
        .all_jsonl()
        .into_iter()
        .find(|v| v["kind"] == "summary")
        .expect("a summary");
    assert_eq!(summary["unreadable"], 0, "{summary}");
    assert_eq!(summary["skipped"], 0, "{summary}");
    assert_eq!(summary["problems"], serde_json::json!([]), "{summary}");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(summary["exit_code"], 1, "{summary}");
    summary
}

/// `{"projects": {...}}` of `n` projects, each declaring one server.
fn projects(n: usize, server: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| format!("\"/p/{i}\":{{\"mcpServers\":{{\"s{i}\":{}}}}}", server(i)))
        .collect();
    format!("{{\"projects\":{{{}}}}}", items.join(","))
}

#[test]
fn a_claude_json_of_more_than_20000_project_sections_is_read_whole() {
    let env = Env::new();
    let n = 25_500;
    let text = projects(n, |i| {
        format!(r#"{{"command":"npx","args":["-y","@example/server-{i}@1.0.{i}"]}}"#)
    });
    assert!(text.len() < 8 << 20);
    env.write("home/.claude.json", &text);
    let summary = read_whole(&env, &[]);
    assert_eq!(summary["servers"], n, "{summary}");
    assert_eq!(summary["servers_without_approved_lock"], n, "{summary}");
}

#[test]
#[ignore = "260,000 servers take a debug build's child past its 10 s deadline; run with \
            MCP_WARDEN_TEST_BIN=<release binary> cargo test --test integration -- --ignored counts"]
fn a_claude_json_at_8_mib_of_the_smallest_sections_is_read_whole() {
    // As many one-server project sections as fit in 8 MiB (about 260,000).
    let env = Env::new();
    let cap = 8 << 20;
    let mut items = Vec::new();
    let mut len = "{\"projects\":{}}".len();
    loop {
        let item = format!("\"{}\":{{\"mcpServers\":{{\"s\":{{}}}}}}", items.len());
        if len + item.len() + 1 > cap {
            break;
        }
        len += item.len() + 1;
        items.push(item);
    }
    let text = format!("{{\"projects\":{{{}}}}}", items.join(","));
    assert!(text.len() <= cap && text.len() > cap - 64);
    env.write("home/.claude.json", &text);
    let summary = read_whole(&env, &[]);
    assert_eq!(summary["servers"], items.len(), "{summary}");
}

#[test]
fn a_project_mcp_json_of_more_than_50000_tiny_servers_is_read_whole() {
    let env = Env::new();
    let n = 50_500;
    let servers: Vec<String> = (0..n).map(|i| format!("\"{i}\":{{}}")).collect();
    env.write(
        "work/.mcp.json",
        format!("{{\"mcpServers\":{{{}}}}}", servers.join(",")),
    );
    let summary = read_whole(&env, &[]);
    assert_eq!(summary["servers"], n, "{summary}");
}

#[test]
fn a_server_of_more_than_4096_args_env_and_headers_is_audited() {
    let env = Env::new();
    let n = 10_000;
    let args: Vec<String> = (0..n).map(|i| format!("--flag-{i}")).collect();
    let env_map: serde_json::Map<String, serde_json::Value> =
        (0..n).map(|i| (format!("V{i}"), "x".into())).collect();
    // The last argument carries a credential: a finding about it shows the server's
    // list was read to its end, not cut at a bound.
    let mut with_secret = args.clone();
    with_secret.push(format!("--token={}", crate::util::GHP_CLI));
    let file = env.cursor(serde_json::json!({
        "wide": {"command": "node", "args": with_secret, "env": env_map},
    }));
    let text = std::fs::read_to_string(file).expect("read");
    let column = text.find("\"--token=").expect("the argument") + 1;
    let run = env.doctor(&["--json"]);
    assert!(!run.stderr.contains("cannot read"), "{}", run.stderr);
    let findings = run.jsonl();
    let on_last = findings
        .iter()
        .find(|f| f["field"] == format!("args[{n}]"))
        .unwrap_or_else(|| panic!("no finding on args[{n}]: {findings:?}"));
    assert_eq!(on_last["server"], "wide");
    assert_eq!(
        (on_last["line"].as_u64(), on_last["column"].as_u64()),
        (Some(1), Some(column as u64))
    );
    assert!(
        !run.stdout.contains(crate::util::GHP_CLI),
        "a credential printed"
    );
    let summary = run.all_jsonl().pop().expect("summary");
    assert_eq!(summary["servers"], 1);
    assert_eq!(summary["unreadable"], 0);
}

#[test]
fn a_settings_file_repeating_a_setting_more_than_256_times_is_read() {
    let env = Env::new();
    let copies = vec![r#""chat.mcp.discovery.enabled": false"#; 1_000].join(",\n");
    env.write(
        "home/.config/Code/User/settings.json",
        format!("{{{copies},\n\"mcp\": {{\"servers\": {{\"a\": {{\"command\": \"x\"}}}}}}}}"),
    );
    let summary = read_whole(&env, &[]);
    assert_eq!(summary["servers"], 1, "{summary}");
}

#[test]
fn a_suppression_file_of_more_than_4096_entries_is_read() {
    let env = Env::new();
    env.cursor(serde_json::json!({"a": {"command": "x"}}));
    let entries: String = (0..5_000)
        .map(|i| {
            format!(
                "[[ignore]]\nrule = \"WRD-DOCTOR-NO-LOCK\"\ntarget = \"~/.cursor/mcp.json#n{i}\"\n\
                 reason = \"r\"\nexpires = \"2999-01-01\"\n"
            )
        })
        .chain(std::iter::once(
            "[[ignore]]\nrule = \"WRD-DOCTOR-NO-LOCK\"\ntarget = \"~/.cursor/mcp.json#a\"\n\
             reason = \"the last entry\"\nexpires = \"2999-01-01\"\n"
                .to_string(),
        ))
        .collect();
    let file = env.write("ignore.toml", entries);
    let run = env.doctor(&["--json", "--ignore-file", file.to_str().expect("utf-8")]);
    assert!(!run.stderr.contains("error:"), "{}", run.stderr);
    let summary = run.all_jsonl().pop().expect("summary");
    assert_eq!(summary["suppressed"], 1, "{summary} {}", run.stderr);
    assert_eq!(summary["unreadable"], 0, "{summary}");
}
