//! Test fixtures: a temporary home and cwd, and a way to run the binary in them
//! with a controlled environment.

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const GHP_CLI: &str = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
pub const GHP_ENG: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
pub const UUID: &str = "8b1f2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
pub const BEARER: &str = "ghs_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8";

/// Whether `strace` is missing, so that a test tracing doctor is skipped. Where CI
/// runs (`MCP_WARDEN_REQUIRE_SANDBOX=1`) a missing `strace` fails instead: a trace
/// that silently stops running cannot prove anything.
pub fn strace_is_missing() -> bool {
    if Command::new("strace").arg("-V").output().is_ok() {
        return false;
    }
    assert!(
        std::env::var_os("MCP_WARDEN_REQUIRE_SANDBOX").is_none_or(|v| v != "1"),
        "strace is required in CI (.ci/run installs it)"
    );
    eprintln!("skipping: strace is not installed");
    true
}

/// The binary under test: this build's, or `MCP_WARDEN_TEST_BIN` (to show that a
/// test fails on an older build).
pub fn bin() -> PathBuf {
    std::env::var_os("MCP_WARDEN_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_mcp-warden")))
}

/// `T/` with `T/home` (the fake home) and `T/work` (the cwd). Neither has a `.git`
/// above it inside T, and T is outside the real home, so the walk-up is cwd-only
/// unless a test creates a boundary.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub platform: &'static str,
    pub extra_env: Vec<(OsString, OsString)>,
}

impl Env {
    pub fn new() -> Env {
        Env::with_platform("linux")
    }

    pub fn with_platform(platform: &'static str) -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-test")
            .tempdir()
            .expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).expect("mkdir home");
        std::fs::create_dir_all(dir.path().join("work")).expect("mkdir work");
        Env {
            dir,
            platform,
            extra_env: Vec::new(),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// Write `content` at `rel` below T, creating directories.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
        path
    }

    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(&path).expect("mkdir");
        path
    }

    pub fn symlink(&self, target: &Path, rel: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::os::unix::fs::symlink(target, &path).expect("symlink");
        path
    }

    /// Write `~/.cursor/mcp.json` = `{"mcpServers": servers}`.
    pub fn cursor(&self, servers: serde_json::Value) -> PathBuf {
        self.write(
            "home/.cursor/mcp.json",
            serde_json::json!({ "mcpServers": servers }).to_string(),
        )
    }

    pub fn command(&self, args: &[&str]) -> Command {
        self.command_in(&self.work(), args)
    }

    pub fn command_in(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            // Wide enough that no report line wraps, so tests about what a line
            // says can match it whole; the width itself is tested in text_layout
            // (which sets COLUMNS, or removes it for the pipe default).
            .env("COLUMNS", "1000")
            .stdin(Stdio::null());
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        cmd.args(args);
        cmd
    }

    /// `strace -f -y -s 256 -o TRACE -e trace=CALLS mcp-warden`, run in T/work with
    /// only `HOME` set: the caller adds the binary's arguments. One shape for every
    /// test that proves something from a trace of the built binary.
    pub fn strace(&self, trace: &Path, calls: &str) -> Command {
        let mut cmd = Command::new("strace");
        cmd.args(["-f", "-y", "-s", "256", "-o"])
            .arg(trace)
            .args(["-e", &format!("trace={calls}")])
            .arg(bin())
            .current_dir(self.work())
            .env_clear()
            .env("HOME", self.home());
        cmd
    }

    /// `mcp-warden doctor --home T/home --platform P --system-root T/system ARGS…` in T/work.
    pub fn doctor(&self, args: &[&str]) -> Run {
        self.doctor_in(&self.work(), args)
    }

    /// `T/system`: the system root every run resolves `/etc/…` and the other
    /// system paths below, so no file of the machine running the tests is read.
    pub fn system_root(&self) -> PathBuf {
        self.dir.path().join("system")
    }

    pub fn doctor_in(&self, cwd: &Path, args: &[&str]) -> Run {
        Run::from(
            self.doctor_command(cwd, args)
                .output()
                .expect("run mcp-warden"),
        )
    }

    /// [`Env::doctor`] with `vars` added to the environment.
    pub fn doctor_env(&self, vars: &[(&str, &str)], args: &[&str]) -> Run {
        let mut cmd = self.doctor_command(&self.work(), args);
        cmd.envs(vars.iter().copied());
        Run::from(cmd.output().expect("run mcp-warden"))
    }

    /// The command of [`Env::doctor_in`], not yet run.
    pub fn doctor_command(&self, cwd: &Path, args: &[&str]) -> Command {
        let home = self.home();
        let system = self.system_root();
        let mut full = vec![
            "doctor",
            "--home",
            home.to_str().expect("utf-8 path"),
            "--platform",
            self.platform,
            "--system-root",
            system.to_str().expect("utf-8 path"),
        ];
        full.extend_from_slice(args);
        self.command_in(cwd, &full)
    }
}

/// A finished run, with its streams decoded.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// JSONL records on stdout (every line must parse), without doctor's closing
    /// `{"kind": "summary"}` record (see [`Run::summary`]).
    #[track_caller]
    pub fn jsonl(&self) -> Vec<serde_json::Value> {
        self.all_jsonl()
            .into_iter()
            .filter(|v| v["kind"] != "summary")
            .collect()
    }

    /// Every JSONL record on stdout, the summary included.
    #[track_caller]
    pub fn all_jsonl(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
            .collect()
    }

    /// The `{"kind": "summary"}` record that ends `doctor --json` (exactly one, last).
    #[track_caller]
    pub fn summary(&self) -> serde_json::Value {
        let all = self.all_jsonl();
        let count = all.iter().filter(|v| v["kind"] == "summary").count();
        assert_eq!(count, 1, "one summary record: {}", self.stdout);
        let last = all.last().cloned().unwrap_or_default();
        assert_eq!(
            last["kind"], "summary",
            "the summary is last: {}",
            self.stdout
        );
        last
    }

    /// `--json` reported nothing but its summary.
    #[track_caller]
    pub fn no_jsonl_findings(&self) -> bool {
        self.summary();
        self.jsonl().is_empty()
    }

    /// `(rule_id, target)` pairs from JSONL output.
    pub fn rules(&self) -> Vec<(String, String)> {
        self.jsonl()
            .iter()
            .map(|v| {
                (
                    v["rule_id"].as_str().unwrap_or("").to_string(),
                    v["target"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    pub fn rule_ids(&self) -> Vec<String> {
        self.rules().into_iter().map(|(r, _)| r).collect()
    }

    /// The GitHub workflow printed under "Then in CI", up to the summary that
    /// follows it.
    #[track_caller]
    pub fn ci_snippet(&self) -> &str {
        let start = self
            .stdout
            .find("# .github/workflows/")
            .unwrap_or_else(|| panic!("no CI snippet:\n{}", self.stdout));
        let end = self.stdout.rfind("\nSummary:").unwrap_or(self.stdout.len());
        &self.stdout[start..end]
    }

    /// The `mcp-warden pin …` lines of the Next steps block.
    pub fn pin_lines(&self) -> Vec<String> {
        self.stdout
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("mcp-warden pin"))
            .map(String::from)
            .collect()
    }
}

/// A minimal approved v4 lock for a stdio launch, with digests that bind.
pub fn approved_lock(command: &str, args: &[&str]) -> serde_json::Value {
    lock_for(
        serde_json::json!({"command": command, "args": args, "url": null}),
        true,
    )
}

pub fn approved_url_lock(url: &str) -> serde_json::Value {
    lock_for(
        serde_json::json!({"command": "", "args": [], "url": url}),
        true,
    )
}

/// A lock whose digests are consistent; `approved` decides the pin block.
pub fn lock_for(server: serde_json::Value, approved: bool) -> serde_json::Value {
    use mcp_warden::digest;
    let args: Vec<String> = server["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let command_digest = match server["url"].as_str() {
        Some(url) => digest::command_digest_url(url),
        None => digest::command_digest_stdio(server["command"].as_str().unwrap_or(""), &args),
    };
    let overall = digest::overall_digest(4, &command_digest, &[], &[], &[]);
    let mut server = server;
    server["command_digest"] = serde_json::Value::String(command_digest);
    serde_json::json!({
        "schema_version": 4,
        "warden_version": "1.2.0",
        "server": server,
        "tools": [], "resources": [], "prompts": [], "findings": [],
        "overall_digest": overall,
        "pin": {
            "created_at": "2026-01-01T00:00:00Z",
            "warden_version": "1.2.0",
            "mcp_protocol_version": "2025-11-25",
            "approved": approved,
            "approver": if approved { serde_json::json!("a@example.com") } else { serde_json::Value::Null },
            "approved_at": if approved { serde_json::json!("2026-01-01T00:00:00Z") } else { serde_json::Value::Null },
            "approved_digest": if approved { serde_json::json!(overall) } else { serde_json::Value::Null },
            "provenance_version": 1,
            "pinner": null,
            "attestations": [],
            "rotated_at": null,
            "rotation_count": 0
        }
    })
}
