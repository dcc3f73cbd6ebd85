//! Raw system calls: with the allocator (`alloc.rs`) and the file mappings
//! (`mapped.rs`), the only `unsafe` code of the crate.
//!
//! Everything here is a thin, safe wrapper whose `// SAFETY:` comment states the invariant
//! that makes the call sound. Higher modules use only these wrappers, `nix`, `caps`,
//! `landlock` and `seccompiler`. Kept small on purpose so a reviewer can read it whole.

use std::fs::File;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// Fixed descriptor layout of the child (both sides agree on it; see `lib.rs` docs).
pub(crate) const REQUEST_FD: RawFd = 3;
/// Report pipe, write end, in the child (named in the seccomp `write` rule).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const REPORT_FD: RawFd = 4;
/// First handed-over file; the others follow without gaps.
pub(crate) const FIRST_FILE_FD: RawFd = 5;

/// Makes the child's descriptor table exactly `0, 1, 2, 3 = sources[0], 4 = sources[1],
/// 5.. = sources[2..]` and sets `PR_SET_PDEATHSIG(SIGKILL)` between fork and exec.
///
/// Everything else is marked close-on-exec, so no parent descriptor reaches the child even
/// if the caller opened it without `O_CLOEXEC`. The death signal closes the window before
/// the child can set it itself; `parent` is the parent's pid, checked after the prctl so a
/// parent that died before it cannot leave an orphan behind.
pub(crate) fn set_child_fd_layout(cmd: &mut Command, sources: Vec<RawFd>, parent: libc::pid_t) {
    let mut lifted: Vec<libc::c_int> = vec![-1; sources.len()];
    // First number above the layout; the spawn code caps `sources` far below c_int::MAX.
    let top =
        REQUEST_FD.saturating_add(libc::c_int::try_from(sources.len()).unwrap_or(libc::c_int::MAX));
    let hook = move || -> io::Result<()> {
        // Two passes so a source that already sits on a target number is not clobbered:
        // first lift every source above the target range (close-on-exec copies), then
        // place the copies. `dup2` clears close-on-exec on the placed descriptor.
        for (slot, &src) in lifted.iter_mut().zip(&sources) {
            // SAFETY: fcntl(F_DUPFD_CLOEXEC) on an integer is async-signal-safe and touches
            // no memory; a bad descriptor only yields EBADF, reported as an error.
            let fd = unsafe { libc::fcntl(src, libc::F_DUPFD_CLOEXEC, top) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            *slot = fd;
        }
        for (target, &fd) in (REQUEST_FD..).zip(lifted.iter()) {
            // SAFETY: dup2 on two integers is async-signal-safe and touches no memory.
            if unsafe { libc::dup2(fd, target) } < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // Close-on-exec rather than close: std's own exec-error pipe must stay usable
        // until exec closes it.
        cloexec_from(top)?;
        set_death_signal()?;
        // SAFETY: getppid has no arguments and cannot fail.
        if unsafe { libc::getppid() } != parent {
            // ESRCH, not a custom error: building one would allocate after fork.
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        Ok(())
    };
    // SAFETY: the hook runs in the forked child before exec. It calls only fcntl, dup2,
    // close_range, prctl and getppid (all async-signal-safe syscalls), writes only into
    // `lifted`, which was allocated before the fork, and neither allocates nor locks, so
    // it is sound even if the parent is multi-threaded.
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// Marks every descriptor from `first` upwards close-on-exec (async-signal-safe).
#[cfg(target_os = "linux")]
fn cloexec_from(first: RawFd) -> io::Result<()> {
    let first = libc::c_uint::try_from(first).map_err(|_| io::Error::other("negative fd"))?;
    // SAFETY: close_range with the CLOEXEC flag only changes descriptor flags; a plain
    // syscall with integer arguments, async-signal-safe.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            first,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Descriptors scanned where `close_range` does not exist (no kernel sandbox there).
#[cfg(not(target_os = "linux"))]
const FD_SCAN_LIMIT: RawFd = 4096;

#[cfg(not(target_os = "linux"))]
fn cloexec_from(first: RawFd) -> io::Result<()> {
    for fd in first..FD_SCAN_LIMIT {
        // SAFETY: fcntl(F_SETFD) on an integer only changes flags; EBADF is ignored.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(())
}

/// `PR_SET_PDEATHSIG(SIGKILL)` (async-signal-safe).
#[cfg(target_os = "linux")]
fn set_death_signal() -> io::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes integers only.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_death_signal() -> io::Result<()> {
    Ok(())
}

/// Closes every descriptor from `first` upwards (child start).
#[cfg(not(target_os = "linux"))]
pub(crate) fn close_fds_from(first: RawFd) -> io::Result<()> {
    for fd in first..FD_SCAN_LIMIT {
        // SAFETY: as in the Linux version: these descriptors belong to no Rust object yet.
        unsafe { libc::close(fd) };
    }
    Ok(())
}

/// Closes every descriptor from `first` upwards (child start).
#[cfg(target_os = "linux")]
pub(crate) fn close_fds_from(first: RawFd) -> io::Result<()> {
    let first = libc::c_uint::try_from(first).map_err(|_| io::Error::other("negative fd"))?;
    // SAFETY: close_range takes integers only. The descriptors it closes belong to no Rust
    // object in the child: it runs first in `main`, before anything adopted them, and the
    // fixed descriptors below `first` are left alone.
    let rc = unsafe { libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The per-capability `prctl` calls of the child's confinement (`confine/caps.rs`).
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy)]
pub(crate) enum CapabilityCall {
    /// `PR_CAPBSET_DROP`: remove the capability from the bounding set.
    BoundingDrop,
    /// `PR_CAPBSET_READ`: 1 if the bounding set holds it, else 0.
    BoundingRead,
    /// `PR_CAP_AMBIENT_IS_SET`: 1 if the ambient set holds it, else 0.
    AmbientIsSet,
}

/// One [`CapabilityCall`] for capability `number`; the kernel's answer, or its error
/// (`EINVAL` for a number beyond the kernel's last capability).
#[cfg(target_os = "linux")]
pub(crate) fn capability_prctl(
    call: CapabilityCall,
    number: libc::c_ulong,
) -> io::Result<libc::c_int> {
    let zero: libc::c_ulong = 0;
    // SAFETY: these three prctl options take integers only (a capability number, and
    // for PR_CAP_AMBIENT its sub-operation); the kernel reads and writes no memory.
    let rc = unsafe {
        match call {
            CapabilityCall::BoundingDrop => {
                libc::prctl(libc::PR_CAPBSET_DROP, number, zero, zero, zero)
            }
            CapabilityCall::BoundingRead => {
                libc::prctl(libc::PR_CAPBSET_READ, number, zero, zero, zero)
            }
            CapabilityCall::AmbientIsSet => libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::c_ulong::from(libc::PR_CAP_AMBIENT_IS_SET.unsigned_abs()),
                number,
                zero,
                zero,
            ),
        }
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Whether `fd` is an open descriptor.
pub(crate) fn fd_is_open(fd: RawFd) -> bool {
    // SAFETY: fcntl(F_GETFD) only reads the descriptor flags; EBADF means closed.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

/// The child's fixed descriptors, owned.
pub(crate) struct ChildFds {
    pub(crate) request: OwnedFd,
    pub(crate) report: OwnedFd,
    pub(crate) files: Vec<OwnedFd>,
}

static ADOPTED: AtomicBool = AtomicBool::new(false);

/// Takes ownership of the fixed descriptors 3, 4 and `5..5 + files`, at most once per
/// process. Checks that each is open first.
pub(crate) fn adopt_child_fds(files: usize) -> io::Result<ChildFds> {
    if ADOPTED.swap(true, Ordering::SeqCst) {
        return Err(io::Error::other("child descriptors already adopted"));
    }
    let count = libc::c_int::try_from(files).map_err(|_| io::Error::other("too many files"))?;
    let all = (REQUEST_FD..FIRST_FILE_FD + count).collect::<Vec<_>>();
    if let Some(&fd) = all.iter().find(|&&fd| !fd_is_open(fd)) {
        return Err(io::Error::other(format!("descriptor {fd} is not open")));
    }
    // SAFETY: each descriptor is open (checked above), was placed there by the parent's
    // fd-layout hook for this process, and is owned by no other object: the `ADOPTED` flag
    // guarantees this runs once, so no descriptor gets two owners.
    let mut owned = all
        .into_iter()
        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
    let (Some(request), Some(report)) = (owned.next(), owned.next()) else {
        return Err(io::Error::other("fixed descriptors missing"));
    };
    Ok(ChildFds {
        request,
        report,
        files: owned.collect(),
    })
}

/// Ends the process now: no destructors, no atexit handlers, no stdio flush (which could
/// make a forbidden system call after the seccomp filter is on).
pub(crate) fn exit_now(code: i32) -> ! {
    // SAFETY: _exit takes an integer and never returns; skipping destructors is the point.
    unsafe { libc::_exit(code) }
}

/// Writes to fd 2 with one raw `write`, no locks or allocation (panic hook, fatal paths).
pub(crate) fn write_stderr(bytes: &[u8]) {
    // SAFETY: the pointer and length come from a live slice; a short or failed write is
    // acceptable on this best-effort diagnostic path.
    let _ = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
}

/// Ask the kernel to back the 2 MiB-aligned part of `region` with transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`): a large buffer about to be filled then faults in
/// 2 MiB at a time instead of 4 KiB, which is most of what fresh memory costs a
/// one-shot read of a multi-megabyte file. Advice only: nothing is mapped, unmapped or
/// written, and a kernel without transparent huge pages refusing it changes nothing,
/// so the result is not reported. Regions smaller than one huge page are left alone.
#[cfg(target_os = "linux")]
pub fn advise_huge_pages(region: &mut [std::mem::MaybeUninit<u8>]) {
    const HUGE_PAGE: usize = 2 << 20;
    let begin = region.as_mut_ptr() as usize;
    let Some(end) = begin.checked_add(region.len()) else {
        return;
    };
    let Some(start) = begin.checked_next_multiple_of(HUGE_PAGE) else {
        return;
    };
    let stop = end - end % HUGE_PAGE;
    if stop <= start {
        return;
    }
    // SAFETY: MADV_HUGEPAGE only changes how the kernel may back the pages of the
    // range, never their contents or whether they are mapped. The range is inside
    // `region`, memory this process owns and the caller holds mutably for the call,
    // and its start is aligned to 2 MiB, a multiple of the page size.
    unsafe {
        libc::madvise(
            start as *mut libc::c_void,
            stop - start,
            libc::MADV_HUGEPAGE,
        );
    }
}

/// No transparent huge pages outside Linux.
#[cfg(not(target_os = "linux"))]
pub fn advise_huge_pages(_region: &mut [std::mem::MaybeUninit<u8>]) {}

/// The size of an open file, from `fstat(2)` on its descriptor.
///
/// This is how the confined child learns the size of a handed file: `fstat` takes a
/// descriptor and nothing else, so the seccomp filter allows it while refusing `statx`
/// and `newfstatat`, whose path argument could name any file (std's `File::metadata`
/// issues `statx`, and glibc's `fstat()` wrapper issues `newfstatat(fd, "",
/// AT_EMPTY_PATH)`, so neither may be used in the child). The raw system call is
/// issued directly for that reason.
///
/// # Errors
/// The descriptor cannot be examined (the `fstat` errno), or reports a negative size.
#[cfg(target_os = "linux")]
pub fn file_size(file: &File) -> io::Result<u64> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes one `struct stat` (the kernel's layout for this architecture,
    // which `libc::stat` mirrors) into `st`, live and large enough for it; the descriptor
    // is borrowed from `file`, so it stays open across the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_fstat,
            std::os::fd::AsRawFd::as_raw_fd(file),
            st.as_mut_ptr(),
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fstat returned 0, so the kernel filled the whole struct.
    let st = unsafe { st.assume_init() };
    u64::try_from(st.st_size).map_err(|_| io::Error::other("negative file size"))
}

/// The size of an open file (no seccomp filter exists outside Linux, so std's metadata).
///
/// # Errors
/// The descriptor cannot be examined.
#[cfg(not(target_os = "linux"))]
pub fn file_size(file: &File) -> io::Result<u64> {
    file.metadata().map(|m| m.len())
}

/// No landlock outside Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) fn landlock_abi() -> Option<i32> {
    None
}

/// No seccomp outside Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) fn seccomp_filter_available() -> bool {
    false
}

/// The kernel's landlock ABI version, `None` if landlock is not built in or not enabled.
#[cfg(target_os = "linux")]
pub(crate) fn landlock_abi() -> Option<i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a NULL attribute pointer, size 0 and the VERSION flag the kernel reads
    // no memory and only returns the ABI number (or -1 with ENOSYS / EOPNOTSUPP).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).ok().filter(|&v| v > 0)
}

/// Whether seccomp filters with the kill-process action are available.
#[cfg(target_os = "linux")]
pub(crate) fn seccomp_filter_available() -> bool {
    const SECCOMP_GET_ACTION_AVAIL: libc::c_uint = 2;
    let action: u32 = libc::SECCOMP_RET_KILL_PROCESS;
    // SAFETY: the kernel reads one u32 from `&action`, which lives across the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            SECCOMP_GET_ACTION_AVAIL,
            0u32,
            std::ptr::from_ref(&action),
        )
    };
    rc == 0
}

/// Probe: create a socket of `domain` (closed again at once if it worked).
pub(crate) fn try_socket(domain: libc::c_int) -> io::Result<()> {
    // SAFETY: socket takes integers; a returned descriptor is owned by the OwnedFd below.
    let fd = unsafe { libc::socket(domain, libc::SOCK_STREAM, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by socket and has no other owner.
    drop(unsafe { OwnedFd::from_raw_fd(fd) });
    Ok(())
}

/// Probe: `ptrace(PTRACE_SEIZE, pid)`: the access check of `PTRACE_ATTACH` without
/// stopping the target (a broken sandbox must not freeze the parent it probes).
#[cfg(target_os = "linux")]
pub(crate) fn try_ptrace_seize(pid: libc::pid_t) -> io::Result<()> {
    // SAFETY: PTRACE_SEIZE with addr 0 and data 0 (no options) reads no caller memory.
    let rc = unsafe {
        libc::ptrace(
            libc::PTRACE_SEIZE,
            pid,
            std::ptr::null_mut::<libc::c_void>(),
            std::ptr::null_mut::<libc::c_void>(),
        )
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Probe: read 8 bytes of `pid`'s memory with `process_vm_readv`, at the address where
/// the same variable lives in this process (valid or not, the permission check comes
/// first: EPERM means denied, EFAULT or success means the access itself was allowed).
#[cfg(target_os = "linux")]
pub(crate) fn try_process_vm_read(pid: libc::pid_t) -> io::Result<()> {
    let mut local = [0u8; 8];
    let remote_addr = std::ptr::from_ref(&local).cast::<libc::c_void>().cast_mut();
    let local_iov = libc::iovec {
        iov_base: local.as_mut_ptr().cast(),
        iov_len: local.len(),
    };
    let remote_iov = libc::iovec {
        iov_base: remote_addr,
        iov_len: 8,
    };
    // SAFETY: `local_iov` points into `local`, live and writable for 8 bytes; the remote
    // iovec is only interpreted in the other process's address space.
    let rc = unsafe { libc::process_vm_readv(pid, &local_iov, 1, &remote_iov, 1, 0) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Probe: `execve("/bin/true")`. Returns only if the call failed.
pub(crate) fn try_execve_true() -> io::Error {
    let path = c"/bin/true";
    let argv = [path.as_ptr(), std::ptr::null()];
    let envp = [std::ptr::null::<libc::c_char>()];
    // SAFETY: path, argv and envp are NUL-terminated / NULL-terminated arrays that live
    // across the call; on success the process image is replaced and nothing here runs.
    unsafe { libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr()) };
    io::Error::last_os_error()
}

/// Probe: `newfstatat(AT_FDCWD, path, &st, 0)`: what glibc's `stat()` issues.
#[cfg(target_os = "linux")]
pub(crate) fn try_fstatat(path: &std::ffi::CStr) -> io::Result<()> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `path` is NUL-terminated and `st` is live and large enough for the one
    // `struct stat` the kernel writes; nothing is read from `st` afterwards.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_newfstatat,
            libc::AT_FDCWD,
            path.as_ptr(),
            st.as_mut_ptr(),
            0,
        )
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Probe: `kill(pid, signal)`.
pub(crate) fn try_kill(pid: libc::pid_t, signal: libc::c_int) -> io::Result<()> {
    // SAFETY: kill takes integers only; the caller never passes a pid <= 0 (a group).
    if unsafe { libc::kill(pid, signal) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Probe: `tgkill(pid, pid, signal)`: the call glibc's `abort()` makes, aimed elsewhere.
#[cfg(target_os = "linux")]
pub(crate) fn try_tgkill(pid: libc::pid_t, signal: libc::c_int) -> io::Result<()> {
    // SAFETY: tgkill takes integers only.
    if unsafe { libc::syscall(libc::SYS_tgkill, pid, pid, signal) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Probes that need Linux interfaces report "unsupported" elsewhere.
#[cfg(not(target_os = "linux"))]
pub(crate) fn try_ptrace_seize(_pid: libc::pid_t) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn try_process_vm_read(_pid: libc::pid_t) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn try_fstatat(_path: &std::ffi::CStr) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn try_tgkill(_pid: libc::pid_t, _signal: libc::c_int) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Set thread `tid`'s nice value to 19, its lowest priority (on Linux `PRIO_PROCESS`
/// with a thread id names that one thread). Best effort: an error is ignored.
pub(crate) fn lower_thread_priority(tid: libc::pid_t) {
    let Ok(who) = libc::id_t::try_from(tid) else {
        return;
    };
    // SAFETY: `setpriority` takes plain integers and touches no memory of ours.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, who, 19) };
}

/// `len` bytes (a multiple of the page size) of fresh, zeroed, private read-write
/// memory, or `None` when the kernel refuses (out of memory, or the address-space
/// limit). With `huge`, the mapping starts on a 2 MiB boundary and is advised into
/// transparent huge pages. For the allocator (`alloc.rs`): allocates nothing.
pub(crate) fn map_anonymous(len: usize, huge: bool) -> Option<*mut u8> {
    const HUGE_PAGE: usize = 2 << 20;
    let span = if huge {
        len.checked_add(HUGE_PAGE)?
    } else {
        len
    };
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing
    // (null hint, no MAP_FIXED) replaces nothing the process uses; PROT_EXEC is not
    // asked for.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return None;
    }
    let base = base.cast::<u8>();
    if !huge {
        return Some(base);
    }
    // Trim the mapping to [start, start + len) with `start` on a 2 MiB boundary.
    let addr = base as usize;
    let start = addr.next_multiple_of(HUGE_PAGE);
    let head = start - addr;
    let tail = span - head - len;
    if head > 0 {
        unmap(base, head);
    }
    if tail > 0 {
        unmap((start + len) as *mut u8, tail);
    }
    advise_huge(start as *mut u8, len);
    Some(start as *mut u8)
}

/// Give the pages of `start..start + len` back to the kernel (`MADV_DONTNEED`): the
/// range stays mapped and reads as zeros when touched again. The allocator's caller
/// passes page-aligned ranges of blocks no one uses.
pub(crate) fn discard(start: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: the range is memory this process mapped, page aligned, inside a freed
    // block nothing refers to; MADV_DONTNEED drops its contents, which no one reads.
    unsafe {
        libc::madvise(start.cast(), len, libc::MADV_DONTNEED);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// Advise `len` bytes at `start` (a mapping of this process) into huge pages.
fn advise_huge(start: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: MADV_HUGEPAGE changes only how the kernel may back the range, never its
    // contents or whether it is mapped; the range is memory this process mapped.
    unsafe {
        libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// Unmap `len` bytes at `start`: a range the allocator mapped with [`map_anonymous`]
/// and no longer hands out.
pub(crate) fn unmap(start: *mut u8, len: usize) {
    // SAFETY: the caller (the allocator) unmaps only ranges it mapped and that no live
    // allocation uses any more; munmap of such a range cannot affect other memory.
    unsafe {
        libc::munmap(start.cast(), len);
    }
}

/// Grow or shrink the mapping of `old` bytes at `start` to `new` bytes (both multiples
/// of the page size), moving it if it must; null when the kernel refuses (the old
/// mapping is then untouched). With `huge`, the result is advised into huge pages.
#[cfg(target_os = "linux")]
pub(crate) fn remap(start: *mut u8, old: usize, new: usize, huge: bool) -> *mut u8 {
    // SAFETY: `start..start + old` is one mapping the allocator made for one live
    // block, which the caller gives up on success: MREMAP_MAYMOVE moves its pages (and
    // their protection, never executable) to a range the kernel picks, replacing
    // nothing else.
    let moved = unsafe { libc::mremap(start.cast(), old, new, libc::MREMAP_MAYMOVE) };
    if moved == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let moved = moved.cast::<u8>();
    if huge {
        advise_huge(moved, new);
    }
    moved
}

/// Without `mremap`: a fresh mapping and a copy.
#[cfg(not(target_os = "linux"))]
pub(crate) fn remap(start: *mut u8, old: usize, new: usize, huge: bool) -> *mut u8 {
    let Some(moved) = map_anonymous(new, huge) else {
        return std::ptr::null_mut();
    };
    // SAFETY: both ranges are mapped, distinct, and at least `min(old, new)` long.
    unsafe { std::ptr::copy_nonoverlapping(start, moved, old.min(new)) };
    unmap(start, old);
    moved
}
