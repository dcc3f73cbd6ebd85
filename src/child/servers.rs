//! From a parsed document to server records: the union of `mcpServers` and
//! `servers`, `~/.claude.json` project sections, and each entry's typed body.
//!
//! Rules (DOCTOR.md §1, doctor reference §1.5, with the reference's gaps fixed):
//!
//! * Every JSON/JSONC file, and every `~/.claude.json` section, is the union of its
//!   `mcpServers` and `servers` maps: all `mcpServers` entries in file order, then
//!   every `servers` entry in file order. `null` counts as absent; any other
//!   non-object value is a Shape error naming the key.
//! * A name under both maps with a structurally equal body (member order ignored,
//!   numbers compared as the JavaScript clients compare them) keeps only the
//!   `mcpServers` copy; with different bodies both are kept and both are flagged.
//! * An entry is never dropped: a non-object entry or a wrong-typed field becomes
//!   `body: Err(reason)`. Numbers and booleans are never turned into strings.
//! * `null` for an optional field counts as absent, like a `null` map.
//! * `~/.claude.json`: section 0 is always the top level (possibly empty), then one
//!   section per `projects.<key>` object that declares at least one server or is
//!   malformed, in file order. A project value that is not an object cannot declare
//!   servers and is skipped. A malformed top-level map or project map becomes that
//!   section's error; the other sections are still returned. A `projects` value
//!   that is neither an object nor `null` fails the whole file.
//! * Plain JSON/JSONC/TOML files always have exactly one section (possibly empty).

use super::json::{excerpt, same_value, Member, Value};
use super::position::{line_col, line_cols};
use crate::protocol::bounds::{
    MAX_ENTRIES_PER_SERVER, MAX_SECTIONS_PER_FILE, MAX_SERVERS_PER_FILE, MAX_STRING_BYTES,
};
use crate::protocol::{
    LoadError, LoadErrorKind, ParsedConfig, Section, ServerBody, ServerEntry, ServerMap,
};

/// A document node the body extractor can read: a JSON value or a TOML value.
pub(crate) trait Node {
    /// The type's name with an article, in the file's own language ("an integer").
    fn kind(&self) -> &'static str;
    fn is_null(&self) -> bool;
    fn as_str(&self) -> Option<&str>;
    fn is_map(&self) -> bool;
    fn items(&self) -> Option<Vec<&Self>>;
    fn entries(&self) -> Option<Vec<(&str, &Self)>>;
    fn field(&self, key: &str) -> Option<&Self>;
}

impl Node for Value<'_> {
    fn kind(&self) -> &'static str {
        Value::kind(self)
    }
    fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }
    fn is_map(&self) -> bool {
        matches!(self, Value::Object(_))
    }
    fn items(&self) -> Option<Vec<&Self>> {
        match self {
            Value::Array(items) => Some(items.iter().collect()),
            _ => None,
        }
    }
    fn entries(&self) -> Option<Vec<(&str, &Self)>> {
        match self {
            Value::Object(members) => {
                Some(members.iter().map(|m| (m.key.as_ref(), &m.value)).collect())
            }
            _ => None,
        }
    }
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
}

/// Which file language the entry came from: it decides the header key and the
/// words used in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Json,
    Toml,
}

impl Dialect {
    fn map_kind(self) -> &'static str {
        match self {
            Dialect::Json => "an object",
            Dialect::Toml => "a table",
        }
    }
    fn headers_key(self) -> &'static str {
        match self {
            Dialect::Json => "headers",
            // Codex's streamable-HTTP servers.
            Dialect::Toml => "http_headers",
        }
    }
}

fn present<N: Node>(v: Option<&N>) -> Option<&N> {
    v.filter(|n| !n.is_null())
}

fn bounded(what: &str, s: &str) -> Result<String, String> {
    if s.len() > MAX_STRING_BYTES {
        Err(format!("{what} is longer than {MAX_STRING_BYTES} bytes"))
    } else {
        Ok(s.to_string())
    }
}

fn string_field<N: Node>(entry: &N, key: &str) -> Result<Option<String>, String> {
    match present(entry.field(key)) {
        None => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => bounded(key, s).map(Some),
            None => Err(format!("{key} must be a string (it is {})", v.kind())),
        },
    }
}

fn map_field<N: Node>(entry: &N, key: &str, d: Dialect) -> Result<Vec<(String, String)>, String> {
    let Some(v) = present(entry.field(key)) else {
        return Ok(Vec::new());
    };
    let Some(entries) = v.entries() else {
        return Err(format!(
            "{key} must be {} (it is {})",
            d.map_kind(),
            v.kind()
        ));
    };
    if entries.len() > MAX_ENTRIES_PER_SERVER {
        return Err(format!(
            "{key} has more than {MAX_ENTRIES_PER_SERVER} entries"
        ));
    }
    let mut out = Vec::with_capacity(entries.len());
    for (k, val) in entries {
        let name = bounded(&format!("a key in {key}"), k)?;
        match val.as_str() {
            Some(s) => out.push((name, bounded(&format!("{key}.{}", excerpt(k)), s)?)),
            None => {
                return Err(format!(
                    "{key}.{} must be a string (it is {})",
                    excerpt(k),
                    val.kind()
                ))
            }
        }
    }
    Ok(out)
}

/// The typed body of one server entry, or why its shape is wrong.
pub(crate) fn server_body<N: Node>(entry: &N, d: Dialect) -> Result<ServerBody, String> {
    if !entry.is_map() {
        return Err(format!(
            "server entry must be {} (it is {})",
            d.map_kind(),
            entry.kind()
        ));
    }
    let mut body = ServerBody {
        command: string_field(entry, "command")?,
        ..ServerBody::default()
    };
    if let Some(args) = present(entry.field("args")) {
        let Some(items) = args.items() else {
            return Err(format!(
                "args must be a list of strings (it is {})",
                args.kind()
            ));
        };
        if items.len() > MAX_ENTRIES_PER_SERVER {
            return Err(format!(
                "args has more than {MAX_ENTRIES_PER_SERVER} entries"
            ));
        }
        body.args.reserve(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match item.as_str() {
                Some(s) => body.args.push(bounded(&format!("args[{i}]"), s)?),
                None => {
                    return Err(format!(
                        "args must be a list of strings (args[{i}] is {})",
                        item.kind()
                    ))
                }
            }
        }
    }
    body.url = string_field(entry, "url")?;
    if d == Dialect::Json {
        body.transport = match string_field(entry, "type")? {
            Some(t) => Some(t),
            None => string_field(entry, "transport")?,
        };
    }
    body.env = map_field(entry, "env", d)?;
    body.headers = map_field(entry, d.headers_key(), d)?;
    Ok(body)
}

/// A server found in a document, before positions are resolved.
pub(crate) struct Found {
    pub map: ServerMap,
    pub name: String,
    pub offset: usize,
    pub ambiguous: bool,
    pub body: Result<ServerBody, String>,
}

/// A section's project key and its servers (or the error confined to it).
pub(crate) type PendingSection = (Option<String>, Result<Vec<Found>, LoadError>);

pub(crate) fn shape(message: String) -> LoadError {
    LoadError {
        kind: LoadErrorKind::Shape,
        message,
    }
}

fn checked_name(text: &str, name: &str, offset: usize, what: &str) -> Result<String, LoadError> {
    if name.len() > MAX_STRING_BYTES {
        let (line, col) = line_col(text, offset);
        return Err(shape(format!(
            "{what} at line {line} column {col} is longer than {MAX_STRING_BYTES} bytes"
        )));
    }
    Ok(name.to_string())
}

fn map_of<'v, 'a>(doc: &'v Value<'a>, key: &str) -> Result<Option<&'v [Member<'a>]>, LoadError> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(members)) => Ok(Some(members)),
        Some(other) => Err(shape(format!(
            "{key} must be an object (it is {})",
            other.kind()
        ))),
    }
}

/// The union of `mcpServers` and `servers` in one object.
fn union(text: &str, doc: &Value<'_>) -> Result<Vec<Found>, LoadError> {
    let mcp = map_of(doc, "mcpServers")?.unwrap_or_default();
    let vsc = map_of(doc, "servers")?.unwrap_or_default();
    let mut found: Vec<Found> = Vec::with_capacity(mcp.len() + vsc.len());
    for m in mcp {
        found.push(Found {
            map: ServerMap::McpServers,
            name: checked_name(text, &m.key, m.offset, "server name")?,
            offset: m.offset,
            ambiguous: false,
            body: server_body(&m.value, Dialect::Json),
        });
    }
    if vsc.is_empty() {
        return Ok(found);
    }
    // Names are unique within a map (duplicate keys are refused by the parser).
    let mut by_name: Vec<(&str, usize)> = mcp
        .iter()
        .enumerate()
        .map(|(i, m)| (m.key.as_ref(), i))
        .collect();
    by_name.sort_unstable();
    for m in vsc {
        let twin = by_name
            .binary_search_by(|(n, _)| (*n).cmp(m.key.as_ref()))
            .ok()
            .and_then(|i| by_name.get(i))
            .map(|&(_, i)| i);
        let mut ambiguous = false;
        if let Some(i) = twin {
            if mcp
                .get(i)
                .is_some_and(|other| same_value(&other.value, &m.value))
            {
                continue;
            }
            ambiguous = true;
            if let Some(f) = found.get_mut(i) {
                f.ambiguous = true;
            }
        }
        found.push(Found {
            map: ServerMap::Servers,
            name: checked_name(text, &m.key, m.offset, "server name")?,
            offset: m.offset,
            ambiguous,
            body: server_body(&m.value, Dialect::Json),
        });
    }
    Ok(found)
}

/// Sections of a JSON or JSONC config (`claude` for `~/.claude.json`).
pub(crate) fn json_config(
    text: &str,
    doc: &Value<'_>,
    claude: bool,
) -> Result<ParsedConfig, LoadError> {
    if !matches!(doc, Value::Object(_)) {
        return Err(shape(format!(
            "top-level config must be an object (it is {})",
            doc.kind()
        )));
    }
    let mut sections: Vec<PendingSection> = Vec::new();
    if !claude {
        sections.push((None, Ok(union(text, doc)?)));
        return finish(text, sections);
    }
    sections.push((None, union(text, doc)));
    let projects = match doc.get("projects") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Object(members)) => members.as_slice(),
        Some(other) => {
            return Err(shape(format!(
                "projects must be an object (it is {})",
                other.kind()
            )))
        }
    };
    for p in projects {
        if !matches!(p.value, Value::Object(_)) {
            continue;
        }
        let servers = union(text, &p.value);
        if matches!(&servers, Ok(found) if found.is_empty()) {
            continue;
        }
        if sections.len() >= MAX_SECTIONS_PER_FILE {
            return Err(shape(format!(
                "the file has more than {MAX_SECTIONS_PER_FILE} sections with servers"
            )));
        }
        let key = checked_name(text, &p.key, p.offset, "project key")?;
        sections.push((Some(key), servers));
    }
    finish(text, sections)
}

/// Resolve positions (one pass for the whole file) and build the records.
pub(crate) fn finish(text: &str, sections: Vec<PendingSection>) -> Result<ParsedConfig, LoadError> {
    let total: usize = sections
        .iter()
        .map(|(_, s)| s.as_ref().map_or(0, Vec::len))
        .sum();
    if total > MAX_SERVERS_PER_FILE {
        return Err(shape(format!(
            "the file declares more than {MAX_SERVERS_PER_FILE} servers"
        )));
    }
    let offsets: Vec<usize> = sections
        .iter()
        .flat_map(|(_, s)| s.iter().flatten().map(|f| f.offset))
        .collect();
    let mut positions = line_cols(text, &offsets).into_iter();
    let mut out = Vec::with_capacity(sections.len());
    for (project, servers) in sections {
        out.push(match servers {
            Ok(found) => Section {
                project,
                servers: found
                    .into_iter()
                    .map(|f| {
                        let (line, column) = positions.next().unwrap_or((1, 1));
                        ServerEntry {
                            map: f.map,
                            name: f.name,
                            ambiguous: f.ambiguous,
                            line,
                            column,
                            body: f.body,
                        }
                    })
                    .collect(),
                error: None,
            },
            Err(e) => Section {
                project,
                servers: Vec::new(),
                error: Some(e),
            },
        });
    }
    Ok(ParsedConfig { sections: out })
}
