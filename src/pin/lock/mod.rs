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

use crate::rules::{RuleId, Severity};

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

/// A static finding recorded at pin time (not hashed). `pin` and `check` build them
/// with catalog rules and severities; a lock read from disk may carry a rule id or a
/// severity this version does not know (written by a newer version, or by hand),
/// which is kept verbatim as [`Recorded::Unknown`] so `lock rotate` writes it back
/// unchanged. The lock format makes both free strings, so neither is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFinding {
    pub rule_id: Recorded<RuleId>,
    pub severity: Recorded<Severity>,
    pub target: String,
    pub message: String,
    pub snippet: String,
}

impl LockFinding {
    /// A finding of a catalog rule at the rule's severity.
    pub fn new(rule: RuleId, target: String, message: String, snippet: String) -> LockFinding {
        LockFinding {
            rule_id: Recorded::Known(rule),
            severity: Recorded::Known(rule.severity()),
            target,
            message,
            snippet,
        }
    }
}

/// A value of a closed set as a lock records it: one this version knows, or the
/// string as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Recorded<T, S = String> {
    Known(T),
    Unknown(S),
}

/// A closed set whose members have one public spelling.
pub trait Spelled: Sized + Copy {
    fn spelling(self) -> &'static str;
    fn from_spelling(s: &str) -> Option<Self>;
}

impl Spelled for RuleId {
    fn spelling(self) -> &'static str {
        self.as_str()
    }
    fn from_spelling(s: &str) -> Option<Self> {
        RuleId::from_code(s)
    }
}

impl Spelled for Severity {
    fn spelling(self) -> &'static str {
        self.as_str()
    }
    fn from_spelling(s: &str) -> Option<Self> {
        [
            Severity::Critical,
            Severity::High,
            Severity::Medium,
            Severity::Low,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }
}

impl<T: Spelled> Recorded<T> {
    /// `Known` when the string is a member's exact spelling, else `Unknown`.
    pub fn parse(s: String) -> Recorded<T> {
        match T::from_spelling(&s) {
            Some(v) => Recorded::Known(v),
            None => Recorded::Unknown(s),
        }
    }

    /// The string as it is written in the lock.
    pub fn as_str(&self) -> &str {
        match self {
            Recorded::Known(v) => v.spelling(),
            Recorded::Unknown(s) => s,
        }
    }
}

impl<T: Spelled> Serialize for Recorded<T> {
    fn serialize<Z: serde::Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de, T: Spelled> Deserialize<'de> for Recorded<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Recorded::parse)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_findings_keep_unknown_rules_and_severities_verbatim() {
        let text = r#"[{"rule_id": "WRD-CAP-SHELL", "severity": "critical", "target": "tools/a", "message": "m", "snippet": "s"},
                      {"rule_id": "WRD-FROM-THE-FUTURE", "severity": "High", "target": "tools/b", "message": "m", "snippet": "s"}]"#;
        let findings: Vec<LockFinding> =
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(findings[0].rule_id, Recorded::Known(RuleId::CapShell));
        assert_eq!(findings[0].severity, Recorded::Known(Severity::Critical));
        // Not the catalog's spelling: kept as written, never mapped to a known one.
        assert_eq!(
            findings[1].rule_id,
            Recorded::Unknown("WRD-FROM-THE-FUTURE".into())
        );
        assert_eq!(findings[1].severity, Recorded::Unknown("High".into()));
        let back = serde_json::to_value(&findings).unwrap_or_default();
        let original: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(back, original);
    }
}
