//! The client files beyond plain server maps: VS Code `settings.json`, Claude Code
//! settings, Gemini CLI settings, Zed settings, OpenCode configs, Claude Desktop
//! extension manifests, and the approval settings of `~/.claude.json` projects.
//!
//! Each format is parsed by the one JSON parser (`json`) with the dialect its client
//! reads ([`reading`]), building only the paths its loader reads
//! ([`json::Select::Settings`]); everything else is validated, not built.
//!
//! Rules (each client's own reading, `docs/clients.md`):
//!
//! * VS Code `settings.json` (JSONC, BOM skipped): servers under `mcp.servers`
//!   ([`ServerMap::Servers`]) and `mcp.mcpServers` (the older reader merged it into
//!   `servers`), whether written nested (`"mcp": {"servers": …}`) or as the dotted
//!   top-level key (`"mcp.servers": …`), which VS Code's configuration model splits.
//!   Every copy is read; the last one in file order is the one VS Code keeps, so
//!   earlier copies are flagged [`Twin::EarlierCopy`]. A dotted top-level key that
//!   reaches into a server map (`"mcp.servers.x"`) refuses the file. The setting
//!   `chat.mcp.discovery.enabled` (boolean, or an object of per-source booleans) is
//!   sent as [`SettingValue::DiscoveryImport`], and `chat.tools.autoApprove` (later
//!   `chat.tools.global.autoApprove`; boolean, or an object of per-tool booleans)
//!   as [`SettingValue::ToolsAutoApprove`]; a malformed value is the section's error
//!   and the servers are still sent.
//! * Claude Code settings (strict JSON, BOM stripped): no servers; the settings
//!   `enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`
//!   and the `mcp__` entries of `permissions.allow`. Claude Code ignores a whole
//!   settings file whose values fail its schema, so a wrong-typed value fails the
//!   file; a `permissions.allow` entry that is not a string is dropped, as Claude
//!   Code drops invalid rules before its schema check.
//! * `~/.claude.json` projects: `enabledMcpjsonServers`, `disabledMcpjsonServers`,
//!   `enableAllProjectMcpServers` and `disabledMcpServers` as the project section's
//!   settings, only when `true` or non-empty (the defaults every project holds are
//!   not sent), unless the key is repeated (then every copy is sent).
//! * Gemini CLI settings (comments, no trailing commas, no BOM, read as
//!   `strip-json-comments` leaves them: [`gemini_stripped`]): `mcpServers`, and
//!   the server lists `mcp.allowed` / `mcp.excluded` (`allowMCPServers` /
//!   `excludeMCPServers` in version 1 settings) as [`SettingValue::AllowedServers`] /
//!   [`SettingValue::ExcludedServers`], as written.
//! * Zed settings (JSONC): `context_servers` ([`ServerMap::ContextServers`]), each
//!   entry in the current shape (`command` string, `args`, `env`, or `url`,
//!   `headers`) or the older one (`"command": {"path", "args", "env"}`), normalised
//!   into `command`/`args`/`env`; an extension-provided entry has no launch of its
//!   own and is sent without one. `enabled` is kept. A repeated `context_servers`
//!   key is the section's error (Zed's settings struct refuses a repeated field).
//! * OpenCode (JSONC): `mcp` ([`ServerMap::Mcp`]); `command` is a list (program,
//!   then arguments), `environment` is the environment, `type` is kept as written.
//!   A raw-text reference OpenCode would substitute differently from the parsed
//!   strings refuses the file ([`opencode_raw_references`]); a field outside its
//!   strict schema is the section's error.
//! * A Claude Desktop extension manifest (strict JSON): one server named by the
//!   manifest's `name` ([`ServerMap::Manifest`]), from `server.mcp_config`; each of
//!   its `platform_overrides` for `darwin`, `win32` and `linux` is also sent, merged
//!   over the base launch, under the same name (so every variant is audited and the
//!   entries are flagged as repeated). Every copy of a repeated `server` or
//!   `mcp_config` is read the same way (at most [`MAX_MANIFEST_LAUNCHES`]). Its
//!   position is the `name` value.
//!
//! `__proto__` is refused, naming the construct, wherever the client (or a client
//! whose reader is not known) builds objects by assignment: VS Code, Gemini CLI,
//! OpenCode, Claude Desktop. Claude Code (`JSON.parse`) and Zed (serde) read it as
//! an ordinary key.

use super::json::{excerpt, members_along, Member, Value, CLAUDE_PROJECT_SETTINGS};
use super::position::line_col;
use super::servers::{
    bool_field, checked_name, entries_of, finish, json_body, map_field, maps_in, maps_of, present,
    refuse_assignment_constructs, refused, server_body_at, shape, string_field, string_list,
    top_level, union_of, Dialect, Found, FoundSetting, Located, Node, PendingSection,
    SettingProblem, ValueOffsets, MAX_SETTING_PROBLEMS,
};
use crate::protocol::bounds::MAX_STRING_BYTES;
use crate::protocol::{
    Construct, FieldRef, FileFormat, LoadError, ParsedConfig, ServerBody, ServerExtra, ServerMap,
    SettingValue,
};

/// How a client's JSON file is parsed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    /// `//` and `/* */` comments.
    pub comments: bool,
    /// A comma before `]` or `}`.
    pub trailing_commas: bool,
    /// A leading UTF-8 BOM is skipped (else refused, naming the construct).
    pub bom_stripped: bool,
    /// The dotted paths the loader reads (see `json::Select::Settings`).
    pub paths: &'static [&'static str],
    /// Top-level keys may be dotted paths (VS Code's configuration model).
    pub dotted: bool,
    /// A `//` comment ends at a lone CR too (VS Code's JSONC scanner, which
    /// OpenCode also uses); off, only at LF.
    pub cr_ends_line_comment: bool,
}

const VSCODE_SERVERS: &str = "mcp.servers";
const VSCODE_MCP_SERVERS: &str = "mcp.mcpServers";
const VSCODE_DISCOVERY: &str = "chat.mcp.discovery.enabled";
const VSCODE_AUTO_APPROVE: [&str; 2] = ["chat.tools.autoApprove", "chat.tools.global.autoApprove"];
/// Gemini CLI's server lists, by their version 2 names and the version 1 names
/// Gemini CLI still migrates on load.
const GEMINI_ALLOWED: [&str; 2] = ["mcp.allowed", "allowMCPServers"];
const GEMINI_EXCLUDED: [&str; 2] = ["mcp.excluded", "excludeMCPServers"];

/// A setting made of booleans by key (VS Code's boolean-or-object settings).
type FlagsSetting = fn(Vec<(String, bool)>) -> SettingValue;
/// A setting made of names.
type NamesSetting = fn(Vec<String>) -> SettingValue;

/// The reading of a client format handled here (`None`: not one of them).
pub(crate) fn reading(format: FileFormat) -> Option<Reading> {
    let strict = Reading {
        comments: false,
        trailing_commas: false,
        bom_stripped: false,
        paths: &[],
        dotted: false,
        cr_ends_line_comment: true,
    };
    let jsonc = Reading {
        comments: true,
        trailing_commas: true,
        ..strict
    };
    Some(match format {
        FileFormat::VsCodeSettings => Reading {
            bom_stripped: true,
            paths: &[
                VSCODE_SERVERS,
                VSCODE_MCP_SERVERS,
                VSCODE_DISCOVERY,
                VSCODE_AUTO_APPROVE[0],
                VSCODE_AUTO_APPROVE[1],
            ],
            dotted: true,
            ..jsonc
        },
        FileFormat::ClaudeSettings => Reading {
            bom_stripped: true,
            paths: &[
                "enableAllProjectMcpServers",
                "enabledMcpjsonServers",
                "disabledMcpjsonServers",
                "permissions.allow",
            ],
            ..strict
        },
        // `JSON.parse(stripJsonComments(text))`: the stripper removes comments
        // only, so a trailing comma or a BOM is still a `JSON.parse` error.
        FileFormat::GeminiSettings => Reading {
            comments: true,
            cr_ends_line_comment: false,
            paths: &[
                "mcpServers",
                GEMINI_ALLOWED[0],
                GEMINI_ALLOWED[1],
                GEMINI_EXCLUDED[0],
                GEMINI_EXCLUDED[1],
            ],
            ..strict
        },
        FileFormat::ZedSettings => Reading {
            paths: &["context_servers"],
            cr_ends_line_comment: false,
            ..jsonc
        },
        FileFormat::OpenCode => Reading {
            paths: &["mcp"],
            ..jsonc
        },
        FileFormat::DesktopExtension => Reading {
            paths: &["name", "server"],
            ..strict
        },
        FileFormat::Json
        | FileFormat::McpJson
        | FileFormat::Jsonc
        | FileFormat::ClaudeJson
        | FileFormat::CodexToml
        | FileFormat::ContinueYaml
        | FileFormat::Lock
        | FileFormat::LockRecord
        | FileFormat::Ignore => return None,
    })
}

/// The records of a parsed client file (`format` is one [`reading`] knows).
pub(crate) fn client_config(
    text: &str,
    doc: &Value<'_>,
    format: FileFormat,
) -> Result<ParsedConfig, LoadError> {
    let members = top_level(doc)?;
    let section = match format {
        FileFormat::VsCodeSettings => vscode_settings(text, doc, members)?,
        FileFormat::ClaudeSettings => claude_settings(text, doc, members)?,
        FileFormat::GeminiSettings => {
            refuse_assignment_constructs(text, doc, false)?;
            let mut section = servers_only(
                text,
                &maps_of(doc, "mcpServers")?,
                ServerMap::McpServers,
                json_body,
            )?;
            gemini_settings(doc, &mut section);
            section
        }
        FileFormat::ZedSettings => {
            let maps = maps_of(doc, "context_servers")?;
            let mut section = servers_only(text, &maps, ServerMap::ContextServers, zed_body)?;
            // Zed's settings are a serde struct: a repeated field fails the file.
            // Every copy is still audited (and flagged as repeated).
            for copy in members
                .iter()
                .filter(|m| m.key == "context_servers")
                .skip(1)
            {
                setting_error(
                    &mut section,
                    "context_servers",
                    copy.offset,
                    "is repeated; Zed's settings types refuse a repeated field, so Zed does \
                     not load this file",
                );
            }
            section
        }
        FileFormat::OpenCode => {
            refuse_assignment_constructs(text, doc, false)?;
            let maps = maps_of(doc, "mcp")?;
            let mut section = servers_only(text, &maps, ServerMap::Mcp, opencode_body)?;
            opencode_strict_fields(&maps, &mut section);
            section
        }
        FileFormat::DesktopExtension => {
            refuse_assignment_constructs(text, doc, false)?;
            desktop_extension(text, doc, members)?
        }
        other => {
            return Err(shape(format!(
                "internal: {other:?} is not a client settings format"
            )))
        }
    };
    finish(text, vec![section])
}

fn servers_only(
    text: &str,
    maps: &[&[Member<'_>]],
    map: ServerMap,
    body: super::servers::BodyReader,
) -> Result<PendingSection, LoadError> {
    let mut found = Vec::new();
    entries_of(text, maps, map, body, &mut found)?;
    Ok(PendingSection::of_servers(None, Ok(found)))
}

/// Two error messages as one, capped so that many malformed settings stay one
/// short message.
pub(crate) fn joined(first: &str, second: &str) -> String {
    const CAP: usize = 1_000;
    if first.len() >= CAP {
        return first.to_string();
    }
    let mut out = format!("{first}; {second}");
    if out.len() > CAP {
        let mut end = CAP;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}

/// Record a malformed setting as the section's error (its position is resolved
/// later, with every other position of the file, in one pass).
fn setting_error(section: &mut PendingSection, key: &str, offset: usize, reason: &str) {
    if section.settings_problems.len() >= MAX_SETTING_PROBLEMS {
        section.more_problems += 1;
        return;
    }
    section.settings_problems.push(SettingProblem {
        offset,
        key: key.to_string(),
        reason: reason.to_string(),
    });
}

/// Add a setting: every copy is kept, however many the file repeats.
fn push_setting(section: &mut PendingSection, offset: usize, value: SettingValue) {
    section.settings.push(FoundSetting { offset, value });
}

// ---------------------------------------------------------------------------
// VS Code

fn vscode_settings(
    text: &str,
    doc: &Value<'_>,
    members: &[Member<'_>],
) -> Result<PendingSection, LoadError> {
    for m in members {
        let into_map = [VSCODE_SERVERS, VSCODE_MCP_SERVERS].iter().any(|map| {
            m.key
                .strip_prefix(map)
                .is_some_and(|rest| rest.starts_with('.'))
        });
        if into_map {
            let (line, col) = line_col(text, m.offset);
            return Err(refused(
                format!(
                    "the top-level key \"{}\" at line {line} column {col} reaches into a server \
                     map; VS Code splits it into nested keys, so it declares (part of) a server; \
                     write it inside \"mcp\": {{\"servers\": {{…}}}}",
                    excerpt(&m.key)
                ),
                Construct::DottedKey,
            ));
        }
    }
    refuse_assignment_constructs(text, doc, false)?;
    let vsc = maps_in(
        members_along(doc, VSCODE_SERVERS, true).into_iter(),
        VSCODE_SERVERS,
    )?;
    let mcp = maps_in(
        members_along(doc, VSCODE_MCP_SERVERS, true).into_iter(),
        VSCODE_MCP_SERVERS,
    )?;
    let mut section = PendingSection::of_servers(None, Ok(union_of(text, &mcp, &vsc)?));
    let kinds: [(&str, FlagsSetting); 3] = [
        (VSCODE_DISCOVERY, SettingValue::DiscoveryImport),
        (VSCODE_AUTO_APPROVE[0], SettingValue::ToolsAutoApprove),
        (VSCODE_AUTO_APPROVE[1], SettingValue::ToolsAutoApprove),
    ];
    for (path, make) in kinds {
        for m in members_along(doc, path, true) {
            match flags(&m.value) {
                Ok(Some(flags)) => push_setting(&mut section, m.offset, make(flags)),
                Ok(None) => {}
                Err(reason) => setting_error(&mut section, path, m.offset, &reason),
            }
        }
    }
    section.settings.sort_by_key(|s| s.offset);
    Ok(section)
}

/// A VS Code setting that is a boolean (`("", b)`) or an object of booleans (one
/// `(key, b)` per member, as written).
fn flags(value: &Value<'_>) -> Result<Option<Vec<(String, bool)>>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(vec![(String::new(), *b)])),
        Value::Object(members) => {
            let mut out = Vec::with_capacity(members.len());
            for s in members {
                let Value::Bool(b) = s.value else {
                    return Err(format!(
                        "must map each member to a boolean (\"{}\" is {})",
                        excerpt(&s.key),
                        s.value.kind()
                    ));
                };
                if s.key.len() > MAX_STRING_BYTES {
                    return Err(format!("has a key longer than {MAX_STRING_BYTES} bytes"));
                }
                out.push((s.key.to_string(), b));
            }
            Ok(Some(out))
        }
        other => Err(format!(
            "must be a boolean or an object of booleans (it is {})",
            other.kind()
        )),
    }
}

// ---------------------------------------------------------------------------
// Gemini CLI

/// `mcp.allowed` / `mcp.excluded` (and their version 1 names), as written: a
/// malformed list is the section's error, the servers are still sent.
fn gemini_settings(doc: &Value<'_>, section: &mut PendingSection) {
    let kinds: [(&str, NamesSetting); 4] = [
        (GEMINI_ALLOWED[0], SettingValue::AllowedServers),
        (GEMINI_ALLOWED[1], SettingValue::AllowedServers),
        (GEMINI_EXCLUDED[0], SettingValue::ExcludedServers),
        (GEMINI_EXCLUDED[1], SettingValue::ExcludedServers),
    ];
    for (path, make) in kinds {
        for m in members_along(doc, path, false) {
            if matches!(m.value, Value::Null) {
                continue;
            }
            match names(&m.value) {
                Ok(list) => push_setting(section, m.offset, make(list)),
                Err(reason) => setting_error(section, path, m.offset, &reason),
            }
        }
    }
    section.settings.sort_by_key(|s| s.offset);
}

// ---------------------------------------------------------------------------
// Claude Code

/// A list of server names, or why the value is not one.
fn names(value: &Value<'_>) -> Result<Vec<String>, String> {
    let Value::Array(items, _) = value else {
        return Err(format!(
            "must be a list of server names (it is {})",
            value.kind()
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(s) if s.len() > MAX_STRING_BYTES => {
                return Err(format!("has an entry longer than {MAX_STRING_BYTES} bytes"))
            }
            Some(s) => out.push(s.to_string()),
            None => {
                return Err(format!(
                    "must be a list of server names (entry {i} is {})",
                    item.kind()
                ))
            }
        }
    }
    Ok(out)
}

/// One Claude Code approval setting. `only_active`: a `false` or an empty list is
/// not sent (it has no effect where it is written).
fn claude_setting(m: &Member<'_>, only_active: bool) -> Result<Option<SettingValue>, String> {
    if matches!(m.value, Value::Null) {
        return Ok(None);
    }
    let list = |make: fn(Vec<String>) -> SettingValue| -> Result<Option<SettingValue>, String> {
        let list = names(&m.value)?;
        Ok((!list.is_empty()).then(|| make(list)))
    };
    match m.key.as_ref() {
        "enableAllProjectMcpServers" => match m.value {
            Value::Bool(b) => {
                Ok((b || !only_active).then_some(SettingValue::EnableAllProjectServers(b)))
            }
            ref other => Err(format!("must be a boolean (it is {})", other.kind())),
        },
        "enabledMcpjsonServers" => list(SettingValue::EnabledProjectServers),
        "disabledMcpjsonServers" => list(SettingValue::DisabledProjectServers),
        "disabledMcpServers" => list(SettingValue::DisabledServers),
        _ => Ok(None),
    }
}

/// A Claude Code `settings.json` / `settings.local.json` / managed settings file.
fn claude_settings(
    text: &str,
    doc: &Value<'_>,
    members: &[Member<'_>],
) -> Result<PendingSection, LoadError> {
    let whole_file = |m: &Member<'_>, reason: &str| {
        let (line, col) = line_col(text, m.offset);
        // Over one of doctor's own bounds: Claude Code may well read it, so the
        // refusal is doctor's, and says so.
        let why = if reason.starts_with("has an entry longer") {
            "; that is beyond what doctor reads, so none of this file's settings were audited"
        } else {
            "; Claude Code ignores the whole settings file when a value does not match its schema"
        };
        shape(format!(
            "the setting {} at line {line} column {col} {reason}{why}",
            excerpt(&m.key)
        ))
    };
    let mut section = PendingSection::of_servers(None, Ok(Vec::new()));
    for m in members {
        if m.key == "disabledMcpServers" {
            // A `~/.claude.json` project key, not a settings key.
            continue;
        }
        match claude_setting(m, false) {
            Ok(Some(value)) => push_setting(&mut section, m.offset, value),
            Ok(None) => {}
            Err(reason) => return Err(whole_file(m, &reason)),
        }
    }
    for m in members_along(doc, "permissions", false) {
        if !matches!(m.value, Value::Object(_) | Value::Null) {
            return Err(whole_file(
                m,
                &format!("must be an object (it is {})", m.value.kind()),
            ));
        }
    }
    for m in members_along(doc, "permissions.allow", false) {
        let items = match &m.value {
            Value::Null => continue,
            Value::Array(items, _) => items,
            other => {
                return Err(whole_file(
                    m,
                    &format!("must be a list of rules (it is {})", other.kind()),
                ))
            }
        };
        let tools: Vec<String> = items
            .iter()
            .filter_map(Value::as_str)
            .filter(|rule| rule.starts_with("mcp__") && rule.len() <= MAX_STRING_BYTES)
            .map(str::to_string)
            .collect();
        if !tools.is_empty() {
            push_setting(&mut section, m.offset, SettingValue::AllowedTools(tools));
        }
    }
    section.settings.sort_by_key(|s| s.offset);
    if let Some(p) = section.settings_problems.first() {
        let (line, col) = line_col(text, p.offset);
        return Err(shape(format!(
            "the setting {} at line {line} column {col} {}",
            excerpt(&p.key),
            p.reason
        )));
    }
    Ok(section)
}

/// The approval settings of one `~/.claude.json` project, into its section.
pub(crate) fn claude_project_settings(members: &[Member<'_>], section: &mut PendingSection) {
    // Copies of each setting key, counted in one pass (a project may repeat a key
    // any number of times).
    let mut copies = [0usize; CLAUDE_PROJECT_SETTINGS.len()];
    for m in members {
        if let Some(i) = CLAUDE_PROJECT_SETTINGS.iter().position(|k| *k == m.key) {
            copies[i] += 1;
        }
    }
    for m in members {
        let Some(i) = CLAUDE_PROJECT_SETTINGS.iter().position(|k| *k == m.key) else {
            continue;
        };
        // A repeated key: Claude Code reads the last copy, which may be the
        // `false` that turns an earlier `true` off, so every copy is sent.
        let twice = copies.get(i).is_some_and(|&n| n > 1);
        match claude_setting(m, !twice) {
            Ok(Some(value)) => push_setting(section, m.offset, value),
            Ok(None) => {}
            Err(reason) => setting_error(section, &m.key, m.offset, &reason),
        }
    }
}

// ---------------------------------------------------------------------------
// Zed and OpenCode entries

/// A Zed `context_servers` entry: the current shape (`command` string, `args`,
/// `env`; or `url`, `headers`) or the older one (`"command": {"path", "args",
/// "env"}`). An extension-provided entry (`"source": "extension"`, `settings`)
/// has neither and is sent without a launch.
fn zed_body(entry: &Value<'_>) -> Result<Located, String> {
    let Some(inner @ Value::Object(_)) = present(entry.field("command")) else {
        return server_body_at(entry, Dialect::Json);
    };
    if !entry.is_map() {
        return server_body_at(entry, Dialect::Json);
    }
    let mut repeated_keys: Vec<String> = entry
        .repeated_keys()
        .into_iter()
        .chain(inner.repeated_keys())
        .map(excerpt)
        .collect();
    let nested = |e: String| format!("command.{e}");
    let mut body = ServerBody {
        command: string_field(inner, "path").map_err(nested)?,
        args: string_list(inner, "args")
            .map_err(nested)?
            .unwrap_or_default(),
        env: map_field(inner, "env", Dialect::Json, &mut repeated_keys).map_err(nested)?,
        url: string_field(entry, "url")?,
        headers: map_field(entry, "headers", Dialect::Json, &mut repeated_keys)?,
        ..ServerBody::default()
    };
    let extra = ServerExtra {
        enabled: bool_field(entry, "enabled")?,
        repeated_keys,
        ..ServerExtra::default()
    };
    if extra != ServerExtra::default() {
        body.extra = vec![extra];
    }
    let mut at = ValueOffsets::new(inner);
    at.scalar("path", FieldRef::Command, body.command.is_some());
    at.list("args", 0, FieldRef::Arg);
    at.map("env", &body.env, FieldRef::Env);
    let mut outer = ValueOffsets::new(entry);
    outer.out = at.out;
    outer.scalar("url", FieldRef::Url, body.url.is_some());
    outer.map("headers", &body.headers, FieldRef::Header);
    outer.scalar("enabled", FieldRef::Enabled, body.extra().enabled.is_some());
    Ok((body, outer.finish()))
}

/// OpenCode's server schemas are `.strict()`: a field outside its branch fails the
/// whole config, so OpenCode starts none of its servers. The entry is still sent
/// (a newer OpenCode may know the field); the field is the section's error. With
/// a `type` that is neither branch's, every field of either branch is accepted
/// here (the entry is already read every way).
fn opencode_strict_fields(maps: &[&[Member<'_>]], section: &mut PendingSection) {
    const LOCAL: [&str; 6] = [
        "type",
        "command",
        "environment",
        "enabled",
        "timeout",
        "cwd",
    ];
    const REMOTE: [&str; 6] = ["type", "url", "headers", "oauth", "enabled", "timeout"];
    for entry in maps.iter().flat_map(|m| m.iter()) {
        let Value::Object(fields) = &entry.value else {
            continue;
        };
        let kind = entry.value.get("type").and_then(Value::as_str);
        for field in fields {
            let known = match kind {
                Some("local") => LOCAL.contains(&field.key.as_ref()),
                Some("remote") => REMOTE.contains(&field.key.as_ref()),
                _ => LOCAL.contains(&field.key.as_ref()) || REMOTE.contains(&field.key.as_ref()),
            };
            if !known {
                let key = format!("mcp.{}.{}", excerpt(&entry.key), excerpt(&field.key));
                setting_error(
                    section,
                    &key,
                    field.offset,
                    &format!(
                        "is not a field of OpenCode's {} server schema, which is strict: \
                         OpenCode refuses the whole config",
                        kind.unwrap_or("local or remote")
                    ),
                );
            }
        }
    }
}

/// An OpenCode `mcp` entry: `type` as written; `command` a list (the program,
/// then its arguments); `environment`; or `url` and `headers`; `enabled`, `cwd`.
fn opencode_body(entry: &Value<'_>) -> Result<Located, String> {
    if !entry.is_map() {
        return Err(format!(
            "server entry must be an object (it is {})",
            entry.kind()
        ));
    }
    let mut repeated_keys: Vec<String> = entry.repeated_keys().into_iter().map(excerpt).collect();
    let mut command = string_list(entry, "command")?
        .unwrap_or_default()
        .into_iter();
    let mut body = ServerBody {
        command: command.next(),
        args: command.collect(),
        transport: string_field(entry, "type")?,
        env: map_field(entry, "environment", Dialect::Json, &mut repeated_keys)?,
        url: string_field(entry, "url")?,
        headers: map_field(entry, "headers", Dialect::Json, &mut repeated_keys)?,
        ..ServerBody::default()
    };
    let extra = ServerExtra {
        enabled: bool_field(entry, "enabled")?,
        cwd: string_field(entry, "cwd")?,
        repeated_keys,
        ..ServerExtra::default()
    };
    if extra != ServerExtra::default() {
        body.extra = vec![extra];
    }
    // `command[0]` is the program, `command[i + 1]` argument `i`.
    let mut at = ValueOffsets::new(entry);
    if let Some(mut items) = present(entry.field("command")).and_then(Node::items_at) {
        if let Some((_, first)) = items.next() {
            at.out.push((FieldRef::Command, first));
        }
    }
    at.list("command", 1, FieldRef::Arg);
    at.scalar("type", FieldRef::Transport, body.transport.is_some());
    at.map("environment", &body.env, FieldRef::Env);
    at.scalar("url", FieldRef::Url, body.url.is_some());
    at.map("headers", &body.headers, FieldRef::Header);
    at.scalar("enabled", FieldRef::Enabled, body.extra().enabled.is_some());
    at.scalar("cwd", FieldRef::Cwd, body.extra().cwd.is_some());
    Ok((body, at.finish()))
}

// ---------------------------------------------------------------------------
// Claude Desktop extension manifests

/// The platforms Claude Desktop selects a `platform_overrides` entry for (its
/// `process.platform`).
const DESKTOP_PLATFORMS: [&str; 3] = ["darwin", "win32", "linux"];

fn desktop_extension(
    text: &str,
    doc: &Value<'_>,
    members: &[Member<'_>],
) -> Result<PendingSection, LoadError> {
    let Some(name_member) = members.iter().rev().find(|m| m.key == "name") else {
        return Err(shape(
            "the extension manifest has no \"name\", which names its server".into(),
        ));
    };
    let Value::String(name) = &name_member.value else {
        return Err(shape(format!(
            "the manifest's \"name\" must be a string (it is {})",
            name_member.value.kind()
        )));
    };
    let offset = value_offset(text, name_member.offset);
    let name = checked_name(text, name, offset, "extension name")?;
    let entry =
        |body: Result<Located, String>| Found::new(ServerMap::Manifest, name.clone(), offset, body);
    let mut found = Vec::new();
    for launch in desktop_launches(doc) {
        match launch {
            Err(reason) => found.push(entry(Err(reason))),
            Ok((base, overrides)) => {
                found.push(entry(Ok(base.clone())));
                for body in overrides {
                    found.push(entry(body));
                }
            }
        }
    }
    super::servers::flag_repeated_names(&mut found);
    Ok(PendingSection::of_servers(None, Ok(found)))
}

/// The base launch of a manifest, and each platform override merged over it.
type DesktopLaunch = (Located, Vec<Result<Located, String>>);

/// Every copy of the manifest's `server`, and of its `mcp_config`, in file order:
/// the manifest's parser is not known, and a parser that keeps the first copy
/// would start another launch, so each copy is read (and flagged as repeated).
/// Most launches read from one manifest (copies of `server` times copies of its
/// `mcp_config`), each sent once per platform override.
pub(crate) const MAX_MANIFEST_LAUNCHES: usize = 4;

fn copies<'v, 'a>(v: &'v Value<'a>, key: &str) -> Vec<Option<&'v Value<'a>>> {
    let all: Vec<Option<&'v Value<'a>>> = match v {
        Value::Object(members) => members
            .iter()
            .filter(|m| m.key == key)
            .map(|m| Some(&m.value))
            .collect(),
        _ => Vec::new(),
    };
    if all.is_empty() {
        vec![None]
    } else {
        all
    }
}

fn desktop_launches(doc: &Value<'_>) -> Vec<Result<DesktopLaunch, String>> {
    let servers = copies(doc, "server");
    let launches: usize = servers
        .iter()
        .map(|s| match present(*s) {
            Some(s @ Value::Object(_)) => copies(s, "mcp_config").len(),
            _ => 1,
        })
        .sum();
    // Every launch carries the manifest's name: bound the copies, so that a small
    // manifest cannot make the child send its name many times over.
    if launches > MAX_MANIFEST_LAUNCHES {
        return vec![Err(format!(
            "{launches} copies of server / server.mcp_config (at most \
             {MAX_MANIFEST_LAUNCHES} are read); which one Claude Desktop starts is not known"
        ))];
    }
    let mut out = Vec::new();
    for server in servers {
        match present(server) {
            None => out.push(Err("the manifest has no \"server\"".into())),
            Some(s @ Value::Object(_)) => {
                for config in copies(s, "mcp_config") {
                    out.push(desktop_launch(s, config));
                }
            }
            Some(other) => out.push(Err(format!(
                "server must be an object (it is {})",
                other.kind()
            ))),
        }
    }
    out
}

fn desktop_launch(server: &Value<'_>, config: Option<&Value<'_>>) -> Result<DesktopLaunch, String> {
    let config = match present(config) {
        Some(c @ Value::Object(_)) => c,
        Some(other) => {
            return Err(format!(
                "server.mcp_config must be an object (it is {})",
                other.kind()
            ))
        }
        None if server.field("type").and_then(Value::as_str) == Some("uv") => {
            return Err(
                "a \"uv\" server without mcp_config: Claude Desktop builds its launch \
                        from entry_point, which doctor does not model"
                    .into(),
            )
        }
        None => return Err("server.mcp_config is missing".into()),
    };
    let mcp_config = |e: String| format!("server.mcp_config.{e}");
    let base = server_body_at(config, Dialect::Json).map_err(mcp_config)?;
    let overrides = match present(config.field("platform_overrides")) {
        None => Vec::new(),
        Some(Value::Object(platforms)) => platforms
            .iter()
            .filter(|p| DESKTOP_PLATFORMS.contains(&p.key.as_ref()))
            .map(|p| {
                merged(&base, &p.value).map_err(|e| format!("platform_overrides.{}.{e}", p.key))
            })
            .collect(),
        Some(other) => {
            return Err(format!(
                "server.mcp_config.platform_overrides must be an object (it is {})",
                other.kind()
            ))
        }
    };
    Ok((base, overrides))
}

/// `base` with the fields an override sets replaced by the override's (and
/// their positions by the override's values).
fn merged(base: &Located, over: &Value<'_>) -> Result<Located, String> {
    if !over.is_map() {
        return Err(format!("must be an object (it is {})", over.kind()));
    }
    let (mut body, mut offsets) = base.clone();
    let mut at = ValueOffsets::new(over);
    if let Some(command) = string_field(over, "command")? {
        body.command = Some(command);
        offsets.retain(|(f, _)| *f != FieldRef::Command);
        at.scalar("command", FieldRef::Command, true);
    }
    if let Some(args) = string_list(over, "args")? {
        body.args = args;
        offsets.retain(|(f, _)| !matches!(f, FieldRef::Arg(_)));
        at.list("args", 0, FieldRef::Arg);
    }
    let mut repeated_keys = Vec::new();
    if present(over.field("env")).is_some() {
        body.env = map_field(over, "env", Dialect::Json, &mut repeated_keys)?;
        offsets.retain(|(f, _)| !matches!(f, FieldRef::Env(_)));
        at.map("env", &body.env, FieldRef::Env);
    }
    at.out.extend(offsets);
    Ok((body, at.finish()))
}

/// The offset of the value of the member whose key starts at `key_offset`
/// (strict JSON: only whitespace around the colon); the key's own offset if the
/// text does not look like that.
fn value_offset(text: &str, key_offset: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = key_offset + 1;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'\\' => i += 1,
            b'"' => break,
            _ => {}
        }
    }
    let skip_ws = |mut i: usize| {
        while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i += 1;
        }
        i
    };
    let colon = skip_ws(i);
    if bytes.get(colon) != Some(&b':') {
        return key_offset;
    }
    let value = skip_ws(colon + 1);
    if bytes.get(value) == Some(&b'"') {
        value
    } else {
        key_offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_messages_stay_short() {
        let long = "x".repeat(900);
        let j = joined(&long, &"y".repeat(900));
        assert!(j.len() <= 1_000 + '…'.len_utf8());
        assert_eq!(joined(&"z".repeat(1_000), "w"), "z".repeat(1_000));
    }

    #[test]
    fn value_offsets_skip_escaped_keys() {
        let text = r#"{"n\"ame" : "x"}"#;
        assert_eq!(value_offset(text, 1), 12);
        assert_eq!(value_offset(r#"{"name": 1}"#, 1), 1);
    }
}

// ---------------------------------------------------------------------------
// Gemini CLI's comment stripper and OpenCode's raw-text substitution

/// What Gemini CLI's `strip-json-comments` (3.1.1, called without options) leaves
/// for `JSON.parse`, where it differs from reading the comments as JSONC: it
/// turns every non-whitespace character of a comment into a space and keeps the
/// characters JavaScript's `\s` matches, and an unterminated `/*` at the end is a
/// comment to the end of the file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum GeminiStripped {
    /// The JSONC reading is Gemini CLI's.
    AsWritten,
    /// The file ends inside a `/*` comment, which the stripper drops: read it as
    /// if the comment were closed at the end.
    OpenBlockCommentAtEnd,
}

/// Characters JavaScript's `\s` matches that `JSON.parse` does not accept as
/// whitespace: the stripper keeps them in a comment, and `JSON.parse` then fails.
fn js_space_not_json_space(c: char) -> bool {
    matches!(
        c,
        '\u{000B}' | '\u{000C}' | '\u{00A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// The stripper's own scan (its string tracking counts the backslashes before a
/// quote, as `isEscaped` does). `Err((offset, reason))`: Gemini CLI refuses the
/// file (`JSON.parse` fails on what the stripper leaves).
pub(crate) fn gemini_stripped(text: &str) -> Result<GeminiStripped, (usize, String)> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        Line,
        Block,
    }
    let bytes = text.as_bytes();
    let mut state = In::Code;
    let mut backslashes = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        match state {
            In::Str => {
                if b == b'"' && backslashes % 2 == 0 {
                    state = In::Code;
                }
                backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
            }
            In::Code => match (b, next) {
                (b'"', _) => {
                    state = In::Str;
                    backslashes = 0;
                }
                (b'/', Some(b'/')) => {
                    state = In::Line;
                    i += 1;
                }
                (b'/', Some(b'*')) => {
                    state = In::Block;
                    i += 1;
                }
                _ => {}
            },
            In::Line | In::Block => {
                if state == In::Line && b == b'\n' {
                    state = In::Code;
                } else if state == In::Block && b == b'*' && next == Some(b'/') {
                    state = In::Code;
                    i += 1;
                } else if b >= 0x80 || b == 0x0B || b == 0x0C {
                    if let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) {
                        if js_space_not_json_space(c) {
                            return Err((
                                i,
                                format!(
                                    "a comment holds U+{:04X}, which Gemini CLI's comment stripper \
                                     keeps and JSON.parse refuses: Gemini CLI does not load this file",
                                    u32::from(c)
                                ),
                            ));
                        }
                    }
                }
            }
        }
        i += 1;
    }
    Ok(if state == In::Block {
        GeminiStripped::OpenBlockCommentAtEnd
    } else {
        GeminiStripped::AsWritten
    })
}

/// OpenCode substitutes `{env:NAME}` and `{file:path}` in the **raw text** before
/// it parses it (`ConfigVariable.substitute`). Doctor reads the parsed strings and
/// expands a reference there, which is OpenCode's reading only when the raw
/// reference lies inside one string literal and holds no escape. Refused
/// otherwise (`Err((offset, reason))`), because the substitution can then change
/// the document's structure: a reference spanning two strings, one in a key
/// position or outside any string, one in a comment whose removal ends the comment
/// or that runs past its line. A `{file:…}` is refused unless its line starts with
/// `//` (OpenCode leaves those): the file's text is inserted as raw JSON, and
/// doctor never reads that file.
pub(crate) fn opencode_raw_references(text: &str) -> Result<(), (usize, String)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Span {
        Str { key: bool },
        Line,
        Block,
    }
    // The spans of strings and comments, scanned as jsonc-parser scans them.
    let bytes = text.as_bytes();
    let mut spans: Vec<(usize, usize, Span)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1).copied()) {
            (b'"', _) => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(bytes.len());
                let mut j = end;
                while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r' | b'\n') {
                    j += 1;
                }
                let key = bytes.get(j) == Some(&b':');
                spans.push((start, end, Span::Str { key }));
                i = end;
            }
            (b'/', Some(b'/')) => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
                spans.push((start, i, Span::Line));
            }
            (b'/', Some(b'*')) => {
                let start = i;
                let end = text
                    .get(i + 2..)
                    .and_then(|rest| rest.find("*/"))
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                spans.push((start, end, Span::Block));
                i = end;
            }
            _ => i += 1,
        }
    }
    // Spans are disjoint and in file order: the one holding `at`, by binary search
    // (a hostile file holds hundreds of thousands of each).
    let span_of = |at: usize| {
        let after = spans.partition_point(|(s, _, _)| *s <= at);
        after
            .checked_sub(1)
            .and_then(|i| spans.get(i))
            .filter(|(_, e, _)| at < *e)
            .copied()
    };
    // `{env:…}` first, as OpenCode substitutes it first; then `{file:…}` in the
    // text after that substitution (removing a reference can join one). Built in
    // one pass: removing each reference in place would copy the text once per
    // reference.
    let env_refs = references(text, "{env:");
    let mut substituted = String::with_capacity(text.len());
    let mut kept_from = 0;
    for &(start, end) in &env_refs {
        substituted.push_str(text.get(kept_from..start).unwrap_or_default());
        kept_from = end;
    }
    substituted.push_str(text.get(kept_from..).unwrap_or_default());
    // The start of the line each reference is on, found walking forward (the
    // references are in file order; looking back from each would read a long line
    // once per reference on it).
    let mut line_start = 0;
    let mut scanned = 0;
    for (start, _) in references(&substituted, "{file:") {
        if let Some(n) = substituted.get(scanned..start).and_then(|t| t.rfind('\n')) {
            line_start = scanned + n + 1;
        }
        scanned = start;
        if substituted
            .get(line_start..start)
            .unwrap_or_default()
            .trim_start()
            .starts_with("//")
        {
            continue;
        }
        let end = substituted[start..]
            .find('}')
            .map_or(substituted.len(), |e| start + e + 1);
        let shown = excerpt(&substituted[start..end]);
        let at = text.find(&substituted[start..end]).unwrap_or(0);
        return Err((
            at,
            format!(
                "`{shown}`: OpenCode inserts that file's text into the config before parsing \
                 it, and doctor does not read that file"
            ),
        ));
    }
    for (start, end) in env_refs {
        {
            let token = &text[start..end];
            let shown = excerpt(token);
            let reason = match span_of(start) {
                Some((_, e, Span::Str { key: false })) if end < e && !token.contains('\\') => {
                    continue
                }
                Some((_, e, Span::Line)) if end <= e => continue,
                Some((s, e, Span::Block))
                    if end + 2 <= e
                        && !(bytes.get(start.wrapping_sub(1)) == Some(&b'*')
                            && bytes.get(end) == Some(&b'/'))
                        && start >= s + 2 =>
                {
                    continue
                }
                Some((_, _, Span::Str { key: true })) => format!(
                    "`{shown}` in an object key: OpenCode substitutes it in the raw text, \
                     so its name is not the one written"
                ),
                _ => format!(
                    "`{shown}` is not inside one string: OpenCode substitutes it in the raw \
                     text before parsing, which changes what the file declares"
                ),
            };
            return Err((start, reason));
        }
    }
    Ok(())
}

/// The references `marker…}` the way `/\{env:([^}]+)\}/g` finds them: left to
/// right, not overlapping, at least one character before the first `}`.
fn references(text: &str, marker: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find(marker)) {
        let start = from + found;
        let body = start + marker.len();
        match text.get(body..).and_then(|rest| rest.find('}')) {
            Some(close) if close > 0 => {
                out.push((start, body + close + 1));
                from = body + close + 1;
            }
            Some(_) => from = start + 1,
            // No `}` anywhere after it: no later marker can close either (and
            // searching again for each would read the rest of the file each time).
            None => break,
        }
    }
    out
}
