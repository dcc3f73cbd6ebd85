//! Capabilities: the child holds none, in any set.
//!
//! The two per-capability sets (bounding and ambient) are walked by number, from 0 up
//! to the first number the kernel answers `EINVAL` for, not over the `caps` crate's
//! list: a capability the crate does not know yet (a newer kernel's) is dropped and
//! checked all the same, and the walk makes one `prctl` per capability and set. The
//! crate's own helpers first probe every capability it knows to learn which the kernel
//! supports (and build a hash set of them) on each call, which made this step three
//! times as many `prctl` calls as capabilities it changes or reads, on the child's
//! start-up path. The three sets `capget` returns whole (effective, inheritable,
//! permitted) are cleared and read with the crate.

use caps::{CapSet, Capability};

use crate::sys::{self, CapabilityCall};
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
    for_each_capability(
        CapabilityCall::BoundingDrop,
        "prctl(PR_CAPBSET_DROP)",
        |_| Ok(()),
    )?;
    Ok(true)
}

/// Clears ambient, inheritable, effective and permitted (in that order: ambient needs
/// permitted+inheritable to exist, effective must be a subset of permitted; clearing
/// permitted clears effective with it), then reads each set back and fails unless all
/// are empty, the bounding set too when [`empty_bounding_set`] emptied it.
pub(super) fn clear_and_verify(bounding_emptied: bool) -> Result<(), SandboxError> {
    const WHOLE_SETS: [CapSet; 3] = [CapSet::Inheritable, CapSet::Effective, CapSet::Permitted];
    caps::clear(None, CapSet::Ambient).map_err(|e| SandboxError::confine("capset (clear)", e))?;
    for set in [CapSet::Inheritable, CapSet::Permitted] {
        caps::clear(None, set).map_err(|e| SandboxError::confine("capset (clear)", e))?;
    }
    for set in WHOLE_SETS {
        let held = caps::read(None, set).map_err(|e| SandboxError::confine("capget", e))?;
        if !held.is_empty() {
            return Err(still_holds(set, held.len()));
        }
    }
    verify_empty(CapSet::Ambient, CapabilityCall::AmbientIsSet)?;
    if bounding_emptied {
        verify_empty(CapSet::Bounding, CapabilityCall::BoundingRead)?;
    }
    Ok(())
}

/// Fails unless no capability is in `set`, read one number at a time with `call`.
fn verify_empty(set: CapSet, call: CapabilityCall) -> Result<(), SandboxError> {
    let mut held = 0usize;
    for_each_capability(call, "prctl (capability read)", |answer| {
        held += usize::from(answer != 0);
        Ok(())
    })?;
    if held == 0 {
        Ok(())
    } else {
        Err(still_holds(set, held))
    }
}

fn still_holds(set: CapSet, count: usize) -> SandboxError {
    SandboxError::confine(
        "capset (verify)",
        format!("{set:?} set still holds {count} capabilities"),
    )
}

/// Capability numbers fit in the 64 bits of a `capget` set, so the walk ends by then
/// even on a kernel that never answers `EINVAL`.
const CAPABILITY_NUMBERS: libc::c_ulong = 64;

/// Makes `call` for every capability the kernel knows, handing
/// each answer to `answer`. The first `EINVAL` ends the walk: the kernel's capabilities
/// are numbered from 0 without gaps. Any other error, or an `EINVAL` at 0 (a kernel
/// without the operation), fails.
fn for_each_capability(
    call: CapabilityCall,
    step: &'static str,
    mut answer: impl FnMut(libc::c_int) -> Result<(), SandboxError>,
) -> Result<(), SandboxError> {
    for number in 0..CAPABILITY_NUMBERS {
        match sys::capability_prctl(call, number) {
            Ok(value) => answer(value)?,
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) && number > 0 => return Ok(()),
            Err(e) => return Err(SandboxError::confine(step, e)),
        }
    }
    Ok(())
}
