//! Writes never follow links: `pin --lock`, `pin --sarif`, `check --sarif` and
//! `lock rotate` against a symlink (to a file, dangling), a FIFO, a directory, a
//! symlinked directory on a relative path, an unwritable directory, and `-`.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::deadline;
use crate::util::{bin, server, surface, tempdir, Out};

fn surface_in(dir: &Path) -> String {
    surface(
        dir,
        "s",
        &json!({"tools": [{"name": "run_command", "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}]}),
    )
}

/// `mcp-warden ARGS` in `dir`, failing the test if it blocks.
fn run(dir: &Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(dir)
        .env_remove("WARDEN_APPROVER")
        .env_remove("WARDEN_ACTOR");
    let out = deadline::output(cmd);
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `pin [EXTRA…] -- python3 SERVER SURFACE` in `dir`.
fn pin(dir: &Path, extra: &[&str]) -> Out {
    let (server, s) = (server(), surface_in(dir));
    let mut args = vec!["pin"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &server, &s]);
    run(dir, &args)
}

/// `check [EXTRA…] -- python3 SERVER SURFACE` in `dir`.
fn check(dir: &Path, extra: &[&str]) -> Out {
    let (server, s) = (server(), surface_in(dir));
    let mut args = vec!["check"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &server, &s]);
    run(dir, &args)
}

#[track_caller]
fn assert_refused(out: &Out, needle: &str) {
    deadline::assert_refused(out.code, &out.stdout, &out.stderr, needle);
}

#[track_caller]
fn no_temporaries(dir: &Path) {
    let left = deadline::temporaries(dir);
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}

/// A pinned `warden.lock` in `dir` for `check` and `lock rotate` to use.
fn pinned(dir: &Path) {
    let out = pin(dir, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn every_write_refuses_a_symlink_to_a_file_and_leaves_it_untouched() {
    let tmp = tempdir();
    let dir = tmp.path();
    pinned(dir);
    let victim = dir.join("bashrc");
    std::fs::write(&victim, "keep").expect("write");
    std::os::unix::fs::symlink(&victim, dir.join("out.sarif")).expect("symlink");
    std::os::unix::fs::symlink(&victim, dir.join("link.lock")).expect("symlink");
    let refusal = "is a symlink; refusing to write through it";
    assert_refused(&pin(dir, &["--sarif", "out.sarif"]), refusal);
    assert_refused(&pin(dir, &["--lock", "link.lock"]), refusal);
    assert_refused(&check(dir, &["--sarif", "out.sarif"]), refusal);
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
    // `lock rotate` through a link to a real lock: the rewrite is refused and the
    // lock the link points at is left as it was.
    let real = dir.join("elsewhere.lock");
    std::fs::copy(dir.join("warden.lock"), &real).expect("copy");
    let before = std::fs::read(&real).expect("read");
    std::os::unix::fs::symlink(&real, dir.join("rotate.lock")).expect("symlink");
    // The link is refused before anything is read through it, so the rewrite never
    // starts.
    assert_refused(
        &run(
            dir,
            &["lock", "rotate", "rotate.lock", "--actor", "ci@x.invalid"],
        ),
        "is a symlink; refusing to follow it",
    );
    assert_eq!(std::fs::read(&real).expect("read"), before);
    no_temporaries(dir);
}

#[test]
fn a_dangling_symlink_is_refused_and_its_target_never_created() {
    let tmp = tempdir();
    let dir = tmp.path();
    pinned(dir);
    let target = dir.join("created-by-the-link");
    std::os::unix::fs::symlink(&target, dir.join("out.sarif")).expect("symlink");
    std::os::unix::fs::symlink(&target, dir.join("link.lock")).expect("symlink");
    let refusal = "is a symlink; refusing to write through it";
    assert_refused(&pin(dir, &["--sarif", "out.sarif"]), refusal);
    assert_refused(&pin(dir, &["--lock", "link.lock"]), refusal);
    assert_refused(&check(dir, &["--sarif", "out.sarif"]), refusal);
    assert!(!target.exists());
}

#[test]
fn fifos_directories_and_devices_are_refused_without_blocking() {
    let tmp = tempdir();
    let dir = tmp.path();
    pinned(dir);
    deadline::mkfifo(&dir.join("fifo"));
    std::fs::create_dir(dir.join("dir")).expect("mkdir");
    for (path, kind) in [
        ("fifo", "a FIFO"),
        ("dir", "a directory"),
        ("/dev/null", "a character device"),
    ] {
        let refusal = format!("{path} is {kind}, not a regular file");
        assert_refused(&pin(dir, &["--sarif", path]), &refusal);
        assert_refused(&pin(dir, &["--lock", path]), &refusal);
        assert_refused(&check(dir, &["--sarif", path]), &refusal);
    }
    no_temporaries(dir);
}

#[test]
fn unwritable_and_missing_directories_and_symlinked_ones_are_one_error_line() {
    let tmp = tempdir();
    let dir = tmp.path();
    pinned(dir);
    let outside = tempdir();
    std::os::unix::fs::symlink(outside.path(), dir.join("out")).expect("symlink");
    for (path, needle) in [
        ("missing/x.sarif", "missing/x.sarif: opening its directory"),
        ("out/x.sarif", "directory out is a symlink"),
    ] {
        assert_refused(&pin(dir, &["--sarif", path]), needle);
        assert_refused(&pin(dir, &["--lock", path]), needle);
        assert_refused(&check(dir, &["--sarif", path]), needle);
    }
    // /proc takes no new files from anyone, root included.
    let out = pin(dir, &["--sarif", "/proc/x.sarif"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: could not write SARIF: /proc/x.sarif: creating a temporary file"),
        "{}",
        out.stderr
    );
    assert!(std::fs::read_dir(outside.path())
        .expect("list")
        .next()
        .is_none());
}

#[test]
fn sarif_dash_is_stdout_alone_and_json_with_it_is_a_usage_error() {
    let tmp = tempdir();
    let dir = tmp.path();
    let out = pin(dir, &["--lock", "l.lock", "--sarif", "-"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log: Value = serde_json::from_str(&out.stdout).expect("stdout is SARIF only");
    assert_eq!(log["version"], json!("2.1.0"));
    assert!(out.stderr.contains("pinned -> l.lock"), "{}", out.stderr);
    assert!(!dir.join("-").exists());

    let out = check(dir, &["--lock", "l.lock", "--sarif", "-"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log: Value = serde_json::from_str(&out.stdout).expect("stdout is SARIF only");
    assert_eq!(log["version"], json!("2.1.0"));
    assert!(out.stderr.contains("OK no drift"), "{}", out.stderr);

    let usage = "--json and --sarif - both write to stdout";
    assert_refused(&pin(dir, &["--json", "--sarif", "-"]), usage);
    assert_refused(
        &check(dir, &["--lock", "l.lock", "--json", "--sarif", "-"]),
        usage,
    );
}

#[test]
fn a_regular_lock_is_replaced_by_rename_and_keeps_its_mode() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = tempdir();
    let dir = tmp.path();
    pinned(dir);
    let lock = dir.join("warden.lock");
    std::fs::set_permissions(&lock, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let before = std::fs::metadata(&lock).expect("stat").ino();
    let out = run(
        dir,
        &["lock", "rotate", "warden.lock", "--actor", "ci@x.invalid"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let meta = std::fs::metadata(&lock).expect("stat");
    assert_ne!(meta.ino(), before, "rewritten in place");
    assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    no_temporaries(dir);
}
