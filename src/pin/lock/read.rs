//! Reading a lock named on the command line (`check --lock`, `lock rotate LOCK`): the
//! parent opens it, the confined parser child reads and validates it with the one lock
//! reader every command uses (`child::lock`), and the parent turns the checked record
//! into a [`Lock`]. No lock byte is read or parsed here.
//!
//! Opening: `O_NOFOLLOW` (a symlink is refused, never followed), `O_NONBLOCK` (a FIFO
//! cannot block the open or the read), then through the descriptor: a regular file of
//! at most [`LOCK_SIZE_CAP`] bytes. Error texts follow the earlier implementation's
//! `read_lock` (`lock file P is not valid JSON: …`, `… failed schema validation: …`)
//! and carry nothing of the file but the child's short excerpts.

use std::os::fd::OwnedFd;
use std::path::Path;

use mcp_warden_sandbox::WeakSandboxPolicy;
use nix::errno::Errno;
use nix::fcntl::{self, OFlag};
use nix::sys::stat::Mode;

use super::format::LOCK_SIZE_CAP;
use super::record::lock_from_record;
use super::Lock;
use crate::parent::parse::{self, Job};
use crate::protocol::{ChildMessage, FileFormat, LoadError, LoadErrorKind};

const OPEN_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_NONBLOCK)
    .union(OFlag::O_CLOEXEC)
    .union(OFlag::O_NOCTTY);

/// The sandbox policy of `check` and `lock rotate`: the default, or strict when
/// `MCP_WARDEN_STRICT_SANDBOX=1` (they have no sandbox flags of their own).
pub fn policy() -> WeakSandboxPolicy {
    if std::env::var_os("MCP_WARDEN_STRICT_SANDBOX").is_some_and(|v| v == "1") {
        WeakSandboxPolicy::Strict
    } else {
        WeakSandboxPolicy::Default
    }
}

/// Open a lock for the child. Errors are user-facing sentences.
pub fn open_lock(path: &Path) -> Result<OwnedFd, String> {
    let p = path.display();
    let fd = match fcntl::open(path, OPEN_FLAGS, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::ENOENT) => return Err(format!("lock file not found: {p}")),
        Err(Errno::ELOOP) => {
            return Err(format!(
                "lock file {p} is a symlink; refusing to follow it (name the file it points to)"
            ))
        }
        Err(e) => return Err(format!("lock file {p} could not be opened: {}", e.desc())),
    };
    match crate::parent::open::regular_size(&fd) {
        Ok(Some(size)) if size > LOCK_SIZE_CAP => Err(format!(
            "lock file {p} is {size} bytes, larger than the {LOCK_SIZE_CAP}-byte cap"
        )),
        Ok(Some(_)) => Ok(fd),
        Ok(None) => Err(format!("lock file {p} is not a regular file")),
        Err(e) => Err(format!("lock file {p} could not be examined: {e}")),
    }
}

/// Read and validate a lock in the parser child. `warn` receives the sandbox's
/// warnings (a degraded kernel the policy accepted). Errors are user-facing sentences.
pub fn read_lock(
    path: &Path,
    policy: WeakSandboxPolicy,
    warn: &mut dyn FnMut(&str),
) -> Result<Lock, String> {
    let p = path.display();
    let fd = open_lock(path)?;
    let job = Job {
        fd,
        format: FileFormat::LockRecord,
        size_cap: LOCK_SIZE_CAP,
    };
    let parsed = parse::parse_all(vec![job], policy).map_err(|e| e.to_string())?;
    for w in &parsed.warnings {
        warn(w);
    }
    match parsed.answers.into_iter().next() {
        Some(ChildMessage::LockRecord(Ok(record))) => lock_from_record(record).map_err(|e| {
            format!(
                "parser child sent an invalid record ({}); treating it as compromised",
                e.0
            )
        }),
        Some(ChildMessage::LockRecord(Err(e))) => Err(describe(&p.to_string(), &e)),
        _ => Err("parser child sent no answer for the lock".into()),
    }
}

/// `lock file P …` for a lock the child could not load.
fn describe(p: &str, e: &LoadError) -> String {
    let m = &e.message;
    match e.kind {
        LoadErrorKind::Read | LoadErrorKind::Unfinished => {
            format!("lock file {p} could not be read: {m}")
        }
        LoadErrorKind::TooLarge => format!("lock file {p} is too large to read: {m}"),
        LoadErrorKind::Syntax => format!("lock file {p} is not valid JSON: {m}"),
        LoadErrorKind::TooDeep => format!("lock file {p} exceeds the nesting bound: {m}"),
        LoadErrorKind::Shape if m.starts_with("failed schema validation") => {
            format!("lock file {p} {m}")
        }
        LoadErrorKind::Shape => format!("lock file {p} failed schema validation: {m}"),
    }
}
