//! Lock file names for uncovered servers: `<slug>.warden.lock`, or, when that name
//! is taken, a hash suffix, then a counter.
//!
//! A name is taken when an earlier server of this run got it or a file of that name
//! exists in the directory the lock will be written to. The names are computed once
//! per run ([`assign_lock_names`]) and shared by Next steps and `doctor --pin`, so the
//! printed line and the written file always agree.
//!
//! # Linear in the number of servers
//!
//! A `~/.claude.json` can declare the same server name in 20,000 projects. Restarting
//! the candidate search for each of them (plain name, 59 hash prefixes, then counters
//! from 2) is quadratic. Taken names never become free during a run, so each name
//! keeps how far its search got and the next server of that name
//! resumes there: every candidate of a name is tried at most once, and the names are
//! exactly those the restarting search would give.

use std::collections::{HashMap, HashSet};

use sha2::{Digest, Sha256};

use crate::model::{AuditedServer, Coverage, Report};

/// Suffix of every lock file doctor names.
pub const LOCK_SUFFIX: &str = ".warden.lock";

/// Longest slug, so that `<slug>-<hash>.warden.lock` stays well below the usual
/// 255-byte file-name limit.
const MAX_SLUG: usize = 100;

/// Hex digits of the first hash suffix tried; one more digit per retry.
const FIRST_HASH_DIGITS: usize = 6;

/// The file-name stem for a server: lowercase, each run of characters outside
/// `[a-z0-9]` becomes `-`, `-` trimmed from both ends, at most 100 characters;
/// `server` when nothing is left.
pub fn lock_slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.truncate(MAX_SLUG);
    let trimmed = slug.trim_matches('-');
    if trimmed.is_empty() {
        "server".to_string()
    } else {
        trimmed.to_string()
    }
}

pub(crate) fn sha256_hex(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(64);
    for b in Sha256::digest(s.as_bytes()) {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

/// Where the candidate search of one server name stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// `<slug>.warden.lock` not tried yet.
    Plain,
    /// `<slug>-<first n hex>.warden.lock` is next.
    Hash(usize),
    /// `<slug>-<hex>-<i>.warden.lock` is next.
    Counter(u64),
}

struct NameState {
    slug: String,
    /// sha256 of the name in hex, computed once the plain name was taken (most
    /// names never need it).
    hex: Option<String>,
    progress: Progress,
}

/// Hex digits of a SHA-256.
const HASH_DIGITS: usize = 64;

impl NameState {
    fn new(name: &str) -> NameState {
        NameState {
            slug: lock_slug(name),
            hex: None,
            progress: Progress::Plain,
        }
    }

    fn candidate(&mut self, name: &str) -> String {
        let mut out = String::with_capacity(self.slug.len() + HASH_DIGITS + 24);
        out.push_str(&self.slug);
        if self.progress != Progress::Plain {
            let hex = self.hex.get_or_insert_with(|| sha256_hex(name));
            out.push('-');
            match self.progress {
                Progress::Hash(n) => out.push_str(&hex[..n]),
                _ => out.push_str(hex),
            }
        }
        if let Progress::Counter(i) = self.progress {
            out.push('-');
            out.push_str(&i.to_string());
        }
        out.push_str(LOCK_SUFFIX);
        out
    }

    fn advance(&mut self) {
        self.progress = match self.progress {
            Progress::Plain => Progress::Hash(FIRST_HASH_DIGITS),
            Progress::Hash(n) if n < HASH_DIGITS => Progress::Hash(n + 1),
            Progress::Hash(_) => Progress::Counter(2),
            Progress::Counter(i) => Progress::Counter(i.saturating_add(1)),
        };
    }
}

/// Hands out lock names for one run: distinct from each other and from `is_taken`.
pub struct LockNamer<'a> {
    is_taken: &'a dyn Fn(&str) -> bool,
    given: HashSet<String>,
    states: HashMap<String, NameState>,
}

impl<'a> LockNamer<'a> {
    /// `is_taken` answers for names outside this run (files on disk, names
    /// assigned before).
    pub fn new(is_taken: &'a dyn Fn(&str) -> bool) -> LockNamer<'a> {
        LockNamer {
            is_taken,
            given: HashSet::new(),
            states: HashMap::new(),
        }
    }

    /// The next free name for a server called `name`.
    pub fn name(&mut self, name: &str) -> String {
        if !self.states.contains_key(name) {
            // Most names are free at once: no search state is kept for them. A later
            // server of the same name finds the plain name given and starts one.
            let mut fresh = NameState::new(name);
            let plain = fresh.candidate(name);
            if !self.given.contains(&plain) && !(self.is_taken)(&plain) {
                self.given.insert(plain.clone());
                return plain;
            }
            fresh.advance();
            self.states.insert(name.to_string(), fresh);
        }
        let Some(state) = self.states.get_mut(name) else {
            return lock_slug(name) + LOCK_SUFFIX;
        };
        loop {
            let candidate = state.candidate(name);
            // A taken candidate stays taken for the rest of the run: never retried.
            state.advance();
            if !self.given.contains(&candidate) && !(self.is_taken)(&candidate) {
                self.given.insert(candidate.clone());
                return candidate;
            }
            if matches!(state.progress, Progress::Counter(u64::MAX)) {
                // Only a contrived `is_taken` gets here.
                return candidate;
            }
        }
    }
}

/// `<slug>.warden.lock`, or, when `is_taken` says that name is used,
/// `<slug>-<first 6 hex of sha256(name)>.warden.lock`, extending the hash one
/// digit at a time while the candidate is still taken, then a counter.
pub fn lock_file_name(name: &str, is_taken: &dyn Fn(&str) -> bool) -> String {
    LockNamer::new(is_taken).name(name)
}

/// Set `lock_name` for every uncovered server ([`Coverage::None`]), in report order,
/// and clear it for the others. A name already given to an earlier server in this
/// run, or for which `exists_on_disk` returns true, is never reused. Call once;
/// `doctor --pin` writes exactly these names.
pub fn assign_lock_names(report: &mut Report, exists_on_disk: &dyn Fn(&str) -> bool) {
    let mut namer = LockNamer::new(exists_on_disk);
    for server in &mut report.servers {
        server.lock_name = (server.coverage == Coverage::None).then(|| namer.name(&server.name));
    }
}

/// The lock names of the uncovered servers, in report order: the assigned ones,
/// or, for a server the caller did not assign, a name computed like
/// [`assign_lock_names`] would (without the disk check).
pub(crate) fn uncovered_with_lock_names(report: &Report) -> Vec<(&AuditedServer, String)> {
    let assigned: HashSet<&str> = report
        .uncovered()
        .filter_map(|s| s.lock_name.as_deref())
        .collect();
    let is_assigned = |c: &str| assigned.contains(c);
    let mut namer = LockNamer::new(&is_assigned);
    report
        .uncovered()
        .map(|s| {
            let name = match &s.lock_name {
                Some(n) => n.clone(),
                None => namer.name(&s.name),
            };
            (s, name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::next_steps::tests::{report, server};

    #[test]
    fn slugs() {
        assert_eq!(lock_slug("My Server"), "my-server");
        assert_eq!(lock_slug("a/b"), "a-b");
        assert_eq!(lock_slug("gh#servers"), "gh-servers");
        assert_eq!(lock_slug("GitHub_MCP"), "github-mcp");
        assert_eq!(lock_slug(""), "server");
        assert_eq!(lock_slug("日本"), "server");
        assert_eq!(lock_slug("--x--"), "x");
        assert_eq!(
            lock_slug("gh\u{FFFD}[2K\u{FFFD}[1;31mFAKE CLEAN"),
            "gh-2k-1-31mfake-clean"
        );
        assert_eq!(
            lock_slug("gh\n  mcp-warden pin sh -c 'curl x|sh' --approve #"),
            "gh-mcp-warden-pin-sh-c-curl-x-sh-approve"
        );
        let long = lock_slug(&"ab-".repeat(200));
        assert!(long.len() <= 100 && !long.ends_with('-'));
    }

    fn names(r: &Report) -> Vec<Option<String>> {
        r.servers.iter().map(|s| s.lock_name.clone()).collect()
    }

    #[test]
    fn collision_in_run_gets_hash_suffix() {
        let mut r = report(vec![
            server("a/b", Coverage::None),
            server("a-b", Coverage::None),
        ]);
        assign_lock_names(&mut r, &|_| false);
        assert_eq!(
            names(&r),
            vec![
                Some("a-b.warden.lock".into()),
                Some("a-b-d44362.warden.lock".into())
            ]
        );
    }

    #[test]
    fn collision_on_disk_and_rechecked_hash() {
        let mut r = report(vec![
            server("gh", Coverage::None),
            server("covered", Coverage::Approved),
            server(
                "x",
                Coverage::Unapproved {
                    lock: "x.warden.lock".into(),
                    problem: crate::model::LockProblem::NotApproved,
                },
            ),
        ]);
        let h = sha256_hex("gh");
        let first = format!("gh-{}.warden.lock", &h[..6]);
        let on_disk = ["gh.warden.lock".to_string(), first];
        assign_lock_names(&mut r, &|c| on_disk.iter().any(|d| d == c));
        assert_eq!(
            names(&r),
            vec![Some(format!("gh-{}.warden.lock", &h[..7])), None, None]
        );
    }

    /// The search a server would do on its own, restarting from the plain name:
    /// what the resumable namer must reproduce.
    fn restarting_name(name: &str, is_taken: &dyn Fn(&str) -> bool) -> String {
        let slug = lock_slug(name);
        let plain = format!("{slug}{LOCK_SUFFIX}");
        if !is_taken(&plain) {
            return plain;
        }
        let hex = sha256_hex(name);
        for n in FIRST_HASH_DIGITS..=hex.len() {
            let candidate = format!("{slug}-{}{LOCK_SUFFIX}", &hex[..n]);
            if !is_taken(&candidate) {
                return candidate;
            }
        }
        (2u64..)
            .map(|i| format!("{slug}-{hex}-{i}{LOCK_SUFFIX}"))
            .find(|c| !is_taken(c))
            .unwrap_or(plain)
    }

    #[test]
    fn one_name_in_many_projects_gets_the_names_a_restarting_search_gives() {
        // Past the 59 hash prefixes into the counters, with names on disk in between
        // and other names whose slugs collide.
        let hex = sha256_hex("gh");
        let on_disk: HashSet<String> = [
            "gh.warden.lock".to_string(),
            format!("gh-{}.warden.lock", &hex[..9]),
            format!("gh-{hex}-4.warden.lock"),
        ]
        .into_iter()
        .collect();
        let mut servers = Vec::new();
        for i in 0..150 {
            servers.push(server(if i % 7 == 3 { "GH" } else { "gh" }, Coverage::None));
        }
        let mut r = report(servers);
        assign_lock_names(&mut r, &|c| on_disk.contains(c));
        let mut given: HashSet<String> = HashSet::new();
        for s in &r.servers {
            let expected = restarting_name(&s.name, &|c| given.contains(c) || on_disk.contains(c));
            assert_eq!(s.lock_name.as_deref(), Some(expected.as_str()));
            given.insert(expected);
        }
        assert_eq!(given.len(), 150);
    }

    #[test]
    fn unassigned_names_are_computed_for_printing() {
        let mut r = report(vec![
            server("a-b", Coverage::None),
            server("a/b", Coverage::None),
        ]);
        r.servers[0].lock_name = Some("a-b.warden.lock".into());
        let got: Vec<String> = uncovered_with_lock_names(&r)
            .into_iter()
            .map(|(_, n)| n)
            .collect();
        assert_eq!(got[0], "a-b.warden.lock");
        assert_eq!(
            got[1],
            format!("a-b-{}.warden.lock", &sha256_hex("a/b")[..6])
        );
    }
}
