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
//! * Repeated keys: every client keeps the last copy of a key, so a repeated
//!   server-bearing key is where a decoy hides. Every copy of a repeated
//!   `mcpServers`/`servers` key is read, and every copy of a repeated server name
//!   is sent, flagged [`Twin::DuplicateName`]. Inside an entry the last copy of a
//!   field is used (what the clients run) and the repeated field is recorded in
//!   `repeated_keys`. Repeated keys in parts no loader reads stay a syntax error.
//! * A `.mcp.json` without `mcpServers` is also read flat (recent VS Code): every
//!   other top-level object with a launch-shaped key is an entry ([`ServerMap::Flat`]).
//! * VS Code files (JSONC): a `__proto__` key anywhere in the parts read, or a
//!   dotted top-level `servers.`/`mcpServers.`/`inputs.` key, refuses the file with
//!   the construct named: VS Code's object building gives them a meaning no other
//!   reader sees.
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
use crate::hash::{HashMapExt, HashSetExt};
use crate::protocol::bounds::MAX_STRING_BYTES;
use crate::protocol::{
    ClientSetting, Construct, FieldRef, FileFormat, LoadError, LoadErrorKind, ParsedConfig,
    Section, ServerBody, ServerEntry, ServerExtra, ServerMap, SettingValue, Twin, ValueAt,
};

/// A document node the body extractor can read: a JSON value or a TOML value.
///
/// Lists and maps are read through iterators over the node's own storage: an
/// entry's lists and maps are read several times (typed, then located), and a
/// `Vec` collected for each read was a measurable part of extracting 20,000
/// servers.
pub(crate) trait Node {
    /// The type's name with an article, in the file's own language ("an integer").
    fn kind(&self) -> &'static str;
    fn is_null(&self) -> bool;
    fn as_str(&self) -> Option<&str>;
    fn is_map(&self) -> bool;
    /// The items of a list, each with the byte offset where it starts.
    fn items_at(&self) -> Option<impl ExactSizeIterator<Item = (&Self, usize)>>;
    /// The members of a map in file order, each with where its value starts.
    fn entries_at(
        &self,
    ) -> Option<impl ExactSizeIterator<Item = (&str, &Self, usize)> + DoubleEndedIterator>;
    /// The member named `key` (of repeated keys the last, as clients read it), with
    /// where its value starts.
    fn field_at(&self, key: &str) -> Option<(&Self, usize)>;
    fn items(&self) -> Option<impl ExactSizeIterator<Item = &Self>> {
        self.items_at().map(|items| items.map(|(v, _)| v))
    }
    fn entries(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Self)>> {
        self.entries_at()
            .map(|entries| entries.map(|(k, v, _)| (k, v)))
    }
    /// The member named `key`; of repeated keys the last, as clients read it.
    fn field(&self, key: &str) -> Option<&Self> {
        self.field_at(key).map(|(v, _)| v)
    }
    fn as_bool(&self) -> Option<bool>;
    /// Keys written more than once in this map (each once, in file order).
    fn repeated_keys(&self) -> Vec<&str>;
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
    fn items_at(&self) -> Option<impl ExactSizeIterator<Item = (&Self, usize)>> {
        match self {
            // Every item has its offset; one missing (none is) would read as 0.
            Value::Array(items, offsets) => {
                let offsets = offsets.as_deref().map_or(&[][..], Vec::as_slice);
                Some(
                    items
                        .iter()
                        .enumerate()
                        .map(move |(i, v)| (v, offsets.get(i).map_or(0, |&o| o as usize))),
                )
            }
            _ => None,
        }
    }
    fn entries_at(
        &self,
    ) -> Option<impl ExactSizeIterator<Item = (&str, &Self, usize)> + DoubleEndedIterator> {
        match self {
            Value::Object(members) => Some(
                members
                    .iter()
                    .map(|m| (m.key.as_ref(), &m.value, m.value_offset)),
            ),
            _ => None,
        }
    }
    fn field_at(&self, key: &str) -> Option<(&Self, usize)> {
        match self {
            Value::Object(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| (&m.value, m.value_offset)),
            _ => None,
        }
    }
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn repeated_keys(&self) -> Vec<&str> {
        match self {
            Value::Object(members) => repeated(members.len(), |i| {
                members.get(i).map_or("", |m| m.key.as_ref())
            }),
            _ => Vec::new(),
        }
    }
}

/// Keys that occur more than once among `n` keys, each once, in the order of their
/// second copy. An entry has a handful of keys: up to 16 are compared pairwise
/// without allocating; more go through a set.
pub(crate) fn repeated<'k>(n: usize, key: impl Fn(usize) -> &'k str) -> Vec<&'k str> {
    let mut out: Vec<&'k str> = Vec::new();
    if n <= 16 {
        for j in 1..n {
            let k = key(j);
            if (0..j).any(|i| key(i) == k) && !out.contains(&k) {
                out.push(k);
            }
        }
        return out;
    }
    // Two sets, so that a map of thousands of repeated keys stays linear.
    let mut seen = crate::hash::HashSet::with_capacity(n);
    let mut reported = crate::hash::HashSet::new();
    for i in 0..n {
        let k = key(i);
        if !seen.insert(k) && reported.insert(k) {
            out.push(k);
        }
    }
    out
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

pub(crate) fn present<N: Node>(v: Option<&N>) -> Option<&N> {
    v.filter(|n| !n.is_null())
}

pub(crate) fn bounded(what: &str, s: &str) -> Result<String, String> {
    bounded_as(s, || what.to_string())
}

/// [`bounded`] with the name built only when it is needed: an entry's map keys and
/// list items are named after their position, and formatting that name for every
/// accepted item was a measurable part of extracting 20,000 servers.
pub(crate) fn bounded_as(s: &str, what: impl FnOnce() -> String) -> Result<String, String> {
    if s.len() > MAX_STRING_BYTES {
        Err(format!(
            "{} is longer than {MAX_STRING_BYTES} bytes",
            what()
        ))
    } else {
        Ok(s.to_string())
    }
}

pub(crate) fn string_field<N: Node>(entry: &N, key: &str) -> Result<Option<String>, String> {
    string_value(entry.field(key), key)
}

/// [`string_field`] of the value `v` of the field `key`.
fn string_value<N: Node>(v: Option<&N>, key: &str) -> Result<Option<String>, String> {
    match present(v) {
        None => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => bounded(key, s).map(Some),
            None => Err(format!("{key} must be a string (it is {})", v.kind())),
        },
    }
}

pub(crate) fn bool_field<N: Node>(entry: &N, key: &str) -> Result<Option<bool>, String> {
    bool_value(entry.field(key), key)
}

/// [`bool_field`] of the value `v` of the field `key`.
fn bool_value<N: Node>(v: Option<&N>, key: &str) -> Result<Option<bool>, String> {
    match present(v) {
        None => Ok(None),
        Some(v) => match v.as_bool() {
            Some(b) => Ok(Some(b)),
            None => Err(format!("{key} must be a boolean (it is {})", v.kind())),
        },
    }
}

/// A string map, with the last copy of a repeated key kept (as clients keep it);
/// each repeated key is added to `repeated` as `<map>.<key>`.
pub(crate) fn map_field<N: Node>(
    entry: &N,
    key: &str,
    d: Dialect,
    seen_twice: &mut Vec<String>,
) -> Result<Vec<(String, String)>, String> {
    map_value(entry.field(key), key, d, seen_twice)
}

/// [`map_field`] of the value `v` of the field `key`.
fn map_value<N: Node>(
    v: Option<&N>,
    key: &str,
    d: Dialect,
    seen_twice: &mut Vec<String>,
) -> Result<Vec<(String, String)>, String> {
    let Some(v) = present(v) else {
        return Ok(Vec::new());
    };
    let Some(entries) = v.entries() else {
        return Err(format!(
            "{key} must be {} (it is {})",
            d.map_kind(),
            v.kind()
        ));
    };
    let mut out: Vec<(String, String)> = Vec::with_capacity(entries.len());
    for (k, val) in entries {
        let name = bounded_as(k, || format!("a key in {key}"))?;
        let value = match val.as_str() {
            Some(s) => bounded_as(s, || format!("{key}.{}", excerpt(k)))?,
            None => {
                return Err(format!(
                    "{key}.{} must be a string (it is {})",
                    excerpt(k),
                    val.kind()
                ))
            }
        };
        out.push((name, value));
    }
    // Keep the last copy of a repeated key, where it stands (the clients' reading).
    let twice = self::repeated(out.len(), |i| {
        out.get(i)
            .map_or("", |(n, _): &(String, String)| n.as_str())
    });
    if !twice.is_empty() {
        let twice: Vec<String> = twice.into_iter().map(str::to_string).collect();
        let mut last: crate::hash::HashMap<&str, usize> = crate::hash::HashMap::new();
        for (i, (n, _)) in out.iter().enumerate() {
            last.insert(n.as_str(), i);
        }
        let keep: Vec<bool> = out
            .iter()
            .enumerate()
            .map(|(i, (n, _))| last.get(n.as_str()) == Some(&i))
            .collect();
        let mut flags = keep.into_iter();
        out.retain(|_| flags.next().unwrap_or(true));
        let mut known: crate::hash::HashSet<String> = seen_twice.iter().cloned().collect();
        for t in &twice {
            let what = format!("{key}.{}", excerpt(t));
            if known.insert(what.clone()) {
                seen_twice.push(what);
            }
        }
    }
    Ok(out)
}

/// A list of strings (`args`, `autoApprove`, ...), or why it is not one.
pub(crate) fn string_list<N: Node>(entry: &N, key: &str) -> Result<Option<Vec<String>>, String> {
    list_value(entry.field(key), key)
}

/// [`string_list`] of the value `v` of the field `key`.
fn list_value<N: Node>(v: Option<&N>, key: &str) -> Result<Option<Vec<String>>, String> {
    let Some(list) = present(v) else {
        return Ok(None);
    };
    let Some(items) = list.items() else {
        return Err(format!(
            "{key} must be a list of strings (it is {})",
            list.kind()
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.enumerate() {
        match item.as_str() {
            Some(s) => out.push(bounded_as(s, || format!("{key}[{i}]"))?),
            None => {
                return Err(format!(
                    "{key} must be a list of strings ({key}[{i}] is {})",
                    item.kind()
                ))
            }
        }
    }
    Ok(Some(out))
}

/// Codex tool approval modes: `("*", default_tools_approval_mode)`, then
/// `(tool, tools.<tool>.approval_mode)` for each tool that sets one, as written.
fn tool_approvals<N: Node>(entry: &N) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    if let Some(mode) = string_field(entry, "default_tools_approval_mode")? {
        out.push(("*".to_string(), mode));
    }
    let Some(tools) = present(entry.field("tools")) else {
        return Ok(out);
    };
    let Some(tools) = tools.entries() else {
        return Err(format!("tools must be a table (it is {})", tools.kind()));
    };
    for (name, tool) in tools {
        if !tool.is_map() {
            return Err(format!(
                "tools.{} must be a table (it is {})",
                excerpt(name),
                tool.kind()
            ));
        }
        let Some(mode) = present(tool.field("approval_mode")) else {
            continue;
        };
        let Some(mode) = mode.as_str() else {
            return Err(format!(
                "tools.{}.approval_mode must be a string (it is {})",
                excerpt(name),
                mode.kind()
            ));
        };
        out.push((
            bounded("a tool name", name)?,
            bounded_as(mode, || format!("tools.{}.approval_mode", excerpt(name)))?,
        ));
    }
    Ok(out)
}

/// Codex `env_vars`: a list of names, or of `{ name = …, source = … }` tables.
fn env_vars<N: Node>(entry: &N) -> Result<Vec<String>, String> {
    let Some(list) = present(entry.field("env_vars")) else {
        return Ok(Vec::new());
    };
    let Some(items) = list.items() else {
        return Err(format!("env_vars must be an array (it is {})", list.kind()));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.enumerate() {
        let name = match item.as_str() {
            Some(s) => s,
            None => match item.field("name").and_then(Node::as_str) {
                Some(s) if item.is_map() => s,
                _ => {
                    return Err(format!(
                        "env_vars[{i}] must be a name or a table with a name (it is {})",
                        item.kind()
                    ))
                }
            },
        };
        out.push(bounded_as(name, || format!("env_vars[{i}]"))?);
    }
    Ok(out)
}

/// Byte offsets of an entry's values, by field (see [`crate::protocol::ValueAt`]).
pub(crate) type Offsets = Vec<(FieldRef, usize)>;

/// A body and where its values start.
pub(crate) type Located = (ServerBody, Offsets);

/// Index of an item of one of the body's lists (fewer than the file's bytes, and
/// the child cannot read a 4 GiB file, so it always fits).
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The keys [`server_body_at`] reads of an entry, in [`Known`]'s slot order.
const KNOWN_KEYS: [&str; 23] = [
    "command",
    "args",
    "url",
    "env",
    "headers",
    "http_headers",
    "cwd",
    "type",
    "transport",
    "serverUrl",
    "httpUrl",
    "headersHelper",
    "disabled",
    "enabled",
    "autoApprove",
    "alwaysAllow",
    "trust",
    "bearer_token_env_var",
    "bearer_token",
    "env_http_headers",
    "env_vars",
    "default_tools_approval_mode",
    "tools",
];

/// The slot of `key` in [`KNOWN_KEYS`] (inline: the keys asked are constants).
#[inline(always)]
fn known_slot(key: &str) -> Option<usize> {
    Some(match key {
        "command" => 0,
        "args" => 1,
        "url" => 2,
        "env" => 3,
        "headers" => 4,
        "http_headers" => 5,
        "cwd" => 6,
        "type" => 7,
        "transport" => 8,
        "serverUrl" => 9,
        "httpUrl" => 10,
        "headersHelper" => 11,
        "disabled" => 12,
        "enabled" => 13,
        "autoApprove" => 14,
        "alwaysAllow" => 15,
        "trust" => 16,
        "bearer_token_env_var" => 17,
        "bearer_token" => 18,
        "env_http_headers" => 19,
        "env_vars" => 20,
        "default_tools_approval_mode" => 21,
        "tools" => 22,
        _ => return None,
    })
}

/// The fields of one entry that a body reads, each found once: the body and its
/// positions look up some twenty keys, typed then located, and searching the
/// entry's members for each of them was most of the cost of extracting a JSON
/// entry. A JSON entry's members are read in one pass, each into its key's slot,
/// so a later copy of a key replaces an earlier one: the last copy, which is what
/// [`Node::field_at`] answers. Any other entry (TOML, whose lookups are its own)
/// asks [`Node::field_at`] once per key.
#[derive(Clone, Copy)]
pub(crate) struct Known<'n, N: Node> {
    entry: &'n N,
    slots: [Option<(&'n N, usize)>; KNOWN_KEYS.len()],
}

impl<'n, N: Node> Known<'n, N> {
    fn of(entry: &'n N, d: Dialect) -> Self {
        let mut slots = [None; KNOWN_KEYS.len()];
        match d {
            Dialect::Json => {
                for (key, value, at) in entry.entries_at().into_iter().flatten() {
                    if let Some(slot) = known_slot(key).and_then(|i| slots.get_mut(i)) {
                        *slot = Some((value, at));
                    }
                }
            }
            Dialect::Toml => {
                for (slot, key) in slots.iter_mut().zip(KNOWN_KEYS) {
                    *slot = entry.field_at(key);
                }
            }
        }
        Known { entry, slots }
    }

    /// [`Node::field_at`] of the entry.
    #[inline(always)]
    fn field_at(&self, key: &str) -> Option<(&'n N, usize)> {
        match known_slot(key).and_then(|i| self.slots.get(i)) {
            Some(found) => *found,
            None => self.entry.field_at(key),
        }
    }

    /// [`Node::field`] of the entry.
    #[inline(always)]
    fn field(&self, key: &str) -> Option<&'n N> {
        self.field_at(key).map(|(v, _)| v)
    }
}

/// Records where the values of one entry's fields start, for fields the body has.
pub(crate) struct ValueOffsets<'n, N: Node> {
    pub entry: &'n N,
    pub out: Offsets,
    /// The entry's fields, when [`server_body_at`] has looked them up already.
    known: Option<&'n Known<'n, N>>,
}

impl<'n, N: Node> ValueOffsets<'n, N> {
    pub(crate) fn new(entry: &'n N) -> Self {
        ValueOffsets {
            entry,
            out: Vec::new(),
            known: None,
        }
    }

    /// The member `key` of the entry (the last copy).
    fn lookup(&self, key: &str) -> Option<(&'n N, usize)> {
        match self.known {
            Some(known) => known.field_at(key),
            None => self.entry.field_at(key),
        }
    }

    /// The value of `key` (present: not null) as `field`.
    pub(crate) fn scalar(&mut self, key: &str, field: FieldRef, has: bool) {
        if !has {
            return;
        }
        if let Some((v, at)) = self.lookup(key) {
            if !v.is_null() {
                self.out.push((field, at));
            }
        }
    }

    /// Each item of the list `key`, the `n`-th as `field(n - skip)` (items before
    /// `skip` are not recorded: OpenCode's program is item 0 of `command`).
    pub(crate) fn list(&mut self, key: &str, skip: usize, field: fn(u32) -> FieldRef) {
        let Some(items) = present(self.lookup(key).map(|(v, _)| v)).and_then(Node::items_at) else {
            return;
        };
        self.out.reserve(items.len().saturating_sub(skip));
        for (i, (_, at)) in items.enumerate().skip(skip) {
            self.out.push((field(index(i - skip)), at));
        }
    }

    /// The value of each kept pair of the map `key` (the last copy of a repeated
    /// key, where the child kept it), as `field(i)`.
    pub(crate) fn map(&mut self, key: &str, kept: &[(String, String)], field: fn(u32) -> FieldRef) {
        if kept.is_empty() {
            return;
        }
        let Some(map) = present(self.lookup(key).map(|(v, _)| v)) else {
            return;
        };
        let Some(entries) = map.entries_at() else {
            return;
        };
        // An entry's map has a handful of pairs: search them from the end (the last
        // copy) without building a table; a long one goes through a table.
        if entries.len() <= 16 {
            for (i, (k, _)) in kept.iter().enumerate() {
                let last = map
                    .entries_at()
                    .and_then(|mut e| e.rfind(|(n, _, _)| *n == k.as_str()));
                if let Some((_, _, at)) = last {
                    self.out.push((field(index(i)), at));
                }
            }
            return;
        }
        let mut last: crate::hash::HashMap<&str, usize> =
            crate::hash::HashMap::with_capacity(entries.len());
        for (k, _, at) in entries {
            last.insert(k, at);
        }
        for (i, (k, _)) in kept.iter().enumerate() {
            if let Some(&at) = last.get(k.as_str()) {
                self.out.push((field(index(i)), at));
            }
        }
    }

    /// The offsets, sorted by field and each field once (the wire order).
    pub(crate) fn finish(mut self) -> Offsets {
        self.out.sort_by_key(|(f, _)| *f);
        self.out.dedup_by_key(|(f, _)| *f);
        self.out
    }
}

/// The typed body of one server entry, or why its shape is wrong, with where each
/// of its values starts. Every field any client reads is kept as written;
/// `crate::reading` decides, per client, which of them make the launch.
pub(crate) fn server_body_at<N: Node>(entry: &N, d: Dialect) -> Result<Located, String> {
    if !entry.is_map() {
        return Err(format!(
            "server entry must be {} (it is {})",
            d.map_kind(),
            entry.kind()
        ));
    }
    let known = Known::of(entry, d);
    let body = typed_body(entry, &known, d, true)?;
    let mut at = ValueOffsets {
        entry,
        out: Vec::new(),
        known: Some(&known),
    };
    at.scalar("command", FieldRef::Command, body.command.is_some());
    at.list("args", 0, FieldRef::Arg);
    at.scalar("url", FieldRef::Url, body.url.is_some());
    at.map("env", &body.env, FieldRef::Env);
    at.map(d.headers_key(), &body.headers, FieldRef::Header);
    let x = body.extra();
    at.scalar("cwd", FieldRef::Cwd, x.cwd.is_some());
    at.scalar("enabled", FieldRef::Enabled, x.enabled.is_some());
    match d {
        Dialect::Json => {
            at.scalar("type", FieldRef::Transport, body.transport.is_some());
            at.scalar(
                "transport",
                FieldRef::TransportKey,
                x.transport_key.is_some(),
            );
            at.scalar("serverUrl", FieldRef::ServerUrl, x.server_url.is_some());
            at.scalar("httpUrl", FieldRef::HttpUrl, x.http_url.is_some());
            at.scalar(
                "headersHelper",
                FieldRef::HeadersHelper,
                x.headers_helper.is_some(),
            );
            at.scalar("disabled", FieldRef::Disabled, x.disabled.is_some());
            at.scalar(
                "autoApprove",
                FieldRef::AutoApprove,
                !x.auto_approve.is_empty(),
            );
            at.scalar(
                "alwaysAllow",
                FieldRef::AlwaysAllow,
                !x.always_allow.is_empty(),
            );
            at.scalar("trust", FieldRef::Trust, x.trust.is_some());
        }
        Dialect::Toml => {
            at.scalar(
                "bearer_token_env_var",
                FieldRef::BearerTokenEnvVar,
                x.bearer_token_env_var.is_some(),
            );
            at.scalar(
                "bearer_token",
                FieldRef::BearerToken,
                x.bearer_token.is_some(),
            );
            at.map(
                "env_http_headers",
                &x.env_http_headers,
                FieldRef::EnvHttpHeader,
            );
            at.list("env_vars", 0, FieldRef::EnvVar);
            tool_approval_offsets(entry, &mut at);
        }
    }
    let offsets = at.finish();
    Ok((body, offsets))
}

/// Where each Codex tool approval mode is written, in [`tool_approvals`] order.
fn tool_approval_offsets<N: Node>(entry: &N, at: &mut ValueOffsets<'_, N>) {
    let mut i = 0usize;
    if let Some((mode, offset)) = entry.field_at("default_tools_approval_mode") {
        if mode.as_str().is_some() {
            at.out.push((FieldRef::ToolApproval(index(i)), offset));
            i += 1;
        }
    }
    let Some(tools) = present(entry.field("tools")).and_then(Node::entries) else {
        return;
    };
    for (_, tool) in tools {
        if let Some((mode, offset)) = tool.field_at("approval_mode") {
            if mode.as_str().is_some() {
                at.out.push((FieldRef::ToolApproval(index(i)), offset));
                i += 1;
            }
        }
    }
}

/// The keys of a JSON entry's extra record ([`ServerExtra`]).
const JSON_EXTRA_KEYS: [&str; 10] = [
    "cwd",
    "transport",
    "serverUrl",
    "httpUrl",
    "headersHelper",
    "disabled",
    "enabled",
    "autoApprove",
    "alwaysAllow",
    "trust",
];

/// The typed body of a map `entry` whose fields are `known`. `shortcut`: take the
/// way out for an entry without extra fields (off only in the test that holds
/// the shortcut to the full reading).
fn typed_body<N: Node>(
    entry: &N,
    known: &Known<'_, N>,
    d: Dialect,
    shortcut: bool,
) -> Result<ServerBody, String> {
    let string = |key: &str| string_value(known.field(key), key);
    let boolean = |key: &str| bool_value(known.field(key), key);
    let list = |key: &str| list_value(known.field(key), key);
    let mut repeated: Vec<String> = entry.repeated_keys().into_iter().map(excerpt).collect();
    let mut body = ServerBody {
        command: string("command")?,
        ..ServerBody::default()
    };
    body.args = list("args")?.unwrap_or_default();
    body.url = string("url")?;
    body.env = map_value(known.field("env"), "env", d, &mut repeated)?;
    let headers = d.headers_key();
    body.headers = map_value(known.field(headers), headers, d, &mut repeated)?;
    // Most JSON entries write none of the extra fields and repeat no key: then
    // the only field left is `type` (which sits between them in the order the
    // fields are checked, and an absent field cannot fail), and the extra record
    // stays empty, without building one to find out.
    if shortcut
        && d == Dialect::Json
        && repeated.is_empty()
        && JSON_EXTRA_KEYS.iter().all(|k| known.field(k).is_none())
    {
        body.transport = string("type")?;
        return Ok(body);
    }
    let mut extra = ServerExtra {
        cwd: string("cwd")?,
        ..ServerExtra::default()
    };
    match d {
        Dialect::Json => {
            body.transport = string("type")?;
            extra.transport_key = string("transport")?;
            extra.server_url = string("serverUrl")?;
            extra.http_url = string("httpUrl")?;
            extra.headers_helper = string("headersHelper")?;
            extra.disabled = boolean("disabled")?;
            extra.enabled = boolean("enabled")?;
            extra.auto_approve = list("autoApprove")?.unwrap_or_default();
            extra.always_allow = list("alwaysAllow")?.unwrap_or_default();
            extra.trust = boolean("trust")?;
        }
        Dialect::Toml => {
            extra.bearer_token_env_var = string("bearer_token_env_var")?;
            extra.bearer_token = string("bearer_token")?;
            let key = "env_http_headers";
            extra.env_http_headers = map_value(known.field(key), key, d, &mut repeated)?;
            extra.enabled = boolean("enabled")?;
            extra.env_vars = env_vars(entry)?;
            extra.tool_approvals = tool_approvals(entry)?;
        }
    }
    extra.repeated_keys = repeated;
    // Nearly every entry's extra record is empty: it is kept only when it is not.
    if !no_extra(&extra) {
        body.extra = vec![extra];
    }
    Ok(body)
}

/// Whether `x` holds nothing (`ServerExtra::default()`), field by field: nearly
/// every entry's is empty, and building a default to compare it with cost more
/// than the test. Naming every field makes a new one a compile error here.
fn no_extra(x: &ServerExtra) -> bool {
    let ServerExtra {
        server_url,
        http_url,
        transport_key,
        env_vars,
        cwd,
        headers_helper,
        bearer_token_env_var,
        bearer_token,
        env_http_headers,
        disabled,
        enabled,
        auto_approve,
        always_allow,
        trust,
        tool_approvals,
        repeated_keys,
    } = x;
    [
        server_url,
        http_url,
        transport_key,
        cwd,
        headers_helper,
        bearer_token_env_var,
        bearer_token,
    ]
    .iter()
    .all(|s| s.is_none())
        && [disabled, enabled, trust].iter().all(|b| b.is_none())
        && [env_vars, auto_approve, always_allow, repeated_keys]
            .iter()
            .all(|v| v.is_empty())
        && env_http_headers.is_empty()
        && tool_approvals.is_empty()
}

/// A server found in a document, before positions are resolved.
pub(crate) struct Found {
    pub map: ServerMap,
    pub name: String,
    pub offset: usize,
    pub twin: Option<Twin>,
    pub body: Result<ServerBody, String>,
    /// Where the body's values start (empty for a wrong shape).
    pub values: Offsets,
}

impl Found {
    /// An entry named `name` whose key is at `offset`, not (yet) a twin.
    pub(crate) fn new(
        map: ServerMap,
        name: String,
        offset: usize,
        body: Result<Located, String>,
    ) -> Found {
        let (body, values) = match body {
            Ok((body, values)) => (Ok(body), values),
            Err(e) => (Err(e), Vec::new()),
        };
        Found {
            map,
            name,
            offset,
            twin: None,
            body,
            values,
        }
    }
}

/// A client setting found in a document: the offset of its key and its value.
pub(crate) struct FoundSetting {
    pub offset: usize,
    pub value: SettingValue,
}

/// One section before positions are resolved.
pub(crate) struct PendingSection {
    /// `Some(key)` for a `~/.claude.json` `projects[key]`.
    pub project: Option<String>,
    /// The section's servers, or the error confined to it.
    pub servers: Result<Vec<Found>, LoadError>,
    pub settings: Vec<FoundSetting>,
    /// Malformed settings (the first few; `more_problems` counts the rest): they
    /// become the section's error, and the section's servers and other settings
    /// are still sent. Their positions are resolved with the others, in one pass.
    pub settings_problems: Vec<SettingProblem>,
    pub more_problems: usize,
}

/// A malformed setting, before its position is resolved.
pub(crate) struct SettingProblem {
    pub offset: usize,
    /// The setting's name (its dotted path).
    pub key: String,
    /// What is wrong, completing "the setting <key> at line L column C …".
    pub reason: String,
}

/// Settings problems kept per section (the rest are counted).
pub(crate) const MAX_SETTING_PROBLEMS: usize = 4;

impl PendingSection {
    /// A section of servers only.
    pub(crate) fn of_servers(
        project: Option<String>,
        servers: Result<Vec<Found>, LoadError>,
    ) -> Self {
        PendingSection {
            project,
            servers,
            settings: Vec::new(),
            settings_problems: Vec::new(),
            more_problems: 0,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        matches!(&self.servers, Ok(found) if found.is_empty())
            && self.settings.is_empty()
            && self.settings_problems.is_empty()
    }
}

/// How one entry's value becomes its body (the client's shape of an entry).
pub(crate) type BodyReader = fn(&Value<'_>) -> Result<Located, String>;

/// The plain JSON entry shape (`command`, `args`, `env`, `url`, ...).
pub(crate) fn json_body(v: &Value<'_>) -> Result<Located, String> {
    server_body_at(v, Dialect::Json)
}

pub(crate) fn shape(message: String) -> LoadError {
    LoadError {
        kind: LoadErrorKind::Shape,
        message,
        construct: None,
    }
}

pub(crate) fn refused(message: String, construct: Construct) -> LoadError {
    LoadError {
        kind: LoadErrorKind::Shape,
        message,
        construct: Some(construct),
    }
}

pub(crate) fn checked_name(
    text: &str,
    name: &str,
    offset: usize,
    what: &str,
) -> Result<String, LoadError> {
    checked_name_at(name, || line_col(text, offset), what)
}

/// [`checked_name`] with the name's position from `at`, asked only when the name
/// is refused.
pub(crate) fn checked_name_at(
    name: &str,
    at: impl FnOnce() -> (u32, u32),
    what: &str,
) -> Result<String, LoadError> {
    if name.len() > MAX_STRING_BYTES {
        let (line, col) = at();
        return Err(shape(format!(
            "{what} at line {line} column {col} is longer than {MAX_STRING_BYTES} bytes"
        )));
    }
    Ok(name.to_string())
}

/// Every copy of the map `key` in `doc`, in file order: a repeated `mcpServers` key
/// is a decoy for whichever copy a reader skips, so each copy is read.
pub(crate) fn maps_of<'v, 'a>(
    doc: &'v Value<'a>,
    key: &str,
) -> Result<Vec<&'v [Member<'a>]>, LoadError> {
    let Value::Object(members) = doc else {
        return Ok(Vec::new());
    };
    maps_in(members.iter().filter(|m| m.key == key), key)
}

/// The object values of `members` (every copy of the map `what`), `null` skipped;
/// any other value is a Shape error naming `what`.
pub(crate) fn maps_in<'v, 'a>(
    members: impl Iterator<Item = &'v Member<'a>>,
    what: &str,
) -> Result<Vec<&'v [Member<'a>]>, LoadError> {
    let mut out = Vec::new();
    for m in members {
        match &m.value {
            Value::Null => {}
            Value::Object(inner) => out.push(inner.as_slice()),
            other => {
                return Err(shape(format!(
                    "{what} must be an object (it is {})",
                    other.kind()
                )))
            }
        }
    }
    Ok(out)
}

/// Whether a top-level member of a `.mcp.json` without `mcpServers` is read as a
/// server by the flat reading: an object with a launch-shaped key.
fn looks_like_server(value: &Value<'_>) -> bool {
    ["command", "url", "type", "serverUrl", "httpUrl"]
        .iter()
        .any(|k| value.get(k).is_some())
}

/// Entries of one map kind (every copy of the key), with repeated names flagged.
pub(crate) fn entries_of(
    text: &str,
    maps: &[&[Member<'_>]],
    map: ServerMap,
    body: BodyReader,
    out: &mut Vec<Found>,
) -> Result<(), LoadError> {
    let first = out.len();
    let mut last_copy_starts = first;
    for members in maps {
        last_copy_starts = out.len();
        for m in members.iter() {
            out.push(Found::new(
                map,
                checked_name(text, &m.key, m.offset, "server name")?,
                m.offset,
                body(&m.value),
            ));
        }
    }
    flag_repeated_names(out.get_mut(first..).unwrap_or_default());
    flag_earlier_copy(out.get_mut(first..last_copy_starts).unwrap_or_default());
    Ok(())
}

/// What the union rules read and mark of an entry, before or after its positions
/// are resolved: the tree reader's [`Found`] and the streamed `~/.claude.json`
/// reader's finished [`ServerEntry`] go through the same rules (`claude.rs`).
pub(crate) trait Declared {
    fn name(&self) -> &str;
    fn twin_mut(&mut self) -> &mut Option<Twin>;
}

impl Declared for Found {
    fn name(&self) -> &str {
        &self.name
    }
    fn twin_mut(&mut self) -> &mut Option<Twin> {
        &mut self.twin
    }
}

impl Declared for ServerEntry {
    fn name(&self) -> &str {
        &self.name
    }
    fn twin_mut(&mut self) -> &mut Option<Twin> {
        &mut self.twin
    }
}

/// Mark entries of an earlier copy of a repeated key (clients read the last).
pub(crate) fn flag_earlier_copy<T: Declared>(found: &mut [T]) {
    for f in found {
        f.twin_mut().get_or_insert(Twin::EarlierCopy);
    }
}

/// Mark every copy of a name that occurs more than once.
pub(crate) fn flag_repeated_names<T: Declared>(found: &mut [T]) {
    let repeated: crate::hash::HashSet<String> =
        repeated(found.len(), |i| found.get(i).map_or("", |f| f.name()))
            .into_iter()
            .map(str::to_string)
            .collect();
    if repeated.is_empty() {
        return;
    }
    for f in found.iter_mut() {
        if repeated.contains(f.name()) {
            *f.twin_mut() = Some(Twin::DuplicateName);
        }
    }
}

/// The union of `mcpServers` and `servers` in one object (every copy of each key),
/// plus, for a `.mcp.json` without `mcpServers`, the flat reading of its other
/// top-level members.
fn union(text: &str, doc: &Value<'_>, flat: bool) -> Result<Vec<Found>, LoadError> {
    let mcp = maps_of(doc, "mcpServers")?;
    let vsc = maps_of(doc, "servers")?;
    let mut found = union_of(text, &mcp, &vsc)?;
    if flat && mcp.is_empty() {
        if let Value::Object(members) = doc {
            let first = found.len();
            for m in members
                .iter()
                .filter(|m| m.key != "servers" && m.key != "mcpServers")
                .filter(|m| matches!(m.value, Value::Object(_)) && looks_like_server(&m.value))
            {
                found.push(Found::new(
                    ServerMap::Flat,
                    checked_name(text, &m.key, m.offset, "server name")?,
                    m.offset,
                    server_body_at(&m.value, Dialect::Json),
                ));
            }
            flag_repeated_names(found.get_mut(first..).unwrap_or_default());
        }
    }
    Ok(found)
}

/// The union of every copy of an `mcpServers` map (`mcp`) and of a `servers` map
/// (`vsc`): all `mcpServers` entries, then each `servers` entry unless it is the
/// single, structurally equal twin of a `mcpServers` one.
pub(crate) fn union_of(
    text: &str,
    mcp: &[&[Member<'_>]],
    vsc: &[&[Member<'_>]],
) -> Result<Vec<Found>, LoadError> {
    let mut found: Vec<Found> = Vec::new();
    entries_of(text, mcp, ServerMap::McpServers, json_body, &mut found)?;
    if vsc.is_empty() {
        return Ok(found);
    }
    let mut servers = Vec::new();
    entries_of(text, vsc, ServerMap::Servers, json_body, &mut servers)?;
    let mcp_members: Vec<&Member<'_>> = mcp.iter().flat_map(|m| m.iter()).collect();
    let vsc_members: Vec<&Member<'_>> = vsc.iter().flat_map(|m| m.iter()).collect();
    Ok(merge_maps(found, servers, |i, j| {
        match (mcp_members.get(i), vsc_members.get(j)) {
            (Some(a), Some(b)) => same_value(&a.value, &b.value),
            _ => false,
        }
    }))
}

/// The both-maps rule over the entries of every `mcpServers` copy (`found`, file
/// order) and of every `servers` copy (`servers`): each `servers` entry is appended
/// unless it is the single twin of a `mcpServers` entry of the same name and `same`
/// (the `mcpServers` entry's index, the `servers` entry's index) says their bodies
/// are structurally equal; otherwise both sides of a shared name are flagged
/// [`Twin::BothMaps`] (unless already flagged).
pub(crate) fn merge_maps<T: Declared>(
    mut found: Vec<T>,
    servers: Vec<T>,
    mut same: impl FnMut(usize, usize) -> bool,
) -> Vec<T> {
    // The `mcpServers` entries by name; stable, so among equal names the last
    // index sorts last (the copy clients read, for the comparison).
    let mut by_name: Vec<usize> = (0..found.len()).collect();
    by_name.sort_by(|&a, &b| name_of(&found, a).cmp(name_of(&found, b)));
    for (j, mut entry) in servers.into_iter().enumerate() {
        let lo = by_name.partition_point(|&i| name_of(&found, i) < entry.name());
        let hi = by_name.partition_point(|&i| name_of(&found, i) <= entry.name());
        let twins = by_name.get(lo..hi).unwrap_or_default();
        if let Some(&last) = twins.last() {
            let single = twins.len() == 1 && entry.twin_mut().is_none();
            if single && same(last, j) {
                continue;
            }
            entry.twin_mut().get_or_insert(Twin::BothMaps);
            for &i in twins {
                if let Some(f) = found.get_mut(i) {
                    f.twin_mut().get_or_insert(Twin::BothMaps);
                }
            }
        }
        found.push(entry);
    }
    found
}

fn name_of<T: Declared>(found: &[T], i: usize) -> &str {
    found.get(i).map_or("", |f| f.name())
}

/// VS Code builds its objects by assignment, so a `__proto__` key sets an object's
/// prototype instead of adding a member: servers can hide in it, and fields can be
/// inherited by an entry. An older VS Code also splits dotted top-level keys into
/// nested ones (`dotted`: VS Code files only). Neither is modelled: the file is
/// refused, naming the construct. Claude Code's files are read with `JSON.parse`,
/// which makes `__proto__` an ordinary key, as doctor does.
pub(crate) fn refuse_assignment_constructs(
    text: &str,
    doc: &Value<'_>,
    dotted: bool,
) -> Result<(), LoadError> {
    if let (Value::Object(members), true) = (doc, dotted) {
        for m in members {
            let head = m.key.split('.').next().unwrap_or_default();
            if m.key.contains('.') && matches!(head, "servers" | "mcpServers" | "inputs") {
                let (line, col) = line_col(text, m.offset);
                return Err(refused(
                    format!(
                        "the top-level key \"{}\" at line {line} column {col} has a dot; VS Code \
                         1.99 to 1.101 split it into nested keys, so it may declare servers doctor \
                         cannot see; write it as nested objects",
                        excerpt(&m.key)
                    ),
                    Construct::DottedKey,
                ));
            }
        }
    }
    // Iterative walk over the built tree (bounded by the parser's depth limit).
    let mut stack: Vec<&Value<'_>> = vec![doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(members) => {
                for m in members {
                    if m.key == "__proto__" {
                        let (line, col) = line_col(text, m.offset);
                        return Err(refused(
                            format!(
                                "a \"__proto__\" key at line {line} column {col}; a reader that \
                                 builds objects by assignment (VS Code does) makes it the object's \
                                 prototype, so servers or fields can hide in it; remove or rename \
                                 the key"
                            ),
                            Construct::ProtoKey,
                        ));
                    }
                    stack.push(&m.value);
                }
            }
            Value::Array(items, _) => stack.extend(items.iter()),
            _ => {}
        }
    }
    Ok(())
}

/// The top level of a config, which must be an object.
pub(crate) fn top_level<'v, 'a>(doc: &'v Value<'a>) -> Result<&'v [Member<'a>], LoadError> {
    match doc {
        Value::Object(members) => Ok(members),
        other => Err(shape(format!(
            "top-level config must be an object (it is {})",
            other.kind()
        ))),
    }
}

/// Sections of a JSON or JSONC config.
pub(crate) fn json_config(
    text: &str,
    doc: &Value<'_>,
    format: FileFormat,
) -> Result<ParsedConfig, LoadError> {
    top_level(doc)?;
    match format {
        FileFormat::Jsonc => refuse_assignment_constructs(text, doc, true)?,
        // Cursor, Windsurf, Claude Desktop: how their readers build objects is not
        // known, so a `__proto__` key is refused for them too.
        FileFormat::Json => refuse_assignment_constructs(text, doc, false)?,
        _ => {}
    }
    let flat = format == FileFormat::McpJson;
    let mut sections: Vec<PendingSection> = Vec::new();
    if format != FileFormat::ClaudeJson {
        sections.push(PendingSection::of_servers(
            None,
            Ok(union(text, doc, flat)?),
        ));
        return finish(text, sections);
    }
    sections.push(PendingSection::of_servers(None, union(text, doc, false)));
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
    // Project keys written more than once: Claude Code reads only the last copy.
    // One pass with a set (a `~/.claude.json` holds thousands of projects), and
    // the last index of each repeated key only when there is one.
    let twice = repeated(projects.len(), |i| {
        projects.get(i).map_or("", |p| p.key.as_ref())
    });
    let mut last_copy: crate::hash::HashMap<&str, usize> = crate::hash::HashMap::new();
    if !twice.is_empty() {
        for (i, p) in projects.iter().enumerate() {
            if twice.contains(&p.key.as_ref()) {
                last_copy.insert(p.key.as_ref(), i);
            }
        }
    }
    for (i, p) in projects.iter().enumerate() {
        let Value::Object(members) = &p.value else {
            continue;
        };
        let mut servers = union(text, &p.value, false);
        if last_copy.get(p.key.as_ref()).is_some_and(|&last| last != i) {
            if let Ok(found) = &mut servers {
                flag_earlier_copy(found);
            }
        }
        let mut section = PendingSection::of_servers(None, servers);
        super::clients::claude_project_settings(members, &mut section);
        if section.is_empty() {
            continue;
        }
        section.project = Some(checked_name(text, &p.key, p.offset, "project key")?);
        sections.push(section);
    }
    finish(text, sections)
}

/// Resolve positions (one pass for the whole file) and build the records.
pub(crate) fn finish(text: &str, sections: Vec<PendingSection>) -> Result<ParsedConfig, LoadError> {
    let offsets: Vec<usize> = sections
        .iter()
        .flat_map(|s| {
            s.servers
                .iter()
                .flatten()
                .flat_map(|f| std::iter::once(f.offset).chain(f.values.iter().map(|(_, at)| *at)))
                .chain(s.settings.iter().map(|f| f.offset))
                .chain(s.settings_problems.iter().map(|p| p.offset))
        })
        .collect();
    let mut positions = line_cols(text, &offsets).into_iter();
    let mut out = Vec::with_capacity(sections.len());
    for section in sections {
        let (servers, error) = match section.servers {
            Ok(found) => (found, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let servers = servers
            .into_iter()
            .map(|f| {
                let (line, column) = positions.next().unwrap_or((1, 1));
                let values: Vec<ValueAt> = f
                    .values
                    .iter()
                    .map(|(field, _)| {
                        let (line, column) = positions.next().unwrap_or((1, 1));
                        ValueAt {
                            field: *field,
                            line,
                            column,
                        }
                    })
                    .collect();
                let values = crate::protocol::values::encode(line, column, &values);
                ServerEntry {
                    map: f.map,
                    name: f.name,
                    twin: f.twin,
                    line,
                    column,
                    body: f.body,
                    values,
                }
            })
            .collect();
        let settings = section
            .settings
            .into_iter()
            .map(|f| {
                let (line, column) = positions.next().unwrap_or((1, 1));
                ClientSetting {
                    line,
                    column,
                    value: f.value,
                }
            })
            .collect();
        let problems: Vec<String> = section
            .settings_problems
            .into_iter()
            .map(|p| problem_message(&p, positions.next().unwrap_or((1, 1))))
            .collect();
        out.push(Section {
            project: section.project,
            servers,
            error: section_error(error, problems, section.more_problems),
            settings,
        });
    }
    Ok(ParsedConfig {
        sections: out,
        continues_parts: false,
    })
}

/// How a malformed setting at (`line`, `column`) is reported in its section's error.
pub(crate) fn problem_message(p: &SettingProblem, (line, column): (u32, u32)) -> String {
    format!(
        "the setting {} at line {line} column {column} {}",
        excerpt(&p.key),
        p.reason
    )
}

/// A section's error: the one confined to its servers (`error`), joined with its
/// malformed settings (`problems`, and `more` not listed), if any.
pub(crate) fn section_error(
    error: Option<LoadError>,
    mut problems: Vec<String>,
    more: usize,
) -> Option<LoadError> {
    if more > 0 {
        problems.push(format!("and {more} more"));
    }
    let settings_error = (!problems.is_empty()).then(|| shape(problems.join("; ")));
    match (error, settings_error) {
        (Some(e), None) | (None, Some(e)) => Some(e),
        (None, None) => None,
        (Some(e), Some(s)) => Some(LoadError {
            message: super::clients::joined(&e.message, &s.message),
            ..e
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::child::json::{parse, Options, Select};

    /// One pass over a JSON entry's members finds, for every key, the member a
    /// search from the end finds (the last copy), and nothing for a key it lacks;
    /// over entries with repeated, escaped, unknown and near-miss keys.
    #[test]
    fn no_extra_is_the_default() {
        assert!(no_extra(&ServerExtra::default()));
        let set: [fn(&mut ServerExtra); 16] = [
            |x| x.server_url = Some(String::new()),
            |x| x.http_url = Some(String::new()),
            |x| x.transport_key = Some(String::new()),
            |x| x.env_vars = vec![String::new()],
            |x| x.cwd = Some(String::new()),
            |x| x.headers_helper = Some(String::new()),
            |x| x.bearer_token_env_var = Some(String::new()),
            |x| x.bearer_token = Some(String::new()),
            |x| x.env_http_headers = vec![(String::new(), String::new())],
            |x| x.disabled = Some(false),
            |x| x.enabled = Some(false),
            |x| x.auto_approve = vec![String::new()],
            |x| x.always_allow = vec![String::new()],
            |x| x.trust = Some(false),
            |x| x.tool_approvals = vec![(String::new(), String::new())],
            |x| x.repeated_keys = vec![String::new()],
        ];
        for f in set {
            let mut x = ServerExtra::default();
            f(&mut x);
            assert_ne!(x, ServerExtra::default());
            assert!(!no_extra(&x));
        }
    }

    /// The shortcut for an entry without extra fields gives the full reading's
    /// body (or error) on entries of every known key, valid, wrong-typed or null.
    #[test]
    fn the_no_extra_shortcut_reads_as_the_full_body() {
        let values = [
            "\"s\"",
            "1",
            "null",
            "true",
            "[\"a\", 2]",
            "[]",
            "{\"K\": \"v\"}",
            "{\"K\": 1}",
        ];
        let pieces: Vec<String> = KNOWN_KEYS
            .iter()
            .chain(&["x", "K"])
            .flat_map(|k| values.iter().map(move |v| format!("\"{k}\": {v},")))
            .collect();
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let mut generated = crate::test_gen::Generated::new(0x5407_c075_0000_0001);
        let opts = Options {
            jsonc: true,
            trailing_commas: true,
            cr_ends_line_comment: true,
            max_depth: 128,
            select: Select::All,
            keep_duplicates: true,
            refuse_skipped_duplicates: true,
        };
        for _ in 0..20_000 {
            let text = format!("{{{}}}", generated.text(&pieces, 6));
            let entry = parse(&text, 0, opts).unwrap();
            let known = Known::of(&entry, Dialect::Json);
            assert_eq!(
                typed_body(&entry, &known, Dialect::Json, true),
                typed_body(&entry, &known, Dialect::Json, false),
                "{text}"
            );
        }
    }

    #[test]
    fn known_fields_are_the_members_field_at_finds() {
        let keys: Vec<&str> = KNOWN_KEYS
            .iter()
            .copied()
            .chain([
                "",
                "Command",
                "commands",
                "x",
                "\\u0063ommand",
                "env\\u0000",
            ])
            .collect();
        let pieces: Vec<String> = keys
            .iter()
            .map(|k| format!("\"{k}\": 1,"))
            .chain([
                "\"args\": [\"a\"],".into(),
                "\"env\": {\"K\": \"v\"},".into(),
            ])
            .collect();
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let mut generated = crate::test_gen::Generated::new(0x4b6e_6f77_6e21);
        let opts = Options {
            jsonc: true,
            trailing_commas: true,
            cr_ends_line_comment: true,
            max_depth: 128,
            select: Select::All,
            keep_duplicates: true,
            refuse_skipped_duplicates: true,
        };
        for _ in 0..3000 {
            let text = format!("{{{}}}", generated.text(&pieces, 40));
            let entry = parse(&text, 0, opts).unwrap();
            let known = Known::of(&entry, Dialect::Json);
            for key in keys
                .iter()
                .map(|k| k.replace("\\u0063", "c").replace("\\u0000", "\0"))
            {
                let want = entry
                    .field_at(&key)
                    .map(|(v, at)| (v as *const Value<'_>, at));
                let got = known
                    .field_at(&key)
                    .map(|(v, at)| (v as *const Value<'_>, at));
                assert_eq!(got, want, "{text} {key:?}");
            }
        }
    }
}
