//! `--json`: one JSON object per finding, then one summary record; and the JSONL
//! of `pin --json` and `check --json`.
//!
//! Every record starts with the earlier implementation's fields, in its order and
//! spelling (see `push_record`): `kind, rule_id, severity, level, target,
//! message, snippet` for a finding (a drift record has `drift_class` after
//! `rule_id` and `detail` instead of `snippet`), written like Python's
//! `json.dumps(ensure_ascii=False)`: separators `", "` and `": "`, non-ASCII
//! written literally, one `\n` after each object. Config- and server-derived text
//! passes through [`display`] first.
//!
//! Doctor's finding lines follow report order (sources, servers, each server's
//! sorted findings, then the findings at settings) and add, after the seven
//! fields, where the finding is: `file` (the config file as shown), `server` (the
//! entry's name, `null` at a setting), `project` (the `~/.claude.json`
//! `projects[…]` key, else `null`), `field` (`env.GITHUB_TOKEN`, `args[3]`, or
//! `null`), `line` and `column` (where the value starts, or `null`), and
//! `suppressed` (`{"reason": …, "expires": …}`, or `null`). Every key is on every
//! line. The stream ends with exactly one `{"kind": "summary", …}` record (see
//! [`render_with_summary`]), so a consumer can tell a clean scan from a file that
//! was never read.
//!
//! `--inventory` adds, before the findings, one `{"kind": "server", …}` line per
//! audited server: what each client reading of each entry starts, for inventories
//! and for checking doctor's reading against a client's own (see
//! `docs/clients.md`). Its `launch_digest` is the lock format's `command_digest` of
//! the launch (after the client's expansion), so it names exactly what a lock must
//! pin without printing any word of it.
//!
//! On a large home the finding lines are made in chunks of servers on two threads
//! and written in order (`render::write_in_order`); the bytes are those
//! one thread writes.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::digest;
use crate::model::{AuditedServer, Coverage, Finding, Launch, Report, Source};
use crate::render::record::{Evidence, Grade, Record, RecordKind, RecordRule};
use crate::render::{chunks_by_weight, flush_if_full, write_in_order, Split, Targets, FLUSH_AT};
use crate::rules::Severity;
use crate::text::display;
use crate::text::redact::display_capped;
use crate::text::safe_text::safe_text_capped_cow;

/// Paths (a finding's `file`, a problem's `path` and `rescan`) are printed whole up
/// to this many code points (Linux's `PATH_MAX`), not cut at the 200 of other
/// fields: a consumer opens them.
const PATH_CAP: usize = 4096;

/// Append `s` as a JSON string literal (quotes and escapes as serde_json writes them).
///
/// Nearly every string escapes nothing and is copied whole between its quotes;
/// only one that holds something to escape goes through serde_json. Why:
/// serde_json's escaper looks up every byte in a table, one at a time, and was 3.4 %
/// of the samples of `doctor --json` on the large home, where every line is strings.
pub(crate) fn push_json_string(buf: &mut Vec<u8>, s: &str) -> io::Result<()> {
    if escapes_nothing(s.as_bytes()) {
        buf.reserve(s.len() + 2);
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
        return Ok(());
    }
    serde_json::to_writer(buf, s).map_err(io::Error::other)
}

/// Whether JSON (and serde_json) writes `bytes` inside a string as they are: no
/// control character (below 0x20), no `"`, no `\`. Checked 16 bytes at a time
/// without an early exit inside each group, which the compiler turns into a few
/// vector compares.
fn escapes_nothing(bytes: &[u8]) -> bool {
    let plain = |b: u8| b >= 0x20 && b != b'"' && b != b'\\';
    let mut groups = bytes.chunks_exact(16);
    for group in &mut groups {
        if !group.iter().fold(true, |all, &b| all & plain(b)) {
            return false;
        }
    }
    groups.remainder().iter().all(|&b| plain(b))
}

/// Append `s` as a JSON string, or `null`.
fn push_json_opt(buf: &mut Vec<u8>, s: Option<&str>) -> io::Result<()> {
    match s {
        Some(s) => push_json_string(buf, s),
        None => {
            buf.extend_from_slice(b"null");
            Ok(())
        }
    }
}

/// Append `, "key": ` (keys are ours: plain ASCII).
fn push_key(buf: &mut Vec<u8>, key: &str) {
    buf.extend_from_slice(b", \"");
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\": ");
}

/// Append a number, or `null`.
fn push_number(buf: &mut Vec<u8>, n: Option<u64>) {
    match n {
        Some(n) => buf.extend_from_slice(n.to_string().as_bytes()),
        None => buf.extend_from_slice(b"null"),
    }
}

/// Append the contract's fields of `record`, from the opening brace to its
/// evidence, without the closing brace: a caller may add fields after them.
pub(crate) fn push_record(buf: &mut Vec<u8>, record: &Record<'_>) -> io::Result<()> {
    buf.extend_from_slice(b"{\"kind\": ");
    push_json_string(buf, record.kind.as_str())?;
    push_key(buf, "rule_id");
    push_json_string(buf, &record.rule.id())?;
    if let RecordKind::Drift(class) = record.kind {
        push_key(buf, "drift_class");
        push_json_string(buf, class.as_str())?;
    }
    push_key(buf, "severity");
    push_json_string(buf, &record.severity.as_str())?;
    push_key(buf, "level");
    push_json_string(buf, record.severity.level())?;
    push_key(buf, "target");
    push_json_string(buf, &record.target)?;
    push_key(buf, "message");
    push_json_string(buf, &record.message)?;
    match &record.evidence {
        Evidence::Snippet(snippet) => {
            push_key(buf, "snippet");
            push_json_string(buf, snippet)?;
        }
        Evidence::Detail(detail) => {
            push_key(buf, "detail");
            push_json_opt(buf, detail.as_deref())?;
        }
    }
    Ok(())
}

/// Write each record as one line (`pin --json`, `check --json`).
pub fn render_records<'a>(
    records: impl IntoIterator<Item = Record<'a>>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(FLUSH_AT);
    for record in records {
        push_record(&mut buf, &record)?;
        buf.extend_from_slice(b"}\n");
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// Where a doctor finding is, shared by a server's findings: each field already
/// display-safe (`None` prints `null`).
struct Place {
    file: std::sync::Arc<str>,
    server: Option<String>,
    project: Option<std::sync::Arc<str>>,
}

/// The printed file and project of the last place, reused while they repeat: the
/// servers of a file (and of a project section) come one after another, and a
/// `~/.claude.json` holds thousands of them, all in one file.
#[derive(Default)]
struct PlaceShown<'r> {
    file: Option<(&'r str, std::sync::Arc<str>)>,
    project: Option<(&'r str, std::sync::Arc<str>)>,
}

/// `make(raw)`, or the previous result when `raw` is the text it was made from.
fn reuse<'r>(
    last: &mut Option<(&'r str, std::sync::Arc<str>)>,
    raw: &'r str,
    make: impl FnOnce(&str) -> std::sync::Arc<str>,
) -> std::sync::Arc<str> {
    match last {
        Some((seen, shown)) if *seen == raw => std::sync::Arc::clone(shown),
        _ => std::sync::Arc::clone(&last.insert((raw, make(raw))).1),
    }
}

/// The file part of a source's label and the `projects[…]` key it names, if any:
/// a `~/.claude.json` project section's label is `<file>#projects[<key>]`.
fn split_label<'s>(source: &'s Source, project: Option<&'s str>) -> (&'s str, Option<&'s str>) {
    let project = project.or_else(|| {
        // A setting finding has no server entry to say; the section's key is its
        // project directory.
        source
            .project_dir
            .as_deref()
            .and_then(|dir| dir.to_str())
            .filter(|key| source.label.ends_with(&format!("#projects[{key}]")))
    });
    match project {
        Some(key) => match source.label.strip_suffix(&format!("#projects[{key}]")) {
            Some(file) => (file, Some(key)),
            None => (&source.label, None),
        },
        None => (&source.label, None),
    }
}

fn place<'r>(
    report: &'r Report,
    source: usize,
    server: Option<&'r AuditedServer>,
    last: &mut PlaceShown<'r>,
) -> Place {
    let project = server.and_then(|s| s.spec.origin.key.project.as_deref());
    let (file, project) = match report.sources.get(source) {
        Some(src) => split_label(src, project),
        None => ("", project),
    };
    Place {
        file: reuse(&mut last.file, file, |f| display_capped(f, PATH_CAP).into()),
        // The name as written; a spec built without its origin has only the key.
        server: server.map(|s| {
            let key = &s.spec.origin.key.name;
            display(if key.is_empty() { &s.name } else { key }).into_owned()
        }),
        project: project.map(|p| reuse(&mut last.project, p, |p| display(p).into())),
    }
}

/// The record a doctor finding is, its text fields display-safe.
/// Borrowed where display changes nothing (the common case), so a finding's line
/// copies no text before it is written.
struct Shown<'f> {
    target: std::sync::Arc<str>,
    message: Cow<'f, str>,
    snippet: Cow<'f, str>,
}

fn shown<'f>(finding: &'f Finding, targets: &mut Targets) -> Shown<'f> {
    let message = match finding.message_with_fix() {
        Cow::Borrowed(text) => display(text),
        Cow::Owned(text) => Cow::Owned(display(&text).into_owned()),
    };
    Shown {
        target: targets.display(&finding.target),
        message,
        snippet: display(&finding.snippet),
    }
}

/// Append one JSONL line for a doctor finding at `place`, without the newline.
fn push_line(
    buf: &mut Vec<u8>,
    finding: &Finding,
    place: &Place,
    targets: &mut Targets,
) -> io::Result<()> {
    let text = shown(finding, targets);
    push_record(
        buf,
        &Record {
            kind: RecordKind::Finding,
            rule: RecordRule::Catalog(finding.rule),
            severity: Grade::Known(finding.severity()),
            target: Cow::Borrowed(&text.target),
            message: Cow::Borrowed(&text.message),
            evidence: Evidence::Snippet(Cow::Borrowed(&text.snippet)),
        },
    )?;
    push_key(buf, "file");
    push_json_string(buf, &place.file)?;
    push_key(buf, "server");
    push_json_opt(buf, place.server.as_deref())?;
    push_key(buf, "project");
    push_json_opt(buf, place.project.as_deref())?;
    push_key(buf, "field");
    let field = finding
        .field
        .as_ref()
        .map(|f| display(&f.to_string()).into_owned());
    push_json_opt(buf, field.as_deref())?;
    push_key(buf, "line");
    push_number(buf, finding.at.map(|p| u64::from(p.line)));
    push_key(buf, "column");
    push_number(buf, finding.at.map(|p| u64::from(p.column)));
    push_key(buf, "suppressed");
    match &finding.suppressed {
        Some(s) => {
            buf.extend_from_slice(b"{\"reason\": ");
            push_json_string(buf, &display(&s.reason))?;
            buf.extend_from_slice(b", \"expires\": ");
            push_json_string(buf, &display(&s.expires))?;
            buf.push(b'}');
        }
        None => buf.extend_from_slice(b"null"),
    }
    buf.push(b'}');
    Ok(())
}

/// Append a JSON array of strings, spelled like the rest of the line.
fn push_json_strings<'s>(
    buf: &mut Vec<u8>,
    items: impl Iterator<Item = &'s str>,
) -> io::Result<()> {
    buf.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            buf.extend_from_slice(b", ");
        }
        push_json_string(buf, item)?;
    }
    buf.push(b']');
    Ok(())
}

/// Append one `{"kind": "server", …}` line for `server`, without the newline.
fn push_server_line(
    buf: &mut Vec<u8>,
    report: &Report,
    server: &AuditedServer,
    targets: &mut Targets,
) -> io::Result<()> {
    let spec = &server.spec;
    let client = report.sources.get(server.source).map_or("", |s| &*s.client);
    buf.extend_from_slice(b"{\"kind\": \"server\", \"target\": ");
    push_json_string(buf, &targets.display(&server.target))?;
    buf.extend_from_slice(b", \"client\": ");
    push_json_string(buf, &display(client))?;
    buf.extend_from_slice(b", \"readers\": ");
    push_json_strings(buf, spec.origin.readers.iter().map(|r| r.name()))?;
    buf.extend_from_slice(b", \"name\": ");
    push_json_string(buf, &display(&spec.origin.key.name))?;
    buf.extend_from_slice(b", \"key\": ");
    push_json_string(buf, &display(&spec.origin.key.path()))?;
    buf.extend_from_slice(b", \"transport\": ");
    push_json_string(buf, spec.launch.kind())?;
    buf.extend_from_slice(b", \"launch_digest\": ");
    let digest = match &spec.launch {
        Launch::Stdio(s) => Some(digest::command_digest_stdio(&s.command, &s.args)),
        Launch::Remote(r) => Some(digest::command_digest_url(&r.url)),
        Launch::Nothing => None,
    };
    match digest {
        Some(d) => push_json_string(buf, &d)?,
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b", \"disabled\": ");
    buf.extend_from_slice(if spec.origin.disabled {
        b"true"
    } else {
        b"false"
    });
    let names = |pairs: &[(String, String)]| -> Vec<String> {
        pairs.iter().map(|(k, _)| display(k).into_owned()).collect()
    };
    for (key, list) in [
        ("env_names", names(spec.env())),
        ("header_names", names(spec.headers())),
    ] {
        buf.extend_from_slice(b", \"");
        buf.extend_from_slice(key.as_bytes());
        buf.extend_from_slice(b"\": ");
        push_json_strings(buf, list.iter().map(String::as_str))?;
    }
    buf.push(b'}');
    Ok(())
}

/// Write one `{"kind": "server", …}` line per audited server (`--inventory`).
pub fn render_inventory(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::with_capacity(2 * FLUSH_AT);
    let mut targets = Targets::new();
    for server in &report.servers {
        push_server_line(&mut buf, report, server, &mut targets)?;
        buf.push(b'\n');
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// Tallies for the summary record, taken while the findings are written.
#[derive(Default)]
struct Tally {
    /// Unsuppressed findings per severity (critical, high, medium, low).
    by_severity: [u64; 4],
    suppressed: u64,
}

impl Tally {
    /// Add the tallies of another part of the findings.
    fn merge(&mut self, other: &Tally) {
        for (mine, theirs) in self.by_severity.iter_mut().zip(other.by_severity) {
            *mine += theirs;
        }
        self.suppressed += other.suppressed;
    }

    fn add(&mut self, finding: &Finding) {
        if finding.suppressed.is_some() {
            self.suppressed += 1;
            return;
        }
        let i = match finding.severity() {
            Severity::Critical => 0,
            Severity::High => 1,
            Severity::Medium => 2,
            Severity::Low => 3,
        };
        self.by_severity[i] += 1;
    }
}

/// Write every finding of `report` as one line; returns the tallies.
fn render_findings(report: &Report, out: &mut dyn Write) -> io::Result<Tally> {
    render_findings_on(report, Split::for_items(report.servers.len()), out)
}

/// [`render_findings`], the servers split as `split` says.
fn render_findings_on(report: &Report, split: Split, out: &mut dyn Write) -> io::Result<Tally> {
    let mut buf = Vec::with_capacity(2 * FLUSH_AT);
    // A server prints about one line per finding.
    let chunks = chunks_by_weight(
        &report.servers,
        |s| 1 + s.findings.len(),
        split.chunk_weight,
    );
    let tallies = write_in_order(
        &chunks,
        |c| !c.heavy,
        split.threads,
        &mut buf,
        out,
        |buf, chunk, out| push_server_lines(buf, report, chunk.items, out),
    )?;
    let mut tally = Tally::default();
    for part in &tallies {
        tally.merge(part);
    }
    let mut last = PlaceShown::default();
    let mut targets = Targets::new();
    for setting in &report.setting_findings {
        let place = place(report, setting.source, None, &mut last);
        tally.add(&setting.finding);
        push_line(&mut buf, &setting.finding, &place, &mut targets)?;
        buf.push(b'\n');
        flush_if_full(&mut buf, out)?;
    }
    out.write_all(&buf)?;
    Ok(tally)
}

/// The finding lines of `servers`, into `buf`, handed to `out` in blocks when there
/// is one; their tallies.
fn push_server_lines<'r>(
    buf: &mut Vec<u8>,
    report: &'r Report,
    servers: &'r [AuditedServer],
    mut out: Option<&mut dyn Write>,
) -> io::Result<Tally> {
    let mut targets = Targets::new();
    let mut tally = Tally::default();
    let mut last = PlaceShown::default();
    for server in servers {
        if server.findings.is_empty() {
            continue;
        }
        let place = place(report, server.source, Some(server), &mut last);
        for finding in &server.findings {
            tally.add(finding);
            push_line(buf, finding, &place, &mut targets)?;
            buf.push(b'\n');
            if let Some(out) = out.as_deref_mut() {
                flush_if_full(buf, out)?;
            }
        }
    }
    Ok(tally)
}

/// Write every finding of `report` as one JSON object per line (`auth audit
/// --json`: no summary record).
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    render_findings(report, out).map(|_| ())
}

/// Write every finding of `report`, then the summary record (`doctor --json`).
/// `exit_code` is the code the process exits with (the caller computes it with
/// [`crate::parent::doctor::exit_code`]).
///
/// The summary's keys, in order: `kind` (`"summary"`), `servers` (audited
/// entries), `files_read`, `findings` (`{"critical", "high", "medium", "low"}`:
/// findings not suppressed), `suppressed`, `servers_without_approved_lock`,
/// `skipped` and `unreadable` (the counters that decide the exit code), `problems`
/// (every file not scanned: `{"kind": "skipped"|"unreadable", "path", "reason",
/// "rescan"}`, `rescan` the command that scans it anyway or `null`), `exit_code`.
pub fn render_with_summary(report: &Report, exit_code: u8, out: &mut dyn Write) -> io::Result<()> {
    let tally = render_findings(report, out)?;
    let mut buf = Vec::with_capacity(FLUSH_AT);
    buf.extend_from_slice(b"{\"kind\": \"summary\"");
    push_key(&mut buf, "servers");
    push_number(&mut buf, Some(report.servers.len() as u64));
    push_key(&mut buf, "files_read");
    push_number(&mut buf, Some(report.files_read as u64));
    push_key(&mut buf, "findings");
    buf.push(b'{');
    for (i, severity) in ["critical", "high", "medium", "low"].iter().enumerate() {
        if i > 0 {
            buf.extend_from_slice(b", ");
        }
        push_json_string(&mut buf, severity)?;
        buf.extend_from_slice(b": ");
        push_number(&mut buf, Some(tally.by_severity[i]));
    }
    buf.push(b'}');
    push_key(&mut buf, "suppressed");
    push_number(&mut buf, Some(tally.suppressed));
    push_key(&mut buf, "servers_without_approved_lock");
    let unapproved = report
        .servers
        .iter()
        .filter(|s| s.coverage != Coverage::Approved)
        .count();
    push_number(&mut buf, Some(unapproved as u64));
    push_key(&mut buf, "skipped");
    push_number(&mut buf, Some(report.skipped as u64));
    push_key(&mut buf, "unreadable");
    push_number(&mut buf, Some(report.hard_errors as u64));
    push_key(&mut buf, "problems");
    buf.push(b'[');
    for (i, problem) in report.problems.iter().enumerate() {
        if i > 0 {
            buf.extend_from_slice(b", ");
        }
        buf.extend_from_slice(b"{\"kind\": ");
        push_json_string(&mut buf, problem.kind.as_str())?;
        push_key(&mut buf, "path");
        push_json_string(&mut buf, &safe_text_capped_cow(&problem.path, PATH_CAP))?;
        push_key(&mut buf, "reason");
        push_json_string(&mut buf, &display_capped(&problem.reason, PATH_CAP))?;
        push_key(&mut buf, "rescan");
        // Already quoted for pasting: only neutralised here, never re-quoted.
        let rescan = problem
            .rescan
            .as_deref()
            .map(|r| safe_text_capped_cow(r, 2 * PATH_CAP));
        push_json_opt(&mut buf, rescan.as_deref())?;
        buf.push(b'}');
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    buf.push(b']');
    push_key(&mut buf, "exit_code");
    push_number(&mut buf, Some(u64::from(exit_code)));
    buf.extend_from_slice(b"}\n");
    out.write_all(&buf)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{AuditedServer, Coverage, ServerSpec, Source};
    use crate::rules::RuleId;

    /// Strings are written byte for byte as serde_json writes them: every
    /// character below 0x80 and some beyond, alone and at every place in and
    /// around a group of 16 bytes, in strings that escape nothing and in strings
    /// that do.
    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut specials: Vec<char> = (0u8..0x80).map(char::from).collect();
        specials.extend([
            '\u{80}',
            '\u{a0}',
            '\u{7ff}',
            '\u{2028}',
            '\u{feff}',
            '\u{1f600}',
        ]);
        let check = |s: &str| {
            let mut ours = Vec::new();
            push_json_string(&mut ours, s).unwrap_or_else(|e| panic!("{e}"));
            let theirs = serde_json::to_vec(s).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(ours, theirs, "{s:?}");
        };
        check("");
        for c in &specials {
            for len in [0, 1, 15, 16, 17, 31, 32, 40] {
                for at in 0..=len {
                    let mut s: String = "a".repeat(len);
                    s.insert(at, *c);
                    check(&s);
                }
            }
        }
        let plain = "é plain text, 16 bytes and more: ~!@#$%^&*()";
        assert!(escapes_nothing(plain.as_bytes()));
        for escaped in ["\"", "\\", "\n", "\u{0}", "\u{1f}"] {
            let s = format!("{plain}{escaped}{plain}");
            assert!(!escapes_nothing(s.as_bytes()), "{s:?}");
            check(&s);
        }
        assert!(
            escapes_nothing("\u{7f}".as_bytes()),
            "DEL is written as it is"
        );
    }

    fn finding(rule: RuleId, target: &str, message: &str, snippet: &str) -> Finding {
        Finding {
            rule,
            target: target.into(),
            message: message.to_string().into(),
            snippet: snippet.into(),
            fix: None,
            field: None,
            at: None,
            suppressed: None,
        }
    }

    const NO_LOCK_MSG: &str =
        "no warden.lock pins this server's declared surface; run the pin command below";

    fn server(
        source: usize,
        name: &str,
        label: &str,
        spec: ServerSpec,
        findings: Vec<Finding>,
    ) -> AuditedServer {
        AuditedServer {
            source,
            name: name.into(),
            target: format!("{label}#{name}").into(),
            spec,
            line: 1,
            column: 3,
            findings,
            coverage: Coverage::None,
            lock_name: None,
        }
    }

    /// The fake home of doctor-reference §2.0 (F1), as doctor reports it on darwin.
    pub(crate) fn worked_example() -> Report {
        let claude = "~/.claude.json#projects[/repo]";
        let cursor = "~/.cursor/mcp.json";
        let desktop = "~/Library/Application Support/Claude/claude_desktop_config.json";
        let t_ok = format!("{claude}#ok");
        let t_gh = format!("{cursor}#gh");
        let t_remote = format!("{desktop}#remote");
        let ok = server(
            0,
            "ok",
            claude,
            crate::engines::tests::spec_of(crate::protocol::ServerBody {
                url: Some("https://h.example.com".into()),
                headers: vec![("Authorization".into(), "Bearer ${T}".into())],
                ..crate::protocol::ServerBody::default()
            }),
            vec![finding(RuleId::DoctorNoLock, &t_ok, NO_LOCK_MSG, "ok")],
        );
        let gh = server(
            1,
            "gh",
            cursor,
            crate::engines::tests::spec_of(crate::protocol::ServerBody {
                command: Some("npx".into()),
                args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
                env: vec![("GITHUB_TOKEN".into(), "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2".into())],
                ..crate::protocol::ServerBody::default()
            }),
            vec![
                finding(
                    RuleId::AuthTokenInConfig,
                    &t_gh,
                    "auth key 'GITHUB_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead",
                    "ghp_…(len=40)",
                ),
                finding(RuleId::DoctorNoLock, &t_gh, NO_LOCK_MSG, "gh"),
                finding(RuleId::SecGithub, &t_gh, "WRD-SEC-GITHUB: possible secret in field", "ghp_…(len=40)"),
                finding(
                    RuleId::SupNpxUnpinned,
                    &t_gh,
                    "Unpinned npx package (resolves latest at run)",
                    "@modelcontextprotocol/server-github",
                ),
            ],
        );
        let remote = server(
            2,
            "remote",
            desktop,
            crate::engines::tests::spec_of(crate::protocol::ServerBody { url: Some("http://mcp.example.com/sse".into()), ..crate::protocol::ServerBody::default() }),
            vec![
                finding(
                    RuleId::AuthNoAuth,
                    &t_remote,
                    "remote MCP endpoint 'mcp.example.com' declares no authentication (no Authorization/token header or env)",
                    "mcp.example.com",
                ),
                finding(
                    RuleId::AuthPlaintextHttp,
                    &t_remote,
                    "remote MCP endpoint 'mcp.example.com' uses cleartext http://; use https://",
                    "http://mcp.example.com",
                ),
                finding(RuleId::DoctorNoLock, &t_remote, NO_LOCK_MSG, "remote"),
            ],
        );
        let src = |client: &str, label: &str, path: &str| Source {
            client_id: [
                crate::model::Client::ClaudeCode,
                crate::model::Client::Cursor,
                crate::model::Client::ClaudeDesktop,
            ]
            .into_iter()
            .find(|c| c.name() == client),
            client: client.into(),
            label: label.into(),
            path: std::path::Path::new(path).into(),
            scope: crate::model::Scope::User,
            layer: crate::model::Layer::User,
            project_dir: None,
            settings: Vec::new(),
        };
        Report {
            sources: vec![
                src("Claude Code", claude, "/home/u/.claude.json"),
                src("Cursor", cursor, "/home/u/.cursor/mcp.json"),
                src(
                    "Claude Desktop",
                    desktop,
                    "/home/u/Library/Application Support/Claude/claude_desktop_config.json",
                ),
            ],
            servers: vec![ok, gh, remote],
            sandbox: "landlock ABI 6, seccomp, no capabilities".into(),
            skipped: 0,
            hard_errors: 0,
            searched: 9,
            files_read: 3,
            relocations: Vec::new(),
            ..Report::default()
        }
    }

    fn render_string(r: &Report) -> String {
        let mut buf = Vec::new();
        render(r, &mut buf).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(buf).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn two_threads_write_the_lines_one_writes() {
        let base = worked_example();
        for n in [1, 2, 5, 400] {
            let mut r = base.clone();
            r.servers = (0..n)
                .flat_map(|i| {
                    base.servers.iter().map(move |s| {
                        let mut s = s.clone();
                        s.name = format!("{}{i}", s.name);
                        s.target = format!("{}{i}\u{1b}[2K", s.target).into();
                        s
                    })
                })
                .collect();
            if let Some(f) = r.servers.get_mut(1).and_then(|s| s.findings.get_mut(0)) {
                f.suppressed = Some(Box::new(crate::model::Suppression {
                    reason: "accepted".into(),
                    expires: "2099-01-01".into(),
                }));
            }
            r.setting_findings.push(crate::model::SettingFinding {
                source: 0,
                line: 1,
                column: 1,
                finding: base.servers[0].findings[0].clone(),
            });
            let run = |threads, chunk_weight| {
                let mut out = Vec::new();
                let split = Split {
                    threads,
                    chunk_weight,
                };
                let tally =
                    render_findings_on(&r, split, &mut out).unwrap_or_else(|e| panic!("{e}"));
                (out, tally.by_severity, tally.suppressed)
            };
            let one = run(1, 64);
            // Chunks of every size from one server (every server heavy at 1 and 2).
            for chunk_weight in [1, 2, 5, 64, 10_000] {
                assert_eq!(one, run(1, chunk_weight), "{n} {chunk_weight}");
                assert_eq!(one, run(2, chunk_weight), "{n} {chunk_weight}");
            }
            assert_eq!(one.0.iter().filter(|&&b| b == b'\n').count(), 8 * n + 1);
            assert_eq!(one.2, 1);
        }
    }

    /// Each line's first seven fields, as the earlier implementation wrote the line.
    fn contract_prefixes(text: &str) -> String {
        text.lines()
            .filter(|l| !l.starts_with("{\"kind\": \"summary\""))
            .map(|l| {
                let end = l.find(", \"file\": ").unwrap_or(l.len() - 1);
                format!("{}}}\n", &l[..end])
            })
            .collect()
    }

    #[test]
    fn worked_example_lines_exact() {
        let expected = r#"{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/.claude.json#projects[/repo]#ok", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "ok"}
{"kind": "finding", "rule_id": "WRD-AUTH-TOKEN-IN-CONFIG", "severity": "high", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "auth key 'GITHUB_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead", "snippet": "ghp_…(len=40)"}
{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/.cursor/mcp.json#gh", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "gh"}
{"kind": "finding", "rule_id": "WRD-SEC-GITHUB", "severity": "critical", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "WRD-SEC-GITHUB: possible secret in field", "snippet": "ghp_…(len=40)"}
{"kind": "finding", "rule_id": "WRD-SUP-NPX-UNPINNED", "severity": "high", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "Unpinned npx package (resolves latest at run)", "snippet": "@modelcontextprotocol/server-github"}
{"kind": "finding", "rule_id": "WRD-AUTH-NOAUTH", "severity": "medium", "level": "warning", "target": "~/Library/Application Support/Claude/claude_desktop_config.json#remote", "message": "remote MCP endpoint 'mcp.example.com' declares no authentication (no Authorization/token header or env)", "snippet": "mcp.example.com"}
{"kind": "finding", "rule_id": "WRD-AUTH-PLAINTEXT-HTTP", "severity": "high", "level": "error", "target": "~/Library/Application Support/Claude/claude_desktop_config.json#remote", "message": "remote MCP endpoint 'mcp.example.com' uses cleartext http://; use https://", "snippet": "http://mcp.example.com"}
{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/Library/Application Support/Claude/claude_desktop_config.json#remote", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "remote"}
"#;
        assert_eq!(
            contract_prefixes(&render_string(&worked_example())),
            expected
        );
        // Then where each finding is; the second line in full.
        let text = render_string(&worked_example());
        let second = text.lines().nth(1).unwrap_or_default();
        assert_eq!(
            second,
            r#"{"kind": "finding", "rule_id": "WRD-AUTH-TOKEN-IN-CONFIG", "severity": "high", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "auth key 'GITHUB_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead", "snippet": "ghp_…(len=40)", "file": "~/.cursor/mcp.json", "server": "gh", "project": null, "field": null, "line": null, "column": null, "suppressed": null}"#
        );
    }

    #[test]
    fn structured_fields_say_where_the_finding_is() {
        let mut r = worked_example();
        // A projects[…] section: file without the section, project its key.
        r.servers[0].spec.origin.key.project = Some("/repo".into());
        r.servers[0].spec.origin.key.name = "ok".into();
        let f = &mut r.servers[1].findings[0];
        f.field = Some(crate::model::FieldPath::Env("GITHUB TOKEN".into()));
        f.at = Some(crate::model::Position {
            line: 4,
            column: 27,
        });
        f.suppressed = Some(Box::new(crate::model::Suppression {
            reason: "rotated \u{1b}[2K".into(),
            expires: "2027-01-31".into(),
        }));
        let mut buf = Vec::new();
        render_with_summary(&r, 1, &mut buf).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8(buf).unwrap_or_default();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        assert_eq!(lines[0]["file"], "~/.claude.json");
        assert_eq!(lines[0]["project"], "/repo");
        assert_eq!(lines[0]["server"], "ok");
        let gh = &lines[1];
        assert_eq!(gh["file"], "~/.cursor/mcp.json");
        assert_eq!(gh["project"], serde_json::Value::Null);
        assert_eq!(gh["field"], "env[\"GITHUB TOKEN\"]");
        assert_eq!(
            (gh["line"].as_u64(), gh["column"].as_u64()),
            (Some(4), Some(27))
        );
        assert_eq!(
            gh["suppressed"],
            serde_json::json!({"reason": "rotated \u{FFFD}[2K", "expires": "2027-01-31"})
        );
        // The summary: last, once; the suppressed finding is counted apart.
        let summary = lines.last().cloned().unwrap_or_default();
        assert_eq!(summary["kind"], "summary");
        assert_eq!(text.matches("\"kind\": \"summary\"").count(), 1);
        assert_eq!(
            summary["findings"],
            serde_json::json!({"critical": 1, "high": 2, "medium": 1, "low": 3})
        );
        assert_eq!(summary["suppressed"], 1);
        assert_eq!(summary["servers"], 3);
        assert_eq!(summary["files_read"], 3);
        assert_eq!(summary["servers_without_approved_lock"], 3);
        assert_eq!(summary["exit_code"], 1);
        assert_eq!(summary["problems"], serde_json::json!([]));
    }

    /// A skipped file with its rescan line and an unreadable one with a hostile
    /// character in its path.
    pub(crate) fn sample_problems() -> Vec<crate::model::FileProblem> {
        vec![
            crate::model::FileProblem {
                kind: crate::model::ProblemKind::Skipped,
                path: "~/.claude.json".into(),
                reason: "larger than 64 MiB".into(),
                rescan: Some("mcp-warden doctor --config '/home/u/.claude.json'".into()),
            },
            crate::model::FileProblem {
                kind: crate::model::ProblemKind::Unreadable,
                path: ".mcp.json\u{202e}".into(),
                reason: "not JSON".into(),
                rescan: None,
            },
        ]
    }

    #[test]
    fn summary_lists_every_file_not_scanned() {
        let r = Report {
            skipped: 1,
            hard_errors: 1,
            problems: sample_problems(),
            ..Report::default()
        };
        let mut buf = Vec::new();
        render_with_summary(&r, 2, &mut buf).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8(buf).unwrap_or_default();
        let expected = concat!(
            r#"{"kind": "summary", "servers": 0, "files_read": 0, "findings": {"critical": 0, "high": 0, "medium": 0, "low": 0}, "suppressed": 0, "servers_without_approved_lock": 0, "skipped": 1, "unreadable": 1, "problems": ["#,
            r#"{"kind": "skipped", "path": "~/.claude.json", "reason": "larger than 64 MiB", "rescan": "mcp-warden doctor --config '/home/u/.claude.json'"}, "#,
            "{\"kind\": \"unreadable\", \"path\": \".mcp.json\u{FFFD}\", \"reason\": \"not JSON\", \"rescan\": null}], \"exit_code\": 2}\n"
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn no_findings_no_output() {
        assert_eq!(render_string(&Report::default()), "");
    }

    #[test]
    fn hostile_fields_are_neutralised_and_still_one_line_each() {
        let mut r = worked_example();
        let f = &mut r.servers[0].findings[0];
        f.target = "~/x.json#gh\n{\"kind\": \"finding\"}\u{202e}\"\\".into();
        f.message = "m\u{1b}[2K".into();
        f.snippet = "s".repeat(300);
        let text = contract_prefixes(&render_string(&r));
        assert_eq!(text.lines().count(), 8);
        let first = text.lines().next().unwrap_or_default();
        assert!(!first.contains('\u{1b}') && !first.contains('\u{202e}'));
        let v: serde_json::Value = serde_json::from_str(first).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            v["target"],
            "~/x.json#gh\u{FFFD}{\"kind\": \"finding\"}\u{FFFD}\"\\"
        );
        assert_eq!(v["message"], "m\u{FFFD}[2K");
        assert_eq!(v["snippet"].as_str().map(|s| s.chars().count()), Some(200));
        let keys: Vec<&String> = v
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            ["kind", "rule_id", "severity", "level", "target", "message", "snippet"]
        );
    }
}
