//! The effective view: per client, the servers that would actually start in a
//! session in the directory doctor ran in ([`Report::cwd`]), and why each other one
//! would not. Used by `doctor --servers` and by the report header's counts, so the
//! two never disagree. Pure over a [`Report`].
//!
//! Each client's rule (sources in docs/clients.md):
//! * Claude Code: a `managed-mcp.json` present excludes every other file; else the
//!   same name resolves local (`~/.claude.json` `projects[<session project>]`) over
//!   project (`.mcp.json`, the one nearer cwd first) over user (`~/.claude.json` top
//!   level). Names in the session project's `disabledMcpServers` are skipped in
//!   every scope; a project server starts without a prompt when approved, after a
//!   prompt when nothing decides (noted: not in `--dangerously-skip-permissions`
//!   or non-interactive sessions, `getProjectMcpServerStatus`), and never when rejected
//!   ([`crate::engines::approval::project_status`]: the settings of a session in
//!   cwd). A `projects[<path>]` section of another directory loads only in sessions
//!   there.
//! * Codex: project over user over system, merged per field: the highest layer's
//!   entry is shown as starting, the lower ones as merged into it; `enabled` is
//!   merged too (the highest layer that writes it decides). A project layer
//!   loads only in a trusted project (its trust is not read: noted).
//! * Gemini CLI: system over project over user (`customDeepMerge(systemDefaults,
//!   user, workspace, system)`, whole entries replace each other).
//! * VS Code (and Insiders): each file is its own collection: every file's server
//!   starts.
//! * Roo Code, Amazon Q Developer, Kiro: the project (workspace) file's entry wins
//!   over the user file's of the same name, also when it is disabled (Roo's
//!   `getServers`, both clients' documentation).
//! * Every other client: no precedence between its files is documented; every
//!   file's server is shown as starting, with that noted.
//!
//! A server disabled in its file (`Origin::disabled`), or whose reading starts
//! nothing, is never started.

use crate::hash::HashMap;
use crate::hash::HashMapExt;

use crate::engines::approval::{self, ProjectStatus, SettingAt};
use crate::model::{AuditedServer, Client, Launch, Layer, Report, Source};
use crate::protocol::SettingValue;

/// Whether the client asks before it starts a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// Starts without asking.
    No,
    /// Asks the user first (a Claude Code project server nothing approves).
    Asks,
    /// doctor does not know whether this client asks.
    NotKnown,
}

/// Why a server is not started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Switched off in its own file (`disabled: true`, `enabled = false`).
    Disabled,
    /// Listed in the session project's `disabledMcpServers`.
    DisabledInProject(SettingAt),
    /// Listed in `disabledMcpjsonServers`.
    Rejected(SettingAt),
    /// A `managed-mcp.json` has exclusive control.
    ManagedExclusive,
    /// Another file's entry of the same name wins (index into `Report::servers`).
    Overridden { by: usize },
    /// Codex merges it field by field into a higher layer's entry of the same name.
    MergedInto { by: usize },
    /// Codex: a lower layer's entry of the same name writes `enabled = false`, and
    /// this one does not write `enabled` (the merge keeps it).
    DisabledByMerge { by: usize },
    /// A `~/.claude.json` `projects[<path>]` section of another directory.
    OtherProject,
    /// The client's reading of the entry starts nothing.
    StartsNothing,
    /// Gemini CLI: named in `mcp.excluded` (`excludeMCPServers`).
    Excluded(SettingAt),
    /// Gemini CLI: an `mcp.allowed` (`allowMCPServers`) list applies and does not
    /// name it.
    NotAllowed(SettingAt),
}

/// What happens to one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Starts(Prompt),
    NotStarted(Why),
}

/// One server of one client's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Index into [`Report::servers`].
    pub server: usize,
    pub state: State,
    /// A caveat of the client's rule that applies to this server.
    pub note: Option<&'static str>,
}

/// One client's servers, in report order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientView {
    /// `None`: a `--config` file whose name does not say which client reads it.
    pub client: Option<Client>,
    pub entries: Vec<Entry>,
}

impl ClientView {
    /// The client's name as printed.
    pub fn name(&self) -> &'static str {
        self.client
            .map_or("--config (client not known)", Client::name)
    }

    /// How many servers would start, and how many of them after a prompt.
    pub fn counts(&self) -> (usize, usize) {
        let mut starting = 0;
        let mut prompting = 0;
        for entry in &self.entries {
            if let State::Starts(prompt) = entry.state {
                starting += 1;
                prompting += usize::from(prompt == Prompt::Asks);
            }
        }
        (starting, prompting)
    }
}

/// Every client's view, clients in [`Client`] order (`--config` files of no known client last).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effective {
    pub clients: Vec<ClientView>,
}

const CODEX_PROJECT_NOTE: &str =
    "a project layer loads only when Codex trusts the project (trust_level is not read)";
const CLAUDE_PROMPT_NOTE: &str = "Claude Code starts it without asking in --dangerously-skip-permissions and non-interactive (-p, SDK) sessions";
const UNDOCUMENTED_NOTE: &str =
    "no precedence between this client's files is documented: every file's server is shown";

/// The effective view of `report`.
pub fn compute(report: &Report) -> Effective {
    let mut groups: Vec<(Option<Client>, Vec<usize>)> = Vec::new();
    for (index, server) in report.servers.iter().enumerate() {
        let client = report.sources.get(server.source).and_then(|s| s.client_id);
        match groups.iter_mut().find(|(c, _)| *c == client) {
            Some((_, list)) => list.push(index),
            None => groups.push((client, vec![index])),
        }
    }
    // Known clients in enum order, the unknown group last.
    groups.sort_by_key(|(c, _)| (c.is_none(), *c));
    // The join the approval engine kept, else (a report built elsewhere) a new one.
    let built;
    let join = match report.approval_join.get() {
        Some(join) => join,
        None => {
            built = approval::Join::new(report);
            &built
        }
    };
    let clients = groups
        .into_iter()
        .map(|(client, servers)| ClientView {
            client,
            entries: match client {
                Some(Client::ClaudeCode) => claude_code(report, join, &servers),
                Some(Client::Codex) => layered(report, &servers, Rule::Codex),
                Some(Client::GeminiCli) => layered(report, &servers, Rule::Gemini),
                Some(Client::RooCode | Client::AmazonQ | Client::Kiro) => {
                    layered(report, &servers, Rule::ProjectOverUser)
                }
                Some(Client::VsCode | Client::VsCodeInsiders) | None => {
                    every_file(report, &servers, None)
                }
                Some(_) => every_file(report, &servers, Some(UNDOCUMENTED_NOTE)),
            },
        })
        .collect();
    Effective { clients }
}

fn source_of<'r>(report: &'r Report, server: &AuditedServer) -> Option<&'r Source> {
    report.sources.get(server.source)
}

/// Disabled in its file, or starting nothing: never started, whatever the client.
fn never_starts(server: &AuditedServer) -> Option<Why> {
    if server.spec.origin.disabled {
        Some(Why::Disabled)
    } else if matches!(server.spec.launch, Launch::Nothing) {
        Some(Why::StartsNothing)
    } else {
        None
    }
}

/// Depth of a source's project directory: a `.mcp.json` nearer cwd is deeper.
fn depth(source: Option<&Source>) -> usize {
    source
        .and_then(|s| s.project_dir.as_deref())
        .map_or(0, |d| d.components().count())
}

/// Among the starting entries, per server name, keep the one of highest `rank` and
/// mark the others with `lost`.
/// With `disabled_wins`, an entry disabled in its file still takes its name (the
/// clients whose files merge by name: a project file's disabled entry replaces the
/// user file's, so neither starts).
fn resolve_names(
    report: &Report,
    entries: &mut [Entry],
    rank: impl Fn(&AuditedServer) -> (u8, usize),
    lost: impl Fn(usize) -> Why,
    disabled_wins: bool,
) {
    let competes = |state: &State| {
        matches!(state, State::Starts(_))
            || (disabled_wins && *state == State::NotStarted(Why::Disabled))
    };
    let mut best: HashMap<&str, (u8, usize, usize)> = HashMap::new();
    for entry in entries.iter() {
        if !competes(&entry.state) {
            continue;
        }
        let server = &report.servers[entry.server];
        let (r, d) = rank(server);
        let key = (r, d, entry.server);
        let slot = best
            .entry(server.spec.origin.key.name.as_str())
            .or_insert(key);
        if key > *slot {
            *slot = key;
        }
    }
    for entry in entries.iter_mut() {
        if !matches!(entry.state, State::Starts(_)) {
            continue;
        }
        let name = report.servers[entry.server].spec.origin.key.name.as_str();
        if let Some(&(_, _, winner)) = best.get(name) {
            if winner != entry.server {
                entry.state = State::NotStarted(lost(winner));
            }
        }
    }
}

fn claude_code(report: &Report, join: &approval::Join, servers: &[usize]) -> Vec<Entry> {
    // The `projects[<path>]` key of the session: the longest one cwd is in (a
    // `.claude/settings.local.json`, though of the same layer, is not a key).
    let session = join.cwd_section();
    let managed = servers
        .iter()
        .any(|&i| source_of(report, &report.servers[i]).is_some_and(|s| s.layer == Layer::Managed));
    // `projects[<session>].disabledMcpServers`: skipped in every scope.
    let mut skipped: HashMap<&str, SettingAt> = HashMap::new();
    for &i in &join.settings {
        let source = &report.sources[i];
        let here = match (&source.project_dir, session) {
            (None, _) => true,
            (Some(p), Some(s)) => p == s,
            (Some(_), None) => false,
        };
        if !here {
            continue;
        }
        for setting in &source.settings {
            if let SettingValue::DisabledServers(names) = &setting.value {
                for name in names {
                    skipped.entry(name.as_str()).or_insert(SettingAt::of(
                        i,
                        setting,
                        "disabledMcpServers",
                    ));
                }
            }
        }
    }
    let mut entries: Vec<Entry> = servers
        .iter()
        .map(|&index| {
            let server = &report.servers[index];
            let source = source_of(report, server);
            let layer = source.map(|s| s.layer);
            let state = if managed && layer != Some(Layer::Managed) {
                State::NotStarted(Why::ManagedExclusive)
            } else if let Some(why) = never_starts(server) {
                State::NotStarted(why)
            } else if layer == Some(Layer::Local)
                && source.and_then(|s| s.project_dir.as_deref()) != session
            {
                State::NotStarted(Why::OtherProject)
            } else if let Some(at) = skipped.get(server.spec.origin.key.name.as_str()) {
                State::NotStarted(Why::DisabledInProject(*at))
            } else {
                match approval::project_status(report, join, server) {
                    Some(ProjectStatus::Rejected(at)) => State::NotStarted(Why::Rejected(at)),
                    Some(ProjectStatus::Pending) => State::Starts(Prompt::Asks),
                    Some(ProjectStatus::Approved(_)) | None => State::Starts(Prompt::No),
                }
            };
            Entry {
                server: index,
                note: (state == State::Starts(Prompt::Asks)).then_some(CLAUDE_PROMPT_NOTE),
                state,
            }
        })
        .collect();
    let rank = |server: &AuditedServer| {
        let source = source_of(report, server);
        let r = match source.map(|s| s.layer) {
            Some(Layer::Managed) => 4,
            Some(Layer::Local) => 3,
            Some(Layer::Project) => 2,
            Some(Layer::User) => 1,
            _ => 0,
        };
        (r, depth(source))
    };
    resolve_names(
        report,
        &mut entries,
        rank,
        |by| Why::Overridden { by },
        false,
    );
    entries
}

/// The clients whose files layer by a fixed order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    Codex,
    Gemini,
    /// A project file's entry replaces the user file's of the same name.
    ProjectOverUser,
}

fn layered(report: &Report, servers: &[usize], rule: Rule) -> Vec<Entry> {
    let mut entries: Vec<Entry> = servers
        .iter()
        .map(|&index| {
            let server = &report.servers[index];
            let project = source_of(report, server).is_some_and(|s| s.layer == Layer::Project);
            Entry {
                server: index,
                state: match never_starts(server) {
                    Some(why) => State::NotStarted(why),
                    None => State::Starts(Prompt::NotKnown),
                },
                note: (rule == Rule::Codex && project).then_some(CODEX_PROJECT_NOTE),
            }
        })
        .collect();
    let rank = |server: &AuditedServer| {
        let source = source_of(report, server);
        let r = match (rule, source.map(|s| s.layer)) {
            (Rule::Codex, Some(Layer::Project)) => 3,
            (Rule::Codex, Some(Layer::User)) => 2,
            (Rule::Codex, Some(Layer::System)) => 1,
            (Rule::Gemini, Some(Layer::System)) => 3,
            (Rule::Gemini, Some(Layer::Project)) => 2,
            (Rule::Gemini, Some(Layer::User)) => 1,
            (Rule::ProjectOverUser, Some(Layer::Project)) => 2,
            (Rule::ProjectOverUser, Some(Layer::User)) => 1,
            _ => 0,
        };
        (r, depth(source))
    };
    match rule {
        Rule::Codex => codex_merge(report, &mut entries, rank),
        Rule::Gemini => {
            resolve_names(
                report,
                &mut entries,
                rank,
                |by| Why::Overridden { by },
                false,
            );
            gemini_server_lists(report, &mut entries);
        }
        Rule::ProjectOverUser => resolve_names(
            report,
            &mut entries,
            rank,
            |by| Why::Overridden { by },
            true,
        ),
    }
    entries
}

/// Codex merges its layers field by field (`merge_toml_values`), `enabled` too: the
/// highest layer's entry of a name is the one that starts, every lower one is merged
/// into it, and the highest layer that writes `enabled` decides whether it starts (a
/// project's `enabled = false` switches off the user's server; a user's `enabled =
/// false` is kept by a project entry that does not write `enabled`).
fn codex_merge(
    report: &Report,
    entries: &mut [Entry],
    rank: impl Fn(&AuditedServer) -> (u8, usize),
) {
    // Per name: the winner and the entry whose `enabled` applies, by (rank, depth, index).
    type Key = (u8, usize, usize);
    /// The winner, and the entry whose `enabled` applies with its value.
    type Merged = (Key, Option<(Key, bool)>);
    let mut best: HashMap<&str, Merged> = HashMap::new();
    for entry in entries.iter() {
        let server = &report.servers[entry.server];
        if matches!(entry.state, State::NotStarted(Why::StartsNothing)) {
            continue;
        }
        let (r, d) = rank(server);
        let key = (r, d, entry.server);
        let enabled = server
            .spec
            .declared
            .extra()
            .enabled
            .or(server.spec.origin.disabled.then_some(false))
            .map(|on| (key, on));
        let slot = best
            .entry(server.spec.origin.key.name.as_str())
            .or_insert((key, enabled));
        if key > slot.0 {
            slot.0 = key;
        }
        if enabled.is_some_and(|(k, _)| slot.1.is_none_or(|(best, _)| k > best)) {
            slot.1 = enabled;
        }
    }
    for entry in entries.iter_mut() {
        if matches!(entry.state, State::NotStarted(Why::StartsNothing)) {
            continue;
        }
        let name = report.servers[entry.server].spec.origin.key.name.as_str();
        let Some(&((_, _, winner), enabled)) = best.get(name) else {
            continue;
        };
        entry.state = if winner != entry.server {
            State::NotStarted(Why::MergedInto { by: winner })
        } else {
            match enabled {
                Some(((_, _, by), false)) if by == winner => State::NotStarted(Why::Disabled),
                Some(((_, _, by), false)) => State::NotStarted(Why::DisabledByMerge { by }),
                _ => State::Starts(Prompt::NotKnown),
            }
        };
    }
}

/// Gemini CLI's `mcp.excluded` and `mcp.allowed` (`excludeMCPServers`,
/// `allowMCPServers`): a name in any excluded list does not load; when an allowed
/// list is set, the one of the highest layer (system over project over user, as the
/// settings merge) decides, and names it does not list do not load.
fn gemini_server_lists(report: &Report, entries: &mut [Entry]) {
    let rank = |layer: Layer| match layer {
        Layer::System | Layer::Managed => 3,
        Layer::Project | Layer::Local => 2,
        _ => 1,
    };
    let mut excluded: HashMap<&str, SettingAt> = HashMap::new();
    let mut allowed: Option<(u8, usize, SettingAt, &[String])> = None;
    for (i, source) in report.sources.iter().enumerate() {
        if source.client_id != Some(Client::GeminiCli) {
            continue;
        }
        for setting in &source.settings {
            let at = |key| SettingAt::of(i, setting, key);
            match &setting.value {
                SettingValue::ExcludedServers(names) => {
                    for name in names {
                        excluded.entry(name.as_str()).or_insert(at("mcp.excluded"));
                    }
                }
                SettingValue::AllowedServers(names) if !names.is_empty() => {
                    let r = rank(source.layer);
                    if allowed
                        .as_ref()
                        .is_none_or(|(best, j, _, _)| (r, i) > (*best, *j))
                    {
                        allowed = Some((r, i, at("mcp.allowed"), names.as_slice()));
                    }
                }
                _ => {}
            }
        }
    }
    for entry in entries.iter_mut() {
        if !matches!(entry.state, State::Starts(_)) {
            continue;
        }
        let name = report.servers[entry.server].spec.origin.key.name.as_str();
        if let Some(at) = excluded.get(name) {
            entry.state = State::NotStarted(Why::Excluded(*at));
        } else if let Some((_, _, at, names)) = &allowed {
            if !names.iter().any(|n| n == name) {
                entry.state = State::NotStarted(Why::NotAllowed(*at));
            }
        }
    }
}

fn every_file(report: &Report, servers: &[usize], note: Option<&'static str>) -> Vec<Entry> {
    // The note only where it matters: a name declared in more than one file.
    let mut files_per_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in servers {
        let server = &report.servers[i];
        let files = files_per_name
            .entry(server.spec.origin.key.name.as_str())
            .or_default();
        if !files.contains(&server.source) {
            files.push(server.source);
        }
    }
    servers
        .iter()
        .map(|&index| {
            let server = &report.servers[index];
            let shared = files_per_name
                .get(server.spec.origin.key.name.as_str())
                .is_some_and(|f| f.len() > 1);
            Entry {
                server: index,
                state: match never_starts(server) {
                    Some(why) => State::NotStarted(why),
                    None => State::Starts(Prompt::NotKnown),
                },
                note: note.filter(|_| shared),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::approval::tests::{names, Fixture};
    use crate::protocol::ServerExtra;

    const CWD: &str = "/w/repo/sub";

    fn view(f: &Fixture, client: Client) -> Vec<(String, State)> {
        compute(&f.report)
            .clients
            .into_iter()
            .find(|c| c.client == Some(client))
            .map(|c| {
                c.entries
                    .into_iter()
                    .map(|e| (f.report.servers[e.server].target.to_string(), e.state))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn starts(p: Prompt) -> State {
        State::Starts(p)
    }

    #[test]
    fn claude_code_local_over_nearer_project_over_farther_project_over_user() {
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        let outer = f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/.mcp.json",
            Some("/w"),
            vec![],
        );
        let inner = f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.mcp.json",
            Some("/w/repo"),
            vec![],
        );
        let local = f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/w/repo/sub]",
            Some(CWD),
            vec![],
        );
        let elsewhere = f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/x]",
            Some("/x"),
            vec![],
        );
        let u = f.server(user, "s");
        let o = f.server(outer, "s");
        let i = f.server(inner, "s");
        f.server(inner, "t");
        f.server(outer, "t");
        f.server(user, "only-user");
        let l = f.server(local, "s");
        f.server(elsewhere, "s");
        let v = view(&f, Client::ClaudeCode);
        let state = |t: &str| v.iter().find(|(x, _)| x == t).map(|(_, s)| s.clone());
        assert_eq!(
            state("~/.claude.json#s"),
            Some(State::NotStarted(Why::Overridden { by: l }))
        );
        assert_eq!(
            state("/w/.mcp.json#s"),
            Some(State::NotStarted(Why::Overridden { by: l }))
        );
        assert_eq!(
            state("/w/repo/.mcp.json#s"),
            Some(State::NotStarted(Why::Overridden { by: l }))
        );
        assert_eq!(
            state("~/.claude.json#projects[/w/repo/sub]#s"),
            Some(starts(Prompt::No))
        );
        assert_eq!(
            state("~/.claude.json#projects[/x]#s"),
            Some(State::NotStarted(Why::OtherProject))
        );
        // Nearer .mcp.json wins; both would prompt (nothing approves them).
        assert_eq!(state("/w/repo/.mcp.json#t"), Some(starts(Prompt::Asks)));
        assert!(matches!(
            state("/w/.mcp.json#t"),
            Some(State::NotStarted(Why::Overridden { .. }))
        ));
        assert_eq!(state("~/.claude.json#only-user"), Some(starts(Prompt::No)));
        let _ = (u, o, i);
        let counts = compute(&f.report).clients[0].counts();
        assert_eq!(counts, (3, 1));
    }

    #[test]
    fn managed_mcp_json_excludes_every_other_file() {
        let mut f = Fixture::new(CWD);
        let managed = f.source(
            Client::ClaudeCode,
            Layer::Managed,
            "/etc/claude-code/managed-mcp.json",
            None,
            vec![],
        );
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        let project = f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.mcp.json",
            Some("/w/repo"),
            vec![],
        );
        f.server(managed, "corp");
        f.server(user, "mine");
        f.server(project, "repo");
        let v = view(&f, Client::ClaudeCode);
        assert_eq!(v[0].1, starts(Prompt::No));
        assert_eq!(v[1].1, State::NotStarted(Why::ManagedExclusive));
        assert_eq!(v[2].1, State::NotStarted(Why::ManagedExclusive));
        // Near miss: no managed file, both start.
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        f.server(user, "mine");
        assert_eq!(view(&f, Client::ClaudeCode)[0].1, starts(Prompt::No));
    }

    #[test]
    fn approvals_decide_prompts_and_rejections() {
        let mut f = Fixture::new(CWD);
        let project = f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.mcp.json",
            Some("/w/repo"),
            vec![],
        );
        f.server(project, "approved");
        f.server(project, "asked");
        f.server(project, "rejected");
        f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/sub/.claude/settings.json",
            Some(CWD),
            vec![
                SettingValue::EnabledProjectServers(names(&["approved", "rejected"])),
                SettingValue::DisabledProjectServers(names(&["rejected"])),
            ],
        );
        let v = view(&f, Client::ClaudeCode);
        assert_eq!(v[0].1, starts(Prompt::No));
        assert_eq!(v[1].1, starts(Prompt::Asks));
        assert!(matches!(v[2].1, State::NotStarted(Why::Rejected(_))));
    }

    #[test]
    fn disabled_flags_never_start() {
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/w/repo/sub]",
            Some(CWD),
            vec![SettingValue::DisabledServers(names(&["off"]))],
        );
        f.server(user, "off");
        f.server(user, "on");
        let cursor = f.source(
            Client::Cursor,
            Layer::User,
            "~/.cursor/mcp.json",
            None,
            vec![],
        );
        let c = f.server(cursor, "x");
        f.report.servers[c].spec.origin.disabled = true;
        let v = view(&f, Client::ClaudeCode);
        assert!(matches!(
            v[0].1,
            State::NotStarted(Why::DisabledInProject(_))
        ));
        assert_eq!(v[1].1, starts(Prompt::No));
        assert_eq!(
            view(&f, Client::Cursor)[0].1,
            State::NotStarted(Why::Disabled)
        );
        // Another project's disabledMcpServers is a near miss.
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        f.source(
            Client::ClaudeCode,
            Layer::Local,
            "~/.claude.json#projects[/x]",
            Some("/x"),
            vec![SettingValue::DisabledServers(names(&["off"]))],
        );
        f.server(user, "off");
        assert_eq!(view(&f, Client::ClaudeCode)[0].1, starts(Prompt::No));
    }

    #[test]
    fn codex_merges_project_over_user_over_system() {
        let mut f = Fixture::new(CWD);
        let system = f.source(
            Client::Codex,
            Layer::System,
            "/etc/codex/config.toml",
            None,
            vec![],
        );
        let user = f.source(
            Client::Codex,
            Layer::User,
            "~/.codex/config.toml",
            None,
            vec![],
        );
        let project = f.source(
            Client::Codex,
            Layer::Project,
            "/w/repo/.codex/config.toml",
            Some("/w/repo"),
            vec![],
        );
        f.server(system, "gh");
        f.server(user, "gh");
        let p = f.server(project, "gh");
        f.server(system, "only-system");
        let entries = &compute(&f.report).clients[0].entries;
        assert_eq!(
            entries[0].state,
            State::NotStarted(Why::MergedInto { by: p })
        );
        assert_eq!(
            entries[1].state,
            State::NotStarted(Why::MergedInto { by: p })
        );
        assert_eq!(entries[2].state, starts(Prompt::NotKnown));
        assert_eq!(entries[2].note, Some(CODEX_PROJECT_NOTE));
        assert_eq!(entries[3].state, starts(Prompt::NotKnown));
        assert_eq!(entries[3].note, None);
    }

    #[test]
    fn roo_amazon_q_and_kiro_project_files_win_over_user_files() {
        for client in [Client::RooCode, Client::AmazonQ, Client::Kiro] {
            let mut f = Fixture::new(CWD);
            let user = f.source(client, Layer::User, "~/user.json", None, vec![]);
            let project = f.source(
                client,
                Layer::Project,
                "/w/repo/project.json",
                Some("/w/repo"),
                vec![],
            );
            f.server(user, "a");
            let p = f.server(project, "a");
            f.server(user, "only-user");
            let entries = &compute(&f.report).clients[0].entries;
            assert_eq!(
                entries[0].state,
                State::NotStarted(Why::Overridden { by: p })
            );
            assert_eq!(entries[1].state, starts(Prompt::NotKnown));
            assert_eq!(entries[2].state, starts(Prompt::NotKnown));
        }
    }

    #[test]
    fn gemini_excluded_and_allowed_lists_decide_what_loads() {
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::GeminiCli,
            Layer::User,
            "~/.gemini/settings.json",
            None,
            vec![
                SettingValue::ExcludedServers(names(&["gone"])),
                SettingValue::AllowedServers(names(&["kept", "gone", "other"])),
            ],
        );
        let kept = f.server(user, "kept");
        let gone = f.server(user, "gone");
        let unlisted = f.server(user, "unlisted");
        let view = compute(&f.report);
        let state = |i: usize| {
            view.clients[0]
                .entries
                .iter()
                .find(|e| e.server == i)
                .map(|e| e.state.clone())
        };
        assert_eq!(state(kept), Some(starts(Prompt::NotKnown)));
        assert!(matches!(
            state(gone),
            Some(State::NotStarted(Why::Excluded(_)))
        ));
        assert!(matches!(
            state(unlisted),
            Some(State::NotStarted(Why::NotAllowed(_)))
        ));
        // A higher layer's allowed list replaces the user's.
        f.source(
            Client::GeminiCli,
            Layer::System,
            "/etc/gemini-cli/settings.json",
            None,
            vec![SettingValue::AllowedServers(names(&["unlisted"]))],
        );
        let view = compute(&f.report);
        let state = |i: usize| {
            view.clients[0]
                .entries
                .iter()
                .find(|e| e.server == i)
                .map(|e| e.state.clone())
        };
        assert!(matches!(
            state(kept),
            Some(State::NotStarted(Why::NotAllowed(_)))
        ));
        assert_eq!(state(unlisted), Some(starts(Prompt::NotKnown)));
        // Near miss: an empty allowed list restricts nothing here.
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::GeminiCli,
            Layer::User,
            "~/.gemini/settings.json",
            None,
            vec![SettingValue::AllowedServers(vec![])],
        );
        f.server(user, "a");
        assert_eq!(
            compute(&f.report).clients[0].entries[0].state,
            starts(Prompt::NotKnown)
        );
    }

    #[test]
    fn gemini_system_over_project_over_user() {
        let mut f = Fixture::new(CWD);
        let user = f.source(
            Client::GeminiCli,
            Layer::User,
            "~/.gemini/settings.json",
            None,
            vec![],
        );
        let project = f.source(
            Client::GeminiCli,
            Layer::Project,
            "/w/repo/.gemini/settings.json",
            Some("/w/repo"),
            vec![],
        );
        let u = f.server(user, "a");
        let p = f.server(project, "a");
        f.server_with(
            user,
            "b",
            ServerExtra {
                trust: Some(true),
                ..Default::default()
            },
        );
        let entries = &compute(&f.report).clients[0].entries;
        assert_eq!(
            entries[0].state,
            State::NotStarted(Why::Overridden { by: p })
        );
        assert_eq!(entries[1].state, starts(Prompt::NotKnown));
        let system = f.source(
            Client::GeminiCli,
            Layer::System,
            "/etc/gemini-cli/settings.json",
            None,
            vec![],
        );
        let s = f.server(system, "a");
        let entries = &compute(&f.report).clients[0].entries;
        assert_eq!(
            entries[0].state,
            State::NotStarted(Why::Overridden { by: s })
        );
        assert_eq!(
            entries[1].state,
            State::NotStarted(Why::Overridden { by: s })
        );
        let _ = u;
    }

    #[test]
    fn vs_code_and_cursor_show_every_file() {
        let mut f = Fixture::new(CWD);
        for client in [Client::VsCode, Client::Cursor] {
            let user = f.source(client, Layer::User, "~/u.json", None, vec![]);
            let project = f.source(
                client,
                Layer::Project,
                "/w/repo/p.json",
                Some("/w/repo"),
                vec![],
            );
            f.server(user, "a");
            f.server(project, "a");
            f.server(project, "b");
        }
        let view = compute(&f.report);
        let cursor = view
            .clients
            .iter()
            .find(|c| c.client == Some(Client::Cursor));
        let vscode = view
            .clients
            .iter()
            .find(|c| c.client == Some(Client::VsCode));
        for (c, note) in [(vscode, None), (cursor, Some(UNDOCUMENTED_NOTE))] {
            let c = c.expect("client shown");
            assert_eq!(c.counts(), (3, 0));
            assert_eq!(c.entries[0].note, note);
            assert_eq!(c.entries[2].note, None, "b is in one file only");
        }
    }

    #[test]
    fn clients_are_grouped_and_ordered() {
        let mut f = Fixture::new(CWD);
        let cursor = f.source(
            Client::Cursor,
            Layer::User,
            "~/.cursor/mcp.json",
            None,
            vec![],
        );
        let claude = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        f.server(cursor, "a");
        f.server(claude, "b");
        f.server(cursor, "c");
        f.report.sources[cursor].client_id = None;
        let view = compute(&f.report);
        let order: Vec<&str> = view.clients.iter().map(ClientView::name).collect();
        assert_eq!(order, ["Claude Code", "--config (client not known)"]);
        assert_eq!(view.clients[1].entries.len(), 2);
    }
}
