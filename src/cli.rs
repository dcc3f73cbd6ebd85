//! Command-line surface (clap derive types only; no I/O here).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mcp-warden",
    version,
    about = "Audit MCP client configs and pin MCP servers"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Zero-config MCP posture scan of every agent config on this machine.
    ///
    /// Discovers the configs of Claude Code, Claude Desktop (and its extensions),
    /// Cursor, VS Code (and Insiders), Windsurf, Codex, Gemini CLI, Zed, Cline, Roo
    /// Code, GitHub Copilot CLI, Amazon Q Developer, Kiro, OpenCode and Continue,
    /// parses them in a sandboxed child process, then runs the static auth
    /// audit (WRD-AUTH-*, WRD-SEC-*), the supply-chain launch checks (WRD-SUP-*) and a
    /// lock-coverage check (WRD-DOCTOR-*) over every configured server. Static by
    /// default: no configured program is run, no network, no DNS. Prints the exact
    /// `pin` command for each uncovered server. Exits 0 clean; 1 on any finding (at or
    /// above --fail-on, and not suppressed in your ignore.toml) or skipped config; 2 on
    /// an unreadable or malformed config (fail closed).
    Doctor(DoctorArgs),
    /// Static MCP auth-posture audit of named config files.
    #[command(subcommand)]
    Auth(AuthCommand),
    /// Inspect the parser sandbox on this kernel.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
    /// Pin an MCP server's declared surface into warden.lock.
    ///
    /// `mcp-warden pin [OPTIONS] -- SERVER_CMD...`, `mcp-warden pin SERVER_CMD... [OPTIONS]`
    /// or `mcp-warden pin --url URL [OPTIONS]`. Run `mcp-warden pin --help` for the options.
    #[command(disable_help_flag = true)]
    Pin(PassThroughArgs),
    /// Re-capture a server and compare it with warden.lock (exit 1 on drift).
    ///
    /// Same argument forms as `pin`. Sigstore `--verify` is not supported.
    /// Run `mcp-warden check --help` for the options.
    #[command(disable_help_flag = true)]
    Check(PassThroughArgs),
    /// Lifecycle operations on an existing warden.lock.
    #[command(subcommand)]
    Lock(LockCommand),
    /// Print a shell completion script to stdout.
    ///
    /// bash: `mcp-warden completions bash > ~/.local/share/bash-completion/completions/mcp-warden`;
    /// zsh: into a directory on `$fpath` as `_mcp-warden`; fish:
    /// `~/.config/fish/completions/mcp-warden.fish`.
    Completions(CompletionsArgs),
    /// Print a man page (roff) to stdout: `mcp-warden man | man -l -`.
    ///
    /// Without COMMAND, the page for mcp-warden itself; `mcp-warden man doctor`
    /// prints mcp-warden-doctor(1).
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A subcommand (`doctor`, `auth`, `pin`, …); nested ones as `auth-audit`.
    pub command: Option<String>,
}

/// Words handed to a command that parses its own argv (`pin`, `check`).
#[derive(Debug, Args)]
pub struct PassThroughArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub words: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum LockCommand {
    /// Re-attest a lock's provenance without re-capturing; overall_digest is unchanged.
    ///
    /// Refuses (exit 2, nothing written) a lock whose entries do not reproduce its
    /// overall_digest, or whose approval no longer binds it.
    Rotate(RotateArgs),
}

#[derive(Debug, Args)]
pub struct RotateArgs {
    /// Path to an existing warden.lock.
    pub lock: PathBuf,
    /// Re-attest as approver (re-binds the approval to the unchanged digest).
    #[arg(long, value_name = "ID")]
    pub approver: Option<String>,
    /// Principal for the refreshed pinner (or WARDEN_ACTOR).
    #[arg(long, value_name = "ID")]
    pub actor: Option<String>,
    /// Public note on the attestation (at most 1000 characters).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Print the rotation summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Audit MCP config files for weak auth posture; fail closed.
    ///
    /// Static only: the files are parsed in the sandboxed child, no server is
    /// spawned, no network is touched. Flags remote endpoints reachable without
    /// auth, credential literals in config (headers, env, args, URL), cleartext
    /// transport, and inline secrets that should reference a secret manager.
    /// Accepts JSON, VS Code JSONC, Codex TOML and ~/.claude.json. Exits 0 clean,
    /// 1 on any finding (at or above --fail-on), 2 on a read or parse error.
    Audit(AuthAuditArgs),
}

#[derive(Debug, Args)]
pub struct AuthAuditArgs {
    /// MCP config file(s) to audit.
    #[arg(required = true, value_name = "CONFIG")]
    pub configs: Vec<PathBuf>,
    /// Emit findings as JSONL to stdout.
    #[arg(long)]
    pub json: bool,
    /// Write a SARIF report to this path (- for stdout; the human report then goes to
    /// stderr). A symlink or a non-regular file at PATH is refused, as is a symlinked
    /// directory on a relative PATH; the file is replaced atomically.
    #[arg(long, value_name = "PATH")]
    pub sarif: Option<PathBuf>,
    /// Colour the report by severity: auto (a terminal, unless NO_COLOR,
    /// CLICOLOR=0 or TERM=dumb; CLICOLOR_FORCE forces it), always or never.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Exit 1 only for findings at or above this severity (the others are still
    /// reported), as doctor's --fail-on. Unreadable files still exit 2.
    #[arg(long, value_name = "SEVERITY", value_enum)]
    pub fail_on: Option<FailOn>,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Scan this config file too (repeatable; may be a symlink; the only source --pin may spawn).
    #[arg(long = "config", value_name = "PATH")]
    pub configs: Vec<PathBuf>,
    /// Skip well-known locations; scan only --config paths (at least one is required).
    #[arg(long)]
    pub no_discover: bool,
    /// Emit findings as JSONL to stdout.
    #[arg(long)]
    pub json: bool,
    /// With --json: also write one {"kind": "server", ...} line per audited server
    /// (its client, transport and launch digest), before the findings.
    #[arg(long, requires = "json")]
    pub inventory: bool,
    /// Write a SARIF report to this path (- for stdout; the human report then goes to
    /// stderr). A symlink or a non-regular file at PATH is refused, as is a symlinked
    /// directory on a relative PATH; the file is replaced atomically.
    #[arg(long, value_name = "PATH")]
    pub sarif: Option<PathBuf>,
    /// Print, per client, the servers that would start in this directory (after
    /// precedence, managed files, disabled flags and approvals) instead of the
    /// findings; with --json, one {"kind": "effective", ...} line per server.
    #[arg(long, conflicts_with_all = ["inventory", "pin", "sarif"])]
    pub servers: bool,
    /// OPT-IN: spawn each uncovered --config server and write NAME.warden.lock (unapproved).
    #[arg(long)]
    pub pin: bool,
    /// With --pin: do not prompt (required when non-interactive).
    #[arg(long, requires = "pin")]
    pub yes: bool,
    /// With --pin: capture timeout per server, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, requires = "pin", value_parser = parse_timeout)]
    pub timeout: f64,
    /// Exit 1 only for findings at or above this severity (the others are still
    /// reported). Default: any finding exits 1. Skipped files still exit 1 and
    /// unreadable ones 2, whatever the threshold.
    #[arg(long, value_name = "SEVERITY", value_enum)]
    pub fail_on: Option<FailOn>,
    /// Read suppressions from this TOML file instead of the user's own
    /// (`$XDG_CONFIG_HOME/mcp-warden/ignore.toml`, else `~/.config/mcp-warden/ignore.toml`;
    /// `%APPDATA%\mcp-warden\ignore.toml` on Windows); never from the scanned tree.
    #[arg(long, value_name = "PATH")]
    pub ignore_file: Option<PathBuf>,
    /// Colour the text report by severity: auto (a terminal, unless NO_COLOR,
    /// CLICOLOR=0 or TERM=dumb; CLICOLOR_FORCE forces it), always or never.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// Override home (tests).
    #[arg(long, hide = true, value_name = "PATH")]
    pub home: Option<PathBuf>,
    /// Override platform (tests).
    #[arg(long, hide = true, value_enum)]
    pub platform: Option<Platform>,
    /// Resolve absolute system paths (`/etc/codex/config.toml`, managed files)
    /// below this directory (tests).
    #[arg(long, hide = true, value_name = "PATH", default_value = "/")]
    pub system_root: PathBuf,
}

/// `--fail-on`: the lowest severity that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Critical,
    High,
    Medium,
    Low,
}

impl FailOn {
    /// The severity threshold (a finding at or above it exits 1).
    pub fn severity(self) -> crate::rules::Severity {
        use crate::rules::Severity;
        match self {
            FailOn::Critical => Severity::Critical,
            FailOn::High => Severity::High,
            FailOn::Medium => Severity::Medium,
            FailOn::Low => Severity::Low,
        }
    }
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Platform {
    Darwin,
    Linux,
    Win32,
}

#[derive(Debug, Args, Clone, Copy)]
pub struct SandboxArgs {
    /// Refuse to run if any sandbox layer is missing on this kernel
    /// (also MCP_WARDEN_STRICT_SANDBOX=1).
    #[arg(long, conflicts_with = "allow_weak_sandbox")]
    pub strict_sandbox: bool,
    /// Run even when the remaining sandbox layers cannot keep the parser from reading,
    /// running, connecting or writing anything (not recommended).
    #[arg(long)]
    pub allow_weak_sandbox: bool,
}

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Print what this kernel offers (landlock ABI, seccomp) and which layers apply.
    Status,
    /// Run each denial probe in its own confined child and print expected vs observed.
    Selftest,
}

/// A timeout in seconds: finite and positive.
fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}
