//! Static detection engines: pure functions over [`crate::model::ServerSpec`].
//!
//! They run in the parent over records the child returned. No I/O, no spawning.
//! Every function here is total: any string, however hostile, yields findings or
//! nothing, never a panic, in time roughly linear in its length.
//!
//! * [`auth`] — WRD-AUTH-* verdicts and the WRD-SEC-* scan of a whole server.
//! * [`secrets`] — vendor patterns, the entropy heuristic, token-likeness.
//! * [`supply`] — WRD-SUP-* launcher grammars and pin rules.
//! * [`mask`] — what the printed `pin` command must hide.
//! * [`redact`] — the one redactor for snippets.

pub mod auth;
mod keys;
pub mod mask;
mod pattern;
pub mod redact;
mod refs;
pub mod secrets;
mod shell;
pub mod supply;
#[cfg(test)]
pub(crate) mod tests;
mod text;
mod url;
