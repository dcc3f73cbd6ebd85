//! Writes never follow links: `doctor --sarif` and `auth audit --sarif` against a
//! symlink (to a file, dangling), a FIFO, a directory, an unwritable directory, a
//! symlinked directory on a relative path, and `-` for stdout; `doctor --pin`
//! against a symlink where its lock would go.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::bounded::{self, assert_refused};
use crate::util::*;

/// A home with one finding, so every run has a report to write.
fn env_with_a_finding() -> Env {
    let env = Env::new();
    env.cursor(json!({"plain": {"url": "http://h.example.com/mcp"}}));
    env
}

#[track_caller]
fn no_temporaries(dir: &Path) {
    let left = bounded::temporaries(dir);
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}

/// `doctor --sarif ARG` and `auth audit CONFIG --sarif ARG`, both bounded.
fn both_commands(env: &Env, sarif: &str) -> [Run; 2] {
    let config = env.home().join(".cursor/mcp.json");
    [
        bounded::doctor(env, &["--sarif", sarif]),
        bounded::output(env.command(&[
            "auth",
            "audit",
            config.to_str().expect("utf-8"),
            "--sarif",
            sarif,
        ])),
    ]
}

#[test]
fn sarif_through_a_symlink_to_a_file_leaves_the_target_untouched() {
    let env = env_with_a_finding();
    let bashrc = env.write("home/.bashrc", "export KEEP=1\n");
    env.symlink(&bashrc, "work/doctor.sarif");
    // The spec's own example, run inside a repository that ships the link.
    for run in both_commands(&env, "doctor.sarif") {
        assert_refused(
            &run,
            "cannot write SARIF: doctor.sarif is a symlink; refusing to write through it",
        );
    }
    assert_eq!(
        std::fs::read_to_string(&bashrc).expect("read"),
        "export KEEP=1\n"
    );
    assert!(std::fs::symlink_metadata(env.work().join("doctor.sarif"))
        .expect("lstat")
        .file_type()
        .is_symlink());
    no_temporaries(&env.work());
}

#[test]
fn sarif_through_a_dangling_symlink_never_creates_its_target() {
    let env = env_with_a_finding();
    let target = env.root().join("created-by-the-link");
    env.symlink(&target, "work/doctor.sarif");
    let absolute = env.work().join("doctor.sarif");
    for arg in ["doctor.sarif", absolute.to_str().expect("utf-8")] {
        for run in both_commands(&env, arg) {
            assert_refused(&run, "is a symlink; refusing to write through it");
        }
    }
    assert!(!target.exists());
}

#[test]
fn sarif_onto_a_fifo_a_socket_or_a_directory_is_refused_without_blocking() {
    let env = env_with_a_finding();
    bounded::mkfifo(&env.work().join("fifo.sarif"));
    let _socket = bounded::socket(&env.work().join("socket.sarif"));
    env.mkdir("work/dir.sarif");
    for (arg, kind) in [
        ("fifo.sarif", "a FIFO"),
        ("socket.sarif", "a socket"),
        ("dir.sarif", "a directory"),
        ("/dev/null", "a character device"),
    ] {
        for run in both_commands(&env, arg) {
            assert_refused(&run, &format!("{arg} is {kind}, not a regular file"));
        }
    }
    let meta = std::fs::symlink_metadata(env.work().join("fifo.sarif")).expect("lstat");
    assert!(meta.file_type().is_fifo());
    no_temporaries(&env.work());
}

#[test]
fn sarif_into_an_unwritable_or_missing_directory_is_one_error_line() {
    let env = env_with_a_finding();
    // /proc refuses new files for every user, root included.
    for (arg, needle) in [
        (
            "/proc/doctor.sarif",
            "/proc/doctor.sarif: creating a temporary file",
        ),
        (
            "missing/doctor.sarif",
            "missing/doctor.sarif: opening its directory",
        ),
    ] {
        for run in both_commands(&env, arg) {
            assert_refused(&run, needle);
        }
    }
}

#[test]
fn a_symlinked_directory_on_a_relative_sarif_path_is_refused() {
    let env = env_with_a_finding();
    let outside = env.mkdir("outside");
    env.symlink(&outside, "work/out");
    env.mkdir("work/real/deeper");
    env.symlink(&env.work().join("real"), "work/real/deeper/loop");
    for arg in [
        "out/doctor.sarif",
        "./out/doctor.sarif",
        "real/deeper/loop/x.sarif",
    ] {
        for run in both_commands(&env, arg) {
            assert_refused(&run, "is a symlink; refusing to write through it");
        }
    }
    assert!(std::fs::read_dir(&outside).expect("list").next().is_none());
    // An absolute path is the user's own choice of directory: followed.
    let absolute = env.work().join("out/doctor.sarif");
    let run = bounded::doctor(&env, &["--sarif", absolute.to_str().expect("utf-8")]);
    run.expect_code(1);
    assert!(outside.join("doctor.sarif").is_file());
}

#[test]
fn sarif_replaces_a_regular_file_atomically_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let env = env_with_a_finding();
    let path = env.write("work/doctor.sarif", "old");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let inode_before =
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).expect("stat"));
    let run = bounded::doctor(&env, &["--sarif", "doctor.sarif"]);
    run.expect_code(1);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(log["version"], "2.1.0");
    let meta = std::fs::metadata(&path).expect("stat");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    // A new inode: the old file was replaced by a rename, never rewritten in place.
    assert_ne!(std::os::unix::fs::MetadataExt::ino(&meta), inode_before);
    no_temporaries(&env.work());
}

#[test]
fn sarif_dash_is_stdout_alone_and_the_report_moves_to_stderr() {
    let env = env_with_a_finding();
    let plain = bounded::doctor(&env, &[]);
    let run = bounded::doctor(&env, &["--sarif", "-"]);
    assert_eq!(run.code, plain.code);
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is SARIF only");
    assert_eq!(log["version"], "2.1.0");
    let rules: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"WRD-AUTH-PLAINTEXT-HTTP"), "{rules:?}");
    assert!(run.stderr.contains("Posture findings"), "{}", run.stderr);
    assert!(run.stderr.contains(&plain.stdout), "{}", run.stderr);
    assert!(!env.work().join("-").exists());

    // `auth audit` the same way.
    let config = env.home().join(".cursor/mcp.json");
    let run = bounded::output(env.command(&[
        "auth",
        "audit",
        config.to_str().expect("utf-8"),
        "--sarif",
        "-",
    ]));
    run.expect_code(1);
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is SARIF only");
    assert_eq!(log["version"], "2.1.0");
    assert!(!run.stderr.is_empty());

    // A file really named `-` is still reachable as `./-`.
    let run = bounded::doctor(&env, &["--sarif", "./-"]);
    run.expect_code(1);
    assert!(env.work().join("-").is_file());
}

#[test]
fn json_with_sarif_dash_is_a_usage_error_before_any_scan() {
    let env = env_with_a_finding();
    let config = env.home().join(".cursor/mcp.json");
    let runs = [
        bounded::doctor(&env, &["--json", "--sarif", "-"]),
        bounded::output(env.command(&[
            "auth",
            "audit",
            config.to_str().expect("utf-8"),
            "--json",
            "--sarif",
            "-",
        ])),
    ];
    for run in runs {
        assert_refused(&run, "--json and --sarif - both write to stdout");
    }
}

#[test]
fn doctor_pin_never_writes_through_a_symlink_where_its_lock_goes() {
    let env = Env::new();
    let server_py = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pin/server.py");
    let surface = env.write(
        "surface.json",
        json!({"tools": [{"name": "read_file", "inputSchema": {"type": "object"}}]}).to_string(),
    );
    let config = env.write(
        "work/mine.json",
        json!({"mcpServers": {"clean": {"command": "python3", "args": [server_py, surface]}}})
            .to_string(),
    );
    let victim = env.write("victim", "keep");
    env.symlink(&victim, "work/clean.warden.lock");
    let dangling_target = env.root().join("made-by-link");
    env.symlink(&dangling_target, "work/clean-2.warden.lock");
    let run = bounded::doctor(
        &env,
        &[
            "--no-discover",
            "--config",
            config.to_str().expect("utf-8"),
            "--pin",
            "--yes",
            "--sarif",
            "-",
        ],
    );
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
    assert!(!dangling_target.exists());
    // The lock went to a fresh name, and with `--sarif -` its status line went to
    // stderr: stdout is SARIF alone.
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is SARIF only");
    assert_eq!(log["version"], "2.1.0");
    assert!(run.stderr.contains("pinned "), "{}", run.stderr);
    let written: Vec<String> = std::fs::read_dir(env.work())
        .expect("list")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".warden.lock"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?}\n{}", run.stderr);
    no_temporaries(&env.work());
}
