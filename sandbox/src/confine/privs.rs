//! Identity of the child: leave root, die with the parent, no new privileges.

use nix::sys::prctl;
use nix::sys::signal::Signal;
use nix::unistd::{self, Gid, Pid, Uid};

use crate::SandboxError;

/// The unprivileged identity a root parent's child takes (`nobody` / `nogroup`).
pub(crate) const NOBODY: u32 = 65534;

/// If any of the real, effective or saved uids is 0, drops supplementary groups, then
/// gids, then uids to [`NOBODY`] and verifies all three of each. Returns the new uid.
///
/// Without this a root child would own most files of the system: with no landlock only
/// seccomp would stand between it and them.
pub(super) fn drop_root() -> Result<Option<u32>, SandboxError> {
    let uids = unistd::getresuid().map_err(|e| SandboxError::confine("getresuid", e))?;
    if ![uids.real, uids.effective, uids.saved]
        .iter()
        .any(|u| u.is_root())
    {
        return Ok(None);
    }
    let (uid, gid) = (Uid::from_raw(NOBODY), Gid::from_raw(NOBODY));
    // Groups first: after setresuid we would lack the privilege to change them.
    unistd::setgroups(&[]).map_err(|e| SandboxError::confine("setgroups([])", e))?;
    unistd::setresgid(gid, gid, gid).map_err(|e| SandboxError::confine("setresgid(65534)", e))?;
    unistd::setresuid(uid, uid, uid).map_err(|e| SandboxError::confine("setresuid(65534)", e))?;

    let uids = unistd::getresuid().map_err(|e| SandboxError::confine("getresuid", e))?;
    let gids = unistd::getresgid().map_err(|e| SandboxError::confine("getresgid", e))?;
    let groups = unistd::getgroups().map_err(|e| SandboxError::confine("getgroups", e))?;
    if [uids.real, uids.effective, uids.saved] != [uid; 3]
        || [gids.real, gids.effective, gids.saved] != [gid; 3]
        || !groups.is_empty()
    {
        return Err(SandboxError::confine(
            "setresuid(65534)",
            "credentials did not change as requested",
        ));
    }
    Ok(Some(NOBODY))
}

/// `PR_SET_PDEATHSIG(SIGKILL)`: the child never outlives the parent that supervises it.
/// Set after the uid drop because the kernel resets it on any credential change; the
/// spawn hook set it already for the time before. A changed `getppid` means the parent
/// died in between, and the child stops.
pub(super) fn die_with_parent(parent: Pid) -> Result<(), SandboxError> {
    prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|e| SandboxError::confine("prctl(PR_SET_PDEATHSIG)", e))?;
    if unistd::getppid() != parent {
        return Err(SandboxError::confine(
            "prctl(PR_SET_PDEATHSIG)",
            "the parent exited",
        ));
    }
    Ok(())
}

/// `PR_SET_NO_NEW_PRIVS`, verified: no exec can ever grant privileges again, and
/// unprivileged landlock and seccomp require it.
pub(super) fn set_no_new_privs() -> Result<(), SandboxError> {
    prctl::set_no_new_privs()
        .map_err(|e| SandboxError::confine("prctl(PR_SET_NO_NEW_PRIVS)", e))?;
    match prctl::get_no_new_privs() {
        Ok(true) => Ok(()),
        Ok(false) => Err(SandboxError::confine(
            "prctl(PR_SET_NO_NEW_PRIVS)",
            "flag not set after the call",
        )),
        Err(e) => Err(SandboxError::confine("prctl(PR_GET_NO_NEW_PRIVS)", e)),
    }
}
