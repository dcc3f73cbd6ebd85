//! The seccomp allow-list: one table, one line per system call, each with the arguments
//! it may take and the code path that needs it.
//!
//! Default action: kill the whole process (`SECCOMP_RET_KILL_PROCESS`). A killed child is
//! loud (the parent reports "sandbox violation"), and a kill cannot be mistaken for an
//! ordinary error by code that does not expect one (an `Errno` default makes "cannot
//! fail" getters return -1; `kill(-1, …)` would then mean every process). A listed call
//! whose arguments match none of its conditions is killed the same way.
//!
//! seccompiler checks the architecture first and kills on any other (so x32 and i386
//! entry points are refused), then matches the numbers below.
//!
//! Every argument that can be checked is checked. Classic BPF sees only the six
//! register values, never the memory a pointer points to, so a call whose danger lies in
//! a pointed-to value cannot be allowed "for safe values": `statx` and `newfstatat`
//! (whose path string could name any file, and whose `AT_EMPTY_PATH` flag is ignored
//! for a non-empty path) are therefore absent, and the child learns the size of its
//! handed files through `fstat(2)`, which takes a descriptor only
//! ([`file_size`](crate::file_size); std's `File::metadata` uses `statx` and glibc's
//! `fstat()` uses `newfstatat`). Pointer arguments that remain (`read`/`write` buffers,
//! `getrandom`, `clock_gettime`, `futex` words) only address the child's own memory.
//!
//! Values known only at run time are filled in when the child builds its filter, after
//! its own `execve`: its pid (so `tgkill` can address nothing but itself).
//!
//! Deliberately absent, among everything else: `open`, `openat`, `openat2`, `creat` (the
//! child never opens: the parent hands it descriptors), `stat`, `lstat`, `statx`,
//! `newfstatat`, `access`, `faccessat`, `faccessat2`, `readlink`, `readlinkat`,
//! `getdents64`, `getcwd`, `chdir` (nothing that takes or reveals a path), `execve`,
//! `execveat`, `socket`, `connect`, `clone`, `clone3`, `fork`, `vfork` (no process and
//! no thread), `ptrace`, `process_vm_readv`, `process_vm_writev`, `kill`, `tkill`,
//! `rt_sigqueueinfo`, `rt_tgsigqueueinfo`, `pidfd_open`, `pidfd_send_signal` (no signal
//! to any other process), `ioctl`, `prctl`, `capset`, `lseek`, `sched_yield`,
//! `sigaltstack`, `exit` (the child has one thread and ends with `exit_group`),
//! `pkey_mprotect`.
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

use crate::sys::{FIRST_FILE_FD, REPORT_FD, REQUEST_FD};
use crate::{sys, SandboxError};

/// What an argument is compared with.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value {
    /// A constant.
    Is(u32),
    /// The child's own pid: its thread-group id, and the id of its only thread.
    OwnPid,
}

/// One comparison, on the low 32 bits of an argument (every checked argument is an
/// `int`, `unsigned int` or a flag word whose bits all live there; the kernel ignores the
/// upper half of an `int` argument, so a value smuggled there changes nothing).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cmp {
    /// Equal to the value.
    Eq(Value),
    /// At least this, unsigned.
    AtLeast(u32),
    /// None of these bits set.
    NoBits(u32),
}

/// A comparison on argument `arg` (0-based).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Check {
    arg: u8,
    cmp: Cmp,
}

const fn is(arg: u8, value: u32) -> Check {
    Check {
        arg,
        cmp: Cmp::Eq(Value::Is(value)),
    }
}

const fn own_pid(arg: u8) -> Check {
    Check {
        arg,
        cmp: Cmp::Eq(Value::OwnPid),
    }
}

const fn at_least(arg: u8, value: u32) -> Check {
    Check {
        arg,
        cmp: Cmp::AtLeast(value),
    }
}

const fn no_bits(arg: u8, mask: u32) -> Check {
    Check {
        arg,
        cmp: Cmp::NoBits(mask),
    }
}

/// The arguments a call may take: allowed if *every* check of *one* of the groups holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Args {
    /// No group: any arguments.
    any_of: &'static [&'static [Check]],
    /// The same condition in words, as the README's table shows it.
    text: &'static str,
}

impl Args {
    /// The condition in words, as the README's table shows it.
    pub(crate) fn describe(self) -> &'static str {
        self.text
    }
}

/// One allowed system call.
#[derive(Debug)]
pub(crate) struct Allowed {
    pub(crate) name: &'static str,
    pub(crate) nr: libc::c_long,
    pub(crate) args: Args,
    /// The code path that needs it, and why what it may still do cannot hurt.
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

// The constants below are small non-negative `c_int`s; `as u32` keeps their value.

const ANY: Args = Args {
    any_of: &[],
    text: "any",
};
/// `read` only from the request socket and the handed files.
const READ_FDS: Args = Args {
    any_of: &[
        &[is(0, REQUEST_FD as u32)],
        &[at_least(0, FIRST_FILE_FD as u32)],
    ],
    text: "fd (arg 0) is 3, or 5 and above",
};
/// `write` only to the report pipe and stderr.
const WRITE_FDS: Args = Args {
    any_of: &[&[is(0, REPORT_FD as u32)], &[is(0, 2)]],
    text: "fd (arg 0) is 4 or 2",
};
/// `fstat` only on the handed files.
const HANDED_FILES: Args = Args {
    any_of: &[&[at_least(0, FIRST_FILE_FD as u32)]],
    text: "fd (arg 0) is 5 and above",
};
/// `prot` (argument 2) without `PROT_EXEC`: no new executable memory.
const HANDOVER: Args = Args {
    any_of: &[&[
        is(0, REQUEST_FD as u32),
        is(2, libc::MSG_CMSG_CLOEXEC as u32),
    ]],
    text: "fd (arg 0) is 3, flags (arg 2) are MSG_CMSG_CLOEXEC",
};
const NO_EXEC: Args = Args {
    any_of: &[&[no_bits(2, libc::PROT_EXEC as u32)]],
    text: "prot (arg 2) without PROT_EXEC",
};
/// `fcntl` only to read descriptor flags (argument 1 is the command).
const GETFD_ONLY: Args = Args {
    any_of: &[&[is(1, libc::F_GETFD as u32)]],
    text: "cmd (arg 1) is F_GETFD",
};
/// `madvise` only to give memory back or to ask for huge pages under its own memory.
const MEMORY_ADVICE: Args = Args {
    any_of: &[
        &[is(2, libc::MADV_DONTNEED as u32)],
        &[is(2, libc::MADV_FREE as u32)],
        &[is(2, libc::MADV_HUGEPAGE as u32)],
    ],
    text: "advice (arg 2) is MADV_DONTNEED, MADV_FREE or MADV_HUGEPAGE",
};
/// `futex` only on process-private words, only waits and wakes.
const PRIVATE_FUTEX: Args = Args {
    any_of: &[
        &[is(1, (libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG) as u32)],
        &[is(1, (libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG) as u32)],
        &[is(
            1,
            (libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG) as u32,
        )],
    ],
    text: "op (arg 1) is FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE or FUTEX_WAIT_BITSET_PRIVATE",
};
/// `rt_sigaction` only for the signals the runtime resets on its way down.
const FATAL_SIGNALS: Args = Args {
    any_of: &[
        &[is(0, libc::SIGABRT as u32)],
        &[is(0, libc::SIGSEGV as u32)],
        &[is(0, libc::SIGBUS as u32)],
    ],
    text: "signal (arg 0) is SIGABRT, SIGSEGV or SIGBUS",
};
/// `tgkill` only to deliver SIGABRT to the child's own (only) thread.
const ABORT_SELF: Args = Args {
    any_of: &[&[own_pid(0), own_pid(1), is(2, libc::SIGABRT as u32)]],
    text: "tgid (arg 0) and tid (arg 1) are the child's own pid, signal (arg 2) is SIGABRT",
};

/// `tkill` only to deliver SIGABRT to the child's own (only) thread: musl's `raise()`
/// names the thread by its tid, which in the one-threaded child is its pid.
const ABORT_SELF_BY_TID: Args = Args {
    any_of: &[&[own_pid(0), is(1, libc::SIGABRT as u32)]],
    text: "tid (arg 0) is the child's own pid, signal (arg 1) is SIGABRT",
};

/// THE allow-list. The README's table is checked against it by a unit test.
#[rustfmt::skip]
pub(crate) const ALLOWED: &[Allowed] = &[
    allow("read",           libc::SYS_read,           READ_FDS,      "the request frame (fd 3) and the handed files (fd 5..); nothing else is open to read"),
    allow("recvmsg",        libc::SYS_recvmsg,        HANDOVER,      "the handed files, received after the confinement (handover.rs); only what the parent sends on descriptor 3, which it opened"),
    allow("write",          libc::SYS_write,          WRITE_FDS,     "frames to the report pipe (fd 4); panic and error line on stderr (fd 2)"),
    allow("close",          libc::SYS_close,          ANY,           "dropping the request socket and the handed files; closing one of its own descriptors grants nothing"),
    allow("fcntl",          libc::SYS_fcntl,          GETFD_ONLY,    "std's OwnedFd::drop asserts the fd is open (F_GETFD) in debug builds; only reads a descriptor flag"),
    allow("fstat",          libc::SYS_fstat,          HANDED_FILES,  "size hint of a handed file (file_size); takes a descriptor, never a path"),
    allow("brk",            libc::SYS_brk,            ANY,           "glibc malloc: heap growth (the bulk of a parse's calls); moves only its own heap's end"),
    allow("mmap",           libc::SYS_mmap,           NO_EXEC,       "the allocator (alloc.rs): chunks and large blocks; glibc's own malloc; a handed file mapped read-only and private (mapped.rs), and the zero pages its guard maps over the end of a file that shrank; never executable"),
    allow("munmap",         libc::SYS_munmap,         ANY,           "the allocator: freeing a large block, trimming a chunk to 2 MiB alignment; unmaps only its own memory"),
    allow("mremap",         libc::SYS_mremap,         ANY,           "the allocator's realloc of large blocks (Vec growth); keeps the protection of what it moves, so never makes memory executable"),
    allow("madvise",        libc::SYS_madvise,        MEMORY_ADVICE, "huge pages for the allocator's chunks and large blocks and a large file's read buffer (advise_huge_pages); the allocator giving back the pages of a freed block above 128 KiB (MADV_DONTNEED); glibc's own malloc returning freed memory (never MADV_MERGEABLE: shared pages are a side channel)"),
    allow("mprotect",       libc::SYS_mprotect,       NO_EXEC,       "glibc malloc arenas and guard pages; never executable"),
    allow("futex",          libc::SYS_futex,          PRIVATE_FUTEX, "std and glibc locks under contention; its own memory only, no shared, requeue or priority-inheritance futexes"),
    allow("rt_sigprocmask", libc::SYS_rt_sigprocmask, ANY,           "abort(): glibc unblocks SIGABRT before raising it; changes only its own signal mask"),
    allow("rt_sigaction",   libc::SYS_rt_sigaction,   FATAL_SIGNALS, "abort() resets SIGABRT, std's fault handler resets SIGSEGV/SIGBUS and the mapped-file guard resets SIGBUS (a fault outside its mapping) before the fault repeats"),
    allow("rt_sigreturn",   libc::SYS_rt_sigreturn,   ANY,           "return from std's fault handler or the mapped-file guard; takes no arguments"),
    allow("getrandom",      libc::SYS_getrandom,      ANY,           "HashMap keys (first HashMap::new in the child); fills its own buffer"),
    allow("clock_gettime",  libc::SYS_clock_gettime,  ANY,           "Instant::now; normally the vDSO, the syscall is its fallback; only reads a clock"),
    allow("getpid",         libc::SYS_getpid,         ANY,           "abort(): glibc raise() addresses its own process; takes no arguments"),
    allow("gettid",         libc::SYS_gettid,         ANY,           "abort(): glibc raise() addresses its own thread; takes no arguments"),
    allow("tgkill",         libc::SYS_tgkill,         ABORT_SELF,    "abort() and out-of-memory (glibc's raise()): deliver SIGABRT to itself, to nothing else"),
    allow("tkill",          libc::SYS_tkill,          ABORT_SELF_BY_TID, "abort() and out-of-memory in the musl release (musl's raise()): deliver SIGABRT to itself, to nothing else"),
    allow("exit_group",     libc::SYS_exit_group,     ANY,           "_exit at the end of the child"),
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

/// What the filter needs to know about the process that installs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context {
    /// `getpid()` of the child, after its `execve`.
    pub(crate) own_pid: u32,
}

fn condition(check: Check, ctx: Context) -> Result<SeccompCondition, SandboxError> {
    let (op, value) = match check.cmp {
        Cmp::Eq(Value::Is(v)) => (SeccompCmpOp::Eq, v),
        Cmp::Eq(Value::OwnPid) => (SeccompCmpOp::Eq, ctx.own_pid),
        Cmp::AtLeast(v) => (SeccompCmpOp::Ge, v),
        Cmp::NoBits(mask) => (SeccompCmpOp::MaskedEq(u64::from(mask)), 0),
    };
    SeccompCondition::new(check.arg, SeccompCmpArgLen::Dword, op, u64::from(value))
        .map_err(|e| SandboxError::confine("seccomp (build)", e))
}

/// Compiles [`ALLOWED`] for the process described by `ctx`, with the given default
/// action for unlisted calls and for listed calls whose arguments match no condition.
pub(crate) fn build(
    arch: TargetArch,
    default: SeccompAction,
    ctx: Context,
) -> Result<BpfProgram, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for entry in ALLOWED {
        let chain = entry
            .args
            .any_of
            .iter()
            .map(|group| {
                let conditions = group
                    .iter()
                    .map(|&check| condition(check, ctx))
                    .collect::<Result<Vec<_>, _>>()?;
                SeccompRule::new(conditions)
                    .map_err(|e| SandboxError::confine("seccomp (build)", e))
            })
            .collect::<Result<Vec<_>, _>>()?;
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
    let own_pid = u32::try_from(nix::unistd::getpid().as_raw())
        .map_err(|_| SandboxError::confine("seccomp (build)", "negative pid"))?;
    let program = build(arch, default, Context { own_pid })?;
    seccompiler::apply_filter(&program)
        .map_err(|e| SandboxError::confine("seccomp(SECCOMP_SET_MODE_FILTER)", e))?;
    Ok(installed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the test failure report
mod tests {
    use super::*;

    const OWN_PID: u32 = 4242;
    const CTX: Context = Context { own_pid: OWN_PID };

    /// A classic-BPF interpreter for the instructions seccompiler emits: the compiled
    /// filter's verdict on one call, without a process or a kernel.
    fn verdict(prog: &BpfProgram, arch: u32, nr: libc::c_long, args: [u64; 6]) -> u32 {
        let mut data = Vec::with_capacity(64);
        data.extend_from_slice(&i32::try_from(nr).unwrap().to_ne_bytes());
        data.extend_from_slice(&arch.to_ne_bytes());
        data.extend_from_slice(&0u64.to_ne_bytes());
        for a in args {
            data.extend_from_slice(&a.to_ne_bytes());
        }
        let (mut acc, mut pc) = (0u32, 0usize);
        loop {
            let insn = &prog[pc];
            let k = insn.k;
            pc += 1;
            match insn.code {
                0x20 => {
                    let at = usize::try_from(k).unwrap();
                    acc = u32::from_ne_bytes(data[at..at + 4].try_into().unwrap());
                }
                0x54 => acc &= k,
                0x05 => pc += usize::try_from(k).unwrap(),
                0x15 | 0x25 | 0x35 => {
                    let taken = match insn.code {
                        0x15 => acc == k,
                        0x25 => acc > k,
                        _ => acc >= k,
                    };
                    pc += usize::from(if taken { insn.jt } else { insn.jf });
                }
                0x06 => return k,
                other => panic!("instruction {other:#x} not interpreted"),
            }
        }
    }

    fn program() -> (BpfProgram, u32) {
        let arch = ARCH.expect("supported arch");
        let prog = build(arch, SeccompAction::KillProcess, CTX).unwrap();
        // AUDIT_ARCH_* of this build, as the first comparison of the program holds it.
        let audit_arch = prog.iter().find(|i| i.code == 0x15).map(|i| i.k).unwrap();
        (prog, audit_arch)
    }

    fn allowed(nr: libc::c_long, args: [u64; 6]) -> bool {
        let (prog, arch) = program();
        let v = verdict(&prog, arch, nr, args);
        assert!(
            v == u32::from(SeccompAction::Allow) || v == u32::from(SeccompAction::KillProcess),
            "unexpected action {v:#x}"
        );
        v == u32::from(SeccompAction::Allow)
    }

    fn a(args: &[u64]) -> [u64; 6] {
        let mut all = [0u64; 6];
        all[..args.len()].copy_from_slice(args);
        all
    }

    fn int(v: libc::c_int) -> u64 {
        // The kernel sees an `int` argument sign-extended in a 64-bit register.
        i64::from(v) as u64
    }

    #[test]
    fn table_compiles_for_this_arch_without_duplicates() {
        let (prog, _) = program();
        assert!(!prog.is_empty());
        assert!(prog.len() < usize::from(u16::MAX));
    }

    #[test]
    fn another_architecture_is_killed() {
        let (prog, arch) = program();
        let v = verdict(&prog, arch ^ 1, libc::SYS_getpid, a(&[]));
        assert_eq!(v, u32::from(SeccompAction::KillProcess));
        assert!(allowed(libc::SYS_getpid, a(&[])));
    }

    #[test]
    fn tgkill_reaches_only_the_child_itself_with_sigabrt() {
        let me = u64::from(OWN_PID);
        let abrt = int(libc::SIGABRT);
        assert!(allowed(libc::SYS_tgkill, a(&[me, me, abrt])));
        assert!(!allowed(libc::SYS_tgkill, a(&[me + 1, me + 1, abrt])));
        assert!(!allowed(libc::SYS_tgkill, a(&[me + 1, me, abrt])));
        assert!(!allowed(libc::SYS_tgkill, a(&[me, me + 1, abrt])));
        assert!(!allowed(libc::SYS_tgkill, a(&[1, 1, abrt])));
        assert!(!allowed(libc::SYS_tgkill, a(&[me, me, int(libc::SIGKILL)])));
        assert!(!allowed(libc::SYS_tgkill, a(&[me, me, int(libc::SIGTERM)])));
    }

    #[test]
    fn descriptors_are_checked() {
        for fd in [3, 5, 6, 100] {
            assert!(allowed(libc::SYS_read, a(&[fd, 0, 1])), "read fd {fd}");
        }
        for fd in [0, 1, 2, 4] {
            assert!(!allowed(libc::SYS_read, a(&[fd, 0, 1])), "read fd {fd}");
        }
        for fd in [2, 4] {
            assert!(allowed(libc::SYS_write, a(&[fd, 0, 1])), "write fd {fd}");
        }
        for fd in [0, 1, 3, 5, 6, int(-1)] {
            assert!(!allowed(libc::SYS_write, a(&[fd, 0, 1])), "write fd {fd}");
        }
        for fd in [5, 9] {
            assert!(allowed(libc::SYS_fstat, a(&[fd, 0])), "fstat fd {fd}");
        }
        for fd in [0, 1, 2, 3, 4] {
            assert!(!allowed(libc::SYS_fstat, a(&[fd, 0])), "fstat fd {fd}");
        }
        let getfd = int(libc::F_GETFD);
        assert!(allowed(libc::SYS_fcntl, a(&[5, getfd])));
        for cmd in [libc::F_SETFD, libc::F_GETFL, libc::F_SETFL, libc::F_DUPFD] {
            assert!(!allowed(libc::SYS_fcntl, a(&[5, int(cmd)])), "fcntl {cmd}");
        }
    }

    #[test]
    fn the_handover_is_received_on_the_request_socket_only() {
        let cloexec = int(libc::MSG_CMSG_CLOEXEC);
        assert!(allowed(libc::SYS_recvmsg, a(&[3, 0, cloexec])));
        // Another descriptor, or the received files left inheritable, or any other
        // flag (MSG_PEEK would let the same descriptors be taken twice).
        for fd in [0, 1, 2, 4, 5, 6, int(-1)] {
            assert!(!allowed(libc::SYS_recvmsg, a(&[fd, 0, cloexec])), "fd {fd}");
        }
        for flags in [
            0,
            libc::MSG_PEEK,
            libc::MSG_CMSG_CLOEXEC | libc::MSG_PEEK,
            libc::MSG_CMSG_CLOEXEC | libc::MSG_DONTWAIT,
            libc::MSG_ERRQUEUE,
        ] {
            assert!(
                !allowed(libc::SYS_recvmsg, a(&[3, 0, int(flags)])),
                "flags {flags:#x}"
            );
        }
        // Its relatives stay off the list: nothing is sent, nothing received elsewhere.
        for nr in [
            libc::SYS_sendmsg,
            libc::SYS_recvmmsg,
            libc::SYS_recvfrom,
            libc::SYS_sendto,
        ] {
            assert!(!allowed(nr, a(&[3, 0, cloexec])), "syscall {nr}");
        }
    }

    #[test]
    fn memory_never_becomes_executable_or_shared() {
        let rw = int(libc::PROT_READ | libc::PROT_WRITE);
        let rx = int(libc::PROT_READ | libc::PROT_EXEC);
        let flags = int(libc::MAP_PRIVATE | libc::MAP_ANONYMOUS);
        assert!(allowed(
            libc::SYS_mmap,
            a(&[0, 4096, rw, flags, int(-1), 0])
        ));
        assert!(!allowed(
            libc::SYS_mmap,
            a(&[0, 4096, rx, flags, int(-1), 0])
        ));
        assert!(!allowed(
            libc::SYS_mmap,
            a(&[0, 4096, int(libc::PROT_EXEC), flags, int(-1), 0])
        ));
        assert!(allowed(libc::SYS_mprotect, a(&[0, 4096, rw])));
        assert!(allowed(
            libc::SYS_mprotect,
            a(&[0, 4096, int(libc::PROT_NONE)])
        ));
        assert!(!allowed(libc::SYS_mprotect, a(&[0, 4096, rx])));
        for advice in [libc::MADV_DONTNEED, libc::MADV_FREE, libc::MADV_HUGEPAGE] {
            assert!(allowed(libc::SYS_madvise, a(&[0, 4096, int(advice)])));
        }
        for advice in [
            libc::MADV_MERGEABLE,
            libc::MADV_HWPOISON,
            libc::MADV_DOFORK,
            libc::MADV_WILLNEED,
            libc::MADV_REMOVE,
        ] {
            assert!(
                !allowed(libc::SYS_madvise, a(&[0, 4096, int(advice)])),
                "madvise {advice}"
            );
        }
    }

    #[test]
    fn futexes_are_private_waits_and_wakes() {
        let private = libc::FUTEX_PRIVATE_FLAG;
        for op in [libc::FUTEX_WAIT, libc::FUTEX_WAKE, libc::FUTEX_WAIT_BITSET] {
            assert!(allowed(libc::SYS_futex, a(&[0, int(op | private)])), "{op}");
            assert!(!allowed(libc::SYS_futex, a(&[0, int(op)])), "shared {op}");
        }
        for op in [
            libc::FUTEX_REQUEUE,
            libc::FUTEX_CMP_REQUEUE,
            libc::FUTEX_LOCK_PI,
            libc::FUTEX_CMP_REQUEUE_PI,
            libc::FUTEX_WAIT_REQUEUE_PI,
            libc::FUTEX_WAKE_OP,
        ] {
            assert!(
                !allowed(libc::SYS_futex, a(&[0, int(op | private)])),
                "{op}"
            );
        }
    }

    #[test]
    fn signal_handlers_only_for_the_fatal_signals() {
        for sig in [libc::SIGABRT, libc::SIGSEGV, libc::SIGBUS] {
            assert!(allowed(libc::SYS_rt_sigaction, a(&[int(sig), 0, 0, 8])));
        }
        for sig in [libc::SIGUSR1, libc::SIGTERM, libc::SIGSYS, libc::SIGXCPU] {
            assert!(!allowed(libc::SYS_rt_sigaction, a(&[int(sig), 0, 0, 8])));
        }
    }

    #[test]
    fn forbidden_calls_are_not_listed() {
        let forbidden = [
            libc::SYS_openat,
            libc::SYS_openat2,
            libc::SYS_statx,
            libc::SYS_newfstatat,
            libc::SYS_faccessat,
            libc::SYS_faccessat2,
            libc::SYS_readlinkat,
            libc::SYS_getdents64,
            libc::SYS_getcwd,
            libc::SYS_chdir,
            libc::SYS_fchdir,
            libc::SYS_lseek,
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
            libc::SYS_rt_sigqueueinfo,
            libc::SYS_rt_tgsigqueueinfo,
            libc::SYS_pidfd_open,
            libc::SYS_pidfd_send_signal,
            libc::SYS_ioctl,
            libc::SYS_prctl,
            libc::SYS_capset,
            libc::SYS_pkey_mprotect,
            libc::SYS_sched_yield,
            libc::SYS_sigaltstack,
            libc::SYS_exit,
            libc::SYS_writev,
            libc::SYS_pwrite64,
            libc::SYS_readv,
            libc::SYS_pread64,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_open,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_creat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_stat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_lstat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_access,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_readlink,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_fork,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_vfork,
        ];
        for nr in forbidden {
            assert!(ALLOWED.iter().all(|a| a.nr != nr), "syscall {nr} is listed");
            assert!(!allowed(nr, a(&[])), "syscall {nr} passes the filter");
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
