//! `check`: exit 0 without drift, 1 with drift (each class), 2 on failure.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{pin, run, server, surface, tempdir};

fn base() -> Value {
    json!({
        "tools": [
            {"name": "read_file", "description": "Read", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 64}}, "required": ["path"]}},
            {"name": "ping", "inputSchema": {"type": "object"}}
        ],
        "resources": [{"uri": "file:///a", "name": "a"}],
        "prompts": [{"name": "p", "description": "d"}]
    })
}

/// Pin `base`, rewrite the same surface file with `changed`, run check --json.
fn drift_of(dir: &Path, changed: &Value) -> (i32, Vec<Value>) {
    let s = surface(dir, "s", &base());
    let r = pin(dir, "warden.lock", &s, &["--approve", "--approver", "me"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    surface(dir, "s", changed);
    let server = server();
    let r = run(&["check", "--json", "--", "python3", &server, &s], dir, &[]);
    let records = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("jsonl"))
        .filter(|v| v["kind"] == json!("drift"))
        .collect();
    (r.code, records)
}

fn classes(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| r["drift_class"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn no_drift_exits_zero() {
    let tmp = tempdir();
    let (code, drift) = drift_of(tmp.path(), &base());
    assert_eq!(code, 0);
    assert!(drift.is_empty());
}

#[test]
fn drift_classes() {
    let tmp = tempdir();
    let mut c = base();
    c["tools"]
        .as_array_mut()
        .expect("tools")
        .push(json!({"name": "run_shell", "inputSchema": {"type": "object"}}));
    let (code, d) = drift_of(tmp.path(), &c);
    assert_eq!(code, 1);
    let cl = classes(&d);
    assert!(cl.contains(&"tool-added".to_string()), "{cl:?}");
    assert!(cl.contains(&"unapproved-change".to_string()), "{cl:?}");
    assert_eq!(
        d[0]["rule_id"]
            .as_str()
            .map(|s| s.starts_with("WRD-DRIFT-")),
        Some(true)
    );

    let mut c = base();
    c["tools"].as_array_mut().expect("tools").pop();
    assert!(classes(&drift_of(tmp.path(), &c).1).contains(&"tool-removed".to_string()));

    let mut c = base();
    c["tools"][0]["description"] = json!("Read, differently");
    assert!(classes(&drift_of(tmp.path(), &c).1).contains(&"description-modified".to_string()));

    let mut c = base();
    c["tools"][0]["inputSchema"]["properties"]["path"]["maxLength"] = json!(4096);
    let (_, d) = drift_of(tmp.path(), &c);
    let relaxed = d
        .iter()
        .find(|r| r["drift_class"] == json!("schema-constraint-relaxed"))
        .expect("relaxed");
    assert_eq!(relaxed["detail"], json!("maxLength 64→4096"));

    let mut c = base();
    c["tools"][1]["inputSchema"]["properties"] = json!({"url": {"type": "string"}});
    let cl = classes(&drift_of(tmp.path(), &c).1);
    assert!(cl.contains(&"capability-added".to_string()), "{cl:?}");
    assert!(
        cl.contains(&"schema-unconstrained-added".to_string()),
        "{cl:?}"
    );

    let mut c = base();
    c["tools"][1]["annotations"] = json!({"destructiveHint": true});
    assert!(classes(&drift_of(tmp.path(), &c).1).contains(&"tool-annotations-modified".to_string()));

    let mut c = base();
    c["tools"][1]["outputSchema"] = json!({"type": "object"});
    assert!(classes(&drift_of(tmp.path(), &c).1).contains(&"schema-out-added".to_string()));

    let mut c = base();
    c["resources"] = json!([{"uri": "file:///b", "name": "b"}]);
    let cl = classes(&drift_of(tmp.path(), &c).1);
    assert!(
        cl.contains(&"resource-added".to_string()) && cl.contains(&"resource-removed".to_string()),
        "{cl:?}"
    );

    let mut c = base();
    c["resources"][0]["mimeType"] = json!("text/plain");
    c["prompts"][0]["description"] = json!("changed");
    let cl = classes(&drift_of(tmp.path(), &c).1);
    assert!(
        cl.contains(&"resource-modified".to_string())
            && cl.contains(&"prompt-modified".to_string()),
        "{cl:?}"
    );

    let mut c = base();
    c["prompts"] = json!([{"name": "q"}]);
    let cl = classes(&drift_of(tmp.path(), &c).1);
    assert!(
        cl.contains(&"prompt-added".to_string()) && cl.contains(&"prompt-removed".to_string()),
        "{cl:?}"
    );
}

#[test]
fn server_identity_and_failures() {
    let tmp = tempdir();
    let s = surface(tmp.path(), "s", &base());
    assert_eq!(pin(tmp.path(), "warden.lock", &s, &[]).code, 0);
    let other = surface(tmp.path(), "other", &base());
    let server = server();
    let r = run(
        &[
            "check", "--sarif", "c.sarif", "--", "python3", &server, &other,
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("DRIFT DETECTED"));
    assert!(r.stdout.contains("server-identity"));
    let sarif = crate::util::read_json(&tmp.path().join("c.sarif"));
    let ids: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(ids.contains(&"WRD-DRIFT-SERVER-IDENTITY"), "{ids:?}");

    let r = run(&["check", "--", "python3", &server, &s], tmp.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("OK no drift"));

    let r = run(
        &["check", "--lock", "nope.lock", "--", "python3", &server, &s],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    let r = run(&["check", "--verify"], tmp.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not supported"));
    let hung = surface(tmp.path(), "hung", &json!({"behavior": "hang"}));
    let r = run(
        &["check", "--timeout", "1", "--", "python3", &server, &hung],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
}
