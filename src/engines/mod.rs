//! Static detection engines: pure functions over [`crate::model::ServerSpec`].
//!
//! They run in the parent over records the child returned. No I/O, no spawning.
//! Every function here is total: any string, however hostile, yields findings or
//! nothing, never a panic, in time roughly linear in its length.
//!
//! * [`approval`] — WRD-CLIENT-*: client settings that start servers or run tools
//!   without asking, and the settings/servers join the effective view shares.
//! * [`auth`] — WRD-AUTH-* verdicts and the WRD-SEC-* scan of a whole server.
//! * [`secrets`] — vendor patterns, the entropy heuristic, token-likeness.
//! * [`supply`] — WRD-SUP-* launcher grammars and pin rules.
//! * [`launch`] — WRD-DOCTOR-VARIABLE-LAUNCH and WRD-DOCTOR-HEADERS-HELPER: what a
//!   client starts that the launch does not show.
//!
//! What a printed line may show of a credential (masking, redaction) and the URL
//! splitter live in [`crate::text`], shared with every printer.

pub mod approval;
pub mod auth;
pub(crate) mod keys;
pub mod launch;
mod pattern;
pub(crate) mod refs;
pub mod secrets;
pub(crate) mod shell;
pub mod supply;
#[cfg(test)]
pub(crate) mod tests;
pub(crate) mod text;
