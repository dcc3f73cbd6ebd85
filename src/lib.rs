//! mcp-warden: audit MCP client configs without trusting them.
//!
//! The crate is split along the trust boundary:
//!
//! * [`child`] runs inside the confined parser process (see the `mcp-warden-sandbox`
//!   crate). It is the only code that ever sees the bytes of a config or lock file.
//!   It parses them and answers with typed [`protocol`] records. It never renders,
//!   never spawns, and never opens a path.
//! * [`parent`] runs unconfined. It enumerates candidate files with metadata-only
//!   probes, opens each one without reading it, hands the descriptors to the child,
//!   re-validates what comes back, runs the [`engines`] over the records, and
//!   [`render`]s the report. It treats the child as possibly compromised.
//! * [`protocol`] holds the only types that cross the pipe. It imports neither side.
//! * [`output`] is the one way bytes reach stdout or stderr.
//!
//! The library forbids `unsafe`: every syscall that needs it lives in the sandbox crate.
#![forbid(unsafe_code)]

pub mod child;
pub mod cli;
pub mod digest;
pub mod engines;
pub mod file_kind;
#[doc(hidden)]
pub mod fuzz_props;
pub mod hash;
pub mod model;
pub mod output;
pub mod parent;
pub mod pin;
pub mod protocol;
pub mod reading;
pub mod render;
pub mod rules;
pub mod safe_write;
pub mod suppress;
#[cfg(test)]
mod test_gen;
pub mod text;
