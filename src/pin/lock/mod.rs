//! `warden.lock` schema version 4: the document model, the builder, the writers,
//! and the parent's side of reading (opening the file and turning the child's
//! validated record into a [`Lock`]; the bytes are parsed only in the child).
//!
//! Field order in the structs is the key order written to disk (the earlier
//! implementation's model order), so a lock we write looks like one it wrote.
//! Hashing never uses the pretty bytes: see [`build`] and [`crate::digest`].

pub mod build;
pub mod format;
pub mod pyjson;
pub mod read;
pub mod record;
pub mod skeleton;
pub mod tokenizer;
pub mod write;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use format::{DEFAULT_LOCK_NAME, NOTE_MAX_CHARS, PROVENANCE_VERSION, SCHEMA_VERSION};

/// The whole lock document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lock {
    pub schema_version: u32,
    pub warden_version: String,
    pub server: ServerIdentity,
    pub tools: Vec<ToolEntry>,
    pub resources: Vec<ResourceEntry>,
    pub prompts: Vec<PromptEntry>,
    pub findings: Vec<LockFinding>,
    pub overall_digest: String,
    pub pin: PinMetadata,
}

/// How the server was reached, and the digest of exactly that.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerIdentity {
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub url: Option<String>,
    pub command_digest: String,
}

/// `Some(None)` for a key present with `null`, `None` for an absent key: v4
/// requires the keys, older levels may omit them.
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// One tool, hashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolEntry {
    pub name: String,
    pub description_hash: String,
    pub input_schema_hash: String,
    pub capabilities: Vec<String>,
    /// Hand-declared output inspection policy; `pin` never writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inspection: Option<Value>,
    #[serde(default)]
    pub schema_skeleton: Option<Value>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub annotations_hash: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub output_schema_hash: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub output_schema_skeleton: Option<Option<Value>>,
    pub entry_digest: String,
}

/// One resource, hashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceEntry {
    pub uri: String,
    pub name: Option<String>,
    pub description_hash: String,
    pub mime_type: Option<String>,
    pub entry_digest: String,
}

/// One prompt, hashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptEntry {
    pub name: String,
    pub description_hash: String,
    pub arguments_hash: String,
    pub entry_digest: String,
}

/// A static finding recorded at pin time (not hashed). Rule ids are strings here
/// because a lock may carry ids this version does not know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFinding {
    pub rule_id: String,
    pub severity: String,
    pub target: String,
    pub message: String,
    pub snippet: String,
}

fn default_provenance_version() -> i64 {
    PROVENANCE_VERSION
}

/// Pin metadata and provenance (outside `overall_digest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinMetadata {
    pub created_at: String,
    pub warden_version: String,
    pub mcp_protocol_version: String,
    #[serde(default)]
    pub approved: bool,
    #[serde(default)]
    pub approver: Option<String>,
    #[serde(default)]
    pub approved_at: Option<String>,
    #[serde(default)]
    pub approved_digest: Option<String>,
    #[serde(default = "default_provenance_version")]
    pub provenance_version: i64,
    #[serde(default)]
    pub pinner: Option<Pinner>,
    #[serde(default)]
    pub attestations: Vec<Attestation>,
    #[serde(default)]
    pub rotated_at: Option<String>,
    #[serde(default)]
    pub rotation_count: u64,
}

fn default_tool() -> String {
    "mcp-warden".into()
}
fn default_tool_version() -> String {
    "unknown".into()
}
fn default_role() -> String {
    "approver".into()
}
fn default_method() -> String {
    "manual".into()
}

/// Who produced the pin (self-asserted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pinner {
    #[serde(default = "default_tool")]
    pub tool: String,
    #[serde(default = "default_tool_version")]
    pub tool_version: String,
    #[serde(default)]
    pub actor: Option<String>,
    #[serde(default)]
    pub environment: Option<String>,
}

/// One entry of the append-only attestation log (self-asserted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attestation {
    pub actor: String,
    #[serde(default = "default_role")]
    pub role: String,
    #[serde(default = "default_method")]
    pub method: String,
    pub created_at: String,
    pub bound_digest: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub signature_bundle: Option<String>,
}

impl Lock {
    /// `overall_digest` recomputed from the stored `command_digest` and entry
    /// digests at the lock's own schema version. Entry digests themselves are not
    /// recomputed (that needs the server's surface; `check` does it).
    pub fn recomputed_overall_digest(&self) -> String {
        let tools: Vec<String> = self.tools.iter().map(|t| t.entry_digest.clone()).collect();
        let resources: Vec<String> = self
            .resources
            .iter()
            .map(|r| r.entry_digest.clone())
            .collect();
        let prompts: Vec<String> = self
            .prompts
            .iter()
            .map(|p| p.entry_digest.clone())
            .collect();
        crate::digest::overall_digest(
            self.schema_version,
            &self.server.command_digest,
            &tools,
            &resources,
            &prompts,
        )
    }

    /// The stored entries reproduce the stored `overall_digest`.
    pub fn is_self_consistent(&self) -> bool {
        self.recomputed_overall_digest() == self.overall_digest
    }
}
