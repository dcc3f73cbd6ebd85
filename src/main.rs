//! `mcp-warden`: dispatch to the parser child, a sandbox probe, or a command.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use mcp_warden::cli::{AuthCommand, Cli, Command, SandboxCommand};
use mcp_warden::parent::commands;

fn main() -> ExitCode {
    // The confined roles are recognised before any argument parsing: the parser
    // child must be confined before it runs anything non-essential.
    match std::env::args_os().nth(1) {
        Some(arg) if arg == mcp_warden_sandbox::CHILD_ARG => mcp_warden::child::serve::serve(),
        Some(arg) if arg == mcp_warden_sandbox::PROBE_ARG => mcp_warden_sandbox::probe_main(),
        _ => {}
    }
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Doctor(args) => commands::doctor(args),
        Command::Auth(AuthCommand::Audit(args)) => commands::auth_audit(args),
        Command::Sandbox(SandboxCommand::Status) => commands::sandbox_status(),
        Command::Sandbox(SandboxCommand::Selftest) => commands::sandbox_selftest(),
    };
    ExitCode::from(code)
}
