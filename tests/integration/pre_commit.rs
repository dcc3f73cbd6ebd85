//! The pre-commit hook (`.pre-commit-hooks.yaml`, `scripts/pre-commit/doctor.sh`):
//! its entry run the way pre-commit runs it (entry, then `args:`, then the staged
//! files), and, when `MCP_WARDEN_PRE_COMMIT` names a pre-commit executable (CI
//! installs one), through `pre-commit try-repo` itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use yaml_rust2::YamlLoader;

use crate::util::{bin, Run};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Hook {
    entry: String,
    files: regex::Regex,
}

fn hook() -> Hook {
    let text =
        std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).expect("hooks file");
    let docs = YamlLoader::load_from_str(&text).expect("yaml");
    let hooks = docs[0].as_vec().expect("a list of hooks");
    assert_eq!(hooks.len(), 1);
    let h = &hooks[0];
    assert_eq!(h["id"].as_str(), Some("mcp-warden-doctor"));
    assert_eq!(h["language"].as_str(), Some("script"));
    Hook {
        entry: h["entry"].as_str().expect("entry").to_string(),
        files: regex::Regex::new(h["files"].as_str().expect("files")).expect("files regex"),
    }
}

/// A scratch repository with `mcp-warden` (this build) first on PATH.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix("warden-pre-commit")
            .tempdir()
            .expect("tempdir");
        for sub in ["repo", "bin", "home"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        std::os::unix::fs::symlink(bin(), dir.path().join("bin/mcp-warden")).expect("symlink");
        Scratch { dir }
    }

    fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.repo().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }

    fn command(&self, program: &Path) -> Command {
        let path = format!(
            "{}:{}",
            self.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new(program);
        cmd.current_dir(self.repo())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.dir.path().join("home"))
            .env("COLUMNS", "1000")
            .stdin(Stdio::null());
        cmd
    }

    /// The hook as pre-commit runs it: entry (relative to the hook repository),
    /// the hook's `args`, then each staged file the `files:` pattern matches.
    fn run_entry(&self, args: &[&str], staged: &[&str]) -> Run {
        let hook = hook();
        let files: Vec<&str> = staged
            .iter()
            .copied()
            .filter(|f| hook.files.is_match(f))
            .collect();
        let mut cmd = self.command(&repo_root().join(&hook.entry));
        cmd.args(args).args(&files);
        Run::from(cmd.output().expect("run the hook entry"))
    }

    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.repo())
            .expect("read repo")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

const HOSTILE: &str =
    r#"{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch pwned-by-config"]}}}"#;
const EMPTY: &str = r#"{"mcpServers": {}}"#;

#[test]
fn the_hook_scans_each_staged_config_and_fails_on_findings() {
    let s = Scratch::new();
    s.write(".mcp.json", HOSTILE);
    s.write("sub/.cursor/mcp.json", EMPTY);
    s.write("README.md", "# not a config");
    let run = s.run_entry(&[], &[".mcp.json", "sub/.cursor/mcp.json", "README.md"]);
    run.expect_code(1);
    assert!(run.stdout.contains(".mcp.json#evil"), "{}", run.all());
    assert!(run.stdout.contains("2 config file(s)"), "{}", run.all());
    // Options before `--` are doctor's own.
    s.run_entry(&["--fail-on=critical", "--"], &["sub/.cursor/mcp.json"])
        .expect_code(0);
    // A malformed staged config fails closed.
    s.write("bad/.mcp.json", "{");
    s.run_entry(&[], &["bad/.mcp.json"]).expect_code(2);
    // Nothing staged that matches: nothing to do.
    s.run_entry(&[], &["README.md"]).expect_code(0);
    assert!(!s.repo().join("pwned-by-config").exists());
}

#[test]
fn hostile_file_names_are_config_paths_never_options_or_code() {
    let s = Scratch::new();
    let names = [
        "--pin/.mcp.json",
        "$(touch pwned-subst)/.mcp.json",
        "; touch pwned-semi/.mcp.json",
        "-- /.mcp.json",
        "a b/.cursor/mcp.json",
    ];
    for name in names {
        s.write(name, HOSTILE);
    }
    let run = s.run_entry(&[], &names);
    run.expect_code(1);
    assert!(
        run.stdout
            .contains(&format!("{} config file(s)", names.len())),
        "{}",
        run.all()
    );
    // --pin as a file name did not turn on capture: nothing was spawned or written.
    let mut expected = vec![
        "$(touch pwned-subst)",
        "--pin",
        "-- ",
        "; touch pwned-semi",
        "a b",
    ];
    expected.sort();
    assert_eq!(s.entries(), expected);
}

#[test]
fn pre_commit_try_repo_runs_the_hook() {
    let Some(pre_commit) = std::env::var_os("MCP_WARDEN_PRE_COMMIT") else {
        eprintln!("skipping pre-commit try-repo: MCP_WARDEN_PRE_COMMIT is not set");
        return;
    };
    let s = Scratch::new();
    s.write(".mcp.json", HOSTILE);
    s.write("$(touch pwned)/.vscode/mcp.json", EMPTY);
    s.write("notes.txt", "not a config");
    let git = |args: &[&str]| {
        let out = s
            .command(Path::new("git"))
            .args(args)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q", "."]);
    git(&["add", "-A"]);
    let run = Run::from(
        s.command(Path::new(&pre_commit))
            .args([
                "try-repo",
                repo_root().to_str().expect("utf-8"),
                "mcp-warden-doctor",
            ])
            .args(["--all-files", "--verbose"])
            .env("PRE_COMMIT_HOME", s.dir.path().join("pre-commit-home"))
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("pre-commit try-repo"),
    );
    run.expect_code(1);
    assert!(run.stdout.contains(".mcp.json#evil"), "{}", run.all());
    assert!(run.stdout.contains("2 config file(s)"), "{}", run.all());
    assert!(!s.repo().join("pwned").exists());
    assert!(!s.repo().join("pwned-by-config").exists());
}
