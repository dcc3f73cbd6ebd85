//! RFC 8785 (JCS) canonicalization and the lock digests built on it.
//!
//! Shared by the lock reader's consistency check (doctor), `pin` and `check`, so a
//! digest is computed one way everywhere. Pure functions over values; no I/O.
