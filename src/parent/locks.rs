//! Lock coverage (DOCTOR.md §3): finding `warden.lock` files and deciding whether one
//! covers a server.
//!
//! The search only lists directories (metadata); every lock's bytes are parsed by the
//! child into a [`LockSummary`]. An entry with a lock's name that is not a regular
//! file (a symlink, a FIFO, …) is reported, never followed or read. Coverage is
//! decided through a [`LockIndex`], so its cost grows with servers plus locks, not
//! with their product. A lock found in the tree is unauthenticated evidence,
//! so an approval only counts when it binds the pinned surface: `approved_digest`
//! equals `overall_digest`, and the stored digests reproduce both `overall_digest`
//! and the `command_digest` of the launch it claims to pin. This stops a hand-edited
//! `"approved": true`; it is not signature verification (`check --verify`).

use crate::hash::{HashMap, HashSet};
use crate::hash::{HashMapExt, HashSetExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::digest;
use crate::file_kind::FileKind;
use crate::model::{Coverage, Launch, LockProblem, ServerSpec};
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

/// What the lock search found.
#[derive(Debug, Default)]
pub struct LockSearch {
    /// Regular files with a lock's name, at most [`MAX_LOCKS`].
    pub locks: Vec<FoundLock>,
    /// Entries with a lock's name that are not regular files (a symlink, dangling
    /// or not, a directory, a FIFO, a socket, a device): never followed, never read,
    /// never coverage. The caller warns about each one.
    pub not_regular: Vec<(FoundLock, FileKind)>,
    /// Regular lock files beyond [`MAX_LOCKS`], left unread.
    pub dropped: usize,
}

/// `warden.lock` and `*.warden.lock` under each root, at most [`MAX_LOCK_DEPTH`]
/// directories deep, never following a symlink (file or directory), never entering
/// `SKIPPED_DIRS`. Sorted depth-first; de-duplicated across roots by path. Only
/// directory listings are read (`DirEntry::file_type` is the entry's own type,
/// never its target's).
pub fn find_locks(roots: &[PathBuf]) -> LockSearch {
    let mut search = LockSearch::default();
    let mut seen = HashSet::new();
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
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                let kind = FileKind::of(file_type);
                let name = entry.file_name();
                let rel = rel_dir.join(&name);
                if kind == FileKind::Directory {
                    let skip = name.to_str().is_some_and(|n| SKIPPED_DIRS.contains(&n));
                    if depth < MAX_LOCK_DEPTH && !skip {
                        subdirs.push(rel.clone());
                    }
                }
                if !is_lock_name(&name.to_string_lossy()) || !seen.insert(root.join(&rel)) {
                    continue;
                }
                let found = FoundLock {
                    root: root.clone(),
                    rel,
                };
                if kind != FileKind::Regular {
                    search.not_regular.push((found, kind));
                } else if search.locks.len() < MAX_LOCKS {
                    search.locks.push(found);
                } else {
                    search.dropped += 1;
                }
            }
            // Reverse so the stack pops subdirectories in sorted order.
            for d in subdirs.into_iter().rev() {
                stack.push((d, depth + 1));
            }
        }
    }
    search
}

fn is_lock_name(name: &str) -> bool {
    name == "warden.lock" || name.ends_with(".warden.lock")
}

/// Exact launch equality, on the launch the client starts (its transport rule and
/// expansion applied, `crate::reading`): `url` for remote servers, `command` +
/// `args` for stdio. A server that starts nothing is never covered.
pub fn lock_matches(lock: &LockSummary, server: &ServerSpec) -> bool {
    match &server.launch {
        Launch::Remote(r) => lock.server_url.as_deref() == Some(r.url.as_str()),
        Launch::Stdio(s) => s.command == lock.server_command && s.args == lock.server_args,
        Launch::Nothing => false,
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

/// The readable locks, indexed by the launch each one pins, so that deciding the
/// coverage of every server costs one lookup per server, not a pass over every lock,
/// and no lock's digests are recomputed per server. Built once per run.
pub struct LockIndex<'a> {
    locks: &'a [(String, LockSummary)],
    /// Locks by `server.url` (for remote servers).
    by_url: HashMap<&'a str, Group>,
    /// Locks by `server.command` + `server.args` (for stdio servers).
    by_launch: HashMap<(&'a str, &'a [String]), Group>,
}

/// The locks that pin one launch, in search order, and their verdict.
struct Group {
    locks: Vec<usize>,
    /// Decided the first time a server with this launch asks; the same for every
    /// server that shares the launch. `OnceLock`: servers are audited on several
    /// threads.
    coverage: OnceLock<Coverage>,
}

impl Group {
    fn new() -> Group {
        Group {
            locks: Vec::new(),
            coverage: OnceLock::new(),
        }
    }
}

impl<'a> LockIndex<'a> {
    /// Index `locks` (`(display path, summary)`, in search order).
    pub fn new(locks: &'a [(String, LockSummary)]) -> LockIndex<'a> {
        let mut by_url: HashMap<&str, Group> = HashMap::new();
        let mut by_launch: HashMap<(&str, &[String]), Group> = HashMap::new();
        for (i, (_, lock)) in locks.iter().enumerate() {
            if let Some(url) = lock.server_url.as_deref() {
                by_url.entry(url).or_insert_with(Group::new).locks.push(i);
            }
            by_launch
                .entry((lock.server_command.as_str(), lock.server_args.as_slice()))
                .or_insert_with(Group::new)
                .locks
                .push(i);
        }
        LockIndex {
            locks,
            by_url,
            by_launch,
        }
    }

    /// Coverage of `server` (exact launch equality, see [`lock_matches`]): covered
    /// when any matching lock's approval binds its surface, else the first matching
    /// lock's problem, else none.
    pub fn coverage(&self, server: &ServerSpec) -> Coverage {
        let group = match &server.launch {
            Launch::Remote(r) => self.by_url.get(r.url.as_str()),
            Launch::Stdio(s) => self.by_launch.get(&(s.command.as_str(), s.args.as_slice())),
            Launch::Nothing => None,
        };
        match group {
            Some(group) => group
                .coverage
                .get_or_init(|| self.decide(&group.locks))
                .clone(),
            None => Coverage::None,
        }
    }

    fn decide(&self, matching: &[usize]) -> Coverage {
        let mut first_problem = None;
        for (path, lock) in matching.iter().filter_map(|&i| self.locks.get(i)) {
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
}

/// Coverage of one server by the readable locks (`(display path, summary)`). For
/// many servers, build one [`LockIndex`] instead.
pub fn coverage(server: &ServerSpec, locks: &[(String, LockSummary)]) -> Coverage {
    LockIndex::new(locks).coverage(server)
}

/// Relative display for a lock: relative to cwd when below it, else absolute.
pub fn display_lock(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(command: &str, args: &[&str], url: Option<&str>, approved: bool) -> LockSummary {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let command_digest = match url {
            Some(u) => digest::command_digest_url(u),
            None => digest::command_digest_stdio(command, &args),
        };
        let overall = digest::overall_digest(4, &command_digest, &[], &[], &[]);
        LockSummary {
            schema_version: 4,
            server_command: command.into(),
            server_args: args,
            server_url: url.map(str::to_string),
            command_digest,
            tool_digests: Vec::new(),
            resource_digests: Vec::new(),
            prompt_digests: Vec::new(),
            overall_digest: overall.clone(),
            approved,
            approved_digest: approved.then_some(overall),
        }
    }

    /// Coverage as it was decided before the index: every lock, in order.
    fn coverage_by_scan(server: &ServerSpec, locks: &[(String, LockSummary)]) -> Coverage {
        let mut first_problem = None;
        for (path, lock) in locks.iter().filter(|(_, l)| lock_matches(l, server)) {
            match approval_problem(lock) {
                None => return Coverage::Approved,
                Some(problem) => {
                    first_problem.get_or_insert(Coverage::Unapproved {
                        lock: path.clone(),
                        problem,
                    });
                }
            }
        }
        first_problem.unwrap_or(Coverage::None)
    }

    #[test]
    fn the_index_decides_like_a_scan_of_every_lock() {
        let mut stale = lock("npx", &["-y", "a"], None, true);
        stale.approved_digest = Some("sha256:0".into());
        let mut inconsistent = lock("npx", &["-y", "b"], None, true);
        inconsistent.command_digest = "sha256:1".into();
        let locks: Vec<(String, LockSummary)> = [
            lock("npx", &["-y", "a"], None, false),
            stale,
            lock("npx", &["-y", "a"], None, true),
            inconsistent,
            lock("npx", &["-y", "b"], None, false),
            lock("", &[], Some("https://h.example.com/mcp"), false),
            lock("", &[], Some("https://h.example.com/mcp"), true),
            lock("uvx", &[], Some("https://other.example.com"), false),
            lock("", &[], None, false),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, l)| (format!("l{i}.warden.lock"), l))
        .collect();
        let stdio = |command: Option<&str>, args: &[&str]| match command {
            Some(c) => ServerSpec::stdio(c, args),
            None => ServerSpec::default(),
        };
        let remote = ServerSpec::remote;
        let servers = [
            stdio(Some("npx"), &["-y", "a"]),
            stdio(Some("npx"), &["-y", "b"]),
            stdio(Some("npx"), &["-y", "c"]),
            stdio(Some("uvx"), &[]),
            stdio(None, &[]),
            stdio(Some(""), &[]),
            remote("https://h.example.com/mcp"),
            remote("https://other.example.com"),
            remote("https://third.example.com"),
        ];
        for prefix in 0..=locks.len() {
            let index = LockIndex::new(&locks[..prefix]);
            for server in &servers {
                // Asked twice: the cached verdict is the same verdict.
                for _ in 0..2 {
                    assert_eq!(
                        index.coverage(server),
                        coverage_by_scan(server, &locks[..prefix]),
                        "{server:?} with {prefix} lock(s)"
                    );
                }
            }
        }
    }

    #[test]
    fn lock_named_entries_that_are_not_regular_files_are_reported() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        std::fs::write(root.join("ok.warden.lock"), "{}").expect("write");
        std::os::unix::fs::symlink(root.join("ok.warden.lock"), root.join("link.warden.lock"))
            .expect("symlink");
        std::os::unix::fs::symlink(root.join("missing"), root.join("warden.lock"))
            .expect("symlink");
        nix::unistd::mkfifo(
            &root.join("fifo.warden.lock"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .expect("mkfifo");
        std::fs::create_dir_all(root.join("dir.warden.lock/inner")).expect("mkdir");
        std::fs::write(root.join("dir.warden.lock/inner/x.warden.lock"), "{}").expect("write");
        // Listed from two overlapping roots: every entry once.
        let search = find_locks(&[root.clone(), root.clone()]);
        let rel = |l: &FoundLock| l.rel.to_string_lossy().into_owned();
        assert_eq!(
            search.locks.iter().map(rel).collect::<Vec<_>>(),
            ["ok.warden.lock", "dir.warden.lock/inner/x.warden.lock"]
        );
        let mut odd: Vec<(String, FileKind)> = search
            .not_regular
            .iter()
            .map(|(l, k)| (rel(l), *k))
            .collect();
        odd.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            odd,
            [
                ("dir.warden.lock".to_string(), FileKind::Directory),
                ("fifo.warden.lock".to_string(), FileKind::Fifo),
                ("link.warden.lock".to_string(), FileKind::Symlink),
                ("warden.lock".to_string(), FileKind::Symlink),
            ]
        );
        assert_eq!(search.dropped, 0);
    }
}
