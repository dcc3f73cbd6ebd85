//! Lock coverage (DOCTOR.md §3): finding `warden.lock` files and deciding whether one
//! covers a server.
//!
//! The search only lists directories (metadata); every lock's bytes are parsed by the
//! child into a [`LockSummary`]. A lock found in the tree is unauthenticated evidence,
//! so an approval only counts when it binds the pinned surface: `approved_digest`
//! equals `overall_digest`, and the stored digests reproduce both `overall_digest`
//! and the `command_digest` of the launch it claims to pin. This stops a hand-edited
//! `"approved": true`; it is not signature verification (`check --verify`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::digest;
use crate::model::{Coverage, LockProblem, ServerSpec};
use crate::protocol::LockSummary;

/// Directories below the search root that are listed at most this deep.
pub const MAX_LOCK_DEPTH: usize = 4;
/// Most lock files read in one run; the rest are reported in one warning.
pub const MAX_LOCKS: usize = 1000;
/// Per-lock size cap (the lock format's, shared by every command).
pub use crate::pin::lock::format::LOCK_SIZE_CAP;

/// Never descended into: dependency trees and tool caches, which hold other
/// projects' files.
const SKIPPED_DIRS: [&str; 7] = [
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".ruff_cache",
    ".tox",
];

/// A lock file found by the search, relative to the root it was found under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundLock {
    pub root: PathBuf,
    pub rel: PathBuf,
}

impl FoundLock {
    pub fn path(&self) -> PathBuf {
        self.root.join(&self.rel)
    }
}

/// `warden.lock` and `*.warden.lock` under each root, at most [`MAX_LOCK_DEPTH`]
/// directories deep, never following a symlink (file or directory), never entering
/// `SKIPPED_DIRS`. Sorted depth-first; de-duplicated across roots by path.
/// Returns the locks (at most [`MAX_LOCKS`]) and how many more were left unread.
pub fn find_locks(roots: &[PathBuf]) -> (Vec<FoundLock>, usize) {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut dropped = 0usize;
    for root in roots {
        let mut stack = vec![(PathBuf::new(), 0usize)];
        while let Some((rel_dir, depth)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(root.join(&rel_dir)) else {
                continue;
            };
            let mut names: Vec<_> = entries.filter_map(|e| e.ok()).collect();
            names.sort_by_key(|e| e.file_name());
            let mut subdirs = Vec::new();
            for entry in names {
                // DirEntry::file_type does not follow symlinks.
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name();
                let rel = rel_dir.join(&name);
                if kind.is_symlink() {
                    continue;
                }
                if kind.is_dir() {
                    let skip = name.to_str().is_some_and(|n| SKIPPED_DIRS.contains(&n));
                    if depth < MAX_LOCK_DEPTH && !skip {
                        subdirs.push(rel);
                    }
                } else if kind.is_file() && is_lock_name(&name.to_string_lossy()) {
                    let full = root.join(&rel);
                    if !seen.insert(full) {
                        continue;
                    }
                    if found.len() < MAX_LOCKS {
                        found.push(FoundLock {
                            root: root.clone(),
                            rel,
                        });
                    } else {
                        dropped += 1;
                    }
                }
            }
            // Reverse so the stack pops subdirectories in sorted order.
            for d in subdirs.into_iter().rev() {
                stack.push((d, depth + 1));
            }
        }
    }
    (found, dropped)
}

fn is_lock_name(name: &str) -> bool {
    name == "warden.lock" || name.ends_with(".warden.lock")
}

/// Exact launch equality: `url` for remote servers, `command` + `args` for stdio.
pub fn lock_matches(lock: &LockSummary, server: &ServerSpec) -> bool {
    match server.remote_url() {
        Some(url) => lock.server_url.as_deref() == Some(url),
        None => {
            server.command.as_deref().unwrap_or("") == lock.server_command
                && server.args == lock.server_args
        }
    }
}

/// Why an approval does not count, or `None` when it binds the surface.
pub fn approval_problem(lock: &LockSummary) -> Option<LockProblem> {
    if !lock.approved {
        return Some(LockProblem::NotApproved);
    }
    if lock.approved_digest.as_deref() != Some(lock.overall_digest.as_str()) {
        return Some(LockProblem::StaleApproval);
    }
    let command_digest = match &lock.server_url {
        Some(url) => digest::command_digest_url(url),
        None => digest::command_digest_stdio(&lock.server_command, &lock.server_args),
    };
    if command_digest != lock.command_digest {
        return Some(LockProblem::CommandDigestMismatch);
    }
    let overall = digest::overall_digest(
        lock.schema_version,
        &lock.command_digest,
        &lock.tool_digests,
        &lock.resource_digests,
        &lock.prompt_digests,
    );
    if overall != lock.overall_digest {
        return Some(LockProblem::EntryDigestMismatch);
    }
    None
}

/// Coverage of one server by the readable locks (`(display path, summary)`).
pub fn coverage(server: &ServerSpec, locks: &[(String, LockSummary)]) -> Coverage {
    let mut first_problem = None;
    for (path, lock) in locks.iter().filter(|(_, l)| lock_matches(l, server)) {
        match approval_problem(lock) {
            None => return Coverage::Approved,
            Some(problem) => {
                if first_problem.is_none() {
                    first_problem = Some(Coverage::Unapproved {
                        lock: path.clone(),
                        problem,
                    });
                }
            }
        }
    }
    first_problem.unwrap_or(Coverage::None)
}

/// Relative display for a lock: relative to cwd when below it, else absolute.
pub fn display_lock(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string_lossy().into_owned(),
    }
}
