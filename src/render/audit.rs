//! `auth audit`'s human output: a summary line, then one line per finding.

use std::io::{self, Write};

use crate::model::Report;
use crate::render::Targets;
use crate::text::display;

/// Print the audit summary for `files` config files.
pub fn render(report: &Report, files: usize, out: &mut dyn Write) -> io::Result<()> {
    let findings: Vec<_> = report.findings().collect();
    if findings.is_empty() {
        return writeln!(
            out,
            "auth audit clean ({files} config file(s), no findings)"
        );
    }
    writeln!(
        out,
        "MCP auth-posture findings ({files} config file(s), {} finding(s))",
        findings.len()
    )?;
    let mut targets = Targets::new();
    for f in findings {
        writeln!(
            out,
            "  {:<8}  {}  {}  {} [{}]",
            f.severity().as_str(),
            f.rule.as_str(),
            targets.display(&f.target),
            display(&f.message),
            display(&f.snippet)
        )?;
    }
    Ok(())
}
