//! WRD-CLIENT-*: client settings that let a server start, or its tools run, without
//! asking the user.
//!
//! This module owns the one join between settings and servers ([`Join`]): which
//! settings a Claude Code session reads, and what Claude Code decides for a project
//! (`.mcp.json`) server from them ([`project_status`] for the session in cwd, which
//! the effective view (`crate::parent::effective`) shows; any session for the
//! findings). Pure over a [`Report`]: no I/O.
//!
//! A session is a directory Claude Code starts in. It reads the user, system and
//! managed settings, the `.claude/settings.json` and `.claude/settings.local.json` of
//! its own directory only, and the `~/.claude.json` `projects[<key>]` of the longest
//! key it is in; it loads the `.mcp.json` of its directory and every one above.
//! Claude Code's order (`getProjectMcpServerStatus`, docs/clients.md): a name in
//! `disabledMcpjsonServers` is rejected whatever else says; else a name in
//! `enabledMcpjsonServers`, or `enableAllProjectMcpServers: true`, approves it; else
//! the user is asked. Lists are merged across the session's settings files; for
//! `enableAllProjectMcpServers` the file of the highest layer (managed over local
//! over project over user) that sets it decides. Names compare exactly (JavaScript
//! `includes`: no case folding, no Unicode normalisation).
//!
//! Targets: each project server a setting approves in some session (cwd's first; the
//! message names any other). An `enableAllProjectMcpServers: true` credited to no
//! server is reported at the setting itself when it is the user, managed or system
//! value that wins (it approves the servers of every project cloned later; one a
//! higher setting overrides everywhere approves nothing), or a project setting under
//! which no `.mcp.json` server was discovered.

use crate::hash::HashMap;
use crate::hash::{HashMapExt, HashSetExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::{
    AuditedServer, EngineFinding, FieldPath, Finding, Layer, Position, Report, SettingFinding,
    Source,
};
use crate::protocol::SettingValue;
use crate::reading::Reader;
use crate::rules::RuleId;
use crate::text::safe_text::safe_text_capped;

/// Most tool names a message lists before "and N more".
const LISTED_TOOLS: usize = 8;
/// Longest tool name a message shows.
const TOOL_NAME_CAP: usize = 40;

/// Where a setting is: the source it is in and the position of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingAt {
    /// Index into [`Report::sources`].
    pub source: usize,
    pub line: u32,
    pub column: u32,
    /// The setting's key as Claude Code spells it.
    pub key: &'static str,
}

impl SettingAt {
    /// Where `setting` of the source at `source` is, named by `key`.
    pub fn of(source: usize, setting: &crate::protocol::ClientSetting, key: &'static str) -> Self {
        SettingAt {
            source,
            line: setting.line,
            column: setting.column,
            key,
        }
    }
}

/// What Claude Code decides for a project (`.mcp.json`) server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectStatus {
    /// Starts without a prompt; the settings that approve it.
    Approved(Vec<SettingAt>),
    /// Listed in `disabledMcpjsonServers`: never started.
    Rejected(SettingAt),
    /// Nothing decides: Claude Code asks before starting it.
    Pending,
}

/// Whether the settings of `setting` apply in some session that loads the servers
/// of `server`: a user, system or managed settings file applies to every project;
/// a project's settings file (or `~/.claude.json` `projects[<path>]`) to sessions in
/// that directory, which load the `.mcp.json` of that directory and of every
/// directory above it, and every user-level server.
pub fn applies(setting: &Source, server: &Source) -> bool {
    match (&setting.project_dir, &server.project_dir) {
        (None, _) | (Some(_), None) => true,
        (Some(session), Some(project)) => session.starts_with(project),
    }
}

/// Claude Code reads the server (a `.mcp.json` or `~/.claude.json` entry).
fn read_by_claude_code(server: &AuditedServer) -> bool {
    server
        .spec
        .origin
        .readers
        .iter()
        .any(|r| r == Reader::ClaudeCode)
}

/// A server of a project `.mcp.json` for Claude Code: a file of a project directory
/// (not a `~/.claude.json` `projects[<path>]` section, which is the user's own).
pub fn is_project_server(report: &Report, server: &AuditedServer) -> bool {
    read_by_claude_code(server)
        && server.spec.origin.key.project.is_none()
        && report
            .sources
            .get(server.source)
            .is_some_and(|s| s.project_dir.is_some() && s.layer != Layer::Local)
}

/// A `~/.claude.json` `projects[<path>]` section (not a `.claude/settings.local.json`,
/// which shares its layer): the label doctor gives a section ends with its key.
pub fn is_project_section(source: &Source) -> bool {
    source.project_dir.as_deref().is_some_and(|key| {
        source
            .label
            .strip_suffix(']')
            .and_then(|l| l.strip_suffix(key.to_string_lossy().as_ref()))
            .is_some_and(|l| l.ends_with("#projects["))
    })
}

/// How strongly a settings layer binds (`enableAllProjectMcpServers`).
fn rank(layer: Layer) -> u8 {
    match layer {
        Layer::Managed => 5,
        Layer::Local => 4,
        Layer::Project => 3,
        Layer::Explicit => 2,
        Layer::User => 1,
        Layer::System => 0,
    }
}

/// A setting that can change a decision: an empty list (Claude Code writes
/// `enabledMcpjsonServers: []` and the like into every project it records) cannot.
fn decides(value: &SettingValue) -> bool {
    match value {
        SettingValue::EnableAllProjectServers(_) => true,
        SettingValue::EnabledProjectServers(names)
        | SettingValue::DisabledProjectServers(names)
        | SettingValue::DisabledServers(names)
        | SettingValue::AllowedTools(names) => !names.is_empty(),
        SettingValue::DiscoveryImport(sources) | SettingValue::ToolsAutoApprove(sources) => {
            !sources.is_empty()
        }
        SettingValue::AllowedServers(names) | SettingValue::ExcludedServers(names) => {
            !names.is_empty()
        }
    }
}

/// A setting Claude Code's project-server decision or tool permissions read.
fn is_claude_code_setting(value: &SettingValue) -> bool {
    matches!(
        value,
        SettingValue::EnableAllProjectServers(_)
            | SettingValue::EnabledProjectServers(_)
            | SettingValue::DisabledProjectServers(_)
            | SettingValue::AllowedTools(_)
    )
}

/// The `enableAllProjectMcpServers` that wins: `(rank, source, where, value)`.
type EnableAll = (u8, usize, SettingAt, bool);

/// The higher of two `enableAllProjectMcpServers` (the later file on a tie).
fn higher(a: Option<EnableAll>, b: Option<EnableAll>) -> Option<EnableAll> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if (y.0, y.1) > (x.0, x.1) { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// What a set of settings files decides, by server name.
#[derive(Debug, Default)]
struct Decisions {
    /// The first `disabledMcpjsonServers` listing of each name.
    rejected: HashMap<String, SettingAt>,
    /// Every `enabledMcpjsonServers` listing of each name.
    enabled: HashMap<String, Vec<SettingAt>>,
    /// The `enableAllProjectMcpServers` of the highest layer (the later file on a tie).
    enable_all: Option<EnableAll>,
    /// `permissions.allow` entries that name MCP tools, sorted (see [`Self::finish`]).
    allowed: Vec<String>,
}

impl Decisions {
    /// Whether these settings decide nothing.
    fn is_empty(&self) -> bool {
        let Decisions {
            rejected,
            enabled,
            enable_all,
            allowed,
        } = self;
        rejected.is_empty() && enabled.is_empty() && enable_all.is_none() && allowed.is_empty()
    }

    /// Sort the `permissions.allow` entries, so the entries of one server are found
    /// by binary search ([`Self::allowing`]) rather than by a pass per server: a
    /// `.mcp.json` with tens of thousands of servers and a list of thousands of
    /// entries would otherwise cost their product.
    fn finish(&mut self) {
        self.allowed.sort_unstable();
        self.allowed.dedup();
    }

    /// The entries `mcp__<name>` and `mcp__<name>__…` for `prefix` = `mcp__<name>`.
    fn allowing<'d>(&'d self, prefix: &str) -> impl Iterator<Item = &'d String> + 'd {
        let exact = self
            .allowed
            .binary_search_by(|e| e.as_str().cmp(prefix))
            .ok()
            .map(|i| &self.allowed[i]);
        let below = format!("{prefix}__");
        let start = self
            .allowed
            .partition_point(|e| e.as_str() < below.as_str());
        exact.into_iter().chain(
            self.allowed[start..]
                .iter()
                .take_while(move |e| e.starts_with(below.as_str())),
        )
    }

    fn add(&mut self, source_index: usize, source: &Source) {
        for setting in &source.settings {
            let at = |key| SettingAt::of(source_index, setting, key);
            match &setting.value {
                SettingValue::DisabledProjectServers(names) => {
                    for name in names {
                        self.rejected
                            .entry(name.clone())
                            .or_insert_with(|| at("disabledMcpjsonServers"));
                    }
                }
                SettingValue::EnabledProjectServers(names) => {
                    for name in names {
                        self.enabled
                            .entry(name.clone())
                            .or_default()
                            .push(at("enabledMcpjsonServers"));
                    }
                }
                SettingValue::EnableAllProjectServers(on) => {
                    let here = (
                        rank(source.layer),
                        source_index,
                        at("enableAllProjectMcpServers"),
                        *on,
                    );
                    self.enable_all = higher(self.enable_all, Some(here));
                }
                SettingValue::AllowedTools(entries) => self.allowed.extend(entries.iter().cloned()),
                // Not Claude Code's: reported at the setting (VS Code) or applied by
                // the effective view (Gemini CLI's server lists, `disabledMcpServers`).
                SettingValue::DisabledServers(_)
                | SettingValue::DiscoveryImport(_)
                | SettingValue::ToolsAutoApprove(_)
                | SettingValue::AllowedServers(_)
                | SettingValue::ExcludedServers(_) => {}
            }
        }
    }
}

/// One Claude Code session: a directory Claude Code could be started in, and the
/// settings only a session there reads (its `.claude/settings.json` and
/// `.claude/settings.local.json`, and its `~/.claude.json` `projects[<path>]`).
///
/// A `~/.claude.json` of tens of thousands of project sections is a session each,
/// most with no settings of their own and with `dir` its own key: such a session
/// holds its directory once and no decisions (a session was about 200 bytes and two
/// copies of its path, 14 MiB of the parent's peak on a file of 35,000 sections).
#[derive(Debug)]
struct Session {
    dir: PathBuf,
    /// The `projects[<path>]` key of the session: the longest key `dir` is in.
    section: SessionKey,
    /// What the session's own settings decide; `None` when they decide nothing.
    own: Option<Box<Decisions>>,
}

/// Where a session's `projects[<path>]` key is.
#[derive(Debug)]
enum SessionKey {
    /// No key holds the session's directory.
    None,
    /// The directory, as spelled, is the key (a section's own session).
    Dir,
    /// A key above the directory, or spelled otherwise.
    Other(PathBuf),
}

impl Session {
    /// The `projects[<path>]` key of the session, as its section spells it.
    fn section(&self) -> Option<&Path> {
        match &self.section {
            SessionKey::None => None,
            SessionKey::Dir => Some(&self.dir),
            SessionKey::Other(key) => Some(key),
        }
    }

    /// What the session's own settings decide (nothing, for most).
    fn own(&self) -> &Decisions {
        static NOTHING: std::sync::LazyLock<Decisions> =
            std::sync::LazyLock::new(Decisions::default);
        self.own.as_deref().unwrap_or(&NOTHING)
    }
}

/// The settings/servers join, built once per report. Claude Code merges the settings
/// of one session (one directory) before it decides, so decisions are per session:
/// the session doctor ran in ([`Report::cwd`], which `doctor --servers` shows) and
/// every other directory a project settings file or a `projects[<path>]` section
/// belongs to (a finding fires when a server starts unasked in any of them). A
/// `~/.claude.json` can hold tens of thousands of project sections and a `.mcp.json`
/// tens of thousands of servers, so nothing here is computed per (server, setting)
/// or per (server, session) pair: each server costs the sessions that reject it.
pub struct Join {
    /// Sources with at least one setting that `decides` anything.
    pub settings: Vec<usize>,
    /// The user, system, managed (and unplaced `--config`) settings: every session's.
    global: Decisions,
    /// Index 0 is the session in [`Report::cwd`].
    sessions: Vec<Session>,
    /// For each home of a project server (a source index): the sessions that load
    /// it (cwd's first) and those of them where `enableAllProjectMcpServers` is on.
    homes: HashMap<usize, (Vec<usize>, Vec<usize>)>,
    /// Sessions whose own settings enable a name, by name.
    enabled_in: HashMap<String, Vec<usize>>,
    /// Sessions with `permissions.allow` entries of their own.
    allowing: Vec<usize>,
}

/// The `projects[<path>]` section keys, each with its sections (every copy of a
/// key), in the order of each key's first section.
struct SectionKeys<'r> {
    keys: Vec<(&'r Path, Vec<usize>)>,
    /// Key → its place in `keys`.
    index: HashMap<&'r Path, usize>,
}

impl<'r> SectionKeys<'r> {
    /// Sized once (for at most `n` keys): grown by doubling, the table of a large
    /// home's keys was rehashed a dozen times.
    fn with_capacity(n: usize) -> SectionKeys<'r> {
        SectionKeys {
            keys: Vec::with_capacity(n),
            index: HashMap::with_capacity(n),
        }
    }

    fn add(&mut self, key: &'r Path, section: usize) {
        match self.index.entry(key) {
            std::collections::hash_map::Entry::Occupied(at) => {
                if let Some((_, list)) = self.keys.get_mut(*at.get()) {
                    list.push(section);
                }
            }
            std::collections::hash_map::Entry::Vacant(at) => {
                at.insert(self.keys.len());
                self.keys.push((key, vec![section]));
            }
        }
    }

    /// The key equal to `dir` as a path, as the first section spelled it, and its
    /// sections.
    fn get_key_value(&self, dir: &Path) -> Option<(&'r Path, &[usize])> {
        let (key, list) = self.keys.get(*self.index.get(dir)?)?;
        Some((*key, list.as_slice()))
    }
}

/// A directory a session may start in, with the sources only a session there
/// reads: the settings files of the directory itself, and its `projects[<path>]`
/// key (the longest key `dir` is in) with that key's sections.
struct Candidate<'r> {
    dir: &'r Path,
    files: Option<&'r [usize]>,
    section: Option<(&'r Path, &'r [usize])>,
}

impl<'r> Candidate<'r> {
    /// `dir`'s lists, looked up in the maps of settings files and sections by
    /// directory: what the directories that are not a section's key need.
    fn look_up(
        dir: &'r Path,
        files: &'r HashMap<&'r Path, Vec<usize>>,
        sections: &'r SectionKeys<'r>,
    ) -> Candidate<'r> {
        Candidate {
            dir,
            files: files.get(dir).map(Vec::as_slice),
            // The key as `dir` spells it (a key equal as a path may be spelled
            // with a trailing `/`).
            section: dir.ancestors().find_map(|a| {
                sections
                    .get_key_value(a)
                    .map(|(_, in_section)| (a, in_section))
            }),
        }
    }
}

impl Join {
    pub fn new(report: &Report) -> Join {
        // One pass over the sources (a `~/.claude.json` can hold tens of thousands of
        // project sections, each a source read here for the first time on this
        // thread): those with a setting that `decides` anything, whether each is a
        // `projects[<path>]` section (the test compares the label with the key), and
        // the sections by key.
        let mut settings: Vec<usize> = Vec::new();
        let mut section_source: Vec<bool> = Vec::with_capacity(report.sources.len());
        let mut sections = SectionKeys::with_capacity(report.sources.len());
        for (i, source) in report.sources.iter().enumerate() {
            if source.settings.iter().any(|s| decides(&s.value)) {
                settings.push(i);
            }
            let section = is_project_section(source);
            section_source.push(section);
            if let (true, Some(dir)) = (section, source.project_dir.as_deref()) {
                sections.add(dir, i);
            }
        }
        let mut global = Decisions::default();
        // Session-specific settings by directory: project settings files by their
        // directory (`sections` has the sections by key).
        let mut files: HashMap<&Path, Vec<usize>> = HashMap::new();
        for &i in &settings {
            let source = &report.sources[i];
            if !source
                .settings
                .iter()
                .any(|s| is_claude_code_setting(&s.value))
            {
                continue;
            }
            match source.project_dir.as_deref() {
                None => global.add(i, source),
                Some(dir) if !section_source[i] => files.entry(dir).or_default().push(i),
                Some(_) => {}
            }
        }
        global.finish();
        // Candidate sessions: cwd, then every directory settings belong to, then the
        // directory of each project `.mcp.json` (a session there loads it, also when
        // it is a `--config` file outside cwd's walk-up).
        let mut homes_dirs: Vec<&Path> = Vec::new();
        let mut last_home = None;
        for server in &report.servers {
            if last_home == Some(server.source) || !is_project_server(report, server) {
                continue;
            }
            last_home = Some(server.source);
            if let Some(dir) = report
                .sources
                .get(server.source)
                .and_then(|s| s.project_dir.as_deref())
            {
                homes_dirs.push(dir);
            }
        }
        let cwd = report.cwd.as_path();
        // Keep the order stable (report order of the sources) for witnesses: each
        // directory by its first source, a settings file's before a section's. The
        // section keys are in that order already, and each comes with its list (a
        // key is the longest key its directory is in), so a `~/.claude.json` with
        // tens of thousands of sections is neither sorted nor looked up again; the
        // directories of settings files, few, are sorted and merged in. A directory
        // with both is spelled as the key, and ordered by its first settings file.
        let mut by_files: Vec<(usize, Candidate<'_>)> = files
            .iter()
            .filter(|&(&dir, _)| dir != cwd)
            .map(|(&dir, in_files)| {
                let first = in_files.first().copied().unwrap_or(usize::MAX);
                let candidate = match sections.get_key_value(dir) {
                    Some((key, in_section)) => Candidate {
                        dir: key,
                        files: Some(in_files),
                        section: Some((key, in_section)),
                    },
                    None => Candidate::look_up(dir, &files, &sections),
                };
                (first, candidate)
            })
            .collect();
        by_files.sort_by_key(|&(first, _)| first);
        let mut by_files = by_files.into_iter().peekable();
        let mut dirs: Vec<Candidate<'_>> =
            Vec::with_capacity(1 + sections.keys.len() + files.len() + homes_dirs.len());
        dirs.push(Candidate::look_up(cwd, &files, &sections));
        // Found once, not compared with every key.
        let cwd_key = sections.index.get(cwd).copied();
        for (k, (key, in_section)) in sections.keys.iter().enumerate() {
            if Some(k) == cwd_key || files.contains_key(key) {
                continue;
            }
            let first = in_section.first().copied().unwrap_or(usize::MAX);
            while let Some((_, candidate)) = by_files.next_if(|&(f, _)| f < first) {
                dirs.push(candidate);
            }
            dirs.push(Candidate {
                dir: key,
                files: None,
                section: Some((key, in_section)),
            });
        }
        dirs.extend(by_files.map(|(_, candidate)| candidate));
        let mut homes_seen: crate::hash::HashSet<&Path> = crate::hash::HashSet::new();
        for dir in homes_dirs {
            let known = dir == cwd || sections.index.contains_key(dir) || files.contains_key(dir);
            if !known && homes_seen.insert(dir) {
                dirs.push(Candidate::look_up(dir, &files, &sections));
            }
        }
        let sessions: Vec<Session> = dirs
            .into_iter()
            .map(|candidate| {
                let mut own = Decisions::default();
                // Claude Code reads a session's settings files from its own
                // directory only, and one `projects[<key>]` (every copy of a key).
                for &i in candidate.files.into_iter().flatten() {
                    own.add(i, &report.sources[i]);
                }
                for &i in candidate.section.into_iter().flat_map(|(_, list)| list) {
                    own.add(i, &report.sources[i]);
                }
                own.finish();
                Session {
                    dir: candidate.dir.to_path_buf(),
                    section: match candidate.section {
                        None => SessionKey::None,
                        Some((key, _)) if key.as_os_str() == candidate.dir.as_os_str() => {
                            SessionKey::Dir
                        }
                        Some((key, _)) => SessionKey::Other(key.to_path_buf()),
                    },
                    own: (!own.is_empty()).then(|| Box::new(own)),
                }
            })
            .collect();
        let mut homes: HashMap<usize, (Vec<usize>, Vec<usize>)> = HashMap::new();
        for server in &report.servers {
            if homes.contains_key(&server.source) || !is_project_server(report, server) {
                continue;
            }
            let Some(project) = report
                .sources
                .get(server.source)
                .and_then(|s| s.project_dir.as_deref())
            else {
                continue;
            };
            let loading: Vec<usize> = (0..sessions.len())
                .filter(|&s| sessions[s].dir.starts_with(project))
                .collect();
            let enable_all: Vec<usize> = loading
                .iter()
                .copied()
                .filter(|&s| {
                    higher(global.enable_all, sessions[s].own().enable_all).is_some_and(|e| e.3)
                })
                .collect();
            homes.insert(server.source, (loading, enable_all));
        }
        let mut enabled_in: HashMap<String, Vec<usize>> = HashMap::new();
        for (s, session) in sessions.iter().enumerate() {
            for name in session.own().enabled.keys() {
                enabled_in.entry(name.clone()).or_default().push(s);
            }
        }
        let allowing = (0..sessions.len())
            .filter(|&s| !sessions[s].own().allowed.is_empty())
            .collect();
        Join {
            settings,
            global,
            sessions,
            homes,
            enabled_in,
            allowing,
        }
    }

    /// The `projects[<path>]` key of the session in cwd.
    pub fn cwd_section(&self) -> Option<&Path> {
        self.sessions.first().and_then(Session::section)
    }

    /// Whether the session loads the servers of `home`.
    fn loads(&self, session: usize, home: &Source) -> bool {
        let Some(s) = self.sessions.get(session) else {
            return false;
        };
        match home.project_dir.as_deref() {
            None => true,
            Some(key) if is_project_section(home) => s.section() == Some(key),
            Some(project) => s.dir.starts_with(project),
        }
    }

    /// Claude Code's decision for `name` in one session.
    fn status_in(&self, session: usize, name: &str) -> ProjectStatus {
        let own = self.sessions.get(session).map(Session::own);
        if let Some(at) = self
            .global
            .rejected
            .get(name)
            .or_else(|| own.and_then(|o| o.rejected.get(name)))
        {
            return ProjectStatus::Rejected(*at);
        }
        let mut approvals: Vec<SettingAt> = Vec::new();
        for decided in std::iter::once(&self.global).chain(own) {
            approvals.extend(decided.enabled.get(name).into_iter().flatten().copied());
        }
        if let Some((_, _, at, true)) =
            higher(self.global.enable_all, own.and_then(|o| o.enable_all))
        {
            approvals.push(at);
        }
        if approvals.is_empty() {
            ProjectStatus::Pending
        } else {
            ProjectStatus::Approved(approvals)
        }
    }

    fn rejects_own(&self, session: usize, name: &str) -> bool {
        self.sessions
            .get(session)
            .is_some_and(|s| s.own().rejected.contains_key(name))
    }

    /// A session that starts `server` (a project server) without a prompt, cwd's
    /// first, and the settings that approve it there. Each candidate skipped rejects
    /// the name, so a server costs at most the sessions that reject it.
    fn approving_session(&self, server: &AuditedServer) -> Option<(usize, Vec<SettingAt>)> {
        let name = server.spec.origin.key.name.as_str();
        if self.global.rejected.contains_key(name) {
            return None;
        }
        let (loading, enable_all) = self.homes.get(&server.source)?;
        let approved = |s: usize| match self.status_in(s, name) {
            ProjectStatus::Approved(by) => Some((s, by)),
            _ => None,
        };
        if loading.first() == Some(&0) {
            if let Some(found) = approved(0) {
                return Some(found);
            }
        }
        let first_not_rejecting =
            |list: &[usize]| list.iter().copied().find(|&s| !self.rejects_own(s, name));
        if let Some(enabling) = self.enabled_in.get(name) {
            if let Some(s) = enabling
                .iter()
                .copied()
                .find(|&s| !self.rejects_own(s, name) && loading.binary_search(&s).is_ok())
            {
                return approved(s);
            }
        }
        if self.global.enabled.contains_key(name) {
            if let Some(s) = first_not_rejecting(loading) {
                return approved(s);
            }
        }
        first_not_rejecting(enable_all).and_then(approved)
    }
}

/// Claude Code's decision for a project server in the session in cwd (`None` for
/// any other server): what `doctor --servers` shows.
pub fn project_status(
    report: &Report,
    join: &Join,
    server: &AuditedServer,
) -> Option<ProjectStatus> {
    if !is_project_server(report, server) {
        return None;
    }
    Some(join.status_in(0, server.spec.origin.key.name.as_str()))
}

/// `label:line` of a setting, for messages.
fn place(report: &Report, at: &SettingAt) -> String {
    let label = report
        .sources
        .get(at.source)
        .map_or("", |s| s.label.as_str());
    format!("{} in {label}:{}", at.key, at.line)
}

/// `a, b, c and 4 more`, each name neutralised and capped.
fn tool_list(tools: &[String]) -> String {
    let mut shown: Vec<String> = tools
        .iter()
        .take(LISTED_TOOLS)
        .map(|t| safe_text_capped(t, TOOL_NAME_CAP))
        .collect();
    if tools.len() > LISTED_TOOLS {
        shown.push(format!("and {} more", tools.len() - LISTED_TOOLS));
    }
    shown.join(", ")
}

/// `write_file`, or `12 tools (a, b, … and 4 more)`: the count comes first, so a
/// message cut to its display cap still says how many tools run unasked.
fn counted_tools(tools: &[String]) -> String {
    match tools {
        [one] => safe_text_capped(one, TOOL_NAME_CAP),
        _ => format!("{} tools ({})", tools.len(), tool_list(tools)),
    }
}

/// The name Claude Code gives a server in tool names (`mcp__<name>__<tool>`,
/// `normalizeNameForMCP` in its `services/mcp/normalization.ts`): every UTF-16 code
/// unit but ASCII letters, digits, `_` and `-` becomes `_` (so a character outside
/// the BMP becomes two).
fn tool_prefix_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    out
}

/// The `permissions.allow` entries that let this server's tools run unasked: `mcp__<name>`,
/// `mcp__<name>__*`, `mcp__<name>__<tool>`.
fn allowed_tools(report: &Report, join: &Join, server: &AuditedServer) -> Vec<String> {
    // No `permissions.allow` entry anywhere (the usual home): nothing to build per server.
    if !read_by_claude_code(server) || (join.global.allowed.is_empty() && join.allowing.is_empty())
    {
        return Vec::new();
    }
    let Some(home) = report.sources.get(server.source) else {
        return Vec::new();
    };
    let prefix = format!("mcp__{}", tool_prefix_name(&server.spec.origin.key.name));
    let mut seen = crate::hash::HashSet::new();
    std::iter::once(&join.global)
        .chain(
            join.allowing
                .iter()
                .filter(|&&s| join.loads(s, home))
                .map(|&s| join.sessions[s].own()),
        )
        .flat_map(|d| d.allowing(&prefix))
        // A file read by several sessions lists its entries once.
        .filter(|e| seen.insert(e.as_str()))
        .cloned()
        .collect()
}

/// Why this server's tools run without confirmation (empty: they do not).
fn tool_reasons(
    report: &Report,
    join: &Join,
    server: &AuditedServer,
) -> Vec<(String, &'static str)> {
    let extra = server.spec.declared.extra();
    let mut reasons = Vec::new();
    if extra.trust == Some(true) {
        reasons.push((
            "trust: true lets every tool call run without confirmation".to_string(),
            "trust",
        ));
    }
    if !extra.auto_approve.is_empty() {
        reasons.push((
            format!(
                "autoApprove runs {} without confirmation",
                counted_tools(&extra.auto_approve)
            ),
            "autoApprove",
        ));
    }
    if !extra.always_allow.is_empty() {
        reasons.push((
            format!(
                "alwaysAllow runs {} without confirmation",
                counted_tools(&extra.always_allow)
            ),
            "alwaysAllow",
        ));
    }
    // Codex `approve` never asks (`AppToolApproval::Approve`); `auto` asks for tools
    // whose annotations say they have side effects, `prompt` always asks.
    let approved: Vec<String> = extra
        .tool_approvals
        .iter()
        .filter(|(_, mode)| mode == "approve")
        .map(|(tool, _)| tool.clone())
        .collect();
    if approved.iter().any(|t| t == "*") {
        // A tool's own mode wins over the server's default.
        let asking: Vec<String> = extra
            .tool_approvals
            .iter()
            .filter(|(tool, mode)| tool != "*" && mode != "approve")
            .map(|(tool, _)| tool.clone())
            .collect();
        let except = if asking.is_empty() {
            String::new()
        } else {
            format!(" but {}", tool_list(&asking))
        };
        reasons.push((
            format!(
                "default_tools_approval_mode = \"approve\" runs every tool{except} without confirmation"
            ),
            "default_tools_approval_mode",
        ));
    }
    let named: Vec<String> = approved.into_iter().filter(|t| t != "*").collect();
    if !named.is_empty() {
        reasons.push((
            format!(
                "approval_mode = \"approve\" runs {} without confirmation",
                counted_tools(&named)
            ),
            "tools.approval_mode",
        ));
    }
    let allowed = allowed_tools(report, join, server);
    if !allowed.is_empty() {
        reasons.push((
            format!(
                "permissions.allow runs {} without confirmation",
                counted_tools(&allowed)
            ),
            "permissions.allow",
        ));
    }
    reasons
}

/// Whether a project's settings file applies to a discovered project server (then
/// that server's finding, or its absence when a higher layer or a rejection wins,
/// says all there is: the setting is not reported on its own).
fn governs_a_server(report: &Report, join: &Join, settings: &Source) -> bool {
    join.homes.keys().any(|&home| {
        report
            .sources
            .get(home)
            .is_some_and(|h| applies(settings, h))
    })
}

/// The entry field behind one of [`tool_reasons`]' keys, as the file spells it.
fn reason_field(key: &str, server: &AuditedServer) -> Option<FieldPath> {
    match key {
        "trust" => Some(FieldPath::Named("trust")),
        "autoApprove" => Some(FieldPath::Named("autoApprove")),
        "alwaysAllow" => Some(FieldPath::Named("alwaysAllow")),
        "default_tools_approval_mode" => Some(FieldPath::Named("default_tools_approval_mode")),
        "tools.approval_mode" => server
            .spec
            .declared
            .extra()
            .tool_approvals
            .iter()
            .find(|(tool, mode)| tool != "*" && mode == "approve")
            .map(|(tool, _)| FieldPath::NamedKey("tools", tool.clone())),
        _ => None,
    }
}

/// A finding at a server: its index into [`Report::servers`] and the finding.
type AtServer = (usize, EngineFinding);

/// Every WRD-CLIENT-* finding of `report`: the server-level ones and the
/// setting-level ones.
fn findings(report: &Report, join: &Join) -> (Vec<AtServer>, Vec<SettingFinding>) {
    let mut at_servers = Vec::new();
    // (source, line, column) of every setting that approved a server.
    let mut credited: crate::hash::HashSet<(usize, u32, u32)> = Default::default();
    for (index, server) in report.servers.iter().enumerate() {
        let approved = is_project_server(report, server)
            .then(|| join.approving_session(server))
            .flatten();
        if let Some((session, by)) = approved {
            let why: Vec<String> = by.iter().map(|at| place(report, at)).collect();
            let snippet = by.iter().map(|at| at.key).collect::<Vec<_>>().join(", ");
            // Not the session doctor ran in: say which one.
            let sessions_in = match join.sessions.get(session) {
                Some(s) if session != 0 => {
                    format!(" in sessions in {}", s.dir.to_string_lossy())
                }
                _ => String::new(),
            };
            at_servers.push((
                index,
                EngineFinding::new(
                    RuleId::ClientProjectAutoApprove,
                    format!(
                        "project server starts without a prompt{sessions_in}: approved by {}",
                        why.join(" and ")
                    ),
                    snippet,
                ),
            ));
            credited.extend(by.iter().map(|at| (at.source, at.line, at.column)));
        }
        let reasons = tool_reasons(report, join, server);
        if !reasons.is_empty() {
            let message = reasons
                .iter()
                .map(|(m, _)| m.as_str())
                .collect::<Vec<_>>()
                .join("; ");
            let snippet = reasons
                .iter()
                .map(|(_, k)| *k)
                .collect::<Vec<_>>()
                .join(", ");
            // The first reason written in the entry itself (`permissions.allow`
            // is another file's setting).
            let field = reasons
                .iter()
                .find_map(|(_, key)| reason_field(key, server));
            at_servers.push((
                index,
                EngineFinding {
                    field,
                    ..EngineFinding::new(RuleId::ClientToolAutoApprove, message, snippet)
                },
            ));
        }
    }
    let mut at_settings = Vec::new();
    for &i in &join.settings {
        let source = &report.sources[i];
        let target: Arc<str> = Arc::from(source.label.as_str());
        for setting in &source.settings {
            // The snippet is the setting's key, which is also the field the
            // finding is about (a VS Code key is dotted as written).
            let (rule, message, key): (_, _, &'static str) = match &setting.value {
                SettingValue::EnableAllProjectServers(true)
                    if !credited.contains(&(i, setting.line, setting.column))
                        && match source.project_dir {
                            // A user, system or managed setting that a higher one
                            // (a managed `false`, a later drop-in) overrides
                            // everywhere approves nothing.
                            None => join.global.enable_all.is_some_and(|(_, j, at, _)| {
                                j == i && (at.line, at.column) == (setting.line, setting.column)
                            }),
                            Some(_) => !governs_a_server(report, join, source),
                        } =>
                {
                    let scope = if source.project_dir.is_some() {
                        "this project's"
                    } else {
                        "every project's"
                    };
                    (
                        RuleId::ClientProjectAutoApprove,
                        format!("enableAllProjectMcpServers: true starts {scope} .mcp.json servers without a prompt, including those a cloned repository adds later"),
                        "enableAllProjectMcpServers",
                    )
                }
                SettingValue::DiscoveryImport(sources) if sources.iter().any(|(_, on)| *on) => {
                    let on: Vec<String> = sources
                        .iter()
                        .filter(|(_, on)| *on)
                        .map(|(s, _)| s.clone())
                        .collect();
                    let from = if on.iter().all(String::is_empty) {
                        "every application it knows".to_string()
                    } else {
                        tool_list(&on.into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>())
                    };
                    (
                        RuleId::ClientDiscoveryImport,
                        format!("chat.mcp.discovery.enabled imports MCP servers from other applications' configs: {from}"),
                        "chat.mcp.discovery.enabled",
                    )
                }
                SettingValue::ToolsAutoApprove(tools) if tools.iter().any(|(_, on)| *on) => {
                    let on: Vec<String> = tools
                        .iter()
                        .filter(|(_, on)| *on)
                        .map(|(t, _)| t.clone())
                        .collect();
                    let what = if on.iter().any(String::is_empty) {
                        "every tool of every server VS Code starts".to_string()
                    } else {
                        counted_tools(&on)
                    };
                    (
                        RuleId::ClientToolAutoApprove,
                        format!("chat.tools.autoApprove runs {what} without confirmation"),
                        "chat.tools.autoApprove",
                    )
                }
                _ => continue,
            };
            let mut finding = Finding::new(rule, Arc::clone(&target), message, key.to_string());
            finding.field = Some(crate::model::FieldPath::Named(key));
            finding.at = Some(Position {
                line: setting.line,
                column: setting.column,
            });
            at_settings.push(SettingFinding {
                source: i,
                line: setting.line,
                column: setting.column,
                finding,
            });
        }
    }
    (at_servers, at_settings)
}

/// Add every WRD-CLIENT-* finding to `report` (doctor and `auth audit` alike): at
/// its server, keeping each server's findings sorted by (rule id, snippet), or at
/// the setting.
pub fn apply(report: &mut Report) {
    judge(report).add_to(report);
}

/// What the approval join decides about a report, not yet added to it: decided
/// over a shared borrow, so doctor names the locks on another core meanwhile.
pub struct Judged {
    join: Join,
    at_servers: Vec<AtServer>,
    at_settings: Vec<SettingFinding>,
}

/// Join `report`'s servers with the settings that approve them, and decide every
/// finding [`apply`] adds. The report's sources, settings and servers must not
/// change before [`Judged::add_to`].
pub fn judge(report: &Report) -> Judged {
    let join = Join::new(report);
    let (at_servers, at_settings) = findings(report, &join);
    Judged {
        join,
        at_servers,
        at_settings,
    }
}

impl Judged {
    /// Add the decided findings to the report they were decided for, and keep the
    /// join for the renderers.
    pub fn add_to(self, report: &mut Report) {
        let Judged {
            join,
            at_servers,
            at_settings,
        } = self;
        let mut touched = Vec::new();
        for (index, f) in at_servers {
            if let Some(server) = report.servers.get_mut(index) {
                let key_at = Position {
                    line: server.line,
                    column: server.column,
                };
                let (field, at) = server.spec.place(f.field.as_ref(), key_at);
                let mut finding =
                    Finding::new(f.rule, Arc::clone(&server.target), f.message, f.snippet);
                finding.field = field;
                finding.at = Some(at);
                server.findings.push(finding);
                touched.push(index);
            }
        }
        touched.dedup();
        for index in touched {
            if let Some(server) = report.servers.get_mut(index) {
                server.findings.sort_by(|a, b| {
                    (a.rule.as_str(), &a.snippet).cmp(&(b.rule.as_str(), &b.snippet))
                });
            }
        }
        report.setting_findings.extend(at_settings);
        // The renderers' effective view asks the same join again (the header's start
        // counts, `--servers`): what it joins (sources, settings, servers' readings)
        // does not change after this point.
        report.approval_join = crate::model::Derived::of(join);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{AuditedServer, Client, Coverage, EntryKey, Scope, ServerSpec};
    use crate::protocol::{ClientSetting, ServerBody, ServerExtra};
    use crate::reading::Readers;

    /// A report built source by source, server by server, as doctor would record them.
    pub(crate) struct Fixture {
        pub report: Report,
    }

    fn reader_of(client: Client) -> Reader {
        match client {
            Client::ClaudeCode => Reader::ClaudeCode,
            Client::Cursor => Reader::Cursor,
            Client::Codex => Reader::Codex,
            Client::GeminiCli => Reader::GeminiCli,
            Client::Cline => Reader::Cline,
            Client::RooCode => Reader::RooCode,
            Client::Kiro => Reader::Kiro,
            _ => Reader::VsCode,
        }
    }

    pub(crate) fn setting(value: SettingValue) -> ClientSetting {
        ClientSetting {
            line: 2,
            column: 3,
            value,
        }
    }

    pub(crate) fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    impl Fixture {
        pub(crate) fn new(cwd: &str) -> Fixture {
            Fixture {
                report: Report {
                    cwd: cwd.into(),
                    ..Report::default()
                },
            }
        }

        /// A source; `project` is its project directory (a `projects[<path>]` key
        /// for a local section).
        pub(crate) fn source(
            &mut self,
            client: Client,
            layer: Layer,
            label: &str,
            project: Option<&str>,
            settings: Vec<SettingValue>,
        ) -> usize {
            self.report.sources.push(Source {
                client: client.name().into(),
                label: label.into(),
                path: std::path::Path::new(label).into(),
                scope: if project.is_some() {
                    Scope::Project
                } else {
                    Scope::User
                },
                client_id: Some(client),
                layer,
                project_dir: project.map(Into::into),
                settings: settings.into_iter().map(setting).collect(),
            });
            self.report.sources.len() - 1
        }

        pub(crate) fn server_with(
            &mut self,
            source: usize,
            name: &str,
            extra: ServerExtra,
        ) -> usize {
            let body = ServerBody {
                command: Some("node".into()),
                args: vec!["s.js".into()],
                extra: vec![extra],
                ..ServerBody::default()
            };
            let src = &self.report.sources[source];
            let mut spec: ServerSpec = crate::engines::tests::spec_of(body);
            spec.origin.readers = Readers::of(&[src.client_id.map_or(Reader::VsCode, reader_of)]);
            let local = src.layer == Layer::Local;
            spec.origin.key = EntryKey {
                project: local
                    .then(|| src.project_dir.as_ref().map(|p| p.to_string_lossy().into()))
                    .flatten(),
                map: "mcpServers",
                name: name.into(),
            };
            let target = format!("{}#{name}", src.label);
            self.report.servers.push(AuditedServer {
                source,
                name: name.into(),
                target: target.into(),
                spec,
                line: 1,
                column: 1,
                findings: Vec::new(),
                coverage: Coverage::Approved,
                lock_name: None,
            });
            self.report.servers.len() - 1
        }

        pub(crate) fn server(&mut self, source: usize, name: &str) -> usize {
            self.server_with(source, name, ServerExtra::default())
        }

        /// `(rule, target)` of every WRD-CLIENT-* finding after [`apply`].
        pub(crate) fn fired(mut self) -> Vec<(RuleId, String)> {
            apply(&mut self.report);
            self.report
                .findings()
                .map(|f| (f.rule, f.target.to_string()))
                .collect()
        }
    }

    const PROJ: &str = "/w/repo";

    fn project_mcp(f: &mut Fixture) -> usize {
        f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.mcp.json",
            Some(PROJ),
            vec![],
        )
    }

    fn hit(rule: RuleId, target: &str) -> (RuleId, String) {
        (rule, target.to_string())
    }

    /// The sessions, as the join spells and orders them: cwd's, then each directory
    /// by its first source (a settings file's before a section's), then the homes of
    /// project servers; each with the longest section key its directory is in.
    /// Written out here the plain way, over maps, on reports whose keys repeat,
    /// nest, are spelled with and without a trailing `/`, and meet cwd.
    #[test]
    fn sessions_are_the_directories_of_their_first_sources_in_order() {
        let dirs = [
            "/p", "/p/a", "/p/a/", "/p/a/b", "/p/c", "/p/c/", "/q", "/q/r/s",
        ];
        let mut generated = crate::test_gen::Generated::new(0x2545_f491_4f6c_dd1d);
        for round in 0..200 {
            let mut f = Fixture::new(["/p/c", "/p/c/", "/w", "/q/r/s/t"][round % 4]);
            for _ in 0..(1 + generated.below(14)) {
                let dir = *generated.pick(&dirs);
                match generated.below(3) {
                    0 => {
                        let label = format!("~/.claude.json#projects[{dir}]");
                        f.source(
                            Client::ClaudeCode,
                            Layer::Local,
                            &label,
                            Some(dir),
                            vec![SettingValue::EnableAllProjectServers(true)],
                        );
                    }
                    1 => {
                        let label = format!("{dir}/.claude/settings.json");
                        f.source(
                            Client::ClaudeCode,
                            Layer::Project,
                            &label,
                            Some(dir),
                            vec![SettingValue::EnableAllProjectServers(
                                generated.below(2) == 0,
                            )],
                        );
                    }
                    _ => {
                        let label = format!("{dir}/.mcp.json");
                        let mcp = f.source(
                            Client::ClaudeCode,
                            Layer::Project,
                            &label,
                            Some(dir),
                            vec![],
                        );
                        f.server(mcp, "s");
                    }
                }
            }
            let report = &f.report;
            let section_of = |i: usize| is_project_section(&report.sources[i]);
            let mut sections: std::collections::HashMap<&Path, Vec<usize>> = Default::default();
            let mut files: std::collections::HashMap<&Path, Vec<usize>> = Default::default();
            for (i, source) in report.sources.iter().enumerate() {
                let Some(dir) = source.project_dir.as_deref() else {
                    continue;
                };
                if section_of(i) {
                    sections.entry(dir).or_default().push(i);
                } else if !source.settings.is_empty() {
                    files.entry(dir).or_default().push(i);
                }
            }
            let mut seen: std::collections::HashSet<&Path> = Default::default();
            seen.insert(&report.cwd);
            let mut keyed = Vec::new();
            for dir in sections.keys().chain(files.keys()) {
                if seen.insert(dir) {
                    let list = files.get(dir).or_else(|| sections.get(dir));
                    keyed.push((list.and_then(|l| l.first().copied()), *dir));
                }
            }
            keyed.sort_by_key(|&(first, _)| first);
            let mut expected: Vec<&Path> = vec![&report.cwd];
            expected.extend(keyed.into_iter().map(|(_, dir)| dir));
            for server in &report.servers {
                let home = report.sources[server.source].project_dir.as_deref();
                if let Some(home) =
                    home.filter(|h| is_project_server(report, server) && seen.insert(h))
                {
                    expected.push(home);
                }
            }
            let spelled = |dir: &Path| {
                let key = dir.ancestors().find(|a| sections.contains_key(a));
                (
                    dir.as_os_str().to_owned(),
                    key.map(|k| k.as_os_str().to_owned()),
                )
            };
            let expected: Vec<_> = expected.into_iter().map(spelled).collect();
            let join = Join::new(report);
            let got: Vec<_> = join
                .sessions
                .iter()
                .map(|s| {
                    let section = s.section().map(|k| k.as_os_str().to_owned());
                    (s.dir.as_os_str().to_owned(), section)
                })
                .collect();
            assert_eq!(got, expected, "round {round}");
        }
    }

    #[test]
    fn enable_all_in_project_settings_fires_at_each_project_server() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.server(mcp, "b");
        f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.claude/settings.json",
            Some(PROJ),
            vec![SettingValue::EnableAllProjectServers(true)],
        );
        let fired = f.fired();
        assert_eq!(
            fired,
            [
                hit(RuleId::ClientProjectAutoApprove, "/w/repo/.mcp.json#a"),
                hit(RuleId::ClientProjectAutoApprove, "/w/repo/.mcp.json#b"),
            ]
        );
    }

    #[test]
    fn enable_all_false_and_no_settings_are_near_misses() {
        for settings in [vec![], vec![SettingValue::EnableAllProjectServers(false)]] {
            let mut f = Fixture::new(PROJ);
            let mcp = project_mcp(&mut f);
            f.server(mcp, "a");
            f.source(
                Client::ClaudeCode,
                Layer::User,
                "~/.claude/settings.json",
                None,
                settings,
            );
            assert_eq!(f.fired(), []);
        }
    }

    #[test]
    fn a_higher_layer_false_beats_a_lower_true() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "/w/repo/.claude/settings.local.json",
            Some(PROJ),
            vec![SettingValue::EnableAllProjectServers(false)],
        );
        f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.claude/settings.json",
            Some(PROJ),
            vec![SettingValue::EnableAllProjectServers(true)],
        );
        assert_eq!(f.fired(), []);
    }

    #[test]
    fn enabled_list_fires_only_at_the_server_it_names() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.server(mcp, "b");
        // In ~/.claude.json projects[<repo>] (settings only) and in user settings.
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/w/repo]",
            Some(PROJ),
            vec![SettingValue::EnabledProjectServers(names(&["a", "ghost"]))],
        );
        assert_eq!(
            f.fired(),
            [hit(RuleId::ClientProjectAutoApprove, "/w/repo/.mcp.json#a")]
        );
    }

    #[test]
    fn an_enabled_name_no_mcp_json_declares_is_a_near_miss() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude/settings.json",
            None,
            vec![SettingValue::EnabledProjectServers(names(&["ghost"]))],
        );
        assert_eq!(f.fired(), []);
    }

    #[test]
    fn disabled_wins_over_every_enable() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude/settings.json",
            None,
            vec![
                SettingValue::EnableAllProjectServers(true),
                SettingValue::EnabledProjectServers(names(&["a"])),
            ],
        );
        f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.claude/settings.json",
            Some(PROJ),
            vec![SettingValue::DisabledProjectServers(names(&["a"]))],
        );
        let join = Join::new(&f.report);
        let server = &f.report.servers[0];
        assert!(matches!(
            project_status(&f.report, &join, server),
            Some(ProjectStatus::Rejected(_))
        ));
        // Not approved: no per-server finding; the user-wide enable-all that no server
        // falls under is still reported at the setting.
        assert_eq!(
            f.fired(),
            [hit(
                RuleId::ClientProjectAutoApprove,
                "~/.claude/settings.json"
            )]
        );
    }

    #[test]
    fn settings_of_another_project_do_not_apply() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/w/other]",
            Some("/w/other"),
            vec![SettingValue::EnabledProjectServers(names(&["a"]))],
        );
        assert_eq!(f.fired(), []);
        // A session below the project loads its .mcp.json: its settings apply.
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server(mcp, "a");
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/w/repo/sub]",
            Some("/w/repo/sub"),
            vec![SettingValue::EnabledProjectServers(names(&["a"]))],
        );
        assert_eq!(
            f.fired(),
            [hit(RuleId::ClientProjectAutoApprove, "/w/repo/.mcp.json#a")]
        );
    }

    #[test]
    fn user_servers_are_never_project_approved() {
        let mut f = Fixture::new(PROJ);
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        f.server(user, "a");
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/w/repo]",
            Some(PROJ),
            vec![SettingValue::EnabledProjectServers(names(&["a"]))],
        );
        assert_eq!(f.fired(), []);
    }

    #[test]
    fn enable_all_with_no_project_server_fires_at_the_setting() {
        let mut f = Fixture::new(PROJ);
        f.source(
            Client::ClaudeCode,
            Layer::Managed,
            "/etc/claude-code/managed-settings.json",
            None,
            vec![SettingValue::EnableAllProjectServers(true)],
        );
        let mut report = f.report;
        apply(&mut report);
        assert_eq!(report.setting_findings.len(), 1);
        let sf = &report.setting_findings[0];
        assert_eq!((sf.source, sf.line, sf.column), (0, 2, 3));
        assert!(
            sf.finding.message.contains("every project's"),
            "{}",
            sf.finding.message
        );
    }

    fn tool_case(client: Client, extra: ServerExtra) -> Vec<(RuleId, String)> {
        let mut f = Fixture::new(PROJ);
        let src = f.source(client, Layer::User, "~/cfg.json", None, vec![]);
        f.server_with(src, "s", extra);
        f.fired()
    }

    #[test]
    fn tool_auto_approve_fires_for_each_field_and_not_for_its_near_miss() {
        let fires = [
            (
                Client::GeminiCli,
                ServerExtra {
                    trust: Some(true),
                    ..Default::default()
                },
            ),
            (
                Client::Cline,
                ServerExtra {
                    auto_approve: names(&["write_file"]),
                    ..Default::default()
                },
            ),
            (
                Client::Kiro,
                ServerExtra {
                    auto_approve: names(&["x"]),
                    ..Default::default()
                },
            ),
            (
                Client::RooCode,
                ServerExtra {
                    always_allow: names(&["run"]),
                    ..Default::default()
                },
            ),
            (
                Client::Codex,
                ServerExtra {
                    tool_approvals: vec![("*".into(), "approve".into())],
                    ..Default::default()
                },
            ),
            (
                Client::Codex,
                ServerExtra {
                    tool_approvals: vec![("rm".into(), "approve".into())],
                    ..Default::default()
                },
            ),
        ];
        for (client, extra) in fires {
            assert_eq!(
                tool_case(client, extra.clone()),
                [hit(RuleId::ClientToolAutoApprove, "~/cfg.json#s")],
                "{client:?} {extra:?}"
            );
        }
        let misses = [
            (
                Client::GeminiCli,
                ServerExtra {
                    trust: Some(false),
                    ..Default::default()
                },
            ),
            (
                Client::Cline,
                ServerExtra {
                    auto_approve: vec![],
                    ..Default::default()
                },
            ),
            (
                Client::RooCode,
                ServerExtra {
                    always_allow: vec![],
                    ..Default::default()
                },
            ),
            (
                Client::Codex,
                ServerExtra {
                    tool_approvals: vec![("*".into(), "prompt".into())],
                    ..Default::default()
                },
            ),
            (
                Client::Codex,
                ServerExtra {
                    tool_approvals: vec![("rm".into(), "auto".into())],
                    ..Default::default()
                },
            ),
        ];
        for (client, extra) in misses {
            assert_eq!(tool_case(client, extra.clone()), [], "{client:?} {extra:?}");
        }
    }

    #[test]
    fn tool_list_is_neutralised_and_capped() {
        let mut tools: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        tools[0] = format!("evil\u{1b}[31m{}", "x".repeat(100));
        let mut f = Fixture::new(PROJ);
        let src = f.source(Client::Cline, Layer::User, "~/cline.json", None, vec![]);
        f.server_with(
            src,
            "s",
            ServerExtra {
                auto_approve: tools,
                ..Default::default()
            },
        );
        apply(&mut f.report);
        let message = &f.report.servers[0].findings[0].message;
        assert!(!message.contains('\u{1b}'), "{message}");
        assert!(message.contains("and 12 more"), "{message}");
        assert!(!message.contains(&"x".repeat(50)), "{message}");
        assert!(
            message.contains("t7") && !message.contains("t8,"),
            "{message}"
        );
    }

    #[test]
    fn claude_permissions_allow_names_a_server() {
        for (entry, fires) in [
            ("mcp__gh", true),
            ("mcp__gh__create_issue", true),
            ("mcp__gh__*", true),
            ("mcp__ghx", false),
            ("mcp__other__x", false),
            ("Bash(ls)", false),
        ] {
            let mut f = Fixture::new(PROJ);
            let user = f.source(
                Client::ClaudeCode,
                Layer::User,
                "~/.claude.json",
                None,
                vec![],
            );
            f.server(user, "gh");
            f.source(
                Client::ClaudeCode,
                Layer::Project,
                "/w/repo/.claude/settings.json",
                Some(PROJ),
                vec![SettingValue::AllowedTools(names(&[entry]))],
            );
            let want: &[(RuleId, String)] = if fires {
                &[(
                    RuleId::ClientToolAutoApprove,
                    "~/.claude.json#gh".to_string(),
                )]
            } else {
                &[]
            };
            assert_eq!(f.fired(), want, "{entry}");
        }
    }

    #[test]
    fn allow_entries_are_found_by_their_server_prefix_only() {
        let mut d = Decisions {
            allowed: names(&[
                "mcp__ab",
                "mcp__a__x",
                "mcp__a",
                "mcp__a_",
                "mcp__a__",
                "mcp__b__a",
                "mcp__a__x",
            ]),
            ..Decisions::default()
        };
        d.finish();
        let found: Vec<&String> = d.allowing("mcp__a").collect();
        assert_eq!(found, ["mcp__a", "mcp__a__", "mcp__a__x"]);
        assert_eq!(d.allowing("mcp__c").count(), 0);
    }

    #[test]
    fn tool_names_are_normalised_like_claude_code() {
        assert_eq!(tool_prefix_name("my.server x"), "my_server_x");
        assert_eq!(tool_prefix_name("a😀b"), "a__b");
        assert_eq!(tool_prefix_name("ok_-9"), "ok_-9");
        let mut f = Fixture::new(PROJ);
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        f.server(user, "my.server");
        f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude/settings.json",
            None,
            vec![SettingValue::AllowedTools(names(&["mcp__my_server__read"]))],
        );
        assert_eq!(
            f.fired(),
            [hit(
                RuleId::ClientToolAutoApprove,
                "~/.claude.json#my.server"
            )]
        );
    }

    #[test]
    fn discovery_import_fires_at_the_settings_file_and_names_the_sources() {
        let mut f = Fixture::new(PROJ);
        f.source(
            Client::VsCode,
            Layer::User,
            "~/.config/Code/User/settings.json",
            None,
            vec![SettingValue::DiscoveryImport(vec![
                ("claude-desktop".into(), true),
                ("cursor-global".into(), false),
            ])],
        );
        let mut report = f.report;
        apply(&mut report);
        assert_eq!(report.setting_findings.len(), 1);
        let finding = &report.setting_findings[0].finding;
        assert_eq!(finding.rule, RuleId::ClientDiscoveryImport);
        assert_eq!(&*finding.target, "~/.config/Code/User/settings.json");
        assert!(finding.message.contains("claude-desktop"));
        assert!(!finding.message.contains("cursor-global"));
        for off in [
            vec![("".to_string(), false)],
            vec![("cursor-global".to_string(), false)],
        ] {
            let mut f = Fixture::new(PROJ);
            f.source(
                Client::VsCode,
                Layer::User,
                "~/settings.json",
                None,
                vec![SettingValue::DiscoveryImport(off)],
            );
            assert_eq!(f.fired(), []);
        }
        let mut f = Fixture::new(PROJ);
        f.source(
            Client::VsCode,
            Layer::User,
            "~/settings.json",
            None,
            vec![SettingValue::DiscoveryImport(vec![("".into(), true)])],
        );
        assert_eq!(
            f.fired(),
            [hit(RuleId::ClientDiscoveryImport, "~/settings.json")]
        );
    }

    #[test]
    fn vs_code_tool_auto_approve_fires_at_the_settings_file() {
        for (value, names) in [
            (vec![("".to_string(), true)], "every tool of every server"),
            (
                vec![("github_create_issue".into(), true), ("rm".into(), false)],
                "github_create_issue",
            ),
        ] {
            let mut f = Fixture::new(PROJ);
            f.source(
                Client::VsCode,
                Layer::Project,
                "/w/repo/.vscode/settings.json",
                Some("/w/repo"),
                vec![SettingValue::ToolsAutoApprove(value)],
            );
            let mut report = f.report;
            apply(&mut report);
            assert_eq!(report.setting_findings.len(), 1);
            let finding = &report.setting_findings[0].finding;
            assert_eq!(finding.rule, RuleId::ClientToolAutoApprove);
            assert_eq!(&*finding.target, "/w/repo/.vscode/settings.json");
            assert!(finding.message.contains(names), "{}", finding.message);
            assert!(!finding.message.contains("rm,") && !finding.message.ends_with("rm"));
        }
        // Near misses: switched off, or every named tool off.
        for off in [
            vec![("".to_string(), false)],
            vec![("rm".to_string(), false)],
            vec![],
        ] {
            let mut f = Fixture::new(PROJ);
            f.source(
                Client::VsCode,
                Layer::User,
                "~/settings.json",
                None,
                vec![SettingValue::ToolsAutoApprove(off)],
            );
            assert_eq!(f.fired(), []);
        }
    }

    /// The effective view over the join the engine kept is the view over a join
    /// built again.
    #[test]
    fn the_kept_join_gives_the_effective_view_a_new_join_gives() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server_with(mcp, "a", ServerExtra::default());
        f.server_with(mcp, "b", ServerExtra::default());
        f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude/settings.json",
            None,
            vec![SettingValue::EnabledProjectServers(names(&["a"]))],
        );
        apply(&mut f.report);
        assert!(f.report.approval_join.get().is_some());
        let kept = crate::parent::effective::compute(&f.report);
        let fresh = crate::parent::effective::compute(&Report {
            approval_join: crate::model::Derived::default(),
            ..f.report.clone()
        });
        assert_eq!(kept, fresh);
        assert!(!kept.clients.is_empty());
    }

    #[test]
    fn findings_stay_sorted_per_server() {
        let mut f = Fixture::new(PROJ);
        let mcp = project_mcp(&mut f);
        f.server_with(
            mcp,
            "a",
            ServerExtra {
                auto_approve: names(&["x"]),
                ..Default::default()
            },
        );
        f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude/settings.json",
            None,
            vec![SettingValue::EnableAllProjectServers(true)],
        );
        apply(&mut f.report);
        let rules: Vec<&str> = f.report.servers[0]
            .findings
            .iter()
            .map(|f| f.rule.as_str())
            .collect();
        let mut sorted = rules.clone();
        sorted.sort();
        assert_eq!(rules, sorted);
        assert_eq!(rules.len(), 2);
        assert!(
            f.report.setting_findings.is_empty(),
            "credited to the server"
        );
    }
}
