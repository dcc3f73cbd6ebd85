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

/// The lock as the earlier in-process reader read it (serde_json into the model), to
/// compare `rotate`'s output with what it wrote for the same input.
fn old_reading(bytes: &[u8]) -> mcp_warden::pin::Lock {
    serde_json::from_slice(bytes).expect("the earlier reader accepts the fixture")
}

/// `overall_digest` recomputed for a lock whose schema_version was changed.
fn reseal(lock: &mut Value) {
    let digests = |key: &str| -> Vec<String> {
        lock[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| e["entry_digest"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let (t, r, p) = (digests("tools"), digests("resources"), digests("prompts"));
    let version = lock["schema_version"].as_u64().unwrap_or(4) as u32;
    let command = lock["server"]["command_digest"]
        .as_str()
        .unwrap_or("")
        .to_string();
    lock["overall_digest"] = json!(mcp_warden::digest::overall_digest(
        version, &command, &t, &r, &p
    ));
}

/// Inputs that exercise the rewrite: every golden lock, legacy levels 1 to 3 (keys
/// the format lacked, defaults for the provenance block), unknown keys (dropped),
/// and JSON-valued fields with every kind of number and escape.
fn rewrite_inputs() -> Vec<(String, Vec<u8>)> {
    let golden = crate::util::root().join("tests/fixtures/pin/golden");
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&golden)
        .expect("golden")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "lock"))
        .collect();
    names.sort();
    for path in &names {
        let bytes = std::fs::read(path).expect("read");
        out.push((path.display().to_string(), bytes));
    }
    let base: Value = serde_json::from_slice(&out[0].1).expect("json");
    for version in [1, 2, 3] {
        let mut lock = base.clone();
        lock["schema_version"] = json!(version);
        for t in lock["tools"].as_array_mut().into_iter().flatten() {
            let t = t.as_object_mut().expect("tool");
            t.remove("annotations_hash");
            t.remove("output_schema_hash");
            t.remove("output_schema_skeleton");
            if version == 1 {
                t.remove("schema_skeleton");
            }
        }
        if version == 1 {
            let pin = lock["pin"].as_object_mut().expect("pin");
            for k in [
                "provenance_version",
                "pinner",
                "attestations",
                "rotated_at",
                "rotation_count",
            ] {
                pin.remove(k);
            }
        }
        reseal(&mut lock);
        out.push((
            format!("v{version}"),
            serde_json::to_vec_pretty(&lock).expect("json"),
        ));
    }
    let mut odd = base.clone();
    odd["future"] = json!({"a": [1, 2]});
    odd["pin"]["future"] = json!(true);
    if let Some(t) = odd["tools"].get_mut(0) {
        t["future"] = json!("x");
        t["inspection"] = json!({"expected_output_charset": "text", "é\n": "\u{1F600}"});
        t["schema_skeleton"] = json!({"props": {"$root": {"type": ["object"], "required": false,
            "enum": ["NUMS"], "constraints": {"minimum": "ONE", "maxLength": 5}}}});
    }
    // Numbers serde_json reads in all its ways: integers, negatives, u64 beyond i64,
    // floats, exponents, an integer beyond u64 (a float then), negative zero.
    let text = odd.to_string().replace(
        "\"NUMS\"",
        "0, -0, 1, -1, 1.0, 1.5e3, 1E-7, 18446744073709551615, -9223372036854775808, \
         123456789012345678901234567890, 0.1, 2.5e-320",
    );
    let text = text.replace("\"ONE\"", "-0.0");
    out.push(("odd".into(), text.into_bytes()));
    out
}

#[test]
fn rotate_rewrites_every_lock_level_as_the_earlier_reader_did() {
    let tmp = tempdir();
    let mut compared = 0;
    for (name, bytes) in rewrite_inputs() {
        let path = tmp.path().join("rewrite.warden.lock");
        std::fs::write(&path, &bytes).expect("write");
        let r = run(
            &[
                "lock",
                "rotate",
                "rewrite.warden.lock",
                "--approver",
                "a@x.invalid",
            ],
            tmp.path(),
            &[],
        );
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let written = std::fs::read(&path).expect("read");
        // What the earlier reader would have made of the input, with the rotation's
        // own new values (time stamps, the appended attestation) taken from the output.
        let mut expected = old_reading(&bytes);
        let rotated = old_reading(&written);
        expected.pin = rotated.pin.clone();
        let want = mcp_warden::pin::lock::write::to_pretty_json(&expected);
        assert!(
            written == want,
            "{name}: rotate wrote\n{}\nthe earlier reader's rewrite is\n{}",
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&want)
        );
        // Only the pin block changed: everything else is the input's, byte for byte
        // after the earlier reader's rewrite.
        let mut old = old_reading(&bytes);
        old.pin = rotated.pin;
        assert_eq!(old, expected, "{name}");
        compared += 1;
    }
    assert!(compared >= 12, "{compared}");
}
