//! Confinement and supervision tests, one re-executed child per case.
//!
//! `harness = false`: this binary's `main` dispatches like mcp-warden's own (`CHILD_ARG`
//! → a test child that misbehaves on request, `PROBE_ARG` → the selftest probes), so every
//! case runs in a fresh, really confined process. The misbehaviour code lives only here.
//!
//! With `MCP_WARDEN_REQUIRE_SANDBOX=1` (CI), a kernel without landlock or seccomp fails
//! the run instead of skipping the kernel-dependent cases.
// The test children print on purpose (what a confined child's output becomes is
// under test), and the harness logs; neither is mcp-warden's output.
#![allow(clippy::disallowed_macros, clippy::disallowed_methods)]
#![allow(clippy::unwrap_used)] // test code: a panic is the failure report

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::OwnedFd;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_warden_sandbox::{
    decoded_bound, file_size, kernel_status, probe_main, run_parser, selftest, serve_child,
    ChildOutput, Delivery, Limits, MappedFile, MessageShare, SandboxError, Sender, StartedParser,
    WeakSandboxPolicy, CHILD_ARG, PROBE_ARG,
};
use serde::{Deserialize, Serialize};

/// Counts this process's live heap and its peak, so the amplification cases can bound
/// what a hostile frame makes the parent allocate (the child is another process).
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    pub struct Counting;
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);

    fn grow(n: usize) {
        let now = LIVE.fetch_add(n, Relaxed) + n;
        PEAK.fetch_max(now, Relaxed);
    }

    // SAFETY: every method forwards to `System` with the caller's pointer and layout
    // unchanged; the counting touches only atomics.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            grow(layout.size());
            // SAFETY: the caller upholds `alloc`'s contract for `layout`.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            LIVE.fetch_sub(layout.size(), Relaxed);
            // SAFETY: `ptr` came from `System` for `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grow(new);
            // SAFETY: the caller upholds `realloc`'s contract; forwarded as is.
            unsafe { System.realloc(ptr, layout, new) }
        }
    }

    /// `f`'s result and the most heap it held above the starting level at once.
    pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
        let start = LIVE.load(Relaxed);
        PEAK.store(start, Relaxed);
        let out = f();
        (out, PEAK.load(Relaxed).saturating_sub(start))
    }
}

#[global_allocator]
static HEAP: heap::Counting = heap::Counting;

/// The shapes of hostile message a compromised child sends to inflate the parent: each
/// is a few wire bytes per element and many decoded bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
enum Shape {
    /// One wire byte and 24 bytes of `String` per element.
    EmptyStrings,
    /// Lists of four empty strings: 5 wire bytes, 120 decoded bytes each.
    NestedEmptyLists,
    /// `None`s of a 128-byte payload: one wire byte, 136 decoded bytes each.
    NonesOfLargeValues,
    /// Records of minimal wire size, several `String`/`Vec` fields each.
    TinyRecords,
    /// 7-byte strings: a value that owns about 4 times its wire size, within the bound.
    ShortStrings,
}

/// A record of many fields that are all empty on the wire (a server entry's shape).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Tiny {
    name: String,
    command: Option<String>,
    args: Vec<String>,
    url: Option<String>,
    env: Vec<(String, String)>,
    line: u32,
}

/// What the amplification cases decode on the parent side.
#[derive(Debug, Serialize, Deserialize)]
enum Wide {
    Strings(Vec<String>),
    Nested(Vec<Vec<String>>),
    Nones(Vec<Option<[u64; 16]>>),
    Records(Vec<Tiny>),
}

impl Shape {
    /// A value of this shape whose encoding is about `wire` bytes.
    fn value(self, wire: usize) -> Wide {
        match self {
            Shape::EmptyStrings => Wide::Strings(vec![String::new(); wire]),
            Shape::NestedEmptyLists => Wide::Nested(vec![vec![String::new(); 4]; wire / 5]),
            Shape::NonesOfLargeValues => Wide::Nones(vec![None; wire]),
            Shape::TinyRecords => Wide::Records(vec![Tiny::default(); wire / 7]),
            Shape::ShortStrings => Wide::Strings(vec!["abcdefg".into(); wire / 8]),
        }
    }
}

/// What the test child does once confined.
#[derive(Debug, Serialize, Deserialize)]
enum Behaviour {
    /// Send the content of every handed file, then a fixed message.
    ReadFiles,
    /// Report how many environment variables the child sees.
    CountEnv,
    /// Report which descriptors in 0..64 are open (`lseek` does not fail with EBADF).
    OpenFds,
    Panic,
    Abort,
    /// Allocate 2 GiB under RLIMIT_AS = 1 GiB.
    Oom,
    /// Burn CPU forever.
    Spin,
    /// Block forever without CPU (futex wait).
    Sleep,
    /// Send one message, then block forever.
    ReadThenSleep,
    /// A well-formed length, then bytes that decode to nothing.
    Garbage,
    /// A length prefix of 4 GiB.
    Oversized,
    /// Half a frame, then exit 0.
    Truncate,
    Messages {
        count: u32,
        size: u32,
    },
    /// stderr with an escape sequence, then exit 3.
    ExitNonZero,
    /// End marker announcing 5 messages after sending none.
    LieCount,
    /// A frame with a variant index that does not exist.
    UnknownVariant,
    /// A raw end marker, then the library's own (a frame after the end).
    AfterEnd,
    // ---- each of these must be killed by seccomp (SIGSYS) ----
    SocketInet,
    OpenPath,
    SpawnProcess,
    WriteStdout,
    MmapExec,
    KillParent(i32),
    // ---- the filter's argument checks: each of these must be killed too ----
    /// `std::fs::metadata` of a path (statx).
    StatPath,
    /// Raw `statx(AT_FDCWD, path)`.
    StatxPath,
    /// Raw `newfstatat(AT_FDCWD, path)` (glibc's `stat()`).
    FstatatPath,
    /// `statx(5, "", AT_EMPTY_PATH)` on the handed file: std's old size-hint call; the
    /// filter cannot see the path, so the descriptor form is refused as well.
    StatxHandedFd,
    /// `fstat` of a descriptor that is not a handed file (the report pipe).
    FstatReportPipe,
    /// `access` / `faccessat` of a path.
    AccessPath,
    /// `readlink` of a path.
    ReadlinkPath,
    /// Signals to another process (its pid), each by another call.
    KillOther(i32),
    TkillOther(i32),
    TgkillOther(i32),
    SigqueueOther(i32),
    TgsigqueueOther(i32),
    /// `pidfd_send_signal` on a pidfd the parent handed over as fd 5.
    PidfdSignal,
    PidfdOpen(i32),
    /// `tgkill` of itself with a signal other than SIGABRT.
    TgkillSelfTerm,
    /// `tkill` of itself: with SIGABRT (musl's `raise()`), and with another signal.
    TkillSelfAbort,
    TkillSelfTerm,
    /// `write` to the handed file (fd 5), not an answer descriptor.
    WriteHandedFile,
    /// `read` from stdin (fd 0), neither the request nor a handed file.
    ReadStdin,
    /// `mprotect` of written memory to PROT_EXEC.
    MprotectExec,
    MadviseMergeable,
    /// A futex op on a shared (non-private) word.
    SharedFutex,
    /// A handler for a signal the runtime never resets.
    SigactionOther,
    FcntlDupfd,
    LseekHandedFile,
    Ioctl,
    Prctl,
    SpawnThread,
    SchedYield,
    // ---- and these must work under the filter ----
    /// Report `file_size` of every handed file.
    FileSizes,
    /// A null-pointer write: std's fault handler resets SIGSEGV, the fault repeats.
    Segfault,
    /// Unbounded recursion into the guard page: std's handler reports and aborts.
    StackOverflow,
    /// Map the handed file `extra` bytes past its end (as if it shrank after the
    /// `fstat`), read every byte, report the content up to the end, the sum of the
    /// bytes past it and whether the guard saw it shrink; then map it again.
    MapFile {
        extra: u32,
    },
    /// A second map while one is alive: refused, not a second range to guard.
    MapTwice,
    /// A bus error outside any `MappedFile`: a raw mapping of the handed file read
    /// past its end. The guard must not swallow it.
    BusErrorOutsideMapping,
    // ---- a compromised child inflating the parent's decoder ----
    /// One message of `shape`, about `wire` bytes on the wire, sent `count` times.
    Amplify {
        shape: Shape,
        wire: u32,
        count: u32,
    },
}

type Reply = String;

fn write_raw(bytes: &[u8]) {
    // SAFETY: the test child writes a live slice to its report pipe (fd 4).
    unsafe { libc::write(4, bytes.as_ptr().cast(), bytes.len()) };
}

fn exit_raw(code: i32) -> ! {
    // SAFETY: ends the test child without running destructors, as the library does.
    unsafe { libc::_exit(code) }
}

/// Blocks without CPU, using only allowed system calls (futex is, nanosleep is not).
#[cfg(target_os = "linux")]
fn sleep_forever() -> ! {
    loop {
        let word = 0u32;
        // SAFETY: FUTEX_WAIT on a live local word whose value is 0: blocks forever.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                std::ptr::from_ref(&word),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                0,
                std::ptr::null::<libc::timespec>(),
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn sleep_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut v = u32::try_from(payload.len()).unwrap().to_le_bytes().to_vec();
    v.extend_from_slice(payload);
    v
}

fn test_child(b: Behaviour, files: Vec<File>, tx: &mut Sender) -> Result<(), SandboxError> {
    match b {
        Behaviour::ReadFiles => {
            for f in files {
                let mut s = String::new();
                // Not File::read_to_string: its size hint is a statx, which is refused.
                f.take(u64::MAX)
                    .read_to_string(&mut s)
                    .map_err(|e| SandboxError::handler(e.to_string()))?;
                tx.send(&s)?;
            }
            tx.send(&"done".to_string())
        }
        Behaviour::CountEnv => tx.send(&std::env::vars_os().count().to_string()),
        Behaviour::OpenFds => {
            let open: Vec<String> = (0..64)
                .filter(|&fd| {
                    // SAFETY: fcntl(F_GETFD) takes integers only; EBADF means closed.
                    let rc = unsafe { libc::fcntl(fd, libc::F_GETFD) };
                    rc >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EBADF)
                })
                .map(|fd| fd.to_string())
                .collect();
            tx.send(&open.join(","))
        }
        Behaviour::Panic => panic!("boom"),
        Behaviour::Abort => std::process::abort(),
        Behaviour::Oom => {
            let v = std::hint::black_box(vec![1u8; 2 << 30]);
            tx.send(&v.len().to_string())
        }
        Behaviour::Spin => loop {
            std::hint::spin_loop();
        },
        Behaviour::Sleep => sleep_forever(),
        Behaviour::ReadThenSleep => {
            tx.send(&"before the stall".to_string())?;
            sleep_forever()
        }
        Behaviour::Garbage => {
            write_raw(&frame(&[0xff; 8]));
            exit_raw(0)
        }
        Behaviour::Oversized => {
            write_raw(&u32::MAX.to_le_bytes());
            exit_raw(0)
        }
        Behaviour::Truncate => {
            write_raw(&100u32.to_le_bytes());
            write_raw(&[1; 10]);
            exit_raw(0)
        }
        Behaviour::Amplify { shape, wire, count } => {
            let value = shape.value(wire as usize);
            for _ in 0..count {
                tx.send(&value)?;
            }
            Ok(())
        }
        Behaviour::Messages { count, size } => {
            let m = "x".repeat(size as usize);
            for _ in 0..count {
                tx.send(&m)?;
            }
            Ok(())
        }
        Behaviour::ExitNonZero => {
            eprintln!("bad \x1b[31mthings\x1b[0m happened");
            exit_raw(3)
        }
        Behaviour::LieCount => {
            // ChildFrame::End is variant 2; count 5 as a one-byte varint.
            write_raw(&frame(&[2, 5]));
            exit_raw(0)
        }
        Behaviour::UnknownVariant => {
            write_raw(&frame(&[7, 0]));
            exit_raw(0)
        }
        Behaviour::AfterEnd => {
            write_raw(&frame(&[2, 0]));
            Ok(())
        }
        Behaviour::SocketInet => {
            // SAFETY: plain syscall with integer arguments.
            let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) };
            tx.send(&format!("socket returned {fd}"))
        }
        Behaviour::OpenPath => {
            let r = File::open("/etc/hostname");
            tx.send(&format!("open returned {}", r.is_ok()))
        }
        Behaviour::SpawnProcess => {
            let r = std::process::Command::new("/bin/true").status();
            tx.send(&format!("spawn returned {r:?}"))
        }
        Behaviour::WriteStdout => {
            println!("hello on stdout");
            tx.send(&"printed".to_string())
        }
        Behaviour::MmapExec => {
            // SAFETY: an anonymous private mapping; the result is only compared.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    4096,
                    libc::PROT_READ | libc::PROT_EXEC,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            tx.send(&format!("mmap returned {p:?}"))
        }
        Behaviour::KillParent(pid) => {
            // SAFETY: signal 0 only checks permission; nothing is delivered.
            let rc = unsafe { libc::kill(pid, 0) };
            tx.send(&format!("kill returned {rc}"))
        }
        Behaviour::MapFile { extra } => {
            let file = files
                .first()
                .ok_or_else(|| SandboxError::handler("no file"))?;
            let size = file_size(file).map_err(|e| SandboxError::handler(e.to_string()))?;
            let len = usize::try_from(size).unwrap() + extra as usize;
            let reply = {
                let mapped = MappedFile::map(file, len)
                    .map_err(|e| SandboxError::handler(format!("map: {e}")))?;
                let bytes = mapped.bytes();
                let past_end: u64 = bytes[size as usize..].iter().map(|&b| u64::from(b)).sum();
                format!(
                    "{} past={past_end} shrank={}",
                    String::from_utf8_lossy(&bytes[..size as usize]),
                    mapped.shrank()
                )
            };
            tx.send(&reply)?;
            // Dropped: the slot is free again, and a new mapping starts unshrunk.
            let again = MappedFile::map(file, usize::try_from(size).unwrap())
                .map_err(|e| SandboxError::handler(format!("map again: {e}")))?;
            tx.send(&format!("again shrank={}", again.shrank()))
        }
        Behaviour::MapTwice => {
            let file = files
                .first()
                .ok_or_else(|| SandboxError::handler("no file"))?;
            let first =
                MappedFile::map(file, 4).map_err(|e| SandboxError::handler(e.to_string()))?;
            let second = MappedFile::map(file, 4);
            tx.send(&format!(
                "first={:?} second={}",
                String::from_utf8_lossy(first.bytes()),
                second.map_or_else(|e| format!("refused: {e}"), |_| "mapped".into())
            ))
        }
        Behaviour::BusErrorOutsideMapping => {
            // SAFETY: a fresh read-only mapping of the handed file (fd 5), two pages
            // past its few bytes; the read of the second page is the bus error under test.
            let byte = unsafe {
                let p = libc::mmap(
                    std::ptr::null_mut(),
                    8192,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE,
                    5,
                    0,
                );
                assert_ne!(p, libc::MAP_FAILED);
                p.cast::<u8>().add(4096).read_volatile()
            };
            tx.send(&format!("read {byte} past the end"))
        }
        other => argument_case(other, &files, tx),
    }
}

/// The cases of the filter's argument checks (kept apart from the older cases above).
#[allow(clippy::cast_possible_truncation)] // isize/ssize_t results, only reported
fn argument_case(b: Behaviour, files: &[File], tx: &mut Sender) -> Result<(), SandboxError> {
    const PATH: &std::ffi::CStr = c"/etc/passwd";
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    let mut stx = std::mem::MaybeUninit::<libc::statx>::uninit();
    let mut buf = [0u8; 64];
    let futex_word = 0u32;
    let (sig, empty, me) = (libc::SIGKILL, c"".as_ptr(), std::process::id());
    // SAFETY: integer arguments, NUL-terminated paths that live across each call, and
    // out-pointers to live locals large enough for what the kernel writes (results are
    // only reported, never read back), except the Segfault case, whose null write is the
    // point of the case and ends the process.
    let rc: i64 = unsafe {
        match b {
            Behaviour::StatPath => i64::from(std::fs::metadata("/etc/passwd").is_ok()),
            Behaviour::StatxPath => libc::syscall(
                libc::SYS_statx,
                libc::AT_FDCWD,
                PATH.as_ptr(),
                0,
                libc::STATX_SIZE,
                stx.as_mut_ptr(),
            ),
            Behaviour::FstatatPath => libc::syscall(
                libc::SYS_newfstatat,
                libc::AT_FDCWD,
                PATH.as_ptr(),
                st.as_mut_ptr(),
                0,
            ),
            Behaviour::StatxHandedFd => libc::syscall(
                libc::SYS_statx,
                5,
                empty,
                libc::AT_EMPTY_PATH,
                libc::STATX_SIZE,
                stx.as_mut_ptr(),
            ),
            Behaviour::FstatReportPipe => libc::syscall(libc::SYS_fstat, 4, st.as_mut_ptr()),
            Behaviour::AccessPath => i64::from(libc::access(PATH.as_ptr(), libc::F_OK)),
            Behaviour::ReadlinkPath => {
                let exe = c"/proc/self/exe".as_ptr();
                libc::readlink(exe, buf.as_mut_ptr().cast(), buf.len()) as i64
            }
            Behaviour::KillOther(pid) => i64::from(libc::kill(pid, sig)),
            Behaviour::TkillOther(pid) => libc::syscall(libc::SYS_tkill, pid, sig),
            Behaviour::TgkillOther(pid) => libc::syscall(libc::SYS_tgkill, pid, pid, libc::SIGABRT),
            Behaviour::SigqueueOther(pid) | Behaviour::TgsigqueueOther(pid) => {
                // siginfo_t is plain data; all-zero is a valid value.
                let mut info: libc::siginfo_t = std::mem::zeroed();
                info.si_signo = sig;
                info.si_code = libc::SI_QUEUE;
                let info = std::ptr::from_ref(&info);
                if matches!(b, Behaviour::SigqueueOther(_)) {
                    libc::syscall(libc::SYS_rt_sigqueueinfo, pid, sig, info)
                } else {
                    libc::syscall(libc::SYS_rt_tgsigqueueinfo, pid, pid, sig, info)
                }
            }
            Behaviour::PidfdSignal => {
                let no_info = std::ptr::null::<libc::siginfo_t>();
                libc::syscall(libc::SYS_pidfd_send_signal, 5, sig, no_info, 0)
            }
            Behaviour::PidfdOpen(pid) => libc::syscall(libc::SYS_pidfd_open, pid, 0),
            Behaviour::TgkillSelfTerm => libc::syscall(libc::SYS_tgkill, me, me, libc::SIGTERM),
            Behaviour::TkillSelfAbort => libc::syscall(libc::SYS_tkill, me, libc::SIGABRT),
            Behaviour::TkillSelfTerm => libc::syscall(libc::SYS_tkill, me, libc::SIGTERM),
            Behaviour::WriteHandedFile => libc::write(5, b"x".as_ptr().cast(), 1) as i64,
            Behaviour::ReadStdin => libc::read(0, buf.as_mut_ptr().cast(), buf.len()) as i64,
            Behaviour::MprotectExec | Behaviour::MadviseMergeable => {
                let rw = libc::PROT_READ | libc::PROT_WRITE;
                let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
                let p = libc::mmap(std::ptr::null_mut(), 4096, rw, flags, -1, 0);
                if p == libc::MAP_FAILED {
                    -2
                } else if matches!(b, Behaviour::MprotectExec) {
                    p.cast::<u8>().write(0xc3);
                    i64::from(libc::mprotect(p, 4096, libc::PROT_READ | libc::PROT_EXEC))
                } else {
                    i64::from(libc::madvise(p, 4096, libc::MADV_MERGEABLE))
                }
            }
            Behaviour::SharedFutex => {
                let word = std::ptr::from_ref(&futex_word);
                libc::syscall(libc::SYS_futex, word, libc::FUTEX_WAKE, 1)
            }
            Behaviour::SigactionOther => libc::signal(libc::SIGUSR1, libc::SIG_IGN) as i64,
            Behaviour::FcntlDupfd => i64::from(libc::fcntl(5, libc::F_DUPFD, 10)),
            Behaviour::LseekHandedFile => libc::lseek(5, 0, libc::SEEK_SET),
            Behaviour::Ioctl => {
                let mut n: libc::c_int = 0;
                i64::from(libc::ioctl(5, libc::FIONREAD, &mut n))
            }
            Behaviour::Prctl => i64::from(libc::prctl(libc::PR_GET_DUMPABLE)),
            Behaviour::SpawnThread => i64::from(std::thread::spawn(|| ()).join().is_ok()),
            Behaviour::SchedYield => i64::from(libc::sched_yield()),
            Behaviour::FileSizes => {
                let sizes: Vec<String> = files
                    .iter()
                    .map(|f| file_size(f).map_or_else(|e| e.to_string(), |n| n.to_string()))
                    .collect();
                return tx.send(&sizes.join(","));
            }
            Behaviour::Segfault => {
                std::ptr::null_mut::<u8>().write_volatile(1);
                0
            }
            Behaviour::StackOverflow => i64::from(recurse(std::hint::black_box(1)) == 0),
            other => {
                return Err(SandboxError::handler(format!(
                    "{other:?} is no argument case"
                )))
            }
        }
    };
    tx.send(&format!("{b:?} returned {rc}"))
}

/// Recursion that no optimiser can turn into a loop: each frame keeps a live buffer.
#[allow(unconditional_recursion)] // the stack overflow is the case
fn recurse(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 64]);
    frame[0] + recurse(std::hint::black_box(depth + 1))
}

// ---------------------------------------------------------------------------------------
// Parent side: the cases.

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(5),
        ..Limits::default()
    }
}

fn run(b: Behaviour) -> Result<ChildOutput<Reply>, SandboxError> {
    run_with(b, Vec::new(), &limits(), WeakSandboxPolicy::Default)
}

fn run_with(
    b: Behaviour,
    files: Vec<OwnedFd>,
    limits: &Limits,
    policy: WeakSandboxPolicy,
) -> Result<ChildOutput<Reply>, SandboxError> {
    run_parser::<Behaviour, Reply>(&b, files, limits, policy)
}

type Outcome = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

fn expect_signal(b: Behaviour, signal: i32) -> Outcome {
    match run(b) {
        Err(SandboxError::Killed { signal: s, .. }) if s == signal => Ok(()),
        other => Err(format!("expected death by signal {signal}, got {other:?}")),
    }
}

fn sigsys(b: Behaviour) -> Outcome {
    sigsys_with(b, Vec::new())
}

fn sigsys_with(b: Behaviour, files: Vec<OwnedFd>) -> Outcome {
    if !seccomp_expected() {
        return Ok(());
    }
    let e = match run_with(b, files, &limits(), WeakSandboxPolicy::Default) {
        Err(
            e @ SandboxError::Killed {
                signal: libc::SIGSYS,
                ..
            },
        ) => e,
        other => return Err(format!("expected SIGSYS, got {other:?}")),
    };
    ensure!(
        e.to_string().starts_with("sandbox violation"),
        "message: {e}"
    );
    Ok(())
}

fn temp_file(content: &str) -> OwnedFd {
    let mut f = tempfile::tempfile().unwrap();
    f.write_all(content.as_bytes()).unwrap();
    f.rewind().unwrap();
    OwnedFd::from(f)
}

fn required() -> bool {
    std::env::var_os("MCP_WARDEN_REQUIRE_SANDBOX").is_some_and(|v| v == "1")
}

fn seccomp_expected() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
        .is_ok_and(|s| s.contains("kill_process"))
}

fn t_kernel_layers_present() -> Outcome {
    let out = run(Behaviour::ReadFiles).map_err(|e| e.to_string())?;
    let c = &out.confinement;
    println!("    confinement: {c}");
    if required() {
        ensure!(c.landlock_abi.unwrap_or(0) >= 1, "landlock required: {c}");
        ensure!(c.seccomp, "seccomp required: {c}");
    }
    ensure!(c.no_new_privs && c.capabilities_dropped, "{c}");
    ensure!(
        c.seccomp == seccomp_expected(),
        "seccomp availability disagrees with /proc: {c}"
    );
    Ok(())
}

fn t_reads_handed_files_in_order() -> Outcome {
    let files = vec![temp_file("first {\"a\": 1}"), temp_file("second")];
    let out = run_with(
        Behaviour::ReadFiles,
        files,
        &limits(),
        WeakSandboxPolicy::Default,
    )
    .map_err(|e| e.to_string())?;
    ensure!(
        out.messages == ["first {\"a\": 1}", "second", "done"],
        "{:?}",
        out.messages
    );
    ensure!(out.warnings.is_empty(), "warnings: {:?}", out.warnings);
    Ok(())
}

/// The cores this thread may run on (`Cpus_allowed_list` of /proc/thread-self/status).
fn this_threads_cores() -> Result<String, String> {
    let status = std::fs::read_to_string("/proc/thread-self/status").map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|v| v.trim().to_string())
        .ok_or_else(|| "no Cpus_allowed_list".to_string())
}

/// The parent's thread is kept off the child's core only while they exchange
/// (`placement.rs`): once the exchange is over it may run on every core it could
/// before, for the threads that audit and write the report.
fn t_the_parents_cores_come_back_after_the_exchange() -> Outcome {
    let before = this_threads_cores()?;
    run(Behaviour::ReadFiles).map_err(|e| e.to_string())?;
    let after = this_threads_cores()?;
    ensure!(after == before, "before {before}, after {after}");
    Ok(())
}

/// The children of this process, over all its threads (from /proc).
fn own_children() -> Vec<String> {
    let mut pids = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        pids.extend(list.split_whitespace().map(str::to_string));
    }
    pids
}

/// A child started before its files are known (as doctor starts it, before discovery)
/// waits for them over its request socket, then reads them in order.
fn t_started_child_takes_its_files_later() -> Outcome {
    let started = StartedParser::start().map_err(|e| e.to_string())?;
    std::thread::sleep(Duration::from_millis(100));
    let files = vec![temp_file("first"), temp_file("second")];
    let mut messages: Vec<Reply> = Vec::new();
    let mut sink = |_: usize, d: Delivery<Reply>| {
        if let Delivery::Message(m) = d {
            messages.push(m);
        }
        Ok(())
    };
    started
        .run_with(
            &Behaviour::ReadFiles,
            files,
            &limits(),
            WeakSandboxPolicy::Default,
            &mut sink,
        )
        .map_err(|e| e.to_string())?;
    ensure!(messages == ["first", "second", "done"], "{:?}", messages);
    Ok(())
}

/// A hard descriptor limit below what a handover brings: the kernel drops the
/// descriptors beyond it and the child refuses the handover as truncated, one line,
/// instead of parsing a part of the files.
fn t_a_handover_beyond_the_hard_descriptor_limit_is_refused() -> Outcome {
    use nix::sys::resource::{setrlimit, Resource};
    const COUNT: usize = 200;
    let placeholders: Vec<File> = (0..16).map(|_| File::open("/dev/null").unwrap()).collect();
    let files: Vec<OwnedFd> = (0..COUNT).map(|i| temp_file(&format!("f{i}"))).collect();
    drop(placeholders);
    // This process is this case's alone: lowering its hard limit is not undone.
    setrlimit(Resource::RLIMIT_NOFILE, 100, 100).map_err(|e| e.to_string())?;
    let mut sink = |_: usize, _: Delivery<Reply>| Ok(());
    let result = StartedParser::start().map_err(|e| e.to_string())?.run_with(
        &Behaviour::ReadFiles,
        files,
        &limits(),
        WeakSandboxPolicy::Default,
        &mut sink,
    );
    let Err(e) = result else {
        return Err("a truncated handover was accepted".into());
    };
    let text = e.to_string();
    ensure!(text.contains("truncated"), "{text}");
    ensure!(!text.contains('\n'), "{text}");
    Ok(())
}

/// More files than the parent's soft descriptor limit allows (a child started before
/// the parent raised it) still all arrive: the child makes room for them itself.
fn t_more_files_than_the_inherited_descriptor_limit_arrive() -> Outcome {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    const COUNT: usize = 300;
    // Low numbers kept free for the parent's own pipes and socket under the lower
    // limit: the files take the numbers above them.
    let placeholders: Vec<File> = (0..16).map(|_| File::open("/dev/null").unwrap()).collect();
    let files: Vec<OwnedFd> = (0..COUNT).map(|i| temp_file(&format!("f{i}"))).collect();
    drop(placeholders);
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(|e| e.to_string())?;
    if hard < 512 {
        return Err(format!(
            "hard RLIMIT_NOFILE {hard} leaves no room for the case"
        ));
    }
    // The open files stay valid under a lower soft limit; the child inherits 128.
    setrlimit(Resource::RLIMIT_NOFILE, 128, hard).map_err(|e| e.to_string())?;
    let started = StartedParser::start();
    setrlimit(Resource::RLIMIT_NOFILE, soft, hard).map_err(|e| e.to_string())?;
    let mut messages: Vec<Reply> = Vec::new();
    let mut sink = |_: usize, d: Delivery<Reply>| {
        if let Delivery::Message(m) = d {
            messages.push(m);
        }
        Ok(())
    };
    started
        .map_err(|e| e.to_string())?
        .run_with(
            &Behaviour::ReadFiles,
            files,
            &limits(),
            WeakSandboxPolicy::Default,
            &mut sink,
        )
        .map_err(|e| e.to_string())?;
    let expected: Vec<String> = (0..COUNT)
        .map(|i| format!("f{i}"))
        .chain(std::iter::once("done".to_string()))
        .collect();
    ensure!(messages == expected, "{} messages", messages.len());
    Ok(())
}

/// A started child that never gets its files (the scan failed first) is killed and
/// reaped when it is dropped: no process, and no zombie, is left behind.
fn t_started_child_dropped_unused_leaves_nothing() -> Outcome {
    let before = own_children();
    let started = StartedParser::start().map_err(|e| e.to_string())?;
    let new: Vec<String> = own_children()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    ensure!(new.len() == 1, "children started: {new:?}");
    drop(started);
    let pid = &new[0];
    ensure!(
        !own_children().contains(pid),
        "child {pid} still a child after the drop"
    );
    ensure!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "child {pid} still exists (not reaped)"
    );
    Ok(())
}

fn t_environment_is_empty() -> Outcome {
    std::env::set_var("MCP_WARDEN_TEST_SECRET", "1");
    let out = run(Behaviour::CountEnv).map_err(|e| e.to_string());
    std::env::remove_var("MCP_WARDEN_TEST_SECRET");
    let out = out?;
    ensure!(out.messages == ["0"], "{:?}", out.messages);
    Ok(())
}

fn t_only_fixed_descriptors_are_open() -> Outcome {
    // A stray descriptor without O_CLOEXEC in the parent must not reach the child.
    let stray = std::fs::File::open("/dev/null").unwrap();
    let stray_fd = std::os::fd::AsRawFd::as_raw_fd(&stray);
    nix::fcntl::fcntl(
        &stray,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
    )
    .unwrap();
    let files = vec![temp_file("a"), temp_file("b")];
    let out = run_with(
        Behaviour::OpenFds,
        files,
        &limits(),
        WeakSandboxPolicy::Default,
    )
    .map_err(|e| e.to_string())?;
    drop(stray);
    // 0-2 stdio, 3 request (closed after reading), 4 report, 5-6 files.
    ensure!(
        out.messages == ["0,1,2,4,5,6"],
        "open fds {:?} (stray was {stray_fd})",
        out.messages
    );
    Ok(())
}

fn t_panic_exits_101_even_with_rust_backtrace() -> Outcome {
    std::env::set_var("RUST_BACKTRACE", "full");
    let r = run(Behaviour::Panic);
    std::env::remove_var("RUST_BACKTRACE");
    match r {
        Err(SandboxError::Exited { code: 101, stderr }) if stderr.contains("panicked") => Ok(()),
        other => Err(format!("expected exit 101, got {other:?}")),
    }
}

fn t_abort_is_sigabrt() -> Outcome {
    expect_signal(Behaviour::Abort, libc::SIGABRT)
}

fn t_oom_beyond_rlimit_as_is_sigabrt() -> Outcome {
    expect_signal(Behaviour::Oom, libc::SIGABRT)
}

fn timeout_case(b: Behaviour) -> Outcome {
    let l = Limits {
        timeout: Duration::from_millis(700),
        ..Limits::default()
    };
    let t = Instant::now();
    let r = run_with(b, Vec::new(), &l, WeakSandboxPolicy::Default);
    let took = t.elapsed();
    ensure!(
        matches!(r, Err(SandboxError::Timeout { .. })),
        "expected timeout, got {r:?}"
    );
    ensure!(took < Duration::from_secs(3), "took {took:?}");
    Ok(())
}

fn t_spinning_child_times_out() -> Outcome {
    timeout_case(Behaviour::Spin)
}

fn t_sleeping_child_times_out() -> Outcome {
    timeout_case(Behaviour::Sleep)
}

fn t_garbage_frame() -> Outcome {
    match run(Behaviour::Garbage) {
        Err(SandboxError::BadFrame(_)) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_oversized_length_prefix() -> Outcome {
    match run(Behaviour::Oversized) {
        Err(SandboxError::FrameTooLarge { .. }) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_truncated_stream() -> Outcome {
    match run(Behaviour::Truncate) {
        Err(SandboxError::Truncated { .. }) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_too_many_messages() -> Outcome {
    let l = Limits {
        max_messages: 10,
        ..limits()
    };
    match run_with(
        Behaviour::Messages { count: 11, size: 1 },
        Vec::new(),
        &l,
        WeakSandboxPolicy::Default,
    ) {
        Err(SandboxError::TooManyMessages { max: 10 }) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_too_many_bytes() -> Outcome {
    let l = Limits {
        max_total_bytes: 100_000,
        ..limits()
    };
    match run_with(
        Behaviour::Messages {
            count: 20,
            size: 10_000,
        },
        Vec::new(),
        &l,
        WeakSandboxPolicy::Default,
    ) {
        Err(SandboxError::TooManyBytes { max: 100_000 }) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

/// Limits for the amplification cases: 4 MiB frames.
const AMPLIFY_FRAME: u32 = 4 << 20;

fn amplify(
    shape: Shape,
    count: u32,
    limits: &Limits,
) -> (Result<ChildOutput<Wide>, SandboxError>, usize) {
    let b = Behaviour::Amplify {
        shape,
        wire: AMPLIFY_FRAME - 64,
        count,
    };
    heap::peak_during(|| {
        run_parser::<Behaviour, Wide>(&b, Vec::new(), limits, WeakSandboxPolicy::Default)
    })
}

fn amplify_limits() -> Limits {
    Limits {
        max_frame_len: AMPLIFY_FRAME,
        ..limits()
    }
}

/// Most the parent may hold for one frame: the frame's bytes (the reader's buffer, one
/// pipe read, and the payload), plus twice the decoded bound (`Vec` rounds up to twice
/// what it holds) and 2 MiB for preallocation and the runtime.
fn frame_heap_bound(frame: u32) -> usize {
    let frame = frame as usize;
    3 * frame + 2 * usize::try_from(decoded_bound(frame)).unwrap() + (2 << 20)
}

fn t_amplifying_frames_are_refused_within_the_bound() -> Outcome {
    for shape in [
        Shape::EmptyStrings,
        Shape::NestedEmptyLists,
        Shape::NonesOfLargeValues,
        Shape::TinyRecords,
    ] {
        let (out, peak) = amplify(shape, 1, &amplify_limits());
        match out {
            Err(SandboxError::DecodedTooLarge { max, .. }) => {
                ensure!(
                    max == decoded_bound(usize::try_from(AMPLIFY_FRAME).unwrap() - 64)
                        || max < decoded_bound(usize::try_from(AMPLIFY_FRAME).unwrap()),
                    "{shape:?}: refused against an unexpected budget {max}"
                );
            }
            other => {
                return Err(format!(
                    "{shape:?}: expected DecodedTooLarge, got {other:?}"
                ))
            }
        }
        ensure!(
            peak <= frame_heap_bound(AMPLIFY_FRAME),
            "{shape:?}: the parent peaked at {peak} bytes for one {AMPLIFY_FRAME}-byte frame \
             (bound {})",
            frame_heap_bound(AMPLIFY_FRAME)
        );
    }
    // A frame within the bound decodes, and costs at most the bound.
    let (out, peak) = amplify(Shape::ShortStrings, 1, &amplify_limits());
    ensure!(matches!(&out, Ok(o) if o.messages.len() == 1), "{out:?}");
    ensure!(
        peak <= frame_heap_bound(AMPLIFY_FRAME),
        "short strings: the parent peaked at {peak} bytes"
    );
    Ok(())
}

fn t_decoded_bytes_are_bounded_over_the_exchange() -> Outcome {
    // Each message is within its own bound; together they exceed the exchange's total.
    let l = Limits {
        max_decoded_bytes: 40 << 20,
        ..amplify_limits()
    };
    let (out, peak) = amplify(Shape::ShortStrings, 8, &l);
    match out {
        Err(SandboxError::DecodedTooLarge { .. }) => {}
        other => return Err(format!("expected DecodedTooLarge, got {other:?}")),
    }
    ensure!(
        peak <= 2 * (40 << 20) + frame_heap_bound(AMPLIFY_FRAME),
        "the parent peaked at {peak} bytes over a 40 MiB decoded total"
    );
    Ok(())
}

fn t_a_message_over_its_share_is_refused_before_allocation() -> Outcome {
    let l = Limits {
        message_shares: vec![MessageShare {
            max_payload: 1 << 20,
            max_decoded: 8 << 20,
        }],
        ..amplify_limits()
    };
    let (out, peak) = amplify(Shape::ShortStrings, 1, &l);
    match out {
        Err(SandboxError::MessageOverShare { index: 0, max, .. }) if max == 1 << 20 => {}
        other => return Err(format!("expected MessageOverShare, got {other:?}")),
    }
    // Refused at the length prefix: never more than the bytes that arrived.
    ensure!(
        peak <= 3 * (AMPLIFY_FRAME as usize) + (2 << 20),
        "peaked at {peak} bytes"
    );
    // Within the payload share but over the decoded share.
    let l = Limits {
        message_shares: vec![MessageShare {
            max_payload: AMPLIFY_FRAME,
            max_decoded: 1 << 20,
        }],
        ..amplify_limits()
    };
    match amplify(Shape::ShortStrings, 1, &l).0 {
        Err(SandboxError::DecodedTooLarge { max, .. }) if max == 1 << 20 => Ok(()),
        other => Err(format!(
            "expected DecodedTooLarge against the share, got {other:?}"
        )),
    }
}

fn t_partial_answers_survive_the_deadline_when_asked() -> Outcome {
    // Not asked: a timeout is an error, as always.
    match run(Behaviour::Sleep) {
        Err(SandboxError::Timeout { .. }) => {}
        other => return Err(format!("expected Timeout, got {other:?}")),
    }
    let l = Limits {
        timeout: Duration::from_millis(1500),
        keep_partial: true,
        ..limits()
    };
    match run_with(
        Behaviour::ReadThenSleep,
        Vec::new(),
        &l,
        WeakSandboxPolicy::Default,
    ) {
        Ok(out) => {
            ensure!(out.messages == ["before the stall"], "{:?}", out.messages);
            ensure!(
                matches!(out.cut_short, Some(SandboxError::Timeout { .. })),
                "{:?}",
                out.cut_short
            );
        }
        other => return Err(format!("expected partial output, got {other:?}")),
    }
    // A protocol breach is never turned into a partial answer.
    match run_with(
        Behaviour::Garbage,
        Vec::new(),
        &l,
        WeakSandboxPolicy::Default,
    ) {
        Err(SandboxError::BadFrame(_)) => Ok(()),
        other => Err(format!("expected BadFrame, got {other:?}")),
    }
}

fn t_big_report_is_drained_before_wait() -> Outcome {
    // 4 MB, far beyond a 64 KiB pipe buffer.
    let out = run(Behaviour::Messages {
        count: 1000,
        size: 4000,
    })
    .map_err(|e| e.to_string())?;
    ensure!(out.messages.len() == 1000, "{}", out.messages.len());
    Ok(())
}

fn t_exit_nonzero_with_sanitized_stderr() -> Outcome {
    match run(Behaviour::ExitNonZero) {
        Err(e @ SandboxError::Exited { code: 3, .. }) => {
            let s = e.to_string();
            ensure!(!s.contains('\x1b'), "escape leaked: {s:?}");
            ensure!(s.contains("things"), "{s}");
            Ok(())
        }
        other => Err(format!("{other:?}")),
    }
}

fn t_count_mismatch() -> Outcome {
    match run(Behaviour::LieCount) {
        Err(SandboxError::CountMismatch {
            announced: 5,
            received: 0,
        }) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_unknown_variant() -> Outcome {
    match run(Behaviour::UnknownVariant) {
        Err(SandboxError::BadFrame(_)) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_frame_after_end() -> Outcome {
    match run(Behaviour::AfterEnd) {
        Err(SandboxError::Protocol(_)) => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

fn t_socket_is_sigsys() -> Outcome {
    sigsys(Behaviour::SocketInet)
}

fn t_open_is_sigsys() -> Outcome {
    sigsys(Behaviour::OpenPath)
}

fn t_spawn_is_sigsys() -> Outcome {
    sigsys(Behaviour::SpawnProcess)
}

fn t_stdout_write_is_sigsys() -> Outcome {
    sigsys(Behaviour::WriteStdout)
}

fn t_executable_mapping_is_sigsys() -> Outcome {
    sigsys(Behaviour::MmapExec)
}

fn t_signalling_parent_is_sigsys() -> Outcome {
    sigsys(Behaviour::KillParent(
        i32::try_from(std::process::id()).unwrap(),
    ))
}

// ---- the filter's argument checks ----

fn t_stat_of_a_path_is_sigsys() -> Outcome {
    sigsys(Behaviour::StatPath)
}

fn t_statx_of_a_path_is_sigsys() -> Outcome {
    sigsys(Behaviour::StatxPath)
}

fn t_newfstatat_of_a_path_is_sigsys() -> Outcome {
    sigsys(Behaviour::FstatatPath)
}

fn t_statx_even_of_a_handed_fd_is_sigsys() -> Outcome {
    sigsys_with(Behaviour::StatxHandedFd, vec![temp_file("x")])
}

fn t_fstat_of_a_pipe_is_sigsys() -> Outcome {
    sigsys(Behaviour::FstatReportPipe)
}

fn t_access_of_a_path_is_sigsys() -> Outcome {
    sigsys(Behaviour::AccessPath)
}

fn t_readlink_of_a_path_is_sigsys() -> Outcome {
    sigsys(Behaviour::ReadlinkPath)
}

/// Another process the signal cases aim at: a `sleep` of the test, running as the uid
/// the child will have, so that only the sandbox stands between them.
struct Target(std::process::Child);

impl Target {
    fn start() -> Target {
        let mut cmd = std::process::Command::new("sleep");
        cmd.arg("30");
        if nix::unistd::geteuid().is_root() {
            std::os::unix::process::CommandExt::uid(&mut cmd, 65534);
            std::os::unix::process::CommandExt::gid(&mut cmd, 65534);
        }
        Target(cmd.spawn().unwrap())
    }

    fn pid(&self) -> i32 {
        i32::try_from(self.0.id()).unwrap()
    }

    fn alive(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The child signals a live target; it must be killed by seccomp, the target untouched.
fn signal_case(make: fn(i32) -> Behaviour, files: impl FnOnce(&Target) -> Vec<OwnedFd>) -> Outcome {
    let mut target = Target::start();
    let handed = files(&target);
    sigsys_with(make(target.pid()), handed)?;
    std::thread::sleep(Duration::from_millis(20));
    ensure!(
        target.alive() || !seccomp_expected(),
        "the target process was signalled"
    );
    Ok(())
}

fn t_kill_of_another_process_is_sigsys() -> Outcome {
    signal_case(Behaviour::KillOther, |_| Vec::new())
}

fn t_tkill_of_another_process_is_sigsys() -> Outcome {
    signal_case(Behaviour::TkillOther, |_| Vec::new())
}

fn t_tgkill_sigabrt_of_another_process_is_sigsys() -> Outcome {
    signal_case(Behaviour::TgkillOther, |_| Vec::new())
}

fn t_rt_sigqueueinfo_to_another_process_is_sigsys() -> Outcome {
    signal_case(Behaviour::SigqueueOther, |_| Vec::new())
}

fn t_rt_tgsigqueueinfo_to_another_process_is_sigsys() -> Outcome {
    signal_case(Behaviour::TgsigqueueOther, |_| Vec::new())
}

fn t_pidfd_open_is_sigsys() -> Outcome {
    signal_case(Behaviour::PidfdOpen, |_| Vec::new())
}

fn t_pidfd_send_signal_is_sigsys() -> Outcome {
    signal_case(
        |_| Behaviour::PidfdSignal,
        |target| {
            // SAFETY: pidfd_open takes integers; a returned descriptor is owned below.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, target.pid(), 0) };
            let fd = i32::try_from(fd).unwrap();
            assert!(fd >= 0, "pidfd_open failed");
            // SAFETY: `fd` was just returned by pidfd_open and has no other owner.
            vec![unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) }]
        },
    )
}

fn t_tgkill_of_itself_with_another_signal_is_sigsys() -> Outcome {
    sigsys(Behaviour::TgkillSelfTerm)
}

fn t_tkill_of_itself_with_another_signal_is_sigsys() -> Outcome {
    sigsys(Behaviour::TkillSelfTerm)
}

/// musl's `abort()` raises SIGABRT with `tkill(own tid)`: allowed, and it kills.
fn t_tkill_of_itself_with_sigabrt_is_sigabrt() -> Outcome {
    expect_signal(Behaviour::TkillSelfAbort, libc::SIGABRT)
}

fn t_write_to_a_handed_file_is_sigsys() -> Outcome {
    sigsys_with(Behaviour::WriteHandedFile, vec![temp_file("x")])
}

fn t_read_from_stdin_is_sigsys() -> Outcome {
    sigsys(Behaviour::ReadStdin)
}

fn t_mprotect_exec_is_sigsys() -> Outcome {
    sigsys(Behaviour::MprotectExec)
}

fn t_madvise_mergeable_is_sigsys() -> Outcome {
    sigsys(Behaviour::MadviseMergeable)
}

fn t_shared_futex_is_sigsys() -> Outcome {
    sigsys(Behaviour::SharedFutex)
}

fn t_sigaction_of_another_signal_is_sigsys() -> Outcome {
    sigsys(Behaviour::SigactionOther)
}

fn t_fcntl_dupfd_is_sigsys() -> Outcome {
    sigsys_with(Behaviour::FcntlDupfd, vec![temp_file("x")])
}

fn t_lseek_is_sigsys() -> Outcome {
    sigsys_with(Behaviour::LseekHandedFile, vec![temp_file("x")])
}

fn t_ioctl_is_sigsys() -> Outcome {
    sigsys_with(Behaviour::Ioctl, vec![temp_file("x")])
}

fn t_prctl_is_sigsys() -> Outcome {
    sigsys(Behaviour::Prctl)
}

fn t_thread_spawn_is_sigsys() -> Outcome {
    sigsys(Behaviour::SpawnThread)
}

fn t_sched_yield_is_sigsys() -> Outcome {
    sigsys(Behaviour::SchedYield)
}

fn t_file_size_of_handed_files_works() -> Outcome {
    let files = vec![
        temp_file("12345"),
        temp_file(""),
        temp_file(&"x".repeat(70_000)),
    ];
    let out = run_with(
        Behaviour::FileSizes,
        files,
        &limits(),
        WeakSandboxPolicy::Default,
    )
    .map_err(|e| e.to_string())?;
    ensure!(out.messages == ["5,0,70000"], "{:?}", out.messages);
    Ok(())
}

/// What the child reports for `Behaviour::MapFile { extra }` on a file of `content`.
fn map_case(content: &str, extra: u32) -> Result<Vec<String>, String> {
    run_with(
        Behaviour::MapFile { extra },
        vec![temp_file(content)],
        &limits(),
        WeakSandboxPolicy::Default,
    )
    .map(|out| out.messages)
    .map_err(|e| e.to_string())
}

/// A file that shrinks while it is mapped (mapped past its end, which faults the same
/// way) reads as zeros past the end under the real filter, and the guard says so; the
/// next mapping starts clean.
fn t_mapped_file_that_shrank_reads_zeros_and_says_so() -> Outcome {
    let messages = map_case("{\"mcpServers\": {}}", 3 * 4096)?;
    ensure!(
        messages
            == [
                "{\"mcpServers\": {}} past=0 shrank=true",
                "again shrank=false"
            ],
        "{messages:?}"
    );
    Ok(())
}

/// A file mapped whole is its content, and nothing is said to have shrunk.
fn t_mapped_file_is_its_content() -> Outcome {
    let content = "x".repeat(10_000);
    let messages = map_case(&content, 0)?;
    ensure!(
        messages
            == [
                format!("{content} past=0 shrank=false"),
                "again shrank=false".into()
            ],
        "{:?}",
        messages.iter().map(String::len).collect::<Vec<_>>()
    );
    Ok(())
}

fn t_second_mapping_is_refused() -> Outcome {
    let out = run_with(
        Behaviour::MapTwice,
        vec![temp_file("abcdef")],
        &limits(),
        WeakSandboxPolicy::Default,
    )
    .map_err(|e| e.to_string())?;
    ensure!(
        out.messages.len() == 1
            && out.messages[0].starts_with("first=\"abcd\" second=refused: another file is mapped"),
        "{:?}",
        out.messages
    );
    Ok(())
}

/// The guard takes only faults inside a `MappedFile`: any other bus error still ends
/// the child (the default action), as without the guard.
fn t_bus_error_outside_a_mapping_is_sigbus() -> Outcome {
    match run_with(
        Behaviour::BusErrorOutsideMapping,
        vec![temp_file("abc")],
        &limits(),
        WeakSandboxPolicy::Default,
    ) {
        Err(SandboxError::Killed { signal, .. }) if signal == libc::SIGBUS => Ok(()),
        other => Err(format!("expected death by SIGBUS, got {other:?}")),
    }
}

fn t_segfault_is_sigsegv() -> Outcome {
    expect_signal(Behaviour::Segfault, libc::SIGSEGV)
}

/// With glibc, std's handler reports the overflow and aborts. musl tells std no
/// guard page for the main thread, so in the musl release the overflow ends as the
/// plain fault: SIGSEGV, still a death the parent reports, without the line.
fn t_stack_overflow_is_sigabrt() -> Outcome {
    let expected = if cfg!(target_env = "musl") {
        libc::SIGSEGV
    } else {
        libc::SIGABRT
    };
    expect_signal(Behaviour::StackOverflow, expected)
}

fn t_seccomp_log_mode_is_refused_by_default() -> Outcome {
    if !seccomp_expected() {
        return Ok(());
    }
    std::env::set_var("MCP_WARDEN_SECCOMP_LOG", "1");
    let refused = run(Behaviour::ReadFiles);
    let allowed = run_with(
        Behaviour::ReadFiles,
        Vec::new(),
        &limits(),
        WeakSandboxPolicy::AllowWeak,
    );
    std::env::remove_var("MCP_WARDEN_SECCOMP_LOG");
    ensure!(
        matches!(
            refused,
            Err(SandboxError::WeakSandbox { strict: false, .. })
        ),
        "{refused:?}"
    );
    let allowed = allowed.map_err(|e| e.to_string())?;
    ensure!(
        allowed.confinement.seccomp_log_only && !allowed.confinement.seccomp,
        "{}",
        allowed.confinement
    );
    ensure!(allowed.warnings.len() == 1, "{:?}", allowed.warnings);
    Ok(())
}

/// Reads `/proc/<child>/status` and `/limits` of a live, confined child: an observation
/// independent of what the child claims in its hello.
fn t_proc_shows_the_confinement() -> Outcome {
    let handle = std::thread::spawn(|| {
        let l = Limits {
            timeout: Duration::from_secs(2),
            ..Limits::default()
        };
        run_with(
            Behaviour::Sleep,
            vec![temp_file("x")],
            &l,
            WeakSandboxPolicy::Default,
        )
    });
    let me = std::process::id().to_string();
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut found = None;
    while found.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let dir = entry.path();
            let Ok(status) = std::fs::read_to_string(dir.join("status")) else {
                continue;
            };
            let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
            let parent = status
                .lines()
                .find_map(|l| l.strip_prefix("PPid:"))
                .map(str::trim);
            // Confinement is complete once the seccomp line says 2 (filter mode).
            let seccomp_on = status.lines().any(|l| l == "Seccomp:\t2");
            if parent == Some(me.as_str())
                && cmdline.starts_with(format!("mcp-warden\0{CHILD_ARG}").as_bytes())
                && (seccomp_on || !seccomp_expected())
            {
                let limits = std::fs::read_to_string(dir.join("limits")).unwrap_or_default();
                found = Some((status, limits));
                break;
            }
        }
    }
    let result = handle.join().map_err(|_| "thread panicked".to_string())?;
    ensure!(
        matches!(result, Err(SandboxError::Timeout { .. })),
        "{result:?}"
    );
    let (status, limits) = found.ok_or("confined child not found in /proc")?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    if nix::unistd::geteuid().is_root() {
        ensure!(
            field("Uid:") == "65534 65534 65534 65534",
            "Uid: {}",
            field("Uid:")
        );
        ensure!(
            field("Gid:") == "65534 65534 65534 65534",
            "Gid: {}",
            field("Gid:")
        );
        ensure!(field("Groups:").is_empty(), "Groups: {}", field("Groups:"));
        ensure!(field("CapBnd:") == "0000000000000000", "CapBnd");
    }
    for caps in ["CapInh:", "CapPrm:", "CapEff:", "CapAmb:"] {
        ensure!(field(caps) == "0000000000000000", "{caps} {}", field(caps));
    }
    ensure!(field("NoNewPrivs:") == "1", "NoNewPrivs");
    if seccomp_expected() {
        ensure!(field("Seccomp:") == "2", "Seccomp: {}", field("Seccomp:"));
    }
    let limit = |name: &str| {
        limits
            .lines()
            .find(|l| l.starts_with(name))
            .map(|l| {
                l[name.len()..]
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    };
    ensure!(
        limit("Max cpu time") == "10 11",
        "cpu {}",
        limit("Max cpu time")
    );
    ensure!(limit("Max file size") == "0 0", "fsize");
    ensure!(limit("Max core file size") == "0 0", "core");
    ensure!(limit("Max processes") == "0 0", "nproc");
    // Room for 0..=4 and the most files a handover brings (the child confines itself
    // before they arrive), within the hard limit it inherited.
    let (_, hard) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_err(|e| e.to_string())?;
    let nofile = (5 + 2048).min(hard);
    ensure!(
        limit("Max open files") == format!("{nofile} {nofile}"),
        "nofile {}",
        limit("Max open files")
    );
    ensure!(
        limit("Max address space") == "1073741824 1073741824",
        "as {}",
        limit("Max address space")
    );
    Ok(())
}

fn t_selftest_all_ok() -> Outcome {
    let (table, ok) = selftest();
    print!("{table}");
    ensure!(
        ok || !required() && !seccomp_expected(),
        "selftest mismatch"
    );
    Ok(())
}

/// `selftest` shows the stat and signal probes, each denied.
fn t_selftest_probes_stat_and_signals() -> Outcome {
    if !seccomp_expected() {
        return Ok(());
    }
    let (table, _) = selftest();
    for label in [
        "stat /etc/passwd (statx)",
        "stat /etc/passwd (newfstatat)",
        "kill(another process, SIGKILL)",
        "tgkill(another process, SIGABRT)",
    ] {
        let row = table
            .lines()
            .find(|l| l.starts_with(label))
            .ok_or_else(|| format!("no row {label:?} in\n{table}"))?;
        ensure!(
            row.contains("denied (") && row.ends_with("OK"),
            "row {row:?}"
        );
    }
    Ok(())
}

fn t_kernel_status() -> Outcome {
    let s = kernel_status();
    print!("{s}");
    ensure!(s.contains("landlock:") && s.contains("child:"), "{s}");
    Ok(())
}

type Case = (&'static str, fn() -> Outcome);

const TESTS: &[Case] = &[
    // First: a thread whose cores a placement never gave back runs every later
    // exchange on one core, where none is made, so only the first one can tell.
    (
        "the_parents_cores_come_back_after_the_exchange",
        t_the_parents_cores_come_back_after_the_exchange,
    ),
    ("kernel_layers_present", t_kernel_layers_present),
    ("reads_handed_files_in_order", t_reads_handed_files_in_order),
    (
        "started_child_takes_its_files_later",
        t_started_child_takes_its_files_later,
    ),
    (
        "more_files_than_the_inherited_descriptor_limit_arrive",
        t_more_files_than_the_inherited_descriptor_limit_arrive,
    ),
    (
        "a_handover_beyond_the_hard_descriptor_limit_is_refused",
        t_a_handover_beyond_the_hard_descriptor_limit_is_refused,
    ),
    (
        "started_child_dropped_unused_leaves_nothing",
        t_started_child_dropped_unused_leaves_nothing,
    ),
    ("environment_is_empty", t_environment_is_empty),
    (
        "only_fixed_descriptors_are_open",
        t_only_fixed_descriptors_are_open,
    ),
    (
        "panic_exits_101_even_with_rust_backtrace",
        t_panic_exits_101_even_with_rust_backtrace,
    ),
    ("abort_is_sigabrt", t_abort_is_sigabrt),
    (
        "oom_beyond_rlimit_as_is_sigabrt",
        t_oom_beyond_rlimit_as_is_sigabrt,
    ),
    ("spinning_child_times_out", t_spinning_child_times_out),
    ("sleeping_child_times_out", t_sleeping_child_times_out),
    ("garbage_frame", t_garbage_frame),
    ("oversized_length_prefix", t_oversized_length_prefix),
    ("truncated_stream", t_truncated_stream),
    ("too_many_messages", t_too_many_messages),
    ("too_many_bytes", t_too_many_bytes),
    (
        "amplifying_frames_are_refused_within_the_bound",
        t_amplifying_frames_are_refused_within_the_bound,
    ),
    (
        "decoded_bytes_are_bounded_over_the_exchange",
        t_decoded_bytes_are_bounded_over_the_exchange,
    ),
    (
        "a_message_over_its_share_is_refused_before_allocation",
        t_a_message_over_its_share_is_refused_before_allocation,
    ),
    (
        "partial_answers_survive_the_deadline_when_asked",
        t_partial_answers_survive_the_deadline_when_asked,
    ),
    (
        "big_report_is_drained_before_wait",
        t_big_report_is_drained_before_wait,
    ),
    (
        "exit_nonzero_with_sanitized_stderr",
        t_exit_nonzero_with_sanitized_stderr,
    ),
    ("count_mismatch", t_count_mismatch),
    ("unknown_variant", t_unknown_variant),
    ("frame_after_end", t_frame_after_end),
    ("socket_is_sigsys", t_socket_is_sigsys),
    ("open_is_sigsys", t_open_is_sigsys),
    ("spawn_is_sigsys", t_spawn_is_sigsys),
    ("stdout_write_is_sigsys", t_stdout_write_is_sigsys),
    (
        "executable_mapping_is_sigsys",
        t_executable_mapping_is_sigsys,
    ),
    ("signalling_parent_is_sigsys", t_signalling_parent_is_sigsys),
    ("stat_of_a_path_is_sigsys", t_stat_of_a_path_is_sigsys),
    ("statx_of_a_path_is_sigsys", t_statx_of_a_path_is_sigsys),
    (
        "newfstatat_of_a_path_is_sigsys",
        t_newfstatat_of_a_path_is_sigsys,
    ),
    (
        "statx_even_of_a_handed_fd_is_sigsys",
        t_statx_even_of_a_handed_fd_is_sigsys,
    ),
    ("fstat_of_a_pipe_is_sigsys", t_fstat_of_a_pipe_is_sigsys),
    ("access_of_a_path_is_sigsys", t_access_of_a_path_is_sigsys),
    (
        "readlink_of_a_path_is_sigsys",
        t_readlink_of_a_path_is_sigsys,
    ),
    (
        "kill_of_another_process_is_sigsys",
        t_kill_of_another_process_is_sigsys,
    ),
    (
        "tkill_of_another_process_is_sigsys",
        t_tkill_of_another_process_is_sigsys,
    ),
    (
        "tgkill_sigabrt_of_another_process_is_sigsys",
        t_tgkill_sigabrt_of_another_process_is_sigsys,
    ),
    (
        "rt_sigqueueinfo_to_another_process_is_sigsys",
        t_rt_sigqueueinfo_to_another_process_is_sigsys,
    ),
    (
        "rt_tgsigqueueinfo_to_another_process_is_sigsys",
        t_rt_tgsigqueueinfo_to_another_process_is_sigsys,
    ),
    ("pidfd_open_is_sigsys", t_pidfd_open_is_sigsys),
    ("pidfd_send_signal_is_sigsys", t_pidfd_send_signal_is_sigsys),
    (
        "tgkill_of_itself_with_another_signal_is_sigsys",
        t_tgkill_of_itself_with_another_signal_is_sigsys,
    ),
    (
        "tkill_of_itself_with_another_signal_is_sigsys",
        t_tkill_of_itself_with_another_signal_is_sigsys,
    ),
    (
        "tkill_of_itself_with_sigabrt_is_sigabrt",
        t_tkill_of_itself_with_sigabrt_is_sigabrt,
    ),
    (
        "write_to_a_handed_file_is_sigsys",
        t_write_to_a_handed_file_is_sigsys,
    ),
    ("read_from_stdin_is_sigsys", t_read_from_stdin_is_sigsys),
    ("mprotect_exec_is_sigsys", t_mprotect_exec_is_sigsys),
    ("madvise_mergeable_is_sigsys", t_madvise_mergeable_is_sigsys),
    ("shared_futex_is_sigsys", t_shared_futex_is_sigsys),
    (
        "sigaction_of_another_signal_is_sigsys",
        t_sigaction_of_another_signal_is_sigsys,
    ),
    ("fcntl_dupfd_is_sigsys", t_fcntl_dupfd_is_sigsys),
    ("lseek_is_sigsys", t_lseek_is_sigsys),
    ("ioctl_is_sigsys", t_ioctl_is_sigsys),
    ("prctl_is_sigsys", t_prctl_is_sigsys),
    ("thread_spawn_is_sigsys", t_thread_spawn_is_sigsys),
    ("sched_yield_is_sigsys", t_sched_yield_is_sigsys),
    (
        "file_size_of_handed_files_works",
        t_file_size_of_handed_files_works,
    ),
    (
        "mapped_file_that_shrank_reads_zeros_and_says_so",
        t_mapped_file_that_shrank_reads_zeros_and_says_so,
    ),
    ("mapped_file_is_its_content", t_mapped_file_is_its_content),
    ("second_mapping_is_refused", t_second_mapping_is_refused),
    (
        "bus_error_outside_a_mapping_is_sigbus",
        t_bus_error_outside_a_mapping_is_sigbus,
    ),
    ("segfault_is_sigsegv", t_segfault_is_sigsegv),
    ("stack_overflow_is_sigabrt", t_stack_overflow_is_sigabrt),
    (
        "seccomp_log_mode_is_refused_by_default",
        t_seccomp_log_mode_is_refused_by_default,
    ),
    ("proc_shows_the_confinement", t_proc_shows_the_confinement),
    ("selftest_all_ok", t_selftest_all_ok),
    (
        "selftest_probes_stat_and_signals",
        t_selftest_probes_stat_and_signals,
    ),
    ("kernel_status", t_kernel_status),
];

fn main() -> ExitCode {
    match std::env::args_os().nth(1) {
        Some(a) if a == CHILD_ARG => serve_child(test_child),
        Some(a) if a == PROBE_ARG => probe_main(),
        _ => {}
    }
    // `cargo test -- NAME` passes a filter; flags such as --nocapture are ignored.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if required() && !seccomp_expected() {
        eprintln!("MCP_WARDEN_REQUIRE_SANDBOX=1 but seccomp filters are unavailable");
        return ExitCode::FAILURE;
    }
    let mut failed = 0;
    let mut ran = 0;
    for (name, test) in TESTS {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let t = Instant::now();
        match test() {
            Ok(()) => println!("test {name} ... ok ({:?})", t.elapsed()),
            Err(e) => {
                failed += 1;
                println!("test {name} ... FAILED: {e}");
            }
        }
    }
    println!("\ntest result: {} passed; {failed} failed", ran - failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
