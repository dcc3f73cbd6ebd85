//! Landlock: the filesystem, TCP and scope rights the kernel knows, all handled, none
//! granted.
//!
//! The child never opens a file: the parent hands it open descriptors, which landlock
//! does not re-check. So the ruleset has no rules at all, and any path-based access
//! (open, exec, create, rename, …) is denied. The requested ABI is the kernel's own
//! version (capped at the newest the crate knows), with `HardRequirement`: every right
//! requested is one the kernel announced, so anything short of full enforcement is a bug
//! and the child refuses to go on instead of silently downgrading.

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetStatus,
    Scope, ABI,
};

use crate::{sys, SandboxError};

pub(super) struct Outcome {
    /// Effective ABI, `None` when the kernel has no landlock.
    pub(super) abi: Option<u32>,
    pub(super) full: bool,
}

pub(super) fn restrict() -> Result<Outcome, SandboxError> {
    let Some(kernel_abi) = sys::landlock_abi() else {
        // Reported as missing; the parent's policy decides (seccomp still forbids open).
        return Ok(Outcome {
            abi: None,
            full: false,
        });
    };
    let abi = ABI::from(kernel_abi);
    let err = |e: landlock::RulesetError| SandboxError::confine("landlock", e);

    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?;
    // Empty right sets are an error in the crate, so newer classes are added only on the
    // ABIs that have them: TCP bind/connect from ABI 4, scopes (abstract unix sockets,
    // signals) from ABI 6.
    if abi >= ABI::V4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(err)?;
    }
    if abi >= ABI::V6 {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(err)?;
    }
    // No add_rule: nothing is granted. The ruleset fd is closed when `create`'s result is
    // consumed by `restrict_self`.
    let status = ruleset
        .create()
        .map_err(err)?
        .restrict_self()
        .map_err(err)?;
    let full = status.ruleset == RulesetStatus::FullyEnforced;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(SandboxError::confine(
            "landlock_restrict_self",
            "ruleset not enforced although the kernel announced landlock",
        ));
    }
    Ok(Outcome {
        abi: u32::try_from(abi as i32).ok(),
        full,
    })
}
