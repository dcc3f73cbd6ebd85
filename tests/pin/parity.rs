//! Digest parity with the earlier implementation: every fixture surface was
//! pinned once by it (scripts/parity/run.sh); our pin of the same argv must give
//! the same server block, entries and overall_digest.

use serde_json::Value;

use crate::util::{read_json, root, run, tempdir, SERVER};

fn cap_findings(lock: &Value) -> Vec<Value> {
    lock["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            let id = f["rule_id"].as_str().unwrap_or("");
            id.starts_with("WRD-CAP-") || id == "WRD-SCHEMA-MALFORMED"
        })
        .cloned()
        .collect()
}

#[test]
fn golden_locks_match() {
    let golden_dir = root().join("tests/fixtures/pin/golden");
    let mut names: Vec<String> = std::fs::read_dir(&golden_dir)
        .expect("golden dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lock"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "golden locks missing: {names:?}");
    let tmp = tempdir();
    let mut compared = 0;
    for name in names {
        let stem = name.trim_end_matches(".lock");
        let gold = read_json(&golden_dir.join(&name));
        let out = tmp.path().join(&name);
        let surface = format!("tests/fixtures/pin/surfaces/{stem}.json");
        // Same argv as the golden pin, relative to the repository root.
        let r = run(
            &[
                "pin",
                "--lock",
                &out.display().to_string(),
                "--",
                "python3",
                SERVER,
                &surface,
            ],
            &root(),
            &[],
        );
        assert_eq!(r.code, 0, "{stem}: {}", r.stderr);
        let ours = read_json(&out);
        assert_eq!(ours["schema_version"], gold["schema_version"], "{stem}");
        assert_eq!(ours["server"], gold["server"], "{stem}: server block");
        for section in ["tools", "resources", "prompts"] {
            let (g, o) = (&gold[section], &ours[section]);
            assert_eq!(
                g.as_array().map(Vec::len),
                o.as_array().map(Vec::len),
                "{stem}: {section} count"
            );
            for (ge, oe) in g
                .as_array()
                .into_iter()
                .flatten()
                .zip(o.as_array().into_iter().flatten())
            {
                assert_eq!(oe, ge, "{stem}: {section} entry differs");
                compared += 1;
            }
        }
        assert_eq!(
            ours["overall_digest"], gold["overall_digest"],
            "{stem}: overall_digest"
        );
        assert_eq!(
            cap_findings(&ours),
            cap_findings(&gold),
            "{stem}: capability findings"
        );
        assert_eq!(
            ours["pin"]["mcp_protocol_version"],
            gold["pin"]["mcp_protocol_version"]
        );
    }
    assert!(compared >= 60, "only {compared} entries compared");
}
