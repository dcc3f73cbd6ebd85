//! The findings part and the closing summary of the human reports (`doctor` and
//! `auth audit` print the same layout).
//!
//! Findings are grouped by server: one heading line per server (its target, its
//! client, `file:line` of its entry), then each finding under it — severity, rule
//! id, field and the line of the value, the message, the redacted evidence and the
//! one-line fix. Findings at a client setting are grouped by their file the same
//! way. Groups come worst first (then in report order), findings in a group by
//! severity.
//!
//! Not listed: suppressed findings (counted in the summary) and
//! WRD-DOCTOR-NO-LOCK, whose servers Next steps lists with the command that fixes
//! them (both stay findings in JSONL and SARIF).
//!
//! Every line of a group after its heading starts with the `│` gutter, so no
//! wrapped config text ever begins a line — except a fix *command*, which is
//! printed alone on its line, whole and uncoloured, so that it can be copied and
//! pasted as is (it is the only kind of line that may be wider than the width).

use std::io::{self, Write};

use crate::model::{AuditedServer, Coverage, Finding, Report, SettingFinding};
use crate::parent::doctor::fails_run;
use crate::render::style::{self, push_painted, BOLD, CYAN, GREEN, RED};
use crate::render::wrap::{display_width, Breaks, Lines};
use crate::render::{flush_if_full, Targets, FLUSH_AT};
use crate::rules::{RuleId, Severity};
use crate::text::display;

/// Longest rescan line printed whole: far above any line `rescan_line` builds.
const RESCAN_CAP: usize = 16_384;

/// How the human report is drawn. The caller decides (see [`crate::render::style`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextStyle {
    /// Emit ANSI colour and bold.
    pub color: bool,
    /// Columns available for every wrapped line.
    pub width: usize,
}

impl Default for TextStyle {
    fn default() -> Self {
        TextStyle {
            color: false,
            width: style::DEFAULT_WIDTH,
        }
    }
}

impl TextStyle {
    /// The style for a report written to `stream` under `--color choice`.
    pub fn for_stream(stream: style::Stream, choice: crate::cli::ColorChoice) -> TextStyle {
        TextStyle {
            color: stream.color(choice),
            width: stream.width(),
        }
    }

    /// The width layout uses: never below [`MIN_WIDTH`], where no layout is readable.
    fn layout_width(self) -> usize {
        self.width.max(MIN_WIDTH)
    }
}

/// Narrower widths are laid out as this wide.
pub const MIN_WIDTH: usize = 20;

/// The exit code the run ends with and what decided it, for the summary's last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// From [`crate::parent::doctor::exit_code`], computed before rendering.
    pub code: u8,
    /// `--fail-on`, to explain which findings count.
    pub fail_on: Option<Severity>,
}

/// Whether the findings part lists `finding`.
pub fn is_listed(finding: &Finding) -> bool {
    finding.suppressed.is_none() && finding.rule != RuleId::DoctorNoLock
}

/// The gutter that starts every line of a group after its heading.
const GUTTER: &str = "│ ";
/// Continuation of a wrapped heading.
const HEADING_REST: &str = "│   ";
/// Fix commands are indented this much, with nothing else on their line.
const COMMAND_INDENT: &str = "    ";
/// Cap on a rule's advice as printed (the longest is under 1,000 characters).
const ADVICE_CAP: usize = 4096;
/// `critical`, the widest severity word.
const SEVERITY_WIDTH: usize = 8;

/// One group of the findings part: a server's findings, or the findings at the
/// settings of one file.
enum Group<'r> {
    Server(&'r AuditedServer, Vec<&'r Finding>),
    Settings(usize, Vec<&'r SettingFinding>),
}

impl Group<'_> {
    fn worst(&self) -> Severity {
        match self {
            Group::Server(_, fs) => fs.iter().map(|f| f.severity()).min(),
            Group::Settings(_, fs) => fs.iter().map(|f| f.finding.severity()).min(),
        }
        .unwrap_or(Severity::Low)
    }
}

fn groups(report: &Report) -> Vec<Group<'_>> {
    let mut groups: Vec<Group> = Vec::new();
    for server in &report.servers {
        let mut listed: Vec<&Finding> = server.findings.iter().filter(|f| is_listed(f)).collect();
        if !listed.is_empty() {
            listed.sort_by_key(|f| f.severity());
            groups.push(Group::Server(server, listed));
        }
    }
    let mut by_source: Vec<(usize, Vec<&SettingFinding>)> = Vec::new();
    for sf in report
        .setting_findings
        .iter()
        .filter(|sf| is_listed(&sf.finding))
    {
        match by_source
            .iter_mut()
            .find(|(source, _)| *source == sf.source)
        {
            Some((_, list)) => list.push(sf),
            None => by_source.push((sf.source, vec![sf])),
        }
    }
    for (source, mut list) in by_source {
        list.sort_by_key(|sf| sf.finding.severity());
        groups.push(Group::Settings(source, list));
    }
    groups.sort_by_key(Group::worst);
    groups
}

/// The file of a server's entry as shown: its source's label, without the
/// `#projects[<key>]` of a `~/.claude.json` project section.
fn shown_file<'r>(report: &'r Report, server: &AuditedServer) -> &'r str {
    let Some(source) = report.sources.get(server.source) else {
        return "";
    };
    let label = source.label.as_str();
    server
        .spec
        .origin
        .key
        .project
        .as_deref()
        .and_then(|key| {
            label
                .strip_suffix(']')
                .and_then(|l| l.strip_suffix(key))
                .and_then(|l| l.strip_suffix("#projects["))
        })
        .unwrap_or(label)
}

/// Write the findings part (a title, then each group); nothing when no finding is
/// listed. Returns the number of findings listed.
pub fn render_findings(
    report: &Report,
    style: TextStyle,
    out: &mut dyn Write,
) -> io::Result<usize> {
    let groups = groups(report);
    if groups.is_empty() {
        return Ok(0);
    }
    let width = style.layout_width();
    let color = style.color;
    let (mut listed, mut servers, mut files) = (0usize, 0usize, 0usize);
    for group in &groups {
        match group {
            Group::Server(_, fs) => {
                servers += 1;
                listed += fs.len();
            }
            Group::Settings(_, fs) => {
                files += 1;
                listed += fs.len();
            }
        }
    }
    let mut buf = String::with_capacity(2 * FLUSH_AT);
    let mut title = format!("Posture findings — {listed} at {servers} server(s)");
    if files > 0 {
        title.push_str(&format!(" and the settings of {files} file(s)"));
    }
    let mut lines = Lines::new(&mut buf, width, "", "  ", color);
    lines.push("", &title, Breaks::Words, BOLD);
    lines.finish();

    let mut targets = Targets::new();
    for group in &groups {
        buf.push('\n');
        match group {
            Group::Server(server, findings) => {
                let client = report.sources.get(server.source).map_or("", |s| &*s.client);
                let place = format!("{}:{}", shown_file(report, server), server.line);
                let mut lines = Lines::new(&mut buf, width, "", HEADING_REST, color);
                lines
                    .push("", &targets.display(&server.target), Breaks::Path, BOLD)
                    .push("  ", &display(client), Breaks::Words, CYAN)
                    .push("  ", &display(&place), Breaks::Path, "");
                lines.finish();
                let name = display(&server.name);
                for f in findings {
                    // The line of the value a finding names; a finding about the whole
                    // entry is at the heading's line already.
                    let line = f.field.as_ref().and(f.at).map(|at| at.line);
                    push_finding(&mut buf, style, f, line, &name);
                }
            }
            Group::Settings(source, findings) => {
                let (label, client) = report
                    .sources
                    .get(*source)
                    .map_or(("", ""), |s| (s.label.as_str(), &*s.client));
                let mut lines = Lines::new(&mut buf, width, "", HEADING_REST, color);
                lines
                    .push("", &display(label), Breaks::Path, BOLD)
                    .push("  ", &display(client), Breaks::Words, CYAN)
                    .push("  ", "settings", Breaks::None, "");
                lines.finish();
                for sf in findings {
                    let line = sf.finding.at.map_or(sf.line, |at| at.line);
                    push_finding(&mut buf, style, &sf.finding, Some(line), "");
                }
            }
        }
        flush_if_full(&mut buf, out)?;
    }
    out.write_all(buf.as_bytes())?;
    Ok(listed)
}

/// One finding under its heading. `name` is the server's name as shown: the
/// doctor rules' evidence is the name itself, which the heading already shows.
fn push_finding(buf: &mut String, style: TextStyle, f: &Finding, line: Option<u32>, name: &str) {
    let width = style.layout_width();
    let color = style.color;
    // Text under the rule id; a narrow screen indents it less.
    let rest: &str = if width >= 48 {
        "│           "
    } else {
        "│     "
    };
    let severity = f.severity();
    let mut first = String::from(GUTTER);
    push_painted(
        &mut first,
        color,
        style::severity_sgr(severity),
        severity.as_str(),
    );
    first.extend(std::iter::repeat_n(
        ' ',
        SEVERITY_WIDTH.saturating_sub(severity.as_str().len()) + 2,
    ));
    // Too narrow for the severity and the rule id side by side: the rule id goes
    // under it, as the rest of the finding does.
    let side_by_side = display_width(&first) + f.rule.as_str().len() <= width;
    if !side_by_side {
        first.truncate(first.trim_end_matches(' ').len());
    }
    let mut lines = Lines::new(buf, width, &first, rest, color);
    if !side_by_side {
        lines.break_line();
    }
    lines.push("", f.rule.as_str(), Breaks::None, BOLD);
    if let Some(field) = &f.field {
        lines.push("  ", &display(&field.to_string()), Breaks::Words, "");
    }
    if let Some(line) = line {
        lines.push(" ", &format!("(line {line})"), Breaks::Words, "");
    }
    lines.finish();

    let message = display(&f.message);
    // Engine messages that start with their own rule id repeat the line above.
    let message = message
        .strip_prefix(f.rule.as_str())
        .and_then(|m| m.strip_prefix(": "))
        .unwrap_or(&message);
    let mut lines = Lines::new(buf, width, rest, rest, color);
    lines.push("", message, Breaks::Words, "");
    lines.finish();

    let evidence = display(&f.snippet);
    if !evidence.is_empty() && evidence != name {
        let mut lines = Lines::new(buf, width, rest, rest, color);
        // One piece with its label: the label never stands alone on a line with its
        // text below it.
        lines.push("", &format!("evidence: {evidence}"), Breaks::Words, "");
        lines.finish();
    }

    let mut lines = Lines::new(buf, width, rest, rest, color);
    match &f.fix {
        // A command is pasted: it is never wrapped, coloured or prefixed.
        Some(command) => {
            lines.push("", "fix: run", Breaks::Words, "");
            lines.finish();
            buf.push_str(COMMAND_INDENT);
            buf.push_str(&display(command));
            buf.push('\n');
        }
        // The rule's advice: the project's own text, longer than a config value's cap.
        None => {
            let advice = crate::text::redact::display_capped(f.fix_line(), ADVICE_CAP);
            lines.push("", &format!("fix: {advice}"), Breaks::Words, "");
            lines.finish();
        }
    }
}

/// What the summary counts besides findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// Config files read.
    pub files: usize,
    /// Lock coverage was checked (doctor; not `auth audit`).
    pub locks: bool,
}

/// The files that were not scanned (each with its reason, and the command that
/// scans it anyway), the summary line and the exit code's meaning.
pub fn render_summary(
    report: &Report,
    scope: Scope,
    outcome: Outcome,
    style: TextStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let width = style.layout_width();
    let color = style.color;
    let mut buf = String::new();
    if !report.problems.is_empty() {
        buf.push('\n');
        let mut lines = Lines::new(&mut buf, width, "", "  ", color);
        lines.push(
            "",
            &format!("Not scanned — {} file(s):", report.problems.len()),
            Breaks::Words,
            BOLD,
        );
        lines.finish();
        for problem in &report.problems {
            let kind = problem.kind.as_str();
            let mut first = String::from(GUTTER);
            push_painted(&mut first, color, RED, kind);
            first.push_str("  ");
            let mut lines = Lines::new(&mut buf, width, &first, HEADING_REST, color);
            lines
                .push(
                    "",
                    &format!("{}:", display(&problem.path)),
                    Breaks::Path,
                    "",
                )
                .push(" ", &display(&problem.reason), Breaks::Words, "");
            lines.finish();
            if let Some(command) = &problem.rescan {
                buf.push_str(COMMAND_INDENT);
                // Built to paste exactly (nothing to neutralise or mask): never cut,
                // a truncated path scans another file or none.
                buf.push_str(&crate::text::safe_text_capped(command, RESCAN_CAP));
                buf.push('\n');
            }
            flush_if_full(&mut buf, out)?;
        }
    }
    buf.push('\n');
    let mut lines = Lines::new(&mut buf, width, "", "  ", color);
    lines.push("", "Summary:", Breaks::None, BOLD);
    let parts = summary_parts(report, scope);
    for (i, (gap, text, sgr)) in parts.iter().enumerate() {
        // The next separator's punctuation ends this piece, so that it stays at
        // the end of its line and counts toward the width.
        let punctuation = parts
            .get(i + 1)
            .map_or("", |(next, _, _)| &next[..next.len() - 1]);
        let text = format!("{text}{punctuation}");
        // A count stays with its word (`3 high`); longer pieces break at spaces.
        let breaks = if text.split(' ').count() == 2 {
            Breaks::None
        } else {
            Breaks::Words
        };
        lines.push(&gap[gap.len() - 1..], &text, breaks, sgr);
    }
    lines.finish();
    let (exit, why) = exit_meaning(report, outcome);
    let mut lines = Lines::new(&mut buf, width, "", "  ", color);
    let sgr = if outcome.code == 0 { GREEN } else { RED };
    lines
        .push("", &exit, Breaks::None, sgr)
        .push(" ", &why, Breaks::Words, "");
    lines.finish();
    out.write_all(buf.as_bytes())
}

/// The summary's pieces: what separates each from the one before, its text and
/// its colour.
fn summary_parts(report: &Report, scope: Scope) -> Vec<(&'static str, String, &'static str)> {
    let mut parts = vec![(
        " ",
        format!(
            "{} server(s) in {} config file(s)",
            report.servers.len(),
            scope.files
        ),
        "",
    )];
    let mut counts = [0usize; 4];
    let mut suppressed = 0usize;
    for f in report.findings() {
        if f.suppressed.is_some() {
            suppressed += 1;
        } else {
            counts[f.severity() as usize] += 1;
        }
    }
    let total: usize = counts.iter().sum();
    parts.push(("; ", format!("{total} finding(s)"), ""));
    let mut gap = ": ";
    for (severity, n) in [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
    ]
    .into_iter()
    .zip(counts)
    .filter(|(_, n)| *n > 0)
    {
        parts.push((
            gap,
            format!("{n} {}", severity.as_str()),
            style::severity_sgr(severity),
        ));
        gap = ", ";
    }
    parts.push(("; ", format!("{suppressed} suppressed"), ""));
    if scope.locks {
        let none = report.uncovered().count();
        let unapproved = report
            .servers
            .iter()
            .filter(|s| matches!(s.coverage, Coverage::Unapproved { .. }))
            .count();
        let mut locks = format!("{} without an approved lock", none + unapproved);
        let mut which = Vec::new();
        if none > 0 {
            which.push(format!("{none} with none, under Next steps"));
        }
        if unapproved > 0 {
            which.push(format!("{unapproved} with an unapproved one"));
        }
        if !which.is_empty() {
            locks.push_str(&format!(" ({})", which.join("; ")));
        }
        parts.push(("; ", locks, ""));
    }
    parts.push((
        "; ",
        if report.skipped == 0 && report.hard_errors == 0 {
            "every file was scanned".to_string()
        } else {
            format!(
                "{} file(s) skipped, {} unreadable",
                report.skipped, report.hard_errors
            )
        },
        if report.skipped == 0 && report.hard_errors == 0 {
            ""
        } else {
            RED
        },
    ));
    parts
}

/// `("exit 1:", "3 finding(s) at or above medium")`.
fn exit_meaning(report: &Report, outcome: Outcome) -> (String, String) {
    let code = outcome.code;
    let failing = report
        .findings()
        .filter(|f| fails_run(f, outcome.fail_on))
        .count();
    let threshold = |n: usize| match outcome.fail_on {
        None => {
            format!("{n} finding(s); any finding fails the run (--fail-on sets a threshold)")
        }
        Some(s) => format!("{n} finding(s) at or above {}", s.as_str()),
    };
    let why = match code {
        2 if report.hard_errors > 0 => format!(
            "{} file(s) or entries could not be read (an unreadable file always exits 2)",
            report.hard_errors
        ),
        2 => "the run failed (see the error above)".to_string(),
        1 => {
            let mut reasons = Vec::new();
            if failing > 0 {
                reasons.push(threshold(failing));
            }
            if report.skipped > 0 {
                reasons.push(format!(
                    "{} file(s) skipped unread (a skip always exits 1)",
                    report.skipped
                ));
            }
            reasons.join("; ")
        }
        0 => {
            let total = report.findings().filter(|f| f.suppressed.is_none()).count();
            let suppressed = report.findings().count() - total;
            let mut why = match outcome.fail_on {
                Some(s) if total > 0 => {
                    format!("no finding at or above {} ({total} below it)", s.as_str())
                }
                _ => "no finding fails the run".to_string(),
            };
            if suppressed > 0 {
                why.push_str(&format!("; {suppressed} suppressed"));
            }
            why
        }
        _ => String::new(),
    };
    (format!("exit {code}:"), why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FieldPath, Position, Suppression};
    use crate::render::jsonl::tests::worked_example;

    fn outcome(report: &Report, fail_on: Option<Severity>) -> Outcome {
        Outcome {
            code: crate::parent::doctor::exit_code(report, fail_on, false),
            fail_on,
        }
    }

    fn summary(report: &Report, fail_on: Option<Severity>) -> String {
        let mut out = Vec::new();
        let scope = Scope {
            files: 3,
            locks: true,
        };
        render_summary(
            report,
            scope,
            outcome(report, fail_on),
            TextStyle {
                color: false,
                width: 400,
            },
            &mut out,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn summary_counts_and_exit_meaning() {
        let r = worked_example();
        assert_eq!(
            summary(&r, None),
            "\nSummary: 3 server(s) in 3 config file(s); 8 finding(s): 1 critical, 3 high, 1 medium, 3 low; \
             0 suppressed; 3 without an approved lock (3 with none, under Next steps); \
             every file was scanned\n\
             exit 1: 8 finding(s); any finding fails the run (--fail-on sets a threshold)\n"
        );
        assert!(
            summary(&r, Some(Severity::High)).ends_with("exit 1: 4 finding(s) at or above high\n")
        );
        // Only low findings are left when the others are suppressed.
        let mut quiet = worked_example();
        for s in &mut quiet.servers {
            for f in &mut s.findings {
                if f.severity() != Severity::Low {
                    f.suppressed = Some(Box::new(Suppression {
                        reason: "r".into(),
                        expires: "2999-01-01".into(),
                    }));
                }
            }
        }
        let text = summary(&quiet, Some(Severity::Medium));
        assert!(
            text.contains("; 3 finding(s): 3 low; 5 suppressed;"),
            "{text}"
        );
        assert!(
            text.ends_with("exit 0: no finding at or above medium (3 below it); 5 suppressed\n"),
            "{text}"
        );
        let skipped = Report {
            skipped: 1,
            hard_errors: 0,
            ..quiet.clone()
        };
        let text = summary(&skipped, Some(Severity::Medium));
        assert!(text.contains("1 file(s) skipped, 0 unreadable"), "{text}");
        assert!(
            text.ends_with("exit 1: 1 file(s) skipped unread (a skip always exits 1)\n"),
            "{text}"
        );
        let unreadable = Report {
            hard_errors: 2,
            ..quiet
        };
        assert!(summary(&unreadable, None).ends_with(
            "exit 2: 2 file(s) or entries could not be read (an unreadable file always exits 2)\n"
        ));
    }

    #[test]
    fn listing_skips_no_lock_and_suppressed() {
        let mut r = worked_example();
        r.servers[1].findings[0].suppressed = Some(Box::new(Suppression {
            reason: "r".into(),
            expires: "2999-01-01".into(),
        }));
        r.servers[1].findings[0].field = Some(FieldPath::Env("GITHUB_TOKEN".into()));
        r.servers[1].findings[3].field = Some(FieldPath::Arg(1));
        r.servers[1].findings[3].at = Some(Position { line: 7, column: 3 });
        let mut out = Vec::new();
        let listed =
            render_findings(&r, TextStyle::default(), &mut out).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(listed, 4, "{text}");
        assert!(!text.contains("WRD-DOCTOR-NO-LOCK"), "{text}");
        assert!(text.contains("args[1] (line 7)"), "{text}");
        assert!(!text.contains("env.GITHUB_TOKEN"), "{text}");
    }
}
