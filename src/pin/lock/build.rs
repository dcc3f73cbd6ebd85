//! Build a v4 lock from a captured surface: field hashes, capabilities,
//! skeletons, entry digests, sorted entries, `overall_digest`, pin metadata.

use serde_json::{json, Map, Value};

use super::skeleton::extract_skeleton;
use super::tokenizer::derive_capabilities;
use super::{
    Attestation, Lock, LockFinding, PinMetadata, Pinner, PromptEntry, ResourceEntry,
    ServerIdentity, ToolEntry, PROVENANCE_VERSION, SCHEMA_VERSION,
};
use crate::digest;
use crate::pin::capture::{CapturedPrompt, CapturedResource, CapturedTool, Surface};

/// This tool's version, written as `warden_version` (never hashed).
pub const WARDEN_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A value that has no canonical form (an integer beyond ±2^53−1 in a schema,
/// for instance): the surface cannot be pinned reproducibly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

fn hash(value: &Value, what: &dyn Fn() -> String) -> Result<String, BuildError> {
    digest::hash_value(value).map_err(|e| BuildError(format!("{}: {e}", what())))
}

fn description_hash(d: Option<&str>) -> String {
    // A string always canonicalizes.
    digest::hash_value(&Value::String(d.unwrap_or("").to_string())).unwrap_or_default()
}

/// The hashed entry of one tool.
pub fn tool_entry(tool: &CapturedTool) -> Result<ToolEntry, BuildError> {
    let ctx = || format!("tool '{}'", tool.name);
    let schema_obj = tool.input_schema.as_ref().filter(|s| s.is_object());
    let input_schema_hash = hash(schema_obj.unwrap_or(&json!({})), &ctx)?;
    // The skeleton comes from the raw schema: a non-object one gives no props.
    let schema_skeleton = extract_skeleton(tool.input_schema.as_ref());
    let capabilities = derive_capabilities(&tool.name, schema_obj);
    let annotations_hash = hash(tool.annotations.as_ref().unwrap_or(&Value::Null), &ctx)?;
    let output_schema_hash = hash(tool.output_schema.as_ref().unwrap_or(&Value::Null), &ctx)?;
    let output_schema_skeleton = tool
        .output_schema
        .as_ref()
        .map(|s| extract_skeleton(Some(s)));
    let description_hash = description_hash(tool.description.as_deref());

    let mut body = Map::new();
    body.insert("name".into(), Value::String(tool.name.clone()));
    body.insert(
        "description_hash".into(),
        Value::String(description_hash.clone()),
    );
    body.insert(
        "input_schema_hash".into(),
        Value::String(input_schema_hash.clone()),
    );
    body.insert("capabilities".into(), json!(capabilities));
    body.insert(
        "annotations_hash".into(),
        Value::String(annotations_hash.clone()),
    );
    body.insert(
        "output_schema_hash".into(),
        Value::String(output_schema_hash.clone()),
    );
    body.insert(
        "output_schema_skeleton".into(),
        output_schema_skeleton.clone().unwrap_or(Value::Null),
    );
    body.insert("schema_skeleton".into(), schema_skeleton.clone());
    let entry_digest = hash(&Value::Object(body), &ctx)?;

    Ok(ToolEntry {
        name: tool.name.clone(),
        description_hash,
        input_schema_hash,
        capabilities,
        inspection: None,
        schema_skeleton: Some(schema_skeleton),
        annotations_hash: Some(Some(annotations_hash)),
        output_schema_hash: Some(Some(output_schema_hash)),
        output_schema_skeleton: Some(output_schema_skeleton),
        entry_digest,
    })
}

/// The hashed entry of one resource.
pub fn resource_entry(res: &CapturedResource) -> Result<ResourceEntry, BuildError> {
    let description_hash = description_hash(res.description.as_deref());
    let body = json!({
        "uri": res.uri,
        "name": res.name,
        "description_hash": description_hash,
        "mime_type": res.mime_type,
    });
    let entry_digest = hash(&body, &|| format!("resource '{}'", res.uri))?;
    Ok(ResourceEntry {
        uri: res.uri.clone(),
        name: res.name.clone(),
        description_hash,
        mime_type: res.mime_type.clone(),
        entry_digest,
    })
}

/// The hashed entry of one prompt.
pub fn prompt_entry(prompt: &CapturedPrompt) -> Result<PromptEntry, BuildError> {
    let ctx = || format!("prompt '{}'", prompt.name);
    let description_hash = description_hash(prompt.description.as_deref());
    let arguments = prompt
        .arguments
        .as_ref()
        .map(|a| Value::Array(a.clone()))
        .unwrap_or_else(|| json!([]));
    let arguments_hash = hash(&arguments, &ctx)?;
    let body = json!({
        "name": prompt.name,
        "description_hash": description_hash,
        "arguments_hash": arguments_hash,
    });
    let entry_digest = hash(&body, &ctx)?;
    Ok(PromptEntry {
        name: prompt.name.clone(),
        description_hash,
        arguments_hash,
        entry_digest,
    })
}

/// The server block: a URL capture is identified by its URL, a stdio one by argv.
pub fn server_identity(surface: &Surface) -> ServerIdentity {
    match surface.url.as_deref().filter(|u| !u.is_empty()) {
        Some(url) => ServerIdentity {
            command: String::new(),
            args: Vec::new(),
            url: Some(url.to_string()),
            command_digest: digest::command_digest_url(url),
        },
        None => ServerIdentity {
            command: surface.command.clone(),
            args: surface.args.clone(),
            url: None,
            command_digest: digest::command_digest_stdio(&surface.command, &surface.args),
        },
    }
}

/// The `pinner` block: `actor`, else `WARDEN_ACTOR`; environment from `WARDEN_ENV`.
pub fn make_pinner(actor: Option<&str>) -> Pinner {
    let actor = actor
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .or_else(|| std::env::var("WARDEN_ACTOR").ok());
    let environment = std::env::var("WARDEN_ENV").ok().filter(|e| !e.is_empty());
    Pinner {
        tool: "mcp-warden".into(),
        tool_version: WARDEN_VERSION.into(),
        actor,
        environment,
    }
}

/// Who approves a pin, if anyone.
#[derive(Debug, Clone, Default)]
pub struct Approval {
    pub approve: bool,
    pub approver: Option<String>,
}

/// Build the complete lock. `now` is the RFC 3339 timestamp used for
/// `created_at` and, when approving, `approved_at` and the attestation.
pub fn build_lock(
    surface: &Surface,
    findings: Vec<LockFinding>,
    approval: &Approval,
    actor: Option<&str>,
    now: &str,
) -> Result<Lock, BuildError> {
    let server = server_identity(surface);
    let mut tools = surface
        .tools
        .iter()
        .map(tool_entry)
        .collect::<Result<Vec<_>, _>>()?;
    let mut resources = surface
        .resources
        .iter()
        .map(resource_entry)
        .collect::<Result<Vec<_>, _>>()?;
    let mut prompts = surface
        .prompts
        .iter()
        .map(prompt_entry)
        .collect::<Result<Vec<_>, _>>()?;
    // Code-point order (byte order of UTF-8), stable: the entry arrays are sorted
    // this way even though keys inside hashed objects use UTF-16 order.
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    resources.sort_by(|a, b| a.uri.cmp(&b.uri));
    prompts.sort_by(|a, b| a.name.cmp(&b.name));

    let mut lock = Lock {
        schema_version: SCHEMA_VERSION,
        warden_version: WARDEN_VERSION.into(),
        server,
        tools,
        resources,
        prompts,
        findings,
        overall_digest: String::new(),
        pin: PinMetadata {
            created_at: now.into(),
            warden_version: WARDEN_VERSION.into(),
            mcp_protocol_version: surface.protocol_version.clone(),
            approved: approval.approve,
            approver: None,
            approved_at: None,
            approved_digest: None,
            provenance_version: PROVENANCE_VERSION,
            pinner: Some(make_pinner(actor)),
            attestations: Vec::new(),
            rotated_at: None,
            rotation_count: 0,
        },
    };
    lock.overall_digest = lock.recomputed_overall_digest();
    if approval.approve {
        lock.pin.approver = approval.approver.clone();
        lock.pin.approved_at = Some(now.into());
        lock.pin.approved_digest = Some(lock.overall_digest.clone());
        if let Some(approver) = approval.approver.as_deref() {
            lock.pin.attestations.push(Attestation {
                actor: approver.into(),
                role: "approver".into(),
                method: "manual".into(),
                created_at: now.into(),
                bound_digest: lock.overall_digest.clone(),
                note: None,
                signature_bundle: None,
            });
        }
    }
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Option<Value>) -> CapturedTool {
        CapturedTool {
            name: name.into(),
            description: None,
            input_schema: schema,
            annotations: None,
            output_schema: None,
        }
    }

    fn surface() -> Surface {
        Surface {
            command: "node".into(),
            args: vec!["./server.js".into()],
            url: None,
            protocol_version: "2025-06-18".into(),
            tools: vec![],
            resources: vec![],
            prompts: vec![],
        }
    }

    #[test]
    fn minimal_single_tool_v4() {
        let mut s = surface();
        let mut t = tool(
            "read_file",
            Some(
                json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
            ),
        );
        t.description = Some("Read a file.".into());
        s.tools.push(t);
        let lock = build_lock(
            &s,
            vec![],
            &Approval::default(),
            None,
            "2026-01-01T00:00:00Z",
        )
        .expect("builds");
        assert_eq!(
            lock.server.command_digest,
            "sha256:12c6871f14a9ddfe1a7afda4c3d35425410bc4bfe4a19c281e0e4dfff808aec2"
        );
        let t = &lock.tools[0];
        assert_eq!(
            t.description_hash,
            "sha256:f83d56c834a0029f639f3db5e497620fcad6f2a8367d31e34238a3a9ae0c2020"
        );
        assert_eq!(
            t.input_schema_hash,
            "sha256:923b083c9bcab2e3d3e07c7d9b4401688ad9f3d5e2c2f0c48fcd43052bdcb71b"
        );
        assert_eq!(t.capabilities, ["fs-read"]);
        assert_eq!(
            t.entry_digest,
            "sha256:f0d5e26ac99d25b74bdf9a1886177adcada8d80489d5875f0f8b86502003c34c"
        );
        assert_eq!(
            lock.overall_digest,
            "sha256:8dcd1c14a3f719826ee111f2a14551ee9b2c8e5c4bcc64c04fbfd6bf62450ed9"
        );
        assert!(lock.is_self_consistent());
    }

    #[test]
    fn http_url_server_v4() {
        let mut s = surface();
        s.url = Some("https://example.com/mcp".into());
        s.tools
            .push(tool("ping", Some(json!({"type":"object","properties":{}}))));
        let lock = build_lock(&s, vec![], &Approval::default(), None, "x").expect("builds");
        assert_eq!(
            lock.server.command_digest,
            "sha256:b6ab9af4649e26f4b90a7786ee4b70f287a0b0189551386e1accb431f4e97986"
        );
        assert_eq!(
            lock.tools[0].entry_digest,
            "sha256:d6618ea2ccdf7cfacf5f35419dd399b2b32c3172690175e5a0b056450537e18d"
        );
        assert_eq!(
            lock.overall_digest,
            "sha256:a5dd175f90ed35ade0e0407df3bcc7c414c51c3d148cb62625072b432577585a"
        );
    }

    #[test]
    fn astral_sorting() {
        let mut s = surface();
        s.command = "python".into();
        s.args = vec!["server.py".into()];
        for n in ["😀x", "x", "\u{E000}x"] {
            s.tools.push(tool(n, None));
        }
        for u in ["😀://1", "\u{E000}://1", "x://1"] {
            s.resources.push(CapturedResource {
                uri: u.into(),
                name: None,
                description: None,
                mime_type: None,
            });
        }
        for n in ["😀", "\u{E000}", "x"] {
            s.prompts.push(CapturedPrompt {
                name: n.into(),
                description: None,
                arguments: None,
            });
        }
        let lock = build_lock(&s, vec![], &Approval::default(), None, "x").expect("builds");
        let names: Vec<&str> = lock.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "\u{E000}x", "😀x"]);
        assert_eq!(
            lock.tools[0].entry_digest,
            "sha256:39244621081b457130705520e86b8b257e0341f040254829c1382b57ae9a42d5"
        );
        assert_eq!(
            lock.resources[2].entry_digest,
            "sha256:6a9914d720d9ce61c55d518dd7839f8a6fd394edcc333e80617a78ca32a06905"
        );
        assert_eq!(
            lock.prompts[1].entry_digest,
            "sha256:c2b7e39f3f92d425d8b68e5873afa0504704b087d3431ff637cf87f0344ae86b"
        );
        assert_eq!(
            lock.overall_digest,
            "sha256:53479e16bdf394db3a83879851ddda9651bd42fea5ddd3df0d553b9ea2ec6253"
        );
    }

    #[test]
    fn approval_binds_digest() {
        let s = surface();
        let approval = Approval {
            approve: true,
            approver: Some("ci-bot@example.invalid".into()),
        };
        let lock = build_lock(&s, vec![], &approval, None, "t").expect("builds");
        assert!(lock.pin.approved);
        assert_eq!(
            lock.pin.approved_digest.as_deref(),
            Some(lock.overall_digest.as_str())
        );
        assert_eq!(lock.pin.attestations.len(), 1);
        assert_eq!(lock.pin.attestations[0].bound_digest, lock.overall_digest);
    }
}
