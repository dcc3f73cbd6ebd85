//! A handed file mapped read-only, and the guard that keeps a file that shrinks while
//! it is mapped from killing the child.
//!
//! Why map instead of `read`: reading a file copies it into memory the child touches
//! for the first time, and on the machines doctor is measured on, fresh memory costs
//! 0.1–3 ms per MiB (the kernel clears each page, and a virtual machine's host may back
//! it again first): for an 8–64 MiB `~/.claude.json` that was the largest single cost
//! of the parse, and its spread. A read-only private mapping shares the page cache the
//! file is already in: nothing is cleared and nothing is copied. A mapping has a cost
//! of its own that does not shrink with the file (made, its pages entered, torn down),
//! so the child maps only files of 64 KiB or more and reads smaller ones (`MAP_FROM`
//! in mcp-warden's `src/child/serve.rs`).
//!
//! What mapping costs, and how each cost is met:
//!
//! * **A file that becomes shorter while it is mapped** (truncated by the program that
//!   owns it, say a client rewriting its config) makes a read past its new end raise
//!   `SIGBUS`, which would kill the child and with it every other file's answer. The
//!   guard ([`install_guard`], installed before the seccomp filter, which lets the
//!   child only *reset* `SIGBUS`) maps zero pages over the rest of the mapping when the
//!   fault lies inside it and records that the file shrank ([`MappedFile::shrank`]);
//!   the caller discards what it parsed and answers with an error for that one file. A
//!   fault anywhere else resets `SIGBUS` to its default action and returns, so the
//!   access repeats and the process dies, as std's own handler does.
//! * **A file written while it is mapped** shows the child the new bytes, possibly
//!   half-written, where a `read` would have copied the old or the new ones. The
//!   child is the process built to survive a parser that goes wrong on hostile bytes:
//!   it is confined, and the parent validates everything it sends. The worst a torn
//!   file can cause is a wrong or failed answer for that file, or a child that dies
//!   (exit 2, every file named), never more than the confinement allows; the same
//!   bytes could have been written before the child opened the file.
//! * **One mapping at a time.** The guard knows one range; a second map while one is
//!   alive is refused ([`MappedFile::map`] returns an error and the caller reads the
//!   file instead). The child parses its files one after another.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

/// Start of the live mapping (0 when there is none), read by the guard.
static MAPPED_START: AtomicUsize = AtomicUsize::new(0);
/// End of the live mapping, rounded up to a page.
static MAPPED_END: AtomicUsize = AtomicUsize::new(0);
/// Set by the guard when it replaced pages past the file's new end.
static SHRANK: AtomicBool = AtomicBool::new(false);
/// Whether a mapping is alive (the one slot the guard watches is taken).
static IN_USE: AtomicBool = AtomicBool::new(false);
/// Whether this process installed the guard: without it nothing is mapped.
static GUARDED: AtomicBool = AtomicBool::new(false);
/// The page size, read once when the guard is installed.
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// Fault the whole file in at `mmap`, one call instead of a fault per few pages.
#[cfg(target_os = "linux")]
const POPULATE: libc::c_int = libc::MAP_POPULATE;
#[cfg(not(target_os = "linux"))]
const POPULATE: libc::c_int = 0;

/// A handed file's first `len` bytes, mapped read-only and private; unmapped on drop.
#[derive(Debug)]
pub struct MappedFile {
    start: std::ptr::NonNull<u8>,
    len: usize,
    /// `len` rounded up to a page: what `munmap` takes.
    mapped: usize,
}

impl MappedFile {
    /// Map `len` bytes of `file` (its size as `fstat` gave it).
    ///
    /// # Errors
    /// `len` is 0; the guard is not installed in this process; another mapping is
    /// alive; or `mmap` fails (its errno). The caller reads the file instead.
    pub fn map(file: &File, len: usize) -> io::Result<MappedFile> {
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty file is not mapped",
            ));
        }
        if !GUARDED.load(SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "no guard against a file that shrinks while it is mapped",
            ));
        }
        let page = PAGE.load(SeqCst);
        let Some(mapped) = len.checked_next_multiple_of(page) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "too large to map",
            ));
        };
        if IN_USE
            .compare_exchange(false, true, SeqCst, SeqCst)
            .is_err()
        {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "another file is mapped",
            ));
        }
        // SAFETY: a fresh mapping at an address the kernel chooses (no MAP_FIXED), so it
        // replaces nothing this process uses; read-only and private, so nothing is
        // written through it, and never executable. `file` stays open across the call
        // and the mapping holds its own reference to the file.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        if at == libc::MAP_FAILED {
            let e = io::Error::last_os_error();
            IN_USE.store(false, SeqCst);
            return Err(e);
        }
        let Some(start) = std::ptr::NonNull::new(at.cast::<u8>()) else {
            IN_USE.store(false, SeqCst);
            return Err(io::Error::other("mmap returned a null mapping"));
        };
        SHRANK.store(false, SeqCst);
        MAPPED_END.store(start.as_ptr() as usize + mapped, SeqCst);
        MAPPED_START.store(start.as_ptr() as usize, SeqCst);
        Ok(MappedFile { start, len, mapped })
    }

    /// The mapped bytes. Past a point where the file shrank they read as zeros (and
    /// [`MappedFile::shrank`] says so); see the module docs for a file written while
    /// it is mapped.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `start` is the start of a live readable mapping of `mapped >= len`
        // bytes that this value owns until it is dropped, and nothing in this process
        // writes to it (read-only, private). Pages past a shrunken file's end are
        // replaced by the guard with zero pages, so every byte stays readable.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }

    /// Whether the file became shorter while it was mapped: what was parsed from
    /// [`MappedFile::bytes`] is then not the file's content and must be discarded.
    pub fn shrank(&self) -> bool {
        SHRANK.load(SeqCst)
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        MAPPED_START.store(0, SeqCst);
        MAPPED_END.store(0, SeqCst);
        // SAFETY: unmaps exactly the range `map` mapped (zero pages the guard put over
        // part of it included); no reference into it outlives `self` (`bytes` borrows
        // `self`).
        unsafe {
            libc::munmap(self.start.as_ptr().cast(), self.mapped);
        }
        IN_USE.store(false, SeqCst);
    }
}

/// Install the `SIGBUS` guard for [`MappedFile`]s. Called by the child before its
/// seccomp filter, which allows `rt_sigaction` only to reset a fatal signal.
///
/// Linux only: elsewhere nothing is mapped and every file is read.
///
/// # Errors
/// `sigaction` or `sysconf` fails.
#[cfg(target_os = "linux")]
pub(crate) fn install_guard() -> io::Result<()> {
    // SAFETY: sysconf takes an integer and returns one.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let page = usize::try_from(page)
        .ok()
        .filter(|p| p.is_power_of_two())
        .ok_or_else(|| io::Error::other("no page size"))?;
    PAGE.store(page, SeqCst);
    // SAFETY: a zeroed `sigaction` is a valid value (empty mask, no flags); the
    // handler is an `extern "C"` function of the SA_SIGINFO signature that only
    // touches atomics and makes `mmap`/`sigaction` calls, both async-signal-safe
    // system calls.
    let rc = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            on_bus_error;
        action.sa_sigaction = handler as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut())
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    GUARDED.store(true, SeqCst);
    Ok(())
}

/// The `SIGBUS` handler: zero pages over the rest of the live mapping when the fault
/// is inside it, else the default action (the access repeats and kills).
#[cfg(target_os = "linux")]
extern "C" fn on_bus_error(_signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an SA_SIGINFO handler, and
    // for SIGBUS `si_addr` is the faulting address.
    let at = unsafe { (*info).si_addr() } as usize;
    let start = MAPPED_START.load(SeqCst);
    let end = MAPPED_END.load(SeqCst);
    let page = PAGE.load(SeqCst);
    if start != 0 && page != 0 && (start..end).contains(&at) {
        let from = at - at % page;
        // SAFETY: MAP_FIXED replaces only pages `[from, end)` of the live mapping,
        // which `MappedFile` owns and maps read-only; the replacement is anonymous
        // zero pages, read-only, never executable. Every slice into the mapping stays
        // valid (its pages are still mapped) and reads zeros from here on.
        let replaced = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if replaced != libc::MAP_FAILED {
            SHRANK.store(true, SeqCst);
            return;
        }
    }
    // SAFETY: resets SIGBUS to its default action with a zeroed (valid) `sigaction`;
    // on return the faulting access repeats and the default action ends the process.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(libc::SIGBUS, &default, std::ptr::null_mut());
    }
}
