//! Static detection engines: pure functions over [`crate::model::ServerSpec`].
//!
//! They run in the parent over records the child returned. No I/O, no spawning.

pub mod auth;
pub mod mask;
pub mod redact;
pub mod secrets;
pub mod supply;
