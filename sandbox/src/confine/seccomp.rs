//! The seccomp allow-list: one table, one line per system call, each with its reason.
//!
//! Default action: kill the whole process (`SECCOMP_RET_KILL_PROCESS`). A killed child is
//! loud (the parent reports "sandbox violation"), and a kill cannot be mistaken for an
//! ordinary error by code that does not expect one (an `Errno` default makes "cannot
//! fail" getters return -1; `kill(-1, …)` would then mean every process).
//!
//! seccompiler checks the architecture first and kills on any other (so x32 and i386
//! entry points are refused), then matches the numbers below.
//!
//! Deliberately absent, among everything else: `open`, `openat`, `openat2`, `creat` (the
//! child never opens: the parent hands it descriptors), `execve`, `execveat`, `socket`,
//! `connect`, `clone`, `clone3`, `fork`, `vfork`, `ptrace`, `process_vm_readv`,
//! `process_vm_writev`, `kill`, `ioctl`, `prctl`, `capset`, `getcwd`, `readlink`.
//!
//! Debugging: with `MCP_WARDEN_SECCOMP_LOG=1` in the parent's environment, the parent
//! passes [`SECCOMP_LOG_FLAG`](crate::child::SECCOMP_LOG_FLAG) and the same table is built with
//! the `Log` default action: nothing is denied, each unlisted call is logged by the
//! kernel (`dmesg`, audit type 1326). The child then reports seccomp as *not enforcing*
//! and the default policy refuses it unless `--allow-weak-sandbox` is given.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::sys::REPORT_FD;
use crate::{sys, SandboxError};

/// A condition on one argument; the call is allowed if any listed condition holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Args {
    /// Any arguments.
    Any,
    /// Argument `index` (a 32-bit int) equals one of `values`; `text` says so in words.
    OneOf {
        index: u8,
        values: &'static [u32],
        text: &'static str,
    },
    /// Argument `index` (32-bit) has none of the bits of `mask` set.
    NoneOf {
        index: u8,
        mask: u32,
        text: &'static str,
    },
}

impl Args {
    /// The condition in words, as the README's table shows it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Args::Any => "any",
            Args::OneOf { text, .. } | Args::NoneOf { text, .. } => text,
        }
    }
}

/// One allowed system call.
#[derive(Debug)]
pub(crate) struct Allowed {
    pub(crate) name: &'static str,
    pub(crate) nr: libc::c_long,
    pub(crate) args: Args,
    /// The code path that needs it.
    pub(crate) reason: &'static str,
}

const fn allow(name: &'static str, nr: libc::c_long, args: Args, reason: &'static str) -> Allowed {
    Allowed {
        name,
        nr,
        args,
        reason,
    }
}

const ANY: Args = Args::Any;
/// `write` only to the report pipe and stderr.
const WRITE_FDS: Args = Args::OneOf {
    index: 0,
    values: &[REPORT_FD as u32, 2],
    text: "fd (arg 0) is 4 or 2",
};
/// `prot` (argument 2) without `PROT_EXEC`: no new executable memory.
const NO_EXEC: Args = Args::NoneOf {
    index: 2,
    mask: libc::PROT_EXEC as u32,
    text: "prot (arg 2) without PROT_EXEC",
};
/// `fcntl` only to read descriptor flags (argument 1 is the command).
const GETFD_ONLY: Args = Args::OneOf {
    index: 1,
    values: &[libc::F_GETFD as u32],
    text: "cmd (arg 1) is F_GETFD",
};
/// `tgkill` only to deliver SIGABRT (argument 2) to ourselves.
const SIGABRT_ONLY: Args = Args::OneOf {
    index: 2,
    values: &[libc::SIGABRT as u32],
    text: "signal (arg 2) is SIGABRT",
};

/// THE allow-list. The README's table is checked against it by a unit test.
#[rustfmt::skip]
pub(crate) const ALLOWED: &[Allowed] = &[
    allow("read",           libc::SYS_read,           ANY,          "request frame (fd 3) and the handed files (fd 5..)"),
    allow("write",          libc::SYS_write,          WRITE_FDS,    "frames to the report pipe (fd 4); panic and error line on stderr (fd 2)"),
    allow("close",          libc::SYS_close,          ANY,          "dropping the request pipe and the handed files"),
    allow("fcntl",          libc::SYS_fcntl,          GETFD_ONLY,   "std's OwnedFd::drop asserts the fd is open (F_GETFD) in debug builds"),
    allow("lseek",          libc::SYS_lseek,          ANY,          "File::read_to_end asks the stream position for its size hint"),
    allow("statx",          libc::SYS_statx,          ANY,          "File::read_to_end / File::metadata size hint on a handed descriptor"),
    allow("fstat",          libc::SYS_fstat,          ANY,          "std's metadata fallback when statx is unavailable"),
    allow("newfstatat",     libc::SYS_newfstatat,     ANY,          "glibc implements fstat as fstatat(fd, \"\", AT_EMPTY_PATH)"),
    allow("brk",            libc::SYS_brk,            ANY,          "glibc malloc: heap growth (the bulk of a parse's calls)"),
    allow("mmap",           libc::SYS_mmap,           NO_EXEC,      "glibc malloc: large allocations; never executable"),
    allow("munmap",         libc::SYS_munmap,         ANY,          "glibc malloc: freeing large allocations"),
    allow("mremap",         libc::SYS_mremap,         ANY,          "glibc realloc of large buffers (Vec growth)"),
    allow("madvise",        libc::SYS_madvise,        ANY,          "glibc malloc: returning freed memory"),
    allow("mprotect",       libc::SYS_mprotect,       NO_EXEC,      "glibc malloc arenas and guard pages; never executable"),
    allow("futex",          libc::SYS_futex,          ANY,          "std locks (stderr lock, Once) under contention"),
    allow("sched_yield",    libc::SYS_sched_yield,    ANY,          "std spin-then-park locks"),
    allow("rt_sigprocmask", libc::SYS_rt_sigprocmask, ANY,          "abort(): glibc blocks signals before raising SIGABRT"),
    allow("rt_sigaction",   libc::SYS_rt_sigaction,   ANY,          "abort(): glibc resets the SIGABRT handler"),
    allow("rt_sigreturn",   libc::SYS_rt_sigreturn,   ANY,          "return from std's stack-overflow signal handler"),
    allow("sigaltstack",    libc::SYS_sigaltstack,    ANY,          "std's stack-overflow handler bookkeeping"),
    allow("getrandom",      libc::SYS_getrandom,      ANY,          "HashMap keys (first HashMap::new in the child)"),
    allow("clock_gettime",  libc::SYS_clock_gettime,  ANY,          "Instant::now; normally the vDSO, the syscall is its fallback"),
    allow("getpid",         libc::SYS_getpid,         ANY,          "abort(): glibc raise() addresses its own process"),
    allow("gettid",         libc::SYS_gettid,         ANY,          "abort(): glibc raise() addresses its own thread"),
    allow("tgkill",         libc::SYS_tgkill,         SIGABRT_ONLY, "abort() and out-of-memory: deliver SIGABRT to ourselves, nothing else"),
    allow("exit",           libc::SYS_exit,           ANY,          "thread exit"),
    allow("exit_group",     libc::SYS_exit_group,     ANY,          "_exit at the end of the child"),
];

#[cfg(target_arch = "x86_64")]
const ARCH: Option<TargetArch> = Some(TargetArch::x86_64);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<TargetArch> = Some(TargetArch::aarch64);
#[cfg(target_arch = "riscv64")]
const ARCH: Option<TargetArch> = Some(TargetArch::riscv64);
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
const ARCH: Option<TargetArch> = None;

fn condition(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, SandboxError> {
    let cond = SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
        .map_err(|e| SandboxError::confine("seccomp (build)", e))?;
    SeccompRule::new(vec![cond]).map_err(|e| SandboxError::confine("seccomp (build)", e))
}

/// Compiles [`ALLOWED`] with the given default action for unlisted calls.
pub(crate) fn build(arch: TargetArch, default: SeccompAction) -> Result<BpfProgram, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for entry in ALLOWED {
        let chain = match entry.args {
            Args::Any => Vec::new(),
            Args::OneOf { index, values, .. } => values
                .iter()
                .map(|&v| condition(index, SeccompCmpOp::Eq, u64::from(v)))
                .collect::<Result<_, _>>()?,
            Args::NoneOf { index, mask, .. } => vec![condition(
                index,
                SeccompCmpOp::MaskedEq(u64::from(mask)),
                0,
            )?],
        };
        if rules.insert(entry.nr, chain).is_some() {
            return Err(SandboxError::confine(
                "seccomp (build)",
                format!("{} listed twice", entry.name),
            ));
        }
    }
    let filter = SeccompFilter::new(rules, default, SeccompAction::Allow, arch)
        .map_err(|e| SandboxError::confine("seccomp (build)", e))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| SandboxError::confine("seccomp (build)", e))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Installed {
    /// Unlisted calls kill the process.
    Enforcing,
    /// Debug mode: unlisted calls are only logged.
    LogOnly,
    /// The kernel (or this architecture) has no seccomp filters.
    Unavailable,
}

/// Installs the filter on the (single) thread of the child.
pub(super) fn install(log_only: bool) -> Result<Installed, SandboxError> {
    let Some(arch) = ARCH else {
        return Ok(Installed::Unavailable);
    };
    if !sys::seccomp_filter_available() {
        return Ok(Installed::Unavailable);
    }
    let (default, installed) = if log_only {
        (SeccompAction::Log, Installed::LogOnly)
    } else {
        (SeccompAction::KillProcess, Installed::Enforcing)
    };
    let program = build(arch, default)?;
    seccompiler::apply_filter(&program)
        .map_err(|e| SandboxError::confine("seccomp(SECCOMP_SET_MODE_FILTER)", e))?;
    Ok(installed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the test failure report
mod tests {
    use super::*;

    #[test]
    fn table_compiles_for_this_arch_without_duplicates() {
        let arch = ARCH.expect("supported arch");
        let prog = build(arch, SeccompAction::KillProcess).unwrap();
        assert!(!prog.is_empty());
        assert!(prog.len() < u16::MAX as usize);
    }

    #[test]
    fn forbidden_calls_are_not_listed() {
        let forbidden = [
            libc::SYS_openat,
            libc::SYS_openat2,
            libc::SYS_execve,
            libc::SYS_execveat,
            libc::SYS_socket,
            libc::SYS_connect,
            libc::SYS_clone,
            libc::SYS_clone3,
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_kill,
            libc::SYS_ioctl,
            libc::SYS_prctl,
            libc::SYS_capset,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_open,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_creat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_fork,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_vfork,
        ];
        for nr in forbidden {
            assert!(ALLOWED.iter().all(|a| a.nr != nr), "syscall {nr} is listed");
        }
    }

    /// The README's syscall table is the reviewers' copy of [`ALLOWED`]: same rows,
    /// same order, same conditions and reasons.
    #[test]
    fn readme_lists_exactly_the_allow_list() {
        let readme = include_str!("../../README.md");
        let section = readme
            .split("\n## ")
            .find(|s| s.starts_with("The seccomp allow-list"))
            .expect("README has the allow-list section");
        let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
        let expected: Vec<String> = ALLOWED
            .iter()
            .map(|a| format!("| `{}` | {} | {} |", a.name, a.args.describe(), a.reason))
            .collect();
        assert_eq!(
            rows, expected,
            "README.md syscall table out of sync with ALLOWED"
        );
        assert!(section.contains(&format!("{} system calls", ALLOWED.len())));
    }

    #[test]
    fn every_entry_has_a_reason() {
        for a in ALLOWED {
            assert!(!a.reason.trim().is_empty(), "{} has no reason", a.name);
        }
    }
}
