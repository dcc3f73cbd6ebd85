//! `mcp-warden doctor`: discovery → one sandboxed parse → engines → report.
//!
//! Problems that must not hide the rest of the scan (an unreadable discovered file,
//! a malformed `projects[...]` entry, a server with a wrong-typed field) are counted
//! and the scan continues; the exit code is decided once, in [`exit_code`], from
//! those counts.

use crate::hash::{HashMap, HashSet};
use crate::hash::{HashMapExt, HashSetExt};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::{Mutex, PoisonError};

use mcp_warden_sandbox::WeakSandboxPolicy;

use super::diag::Diag;
use super::discover::{self, Candidate, DiscoveryInput, ListingProblem};
use super::locks::{self, FoundLock};
use super::open::{self, Discovered};
use super::parse::{self, Job};
use crate::cli::Platform;
use crate::engines;
use crate::file_kind::FileKind;
use crate::model::{
    AuditedServer, Client, Coverage, EngineFinding, FieldPath, FileProblem, Finding, Layer,
    LocatedValue, LockProblem, Position, ProblemKind, Report, Scope, Source, ValuePositions,
};
use crate::protocol::{
    ChildMessage, FileFormat, IgnoreList, LoadError, LoadErrorKind, LockSummary, ServerMap, Twin,
};
use crate::reading::expand::Known;
use crate::reading::{self, FileReaders, Reader};
use crate::render::lock_names::{naming_input, NamingInput};
use crate::render::next_steps::APPROVER_PLACEHOLDER;
use crate::rules::{RuleId, Severity};
use crate::suppress::{self, UserFile};
use crate::text::safe_text::DEFAULT_CAP;

/// Discovered configs larger than this are skipped (DOCTOR.md §1 "Size cap").
pub const DISCOVERED_SIZE_CAP: u64 = 8 << 20;
/// A discovered `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`) is read up to
/// this size: Claude Code keeps session history in it, so heavy users pass 8 MiB, and
/// its loader skips everything but the server maps and approval settings in one
/// linear pass (`benches/` measures 64 MiB within the child's limits).
pub const CLAUDE_JSON_SIZE_CAP: u64 = 64 << 20;
/// `--config` has no cap of its own; the child's address-space limit still bounds it.
pub const EXPLICIT_SIZE_CAP: u64 = u64::MAX;
/// Most lock bytes one scan hands to the parser child, all locks together. Real locks
/// are kilobytes; the budget keeps a tree of large locks from using up the exchange's
/// deadline and the parent's answer budget before the user's own configs are done.
/// Locks beyond it are not read: each is named in a warning and makes the exit code 2.
pub const TOTAL_LOCK_BYTES: u64 = 32 << 20;

/// Everything doctor needs, resolved from the command line and the environment.
#[derive(Debug, Clone)]
pub struct DoctorOptions {
    pub configs: Vec<PathBuf>,
    pub discover: bool,
    pub platform: Platform,
    pub home: PathBuf,
    pub cwd: PathBuf,
    /// The environment variables discovery honours.
    pub env: discover::Environment,
    /// Where absolute system paths are resolved (`/` but in tests).
    pub system_root: PathBuf,
    pub sandbox_policy: WeakSandboxPolicy,
    /// What runs over each server.
    pub mode: ScanMode,
    /// Which suppression file applies.
    pub ignore: IgnoreChoice,
    /// Today in UTC: a suppression applies through its `expires` day.
    pub today: suppress::Date,
    /// Name the lock of every uncovered server ([`crate::render::lock_names`]).
    /// Only the text report's Next steps prints the names and only `--pin` writes
    /// them, so a run that does neither names nothing.
    pub name_locks: bool,
}

/// Where suppressions come from (see [`crate::suppress`] for the trust rule).
#[derive(Debug, Clone)]
pub enum IgnoreChoice {
    /// No suppressions (`auth audit`).
    None,
    /// The user's own file, if there is one there (no `--ignore-file`).
    User(Option<UserFile>),
    /// `--ignore-file PATH` (absolute): it must exist, and may be a symlink.
    Named(PathBuf),
}

/// The suppression file of this scan, once opened.
struct IgnoreFile {
    /// As shown (`~/.config/mcp-warden/ignore.toml`).
    label: String,
    path: PathBuf,
    /// Named with `--ignore-file`: an unreadable one ends the scan, as `--config`.
    named: bool,
}

/// What opening the suppression file gave.
enum IgnoreOpened {
    None,
    Job(IgnoreFile, Job),
    /// Found and refused unread (a symlink below the configuration directory, not
    /// a regular file): reported as a finding at the file.
    Refused(IgnoreFile, String),
}

/// The size cap of a discovered file of `format`.
fn discovered_cap(format: FileFormat) -> u64 {
    match format {
        FileFormat::ClaudeJson => CLAUDE_JSON_SIZE_CAP,
        _ => DISCOVERED_SIZE_CAP,
    }
}

/// Record a file (or part of one) that was not scanned: the counter that decides
/// the exit code, by `count`, and the entry the summaries list.
fn not_scanned(
    report: &mut Report,
    kind: ProblemKind,
    count: usize,
    path: &str,
    reason: &str,
    rescan: Option<String>,
) {
    match kind {
        ProblemKind::Skipped => report.skipped += count,
        ProblemKind::Unreadable => report.hard_errors += count,
    }
    report.problems.push(FileProblem {
        kind,
        path: crate::text::redact::display_capped(path, PROBLEM_CAP).into_owned(),
        reason: crate::text::redact::display_capped(reason, PROBLEM_CAP).into_owned(),
        rescan,
    });
}

/// Longest path or reason of a [`FileProblem`], in code points.
const PROBLEM_CAP: usize = 400;

/// The line that scans a discovered file anyway, `mcp-warden doctor --config
/// <path>`, when that line works as printed: `--config` reads the file in the same
/// format (the file's name decides it), and its absolute path prints exactly
/// ([`crate::text::quote::quote_for_paste`]: nothing neutralised or masked).
fn rescan_line(path: &Path, format: FileFormat) -> Option<String> {
    if !path.is_absolute() || discover::explicit_reading(path).0 != format {
        return None;
    }
    let quoted = crate::text::quote::quote_for_paste(path.to_str()?, PROBLEM_CAP)?;
    Some(format!("mcp-warden doctor --config {quoted}"))
}

/// `doctor` composes every engine and lock coverage; `auth audit` runs the auth
/// posture audit alone, so its verdicts are exactly the ones doctor reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanMode {
    Doctor,
    AuthAudit,
}

/// How the scan ended before any rendering.
// One per run, moved once: boxing the report would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Scan {
    /// A report to render (possibly with hard errors to reflect in the exit code).
    Report(Report),
    /// Ended early with an `error:` already printed (explicit config unreadable,
    /// sandbox failure): exit 2, nothing on stdout.
    Failed,
}

/// A config file handed to the child.
struct ConfigFile {
    /// Shared with each of the file's sources ([`Source::client`]), as is `path`.
    client: Arc<str>,
    /// Display label (`~/...` or the path as given).
    label: String,
    path: Arc<Path>,
    format: FileFormat,
    scope: Scope,
    /// The clients that read it, and what they know without the environment.
    readers: FileReaders,
    client_id: Option<Client>,
    layer: Layer,
    /// The project directory the file belongs to (see [`Source::project_dir`]).
    project_dir: Option<PathBuf>,
}

/// What the expansion of a file's readers may fill in: the home directory and the
/// workspace folder (the project directory of a project file; the folder holding
/// `.vscode`/`.cursor`/`.roo` for a `--config` file inside one; the extension's own
/// directory for a Claude Desktop extension manifest, its `${__dirname}`).
fn file_readers(readers: &'static [Reader], home: &Path, workspace: Option<&Path>) -> FileReaders {
    FileReaders {
        readers,
        known: Known {
            home: home.to_str().map(str::to_string),
            workspace: workspace.and_then(Path::to_str).map(str::to_string),
            separator: std::path::MAIN_SEPARATOR,
        },
    }
}

/// Run the scan. Diagnostics go to `diag` as they occur.
pub fn scan(
    opts: &DoctorOptions,
    diag: &mut Diag,
    started: Option<mcp_warden_sandbox::StartedParser>,
) -> Scan {
    // The parser child starts before discovery (if the caller did not start it
    // earlier still): its `execve` and start-up run on the other core while this
    // thread finds and opens the files it is then handed
    // (`mcp_warden_sandbox::StartedParser`). If it cannot start now, the exchange
    // starts one itself and reports why that failed.
    let started = started.or_else(|| mcp_warden_sandbox::StartedParser::start().ok());
    let mut report = Report {
        cwd: opts.cwd.clone(),
        ..Report::default()
    };
    let mut jobs = Vec::new();
    let mut files = Vec::new();

    // Explicit paths first: they replace discovered entries for the same file.
    let mut explicit_real = HashSet::new();
    let mut explicit_files = Vec::new();
    for path in &opts.configs {
        let shown = discover::display_path(path, &opts.home);
        let real = match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(e) => {
                diag.error(&format!("cannot read {shown}: {}", io_reason(&e)));
                return Scan::Failed;
            }
        };
        if !explicit_real.insert(real.clone()) {
            diag.warning(&format!(
                "--config {shown}: same file as an earlier --config path; scanning it once"
            ));
            continue;
        }
        let fd = match open::open_explicit(path) {
            Ok(fd) => fd,
            Err(reason) => {
                diag.error(&format!("cannot read {shown}: {reason}"));
                return Scan::Failed;
            }
        };
        let (format, readers) = discover::explicit_reading(path);
        let full = absolute(&opts.cwd, path);
        let workspace = full
            .parent()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n == ".vscode" || n == ".cursor" || n == ".roo")
            })
            .and_then(Path::parent)
            .or_else(|| {
                matches!(format, FileFormat::McpJson | FileFormat::DesktopExtension)
                    .then(|| full.parent())
                    .flatten()
            })
            .map(Path::to_path_buf);
        let readers = file_readers(readers, &opts.home, workspace.as_deref());
        explicit_files.push((
            Job {
                fd,
                format,
                size_cap: EXPLICIT_SIZE_CAP,
            },
            ConfigFile {
                client: "explicit".into(),
                label: shown,
                path: full.as_path().into(),
                format,
                scope: Scope::Explicit,
                readers,
                client_id: None,
                layer: Layer::Explicit,
                project_dir: workspace,
            },
        ));
    }

    let ignore = match open_ignore(opts, &mut report, diag) {
        Some(opened) => opened,
        None => return Scan::Failed,
    };
    let ignore_jobs = usize::from(matches!(ignore, IgnoreOpened::Job(..)));

    // Discovery: metadata probes, then a race-free open of each existing file.
    let mut lock_roots = vec![opts.cwd.clone()];
    if opts.discover {
        let input = DiscoveryInput {
            platform: opts.platform,
            home: opts.home.clone(),
            cwd: opts.cwd.clone(),
            env: opts.env.clone(),
            system_root: opts.system_root.clone(),
        };
        let found = discover::discover(&input);
        report.relocations = found
            .relocations
            .iter()
            .map(|(var, dir)| (var.to_string(), discover::display_path(dir, &opts.home)))
            .collect();
        for problem in &found.problems {
            report_listing_problem(problem, opts, &mut report, diag);
        }
        let candidates = found.candidates;
        report.searched = candidates.len();
        // The parser takes at most MAX_FILES files: the explicit ones are kept,
        // and discovered files beyond the rest are named and not read (user files
        // come first, so a repository full of project files cannot push them out),
        // instead of the whole scan failing.
        let budget = crate::protocol::bounds::MAX_FILES
            .saturating_sub(explicit_files.len())
            .saturating_sub(ignore_jobs);
        // Each file is read once, whatever the paths that lead to it: the first
        // location wins (user files come first), so a `CODEX_HOME` that reaches a
        // project's `.codex` through a symlink or `..` reads it as the user file,
        // as a plain path to it would. `--config` files replace discovered ones.
        let mut read_files: HashSet<(u64, u64)> = explicit_files
            .iter()
            .filter_map(|(job, _)| open::file_identity(&job.fd).ok())
            .collect();
        for candidate in candidates {
            // Resolved only when there is a `--config` file to compare with:
            // resolving walks every component of the path (a `readlink` each), and
            // a run with no `--config` resolved some forty candidate paths for
            // nothing.
            if !explicit_real.is_empty()
                && std::fs::canonicalize(&candidate.path)
                    .is_ok_and(|real| explicit_real.contains(&real))
            {
                continue; // named with --config: that source replaces this one
            }
            if jobs.len() >= budget {
                if discover::probe(&candidate.base, &candidate.path) != discover::Probe::Absent {
                    let shown = discover::display_path(&candidate.path, &opts.home);
                    let why = format!(
                        "the scan hands at most {} files to the parser",
                        crate::protocol::bounds::MAX_FILES
                    );
                    diag.warning(&format!(
                        "not reading {shown}: {why} (final exit will be 2)"
                    ));
                    not_scanned(
                        &mut report,
                        ProblemKind::Unreadable,
                        1,
                        &shown,
                        &why,
                        rescan_line(&candidate.path, candidate.format),
                    );
                }
                continue;
            }
            if let Some(job) = open_candidate(&candidate, opts, &mut report, diag) {
                if let Some(root) = &candidate.project_root {
                    if !lock_roots.contains(root) {
                        lock_roots.push(root.clone());
                    }
                }
                if open::file_identity(&job.fd).is_ok_and(|id| !read_files.insert(id)) {
                    continue; // the same file as an earlier location: read once
                }
                files.push(ConfigFile {
                    client: candidate.label.into(),
                    label: discover::display_path(&candidate.path, &opts.home),
                    path: candidate.path.as_path().into(),
                    format: candidate.format,
                    scope: if candidate.project_root.is_some() {
                        Scope::Project
                    } else {
                        Scope::User
                    },
                    readers: file_readers(
                        candidate.readers,
                        &opts.home,
                        // An extension's `${__dirname}` is the directory of its manifest.
                        match candidate.format {
                            FileFormat::DesktopExtension => candidate.path.parent(),
                            _ => candidate.project_root.as_deref(),
                        },
                    ),
                    client_id: Some(candidate.client),
                    layer: candidate.layer,
                    project_dir: candidate.project_root.clone(),
                });
                jobs.push(job);
            }
        }
    }
    for (job, file) in explicit_files {
        jobs.push(job);
        files.push(file);
    }
    let config_jobs = jobs.len();
    // The suppression file goes after the configs, before the locks.
    let (ignore_file, ignore_refused) = match ignore {
        IgnoreOpened::None => (None, None),
        IgnoreOpened::Job(file, job) => {
            jobs.push(job);
            (Some(file), None)
        }
        IgnoreOpened::Refused(file, why) => (Some(file), Some(why)),
    };

    // Locks: listed here (metadata only), parsed by the child like configs, after
    // them, and only within the scan's lock budget (bytes and descriptors).
    let found_locks = match opts.mode {
        ScanMode::Doctor => open_locks(&lock_roots, &opts.cwd, &mut report, diag),
        ScanMode::AuthAudit => Vec::new(),
    };
    let mut lock_paths = Vec::new();
    let mut lock_bytes = 0u64;
    for (display, fd) in found_locks {
        let size = open::regular_size(&fd)
            .ok()
            .flatten()
            .unwrap_or(locks::LOCK_SIZE_CAP);
        let over = if jobs.len() >= crate::protocol::bounds::MAX_FILES {
            Some(format!(
                "the scan hands at most {} files to the parser",
                crate::protocol::bounds::MAX_FILES
            ))
        } else if lock_bytes.saturating_add(size) > TOTAL_LOCK_BYTES {
            Some(format!(
                "the locks before it already take {lock_bytes} of the {TOTAL_LOCK_BYTES} lock \
                 bytes one scan reads"
            ))
        } else {
            None
        };
        if let Some(why) = over {
            diag.warning(&format!(
                "not reading lock {display}: {why}; it counts as no lock (final exit will be 2)"
            ));
            not_scanned(
                &mut report,
                ProblemKind::Unreadable,
                1,
                &display,
                &format!("lock not read: {why}; it counts as no lock"),
                None,
            );
            continue;
        }
        lock_bytes += size;
        jobs.push(Job {
            fd,
            format: FileFormat::Lock,
            size_cap: locks::LOCK_SIZE_CAP,
        });
        lock_paths.push(display);
    }

    let (parsed, parts) = parse_collecting_parts(jobs, started, &files, opts);
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            diag.error(&e.to_string());
            return Scan::Failed;
        }
    };
    for warning in &parsed.warnings {
        diag.warning(warning);
    }
    if let Some(why) = &parsed.cut_short {
        diag.warning(&format!(
            "the parser child stopped early ({why}); each file it did not reach is named \
             below (final exit will be 2)"
        ));
    }
    report.sandbox = parsed.confinement.to_string();

    let mut answers = parsed.answers.into_iter();
    let config_answers: Vec<ChildMessage> = answers.by_ref().take(config_jobs).collect();
    let mut ignore_list = None;
    if let (Some(file), None) = (&ignore_file, &ignore_refused) {
        match answers.next() {
            Some(ChildMessage::Ignore(Ok(list))) => ignore_list = Some(list),
            Some(ChildMessage::Ignore(Err(e))) => {
                let why = format!("{}; no suppression applied", e.message);
                if file.named {
                    diag.error(&format!(
                        "cannot use suppression file {}: {why}",
                        file.label
                    ));
                    return Scan::Failed;
                }
                diag.warning(&format!(
                    "cannot use suppression file {}: {why} (scan continues; final exit will be 2)",
                    file.label
                ));
                not_scanned(
                    &mut report,
                    ProblemKind::Unreadable,
                    1,
                    &file.label,
                    &why,
                    None,
                );
            }
            _ => {} // excluded by validation
        }
    }
    let mut readable_locks = Vec::new();
    for (display, answer) in lock_paths.into_iter().zip(answers) {
        match answer {
            ChildMessage::Lock(Ok(summary)) => readable_locks.push((display, summary)),
            // Not examined (over its share, or never reached): a gap in the scan.
            ChildMessage::Lock(Err(e))
                if matches!(e.kind, LoadErrorKind::TooLarge | LoadErrorKind::Unfinished) =>
            {
                diag.warning(&format!(
                    "ignoring unreadable lock {display}: {} (final exit will be 2)",
                    e.message
                ));
                not_scanned(
                    &mut report,
                    ProblemKind::Unreadable,
                    1,
                    &display,
                    &format!("lock not examined: {}; it counts as no lock", e.message),
                    None,
                );
            }
            // Examined and not a valid lock: ignored, never coverage (DOCTOR.md §3).
            ChildMessage::Lock(Err(e)) => diag.warning(&format!(
                "ignoring unreadable lock {display}: {}",
                e.message
            )),
            ChildMessage::Config(_) | ChildMessage::LockRecord(_) | ChildMessage::Ignore(_) => {} // excluded by validation
        }
    }

    let mut pending = Vec::new();
    for ((file, answer), parts) in files.iter().zip(config_answers).zip(parts) {
        let ChildMessage::Config(result) = answer else {
            continue;
        };
        match result {
            Err(e) => {
                let text = load_error_text(file, &e);
                if file.scope == Scope::Explicit {
                    diag.error(&text);
                    return Scan::Failed;
                }
                diag.warning(&format!("{text} (scan continues; final exit will be 2)"));
                let reason = text
                    .strip_prefix(&format!("cannot read {}: ", file.label))
                    .unwrap_or(&text);
                not_scanned(
                    &mut report,
                    ProblemKind::Unreadable,
                    1,
                    &file.label,
                    reason,
                    None,
                );
            }
            Ok(config) => add_config(file, config, parts, &mut report, &mut pending, diag),
        }
    }
    super::resources::phase("collected");
    let audited = audit_servers(
        &mut report.servers,
        pending,
        &readable_locks,
        opts.mode,
        opts.name_locks,
    );
    super::resources::phase("audited");
    // Both modes: approval posture is part of the auth audit.
    judge_approvals_and_name_locks(&mut report, opts.name_locks.then_some(&opts.cwd), &audited);
    super::resources::phase("approved_and_named");
    if let Some(file) = ignore_file {
        apply_suppressions(
            &mut report,
            &file,
            ignore_list.as_ref(),
            ignore_refused,
            opts,
        );
    }
    Scan::Report(report)
}

/// Add the approval join's findings to `report` ([`engines::approval::apply`]),
/// and, with `name_in`, the lock name of every uncovered server, none of them a
/// file already in that directory ([`name_locks`]).
///
/// The lock names read only what the join leaves alone (the servers, their
/// launches and coverage), so the join is decided on the other core while this one
/// names the locks. This way round, not the other: the names' tables are made from
/// the blocks this thread's heap has freed, where a thread of their own took half
/// as long again touching fresh memory.
///
/// A home with fewer than [`SERVERS_PER_THREAD`] servers decides both here: on a
/// small home starting the thread cost more than the join it took over.
///
/// `audited` is what [`audit_servers`] left of each server's audit: the inputs of
/// naming it worked out ahead.
fn judge_approvals_and_name_locks(
    report: &mut Report,
    name_in: Option<&Path>,
    audited: &[Pending],
) {
    let Some(cwd) = name_in else {
        engines::approval::apply(report);
        return;
    };
    let beside = report.servers.len() >= SERVERS_PER_THREAD;
    approvals_and_names(report, cwd, beside, audited);
}

/// The join and the lock names of [`judge_approvals_and_name_locks`]: with
/// `beside`, the join on a thread of its own while this one names the locks.
fn approvals_and_names(report: &mut Report, cwd: &Path, beside: bool, audited: &[Pending]) {
    let shared = &*report;
    let (approvals, names) = std::thread::scope(|scope| {
        let judging = beside.then(|| {
            std::thread::Builder::new()
                .name("approvals".into())
                .spawn_scoped(scope, || engines::approval::judge(shared))
        });
        let names = name_locks(shared, cwd, audited);
        let approvals = match judging {
            Some(Ok(thread)) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // Not worth a thread, or no thread to be had: judged here, after the names.
            Some(Err(_)) | None => engines::approval::judge(shared),
        };
        (approvals, names)
    });
    approvals.add_to(report);
    names.write_into(report);
}

/// The lock name of every uncovered server ([`crate::render::lock_names`]), none
/// of them a file already in `cwd`, where a pin writes its lock: one listing of
/// `cwd` instead of a stat per server.
fn name_locks(
    report: &Report,
    cwd: &Path,
    audited: &[Pending],
) -> crate::render::lock_names::LockNames {
    let existing: crate::hash::HashSet<std::ffi::OsString> = std::fs::read_dir(cwd)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name())
                .collect()
        })
        .unwrap_or_default();
    crate::render::lock_names::decide_lock_names_ahead(
        report,
        &|name: &str| existing.contains(std::ffi::OsStr::new(name)),
        &|i| match audited.get(i) {
            Some(Pending::Coverage(input)) => input.as_ref(),
            _ => None,
        },
    )
}

/// One part of a config's answer, collected, and the job it belongs to.
type JobPart = (usize, Collected);

/// The thread that judges the parts of answers while the child parses, and the way
/// to hand it each part ([`parse_collecting_parts`]).
struct PartJudge<'scope> {
    send: std::sync::mpsc::Sender<JobPart>,
    thread: std::thread::ScopedJoinHandle<'scope, Vec<Vec<Collected>>>,
}

/// The exchange with the parser child, with the parts of each config's answer (a
/// large `~/.claude.json`'s project sections) collected, in order, one list per
/// config job.
///
/// Parts are collected as they arrive, while the child parses the rest of the file,
/// each into a report of its own, merged in order when its answer comes (or
/// dropped, if the answer voids them). A thread of their own judges their servers
/// but for coverage (see [`Pending`]) in the time this thread leaves free, instead
/// of after the child is done. That thread runs at the lowest priority
/// ([`mcp_warden_sandbox::yield_to_the_exchange`]): this thread decodes and
/// collects, about 60 % of the child's parse time, and has to read each part as
/// it comes, or the child waits on a full pipe. The child's span on the 8 MiB
/// home, with this thread kept off the child's core (the sandbox's
/// `placement.rs`): 35 ms with the two threads at equal priority, 22 ms with the
/// judging at the lowest (30 ms with neither). Once the child is done, the parts
/// still queued are passed on unjudged: their servers are judged with the rest, on
/// every core. The thread starts with the first part (a home without a large file
/// starts none); if it cannot be started, every part is judged with the rest.
fn parse_collecting_parts(
    jobs: Vec<Job>,
    started: Option<mcp_warden_sandbox::StartedParser>,
    files: &[ConfigFile],
    opts: &DoctorOptions,
) -> (
    Result<parse::Parsed, parse::ParseError>,
    Vec<Vec<Collected>>,
) {
    let none = || (0..files.len()).map(|_| Vec::new()).collect::<Vec<_>>();
    let mut here = none();
    let child_done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let mut judge: Option<PartJudge<'_>> = None;
        let mut judge_failed = false;
        let child_done = &child_done;
        let parsed =
            parse::parse_all_streaming(jobs, opts.sandbox_policy, started, &mut |job, part| {
                let Some(file) = files.get(job) else {
                    return;
                };
                let collected = collect_part(file, part.sections);
                if judge.is_none() && !judge_failed {
                    let (send, receive) = std::sync::mpsc::channel::<JobPart>();
                    let mode = opts.mode;
                    let naming = opts.name_locks;
                    let work = move || {
                        // Second to the reading of the child's answer (see above).
                        mcp_warden_sandbox::yield_to_the_exchange();
                        let mut parts = none();
                        for (job, mut part) in receive {
                            // Once the child is done the core it used is free: what is
                            // left to judge is judged on every core (`audit_servers`).
                            if !child_done.load(std::sync::atomic::Ordering::Relaxed) {
                                part.judge_servers(mode, naming);
                            }
                            if let Some(list) = parts.get_mut(job) {
                                list.push(part);
                            }
                        }
                        parts
                    };
                    match std::thread::Builder::new()
                        .name("judge".into())
                        .spawn_scoped(scope, work)
                    {
                        Ok(thread) => judge = Some(PartJudge { send, thread }),
                        Err(_) => judge_failed = true,
                    }
                }
                match &judge {
                    // Fails only once the thread has ended, which it does only by
                    // panicking: `join` below resumes that panic.
                    Some(judge) => {
                        let _ = judge.send.send((job, collected));
                    }
                    None => {
                        if let Some(list) = here.get_mut(job) {
                            list.push(collected);
                        }
                    }
                }
            });
        child_done.store(true, std::sync::atomic::Ordering::Relaxed);
        let parts = match judge {
            Some(PartJudge { send, thread }) => {
                drop(send);
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            None => here,
        };
        (parsed, parts)
    })
}

/// Open the suppression file of `opts.ignore` (never reading it). `None` when the
/// scan must end: a `--ignore-file` that cannot be opened, as a `--config` one.
fn open_ignore(opts: &DoctorOptions, report: &mut Report, diag: &mut Diag) -> Option<IgnoreOpened> {
    let shown = |path: &Path| discover::display_path(path, &opts.home);
    let job = |fd| Job {
        fd,
        format: FileFormat::Ignore,
        size_cap: suppress::IGNORE_SIZE_CAP,
    };
    match &opts.ignore {
        IgnoreChoice::None | IgnoreChoice::User(None) => Some(IgnoreOpened::None),
        IgnoreChoice::Named(path) => {
            let file = IgnoreFile {
                label: shown(path),
                path: path.clone(),
                named: true,
            };
            match open::open_explicit(path) {
                Ok(fd) => Some(IgnoreOpened::Job(file, job(fd))),
                Err(reason) => {
                    diag.error(&format!(
                        "cannot read suppression file {}: {reason}",
                        file.label
                    ));
                    None
                }
            }
        }
        IgnoreChoice::User(Some(user)) => {
            let file = IgnoreFile {
                label: shown(&user.path),
                path: user.path.clone(),
                named: false,
            };
            let refused = |why: String, file: IgnoreFile, diag: &mut Diag| {
                diag.warning(&format!(
                    "not reading suppression file {}: {why}; none of its entries applied \
                     (replace it with the file itself, or name it with --ignore-file)",
                    file.label
                ));
                Some(IgnoreOpened::Refused(file, why))
            };
            match open::open_discovered(&user.base, &user.path, suppress::IGNORE_SIZE_CAP) {
                Discovered::Opened { fd, .. } => Some(IgnoreOpened::Job(file, job(fd))),
                Discovered::Absent => Some(IgnoreOpened::None),
                Discovered::Symlink { at } => {
                    let which = if at == user.path {
                        String::new()
                    } else {
                        format!(" at {}", shown(&at))
                    };
                    refused(
                        format!(
                            "symlink in path{which}, never followed in the configuration directory"
                        ),
                        file,
                        diag,
                    )
                }
                Discovered::NotRegular(kind) => {
                    refused(format!("{kind}, not a regular file"), file, diag)
                }
                Discovered::TooLarge { size } => {
                    let why = format!(
                        "{size} bytes exceeds the {}-byte cap; no suppression applied",
                        suppress::IGNORE_SIZE_CAP
                    );
                    diag.warning(&format!(
                        "cannot use suppression file {}: {why} (scan continues; final exit will be 2)",
                        file.label
                    ));
                    not_scanned(report, ProblemKind::Unreadable, 1, &file.label, &why, None);
                    Some(IgnoreOpened::None)
                }
                Discovered::Failed(reason) => {
                    let why = format!("{reason}; no suppression applied");
                    diag.warning(&format!(
                        "cannot use suppression file {}: {why} (scan continues; final exit will be 2)",
                        file.label
                    ));
                    not_scanned(report, ProblemKind::Unreadable, 1, &file.label, &why, None);
                    Some(IgnoreOpened::None)
                }
            }
        }
    }
}

/// Mark the findings the suppression file covers, and report the file's own
/// problems (expired and malformed entries, a refused file) as findings at it.
fn apply_suppressions(
    report: &mut Report,
    file: &IgnoreFile,
    list: Option<&IgnoreList>,
    refused: Option<String>,
    opts: &DoctorOptions,
) {
    let source = report.sources.len();
    report.sources.push(Source {
        client: "mcp-warden".into(),
        label: file.label.clone(),
        path: file.path.as_path().into(),
        scope: Scope::User,
        client_id: None,
        layer: Layer::User,
        project_dir: None,
        settings: Vec::new(),
    });
    let at = suppress::FileAt { source };
    if let Some(why) = refused {
        suppress::file_finding(
            report,
            at,
            &file.label,
            format!(
                "the suppression file was not read ({why}), so none of its entries applied; \
                 replace the link with the file itself, or name it with --ignore-file"
            ),
        );
    }
    if let Some(list) = list {
        suppress::apply(
            report,
            list,
            at,
            &file.label,
            opts.today,
            opts.home.to_str(),
        );
    }
    // A file without findings of its own is not a source of the report.
    if report.setting_findings.iter().all(|f| f.source != source) {
        report.sources.pop();
    }
}

/// Report what a directory listing could not turn into candidates: a symlinked
/// directory or entry and the entries beyond the listing bound are skips (exit at
/// least 1, never green); a directory that cannot be read is a hard error.
fn report_listing_problem(
    problem: &ListingProblem,
    opts: &DoctorOptions,
    report: &mut Report,
    diag: &mut Diag,
) {
    let shown = |path: &Path| discover::display_path(path, &opts.home);
    // (the directory shown, why its entries were not read)
    let (dir, why) = match problem {
        ListingProblem::Symlink { dir, at } => {
            let which = if at == dir {
                String::new()
            } else {
                format!(" at {}", shown(at))
            };
            (
                shown(dir),
                format!(
                    "symlink in path{which}; its entries were not listed (pass --config to scan \
                     a file in it)"
                ),
            )
        }
        ListingProblem::SymlinkedEntry { path } => (
            shown(path),
            "symlinked directory, never followed (pass --config to scan a file in it)".into(),
        ),
        ListingProblem::TooMany {
            dir,
            named,
            extra,
            at_least,
        } => {
            let names: Vec<String> = named
                .iter()
                .map(|n| n.to_string_lossy().into_owned())
                .collect();
            let more = extra.saturating_sub(names.len());
            let tail = match (more, at_least) {
                (0, false) => String::new(),
                (n, false) => format!(" and {n} more"),
                (n, true) => format!(" and at least {n} more"),
            };
            diag.warning(&format!(
                "skipping {}{} entr(ies) of {}: only the first {} by name are read; not \
                 read: {}{tail}",
                if *at_least { "at least " } else { "" },
                extra,
                shown(dir),
                discover::MAX_LISTED,
                names.join(", ")
            ));
            let why = format!(
                "{}{extra} entr(ies) not read: only the first {} by name are read; not read: {}{tail}",
                if *at_least { "at least " } else { "" },
                discover::MAX_LISTED,
                names.join(", ")
            );
            not_scanned(
                report,
                ProblemKind::Skipped,
                problem.skipped(),
                &shown(dir),
                &why,
                None,
            );
            return;
        }
        ListingProblem::NotADirectory { var, dir, kind } => (
            shown(dir),
            format!(
                "{}{kind}, not a directory; nothing below it was read",
                var.map(|v| format!("{v} names ")).unwrap_or_default()
            ),
        ),
        ListingProblem::Failed { dir, reason } => {
            diag.warning(&format!(
                "cannot list {}: {reason} (scan continues; final exit will be 2)",
                shown(dir)
            ));
            not_scanned(
                report,
                ProblemKind::Unreadable,
                1,
                &shown(dir),
                &format!("cannot list the directory: {reason}"),
                None,
            );
            return;
        }
    };
    diag.warning(&format!("skipping {dir}: {why}"));
    not_scanned(
        report,
        ProblemKind::Skipped,
        problem.skipped(),
        &dir,
        &why,
        None,
    );
}

/// Open one discovered candidate, applying the symlink rule, the regular-file rule
/// and the size cap. Anything at a documented path that is not read is a skip
/// (a warning naming the path and why, and at least exit 1), never an absence.
fn open_candidate(
    candidate: &Candidate,
    opts: &DoctorOptions,
    report: &mut Report,
    diag: &mut Diag,
) -> Option<Job> {
    let shown = discover::display_path(&candidate.path, &opts.home);
    let cap = discovered_cap(candidate.format);
    let rescan = || rescan_line(&candidate.path, candidate.format);
    let (kind, why, rescan) = match open::open_discovered(&candidate.base, &candidate.path, cap) {
        Discovered::Opened { fd, .. } => {
            return Some(Job {
                fd,
                format: candidate.format,
                size_cap: cap,
            })
        }
        Discovered::Absent => return None,
        Discovered::Symlink { at } => {
            let which = if at == candidate.path {
                String::new()
            } else {
                format!(" at {}", discover::display_path(&at, &opts.home))
            };
            // `--config` follows the link: it is the user naming the file.
            (
                ProblemKind::Skipped,
                format!("symlink in path{which}"),
                rescan(),
            )
        }
        Discovered::NotRegular(kind) => (
            ProblemKind::Skipped,
            // `--config` refuses it too: no line that would fail.
            format!("{kind}, not a regular file; it was not read"),
            None,
        ),
        Discovered::TooLarge { size } => (
            ProblemKind::Skipped,
            format!("{size} bytes exceeds the {cap}-byte cap"),
            // `--config` has no cap of its own, but the parser child's limits are
            // measured to hold files up to the `~/.claude.json` cap: beyond it the
            // line could fail, so none is printed.
            (size <= CLAUDE_JSON_SIZE_CAP).then(rescan).flatten(),
        ),
        Discovered::Failed(reason) => {
            diag.warning(&format!(
                "cannot read {shown}: {reason} (scan continues; final exit will be 2)"
            ));
            not_scanned(report, ProblemKind::Unreadable, 1, &shown, &reason, None);
            return None;
        }
    };
    let hint = match (&rescan, kind) {
        (Some(line), _) => format!(" (to scan it anyway: {line})"),
        // A path that cannot be printed exactly still can be named by hand.
        (None, _) if why.starts_with("symlink") => " (pass --config to scan it)".to_string(),
        (None, _) => String::new(),
    };
    diag.warning(&format!("skipping {shown}: {why}{hint}"));
    not_scanned(report, kind, 1, &shown, &why, rescan);
    None
}

/// Find and open the lock files. Unopenable locks are warned about and never count.
/// An entry with a lock's name that is a symlink or not a regular file is warned
/// about and counted as skipped: it never counts as coverage, and a skip is never
/// green.
fn open_locks(
    roots: &[PathBuf],
    cwd: &Path,
    report: &mut Report,
    diag: &mut Diag,
) -> Vec<(String, std::os::fd::OwnedFd)> {
    let search = locks::find_locks(roots);
    if search.dropped > 0 {
        diag.warning(&format!(
            "{} more lock file(s) found beyond the first {}; they were not read",
            search.dropped,
            locks::MAX_LOCKS
        ));
    }
    let mut skip = |display: &str, why: String, diag: &mut Diag| {
        diag.warning(&format!(
            "skipping lock {display}: {why}; it does not count as coverage"
        ));
        not_scanned(
            report,
            ProblemKind::Skipped,
            1,
            display,
            &format!("lock {why}; it does not count as coverage"),
            None,
        );
    };
    let not_regular = |kind: FileKind| match kind {
        FileKind::Symlink => "a symlink, never followed".to_string(),
        kind => format!("{kind}, not a regular file"),
    };
    for (lock, kind) in &search.not_regular {
        skip(
            &locks::display_lock(&lock.path(), cwd),
            not_regular(*kind),
            diag,
        );
    }
    let mut out = Vec::new();
    let mut root_fds: Vec<(PathBuf, std::os::fd::OwnedFd)> = Vec::new();
    for FoundLock { root, rel } in search.locks {
        let display = locks::display_lock(&root.join(&rel), cwd);
        if !root_fds.iter().any(|(r, _)| *r == root) {
            match nix::fcntl::open(
                &root,
                nix::fcntl::OFlag::O_PATH
                    | nix::fcntl::OFlag::O_DIRECTORY
                    | nix::fcntl::OFlag::O_CLOEXEC,
                nix::sys::stat::Mode::empty(),
            ) {
                Ok(fd) => root_fds.push((root.clone(), fd)),
                Err(e) => {
                    diag.warning(&format!("ignoring unreadable lock {display}: {}", e.desc()));
                    continue;
                }
            }
        }
        let Some((_, root_fd)) = root_fds.iter().find(|(r, _)| *r == root) else {
            continue;
        };
        let fd = match open::open_beneath(root_fd, &rel) {
            Ok(fd) => fd,
            // Replaced by a symlink since it was listed: never followed, never coverage.
            Err(nix::errno::Errno::ELOOP) | Err(nix::errno::Errno::EXDEV) => {
                skip(&display, not_regular(FileKind::Symlink), diag);
                continue;
            }
            Err(nix::errno::Errno::ENXIO) => {
                skip(&display, not_regular(FileKind::Socket), diag);
                continue;
            }
            Err(e) => {
                diag.warning(&format!("ignoring unreadable lock {display}: {}", e.desc()));
                continue;
            }
        };
        match open::file_kind_and_size(&fd) {
            // Like a discovered config over its cap: skipped unread, and a skip is
            // never green.
            Ok((FileKind::Regular, size)) if size > locks::LOCK_SIZE_CAP => skip(
                &display,
                format!("{size} bytes exceeds the {}-byte cap", locks::LOCK_SIZE_CAP),
                diag,
            ),
            Ok((FileKind::Regular, _)) => out.push((display, fd)),
            // Swapped for something else since it was listed.
            Ok((kind, _)) => skip(&display, not_regular(kind), diag),
            Err(e) => diag.warning(&format!("ignoring unreadable lock {display}: {e}")),
        }
    }
    out
}

/// `error:`/`warning:` text for a file the child could not load.
fn load_error_text(file: &ConfigFile, e: &LoadError) -> String {
    let what = match file.format {
        FileFormat::CodexToml => "TOML",
        FileFormat::ContinueYaml => "YAML",
        FileFormat::Jsonc
        | FileFormat::VsCodeSettings
        | FileFormat::ZedSettings
        | FileFormat::OpenCode => "JSONC",
        _ => "JSON",
    };
    match e.kind {
        LoadErrorKind::Read | LoadErrorKind::TooLarge | LoadErrorKind::Unfinished => {
            format!("cannot read {}: {}", file.label, e.message)
        }
        LoadErrorKind::Syntax | LoadErrorKind::TooDeep => format!(
            "invalid {what} in {}: {}{}",
            file.label,
            e.message,
            still_loaded_by(file, e, Audited::No)
        ),
        LoadErrorKind::Shape => format!(
            "{}: {}{}",
            file.label,
            e.message,
            still_loaded_by(file, e, Audited::No)
        ),
    }
}

/// Whether the servers of a file with a problem were audited anyway.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Audited {
    Yes,
    No,
}

/// For a file refused (or read leniently) over a construct some client accepts:
/// which of the file's clients would still load it, so a refusal is never mistaken
/// for "the client would not start anything either".
fn still_loaded_by(file: &ConfigFile, e: &LoadError, audited: Audited) -> String {
    let Some(construct) = e.construct else {
        return String::new();
    };
    let names = |want: Option<bool>| -> Vec<&'static str> {
        file.readers
            .readers
            .iter()
            .filter(|r| r.loads(construct) == want)
            .map(|r| r.name())
            .collect()
    };
    let (known, unknown) = (names(Some(true)), names(None));
    if !known.is_empty() && audited == Audited::Yes {
        format!(" ({} loads this file as audited)", known.join(", "))
    } else if !known.is_empty() {
        format!(
            " ({} would still load this file and start its servers, none of which doctor audited)",
            known.join(", ")
        )
    } else if !unknown.is_empty() {
        format!(
            " ({} may still load this file: how its parser treats this is not known)",
            unknown.join(", ")
        )
    } else {
        format!(
            " ({} would not load this file either)",
            file.readers
                .readers
                .iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Why a server is flagged WRD-DOCTOR-AMBIGUOUS-SERVER (one finding per reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ambiguity {
    /// The name is under both `mcpServers` and `servers` with different bodies.
    BothMaps,
    /// The name is declared more than once in one map.
    DuplicateName,
    /// The entry is in an earlier copy of a repeated server-bearing key.
    EarlierCopy,
    /// The entry is in a map (or the flat reading) no reader of the file reads.
    UnreadMap(String),
    /// The entry writes these keys more than once.
    RepeatedKeys(String),
    /// The entry's clients (or their versions) start different things from it.
    Readings(String),
}

impl Ambiguity {
    fn message(&self) -> Cow<'static, str> {
        match self {
            Ambiguity::BothMaps => Cow::Borrowed("declared under both mcpServers and servers with different definitions; a decoy map can hide the one the client loads from an audit — keep exactly one"),
            Ambiguity::DuplicateName => Cow::Borrowed("declared more than once under this name; clients load only the last copy and an earlier one can be a decoy, so every copy is audited — keep exactly one"),
            Ambiguity::EarlierCopy => Cow::Borrowed("in an earlier copy of a repeated key; clients read only the last copy, so this one is dead or a decoy — remove the repeated key"),
            Ambiguity::UnreadMap(why) => Cow::Owned(why.clone()),
            Ambiguity::RepeatedKeys(keys) => Cow::Owned(format!("the entry writes {keys} more than once; clients use the last copy, which is the one audited — keep one")),
            Ambiguity::Readings(why) => Cow::Owned(why.clone()),
        }
    }
}

/// What is left of one collected server's audit.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    /// All of it; the reasons the entry is ambiguous, for the finding that lists them.
    Whole(Vec<Ambiguity>),
    /// Only its coverage: every other finding was judged while the child was still
    /// parsing ([`Collected::judge_servers`]), because coverage needs the locks, which
    /// the child reads last. With what naming its lock needs, when the locks are
    /// named and it was worked out then, where the server's words were just read
    /// (see [`crate::render::lock_names`]).
    Coverage(Option<NamingInput>),
}

/// What the parts of one answer added, ahead of the answer (see `scan`): the
/// sources, servers and problems of their sections, what is left of their servers'
/// audit and their warnings, in order.
struct Collected {
    report: Report,
    pending: Vec<Pending>,
    diag: Diag,
}

impl Collected {
    fn new() -> Collected {
        Collected {
            report: Report::default(),
            pending: Vec::new(),
            diag: Diag::held(),
        }
    }

    /// Judge every server except for its coverage ([`judge`]), and with `naming`
    /// work out what naming its lock needs: servers are independent, so what a
    /// part's servers are found to hold does not wait for the rest of the file.
    fn judge_servers(&mut self, mode: ScanMode, naming: bool) {
        for (server, pending) in self.report.servers.iter_mut().zip(&mut self.pending) {
            if let Pending::Whole(reasons) = pending {
                judge(server, reasons, mode);
                *pending = Pending::Coverage(naming.then(|| naming_input(server)));
            }
        }
    }

    /// Add what was collected to `report` as if its sections were added there now.
    fn merge_into(self, report: &mut Report, pending: &mut Vec<Pending>, diag: &mut Diag) {
        let Collected {
            report: part,
            pending: part_pending,
            diag: part_diag,
        } = self;
        let offset = report.sources.len();
        report.sources.extend(part.sources);
        report
            .servers
            .extend(part.servers.into_iter().map(|mut server| {
                server.source += offset;
                server
            }));
        report.problems.extend(part.problems);
        report.skipped += part.skipped;
        report.hard_errors += part.hard_errors;
        pending.extend(part_pending);
        part_diag.release_into(diag);
    }
}

/// Add a config's answer: its sections, with the sections of the parts collected
/// ahead of it (in order) where it completes them (after its top-level section,
/// before the rest, as the file holds them); parts it does not complete are void.
fn add_config(
    file: &ConfigFile,
    mut config: crate::protocol::ParsedConfig,
    parts: Vec<Collected>,
    report: &mut Report,
    pending: &mut Vec<Pending>,
    diag: &mut Diag,
) {
    report.files_read += 1;
    if config.continues_parts && !parts.is_empty() {
        // Room for every part's sources, servers and audits at once: grown a part
        // at a time, the server list of a large `~/.claude.json` doubled five times
        // and faulted its first megabytes in one small page at a time; reserved
        // whole it is one mapping, on huge pages from the allocator's threshold.
        let (sources, servers) = parts.iter().fold((0, 0), |(s, v), p| {
            (s + p.report.sources.len(), v + p.report.servers.len())
        });
        let later: usize = config.sections.iter().map(|s| s.servers.len()).sum();
        report.sources.reserve(sources + config.sections.len());
        report.servers.reserve(servers + later);
        pending.reserve(servers + later);
        let rest = config.sections.split_off(config.sections.len().min(1));
        add_sections(file, config.sections, report, pending, diag);
        for part in parts {
            part.merge_into(report, pending, diag);
        }
        add_sections(file, rest, report, pending, diag);
    } else {
        add_sections(file, config.sections, report, pending, diag);
    }
}

/// One part of an answer, collected as [`add_sections`] adds sections to a report.
fn collect_part(file: &ConfigFile, sections: Vec<crate::protocol::Section>) -> Collected {
    let mut part = Collected::new();
    add_sections(
        file,
        sections,
        &mut part.report,
        &mut part.pending,
        &mut part.diag,
    );
    part
}

/// Add sections of a config file: their sources and servers, each server read as
/// its file's clients read it, and its whole audit still to do.
fn add_sections(
    file: &ConfigFile,
    sections: Vec<crate::protocol::Section>,
    report: &mut Report,
    pending: &mut Vec<Pending>,
    diag: &mut Diag,
) {
    report
        .servers
        .reserve(sections.iter().map(|s| s.servers.len()).sum());
    // Each server's target is written here, then copied once into its shared
    // allocation: formatted afresh, every server's text took an allocation of its
    // own that was freed at once.
    let mut target = String::new();
    for section in sections {
        let label = match &section.project {
            Some(key) => [file.label.as_str(), "#projects[", key, "]"].concat(),
            None => file.label.clone(),
        };
        if let Some(e) = &section.error {
            let why = format!("{}{}", e.message, still_loaded_by(file, e, Audited::Yes));
            diag.warning(&format!(
                "{label}: {why} (scan continues; final exit will be 2)"
            ));
            let part = match &section.project {
                Some(key) => format!("projects[{key}]: "),
                None => String::new(),
            };
            not_scanned(
                report,
                ProblemKind::Unreadable,
                1,
                &file.label,
                &format!("{part}{why}"),
                None,
            );
        }
        // A settings-only section (a Claude Code settings file, a `projects[<path>]`
        // with approvals and no servers) is still a source: its settings decide
        // whether other files' servers start.
        if section.servers.is_empty() && section.settings.is_empty() {
            continue;
        }
        let source_index = report.sources.len();
        report.sources.push(Source {
            client: Arc::clone(&file.client),
            label: label.clone(),
            path: Arc::clone(&file.path),
            scope: file.scope,
            client_id: file.client_id,
            // A `~/.claude.json` project section is the user's local scope.
            layer: match (&section.project, file.layer) {
                (Some(_), Layer::User) => Layer::Local,
                (_, layer) => layer,
            },
            project_dir: match &section.project {
                Some(key) => Some(PathBuf::from(key)),
                None => file.project_dir.clone(),
            },
            settings: section.settings,
        });
        let project: Option<Arc<str>> = section.project.as_deref().map(Arc::from);
        let keys = display_keys(&section.servers);
        // Built on the first entry with a second reading: most sections have none.
        let mut extra_keys: Option<ExtraKeys> = None;
        for (entry, name) in section.servers.into_iter().zip(keys.iter()) {
            let body = match entry.body {
                Ok(body) => body,
                Err(reason) => {
                    diag.warning(&format!(
                        "{label}#{name}: {reason}; the server was not audited (final exit will be 2)"
                    ));
                    not_scanned(
                        report,
                        ProblemKind::Unreadable,
                        1,
                        &file.label,
                        &format!(
                            "server {}: {reason}; it was not audited",
                            server_in_file(&label, &file.label, name)
                        ),
                        None,
                    );
                    continue;
                }
            };
            let mut reasons = Vec::new();
            match entry.twin {
                Some(Twin::BothMaps) => reasons.push(Ambiguity::BothMaps),
                Some(Twin::DuplicateName) => reasons.push(Ambiguity::DuplicateName),
                Some(Twin::EarlierCopy) => reasons.push(Ambiguity::EarlierCopy),
                None => {}
            }
            let key = crate::model::EntryKey {
                project: project.clone(),
                map: match (entry.map, file.format) {
                    (ServerMap::McpServers, FileFormat::CodexToml) => "mcp_servers",
                    (ServerMap::McpServers, _) => "mcpServers",
                    (ServerMap::Servers, _) => "servers",
                    (ServerMap::Flat, _) => "",
                    (ServerMap::ContextServers, _) => "context_servers",
                    (ServerMap::Mcp, _) => "mcp",
                    (ServerMap::Manifest, _) => "server.mcp_config",
                },
                name: entry.name,
            };
            let readers = file.readers.readers;
            if !readers.iter().any(|r| r.reads(entry.map)) {
                let map = if key.map.is_empty() {
                    "the top level"
                } else {
                    key.map
                };
                let who: Vec<&str> = readers.iter().map(|r| r.name()).collect();
                reasons.push(Ambiguity::UnreadMap(format!(
                    "declared under {map}, which none of this file's clients reads ({}); audited anyway — move it to the key they read",
                    who.join(", ")
                )));
            }
            if !body.extra().repeated_keys.is_empty() {
                reasons.push(Ambiguity::RepeatedKeys(
                    body.extra().repeated_keys.join(", "),
                ));
            }
            let key_at = Position {
                line: entry.line,
                column: entry.column,
            };
            let values = value_positions(file.format, &body, key_at, entry.values);
            let readings = match reading::read(body, &file.readers) {
                Ok(r) => r,
                Err(reason) => {
                    diag.warning(&format!(
                        "{label}#{name}: {reason}, and then starts none of this file's servers; \
                         the server was not audited (final exit will be 2)"
                    ));
                    not_scanned(
                        report,
                        ProblemKind::Unreadable,
                        1,
                        &file.label,
                        &format!(
                            "server {}: {reason}, and then starts none of this file's servers; \
                             it was not audited",
                            server_in_file(&label, &file.label, name)
                        ),
                        None,
                    );
                    continue;
                }
            };
            if let Some(why) = &readings.ambiguous {
                reasons.push(Ambiguity::Readings(why.clone()));
            }
            let count = readings.specs.len();
            let mut key = Some(key);
            for (i, mut spec) in readings.specs.into_iter().enumerate() {
                spec.origin.values.clone_from(&values);
                // Moved into the last reading, copied into the others.
                spec.origin.key = if i + 1 == count {
                    key.take().unwrap_or_default()
                } else {
                    key.clone().unwrap_or_default()
                };
                let key = if i == 0 {
                    name.clone()
                } else {
                    extra_keys
                        .get_or_insert_with(|| ExtraKeys::new(&keys))
                        .next(name, reading_tag(&spec))
                };
                pending.push(Pending::Whole(reasons.clone()));
                report.servers.push(AuditedServer {
                    source: source_index,
                    target: {
                        target.clear();
                        target.push_str(&label);
                        target.push('#');
                        target.push_str(&key);
                        Arc::from(target.as_str())
                    },
                    name: key,
                    spec,
                    line: entry.line,
                    column: entry.column,
                    findings: Vec::new(),
                    coverage: Coverage::None,
                    lock_name: None,
                });
            }
        }
    }
}

/// A server as named within its file: `name`, or `projects[<key>]#name` for a
/// `~/.claude.json` project section (`label` is the section's label).
fn server_in_file(label: &str, file_label: &str, name: &str) -> String {
    match label
        .strip_prefix(file_label)
        .and_then(|l| l.strip_prefix('#'))
    {
        Some(section) if !section.is_empty() => format!("{section}#{name}"),
        _ => name.to_string(),
    }
}

/// The suffix of a second reading's display key: what that reading starts.
fn reading_tag(spec: &crate::model::ServerSpec) -> &'static str {
    match spec.launch {
        crate::model::Launch::Stdio(_) => "stdio",
        crate::model::Launch::Remote(_) => "url",
        crate::model::Launch::Nothing => "none",
    }
}

/// Display keys for the second and later readings of an entry: `<key>#<tag>`, with
/// `#` appended until the key is free among every key of the section.
struct ExtraKeys {
    taken: HashSet<String>,
}

impl ExtraKeys {
    fn new(keys: &[String]) -> ExtraKeys {
        ExtraKeys {
            taken: keys.iter().cloned().collect(),
        }
    }

    fn next(&mut self, key: &str, tag: &str) -> String {
        let mut candidate = format!("{key}#{tag}");
        while self.taken.contains(&candidate) {
            candidate.push('#');
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// Fewest servers worth a thread of their own: below this, starting threads costs
/// more than it saves.
const SERVERS_PER_THREAD: usize = 1024;

/// Chunks the servers are cut into per auditing thread ([`audit_servers`]).
const CHUNKS_PER_THREAD: usize = 8;

/// A share of the servers to audit, with what is left of each one's audit.
type Chunk<'a> = (&'a mut [AuditedServer], &'a mut [Pending]);

/// Decide coverage and findings for every server: all of each one's audit, or
/// only its coverage where the rest was judged while the child parsed. Servers are
/// independent, so a large report (a `~/.claude.json` with thousands of projects)
/// is split across the available cores; each server's result is the same whichever
/// thread computes it, and the report keeps its order.
///
/// With `naming`, what naming needs of each uncovered server is worked out too,
/// where it was not while the child parsed. Returns what is left of each server's
/// audit: its coverage, with those inputs.
fn audit_servers(
    servers: &mut [AuditedServer],
    mut pending: Vec<Pending>,
    locks: &[(String, LockSummary)],
    mode: ScanMode,
    naming: bool,
) -> Vec<Pending> {
    // One entry per server, whatever the caller collected: a server must never drop
    // out of the audit because the two lists disagree in length.
    pending.resize(servers.len(), Pending::Whole(Vec::new()));
    let index = locks::LockIndex::new(locks);
    let audit = |servers: &mut [AuditedServer], pending: &mut [Pending]| {
        for (server, pending) in servers.iter_mut().zip(pending) {
            if let Pending::Whole(reasons) = pending {
                judge(server, reasons, mode);
                *pending = Pending::Coverage(None);
            }
            cover(server, &index, mode);
            if let Pending::Coverage(input @ None) = pending {
                if naming && server.coverage == Coverage::None {
                    *input = Some(naming_input(server));
                }
            }
        }
    };
    let to_judge = pending
        .iter()
        .filter(|p| matches!(p, Pending::Whole(_)))
        .count();
    // Too few servers for a second thread: the core count is not asked for (it
    // reads the cgroup's quota files, about 1 % of a small home's samples).
    let threads = if to_judge < 2 * SERVERS_PER_THREAD {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(to_judge / SERVERS_PER_THREAD)
            .clamp(1, 8)
    };
    if threads == 1 {
        audit(servers, &mut pending);
        return pending;
    }
    // Each worker, this thread included, takes the next untaken chunk; a thread that
    // cannot be started leaves its share to the others instead of failing the run.
    // Small chunks, several per thread: the servers judged while the child parsed
    // (cheap now) come first, and a thread done with those takes its share of the rest.
    let chunk = servers.len().div_ceil(threads * CHUNKS_PER_THREAD);
    let chunks: Vec<Mutex<Option<Chunk<'_>>>> = servers
        .chunks_mut(chunk)
        .zip(pending.chunks_mut(chunk))
        .map(|c| Mutex::new(Some(c)))
        .collect();
    let work = || {
        for slot in &chunks {
            let taken = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some((servers, pending)) = taken {
                audit(servers, pending);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let _ = std::thread::Builder::new()
                .name("audit".into())
                .spawn_scoped(scope, work);
        }
        work();
    });
    drop(chunks);
    pending
}

/// Display keys, unique by construction (DOCTOR.md §1).
///
/// Every raw name is reserved up front. An `mcpServers` entry keeps its name. A
/// `servers` entry keeps its name unless an `mcpServers` entry has it; then it becomes
/// `<name>#servers`, with `#` appended until the key is neither a raw name of either
/// map nor a key already given. So a server really named `x#servers` is never
/// overwritten by a synthetic key, whatever order the maps list their names in.
///
/// Linear in the names: each chain of `#`s is walked from where the last walk of
/// the same chain stopped, never from its start again. A (map, name) pair that
/// repeats can only come from a lying child (the loaders refuse duplicate keys);
/// its copies become `<name>#2`, `<name>#3`, … so keys stay unique without
/// growing a `#` per copy.
pub fn display_keys(entries: &[crate::protocol::ServerEntry]) -> Vec<String> {
    // The usual section: only `mcpServers`, distinct names. Every key is its name;
    // no sets to build (a `~/.claude.json` can have thousands of small sections).
    if entries.iter().all(|e| e.map == ServerMap::McpServers) && names_are_distinct(entries) {
        return entries.iter().map(|e| e.name.clone()).collect();
    }
    let reserved: HashSet<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let mcp_names: HashSet<&str> = entries
        .iter()
        .filter(|e| e.map == ServerMap::McpServers)
        .map(|e| e.name.as_str())
        .collect();
    let mut given: HashSet<String> = HashSet::with_capacity(entries.len());
    // (declared under `servers`, name): `ServerMap` itself is a wire type.
    let mut seen_pairs: HashSet<(bool, &str)> = HashSet::with_capacity(entries.len());
    // Per chain: how many `#`s (or which copy number) to try next; every key before
    // it is known to be taken, and taken keys stay taken.
    let mut next_try: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let taken =
            |key: &str, given: &HashSet<String>| reserved.contains(key) || given.contains(key);
        let in_servers = entry.map == ServerMap::Servers;
        let key = if !seen_pairs.insert((in_servers, entry.name.as_str())) {
            let start = next_try.get(entry.name.as_str()).copied().unwrap_or(2);
            let mut n = start.max(2);
            let mut key = format!("{}#{n}", entry.name);
            while taken(&key, &given) {
                n += 1;
                key = format!("{}#{n}", entry.name);
            }
            next_try.insert(entry.name.clone(), n + 1);
            key
        } else if in_servers && mcp_names.contains(entry.name.as_str()) {
            let base = format!("{}#servers", entry.name);
            let hashes = next_try.get(&base).copied().unwrap_or(0);
            let mut key = base.clone();
            key.extend(std::iter::repeat_n('#', hashes));
            let mut n = hashes;
            while taken(&key, &given) {
                key.push('#');
                n += 1;
            }
            next_try.insert(base, n + 1);
            key
        } else {
            entry.name.clone()
        };
        given.insert(key.clone());
        out.push(key);
    }
    out
}

fn names_are_distinct(entries: &[crate::protocol::ServerEntry]) -> bool {
    if entries.len() <= 16 {
        return entries
            .iter()
            .enumerate()
            .all(|(i, e)| entries[..i].iter().all(|f| f.name != e.name));
    }
    let mut seen = HashSet::with_capacity(entries.len());
    entries.iter().all(|e| seen.insert(e.name.as_str()))
}

/// Every finding of `server` that does not depend on the locks, as `mode` audits:
/// what [`server_findings`] finds before coverage, or `auth audit`'s findings.
fn judge(server: &mut AuditedServer, ambiguous: &[Ambiguity], mode: ScanMode) {
    let key_at = key_position(server);
    server.findings = match mode {
        ScanMode::Doctor => findings_before_coverage(
            &server.name,
            &server.spec,
            ambiguous,
            &server.target,
            key_at,
        ),
        ScanMode::AuthAudit => auth_findings(&server.name, &server.spec, &server.target, key_at),
    };
}

/// Decide `server`'s coverage once [`judge`]d: for doctor, by the locks of `index`
/// and with its finding; `auth audit` reads no lock.
fn cover(server: &mut AuditedServer, index: &locks::LockIndex<'_>, mode: ScanMode) {
    server.coverage = match mode {
        ScanMode::Doctor => {
            let coverage = index.coverage(&server.spec);
            let key_at = key_position(server);
            add_coverage_finding(
                &mut server.findings,
                &server.name,
                &server.spec,
                &coverage,
                &server.target,
                key_at,
            );
            coverage
        }
        ScanMode::AuthAudit => Coverage::Approved,
    };
}

/// Every finding for one server, sorted by (rule id, snippet), each placed at the
/// value it is about (or at the entry's key, `key_at`).
pub fn server_findings(
    name: &str,
    spec: &crate::model::ServerSpec,
    ambiguous: &[Ambiguity],
    coverage: &Coverage,
    target: &Arc<str>,
    key_at: Position,
) -> Vec<Finding> {
    let mut findings = findings_before_coverage(name, spec, ambiguous, target, key_at);
    add_coverage_finding(&mut findings, name, spec, coverage, target, key_at);
    findings
}

/// [`server_findings`] but for the one about coverage.
fn findings_before_coverage(
    name: &str,
    spec: &crate::model::ServerSpec,
    ambiguous: &[Ambiguity],
    target: &Arc<str>,
    key_at: Position,
) -> Vec<Finding> {
    let mut raw: Vec<EngineFinding> = engines::auth::audit_server(name, spec);
    if let Some(command) = spec.launch_command() {
        raw.extend(engines::supply::check_launch(command, spec.args()));
    }
    raw.extend(engines::launch::check_origin(name, spec));
    // One finding per server, whatever the number of reasons.
    if !ambiguous.is_empty() {
        let message = ambiguous
            .iter()
            .map(|r| r.message())
            .collect::<Vec<_>>()
            .join("; and ");
        raw.push(EngineFinding::new(
            RuleId::DoctorAmbiguousServer,
            message,
            name.into(),
        ));
    }
    located(raw, target, spec, key_at)
}

/// Add the finding `coverage` calls for (none when a lock approves the server) to
/// `findings`, sorted as [`located`] sorts: after every finding whose (rule id,
/// snippet) is not greater, where a stable sort of all of them would put it.
fn add_coverage_finding(
    findings: &mut Vec<Finding>,
    name: &str,
    spec: &crate::model::ServerSpec,
    coverage: &Coverage,
    target: &Arc<str>,
    key_at: Position,
) {
    let (raw, fix) = match coverage {
        Coverage::Approved => return,
        Coverage::None => (
            EngineFinding::new(
                RuleId::DoctorNoLock,
                "no warden.lock pins this server's declared surface; run the pin command below",
                name.into(),
            ),
            None,
        ),
        Coverage::Unapproved { lock, problem } => {
            let (message, command) = lock_problem_message(lock, *problem);
            (
                EngineFinding::new(RuleId::DoctorLockUnapproved, message, name.into()),
                command,
            )
        }
    };
    let mut finding = placed(raw, target, spec, key_at);
    finding.fix = fix;
    let key = (finding.rule.as_str(), &finding.snippet);
    let at = findings.partition_point(|f| (f.rule.as_str(), &f.snippet) <= key);
    // Exactly one more: `insert` into an empty list would make room for four.
    findings.reserve_exact(1);
    findings.insert(at, finding);
}

/// Record that `doctor --pin` just wrote `lock` for `server`: it is now covered by
/// an unapproved lock, and its WRD-DOCTOR-NO-LOCK finding becomes the
/// WRD-DOCTOR-LOCK-UNAPPROVED finding (with its `lock rotate` fix) a new run would
/// report, at the same place.
pub fn mark_pinned(server: &mut crate::model::AuditedServer, lock: &str) {
    let problem = LockProblem::NotApproved;
    server.coverage = Coverage::Unapproved {
        lock: lock.to_string(),
        problem,
    };
    server.lock_name = None;
    let (message, command) = lock_problem_message(lock, problem);
    for f in &mut server.findings {
        if f.rule == RuleId::DoctorNoLock {
            f.rule = RuleId::DoctorLockUnapproved;
            f.message = message.clone().into();
            f.fix = command.clone();
        }
    }
}

/// Where a server's entry key is in its file.
fn key_position(server: &AuditedServer) -> Position {
    Position {
        line: server.line,
        column: server.column,
    }
}

/// The positions the child sent for one entry (`body`, its key at `key_at`,
/// `packed` as [`crate::protocol::values`] packs them), worked out when a finding
/// first asks ([`ValuePositions`]); `None` when there are none. Only the names the
/// positions refer to by index are copied out of `body` now, before its reading
/// takes it: appended to the packed positions, in the one buffer the child's
/// answer already allocated (see [`append_value_keys`]).
fn value_positions(
    format: FileFormat,
    body: &crate::protocol::ServerBody,
    key_at: Position,
    mut packed: Vec<u8>,
) -> Option<Arc<ValuePositions>> {
    if packed.is_empty() {
        return None;
    }
    let keys_at = append_value_keys(body, &mut packed);
    ValueTrailer {
        keys_at,
        key_at,
        spelling: Spelling::of(format),
    }
    .append(&mut packed);
    Some(Arc::new(ValuePositions::later(
        packed.into_boxed_slice(),
        read_value_positions,
    )))
}

/// How a file spells the fields [`value_index`] names differently by format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spelling {
    Plain = 0,
    OpenCode = 1,
    Codex = 2,
}

impl Spelling {
    fn of(format: FileFormat) -> Spelling {
        match format {
            FileFormat::OpenCode => Spelling::OpenCode,
            FileFormat::CodexToml => Spelling::Codex,
            _ => Spelling::Plain,
        }
    }

    /// The spelling `byte` (its discriminant) names; anything else reads as plain.
    fn from_byte(byte: u8) -> Spelling {
        [Spelling::OpenCode, Spelling::Codex]
            .into_iter()
            .find(|s| *s as u8 == byte)
            .unwrap_or(Spelling::Plain)
    }
}

/// What [`value_index`] needs besides the packed positions and their key names,
/// written after both by [`value_positions`] (fixed size, little-endian: where the
/// names start, the entry key's line and column, the spelling) so that the
/// entry's positions are one buffer and a plain function reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ValueTrailer {
    keys_at: usize,
    key_at: Position,
    spelling: Spelling,
}

impl ValueTrailer {
    const LEN: usize = 13;

    fn append(self, packed: &mut Vec<u8>) {
        // Offsets this large were refused by the frame bounds long before.
        let keys_at = u32::try_from(self.keys_at).unwrap_or(u32::MAX);
        packed.extend_from_slice(&keys_at.to_le_bytes());
        packed.extend_from_slice(&self.key_at.line.to_le_bytes());
        packed.extend_from_slice(&self.key_at.column.to_le_bytes());
        packed.push(self.spelling as u8);
    }

    /// The trailer at the end of `bytes` and what precedes it; `None` when there
    /// is none ([`value_positions`] always writes one).
    fn split(bytes: &[u8]) -> Option<(&[u8], ValueTrailer)> {
        let (rest, trailer) = bytes.split_at_checked(bytes.len().checked_sub(Self::LEN)?)?;
        let u32_at = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(
                trailer.get(at..at + 4)?.try_into().ok()?,
            ))
        };
        let spelling = Spelling::from_byte(*trailer.get(12)?);
        let trailer = ValueTrailer {
            keys_at: usize::try_from(u32_at(0)?).ok()?,
            key_at: Position {
                line: u32_at(4)?,
                column: u32_at(8)?,
            },
            spelling,
        };
        Some((rest, trailer))
    }
}

/// [`ValuePositions`]' reader of what [`value_positions`] packed.
fn read_value_positions(bytes: &[u8]) -> Vec<LocatedValue> {
    let Some((packed, trailer)) = ValueTrailer::split(bytes) else {
        return Vec::new();
    };
    let (values, keys) = packed.split_at(trailer.keys_at.min(packed.len()));
    value_index(
        trailer.spelling,
        &ValueKeys::decode(keys),
        trailer.key_at,
        values,
    )
}

/// The names an entry's packed positions refer to by index: its env and header
/// keys, and Codex's forwarded variables, `env_http_headers` keys and tool
/// approvals, read back from what [`append_value_keys`] wrote.
#[derive(Default)]
struct ValueKeys<'k> {
    env: Vec<&'k str>,
    headers: Vec<&'k str>,
    env_vars: Vec<&'k str>,
    env_http_headers: Vec<&'k str>,
    tool_approvals: Vec<&'k str>,
}

/// Append the names an entry's positions refer to (the lists of [`ValueKeys`], in
/// its field order: each a little-endian `u32` count, then each name as a `u32`
/// length and its bytes) to `packed`; where they start. Nothing is appended for
/// an entry with none of them.
///
/// Why one buffer: kept as lists of strings, the names of a server with one env
/// key were a boxed record of five lists, a list and a string (about 180 bytes in
/// three allocations, for each of a large home's 20,000 entries), copied while the
/// parent's main thread collected the child's answer.
fn append_value_keys(body: &crate::protocol::ServerBody, packed: &mut Vec<u8>) -> usize {
    let start = packed.len();
    let x = body.extra();
    let none = body.env.is_empty()
        && body.headers.is_empty()
        && x.env_vars.is_empty()
        && x.env_http_headers.is_empty()
        && x.tool_approvals.is_empty();
    if none {
        return start;
    }
    let lists: [&mut dyn Iterator<Item = &str>; 5] = [
        &mut body.env.iter().map(|(k, _)| k.as_str()),
        &mut body.headers.iter().map(|(k, _)| k.as_str()),
        &mut x.env_vars.iter().map(String::as_str),
        &mut x.env_http_headers.iter().map(|(k, _)| k.as_str()),
        &mut x.tool_approvals.iter().map(|(k, _)| k.as_str()),
    ];
    let push_u32 = |packed: &mut Vec<u8>, n: usize| {
        // A list or name this long was refused by the frame bounds long before.
        packed.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
    };
    for list in lists {
        let count_at = packed.len();
        push_u32(packed, 0);
        let mut count = 0usize;
        for name in list {
            push_u32(packed, name.len());
            packed.extend_from_slice(name.as_bytes());
            count += 1;
        }
        let count = u32::try_from(count).unwrap_or(u32::MAX).to_le_bytes();
        if let Some(slot) = packed.get_mut(count_at..count_at + 4) {
            slot.copy_from_slice(&count);
        }
    }
    start
}

impl<'k> ValueKeys<'k> {
    /// The lists [`append_value_keys`] wrote into `bytes` (empty lists for no bytes;
    /// what cannot be read back, which that writer never leaves, ends the lists).
    fn decode(bytes: &'k [u8]) -> ValueKeys<'k> {
        let mut keys = ValueKeys::default();
        let mut rest = bytes;
        let take_u32 = |rest: &mut &'k [u8]| -> Option<usize> {
            let (head, tail) = rest.split_first_chunk::<4>()?;
            *rest = tail;
            usize::try_from(u32::from_le_bytes(*head)).ok()
        };
        'lists: for list in [
            &mut keys.env,
            &mut keys.headers,
            &mut keys.env_vars,
            &mut keys.env_http_headers,
            &mut keys.tool_approvals,
        ] {
            let Some(count) = take_u32(&mut rest) else {
                break 'lists;
            };
            for _ in 0..count {
                let Some(len) = take_u32(&mut rest) else {
                    break 'lists;
                };
                let Some((name, tail)) = rest.split_at_checked(len) else {
                    break 'lists;
                };
                rest = tail;
                match std::str::from_utf8(name) {
                    Ok(name) => list.push(name),
                    Err(_) => break 'lists,
                }
            }
        }
        keys
    }
}

/// The positions of `packed` (see [`value_positions`]) by the field names findings
/// use (see [`crate::model::LocatedValue`]), spelled as a file of `spelling` spells
/// them: OpenCode's `command` list and `environment`, Codex's `http_headers`,
/// `env_vars` and `env_http_headers`. A position whose field the entry does not
/// have (validation refuses those) is left out. Sorted by field (see
/// [`ValuePositions`]).
fn value_index(
    spelling: Spelling,
    keys: &ValueKeys<'_>,
    key_at: Position,
    packed: &[u8],
) -> Vec<LocatedValue> {
    use crate::protocol::FieldRef as F;
    // Checked by `validate`: a list that does not decode has no positions.
    let Ok(values) = crate::protocol::values::decode(key_at.line, key_at.column, packed) else {
        return Vec::new();
    };
    let opencode = spelling == Spelling::OpenCode;
    let codex = spelling == Spelling::Codex;
    let key = |list: for<'a> fn(&'a ValueKeys<'_>) -> &'a [&'a str], i: u32| {
        usize::try_from(i)
            .ok()
            .and_then(|i| list(keys).get(i))
            .map(|name| (*name).to_string())
    };
    let index = |i: u32| usize::try_from(i).unwrap_or(usize::MAX);
    let same = |f: FieldPath| Some((f.clone(), f));
    // A map's entry `i` by its key, spelled under the file's own map name when the
    // file calls the map something else.
    let keyed = |list: for<'a> fn(&'a ValueKeys<'_>) -> &'a [&'a str],
                 i: u32,
                 field: fn(String) -> FieldPath,
                 spelled_as: Option<&'static str>| {
        key(list, i).map(|k| {
            let spelled = match spelled_as {
                Some(name) => FieldPath::NamedKey(name, k.clone()),
                None => field(k.clone()),
            };
            (field(k), spelled)
        })
    };
    let mut out = Vec::with_capacity(values.len());
    for v in &values {
        let named = match v.field {
            F::Command if opencode => {
                Some((FieldPath::Command, FieldPath::NamedIndex("command", 0)))
            }
            F::Command => same(FieldPath::Command),
            F::Arg(i) if opencode => Some((
                FieldPath::Arg(index(i)),
                FieldPath::NamedIndex("command", index(i).saturating_add(1)),
            )),
            F::Arg(i) => same(FieldPath::Arg(index(i))),
            F::Url => Some((FieldPath::Named("url"), FieldPath::Url)),
            F::Transport => same(FieldPath::Transport),
            F::Env(i) => keyed(
                |l| &l.env,
                i,
                FieldPath::Env,
                opencode.then_some("environment"),
            ),
            F::Header(i) => keyed(
                |l| &l.headers,
                i,
                FieldPath::Header,
                codex.then_some("http_headers"),
            ),
            F::ServerUrl => same(FieldPath::Named("serverUrl")),
            F::HttpUrl => same(FieldPath::Named("httpUrl")),
            F::TransportKey => same(FieldPath::Named("transport")),
            // A forwarded variable is an entry of the launch's environment.
            F::EnvVar(i) => key(|l| &l.env_vars, i).map(|name| {
                (
                    FieldPath::Env(name),
                    FieldPath::NamedIndex("env_vars", index(i)),
                )
            }),
            F::Cwd => same(FieldPath::Cwd),
            F::HeadersHelper => same(FieldPath::Named("headersHelper")),
            F::BearerTokenEnvVar => same(FieldPath::Named("bearer_token_env_var")),
            F::BearerToken => same(FieldPath::Named("bearer_token")),
            F::EnvHttpHeader(i) => key(|l| &l.env_http_headers, i)
                .and_then(|k| same(FieldPath::NamedKey("env_http_headers", k))),
            F::Disabled => same(FieldPath::Named("disabled")),
            F::Enabled => same(FieldPath::Named("enabled")),
            F::AutoApprove => same(FieldPath::Named("autoApprove")),
            F::AlwaysAllow => same(FieldPath::Named("alwaysAllow")),
            F::Trust => same(FieldPath::Named("trust")),
            F::ToolApproval(i) => key(|l| &l.tool_approvals, i).map(|tool| {
                let f = if tool == "*" {
                    FieldPath::Named("default_tools_approval_mode")
                } else {
                    FieldPath::NamedKey("tools", tool)
                };
                (f.clone(), f)
            }),
        };
        if let Some((field, spelled)) = named {
            out.push(LocatedValue {
                field,
                spelled,
                at: Position {
                    line: v.line,
                    column: v.column,
                },
            });
        }
    }
    // Sorted for `ServerSpec::locate`'s binary search; stable, so a field sent
    // twice (a forwarded variable named like an env key) resolves as before.
    out.sort_by(|a, b| a.field.cmp(&b.field));
    out
}

/// Longest WRD-DOCTOR-LOCK-UNAPPROVED message with its fix, so that a printer's
/// 200-code-point cap never cuts the command.
const MAX_MESSAGE_WITH_FIX: usize = DEFAULT_CAP;

/// The WRD-DOCTOR-LOCK-UNAPPROVED message and, when `lock rotate` can fix the lock,
/// the exact command with the lock's path quoted. JSONL and SARIF print it at the
/// end of the message in parentheses (the earlier implementation's shape; a closing
/// parenthesis after a pasted command is a syntax error, so nothing that follows it
/// in a SARIF text can run); the text report prints it on its own line. A path that
/// cannot be printed exactly, or would make the message too long for the cap, gets
/// prose instead of a command that would fail as printed.
fn lock_problem_message(lock: &str, problem: LockProblem) -> (String, Option<String>) {
    let head = format!(
        "a warden.lock matches this server but {}",
        problem.describe()
    );
    if !problem.rotate_fixes_it() {
        return (
            format!("{head}; pin the server again into that lock after reviewing it"),
            None,
        );
    }
    // `lock rotate -x.warden.lock` would read the path as an option.
    let lock = if lock.starts_with('-') {
        Cow::Owned(format!("./{lock}"))
    } else {
        Cow::Borrowed(lock)
    };
    let command = crate::text::quote::quote_for_paste(&lock, MAX_MESSAGE_WITH_FIX)
        .map(|path| format!("mcp-warden lock rotate {path} --approver {APPROVER_PLACEHOLDER}"))
        .filter(|c| head.chars().count() + c.chars().count() + 3 <= MAX_MESSAGE_WITH_FIX);
    match command {
        Some(command) => (head, Some(command)),
        None => (
            format!("{head}; approve it with lock rotate once reviewed (its path cannot be shown here as typed)"),
            None,
        ),
    }
}

/// `auth audit`'s findings for one server: the auth engine alone, sorted and
/// placed like doctor's.
pub fn auth_findings(
    name: &str,
    spec: &crate::model::ServerSpec,
    target: &Arc<str>,
    key_at: Position,
) -> Vec<Finding> {
    located(
        engines::auth::audit_server(name, spec),
        target,
        spec,
        key_at,
    )
}

/// Engine findings placed at `target`, in report order (by rule id, snippet), each
/// with its field as the file spells it and the position of its value; a finding
/// about the whole entry (or a field whose position is not known) is at the
/// entry's key, `key_at`.
fn located(
    raw: Vec<EngineFinding>,
    target: &Arc<str>,
    spec: &crate::model::ServerSpec,
    key_at: Position,
) -> Vec<Finding> {
    // Room for the one finding about coverage, which [`add_coverage_finding`] adds
    // after the rest were judged: growing the list then would copy every server's
    // findings into fresh memory. None at all when there is nothing to place: the
    // list is then made where coverage is decided, whose thread has memory freed
    // by the collecting to reuse (a judging thread has none).
    if raw.is_empty() {
        return Vec::new();
    }
    let mut findings: Vec<Finding> = Vec::with_capacity(raw.len() + 1);
    findings.extend(raw.into_iter().map(|f| placed(f, target, spec, key_at)));
    findings.sort_by(|a, b| (a.rule.as_str(), &a.snippet).cmp(&(b.rule.as_str(), &b.snippet)));
    findings
}

/// One engine finding placed at `target`: its field as the file spells it and the
/// position of its value (the entry's key, `key_at`, for the whole entry).
fn placed(
    f: EngineFinding,
    target: &Arc<str>,
    spec: &crate::model::ServerSpec,
    key_at: Position,
) -> Finding {
    let (field, at) = spec.place(f.field.as_ref(), key_at);
    let mut message = f.message;
    if let Some(field) = &field {
        engines::secrets::name_the_field(&mut message, &field.to_string());
    }
    let mut finding = Finding::new(f.rule, Arc::clone(target), message, f.snippet);
    finding.field = field;
    finding.at = Some(at);
    finding
}

/// The exit-code contract (DOCTOR.md §5), decided here and nowhere else: 2 when a
/// file could not be read (or `--pin` failed), 1 when a file was skipped or a
/// finding that is not suppressed is at or above `fail_on` (any finding when
/// `fail_on` is `None`), else 0.
pub fn exit_code(report: &Report, fail_on: Option<Severity>, pin_failed: bool) -> u8 {
    if report.hard_errors > 0 || pin_failed {
        2
    } else if report.skipped > 0 || report.findings().any(|f| fails_run(f, fail_on)) {
        1
    } else {
        0
    }
}

/// Whether `finding` fails the run under `fail_on` (see [`exit_code`]): it is not
/// suppressed, and at or above the threshold (any severity without one).
pub fn fails_run(finding: &crate::model::Finding, fail_on: Option<Severity>) -> bool {
    finding.suppressed.is_none() && fail_on.is_none_or(|threshold| finding.severity() <= threshold)
}

/// `path` as given when absolute, else below `cwd`.
pub fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ServerBody, ServerEntry};

    /// The names appended behind an entry's packed positions read back as the lists
    /// they came from, whatever the names hold (empty, a separator-like byte, a
    /// length prefix's own bytes, non-ASCII) and however many each list has, and
    /// the positions before them are left as they were.
    #[test]
    fn value_keys_read_back_as_written() {
        let mut generated = crate::test_gen::Generated::new(0x0DDB_A11C_0FFE_E123);
        let pieces = [
            "",
            "A",
            "_",
            "\u{0}",
            "\u{4}\u{0}\u{0}\u{0}",
            "é",
            "ключ",
            "*",
            "K9",
        ];
        for round in 0..2_000 {
            let mut list =
                |n: usize| -> Vec<String> { (0..n).map(|_| generated.text(&pieces, 4)).collect() };
            let counts = [
                round % 3,
                round % 4,
                round % 2,
                (round / 3) % 3,
                (round / 5) % 2,
            ];
            let env = list(counts[0]);
            let headers = list(counts[1]);
            let env_vars = list(counts[2]);
            let env_http_headers = list(counts[3]);
            let tool_approvals = list(counts[4]);
            let pairs = |names: &[String]| -> Vec<(String, String)> {
                names.iter().map(|n| (n.clone(), "v".into())).collect()
            };
            let body = ServerBody {
                env: pairs(&env),
                headers: pairs(&headers),
                extra: vec![crate::protocol::ServerExtra {
                    env_vars: env_vars.clone(),
                    env_http_headers: pairs(&env_http_headers),
                    tool_approvals: pairs(&tool_approvals),
                    ..crate::protocol::ServerExtra::default()
                }],
                ..ServerBody::default()
            };
            let positions = vec![7u8, 0, 1, 2];
            let mut packed = positions.clone();
            let at = append_value_keys(&body, &mut packed);
            assert_eq!(at, positions.len());
            assert_eq!(packed.get(..at), Some(&positions[..]));
            let keys = ValueKeys::decode(packed.get(at..).unwrap_or_default());
            fn strs(v: &[String]) -> Vec<&str> {
                v.iter().map(String::as_str).collect()
            }
            assert_eq!(keys.env, strs(&env), "{round}");
            assert_eq!(keys.headers, strs(&headers), "{round}");
            assert_eq!(keys.env_vars, strs(&env_vars), "{round}");
            assert_eq!(keys.env_http_headers, strs(&env_http_headers), "{round}");
            assert_eq!(keys.tool_approvals, strs(&tool_approvals), "{round}");
            if counts.iter().all(|&n| n == 0) {
                assert_eq!(packed.len(), positions.len(), "nothing appended");
            }
        }
    }

    /// The trailer [`value_positions`] writes after an entry's positions and names
    /// reads back as written whatever precedes it, for every spelling and for the
    /// extreme line, column and offset values; fewer bytes than a trailer read as
    /// none (and no positions), never as a wrong one.
    #[test]
    fn value_trailer_reads_back_as_written() {
        let spellings = [Spelling::Plain, Spelling::OpenCode, Spelling::Codex];
        let numbers = [0u32, 1, 7, 0x0102_0304, u32::MAX];
        for (i, &spelling) in spellings.iter().enumerate() {
            for &n in &numbers {
                for before in [&b""[..], b"\x01\x02", &[0xFFu8; 40][..]] {
                    let trailer = ValueTrailer {
                        keys_at: usize::try_from(n.rotate_left(i as u32)).unwrap_or(0),
                        key_at: Position {
                            line: n,
                            column: n.rotate_right(8),
                        },
                        spelling,
                    };
                    let mut packed = before.to_vec();
                    trailer.append(&mut packed);
                    assert_eq!(packed.len(), before.len() + ValueTrailer::LEN);
                    assert_eq!(ValueTrailer::split(&packed), Some((before, trailer)));
                }
            }
        }
        for short in 0..ValueTrailer::LEN {
            assert_eq!(
                ValueTrailer::split(&vec![1u8; short]),
                None,
                "{short} bytes"
            );
            assert!(read_value_positions(&vec![1u8; short]).is_empty());
        }
    }

    /// Every value of the largest entries the protocol allows (4,096 args, env
    /// keys and headers, all on one line), each located as a finding about it is:
    /// the positions come back right, and 25 such entries (what an 8 MiB file
    /// holds) are located within a deadline that a scan of the entry's values per
    /// finding (12,289 × 12,289 comparisons per entry) does not meet.
    #[test]
    fn every_value_of_the_largest_entries_is_located_by_search() {
        use crate::protocol::{FieldRef, ValueAt};
        const N: usize = 4_096;
        let pairs: Vec<(String, String)> = (0..N).map(|i| (format!("K{i}"), "v".into())).collect();
        let body = ServerBody {
            command: Some("node".into()),
            args: (0..N).map(|i| format!("a{i}")).collect(),
            env: pairs.clone(),
            headers: pairs.clone(),
            ..ServerBody::default()
        };
        let mut sent = vec![ValueAt {
            field: FieldRef::Command,
            line: 1,
            column: 2,
        }];
        let kinds: [fn(u32) -> FieldRef; 3] = [FieldRef::Arg, FieldRef::Env, FieldRef::Header];
        for kind in kinds {
            for i in 0..N as u32 {
                let column = 3 + u32::try_from(sent.len()).unwrap_or(u32::MAX);
                sent.push(ValueAt {
                    field: kind(i),
                    line: 1,
                    column,
                });
            }
        }
        let packed = crate::protocol::values::encode(1, 1, &sent);
        let key_at = Position { line: 1, column: 1 };
        let mut spec = crate::model::ServerSpec::stdio("node", &[]);
        let started = std::time::Instant::now();
        for _ in 0..25 {
            spec.origin.values = value_positions(FileFormat::Json, &body, key_at, packed.clone());
            for (n, v) in sent.iter().enumerate() {
                let i = match v.field {
                    FieldRef::Arg(i) | FieldRef::Env(i) | FieldRef::Header(i) => i as usize,
                    _ => 0,
                };
                let field = match v.field {
                    FieldRef::Command => FieldPath::Command,
                    FieldRef::Arg(_) => FieldPath::Arg(i),
                    FieldRef::Env(_) => FieldPath::Env(pairs[i].0.clone()),
                    _ => FieldPath::Header(pairs[i].0.clone()),
                };
                let (_, at) = spec
                    .locate(&field)
                    .unwrap_or_else(|| panic!("{field:?} not found"));
                assert_eq!(at.column, v.column, "value {n}: {field:?}");
            }
        }
        let took = started.elapsed();
        assert!(
            took < std::time::Duration::from_secs(20),
            "locating every value took {took:?}"
        );
    }

    fn entry(map: ServerMap, name: &str) -> ServerEntry {
        ServerEntry {
            map,
            name: name.into(),
            twin: None,
            line: 1,
            column: 1,
            body: Ok(ServerBody::default()),
            values: Vec::new(),
        }
    }

    fn unaudited(i: usize) -> AuditedServer {
        let pkg = format!("pkg-{i}");
        let spec = crate::model::ServerSpec::stdio("npx", &["-y", &pkg]).with_env(vec![(
            "API_TOKEN".into(),
            format!("sk-{}", "a1B2".repeat(6 + i % 3)),
        )]);
        AuditedServer {
            source: 0,
            name: format!("s{i}"),
            target: format!("~/.cursor/mcp.json#s{i}").into(),
            spec,
            line: 1,
            column: 1,
            findings: Vec::new(),
            coverage: Coverage::Approved,
            lock_name: None,
        }
    }

    #[test]
    fn audit_on_several_threads_equals_one_server_at_a_time() {
        let n = 3 * SERVERS_PER_THREAD + 7;
        let mut servers: Vec<AuditedServer> = (0..n).map(unaudited).collect();
        let flag = |i: usize| {
            if i % 5 == 0 {
                vec![Ambiguity::BothMaps]
            } else {
                Vec::new()
            }
        };
        let pending: Vec<Pending> = (0..n).map(|i| Pending::Whole(flag(i))).collect();
        audit_servers(&mut servers, pending.clone(), &[], ScanMode::Doctor, false);
        for (i, server) in servers.iter().enumerate() {
            let alone = unaudited(i);
            let expected = server_findings(
                &alone.name,
                &alone.spec,
                &flag(i),
                &Coverage::None,
                &alone.target,
                key_position(&alone),
            );
            assert_eq!(server.coverage, Coverage::None, "server {i}");
            assert_eq!(server.findings, expected, "server {i}");
            assert!(!server.findings.is_empty(), "server {i} was not audited");
        }
        // A short flag list never drops a server from the audit.
        let mut servers: Vec<AuditedServer> = (0..n).map(unaudited).collect();
        audit_servers(
            &mut servers,
            pending[..10].to_vec(),
            &[],
            ScanMode::Doctor,
            false,
        );
        assert!(servers.iter().all(|s| !s.findings.is_empty()));
    }

    #[test]
    fn servers_judged_ahead_end_as_servers_audited_whole() {
        let n = 3 * SERVERS_PER_THREAD + 7;
        let flag = |i: usize| {
            if i % 5 == 0 {
                vec![Ambiguity::DuplicateName]
            } else {
                Vec::new()
            }
        };
        for mode in [ScanMode::Doctor, ScanMode::AuthAudit] {
            let mut whole: Vec<AuditedServer> = (0..n).map(unaudited).collect();
            let pending: Vec<Pending> = (0..n).map(|i| Pending::Whole(flag(i))).collect();
            audit_servers(&mut whole, pending.clone(), &[], mode, false);
            // Every third server judged ahead, as a part's are while the child parses.
            let mut ahead = Collected::new();
            ahead.report.servers = (0..n).map(unaudited).collect();
            ahead.pending = pending;
            for first in (0..n).step_by(3) {
                let mut part = Collected::new();
                part.report.servers = vec![unaudited(first)];
                part.pending = vec![Pending::Whole(flag(first))];
                part.judge_servers(mode, false);
                assert_eq!(part.pending, vec![Pending::Coverage(None)]);
                ahead.report.servers[first] = part.report.servers.remove(0);
                ahead.pending[first] = Pending::Coverage(None);
            }
            let mut servers = ahead.report.servers;
            audit_servers(&mut servers, ahead.pending, &[], mode, false);
            assert!(servers == whole, "{mode:?}");
            // Coverage is added once: a judged server audited again keeps one copy.
            let no_lock = |s: &AuditedServer| {
                s.findings
                    .iter()
                    .filter(|f| f.rule == RuleId::DoctorNoLock)
                    .count()
            };
            let expected = usize::from(mode == ScanMode::Doctor);
            assert!(servers.iter().all(|s| no_lock(s) == expected), "{mode:?}");
        }
    }

    /// A `~/.claude.json` of many projects, some sections malformed, some servers of
    /// a wrong shape (warnings), approval settings, the top-level map after the
    /// projects: what a large real file may hold.
    fn many_projects() -> String {
        let mut projects = Vec::new();
        for p in 0..700 {
            let body = match p % 7 {
                0 => r#"{"mcpServers": {"a": {"command": "npx", "args": ["-y", "x"]}, "b": 3}}"#.to_string(),
                1 => r#"{"mcpServers": []}"#.to_string(),
                2 => r#"{"enabledMcpjsonServers": ["m"], "history": [{"display": "x"}]}"#.to_string(),
                3 => r#"{"mcpServers": {"u": {"url": "https://h.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}, "k": {"url": "http://h.example.com/mcp"}}}"#.to_string(),
                4 => r#"{"history": []}"#.to_string(),
                _ => format!(r#"{{"mcpServers": {{"s{p}": {{"command": "uvx", "args": ["s{p}"]}}}}}}"#),
            };
            projects.push(format!(r#""/home/u/p{p}": {body}"#));
        }
        format!(
            r#"{{"numStartups": 1, "projects": {{{}}}, "mcpServers": {{"top": {{"command": "node"}}}}}}"#,
            projects.join(", ")
        )
    }

    /// A diagnostics sink a test reads back.
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Shared {
        fn text(&self) -> String {
            let bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            String::from_utf8(bytes.clone()).expect("UTF-8")
        }
    }

    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The user's `~/.claude.json`, as discovery lists it.
    fn claude_json() -> ConfigFile {
        ConfigFile {
            client: "Claude Code".into(),
            label: "~/.claude.json".into(),
            path: Path::new("/home/u/.claude.json").into(),
            format: FileFormat::ClaudeJson,
            scope: Scope::User,
            readers: file_readers(&[Reader::ClaudeCode], Path::new("/home/u"), None),
            client_id: None,
            layer: Layer::User,
            project_dir: None,
        }
    }

    /// The report, what is left of each server's audit and the warnings of one
    /// answer added in one go, or with its project sections collected ahead of it in
    /// parts of `per_part` sections, as doctor collects them while the child parses
    /// (their servers judged as `judge_as` says).
    fn added(
        config: &crate::protocol::ParsedConfig,
        per_part: Option<usize>,
        judge_as: Option<ScanMode>,
    ) -> (Report, Vec<Pending>, String) {
        let file = claude_json();
        let warnings = Shared(Arc::new(Mutex::new(Vec::new())));
        let mut diag = Diag::to(Box::new(Shared(Arc::clone(&warnings.0))));
        let mut report = Report::default();
        let mut pending = Vec::new();
        let mut config = config.clone();
        let mut parts = Vec::new();
        if let Some(n) = per_part {
            let projects = config.sections.split_off(1);
            for sections in projects.chunks(n) {
                let mut part = collect_part(&file, sections.to_vec());
                if let Some(mode) = judge_as {
                    part.judge_servers(mode, false);
                }
                parts.push(part);
            }
            config.continues_parts = true;
        }
        add_config(&file, config, parts, &mut report, &mut pending, &mut diag);
        (report, pending, warnings.text())
    }

    #[test]
    fn parts_judged_while_the_child_parses_end_as_the_answer_audited_whole() {
        let text = many_projects();
        let ChildMessage::Config(Ok(config)) =
            crate::child::parse_file(FileFormat::ClaudeJson, text.as_bytes())
        else {
            panic!("not read");
        };
        for mode in [ScanMode::Doctor, ScanMode::AuthAudit] {
            let audited = |(mut report, pending, warnings): (Report, Vec<Pending>, String)| {
                audit_servers(&mut report.servers, pending, &[], mode, false);
                (report, warnings)
            };
            let whole = audited(added(&config, None, None));
            let least = if mode == ScanMode::Doctor { 400 } else { 200 };
            let found = whole.0.findings().count();
            assert!(found >= least, "{mode:?}: {found} findings");
            for per_part in [1, 7, 256] {
                let (report, pending, warnings) = added(&config, Some(per_part), Some(mode));
                // Every server but the top-level section's (source 0) came in a part.
                let judged = pending
                    .iter()
                    .filter(|p| matches!(p, Pending::Coverage(_)))
                    .count();
                let top_level = report.servers.iter().filter(|s| s.source == 0).count();
                assert_eq!(
                    judged + top_level,
                    pending.len(),
                    "{mode:?}: parts of {per_part}"
                );
                assert!(
                    judged >= 400 && top_level == 1,
                    "{mode:?}: parts of {per_part}"
                );
                assert!(
                    audited((report, pending, warnings)) == whole,
                    "{mode:?}: parts of {per_part}"
                );
            }
        }
    }

    /// The lock names given from the naming inputs worked out while the parts were
    /// judged, and for the rest beside their coverage, are the names given without
    /// them: across 600 projects, one name for one launch in many projects, one
    /// name for many launches (hash suffixes), a name whose slug differs, remote
    /// launches with a reference and with a literal credential.
    #[test]
    fn names_from_inputs_worked_out_ahead_are_the_names_given_in_turn() {
        let projects: Vec<String> = (0..600)
            .map(|p| {
                let servers = match p % 5 {
                    0 => r#""a": {"command": "npx", "args": ["-y", "x"]}"#.to_string(),
                    1 => format!(r#""a": {{"command": "npx", "args": ["-y", "x{p}"]}}"#),
                    2 => format!(
                        r#""My Server": {{"url": "https://h{}.example.com/mcp", "headers": {{"Authorization": "Bearer ${{T}}"}}}}"#,
                        p % 3
                    ),
                    3 => format!(
                        r#""t": {{"url": "https://t.example.com/mcp", "headers": {{"X-Key": "literal-{}"}}}}"#,
                        p % 2
                    ),
                    _ => return format!(r#""/home/u/p{p}": {{"history": []}}"#),
                };
                format!(r#""/home/u/p{p}": {{"mcpServers": {{{servers}}}}}"#)
            })
            .collect();
        let text = format!(
            r#"{{"projects": {{{}}}, "mcpServers": {{"a": {{"command": "node"}}}}}}"#,
            projects.join(", ")
        );
        let ChildMessage::Config(Ok(mut config)) =
            crate::child::parse_file(FileFormat::ClaudeJson, text.as_bytes())
        else {
            panic!("not read");
        };
        let file = claude_json();
        let mut diag = Diag::to(Box::new(std::io::sink()));
        let mut report = Report::default();
        let mut pending = Vec::new();
        let mut parts = Vec::new();
        for sections in config.sections.split_off(1).chunks(7) {
            let mut part = collect_part(&file, sections.to_vec());
            part.judge_servers(ScanMode::Doctor, true);
            parts.push(part);
        }
        config.continues_parts = true;
        add_config(&file, config, parts, &mut report, &mut pending, &mut diag);
        let audited = audit_servers(&mut report.servers, pending, &[], ScanMode::Doctor, true);
        // Every server has its inputs: the parts' from their judging, the top-level
        // section's from the audit.
        assert_eq!(audited.len(), report.servers.len());
        assert!(audited
            .iter()
            .all(|p| matches!(p, Pending::Coverage(Some(_)))));
        let t = tempfile::tempdir().expect("tempdir");
        let mut in_turn = report.clone();
        approvals_and_names(&mut in_turn, t.path(), true, &[]);
        approvals_and_names(&mut report, t.path(), true, &audited);
        assert_eq!(report, in_turn);
        let names: HashSet<&str> = report
            .servers
            .iter()
            .filter_map(|s| s.lock_name.as_deref())
            .collect();
        for expected in ["a.warden.lock", "my-server.warden.lock", "t.warden.lock"] {
            assert!(names.contains(expected), "{expected}");
        }
        // The launches of one name past the first get hash suffixes.
        assert!(names.iter().filter(|n| n.starts_with("a-")).count() > 100);
        assert!(names.iter().any(|n| n.starts_with("my-server-")));
        assert!(names.iter().any(|n| n.starts_with("t-")));
    }

    #[test]
    fn an_answer_collected_in_parts_is_the_answer_collected_whole() {
        let text = many_projects();
        let message = crate::child::parse_file(FileFormat::ClaudeJson, text.as_bytes());
        let ChildMessage::Config(Ok(config)) = message else {
            panic!("not read: {message:?}");
        };
        let whole = added(&config, None, None);
        assert!(whole.0.servers.len() > 400 && !whole.0.problems.is_empty() && !whole.2.is_empty());
        assert!(whole.0.sources.iter().any(|s| !s.settings.is_empty()));
        for per_part in [1, 7, 256, 10_000] {
            let streamed = added(&config, Some(per_part), None);
            assert!(streamed == whole, "parts of {per_part} sections");
        }
    }

    #[test]
    fn parts_an_answer_does_not_complete_are_void() {
        let text = many_projects();
        let ChildMessage::Config(Ok(config)) =
            crate::child::parse_file(FileFormat::ClaudeJson, text.as_bytes())
        else {
            panic!("not read");
        };
        let whole = added(&config, None, None);
        // Parts collected, then a whole answer (a repeated project key found late):
        // only the answer counts.
        let mut with_void_parts = config.clone();
        with_void_parts.continues_parts = false;
        let file_parts = {
            let mut c = Collected::new();
            c.report.servers.push(unaudited(0));
            c.diag.warning("never printed");
            c
        };
        let file = claude_json();
        let mut report = Report::default();
        let mut pending = Vec::new();
        let printed = Shared(Arc::new(Mutex::new(Vec::new())));
        let mut diag = Diag::to(Box::new(Shared(Arc::clone(&printed.0))));
        add_config(
            &file,
            with_void_parts,
            vec![file_parts],
            &mut report,
            &mut pending,
            &mut diag,
        );
        assert!(report == whole.0, "only the whole answer is collected");
        assert!(pending == whole.1);
        assert_eq!(printed.text(), whole.2);
    }

    #[test]
    fn display_keys_never_overwrite_a_real_name() {
        use ServerMap::*;
        // The reference's test 52: a real `gh#servers` keeps its key.
        let keys = display_keys(&[
            entry(McpServers, "gh"),
            entry(McpServers, "gh#servers"),
            entry(Servers, "gh"),
        ]);
        assert_eq!(keys, ["gh", "gh#servers", "gh#servers#"]);
        // The real name listed under `servers`, after the colliding entry: still reserved.
        let keys = display_keys(&[
            entry(McpServers, "gh"),
            entry(Servers, "gh"),
            entry(Servers, "gh#servers"),
        ]);
        assert_eq!(keys, ["gh", "gh#servers#", "gh#servers"]);
        // Two levels of collision.
        let keys = display_keys(&[
            entry(McpServers, "a"),
            entry(McpServers, "a#servers"),
            entry(McpServers, "a#servers#"),
            entry(Servers, "a"),
        ]);
        assert_eq!(keys, ["a", "a#servers", "a#servers#", "a#servers##"]);
        // A servers-only name is kept as is, even when it looks synthetic.
        let keys = display_keys(&[entry(Servers, "x#servers")]);
        assert_eq!(keys, ["x#servers"]);
        // Only a lying child repeats a name within one map: keys stay unique, both
        // below and above the size where the distinctness check switches to a set,
        // and numbered copies skip names that are really taken.
        let keys = display_keys(&[entry(McpServers, "a"), entry(McpServers, "a")]);
        assert_eq!(keys, ["a", "a#2"]);
        let mut many: Vec<_> = (0..20)
            .map(|i| entry(McpServers, &format!("s{i}")))
            .collect();
        many.push(entry(McpServers, "s3"));
        let keys = display_keys(&many);
        assert_eq!(keys.last().map(String::as_str), Some("s3#2"));
        assert_eq!(keys.iter().collect::<HashSet<_>>().len(), keys.len());
        let keys = display_keys(&[
            entry(McpServers, "a"),
            entry(McpServers, "a#2"),
            entry(McpServers, "a"),
            entry(McpServers, "a"),
            entry(Servers, "a"),
            entry(Servers, "a"),
        ]);
        assert_eq!(keys, ["a", "a#2", "a#3", "a#4", "a#servers", "a#5"]);
    }

    #[test]
    fn display_keys_stay_linear_on_long_chains_and_many_copies() {
        use ServerMap::*;
        // A chain of 3,000 reserved `a#servers###…` names and the servers copy of
        // `a`, plus 20,000 copies of one name from a lying child: every key is
        // unique and the copies' keys stay short.
        let mut entries = vec![entry(McpServers, "a")];
        for k in 0..3000 {
            entries.push(entry(McpServers, &format!("a#servers{}", "#".repeat(k))));
        }
        entries.push(entry(Servers, "a"));
        for _ in 0..20_000 {
            entries.push(entry(Servers, "b"));
        }
        let keys = display_keys(&entries);
        assert_eq!(keys[3001], format!("a#servers{}", "#".repeat(3000)));
        assert_eq!(keys.iter().collect::<HashSet<_>>().len(), keys.len());
        assert!(keys[3002..].iter().all(|k| k.len() <= "b#20000".len()));
    }

    /// The join decided on another thread while the locks are named here ends as
    /// the two done one after the other: the same findings at the same servers,
    /// the same names (a file already in the directory avoided), written into the
    /// servers they were decided for.
    #[test]
    fn approvals_judged_beside_the_names_end_as_both_done_in_turn() {
        use crate::engines::approval::tests::{names, Fixture};
        use crate::protocol::SettingValue;
        let t = tempfile::tempdir().expect("tempdir");
        std::fs::write(t.path().join("b.warden.lock"), "").expect("write");
        let mut f = Fixture::new("/w/repo");
        let mcp = f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.mcp.json",
            Some("/w/repo"),
            vec![],
        );
        f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.claude/settings.json",
            Some("/w/repo"),
            vec![SettingValue::EnabledProjectServers(names(&["b", "d"]))],
        );
        for name in ["a", "b", "c", "d", "e"] {
            f.server(mcp, name);
        }
        let other = crate::protocol::ServerExtra {
            cwd: Some("/elsewhere".into()),
            ..crate::protocol::ServerExtra::default()
        };
        f.server_with(mcp, "f", other);
        // `a` is covered; `b`…`e` share one launch, `f` has its own.
        for server in f.report.servers.iter_mut().skip(1) {
            server.coverage = Coverage::None;
        }
        let mut in_turn = f.report.clone();
        crate::engines::approval::apply(&mut in_turn);
        let existing = |name: &str| name == "b.warden.lock";
        crate::render::lock_names::assign_lock_names(&mut in_turn, &existing);

        // Both ways: the join beside the names (a large home), and here (a small one).
        let mut here = f.report.clone();
        approvals_and_names(&mut here, t.path(), false, &[]);
        assert_eq!(here, in_turn);
        let mut beside = f.report;
        approvals_and_names(&mut beside, t.path(), true, &[]);
        assert_eq!(beside, in_turn);
        let named: Vec<Option<&str>> = beside
            .servers
            .iter()
            .map(|s| s.lock_name.as_deref())
            .collect();
        assert_eq!(
            named,
            [
                None,
                Some("b-3e23e8.warden.lock"),
                Some("b-3e23e8.warden.lock"),
                Some("b-3e23e8.warden.lock"),
                Some("b-3e23e8.warden.lock"),
                Some("f.warden.lock")
            ]
        );
        assert!(beside
            .findings()
            .any(|f| f.rule.as_str().starts_with("WRD-CLIENT")));
    }

    fn options(root: &Path) -> DoctorOptions {
        DoctorOptions {
            configs: Vec::new(),
            discover: true,
            platform: Platform::Linux,
            home: root.join("home"),
            cwd: root.join("work"),
            env: discover::Environment::default(),
            system_root: root.join("system"),
            sandbox_policy: WeakSandboxPolicy::AllowWeak,
            mode: ScanMode::Doctor,
            ignore: IgnoreChoice::None,
            today: suppress::Date::today_utc(),
            name_locks: true,
        }
    }

    #[test]
    fn every_skip_is_listed_and_carries_a_rescan_line_only_where_it_works() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path();
        let opts = options(root);
        for dir in [
            "home/.cursor",
            "home/.codeium/windsurf",
            "home/.gemini",
            "work",
            "elsewhere",
        ] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        std::fs::write(root.join("elsewhere/real.json"), "{}").expect("write");
        std::os::unix::fs::symlink(
            root.join("elsewhere/real.json"),
            root.join("home/.cursor/mcp.json"),
        )
        .expect("symlink");
        nix::unistd::mkfifo(
            &root.join("home/.codeium/windsurf/mcp_config.json"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .expect("mkfifo");
        let big = std::fs::File::create(root.join("home/.gemini/settings.json")).expect("create");
        big.set_len(DISCOVERED_SIZE_CAP + 1).expect("set_len");
        let huge = std::fs::File::create(root.join("home/.claude.json")).expect("create");
        huge.set_len(CLAUDE_JSON_SIZE_CAP + 1).expect("set_len");
        // A lock in the tree that is a symlink.
        std::os::unix::fs::symlink(
            root.join("elsewhere/real.json"),
            root.join("work/warden.lock"),
        )
        .expect("symlink");

        let mut report = Report::default();
        let mut diag = Diag::to(Box::new(std::io::sink()));
        let found = discover::discover(&DiscoveryInput {
            platform: opts.platform,
            home: opts.home.clone(),
            cwd: opts.cwd.clone(),
            env: opts.env.clone(),
            system_root: opts.system_root.clone(),
        });
        for candidate in &found.candidates {
            assert!(open_candidate(candidate, &opts, &mut report, &mut diag).is_none());
        }
        let _ = open_locks(
            std::slice::from_ref(&opts.cwd),
            &opts.cwd,
            &mut report,
            &mut diag,
        );
        report_listing_problem(
            &ListingProblem::Failed {
                dir: root.join("home/.continue/mcpServers"),
                reason: "permission denied".into(),
            },
            &opts,
            &mut report,
            &mut diag,
        );
        let home = opts.home.display().to_string();
        let got: Vec<(ProblemKind, &str, Option<&str>)> = report
            .problems
            .iter()
            .map(|p| (p.kind, p.path.as_str(), p.rescan.as_deref()))
            .collect();
        let cursor = format!("mcp-warden doctor --config {home}/.cursor/mcp.json");
        let gemini = format!("mcp-warden doctor --config {home}/.gemini/settings.json");
        for want in [
            (
                ProblemKind::Skipped,
                "~/.cursor/mcp.json",
                Some(cursor.as_str()),
            ),
            (
                ProblemKind::Skipped,
                "~/.codeium/windsurf/mcp_config.json",
                None,
            ),
            (
                ProblemKind::Skipped,
                "~/.gemini/settings.json",
                Some(gemini.as_str()),
            ),
            // Over the largest cap: a `--config` line is not known to work.
            (ProblemKind::Skipped, "~/.claude.json", None),
            (ProblemKind::Skipped, "warden.lock", None),
            (ProblemKind::Unreadable, "~/.continue/mcpServers", None),
        ] {
            assert!(got.contains(&want), "{want:?} not in {got:#?}");
        }
        // The counters that decide the exit code agree with the list.
        let count = |k| report.problems.iter().filter(|p| p.kind == k).count();
        assert_eq!(report.skipped, count(ProblemKind::Skipped));
        assert_eq!(report.hard_errors, count(ProblemKind::Unreadable));
        assert!(report.problems.iter().all(|p| !p.reason.is_empty()));
    }

    #[test]
    fn rescan_lines_are_printed_only_when_they_scan_the_file_as_printed() {
        let fmt = FileFormat::Json;
        let t = tempfile::tempdir().expect("tempdir");
        let cursor = t.path().join("it's a dir/.cursor/mcp.json");
        let line = rescan_line(&cursor, fmt).expect("a line");
        let quoted = crate::text::quote::quote(cursor.to_str().expect("utf-8")).into_owned();
        assert_eq!(line, format!("mcp-warden doctor --config {quoted}"));
        assert!(line.contains("'\"'\"'"), "{line}");
        // Relative, read in another format by --config, or not printable exactly.
        assert_eq!(rescan_line(Path::new(".cursor/mcp.json"), fmt), None);
        assert_eq!(rescan_line(&t.path().join("config.toml"), fmt), None);
        assert_eq!(
            rescan_line(&t.path().join("a\u{1b}[2J/mcp.json"), fmt),
            None
        );
        let secret = t
            .path()
            .join("ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2/mcp.json");
        assert_eq!(rescan_line(&secret, fmt), None);
    }

    #[test]
    fn exit_codes_follow_the_contract() {
        let mut report = Report::default();
        assert_eq!(exit_code(&report, None, false), 0);
        assert_eq!(exit_code(&report, None, true), 2);
        report.skipped = 1;
        assert_eq!(exit_code(&report, None, false), 1);
        report.hard_errors = 1;
        assert_eq!(exit_code(&report, None, false), 2);
    }
}

#[cfg(test)]
mod locations;
