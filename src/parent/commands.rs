//! Command runners: resolve options, run, render, and return the exit code.
//! `main` maps the code to the process status; nothing deeper exits.

use std::io::{self, Write};
use std::path::PathBuf;

use mcp_warden_sandbox::WeakSandboxPolicy;

use std::time::Duration;

use super::diag::Diag;
use super::discover::Environment;
use super::doctor::{self, DoctorOptions, IgnoreChoice, Scan, ScanMode};
use super::{resources, spawn};
use crate::cli::{AuthAuditArgs, DoctorArgs, Platform, SandboxArgs};
use crate::model::Report;
use crate::output::{self, Stream};
use crate::render;
use crate::safe_write::{self, Destination};

/// `mcp-warden doctor`.
/// `started` is the parser child when `main` started it before parsing the command
/// line (see `doctor::scan`).
pub fn doctor(args: DoctorArgs, started: Option<mcp_warden_sandbox::StartedParser>) -> u8 {
    resources::phase("start");
    let mut diag = Diag::stderr();
    if args.no_discover && args.configs.is_empty() {
        diag.error(
            "--no-discover scans only the --config paths, and none was given: add --config PATH, or drop --no-discover",
        );
        return 2;
    }
    let sarif = args.sarif.as_deref().map(Destination::from_arg);
    if !sarif_destination_is_usable(sarif.as_ref(), args.json, &mut diag) {
        return 2;
    }
    // No Yama on many kernels: without this a same-uid process (a compromised child
    // included) could ptrace the parent. Best effort; the sandbox repeats it.
    let _ = nix::sys::prctl::set_dumpable(false);
    raise_open_file_limit();
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            diag.error(&format!("cannot determine the current directory: {e}"));
            return 2;
        }
    };
    let Some(home) = args.home.clone().or_else(home_dir) else {
        diag.error("cannot determine the home directory: HOME is unset (pass --home)");
        return 2;
    };
    let platform = args.platform.unwrap_or_else(Platform::host);
    let env = Environment::read(platform, |name| std::env::var_os(name));
    // The user's own file, from the user's environment only; never below cwd. It
    // is located from the home directory as given: a relative one (`HOME=.`) would
    // put it inside whatever directory doctor runs in, a repository's checkout.
    let ignore = match &args.ignore_file {
        Some(path) => IgnoreChoice::Named(doctor::absolute(&cwd, path)),
        None => {
            let user = crate::suppress::user_file(
                platform,
                &home,
                env.xdg_config_home.as_deref().map(std::path::Path::new),
                env.appdata.as_deref().map(std::path::Path::new),
            );
            if user.is_none() && platform != Platform::Win32 {
                diag.warning(&format!(
                    "not reading the user's suppression file: the home directory {} is not an \
                     absolute path, so the file's place would depend on the directory doctor runs \
                     in; no suppression applied (name the file with --ignore-file)",
                    crate::text::redact::display(&home.to_string_lossy())
                ));
            }
            IgnoreChoice::User(user)
        }
    };
    let home = doctor::absolute(&cwd, &home);
    let opts = DoctorOptions {
        configs: args.configs.clone(),
        discover: !args.no_discover,
        platform,
        home,
        env,
        system_root: doctor::absolute(&cwd, &args.system_root),
        cwd: cwd.clone(),
        sandbox_policy: sandbox_policy(args.sandbox),
        mode: ScanMode::Doctor,
        ignore,
        today: crate::suppress::Date::today_utc(),
        // Lock names are printed only by the text report's Next steps and written
        // only by `--pin`: JSONL, SARIF and `--servers` name no lock.
        name_locks: args.pin || !(args.json || args.servers),
    };
    let mut report = match doctor::scan(&opts, &mut diag, started) {
        Scan::Report(report) => report,
        Scan::Failed => return 2,
    };
    resources::phase("scanned");

    // `--pin` runs before anything is rendered, so that every output describes the
    // state after pinning (see `spawn`).
    let pin_run = args.pin.then(|| {
        let opts = spawn::PinOptions {
            yes: args.yes,
            timeout: Duration::from_secs_f64(args.timeout.clamp(0.1, 86_400.0)),
            cwd: &cwd,
            home: &opts.home,
        };
        let run = spawn::pin_uncovered(&report, &opts, &mut diag);
        for (i, lock) in run.pinned() {
            if let Some(server) = report.servers.get_mut(i) {
                doctor::mark_pinned(server, lock);
            }
        }
        run
    });
    let pin_failed = pin_run
        .as_ref()
        .is_some_and(|run| run.outcome == spawn::PinOutcome::Failed);

    let fail_on = args.fail_on.map(|f| f.severity());
    // Every output says what the run exits with, so the code is decided before
    // rendering (after `--pin`, which has already run).
    let report_code = doctor::exit_code(&report, fail_on, pin_failed);
    if let Some(sarif) = &sarif {
        let log = render::sarif::render(&report, env!("CARGO_PKG_VERSION"), &cwd, report_code);
        if !write_sarif(sarif, &log, &mut diag) {
            return 2;
        }
    }

    // With `--sarif -` stdout carries the SARIF log alone; the human report goes to
    // stderr, uncoloured.
    let sarif_on_stdout = sarif == Some(Destination::Stdout);
    let (mut out, stream): (io::BufWriter<Box<dyn Write>>, _) = if sarif_on_stdout {
        (output::writer(Stream::Stderr), Stream::Stderr)
    } else {
        (output::writer(Stream::Stdout), Stream::Stdout)
    };
    let style = render::text::TextStyle::for_stream(stream, args.color);
    let outcome = render::findings::Outcome {
        code: report_code,
        fail_on,
    };
    // What --pin did goes after Next steps (what is left to do), before the summary;
    // with --json, stdout carries JSONL alone, so it goes to stderr.
    let mut pin_block = |out: &mut dyn Write| -> io::Result<()> {
        match &pin_run {
            Some(run) if args.json => {
                let mut err = output::writer(Stream::Stderr);
                spawn::render_pin_run(&report, run, style.width, &mut err)
                    .and_then(|()| err.flush())
            }
            Some(run) if !run.launches.is_empty() => {
                writeln!(out)?;
                spawn::render_pin_run(&report, run, style.width, out)
            }
            _ => Ok(()),
        }
    };
    let written = write_report(
        &report,
        &args,
        style,
        outcome,
        &mut pin_block,
        &mut out,
        &mut diag,
    )
    .and_then(|()| out.flush());
    match written {
        // A closed pipe (`mcp-warden doctor | head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            diag.error(&format!("cannot write the report: {e}"));
            return 2;
        }
        Ok(()) => {}
    }
    drop(out);
    resources::phase("written");
    resources::report(&mut diag);
    let code = report_code;
    // The process ends here: let the kernel take the report back at once instead of
    // freeing tens of thousands of strings one by one.
    std::mem::forget(report);
    code
}

fn write_report(
    report: &Report,
    args: &DoctorArgs,
    style: render::text::TextStyle,
    outcome: render::findings::Outcome,
    pin_block: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
    diag: &mut Diag,
) -> io::Result<()> {
    let nothing_found = report.servers.is_empty()
        && report.setting_findings.is_empty()
        && report.skipped == 0
        && report.hard_errors == 0;
    if nothing_found {
        let line = if report.files_read > 0 {
            format!(
                "no MCP servers configured ({} config file(s) read; none declares a server)",
                report.files_read
            )
        } else {
            render::text::no_configs_line(report.searched)
        };
        // With --json, stdout carries JSONL and nothing else: the summary record
        // says nothing was found.
        if args.json && !args.servers {
            diag.raw(&line);
            return render::jsonl::render_with_summary(report, outcome.code, out);
        } else if args.json {
            diag.raw(&line);
        } else {
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    if args.servers {
        return if args.json {
            render::servers::render_jsonl(report, out)
        } else {
            render::servers::render_text(report, out, style.color)
        };
    }
    if args.json {
        if args.inventory {
            render::jsonl::render_inventory(report, out)?;
        }
        pin_block(out)?;
        render::jsonl::render_with_summary(report, outcome.code, out)
    } else {
        render::text::render(report, out, style, outcome, pin_block)
    }
}

/// Refuse a `--sarif` destination before any work is done (printed here; the
/// caller exits 2): `--sarif -` shares stdout with nothing, so `--json` as well is
/// a usage error; a path the write would refuse (a symlink, a FIFO, a symlinked
/// directory, a missing directory) is refused now, not after the scan.
pub fn sarif_destination_is_usable(
    sarif: Option<&Destination>,
    json: bool,
    diag: &mut Diag,
) -> bool {
    match sarif {
        Some(Destination::Stdout) if json => {
            diag.error(
                "--json and --sarif - both write to stdout; give --sarif a file path, or drop --json",
            );
            false
        }
        Some(Destination::File(path)) => match safe_write::preflight(path) {
            Ok(()) => true,
            Err(e) => {
                diag.error(&format!("cannot write SARIF: {e}"));
                false
            }
        },
        _ => true,
    }
}

/// Write a SARIF log to its destination through [`crate::safe_write`]; on failure
/// print one `error:` line and return false (exit 2). A closed stdout pipe is the
/// reader's choice, not a failure.
pub fn write_sarif(destination: &Destination, log: &str, diag: &mut Diag) -> bool {
    match destination {
        Destination::File(path) => match safe_write::replace(path, log.as_bytes()) {
            Ok(()) => true,
            Err(e) => {
                diag.error(&format!("cannot write SARIF: {e}"));
                false
            }
        },
        Destination::Stdout => {
            let mut stdout = output::writer(Stream::Stdout);
            match stdout
                .write_all(log.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    diag.error(&format!("cannot write SARIF to stdout: {e}"));
                    false
                }
                _ => true,
            }
        }
    }
}

/// `mcp-warden auth audit CONFIG...`: the same sandboxed loading as doctor's
/// `--config`, the auth engine alone. 0 clean, 1 findings, 2 unreadable.
pub fn auth_audit(args: AuthAuditArgs) -> u8 {
    let mut diag = Diag::stderr();
    let sarif = args.sarif.as_deref().map(Destination::from_arg);
    if !sarif_destination_is_usable(sarif.as_ref(), args.json, &mut diag) {
        return 2;
    }
    let _ = nix::sys::prctl::set_dumpable(false);
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            diag.error(&format!("cannot determine the current directory: {e}"));
            return 2;
        }
    };
    let home = home_dir().unwrap_or_else(|| cwd.clone());
    let opts = DoctorOptions {
        configs: args.configs.clone(),
        discover: false,
        platform: Platform::host(),
        home,
        // No discovery: neither the variables nor the system root are used.
        env: Environment::default(),
        system_root: PathBuf::from("/"),
        cwd: cwd.clone(),
        sandbox_policy: sandbox_policy(args.sandbox),
        mode: ScanMode::AuthAudit,
        // `auth audit` audits the files it is given, as they are.
        ignore: IgnoreChoice::None,
        today: crate::suppress::Date::today_utc(),
        // Its report prints no Next steps.
        name_locks: false,
    };
    let report = match doctor::scan(&opts, &mut diag, None) {
        Scan::Report(report) => report,
        Scan::Failed => return 2,
    };
    let fail_on = args.fail_on.map(|f| f.severity());
    let code = doctor::exit_code(&report, fail_on, false);
    if let Some(sarif) = &sarif {
        let log = render::sarif::render(&report, env!("CARGO_PKG_VERSION"), &cwd, code);
        if !write_sarif(sarif, &log, &mut diag) {
            return 2;
        }
    }
    // With `--sarif -` the human report goes to stderr (see `doctor`).
    let (mut out, stream): (io::BufWriter<Box<dyn Write>>, _) =
        if sarif == Some(Destination::Stdout) {
            (output::writer(Stream::Stderr), Stream::Stderr)
        } else {
            (output::writer(Stream::Stdout), Stream::Stdout)
        };
    let written = if args.json {
        render::jsonl::render(&report, &mut out)
    } else {
        let style = render::text::TextStyle::for_stream(stream, args.color);
        let outcome = render::findings::Outcome { code, fail_on };
        render::audit::render(&report, args.configs.len(), style, outcome, &mut out)
    }
    .and_then(|()| out.flush());
    if let Err(e) = written {
        if e.kind() != io::ErrorKind::BrokenPipe {
            diag.error(&format!("cannot write the report: {e}"));
            return 2;
        }
    }
    code
}

/// `mcp-warden sandbox status`.
pub fn sandbox_status() -> u8 {
    output::line(Stream::Stdout, &mcp_warden_sandbox::kernel_status());
    0
}

/// `mcp-warden sandbox selftest`: 0 when every probe matched, 1 otherwise.
pub fn sandbox_selftest() -> u8 {
    let (table, all_matched) = mcp_warden_sandbox::selftest();
    output::write_text(Stream::Stdout, &table);
    if all_matched {
        0
    } else {
        1
    }
}

/// Every file is open at once before it is handed to the child (up to 1,000 locks
/// plus the configs): the common soft limit of 1,024 is too low, so raise it toward
/// the hard limit. (The child, which may have started before this, makes room for
/// what it receives itself.)
fn raise_open_file_limit() {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    const WANTED: u64 = 4096;
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let target = WANTED.min(hard);
        if soft < target {
            let _ = setrlimit(Resource::RLIMIT_NOFILE, target, hard);
        }
    }
}

fn sandbox_policy(args: SandboxArgs) -> WeakSandboxPolicy {
    let strict_env = std::env::var_os("MCP_WARDEN_STRICT_SANDBOX").is_some_and(|v| v == "1");
    if args.strict_sandbox || strict_env {
        WeakSandboxPolicy::Strict
    } else if args.allow_weak_sandbox {
        WeakSandboxPolicy::AllowWeak
    } else {
        WeakSandboxPolicy::Default
    }
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// The CLI as completions and man pages describe it: [`crate::cli::Cli`], with
/// `pin` and `check` given clap arguments built from their own option table
/// ([`crate::pin::options::OPTIONS`], the one definition). Only for describing:
/// those two commands parse their argv themselves, never through these arguments.
fn documented_cli() -> clap::Command {
    use crate::pin::options::Which;
    use clap::CommandFactory;
    let mut cmd = crate::cli::Cli::command();
    for which in [Which::Pin, Which::Check] {
        cmd = cmd.mut_subcommand(which.name(), |sub| with_own_options(sub, which));
    }
    cmd
}

/// `pin` or `check` with its table's options, about text and exit statuses.
fn with_own_options(sub: clap::Command, which: crate::pin::options::Which) -> clap::Command {
    use crate::pin::options;
    let mut sub = sub
        .long_about(format!(
            "{}\n\n{}",
            options::about(which),
            options::exit_status(which)
        ))
        .mut_arg("words", |words| {
            words
                .value_name("SERVER_CMD")
                .value_hint(clap::ValueHint::CommandWithArguments)
        });
    for option in options::OPTIONS.iter().filter(|o| o.applies_to(which)) {
        sub = sub.arg(clap_arg(option, which));
    }
    sub
}

/// One table option as a clap argument, for completion scripts and man pages.
fn clap_arg(
    option: &'static crate::pin::options::OptionDef,
    which: crate::pin::options::Which,
) -> clap::Arg {
    let name = option.long.trim_start_matches('-');
    let mut arg = clap::Arg::new(name)
        .long(name)
        .help(option.help_for(which).join(" "));
    if let Some(short) = option
        .short
        .and_then(|s| s.strip_prefix('-'))
        .and_then(|s| s.chars().next())
    {
        arg = arg.short(short);
    }
    match option.value {
        None => arg.action(clap::ArgAction::SetTrue),
        Some(value) => {
            // A value name goes into completion scripts as it is, and zsh reads a
            // `:` in it as a field separator: a help-text spelling such as `'K: V'`
            // is shown under the option's own name (`HEADER`). The few such names
            // live until the process ends, which is right after printing.
            let value_name: &'static str =
                if value.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    value
                } else {
                    Box::leak(name.to_ascii_uppercase().into_boxed_str())
                };
            let hint = match value_name {
                "PATH" => clap::ValueHint::FilePath,
                "URL" => clap::ValueHint::Url,
                _ => clap::ValueHint::Other,
            };
            arg.value_name(value_name)
                .value_hint(hint)
                .action(clap::ArgAction::Append)
        }
    }
}

/// `mcp-warden completions SHELL`: the script clap_complete generates from the
/// one CLI definition ([`crate::cli::Cli`], with `pin`'s and `check`'s table).
pub fn completions(shell: clap_complete::Shell) -> u8 {
    let mut cmd = documented_cli();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN_NAME, &mut script);
    let mut script = String::from_utf8_lossy(&script).into_owned();
    if shell == clap_complete::Shell::Bash {
        script = fix_bash_case_labels(&script);
    }
    output::write_text(Stream::Stdout, &script);
    0
}

const BIN_NAME: &str = "mcp-warden";

/// clap_complete's bash script tracks the command line in `cmd` as `mcp__warden`,
/// `mcp__warden__subcmd__pin`, …, but labels the `case` arms that hold each
/// subcommand's options with every `-` of the binary's name turned into the
/// subcommand separator (`mcp__subcmd__warden__subcmd__pin`), so no arm matches and
/// bash completes no option of any subcommand. The arms get the name `cmd` uses.
/// A no-op once the generator spells both the same (the completion test drives
/// bash through `pin`, `check` and `doctor` options either way).
fn fix_bash_case_labels(script: &str) -> String {
    let tracked = BIN_NAME.replace('-', "__");
    let mislabelled = BIN_NAME.replace('-', "__subcmd__");
    script
        .lines()
        .map(
            |line| match line.trim_start().strip_prefix(mislabelled.as_str()) {
                Some(rest) if rest.ends_with(')') => {
                    let indent = &line[..line.len() - line.trim_start().len()];
                    format!("{indent}{tracked}{rest}\n")
                }
                _ => format!("{line}\n"),
            },
        )
        .collect()
}

/// `mcp-warden man [COMMAND]`: the man page clap_mangen generates from the one CLI
/// definition, `pin`'s and `check`'s options included (from their option table).
pub fn man(command: Option<&str>) -> u8 {
    let root = documented_cli();
    let (page, cmd) = match command {
        None => ("mcp-warden".to_string(), root),
        Some(path) => {
            let mut cmd = root;
            for part in path.split('-') {
                match cmd.find_subcommand(part).cloned() {
                    Some(sub) => cmd = sub,
                    None => {
                        output::line(
                            Stream::Stderr,
                            &format!(
                                "error: no man page for {}: name a command ({})",
                                crate::text::display(path),
                                man_pages().join(", ")
                            ),
                        );
                        return 2;
                    }
                }
            }
            (format!("mcp-warden-{path}"), cmd)
        }
    };
    let mut roff = Vec::new();
    let bin_name = match command {
        None => "mcp-warden".to_string(),
        Some(path) => format!("mcp-warden {}", path.replace('-', " ")),
    };
    let cmd = cmd.display_name(page.clone()).bin_name(bin_name);
    if let Err(e) = clap_mangen::Man::new(cmd)
        .title(page.to_uppercase())
        .render(&mut roff)
    {
        output::line(
            Stream::Stderr,
            &format!("error: cannot render the man page: {e}"),
        );
        return 2;
    }
    output::write_text(Stream::Stdout, &String::from_utf8_lossy(&roff));
    0
}

/// Every page `mcp-warden man` can print, as its COMMAND argument (`auth-audit`).
pub fn man_pages() -> Vec<String> {
    fn walk(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = if prefix.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{prefix}-{}", sub.get_name())
            };
            out.push(name.clone());
            walk(sub, &name, out);
        }
    }
    let mut out = Vec::new();
    walk(&documented_cli(), "", &mut out);
    out
}
