//! Writing a lock: pretty JSON (2-space indent, one trailing newline), through
//! [`crate::safe_write`] (never through a symlink, always whole), either atomically
//! replacing the target or creating it exclusively.

use crate::hash::HashMapExt;
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

/// The 1-based line of each entry of a lock's pretty text as [`to_pretty_json`]
/// writes it, found in one pass: SARIF results of `pin` and `check` point there,
/// and a check of a large server has one result per tool (a search of the whole
/// text per result was quadratic).
pub struct EntryLines {
    lines: crate::hash::HashMap<String, u32>,
}

impl EntryLines {
    pub fn new(lock_text: &str) -> EntryLines {
        let mut lines = crate::hash::HashMap::new();
        let mut section = "";
        for (i, line) in lock_text.lines().enumerate() {
            let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
            if let Some(rest) = line.strip_prefix("  \"") {
                section = rest.split('"').next().unwrap_or("");
            }
            let text = line.trim_start();
            // The first line of a section that names the entry wins.
            let mut first = |target: String| {
                lines.entry(target).or_insert(number);
            };
            match section {
                "tools" | "prompts" | "resources" => {
                    let key = if section == "resources" {
                        "\"uri\": "
                    } else {
                        "\"name\": "
                    };
                    if let Some(value) = text.strip_prefix(key) {
                        let name = serde_json::Deserializer::from_str(value)
                            .into_iter::<String>()
                            .next()
                            .and_then(Result::ok);
                        if let Some(name) = name {
                            first(format!("{section}/{name}"));
                        }
                    }
                }
                "server" if text.starts_with("\"command") => first("launch/command".into()),
                "pin" => {
                    if let Some(field) = text.strip_prefix('"').and_then(|t| t.split_once("\":")) {
                        first(format!("pin/{}", field.0));
                    }
                }
                _ => {}
            }
        }
        EntryLines { lines }
    }

    /// The line of the entry `target` names (`tools/<name>`, `resources/<uri>`,
    /// `prompts/<name>`, `launch/command`, `pin/<field>`); 1 when it is not found.
    pub fn of(&self, target: &str) -> u32 {
        self.lines.get(target).copied().unwrap_or(1)
    }
}
