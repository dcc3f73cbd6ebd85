//! `--json`: one JSON object per finding.

// Placeholder signature; replaced by the implementation.
pub fn render(
    _report: &crate::model::Report,
    _out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    Ok(())
}
