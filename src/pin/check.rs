//! `check`: re-capture a server, build its lock in memory, and compare it with
//! the stored one.

use super::capture::{capture, Endpoint, Limits};
use super::drift::{compute_drift, DriftItem};
use super::lock::Lock;
use super::lock::LockFinding;
use super::{build, Approval, PinError};

/// The outcome of one check.
#[derive(Debug)]
pub struct CheckResult {
    /// Static findings over the current surface.
    pub findings: Vec<LockFinding>,
    pub drift: Vec<DriftItem>,
    pub current: Lock,
}

/// Capture `endpoint` and diff it against `baseline`.
pub fn run_check(
    baseline: &Lock,
    endpoint: &Endpoint,
    limits: &Limits,
) -> Result<CheckResult, PinError> {
    let surface = capture(endpoint, limits)?;
    let current = build(&surface, &Approval::default())?;
    let drift = compute_drift(baseline, &current);
    Ok(CheckResult {
        findings: current.findings.clone(),
        drift,
        current,
    })
}
