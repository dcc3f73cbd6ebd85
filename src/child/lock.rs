//! `warden.lock` reader: the one reader of lock bytes, for every command. It
//! validates a lock exactly as the lock format defines it (engines reference §6) and
//! returns it whole ([`read_lock_record`], for `check` and `lock rotate`) or what
//! doctor needs of it ([`read_lock`], a projection of the same record): the two can
//! never disagree about which locks are valid.
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
//! * Integer fields are range-checked as the record types them (`schema_version`
//!   `u32`, `provenance_version` `i64`, `rotation_count` `u64`); every number inside a
//!   JSON-valued field (`inspection`, the skeletons) is converted exactly as
//!   `serde_json` converts it, and one it cannot represent (`1e400`) is refused.
//! * No digest is recomputed here: the parent recomputes `overall_digest` from the
//!   summary with [`crate::digest`].

use std::fmt;

use super::json::{self, excerpt, Member, Options, Select, Value};
use super::position::line_col;
use crate::pin::lock::format::{
    MAX_LOCK_DEPTH, NOTE_MAX_CHARS as ATTESTATION_NOTE_MAX_CHARS,
    SCHEMA_VERSION as MAX_SCHEMA_VERSION,
};
use crate::protocol::bounds::MAX_STRING_BYTES;
use crate::protocol::{
    JsonToken, JsonTree, LoadError, LoadErrorKind, LockAttestation, LockFindingRecord, LockPin,
    LockPinner, LockPrompt, LockRecord, LockResource, LockServer, LockSummary, LockTool,
};

/// What doctor needs of a lock: its launch and the digests that bind its approval.
pub(crate) fn read_lock(text: &str) -> Result<LockSummary, LoadError> {
    read_lock_record(text).map(summary)
}

/// The projection doctor uses: no field here is read differently from the record.
fn summary(lock: LockRecord) -> LockSummary {
    LockSummary {
        schema_version: lock.schema_version,
        server_command: lock.server.command,
        server_args: lock.server.args,
        server_url: lock.server.url,
        command_digest: lock.server.command_digest,
        tool_digests: lock.tools.into_iter().map(|t| t.entry_digest).collect(),
        resource_digests: lock.resources.into_iter().map(|r| r.entry_digest).collect(),
        prompt_digests: lock.prompts.into_iter().map(|p| p.entry_digest).collect(),
        overall_digest: lock.overall_digest,
        approved: lock.pin.approved,
        approved_digest: lock.pin.approved_digest,
    }
}

/// The whole lock, validated.
pub(crate) fn read_lock_record(text: &str) -> Result<LockRecord, LoadError> {
    if text.starts_with('\u{FEFF}') {
        return Err(LoadError {
            kind: LoadErrorKind::Syntax,
            message: "invalid JSON at line 1 column 1: the file starts with a UTF-8 byte order \
                      mark (BOM), which strict JSON does not allow"
                .into(),
            construct: None,
        });
    }
    let opts = Options {
        jsonc: false,
        trailing_commas: false,
        cr_ends_line_comment: true,
        max_depth: MAX_LOCK_DEPTH,
        select: Select::All,
        keep_duplicates: false,
        refuse_skipped_duplicates: true,
    };
    let doc = json::parse(text, 0, opts).map_err(|e| {
        let (line, col) = line_col(text, e.offset);
        if e.construct == Some(crate::protocol::Construct::DeepNesting) {
            LoadError {
                kind: LoadErrorKind::TooDeep,
                message: format!(
                    "lock exceeds the nesting bound: {} (line {line} column {col})",
                    e.reason
                ),
                construct: None,
            }
        } else {
            LoadError {
                kind: LoadErrorKind::Syntax,
                message: format!("invalid JSON at line {line} column {col}: {}", e.reason),
                construct: None,
            }
        }
    })?;
    let record = record(&doc).map_err(|m| LoadError {
        kind: LoadErrorKind::Shape,
        message: m,
        construct: None,
    });
    // The tree is freed here, lock by lock: a run reads up to a thousand locks and
    // must not keep their trees until it exits.
    drop(doc);
    record
}

type Check<T> = Result<T, String>;

fn invalid(msg: String) -> String {
    format!("failed schema validation: {msg}")
}

/// `path.key` (or `key` at the top), written out only when a message names it: the
/// fields of a valid lock are checked without building their paths.
fn join<'p>(path: &'p str, key: &'p str) -> Joined<'p> {
    Joined { path, key }
}

#[derive(Clone, Copy)]
struct Joined<'p> {
    path: &'p str,
    key: &'p str,
}

impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(self.key)
        } else {
            write!(f, "{}.{}", self.path, self.key)
        }
    }
}

/// `path[index]`, written out only when a message names it (as [`join`]).
#[derive(Clone, Copy)]
struct Indexed<'p> {
    path: &'p str,
    index: usize,
}

impl fmt::Display for Indexed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.path, self.index)
    }
}

/// An object at `path`.
fn object<'v, 'a>(v: &'v Value<'a>, path: impl fmt::Display) -> Check<&'v Value<'a>> {
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

fn string<'v>(v: &'v Value<'_>, path: impl fmt::Display) -> Check<&'v str> {
    v.as_str()
        .ok_or_else(|| invalid(format!("{path} must be a string (it is {})", v.kind())))
}

fn req_str<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<&'v str> {
    string(required(obj, key, path)?, join(path, key))
}

/// An optional `str | null` field.
fn opt_str<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<Option<&'v str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => string(v, join(path, key)).map(Some),
    }
}

/// A required `str | null` field.
fn req_str_or_null<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<Option<&'v str>> {
    match required(obj, key, path)? {
        Value::Null => Ok(None),
        v => string(v, join(path, key)).map(Some),
    }
}

/// A string field that has a non-null default: present means it must be a string.
fn defaulted_str<'v>(obj: &'v Value<'_>, key: &str, path: &str) -> Check<Option<&'v str>> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => string(v, join(path, key)).map(Some),
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

/// An optional integer field of type `T`: absent gives `None`; present, it must be an
/// integer literal within `T`'s range.
fn opt_int<T: std::str::FromStr>(obj: &Value<'_>, key: &str, path: &str) -> Check<Option<T>> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) if is_integer(n) => n.parse::<T>().map(Some).map_err(|_| {
            invalid(format!(
                "{} is out of range ({})",
                join(path, key),
                excerpt(n)
            ))
        }),
        Some(v) => Err(invalid(format!(
            "{} must be an integer (it is {})",
            join(path, key),
            v.kind()
        ))),
    }
}

fn array<'v, 'a>(v: &'v Value<'a>, path: impl fmt::Display) -> Check<&'v [Value<'a>]> {
    match v {
        Value::Array(items, _) => Ok(items),
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
        .map(|(index, item)| string(item, Indexed { path, index }))
        .collect()
}

fn bounded(s: &str, path: impl fmt::Display) -> Check<String> {
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

/// A JSON value as a flat token list, numbers converted as `serde_json` converts them.
/// Iterative: the value may nest as deep as the lock bound allows.
fn json_tree(v: &Value<'_>, path: &str) -> Check<JsonTree> {
    enum Open<'v, 'a> {
        Items(std::slice::Iter<'v, Value<'a>>),
        Members(std::slice::Iter<'v, Member<'a>>),
    }
    fn count(n: usize, path: &str) -> Check<u32> {
        u32::try_from(n).map_err(|_| invalid(format!("{path} has too many entries")))
    }
    let mut tokens = Vec::new();
    let mut stack: Vec<Open<'_, '_>> = Vec::new();
    let mut next = Some(v);
    loop {
        if let Some(value) = next.take() {
            match value {
                Value::Null => tokens.push(JsonToken::Null),
                Value::Bool(b) => tokens.push(JsonToken::Bool(*b)),
                Value::Number(text) => tokens.push(number(text, path)?),
                Value::String(s) => tokens.push(JsonToken::String(s.to_string())),
                Value::Array(items, _) => {
                    tokens.push(JsonToken::Array(count(items.len(), path)?));
                    stack.push(Open::Items(items.iter()));
                }
                Value::Object(members) => {
                    tokens.push(JsonToken::Object(count(members.len(), path)?));
                    stack.push(Open::Members(members.iter()));
                }
            }
        }
        match stack.last_mut() {
            None => return Ok(JsonTree(tokens)),
            Some(Open::Items(items)) => match items.next() {
                Some(item) => next = Some(item),
                None => {
                    stack.pop();
                }
            },
            Some(Open::Members(members)) => match members.next() {
                Some(m) => {
                    tokens.push(JsonToken::Key(m.key.to_string()));
                    next = Some(&m.value);
                }
                None => {
                    stack.pop();
                }
            },
        }
    }
}

/// One number token: what `serde_json` (with `float_roundtrip`, as the rest of
/// mcp-warden reads JSON) makes of the literal, so a lock rewritten by `rotate` keeps
/// every number as the earlier reader kept it.
fn number(text: &str, path: &str) -> Check<JsonToken> {
    let n: serde_json::Number = text.parse().map_err(|_| {
        invalid(format!(
            "{path} holds a number that cannot be represented ({})",
            excerpt(text)
        ))
    })?;
    if let Some(u) = n.as_u64() {
        Ok(JsonToken::PosInt(u))
    } else if let Some(i) = n.as_i64() {
        Ok(JsonToken::NegInt(i))
    } else {
        match n.as_f64() {
            Some(f) if f.is_finite() => Ok(JsonToken::Float(f)),
            _ => Err(invalid(format!(
                "{path} holds a number that cannot be represented ({})",
                excerpt(text)
            ))),
        }
    }
}

/// `None` for absent or `null`, else the value as a tree.
fn opt_tree(obj: &Value<'_>, key: &str, path: &str) -> Check<Option<JsonTree>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => json_tree(v, &join(path, key).to_string()).map(Some),
    }
}

/// A `SchemaSkeleton | null` value: `{"props": {path: PropFacts}}`.
fn skeleton(v: &Value<'_>, path: &str) -> Check<Option<JsonTree>> {
    if matches!(v, Value::Null) {
        return Ok(None);
    }
    let obj = object(v, path)?;
    if let Some(props) = obj.get("props") {
        let props_path = join(path, "props");
        if let Value::Object(members) = object(props, props_path)? {
            for m in members {
                let fp = format!("{props_path}[{}]", excerpt(&m.key));
                let facts = object(&m.value, &fp)?;
                match facts.get("type") {
                    None | Some(Value::Null) => {}
                    Some(t) => {
                        string_list(t, &join(&fp, "type").to_string())?;
                    }
                }
                opt_bool(facts, "required", &fp)?;
                match facts.get("enum") {
                    None | Some(Value::Null) => {}
                    Some(e) => {
                        array(e, join(&fp, "enum"))?;
                    }
                }
                if let Some(c) = facts.get("constraints") {
                    object(c, join(&fp, "constraints"))?;
                }
            }
        }
    }
    json_tree(v, path).map(Some)
}

fn owned_list(v: &Value<'_>, path: &str) -> Check<Vec<String>> {
    Ok(string_list(v, path)?
        .into_iter()
        .map(str::to_string)
        .collect())
}

fn tool(v: &Value<'_>, path: &str, version: u32) -> Check<LockTool> {
    let t = object(v, path)?;
    let name = req_str(t, "name", path)?.to_string();
    let description_hash = req_str(t, "description_hash", path)?.to_string();
    let input_schema_hash = req_str(t, "input_schema_hash", path)?.to_string();
    let capabilities = owned_list(
        required(t, "capabilities", path)?,
        &join(path, "capabilities").to_string(),
    )?;
    let inspection = match t.get("inspection") {
        None | Some(Value::Null) => None,
        Some(i) => {
            object(i, join(path, "inspection"))?;
            opt_tree(t, "inspection", path)?
        }
    };
    let schema_skeleton = match t.get("schema_skeleton") {
        None => None,
        Some(s) => skeleton(s, &join(path, "schema_skeleton").to_string())?,
    };
    // Present-or-absent matters for these three: v4 requires the keys, older levels
    // may omit them, and a rewrite must not add them.
    let annotations_hash = match t.get("annotations_hash") {
        None => None,
        Some(_) => Some(opt_str(t, "annotations_hash", path)?.map(str::to_string)),
    };
    let output_schema_hash = match t.get("output_schema_hash") {
        None => None,
        Some(_) => Some(opt_str(t, "output_schema_hash", path)?.map(str::to_string)),
    };
    let output_schema_skeleton = match t.get("output_schema_skeleton") {
        None => None,
        Some(s) => Some(skeleton(
            s,
            &join(path, "output_schema_skeleton").to_string(),
        )?),
    };
    if version >= 4
        && (!matches!(annotations_hash, Some(Some(_)))
            || !matches!(output_schema_hash, Some(Some(_)))
            || output_schema_skeleton.is_none())
    {
        return Err(format!(
            "v4 tool entries require annotations_hash, output_schema_hash, and \
             output_schema_skeleton ({path})"
        ));
    }
    let entry_digest = bounded(
        req_str(t, "entry_digest", path)?,
        join(path, "entry_digest"),
    )?;
    Ok(LockTool {
        name,
        description_hash,
        input_schema_hash,
        capabilities,
        inspection,
        schema_skeleton,
        annotations_hash,
        output_schema_hash,
        output_schema_skeleton,
        entry_digest,
    })
}

fn resource(v: &Value<'_>, path: &str) -> Check<LockResource> {
    let r = object(v, path)?;
    Ok(LockResource {
        uri: req_str(r, "uri", path)?.to_string(),
        name: req_str_or_null(r, "name", path)?.map(str::to_string),
        description_hash: req_str(r, "description_hash", path)?.to_string(),
        mime_type: req_str_or_null(r, "mime_type", path)?.map(str::to_string),
        entry_digest: bounded(
            req_str(r, "entry_digest", path)?,
            join(path, "entry_digest"),
        )?,
    })
}

fn prompt(v: &Value<'_>, path: &str) -> Check<LockPrompt> {
    let p = object(v, path)?;
    Ok(LockPrompt {
        name: req_str(p, "name", path)?.to_string(),
        description_hash: req_str(p, "description_hash", path)?.to_string(),
        arguments_hash: req_str(p, "arguments_hash", path)?.to_string(),
        entry_digest: bounded(
            req_str(p, "entry_digest", path)?,
            join(path, "entry_digest"),
        )?,
    })
}

fn finding(v: &Value<'_>, path: &str) -> Check<LockFindingRecord> {
    let f = object(v, path)?;
    let get = |key| req_str(f, key, path).map(str::to_string);
    Ok(LockFindingRecord {
        rule_id: get("rule_id")?,
        severity: get("severity")?,
        target: get("target")?,
        message: get("message")?,
        snippet: get("snippet")?,
    })
}

fn owned(s: Option<&str>) -> Option<String> {
    s.map(str::to_string)
}

fn attestation(v: &Value<'_>, path: &str) -> Check<LockAttestation> {
    let a = object(v, path)?;
    let actor = req_str(a, "actor", path)?.to_string();
    let role = defaulted_str(a, "role", path)?
        .unwrap_or("approver")
        .to_string();
    let method = defaulted_str(a, "method", path)?
        .unwrap_or("manual")
        .to_string();
    let created_at = req_str(a, "created_at", path)?.to_string();
    let bound_digest = req_str(a, "bound_digest", path)?.to_string();
    let note = opt_str(a, "note", path)?;
    if let Some(note) = note {
        let n = note.chars().count();
        if n > ATTESTATION_NOTE_MAX_CHARS {
            return Err(invalid(format!(
                "{path}.note exceeds {ATTESTATION_NOTE_MAX_CHARS} chars (got {n})"
            )));
        }
    }
    Ok(LockAttestation {
        actor,
        role,
        method,
        created_at,
        bound_digest,
        note: owned(note),
        signature_bundle: owned(opt_str(a, "signature_bundle", path)?),
    })
}

fn pin(v: &Value<'_>) -> Check<LockPin> {
    let path = "pin";
    let p = object(v, path)?;
    let created_at = req_str(p, "created_at", path)?.to_string();
    let warden_version = req_str(p, "warden_version", path)?.to_string();
    let mcp_protocol_version = req_str(p, "mcp_protocol_version", path)?.to_string();
    let approved = opt_bool(p, "approved", path)?.unwrap_or(false);
    let approver = owned(opt_str(p, "approver", path)?);
    let approved_at = owned(opt_str(p, "approved_at", path)?);
    let approved_digest = opt_str(p, "approved_digest", path)?
        .map(|d| bounded(d, "pin.approved_digest"))
        .transpose()?;
    let provenance_version = opt_int::<i64>(p, "provenance_version", path)?
        .unwrap_or(crate::pin::lock::format::PROVENANCE_VERSION);
    let pinner = match p.get("pinner") {
        None | Some(Value::Null) => None,
        Some(pinner) => {
            let pp = "pin.pinner";
            let pinner = object(pinner, pp)?;
            Some(LockPinner {
                tool: defaulted_str(pinner, "tool", pp)?
                    .unwrap_or("mcp-warden")
                    .to_string(),
                tool_version: defaulted_str(pinner, "tool_version", pp)?
                    .unwrap_or("unknown")
                    .to_string(),
                actor: owned(opt_str(pinner, "actor", pp)?),
                environment: owned(opt_str(pinner, "environment", pp)?),
            })
        }
    };
    let attestations = match p.get("attestations") {
        None => Vec::new(),
        Some(list) => array(list, "pin.attestations")?
            .iter()
            .enumerate()
            .map(|(i, a)| attestation(a, &format!("pin.attestations[{i}]")))
            .collect::<Check<_>>()?,
    };
    Ok(LockPin {
        created_at,
        warden_version,
        mcp_protocol_version,
        approved,
        approver,
        approved_at,
        approved_digest,
        provenance_version,
        pinner,
        attestations,
        rotated_at: owned(opt_str(p, "rotated_at", path)?),
        rotation_count: opt_int::<u64>(p, "rotation_count", path)?.unwrap_or(0),
    })
}

fn entries<T>(
    doc: &Value<'_>,
    key: &str,
    each: impl Fn(&Value<'_>, &str) -> Check<T>,
) -> Check<Vec<T>> {
    let items = array(required(doc, key, "")?, key)?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| each(item, &format!("{key}[{i}]")))
        .collect()
}

fn record(doc: &Value<'_>) -> Check<LockRecord> {
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
    let warden_version = req_str(doc, "warden_version", "")?.to_string();

    let server = object(required(doc, "server", "")?, "server")?;
    let command = defaulted_str(server, "command", "server")?.unwrap_or("");
    let args = match server.get("args") {
        None => Vec::new(),
        Some(a) => string_list(a, "server.args")?,
    };
    let url = opt_str(server, "url", "server")?;
    let command_digest = req_str(server, "command_digest", "server")?;
    let server = LockServer {
        command: bounded(command, "server.command")?,
        args: args
            .iter()
            .enumerate()
            .map(|(index, a)| {
                bounded(
                    a,
                    Indexed {
                        path: "server.args",
                        index,
                    },
                )
            })
            .collect::<Check<_>>()?,
        url: url.map(|u| bounded(u, "server.url")).transpose()?,
        command_digest: bounded(command_digest, "server.command_digest")?,
    };

    let tools = entries(doc, "tools", |v, p| tool(v, p, version))?;
    let resources = entries(doc, "resources", resource)?;
    let prompts = entries(doc, "prompts", prompt)?;
    let findings = array(required(doc, "findings", "")?, "findings")?
        .iter()
        .enumerate()
        .map(|(i, f)| finding(f, &format!("findings[{i}]")))
        .collect::<Check<_>>()?;
    let overall_digest = bounded(req_str(doc, "overall_digest", "")?, "overall_digest")?;
    let pin = pin(required(doc, "pin", "")?)?;

    Ok(LockRecord {
        schema_version: version,
        warden_version,
        server,
        tools,
        resources,
        prompts,
        findings,
        overall_digest,
        pin,
    })
}
