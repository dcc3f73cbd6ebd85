//! Resource limits of the child: a backstop against a parser driven into runaway use.
//!
//! The parent's deadline is the real timeout; these bound what one child can consume
//! even if the parent is slow to act, and remove abilities the child never needs.

use std::os::fd::RawFd;

use nix::sys::resource::{getrlimit, setrlimit, Resource};

use crate::SandboxError;

/// Address space: parsing amplifies memory about 10x, so 1 GiB allows inputs of tens of
/// MiB; an allocation beyond it fails and the child aborts (SIGABRT), never the parent.
const ADDRESS_SPACE: u64 = 1 << 30;
/// CPU seconds: SIGXCPU at the soft limit, SIGKILL at the hard one.
const CPU_SOFT: u64 = 10;
const CPU_HARD: u64 = 11;

pub(super) fn apply(highest_fd: RawFd) -> Result<(), SandboxError> {
    // No core dumps: a dump would write parsed secrets to disk.
    set(Resource::RLIMIT_CORE, 0, 0, "setrlimit(RLIMIT_CORE)")?;
    // No file may grow: the child writes nothing but pipes (stderr must never be a regular
    // file, or a panic message would raise SIGXFSZ; the parent gives it a pipe).
    set(Resource::RLIMIT_FSIZE, 0, 0, "setrlimit(RLIMIT_FSIZE)")?;
    // No new processes for this uid (ignored by the kernel for uid 0, hence the uid drop).
    set(Resource::RLIMIT_NPROC, 0, 0, "setrlimit(RLIMIT_NPROC)")?;
    // Descriptors: the fixed ones and the most files a handover may bring (the child
    // confines itself before they arrive, so it cannot know how many come), soft and
    // hard alike. Within an inherited hard limit below that, as much as it allows: the
    // kernel then drops the files that do not fit and the handover is refused as
    // truncated (`handover.rs`). A higher limit than the files need grants nothing:
    // the filter lets the child neither open, duplicate nor create a descriptor, and
    // descriptor 3 brings only what the parent sends. The landlock ruleset's
    // descriptor, closed again before seccomp goes on, takes 5 before any file is there.
    let wanted = u64::try_from(highest_fd)
        .map_err(|_| SandboxError::confine("setrlimit(RLIMIT_NOFILE)", "negative fd"))?
        + 1;
    let (_, inherited_hard) = getrlimit(Resource::RLIMIT_NOFILE)
        .map_err(|e| SandboxError::confine("getrlimit(RLIMIT_NOFILE)", e))?;
    let nofile = wanted.min(inherited_hard);
    set(
        Resource::RLIMIT_NOFILE,
        nofile,
        nofile,
        "setrlimit(RLIMIT_NOFILE)",
    )?;
    set(
        Resource::RLIMIT_CPU,
        CPU_SOFT,
        CPU_HARD,
        "setrlimit(RLIMIT_CPU)",
    )?;
    set(
        Resource::RLIMIT_AS,
        ADDRESS_SPACE,
        ADDRESS_SPACE,
        "setrlimit(RLIMIT_AS)",
    )
}

fn set(resource: Resource, soft: u64, hard: u64, step: &'static str) -> Result<(), SandboxError> {
    setrlimit(resource, soft, hard).map_err(|e| SandboxError::confine(step, e))
}
