//! `lock rotate`: append-only attestations, unchanged digest, and the gates that
//! refuse (and write nothing) on a tampered or stale lock.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{pin, read_json, run, surface, tempdir};

fn pinned(dir: &Path, extra: &[&str]) -> std::path::PathBuf {
    let s = surface(
        dir,
        "s",
        &json!({"tools": [
            {"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {}}}},
            {"name": "apply", "inputSchema": {"type": "object", "properties": {"path": {}, "data": {}}}}
        ]}),
    );
    let r = pin(dir, "warden.lock", &s, extra);
    assert_eq!(r.code, 0, "{}", r.stderr);
    dir.join("warden.lock")
}

#[test]
fn rotate_appends_and_keeps_the_digest() {
    let tmp = tempdir();
    let lock = pinned(tmp.path(), &[]);
    let before = read_json(&lock);
    let r = run(
        &[
            "lock",
            "rotate",
            "warden.lock",
            "--actor",
            "ci@x.invalid",
            "--json",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(out["rotation_count"], json!({"old": 0, "new": 1}));
    assert_eq!(out["overall_digest"], before["overall_digest"]);
    assert_eq!(out["overall_digest_unchanged"], json!(true));
    assert_eq!(out["role"], json!("pinner"));
    let after = read_json(&lock);
    assert_eq!(after["overall_digest"], before["overall_digest"]);
    assert_eq!(after["tools"], before["tools"]);
    assert_eq!(
        after["pin"]["attestations"][0]["bound_digest"],
        before["overall_digest"]
    );
    assert_eq!(after["pin"]["pinner"]["actor"], json!("ci@x.invalid"));

    // Approve on the second rotation; then a third approval appends again.
    let r = run(
        &[
            "lock",
            "rotate",
            "warden.lock",
            "--approver",
            "boss@x.invalid",
            "--note",
            "quarterly re-attest",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("rotation_count: 1 -> 2"));
    assert!(r.stdout.contains("(unchanged)"));
    let r = run(
        &[
            "lock",
            "rotate",
            "warden.lock",
            "--approver",
            "new@x.invalid",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after = read_json(&lock);
    assert_eq!(after["pin"]["approved"], json!(true));
    assert_eq!(after["pin"]["approver"], json!("new@x.invalid"));
    assert_eq!(after["pin"]["approved_digest"], before["overall_digest"]);
    assert_eq!(after["pin"]["rotation_count"], json!(3));
    let roles: Vec<&str> = after["pin"]["attestations"]
        .as_array()
        .expect("att")
        .iter()
        .filter_map(|a| a["role"].as_str())
        .collect();
    assert_eq!(roles, ["pinner", "approver", "approver"]);
}

fn assert_refused(dir: &Path, lock: &Path, args: &[&str], needle: &str) {
    let before = std::fs::read(lock).expect("read");
    let r = run(args, dir, &[]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains(needle), "{}", r.stderr);
    assert_eq!(
        std::fs::read(lock).expect("read"),
        before,
        "lock changed on failure"
    );
}

fn tamper(lock: &Path, f: impl Fn(&mut Value)) {
    let mut v = read_json(lock);
    f(&mut v);
    std::fs::write(lock, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
}

#[test]
fn gates_refuse_tampered_and_stale_locks() {
    let tmp = tempdir();
    let lock = pinned(tmp.path(), &[]);
    let args = ["lock", "rotate", "warden.lock", "--actor", "x"];
    tamper(&lock, |v| {
        v["tools"][0]["entry_digest"] = json!(format!("sha256:{}", "0".repeat(64)))
    });
    assert_refused(tmp.path(), &lock, &args, "internally inconsistent");

    let lock = pinned(tmp.path(), &[]);
    tamper(&lock, |v| {
        v["overall_digest"] = json!(format!("sha256:{}", "1".repeat(64)))
    });
    assert_refused(tmp.path(), &lock, &args, "internally inconsistent");

    let lock = pinned(tmp.path(), &["--approve", "--approver", "orig@x.invalid"]);
    tamper(&lock, |v| {
        v["pin"]["approved_digest"] = json!(format!("sha256:{}", "2".repeat(64)))
    });
    assert_refused(tmp.path(), &lock, &args, "approval is stale");

    let lock = pinned(tmp.path(), &[]);
    let long = "n".repeat(1001);
    assert_refused(
        tmp.path(),
        &lock,
        &["lock", "rotate", "warden.lock", "--note", &long],
        "1000",
    );
    let ok = "n".repeat(1000);
    assert_eq!(
        run(
            &["lock", "rotate", "warden.lock", "--note", &ok],
            tmp.path(),
            &[]
        )
        .code,
        0
    );

    let r = run(&["lock", "rotate", "missing.lock"], tmp.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("lock file not found"), "{}", r.stderr);
    std::fs::write(tmp.path().join("bad.lock"), "{ not json").expect("write");
    let r = run(&["lock", "rotate", "bad.lock"], tmp.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not valid JSON"), "{}", r.stderr);
}

#[test]
fn rotate_refuses_a_symlinked_lock() {
    let tmp = tempdir();
    let lock = pinned(tmp.path(), &[]);
    let link = tmp.path().join("link.lock");
    std::os::unix::fs::symlink(&lock, &link).expect("symlink");
    let before = std::fs::read(&lock).expect("read");
    let r = run(&["lock", "rotate", "link.lock"], tmp.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("symlink"), "{}", r.stderr);
    assert_eq!(std::fs::read(&lock).expect("read"), before);
}
