//! `pin --json`, `check --json` and their SARIF for a fixture drift run that covers
//! findings of several rules and drift of most classes, against the bytes the
//! earlier JSONL/SARIF emitter of this codebase wrote (`tests/fixtures/pin/drift/`).
//!
//! JSONL is compared byte for byte. SARIF is compared as JSON, field by field,
//! except where the shared writer intentionally differs: the lock is located
//! relative to `%SRCROOT%` (the directory the command ran in), and each rule's
//! descriptor is the catalog's as doctor writes it (its `fullDescription`, help
//! markdown, and a security-severity and level from the severity: critical rules
//! 9.5, a fine-grained drift id at its class's own severity).

use std::path::Path;

use serde_json::Value;

use crate::util::{pin, run, server};

const FIXTURES: &str = "tests/fixtures/pin/drift";

fn fixture(name: &str) -> String {
    let path = crate::util::root().join(FIXTURES).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `check --lock warden.lock --json EXTRA… -- python3 SERVER SURFACE` in `dir`.
fn check_json(dir: &Path, surface: &str, extra: &[&str]) -> crate::util::Out {
    let server = server();
    let mut args = vec!["check", "--lock", "warden.lock", "--json"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &server, surface]);
    run(&args, dir, &[])
}

/// Pin `base.json` (approved), then check against `changed.json`, both with
/// `--json` and `--sarif`. Returns (pin JSONL, check JSONL, pin SARIF, check SARIF).
fn drift_run(dir: &Path) -> (String, String, Value, Value) {
    let surface = dir.join("s.json");
    std::fs::write(&surface, fixture("base.json")).expect("write surface");
    let s = surface.display().to_string();
    let p = pin(
        dir,
        "warden.lock",
        &s,
        &[
            "--approve",
            "--approver",
            "me",
            "--json",
            "--sarif",
            "pin.sarif",
        ],
    );
    assert_eq!(p.code, 0, "{}", p.stderr);
    std::fs::write(&surface, fixture("changed.json")).expect("write surface");
    let c = check_json(dir, &s, &["--sarif", "check.sarif"]);
    assert_eq!(c.code, 1, "{}", c.stderr);
    let read = |name: &str| crate::util::read_json(&dir.join(name));
    (p.stdout, c.stdout, read("pin.sarif"), read("check.sarif"))
}

#[test]
fn pin_and_check_jsonl_are_unchanged_byte_for_byte() {
    let tmp = crate::util::tempdir();
    let (pin_jsonl, check_jsonl, _, _) = drift_run(tmp.path());
    assert_eq!(pin_jsonl, fixture("pin.jsonl"));
    assert_eq!(check_jsonl, fixture("check.jsonl"));
    // The run covers what it claims: findings of several rules, drift with and
    // without detail, input and output schema classes.
    for needle in [
        "\"kind\": \"finding\", \"rule_id\": \"WRD-CAP-SHELL\"",
        "\"rule_id\": \"WRD-SEC-GITHUB\"",
        "\"drift_class\": \"schema-out-type-changed\"",
        "\"detail\": \"maxLength 64→4096\"",
        "\"detail\": null",
    ] {
        assert!(
            pin_jsonl.contains(needle) || check_jsonl.contains(needle),
            "{needle}"
        );
    }
}

/// `old` with the intended differences of the shared writer applied, for
/// comparison with what the binary writes now.
fn with_intended_changes(mut old: Value, new: &Value, dir: &Path) -> Value {
    let run = &mut old["runs"][0];
    let root = format!("file://{}/", dir.display());
    run["originalUriBaseIds"] = serde_json::json!({"%SRCROOT%": {"uri": root}});
    for result in run["results"].as_array_mut().expect("results") {
        let artifact = &mut result["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(artifact["uri"], "warden.lock");
        artifact["uriBaseId"] = "%SRCROOT%".into();
    }
    let new_rules = new["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    let old_rules = run["tool"]["driver"]["rules"]
        .as_array_mut()
        .expect("rules");
    assert_eq!(old_rules.len(), new_rules.len());
    for (old_rule, new_rule) in old_rules.iter_mut().zip(new_rules) {
        assert_eq!(old_rule["id"], new_rule["id"]);
        for key in ["fullDescription", "defaultConfiguration"] {
            old_rule[key] = new_rule[key].clone();
        }
        old_rule["help"]["markdown"] = new_rule["help"]["markdown"].clone();
        old_rule["properties"]["security-severity"] =
            new_rule["properties"]["security-severity"].clone();
    }
    old
}

#[test]
fn pin_and_check_sarif_differ_only_where_intended() {
    let tmp = crate::util::tempdir();
    let dir = tmp.path().canonicalize().expect("canonical tempdir");
    let (_, _, pin_sarif, check_sarif) = drift_run(&dir);
    for (name, new) in [("pin.sarif", pin_sarif), ("check.sarif", check_sarif)] {
        let version = env!("CARGO_PKG_VERSION");
        let old: Value =
            serde_json::from_str(&fixture(name).replace("0.1.0", version)).expect("fixture SARIF");
        let expected = with_intended_changes(old, &new, &dir);
        assert_eq!(new, expected, "{name}");
    }
    // The intended fixes themselves: critical rules rate critical for GitHub, and a
    // fine-grained drift id carries its class's level, not SCHEMA-MODIFIED's.
    let check = fixture("check.sarif");
    assert!(check.contains("\"security-severity\": \"8.0\""));
    let tmp = crate::util::tempdir();
    let (_, _, pin_sarif, check_sarif) = drift_run(tmp.path());
    let rule = |log: &Value, id: &str| {
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .and_then(|rules| rules.iter().find(|r| r["id"] == id).cloned())
            .unwrap_or_else(|| panic!("no rule {id}"))
    };
    assert_eq!(
        rule(&pin_sarif, "WRD-CAP-SHELL")["properties"]["security-severity"],
        "9.5"
    );
    let relaxed = rule(&check_sarif, "WRD-DRIFT-SCHEMA-CONSTRAINT-RELAXED");
    assert_eq!(relaxed["defaultConfiguration"]["level"], "warning");
    assert_eq!(relaxed["properties"]["security-severity"], "5.5");
}

/// A lock may record findings of rules and severities this version does not know
/// (a newer version wrote them, or a person): `lock rotate` keeps them verbatim,
/// and `check` against such a lock still reports what the fresh capture finds.
#[test]
fn recorded_findings_this_version_does_not_know_survive_rotate_and_check() {
    let tmp = crate::util::tempdir();
    let dir = tmp.path();
    let surface = dir.join("s.json");
    std::fs::write(&surface, fixture("base.json")).expect("write surface");
    let s = surface.display().to_string();
    assert_eq!(pin(dir, "warden.lock", &s, &[]).code, 0);
    let path = dir.join("warden.lock");
    let mut lock = crate::util::read_json(&path);
    let recorded = serde_json::json!([
        {"rule_id": "WRD-FROM-A-NEWER-VERSION", "severity": "severe", "target": "tools/x", "message": "m", "snippet": "s"},
        {"rule_id": "WRD-CAP-SHELL", "severity": "High", "target": "tools/run_command", "message": "m", "snippet": "s"}
    ]);
    lock["findings"] = recorded.clone();
    std::fs::write(&path, serde_json::to_vec_pretty(&lock).expect("json")).expect("write lock");
    let r = run(
        &["lock", "rotate", "warden.lock", "--actor", "ci"],
        dir,
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(crate::util::read_json(&path)["findings"], recorded);
    let c = check_json(dir, &s, &[]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert_eq!(c.stdout, fixture("pin.jsonl"));
}

/// Tool names and descriptions come from the server: in JSONL and SARIF they are
/// neutralised like config text (the earlier emitter wrote a bidi override as is).
#[test]
fn server_controlled_text_is_neutralised_in_pin_output() {
    let tmp = crate::util::tempdir();
    let dir = tmp.path();
    let hostile = "run\u{202e}llehs_etirw\u{2066}";
    let surface = serde_json::json!({"tools": [
        {"name": hostile, "description": "x", "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}
    ]});
    let s = crate::util::surface(dir, "s", &surface);
    let r = pin(dir, "warden.lock", &s, &["--json", "--sarif", "pin.sarif"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let sarif = std::fs::read_to_string(dir.join("pin.sarif")).expect("sarif");
    for (channel, out) in [("jsonl", &r.stdout), ("sarif", &sarif)] {
        assert!(
            !out.contains('\u{202e}') && !out.contains('\u{2066}'),
            "{channel}: {out}"
        );
        assert!(
            out.contains("tools/run\u{FFFD}llehs_etirw\u{FFFD}"),
            "{channel}: {out}"
        );
    }
    // The lock itself records the name as the server declared it.
    let lock = crate::util::read_json(&dir.join("warden.lock"));
    assert_eq!(lock["tools"][0]["name"], hostile);
}
