//! The confined side: reads and parses config and lock bytes, answers with records.
//!
//! Everything in here runs only inside the parser child, after the sandbox crate
//! confined it. It never renders, never spawns, and never opens a path: it reads
//! the descriptors it was handed.
