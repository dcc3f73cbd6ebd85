//! The Next steps block: one `# target` line and one `mcp-warden pin …` line per
//! uncovered server, lock file names, and the CI snippet.

// Placeholder signature; replaced by the implementation.
pub fn assign_lock_names(
    _report: &mut crate::model::Report,
    _exists_on_disk: &dyn Fn(&str) -> bool,
) {
}
