//! `mcp-warden sandbox selftest`: prove the confinement by attacking it.
//!
//! Each probe runs in its own child (a sandbox cannot be undone, so one process per
//! attempt), started and confined exactly like the parser child, with a temporary file
//! handed over as fd 5 as "the allowed file". The child attempts one thing and reports
//! what happened in one message; a seccomp kill (SIGSYS) counts as denied. The probe code
//! runs only in selftest children, never in a parser child.
//!
//! The signal probes aim at "another process": a second probe child started for the
//! purpose, idle in its first read, with the same uid as the prober (so only the sandbox
//! stands between them) and nothing to lose if a broken sandbox lets the signal through.
//! It is killed and reaped after the probe.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::spawn::{self, Role};
use crate::{child, supervise, sys, Confinement, Limits, SandboxError, WeakSandboxPolicy};

/// Content of the allowed file; the read probe checks it came through intact.
const ALLOWED_CONTENT: &[u8] = b"mcp-warden selftest: the allowed file\n";

/// The no-op probe used by `sandbox status` to learn the confinement.
pub(crate) const HELLO_PROBE: &str = "hello";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    Hello,
    ReadAllowed,
    ReadHostname,
    ListRoot,
    CreateInTmp,
    Exec,
    SocketInet,
    SocketUnix,
    PtraceParent,
    ReadParentMemory,
    RaiseCapability,
    StatPath,
    FstatatPath,
    KillOther,
    TgkillOther,
}

impl Probe {
    /// Whether the probe needs another process to aim at.
    fn needs_target(self) -> bool {
        matches!(self, Probe::KillOther | Probe::TgkillOther)
    }
}

/// (probe, argv name, table label, expected to work)
const PROBES: &[(Probe, &str, &str, bool)] = &[
    (
        Probe::ReadAllowed,
        "read-allowed",
        "read the handed file (fd 5)",
        true,
    ),
    (
        Probe::ReadHostname,
        "read-hostname",
        "open+read /etc/hostname",
        false,
    ),
    (Probe::ListRoot, "list-root", "list the directory /", false),
    (
        Probe::CreateInTmp,
        "create-tmp",
        "create a file in /tmp",
        false,
    ),
    (Probe::Exec, "exec", "execve /bin/true", false),
    (Probe::SocketInet, "socket-inet", "socket(AF_INET)", false),
    (Probe::SocketUnix, "socket-unix", "socket(AF_UNIX)", false),
    (
        Probe::PtraceParent,
        "ptrace-parent",
        "ptrace(PTRACE_SEIZE, parent)",
        false,
    ),
    (
        Probe::ReadParentMemory,
        "vm-read-parent",
        "process_vm_readv(parent)",
        false,
    ),
    (
        Probe::RaiseCapability,
        "raise-cap",
        "raise CAP_SYS_ADMIN (capset)",
        false,
    ),
    (
        Probe::StatPath,
        "stat-path",
        "stat /etc/passwd (statx)",
        false,
    ),
    (
        Probe::FstatatPath,
        "fstatat-path",
        "stat /etc/passwd (newfstatat)",
        false,
    ),
    (
        Probe::KillOther,
        "kill-other",
        "kill(another process, SIGKILL)",
        false,
    ),
    (
        Probe::TgkillOther,
        "tgkill-other",
        "tgkill(another process, SIGABRT)",
        false,
    ),
];

/// Path outside the handed files whose metadata the stat probes ask for.
const OUTSIDE_PATH: &std::ffi::CStr = c"/etc/passwd";

fn probe_by_name(name: &str) -> Option<Probe> {
    if name == HELLO_PROBE {
        return Some(Probe::Hello);
    }
    PROBES.iter().find(|p| p.1 == name).map(|p| p.0)
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ProbeRequest {
    /// The parent's pid, target of the ptrace and memory probes (the child cannot call
    /// `getppid` once confined).
    parent_pid: i32,
    /// The process the signal probes aim at, when the probe needs one.
    target_pid: Option<i32>,
}

/// What the child saw.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Observed {
    Works,
    /// Refused with this errno (0: refused, errno unknown).
    Denied(i32),
    /// Failed for another reason (not a denial).
    Failed(i32),
}

fn from_io(result: io::Result<()>) -> Observed {
    match result {
        Ok(()) => Observed::Works,
        Err(e) => match e.raw_os_error() {
            Some(errno @ (libc::EACCES | libc::EPERM)) => Observed::Denied(errno),
            Some(errno) => Observed::Failed(errno),
            None => Observed::Failed(0),
        },
    }
}

fn attempt(probe: Probe, request: &ProbeRequest, mut files: Vec<File>) -> Option<Observed> {
    let parent = request.parent_pid;
    Some(match probe {
        Probe::Hello => return None,
        Probe::ReadAllowed => {
            // As the parser child reads: size from fstat, then a bounded read (File's own
            // read_to_end would ask statx for a size hint, which the filter refuses).
            let mut got = Vec::new();
            let read = files
                .first_mut()
                .ok_or_else(|| io::Error::from_raw_os_error(libc::EBADF))
                .and_then(|f| {
                    let size = sys::file_size(f)?;
                    Read::take(f, size.saturating_add(1)).read_to_end(&mut got)
                });
            match read {
                Ok(_) if got == ALLOWED_CONTENT => Observed::Works,
                Ok(_) => Observed::Failed(0),
                Err(e) => from_io(Err(e)),
            }
        }
        Probe::ReadHostname => {
            from_io(File::open("/etc/hostname").and_then(|mut f| f.read(&mut [0u8; 64]).map(drop)))
        }
        Probe::ListRoot => {
            from_io(std::fs::read_dir("/").and_then(|mut d| d.next().transpose().map(drop)))
        }
        Probe::CreateInTmp => from_io(
            // create_new (O_EXCL): never follows a planted symlink if this ever works.
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .open("/tmp/mcp-warden-selftest-probe")
                .and_then(|mut f| f.write_all(b"x")),
        ),
        Probe::Exec => from_io(Err(sys::try_execve_true())),
        Probe::SocketInet => from_io(sys::try_socket(libc::AF_INET)),
        Probe::SocketUnix => from_io(sys::try_socket(libc::AF_UNIX)),
        // SEIZE performs the same access check as ATTACH without stopping the parent,
        // so a broken sandbox cannot hang the selftest.
        Probe::PtraceParent => from_io(sys::try_ptrace_seize(parent)),
        Probe::ReadParentMemory => match sys::try_process_vm_read(parent) {
            // EFAULT/ESRCH come after the access check: the access was allowed.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EFAULT)) => Observed::Works,
            other => from_io(other),
        },
        Probe::RaiseCapability => raise_capability(),
        Probe::StatPath => {
            let path = std::ffi::OsStr::from_bytes(OUTSIDE_PATH.to_bytes());
            from_io(std::fs::metadata(path).map(drop))
        }
        Probe::FstatatPath => from_io(sys::try_fstatat(OUTSIDE_PATH)),
        Probe::KillOther | Probe::TgkillOther => match request.target_pid {
            // Never a pid <= 0: kill() would address a process group or every process.
            Some(target) if target > 0 => from_io(if probe == Probe::KillOther {
                sys::try_kill(target, libc::SIGKILL)
            } else {
                sys::try_tgkill(target, libc::SIGABRT)
            }),
            _ => Observed::Failed(libc::ESRCH),
        },
    })
}

#[cfg(target_os = "linux")]
fn raise_capability() -> Observed {
    let (effective, admin) = (caps::CapSet::Effective, caps::Capability::CAP_SYS_ADMIN);
    match caps::raise(None, effective, admin) {
        Ok(()) => Observed::Works,
        Err(_) => Observed::Denied(0),
    }
}

#[cfg(not(target_os = "linux"))]
fn raise_capability() -> Observed {
    Observed::Failed(libc::ENOSYS)
}

/// Entry point of a selftest probe child (`argv[1]` is [`PROBE_ARG`](crate::PROBE_ARG),
/// `argv[2]` the probe name). Never returns.
pub fn probe_main() -> ! {
    let result = child::start().and_then(|start| {
        let name = start
            .positional
            .first()
            .and_then(|n| n.to_str())
            .and_then(probe_by_name)
            .ok_or_else(|| SandboxError::confine("argument check", "unknown probe"))?;
        child::run(
            start,
            move |req: ProbeRequest, files, sender| match attempt(name, &req, files) {
                Some(observed) => sender.send(&observed),
                None => Ok(()),
            },
        )
    });
    child::finish(result)
}

/// A temporary regular file with [`ALLOWED_CONTENT`], opened read-only and unlinked.
fn allowed_file() -> io::Result<OwnedFd> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let path = std::env::temp_dir().join(format!(
        "mcp-warden-selftest-{}-{nanos}",
        std::process::id()
    ));
    let mut w = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    let read_only = w
        .write_all(ALLOWED_CONTENT)
        .and_then(|()| File::open(&path));
    let removed = std::fs::remove_file(&path);
    let read_only = read_only?;
    removed?;
    Ok(OwnedFd::from(read_only))
}

fn probe_limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(5),
        max_frame_len: 1 << 16,
        max_messages: 1,
        max_total_bytes: 1 << 16,
        ..Limits::default()
    }
}

/// Runs one probe child; the output of a confined child that reported.
pub(crate) fn run_probe(name: &str) -> Result<crate::ChildOutput<Observed>, SandboxError> {
    // The idle target of a signal probe: a confined child of its own, waiting for a
    // request that never comes.
    let target = match probe_by_name(name) {
        Some(p) if p.needs_target() => Some(spawn::spawn(Role::Probe(HELLO_PROBE), Vec::new())?),
        _ => None,
    };
    let result = exchange_probe(name, target.as_ref());
    if let Some(mut target) = target {
        let _ = target.child.kill();
        let _ = target.child.wait();
    }
    result
}

fn exchange_probe(
    name: &str,
    target: Option<&spawn::Spawned>,
) -> Result<crate::ChildOutput<Observed>, SandboxError> {
    let file = allowed_file().map_err(SandboxError::parent_io("create the selftest file"))?;
    let request = ProbeRequest {
        parent_pid: i32::try_from(std::process::id()).unwrap_or(i32::MAX),
        target_pid: target.and_then(|t| i32::try_from(t.child.id()).ok()),
    };
    let spawned = spawn::spawn(Role::Probe(name), vec![file])?;
    // AllowWeak: on a degraded kernel the probes must still run and show what happens.
    let mut messages = Vec::new();
    let exchanged = supervise::exchange(
        spawned,
        &request,
        &probe_limits(),
        WeakSandboxPolicy::AllowWeak,
        &mut crate::collect(&mut messages),
    )?;
    Ok(exchanged.with(messages))
}

fn errno_name(errno: i32) -> String {
    match errno {
        0 => "errno unknown".into(),
        libc::EACCES => "EACCES".into(),
        libc::EPERM => "EPERM".into(),
        libc::ENOENT => "ENOENT".into(),
        libc::EBADF => "EBADF".into(),
        libc::EFAULT => "EFAULT".into(),
        libc::ESRCH => "ESRCH".into(),
        libc::ENOSYS => "ENOSYS".into(),
        libc::EAGAIN => "EAGAIN".into(),
        libc::EEXIST => "EEXIST".into(),
        e => format!("errno {e}"),
    }
}

/// Runs every probe in its own confined child; returns (table text, all matched).
#[must_use]
pub fn selftest() -> (String, bool) {
    let mut rows: Vec<[String; 4]> = Vec::new();
    let mut all_ok = true;
    let mut confinement: Option<Confinement> = None;
    for &(probe, name, label, expect_works) in PROBES {
        let (observed, works) = match run_probe(name) {
            Ok(out) => {
                confinement.get_or_insert(out.confinement);
                match out.messages.first() {
                    Some(Observed::Works) => ("works".to_string(), Some(true)),
                    Some(Observed::Denied(e)) => {
                        (format!("denied ({})", errno_name(*e)), Some(false))
                    }
                    Some(Observed::Failed(e)) => (format!("failed ({})", errno_name(*e)), None),
                    None => ("no report".to_string(), None),
                }
            }
            Err(SandboxError::Killed {
                signal: libc::SIGSYS,
                ..
            }) => ("denied (SIGSYS)".to_string(), Some(false)),
            // execve replaced the child by /bin/true, which exited 0 without an end marker.
            Err(SandboxError::Truncated { .. }) if probe == Probe::Exec => {
                ("works (replaced by /bin/true)".to_string(), Some(true))
            }
            Err(e) => (format!("error: {e}"), None),
        };
        let ok = works == Some(expect_works);
        all_ok &= ok;
        rows.push([
            label.to_string(),
            if expect_works { "works" } else { "denied" }.to_string(),
            observed,
            if ok { "OK" } else { "MISMATCH" }.to_string(),
        ]);
    }

    let layers = layer_rows(confinement.as_ref());
    for (label, observed, ok) in layers {
        all_ok &= ok;
        rows.push([
            label,
            "enforced".to_string(),
            observed,
            if ok { "OK" } else { "MISMATCH" }.to_string(),
        ]);
    }
    (render(&rows), all_ok)
}

/// One row per layer, from the confinement a probe child reported in its hello.
fn layer_rows(c: Option<&Confinement>) -> Vec<(String, String, bool)> {
    let Some(c) = c else {
        return vec![("layers".into(), "no child reported".into(), false)];
    };
    let yes_no = |on: bool, what: &str| {
        if on {
            (what.to_string(), true)
        } else {
            ("not enforced".to_string(), false)
        }
    };
    let mut rows = Vec::new();
    let (obs, ok) = match c.landlock_abi {
        Some(abi) if c.landlock_full => (format!("enforced (ABI {abi})"), true),
        Some(abi) => (format!("partial (ABI {abi})"), false),
        None => ("not enforced".into(), false),
    };
    rows.push(("layer: landlock".into(), obs, ok));
    let (obs, ok) = if c.seccomp_log_only {
        ("not enforced (log-only debug mode)".to_string(), false)
    } else {
        yes_no(c.seccomp, "enforced (kill on violation)")
    };
    rows.push(("layer: seccomp".into(), obs, ok));
    let (obs, ok) = yes_no(c.no_new_privs, "enforced");
    rows.push(("layer: no_new_privs".into(), obs, ok));
    let (obs, ok) = yes_no(c.capabilities_dropped, "enforced (all sets empty)");
    rows.push(("layer: capabilities dropped".into(), obs, ok));
    if nix::unistd::geteuid().is_root() {
        let (obs, ok) = match c.dropped_to_uid {
            Some(uid) => (format!("enforced (uid {uid})"), true),
            None => ("not enforced (still root)".to_string(), false),
        };
        rows.push(("layer: root dropped".into(), obs, ok));
    }
    rows
}

fn render(rows: &[[String; 4]]) -> String {
    let header = [
        "probe".to_string(),
        "expected".to_string(),
        "observed".to_string(),
        "result".to_string(),
    ];
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let line = format!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
