//! Capabilities: the child holds none, in any set.

use caps::{CapSet, Capability};

use crate::SandboxError;

/// Empties the bounding set if we may (`CAP_SETPCAP` held, i.e. a root child before its
/// uid drop). Returns whether it did. Without the privilege the bounding set stays: with
/// no_new_privs and no `execve` it can never grant anything anyway.
pub(super) fn empty_bounding_set() -> Result<bool, SandboxError> {
    let may = caps::has_cap(None, CapSet::Effective, Capability::CAP_SETPCAP)
        .map_err(|e| SandboxError::confine("capget", e))?;
    if !may {
        return Ok(false);
    }
    for cap in caps::runtime::thread_all_supported() {
        caps::drop(None, CapSet::Bounding, cap)
            .map_err(|e| SandboxError::confine("prctl(PR_CAPBSET_DROP)", e))?;
    }
    Ok(true)
}

/// Clears ambient, inheritable, effective and permitted (in that order: ambient needs
/// permitted+inheritable to exist, effective must be a subset of permitted), then reads
/// each set back and fails unless all are empty.
pub(super) fn clear_and_verify(bounding_emptied: bool) -> Result<(), SandboxError> {
    const SETS: [CapSet; 4] = [
        CapSet::Ambient,
        CapSet::Inheritable,
        CapSet::Effective,
        CapSet::Permitted,
    ];
    for set in SETS {
        caps::clear(None, set).map_err(|e| SandboxError::confine("capset (clear)", e))?;
    }
    let bounding: &[CapSet] = if bounding_emptied {
        &[CapSet::Bounding]
    } else {
        &[]
    };
    for &set in SETS.iter().chain(bounding) {
        let held = caps::read(None, set).map_err(|e| SandboxError::confine("capget", e))?;
        if !held.is_empty() {
            return Err(SandboxError::confine(
                "capset (verify)",
                format!("{set:?} set still holds {} capabilities", held.len()),
            ));
        }
    }
    Ok(())
}
