//! `lock rotate`: re-attest a lock's provenance without re-capturing the
//! server. Only the `pin` block changes, so `overall_digest` is untouched.

use super::lock::build::make_pinner;
use super::lock::{Attestation, Lock, NOTE_MAX_CHARS, PROVENANCE_VERSION};

/// Why a lock may not be rotated. Each is exit 2 with nothing written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RotateError {
    /// Stored entries do not reproduce `overall_digest`.
    Inconsistent,
    /// Approved, but `approved_digest` does not bind the current surface.
    StaleApproval,
    NoteTooLong(usize),
}

impl std::fmt::Display for RotateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RotateError::Inconsistent => f.write_str(
                "lock is internally inconsistent / tampered (stored entries do not reproduce overall_digest); re-pin instead of rotating",
            ),
            RotateError::StaleApproval => f.write_str(
                "approval is stale (approved_digest does not bind the current surface); re-pin + re-approve instead of rotating",
            ),
            RotateError::NoteTooLong(n) => write!(
                f,
                "attestation note exceeds {NOTE_MAX_CHARS} chars (got {n}); notes are public tamper-evident text — keep them short"
            ),
        }
    }
}

impl std::error::Error for RotateError {}

/// The integrity and stale-approval gates.
pub fn check_gates(lock: &Lock) -> Result<(), RotateError> {
    if !lock.is_self_consistent() {
        return Err(RotateError::Inconsistent);
    }
    if lock.pin.approved
        && lock.pin.approved_digest.as_deref() != Some(lock.overall_digest.as_str())
    {
        return Err(RotateError::StaleApproval);
    }
    Ok(())
}

/// A rotated copy of `lock`: one attestation appended (never de-duplicated),
/// `rotated_at`, `rotation_count + 1`, a fresh pinner, and with an approver the
/// scalar approval re-bound to the unchanged digest.
pub fn rotate(
    lock: &Lock,
    approver: Option<&str>,
    actor: Option<&str>,
    note: Option<&str>,
    now: &str,
) -> Result<Lock, RotateError> {
    check_gates(lock)?;
    if let Some(n) = note {
        let len = n.chars().count();
        if len > NOTE_MAX_CHARS {
            return Err(RotateError::NoteTooLong(len));
        }
    }
    let approver = approver.filter(|a| !a.is_empty());
    let mut out = lock.clone();
    let attester = approver
        .or(actor.filter(|a| !a.is_empty()))
        .map(str::to_string)
        .or_else(|| std::env::var("WARDEN_ACTOR").ok().filter(|a| !a.is_empty()))
        .unwrap_or_else(|| "unknown".into());
    out.pin.attestations.push(Attestation {
        actor: attester,
        role: if approver.is_some() {
            "approver"
        } else {
            "pinner"
        }
        .into(),
        method: "manual".into(),
        created_at: now.into(),
        bound_digest: lock.overall_digest.clone(),
        note: note.map(str::to_string),
        signature_bundle: None,
    });
    out.pin.rotated_at = Some(now.into());
    out.pin.rotation_count = out.pin.rotation_count.saturating_add(1);
    out.pin.provenance_version = PROVENANCE_VERSION;
    out.pin.pinner = Some(make_pinner(actor));
    if let Some(a) = approver {
        out.pin.approved = true;
        out.pin.approver = Some(a.into());
        out.pin.approved_at = Some(now.into());
        out.pin.approved_digest = Some(lock.overall_digest.clone());
    }
    Ok(out)
}
