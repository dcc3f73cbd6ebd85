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
//! [`prime`] compiles the regular expressions every audit meets ahead of time, on a
//! thread of its own, so their compilation overlaps the parser child's run instead
//! of following it.
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

/// Compile the regular expressions that auditing and printing any server meets (the
/// vendor sets, the launcher patterns in their ASCII form). Each is a lazily
/// initialised static, so this changes no result: whoever needs a pattern first
/// compiles it, and a caller that arrives while [`prime`] is compiling it waits for
/// that one compilation instead of starting its own.
pub fn prime() {
    secrets::prime();
    supply::prime();
}

/// [`prime`] on a thread of its own, started while the parser child runs: the
/// thread is left to finish on its own (nothing waits for it; the statics it fills
/// are the same ones the audit fills otherwise). Not starting is harmless.
pub fn prime_in_background() {
    let _ = std::thread::Builder::new()
        .name("regex".into())
        .spawn(prime);
}
