//! Checked, parent-side data: what the engines and renderers consume.
//!
//! Values here have already crossed the child→parent boundary and passed
//! [`crate::parent::validate`]; their strings are bounded but still hostile
//! (they may hold control characters), so every renderer passes them through
//! `crate::text::safe_text`.

use crate::rules::{RuleId, Severity};

/// One configured MCP server, as the client would launch or contact it.
///
/// `args`, `env` and `headers` keep the config's order. Only string values are
/// accepted by the loaders: a config whose fields have other types is reported as
/// an error rather than converted, so nothing here was re-spelled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerSpec {
    /// `command`: the program the client spawns (stdio servers).
    pub command: Option<String>,
    /// `args`: the program's arguments, verbatim.
    pub args: Vec<String>,
    /// `url`: the endpoint of a remote (HTTP/SSE/WebSocket) server.
    pub url: Option<String>,
    /// `type` or `transport`, as written (e.g. `http`, `sse`, `stdio`).
    pub transport: Option<String>,
    /// `env`: environment given to a stdio server, in file order.
    pub env: Vec<(String, String)>,
    /// `headers` (Codex: `http_headers`): sent to a remote server, in file order.
    pub headers: Vec<(String, String)>,
}

impl ServerSpec {
    /// The URL when it is a non-empty string: the only case in which a server is
    /// treated as remote by URL (the reference's rule).
    pub fn remote_url(&self) -> Option<&str> {
        self.url.as_deref().filter(|u| !u.is_empty())
    }

    /// The command when it is a non-empty string.
    pub fn launch_command(&self) -> Option<&str> {
        self.command.as_deref().filter(|c| !c.is_empty())
    }
}

/// A finding produced by an engine, before doctor assigns its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineFinding {
    pub rule: RuleId,
    /// Human message. May quote config text (a host name): render through safe_text.
    pub message: String,
    /// Evidence. Never a raw credential: engines redact before building it.
    pub snippet: String,
}

/// A finding located at a server: `target` is `<source label>#<server name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleId,
    /// Shared with the server and its other findings: a server can have thousands
    /// of findings and a name of 64 KiB, and one copy per finding was quadratic.
    pub target: std::sync::Arc<str>,
    pub message: String,
    pub snippet: String,
    /// A command that fixes the finding, every config-derived word already quoted
    /// for pasting (see [`crate::text::quote::quote_for_paste`]). JSONL and SARIF
    /// append it to the message in parentheses; the text report prints it on a line
    /// of its own, never inside a wrapped table cell.
    pub fix: Option<String>,
}

impl Finding {
    pub fn severity(&self) -> Severity {
        self.rule.severity()
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
    pub client: String,
    /// Display label: `~/...` under home, else the path as given;
    /// `~/.claude.json#projects[<key>]` for a project section.
    pub label: String,
    /// The file on disk (absolute), for SARIF artifact locations.
    pub path: std::path::PathBuf,
    /// Where the file came from: what `--pin` may spawn and what doctor may print
    /// pre-approved depend on it.
    pub scope: Scope,
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
    /// (computed once, for uncovered servers only).
    pub lock_name: Option<String>,
}

/// Everything doctor found, ready to render.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub sources: Vec<Source>,
    pub servers: Vec<AuditedServer>,
    /// One line describing the parser sandbox (`landlock ABI 7, seccomp, no capabilities`).
    pub sandbox: String,
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
}

impl Report {
    /// Every finding in report order (sources, servers, then each server's sorted findings).
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.servers.iter().flat_map(|s| s.findings.iter())
    }

    /// Servers with no matching lock, in report order.
    pub fn uncovered(&self) -> impl Iterator<Item = &AuditedServer> {
        self.servers.iter().filter(|s| s.coverage == Coverage::None)
    }
}
