//! `mcp-warden auth audit`: same loading as doctor, the auth engine alone.

use serde_json::json;

use crate::util::*;

fn audit(env: &Env, args: &[&str]) -> Run {
    let mut full = vec!["auth", "audit"];
    full.extend_from_slice(args);
    Run::from(env.command(&full).output().expect("run"))
}

#[test]
fn audit_verdicts_equal_doctors_for_the_same_file() {
    let env = Env::new();
    let path = env.write(
        "work/mcp.json",
        json!({"mcpServers": {
            "remote": {"url": "http://h.example.com/mcp"},
            "creds": {"url": "https://u:p@h.example.com", "headers": {"Authorization": GHP_ENG}},
            "local": {"command": "npx", "args": ["-y", "pkg"], "env": {"API_TOKEN": "literal-value-123"}}
        }})
        .to_string(),
    );
    let p = path.to_str().expect("utf-8");
    let audit = audit(&env, &[p, "--json"]);
    audit.expect_code(1);
    let doctor = env.doctor(&["--no-discover", "--config", p, "--json"]);
    let key = |v: &serde_json::Value| {
        (
            v["rule_id"].as_str().unwrap_or("").to_string(),
            v["target"].as_str().unwrap_or("").to_string(),
            v["snippet"].as_str().unwrap_or("").to_string(),
            v["severity"].as_str().unwrap_or("").to_string(),
        )
    };
    let from_audit: Vec<_> = audit.jsonl().iter().map(key).collect();
    let from_doctor: Vec<_> = doctor
        .jsonl()
        .iter()
        .map(key)
        .filter(|(r, ..)| r.starts_with("WRD-AUTH-") || r.starts_with("WRD-SEC-"))
        .collect();
    assert!(!from_audit.is_empty());
    assert_eq!(from_audit, from_doctor);
    assert!(!audit.stdout.contains(GHP_ENG));
    assert!(from_audit
        .iter()
        .all(|(r, ..)| !r.starts_with("WRD-SUP-") && !r.starts_with("WRD-DOCTOR-")));
}

#[test]
fn audit_accepts_every_format_and_is_clean_when_nothing_fires() {
    let env = Env::new();
    let toml = env.write(
        "work/config.toml",
        "[mcp_servers.a]\ncommand = \"node\"\nargs = [\"s.js\"]\n",
    );
    let jsonc = env.write(
        "work/.vscode/mcp.json",
        "{\"servers\": {\"v\": {\"command\": \"node\"},}, // c\n}",
    );
    let claude = env.write(
        "work/.claude.json",
        json!({"projects": {"/r": {"mcpServers": {"p": {"url": "https://h.example.com", "headers": {"Authorization": "Bearer ${T}"}}}}}}).to_string(),
    );
    let run = audit(
        &env,
        &[
            toml.to_str().expect("utf-8"),
            jsonc.to_str().expect("utf-8"),
            claude.to_str().expect("utf-8"),
        ],
    );
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("auth audit clean (3 config file(s), no findings)"),
        "{}",
        run.stdout
    );
}

#[test]
fn audit_fails_closed_on_an_unreadable_file() {
    let env = Env::new();
    let bad = env.write("work/bad.json", "{");
    let run = audit(&env, &[bad.to_str().expect("utf-8")]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("error: invalid JSON in"),
        "{}",
        run.stderr
    );
    let run = audit(&env, &["missing.json"]);
    run.expect_code(2);
}
