//! `doctor --pin`: the only path of doctor that launches anything (DOCTOR.md §4).
//!
//! Contract, in order: only servers from files the user named with `--config` are
//! eligible (a discovered config — a cloned repository's `.mcp.json` — is refused,
//! or `doctor --pin --yes` in CI would be code execution by config file); a
//! non-interactive session needs `--yes`; an interactive one is shown every argv,
//! unmasked and exact, and asked once (default No); each launch (servers of the
//! same launch share one lock, see [`crate::render::lock_names`]) is captured once
//! with its env and header values expanded from this environment the way its
//! client expands them ([`crate::pin::configured`]) and written to its
//! `<slug>.warden.lock` in cwd, unapproved, never replacing an existing file. Any
//! refusal or failure makes the exit code 2.
//!
//! The pin step runs before the report is rendered: the caller marks each pinned
//! server as covered by its (unapproved) lock ([`super::doctor::mark_pinned`]), so
//! the report, its Next steps and the exit code describe the state after pinning,
//! and [`render_pin_run`] says what was done: which servers went into which lock,
//! which failed and why, and the `lock rotate` and `check` lines still to run.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::diag::Diag;
use crate::model::{AuditedServer, Report};
use crate::pin::{self, PinError};
use crate::reading::expand::Known;
use crate::render::lock_names::uncovered_groups;
use crate::render::next_steps::{check_command, push_note, rotate_command};
use crate::text::display;
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
    /// The home directory doctor scanned (`${userHome}` in a value).
    pub home: &'a Path,
}

/// What happened to one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaunchResult {
    /// Written, unapproved; `unset` names the variables a value referenced that
    /// were not set here (the server got what its client gives it without them).
    Pinned { unset: Vec<String> },
    /// Not written, and why.
    Failed(String),
}

/// One launch the pin step tried: the report indices of its servers, its lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPin {
    pub servers: Vec<usize>,
    pub lock: String,
    pub result: LaunchResult,
}

/// Everything the pin step did.
#[derive(Debug)]
pub struct PinRun {
    pub outcome: PinOutcome,
    /// The launches captured (or tried), in report order; empty when the step
    /// was refused as a whole.
    pub launches: Vec<LaunchPin>,
}

impl PinRun {
    /// `(server index, lock)` for every server now covered by a lock written here.
    pub fn pinned(&self) -> impl Iterator<Item = (usize, &str)> {
        self.launches
            .iter()
            .filter(|l| matches!(l.result, LaunchResult::Pinned { .. }))
            .flat_map(|l| l.servers.iter().map(move |&i| (i, l.lock.as_str())))
    }
}

/// Run the `--pin` step over the report's uncovered servers, one capture per
/// launch. Refusals are printed here (`error:` lines); what was pinned or failed is
/// returned for [`render_pin_run`].
pub fn pin_uncovered(report: &Report, opts: &PinOptions<'_>, diag: &mut Diag) -> PinRun {
    let index_of = |s: &AuditedServer| {
        report
            .servers
            .iter()
            .position(|x| std::ptr::eq(x, s))
            .unwrap_or(usize::MAX)
    };
    let groups = uncovered_groups(report);
    if groups.is_empty() {
        return PinRun {
            outcome: PinOutcome::NothingToPin,
            launches: Vec::new(),
        };
    }
    let mut failed = false;
    // Each launch with its eligible servers (a refused server stays uncovered).
    let mut targets: Vec<(Vec<&AuditedServer>, String)> = Vec::new();
    for group in &groups {
        let mut eligible = Vec::new();
        for server in group.servers() {
            let Some(source) = report.sources.get(server.source) else {
                continue;
            };
            if source.is_explicit() {
                eligible.push(server);
            } else {
                diag.raw(&format!(
                    "--pin refused {}: discovered config ({}); pass it with --config to allow spawning",
                    server.target, source.label
                ));
                failed = true;
            }
        }
        if !eligible.is_empty() {
            targets.push((eligible, group.lock.to_string()));
        }
    }
    let refused = |diag: &mut Diag, message: &str| {
        diag.error(message);
        PinRun {
            outcome: PinOutcome::Failed,
            launches: Vec::new(),
        }
    };
    if targets.is_empty() {
        return PinRun {
            outcome: PinOutcome::Failed,
            launches: Vec::new(),
        };
    }
    if !opts.yes {
        if !io::stdin().is_terminal() {
            return refused(
                diag,
                "--pin would spawn servers; refusing in a non-interactive session without --yes",
            );
        }
        let shown: Vec<&AuditedServer> = targets
            .iter()
            .filter_map(|(s, _)| s.first().copied())
            .collect();
        if !confirm(&shown) {
            return refused(diag, "--pin declined; nothing was spawned");
        }
    }
    let lookup = |name: &str| std::env::var(name).ok();
    let mut launches = Vec::with_capacity(targets.len());
    for (servers, lock) in targets {
        let Some(&first) = servers.first() else {
            continue;
        };
        let result = match pin_one(report, first, &lock, opts, &lookup) {
            Ok(unset) => LaunchResult::Pinned { unset },
            Err(message) => {
                failed = true;
                LaunchResult::Failed(message)
            }
        };
        launches.push(LaunchPin {
            servers: servers.iter().map(|s| index_of(s)).collect(),
            lock,
            result,
        });
    }
    PinRun {
        outcome: if failed {
            PinOutcome::Failed
        } else {
            PinOutcome::AllPinned
        },
        launches,
    }
}

/// What the pin step did, after the report: per launch, its targets, then either
/// the lock it went into with the `lock rotate` and `check` lines still to run, or
/// why it failed. Every line pastes inertly or runs exactly what it says: prose is
/// a `#` line whose config-derived words are quoted.
pub fn render_pin_run(
    report: &Report,
    run: &PinRun,
    width: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    if run.launches.is_empty() {
        return Ok(());
    }
    let pinned = run
        .launches
        .iter()
        .filter(|l| matches!(l.result, LaunchResult::Pinned { .. }))
        .count();
    let mut buf = String::new();
    push_note(
        &mut buf,
        width,
        &format!(
            "doctor --pin pinned {pinned} of {} launches into unapproved locks in the current directory:",
            run.launches.len()
        ),
    );
    out.write_all(buf.trim_start().as_bytes())?;
    for launch in &run.launches {
        for server in launch.servers.iter().filter_map(|&i| report.servers.get(i)) {
            writeln!(out, "  # {}", quote(&display(&server.target)))?;
        }
        match &launch.result {
            LaunchResult::Pinned { unset } => {
                note(
                    out,
                    width,
                    &format!(
                        "pinned into {}, unapproved: review it, approve it, then check it and commit it",
                        launch.lock
                    ),
                )?;
                if !unset.is_empty() {
                    let names: Vec<String> =
                        unset.iter().map(|n| display(n).into_owned()).collect();
                    note(
                        out,
                        width,
                        &format!(
                            "not set here, so the server got what its client gives it without them: {}",
                            names.join(" ")
                        ),
                    )?;
                }
                writeln!(out, "  {}", rotate_command(&launch.lock))?;
                if let Some(server) = launch.servers.first().and_then(|&i| report.servers.get(i)) {
                    writeln!(out, "  {}", check_command(&server.spec, &launch.lock))?;
                }
            }
            LaunchResult::Failed(why) => {
                note(out, width, &format!("not pinned: {}", display(why)))?;
            }
        }
    }
    Ok(())
}

/// One prose line of the block: a comment whose text is one quoted word, inert
/// when pasted ([`push_note`]).
fn note(out: &mut dyn Write, width: usize, text: &str) -> io::Result<()> {
    let mut buf = String::new();
    push_note(&mut buf, width, text);
    out.write_all(buf.as_bytes())
}

/// Capture one launch as its client would start it and write its lock
/// exclusively; the variables referenced but unset.
fn pin_one(
    report: &Report,
    server: &AuditedServer,
    lock_name: &str,
    opts: &PinOptions<'_>,
    lookup: crate::reading::expand::Lookup<'_>,
) -> Result<Vec<String>, String> {
    let path = opts.cwd.join(lock_name);
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(format!(
            "{lock_name} already exists; remove it or rotate it, doctor never overwrites a lock"
        ));
    }
    let workdir = report
        .sources
        .get(server.source)
        .and_then(|s| project_dir(&s.path));
    let known = Known {
        home: opts.home.to_str().map(str::to_string),
        workspace: workdir
            .as_deref()
            .and_then(Path::to_str)
            .map(str::to_string),
        separator: '/',
    };
    let captured = pin::capture_configured(
        &server.spec,
        workdir.as_deref(),
        &known,
        lookup,
        opts.timeout,
    )
    .map_err(|e| e.to_string())?;
    pin::write_lock_exclusive(&path, &captured.lock).map_err(|e| match e {
        pin::WriteError::Exists(_) => {
            format!("{lock_name} already exists; remove it or rotate it, doctor never overwrites a lock")
        }
        other => PinError::Write(other).to_string(),
    })?;
    Ok(captured.unset)
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
    let mut err = crate::output::diagnostics();
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
