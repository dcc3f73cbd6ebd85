//! Every `uses:` this repository ships or prints is pinned by a full commit SHA:
//! the action (`action.yml`), our own workflows and the workflow snippet doctor
//! prints. One checker, [`unpinned_uses`], serves all three.

use std::path::{Path, PathBuf};

use serde_json::json;
use yaml_rust2::{Yaml, YamlLoader};

use crate::util::Env;

/// Why a `uses:` value is not an immutable reference, or `None` when it is:
/// `owner/repo[/path]@<40 hex>`, or a local `./path` action.
pub fn unpinned_reason(uses: &str) -> Option<String> {
    if uses.starts_with("./") {
        return None;
    }
    if uses.starts_with("docker://") {
        return Some("a docker image reference, not a commit-pinned action".into());
    }
    let Some((name, reference)) = uses.rsplit_once('@') else {
        return Some("no @ref".into());
    };
    let mut parts = name.split('/');
    let owner = parts.next().unwrap_or_default();
    let repo = parts.next().unwrap_or_default();
    let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    for (what, part) in [("owner", owner), ("repository", repo)] {
        if part.is_empty() || !part.chars().all(name_char) || part.chars().all(|c| c == '.') {
            return Some(format!("no valid {what} in {name:?}"));
        }
    }
    if parts.any(|p| p.is_empty() || p == "..") {
        return Some(format!(
            "an empty or parent component in the path of {name:?}"
        ));
    }
    let is_sha = reference.len() == 40
        && reference
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !is_sha {
        return Some(format!(
            "ref {reference:?} is not a full 40-hex commit SHA (a tag or branch can move)"
        ));
    }
    None
}

/// Every `uses:` value anywhere in `doc` (steps, reusable-workflow jobs).
pub fn uses_values(doc: &Yaml) -> Vec<String> {
    let mut found = Vec::new();
    collect_uses(doc, &mut found);
    found
}

fn collect_uses(node: &Yaml, found: &mut Vec<String>) {
    match node {
        Yaml::Hash(map) => {
            for (k, v) in map {
                if k.as_str() == Some("uses") {
                    found.push(v.as_str().map_or_else(|| format!("{v:?}"), String::from));
                } else {
                    collect_uses(v, found);
                }
            }
        }
        Yaml::Array(items) => items.iter().for_each(|i| collect_uses(i, found)),
        _ => {}
    }
}

/// `uses:` values of the YAML `text` that are not pinned, each with the reason.
pub fn unpinned_uses(text: &str) -> Result<Vec<String>, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    if docs.is_empty() {
        return Err("no YAML document".into());
    }
    let mut bad = Vec::new();
    for doc in &docs {
        for uses in uses_values(doc) {
            if let Some(reason) = unpinned_reason(&uses) {
                bad.push(format!("{uses}: {reason}"));
            }
        }
    }
    Ok(bad)
}

/// Lines of `text` whose SHA-pinned `uses:` lacks a `# vX.Y.Z` comment naming the
/// release the SHA is (so a reviewer and an updater can tell what it is).
pub fn uses_without_version_comment(text: &str) -> Vec<String> {
    let comment = regex::Regex::new(r"@[0-9a-f]{40} # v[0-9]+\.[0-9]+\.[0-9]+$").expect("regex");
    text.lines()
        .filter(|l| {
            let t = l.trim_start().trim_start_matches("- ");
            t.starts_with("uses: ") && !t.starts_with("uses: ./") && !comment.is_match(t)
        })
        .map(String::from)
        .collect()
}

#[track_caller]
fn assert_all_pinned(what: &str, text: &str) {
    let bad = unpinned_uses(text).unwrap_or_else(|e| panic!("{what} is not YAML: {e}"));
    assert!(bad.is_empty(), "{what}: unpinned uses:\n{}", bad.join("\n"));
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn checker_accepts_only_commit_pins_and_local_actions() {
    let sha = "11bd71901bbe5b1630ceea73d27597364c9af683";
    for good in [
        format!("actions/checkout@{sha}"),
        format!("github/codeql-action/upload-sarif@{sha}"),
        format!("owner/repo/.github/workflows/ci.yml@{sha}"),
        "./".to_string(),
        "./.github/actions/local".to_string(),
    ] {
        assert_eq!(unpinned_reason(&good), None, "{good}");
    }
    for bad in [
        "actions/checkout@v4".to_string(),
        "actions/checkout@v4.2.2".to_string(),
        "actions/checkout@main".to_string(),
        "actions/checkout".to_string(),
        format!("actions/checkout@{}", &sha[..39]),
        format!("actions/checkout@{sha}0"),
        format!("actions/checkout@{}", sha.to_uppercase()),
        format!("actions/checkout@{sha} "),
        format!("checkout@{sha}"),
        format!("/checkout@{sha}"),
        format!("actions//checkout@{sha}"),
        format!("actions/checkout/../x@{sha}"),
        format!("a b/checkout@{sha}"),
        format!("docker://alpine@sha256:{sha}"),
        "../outside".to_string(),
        "dtolnay/rust-toolchain@stable".to_string(),
    ] {
        assert!(unpinned_reason(&bad).is_some(), "{bad:?} passed");
    }
}

#[test]
fn checker_finds_a_tag_pin_anywhere_in_a_workflow() {
    let sha = "11bd71901bbe5b1630ceea73d27597364c9af683";
    let pinned = format!(
        "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@{sha} # v4.2.2\n"
    );
    assert_eq!(unpinned_uses(&pinned), Ok(vec![]));
    assert!(uses_without_version_comment(&pinned).is_empty());
    for text in [
        format!("{pinned}      - uses: actions/cache@v4\n"),
        format!("{pinned}  b:\n    uses: owner/repo/.github/workflows/x.yml@main\n"),
        format!("{pinned}      - {{ uses: \"actions/cache@v4\" }}\n"),
        // A flow mapping or a quoted key is still a `uses:`.
        format!("{pinned}      - \"uses\": 'actions/cache@v4'\n"),
        format!("{pinned}      - uses:\n          - not a string\n"),
    ] {
        let bad = unpinned_uses(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bad.len(), 1, "{text}\n{bad:?}");
    }
    assert_eq!(
        uses_without_version_comment(&format!("      - uses: actions/checkout@{sha}\n")).len(),
        1
    );
    assert!(unpinned_uses("a: [").is_err());
}

#[test]
fn the_action_and_every_workflow_pin_each_uses_by_sha() {
    let root = repo_root();
    let action = read(&root.join("action.yml"));
    assert_all_pinned("action.yml", &action);
    let missing = uses_without_version_comment(&action);
    assert!(missing.is_empty(), "action.yml: {missing:?}");
    assert!(!uses_values(&YamlLoader::load_from_str(&action).expect("yaml")[0]).is_empty());

    let dir = root.join(".github/workflows");
    let mut workflows = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("dir entry").path();
        let is_yaml = path.extension().is_some_and(|e| e == "yml" || e == "yaml");
        if is_yaml {
            assert_all_pinned(&path.display().to_string(), &read(&path));
            workflows += 1;
        }
    }
    assert!(workflows > 0, "no workflow under {}", dir.display());
}

/// The `version = "…"` of Cargo.toml's `[package]`.
fn package_version() -> String {
    let manifest = read(&repo_root().join("Cargo.toml"));
    let value: toml::Value = toml::from_str(&manifest).expect("Cargo.toml");
    value["package"]["version"]
        .as_str()
        .expect("package.version")
        .to_string()
}

#[test]
fn the_action_installs_the_package_version() {
    let action = read(&repo_root().join("action.yml"));
    let doc = &YamlLoader::load_from_str(&action).expect("yaml")[0];
    let steps = doc["runs"]["steps"].as_vec().expect("runs.steps");
    let versions: Vec<&str> = steps
        .iter()
        .filter_map(|s| s["env"]["MCP_WARDEN_VERSION"].as_str())
        .collect();
    assert_eq!(versions, [package_version().as_str()]);
    assert_eq!(package_version(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn the_printed_ci_snippet_pins_each_uses_by_sha() {
    let env = Env::new();
    env.cursor(json!({"s": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}}));
    let run = env.doctor(&[]);
    let snippet = run.ci_snippet();
    assert_all_pinned("the printed CI snippet", snippet);
    let missing = uses_without_version_comment(snippet);
    assert!(missing.is_empty(), "{missing:?}\n{snippet}");
    let doc = &YamlLoader::load_from_str(snippet).expect("yaml")[0];
    assert!(!uses_values(doc).is_empty(), "{snippet}");
}
