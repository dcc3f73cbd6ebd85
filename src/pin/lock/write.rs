//! Writing a lock: pretty JSON (2-space indent, one trailing newline), never
//! through a symlink, either atomically replacing the target or creating it
//! exclusively.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;
use serde::Serialize;

use super::Lock;

/// Why a lock could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// `write_lock_exclusive` found something at the path already.
    Exists(PathBuf),
    /// The path is a symlink; we never write through one.
    Symlink(PathBuf),
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Exists(p) => {
                write!(f, "{} already exists; refusing to replace it", p.display())
            }
            WriteError::Symlink(p) => write!(
                f,
                "{} is a symlink; refusing to write through it",
                p.display()
            ),
            WriteError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for WriteError {}

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

fn open_new(path: &Path) -> io::Result<File> {
    // O_EXCL with O_CREAT never follows a symlink at the final component;
    // O_NOFOLLOW states the intent and covers platforms that differ.
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(OFlag::O_NOFOLLOW.bits() | OFlag::O_CLOEXEC.bits())
        .open(path)
}

/// Create `path` with the lock; fail if anything exists there (a file, a
/// symlink, even a dangling one). Used by `doctor --pin`.
pub fn write_lock_exclusive(path: &Path, lock: &Lock) -> Result<(), WriteError> {
    let bytes = to_pretty_json(lock);
    let mut f = open_new(path).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => WriteError::Exists(path.to_path_buf()),
        _ => WriteError::Io(path.to_path_buf(), e),
    })?;
    let res = f.write_all(&bytes).and_then(|()| f.sync_all());
    if let Err(e) = res {
        // Do not leave a truncated lock behind.
        let _ = fs::remove_file(path);
        return Err(WriteError::Io(path.to_path_buf(), e));
    }
    Ok(())
}

/// Replace (or create) `path` atomically: write a temporary file in the same
/// directory, then rename it over the target. Refuses a symlink at `path`.
pub fn write_lock_replace(path: &Path, lock: &Lock) -> Result<(), WriteError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return Err(WriteError::Symlink(path.to_path_buf())),
        Ok(m) if !m.is_file() => {
            return Err(WriteError::Io(
                path.to_path_buf(),
                io::Error::other("not a regular file"),
            ))
        }
        _ => {}
    }
    let bytes = to_pretty_json(lock);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "warden.lock".into());
    let mut last_err = None;
    for attempt in 0..16u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = dir.join(format!(
            ".{base}.tmp.{}.{nanos}.{attempt}",
            std::process::id()
        ));
        let mut f = match open_new(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                last_err = Some(e);
                continue;
            }
            Err(e) => return Err(WriteError::Io(path.to_path_buf(), e)),
        };
        let res = f
            .write_all(&bytes)
            .and_then(|()| f.sync_all())
            .and_then(|()| fs::rename(&tmp, path));
        if let Err(e) = res {
            let _ = fs::remove_file(&tmp);
            return Err(WriteError::Io(path.to_path_buf(), e));
        }
        return Ok(());
    }
    Err(WriteError::Io(
        path.to_path_buf(),
        last_err.unwrap_or_else(|| io::Error::other("could not create a temporary file")),
    ))
}
