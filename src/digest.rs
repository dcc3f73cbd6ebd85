//! RFC 8785 (JCS) canonicalization and the lock digests built on it.
//!
//! Shared by the lock reader's consistency check (doctor), `pin` and `check`, so a
//! digest is computed one way everywhere. Pure functions over values; no I/O.

// Placeholder signatures; replaced by the implementation.
pub fn command_digest_stdio(_command: &str, _args: &[String]) -> String {
    String::new()
}
pub fn command_digest_url(_url: &str) -> String {
    String::new()
}
pub fn overall_digest(
    _schema_version: u32,
    _command_digest: &str,
    _tools: &[String],
    _resources: &[String],
    _prompts: &[String],
) -> String {
    String::new()
}
