//! From the child's validated [`LockRecord`] to the [`Lock`] document model.
//!
//! The lock's bytes were parsed by the one lock reader in the confined child; this is
//! the parent's half: it rebuilds each JSON-valued field from its flat token list
//! (iteratively, within the lock's nesting bound, refusing a list that does not
//! describe exactly one value) and fills the model. The parent's structural
//! re-validation of the record (`parent::validate`) has already run.

use serde_json::{Map, Number, Value};

use super::format::MAX_LOCK_DEPTH;
use super::{
    Attestation, Lock, LockFinding, PinMetadata, Pinner, PromptEntry, Recorded, ResourceEntry,
    ServerIdentity, ToolEntry,
};
use crate::protocol::{JsonToken, JsonTree, LockRecord, LockTool};

/// A record no honest child sends (a token list that is not one JSON value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord(pub String);

/// The lock the record describes.
///
/// # Errors
/// A JSON-valued field whose tokens do not form exactly one value within the bound.
pub fn lock_from_record(r: LockRecord) -> Result<Lock, BadRecord> {
    let tools = r
        .tools
        .into_iter()
        .map(tool)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Lock {
        schema_version: r.schema_version,
        warden_version: r.warden_version,
        server: ServerIdentity {
            command: r.server.command,
            args: r.server.args,
            url: r.server.url,
            command_digest: r.server.command_digest,
        },
        tools,
        resources: r
            .resources
            .into_iter()
            .map(|x| ResourceEntry {
                uri: x.uri,
                name: x.name,
                description_hash: x.description_hash,
                mime_type: x.mime_type,
                entry_digest: x.entry_digest,
            })
            .collect(),
        prompts: r
            .prompts
            .into_iter()
            .map(|x| PromptEntry {
                name: x.name,
                description_hash: x.description_hash,
                arguments_hash: x.arguments_hash,
                entry_digest: x.entry_digest,
            })
            .collect(),
        findings: r
            .findings
            .into_iter()
            .map(|f| LockFinding {
                rule_id: Recorded::parse(f.rule_id),
                severity: Recorded::parse(f.severity),
                target: f.target,
                message: f.message,
                snippet: f.snippet,
            })
            .collect(),
        overall_digest: r.overall_digest,
        pin: PinMetadata {
            created_at: r.pin.created_at,
            warden_version: r.pin.warden_version,
            mcp_protocol_version: r.pin.mcp_protocol_version,
            approved: r.pin.approved,
            approver: r.pin.approver,
            approved_at: r.pin.approved_at,
            approved_digest: r.pin.approved_digest,
            provenance_version: r.pin.provenance_version,
            pinner: r.pin.pinner.map(|p| Pinner {
                tool: p.tool,
                tool_version: p.tool_version,
                actor: p.actor,
                environment: p.environment,
            }),
            attestations: r
                .pin
                .attestations
                .into_iter()
                .map(|a| Attestation {
                    actor: a.actor,
                    role: a.role,
                    method: a.method,
                    created_at: a.created_at,
                    bound_digest: a.bound_digest,
                    note: a.note,
                    signature_bundle: a.signature_bundle,
                })
                .collect(),
            rotated_at: r.pin.rotated_at,
            rotation_count: r.pin.rotation_count,
        },
    })
}

fn tool(t: LockTool) -> Result<ToolEntry, BadRecord> {
    let tree = |x: Option<JsonTree>| x.map(value).transpose();
    Ok(ToolEntry {
        name: t.name,
        description_hash: t.description_hash,
        input_schema_hash: t.input_schema_hash,
        capabilities: t.capabilities,
        inspection: tree(t.inspection)?,
        schema_skeleton: tree(t.schema_skeleton)?,
        annotations_hash: t.annotations_hash,
        output_schema_hash: t.output_schema_hash,
        output_schema_skeleton: t.output_schema_skeleton.map(tree).transpose()?,
        entry_digest: t.entry_digest,
    })
}

/// A container being filled: how many children it still expects.
enum Open {
    Array(Vec<Value>, u32),
    Object(Map<String, Value>, u32, Option<String>),
}

/// One JSON value from its tokens (see [`JsonTree`]).
///
/// # Errors
/// Too few or too many tokens, a key where a value belongs (or the reverse), a
/// duplicate key, a non-finite number, or nesting beyond [`MAX_LOCK_DEPTH`].
pub fn value(tree: JsonTree) -> Result<Value, BadRecord> {
    let bad = |why: &str| Err(BadRecord(format!("a JSON value in the lock record {why}")));
    let mut stack: Vec<Open> = Vec::new();
    let mut tokens = tree.0.into_iter();
    let mut done: Option<Value> = None;
    while done.is_none() {
        let Some(token) = tokens.next() else {
            return bad("ends early");
        };
        // An object member must start with its key.
        if let Some(Open::Object(_, _, key @ None)) = stack.last_mut() {
            match token {
                JsonToken::Key(k) => {
                    *key = Some(k);
                    continue;
                }
                _ => return bad("has a member without a key"),
            }
        }
        let mut finished = match token {
            JsonToken::Null => Value::Null,
            JsonToken::Bool(b) => Value::Bool(b),
            JsonToken::PosInt(n) => Value::Number(Number::from(n)),
            JsonToken::NegInt(n) => Value::Number(Number::from(n)),
            JsonToken::Float(f) => match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None => return bad("holds a non-finite number"),
            },
            JsonToken::String(s) => Value::String(s),
            JsonToken::Key(_) => return bad("has a key outside an object"),
            JsonToken::Array(n) | JsonToken::Object(n) if stack.len() >= MAX_LOCK_DEPTH => {
                let _ = n;
                return bad("nests deeper than the lock bound");
            }
            JsonToken::Array(0) => Value::Array(Vec::new()),
            JsonToken::Object(0) => Value::Object(Map::new()),
            JsonToken::Array(n) => {
                // Never reserve what the tokens cannot fill.
                let room = usize::try_from(n).unwrap_or(0).min(tokens.len());
                stack.push(Open::Array(Vec::with_capacity(room), n));
                continue;
            }
            JsonToken::Object(n) => {
                stack.push(Open::Object(Map::new(), n, None));
                continue;
            }
        };
        // Attach the finished value; close every container that is now full.
        loop {
            match stack.last_mut() {
                None => {
                    done = Some(finished);
                    break;
                }
                Some(Open::Array(items, left)) => {
                    items.push(finished);
                    *left -= 1;
                    if *left > 0 {
                        break;
                    }
                }
                Some(Open::Object(map, left, key)) => {
                    let Some(k) = key.take() else {
                        return bad("has a member without a key");
                    };
                    if map.insert(k, finished).is_some() {
                        return bad("has a duplicate key");
                    }
                    *left -= 1;
                    if *left > 0 {
                        break;
                    }
                }
            }
            finished = match stack.pop() {
                Some(Open::Array(items, _)) => Value::Array(items),
                Some(Open::Object(map, _, _)) => Value::Object(map),
                None => return bad("is malformed"),
            };
        }
    }
    if tokens.next().is_some() {
        return bad("has tokens after its end");
    }
    done.map_or_else(|| bad("is empty"), Ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use JsonToken::*;

    #[test]
    fn tokens_rebuild_one_value_or_are_refused() {
        let t = JsonTree(vec![
            Object(2),
            Key("a".into()),
            Array(2),
            PosInt(1),
            Float(1.5),
            Key("b".into()),
            Object(0),
        ]);
        assert_eq!(value(t), Ok(serde_json::json!({"a": [1, 1.5], "b": {}})));
        for bad in [
            vec![],
            vec![Array(2), Null],
            vec![Null, Null],
            vec![Object(1), Null],
            vec![Key("k".into())],
            vec![Object(2), Key("k".into()), Null, Key("k".into()), Null],
            vec![Float(f64::NAN)],
            vec![Array(u32::MAX)],
        ] {
            assert!(value(JsonTree(bad.clone())).is_err(), "{bad:?}");
        }
        let deep = JsonTree(
            std::iter::repeat_n(Array(1), MAX_LOCK_DEPTH + 1)
                .chain([Null])
                .collect(),
        );
        assert!(value(deep).is_err());
        let ok = JsonTree(
            std::iter::repeat_n(Array(1), MAX_LOCK_DEPTH)
                .chain([Null])
                .collect(),
        );
        assert!(value(ok).is_ok());
    }
}
