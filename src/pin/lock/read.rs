//! Reading a lock: bounded, strict JSON, the format's validation rules, and no
//! digest recomputation (callers decide which gates to apply).

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use super::{Lock, NOTE_MAX_CHARS, SCHEMA_VERSION};

/// Largest lock file read (a real lock is kilobytes).
pub const MAX_LOCK_BYTES: u64 = 64 * 1024 * 1024;

/// Read and validate a lock. Errors are user-facing sentences.
pub fn read_lock(path: &Path) -> Result<Lock, String> {
    let p = path.display();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("lock file not found: {p}"))
        }
        Err(e) => return Err(format!("lock file {p} could not be read: {e}")),
    };
    let mut bytes = Vec::new();
    file.take(MAX_LOCK_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("lock file {p} could not be read: {e}"))?;
    if bytes.len() as u64 > MAX_LOCK_BYTES {
        return Err(format!(
            "lock file {p} is larger than {MAX_LOCK_BYTES} bytes"
        ));
    }
    parse_lock(&bytes).map_err(|e| format!("lock file {p} {e}"))
}

/// Parse lock bytes; the error completes the sentence "lock file P …".
pub fn parse_lock(bytes: &[u8]) -> Result<Lock, String> {
    // serde_json's recursion limit (128) refuses hostile nesting before the
    // format's own bound of 512 could matter.
    let raw: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("is not valid JSON: {e}"))?;
    crate::digest::canonicalize(&raw)
        .map_err(|e| format!("exceeds the nesting bound or is not canonicalizable: {e}"))?;
    let lock: Lock = serde_json::from_value(raw.clone())
        .map_err(|e| format!("failed schema validation: {e}"))?;
    validate(&lock, &raw).map_err(|e| format!("failed schema validation: {e}"))?;
    Ok(lock)
}

fn validate(lock: &Lock, raw: &Value) -> Result<(), String> {
    let v = lock.schema_version;
    if !(1..=SCHEMA_VERSION).contains(&v) {
        return Err(format!(
            "schema_version {v} is outside the supported range 1..{SCHEMA_VERSION}; a lock at a newer format level cannot be verified by this version"
        ));
    }
    if v >= 4 {
        let ok = lock.tools.iter().all(|t| {
            matches!(t.annotations_hash, Some(Some(_)))
                && matches!(t.output_schema_hash, Some(Some(_)))
                && t.output_schema_skeleton.is_some()
        });
        if !ok {
            return Err(
                "v4 tool entries require annotations_hash, output_schema_hash, and output_schema_skeleton"
                    .into(),
            );
        }
    }
    for a in &lock.pin.attestations {
        if let Some(n) = &a.note {
            if n.chars().count() > NOTE_MAX_CHARS {
                return Err(format!("attestation note exceeds {NOTE_MAX_CHARS} chars"));
            }
        }
    }
    // Skeleton shapes are checked where they are used (drift); here only that
    // they are objects when present.
    if let Some(tools) = raw.get("tools").and_then(Value::as_array) {
        for t in tools {
            for key in ["schema_skeleton", "output_schema_skeleton"] {
                match t.get(key) {
                    None | Some(Value::Null) | Some(Value::Object(_)) => {}
                    Some(_) => return Err(format!("{key} must be an object or null")),
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_future_versions_and_bad_json() {
        assert!(parse_lock(b"{")
            .expect_err("bad json")
            .contains("not valid JSON"));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(parse_lock(deep.as_bytes()).is_err());
    }
}
