//! Lock file names for uncovered servers: `<slug>.warden.lock`, or, when that name
//! is taken, a hash suffix, then a counter. Servers with the same launch share one
//! name (one pin line, one lock, one CI step).
//!
//! # The same launch
//!
//! Two uncovered servers are one launch ([`LaunchKey`]) when the printed pin line
//! would start the same thing the same way: for stdio, the same command, the same
//! arguments, the same `cwd` field and the same set of environment *names* (the
//! values are the user's to export and are never compared or printed); for a
//! remote server, the same URL and the same headers as the pin line passes them
//! (`X-Api-Key: ${FM_KEY}` whether the client spells the reference `${FM_KEY}` or
//! `${env:FM_KEY}`; a withheld value is compared as written, so two different
//! literal keys stay two locks). A lock's command
//! digest covers only the command and arguments (or the URL), which is what
//! coverage matches on: a lock pinned for one launch also covers a server that
//! differs from it only in env names or headers, but such a server gets its own
//! pin line, since the line it needs is different. The name is the one the first
//! server of the launch (in report order) would get, so it is stable while that
//! server stays first, and every name is still distinct from every other and from
//! the files on disk. A server that starts nothing is never merged with another.
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
//!
//! # Worked out ahead
//!
//! What naming asks of each server alone, its slug and the hash of its launch
//! ([`NamingInput`]), doctor works out while it judges the server, on the auditing
//! threads, where the server's words were just read; naming itself is a pass in
//! report order on one thread (the first server of a launch gets the name), and on
//! a large home it was the longest step after the audit. The names given are those
//! of the same pass without the inputs: the slug is [`lock_slug`]'s and the hash is
//! made by the one hasher the table of launches uses (`LAUNCH_HASHER`).

use crate::hash::{HashMap, HashSet};
use crate::hash::{HashMapExt, HashSetExt};

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::hash::BuildHasher;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::model::{AuditedServer, Coverage, Launch, Report};
use crate::pin::configured::{pin_headers, PinHeaders};
use crate::text::redact::{names_a_credential, redacted};

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
///
/// A credential in the name is redacted first (`gh-ghp_…` becomes `gh-ghp-len-40`),
/// and a slug that still reads as one becomes `server`: the lock name is printed in
/// pin lines and committed, and a server name is config text like any other.
pub fn lock_slug(name: &str) -> String {
    let shown = redacted(name);
    let slug = slug_of(&shown);
    // Whether the slug names a credential is `redacted(slug) != slug`. When nothing
    // in the name was redacted and the name is its own slug (`s0-1`, `github`: most
    // names), that is the scan just made, and its answer is no: the slug is not
    // scanned twice.
    let answered = matches!(shown, Cow::Borrowed(_)) && slug == name;
    if !answered && names_a_credential(&slug) {
        "server".to_string()
    } else {
        slug
    }
}

fn slug_of(name: &str) -> String {
    let mut slug = String::with_capacity(name.len().min(MAX_SLUG + 1));
    // Lowercased character by character: the same characters as `str::to_lowercase`
    // (which differs only for a final sigma, never ASCII, so never kept) without a
    // copy of the name.
    // The slug only grows and is cut at MAX_SLUG: the rest of a long name cannot
    // change it.
    let mut push = |c: char| {
        if slug.len() >= MAX_SLUG {
            return false;
        }
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        true
    };
    if name.is_ascii() {
        // An ASCII character lowercases to one ASCII character: byte by byte, the
        // same characters without the per-character iterator (most names).
        for b in name.bytes() {
            if !push(char::from(b.to_ascii_lowercase())) {
                break;
            }
        }
    } else {
        for c in name.chars().flat_map(char::to_lowercase) {
            if !push(c) {
                break;
            }
        }
    }
    slug.truncate(MAX_SLUG);
    let trimmed = slug.trim_matches('-');
    if trimmed.is_empty() {
        "server".to_string()
    } else if trimmed.len() == slug.len() {
        slug
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
    fn new(slug: String) -> NameState {
        NameState {
            slug,
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

/// A lock file name, shared by every server of its launch and by the namer's set of
/// names given: one allocation per launch, however many servers it covers.
pub type LockName = Arc<str>;

/// Hands out lock names for one run: distinct from each other and from `is_taken`.
pub struct LockNamer<'a> {
    is_taken: &'a dyn Fn(&str) -> bool,
    given: HashSet<LockName>,
    states: HashMap<String, NameState>,
    /// The plain name being tried, in one buffer for every server: most names are
    /// free at once, and are then copied once, into the name given.
    plain: String,
}

impl<'a> LockNamer<'a> {
    /// `is_taken` answers for names outside this run (files on disk, names
    /// assigned before).
    pub fn new(is_taken: &'a dyn Fn(&str) -> bool) -> LockNamer<'a> {
        LockNamer {
            is_taken,
            given: HashSet::new(),
            states: HashMap::new(),
            plain: String::new(),
        }
    }

    /// Room for `n` more names without growing the set on the way.
    fn reserve(&mut self, n: usize) {
        self.given.reserve(n);
    }

    /// The next free name for a server called `name`.
    pub fn name(&mut self, name: &str) -> LockName {
        self.name_slugged(name, None)
    }

    /// [`Self::name`], with the slug of `name` when it was worked out ahead
    /// (`None`: worked out here).
    fn name_slugged(&mut self, name: &str, slug: Option<&str>) -> LockName {
        if !self.states.contains_key(name) {
            // Most names are free at once: no search state is kept for them. A later
            // server of the same name finds the plain name given and starts one.
            let worked_out;
            let slug = match slug {
                Some(slug) => slug,
                None => {
                    worked_out = lock_slug(name);
                    &worked_out
                }
            };
            // The candidate of a fresh search (`NameState::candidate`).
            self.plain.clear();
            self.plain.push_str(slug);
            self.plain.push_str(LOCK_SUFFIX);
            if let Some(name) = give_if_free(&mut self.given, self.is_taken, &self.plain) {
                return name;
            }
            let mut fresh = NameState::new(slug.to_string());
            fresh.advance();
            self.states.insert(name.to_string(), fresh);
        }
        let Some(state) = self.states.get_mut(name) else {
            return Arc::from(lock_slug(name) + LOCK_SUFFIX);
        };
        loop {
            let candidate = state.candidate(name);
            // A taken candidate stays taken for the rest of the run: never retried.
            state.advance();
            if let Some(name) = give_if_free(&mut self.given, self.is_taken, &candidate) {
                return name;
            }
            if matches!(state.progress, Progress::Counter(u64::MAX)) {
                // Only a contrived `is_taken` gets here.
                return Arc::from(candidate);
            }
        }
    }
}

/// `candidate`, recorded as given, unless this run gave it already or `is_taken`
/// says it is used. One look-up in `given`: the insert is the membership test
/// (a look-up and then an insert found the slot twice, in a set of one name per
/// launch that a large home makes too big for the cache). A candidate given
/// already costs the copy made to insert it, which is rare: most names are free.
fn give_if_free(
    given: &mut HashSet<LockName>,
    is_taken: &dyn Fn(&str) -> bool,
    candidate: &str,
) -> Option<LockName> {
    if is_taken(candidate) {
        return None;
    }
    let name: LockName = Arc::from(candidate);
    given.insert(Arc::clone(&name)).then_some(name)
}

/// `<slug>.warden.lock`, or, when `is_taken` says that name is used,
/// `<slug>-<first 6 hex of sha256(name)>.warden.lock`, extending the hash one
/// digit at a time while the candidate is still taken, then a counter.
pub fn lock_file_name(name: &str, is_taken: &dyn Fn(&str) -> bool) -> String {
    LockNamer::new(is_taken).name(name).to_string()
}

/// What makes two servers one launch (see the module documentation). It borrows
/// the server's strings: a `~/.claude.json` can hold tens of thousands of
/// servers, and copying each launch only to compare it dominated the naming.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LaunchKey<'s> {
    Stdio {
        command: &'s str,
        args: &'s [String],
        cwd: Option<&'s str>,
        /// Sorted, without repeats.
        env_names: EnvNames<'s>,
    },
    Remote {
        url: &'s str,
        /// Each printed header; the values as written where one is withheld.
        headers: RemoteHeaders<'s>,
    },
    /// Starts nothing: never the same as another server.
    Unique(usize),
}

/// A header or env pair as the model holds it.
type Pair = (String, String);

/// The headers of a remote launch as [`LaunchKey`] compares them: the sequence of
/// each printed header (`(text, "")`) followed, when a value is withheld or a name
/// left out, by each header as written (`(name, value)`). The printed headers are
/// the run's one judgment of that header map ([`pin_headers`], shared, not copied)
/// and the written ones borrow the server's: comparing and hashing walk the
/// sequence, so no server's key allocates.
#[derive(Debug, Clone)]
pub struct RemoteHeaders<'s> {
    printed: Arc<PinHeaders>,
    /// The launched headers and the declared ones (the values as written), when
    /// they are part of the key.
    written: Option<(&'s [Pair], &'s [Pair])>,
}

impl<'s> RemoteHeaders<'s> {
    fn len(&self) -> usize {
        self.printed.headers.len() + self.written.map_or(0, |(launched, _)| launched.len())
    }

    fn pairs(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let printed = self.printed.headers.iter().map(|h| (h.text.as_str(), ""));
        let written = self.written.into_iter().flat_map(|(launched, declared)| {
            launched.iter().enumerate().map(move |(i, (k, v))| {
                let value = declared
                    .get(i)
                    .filter(|_| declared.len() <= launched.len())
                    .map_or(v, |(_, w)| w);
                (k.as_str(), value.as_str())
            })
        });
        printed.chain(written)
    }
}

impl PartialEq for RemoteHeaders<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.pairs().eq(other.pairs())
    }
}

impl Eq for RemoteHeaders<'_> {}

impl std::hash::Hash for RemoteHeaders<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for pair in self.pairs() {
            pair.hash(state);
        }
    }
}

/// The environment names of a stdio launch, sorted and without repeats: the
/// launch's own list when it already is (one name, or names in order), else a
/// sorted copy of the names. Compared and hashed as the sequence of names, so
/// both forms of one set are equal.
#[derive(Debug, Clone)]
pub enum EnvNames<'s> {
    InOrder(&'s [(String, String)]),
    Sorted(Vec<&'s str>),
}

impl<'s> EnvNames<'s> {
    fn of(env: &'s [(String, String)]) -> EnvNames<'s> {
        if env.windows(2).all(|w| w[0].0 < w[1].0) {
            return EnvNames::InOrder(env);
        }
        let mut names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        EnvNames::Sorted(names)
    }

    fn len(&self) -> usize {
        match self {
            EnvNames::InOrder(env) => env.len(),
            EnvNames::Sorted(names) => names.len(),
        }
    }

    fn names(&self) -> impl Iterator<Item = &str> + '_ {
        let (in_order, sorted) = match self {
            EnvNames::InOrder(env) => (Some(env.iter().map(|(k, _)| k.as_str())), None),
            EnvNames::Sorted(names) => (None, Some(names.iter().copied())),
        };
        in_order
            .into_iter()
            .flatten()
            .chain(sorted.into_iter().flatten())
    }
}

impl PartialEq for EnvNames<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.names().eq(other.names())
    }
}

impl Eq for EnvNames<'_> {}

impl std::hash::Hash for EnvNames<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for name in self.names() {
            name.hash(state);
        }
    }
}

/// The launch of the server at `index` of the report.
pub fn launch_key(server: &AuditedServer, index: usize) -> LaunchKey<'_> {
    match &server.spec.launch {
        Launch::Stdio(s) => LaunchKey::Stdio {
            command: &s.command,
            args: &s.args,
            cwd: s.cwd.as_deref(),
            env_names: EnvNames::of(&s.env),
        },
        Launch::Remote(r) => {
            // The headers as the pin line passes them (`${NAME}` whatever the
            // client's reference syntax); where a value is withheld or a name left
            // out, the values as written too, so different credentials stay apart.
            let printed = pin_headers(&server.spec);
            let keep_written = printed.unnamed > 0 || printed.headers.iter().any(|h| h.withheld);
            LaunchKey::Remote {
                url: &r.url,
                headers: RemoteHeaders {
                    printed,
                    written: keep_written.then_some((
                        r.headers.as_slice(),
                        server.spec.declared.headers.as_slice(),
                    )),
                },
            }
        }
        Launch::Nothing => LaunchKey::Unique(index),
    }
}

/// The hasher of every launch key hashed for naming, ahead ([`naming_input`]) or
/// while naming ([`Launches`]): one seed per process, so both hashes of a launch
/// agree. Seeded at random like every table's, so a config cannot choose launches
/// whose hashes collide.
static LAUNCH_HASHER: std::sync::LazyLock<foldhash::fast::RandomState> =
    std::sync::LazyLock::new(foldhash::fast::RandomState::default);

/// What naming needs of one server that depends on nothing else: the hash of its
/// launch key, and its slug. Worked out ahead (see [Worked out ahead](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamingInput {
    /// The hash of the launch key; `None` for a launch that starts nothing, whose key
    /// is the server's place in the report.
    launch_hash: Option<u64>,
    /// [`lock_slug`] of the name; `None` when that is the name itself (most names).
    slug: Option<Box<str>>,
}

/// The [`NamingInput`] of `server`.
pub fn naming_input(server: &AuditedServer) -> NamingInput {
    let launch_hash = match server.spec.launch {
        Launch::Nothing => None,
        // The place is part of the key only for a launch that starts nothing.
        _ => Some(LAUNCH_HASHER.hash_one(launch_key(server, 0))),
    };
    let name = server.name.as_str();
    let slug = if is_own_slug(name) && matches!(redacted(name), Cow::Borrowed(_)) {
        // What `lock_slug` answers for such a name, without making a copy to compare.
        None
    } else {
        let slug = lock_slug(name);
        (slug != name).then(|| slug.into_boxed_str())
    };
    NamingInput { launch_hash, slug }
}

/// Whether [`slug_of`] leaves `name` as it is: runs of `[a-z0-9]` joined by single
/// `-`, at most [`MAX_SLUG`] bytes (most names: `s0-1`, `github`). With nothing in
/// it redacted, such a name is its own [`lock_slug`].
fn is_own_slug(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_SLUG
        && b.first() != Some(&b'-')
        && b.last() != Some(&b'-')
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && !b.windows(2).any(|w| w == b"--")
}

/// The launches of a run's servers, each numbered in the order it first appears.
///
/// A table of the keys themselves (about 90 bytes each) was most of the fresh
/// memory naming touched on a large home, and fresh pages are expensive: the table
/// holds each launch's key hash and number instead (16 bytes), and a key is
/// compared with the key of the launch's first server, made again, when the hashes
/// agree. Two different launches with one 64-bit hash (the hasher is seeded per
/// process) are kept apart in a table of whole keys.
struct Launches<'s, S = foldhash::fast::RandomState> {
    hasher: S,
    /// Key hash → the first launch with that hash.
    by_hash: HashMap<u64, usize>,
    /// Launches whose key hash an earlier, different launch has.
    colliding: HashMap<LaunchKey<'s>, usize>,
    /// Each launch's first server, and its index in the report.
    first: Vec<(&'s AuditedServer, usize)>,
}

impl<'s> Launches<'s> {
    fn with_capacity(n: usize) -> Launches<'s> {
        Launches::with_hasher(n, LAUNCH_HASHER.clone())
    }
}

impl<'s, S: std::hash::BuildHasher> Launches<'s, S> {
    fn with_hasher(n: usize, hasher: S) -> Launches<'s, S> {
        Launches {
            hasher,
            by_hash: HashMap::with_capacity(n),
            colliding: HashMap::new(),
            first: Vec::with_capacity(n),
        }
    }

    /// The number of the launch of `server` (at `index` of the report), and whether
    /// it is a new one.
    fn number(&mut self, server: &'s AuditedServer, index: usize) -> (usize, bool) {
        self.number_hashed(server, index, None)
    }

    /// [`Self::number`], with the hash of the server's launch key when it was
    /// made ahead, by this table's hasher (`None`: made here).
    fn number_hashed(
        &mut self,
        server: &'s AuditedServer,
        index: usize,
        hash: Option<u64>,
    ) -> (usize, bool) {
        let key = || launch_key(server, index);
        let hash = hash.unwrap_or_else(|| self.hasher.hash_one(key()));
        let next = self.first.len();
        // One look-up: a new launch's hash is inserted where the search for it ended.
        let number = match self.by_hash.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(next);
                next
            }
            Entry::Occupied(slot) => {
                let n = *slot.get();
                let key = key();
                let same = self
                    .first
                    .get(n)
                    .is_some_and(|&(first, at)| launch_key(first, at) == key);
                if same {
                    n
                } else {
                    *self.colliding.entry(key).or_insert(next)
                }
            }
        };
        if number == next {
            self.first.push((server, index));
        }
        (number, number == next)
    }
}

/// Set `lock_name` for every uncovered server ([`Coverage::None`]), in report order,
/// and clear it for the others: servers of one launch ([`LaunchKey`]) share the
/// name the first of them gets (one shared [`LockName`], not a copy per server). A
/// name already given to another launch in this run, or for which
/// `exists_on_disk` returns true, is never reused. Call once; `doctor --pin`
/// writes exactly these names.
pub fn assign_lock_names(report: &mut Report, exists_on_disk: &dyn Fn(&str) -> bool) {
    decide_lock_names(report, exists_on_disk).write_into(report);
}

/// The lock names [`assign_lock_names`] gives a report's servers, decided over a
/// shared borrow of the report and not yet written into it: doctor decides them
/// while the approval join reads the same report on another core, and writes them
/// once both are done.
#[derive(Debug)]
pub struct LockNames {
    /// Each server's launch (an index into `names`), or `None` for a covered one.
    chosen: Vec<Option<usize>>,
    /// Each launch's name, in the order the launches first appear.
    names: Vec<LockName>,
}

/// Decide every server's lock name as [`assign_lock_names`] does. The report's
/// servers, their order and their coverage must not change before
/// [`LockNames::write_into`]; findings may (naming reads none).
pub fn decide_lock_names(report: &Report, exists_on_disk: &dyn Fn(&str) -> bool) -> LockNames {
    decide_lock_names_ahead(report, exists_on_disk, &|_| None)
}

/// [`decide_lock_names`], with the [`NamingInput`] of the server at each index
/// where `ahead` has it, worked out by [`naming_input`] for the same server (the
/// rest are worked out here). The names are the same.
pub fn decide_lock_names_ahead<'a>(
    report: &Report,
    exists_on_disk: &dyn Fn(&str) -> bool,
    ahead: &dyn Fn(usize) -> Option<&'a NamingInput>,
) -> LockNames {
    let mut namer = LockNamer::new(exists_on_disk);
    let uncovered = report.uncovered().count();
    namer.reserve(uncovered);
    let mut names: Vec<LockName> = Vec::new();
    let mut chosen: Vec<Option<usize>> = Vec::with_capacity(report.servers.len());
    // Sized for every uncovered server at once: a table grown by doubling touches
    // about twice the memory.
    let mut launches = Launches::with_capacity(uncovered);
    for (i, server) in report.servers.iter().enumerate() {
        chosen.push((server.coverage == Coverage::None).then(|| {
            let input = ahead(i);
            let hash = input.and_then(|input| input.launch_hash);
            let (launch, new) = launches.number_hashed(server, i, hash);
            if new {
                let slug = input.map(|input| input.slug.as_deref().unwrap_or(&server.name));
                names.push(namer.name_slugged(&server.name, slug));
            }
            launch
        }));
    }
    LockNames { chosen, names }
}

impl LockNames {
    /// Write the decided names into the servers they were decided for (see
    /// [`decide_lock_names`]).
    pub fn write_into(self, report: &mut Report) {
        debug_assert_eq!(self.chosen.len(), report.servers.len());
        let LockNames { chosen, names } = self;
        for (server, launch) in report.servers.iter_mut().zip(chosen) {
            server.lock_name = launch.and_then(|n| names.get(n).cloned());
        }
    }
}

/// One lock to pin: its name and the uncovered servers it covers, in report order.
/// A group of one server (the usual case: a launch in one config) holds no list.
pub struct LockGroup<'r> {
    pub lock: LockName,
    first: &'r AuditedServer,
    /// The servers after the first.
    rest: Vec<&'r AuditedServer>,
}

impl<'r> LockGroup<'r> {
    /// The server whose launch the pin line prints (every server of the group
    /// starts the same thing).
    pub fn first(&self) -> &'r AuditedServer {
        self.first
    }

    /// Every server of the group, in report order.
    pub fn servers(&self) -> impl Iterator<Item = &'r AuditedServer> + '_ {
        std::iter::once(self.first).chain(self.rest.iter().copied())
    }

    /// How many servers the group covers.
    pub fn server_count(&self) -> usize {
        1 + self.rest.len()
    }
}

/// The uncovered servers grouped by lock name, in the order each name first
/// appears: the assigned names, or, for servers the caller did not assign, names
/// computed like [`assign_lock_names`] would (without the disk check).
pub(crate) fn uncovered_groups<'r>(report: &'r Report) -> Vec<LockGroup<'r>> {
    let uncovered = report.uncovered().count();
    let all_named = report.uncovered().all(|s| s.lock_name.is_some());
    // Only servers the caller did not name need the namer (and the set of the
    // names it must avoid); doctor names every one.
    let assigned: HashSet<&str> = if all_named {
        HashSet::new()
    } else {
        report
            .uncovered()
            .filter_map(|s| s.lock_name.as_deref())
            .collect()
    };
    let is_assigned = |c: &str| assigned.contains(c);
    let mut namer = LockNamer::new(&is_assigned);
    let mut launches = Launches::with_capacity(0);
    let mut groups: Vec<LockGroup<'_>> = Vec::with_capacity(if all_named { uncovered } else { 0 });
    // The group of each assigned name, found by the name's text borrowed from the
    // report: no count taken and given back per server (an atomic write into each
    // name's allocation, and a second pass over every name to drop the map).
    // Servers named here are grouped by their launch: the namer gives each launch
    // one name that no other launch and no assigned name has.
    let mut group_of_name: HashMap<&'r str, usize> =
        HashMap::with_capacity(if all_named { uncovered } else { assigned.len() });
    let mut group_of_launch: Vec<usize> = Vec::new();
    for (i, s) in report.servers.iter().enumerate() {
        if s.coverage != Coverage::None {
            continue;
        }
        let group = match &s.lock_name {
            Some(name) => match group_of_name.entry(name) {
                Entry::Occupied(slot) => Some(*slot.get()),
                Entry::Vacant(slot) => {
                    slot.insert(groups.len());
                    None
                }
            },
            None => {
                let (launch, new) = launches.number(s, i);
                if new {
                    group_of_launch.push(groups.len());
                    None
                } else {
                    group_of_launch.get(launch).copied()
                }
            }
        };
        match group.and_then(|g| groups.get_mut(g)) {
            Some(group) => group.rest.push(s),
            None => {
                let lock = match &s.lock_name {
                    Some(name) => Arc::clone(name),
                    None => namer.name(&s.name),
                };
                groups.push(LockGroup {
                    lock,
                    first: s,
                    rest: Vec::new(),
                });
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::next_steps::tests::{report, server};

    /// An uncovered server of its own launch (its own URL).
    fn distinct(name: &str, i: usize) -> AuditedServer {
        let mut s = server(name, Coverage::None);
        s.spec = crate::model::ServerSpec::remote(&format!("https://h{i}.example.com/mcp"));
        s
    }

    #[test]
    fn slugs() {
        assert_eq!(lock_slug("My Server"), "my-server");
        assert_eq!(lock_slug("a/b"), "a-b");
        assert_eq!(lock_slug("gh#servers"), "gh-servers");
        assert_eq!(lock_slug("GitHub_MCP"), "github-mcp");
        assert_eq!(lock_slug(""), "server");
        assert_eq!(lock_slug("日本"), "server");
        assert_eq!(lock_slug("--x--"), "x");
        // A credential in the name never reaches the printed, committed file name.
        assert_eq!(
            lock_slug("gh-ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
            "gh-ghp-len-40"
        );
        assert_eq!(
            lock_slug("xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJabcd"),
            "xoxb-len-55"
        );
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
        // Lowercased per character exactly as the whole name would be (KELVIN SIGN
        // is `k`, a final sigma is not ASCII either way), and cut at 100 whatever
        // follows.
        for name in [
            "\u{212A}ey \u{03A3}x\u{03A3}",
            "İstanbul-Server",
            &format!("{}-tail", "x".repeat(150)),
            &format!("{}Z", "a-".repeat(50)),
        ] {
            let whole: String = name
                .to_lowercase()
                .chars()
                .map(|c| {
                    if c.is_ascii_lowercase() || c.is_ascii_digit() {
                        c
                    } else {
                        '-'
                    }
                })
                .collect();
            let mut squeezed = String::new();
            for c in whole.chars() {
                if c != '-' || !(squeezed.is_empty() || squeezed.ends_with('-')) {
                    squeezed.push(c);
                }
            }
            squeezed.truncate(100);
            let want = squeezed.trim_matches('-');
            assert_eq!(
                lock_slug(name),
                if want.is_empty() { "server" } else { want }
            );
        }
    }

    /// [`lock_slug`] as it read before it skipped the second scan: the slug of the
    /// redacted name, `server` when the slug itself reads as a credential.
    fn slug_scanned_twice(name: &str) -> String {
        let slug = slug_of(&redacted(name));
        if names_a_credential(&slug) {
            "server".to_string()
        } else {
            slug
        }
    }

    #[test]
    fn a_name_that_is_its_own_slug_is_scanned_once_with_the_same_answer() {
        let gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        let names = [
            "s0-1".to_string(),
            "github".to_string(),
            "my server".to_string(),
            gh.to_string(),
            gh.to_ascii_lowercase(),
            format!("x-{}", gh.to_ascii_lowercase().replace('_', "-")),
            "xoxb-123456789012-123456789012-abcdefghijabcdefghijabcd".to_string(),
            "akiaiosfodnn7examplq".to_string(),
            "AKIAIOSFODNN7EXAMPLQ".to_string(),
            "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789abcd".to_string(),
            "glpat-abcdefghij0123456789".to_string(),
            "password-hunter2".to_string(),
            "token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_string(),
            "a".repeat(150),
            String::new(),
        ];
        for name in &names {
            assert_eq!(lock_slug(name), slug_scanned_twice(name), "{name:?}");
        }
    }

    /// The remote key as it was spelled before it borrowed: the URL, then each
    /// printed header as `(text, "")` and, when a value is withheld or a name left
    /// out, each header as written.
    fn remote_key_spelled_out(server: &AuditedServer) -> (String, Vec<(String, String)>) {
        let Launch::Remote(r) = &server.spec.launch else {
            panic!("not remote");
        };
        let printed = pin_headers(&server.spec);
        let mut pairs: Vec<(String, String)> = printed
            .headers
            .iter()
            .map(|h| (h.text.clone(), String::new()))
            .collect();
        if printed.unnamed > 0 || printed.headers.iter().any(|h| h.withheld) {
            let declared = &server.spec.declared.headers;
            pairs.extend(r.headers.iter().enumerate().map(|(i, (k, v))| {
                let written = declared
                    .get(i)
                    .filter(|_| declared.len() <= r.headers.len())
                    .map_or(v, |(_, w)| w);
                (k.clone(), written.clone())
            }));
        }
        (r.url.clone(), pairs)
    }

    #[test]
    fn borrowed_remote_keys_compare_and_hash_as_the_spelled_out_ones() {
        use crate::reading::{Reader, Readers};
        let header_sets: Vec<Vec<(&str, &str)>> = vec![
            vec![],
            vec![("X-Api-Key", "${FM_KEY}")],
            vec![("X-Api-Key", "${env:FM_KEY}")],
            vec![("X-Api-Key", "literal-one")],
            vec![("X-Api-Key", "literal-two")],
            vec![("Authorization", "Bearer ${T}")],
            vec![("Authorization", "Bearer ${T}"), ("X-Trace", "on")],
            vec![("X-Trace", "on"), ("Authorization", "Bearer ${T}")],
            vec![("A B", "x")],
            vec![("A B", "y")],
            vec![("A B", "x"), ("X-Trace", "on")],
            // A printed header whose text equals a header as written.
            vec![("X-Trace: on", "")],
        ];
        let mut servers = Vec::new();
        for (i, headers) in header_sets.iter().enumerate() {
            for reader in [Reader::ClaudeCode, Reader::VsCode] {
                for url in ["https://a.example/mcp", "https://b.example/mcp"] {
                    let mut s = server(&format!("r{i}"), Coverage::None);
                    s.spec = crate::model::ServerSpec::remote(url).with_headers(
                        headers
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect(),
                    );
                    s.spec.origin.readers = Readers::of(&[reader]);
                    servers.push(s);
                }
            }
        }
        let hasher = foldhash::fast::RandomState::default();
        let keys: Vec<LaunchKey<'_>> = servers.iter().map(|s| launch_key(s, 0)).collect();
        let spelled: Vec<_> = servers.iter().map(remote_key_spelled_out).collect();
        let mut equal_pairs = 0;
        for (a, (ka, sa)) in keys.iter().zip(&spelled).enumerate() {
            for (b, (kb, sb)) in keys.iter().zip(&spelled).enumerate() {
                assert_eq!(ka == kb, sa == sb, "{a} {b}: {sa:?} {sb:?}");
                if ka == kb {
                    let h = |k: &LaunchKey<'_>| std::hash::BuildHasher::hash_one(&hasher, k);
                    assert_eq!(h(ka), h(kb));
                    equal_pairs += usize::from(a != b);
                }
            }
        }
        // `${env:FM_KEY}` (VS Code) and `${FM_KEY}` (Claude Code) print alike.
        assert!(equal_pairs > 0);
    }

    /// A hasher that gives every key the same hash: every launch after the first
    /// collides.
    #[derive(Default)]
    struct Constant;

    impl std::hash::Hasher for Constant {
        fn finish(&self) -> u64 {
            7
        }

        fn write(&mut self, _: &[u8]) {}
    }

    #[test]
    fn launches_are_numbered_as_a_table_of_whole_keys_numbers_them() {
        let mut servers = Vec::new();
        for i in 0..40 {
            let mut s = stdio(
                "memory",
                &["-y", &format!("pkg@1.{}", i % 7)],
                if i % 3 == 0 { &["A", "B"] } else { &["B", "A"] },
            );
            if i % 5 == 0 {
                s = distinct("remote", i % 4);
            }
            if i % 11 == 0 {
                s.spec = crate::model::ServerSpec::default();
            }
            servers.push(s);
        }
        fn numbers<'s, S: std::hash::BuildHasher>(
            servers: &'s [AuditedServer],
            mut launches: Launches<'s, S>,
        ) -> Vec<(usize, bool)> {
            servers
                .iter()
                .enumerate()
                .map(|(i, s)| launches.number(s, i))
                .collect()
        }
        let mut whole: HashMap<LaunchKey<'_>, usize> = HashMap::new();
        let expected: Vec<(usize, bool)> = servers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let next = whole.len();
                let n = *whole.entry(launch_key(s, i)).or_insert(next);
                (n, n == next)
            })
            .collect();
        assert_eq!(numbers(&servers, Launches::with_capacity(0)), expected);
        let colliding = std::hash::BuildHasherDefault::<Constant>::default();
        assert_eq!(
            numbers(&servers, Launches::with_hasher(4, colliding)),
            expected
        );
        // Shared launches are there to be found.
        assert!(expected.iter().filter(|(_, new)| !new).count() > 10);
    }

    fn names(r: &Report) -> Vec<Option<String>> {
        r.servers
            .iter()
            .map(|s| s.lock_name.as_deref().map(String::from))
            .collect()
    }

    /// A name [`is_own_slug`] accepts is its own slug, and one it refuses is not,
    /// over names of the bytes slugs are made of and the bytes they are not.
    #[test]
    fn own_slugs_are_the_names_slugging_leaves_alone() {
        let alphabet = ["a", "z", "0", "9", "-", "A", "_", " ", ".", "é"];
        let mut generated = crate::test_gen::Generated::new(0x9e37_79b9_7f4a_7c15);
        let mut own = 0;
        for _ in 0..20_000 {
            let mut name = generated.text(&alphabet, 7);
            if generated.below(50) == 0 {
                name = "a".repeat(MAX_SLUG - 1 + generated.below(3));
            }
            let is_own = slug_of(&name) == name;
            assert_eq!(is_own_slug(&name), is_own, "{name:?}");
            own += usize::from(is_own);
        }
        assert!(own > 1000, "{own} own slugs");
    }

    /// The names given with each server's [`NamingInput`] worked out ahead, for
    /// all, none or some of the servers, are the names given without.
    #[test]
    fn names_worked_out_ahead_are_the_names_worked_out_in_turn() {
        let token = format!("ghp_{}", "A1b2".repeat(9));
        let mut servers = Vec::new();
        for i in 0..60 {
            let name = match i % 6 {
                0 => "memory".to_string(),
                1 => "My Server".to_string(),
                2 => format!("gh {token}"),
                3 => format!("s{}", i % 4),
                4 => "--".to_string(),
                _ => format!("Ünïcode Sérver {}", i % 3),
            };
            let mut s = stdio(&name, &["-y", &format!("pkg@1.{}", i % 5)], &["B", "A"]);
            match i % 7 {
                0 => s.spec = crate::model::ServerSpec::default(),
                1 => s.spec = distinct(&name, i % 3).spec,
                _ => {}
            }
            if i % 13 == 0 {
                s.coverage = Coverage::Approved;
            }
            servers.push(s);
        }
        let mut r = report(servers);
        let on_disk = [
            "memory.warden.lock",
            "my-server.warden.lock",
            "server.warden.lock",
        ];
        let taken = |c: &str| on_disk.contains(&c);
        let inputs: Vec<NamingInput> = r.servers.iter().map(naming_input).collect();
        // The inputs are worth having: some slugs differ from their names.
        assert!(inputs.iter().any(|i| i.slug.is_some()));
        assert!(inputs.iter().any(|i| i.slug.is_none()));
        let in_turn = decide_lock_names(&r, &taken);
        let mut expected = r.clone();
        in_turn.write_into(&mut expected);
        let ahead_for: [&dyn Fn(usize) -> bool; 4] =
            [&|_| true, &|_| false, &|i| i % 2 == 0, &|i| i % 3 != 1];
        for (case, have) in ahead_for.iter().enumerate() {
            let ahead = |i: usize| inputs.get(i).filter(|_| have(i));
            decide_lock_names_ahead(&r, &taken, &ahead).write_into(&mut r);
            assert_eq!(names(&r), names(&expected), "case {case}");
        }
        assert!(names(&expected).iter().flatten().any(|n| n.contains('-')));
    }

    #[test]
    fn collision_in_run_gets_hash_suffix() {
        let mut r = report(vec![distinct("a/b", 0), distinct("a-b", 1)]);
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
            servers.push(distinct(if i % 7 == 3 { "GH" } else { "gh" }, i));
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
        let mut r = report(vec![distinct("a-b", 0), distinct("a/b", 1)]);
        r.servers[0].lock_name = Some("a-b.warden.lock".into());
        let got: Vec<String> = uncovered_groups(&r)
            .into_iter()
            .map(|g| g.lock.to_string())
            .collect();
        assert_eq!(got[0], "a-b.warden.lock");
        assert_eq!(
            got[1],
            format!("a-b-{}.warden.lock", &sha256_hex("a/b")[..6])
        );
    }

    /// Groups hold to what they are, on reports where some uncovered servers carry
    /// a name (equal names in separate allocations) and the rest are named for
    /// printing: every uncovered server in one group, groups in the order of their
    /// first server and servers in report order; named servers together exactly
    /// when their names are equal, unnamed ones exactly when their launches are; no
    /// two groups of one name, and no printed name that a named server has.
    #[test]
    fn groups_are_equal_names_and_equal_launches_in_report_order() {
        let mut gen = crate::test_gen::Generated::new(0x9e37_79b9_7f4a_7c15);
        let names = ["memory", "My Server", "a-b", "a/b", "x"];
        let assigned = ["memory.warden.lock", "a-b.warden.lock", "x-1.warden.lock"];
        for round in 0..200 {
            let servers: Vec<AuditedServer> = (0..gen.below(24))
                .map(|_| {
                    let name = *gen.pick(&names);
                    let mut s = match gen.below(3) {
                        0 => stdio(name, &["-y", *gen.pick(&["p@1", "p@2"])], &[]),
                        1 => distinct(name, gen.below(2)),
                        _ => stdio(name, &["-y", "p@1"], &["TOKEN"]),
                    };
                    if gen.below(5) == 0 {
                        // Covered: named by no one (as `assign_lock_names` leaves it).
                        s.coverage = Coverage::Approved;
                    } else if gen.below(2) == 0 {
                        // A fresh allocation for every server: equal text, not one name.
                        s.lock_name = Some(Arc::from(*gen.pick(&assigned)));
                    }
                    s
                })
                .collect();
            let r = report(servers);
            let groups = uncovered_groups(&r);
            let index = |s: &AuditedServer| {
                r.servers
                    .iter()
                    .position(|t| std::ptr::eq(t, s))
                    .unwrap_or(usize::MAX)
            };
            let members: Vec<Vec<usize>> = groups
                .iter()
                .map(|g| g.servers().map(index).collect())
                .collect();
            let mut flat: Vec<usize> = members.iter().flatten().copied().collect();
            let firsts: Vec<usize> = members.iter().map(|m| m[0]).collect();
            assert!(firsts.windows(2).all(|w| w[0] < w[1]), "round {round}");
            assert!(members.iter().all(|m| m.windows(2).all(|w| w[0] < w[1])));
            flat.sort_unstable();
            let uncovered: Vec<usize> = (0..r.servers.len())
                .filter(|&i| r.servers[i].coverage == Coverage::None)
                .collect();
            assert_eq!(flat, uncovered, "round {round}");
            let group_of = |i: usize| members.iter().position(|m| m.contains(&i));
            for &i in &uncovered {
                for &j in &uncovered {
                    let (a, b) = (&r.servers[i], &r.servers[j]);
                    let together = match (&a.lock_name, &b.lock_name) {
                        (Some(x), Some(y)) => x == y,
                        (None, None) => launch_key(a, i) == launch_key(b, j),
                        _ => false,
                    };
                    assert_eq!(group_of(i) == group_of(j), together, "round {round}");
                }
            }
            let locks: HashSet<&str> = groups.iter().map(|g| &*g.lock).collect();
            assert_eq!(locks.len(), groups.len(), "round {round}");
            for g in &groups {
                let printed_for_unnamed = g.first().lock_name.is_none();
                let assigned_somewhere = r
                    .servers
                    .iter()
                    .any(|s| s.lock_name == Some(g.lock.clone()));
                assert!(
                    !(printed_for_unnamed && assigned_somewhere),
                    "round {round}"
                );
            }
        }
    }

    fn stdio(name: &str, args: &[&str], env: &[&str]) -> AuditedServer {
        let mut s = server(name, Coverage::None);
        s.spec = crate::model::ServerSpec::stdio("npx", args).with_env(
            env.iter()
                .map(|k| (k.to_string(), format!("value of {k} in {name}")))
                .collect(),
        );
        s
    }

    #[test]
    fn one_launch_in_nine_projects_is_one_lock() {
        let mut servers: Vec<AuditedServer> = (0..9)
            .map(|i| {
                let mut s = stdio("memory", &["-y", "pkg@1.2.3"], &["TOKEN", "DEBUG"]);
                s.target = format!("~/.claude.json#projects[/p{i}]#memory").into();
                s
            })
            .collect();
        // The same launch under another name, and with the env names in another order.
        servers.push(stdio("mem", &["-y", "pkg@1.2.3"], &["DEBUG", "TOKEN"]));
        // Near misses: each is its own launch.
        servers.push(stdio("memory", &["-y", "pkg@1.2.4"], &["TOKEN", "DEBUG"]));
        servers.push(stdio("memory", &["-y", "pkg@1.2.3"], &["TOKEN"]));
        servers.push(stdio(
            "memory",
            &["-y", "pkg@1.2.3", ""],
            &["TOKEN", "DEBUG"],
        ));
        let with_header = |v: &str| {
            let mut s = server("remote", Coverage::None);
            s.spec = crate::model::ServerSpec::remote("https://h.example.com/mcp")
                .with_headers(vec![("X-Api-Key".into(), v.into())]);
            s
        };
        servers.push(with_header("${A}"));
        servers.push(with_header("${A}"));
        servers.push(with_header("${B}"));
        servers.push(server("remote", Coverage::None));
        let nothing = |name: &str| {
            let mut s = server(name, Coverage::None);
            s.spec = crate::model::ServerSpec::default();
            s
        };
        servers.push(nothing("x"));
        servers.push(nothing("x"));
        let mut r = report(servers);
        assign_lock_names(&mut r, &|_| false);
        let groups = uncovered_groups(&r);
        let sizes: Vec<(String, usize)> = groups
            .iter()
            .map(|g| (g.lock.to_string(), g.server_count()))
            .collect();
        let h = |n: &str| sha256_hex(n)[..6].to_string();
        assert_eq!(
            sizes,
            [
                ("memory.warden.lock".to_string(), 10),
                (format!("memory-{}.warden.lock", h("memory")), 1),
                (
                    format!("memory-{}.warden.lock", &sha256_hex("memory")[..7]),
                    1
                ),
                (
                    format!("memory-{}.warden.lock", &sha256_hex("memory")[..8]),
                    1
                ),
                ("remote.warden.lock".to_string(), 2),
                (format!("remote-{}.warden.lock", h("remote")), 1),
                (
                    format!("remote-{}.warden.lock", &sha256_hex("remote")[..7]),
                    1
                ),
                ("x.warden.lock".to_string(), 1),
                (format!("x-{}.warden.lock", h("x")), 1),
            ]
        );
        // Every uncovered server has a name; distinct launches never share one.
        let distinct: HashSet<&str> = groups.iter().map(|g| &*g.lock).collect();
        assert_eq!(distinct.len(), groups.len());
        // Stable: the same report names the same way again.
        let before = names(&r);
        assign_lock_names(&mut r, &|_| false);
        assert_eq!(names(&r), before);
    }
}
