//! Digest parity with the earlier implementation: every fixture surface was
//! pinned once by it (scripts/parity/run.sh); our pin of the same argv must give
//! the same server block, entries and overall_digest.

use crate::util::{read_json, root, run, tempdir, SERVER};

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
    assert!(names.len() >= 8, "golden locks missing: {names:?}");
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
        // Findings are not hashed, but they come from the same rules (WRD-CAP-*,
        // WRD-SEC-* through the shared engines) and must agree too.
        assert_eq!(ours["findings"], gold["findings"], "{stem}: findings");
        assert_eq!(
            ours["pin"]["mcp_protocol_version"],
            gold["pin"]["mcp_protocol_version"]
        );
    }
    assert!(compared >= 60, "only {compared} entries compared");
}
