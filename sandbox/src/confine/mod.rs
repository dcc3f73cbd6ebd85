//! The confinement of the child, applied in one fixed order before any input is read.
//!
//! Each step fails closed: an error stops the child before it reads its request. The
//! only tolerated gaps are a kernel without landlock or without seccomp filters; they are
//! reported in the [`Confinement`] and the *parent* decides (see `policy.rs`).
//!
//! Order, and why:
//!
//! 1. **rlimits** (`rlimits.rs`): resource bounds first, while every call is still allowed.
//! 2. **capability bounding set** (`caps.rs`): emptied while `CAP_SETPCAP` is still held,
//!    which a root child loses at step 3.
//! 3. **uid/gid drop** (`privs.rs`, root only): root owns most files, so DAC must stop
//!    protecting nothing; `setgroups([])`, `setresgid`, `setresuid` to 65534, verified.
//! 4. **parent-death signal** (`privs.rs`): set *after* the uid change, because the kernel
//!    clears it on every credential change; then `getppid` is checked again.
//! 5. **no_new_privs** (`privs.rs`): required for unprivileged landlock and seccomp, and
//!    makes set-uid binaries and file capabilities inert.
//! 6. **capabilities** (`caps.rs`): ambient, inheritable, effective, permitted cleared and
//!    verified empty.
//! 7. **landlock** (`landlock.rs`): every filesystem, network and scope right the kernel
//!    knows is handled and none is granted.
//! 8. **the mapped-file guard** (`mapped.rs`): the `SIGBUS` handler that keeps a file
//!    which shrinks while it is mapped from killing the child. Not a restriction, but
//!    it must come before the filter, which allows `rt_sigaction` only to reset a
//!    fatal signal, never to set a handler.
//! 9. **seccomp** (`seccomp.rs`), last, so the allow-list never needs `prctl`, `capset`,
//!    `setrlimit`, `landlock_*` or a handler-setting `rt_sigaction`. Built here, after
//!    the child's own `execve`, so its argument checks can name the child's pid
//!    (`tgkill` reaches only itself).

mod caps;
mod landlock;
mod privs;
mod rlimits;
pub(crate) mod seccomp;

use std::os::fd::RawFd;

use nix::unistd::Pid;

use crate::{Confinement, SandboxError};

/// What the child learned in its first statements, needed by the steps.
pub(crate) struct Options {
    /// Highest descriptor the child may hold: 4 and the most files a handover brings
    /// (`child::MAX_FILES`), which arrive after the confinement.
    pub(crate) highest_fd: RawFd,
    /// The parent's pid as seen at child start.
    pub(crate) parent: Pid,
    /// Debug switch: build the seccomp filter with the `Log` action (enforces nothing).
    pub(crate) seccomp_log: bool,
}

/// Applies every layer in order; see the module documentation.
pub(crate) fn apply(opts: &Options) -> Result<Confinement, SandboxError> {
    rlimits::apply(opts.highest_fd)?;
    let bounding_emptied = caps::empty_bounding_set()?;
    let dropped_to_uid = privs::drop_root()?;
    privs::die_with_parent(opts.parent)?;
    privs::set_no_new_privs()?;
    caps::clear_and_verify(bounding_emptied)?;
    let landlock = landlock::restrict()?;
    crate::mapped::install_guard().map_err(|e| SandboxError::confine("SIGBUS guard", e))?;
    let seccomp = seccomp::install(opts.seccomp_log)?;
    Ok(Confinement {
        landlock_abi: landlock.abi,
        landlock_full: landlock.full,
        seccomp: seccomp == seccomp::Installed::Enforcing,
        seccomp_log_only: seccomp == seccomp::Installed::LogOnly,
        no_new_privs: true,
        capabilities_dropped: true,
        dropped_to_uid,
    })
}
