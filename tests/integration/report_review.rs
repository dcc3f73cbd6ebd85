//! The report read as a user acts on it: every message names the field it is
//! about, every finding at a setting or a suppression entry says which field and
//! points at its value, and every line of prose fits the width it is given.

use serde_json::Value;

use crate::util::*;

const SLACK: &str = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";

/// The records of `rule`.
fn records_of<'r>(records: &'r [Value], rule: &str) -> Vec<&'r Value> {
    records.iter().filter(|r| r["rule_id"] == rule).collect()
}

/// The SARIF results of a run of `env` with `args`.
fn sarif_results(env: &Env, args: &[&str]) -> Vec<Value> {
    let path = env.root().join("out.sarif");
    let mut full = args.to_vec();
    full.extend(["--sarif", path.to_str().expect("utf-8 path")]);
    env.doctor(&full);
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("sarif written"))
        .expect("json");
    log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn secret_messages_name_the_field_in_every_output() {
    let env = Env::new();
    env.cursor(serde_json::json!({
        "s": {"command": "node", "args": ["--key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"],
              "env": {"SLACK_TOKEN": SLACK, "NOISE": "q8Zr4Lm2Xv9Tn6Yb3Kc7Wd1Hs5Jf0Pg"}},
        "h": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": format!("Bearer {GHP_CLI}")}}
    }));
    let records = env.doctor(&["--json"]).jsonl();
    for (rule, field) in [
        ("WRD-SEC-SLACK", "env.SLACK_TOKEN"),
        ("WRD-SEC-OPENAI", "args[1]"),
        ("WRD-SEC-GITHUB", "headers.Authorization"),
        ("WRD-SEC-ENTROPY", "env.NOISE"),
    ] {
        let found = records_of(&records, rule);
        assert_eq!(found.len(), 1, "{rule}: {records:?}");
        let message = found[0]["message"].as_str().unwrap_or_default();
        assert_eq!(found[0]["field"], field, "{message}");
        assert!(
            message.ends_with(&format!(" in field {field}")),
            "{message}"
        );
    }
    for result in sarif_results(&env, &[]) {
        let id = result["ruleId"].as_str().unwrap_or_default();
        let text = result["message"]["text"].as_str().unwrap_or_default();
        if id.starts_with("WRD-SEC-") {
            assert!(text.contains(" in field "), "{text}");
        }
    }
    let text = env.doctor_env(&[("COLUMNS", "200")], &[]).stdout;
    assert!(
        text.contains("possible secret in field env.SLACK_TOKEN"),
        "{text}"
    );
}

#[test]
fn setting_findings_name_the_setting() {
    let env = Env::new();
    let settings =
        "{\n  \"chat.mcp.discovery.enabled\": true,\n  \"chat.tools.autoApprove\": true\n}\n";
    env.write("home/.config/Code/User/settings.json", settings);
    env.write(
        "home/.claude.json",
        r#"{"projects": {"/elsewhere": {"enableAllProjectMcpServers": true, "mcpServers": {}}}}"#,
    );
    let records = env.doctor(&["--json"]).jsonl();
    for (rule, field) in [
        ("WRD-CLIENT-DISCOVERY-IMPORT", "chat.mcp.discovery.enabled"),
        ("WRD-CLIENT-TOOL-AUTO-APPROVE", "chat.tools.autoApprove"),
        (
            "WRD-CLIENT-PROJECT-AUTO-APPROVE",
            "enableAllProjectMcpServers",
        ),
    ] {
        let found = records_of(&records, rule);
        assert_eq!(found.len(), 1, "{rule}: {records:?}");
        assert_eq!(found[0]["field"], field, "{}", found[0]);
    }
    let text = env.doctor_env(&[("COLUMNS", "200")], &[]).stdout;
    assert!(
        text.contains("WRD-CLIENT-TOOL-AUTO-APPROVE  chat.tools.autoApprove (line 3)"),
        "{text}"
    );
}

#[test]
fn suppression_findings_point_at_the_value_of_their_field() {
    let env = Env::new();
    env.cursor(serde_json::json!({"a": {"command": "npx", "args": ["-y", "pkg"]}}));
    let ignore = "# mine\n[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINNED\"\ntarget = \"~/.cursor/mcp.json#*\"\nreason = \"mirror\"\n  expires   =   \"2001-01-31\"\n\n[[ignore]]\nreason = \"r\"\nexpires = 2999-01-01\n  rule = \"WRD-NOT-A-RULE\"\ntarget = \"*\"\n";
    env.write("home/.config/mcp-warden/ignore.toml", ignore);
    let records = env.doctor(&["--json"]).jsonl();
    let expired = records_of(&records, "WRD-DOCTOR-IGNORE-EXPIRED");
    assert_eq!(expired.len(), 1, "{records:?}");
    assert_eq!(expired[0]["field"], "expires");
    assert_eq!(
        (&expired[0]["line"], &expired[0]["column"]),
        (&6.into(), &17.into())
    );
    let invalid = records_of(&records, "WRD-DOCTOR-IGNORE-INVALID");
    assert_eq!(invalid.len(), 1, "{records:?}");
    assert_eq!(invalid[0]["field"], "rule");
    assert_eq!(
        (&invalid[0]["line"], &invalid[0]["column"]),
        (&11.into(), &10.into())
    );
    let regions: Vec<(String, Value)> = sarif_results(&env, &[])
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap_or_default().to_string(),
                r["locations"][0]["physicalLocation"]["region"].clone(),
            )
        })
        .collect();
    for (rule, line, column) in [
        ("WRD-DOCTOR-IGNORE-EXPIRED", 6, 17),
        ("WRD-DOCTOR-IGNORE-INVALID", 11, 10),
    ] {
        let region = &regions.iter().find(|(r, _)| r == rule).expect("result").1;
        assert_eq!(region["startLine"], line, "{rule}");
        assert_eq!(region["startColumn"], column, "{rule}");
    }
}

/// Terminal columns of `line` (wide characters 2, combining marks 0).
fn columns(line: &str) -> usize {
    line.chars()
        .map(|c| match c as u32 {
            0x300..=0x36f | 0x200b..=0x200f => 0,
            0x1100..=0x115f | 0x2e80..=0xa4cf | 0xac00..=0xd7a3 | 0xf900..=0xfaff => 2,
            0xfe30..=0xfe4f | 0xff00..=0xff60 | 0x1f300..=0x1faff => 2,
            _ => 1,
        })
        .sum()
}

/// Whether `line` is one a user pastes, which is printed whole: a command, a
/// target comment above a pin line, or a line of the CI workflow.
fn is_paste_line(line: &str, in_workflow: bool) -> bool {
    let body = line.trim_start();
    in_workflow || body.starts_with("mcp-warden ") || body.starts_with("# '")
}

#[test]
fn prose_verdicts_and_finding_lines_fit_every_width() {
    let env = Env::new();
    env.cursor(serde_json::json!({
        "サーバー名前": {"command": "npx", "args": ["-y", "pkg"], "env": {"TOKEN": GHP_CLI}},
        "cafe\u{301}": {"url": "https://mcp.example.com/mcp", "headers": {"X-Api-Key": "${KEY}"}},
        "plain": {"command": "uvx", "args": ["tool"]}
    }));
    let only_no_lock = Env::new();
    only_no_lock.cursor(serde_json::json!({"ok": {"command": "node", "args": ["server.js"]}}));
    for home in [&env, &only_no_lock] {
        for width in [20usize, 40, 60, 80, 120, 200] {
            let run = home.doctor_env(&[("COLUMNS", &width.to_string())], &[]);
            let mut in_workflow = false;
            // The header's source lines are laid out elsewhere.
            let body = run
                .stdout
                .lines()
                .skip_while(|l| !l.is_empty() && !l.starts_with("no posture"));
            for line in body {
                if line.starts_with("# .github/workflows/") {
                    in_workflow = true;
                } else if line.starts_with("Summary:") || line.starts_with("Not scanned") {
                    in_workflow = false;
                }
                if columns(line) <= width || is_paste_line(line, in_workflow) {
                    continue;
                }
                let words = line.trim_start_matches('│').split_whitespace().count();
                assert!(words <= 1, "{width}: {line:?} is wider\n{}", run.stdout);
            }
        }
    }
}
