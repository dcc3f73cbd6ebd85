//! Running the binary with a deadline, for tests whose regression would block
//! rather than fail (a FIFO opened for reading or writing waits for a peer), and
//! the special files those tests plant. Self-contained: the `pin` test crate
//! includes this file too.

#![allow(dead_code)]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a run that should finish at once may take before it counts as blocked.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Run `cmd` to completion with stdin closed, or kill it and fail the test at
/// [`DEADLINE`].
#[track_caller]
pub fn output(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp-warden");
    let mut stdout = child.stdout.take().expect("stdout pipe");
    let mut stderr = child.stderr.take().expect("stderr pipe");
    let read_stdout = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let read_stderr = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp-warden did not finish within {DEADLINE:?}: blocked");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: read_stdout.join().expect("stdout reader"),
        stderr: read_stderr.join().expect("stderr reader"),
    }
}

/// A FIFO at `path`.
pub fn mkfifo(path: &Path) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
}

/// A listening Unix socket at `path` (kept alive by the returned listener).
pub fn socket(path: &Path) -> std::os::unix::net::UnixListener {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::os::unix::net::UnixListener::bind(path).expect("bind socket")
}

/// The `.mcp-warden-*` temporary files a write left in `dir` (there must be none).
pub fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("list")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".mcp-warden-"))
        .collect()
}

/// A refused write: exit 2, exactly one `error:` line, containing `needle`, and
/// nothing on stdout.
#[track_caller]
pub fn assert_refused(code: i32, stdout: &str, stderr: &str, needle: &str) {
    assert_eq!(code, 2, "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(needle), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
}
