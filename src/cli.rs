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
    /// Discovers Claude Code / Claude Desktop / Cursor / VS Code / Windsurf / Codex
    /// configs, parses them in a sandboxed child process, then runs the static auth
    /// audit (WRD-AUTH-*, WRD-SEC-*), the supply-chain launch checks (WRD-SUP-*) and a
    /// lock-coverage check (WRD-DOCTOR-*) over every configured server. Static by
    /// default: no configured program is run, no network, no DNS. Prints the exact
    /// `pin` command for each uncovered server. Exits 0 clean; 1 on any finding or
    /// skipped config; 2 on an unreadable or malformed config (fail closed).
    Doctor(DoctorArgs),
    /// Inspect the parser sandbox on this kernel.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Scan this config file too (repeatable; may be a symlink; the only source --pin may spawn).
    #[arg(long = "config", value_name = "PATH")]
    pub configs: Vec<PathBuf>,
    /// Skip well-known locations; scan only --config paths.
    #[arg(long)]
    pub no_discover: bool,
    /// Emit findings as JSONL to stdout.
    #[arg(long)]
    pub json: bool,
    /// Write a SARIF report to this path.
    #[arg(long, value_name = "PATH")]
    pub sarif: Option<PathBuf>,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// Override home (tests).
    #[arg(long, hide = true, value_name = "PATH")]
    pub home: Option<PathBuf>,
    /// Override platform (tests).
    #[arg(long, hide = true, value_enum)]
    pub platform: Option<Platform>,
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
