//! The floor's protocol: the request to the child and its one answer.
//!
//! The child encodes records that borrow the file's buffer (`Cow::Borrowed`); the
//! parent decodes the same types owned, because the sandbox crate's decoder takes
//! `DeserializeOwned` messages (it charges every string and sequence slot to the
//! message's share while it decodes). No field carries `#[serde(borrow)]`: that
//! would make the owned decode impossible.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The largest `~/.claude.json` read, as doctor's cap for that file.
pub const SIZE_CAP: u64 = 64 << 20;

/// What the parent asks: read descriptor 0 up to `size_cap` bytes.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub size_cap: u64,
}

/// The child's one message.
#[derive(Debug, Serialize, Deserialize)]
pub enum Answer<'a> {
    /// The server maps in file order, the top-level map first.
    Servers(Vec<Section<'a>>),
    /// The file could not be read or parsed; the message names why.
    Failed(String),
}

/// One server map: the top level (`project: None`) or one `projects.<path>`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Section<'a> {
    pub project: Option<Cow<'a, str>>,
    pub servers: Vec<Server<'a>>,
}

/// What the report needs of one server entry (values of `env` and `headers` are
/// never sent: only their names).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Server<'a> {
    pub name: Cow<'a, str>,
    pub command: Option<Cow<'a, str>>,
    pub args: Vec<Cow<'a, str>>,
    pub env_keys: Vec<Cow<'a, str>>,
    pub url: Option<Cow<'a, str>>,
    pub header_names: Vec<Cow<'a, str>>,
}
