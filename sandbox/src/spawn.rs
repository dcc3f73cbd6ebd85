//! Parent side, creation: re-execute our own binary as the child.
//!
//! Why a re-exec and not `fork`: the child gets a fresh address space with fresh ASLR
//! (a compromised child learns nothing of the parent's memory or layout), a clean Rust
//! runtime, and no `fork` of a possibly multi-threaded process (between fork and exec
//! only the async-signal-safe hook in `sys.rs` runs). This is the shape of OpenSSH's
//! `sshd-auth`. The path is `/proc/self/exe`: the same inode as the running parent even
//! if the file on disk was replaced, so no other program can be slipped in.
//!
//! The child's argv is fixed: `[mcp-warden, CHILD_ARG]` (or `PROBE_ARG <probe>`), plus
//! `--seccomp-log` only when the parent's environment has `MCP_WARDEN_SECCOMP_LOG=1`.
//! Its environment is empty, its cwd is `/`, stdin and stdout are `/dev/null`, stderr is
//! a pipe the parent drains (a regular file there plus `RLIMIT_FSIZE=0` would be
//! SIGXFSZ). Descriptors at `execve`: 3 = request socket (the child's end of a Unix
//! stream pair), 4 = report pipe (write end); nothing else. The handed files follow
//! over the request socket ([`hand_over`], `handover.rs`) and land on 5.., in order,
//! before the child confines itself.

use std::os::fd::{AsRawFd, OwnedFd};

use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, Command, Stdio};

use nix::fcntl::{fcntl, FcntlArg, FdFlag, OFlag};

use crate::child::{MAX_FILES, SECCOMP_LOG_FLAG};
use crate::{sys, SandboxError, CHILD_ARG, PROBE_ARG};

/// Parent environment variable that turns on the seccomp log-only debug mode.
pub const SECCOMP_LOG_ENV: &str = "MCP_WARDEN_SECCOMP_LOG";

/// Which entry point the child runs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Role<'a> {
    Parser,
    Probe(&'a str),
}

/// The report pipe's buffer ([`spawn`]): the default `/proc/sys/fs/pipe-max-size`
/// an unprivileged process may ask for.
#[cfg(target_os = "linux")]
const REPORT_PIPE_BYTES: i32 = 1 << 20;

/// A started child and the parent's ends of its pipes.
pub(crate) struct Spawned {
    pub(crate) child: Child,
    /// The parent's end of the request socket.
    pub(crate) request: OwnedFd,
    /// Read end of the report pipe.
    pub(crate) report: OwnedFd,
    pub(crate) stderr: ChildStderr,
    /// The parent's thread kept off the child's core until the exchange is over
    /// (`placement.rs`); `None` for a probe, or where it could not be done.
    pub(crate) placement: Option<crate::placement::Placement>,
}

/// Starts the child and hands it `files` ([`start`], then [`hand_over`]).
pub(crate) fn spawn(role: Role<'_>, files: Vec<OwnedFd>) -> Result<Spawned, SandboxError> {
    hand_over(start(role)?, files)
}

/// Hands `files` to a started child over its request socket and gives the child back;
/// a child whose handover failed is killed and reaped. The parent's copies of the
/// files are closed when this returns; the child holds its own.
pub(crate) fn hand_over(
    mut spawned: Spawned,
    files: Vec<OwnedFd>,
) -> Result<Spawned, SandboxError> {
    let sent = send_files(&spawned, &files);
    match sent {
        Ok(()) => Ok(spawned),
        Err(e) => {
            spawned.kill_and_reap();
            Err(e)
        }
    }
}

fn send_files(spawned: &Spawned, files: &[OwnedFd]) -> Result<(), SandboxError> {
    if files.len() > MAX_FILES {
        return Err(SandboxError::TooManyFiles {
            count: files.len(),
            max: MAX_FILES,
        });
    }
    // Close-on-exec everywhere in the parent, so no other process spawned meanwhile (by
    // any thread) inherits a handed file.
    for f in files {
        fcntl(f, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))
            .map_err(|e| SandboxError::parent_io("fcntl(FD_CLOEXEC)")(e.into()))?;
    }
    crate::handover::send_files(&spawned.request, files)
        .map_err(SandboxError::parent_io("sendmsg(SCM_RIGHTS)"))
}

impl Spawned {
    /// Ends a child that will not get its exchange.
    pub(crate) fn kill_and_reap(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the child with the fixed layout, before its files are known.
pub(crate) fn start(role: Role<'_>) -> Result<Spawned, SandboxError> {
    // Without Yama, any same-uid process (a compromised child included, if its other
    // layers were missing) could ptrace a dumpable parent or read /proc/<pid>/mem.
    #[cfg(target_os = "linux")]
    nix::sys::prctl::set_dumpable(false).map_err(|e| SandboxError::ParentIo {
        op: "prctl(PR_SET_DUMPABLE, 0)",
        source: e.into(),
    })?;
    // A stream socket, not a pipe: the files travel over it (`SCM_RIGHTS`) before
    // the request does.
    let (request_wr, request_rd) = socketpair(
        AddressFamily::Unix,
        SockType::Stream,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .map_err(|e| SandboxError::parent_io("socketpair")(e.into()))?;
    let (report_rd, report_wr) = nix::unistd::pipe2(OFlag::O_CLOEXEC)
        .map_err(|e| SandboxError::parent_io("pipe2")(e.into()))?;
    // A report pipe that holds several answer parts: the child goes on parsing while
    // the parent works on the part it received, instead of waiting in `write` for
    // the parent to drain a 64 KiB pipe. Best effort: a smaller pipe only costs time.
    #[cfg(target_os = "linux")]
    let _ = fcntl(&report_rd, FcntlArg::F_SETPIPE_SZ(REPORT_PIPE_BYTES));

    let mut cmd = Command::new("/proc/self/exe");
    cmd.arg0("mcp-warden");
    match role {
        Role::Parser => cmd.arg(CHILD_ARG),
        Role::Probe(name) => cmd.arg(PROBE_ARG).arg(name),
    };
    if std::env::var_os(SECCOMP_LOG_ENV).is_some_and(|v| v == "1") {
        cmd.arg(SECCOMP_LOG_FLAG);
    }
    cmd.env_clear()
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let sources = vec![request_rd.as_raw_fd(), report_wr.as_raw_fd()];
    sys::set_child_fd_layout(&mut cmd, sources, nix::unistd::getpid().as_raw());

    let mut child = cmd.spawn().map_err(SandboxError::Spawn)?;
    // The child has its copies now; ours must go so EOF can be seen on both channels.
    drop((request_rd, report_wr, cmd));
    let Some(stderr) = child.stderr.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(SandboxError::Spawn(std::io::Error::other(
            "no stderr pipe after spawn",
        )));
    };
    let placement = match role {
        Role::Parser => i32::try_from(child.id())
            .ok()
            .and_then(|pid| crate::placement::separate(nix::unistd::Pid::from_raw(pid))),
        Role::Probe(_) => None,
    };
    Ok(Spawned {
        child,
        request: request_wr,
        report: report_rd,
        stderr,
        placement,
    })
}
