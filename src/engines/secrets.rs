//! WRD-SEC-*: vendor secret patterns and the entropy heuristic.

use crate::model::EngineFinding;

/// Vendor-pattern and entropy findings in one value. Snippets are redacted.
pub fn scan_field(_value: &str) -> Vec<EngineFinding> {
    Vec::new()
}

/// True when the value contains a vendor-pattern secret (not entropy alone).
pub fn has_vendor_secret(_value: &str) -> bool {
    false
}
