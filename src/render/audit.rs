//! `auth audit`'s human output: a title line, the findings grouped by server as
//! doctor prints them ([`crate::render::findings`]), and the summary.

use std::io::{self, Write};

use crate::model::Report;
use crate::render::findings::{self, Outcome, Scope, TextStyle};
use crate::render::style::{paint, BOLD, GREEN};

/// Print the audit of `files` config files; `outcome` is the exit code the run
/// ends with.
pub fn render(
    report: &Report,
    files: usize,
    style: TextStyle,
    outcome: Outcome,
    out: &mut dyn Write,
) -> io::Result<()> {
    let total = report.findings().count();
    if total == 0 && report.hard_errors == 0 && report.skipped == 0 {
        writeln!(
            out,
            "{} ({files} config file(s), no findings)",
            paint(style.color, GREEN, "auth audit clean")
        )?;
    } else {
        writeln!(
            out,
            "{} ({files} config file(s), {total} finding(s))",
            paint(style.color, BOLD, "MCP auth-posture findings")
        )?;
        if report.findings().any(findings::is_listed) {
            writeln!(out)?;
            findings::render_findings(report, style, &mut *out)?;
        }
    }
    let scope = Scope {
        files,
        locks: false,
    };
    findings::render_summary(report, scope, outcome, style, out)
}
