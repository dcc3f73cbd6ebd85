//! A large `~/.claude.json` is answered in parts, sent while the child still parses
//! (`mcp_warden_sandbox::Delivery::Part`): what doctor reports of it is what the file
//! holds, in the file's order, whatever lands in which part: the top-level map first
//! (even written after the projects), every project's servers in order, a malformed
//! section or entry reported where it is, a repeated project read as Claude Code
//! reads it (the last copy; the earlier one flagged), positions exact.

use crate::util::Env;

/// Projects `/p/0` … `/p/{n-1}`, each with one server `s{i}`, with the odd shapes
/// spread over the file (every 97th section malformed, every 89th server of a wrong
/// shape), `/p/7` written again at the end, and the top-level map last.
fn claude_json(n: usize) -> String {
    let mut projects: Vec<String> = (0..n)
        .map(|i| {
            let body = if i % 97 == 50 {
                r#"{"mcpServers": ["not", "a", "map"]}"#.to_string()
            } else if i % 89 == 40 {
                format!(r#"{{"mcpServers": {{"s{i}": 42}}}}"#)
            } else {
                format!(r#"{{"mcpServers": {{"s{i}": {{"command": "npx", "args": ["-y", "pkg-{i}"]}}}}}}"#)
            };
            format!(r#""/p/{i}": {body}"#)
        })
        .collect();
    projects.push(r#""/p/7": {"mcpServers": {"again": {"command": "node"}}}"#.to_string());
    format!(
        "{{\"numStartups\": 3,\n\"projects\": {{\n{}\n}},\n\"mcpServers\": {{\"top\": {{\"command\": \"uvx\"}}}}}}",
        projects.join(",\n")
    )
}

#[test]
fn an_answer_in_parts_reports_the_file_in_its_order() {
    let n = 1_500;
    let env = Env::new();
    env.write("home/.claude.json", claude_json(n));
    let run = env.doctor(&["--json"]);
    let records = run.all_jsonl();
    let no_lock: Vec<String> = records
        .iter()
        .filter(|v| v["rule_id"] == "WRD-DOCTOR-NO-LOCK")
        .map(|v| v["target"].as_str().unwrap_or_default().to_string())
        .collect();
    let mut expected = vec!["~/.claude.json#top".to_string()];
    for i in 0..n {
        if i % 97 == 50 || i % 89 == 40 {
            continue;
        }
        expected.push(format!("~/.claude.json#projects[/p/{i}]#s{i}"));
    }
    expected.push("~/.claude.json#projects[/p/7]#again".to_string());
    assert_eq!(
        no_lock, expected,
        "every server once, in the file's order, top level first"
    );
    // Each server sits on its own line of the file: line i + 3 for /p/i.
    for v in records
        .iter()
        .filter(|v| v["rule_id"] == "WRD-DOCTOR-NO-LOCK")
    {
        let target = v["target"].as_str().unwrap_or_default();
        if let Some(i) = target
            .strip_prefix("~/.claude.json#projects[/p/")
            .and_then(|t| t.split(']').next())
            .and_then(|i| i.parse::<usize>().ok())
        {
            let line = if target.ends_with("#again") {
                n + 3
            } else {
                i + 3
            };
            assert_eq!(v["line"], line, "{v}");
        }
    }
    // The earlier copy of the repeated project is flagged, the last is not.
    let ambiguous: Vec<&str> = records
        .iter()
        .filter(|v| v["rule_id"] == "WRD-DOCTOR-AMBIGUOUS-SERVER")
        .filter_map(|v| v["target"].as_str())
        .collect();
    assert_eq!(
        ambiguous,
        ["~/.claude.json#projects[/p/7]#s7"],
        "{ambiguous:?}"
    );
    // Every malformed section and entry is reported, in order, and fails the run.
    let warned: Vec<usize> = run
        .stderr
        .lines()
        .filter_map(|l| l.split("projects[/p/").nth(1))
        .filter_map(|rest| rest.split(']').next())
        .filter_map(|i| i.parse().ok())
        .collect();
    let odd: Vec<usize> = (0..n).filter(|i| i % 97 == 50 || i % 89 == 40).collect();
    assert_eq!(warned, odd, "{}", run.stderr);
    assert_eq!(run.code, 2, "{}", run.stderr);
}
