//! Shared helpers: run the binary, write fixture surfaces, read locks.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

pub const SERVER: &str = "tests/fixtures/pin/server.py";

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-warden")
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Absolute path of the fixture server.
pub fn server() -> String {
    root().join(SERVER).display().to_string()
}

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the binary with `args` in `cwd`, with extra environment pairs.
pub fn run(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Out {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .env_remove("WARDEN_APPROVER")
        .env_remove("WARDEN_ACTOR")
        .env_remove("WARDEN_ENV");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run mcp-warden");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Write a surface config into `dir` and return its absolute path.
pub fn surface(dir: &Path, name: &str, cfg: &Value) -> String {
    let p = dir.join(format!("{name}.json"));
    std::fs::write(&p, serde_json::to_vec_pretty(cfg).expect("json")).expect("write surface");
    p.display().to_string()
}

pub fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("read")).expect("parse")
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// `pin --lock LOCK -- python3 SERVER SURFACE`, in `dir`.
pub fn pin(dir: &Path, lock: &str, surface: &str, extra: &[&str]) -> Out {
    let server = server();
    let mut args = vec!["pin", "--lock", lock];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &server, surface]);
    run(&args, dir, &[])
}
