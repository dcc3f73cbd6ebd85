//! The only types that cross the parent/child pipe.
//!
//! The parent sends one [`ParseRequest`]; the child answers with one
//! [`ChildMessage`] per file, in request order. Framing, the version hello, the end
//! marker, the byte limits and the decoded-size bound belong to the sandbox crate;
//! this module only defines the payloads. It imports neither side of the boundary.
//!
//! Wire rules (see `sandbox/README.md`): no `Box`, `Rc` or `Arc` (the decoder charges
//! sequence slots and string bytes, not heap pointers), no recursive type (a JSON value
//! crosses as a flat [`JsonTree`]), and every collection is re-checked against the
//! bounds below by `parent::validate` after decoding. Each job carries its answer's
//! [`MessageShare`]: the child answers a file whose records would not fit with a
//! `TooLarge` error instead, and the parent kills a child that sends more.

use mcp_warden_sandbox::MessageShare;
use serde::{Deserialize, Serialize};

/// Bump on any change to the types in this module.
pub const PAYLOAD_VERSION: u32 = 7;

/// Bounds the parent enforces on decoded records (and the child respects).
///
/// No count is fixed: a file within its byte cap may hold as many servers, sections,
/// list entries, settings, suppression entries or lock digests as its bytes can
/// encode, and the child reads them all. The parent holds every count of one answer
/// to what the file it handed over could hold ([`bounds::most_items`], from the size it
/// measured on the descriptor); more is a compromised child.
pub mod bounds {
    use super::FileFormat;

    /// Longest string accepted in any record (names, values, messages).
    pub const MAX_STRING_BYTES: usize = 64 * 1024;
    /// Source bytes of the smallest item any list or map the loaders read can hold,
    /// its separator included: a one-character YAML flow item (`[a,a]`: `args`, a
    /// Continue server list). JSON's are longer (`"",` for an argument, `"":0,` for a
    /// server), and so are every section, setting and lock entry.
    pub const MIN_ITEM_BYTES: u64 = 2;
    /// Most files in one request.
    pub const MAX_FILES: usize = 2_048;
    /// Nesting depth accepted by the config loaders.
    pub const MAX_CONFIG_DEPTH: usize = 128;
    /// Nesting depth of a lock document (the lock spec's normative bound).
    pub use crate::pin::lock::format::MAX_LOCK_DEPTH;

    /// The most items any one count of an answer for a `format` file of `size` bytes
    /// can reach: servers in the file, sections, entries of one server's list or map,
    /// settings of one section and entries of one setting, suppression entries, the
    /// entries of one lock list. One per [`MIN_ITEM_BYTES`] source bytes, plus one
    /// (a file's top-level section exists even when empty); a Continue YAML file
    /// adds what its aliases may add when it is expanded (each alias is a copy the
    /// client reads, bounded by the loader's alias-bomb limit, not by the bytes).
    #[must_use]
    pub fn most_items(format: FileFormat, size: u64) -> usize {
        let aliases = match format {
            FileFormat::ContinueYaml => crate::child::yaml::MAX_ALIAS_NODES,
            _ => 0,
        };
        let items = (size / MIN_ITEM_BYTES)
            .saturating_add(1)
            .saturating_add(aliases);
        usize::try_from(items).unwrap_or(usize::MAX)
    }
}

/// How a file's bytes are to be interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileFormat {
    /// Strict JSON (RFC 8259): Claude Desktop, Cursor, Windsurf.
    Json,
    /// A workspace `.mcp.json`: strict JSON after an optional BOM (Claude Code strips
    /// it), `mcpServers`; without an `mcpServers` key its top-level server-shaped
    /// members are also read as a flat map of servers (recent VS Code).
    McpJson,
    /// JSON with `//`, `/* */` comments and trailing commas: VS Code.
    Jsonc,
    /// `~/.claude.json`: top-level `mcpServers` plus `projects.<path>.mcpServers`.
    ClaudeJson,
    /// Codex `config.toml`: `[mcp_servers.<name>]`.
    CodexToml,
    /// VS Code `settings.json` (JSONC): servers under `mcp.servers` (nested or as
    /// the dotted key), and the `chat.mcp.discovery.enabled` setting.
    VsCodeSettings,
    /// Claude Code `settings.json` / `settings.local.json` / managed settings: no
    /// servers, only the settings that decide approval ([`SettingValue`]).
    ClaudeSettings,
    /// Gemini CLI `settings.json`: `mcpServers`, comments allowed (Gemini CLI strips
    /// them before `JSON.parse`).
    GeminiSettings,
    /// Zed `settings.json` (JSONC): `context_servers`.
    ZedSettings,
    /// OpenCode `opencode.json` / `opencode.jsonc` (JSONC): `mcp`.
    OpenCode,
    /// A Claude Desktop extension's `manifest.json`: one server, `server.mcp_config`,
    /// named by the manifest's `name`.
    DesktopExtension,
    /// Continue YAML (`config.yaml`, `.continue/mcpServers/*.yaml`): `mcpServers`
    /// as a list of named entries.
    ContinueYaml,
    /// A `warden.lock` / `*.warden.lock`, answered with what doctor needs of it.
    Lock,
    /// A lock answered whole (`check`, `lock rotate`): the same reader and the same
    /// validation as [`FileFormat::Lock`], every field kept.
    LockRecord,
    /// The user's suppression file (`ignore.toml`): TOML, `[[ignore]]` tables.
    Ignore,
}

/// One file to read: the n-th descriptor handed to the child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileJob {
    /// Index into the descriptors the child received (0-based, request order).
    pub fd_index: u32,
    pub format: FileFormat,
    /// Read at most this many bytes; a longer file is an error, never truncated.
    pub size_cap: u64,
    /// What the answer may cost the parent (payload bytes, decoded bytes).
    pub share: MessageShare,
}

/// The parent's one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseRequest {
    pub payload_version: u32,
    pub jobs: Vec<FileJob>,
}

/// The child's answer for one job (same order as the request).
// Not boxed: a `Box` in a wire type would allocate outside the decoded-size budget.
// One message per file, so the larger variant costs per file, not per element.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ChildMessage {
    Config(Result<ParsedConfig, LoadError>),
    Lock(Result<LockSummary, LoadError>),
    LockRecord(Result<LockRecord, LoadError>),
    Ignore(Result<IgnoreList, LoadError>),
}

/// What an answer may cost the parent per byte of its encoding, for the child's check
/// of its answer against its share without decoding it (see
/// `mcp_warden_sandbox::Sender::send_within`): every element type a `Vec` of this
/// module holds costs at most 32 decoded bytes per byte of its own encoding (a
/// `JsonToken::Null`: 32 bytes for a one-byte tag; a `String`: 24 for its length
/// byte), and this is twice that. `every_vec_element_is_counted` and
/// `decoded_bytes_per_encoded_byte_stay_within_the_bound` keep it true.
impl mcp_warden_sandbox::WireSlots for ChildMessage {
    const DECODED_PER_BYTE: u64 = 64;
}

/// The `[[ignore]]` entries of a suppression file, in file order, each field as
/// written. What the values mean (a known rule id, a valid glob, a calendar date) is
/// decided in the parent (`crate::suppress`), so the child judges only the shape.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnoreList {
    pub entries: Vec<IgnoreEntry>,
}

/// One `[[ignore]]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnoreEntry {
    /// 1-based line and column (in Unicode code points) of the entry's header.
    pub line: u32,
    pub column: u32,
    pub rule: Option<String>,
    pub target: Option<String>,
    pub reason: Option<String>,
    /// `YYYY-MM-DD` as written (a TOML local date is sent in that form).
    pub expires: Option<String>,
    /// Why the entry's shape is wrong (a key of the wrong type, an unknown key).
    pub shape_error: Option<String>,
    /// Where each field's value starts, for a finding about that field.
    #[serde(default)]
    pub at: IgnorePositions,
}

/// 1-based line and column (in Unicode code points) of the value of each field an
/// `[[ignore]]` table writes (`None` when it does not write it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnorePositions {
    pub rule: Option<(u32, u32)>,
    pub target: Option<(u32, u32)>,
    pub reason: Option<(u32, u32)>,
    pub expires: Option<(u32, u32)>,
}

impl IgnorePositions {
    /// The position of field `name` (`rule`, `target`, `reason`, `expires`).
    pub fn of(&self, name: &str) -> Option<(u32, u32)> {
        match name {
            "rule" => self.rule,
            "target" => self.target,
            "reason" => self.reason,
            "expires" => self.expires,
            _ => None,
        }
    }
}

/// Why a file could not be loaded. `message` never contains more than a short
/// excerpt of the file (the parent passes it through safe_text anyway).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadError {
    pub kind: LoadErrorKind,
    pub message: String,
    /// The construct that made the file unreadable for doctor when some client
    /// still loads files with it (the parent names those clients).
    pub construct: Option<Construct>,
}

/// A construct some client accepts and doctor refuses, so the parent can say which
/// client would still load the refused file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Construct {
    /// A leading UTF-8 byte order mark in strict JSON.
    ByteOrderMark,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// A `\u` escape of half a surrogate pair.
    LoneSurrogate,
    /// Nesting deeper than the format's bound.
    DeepNesting,
    /// A `//` or `/* */` comment in strict JSON.
    Comment,
    /// A comma before `]` or `}` in strict JSON.
    TrailingComma,
    /// A `__proto__` key in a file VS Code builds by assignment.
    ProtoKey,
    /// A dotted top-level key (`"servers.x"`) that an older VS Code splits.
    DottedKey,
    /// A duplicate key outside the server-bearing parts of the file.
    DuplicateKey,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoadErrorKind {
    /// read(2) failed or the bytes are not UTF-8.
    Read,
    /// The file is larger than its cap.
    TooLarge,
    /// Not valid JSON / JSONC / TOML, or nested too deeply.
    Syntax,
    /// Valid syntax, wrong shape (top level not an object, `mcpServers` not an object,
    /// a lock missing required keys, ...).
    Shape,
    /// Nested deeper than the format's bound.
    TooDeep,
    /// Never sent by the child: the parent's record of a file the child did not answer
    /// because it ran out of time or memory first.
    Unfinished,
}

/// A config file: one section for a plain file; for `~/.claude.json` the top level
/// first, then one section per `projects.<key>` that declares servers.
///
/// A `~/.claude.json` answer may come in parts (`mcp_warden_sandbox::Delivery::Part`),
/// sent while the child is still parsing: each part a `ParsedConfig` of project
/// sections in file order (`continues_parts` false), then the answer itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedConfig {
    pub sections: Vec<Section>,
    /// These sections complete the parts sent ahead of them: the first (the file's top
    /// level) goes before the parts' sections, the others after them. Without it the
    /// sections are the whole answer and any parts sent ahead are void (the child found
    /// a construct, a repeated `projects` key or project key, that changes sections it
    /// had sent, and answers again in full).
    pub continues_parts: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// `None` for the file's own top-level maps; `Some(key)` for `projects[key]`.
    pub project: Option<String>,
    /// Servers in file order: every `mcpServers` entry first, then every `servers`
    /// entry whose name is new or whose body differs from the `mcpServers` one.
    /// Identical duplicates are dropped by the child.
    pub servers: Vec<ServerEntry>,
    /// A problem confined to this section (a malformed `projects[key]`): the section
    /// is reported as an error and the others are still audited.
    pub error: Option<LoadError>,
    /// The client settings this section holds that decide whether servers start,
    /// or run tools, without asking (file order).
    pub settings: Vec<ClientSetting>,
}

/// One client setting that decides approval, with the position of its key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientSetting {
    /// 1-based line and column (in Unicode code points) of the setting's key.
    pub line: u32,
    pub column: u32,
    pub value: SettingValue,
}

/// The settings doctor reads, each as written (names exactly as written).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SettingValue {
    /// Claude Code `enableAllProjectMcpServers`.
    EnableAllProjectServers(bool),
    /// Claude Code `enabledMcpjsonServers`: project servers approved by name.
    EnabledProjectServers(Vec<String>),
    /// Claude Code `disabledMcpjsonServers`: project servers rejected by name.
    DisabledProjectServers(Vec<String>),
    /// Claude Code `projects[<key>].disabledMcpServers`: servers of every scope
    /// skipped in that project.
    DisabledServers(Vec<String>),
    /// Claude Code `permissions.allow` entries that name MCP tools (`mcp__…`).
    AllowedTools(Vec<String>),
    /// VS Code `chat.mcp.discovery.enabled`: `("", b)` for the boolean form, else
    /// one `(source, enabled)` per member of the object form.
    DiscoveryImport(Vec<(String, bool)>),
    /// VS Code `chat.tools.autoApprove` (and its later name
    /// `chat.tools.global.autoApprove`): `("", b)` for the boolean form (every tool
    /// runs without confirmation), else one `(tool, approved)` per member.
    ToolsAutoApprove(Vec<(String, bool)>),
    /// Gemini CLI `mcp.allowed` (`allowMCPServers` in version 1 settings): only the
    /// servers named load.
    AllowedServers(Vec<String>),
    /// Gemini CLI `mcp.excluded` (`excludeMCPServers` in version 1 settings): the
    /// servers named do not load.
    ExcludedServers(Vec<String>),
}

/// Which map of a JSON config a server was declared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerMap {
    /// `mcpServers` (and Codex `mcp_servers`).
    McpServers,
    /// `servers` (VS Code's key).
    Servers,
    /// A top-level member of a `.mcp.json` that has no `mcpServers` key (recent
    /// VS Code reads such a file as a flat map of servers).
    Flat,
    /// Zed's `context_servers`.
    ContextServers,
    /// OpenCode's `mcp`.
    Mcp,
    /// The one server of a Claude Desktop extension manifest (`server.mcp_config`).
    Manifest,
}

/// Why one server entry is one of several declarations of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Twin {
    /// The name is under both `mcpServers` and `servers` with different bodies.
    BothMaps,
    /// The name is written more than once in the same map (or in repeated copies of
    /// the map's key): clients keep the last copy.
    DuplicateName,
    /// The entry is in an earlier copy of a repeated server-bearing key (two
    /// `mcpServers` maps, two `projects["/p"]` sections): clients read only the
    /// last copy.
    EarlierCopy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerEntry {
    pub map: ServerMap,
    /// The name exactly as written.
    pub name: String,
    /// Declared more than once (WRD-DOCTOR-AMBIGUOUS-SERVER): every copy is sent.
    pub twin: Option<Twin>,
    /// 1-based line and column (in Unicode code points) of the entry's key.
    pub line: u32,
    pub column: u32,
    /// The entry, or why its shape is wrong (not an object, `args` not a list of
    /// strings, ...). A wrong shape is never dropped: the parent reports it.
    pub body: Result<ServerBody, String>,
    /// Where the values of the body's fields start (the copy of a repeated key
    /// that is read), packed ([`values::encode`]): what a finding about one field
    /// points at. Empty for a wrong shape, and one byte on the wire for an entry
    /// without fields.
    ///
    /// Packed because an entry of 4,096 empty arguments (`"",` is 3 source bytes)
    /// must still fit its file's share: a record per value costs about 3 bytes
    /// this way, against 16 decoded and up to 11 on the wire as a struct.
    #[serde(with = "values::as_bytes")]
    pub values: Vec<u8>,
}

/// The position of one value of a server entry: 1-based line and column (in
/// Unicode code points) of the value's first character (the opening quote of a
/// string). Crosses packed ([`values`]); the parent decodes and checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueAt {
    pub field: FieldRef,
    pub line: u32,
    pub column: u32,
}

/// A field of a [`ServerBody`], by the body's own structure: list and map fields
/// carry an index into the body's list (after the child kept the last copy of a
/// repeated key). The order of the variants is the order positions are sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldRef {
    Command,
    /// `args[i]` (OpenCode: `command[i + 1]`).
    Arg(u32),
    Url,
    /// `type`.
    Transport,
    /// `env` value `i` (OpenCode `environment`).
    Env(u32),
    /// `headers` value `i` (Codex `http_headers`).
    Header(u32),
    /// [`ServerExtra::server_url`] and the rest of the extra fields, one each.
    ServerUrl,
    HttpUrl,
    TransportKey,
    /// Codex `env_vars[i]`.
    EnvVar(u32),
    Cwd,
    HeadersHelper,
    BearerTokenEnvVar,
    BearerToken,
    /// Codex `env_http_headers` value `i`.
    EnvHttpHeader(u32),
    Disabled,
    Enabled,
    /// The `autoApprove` list.
    AutoApprove,
    /// The `alwaysAllow` list.
    AlwaysAllow,
    Trust,
    /// Codex tool approval mode `i` of [`ServerExtra::tool_approvals`].
    ToolApproval(u32),
}

/// The packed form of an entry's value positions.
///
/// Records in ascending [`FieldRef`] order, each three LEB128 varints: the field's
/// kind (its variant's place in [`FieldRef`]); the line as a zigzag delta from the
/// previous record's line (the entry key's for the first); the column, as a zigzag
/// delta from the previous column when the line is the same, else as itself. A
/// list or map field's records are consecutive and number its items from 0, so no
/// index is sent: consecutive arguments on one line cost 3 bytes each.
pub mod values {
    use super::{FieldRef, ValueAt};

    /// The packed positions cross as one byte string, not as a sequence of `u8`s:
    /// the same bytes on the wire (a length, then the bytes), decoded in one step
    /// instead of one visit per byte (a fifth of decoding a large answer), and
    /// charged the same (a byte a byte) by the parent's decoder.
    pub(crate) mod as_bytes {
        use serde::de::{self, Deserializer, SeqAccess, Visitor};
        use serde::Serializer;

        #[allow(clippy::ptr_arg)] // serde's `with` passes the field as it is
        pub(crate) fn serialize<S: Serializer>(bytes: &Vec<u8>, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(bytes)
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            d.deserialize_byte_buf(Bytes)
        }

        struct Bytes;

        impl<'de> Visitor<'de> for Bytes {
            type Value = Vec<u8>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("packed value positions")
            }

            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }

            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }

            // A format without byte strings hands them over as a sequence.
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
    }

    /// Most bytes one varint of a record may take (a `u64`).
    const MAX_VARINT: usize = 10;

    impl FieldRef {
        /// The variant's place in the enum, and its index for list and map fields.
        fn kind(self) -> (u8, Option<u32>) {
            match self {
                FieldRef::Command => (0, None),
                FieldRef::Arg(i) => (1, Some(i)),
                FieldRef::Url => (2, None),
                FieldRef::Transport => (3, None),
                FieldRef::Env(i) => (4, Some(i)),
                FieldRef::Header(i) => (5, Some(i)),
                FieldRef::ServerUrl => (6, None),
                FieldRef::HttpUrl => (7, None),
                FieldRef::TransportKey => (8, None),
                FieldRef::EnvVar(i) => (9, Some(i)),
                FieldRef::Cwd => (10, None),
                FieldRef::HeadersHelper => (11, None),
                FieldRef::BearerTokenEnvVar => (12, None),
                FieldRef::BearerToken => (13, None),
                FieldRef::EnvHttpHeader(i) => (14, Some(i)),
                FieldRef::Disabled => (15, None),
                FieldRef::Enabled => (16, None),
                FieldRef::AutoApprove => (17, None),
                FieldRef::AlwaysAllow => (18, None),
                FieldRef::Trust => (19, None),
                FieldRef::ToolApproval(i) => (20, Some(i)),
            }
        }

        /// The field of kind `kind` (item `index` of a list or map field).
        fn of_kind(kind: u64, index: u32) -> Option<FieldRef> {
            Some(match kind {
                0 => FieldRef::Command,
                1 => FieldRef::Arg(index),
                2 => FieldRef::Url,
                3 => FieldRef::Transport,
                4 => FieldRef::Env(index),
                5 => FieldRef::Header(index),
                6 => FieldRef::ServerUrl,
                7 => FieldRef::HttpUrl,
                8 => FieldRef::TransportKey,
                9 => FieldRef::EnvVar(index),
                10 => FieldRef::Cwd,
                11 => FieldRef::HeadersHelper,
                12 => FieldRef::BearerTokenEnvVar,
                13 => FieldRef::BearerToken,
                14 => FieldRef::EnvHttpHeader(index),
                15 => FieldRef::Disabled,
                16 => FieldRef::Enabled,
                17 => FieldRef::AutoApprove,
                18 => FieldRef::AlwaysAllow,
                19 => FieldRef::Trust,
                20 => FieldRef::ToolApproval(index),
                _ => return None,
            })
        }
    }

    fn put(out: &mut Vec<u8>, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    fn zigzag(from: u32, to: u32) -> u64 {
        let d = i64::from(to) - i64::from(from);
        ((d << 1) ^ (d >> 63)) as u64
    }

    /// `values` packed, relative to the entry's key at (`line`, `column`). The
    /// caller gives them in ascending field order, each list's items from 0 with
    /// none left out (what [`decode`] reads back).
    pub fn encode(line: u32, column: u32, values: &[ValueAt]) -> Vec<u8> {
        let mut out = Vec::with_capacity(values.len() * 3);
        let (mut at_line, mut at_column) = (line, column);
        for v in values {
            put(&mut out, u64::from(v.field.kind().0));
            put(&mut out, zigzag(at_line, v.line));
            if v.line == at_line {
                put(&mut out, zigzag(at_column, v.column));
            } else {
                put(&mut out, u64::from(v.column));
            }
            (at_line, at_column) = (v.line, v.column);
        }
        out
    }

    struct Reader<'b> {
        bytes: &'b [u8],
        at: usize,
    }

    impl Reader<'_> {
        fn varint(&mut self) -> Result<u64, String> {
            let mut v: u64 = 0;
            for shift in 0..MAX_VARINT {
                let Some(&byte) = self.bytes.get(self.at) else {
                    return Err("value positions end inside a record".into());
                };
                self.at += 1;
                v |= u64::from(byte & 0x7f)
                    .checked_shl(7 * shift as u32)
                    .filter(|_| shift < 9 || byte <= 1)
                    .ok_or("a value position varint overflows")?;
                if byte & 0x80 == 0 {
                    return Ok(v);
                }
            }
            Err("a value position varint is too long".into())
        }
    }

    fn unzigzag(from: u32, code: u64) -> Result<u32, String> {
        let d = ((code >> 1) as i64) ^ -((code & 1) as i64);
        i64::from(from)
            .checked_add(d)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| "a value position out of range".into())
    }

    /// The positions packed in `bytes` for an entry whose key is at (`line`,
    /// `column`): fields in strictly ascending order (kinds never go back, a field
    /// that is not a list or map never repeats), lines and columns from 1. Whether
    /// each field exists in the entry is the caller's check.
    pub fn decode(line: u32, column: u32, bytes: &[u8]) -> Result<Vec<ValueAt>, String> {
        let mut r = Reader { bytes, at: 0 };
        // Each record is at least three bytes: the output is bounded by the input.
        let mut out: Vec<ValueAt> = Vec::with_capacity(bytes.len() / 3);
        let (mut at_line, mut at_column) = (line, column);
        while r.at < bytes.len() {
            let kind = r.varint()?;
            let index = match out.last().map(|v| v.field.kind()) {
                Some((k, Some(i))) if u64::from(k) == kind => {
                    i.checked_add(1).ok_or("a value position index overflows")?
                }
                Some((k, None)) if u64::from(k) == kind => {
                    return Err("a value position repeated".into())
                }
                Some((k, _)) if u64::from(k) > kind => {
                    return Err("value positions out of order".into())
                }
                _ => 0,
            };
            let field = FieldRef::of_kind(kind, index).ok_or("an unknown value position field")?;
            let new_line = unzigzag(at_line, r.varint()?)?;
            let code = r.varint()?;
            let new_column = if new_line == at_line {
                unzigzag(at_column, code)?
            } else {
                u32::try_from(code).map_err(|_| "a value position column out of range")?
            };
            if new_line == 0 || new_column == 0 {
                return Err("a value position of 0".into());
            }
            out.push(ValueAt {
                field,
                line: new_line,
                column: new_column,
            });
            (at_line, at_column) = (new_line, new_column);
        }
        Ok(out)
    }
}

/// A server entry's fields, all strings exactly as written (before any client's
/// variable expansion). Which of them a client uses is decided in the parent
/// (`crate::reading`), per client.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerBody {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    /// `type`.
    pub transport: Option<String>,
    pub env: Vec<(String, String)>,
    /// `headers` (Codex: `http_headers`).
    pub headers: Vec<(String, String)>,
    /// The fields few entries have: at most one record, in a list rather than an
    /// `Option` so that an entry without them costs one byte on the wire and one
    /// empty list, not the record's whole size, against the decoded-size budget (a
    /// file of 50,000 empty entries must fit its answer share).
    pub extra: Vec<ServerExtra>,
}

/// The rarer fields of a server entry (see [`ServerBody::extra`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerExtra {
    /// Windsurf's remote endpoint field.
    pub server_url: Option<String>,
    /// Gemini CLI's streamable-HTTP endpoint field.
    pub http_url: Option<String>,
    /// A `transport` key: no client covered reads it as the transport, but the
    /// earlier implementation did, so an entry that starts nothing is still judged
    /// remote by it.
    pub transport_key: Option<String>,
    /// Codex `env_vars`: variables forwarded from Codex's own environment.
    pub env_vars: Vec<String>,
    /// `cwd`: the stdio server's working directory.
    pub cwd: Option<String>,
    /// Claude Code's `headersHelper`: a shell command run at every connection.
    pub headers_helper: Option<String>,
    /// Codex `bearer_token_env_var`: the variable whose value is sent as a bearer token.
    pub bearer_token_env_var: Option<String>,
    /// Codex `bearer_token` (a literal; Codex refuses it).
    pub bearer_token: Option<String>,
    /// Codex `env_http_headers`: header name → environment variable name.
    pub env_http_headers: Vec<(String, String)>,
    /// JSON `disabled`.
    pub disabled: Option<bool>,
    /// Codex, OpenCode and Zed `enabled`.
    pub enabled: Option<bool>,
    /// Cline's and Kiro's `autoApprove`: tools run without confirmation.
    pub auto_approve: Vec<String>,
    /// Roo Code's `alwaysAllow`: tools run without confirmation.
    pub always_allow: Vec<String>,
    /// Gemini CLI `trust`: every tool call runs without confirmation.
    pub trust: Option<bool>,
    /// Codex tool approval modes: `("*", mode)` for `default_tools_approval_mode`,
    /// `(tool, mode)` for `tools.<tool>.approval_mode`.
    pub tool_approvals: Vec<(String, String)>,
    /// Keys written more than once in this entry (clients keep the last copy, and so
    /// do the fields above).
    pub repeated_keys: Vec<String>,
}

/// The extra fields of an entry that has none.
static NO_EXTRA: ServerExtra = ServerExtra {
    server_url: None,
    http_url: None,
    transport_key: None,
    env_vars: Vec::new(),
    cwd: None,
    headers_helper: None,
    bearer_token_env_var: None,
    bearer_token: None,
    env_http_headers: Vec::new(),
    disabled: None,
    enabled: None,
    auto_approve: Vec::new(),
    always_allow: Vec::new(),
    trust: None,
    tool_approvals: Vec::new(),
    repeated_keys: Vec::new(),
};

impl ServerBody {
    /// The rarer fields (all absent when the entry has none of them).
    pub fn extra(&self) -> &ServerExtra {
        self.extra.first().unwrap_or(&NO_EXTRA)
    }
}

/// What doctor needs from a lock: the launch it pins and the digests that bind
/// its approval. The parent recomputes `overall_digest` from these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockSummary {
    pub schema_version: u32,
    pub server_command: String,
    pub server_args: Vec<String>,
    pub server_url: Option<String>,
    pub command_digest: String,
    pub tool_digests: Vec<String>,
    pub resource_digests: Vec<String>,
    pub prompt_digests: Vec<String>,
    pub overall_digest: String,
    pub approved: bool,
    pub approved_digest: Option<String>,
}

/// A whole lock as its one reader validated it, for `check` and `lock rotate`: every
/// key of the lock format (unknown keys are dropped, as the format says), with the
/// format's defaults filled in. The parent turns it into `pin::lock::Lock`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockRecord {
    pub schema_version: u32,
    pub warden_version: String,
    pub server: LockServer,
    pub tools: Vec<LockTool>,
    pub resources: Vec<LockResource>,
    pub prompts: Vec<LockPrompt>,
    pub findings: Vec<LockFindingRecord>,
    pub overall_digest: String,
    pub pin: LockPin,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockServer {
    pub command: String,
    pub args: Vec<String>,
    pub url: Option<String>,
    pub command_digest: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockTool {
    pub name: String,
    pub description_hash: String,
    pub input_schema_hash: String,
    pub capabilities: Vec<String>,
    /// `None` when absent or `null`.
    pub inspection: Option<JsonTree>,
    /// `None` when absent or `null`.
    pub schema_skeleton: Option<JsonTree>,
    /// `None`: the key is absent; `Some(None)`: it is `null`.
    pub annotations_hash: Option<Option<String>>,
    pub output_schema_hash: Option<Option<String>>,
    pub output_schema_skeleton: Option<Option<JsonTree>>,
    pub entry_digest: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockResource {
    pub uri: String,
    pub name: Option<String>,
    pub description_hash: String,
    pub mime_type: Option<String>,
    pub entry_digest: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockPrompt {
    pub name: String,
    pub description_hash: String,
    pub arguments_hash: String,
    pub entry_digest: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFindingRecord {
    pub rule_id: String,
    pub severity: String,
    pub target: String,
    pub message: String,
    pub snippet: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockPin {
    pub created_at: String,
    pub warden_version: String,
    pub mcp_protocol_version: String,
    pub approved: bool,
    pub approver: Option<String>,
    pub approved_at: Option<String>,
    pub approved_digest: Option<String>,
    pub provenance_version: i64,
    pub pinner: Option<LockPinner>,
    pub attestations: Vec<LockAttestation>,
    pub rotated_at: Option<String>,
    pub rotation_count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockPinner {
    pub tool: String,
    pub tool_version: String,
    pub actor: Option<String>,
    pub environment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockAttestation {
    pub actor: String,
    pub role: String,
    pub method: String,
    pub created_at: String,
    pub bound_digest: String,
    pub note: Option<String>,
    pub signature_bundle: Option<String>,
}

/// A JSON value as a flat token list in document order, so that no wire type is
/// recursive (a recursive type would make the parent's decoder recurse as deep as a
/// hostile frame nests). `Array(n)` is followed by its `n` items; `Object(n)` by `n`
/// pairs of a `Key` and the member's value. Numbers are already what `serde_json`
/// reads from their text (the child converts them), so the parent rebuilds exactly
/// the value the earlier reader produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonTree(pub Vec<JsonToken>);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum JsonToken {
    Null,
    Bool(bool),
    PosInt(u64),
    NegInt(i64),
    Float(f64),
    String(String),
    Array(u32),
    Object(u32),
    Key(String),
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::values::{decode, encode};
    use super::{FieldRef, ValueAt};

    /// The fewest bytes the own encoding of the smallest value of each vector element
    /// type takes (empty strings and lists, absent options, zero numbers, the cheapest
    /// variant), beside its size.
    fn element_costs() -> Vec<(&'static str, usize, u64)> {
        use super::*;
        fn own<T: serde::Serialize + serde::de::DeserializeOwned>(value: T) -> (usize, u64) {
            let share = mcp_warden_sandbox::MessageShare {
                max_payload: u32::MAX,
                max_decoded: u64::MAX,
            };
            let cost = mcp_warden_sandbox::message_cost(&value, &share).unwrap();
            // The frame's own tag byte is not the value's.
            (std::mem::size_of::<T>(), cost.payload - 1)
        }
        let s = String::new;
        let entry = ServerEntry {
            map: ServerMap::McpServers,
            name: s(),
            twin: None,
            line: 0,
            column: 0,
            body: Err(s()),
            values: Vec::new(),
        };
        let tool = LockTool {
            name: s(),
            description_hash: s(),
            input_schema_hash: s(),
            capabilities: Vec::new(),
            inspection: None,
            schema_skeleton: None,
            annotations_hash: None,
            output_schema_hash: None,
            output_schema_skeleton: None,
            entry_digest: s(),
        };
        let resource = LockResource {
            uri: s(),
            name: None,
            description_hash: s(),
            mime_type: None,
            entry_digest: s(),
        };
        let prompt = LockPrompt {
            name: s(),
            description_hash: s(),
            arguments_hash: s(),
            entry_digest: s(),
        };
        let finding = LockFindingRecord {
            rule_id: s(),
            severity: s(),
            target: s(),
            message: s(),
            snippet: s(),
        };
        let attestation = LockAttestation {
            actor: s(),
            role: s(),
            method: s(),
            created_at: s(),
            bound_digest: s(),
            note: None,
            signature_bundle: None,
        };
        let section = Section {
            project: None,
            servers: Vec::new(),
            error: None,
            settings: Vec::new(),
        };
        let setting = ClientSetting {
            line: 0,
            column: 0,
            value: SettingValue::EnableAllProjectServers(false),
        };
        let named = |name, (size, bytes)| (name, size, bytes);
        vec![
            named("Section", own(section)),
            named("ServerEntry", own(entry)),
            named("ServerExtra", own(ServerExtra::default())),
            named("ClientSetting", own(setting)),
            named("IgnoreEntry", own(IgnoreEntry::default())),
            named("String", own(s())),
            named("(String, String)", own((s(), s()))),
            named("(String, bool)", own((s(), false))),
            named("u8", own(0u8)),
            named("LockTool", own(tool)),
            named("LockResource", own(resource)),
            named("LockPrompt", own(prompt)),
            named("LockFindingRecord", own(finding)),
            named("LockAttestation", own(attestation)),
            named("JsonToken", own(JsonToken::Null)),
        ]
    }

    #[test]
    fn decoded_bytes_per_encoded_byte_stay_within_the_bound() {
        use mcp_warden_sandbox::WireSlots;
        for (name, size, bytes) in element_costs() {
            assert!(bytes >= 1, "{name} can take no byte on the wire");
            let per_byte = u64::try_from(size).unwrap() / bytes;
            assert!(
                2 * per_byte <= super::ChildMessage::DECODED_PER_BYTE,
                "{name}: {size} decoded bytes for {bytes} encoded ({per_byte} a byte) leaves \
                 no margin under DECODED_PER_BYTE"
            );
        }
    }

    #[test]
    fn every_vec_element_is_counted() {
        // Every vector element type of a wire type has its cost in `element_costs`
        // (`ValueAt` and the request's `FileJob` never cross from the child).
        const NOT_IN_ANSWERS: &[&str] = &["ValueAt", "FileJob"];
        let counted: Vec<&str> = element_costs().into_iter().map(|(n, _, _)| n).collect();
        let whole = include_str!("protocol.rs");
        // The wire types: everything above the tests.
        let source = whole.split("#[cfg(test)]").next().unwrap_or(whole);
        let mut rest = source;
        while let Some(at) = rest.find("Vec<") {
            rest = &rest[at + 4..];
            let mut depth = 1;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '<' => depth += 1,
                        '>' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(rest.len(), |(i, _)| i);
            let element = &rest[..end];
            assert!(
                counted.contains(&element) || NOT_IN_ANSWERS.contains(&element),
                "Vec<{element}> has no entry in element_costs"
            );
        }
        // No map crosses the pipe: only sequence elements are counted.
        assert!(!source.contains("HashMap<") && !source.contains("BTreeMap<"));
    }

    /// The packed positions cross as a byte string: as many bytes on the wire, and as
    /// many decoded, as the sequence of `u8`s they were before.
    #[test]
    fn packed_positions_cost_what_a_byte_sequence_costs() {
        let share = mcp_warden_sandbox::MessageShare {
            max_payload: u32::MAX,
            max_decoded: u64::MAX,
        };
        let cost = |v: &dyn Fn() -> super::ServerEntry| {
            mcp_warden_sandbox::message_cost(&v(), &share).unwrap()
        };
        let seq = |n: usize| mcp_warden_sandbox::message_cost(&vec![7u8; n], &share).unwrap();
        for n in [1usize, 3, 250, 251, 600, 70_000] {
            let entry = |values: Vec<u8>| super::ServerEntry {
                map: super::ServerMap::McpServers,
                name: "a".into(),
                twin: None,
                line: 1,
                column: 1,
                body: Err(String::new()),
                values,
            };
            let (with, without) = (cost(&|| entry(vec![7; n])), cost(&|| entry(Vec::new())));
            let (bytes, none) = (seq(n), seq(0));
            assert_eq!(
                with.payload - without.payload,
                bytes.payload - none.payload,
                "{n}"
            );
            assert_eq!(
                with.decoded - without.decoded,
                bytes.decoded - none.decoded,
                "{n}"
            );
        }
    }

    #[test]
    fn value_positions_round_trip_and_stay_small() {
        let at = |field, line, column| ValueAt {
            field,
            line,
            column,
        };
        let values = vec![
            at(FieldRef::Command, 3, 18),
            at(FieldRef::Arg(0), 3, 40),
            at(FieldRef::Arg(1), 3, 46),
            at(FieldRef::Env(0), 1, 9),
            at(FieldRef::Env(1), 70_000, 1_000_000),
            at(FieldRef::Trust, 2, 1),
            at(FieldRef::ToolApproval(0), 4, 4),
        ];
        let packed = encode(3, 5, &values);
        assert_eq!(decode(3, 5, &packed), Ok(values));
        // Consecutive arguments on one line: three bytes each.
        let args: Vec<ValueAt> = (0..4096u32)
            .map(|i| at(FieldRef::Arg(i), 1, 20 + 3 * i))
            .collect();
        let packed = encode(1, 2, &args);
        assert_eq!(packed.len(), 3 * 4096);
        assert_eq!(decode(1, 2, &packed), Ok(args));
        assert_eq!(encode(1, 1, &[]), Vec::<u8>::new());
    }
}
