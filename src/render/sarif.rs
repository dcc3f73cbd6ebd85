//! `--sarif PATH`: SARIF 2.1.0 for GitHub code scanning.

// Placeholder signature; replaced by the implementation.
pub fn render(
    _report: &crate::model::Report,
    _tool_version: &str,
    _base_dir: &std::path::Path,
) -> String {
    String::new()
}
