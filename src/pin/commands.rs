//! The `pin`, `check` and `lock rotate` commands: argument grammar, output and
//! exit codes (0 success / no drift, 1 drift, 2 failure).
//!
//! `pin` and `check` take a server argv that may itself contain options
//! (`mcp-warden pin npx -y pkg --approve --approver ID --lock NAME`, the form
//! doctor prints), which clap cannot express, so their argv is parsed here: the
//! server argv starts at the first positional word, and pin's own options are
//! taken only from the tail after it (scanning from the end), or from before a
//! `--` that separates them from the argv.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::capture::{CaptureError, Endpoint, Limits};
use super::check::run_check;
use super::drift::DriftItem;
use super::lock::read::{self, read_lock};
use super::lock::{Lock, LockFinding, DEFAULT_LOCK_NAME};
use super::{build, expand_env, rotate, time, write_lock_replace, Approval, PinError};
use crate::output::{self, Stream};
use crate::render::record::{lock_records, Record};
use crate::safe_write::Destination;
use crate::text::redact::display_capped;
use crate::text::{display, safe_text, safe_text_capped};

pub use super::options::Which;
use super::options::{self, Opt};

/// Parsed `pin`/`check` arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PinArgs {
    pub argv: Vec<String>,
    pub url: Option<String>,
    pub lock: Option<PathBuf>,
    pub approve: bool,
    pub approver: Option<String>,
    pub timeout: Option<f64>,
    pub headers: Vec<String>,
    /// `--env NAME`: variables passed from the caller's environment to the server.
    pub env: Vec<String>,
    pub json: bool,
    pub sarif: Option<PathBuf>,
    pub help: bool,
    pub version: bool,
}

/// `--name=value` for a valued option.
fn split_eq(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    options::lookup(name)
        .is_some_and(|o| o.takes_value())
        .then_some((name, value))
}

/// Whether `word` is an option spelling that takes a value / takes none.
fn is_valued(word: &str) -> bool {
    options::lookup(word).is_some_and(|o| o.takes_value())
}
fn is_flag(word: &str) -> bool {
    options::lookup(word).is_some_and(|o| !o.takes_value())
}

fn apply(which: Which, args: &mut PinArgs, name: &str, value: Option<&str>) -> Result<(), String> {
    let Some(def) = options::lookup(name).filter(|o| o.applies_to(which)) else {
        return Err(format!("No such option: {name}"));
    };
    let need = || {
        value
            .map(str::to_string)
            .ok_or_else(|| format!("Option '{name}' requires an argument."))
    };
    match def.opt {
        Opt::Url => args.url = Some(need()?),
        Opt::Lock => args.lock = Some(PathBuf::from(need()?)),
        Opt::Approver => args.approver = Some(need()?),
        Opt::Header => args.headers.push(need()?),
        Opt::Env => args.env.push(need()?),
        Opt::Sarif => args.sarif = Some(PathBuf::from(need()?)),
        Opt::Timeout => {
            let v = need()?;
            let t: f64 = v
                .parse()
                .ok()
                .filter(|t: &f64| t.is_finite() && *t > 0.0 && *t <= 86_400.0)
                .ok_or_else(|| format!("Invalid value for '--timeout': '{v}' is not a number of seconds in (0, 86400]."))?;
            args.timeout = Some(t);
        }
        Opt::Approve => args.approve = true,
        Opt::Json => args.json = true,
        Opt::Help => args.help = true,
        Opt::Version => args.version = true,
    }
    Ok(())
}

/// Parse options forward until the first positional word (or `--`). Returns
/// the index where the server argv starts.
fn parse_forward(which: Which, words: &[String], args: &mut PinArgs) -> Result<usize, String> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "--" {
            return Ok(i);
        }
        if let Some((name, value)) = split_eq(w) {
            apply(which, args, name, Some(value))?;
            i += 1;
        } else if is_valued(w) {
            apply(which, args, w, words.get(i + 1).map(String::as_str))?;
            i += 2;
        } else if is_flag(w) {
            apply(which, args, w, None)?;
            i += 1;
        } else if w.starts_with('-') && w.len() > 1 {
            return Err(format!("No such option: {w}"));
        } else {
            return Ok(i);
        }
    }
    Ok(words.len())
}

/// Parse the words after `pin`/`check`.
pub fn parse_args(which: Which, words: &[String]) -> Result<PinArgs, String> {
    let mut args = PinArgs::default();
    if let Some(sep) = words.iter().position(|w| w == "--") {
        // Explicit form: options, `--`, then the argv verbatim.
        let end = parse_forward(which, &words[..sep], &mut args)?;
        if end != sep {
            return Err(format!("unexpected argument '{}' before '--'", words[end]));
        }
        args.argv = words[sep + 1..].to_vec();
        return Ok(args);
    }
    let start = parse_forward(which, words, &mut args)?;
    let rest = &words[start..];
    // From the end: `--opt VALUE` pairs, `--opt=VALUE` and flags belong to us.
    let mut end = rest.len();
    let mut tail: Vec<(String, Option<String>)> = Vec::new();
    while end > 0 {
        let w = rest[end - 1].as_str();
        if end >= 2 && is_valued(&rest[end - 2]) && end - 2 > 0 {
            tail.push((rest[end - 2].clone(), Some(w.to_string())));
            end -= 2;
        } else if let Some((name, value)) = split_eq(w).filter(|_| end > 1) {
            tail.push((name.to_string(), Some(value.to_string())));
            end -= 1;
        } else if is_flag(w) && end > 1 {
            tail.push((w.to_string(), None));
            end -= 1;
        } else {
            break;
        }
    }
    // Apply in command-line order so a repeated option keeps its last value.
    for (name, value) in tail.into_iter().rev() {
        apply(which, &mut args, &name, value.as_deref())?;
    }
    args.argv = rest[..end].to_vec();
    Ok(args)
}

fn err(msg: &str) {
    output::line(
        Stream::Stderr,
        &format!("error: {}", display_capped(msg, 2000)),
    );
}

/// A sandbox warning while reading the lock (a degraded kernel the policy accepted).
fn warn(msg: &str) {
    output::line(
        Stream::Stderr,
        &format!("warning: {}", safe_text_capped(msg, 2000)),
    );
}

fn report_capture_error(e: &CaptureError) {
    let mut text = format!("capture failed: {}\n", display_capped(&e.message, 2000));
    if let Some(stderr) = &e.stderr {
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let start = lines.len().saturating_sub(20);
        text.push_str(&format!(
            "server stderr (last {} line(s)):\n",
            lines.len() - start
        ));
        for l in &lines[start..] {
            text.push_str(&format!("  | {}\n", display_capped(l, 300)));
        }
    }
    output::write_text(Stream::Stderr, &text);
}

fn report_pin_error(e: &PinError) -> u8 {
    match e {
        PinError::Capture(c) => report_capture_error(c),
        other => err(&other.to_string()),
    }
    2
}

/// Parse `Name: value` and expand `$VAR` in the value.
fn parse_headers(raw: &[String]) -> Result<Vec<(String, String)>, String> {
    raw.iter()
        .map(|h| {
            let (k, v) = h
                .split_once(':')
                .ok_or_else(|| "--header must look like 'Name: value'".to_string())?;
            let k = k.trim();
            let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
            if k.is_empty() || !k.chars().all(token) {
                return Err(format!("invalid header name '{}'", safe_text(k)));
            }
            let v = expand_env(v.trim_start())?;
            if v.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
                return Err(format!("header '{k}' has a line break in its value"));
            }
            Ok((k.to_string(), v))
        })
        .collect()
}

/// The capture endpoint and limits from parsed arguments (exit-2 errors as text).
fn endpoint(args: &PinArgs) -> Result<(Endpoint, Limits), String> {
    if args.url.is_some() && !args.argv.is_empty() {
        return Err("--url and server-cmd are mutually exclusive".into());
    }
    let limits = Limits {
        timeout: Duration::from_secs_f64(args.timeout.unwrap_or(30.0)),
        ..Limits::default()
    };
    if let Some(url) = &args.url {
        if !args.env.is_empty() {
            return Err("--env applies only to a server command, not with --url".into());
        }
        let headers = parse_headers(&args.headers)?;
        return Ok((
            Endpoint::Http {
                url: url.clone(),
                headers,
            },
            limits,
        ));
    }
    if args.argv.is_empty() {
        return Err("provide either a server command or --url".into());
    }
    if !args.headers.is_empty() {
        return Err("--header applies only with --url".into());
    }
    Ok((
        Endpoint::Stdio {
            argv: args.argv.clone(),
            env: passed_env(&args.env)?,
            cwd: None,
        },
        limits,
    ))
}

/// The `--env NAME` variables, each taken from this process's environment: the
/// value is never on the command line (where `ps` and shell history would show it).
/// A name that is not set fails the command rather than starting the server
/// without it, which would pin (or check) a surface the client never sees.
fn passed_env(names: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut env: Vec<(String, String)> = Vec::with_capacity(names.len());
    for name in names {
        // A shell variable name, the only kind doctor prints and a shell can export
        // (`BASH_FUNC_x%%`, `A B` or `-x` would pass an inherited value no line
        // asked for).
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "--env {}: not a variable name (letters, digits and _, not starting with a digit)",
                safe_text(name)
            ));
        }
        // Worded without `NAME: …`, which the redactor would read as a credential
        // pair and mask: the message must name the variable.
        let value = std::env::var(name).map_err(|_| {
            format!(
                "the variable {0} (passed with --env {0}) is not set (or not UTF-8) in this environment; export it first",
                safe_text(name)
            )
        })?;
        env.retain(|(k, _)| k != name);
        env.push((name.clone(), value));
    }
    Ok(env)
}

/// Write the SARIF log to a file (through [`crate::safe_write`]) or, for `-`, to
/// stdout.
fn write_sarif(
    destination: &Destination,
    findings: &[LockFinding],
    drift: &[DriftItem],
    lock_path: &Path,
    lock: &Lock,
) -> Result<(), String> {
    let lock_text = String::from_utf8_lossy(&super::lock::write::to_pretty_json(lock)).into_owned();
    let cwd = std::env::current_dir().unwrap_or_default();
    let log = crate::render::sarif::render_lock(
        &lock_records(findings, drift, &lock_text),
        lock_path,
        &cwd,
        env!("CARGO_PKG_VERSION"),
    );
    match destination {
        Destination::File(path) => crate::safe_write::replace(path, log.as_bytes())
            .map_err(|e| format!("could not write SARIF: {e}")),
        Destination::Stdout => {
            let mut stdout = output::writer(Stream::Stdout);
            match stdout
                .write_all(log.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("could not write SARIF to stdout: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// The SARIF destination, checked before the capture: exit 2 when `--sarif -` and
/// `--json` would share stdout, or when the write would be refused (a symlink, a
/// FIFO, a symlinked directory, a missing directory), so nothing is spawned for a
/// result that cannot be written. The write checks again.
fn sarif_destination(args: &PinArgs) -> Result<Option<Destination>, u8> {
    let destination = args.sarif.as_deref().map(Destination::from_arg);
    match &destination {
        Some(Destination::Stdout) if args.json => {
            err("--json and --sarif - both write to stdout; give --sarif a file path, or drop --json");
            return Err(2);
        }
        Some(Destination::File(path)) => {
            if let Err(e) = crate::safe_write::preflight(path) {
                err(&format!("could not write SARIF: {e}"));
                return Err(2);
            }
        }
        _ => {}
    }
    Ok(destination)
}

/// Where the human summary goes: stdout, or stderr when stdout carries SARIF.
fn human_output(sarif: Option<&Destination>) -> std::io::BufWriter<Box<dyn Write>> {
    output::writer(if sarif == Some(&Destination::Stdout) {
        Stream::Stderr
    } else {
        Stream::Stdout
    })
}

fn print_findings(out: &mut impl Write, findings: &[LockFinding]) {
    if findings.is_empty() {
        let _ = writeln!(out, "  no static findings");
        return;
    }
    let _ = writeln!(out, "Findings at pin time:");
    for f in findings {
        let _ = writeln!(
            out,
            "  {:<8} {:<24} {}  {}",
            f.severity.as_str(),
            display(f.rule_id.as_str()),
            display(&f.target),
            display(&f.snippet)
        );
    }
}

fn parse_or_exit(which: Which, words: &[String]) -> Result<PinArgs, u8> {
    if which == Which::Check
        && words
            .iter()
            .take_while(|w| *w != "--")
            .any(|w| w == "--verify")
    {
        err("--verify (Sigstore signature verification) is not supported by this version");
        return Err(2);
    }
    match parse_args(which, words) {
        Ok(a) if a.version && !a.help => {
            output::line(
                Stream::Stdout,
                &format!("mcp-warden {}", env!("CARGO_PKG_VERSION")),
            );
            Err(0)
        }
        Ok(a) if a.help => {
            output::write_text(Stream::Stdout, &options::help(which));
            Err(0)
        }
        Ok(a) => Ok(a),
        Err(e) => {
            output::write_text(
                Stream::Stderr,
                &format!(
                    "Usage: mcp-warden {0} [OPTIONS] [--] SERVER_CMD...\nTry 'mcp-warden {0} --help' for help.\n",
                    which.name()
                ),
            );
            err(&e);
            Err(2)
        }
    }
}

/// `mcp-warden pin …` (the words after `pin`).
pub fn pin_main(words: &[String]) -> u8 {
    let args = match parse_or_exit(Which::Pin, words) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let sarif = match sarif_destination(&args) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let approver = args.approver.clone().filter(|a| !a.is_empty()).or_else(|| {
        std::env::var("WARDEN_APPROVER")
            .ok()
            .filter(|a| !a.is_empty())
    });
    let (endpoint, limits) = match endpoint(&args) {
        Ok(x) => x,
        Err(e) => {
            err(&e);
            return 2;
        }
    };
    if args.approve && approver.is_none() {
        err(&format!(
            "--approve requires --approver {} (your own identity) or WARDEN_APPROVER in the environment",
            crate::render::next_steps::APPROVER_PLACEHOLDER
        ));
        return 2;
    }
    let path = args
        .lock
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LOCK_NAME));
    // Refused now rather than after the capture; the write checks again.
    if let Err(e) = crate::safe_write::preflight(&path) {
        err(&format!("could not write lock: {e}"));
        return 2;
    }
    let surface = match super::capture::capture(&endpoint, &limits) {
        Ok(s) => s,
        Err(e) => {
            report_capture_error(&e);
            return 2;
        }
    };
    let approval = Approval {
        approve: args.approve,
        approver: if args.approve { approver } else { None },
    };
    let lock = match build(&surface, &approval) {
        Ok(l) => l,
        Err(e) => return report_pin_error(&e),
    };
    if args
        .url
        .as_deref()
        .is_some_and(|u| crate::text::url::split(u).userinfo(u).is_some())
    {
        output::line(
            Stream::Stderr,
            "warning: the lock records the URL verbatim (it is hashed into command_digest), including the credentials in it; prefer --header with a $VAR reference",
        );
    }
    if let Err(e) = write_lock_replace(&path, &lock) {
        err(&format!("could not write lock: {e}"));
        return 2;
    }
    if let Some(sarif) = &sarif {
        if let Err(e) = write_sarif(sarif, &lock.findings, &[], &path, &lock) {
            err(&e);
            return 2;
        }
    }
    let mut out = human_output(sarif.as_ref());
    if args.json {
        let records = lock.findings.iter().map(Record::of_lock_finding);
        let _ = crate::render::jsonl::render_records(records, &mut out);
    } else {
        let _ = writeln!(
            out,
            "pinned -> {}",
            safe_text_capped(&path.display().to_string(), 1000)
        );
        let _ = writeln!(out, "  overall_digest: {}", lock.overall_digest);
        let _ = writeln!(
            out,
            "  tools={} resources={} prompts={}",
            lock.tools.len(),
            lock.resources.len(),
            lock.prompts.len()
        );
        if lock.pin.approved {
            let _ = writeln!(
                out,
                "  approved by: {}",
                safe_text(lock.pin.approver.as_deref().unwrap_or(""))
            );
        }
        print_findings(&mut out, &lock.findings);
    }
    0
}

/// `mcp-warden check …` (the words after `check`).
pub fn check_main(words: &[String]) -> u8 {
    let args = match parse_or_exit(Which::Check, words) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let sarif = match sarif_destination(&args) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (endpoint, limits) = match endpoint(&args) {
        Ok(x) => x,
        Err(e) => {
            err(&e);
            return 2;
        }
    };
    let path = args
        .lock
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LOCK_NAME));
    let baseline: Lock = match read_lock(&path, read::policy(), &mut warn) {
        Ok(l) => l,
        Err(e) => {
            err(&e);
            return 2;
        }
    };
    let result = match run_check(&baseline, &endpoint, &limits) {
        Ok(r) => r,
        Err(e) => return report_pin_error(&e),
    };
    if let Some(sarif) = &sarif {
        if let Err(e) = write_sarif(sarif, &result.findings, &result.drift, &path, &baseline) {
            err(&e);
            return 2;
        }
    }
    let mut out = human_output(sarif.as_ref());
    let shown = safe_text_capped(&path.display().to_string(), 1000);
    if args.json {
        let records = (result.findings.iter().map(Record::of_lock_finding))
            .chain(result.drift.iter().map(Record::of_drift));
        let _ = crate::render::jsonl::render_records(records, &mut out);
    } else if result.drift.is_empty() {
        let _ = writeln!(out, "OK no drift vs {shown}");
    } else {
        let _ = writeln!(
            out,
            "DRIFT DETECTED vs {shown} ({} item(s))",
            result.drift.len()
        );
        for d in &result.drift {
            let _ = writeln!(
                out,
                "  {:<8} {:<28} {}  {}",
                d.severity().as_str(),
                d.class.as_str(),
                display(&d.target),
                display(&d.message)
            );
        }
    }
    u8::from(!result.drift.is_empty())
}

/// `mcp-warden lock rotate LOCK …`.
pub fn rotate_main(
    lock_path: &Path,
    approver: Option<&str>,
    actor: Option<&str>,
    note: Option<&str>,
    json: bool,
) -> u8 {
    let lock = match read_lock(lock_path, read::policy(), &mut warn) {
        Ok(l) => l,
        Err(e) => {
            err(&e);
            return 2;
        }
    };
    let now = time::now_rfc3339();
    let rotated = match rotate::rotate(&lock, approver, actor, note, &now) {
        Ok(r) => r,
        Err(e) => {
            err(&e.to_string());
            return 2;
        }
    };
    if let Err(e) = write_lock_replace(lock_path, &rotated) {
        err(&format!("could not write lock: {e}"));
        return 2;
    }
    let Some(last) = rotated.pin.attestations.last() else {
        return 2;
    };
    let unchanged = rotated.overall_digest == lock.overall_digest;
    let shown = lock_path.display().to_string();
    let mut out = output::writer(Stream::Stdout);
    if json {
        let doc = serde_json::json!({
            "lock": shown,
            "rotation_count": {"old": lock.pin.rotation_count, "new": rotated.pin.rotation_count},
            "attester": last.actor,
            "role": last.role,
            "rotated_at": now,
            "overall_digest": rotated.overall_digest,
            "overall_digest_unchanged": unchanged,
        });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
    } else {
        let _ = writeln!(out, "rotated -> {}", safe_text_capped(&shown, 1000));
        let _ = writeln!(
            out,
            "  rotation_count: {} -> {}",
            lock.pin.rotation_count, rotated.pin.rotation_count
        );
        let _ = writeln!(
            out,
            "  attester: {} (role={})",
            safe_text(&last.actor),
            last.role
        );
        let tag = if unchanged { "unchanged" } else { "CHANGED" };
        let _ = writeln!(out, "  overall_digest: {} ({tag})", rotated.overall_digest);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn env_names_must_be_shell_variable_names() {
        for bad in ["", "1X", "A B", "-x", "BASH_FUNC_x%%", "A=B", "A\0B", "Ä"] {
            let err = passed_env(&[bad.to_string()]).expect_err(bad);
            assert!(err.contains("not a variable name"), "{bad:?}: {err}");
        }
        assert!(passed_env(&["MCPW_SURELY_UNSET_VARIABLE_X".to_string()])
            .expect_err("unset")
            .contains("is not set"));
    }

    #[test]
    fn doctor_form() {
        let a = parse_args(
            Which::Pin,
            &w("npx -y pkg@1.0.0 --approve --approver me --lock x.lock"),
        )
        .expect("parses");
        assert_eq!(a.argv, w("npx -y pkg@1.0.0"));
        assert!(a.approve);
        assert_eq!(a.approver.as_deref(), Some("me"));
        assert_eq!(a.lock, Some(PathBuf::from("x.lock")));
    }

    #[test]
    fn separator_form() {
        let a = parse_args(
            Which::Pin,
            &w("--lock x.lock --json -- node srv.js --json --lock y"),
        )
        .expect("parses");
        assert_eq!(a.argv, w("node srv.js --json --lock y"));
        assert!(a.json);
        assert_eq!(a.lock, Some(PathBuf::from("x.lock")));
    }

    #[test]
    fn leading_options_then_argv() {
        let a = parse_args(Which::Pin, &w("--timeout 5 python3 s.py -v --json")).expect("parses");
        assert_eq!(a.argv, w("python3 s.py -v"));
        assert_eq!(a.timeout, Some(5.0));
        assert!(a.json);
    }

    #[test]
    fn url_and_errors() {
        let a = parse_args(
            Which::Pin,
            &w("--url http://127.0.0.1:1/mcp --header=X:1 --lock=l"),
        )
        .expect("parses");
        assert!(a.argv.is_empty());
        assert_eq!(a.url.as_deref(), Some("http://127.0.0.1:1/mcp"));
        assert_eq!(a.headers, ["X:1"]);
        assert!(parse_args(Which::Pin, &w("--bogus x")).is_err());
        assert!(parse_args(Which::Check, &w("--approve -- x")).is_err());
        assert!(parse_args(Which::Pin, &w("--timeout nan x")).is_err());
        // A lone command is never taken as an option value.
        let a = parse_args(Which::Pin, &w("--json")).expect("parses");
        assert!(a.json && a.argv.is_empty());
    }
}
