//! `doctor --pin`: the only path of doctor that launches anything (DOCTOR.md §4).
//!
//! Contract, in order: only servers from files the user named with `--config` are
//! eligible (a discovered config — a cloned repository's `.mcp.json` — is refused,
//! or `doctor --pin --yes` in CI would be code execution by config file); a
//! non-interactive session needs `--yes`; an interactive one is shown every argv,
//! unmasked and exact, and asked once (default No); each capture writes
//! `<slug>.warden.lock` in cwd, unapproved, never replacing an existing file. Any
//! refusal or failure makes the exit code 2.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::diag::Diag;
use crate::model::{AuditedServer, Coverage, Report};
use crate::pin::{self, PinError};
use crate::text::quote::{quote, quote_exact};

/// How the pin step ended.
#[derive(Debug, PartialEq, Eq)]
pub enum PinOutcome {
    /// Nothing was uncovered: nothing to do.
    NothingToPin,
    /// Every eligible server was pinned and none was refused.
    AllPinned,
    /// At least one refusal or failure (exit 2).
    Failed,
}

/// Options for the pin step.
pub struct PinOptions<'a> {
    pub yes: bool,
    pub timeout: Duration,
    pub cwd: &'a Path,
    /// Status lines go to stderr when stdout carries JSONL.
    pub json: bool,
}

/// Run the `--pin` step over the report's uncovered servers.
pub fn pin_uncovered(report: &Report, opts: &PinOptions<'_>, diag: &mut Diag) -> PinOutcome {
    let uncovered: Vec<&AuditedServer> = report
        .servers
        .iter()
        .filter(|s| s.coverage == Coverage::None)
        .collect();
    if uncovered.is_empty() {
        return PinOutcome::NothingToPin;
    }
    let mut failed = false;
    let mut targets = Vec::new();
    for server in uncovered {
        let Some(source) = report.sources.get(server.source) else {
            continue;
        };
        if source.is_explicit() {
            targets.push(server);
        } else {
            diag.raw(&format!(
                "--pin refused {}: discovered config ({}); pass it with --config to allow spawning",
                server.target, source.label
            ));
            failed = true;
        }
    }
    if targets.is_empty() {
        return PinOutcome::Failed;
    }
    if !opts.yes {
        if !io::stdin().is_terminal() {
            diag.error(
                "--pin would spawn servers; refusing in a non-interactive session without --yes",
            );
            return PinOutcome::Failed;
        }
        if !confirm(&targets) {
            diag.error("--pin declined; nothing was spawned");
            return PinOutcome::Failed;
        }
    }
    for server in targets {
        match pin_one(report, server, opts) {
            Ok(lock_name) => {
                let line = format!(
                    "pinned {} -> {lock_name} (unapproved). Approve with: mcp-warden lock rotate {} --approver you@example.com",
                    crate::text::display(&server.target),
                    quote(&lock_name)
                );
                if opts.json {
                    diag.raw(&line);
                } else {
                    println!("{line}");
                }
            }
            Err(message) => {
                diag.raw(&format!("pin failed {}: {message}", server.target));
                failed = true;
            }
        }
    }
    if failed {
        PinOutcome::Failed
    } else {
        PinOutcome::AllPinned
    }
}

/// Capture one server as its client would launch it and write its lock exclusively.
fn pin_one(
    report: &Report,
    server: &AuditedServer,
    opts: &PinOptions<'_>,
) -> Result<String, String> {
    let Some(lock_name) = server.lock_name.clone() else {
        return Err("no lock file name was assigned".into());
    };
    let path = opts.cwd.join(&lock_name);
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(format!(
            "{lock_name} already exists; remove it or rotate it, doctor never overwrites a lock"
        ));
    }
    let workdir = report
        .sources
        .get(server.source)
        .and_then(|s| project_dir(&s.path));
    let lock = pin::capture_and_build(&server.spec, workdir.as_deref(), opts.timeout)
        .map_err(|e| e.to_string())?;
    pin::write_lock_exclusive(&path, &lock).map_err(|e| match e {
        pin::WriteError::Exists(_) => {
            format!("{lock_name} already exists; remove it or rotate it, doctor never overwrites a lock")
        }
        other => PinError::Write(other).to_string(),
    })?;
    Ok(lock_name)
}

/// The directory a client launches a project config's servers in: the project root
/// for `.mcp.json`, `.vscode/mcp.json` and `.cursor/mcp.json`; `None` (the user's cwd)
/// for user-level files.
pub fn project_dir(config: &Path) -> Option<PathBuf> {
    let dir = config.parent()?;
    let name = config.file_name()?.to_str()?;
    let dir_name = dir.file_name().and_then(|d| d.to_str());
    match (name, dir_name) {
        (".mcp.json", _) => Some(dir.to_path_buf()),
        ("mcp.json", Some(".vscode" | ".cursor")) => dir.parent().map(Path::to_path_buf),
        _ => None,
    }
}

/// Show every argv exactly and ask once; default No.
fn confirm(targets: &[&AuditedServer]) -> bool {
    let mut err = io::stderr();
    for server in targets {
        let _ = writeln!(err, "  will spawn: {}", consent_line(server));
    }
    let _ = write!(
        err,
        "Spawn {} server(s) to pin them? [y/N]: ",
        targets.len()
    );
    let _ = err.flush();
    let mut answer = String::new();
    if io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes")
}

/// The argv as it will run: unmasked (this is informed consent to spawn exactly this
/// process, never a line to paste), shell-quoted so word boundaries are visible, and
/// with every character that could drive a terminal written as an escape, so the
/// line is exact and inert.
pub fn consent_line(server: &AuditedServer) -> String {
    match server.spec.remote_url() {
        Some(url) => format!("--url {}", quote_exact(url)),
        None => {
            let mut words = vec![quote_exact(server.spec.launch_command().unwrap_or(""))];
            words.extend(server.spec.args().iter().map(|a| quote_exact(a)));
            words.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_configs_launch_in_their_project() {
        assert_eq!(
            project_dir(Path::new("/r/.mcp.json")),
            Some(PathBuf::from("/r"))
        );
        assert_eq!(
            project_dir(Path::new("/r/.vscode/mcp.json")),
            Some(PathBuf::from("/r"))
        );
        assert_eq!(
            project_dir(Path::new("/r/.cursor/mcp.json")),
            Some(PathBuf::from("/r"))
        );
        assert_eq!(project_dir(Path::new("/h/.cursor/x.json")), None);
        assert_eq!(project_dir(Path::new("/h/mine.json")), None);
    }
}
