//! The lock format's constants and limits, in one place for every reader and writer:
//! the one lock reader (`child::lock`, run in the confined parser child for `doctor`,
//! `check` and `lock rotate` alike), the parent's re-validation of what it sends, the
//! lock opening of every command, and the builder and writers in `pin::lock`.

/// The lock format level this version writes, and the newest it reads.
pub const SCHEMA_VERSION: u32 = 4;
/// The oldest level it reads.
pub const MIN_SCHEMA_VERSION: u32 = 1;
/// Provenance block version (outside every digest); the default when a lock omits it.
pub const PROVENANCE_VERSION: i64 = 1;
/// Longest attestation note accepted, in code points.
pub const NOTE_MAX_CHARS: usize = 1000;
/// Default lock file name.
pub const DEFAULT_LOCK_NAME: &str = "warden.lock";
/// Nesting depth of a lock document (the lock spec's normative bound; root at 0).
pub const MAX_LOCK_DEPTH: usize = 512;
/// Largest lock file any command reads. A real lock is kilobytes (a hundred tools with
/// their skeletons is about 60 KiB); the cap is what bounds the parser child's memory
/// per lock (its tree is at most about 32 bytes per input byte, 256 MiB here, under the
/// child's 1 GiB address-space limit) and the parent's share of the answer.
pub const LOCK_SIZE_CAP: u64 = 8 << 20;
