//! `~/.claude.json` read in one pass, without a parse tree of the file.
//!
//! # Why a second reader
//!
//! `~/.claude.json` is the one large file doctor reads: Claude Code keeps each
//! project's session history in it beside its servers, and 8 MiB with 20,000 servers
//! in 5,000 projects is a real shape. The tree reader (`json::parse` with
//! `Select::Config`, then `servers::json_config`) built every kept part of it (each
//! project object, each server map, each entry) and then walked that tree: tens of
//! MiB written once and read once, in a process where fresh memory costs its page
//! faults, and then resolved every position of the file with one sort.
//!
//! This reader gives the same answer from the same parser, with what is kept
//! changed: the parser hands each server entry, each approval setting and each
//! project to [`Reader`] as it ends ([`json::Sink`], with the `Select::Claude*` and
//! `Select::Entries` modes), and the entry becomes its record at once: its tree is
//! one entry's (freed before the next is built), its positions are resolved by one
//! cursor that only moves forward (entries and settings end in file order), and what
//! stays until the end of the file is only what the answer holds. The cursor is
//! told how many line breaks come before each key ([`json::LineMark`]: the parser
//! counts them in the trivia it steps over anyway), so the session history between
//! two entries is not scanned again for its line breaks, only the key's own line
//! for its column.
//!
//! # Why the answer is the same
//!
//! The syntax is checked by the same parser in the same order, so every error (its
//! offset, its words, its construct) is the same. What the tree reader decides from
//! the tree is decided here from the same facts, through the same code where it can
//! be shared:
//!
//! * an entry's body and value positions: `servers::json_body` on the entry's tree;
//! * repeated names, earlier copies of a map and the both-maps rule:
//!   `servers::flag_repeated_names`, `flag_earlier_copy` and `merge_maps`. Whether
//!   two entries under `mcpServers` and `servers` are structurally equal needs both
//!   bodies whole, long after the first one's tree is gone: the two values are
//!   parsed again from the text (their spans are kept), which gives back the same
//!   trees because the same parser accepted the same bytes a moment before;
//! * a project's approval settings: `clients::claude_project_settings`;
//! * which error wins, where a section or the file has several: the first wrong map
//!   of `mcpServers`, then of `servers`, then the first over-long server name of
//!   each (a section's error); a top level that is not an object, then a last
//!   `projects` member that is not an object, then the first over-long key of a
//!   project that is reported (the file's error).
//!
//! `tests.rs` holds the two readers to each other on generated files (repeated
//! keys, both maps, escapes, BOM, CRLF, wide characters, long strings, deep
//! nesting, every kind of wrong value), and the `json` fuzz target does on
//! whatever the fuzzer finds.

use std::borrow::Cow;

use super::json::{
    self, same_value, Emitted, MapKey, Member, Options, Select, Sink, SyntaxError, Value,
};
use super::position::Lines;
use super::servers::{
    checked_name_at, flag_earlier_copy, flag_repeated_names, json_body, merge_maps,
    problem_message, repeated, section_error, shape, PendingSection,
};
use crate::protocol::{
    ClientSetting, FieldRef, LoadError, ParsedConfig, Section, ServerEntry, ServerMap, ValueAt,
};

/// Where project sections go ahead of the answer ([`read_sending`]), `batch` at a
/// time: `send` takes a batch of sections, or gives it back when it cannot take it
/// (the parser child's answer would not fit its share); then no more are offered.
pub(crate) struct SendAhead<'s> {
    pub send: &'s mut dyn FnMut(Vec<Section>) -> Result<(), Vec<Section>>,
    pub batch: usize,
}

/// Project sections the parser child sends ahead of its answer at a time: a part
/// is a few dozen KiB, so the parent starts on the first while the child is still
/// early in a large file.
pub(crate) const SECTIONS_AHEAD: usize = 256;

/// Read `text` (from byte `start`, past a BOM) as `~/.claude.json` with the
/// parser options `opts` (their `select` and `keep_duplicates` are this reader's):
/// a syntax error, or the answer `servers::json_config` gives for the tree.
///
/// With `ahead`, each project section is offered to it as soon as its project ends,
/// in batches, so the parser child can send them to the parent
/// while it reads on (the parent collects them meanwhile). The answer then holds the
/// top level and the sections not sent, and says so (`continues_parts`).
///
/// A section is final when its project ends unless the file later writes the same
/// project again (the earlier copy is then flagged) or a second `projects` key (the
/// earlier one is not read at all): Claude Code never writes either, and when one
/// comes after a section was sent, the file is read again without sending anything
/// ahead, and that whole answer voids what was sent (`continues_parts` false).
pub(crate) fn read_sending(
    text: &str,
    start: usize,
    opts: Options,
    ahead: Option<SendAhead<'_>>,
) -> Result<Result<ParsedConfig, LoadError>, SyntaxError> {
    let opts = Options {
        select: Select::ClaudeTop,
        // Every copy of a repeated key in the parts read is kept (as the tree
        // reader keeps them); the members handed over are never compared here.
        keep_duplicates: true,
        ..opts
    };
    let mut reader = Reader {
        text,
        opts,
        lines: Lines::new(text),
        values: Vec::new(),
        top: Scope::default(),
        project: Scope::default(),
        settings: Vec::new(),
        settings_at: Vec::new(),
        open_projects: Vec::new(),
        projects: Projects::Absent,
        projects_read: false,
        ahead: ahead.map(|to| Ahead {
            send: to.send,
            batch: to.batch.max(1),
            ready: Vec::new(),
            keys: crate::hash::HashSet::default(),
            sent: false,
            open: true,
            void: false,
        }),
    };
    let root = json::parse_into(text, start, opts, &mut reader)?;
    if reader.ahead.as_ref().is_some_and(|a| a.void) {
        drop(reader);
        return read_sending(text, start, opts, None);
    }
    Ok(reader.finish(&root))
}

/// What the file has shown so far.
struct Reader<'a> {
    text: &'a str,
    opts: Options,
    /// Positions of entries and settings, met in file order.
    lines: Lines<'a>,
    /// Scratch space for one entry's value positions.
    values: Vec<ValueAt>,
    /// The top level's server maps.
    top: Scope,
    /// The server maps of the project open now.
    project: Scope,
    /// The approval settings of the project open now, and where each key starts
    /// (its offset and position).
    settings: Vec<Member<'a>>,
    settings_at: Vec<(usize, (u32, u32))>,
    /// The members of the `projects` object open now.
    open_projects: Vec<Project<'a>>,
    /// The value of the last `projects` member read (clients read the last copy).
    projects: Projects<'a>,
    /// A `projects` member has ended: what follows is a later copy.
    projects_read: bool,
    /// Sections sent ahead of the answer, when the caller takes them.
    ahead: Option<Ahead<'a>>,
}

/// The state of the sections sent ahead ([`read_sending`]).
struct Ahead<'s> {
    send: &'s mut dyn FnMut(Vec<Section>) -> Result<(), Vec<Section>>,
    batch: usize,
    /// Sections of ended projects waiting for a full batch.
    ready: Vec<Section>,
    /// The keys of the projects whose sections were sent or are ready: written
    /// again, the earlier copy would have to be flagged.
    keys: crate::hash::HashSet<String>,
    /// At least one batch was sent.
    sent: bool,
    /// Sections are still offered (until a batch is refused, a project cannot be
    /// made a section on its own, or the first `projects` member ends).
    open: bool,
    /// What was sent may not be what the file says: read it again in full.
    void: bool,
}

/// The last `projects` member.
enum Projects<'a> {
    /// None, or `null`.
    Absent,
    Map(Vec<Project<'a>>),
    /// Neither an object nor `null`: the kind, for the file's error.
    Other(&'static str),
}

/// One member of `projects`.
struct Project<'a> {
    key: Cow<'a, str>,
    offset: usize,
    /// `None` when the value is not an object (it declares nothing, but its key
    /// still counts among the repeated ones).
    section: Option<Ready>,
}

/// A project's section, its positions resolved.
struct Ready {
    servers: Result<Vec<ServerEntry>, LoadError>,
    settings: Settings,
}

/// A project's approval settings, and the messages of the malformed ones.
struct Settings {
    settings: Vec<ClientSetting>,
    problems: Vec<String>,
    more_problems: usize,
}

/// The server maps of one section (the top level or a project).
#[derive(Default)]
struct Scope {
    mcp: Map,
    vsc: Map,
}

impl Scope {
    /// Whether the section is already an error: its remaining entries would be
    /// thrown away, so they are not read.
    fn failed(&self) -> bool {
        [&self.mcp, &self.vsc]
            .iter()
            .any(|m| m.map_error.is_some() || m.name_error.is_some())
    }
}

/// Every copy of one server-bearing key of a section.
#[derive(Default)]
struct Map {
    /// The entries of every object copy, in file order, flags not yet set.
    entries: Vec<ServerEntry>,
    /// Where each entry's value is in the text, to parse it again when the
    /// both-maps rule compares two bodies.
    spans: Vec<(usize, usize)>,
    /// Object copies read.
    copies: usize,
    /// Where the copy open now starts in `entries`, and where the last one closed
    /// started.
    open_from: usize,
    last_copy_starts: usize,
    /// The first copy that is neither an object nor `null`.
    map_error: Option<LoadError>,
    /// The first over-long server name.
    name_error: Option<LoadError>,
}

impl<'a> Sink<'a> for Reader<'a> {
    fn member(&mut self, m: Emitted<'a>) {
        match m.mode {
            Select::Entries { project, map } => self.entry(project, map, m),
            Select::ClaudeTop | Select::ClaudeProject => {
                let project = matches!(m.mode, Select::ClaudeProject);
                if let Some(map) = MapKey::of(&m.key) {
                    self.map_closed(project, map, &m.value);
                } else if !project {
                    if m.key == "projects" {
                        self.projects_closed(&m.value);
                    }
                } else if json::CLAUDE_PROJECT_SETTINGS.contains(&m.key.as_ref()) {
                    self.settings_at
                        .push((m.offset, self.lines.at_marked(m.offset, m.line)));
                    self.settings.push(Member {
                        key: m.key,
                        offset: m.offset,
                        value: m.value,
                        value_offset: m.value_offset,
                    });
                }
            }
            Select::ClaudeProjects => self.project_closed(m),
            _ => {}
        }
    }
}

impl<'a> Reader<'a> {
    /// One server entry ended: its record, positions resolved, unless its section
    /// is already an error (then only its name is checked, while its map has no
    /// over-long name yet: which error the section reports depends on the order of
    /// the maps, not of the file).
    fn entry(&mut self, project: bool, key: MapKey, m: Emitted<'a>) {
        let scope = if project {
            &mut self.project
        } else {
            &mut self.top
        };
        let failed = scope.failed();
        let map = map_of(scope, key);
        if map.name_error.is_some() {
            return;
        }
        let key_at = self.lines.at_marked(m.offset, m.line);
        let name = match checked_name_at(&m.key, || key_at, "server name") {
            Ok(_) if failed => return,
            Ok(name) => name,
            Err(e) => {
                map.name_error = Some(e);
                return;
            }
        };
        let (body, values) = match json_body(&m.value) {
            Ok((body, offsets)) => {
                let values = resolve(&mut self.lines, key_at, &offsets, &mut self.values);
                (Ok(body), values)
            }
            Err(e) => (Err(e), Vec::new()),
        };
        map.entries.push(ServerEntry {
            map: match key {
                MapKey::McpServers => ServerMap::McpServers,
                MapKey::Servers => ServerMap::Servers,
            },
            name,
            twin: None,
            line: key_at.0,
            column: key_at.1,
            body,
            values,
        });
        map.spans.push((m.value_offset, m.value_end));
    }

    /// A server-bearing key ended (its entries, if an object, were read before).
    fn map_closed(&mut self, project: bool, key: MapKey, value: &Value<'_>) {
        let scope = if project {
            &mut self.project
        } else {
            &mut self.top
        };
        let map = map_of(scope, key);
        match value {
            // `null` counts as absent.
            Value::Null => {}
            Value::Object(_) => {
                map.copies += 1;
                map.last_copy_starts = map.open_from;
                map.open_from = map.entries.len();
            }
            other => {
                if map.map_error.is_none() {
                    let what = match key {
                        MapKey::McpServers => "mcpServers",
                        MapKey::Servers => "servers",
                    };
                    map.map_error = Some(shape(format!(
                        "{what} must be an object (it is {})",
                        other.kind()
                    )));
                }
            }
        }
    }

    /// A project ended: its section, as the tree reader builds it, except the
    /// earlier-copy flag and the key check, which need the whole `projects` object
    /// (or, while sections are sent ahead, made now and sent: see [`read_sending`]).
    fn project_closed(&mut self, m: Emitted<'a>) {
        let scope = std::mem::take(&mut self.project);
        let settings = std::mem::take(&mut self.settings);
        let settings_at = std::mem::take(&mut self.settings_at);
        let section = match m.value {
            Value::Object(_) => Some(Ready {
                servers: union(self.text, self.opts, scope),
                settings: settings_of(&settings, &settings_at),
            }),
            _ => None,
        };
        let project = Project {
            key: m.key,
            offset: m.offset,
            section,
        };
        let project = match self.ahead.as_mut() {
            Some(ahead) if ahead.keys.contains(project.key.as_ref()) => {
                // A project written again after its section went ahead.
                ahead.void = true;
                ahead.open = false;
                project
            }
            Some(ahead) if ahead.open && !self.projects_read => {
                match section_of(self.text, project, false) {
                    // Nothing to send (no servers, no settings) and nothing to flag.
                    Ok(None) => return,
                    Ok(Some((key, section))) => {
                        ahead.keys.insert(key);
                        ahead.ready.push(section);
                        if ahead.ready.len() >= ahead.batch {
                            ahead.send_ready();
                        }
                        return;
                    }
                    // A key the answer refuses: the answer says so, and from
                    // here on nothing more goes ahead.
                    Err(refused) => {
                        ahead.open = false;
                        refused.project
                    }
                }
            }
            _ => project,
        };
        self.open_projects.push(project);
    }

    /// A `projects` member ended: it is the one clients read, until another follows.
    fn projects_closed(&mut self, value: &Value<'_>) {
        if self.projects_read {
            if let Some(ahead) = self
                .ahead
                .as_mut()
                .filter(|a| a.sent || !a.ready.is_empty())
            {
                // A later copy replaces the one whose sections went ahead, or
                // wait to: read the file again whole.
                ahead.void = true;
            }
        }
        self.projects_read = true;
        let members = std::mem::take(&mut self.open_projects);
        self.projects = match value {
            Value::Null => Projects::Absent,
            Value::Object(_) => Projects::Map(members),
            other => Projects::Other(other.kind()),
        };
    }

    /// The answer, once the whole file is read (`root` is the top-level value).
    fn finish(self, root: &Value<'_>) -> Result<ParsedConfig, LoadError> {
        if !matches!(root, Value::Object(_)) {
            return Err(shape(format!(
                "top-level config must be an object (it is {})",
                root.kind()
            )));
        }
        let (servers, error) = match union(self.text, self.opts, self.top) {
            Ok(found) => (found, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let mut sections = vec![Section {
            project: None,
            servers,
            error,
            settings: Vec::new(),
        }];
        // Sections of the projects read while sections went ahead, not sent: they
        // come before the projects read after.
        let continues_parts = match self.ahead {
            Some(ahead) => {
                sections.extend(ahead.ready);
                ahead.sent
            }
            None => false,
        };
        let projects = match self.projects {
            Projects::Absent => Vec::new(),
            Projects::Map(members) => members,
            Projects::Other(kind) => {
                return Err(shape(format!("projects must be an object (it is {kind})")))
            }
        };
        // Project keys written more than once: Claude Code reads only the last copy.
        let twice = repeated(projects.len(), |i| {
            projects.get(i).map_or("", |p| p.key.as_ref())
        });
        let mut last_copy: crate::hash::HashMap<&str, usize> = crate::hash::HashMap::default();
        if !twice.is_empty() {
            for (i, p) in projects.iter().enumerate() {
                if twice.contains(&p.key.as_ref()) {
                    last_copy.insert(p.key.as_ref(), i);
                }
            }
        }
        let earlier: Vec<bool> = projects
            .iter()
            .enumerate()
            .map(|(i, p)| last_copy.get(p.key.as_ref()).is_some_and(|&last| last != i))
            .collect();
        drop(last_copy);
        for (p, earlier) in projects.into_iter().zip(earlier) {
            match section_of(self.text, p, earlier) {
                Ok(Some((_, section))) => sections.push(section),
                Ok(None) => {}
                Err(refused) => return Err(refused.error),
            }
        }
        Ok(ParsedConfig {
            sections,
            continues_parts,
        })
    }
}

impl Ahead<'_> {
    /// Send the ready sections; if they are refused, keep them for the answer and
    /// send nothing more ahead.
    fn send_ready(&mut self) {
        let batch = std::mem::take(&mut self.ready);
        match (self.send)(batch) {
            Ok(()) => self.sent = true,
            Err(batch) => {
                self.ready = batch;
                self.open = false;
            }
        }
    }
}

/// A project whose key the answer refuses, and why.
struct Refused<'t> {
    error: LoadError,
    project: Project<'t>,
}

/// The section a project holds (`earlier`: an earlier copy of a project written
/// again, its entries flagged), with its key as written; `None` when it declares
/// nothing (no servers, no settings); the project back when its key is refused
/// (too long: the answer is that error), with the refusal.
fn section_of<'t>(
    text: &str,
    p: Project<'t>,
    earlier: bool,
) -> Result<Option<(String, Section)>, Box<Refused<'t>>> {
    let Some(Ready {
        mut servers,
        settings,
    }) = p.section
    else {
        return Ok(None);
    };
    if earlier {
        if let Ok(found) = &mut servers {
            flag_earlier_copy(found);
        }
    }
    if matches!(&servers, Ok(found) if found.is_empty())
        && settings.settings.is_empty()
        && settings.problems.is_empty()
    {
        return Ok(None);
    }
    let name = match checked_name_at(
        &p.key,
        || super::position::line_col(text, p.offset),
        "project key",
    ) {
        Ok(name) => name,
        Err(e) => {
            let project = Project {
                key: p.key,
                offset: p.offset,
                section: Some(Ready { servers, settings }),
            };
            return Err(Box::new(Refused { error: e, project }));
        }
    };
    let (servers, error) = match servers {
        Ok(found) => (found, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    Ok(Some((
        p.key.into_owned(),
        Section {
            project: Some(name),
            servers,
            error: section_error(error, settings.problems, settings.more_problems),
            settings: settings.settings,
        },
    )))
}

/// A project's approval settings (`clients::claude_project_settings`), their
/// positions resolved: each key's position (`at`: offset and position, one per
/// member) was taken when it was read.
fn settings_of(members: &[Member<'_>], at: &[(usize, (u32, u32))]) -> Settings {
    let mut pending = PendingSection::of_servers(None, Ok(Vec::new()));
    super::clients::claude_project_settings(members, &mut pending);
    // Settings are read in file order, so their keys' offsets ascend.
    let at = |offset: usize| {
        at.binary_search_by_key(&offset, |(o, _)| *o)
            .ok()
            .and_then(|i| at.get(i))
            .map_or((1, 1), |(_, at)| *at)
    };
    Settings {
        settings: pending
            .settings
            .into_iter()
            .map(|s| {
                let (line, column) = at(s.offset);
                ClientSetting {
                    line,
                    column,
                    value: s.value,
                }
            })
            .collect(),
        problems: pending
            .settings_problems
            .iter()
            .map(|p| problem_message(p, at(p.offset)))
            .collect(),
        more_problems: pending.more_problems,
    }
}

/// The union of a section's `mcpServers` and `servers` copies, as
/// `servers::union_of` makes it.
fn union(text: &str, opts: Options, scope: Scope) -> Result<Vec<ServerEntry>, LoadError> {
    let Scope { mcp, vsc } = scope;
    // The tree reader's order: each map's copies are checked before any name is.
    if let Some(e) = [mcp.map_error, vsc.map_error, mcp.name_error, vsc.name_error]
        .into_iter()
        .flatten()
        .next()
    {
        return Err(e);
    }
    let mut found = mcp.entries;
    flag_repeated_names(&mut found);
    flag_earlier_copy(found.get_mut(..mcp.last_copy_starts).unwrap_or_default());
    if vsc.copies == 0 {
        return Ok(found);
    }
    let mut servers = vsc.entries;
    flag_repeated_names(&mut servers);
    flag_earlier_copy(servers.get_mut(..vsc.last_copy_starts).unwrap_or_default());
    let (mcp_spans, vsc_spans) = (mcp.spans, vsc.spans);
    Ok(merge_maps(found, servers, |i, j| {
        match (mcp_spans.get(i), vsc_spans.get(j)) {
            (Some(&a), Some(&b)) => same_body(text, opts, a, b),
            _ => false,
        }
    }))
}

/// Whether the entry values at two spans of `text` are structurally equal
/// (`json::same_value` on their trees, parsed again with the options that
/// accepted them).
fn same_body(text: &str, opts: Options, a: (usize, usize), b: (usize, usize)) -> bool {
    let opts = Options {
        select: Select::All,
        ..opts
    };
    let tree =
        |(from, to): (usize, usize)| text.get(..to).and_then(|t| json::parse(t, from, opts).ok());
    match (tree(a), tree(b)) {
        (Some(x), Some(y)) => same_value(&x, &y),
        _ => false,
    }
}

/// An entry's value positions, packed: `offsets` (in field order) resolved by the
/// forward cursor, whose last position is the entry's key at `key_at`. Every value
/// of the entry starts after its key and before the next entry, so the cursor only
/// moves forward once they are visited in offset order (field order, for most
/// entries). `values` is scratch space, reused from entry to entry.
fn resolve(
    lines: &mut Lines<'_>,
    key_at: (u32, u32),
    offsets: &[(FieldRef, usize)],
    values: &mut Vec<ValueAt>,
) -> Vec<u8> {
    values.clear();
    values.extend(offsets.iter().map(|&(field, _)| ValueAt {
        field,
        line: 1,
        column: 1,
    }));
    let position = |lines: &mut Lines<'_>, values: &mut Vec<ValueAt>, i: usize| {
        if let (Some(v), Some(&(_, offset))) = (values.get_mut(i), offsets.get(i)) {
            (v.line, v.column) = lines.at(offset);
        }
    };
    if offsets
        .windows(2)
        .all(|w| matches!(w, [a, b] if a.1 <= b.1))
    {
        for i in 0..offsets.len() {
            position(lines, values, i);
        }
    } else {
        let mut order: Vec<usize> = (0..offsets.len()).collect();
        order.sort_by_key(|&i| offsets.get(i).map_or(0, |&(_, at)| at));
        for i in order {
            position(lines, values, i);
        }
    }
    crate::protocol::values::encode(key_at.0, key_at.1, values)
}

fn map_of(scope: &mut Scope, key: MapKey) -> &mut Map {
    match key {
        MapKey::McpServers => &mut scope.mcp,
        MapKey::Servers => &mut scope.vsc,
    }
}
