//! Checked, parent-side data: what the engines and renderers consume.
//!
//! Values here have already crossed the child→parent boundary and passed
//! [`crate::parent::validate`]; their strings are bounded but still hostile
//! (they may hold control characters), so every renderer passes them through
//! `crate::text::safe_text`.

use crate::rules::{RuleId, Severity};

/// What one client starts for one server entry, read the way that client reads it
/// (its transport rule, its field names, its variable expansion applied with every
/// variable unset). Resolved once, in [`crate::reading`], and used by the engines,
/// lock coverage, Next steps and `--pin` alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A program the client spawns and talks to over stdio.
    Stdio(StdioLaunch),
    /// An endpoint the client connects to.
    Remote(RemoteLaunch),
    /// Neither a command nor an endpoint this client would use: it starts nothing
    /// (and reports the entry as invalid).
    Nothing,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioLaunch {
    /// Never empty.
    pub command: String,
    pub args: Vec<String>,
    /// In file order; of a repeated key only the last copy.
    pub env: Vec<(String, String)>,
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteLaunch {
    pub transport: Transport,
    /// Never empty.
    pub url: String,
    /// Headers the client sends, in file order; for Codex also the ones it builds
    /// from environment variables (`Authorization: Bearer ${NAME}` for
    /// `bearer_token_env_var`, `${NAME}` values for `env_http_headers`).
    pub headers: Vec<(String, String)>,
}

/// The remote transport a client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP (VS Code tries it first and falls back to SSE).
    Http,
    Sse,
    WebSocket,
    /// The client picks (an entry with a URL and no `type`).
    Unspecified,
}

impl Launch {
    /// The word `--inventory` and the docs use: `stdio`, `http`, `sse`, `ws`,
    /// `remote`, `none`.
    pub fn kind(&self) -> &'static str {
        match self {
            Launch::Stdio(_) => "stdio",
            Launch::Remote(r) => match r.transport {
                Transport::Http => "http",
                Transport::Sse => "sse",
                Transport::WebSocket => "ws",
                Transport::Unspecified => "remote",
            },
            Launch::Nothing => "none",
        }
    }
}

/// Where a server's reading came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// The clients that read the entry this way (several when they agree).
    pub readers: crate::reading::Readers,
    /// Where the entry is in its file, as written.
    pub key: EntryKey,
    /// Variable references the launch depends on, as written (`${RUNNER:-npx}`).
    pub variables: Vec<String>,
    /// The entry is switched off in the file (Codex `enabled = false`, JSON
    /// `disabled: true`): audited and shown, never counted as running.
    pub disabled: bool,
    /// Where the entry's values are in its file (shared by the entry's readings);
    /// `None` when the child sent none (a spec built in a test).
    pub values: Option<std::sync::Arc<ValuePositions>>,
}

/// Where one entry's values are in its file, sorted by [`LocatedValue::field`]
/// (stably: of two values of one field, the first the child sent comes first) so
/// that [`ServerSpec::locate`] is a binary search: an entry holds up to 12,288
/// values and each may have a finding.
///
/// Worked out the first time a finding asks, from what the child sent (kept
/// packed until then): most entries of a large file have no finding about one of
/// their values, and working every entry's out as it arrived was about a twelfth
/// of the parent's main thread on the large home (its peak memory measured the same
/// either way).
///
/// One allocation per entry: the bytes and the function that reads them, rather
/// than a boxed closure owning a buffer (two allocations and 88 bytes besides the
/// buffer, for each of a large home's 20,000 entries).
pub struct ValuePositions {
    worked_out: std::sync::OnceLock<Box<[LocatedValue]>>,
    /// Everything the reader needs, in the form its writer chose.
    packed: Box<[u8]>,
    read: fn(&[u8]) -> Vec<LocatedValue>,
}

impl ValuePositions {
    /// Positions `read` works out of `packed` when first asked for.
    pub fn later(packed: Box<[u8]>, read: fn(&[u8]) -> Vec<LocatedValue>) -> Self {
        ValuePositions {
            worked_out: std::sync::OnceLock::new(),
            packed,
            read,
        }
    }

    /// The positions (worked out now if they were not yet).
    pub fn get(&self) -> &[LocatedValue] {
        self.worked_out
            .get_or_init(|| (self.read)(&self.packed).into_boxed_slice())
    }
}

impl std::fmt::Debug for ValuePositions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.get()).finish()
    }
}

/// Two entries' positions are equal when they locate the same values, whether or
/// not either was worked out yet.
impl PartialEq for ValuePositions {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for ValuePositions {}

/// Where one value of a server entry starts, by the field findings name it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedValue {
    /// The field as engines name it: the launch's terms (`env.NAME`, `args[i]`)
    /// for what a launch carries, the file's spelling for the rest (the `url` field
    /// is `Named("url")`: [`FieldPath::Url`] is the endpoint, whichever field it
    /// came from).
    pub field: FieldPath,
    /// The field as the file spells it (`http_headers.X`, `command[2]` in OpenCode,
    /// `env_vars[0]` for a Codex forwarded variable).
    pub spelled: FieldPath,
    pub at: Position,
}

/// Where an entry is in its file: `mcpServers.<name>`, `servers.<name>`,
/// `mcp_servers.<name>` (Codex), `projects[<key>].mcpServers.<name>`, or the bare
/// `<name>` of a flat `.mcp.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryKey {
    /// `projects[<key>]` of `~/.claude.json` (shared by the section's servers).
    pub project: Option<std::sync::Arc<str>>,
    /// `mcpServers`, `servers`, `mcp_servers`, or empty (flat).
    pub map: &'static str,
    /// The server's name exactly as written.
    pub name: String,
}

impl EntryKey {
    /// The dotted path, as `--inventory` prints it.
    pub fn path(&self) -> String {
        let mut out = String::new();
        if let Some(p) = &self.project {
            out.push_str("projects[");
            out.push_str(p);
            out.push_str("].");
        }
        if !self.map.is_empty() {
            out.push_str(self.map);
            out.push('.');
        }
        out.push_str(&self.name);
        out
    }
}

/// One configured MCP server: one client's reading of one entry, plus the entry as
/// written (so credentials in fields the reading ignores are still found). Built
/// only by [`crate::reading`] from a checked record, or by the constructors below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    pub launch: Launch,
    /// The entry's fields as written (before expansion), except those the launch
    /// carries verbatim: an entry's only reading moves those into the launch
    /// rather than copy them. The launch and `declared` together are the whole
    /// entry, which is what the credential scans read. A field with a variable
    /// reference is never moved.
    pub declared: std::sync::Arc<crate::protocol::ServerBody>,
    pub origin: Origin,
}

impl Default for ServerSpec {
    fn default() -> Self {
        ServerSpec {
            launch: Launch::Nothing,
            declared: std::sync::Arc::default(),
            origin: Origin::default(),
        }
    }
}

impl ServerSpec {
    /// A spec whose declared fields are exactly its launch (tests, fuzz targets).
    pub fn from_launch(launch: Launch) -> ServerSpec {
        let mut body = crate::protocol::ServerBody::default();
        match &launch {
            Launch::Stdio(s) => {
                body.command = Some(s.command.clone());
                body.args = s.args.clone();
                body.env = s.env.clone();
                if s.cwd.is_some() {
                    body.extra = vec![crate::protocol::ServerExtra {
                        cwd: s.cwd.clone(),
                        ..crate::protocol::ServerExtra::default()
                    }];
                }
            }
            Launch::Remote(r) => {
                body.url = Some(r.url.clone());
                body.headers = r.headers.clone();
            }
            Launch::Nothing => {}
        }
        ServerSpec {
            launch,
            declared: std::sync::Arc::new(body),
            origin: Origin::default(),
        }
    }

    /// `command args…` over stdio.
    pub fn stdio(command: &str, args: &[&str]) -> ServerSpec {
        ServerSpec::from_launch(Launch::Stdio(StdioLaunch {
            command: command.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
            cwd: None,
        }))
    }

    /// An endpoint with no declared transport.
    pub fn remote(url: &str) -> ServerSpec {
        ServerSpec::from_launch(Launch::Remote(RemoteLaunch {
            transport: Transport::Unspecified,
            url: url.to_string(),
            headers: Vec::new(),
        }))
    }

    /// This spec with `env` set (stdio) and declared.
    pub fn with_env(mut self, env: Vec<(String, String)>) -> ServerSpec {
        if let Launch::Stdio(s) = &mut self.launch {
            s.env = env.clone();
        }
        std::sync::Arc::make_mut(&mut self.declared).env = env;
        self
    }

    /// This spec with `headers` set (remote) and declared.
    pub fn with_headers(mut self, headers: Vec<(String, String)>) -> ServerSpec {
        if let Launch::Remote(r) = &mut self.launch {
            r.headers = headers.clone();
        }
        std::sync::Arc::make_mut(&mut self.declared).headers = headers;
        self
    }

    /// The endpoint, for a remote launch.
    pub fn remote_url(&self) -> Option<&str> {
        match &self.launch {
            Launch::Remote(r) => Some(&r.url),
            _ => None,
        }
    }

    /// The program, for a stdio launch (never an empty one).
    pub fn launch_command(&self) -> Option<&str> {
        match &self.launch {
            Launch::Stdio(s) => Some(s.command.as_str()).filter(|c| !c.is_empty()),
            _ => None,
        }
    }

    /// The program's arguments (empty unless stdio).
    pub fn args(&self) -> &[String] {
        match &self.launch {
            Launch::Stdio(s) => &s.args,
            _ => &[],
        }
    }

    /// The environment given to a stdio server (empty otherwise).
    pub fn env(&self) -> &[(String, String)] {
        match &self.launch {
            Launch::Stdio(s) => &s.env,
            _ => &[],
        }
    }

    /// The headers sent to a remote server (empty otherwise).
    pub fn headers(&self) -> &[(String, String)] {
        match &self.launch {
            Launch::Remote(r) => &r.headers,
            _ => &[],
        }
    }
}

/// A finding's message: constant text borrowed, or text made for the finding.
pub type Message = std::borrow::Cow<'static, str>;

/// A finding produced by an engine, before doctor assigns its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineFinding {
    pub rule: RuleId,
    /// Human message. May quote config text (a host name): render through safe_text.
    /// Most messages are constant text, borrowed rather than copied into each of
    /// tens of thousands of findings.
    pub message: Message,
    /// Evidence. Never a raw credential: engines redact before building it.
    pub snippet: String,
    /// The one field the finding is about, in the launch's terms (`url` is the
    /// endpoint the client connects to, whichever field it came from); `None` for a
    /// finding about the whole entry. Doctor turns it into the file's spelling.
    pub field: Option<FieldPath>,
}

impl EngineFinding {
    /// A finding about the whole entry.
    pub fn new(rule: RuleId, message: impl Into<Message>, snippet: String) -> EngineFinding {
        EngineFinding {
            rule,
            message: message.into(),
            snippet,
            field: None,
        }
    }

    /// This finding, about `field`.
    pub fn at_field(mut self, field: FieldPath) -> EngineFinding {
        self.field = Some(field);
        self
    }
}

impl ServerSpec {
    /// Where a finding about `field` (`None`: the whole entry) points: the field
    /// as the file spells it and its value's position, else (no field, or a field
    /// whose position is not known) the entry's key at `key_at`. A field not found
    /// among the positions is still named, as the engine named it.
    pub fn place(
        &self,
        field: Option<&FieldPath>,
        key_at: Position,
    ) -> (Option<FieldPath>, Position) {
        match field {
            None => (None, key_at),
            Some(field) => match self.locate(field) {
                Some((spelled, at)) => (Some(spelled), at),
                None => (Some(field.clone()), key_at),
            },
        }
    }

    /// The field `field` (as an engine names it) as the file spells it, and where its
    /// value starts; `None` when the entry's positions do not hold it. The endpoint
    /// (`url`) is the field the launch's URL came from: the one whose written value
    /// is the launch's, else the only endpoint field written, else `url`.
    pub fn locate(&self, field: &FieldPath) -> Option<(FieldPath, Position)> {
        let values = self.origin.values.as_deref()?.get();
        let found = |f: &FieldPath| {
            let first = values.partition_point(|v| v.field < *f);
            values.get(first).filter(|v| v.field == *f)
        };
        if *field == FieldPath::Url {
            let declared = [
                (FieldPath::Named("url"), self.declared.url.as_deref()),
                (
                    FieldPath::Named("serverUrl"),
                    self.declared.extra().server_url.as_deref(),
                ),
                (
                    FieldPath::Named("httpUrl"),
                    self.declared.extra().http_url.as_deref(),
                ),
            ];
            let endpoint = self.remote_url();
            let by_value = declared
                .iter()
                .filter(|(_, v)| v.is_some() && *v == endpoint)
                .find_map(|(f, _)| found(f));
            let written: Vec<&LocatedValue> =
                declared.iter().filter_map(|(f, _)| found(f)).collect();
            let pick = by_value
                .or(match written.as_slice() {
                    [only] => Some(*only),
                    _ => None,
                })
                .or_else(|| found(&FieldPath::Named("url")));
            return pick.map(|v| (v.spelled.clone(), v.at));
        }
        found(field).map(|v| (v.spelled.clone(), v.at))
    }
}

/// A finding located at a server: `target` is `<source label>#<server name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleId,
    /// Shared with the server and its other findings: a server can have thousands
    /// of findings and a name of 64 KiB, and one copy per finding was quadratic.
    pub target: std::sync::Arc<str>,
    pub message: Message,
    pub snippet: String,
    /// A command that fixes the finding, every config-derived word already quoted
    /// for pasting (see [`crate::text::quote::quote_for_paste`]). JSONL and SARIF
    /// append it to the message in parentheses; the text report prints it on a line
    /// of its own, never inside a wrapped table cell.
    pub fix: Option<String>,
    /// The field of the server entry the finding is about (`env.GITHUB_TOKEN`,
    /// `args[3]`), when it is about one field.
    pub field: Option<FieldPath>,
    /// Where in the file the value the finding is about starts (the field's value;
    /// the entry's key when the finding is about the whole entry or a setting).
    pub at: Option<Position>,
    /// Set when a user suppression (`ignore.toml`) matched: the finding is still
    /// reported (JSONL `suppressed`, SARIF `suppressions`) but does not fail the run.
    /// Boxed: nearly every finding has none, and the two strings inline made every
    /// finding (20,000 of them on a large home) 40 bytes larger.
    pub suppressed: Option<Box<Suppression>>,
}

/// A 1-based line and column (in Unicode code points) in a config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// A field inside one server entry, as findings name it.
///
/// Printed as a path a user can find in the file: `command`, `args[3]`, `url`,
/// `env.GITHUB_TOKEN`, `headers.Authorization`; a key that is not a plain word is
/// printed JSON-quoted in brackets (`env["A B"]`). Keys are config text: renderers
/// pass the printed path through [`crate::text::display`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldPath {
    Command,
    /// `args[i]` (0-based, as in the file).
    Arg(usize),
    Url,
    /// `type`.
    Transport,
    Env(String),
    Header(String),
    Cwd,
    /// Any other field, by the name the file spells it with (`headersHelper`,
    /// `serverUrl`, `bearer_token`, `autoApprove`, …).
    Named(&'static str),
    /// A keyed entry of another map (`env_http_headers.X-Key`).
    NamedKey(&'static str, String),
    /// An item of another list (`env_vars[0]`, OpenCode's `command[2]`).
    NamedIndex(&'static str, usize),
}

impl FieldPath {
    fn push_key(out: &mut String, key: &str) {
        let plain = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if plain {
            out.push('.');
            out.push_str(key);
        } else {
            out.push('[');
            out.push_str(&serde_json::Value::String(key.to_string()).to_string());
            out.push(']');
        }
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        match self {
            FieldPath::Command => out.push_str("command"),
            FieldPath::Arg(i) => {
                out.push_str("args[");
                out.push_str(&i.to_string());
                out.push(']');
            }
            FieldPath::Url => out.push_str("url"),
            FieldPath::Transport => out.push_str("type"),
            FieldPath::Env(k) => {
                out.push_str("env");
                FieldPath::push_key(&mut out, k);
            }
            FieldPath::Header(k) => {
                out.push_str("headers");
                FieldPath::push_key(&mut out, k);
            }
            FieldPath::Cwd => out.push_str("cwd"),
            FieldPath::Named(name) => out.push_str(name),
            FieldPath::NamedKey(name, k) => {
                out.push_str(name);
                FieldPath::push_key(&mut out, k);
            }
            FieldPath::NamedIndex(name, i) => {
                out.push_str(name);
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
        f.write_str(&out)
    }
}

/// A user suppression that matched a finding (DOCTOR.md divergence: `ignore.toml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// Why the user accepts the finding (required in the file).
    pub reason: String,
    /// The ISO date (`YYYY-MM-DD`) after which the entry no longer applies.
    pub expires: String,
}

impl Finding {
    /// A finding at `target` with no fix, field, position or suppression yet.
    pub fn new(
        rule: RuleId,
        target: std::sync::Arc<str>,
        message: impl Into<Message>,
        snippet: String,
    ) -> Finding {
        Finding {
            rule,
            target,
            message: message.into(),
            snippet,
            fix: None,
            field: None,
            at: None,
            suppressed: None,
        }
    }

    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }

    /// The one-line fix the text report prints under the finding: its fix command
    /// when it has one, else the rule's one-line fix ([`crate::rules::Rule::fix`]).
    pub fn fix_line(&self) -> &str {
        match &self.fix {
            Some(fix) => fix,
            None => self.rule.rule().fix,
        }
    }

    /// The message with its fix command, as JSONL and SARIF print it.
    pub fn message_with_fix(&self) -> std::borrow::Cow<'_, str> {
        match &self.fix {
            Some(fix) => std::borrow::Cow::Owned(format!("{} ({fix})", self.message)),
            None => std::borrow::Cow::Borrowed(&self.message),
        }
    }
}

/// Whether a lock in the tree covers a server (DOCTOR.md §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coverage {
    /// An approved lock whose approval binds its digests matches the launch.
    Approved,
    /// A lock matches, but its approval does not count; `problem` says why. `lock`
    /// is its path as shown (relative to cwd when below it).
    Unapproved { lock: String, problem: LockProblem },
    /// No lock matches.
    None,
}

/// Why a matching lock does not count as an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockProblem {
    /// `pin.approved` is false: a human has not approved the surface yet.
    NotApproved,
    /// Approved, but `pin.approved_digest` is not `overall_digest`.
    StaleApproval,
    /// `server.command_digest` does not match the pinned launch.
    CommandDigestMismatch,
    /// The stored entry digests do not reproduce `overall_digest`.
    EntryDigestMismatch,
}

impl LockProblem {
    /// Words for the finding message, after "a warden.lock matches this server but".
    pub fn describe(self) -> &'static str {
        match self {
            LockProblem::NotApproved => "pin.approved is false; a human has not approved the surface",
            LockProblem::StaleApproval => "its approval is stale: pin.approved_digest does not equal overall_digest, so the approved surface is not the pinned one",
            LockProblem::CommandDigestMismatch => "it is inconsistent: server.command_digest does not match the pinned launch",
            LockProblem::EntryDigestMismatch => "it is inconsistent: the stored entry digests do not reproduce overall_digest",
        }
    }

    /// Whether `lock rotate` can record an approval (it refuses stale and
    /// inconsistent locks: those must be pinned again).
    pub fn rotate_fixes_it(self) -> bool {
        self == LockProblem::NotApproved
    }
}

/// One config file that was loaded (a `~/.claude.json` project counts as its own source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Client name from the discovery table (`Cursor`, `VS Code (project)`, `explicit`).
    /// Shared, as is `path`, by every section of one file: a `~/.claude.json` of
    /// tens of thousands of project sections is a source each.
    pub client: std::sync::Arc<str>,
    /// Display label: `~/...` under home, else the path as given;
    /// `~/.claude.json#projects[<key>]` for a project section.
    pub label: String,
    /// The file on disk (absolute), for SARIF artifact locations.
    pub path: std::sync::Arc<std::path::Path>,
    /// Where the file came from: what `--pin` may spawn and what doctor may print
    /// pre-approved depend on it.
    pub scope: Scope,
    /// The client whose file this is (`None` for a `--config` file whose name does
    /// not say), and where the file sits among that client's files.
    pub client_id: Option<Client>,
    pub layer: Layer,
    /// The project directory the file's servers and settings belong to: the
    /// directory of a project file (`.mcp.json`, `.claude/settings.json`), the key
    /// of a `~/.claude.json` `projects[<path>]` section; `None` for user, system and
    /// managed files, which apply to every project.
    pub project_dir: Option<std::path::PathBuf>,
    /// The client settings in this file (or section) that decide whether servers
    /// start, or run tools, without asking (file order). A file with settings and no
    /// servers is still a source.
    pub settings: Vec<crate::protocol::ClientSetting>,
}

/// A client doctor knows, as the effective view groups servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Client {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    VsCode,
    VsCodeInsiders,
    Windsurf,
    Codex,
    GeminiCli,
    Zed,
    Cline,
    RooCode,
    CopilotCli,
    AmazonQ,
    Kiro,
    OpenCode,
    Continue,
}

impl Client {
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::VsCode => "VS Code",
            Client::VsCodeInsiders => "VS Code Insiders",
            Client::Windsurf => "Windsurf",
            Client::Codex => "Codex",
            Client::GeminiCli => "Gemini CLI",
            Client::Zed => "Zed",
            Client::Cline => "Cline",
            Client::RooCode => "Roo Code",
            Client::CopilotCli => "GitHub Copilot CLI",
            Client::AmazonQ => "Amazon Q Developer",
            Client::Kiro => "Kiro",
            Client::OpenCode => "OpenCode",
            Client::Continue => "Continue",
        }
    }
}

/// Where a file sits among its client's files. Each client's precedence over these
/// (Claude Code: local over project over user; a managed file excludes the rest)
/// is decided by the effective view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// Installed by an administrator outside the home directory
    /// (`/etc/codex/config.toml`, Gemini CLI's system settings).
    System,
    /// The user's own file (`~/.claude.json` top level, `~/.cursor/mcp.json`).
    User,
    /// A file of a project directory (`.mcp.json`, `.vscode/mcp.json`).
    Project,
    /// The user's private settings for one project (`~/.claude.json`
    /// `projects[<path>]`, `.claude/settings.local.json`).
    Local,
    /// An enterprise file that, where the client honours it, replaces every other
    /// (`managed-mcp.json`).
    Managed,
    /// Named with `--config`.
    Explicit,
}

impl Source {
    /// Named with `--config`: the only servers `--pin` may spawn.
    pub fn is_explicit(&self) -> bool {
        self.scope == Scope::Explicit
    }
}

/// Who put a config file where doctor found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A user-level client file under the home directory (`~/.cursor/mcp.json`,
    /// `~/.claude.json`, …): written by the user or their client.
    User,
    /// Found by the project walk-up (`.mcp.json`, `.vscode/mcp.json`, …): it arrives
    /// with whatever repository is checked out, so it is attacker-reachable.
    Project,
    /// Named with `--config`.
    Explicit,
}

/// A finding located at a setting of a source rather than at a server (a VS Code
/// `chat.mcp.discovery.enabled`, an `enableAllProjectMcpServers` that no discovered
/// `.mcp.json` server falls under): `finding.target` is the source's label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingFinding {
    /// Index into [`Report::sources`].
    pub source: usize,
    /// Position of the setting's key (1-based; column in code points).
    pub line: u32,
    pub column: u32,
    pub finding: Finding,
}

/// One server after every engine ran over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditedServer {
    /// Index into [`Report::sources`].
    pub source: usize,
    /// Display key: the name, or `<name>#servers`… for a `servers` duplicate.
    pub name: String,
    /// `<source label>#<name>`.
    pub target: std::sync::Arc<str>,
    pub spec: ServerSpec,
    /// Position of the entry's key in its file (1-based; column in code points).
    pub line: u32,
    pub column: u32,
    /// Sorted by (rule id, snippet).
    pub findings: Vec<Finding>,
    pub coverage: Coverage,
    /// The lock file name printed in Next steps and written by `--pin`
    /// (computed once, for uncovered servers only). Shared by every server of one
    /// launch (`crate::render::lock_names`): a copy per server was an allocation
    /// per server.
    pub lock_name: Option<std::sync::Arc<str>>,
}

/// Everything doctor found, ready to render.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub sources: Vec<Source>,
    pub servers: Vec<AuditedServer>,
    /// One line describing the parser sandbox (`landlock ABI 7, seccomp, no capabilities`).
    pub sandbox: String,
    /// Every file doctor skipped or could not read, with its reason, in the order
    /// met: the text summary, JSONL's summary record and SARIF's notifications list
    /// them, so a file that was not scanned is never mistaken for a clean one.
    pub problems: Vec<FileProblem>,
    /// Discovered configs and locks in the tree skipped (a symlink, not a regular
    /// file, oversized): never read, never coverage.
    pub skipped: usize,
    /// Files (or sections) that could not be read or parsed, and locks that could
    /// not be examined within their budget.
    pub hard_errors: usize,
    /// Well-known candidate locations searched.
    pub searched: usize,
    /// Config files read and parsed, whether or not they declare servers.
    pub files_read: usize,
    /// Relocation variables (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …) that moved a
    /// client's files, for the header: `(variable, the directory it points to)`.
    pub relocations: Vec<(String, String)>,
    /// Findings at a source's settings, after every server's findings in report order.
    pub setting_findings: Vec<SettingFinding>,
    /// The directory doctor ran in: the session whose effective servers the header
    /// and `--servers` show (`crate::parent::effective`).
    pub cwd: std::path::PathBuf,
    /// The approval join the approval engine built, kept for the effective view
    /// (`crate::parent::effective::compute`), which needs it again: a cache of what
    /// the fields above determine, not part of the report's value.
    pub approval_join: Derived<crate::engines::approval::Join>,
}

/// A value computed from the rest of a [`Report`] and kept so it is computed once:
/// shared, and never part of the report's equality (two reports that agree on
/// everything else are equal whether or not one kept it).
pub struct Derived<T>(Option<std::sync::Arc<T>>);

impl<T> Clone for Derived<T> {
    fn clone(&self) -> Self {
        Derived(self.0.clone())
    }
}

impl<T> std::fmt::Debug for Derived<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Derived(kept)"
        } else {
            "Derived(none)"
        })
    }
}

impl<T> Derived<T> {
    pub fn of(value: T) -> Derived<T> {
        Derived(Some(std::sync::Arc::new(value)))
    }

    pub fn get(&self) -> Option<&T> {
        self.0.as_deref()
    }
}

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Derived(None)
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Derived<T> {}

impl Report {
    /// Every finding in report order (servers, each server's sorted findings, then the
    /// findings at settings).
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.servers
            .iter()
            .flat_map(|s| s.findings.iter())
            .chain(self.setting_findings.iter().map(|f| &f.finding))
    }

    /// Servers with no matching lock, in report order.
    pub fn uncovered(&self) -> impl Iterator<Item = &AuditedServer> {
        self.servers.iter().filter(|s| s.coverage == Coverage::None)
    }
}

/// How a file was not scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemKind {
    /// Never read (a symlink, not a regular file, over its size cap): exit 1.
    Skipped,
    /// Could not be opened, read or parsed, or its lock could not be examined: exit 2.
    Unreadable,
}

impl ProblemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Skipped => "skipped",
            ProblemKind::Unreadable => "unreadable",
        }
    }
}

/// One file doctor did not scan (see [`Report::problems`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    pub kind: ProblemKind,
    /// The file as shown (`~/…`, relative to cwd below it): already display-safe.
    pub path: String,
    /// Why, completing `<path>: …` (already display-safe).
    pub reason: String,
    /// The exact command that scans it anyway, when there is one
    /// (`mcp-warden doctor --config '<path>'`), quoted for pasting.
    pub rescan: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_print_as_the_file_spells_them() {
        let printed = |f: FieldPath| f.to_string();
        assert_eq!(
            printed(FieldPath::Env("GITHUB_TOKEN".into())),
            "env.GITHUB_TOKEN"
        );
        assert_eq!(printed(FieldPath::Arg(3)), "args[3]");
        assert_eq!(printed(FieldPath::Header("A B".into())), "headers[\"A B\"]");
        assert_eq!(printed(FieldPath::NamedIndex("command", 2)), "command[2]");
        assert_eq!(
            printed(FieldPath::NamedKey("http_headers", "X-Key".into())),
            "http_headers.X-Key"
        );
    }

    #[test]
    fn the_fix_line_is_the_command_else_the_rules_one_line_fix() {
        let mut f = Finding::new(RuleId::SecSlack, "t".into(), "m", "s".into());
        assert_eq!(f.fix_line(), RuleId::SecSlack.rule().fix);
        assert_ne!(f.fix_line(), RuleId::SecSlack.rule().help);
        f.fix = Some("mcp-warden lock rotate x".into());
        assert_eq!(f.fix_line(), "mcp-warden lock rotate x");
    }
}
