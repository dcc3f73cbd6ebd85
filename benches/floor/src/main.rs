//! `mcp-warden-floor`: the least work `mcp-warden doctor` could do on one
//! `~/.claude.json`, with the same process split, so that doctor's figures in
//! `benches/harness.py` are ratios to something measured in the same run.
//!
//! ```text
//! mcp-warden-floor --home DIR [--json]
//! ```
//!
//! What it does, and nothing else:
//!
//! * The parent opens `DIR/.claude.json` (no symlink, regular file) and hands the
//!   descriptor to a child started, confined (the same landlock, seccomp, rlimit,
//!   capability and uid layers as doctor's parser child) and supervised by
//!   `mcp-warden-sandbox`; the parent never reads the file's bytes.
//! * The child maps the file read-only at its exact `fstat` size (as doctor's child
//!   maps its files, so the comparison is fair), checks it is
//!   UTF-8, parses only the server maps (top-level `mcpServers` and
//!   `projects.*.mcpServers`) with serde_json into records that borrow the buffer,
//!   skipping everything else with `IgnoredAny`, and sends the records (name,
//!   command, args, env names, url, header names) as one bincode frame. It does not
//!   decode its own answer against its share before sending it, as doctor's child
//!   does (to answer a file too large for its share with an error instead): the
//!   parent enforces the share either way, and that check is a choice of doctor's,
//!   not work the result needs.
//! * The parent decodes that frame with the sandbox crate's bounded decoder, under a
//!   share sized from the file as doctor's is, checks every record, and writes the
//!   report in one buffered write: a text report of doctor's size and shape (sources,
//!   a pin command and a CI check step per server, each with the lock file name it
//!   suggests and the env and header names it passes, a summary) or, with `--json`,
//!   one JSON finding line per server (without positions: `line` and `column` are
//!   null).
//!
//! What it does not do: discover other clients' files, read locks, compute the
//! effective configuration or approvals, scan for credentials, resolve positions,
//! group servers that share a launch, lay lines out by display
//! width. Its audit is a stand-in: every server gets the "no warden.lock" finding
//! (it reads no locks). Nothing is precomputed and nothing is kept between runs.
//!
//! Both processes allocate as doctor's do (`mcp_warden_sandbox::OneShotAlloc`: size
//! classes over huge-page chunks): a memory policy doctor uses is one the floor uses
//! too, so it is no part of the ratio.
//!
//! With `MCP_WARDEN_RESOURCE_REPORT=1` it prints doctor's `resources:` line on stderr.
//! Exit status: 0 with a report, 2 with one `error:` line.
#![forbid(unsafe_code)]

mod child;
mod parent;
mod report;
mod wire;

use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mcp_warden_sandbox::OneShotAlloc = mcp_warden_sandbox::OneShotAlloc::new();

/// What the command line asked for.
struct Args {
    home: PathBuf,
    json: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut home = None;
    let mut json = false;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--json" {
            json = true;
        } else if arg == "--home" {
            home = Some(PathBuf::from(
                args.next().ok_or("--home needs a directory")?,
            ));
        } else {
            return Err(format!(
                "unexpected argument {}; usage: mcp-warden-floor --home DIR [--json]",
                arg.to_string_lossy()
            ));
        }
    }
    Ok(Args {
        home: home.ok_or("usage: mcp-warden-floor --home DIR [--json]")?,
        json,
    })
}

fn main() -> ExitCode {
    // The child's role is recognised before anything else, as in doctor's `main`.
    match std::env::args_os().nth(1) {
        Some(arg) if arg == mcp_warden_sandbox::CHILD_ARG => child::serve(),
        Some(arg) if arg == mcp_warden_sandbox::PROBE_ARG => mcp_warden_sandbox::probe_main(),
        _ => {}
    }
    match parse_args().and_then(|args| parent::run(&args.home, args.json)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            parent::error_line(&why);
            ExitCode::from(2)
        }
    }
}
