//! Writing a lock: pretty JSON (2-space indent, one trailing newline), through
//! [`crate::safe_write`] (never through a symlink, always whole), either atomically
//! replacing the target or creating it exclusively.

use std::path::Path;

use serde::Serialize;

use super::Lock;

pub use crate::safe_write::WriteError;

/// The bytes of a lock file.
pub fn to_pretty_json(lock: &Lock) -> Vec<u8> {
    let mut lock = lock.clone();
    if lock.schema_version < 4 {
        // Older levels never had these keys; a null must not add them on rewrite.
        for t in &mut lock.tools {
            if t.annotations_hash == Some(None) {
                t.annotations_hash = None;
            }
            if t.output_schema_hash == Some(None) {
                t.output_schema_hash = None;
            }
            if t.output_schema_skeleton == Some(None) {
                t.output_schema_skeleton = None;
            }
        }
    }
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    // Serializing plain structs of strings and JSON values cannot fail.
    if lock.serialize(&mut ser).is_err() {
        out.clear();
    }
    out.push(b'\n');
    out
}

/// Create `path` with the lock; fail if anything exists there (a file, a
/// symlink, even a dangling one). Used by `doctor --pin`, which never replaces a
/// lock. See [`crate::safe_write::create_new`].
pub fn write_lock_exclusive(path: &Path, lock: &Lock) -> Result<(), WriteError> {
    crate::safe_write::create_new(path, &to_pretty_json(lock))
}

/// Replace (or create) `path` atomically, never through a symlink and never onto
/// anything but a regular file. Used by `pin` and `lock rotate`. See
/// [`crate::safe_write::replace`].
pub fn write_lock_replace(path: &Path, lock: &Lock) -> Result<(), WriteError> {
    crate::safe_write::replace(path, &to_pretty_json(lock))
}
