//! Re-validation of everything the parser child sent.
//!
//! The child parses attacker-controlled bytes, so it may be compromised: its records
//! are checked against the bounds of [`crate::protocol::bounds`] and against the
//! request (one answer per job, of the job's kind) before any engine sees them. A
//! violation is not a config problem but a broken child, and doctor fails closed.
//!
//! Counts have no fixed limit: every count of an answer is held to what the file
//! the parent handed over can hold ([`most_items`] of the size the parent measured),
//! so a valid file is read whole however many servers it declares, and a child
//! claiming more records than the file's bytes could encode is refused.

use crate::protocol::bounds::*;
use crate::protocol::{
    ChildMessage, ClientSetting, FieldRef, FileFormat, IgnoreList, JsonToken, JsonTree, LoadError,
    LoadErrorKind, LockRecord, LockSummary, ParsedConfig, ServerBody, ServerEntry, ServerMap,
    SettingValue,
};

/// A record that no honest child sends.
#[derive(Debug, PartialEq, Eq)]
pub struct InvalidRecord(pub String);

fn check_str(what: &str, s: &str) -> Result<(), InvalidRecord> {
    if s.len() > MAX_STRING_BYTES {
        return Err(InvalidRecord(format!(
            "{what} is {} bytes long (limit {MAX_STRING_BYTES})",
            s.len()
        )));
    }
    Ok(())
}

/// The most items one count of an answer may reach: what the file can hold.
#[derive(Debug, Clone, Copy)]
struct Room {
    most: usize,
    size: u64,
}

impl Room {
    fn of(format: FileFormat, size: u64) -> Self {
        Room {
            most: most_items(format, size),
            size,
        }
    }

    fn check(self, what: &str, n: usize) -> Result<(), InvalidRecord> {
        if n > self.most {
            return Err(InvalidRecord(format!(
                "{what} has {n} entries, more than a {}-byte file can hold ({})",
                self.size, self.most
            )));
        }
        Ok(())
    }
}

fn check_error(e: &LoadError) -> Result<(), InvalidRecord> {
    if e.kind == LoadErrorKind::Unfinished {
        return Err(InvalidRecord(
            "an error kind only the parent gives (unfinished)".into(),
        ));
    }
    check_str("an error message", &e.message)
}

/// What the parts of one config answer held so far: its counts are the answer's.
#[derive(Debug, Clone, Copy, Default)]
pub struct PartTally {
    sections: usize,
    servers: usize,
    parts: usize,
}

/// Check one part of a config answer sent ahead of it (see
/// [`ParsedConfig::continues_parts`]): only a `~/.claude.json` answer comes in parts,
/// a part holds project sections only, and the parts together stay within what the
/// file can hold (`tally` carries the counts from part to part).
pub fn check_part(
    format: FileFormat,
    size: u64,
    tally: &mut PartTally,
    message: &ChildMessage,
) -> Result<(), InvalidRecord> {
    let ChildMessage::Config(Ok(part)) = message else {
        return Err(InvalidRecord("a part that is not config sections".into()));
    };
    if format != FileFormat::ClaudeJson {
        return Err(InvalidRecord(format!(
            "an answer in parts to a {format:?} file"
        )));
    }
    if part.continues_parts || part.sections.iter().any(|s| s.project.is_none()) {
        return Err(InvalidRecord(
            "a part with more than project sections".into(),
        ));
    }
    tally.parts += 1;
    check_sections(format, Room::of(format, size), &part.sections, tally)
}

/// Check one answer against the job it answers: a `format` file the parent measured
/// at `size` bytes (within its size cap).
pub fn check_message(
    format: FileFormat,
    size: u64,
    message: &ChildMessage,
) -> Result<(), InvalidRecord> {
    check_message_after(format, size, &mut PartTally::default(), message)
}

/// [`check_message`] for an answer that may complete parts sent ahead of it, whose
/// counts are in `tally`.
pub fn check_message_after(
    format: FileFormat,
    size: u64,
    tally: &mut PartTally,
    message: &ChildMessage,
) -> Result<(), InvalidRecord> {
    let room = Room::of(format, size);
    if let ChildMessage::Config(Ok(config)) = message {
        if !config.continues_parts {
            // The whole answer: parts sent ahead of it, if any, are void.
            *tally = PartTally::default();
        } else if format != FileFormat::ClaudeJson {
            return Err(InvalidRecord(format!(
                "an answer completing parts to a {format:?} file"
            )));
        }
    }
    match (format, message) {
        (FileFormat::Lock, ChildMessage::Lock(result)) => match result {
            Ok(lock) => check_lock(room, lock),
            Err(e) => check_error(e),
        },
        (FileFormat::LockRecord, ChildMessage::LockRecord(result)) => match result {
            Ok(lock) => check_lock_record(room, lock),
            Err(e) => check_error(e),
        },
        (FileFormat::Lock | FileFormat::LockRecord, _) => Err(InvalidRecord(
            "an answer of another kind to a lock job".into(),
        )),
        (FileFormat::Ignore, ChildMessage::Ignore(result)) => match result {
            Ok(list) => check_ignore_list(room, list),
            Err(e) => check_error(e),
        },
        (FileFormat::Ignore, _) | (_, ChildMessage::Ignore(_)) => Err(InvalidRecord(
            "a suppression answer and a job of another kind".into(),
        )),
        (_, ChildMessage::Lock(_) | ChildMessage::LockRecord(_)) => {
            Err(InvalidRecord("a lock answer to a config job".into()))
        }
        (format, ChildMessage::Config(result)) => match result {
            Ok(config) => check_config(format, room, config, tally),
            Err(e) => check_error(e),
        },
    }
}

/// A suppression file's entries: within the entry count, every string bounded, no
/// position of 0. What the strings mean is checked by `crate::suppress`.
fn check_ignore_list(room: Room, list: &IgnoreList) -> Result<(), InvalidRecord> {
    room.check("a suppression file", list.entries.len())?;
    for entry in &list.entries {
        let at = entry.at;
        let positions = [at.rule, at.target, at.reason, at.expires]
            .into_iter()
            .flatten()
            .chain([(entry.line, entry.column)]);
        if positions
            .into_iter()
            .any(|(line, column)| line == 0 || column == 0)
        {
            return Err(InvalidRecord("a suppression entry position of 0".into()));
        }
        for field in [&entry.rule, &entry.target, &entry.reason, &entry.expires]
            .into_iter()
            .flatten()
        {
            check_str("a suppression field", field)?;
        }
        if let Some(why) = &entry.shape_error {
            if why.len() > crate::child::ignore::MAX_SHAPE_ERROR {
                return Err(InvalidRecord(format!(
                    "a suppression shape error of {} bytes (limit {})",
                    why.len(),
                    crate::child::ignore::MAX_SHAPE_ERROR
                )));
            }
        }
    }
    Ok(())
}

fn check_config(
    format: FileFormat,
    room: Room,
    config: &ParsedConfig,
    tally: &mut PartTally,
) -> Result<(), InvalidRecord> {
    check_sections(format, room, &config.sections, tally)
}

/// Sections of a config answer, or of one of its parts, after those `tally` counted
/// (whose sections were all project sections).
fn check_sections(
    format: FileFormat,
    room: Room,
    sections: &[crate::protocol::Section],
    tally: &mut PartTally,
) -> Result<(), InvalidRecord> {
    tally.sections = tally.sections.saturating_add(sections.len());
    room.check("a config's section list", tally.sections)?;
    for (i, section) in sections.iter().enumerate() {
        match (&section.project, format) {
            (Some(_), f) if f != FileFormat::ClaudeJson => {
                return Err(InvalidRecord(
                    "a projects section in a file that has none".into(),
                ))
            }
            (None, _) if i > 0 => return Err(InvalidRecord("a second top-level section".into())),
            _ => {}
        }
        if let Some(project) = &section.project {
            check_str("a project key", project)?;
        }
        if let Some(e) = &section.error {
            check_error(e)?;
        }
        tally.servers = tally.servers.saturating_add(section.servers.len());
        room.check("a config's server list", tally.servers)?;
        room.check("a section's settings", section.settings.len())?;
        for setting in &section.settings {
            check_setting(format, room, setting)?;
        }
        for entry in &section.servers {
            check_str("a server name", &entry.name)?;
            if entry.line == 0 || entry.column == 0 {
                return Err(InvalidRecord("a server position of 0".into()));
            }
            if !map_allowed(format, entry.map) {
                return Err(InvalidRecord(format!(
                    "a server of the {:?} map in a {format:?} file",
                    entry.map
                )));
            }
            match &entry.body {
                Ok(body) => check_body(room, body)?,
                Err(reason) => check_str("a shape error", reason)?,
            }
            check_values(entry)?;
        }
    }
    Ok(())
}

/// Which server maps a file of `format` can hold.
fn map_allowed(format: FileFormat, map: ServerMap) -> bool {
    match map {
        ServerMap::McpServers => !matches!(
            format,
            FileFormat::ZedSettings | FileFormat::OpenCode | FileFormat::DesktopExtension
        ),
        ServerMap::Servers => matches!(
            format,
            FileFormat::Json
                | FileFormat::McpJson
                | FileFormat::Jsonc
                | FileFormat::ClaudeJson
                | FileFormat::VsCodeSettings
        ),
        ServerMap::Flat => format == FileFormat::McpJson,
        ServerMap::ContextServers => format == FileFormat::ZedSettings,
        ServerMap::Mcp => format == FileFormat::OpenCode,
        ServerMap::Manifest => format == FileFormat::DesktopExtension,
    }
}

/// One setting: a kind the file's format holds, a non-zero position, bounded lists.
fn check_setting(
    format: FileFormat,
    room: Room,
    setting: &ClientSetting,
) -> Result<(), InvalidRecord> {
    if setting.line == 0 || setting.column == 0 {
        return Err(InvalidRecord("a setting position of 0".into()));
    }
    let claude = matches!(format, FileFormat::ClaudeSettings | FileFormat::ClaudeJson);
    let allowed = match &setting.value {
        SettingValue::EnableAllProjectServers(_)
        | SettingValue::EnabledProjectServers(_)
        | SettingValue::DisabledProjectServers(_) => claude,
        SettingValue::DisabledServers(_) => format == FileFormat::ClaudeJson,
        SettingValue::AllowedTools(_) => format == FileFormat::ClaudeSettings,
        SettingValue::DiscoveryImport(_) | SettingValue::ToolsAutoApprove(_) => {
            format == FileFormat::VsCodeSettings
        }
        SettingValue::AllowedServers(_) | SettingValue::ExcludedServers(_) => {
            format == FileFormat::GeminiSettings
        }
    };
    if !allowed {
        return Err(InvalidRecord(format!(
            "a setting a {format:?} file does not hold"
        )));
    }
    match &setting.value {
        SettingValue::EnableAllProjectServers(_) => Ok(()),
        SettingValue::EnabledProjectServers(names)
        | SettingValue::DisabledProjectServers(names)
        | SettingValue::DisabledServers(names)
        | SettingValue::AllowedTools(names)
        | SettingValue::AllowedServers(names)
        | SettingValue::ExcludedServers(names) => {
            room.check("a setting", names.len())?;
            names
                .iter()
                .try_for_each(|n| check_str("a setting entry", n))
        }
        SettingValue::DiscoveryImport(sources) | SettingValue::ToolsAutoApprove(sources) => {
            room.check("a setting", sources.len())?;
            sources
                .iter()
                .try_for_each(|(source, _)| check_str("a discovery source", source))
        }
    }
}

fn check_body(room: Room, body: &ServerBody) -> Result<(), InvalidRecord> {
    for (what, value) in [
        ("command", &body.command),
        ("url", &body.url),
        ("serverUrl", &body.extra().server_url),
        ("httpUrl", &body.extra().http_url),
        ("type", &body.transport),
        ("cwd", &body.extra().cwd),
        ("headersHelper", &body.extra().headers_helper),
        ("bearer_token_env_var", &body.extra().bearer_token_env_var),
        ("bearer_token", &body.extra().bearer_token),
        ("transport", &body.extra().transport_key),
    ] {
        if let Some(v) = value {
            check_str(what, v)?;
        }
    }
    if body.extra.len() > 1 {
        return Err(InvalidRecord(format!(
            "a server body with {} extra records (at most 1)",
            body.extra.len()
        )));
    }
    room.check("args", body.args.len())?;
    room.check("env", body.env.len())?;
    room.check("headers", body.headers.len())?;
    room.check("env_http_headers", body.extra().env_http_headers.len())?;
    room.check("repeated keys", body.extra().repeated_keys.len())?;
    for (what, list) in [
        ("autoApprove", &body.extra().auto_approve),
        ("alwaysAllow", &body.extra().always_allow),
        ("env_vars", &body.extra().env_vars),
    ] {
        room.check(what, list.len())?;
        for tool in list {
            check_str(what, tool)?;
        }
    }
    room.check("tool approvals", body.extra().tool_approvals.len())?;
    for a in body.args.iter().chain(&body.extra().repeated_keys) {
        check_str("an argument", a)?;
    }
    for (k, v) in body
        .env
        .iter()
        .chain(&body.headers)
        .chain(&body.extra().env_http_headers)
        .chain(&body.extra().tool_approvals)
    {
        check_str("a key", k)?;
        check_str("a value", v)?;
    }
    Ok(())
}

/// An entry's value positions: they decode (fields in ascending order, each once,
/// no line or column 0) and each names a field the body has (an index within its
/// list). A wrong shape has none.
fn check_values(entry: &ServerEntry) -> Result<(), InvalidRecord> {
    let body = match &entry.body {
        Ok(body) => body,
        Err(_) if entry.values.is_empty() => return Ok(()),
        Err(_) => {
            return Err(InvalidRecord(
                "value positions for an entry of the wrong shape".into(),
            ))
        }
    };
    let values = crate::protocol::values::decode(entry.line, entry.column, &entry.values)
        .map_err(InvalidRecord)?;
    for at in &values {
        if !has_field(body, at.field) {
            return Err(InvalidRecord(format!(
                "a value position for a field the entry does not have ({:?})",
                at.field
            )));
        }
    }
    Ok(())
}

/// Whether `body` has the value `field` names.
pub fn has_field(body: &ServerBody, field: FieldRef) -> bool {
    let x = body.extra();
    let within = |i: u32, n: usize| usize::try_from(i).is_ok_and(|i| i < n);
    match field {
        FieldRef::Command => body.command.is_some(),
        FieldRef::Arg(i) => within(i, body.args.len()),
        FieldRef::Url => body.url.is_some(),
        FieldRef::Transport => body.transport.is_some(),
        FieldRef::Env(i) => within(i, body.env.len()),
        FieldRef::Header(i) => within(i, body.headers.len()),
        FieldRef::ServerUrl => x.server_url.is_some(),
        FieldRef::HttpUrl => x.http_url.is_some(),
        FieldRef::TransportKey => x.transport_key.is_some(),
        FieldRef::EnvVar(i) => within(i, x.env_vars.len()),
        FieldRef::Cwd => x.cwd.is_some(),
        FieldRef::HeadersHelper => x.headers_helper.is_some(),
        FieldRef::BearerTokenEnvVar => x.bearer_token_env_var.is_some(),
        FieldRef::BearerToken => x.bearer_token.is_some(),
        FieldRef::EnvHttpHeader(i) => within(i, x.env_http_headers.len()),
        FieldRef::Disabled => x.disabled.is_some(),
        FieldRef::Enabled => x.enabled.is_some(),
        FieldRef::AutoApprove => !x.auto_approve.is_empty(),
        FieldRef::AlwaysAllow => !x.always_allow.is_empty(),
        FieldRef::Trust => x.trust.is_some(),
        FieldRef::ToolApproval(i) => within(i, x.tool_approvals.len()),
    }
}

fn check_version(v: u32) -> Result<(), InvalidRecord> {
    use crate::pin::lock::format::{MIN_SCHEMA_VERSION, SCHEMA_VERSION};
    if !(MIN_SCHEMA_VERSION..=SCHEMA_VERSION).contains(&v) {
        return Err(InvalidRecord(format!("a lock schema_version of {v}")));
    }
    Ok(())
}

/// A whole lock: the same bounds as the summary doctor gets, on the same fields, and
/// the format's structural rules. Its JSON-valued fields are rebuilt (and checked
/// token by token) by `pin::lock::record`.
fn check_lock_record(room: Room, lock: &LockRecord) -> Result<(), InvalidRecord> {
    check_version(lock.schema_version)?;
    check_str("a lock command", &lock.server.command)?;
    room.check("lock args", lock.server.args.len())?;
    for a in &lock.server.args {
        check_str("a lock argument", a)?;
    }
    if let Some(u) = &lock.server.url {
        check_str("a lock url", u)?;
    }
    check_str("a digest", &lock.server.command_digest)?;
    check_str("a digest", &lock.overall_digest)?;
    if let Some(d) = &lock.pin.approved_digest {
        check_str("a digest", d)?;
    }
    room.check("a lock tool list", lock.tools.len())?;
    room.check("a lock resource list", lock.resources.len())?;
    room.check("a lock prompt list", lock.prompts.len())?;
    for t in &lock.tools {
        check_str("a digest", &t.entry_digest)?;
        if lock.schema_version >= 4
            && (!matches!(t.annotations_hash, Some(Some(_)))
                || !matches!(t.output_schema_hash, Some(Some(_)))
                || t.output_schema_skeleton.is_none())
        {
            return Err(InvalidRecord("a v4 tool entry without the v4 keys".into()));
        }
        for tree in [&t.inspection, &t.schema_skeleton]
            .into_iter()
            .flatten()
            .chain(t.output_schema_skeleton.iter().flatten())
        {
            check_tree(tree)?;
        }
    }
    for d in lock
        .resources
        .iter()
        .map(|r| &r.entry_digest)
        .chain(lock.prompts.iter().map(|p| &p.entry_digest))
    {
        check_str("a digest", d)?;
    }
    for a in &lock.pin.attestations {
        if a.note
            .as_ref()
            .is_some_and(|n| n.chars().count() > crate::pin::lock::format::NOTE_MAX_CHARS)
        {
            return Err(InvalidRecord("an attestation note over the limit".into()));
        }
    }
    Ok(())
}

/// A JSON-valued field must describe an object (skeletons, inspection).
fn check_tree(tree: &JsonTree) -> Result<(), InvalidRecord> {
    match tree.0.first() {
        Some(JsonToken::Object(_)) => Ok(()),
        _ => Err(InvalidRecord(
            "a JSON-valued lock field that is not an object".into(),
        )),
    }
}

fn check_lock(room: Room, lock: &LockSummary) -> Result<(), InvalidRecord> {
    check_version(lock.schema_version)?;
    check_str("a lock command", &lock.server_command)?;
    room.check("lock args", lock.server_args.len())?;
    for a in &lock.server_args {
        check_str("a lock argument", a)?;
    }
    if let Some(u) = &lock.server_url {
        check_str("a lock url", u)?;
    }
    for d in [&lock.command_digest, &lock.overall_digest]
        .into_iter()
        .chain(lock.approved_digest.as_ref())
    {
        check_str("a digest", d)?;
    }
    for list in [
        &lock.tool_digests,
        &lock.resource_digests,
        &lock.prompt_digests,
    ] {
        room.check("a lock digest list", list.len())?;
        for d in list {
            check_str("a digest", d)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::*;

    /// The size every test answer claims to come from: 8 KiB, room for 4,097 items.
    const SIZE: u64 = 8 << 10;
    /// One more item than a `SIZE`-byte file can hold.
    fn over_room() -> usize {
        most_items(FileFormat::Json, SIZE) + 1
    }

    fn config_with(entry: ServerEntry) -> ChildMessage {
        ChildMessage::Config(Ok(ParsedConfig {
            sections: vec![Section {
                project: None,
                servers: vec![entry],
                error: None,
                settings: Vec::new(),
            }],
            continues_parts: false,
        }))
    }

    fn entry() -> ServerEntry {
        ServerEntry {
            map: ServerMap::McpServers,
            name: "a".into(),
            twin: None,
            line: 1,
            column: 1,
            body: Ok(ServerBody::default()),
            values: Vec::new(),
        }
    }

    #[test]
    fn oversized_strings_and_wrong_kinds_are_rejected() {
        assert!(check_message(FileFormat::Json, SIZE, &config_with(entry())).is_ok());
        let mut long = entry();
        long.name = "x".repeat(MAX_STRING_BYTES + 1);
        assert!(check_message(FileFormat::Json, SIZE, &config_with(long)).is_err());
        let mut zero = entry();
        zero.line = 0;
        assert!(check_message(FileFormat::Json, SIZE, &config_with(zero)).is_err());
        assert!(check_message(FileFormat::Lock, SIZE, &config_with(entry())).is_err());
        let lock = ChildMessage::Lock(Err(LoadError {
            kind: LoadErrorKind::Syntax,
            message: "x".into(),
            construct: None,
        }));
        assert!(check_message(FileFormat::Json, SIZE, &lock).is_err());
        assert!(check_message(FileFormat::Lock, SIZE, &lock).is_ok());
    }

    /// An entry with a command and two arguments, and `values` packed for it.
    fn positioned(values: &[(crate::protocol::FieldRef, u32, u32)]) -> ServerEntry {
        let mut e = entry();
        e.body = Ok(ServerBody {
            command: Some("npx".into()),
            args: vec!["-y".into(), "pkg".into()],
            ..ServerBody::default()
        });
        let values: Vec<crate::protocol::ValueAt> = values
            .iter()
            .map(|&(field, line, column)| crate::protocol::ValueAt {
                field,
                line,
                column,
            })
            .collect();
        e.values = crate::protocol::values::encode(e.line, e.column, &values);
        e
    }

    #[test]
    fn value_positions_from_a_hostile_child_are_refused() {
        use crate::protocol::FieldRef::*;
        let ok = |e: ServerEntry| check_message(FileFormat::Json, SIZE, &config_with(e));
        assert!(ok(positioned(&[
            (Command, 1, 20),
            (Arg(0), 1, 40),
            (Arg(1), 2, 3)
        ]))
        .is_ok());
        assert!(ok(positioned(&[])).is_ok());
        // An index past the body's list, a field the body does not have.
        let past = ok(positioned(&[
            (Arg(0), 1, 3),
            (Arg(1), 1, 9),
            (Arg(2), 1, 12),
        ]));
        assert!(past.is_err_and(|e| e.0.contains("does not have")));
        assert!(ok(positioned(&[(Url, 1, 3)])).is_err());
        assert!(ok(positioned(&[(Cwd, 1, 3)])).is_err());
        // Zero lines and columns, out of order, repeated.
        assert!(ok(positioned(&[(Command, 0, 3)])).is_err());
        assert!(ok(positioned(&[(Command, 2, 0)])).is_err());
        assert!(ok(positioned(&[(Arg(0), 1, 3), (Command, 1, 9)])).is_err());
        assert!(ok(positioned(&[(Command, 1, 3), (Command, 1, 9)])).is_err());
        // Positions for an entry of the wrong shape.
        let mut wrong = positioned(&[(Command, 1, 3)]);
        wrong.body = Err("server entry must be an object".into());
        assert!(ok(wrong).is_err());
        // Bytes that do not decode: an unknown field, a record cut short, an
        // overlong varint, a line past u32.
        for bytes in [
            vec![21, 0, 2],
            vec![0, 0],
            vec![
                0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0,
            ],
            vec![0, 0xfe, 0xff, 0xff, 0xff, 0x1f, 2],
        ] {
            let mut e = positioned(&[]);
            e.values = bytes.clone();
            assert!(ok(e).is_err(), "{bytes:?}");
        }
    }

    fn config_with_setting(value: SettingValue, line: u32) -> ChildMessage {
        ChildMessage::Config(Ok(ParsedConfig {
            sections: vec![Section {
                project: None,
                servers: Vec::new(),
                error: None,
                settings: vec![ClientSetting {
                    line,
                    column: 1,
                    value,
                }],
            }],
            continues_parts: false,
        }))
    }

    #[test]
    fn settings_only_in_the_formats_that_hold_them() {
        let discovery = || SettingValue::DiscoveryImport(vec![(String::new(), true)]);
        let enable = || SettingValue::EnableAllProjectServers(true);
        let allowed = || SettingValue::AllowedTools(vec!["mcp__a".into()]);
        let disabled = || SettingValue::DisabledServers(vec!["a".into()]);
        for (format, value, ok) in [
            (FileFormat::VsCodeSettings, discovery(), true),
            (FileFormat::Json, discovery(), false),
            (FileFormat::ClaudeSettings, discovery(), false),
            (FileFormat::ClaudeSettings, enable(), true),
            (FileFormat::ClaudeJson, enable(), true),
            (FileFormat::VsCodeSettings, enable(), false),
            (FileFormat::CodexToml, enable(), false),
            (FileFormat::ClaudeSettings, allowed(), true),
            (FileFormat::ClaudeJson, allowed(), false),
            (FileFormat::ClaudeJson, disabled(), true),
            (FileFormat::ClaudeSettings, disabled(), false),
            (FileFormat::GeminiSettings, disabled(), false),
            (
                FileFormat::VsCodeSettings,
                SettingValue::ToolsAutoApprove(vec![]),
                true,
            ),
            (
                FileFormat::ClaudeSettings,
                SettingValue::ToolsAutoApprove(vec![]),
                false,
            ),
            (
                FileFormat::GeminiSettings,
                SettingValue::AllowedServers(vec![]),
                true,
            ),
            (
                FileFormat::GeminiSettings,
                SettingValue::ExcludedServers(vec![]),
                true,
            ),
            (
                FileFormat::ClaudeJson,
                SettingValue::ExcludedServers(vec![]),
                false,
            ),
        ] {
            let msg = config_with_setting(value, 1);
            assert_eq!(
                check_message(format, SIZE, &msg).is_ok(),
                ok,
                "{format:?} {msg:?}"
            );
        }
        assert!(check_message(
            FileFormat::VsCodeSettings,
            SIZE,
            &config_with_setting(discovery(), 0)
        )
        .is_err());
        let long = SettingValue::EnabledProjectServers(vec!["x".repeat(MAX_STRING_BYTES + 1)]);
        assert!(check_message(
            FileFormat::ClaudeSettings,
            SIZE,
            &config_with_setting(long, 1)
        )
        .is_err());
        let many = SettingValue::DiscoveryImport(vec![(String::new(), true); over_room()]);
        assert!(check_message(
            FileFormat::VsCodeSettings,
            SIZE,
            &config_with_setting(many, 1)
        )
        .is_err());
        let mut msg = config_with_setting(enable(), 1);
        if let ChildMessage::Config(Ok(c)) = &mut msg {
            let one = c.sections[0].settings[0].clone();
            c.sections[0].settings = vec![one; over_room()];
        }
        assert!(check_message(FileFormat::ClaudeSettings, SIZE, &msg).is_err());
    }

    #[test]
    fn approval_fields_and_maps_are_bounded() {
        let with_extra = |extra: ServerExtra| {
            let mut e = entry();
            e.body = Ok(ServerBody {
                extra: vec![extra],
                ..ServerBody::default()
            });
            config_with(e)
        };
        let over = || vec![String::new(); over_room()];
        let long = || vec!["x".repeat(MAX_STRING_BYTES + 1)];
        for extra in [
            ServerExtra {
                auto_approve: over(),
                ..ServerExtra::default()
            },
            ServerExtra {
                always_allow: long(),
                ..ServerExtra::default()
            },
            ServerExtra {
                env_vars: over(),
                ..ServerExtra::default()
            },
            ServerExtra {
                tool_approvals: vec![(String::new(), String::new()); over_room()],
                ..ServerExtra::default()
            },
            ServerExtra {
                tool_approvals: vec![("t".into(), "x".repeat(MAX_STRING_BYTES + 1))],
                ..ServerExtra::default()
            },
            ServerExtra {
                transport_key: Some("x".repeat(MAX_STRING_BYTES + 1)),
                ..ServerExtra::default()
            },
        ] {
            assert!(
                check_message(FileFormat::Json, SIZE, &with_extra(extra.clone())).is_err(),
                "{extra:?}"
            );
        }
        let fine = ServerExtra {
            auto_approve: vec!["t".into()],
            trust: Some(true),
            tool_approvals: vec![("*".into(), "approve".into())],
            ..ServerExtra::default()
        };
        assert!(check_message(FileFormat::Json, SIZE, &with_extra(fine)).is_ok());
        for (format, map, ok) in [
            (FileFormat::ZedSettings, ServerMap::ContextServers, true),
            (FileFormat::Json, ServerMap::ContextServers, false),
            (FileFormat::OpenCode, ServerMap::Mcp, true),
            (FileFormat::OpenCode, ServerMap::McpServers, false),
            (FileFormat::DesktopExtension, ServerMap::Manifest, true),
            (FileFormat::ClaudeJson, ServerMap::Manifest, false),
            (FileFormat::VsCodeSettings, ServerMap::Servers, true),
            (FileFormat::GeminiSettings, ServerMap::Servers, false),
            (FileFormat::Json, ServerMap::Flat, false),
        ] {
            let mut e = entry();
            e.map = map;
            assert_eq!(
                check_message(format, SIZE, &config_with(e)).is_ok(),
                ok,
                "{format:?} {map:?}"
            );
        }
    }

    #[test]
    fn project_sections_only_in_claude_json() {
        let msg = ChildMessage::Config(Ok(ParsedConfig {
            sections: vec![Section {
                project: Some("/r".into()),
                servers: vec![],
                error: None,
                settings: Vec::new(),
            }],
            continues_parts: false,
        }));
        assert!(check_message(FileFormat::Json, SIZE, &msg).is_err());
        assert!(check_message(FileFormat::ClaudeJson, SIZE, &msg).is_ok());
    }

    /// A part of project sections, or the answer completing parts.
    fn projects(n: usize, servers_each: usize, top: bool, continues_parts: bool) -> ChildMessage {
        let mut sections: Vec<Section> = (0..n)
            .map(|i| Section {
                project: Some(format!("/p/{i}")),
                servers: vec![entry(); servers_each],
                error: None,
                settings: Vec::new(),
            })
            .collect();
        if top {
            sections.insert(
                0,
                Section {
                    project: None,
                    servers: Vec::new(),
                    error: None,
                    settings: Vec::new(),
                },
            );
        }
        ChildMessage::Config(Ok(ParsedConfig {
            sections,
            continues_parts,
        }))
    }

    /// Only a `~/.claude.json` answer comes in parts, a part holds project sections
    /// only, and the parts and the answer completing them are counted as one answer.
    #[test]
    fn parts_are_project_sections_of_claude_json_counted_with_their_answer() {
        let size = 100;
        let room = most_items(FileFormat::ClaudeJson, size);
        let mut tally = PartTally::default();
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut tally,
            &projects(10, 2, false, false)
        )
        .is_ok());
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut tally,
            &projects(10, 2, false, false)
        )
        .is_ok());
        // 40 servers so far: the answer may bring 11 more, not 12.
        let mut t = tally;
        assert!(check_message_after(
            FileFormat::ClaudeJson,
            size,
            &mut t,
            &projects(11, 1, true, true)
        )
        .is_ok());
        let mut t = tally;
        assert!(check_message_after(
            FileFormat::ClaudeJson,
            size,
            &mut t,
            &projects(12, 1, true, true)
        )
        .is_err());
        // A whole answer voids the parts and is counted alone.
        let mut t = tally;
        assert!(check_message_after(
            FileFormat::ClaudeJson,
            size,
            &mut t,
            &projects(room - 1, 0, true, false)
        )
        .is_ok());
        // Sections are counted over the parts too.
        let mut t = PartTally::default();
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut t,
            &projects(room, 0, false, false)
        )
        .is_ok());
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut t,
            &projects(1, 0, false, false)
        )
        .is_err());
        // Parts of another file, a top level in a part, a part marked as completing
        // parts, or parts that are not config sections: a child no honest child is.
        for format in [
            FileFormat::Json,
            FileFormat::McpJson,
            FileFormat::VsCodeSettings,
        ] {
            assert!(check_part(
                format,
                size,
                &mut PartTally::default(),
                &projects(1, 0, false, false)
            )
            .is_err());
            assert!(check_message_after(
                format,
                size,
                &mut PartTally::default(),
                &projects(0, 0, true, true)
            )
            .is_err());
        }
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut PartTally::default(),
            &projects(1, 0, true, false)
        )
        .is_err());
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut PartTally::default(),
            &projects(1, 0, false, true)
        )
        .is_err());
        let error = ChildMessage::Config(Err(LoadError {
            kind: LoadErrorKind::Syntax,
            message: "x".into(),
            construct: None,
        }));
        assert!(check_part(
            FileFormat::ClaudeJson,
            size,
            &mut PartTally::default(),
            &error
        )
        .is_err());
    }

    /// Counts follow from the size of the file handed over: as many items as its
    /// bytes can encode pass, one more is a compromised child, whatever the count.
    #[test]
    fn counts_beyond_what_the_file_can_hold_are_refused() {
        let size = 100;
        let room = most_items(FileFormat::Json, size);
        assert_eq!(room, 51);
        let servers = |n: usize| {
            ChildMessage::Config(Ok(ParsedConfig {
                sections: vec![Section {
                    project: None,
                    servers: vec![entry(); n],
                    error: None,
                    settings: Vec::new(),
                }],
                continues_parts: false,
            }))
        };
        assert!(check_message(FileFormat::Json, size, &servers(room)).is_ok());
        let e = check_message(FileFormat::Json, size, &servers(room + 1))
            .expect_err("one server too many");
        assert!(
            e.0.contains("more than a 100-byte file can hold"),
            "{}",
            e.0
        );
        // The same answer from a larger file is honest.
        assert!(check_message(FileFormat::Json, 1_000, &servers(room + 1)).is_ok());
        // Servers counted over all sections; sections counted themselves.
        let sections = |n: usize, each: usize| {
            let mut sections = vec![Section {
                project: None,
                servers: vec![entry(); each],
                error: None,
                settings: Vec::new(),
            }];
            sections.extend((1..n).map(|i| Section {
                project: Some(format!("/p/{i}")),
                servers: vec![entry(); each],
                error: None,
                settings: Vec::new(),
            }));
            ChildMessage::Config(Ok(ParsedConfig {
                sections,
                continues_parts: false,
            }))
        };
        assert!(check_message(FileFormat::ClaudeJson, size, &sections(room, 0)).is_ok());
        assert!(check_message(FileFormat::ClaudeJson, size, &sections(room + 1, 0)).is_err());
        assert!(check_message(FileFormat::ClaudeJson, size, &sections(26, 2)).is_err());
        // One server's lists.
        let args = |n: usize| {
            let mut e = entry();
            e.body = Ok(ServerBody {
                args: vec![String::new(); n],
                ..ServerBody::default()
            });
            config_with(e)
        };
        assert!(check_message(FileFormat::Json, size, &args(room)).is_ok());
        assert!(check_message(FileFormat::Json, size, &args(room + 1)).is_err());
        // Continue YAML: its aliases may add copies beyond the bytes, up to their bound.
        let yaml = most_items(FileFormat::ContinueYaml, size);
        assert_eq!(yaml, room + crate::child::yaml::MAX_ALIAS_NODES as usize);
        assert!(check_message(FileFormat::ContinueYaml, size, &args(yaml)).is_ok());
        assert!(check_message(FileFormat::ContinueYaml, size, &args(yaml + 1)).is_err());
        // Suppression entries and lock lists.
        let ignore = |n: usize| {
            ChildMessage::Ignore(Ok(IgnoreList {
                entries: vec![
                    IgnoreEntry {
                        line: 1,
                        column: 1,
                        ..IgnoreEntry::default()
                    };
                    n
                ],
            }))
        };
        assert!(check_message(FileFormat::Ignore, size, &ignore(room)).is_ok());
        assert!(check_message(FileFormat::Ignore, size, &ignore(room + 1)).is_err());
        let lock = |n: usize| {
            ChildMessage::Lock(Ok(LockSummary {
                schema_version: crate::pin::lock::format::SCHEMA_VERSION,
                server_command: String::new(),
                server_args: Vec::new(),
                server_url: None,
                command_digest: String::new(),
                tool_digests: vec![String::new(); n],
                resource_digests: Vec::new(),
                prompt_digests: Vec::new(),
                overall_digest: String::new(),
                approved: false,
                approved_digest: None,
            }))
        };
        assert!(check_message(FileFormat::Lock, size, &lock(room)).is_ok());
        assert!(check_message(FileFormat::Lock, size, &lock(room + 1)).is_err());
    }
}
