//! `mcp-warden`: dispatch to the parser child, a sandbox probe, or a command.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use mcp_warden::cli::{AuthCommand, Cli, ColorChoice, Command, LockCommand, SandboxCommand};
use mcp_warden::output;
use mcp_warden::parent::commands;
use mcp_warden::render::style::{self, Stream};

/// Both processes (this one and the parser child it re-executes) are one-shot: see
/// `mcp_warden_sandbox::alloc` for why they do not use glibc's allocator.
#[global_allocator]
static ALLOCATOR: mcp_warden_sandbox::OneShotAlloc = mcp_warden_sandbox::OneShotAlloc::new();

fn main() -> ExitCode {
    // The confined roles are recognised before any argument parsing: the parser
    // child must be confined before it runs anything non-essential.
    match std::env::args_os().nth(1) {
        Some(arg) if arg == mcp_warden_sandbox::CHILD_ARG => mcp_warden::child::serve::serve(),
        Some(arg) if arg == mcp_warden_sandbox::PROBE_ARG => mcp_warden_sandbox::probe_main(),
        _ => {}
    }
    // `pin` and `check` take a server argv that may contain options of its own;
    // they parse their words themselves (see mcp_warden::pin::commands).
    let sub = std::env::args_os().nth(1);
    if let Some(which) = sub
        .as_ref()
        .and_then(|s| s.to_str())
        .filter(|s| *s == "pin" || *s == "check")
    {
        // A server argv is passed on exactly, so it must be text we can hash.
        let Ok(words) = std::env::args_os()
            .skip(2)
            .map(std::ffi::OsString::into_string)
            .collect::<Result<Vec<String>, _>>()
        else {
            output::line(Stream::Stderr, "error: every argument must be valid UTF-8");
            return ExitCode::from(2);
        };
        return ExitCode::from(if which == "pin" {
            mcp_warden::pin::commands::pin_main(&words)
        } else {
            mcp_warden::pin::commands::check_main(&words)
        });
    }
    // doctor's parser child starts before the command line is parsed, so that its
    // `execve` and start-up overlap the parsing and the discovery (see
    // `mcp_warden_sandbox::StartedParser`). Only when the first word is `doctor`;
    // otherwise, or if it cannot start here, doctor starts it itself. A child not
    // used (a usage error, `--help`) is killed and reaped when dropped.
    let started = sub
        .as_ref()
        .filter(|s| *s == "doctor")
        .and_then(|_| mcp_warden_sandbox::StartedParser::start().ok());
    let cli = match parse_cli() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    let code = match cli.command {
        Command::Doctor(args) => commands::doctor(args, started),
        Command::Auth(AuthCommand::Audit(args)) => commands::auth_audit(args),
        Command::Sandbox(SandboxCommand::Status) => commands::sandbox_status(),
        Command::Sandbox(SandboxCommand::Selftest) => commands::sandbox_selftest(),
        Command::Pin(a) => mcp_warden::pin::commands::pin_main(&a.words),
        Command::Check(a) => mcp_warden::pin::commands::check_main(&a.words),
        Command::Lock(LockCommand::Rotate(a)) => mcp_warden::pin::commands::rotate_main(
            &a.lock,
            a.approver.as_deref(),
            a.actor.as_deref(),
            a.note.as_deref(),
            a.json,
        ),
        Command::Completions(a) => commands::completions(a.shell),
        Command::Man(a) => commands::man(a.command.as_deref()),
    };
    ExitCode::from(code)
}

/// Parse the command line. A usage error, `--help` or `--version` is printed here,
/// coloured by the same decision as the reports (`--color` if given, then
/// `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `TERM` and whether the stream is a
/// terminal), and its exit code returned.
fn parse_cli() -> Result<Cli, u8> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let error = match Cli::try_parse_from(&args) {
        Ok(cli) => return Ok(cli),
        Err(error) => error,
    };
    let choice =
        style::color_choice_in(args.get(1..).unwrap_or_default()).unwrap_or(ColorChoice::Auto);
    let stream = if error.use_stderr() {
        Stream::Stderr
    } else {
        Stream::Stdout
    };
    let message = error.render();
    let text = if stream.color(choice) {
        message.ansi().to_string()
    } else {
        message.to_string()
    };
    // Nothing useful can be done when the message cannot be written.
    output::write_text(stream, &text);
    Err(u8::try_from(error.exit_code()).unwrap_or(2))
}
