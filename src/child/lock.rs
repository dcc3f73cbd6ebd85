//! `warden.lock` reader: validates a lock exactly as the lock format defines it
//! (engines reference §6) and returns what doctor needs from it.
//!
//! * Strict JSON (no BOM, no comments), nesting bound 512 (root at depth 0; an
//!   element at depth 513 is refused with "nesting deeper than 512 levels"). The
//!   parser is iterative, so the bound is a check, not a stack limit.
//! * Every key the format requires must be present with its type; optional keys
//!   may be absent; unknown keys are ignored everywhere.
//! * `1 ≤ schema_version ≤ 4`; from version 4 every tool entry carries the keys
//!   `annotations_hash` and `output_schema_hash` (non-null) and
//!   `output_schema_skeleton` (may be null).
//! * Types are JSON types, read strictly: an integer field takes an integer
//!   literal (not `4.0`, not `"4"`), a boolean takes `true`/`false`. The earlier
//!   implementation's validator coerced such values; refusing them only makes a
//!   doubtful lock count as no lock, which fails closed. Duplicate keys are refused
//!   for the same reason.
//! * No digest is recomputed here: the parent recomputes `overall_digest` from the
//!   summary with [`crate::digest`].

use super::json::{self, excerpt, Options, Select, Value};
use super::position::line_col;
use crate::protocol::bounds::{
    MAX_DIGESTS_PER_LOCK, MAX_ENTRIES_PER_SERVER, MAX_LOCK_DEPTH, MAX_STRING_BYTES,
};
use crate::protocol::{LoadError, LoadErrorKind, LockSummary};

/// Newest lock format this reader understands.
pub(crate) const MAX_SCHEMA_VERSION: u32 = 4;
/// Longest attestation note, in characters.
const ATTESTATION_NOTE_MAX_CHARS: usize = 1000;

pub(crate) fn read_lock(text: &str) -> Result<LockSummary, LoadError> {
    if text.starts_with('\u{FEFF}') {
        return Err(LoadError {
            kind: LoadErrorKind::Syntax,
            message: "invalid JSON at line 1 column 1: the file starts with a UTF-8 byte order \
                      mark (BOM), which strict JSON does not allow"
                .into(),
        });
    }
    let opts = Options {
        jsonc: false,
        max_depth: MAX_LOCK_DEPTH,
        select: Select::All,
    };
    let doc = json::parse(text, 0, opts).map_err(|e| {
        let (line, col) = line_col(text, e.offset);
        let message = if e.too_deep {
            format!(
                "lock exceeds the nesting bound: {} (line {line} column {col})",
                e.reason
            )
        } else {
            format!("invalid JSON at line {line} column {col}: {}", e.reason)
        };
        LoadError {
            kind: LoadErrorKind::Syntax,
            message,
        }
    })?;
    summarize(&doc).map_err(|m| LoadError {
        kind: LoadErrorKind::Shape,
        message: m,
    })
}

type Check<T> = Result<T, String>;

fn invalid(msg: String) -> String {
    format!("failed schema validation: {msg}")
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// An object at `path`.
fn object<'v, 'a>(v: &'v Value<'a>, path: &str) -> Check<&'v Value<'a>> {
    match v {
        Value::Object(_) => Ok(v),
        other => Err(invalid(format!(
            "{path} must be an object (it is {})",
            other.kind()
        ))),
    }
}

fn required<'v, 'a>(obj: &'v Value<'a>, key: &str, path: &str) -> Check<&'v Value<'a>> {
    obj.get(key)
        .ok_or_else(|| invalid(format!("missing required key {}", join(path, key))))
}

fn string<'v>(v: &'v Value<'_>, path: &str) -> Check<&'v str> {
    v.as_str()
        .ok_or_else(|| invalid(format!("{path} must be a string (it is {})", v.kind())))
}

fn req_str<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<&'v str> {
    string(required(obj, key, path)?, &join(path, key))
}

/// An optional `str | null` field.
fn opt_str<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<Option<&'v str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => string(v, &join(path, key)).map(Some),
    }
}

/// A required `str | null` field.
fn req_str_or_null<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<Option<&'v str>> {
    match required(obj, key, path)? {
        Value::Null => Ok(None),
        v => string(v, &join(path, key)).map(Some),
    }
}

/// A string field that has a non-null default: present means it must be a string.
fn defaulted_str<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<Option<&'v str>> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => string(v, &join(path, key)).map(Some),
    }
}

fn opt_bool(obj: &Value<'_>, key: &str, path: &str) -> Check<Option<bool>> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(invalid(format!(
            "{} must be a boolean (it is {})",
            join(path, key),
            v.kind()
        ))),
    }
}

fn is_integer(text: &str) -> bool {
    !text.contains(['.', 'e', 'E'])
}

fn opt_int(obj: &Value<'_>, key: &str, path: &str) -> Check<()> {
    match obj.get(key) {
        None => Ok(()),
        Some(Value::Number(n)) if is_integer(n) => Ok(()),
        Some(v) => Err(invalid(format!(
            "{} must be an integer (it is {})",
            join(path, key),
            v.kind()
        ))),
    }
}

fn array<'v, 'a>(v: &'v Value<'a>, path: &str) -> Check<&'v [Value<'a>]> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(invalid(format!(
            "{path} must be an array (it is {})",
            other.kind()
        ))),
    }
}

fn string_list<'v>(v: &'v Value<'_>, path: &str) -> Check<Vec<&'v str>> {
    array(v, path)?
        .iter()
        .enumerate()
        .map(|(i, item)| string(item, &format!("{path}[{i}]")))
        .collect()
}

fn bounded(s: &str, path: &str) -> Check<String> {
    if s.len() > MAX_STRING_BYTES {
        return Err(invalid(format!(
            "{path} is longer than {MAX_STRING_BYTES} bytes"
        )));
    }
    Ok(s.to_string())
}

fn schema_version(doc: &Value<'_>) -> Check<u32> {
    let v = required(doc, "schema_version", "")?;
    let text = match v {
        Value::Number(n) if is_integer(n) => *n,
        other => {
            return Err(invalid(format!(
                "schema_version must be an integer (it is {})",
                other.kind()
            )))
        }
    };
    match text.parse::<u32>() {
        Ok(n) if (1..=MAX_SCHEMA_VERSION).contains(&n) => Ok(n),
        _ => Err(format!(
            "schema_version {} is outside the supported range 1..{MAX_SCHEMA_VERSION}; a lock \
             at a newer format level cannot be verified by this version",
            excerpt(text)
        )),
    }
}

/// A `SchemaSkeleton | null` value: `{"props": {path: PropFacts}}`.
fn skeleton(v: &Value<'_>, path: &str) -> Check<()> {
    if matches!(v, Value::Null) {
        return Ok(());
    }
    let obj = object(v, path)?;
    let Some(props) = obj.get("props") else {
        return Ok(());
    };
    let props_path = join(path, "props");
    let Value::Object(members) = object(props, &props_path)? else {
        return Ok(());
    };
    for m in members {
        let fp = format!("{props_path}[{}]", excerpt(&m.key));
        let facts = object(&m.value, &fp)?;
        match facts.get("type") {
            None | Some(Value::Null) => {}
            Some(t) => {
                string_list(t, &join(&fp, "type"))?;
            }
        }
        opt_bool(facts, "required", &fp)?;
        match facts.get("enum") {
            None | Some(Value::Null) => {}
            Some(e) => {
                array(e, &join(&fp, "enum"))?;
            }
        }
        if let Some(c) = facts.get("constraints") {
            object(c, &join(&fp, "constraints"))?;
        }
    }
    Ok(())
}

fn tool(v: &Value<'_>, path: &str, version: u32) -> Check<String> {
    let t = object(v, path)?;
    req_str(t, "name", path)?;
    req_str(t, "description_hash", path)?;
    req_str(t, "input_schema_hash", path)?;
    string_list(
        required(t, "capabilities", path)?,
        &join(path, "capabilities"),
    )?;
    match t.get("inspection") {
        None | Some(Value::Null) => {}
        Some(i) => {
            object(i, &join(path, "inspection"))?;
        }
    }
    if let Some(s) = t.get("schema_skeleton") {
        skeleton(s, &join(path, "schema_skeleton"))?;
    }
    let annotations = opt_str(t, "annotations_hash", path)?;
    let output = opt_str(t, "output_schema_hash", path)?;
    if let Some(s) = t.get("output_schema_skeleton") {
        skeleton(s, &join(path, "output_schema_skeleton"))?;
    }
    if version >= 4
        && (annotations.is_none() || output.is_none() || t.get("output_schema_skeleton").is_none())
    {
        return Err(format!(
            "v4 tool entries require annotations_hash, output_schema_hash, and \
             output_schema_skeleton ({path})"
        ));
    }
    bounded(
        req_str(t, "entry_digest", path)?,
        &join(path, "entry_digest"),
    )
}

fn resource(v: &Value<'_>, path: &str) -> Check<String> {
    let r = object(v, path)?;
    req_str(r, "uri", path)?;
    req_str_or_null(r, "name", path)?;
    req_str(r, "description_hash", path)?;
    req_str_or_null(r, "mime_type", path)?;
    bounded(
        req_str(r, "entry_digest", path)?,
        &join(path, "entry_digest"),
    )
}

fn prompt(v: &Value<'_>, path: &str) -> Check<String> {
    let p = object(v, path)?;
    req_str(p, "name", path)?;
    req_str(p, "description_hash", path)?;
    req_str(p, "arguments_hash", path)?;
    bounded(
        req_str(p, "entry_digest", path)?,
        &join(path, "entry_digest"),
    )
}

fn finding(v: &Value<'_>, path: &str) -> Check<()> {
    let f = object(v, path)?;
    for key in ["rule_id", "severity", "target", "message", "snippet"] {
        req_str(f, key, path)?;
    }
    Ok(())
}

fn attestation(v: &Value<'_>, path: &str) -> Check<()> {
    let a = object(v, path)?;
    req_str(a, "actor", path)?;
    defaulted_str(a, "role", path)?;
    defaulted_str(a, "method", path)?;
    req_str(a, "created_at", path)?;
    req_str(a, "bound_digest", path)?;
    if let Some(note) = opt_str(a, "note", path)? {
        let n = note.chars().count();
        if n > ATTESTATION_NOTE_MAX_CHARS {
            return Err(invalid(format!(
                "{path}.note exceeds {ATTESTATION_NOTE_MAX_CHARS} chars (got {n})"
            )));
        }
    }
    opt_str(a, "signature_bundle", path)?;
    Ok(())
}

struct Pin {
    approved: bool,
    approved_digest: Option<String>,
}

fn pin(v: &Value<'_>) -> Check<Pin> {
    let path = "pin";
    let p = object(v, path)?;
    req_str(p, "created_at", path)?;
    req_str(p, "warden_version", path)?;
    req_str(p, "mcp_protocol_version", path)?;
    let approved = opt_bool(p, "approved", path)?.unwrap_or(false);
    opt_str(p, "approver", path)?;
    opt_str(p, "approved_at", path)?;
    let approved_digest = opt_str(p, "approved_digest", path)?
        .map(|d| bounded(d, "pin.approved_digest"))
        .transpose()?;
    opt_int(p, "provenance_version", path)?;
    match p.get("pinner") {
        None | Some(Value::Null) => {}
        Some(pinner) => {
            let pp = "pin.pinner";
            let pinner = object(pinner, pp)?;
            defaulted_str(pinner, "tool", pp)?;
            defaulted_str(pinner, "tool_version", pp)?;
            opt_str(pinner, "actor", pp)?;
            opt_str(pinner, "environment", pp)?;
        }
    }
    if let Some(list) = p.get("attestations") {
        for (i, a) in array(list, "pin.attestations")?.iter().enumerate() {
            attestation(a, &format!("pin.attestations[{i}]"))?;
        }
    }
    opt_str(p, "rotated_at", path)?;
    opt_int(p, "rotation_count", path)?;
    Ok(Pin {
        approved,
        approved_digest,
    })
}

fn digests(
    doc: &Value<'_>,
    key: &str,
    each: impl Fn(&Value<'_>, &str) -> Check<String>,
) -> Check<Vec<String>> {
    let items = array(required(doc, key, "")?, key)?;
    if items.len() > MAX_DIGESTS_PER_LOCK {
        return Err(invalid(format!(
            "{key} has more than {MAX_DIGESTS_PER_LOCK} entries"
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| each(item, &format!("{key}[{i}]")))
        .collect()
}

fn summarize(doc: &Value<'_>) -> Check<LockSummary> {
    let doc = match doc {
        Value::Object(_) => doc,
        other => {
            return Err(invalid(format!(
                "the lock must be a JSON object (it is {})",
                other.kind()
            )))
        }
    };
    let version = schema_version(doc)?;
    req_str(doc, "warden_version", "")?;

    let server = object(required(doc, "server", "")?, "server")?;
    let command = defaulted_str(server, "command", "server")?.unwrap_or("");
    let args = match server.get("args") {
        None => Vec::new(),
        Some(a) => string_list(a, "server.args")?,
    };
    if args.len() > MAX_ENTRIES_PER_SERVER {
        return Err(invalid(format!(
            "server.args has more than {MAX_ENTRIES_PER_SERVER} entries"
        )));
    }
    let url = opt_str(server, "url", "server")?;
    let command_digest = req_str(server, "command_digest", "server")?;

    let tool_digests = digests(doc, "tools", |v, p| tool(v, p, version))?;
    let resource_digests = digests(doc, "resources", resource)?;
    let prompt_digests = digests(doc, "prompts", prompt)?;
    for (i, f) in array(required(doc, "findings", "")?, "findings")?
        .iter()
        .enumerate()
    {
        finding(f, &format!("findings[{i}]"))?;
    }
    let overall_digest = req_str(doc, "overall_digest", "")?;
    let pin = pin(required(doc, "pin", "")?)?;

    Ok(LockSummary {
        schema_version: version,
        server_command: bounded(command, "server.command")?,
        server_args: args
            .iter()
            .enumerate()
            .map(|(i, a)| bounded(a, &format!("server.args[{i}]")))
            .collect::<Check<_>>()?,
        server_url: url.map(|u| bounded(u, "server.url")).transpose()?,
        command_digest: bounded(command_digest, "server.command_digest")?,
        tool_digests,
        resource_digests,
        prompt_digests,
        overall_digest: bounded(overall_digest, "overall_digest")?,
        approved: pin.approved,
        approved_digest: pin.approved_digest,
    })
}
