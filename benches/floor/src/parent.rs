//! The unconfined side: open the file, run the confined child on it, check its
//! answer, write the report, and (on request) the resource line.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use mcp_warden_sandbox::{run_parser, Limits, MessageShare, WeakSandboxPolicy};
use nix::fcntl::OFlag;
use nix::sys::resource::{getrusage, UsageWho};

use crate::report;
use crate::wire::{Answer, Request, Section, SIZE_CAP};

/// Opens, parses in the child, reports.
pub fn run(home: &Path, json: bool) -> Result<(), String> {
    let path = home.join(".claude.json");
    let file = open(&path)?;
    let size = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len()
        .min(SIZE_CAP);
    let share = share(size);
    let limits = Limits {
        max_frame_len: share.max_payload,
        max_messages: 1,
        max_total_bytes: u64::from(share.max_payload) + ENVELOPE,
        max_decoded_bytes: share.max_decoded + ENVELOPE,
        message_shares: vec![share],
        ..Limits::default()
    };
    let request = Request { size_cap: SIZE_CAP };
    let output = run_parser::<Request, Answer<'static>>(
        &request,
        vec![OwnedFd::from(file)],
        &limits,
        WeakSandboxPolicy::Default,
    )
    .map_err(|e| format!("parser sandbox failed: {e}"))?;
    let peak_at_reap = resources_enabled().then(own_peak_kib);
    let sections = match output.messages.into_iter().next() {
        Some(Answer::Servers(sections)) => sections,
        Some(Answer::Failed(why)) => return Err(format!("{}: {why}", path.display())),
        None => return Err("the parser child sent no answer".into()),
    };
    check(&sections)?;
    let mut out = Vec::new();
    if json {
        report::json(&sections, &mut out);
    } else {
        report::text(&sections, &output.confinement.to_string(), &mut out);
    }
    let mut diagnostics = String::new();
    for warning in &output.warnings {
        diagnostics.push_str("warning: ");
        diagnostics.push_str(warning);
        diagnostics.push('\n');
    }
    if let Some(at_reap) = peak_at_reap {
        let child = getrusage(UsageWho::RUSAGE_CHILDREN).map_or(-1, |u| u.max_rss());
        diagnostics.push_str(&format!(
            "resources: parent_max_rss_kib={} child_max_rss_kib={child} \
             parent_max_rss_while_child_kib={at_reap} parent_rss_file_kib={}\n",
            own_peak_kib(),
            own_status_kib("RssFile:")
        ));
    }
    write_streams(&out, diagnostics.as_bytes())
}

/// Hello and end marker, and the frame header.
const ENVELOPE: u64 = 64 << 10;

/// The answer's share, sized from the file as doctor sizes a config's: payload twice
/// the file plus 64 KiB (records copy the file's strings plus a few bytes each);
/// decoded 64 KiB more than `min(32 × size, 8 × size + 16 MiB)`.
fn share(size: u64) -> MessageShare {
    let payload = size.saturating_mul(2).saturating_add(64 << 10);
    let decoded = size
        .saturating_mul(32)
        .min(size.saturating_mul(8).saturating_add(16 << 20))
        .saturating_add(64 << 10);
    MessageShare {
        max_payload: u32::try_from(payload).unwrap_or(u32::MAX),
        max_decoded: decoded,
    }
}

/// `path`, opened for the child: no symlink at the last component, no blocking on a
/// FIFO, and a regular file.
fn open(path: &Path) -> Result<File, String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_NOCTTY).bits())
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    Ok(file)
}

/// The child is not trusted: every record must be a launch the report can print
/// (a non-empty name, and a command or a url but not both).
fn check(sections: &[Section<'_>]) -> Result<(), String> {
    for section in sections {
        for server in &section.servers {
            let launch = (server.command.as_deref(), server.url.as_deref());
            let ok = !server.name.is_empty()
                && (matches!(launch, (Some(c), None) if !c.is_empty())
                    || matches!(launch, (None, Some(u)) if !u.is_empty()));
            if !ok {
                return Err(format!(
                    "server {:?}: needs a command or a url (one of them)",
                    report::printable(&server.name)
                ));
            }
        }
    }
    Ok(())
}

fn resources_enabled() -> bool {
    std::env::var_os("MCP_WARDEN_RESOURCE_REPORT").is_some_and(|v| v == "1")
}

/// This process's `VmHWM` in KiB (as doctor reports it), -1 when unknown.
fn own_peak_kib() -> i64 {
    own_status_kib("VmHWM:")
}

/// A figure of this process's `/proc/self/status` in KiB; -1 when unknown.
fn own_status_kib(field: &str) -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(-1)
}

/// The one `error:` line of a failed run.
#[allow(clippy::disallowed_methods)] // the floor's only writer of its streams
pub fn error_line(why: &str) {
    let _ = writeln!(std::io::stderr().lock(), "error: {why}");
}

/// The report in one write to stdout, then the diagnostics to stderr.
#[allow(clippy::disallowed_methods)] // the floor's only writer of its streams
fn write_streams(report: &[u8], diagnostics: &[u8]) -> Result<(), String> {
    std::io::stdout()
        .lock()
        .write_all(report)
        .and_then(|()| std::io::stdout().lock().flush())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    if !diagnostics.is_empty() {
        let _ = std::io::stderr().lock().write_all(diagnostics);
    }
    Ok(())
}
