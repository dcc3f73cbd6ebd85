//! The Next steps block: one `# target` line and one `mcp-warden pin …` line per
//! uncovered server, lock file names, and the CI snippet.
