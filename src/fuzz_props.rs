//! Properties the fuzz targets assert, shared by `fuzz/` (libFuzzer) and
//! `tests/fuzz_regressions.rs` (plain `cargo test`, no libFuzzer).
//!
//! Every function here takes the raw bytes of one fuzz input, runs the product code
//! the way the product runs it, and **panics with a message naming the property**
//! when one does not hold. That is this module's job: it is the only library code
//! that asserts on attacker-shaped data. It is compiled in every build (there is no
//! feature to forget in CI) but hidden from the docs; nothing in the product calls
//! it, so the binary's linker drops it.
//!
//! The properties, per target:
//!
//! * Loaders (`json`, `jsonc`, `toml`, `lock`): [`parse_file`] returns the answer
//!   kind of its job; the answer passes the parent's own re-validation
//!   ([`check_message`]); the decoded strings take at most as many bytes as the
//!   input; when the input has no `\` (and, for TOML, no CR) every returned string
//!   occurs byte for byte in the input; every server position points at its key.
//!   JSONC: a file the strict JSON loader accepts gives identical records, and a
//!   file it rejects for any reason but a comment or trailing comma is rejected by
//!   JSONC with the same message. `~/.claude.json`: when both loaders accept a file,
//!   its top-level section equals the plain JSON loader's. The other clients'
//!   loaders (Claude Code settings and Desktop extension manifests in `json`; VS
//!   Code, Gemini CLI, Zed and OpenCode settings in `jsonc`) hold the same
//!   properties, settings included (every setting position points at a key); a
//!   manifest's strings may be sent up to four times per copy of `server` / `mcp_config` read
//!   (once per platform override). Lock: the digest
//!   recomputation ([`approval_problem`]) is total, digests have their exact form,
//!   and JCS canonicalization of any JSON document is a fixed point.
//! * `yaml` (Continue): the answer passes [`check_message`]; non-UTF-8 input is
//!   flagged; an accepted document stays within the alias bounds (a bomb is refused,
//!   never expanded); entries are positioned at their `name` key; every entry's
//!   readings are total; unquoted, unfolded strings occur in the input.
//! * `safe_text`: no neutralised character, at most the cap in code points, the
//!   identity on printable ASCII within the cap, idempotent.
//! * `pin_command`: the line splits back ([`shell_words`]) into exactly
//!   `mcp-warden pin` + the argv (masked positions `<REDACTED>`) + the fixed tail,
//!   or the `--` form, which is used whenever an argv word could be read as one of
//!   `pin`'s options; no word holds a vendor-pattern secret.
//! * `frame`: [`decode_report_stream_with`] is total, and what it accepts respects the
//!   limits it was given, including the decoded-size bound: the heap the accepted
//!   messages and their parts own (counted by hand over the wire types) is at most
//!   `8 × stream + 16 KiB per message` and the exchange's decoded total, and the
//!   harness's peak stays within [`frame_memory_bound`].
//! * `mcp_message`: the capture client ([`run_capture`]) over a scripted server
//!   (one JSON-RPC message per input line) ends in a surface or an error, never
//!   asks for more pages or keeps more items than its limits allow, and a surface
//!   it accepts builds a lock that pin reads back unchanged and doctor's lock
//!   reader accepts as approved, with the same digests. The same bytes also go
//!   through the Streamable HTTP transport's SSE reader as a response body.
//!
//! Time and memory bounds ([`check_time`], [`check_memory`]) are checked by the
//! harnesses, which own the clock and the counting allocator.

use crate::hash::HashSet;
use crate::hash::HashSetExt;
use std::collections::VecDeque;
use std::time::Duration;

use mcp_warden_sandbox::{decode_report_stream_with, Delivery, Limits, WeakSandboxPolicy};

use crate::child::parse_file;
use crate::digest;
use crate::engines::secrets::has_vendor_secret;
use crate::model::ServerSpec;
use crate::parent::locks::{approval_problem, coverage};
use crate::parent::validate::{check_message, check_message_after, check_part, PartTally};
use crate::pin::capture::http::{read_sse_events, SseStop, MAX_QUEUED as SSE_MAX_QUEUED};
use crate::pin::capture::jsonrpc::{run_capture, Transport, SUPPORTED_PROTOCOL_VERSIONS};
use crate::pin::capture::{CaptureError, Limits as CaptureLimits};
use crate::pin::lock::build::{build_lock, Approval};
use crate::pin::lock::record::lock_from_record;
use crate::pin::lock::write::to_pretty_json;
use crate::pin::lock::Lock;
use crate::protocol::{
    ChildMessage, FileFormat, JsonToken, LoadErrorKind, LockRecord, LockSummary, ParsedConfig,
    ServerBody, SettingValue,
};
use crate::render::lock_names::lock_file_name;
use crate::render::next_steps::{
    pin_command, Approval as PinApproval, APPROVER_PLACEHOLDER, MISSING_COMMAND,
};
use crate::text::mask::{mask_args, mask_url, ArgView, UrlView, REDACTED_ARG, REDACTED_URL};
use crate::text::redact::{has_credential, names_a_credential};
use crate::text::safe_text::{is_neutralised, safe_text, safe_text_capped, ARGV_CAP, ELLIPSIS};

/// The fuzz targets, in the order CI runs them.
pub const TARGETS: &[&str] = &[
    "jsonc",
    "json",
    "toml",
    "yaml",
    "lock",
    "safe_text",
    "frame",
    "pin_command",
    "mcp_message",
];

/// Run the properties of `target` over one input. Unknown targets panic.
pub fn run(target: &str, data: &[u8]) {
    match target {
        "jsonc" => jsonc(data),
        "json" => json(data),
        "toml" => toml(data),
        "yaml" => yaml_props(data),
        "lock" => lock(data),
        "safe_text" => safe_text_props(data),
        "frame" => frame(data),
        "pin_command" => pin_command_props(data),
        "mcp_message" => mcp_message(data),
        other => panic!("no fuzz target named {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Resource bounds (checked by the harnesses).

/// Time bound for one input: 2 s + 50 µs per input byte (5.3 s at libFuzzer's
/// `-max_len=65536`, under the `-timeout=10` the campaign uses). Every parser is
/// linear; a release build needs well under 1 µs per byte.
pub fn time_bound(len: usize) -> Duration {
    Duration::from_secs(2) + Duration::from_micros(50).saturating_mul(saturating_u32(len))
}

/// Fail when one input took longer than [`time_bound`].
pub fn check_time(target: &str, len: usize, elapsed: Duration) {
    let bound = time_bound(len);
    assert!(
        elapsed <= bound,
        "time bound: {target} took {elapsed:?} on {len} bytes (bound {bound:?})"
    );
}

/// Heap bounds for one input, from the counting allocator of the harness:
/// `(peak live bytes above the start, largest single allocation)`.
///
/// * Peak: 64 bytes per input byte + 4 MiB. The parsers keep borrowed trees and
///   records that are at most the input's size; 64× leaves room for the tree nodes
///   of a file of tiny values (`[[[[`, `{"a":1,"b":1…`) and the checks' own copies.
/// * Largest single allocation: 16 bytes per input byte + 1 MiB (serde's cap on
///   any sequence preallocation, `size_hint::cautious`). A length field read from
///   the input can therefore never make the decoder reserve more than the input
///   could possibly fill.
pub fn memory_bound(len: usize) -> (usize, usize) {
    (
        len.saturating_mul(64).saturating_add(4 << 20),
        len.saturating_mul(16).saturating_add(1 << 20),
    )
}

/// The `frame` target's peak: the stream's bytes (the reader's buffer and payload
/// copies, 3×), what the decoder may let the values own (8 bytes per payload byte, and
/// the per-frame slack of at most 64 messages), doubled for `Vec`'s rounding, and
/// 4 MiB. Before sequence slots were charged, a frame of empty strings owned 24 bytes
/// per input byte and exceeded it.
pub fn frame_memory_bound(len: usize) -> usize {
    let decoded = len.saturating_mul(8) + 64 * (16 << 10);
    len.saturating_mul(3) + 2 * decoded + (4 << 20)
}

/// Fail when one input used more heap than [`memory_bound`] (for `frame`,
/// [`frame_memory_bound`] as well).
pub fn check_memory(target: &str, len: usize, peak: usize, largest: usize) {
    if target == "frame" {
        let bound = frame_memory_bound(len);
        assert!(
            peak <= bound,
            "memory bound: frame peaked at {peak} live heap bytes on {len} bytes of input \
             (decoded-size bound {bound})"
        );
    }
    let (max_peak, max_single) = memory_bound(len);
    assert!(
        largest <= max_single,
        "memory bound: {target} made a single {largest}-byte allocation on {len} bytes of \
         input (bound {max_single})"
    );
    assert!(
        peak <= max_peak,
        "memory bound: {target} peaked at {peak} live heap bytes on {len} bytes of input \
         (bound {max_peak})"
    );
}

fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------
// Loaders.

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `json` target: the strict loaders for plain JSON clients and `~/.claude.json`,
/// Claude Code settings and Claude Desktop extension manifests.
pub fn json(data: &[u8]) {
    let _ = config_props(FileFormat::ClaudeSettings, data);
    let _ = config_props(FileFormat::DesktopExtension, data);
    let plain = config_props(FileFormat::Json, data);
    let claude = config_props(FileFormat::ClaudeJson, data);
    // The streamed `~/.claude.json` reader (what the child runs) answers as the tree
    // reader. The tree reader's answer is dropped before the next loader runs, so no
    // more answers are held at once than before it was compared.
    let by_tree = crate::child::claude_json_by_tree(data);
    match (&claude, &by_tree) {
        (Ok(streamed), ChildMessage::Config(Ok(tree))) => assert_eq!(
            streamed, tree,
            "claude.json: the streamed reader answers differently from the tree reader"
        ),
        // An error is small: read it again to compare it whole.
        _ => assert_eq!(
            parse_file(FileFormat::ClaudeJson, data),
            by_tree,
            "claude.json: the streamed reader answers differently from the tree reader"
        ),
    }
    drop(by_tree);
    // Its project sections sent ahead one at a time (as the child sends them in
    // batches) and put back together as the parent does: the same answer.
    let mut sent: Vec<crate::protocol::Section> = Vec::new();
    let answer = crate::child::parse_file_in_child(
        FileFormat::ClaudeJson,
        data,
        false,
        Some(crate::child::claude::SendAhead {
            send: &mut |sections| {
                sent.extend(sections);
                Ok(())
            },
            batch: 1,
        }),
    );
    let assembled = match answer {
        ChildMessage::Config(Ok(mut config)) if config.continues_parts => {
            let rest = config.sections.split_off(config.sections.len().min(1));
            config.sections.extend(sent);
            config.sections.extend(rest);
            config.continues_parts = false;
            Ok(config)
        }
        ChildMessage::Config(other) => other,
        _ => panic!("claude.json: an answer of another kind"),
    };
    match (&claude, &assembled) {
        (Ok(whole), Ok(assembled)) => assert_eq!(
            whole, assembled,
            "claude.json: the sections sent ahead and the answer are not the answer read whole"
        ),
        (Err(()), Err(e)) => assert_eq!(
            parse_file(FileFormat::ClaudeJson, data),
            ChildMessage::Config(Err(e.clone())),
            "claude.json: sending sections ahead changes the error"
        ),
        _ => panic!("claude.json: sending sections ahead changes whether the file is read"),
    }
    drop(assembled);
    let workspace = config_props(FileFormat::McpJson, data);
    if let (Ok(plain), Ok(workspace)) = (&plain, &workspace) {
        // The flat reading only adds entries, after the maps' own.
        let (p, w) = (plain.sections.first(), workspace.sections.first());
        if let (Some(p), Some(w)) = (p, w) {
            assert!(
                w.servers.len() >= p.servers.len()
                    && w.servers.iter().zip(&p.servers).all(|(a, b)| a == b),
                ".mcp.json: the workspace loader drops or changes an entry the plain loader reads"
            );
        }
    }
    if let (Ok(plain), Ok(claude)) = (&plain, &claude) {
        assert_eq!(
            claude.sections.first(),
            plain.sections.first(),
            "claude.json: the top-level section differs from the plain JSON loader's"
        );
    }
}

/// `jsonc` target: the VS Code loader, and its agreement with strict JSON; the other
/// loaders of JSON with comments (VS Code and Gemini CLI settings, Zed, OpenCode).
pub fn jsonc(data: &[u8]) {
    for format in [
        FileFormat::VsCodeSettings,
        FileFormat::GeminiSettings,
        FileFormat::ZedSettings,
        FileFormat::OpenCode,
    ] {
        let _ = config_props(format, data);
    }
    let lax = parse_file(FileFormat::Jsonc, data);
    config_checks(FileFormat::Jsonc, data, &lax);
    if data.starts_with(BOM) {
        // Strict JSON refuses a BOM that JSONC skips; nothing to compare.
        return;
    }
    let strict = parse_file(FileFormat::Json, data);
    match (&strict, &lax) {
        // VS Code gives `__proto__` and dotted `servers.` keys a meaning strict JSON
        // readers do not: only the VS Code loader refuses them.
        (ChildMessage::Config(Ok(_) | Err(_)), ChildMessage::Config(Err(l)))
            if matches!(
                l.construct,
                Some(crate::protocol::Construct::ProtoKey | crate::protocol::Construct::DottedKey)
            ) => {}
        (ChildMessage::Config(Err(s)), ChildMessage::Config(_))
            if s.construct == Some(crate::protocol::Construct::ProtoKey) => {}
        (ChildMessage::Config(Ok(_)), _) => assert_eq!(
            lax, strict,
            "jsonc: a file strict JSON accepts gives different records in JSONC"
        ),
        (ChildMessage::Config(Err(s)), ChildMessage::Config(Err(l)))
            if s.kind == LoadErrorKind::Syntax =>
        {
            if !s.message.contains("looks like JSONC") {
                assert_eq!(
                    l.message.replacen("invalid JSONC", "invalid JSON", 1),
                    s.message,
                    "jsonc: a strict-JSON syntax error (not a comment or trailing comma) \
                     gives a different JSONC error"
                );
            }
        }
        (ChildMessage::Config(Err(s)), ChildMessage::Config(Err(l))) => assert_eq!(
            l, s,
            "jsonc: a read or shape error differs between JSON and JSONC"
        ),
        (ChildMessage::Config(Err(s)), ChildMessage::Config(Ok(_))) => assert!(
            s.kind == LoadErrorKind::Syntax && s.message.contains("looks like JSONC"),
            "jsonc: JSONC accepts a file strict JSON rejects for another reason: {}",
            s.message
        ),
        _ => panic!("jsonc: a loader answered a config job with a lock"),
    }
}

/// `toml` target: the Codex loader.
pub fn toml(data: &[u8]) {
    let _ = config_props(FileFormat::CodexToml, data);
}

/// `yaml` target: Continue's YAML loader. The answer passes the parent's
/// re-validation; input that is not UTF-8 is flagged; aliases stay within their
/// bounds (a bomb is refused, never expanded); every entry read with a body is
/// positioned at its `name` key; and strings without escapes, quoting or folding
/// occur in the input.
pub fn yaml_props(data: &[u8]) {
    use crate::child::yaml;
    let format = FileFormat::ContinueYaml;
    let msg = parse_file(format, data);
    if let Err(e) = check_message(format, data.len() as u64, &msg) {
        panic!(
            "yaml: the parent's re-validation refuses an honest child's answer: {}",
            e.0
        );
    }
    let ChildMessage::Config(result) = &msg else {
        panic!("yaml: a config job answered with a lock");
    };
    let lossy = String::from_utf8_lossy(data);
    let text: &str = &lossy;
    if let Ok(doc) = yaml::parse(text) {
        let c = doc.counts;
        assert!(
            c.aliases <= yaml::MAX_ALIAS_REFERENCES && c.alias_nodes <= yaml::MAX_ALIAS_NODES,
            "yaml: aliases beyond their bounds were accepted: {c:?}"
        );
        assert!(
            c.nodes <= u64::try_from(text.len()).unwrap_or(u64::MAX) + 1,
            "yaml: more nodes than input bytes: {c:?}"
        );
    }
    let Ok(config) = result else {
        return;
    };
    if matches!(lossy, std::borrow::Cow::Owned(_)) {
        assert!(
            config
                .sections
                .first()
                .and_then(|s| s.error.as_ref())
                .is_some_and(|e| e.construct == Some(crate::protocol::Construct::InvalidUtf8)),
            "yaml: input that is not UTF-8 was read without being flagged"
        );
    }
    // Quoting, escapes and folding rewrite strings; without them every string is
    // the input's own.
    let verbatim = !text.contains(['\\', '"', '\'', '|', '>', '\r', '\t']);
    for entry in config.sections.iter().flat_map(|s| &s.servers) {
        let at = offset_of(text, entry.line, entry.column).and_then(|o| text.get(o..));
        let Some(at) = at else {
            panic!(
                "yaml: server {:?} has position {}:{}, outside the file",
                entry.name, entry.line, entry.column
            );
        };
        if entry.body.is_ok() {
            assert!(
                at.starts_with("name") || at.starts_with(['"', '\'', '!', '&']),
                "yaml: the position {}:{} of server {:?} does not point at its name key",
                entry.line,
                entry.column,
                entry.name
            );
        }
        let Ok(body) = &entry.body else {
            continue;
        };
        check_readings("yaml", body);
        if !verbatim {
            continue;
        }
        let mut strings = vec![entry.name.as_str()];
        body_strings(body, &mut strings);
        // A plain scalar over several lines is folded into one with spaces.
        for s in strings
            .into_iter()
            .filter(|s| !s.contains(char::is_whitespace))
        {
            assert!(
                text.contains(s),
                "yaml: the value {s:?} does not occur in an input without escapes"
            );
        }
    }
}

fn config_props(format: FileFormat, data: &[u8]) -> Result<ParsedConfig, ()> {
    let msg = parse_file(format, data);
    config_checks(format, data, &msg);
    match msg {
        ChildMessage::Config(Ok(c)) => Ok(c),
        _ => Err(()),
    }
}

fn config_checks(format: FileFormat, data: &[u8], msg: &ChildMessage) {
    let name = format!("{format:?}");
    if let Err(e) = check_message(format, data.len() as u64, msg) {
        panic!(
            "{name}: the parent's re-validation refuses an honest child's answer: {}",
            e.0
        );
    }
    let ChildMessage::Config(result) = msg else {
        panic!("{name}: a config job answered with a lock");
    };
    let Ok(config) = result else {
        return;
    };
    // Invalid UTF-8 is read as Node reads it (U+FFFD for each invalid sequence)
    // and flagged as the file's error; TOML never returns records for it.
    let lossy = String::from_utf8_lossy(data);
    if matches!(lossy, std::borrow::Cow::Owned(_)) {
        assert!(
            format != FileFormat::CodexToml,
            "{name}: records returned for TOML that is not UTF-8"
        );
        assert!(
            config
                .sections
                .first()
                .and_then(|s| s.error.as_ref())
                .is_some_and(|e| e.construct == Some(crate::protocol::Construct::InvalidUtf8)),
            "{name}: input that is not UTF-8 was read without being flagged"
        );
    }
    let text: &str = &lossy;
    let mut strings: Vec<&str> = Vec::new();
    for (i, section) in config.sections.iter().enumerate() {
        assert_eq!(
            section.project.is_some(),
            i > 0,
            "{name}: only sections after the first belong to a project"
        );
        strings.extend(section.project.as_deref());
        for setting in &section.settings {
            setting_strings(&setting.value, &mut strings);
            let at = offset_of(text, setting.line, setting.column).and_then(|o| text.get(o..));
            assert!(
                at.is_some_and(|at| at.starts_with('"')),
                "{name}: the position {}:{} of a setting does not point at its key",
                setting.line,
                setting.column
            );
        }
        for entry in &section.servers {
            strings.push(&entry.name);
            if let Ok(body) = &entry.body {
                body_strings(body, &mut strings);
            }
            check_position(format, text, entry.line, entry.column, &entry.name);
            check_value_positions(format, text, entry);
            if let Ok(body) = &entry.body {
                check_readings(&name, body);
            }
        }
    }
    // A desktop extension's launch is sent once per platform override, each
    // merged over the base launch, for each copy of `server` / `mcp_config` read
    // (at most `MAX_MANIFEST_LAUNCHES`), each carrying the manifest's name.
    let copies = if format == FileFormat::DesktopExtension {
        4 * crate::child::clients::MAX_MANIFEST_LAUNCHES
    } else {
        1
    };
    check_strings(
        &name,
        text,
        format == FileFormat::CodexToml,
        copies,
        &strings,
    );
}

/// An entry's packed value positions from a hostile child: decoding is total,
/// what decodes is in strictly ascending field order with no line or column 0, and
/// it packs back to bytes that decode to the same positions (a fixed point).
fn value_positions(data: &[u8]) {
    use crate::protocol::values::{decode, encode};
    let (line, column) = match data {
        [a, b, ..] => (u32::from(*a) + 1, u32::from(*b) + 1),
        _ => (1, 1),
    };
    let Ok(values) = decode(line, column, data) else {
        return;
    };
    assert!(
        values.len() * 3 <= data.len(),
        "more positions than records"
    );
    for pair in values.windows(2) {
        assert!(
            pair[0].field < pair[1].field,
            "positions out of order: {pair:?}"
        );
    }
    assert!(values.iter().all(|v| v.line > 0 && v.column > 0));
    let packed = encode(line, column, &values);
    assert_eq!(
        decode(line, column, &packed).as_deref(),
        Ok(values.as_slice()),
        "positions do not survive packing"
    );
}

/// Every value position an honest child sends lies in the file and points at the
/// value it names: a string's opening quote (JSON, JSONC), a list's bracket, a
/// boolean's first letter; with no escapes in the file, at the value's own text.
fn check_value_positions(format: FileFormat, text: &str, entry: &crate::protocol::ServerEntry) {
    use crate::protocol::FieldRef;
    let Ok(body) = &entry.body else {
        assert!(
            entry.values.is_empty(),
            "{format:?}: positions for a wrong shape"
        );
        return;
    };
    let values = crate::protocol::values::decode(entry.line, entry.column, &entry.values)
        .unwrap_or_else(|e| panic!("{format:?}: positions do not decode: {e}"));
    let json = !matches!(format, FileFormat::CodexToml | FileFormat::ContinueYaml);
    let exact = !text.contains('\\');
    let x = body.extra();
    let item = |list: &[String], i: u32| usize::try_from(i).ok().and_then(|i| list.get(i)).cloned();
    let value = |list: &[(String, String)], i: u32| {
        usize::try_from(i)
            .ok()
            .and_then(|i| list.get(i))
            .map(|(_, v)| v.clone())
    };
    for v in &values {
        let Some(at) = offset_of(text, v.line, v.column).and_then(|o| text.get(o..)) else {
            panic!("{format:?}: the value position {v:?} is outside the file");
        };
        if !json {
            continue;
        }
        let string = match v.field {
            FieldRef::Command => body.command.clone(),
            // OpenCode's program is the first item of its `command` list.
            FieldRef::Arg(i) => item(&body.args, i),
            FieldRef::Url => body.url.clone(),
            FieldRef::Env(i) => value(&body.env, i),
            FieldRef::Header(i) => value(&body.headers, i),
            FieldRef::ServerUrl => x.server_url.clone(),
            FieldRef::HttpUrl => x.http_url.clone(),
            FieldRef::Cwd => x.cwd.clone(),
            FieldRef::HeadersHelper => x.headers_helper.clone(),
            FieldRef::Disabled | FieldRef::Enabled | FieldRef::Trust => {
                assert!(
                    at.starts_with(['t', 'f']),
                    "{format:?}: {v:?} does not point at a boolean"
                );
                continue;
            }
            FieldRef::AutoApprove | FieldRef::AlwaysAllow => {
                assert!(
                    at.starts_with('['),
                    "{format:?}: {v:?} does not point at a list"
                );
                continue;
            }
            _ => None,
        };
        assert!(
            at.starts_with('"'),
            "{format:?}: {v:?} does not point at a string"
        );
        if let (Some(s), true) = (string, exact) {
            assert!(
                at.starts_with(&format!("\"{s}\"")),
                "{format:?}: {v:?} does not point at {s:?}"
            );
        }
    }
}

fn setting_strings<'a>(value: &'a SettingValue, out: &mut Vec<&'a str>) {
    match value {
        SettingValue::EnableAllProjectServers(_) => {}
        SettingValue::EnabledProjectServers(names)
        | SettingValue::DisabledProjectServers(names)
        | SettingValue::DisabledServers(names)
        | SettingValue::AllowedTools(names)
        | SettingValue::AllowedServers(names)
        | SettingValue::ExcludedServers(names) => out.extend(names.iter().map(String::as_str)),
        SettingValue::DiscoveryImport(sources) | SettingValue::ToolsAutoApprove(sources) => {
            out.extend(sources.iter().map(|(s, _)| s.as_str()));
        }
    }
}

fn body_strings<'a>(body: &'a ServerBody, out: &mut Vec<&'a str>) {
    out.extend(body.command.as_deref());
    out.extend(body.url.as_deref());
    out.extend(body.transport.as_deref());
    out.extend(body.args.iter().map(String::as_str));
    for (k, v) in body.env.iter().chain(&body.headers) {
        out.push(k);
        out.push(v);
    }
    let extra = body.extra();
    out.extend(extra.env_vars.iter().map(String::as_str));
    out.extend(extra.auto_approve.iter().map(String::as_str));
    out.extend(extra.always_allow.iter().map(String::as_str));
    for (tool, mode) in &extra.tool_approvals {
        // `*` stands for `default_tools_approval_mode`, not text of the input.
        if tool != "*" {
            out.push(tool);
        }
        out.push(mode);
    }
    for s in [
        &extra.server_url,
        &extra.http_url,
        &extra.transport_key,
        &extra.cwd,
        &extra.headers_helper,
        &extra.bearer_token_env_var,
        &extra.bearer_token,
    ] {
        out.extend(s.as_deref());
    }
    for (k, v) in &extra.env_http_headers {
        out.push(k);
        out.push(v);
    }
}

/// Every client's reading of an entry is total: it starts something non-empty,
/// nothing, or is refused with a reason; distinct readings are distinct launches.
fn check_readings(name: &str, body: &ServerBody) {
    use crate::model::Launch;
    use crate::reading::{expand::Known, read, FileReaders, EVERY};
    let all: &[_] = &EVERY;
    // Every reader at once, and alone: Claude Code, VS Code, Codex.
    for readers in [all, &all[..1], &all[3..4], &all[7..8]] {
        let file = FileReaders {
            readers,
            known: Known {
                home: Some("/h".into()),
                workspace: Some("/h/p".into()),
                separator: '/',
            },
        };
        let Ok(readings) = read(body.clone(), &file) else {
            continue;
        };
        assert!(
            !readings.specs.is_empty(),
            "{name}: an entry with no reading"
        );
        assert_eq!(
            readings.ambiguous.is_some(),
            readings.specs.len() > 1,
            "{name}: several readings not flagged (or one flagged)"
        );
        for spec in &readings.specs {
            match &spec.launch {
                Launch::Stdio(s) => assert!(!s.command.is_empty(), "{name}: an empty command"),
                Launch::Remote(r) => assert!(!r.url.is_empty(), "{name}: an empty URL"),
                Launch::Nothing => {
                    assert_eq!(readings.specs.len(), 1, "{name}: nothing and something")
                }
            }
            assert!(
                !spec.origin.readers.is_empty(),
                "{name}: a reading with no reader"
            );
        }
    }
}

/// Decoded strings never take more bytes than the input, and, when the input has
/// no escape sequences, each one occurs in it byte for byte.
fn check_strings(name: &str, text: &str, toml: bool, copies: usize, strings: &[&str]) {
    let total: usize = strings.iter().map(|s| s.len()).sum();
    assert!(
        total <= text.len().saturating_mul(copies),
        "{name}: the returned strings take {total} bytes, more than {copies} × the {}-byte input",
        text.len()
    );
    // TOML may also rewrite CRLF inside multi-line strings and trims the newline
    // after an opening `"""`; the latter keeps the value a substring.
    if text.contains('\\') || (toml && text.contains('\r')) {
        return;
    }
    let mut seen = HashSet::new();
    for s in strings {
        if seen.insert(*s) {
            assert!(
                text.contains(s),
                "{name}: the value {s:?} does not occur in an input without escapes"
            );
        }
    }
}

/// Byte offset of a 1-based (line, column-in-code-points) position, counting
/// lines as `child::position` does (LF, CRLF, lone CR; a leading BOM is no column).
fn offset_of(text: &str, line: u32, column: u32) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let mut l = 1u32;
    while l < line {
        match bytes.get(i)? {
            b'\n' => l += 1,
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => l += 1,
            _ => {}
        }
        i += 1;
    }
    let rest = text.get(i..)?;
    let skip = usize::try_from(column.checked_sub(1)?).ok()?;
    let (off, _) = rest.char_indices().nth(skip)?;
    Some(i + off)
}

fn check_position(format: FileFormat, text: &str, line: u32, column: u32, key: &str) {
    let at = offset_of(text, line, column).and_then(|o| text.get(o..));
    let Some(at) = at else {
        panic!("{format:?}: server {key:?} has position {line}:{column}, outside the file");
    };
    let exact = !text.contains('\\');
    let ok = match format {
        FileFormat::CodexToml => {
            if exact {
                at.starts_with(&format!("\"{key}\""))
                    || at.starts_with(&format!("'{key}'"))
                    || at.starts_with(key)
            } else {
                at.starts_with(['"', '\''])
                    || at.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            }
        }
        _ => {
            if exact {
                at.starts_with(&format!("\"{key}\""))
            } else {
                at.starts_with('"')
            }
        }
    };
    assert!(
        ok,
        "{format:?}: the position {line}:{column} of server {key:?} does not point at its key"
    );
}

// ---------------------------------------------------------------------------
// Lock.

/// A lock read whole, the way `check` and `lock rotate` read one: the child's reader,
/// the parent's re-validation, the record turned into the document model.
fn read_whole_lock(data: &[u8]) -> Result<Lock, String> {
    let msg = parse_file(FileFormat::LockRecord, data);
    if let Err(e) = check_message(FileFormat::LockRecord, data.len() as u64, &msg) {
        panic!(
            "lock: the parent's re-validation refuses an honest child's record: {}",
            e.0
        );
    }
    match msg {
        ChildMessage::LockRecord(Ok(record)) => lock_from_record(record)
            .map_err(|e| panic!("lock: an honest child's record does not rebuild: {}", e.0)),
        ChildMessage::LockRecord(Err(e)) => Err(e.message),
        other => panic!("lock: a whole-lock job answered with {other:?}"),
    }
}

/// One reader: the summary doctor gets and the whole lock `check` and `rotate` get
/// accept the same files, agree on every field they share, and a lock written back
/// from the record reads back unchanged (what `rotate` writes, it can read again).
fn one_reader(data: &[u8], summary: &Result<LockSummary, crate::protocol::LoadError>) {
    let whole = read_whole_lock(data);
    match (summary, &whole) {
        (Ok(s), Ok(l)) => {
            assert!(
                s.overall_digest == l.overall_digest
                    && s.server_command == l.server.command
                    && s.server_args == l.server.args
                    && s.server_url == l.server.url
                    && s.approved == l.pin.approved
                    && s.tool_digests.len() == l.tools.len(),
                "lock: the summary and the whole lock disagree"
            );
            // Writing normalises (a pre-v4 lock loses the null of a key its level never
            // had), so the property is a fixed point: what is written reads back, and
            // writing that again gives the same bytes.
            let written = to_pretty_json(l);
            let again = read_whole_lock(&written);
            assert!(
                again.as_ref().is_ok_and(|a| to_pretty_json(a) == written),
                "lock: a lock written from its record reads back differently: {again:?}"
            );
        }
        (Err(a), Err(b)) => assert_eq!(
            &a.message, b,
            "lock: the two readings refuse with different reasons"
        ),
        (a, b) => panic!("lock: the summary ({a:?}) and the whole lock ({b:?}) disagree"),
    }
}

/// `lock` target: the warden.lock reader and the parent's digest recomputation.
pub fn lock(data: &[u8]) {
    let msg = parse_file(FileFormat::Lock, data);
    if let Err(e) = check_message(FileFormat::Lock, data.len() as u64, &msg) {
        panic!(
            "lock: the parent's re-validation refuses an honest child's answer: {}",
            e.0
        );
    }
    let ChildMessage::Lock(result) = &msg else {
        panic!("lock: a lock job answered with a config");
    };
    if let Ok(summary) = result {
        let Ok(text) = std::str::from_utf8(data) else {
            panic!("lock: a summary returned for input that is not UTF-8");
        };
        let mut strings: Vec<&str> = vec![
            &summary.server_command,
            &summary.command_digest,
            &summary.overall_digest,
        ];
        strings.extend(summary.server_url.as_deref());
        strings.extend(summary.approved_digest.as_deref());
        for list in [
            &summary.server_args,
            &summary.tool_digests,
            &summary.resource_digests,
            &summary.prompt_digests,
        ] {
            strings.extend(list.iter().map(String::as_str));
        }
        check_strings("lock", text, false, 1, &strings);
        check_approval(summary);
    }
    one_reader(data, result);
    jcs_fixed_point(data);
}

fn is_digest(s: &str) -> bool {
    s.strip_prefix(digest::SHA256_PREFIX).is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

fn check_approval(lock: &LockSummary) {
    let problem = approval_problem(lock);
    assert_eq!(
        problem,
        approval_problem(lock),
        "lock: approval_problem is not deterministic"
    );
    let stdio = digest::command_digest_stdio(&lock.server_command, &lock.server_args);
    let url = lock.server_url.as_deref().map(digest::command_digest_url);
    let overall = digest::overall_digest(
        lock.schema_version,
        &lock.command_digest,
        &lock.tool_digests,
        &lock.resource_digests,
        &lock.prompt_digests,
    );
    for d in [&stdio, &overall].into_iter().chain(url.as_ref()) {
        assert!(is_digest(d), "lock: a recomputed digest {d:?} is malformed");
    }
    if problem.is_none() {
        assert!(
            lock.approved
                && lock.approved_digest.as_deref() == Some(lock.overall_digest.as_str())
                && url.as_ref().unwrap_or(&stdio) == &lock.command_digest
                && overall == lock.overall_digest,
            "lock: an approval counts although its digests do not bind the surface"
        );
        // The lock then covers exactly the launch it pins.
        let args: Vec<&str> = lock.server_args.iter().map(String::as_str).collect();
        let server = match lock.server_url.as_deref() {
            Some(url) if !url.is_empty() => ServerSpec::remote(url),
            _ if !lock.server_command.is_empty() => ServerSpec::stdio(&lock.server_command, &args),
            _ => ServerSpec::default(),
        };
        if lock.server_url.as_deref() != Some("")
            && (lock.server_url.is_some() || !lock.server_command.is_empty())
        {
            assert_eq!(
                coverage(&server, &[("l".into(), lock.clone())]),
                crate::model::Coverage::Approved,
                "lock: an approved lock does not cover the launch it pins"
            );
        }
    }
}

/// JCS: canonical bytes parse back to a document whose canonical bytes are the same.
fn jcs_fixed_point(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(canon) = digest::canonicalize(&value) else {
        return;
    };
    let again = match serde_json::from_slice::<serde_json::Value>(&canon) {
        Ok(v) => v,
        Err(e) => panic!("jcs: the canonical form is not JSON: {e}"),
    };
    match digest::canonicalize(&again) {
        Ok(c) => assert!(
            c == canon,
            "jcs: canonicalization is not a fixed point: {} then {}",
            String::from_utf8_lossy(&canon),
            String::from_utf8_lossy(&c)
        ),
        // The module's contract: a double such as 1.11111e16 is written in ES6 form
        // as the bare integer 11111100000000000, and an integer token beyond
        // ±(2^53−1) is refused. So the fixed point holds except for integral
        // doubles beyond 2^53, which must then be the only reason for the refusal.
        Err(digest::DigestError::IntegerOutOfRange(n))
            if n.parse::<f64>()
                .is_ok_and(|f| f.abs() > digest::MAX_SAFE_INTEGER as f64) => {}
        Err(e) => panic!("jcs: the canonical form cannot be canonicalized again: {e}"),
    }
    match digest::hash_value(&value) {
        Ok(h) => assert!(is_digest(&h), "jcs: hash_value gave {h:?}"),
        Err(e) => panic!("jcs: hash_value fails where canonicalize succeeded: {e}"),
    }
}

// ---------------------------------------------------------------------------
// safe_text.

/// `safe_text` target: the input (lossy UTF-8) through the default and a few caps.
pub fn safe_text_props(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let out = safe_text(&s);
    check_safe(&s, &out, 200);
    let printable = s.chars().count() <= 200 && s.bytes().all(|b| (b' '..=b'~').contains(&b));
    if printable {
        assert_eq!(
            out, s,
            "safe_text: not the identity on printable ASCII within the cap"
        );
    }
    for cap in [0, 1, 2, 7, ARGV_CAP] {
        check_safe(&s, &safe_text_capped(&s, cap), cap);
    }
}

fn check_safe(input: &str, out: &str, cap: usize) {
    if let Some(c) = out.chars().find(|&c| is_neutralised(c)) {
        panic!(
            "safe_text: the output (cap {cap}) keeps neutralised U+{:04X}",
            u32::from(c)
        );
    }
    let n = input.chars().count();
    let m = out.chars().count();
    assert!(
        m <= cap,
        "safe_text: {m} code points exceed the cap of {cap}"
    );
    assert_eq!(
        m,
        n.min(cap),
        "safe_text: a {n}-code-point input gives {m} code points under cap {cap}"
    );
    if n > cap && cap > 0 {
        assert!(
            out.ends_with(ELLIPSIS),
            "safe_text: a cut string does not end with an ellipsis"
        );
    }
    // Every kept code point is the input's, or U+FFFD for a neutralised one.
    let kept = if n > cap { m.saturating_sub(1) } else { m };
    for (i, (o, c)) in out.chars().zip(input.chars()).take(kept).enumerate() {
        let want = if is_neutralised(c) { '\u{FFFD}' } else { c };
        assert_eq!(o, want, "safe_text: code point {i} was changed");
    }
    assert_eq!(
        safe_text_capped(out, cap),
        out,
        "safe_text: not idempotent (cap {cap})"
    );
}

// ---------------------------------------------------------------------------
// pin_command.

/// A server record from fuzz bytes, fields split on NUL (lossy UTF-8):
/// `name \0 command \0 url \0 field…`, where a field that starts with `\x01` is an
/// env entry `KEY=value`, with `\x02` a header `Key: value`, and otherwise an
/// argument. An empty command or url is absent.
pub fn spec_from_bytes(data: &[u8]) -> (String, ServerSpec) {
    let mut fields = data
        .split(|&b| b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let name = fields.next().unwrap_or_default();
    let mut body = crate::protocol::ServerBody {
        command: fields.next().filter(|c| !c.is_empty()),
        url: fields.next().filter(|u| !u.is_empty()),
        ..crate::protocol::ServerBody::default()
    };
    for f in fields {
        if let Some(e) = f.strip_prefix('\u{1}') {
            let (k, v) = e.split_once('=').unwrap_or((e, ""));
            body.env.push((k.into(), v.into()));
        } else if let Some(h) = f.strip_prefix('\u{2}') {
            let (k, v) = h.split_once(':').unwrap_or((h, ""));
            body.headers.push((k.into(), v.trim_start().into()));
        } else {
            body.args.push(f);
        }
    }
    // A URL makes the server remote, else a command makes it stdio: the reading
    // of VS Code's `.mcp.json` reader, which expands nothing.
    let file = crate::reading::FileReaders {
        readers: &[crate::reading::Reader::VsCodeWorkspace],
        known: crate::reading::expand::Known::default(),
    };
    let spec = crate::reading::read(body, &file)
        .ok()
        .and_then(|r| r.specs.into_iter().next())
        .unwrap_or_default();
    (name, spec)
}

/// `pin_command` target.
pub fn pin_command_props(data: &[u8]) {
    let (name, spec) = spec_from_bytes(data);
    let lock = lock_file_name(&name, &|_| false);
    check_pin_line(&spec, &lock, PinApproval::AtPin);
    check_pin_line(&spec, &lock, PinApproval::AfterReview);
}

/// The pin line for `spec` splits back into exactly the words it must show.
pub fn check_pin_line(spec: &ServerSpec, lock: &str, approval: PinApproval) {
    assert!(
        !names_a_credential(lock),
        "pin_command: the lock name {lock:?} holds a credential"
    );
    let line = pin_command(spec, lock, approval);
    let words = match shell_words(&line) {
        Ok(w) => w,
        Err(e) => panic!("pin_command: the line does not split back into words ({e}): {line:?}"),
    };
    // The variables pin passes on (`--env NAME`, `--header 'K: V'`), then the
    // approval and the lock: the fixed tail after the launch.
    let mut tail: Vec<String> = Vec::new();
    for name in crate::pin::configured::pin_env(spec).names {
        let name = name.to_string();
        assert!(
            crate::pin::configured::is_plain_name(&name),
            "pin_command: --env {name:?} is not a plain variable name: {line:?}"
        );
        assert!(
            !names_a_credential(&name),
            "pin_command: --env {name:?} names a credential: {line:?}"
        );
        tail.extend(["--env".to_string(), name]);
    }
    for header in &crate::pin::configured::pin_headers(spec).headers {
        assert!(
            !has_credential(&header.text)
                && header
                    .text
                    .split_once(':')
                    .is_some_and(|(name, _)| !names_a_credential(name)),
            "pin_command: a header holds a credential: {line:?}"
        );
        for variable in &header.variables {
            assert!(
                !names_a_credential(variable),
                "pin_command: a header references a credential-named variable: {line:?}"
            );
        }
        tail.extend(["--header".to_string(), header.text.clone()]);
    }
    let fixed: &[&str] = match approval {
        PinApproval::AtPin => &[
            "--approve",
            "--approver",
            APPROVER_PLACEHOLDER,
            "--lock",
            lock,
        ],
        PinApproval::AfterReview => &["--lock", lock],
    };
    tail.extend(fixed.iter().map(|w| w.to_string()));
    let tail = tail.as_slice();
    assert!(
        words.len() >= 2 && words[0] == "mcp-warden" && words[1] == "pin",
        "pin_command: the line does not start with `mcp-warden pin`: {line:?}"
    );
    let rest = &words[2..];
    let shown: Vec<String> = if let Some(url) = spec.remote_url() {
        let url_word = expected_url(url);
        let argv_end = rest.len().saturating_sub(tail.len());
        assert!(
            rest.get(argv_end..).is_some_and(|t| t == tail),
            "pin_command: a remote line does not end with the fixed tail: {line:?}"
        );
        let head = &rest[..argv_end];
        let got = match head {
            [flag, u] if flag == "--url" => Some(u.as_str()),
            [one] => one.strip_prefix("--url="),
            _ => None,
        };
        let ok =
            got.is_some_and(|u| u == url_word || (u == REDACTED_URL && has_credential(&url_word)));
        assert!(
            ok,
            "pin_command: the URL does not come back as {url_word:?}: {line:?}"
        );
        vec![got.unwrap_or_default().to_string()]
    } else {
        let expected = expected_argv(spec);
        let separated = rest.get(..tail.len()).is_some_and(|t| t == tail)
            && rest.get(tail.len()).map(String::as_str) == Some("--");
        let argv: &[String] = if separated {
            &rest[tail.len() + 1..]
        } else {
            let end = rest.len().saturating_sub(tail.len());
            assert!(
                rest.get(end..).is_some_and(|t| t == tail),
                "pin_command: a stdio line ends neither with the fixed tail nor uses `--`: {line:?}"
            );
            &rest[..end]
        };
        assert_eq!(
            argv.len(),
            expected.len(),
            "pin_command: the argv has {} words, expected {}: {line:?}",
            argv.len(),
            expected.len()
        );
        for (i, (got, want)) in argv.iter().zip(&expected).enumerate() {
            match want {
                Want::Redacted => assert_eq!(
                    got, REDACTED_ARG,
                    "pin_command: masked argv word {i} is shown: {line:?}"
                ),
                Want::Shown(w) => assert!(
                    got == w || (got == REDACTED_ARG && has_credential(w)),
                    "pin_command: argv word {i} comes back as {got:?}, expected {w:?}"
                ),
            }
        }
        if !separated {
            for (i, w) in argv.iter().enumerate() {
                assert!(
                    !(crate::pin::options::is_pin_option(w) || (i == 0 && w.starts_with('-'))),
                    "pin_command: argv word {w:?} could be read by pin as its own option, \
                     but the line has no `--`: {line:?}"
                );
            }
        }
        argv.to_vec()
    };
    for w in &shown {
        assert!(
            w == REDACTED_ARG || w == REDACTED_URL || !has_credential(w),
            "pin_command: a credential is printed: {w:?}"
        );
        if let Some(c) = w.chars().find(|&c| is_neutralised(c)) {
            panic!(
                "pin_command: a printed word keeps neutralised U+{:04X}",
                u32::from(c)
            );
        }
    }
    for (k, v) in spec
        .declared
        .env
        .iter()
        .chain(&spec.declared.headers)
        .chain(spec.env())
        .chain(spec.headers())
    {
        for secret in [k, v] {
            if has_vendor_secret(secret) {
                assert!(
                    !line.contains(secret.as_str()),
                    "pin_command: an env or header secret is printed: {line:?}"
                );
            }
        }
    }
}

enum Want {
    Redacted,
    Shown(String),
}

fn expected_argv(spec: &ServerSpec) -> Vec<Want> {
    let mut out = vec![Want::Shown(
        spec.launch_command()
            .map(|c| safe_text_capped(c, ARGV_CAP))
            .unwrap_or_else(|| MISSING_COMMAND.to_string()),
    )];
    let views = mask_args(spec.args());
    for (i, arg) in spec.args().iter().enumerate() {
        out.push(match views.get(i) {
            Some(ArgView::Verbatim(_)) => Want::Shown(safe_text_capped(arg, ARGV_CAP)),
            _ => Want::Redacted,
        });
    }
    out
}

fn expected_url(url: &str) -> String {
    let safe = safe_text_capped(url, ARGV_CAP);
    match mask_url(&safe) {
        UrlView::Verbatim => safe,
        UrlView::Rewritten(s) => safe_text_capped(&s, ARGV_CAP),
        UrlView::Credential => REDACTED_URL.to_string(),
    }
}

/// Split a pasted line into words as bash, zsh and fish would, for the subset of
/// shell syntax a printed line may use: unquoted words of `[A-Za-z0-9_@%+=:,./-]`
/// (not starting with `=` or `%`), `'…'` (literal), `"…"` in which `\\`, `\"`, `\$`
/// and `` \` `` are escapes, and `\x` outside quotes. Anything a shell would
/// interpret (an unquoted metacharacter, `$`, `` ` `` or `!` inside double quotes,
/// any line break or NUL) is an error.
///
/// # Errors
/// A description of the first construct that is outside that subset.
pub fn shell_words(line: &str) -> Result<Vec<String>, String> {
    if let Some(c) = line.chars().find(|c| {
        matches!(
            c,
            '\n' | '\r' | '\0' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{b}' | '\u{c}'
        )
    }) {
        return Err(format!("line break or NUL U+{:04X}", u32::from(c)));
    }
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    let mut cur: Option<String> = None;
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(w) = cur.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => w.push(x),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('\\' | '"' | '$' | '`')) => w.push(x),
                            Some(x) => {
                                w.push('\\');
                                w.push(x);
                            }
                            None => return Err("unterminated double quote".into()),
                        },
                        Some(x @ ('$' | '`' | '!')) => {
                            return Err(format!("{x:?} inside double quotes"))
                        }
                        Some(x) => w.push(x),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(x) => cur.get_or_insert_with(String::new).push(x),
                None => return Err("trailing backslash".into()),
            },
            c if c.is_ascii_alphanumeric()
                || matches!(c, '_' | '@' | '%' | '+' | '=' | ':' | ',' | '.' | '/' | '-') =>
            {
                if cur.is_none() && matches!(c, '=' | '%') {
                    return Err(format!("unquoted {c:?} at the start of a word"));
                }
                cur.get_or_insert_with(String::new).push(c);
            }
            other => return Err(format!("unquoted shell character {other:?}")),
        }
    }
    if let Some(w) = cur {
        words.push(w);
    }
    Ok(words)
}

// ---------------------------------------------------------------------------
// frame.

/// The limits the `frame` target decodes under: small, so the fuzzer reaches them.
pub fn frame_limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(10),
        max_frame_len: 4096,
        max_messages: 64,
        max_total_bytes: 64 * 1024,
        max_decoded_bytes: 256 * 1024,
        ..Limits::default()
    }
}

/// What the decoded messages own on the heap, counted by hand over the wire types
/// (a slot per sequence element, the bytes of every string): an independent measure
/// of what the decoder let through.
fn owned(m: &ChildMessage) -> u64 {
    fn slots<T>(v: &[T]) -> u64 {
        (v.len() * std::mem::size_of::<T>().max(1)) as u64
    }
    fn text(s: &str) -> u64 {
        s.len() as u64
    }
    fn texts(v: &[String]) -> u64 {
        slots(v) + v.iter().map(|s| text(s)).sum::<u64>()
    }
    fn opt(s: &Option<String>) -> u64 {
        s.as_deref().map_or(0, text)
    }
    fn error(e: &crate::protocol::LoadError) -> u64 {
        text(&e.message)
    }
    fn tree(t: &crate::protocol::JsonTree) -> u64 {
        slots(&t.0)
            + t.0
                .iter()
                .map(|k| match k {
                    JsonToken::String(s) | JsonToken::Key(s) => text(s),
                    _ => 0,
                })
                .sum::<u64>()
    }
    fn record(l: &LockRecord) -> u64 {
        let mut n = text(&l.warden_version)
            + text(&l.server.command)
            + texts(&l.server.args)
            + opt(&l.server.url)
            + text(&l.server.command_digest)
            + text(&l.overall_digest)
            + slots(&l.tools)
            + slots(&l.resources)
            + slots(&l.prompts)
            + slots(&l.findings);
        for t in &l.tools {
            n += text(&t.name) + text(&t.description_hash) + text(&t.input_schema_hash);
            n += texts(&t.capabilities) + text(&t.entry_digest);
            n += t.inspection.as_ref().map_or(0, tree) + t.schema_skeleton.as_ref().map_or(0, tree);
            n += t.annotations_hash.as_ref().map_or(0, opt);
            n += t.output_schema_hash.as_ref().map_or(0, opt);
            n += t
                .output_schema_skeleton
                .iter()
                .flatten()
                .map(tree)
                .sum::<u64>();
        }
        for r in &l.resources {
            n += text(&r.uri) + opt(&r.name) + text(&r.description_hash) + opt(&r.mime_type);
            n += text(&r.entry_digest);
        }
        for p in &l.prompts {
            n += text(&p.name) + text(&p.description_hash) + text(&p.arguments_hash);
            n += text(&p.entry_digest);
        }
        for f in &l.findings {
            n += text(&f.rule_id) + text(&f.severity) + text(&f.target);
            n += text(&f.message) + text(&f.snippet);
        }
        let p = &l.pin;
        n += text(&p.created_at) + text(&p.warden_version) + text(&p.mcp_protocol_version);
        n += opt(&p.approver) + opt(&p.approved_at) + opt(&p.approved_digest) + opt(&p.rotated_at);
        if let Some(pi) = &p.pinner {
            n += text(&pi.tool) + text(&pi.tool_version) + opt(&pi.actor) + opt(&pi.environment);
        }
        n += slots(&p.attestations);
        for a in &p.attestations {
            n += text(&a.actor) + text(&a.role) + text(&a.method) + text(&a.created_at);
            n += text(&a.bound_digest) + opt(&a.note) + opt(&a.signature_bundle);
        }
        n
    }
    match m {
        ChildMessage::Config(Err(e))
        | ChildMessage::Lock(Err(e))
        | ChildMessage::LockRecord(Err(e))
        | ChildMessage::Ignore(Err(e)) => error(e),
        ChildMessage::Ignore(Ok(list)) => {
            let mut n = slots(&list.entries);
            for e in &list.entries {
                n += opt(&e.rule) + opt(&e.target) + opt(&e.reason) + opt(&e.expires);
                n += opt(&e.shape_error);
            }
            n
        }
        ChildMessage::Lock(Ok(l)) => {
            text(&l.server_command)
                + texts(&l.server_args)
                + opt(&l.server_url)
                + text(&l.command_digest)
                + texts(&l.tool_digests)
                + texts(&l.resource_digests)
                + texts(&l.prompt_digests)
                + text(&l.overall_digest)
                + opt(&l.approved_digest)
        }
        ChildMessage::LockRecord(Ok(l)) => record(l),
        ChildMessage::Config(Ok(c)) => {
            let mut n = slots(&c.sections);
            for s in &c.sections {
                n += opt(&s.project) + s.error.as_ref().map_or(0, error) + slots(&s.servers);
                for e in &s.servers {
                    n += text(&e.name);
                    n += match &e.body {
                        Err(reason) => text(reason),
                        Ok(b) => {
                            opt(&b.command)
                                + texts(&b.args)
                                + opt(&b.url)
                                + opt(&b.transport)
                                + slots(&b.env)
                                + slots(&b.headers)
                                + b.env
                                    .iter()
                                    .chain(&b.headers)
                                    .map(|(k, v)| text(k) + text(v))
                                    .sum::<u64>()
                        }
                    };
                }
            }
            n
        }
    }
}

/// `frame` target: the first byte picks the weak-sandbox policy, the rest is the
/// child's report stream.
pub fn frame(data: &[u8]) {
    value_positions(data);
    let (policy, stream) = match data.split_first() {
        Some((b, rest)) => (
            match b % 3 {
                0 => WeakSandboxPolicy::Default,
                1 => WeakSandboxPolicy::AllowWeak,
                _ => WeakSandboxPolicy::Strict,
            },
            rest,
        ),
        None => (WeakSandboxPolicy::Default, data),
    };
    let limits = frame_limits();
    // As the parent takes a live child's report: messages and their parts, each
    // handed over as it is decoded (`parse::parse_all_streaming`).
    let mut delivered: Vec<(usize, bool, ChildMessage)> = Vec::new();
    let Ok(out) =
        decode_report_stream_with::<ChildMessage>(stream, &limits, policy, &mut |i, d| {
            delivered.push(match d {
                Delivery::Part(m) => (i, true, m),
                Delivery::Message(m) => (i, false, m),
            });
            Ok(())
        })
    else {
        return;
    };
    assert!(
        out.messages <= limits.max_messages,
        "frame: {} messages accepted over a limit of {}",
        out.messages,
        limits.max_messages
    );
    assert_eq!(
        delivered.iter().filter(|(_, part, _)| !part).count(),
        out.messages,
        "frame: the messages delivered are the messages counted"
    );
    assert!(
        (stream.len() as u64) <= limits.max_total_bytes,
        "frame: a {}-byte stream accepted over a limit of {}",
        stream.len(),
        limits.max_total_bytes
    );
    // Decoded size: what the accepted messages and parts own is within the
    // decoded-size bound of the bytes that carried them, and within the exchange's
    // decoded total.
    let owned_total: u64 = delivered.iter().map(|(_, _, m)| owned(m)).sum();
    let bound = mcp_warden_sandbox::decoded_bound(stream.len())
        .saturating_add(mcp_warden_sandbox::DECODE_SLACK * delivered.len() as u64);
    assert!(
        owned_total <= bound.min(limits.max_decoded_bytes),
        "frame: {} accepted messages and parts own {owned_total} bytes from a {}-byte \
         stream (decoded bound {bound}, exchange total {})",
        delivered.len(),
        stream.len(),
        limits.max_decoded_bytes
    );
    // The parent re-validates every accepted message and part: total as well.
    let mut tally = PartTally::default();
    for (_, part, m) in &delivered {
        let format = match m {
            ChildMessage::Lock(_) => FileFormat::Lock,
            ChildMessage::LockRecord(_) => FileFormat::LockRecord,
            ChildMessage::Config(_) => FileFormat::ClaudeJson,
            ChildMessage::Ignore(_) => FileFormat::Ignore,
        };
        let _ = if *part {
            check_part(format, stream.len() as u64, &mut tally, m)
        } else {
            let checked = check_message_after(format, stream.len() as u64, &mut tally, m);
            tally = PartTally::default();
            checked
        };
        if let ChildMessage::LockRecord(Ok(r)) = m {
            let _ = lock_from_record(r.clone());
        }
    }
}

// ---------------------------------------------------------------------------
// mcp_message.

/// The capture limits of the `mcp_message` target: small, so the fuzzer reaches them.
pub fn capture_limits() -> CaptureLimits {
    CaptureLimits {
        timeout: Duration::from_secs(10),
        max_pages: 4,
        max_message_bytes: 64 * 1024,
        max_items: 32,
        max_stderr_bytes: 1024,
    }
}

/// A scripted server: each input line is one message, read as the stdio transport
/// reads a line (CR stripped, blank lines skipped, at most 64 lines that are not
/// JSON); the end of the input is the server closing its stdout.
struct Script<'a> {
    lines: std::slice::Split<'a, u8, fn(&u8) -> bool>,
    garbage: usize,
    /// Requests sent, by method.
    requests: Vec<String>,
}

impl Transport for Script<'_> {
    fn send(
        &mut self,
        msg: &serde_json::Value,
        _expect: Option<u64>,
        _deadline: std::time::Instant,
    ) -> Result<(), CaptureError> {
        if msg.get("id").is_some() {
            if let Some(m) = msg.get("method").and_then(serde_json::Value::as_str) {
                self.requests.push(m.to_string());
            }
        }
        Ok(())
    }

    fn recv(&mut self, _deadline: std::time::Instant) -> Result<serde_json::Value, CaptureError> {
        for line in self.lines.by_ref() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<serde_json::Value>(line) {
                Ok(serde_json::Value::Null) => continue,
                Ok(v) => return Ok(v),
                Err(_) => {
                    self.garbage += 1;
                    if self.garbage > 64 {
                        return Err(CaptureError::new("too many lines that are not JSON"));
                    }
                }
            }
        }
        Err(CaptureError::new("the server closed its stdout"))
    }
}

/// The same bytes as the body of an HTTP response in SSE form, through the Streamable
/// HTTP transport's event reader: it stops (events or a reason, never a panic), keeps
/// no more messages than its queue limit plus one event's worth, gives a bounded
/// reason, queues nothing from a body without a `data:` line, and is deterministic.
fn sse_body(data: &[u8]) {
    const EVENT_BYTES: usize = 4096;
    let far = std::time::Instant::now() + Duration::from_secs(3600);
    let read = || {
        let mut queue = VecDeque::new();
        let result = read_sse_events(data, EVENT_BYTES, Some(1), far, &mut queue);
        (result, queue)
    };
    let (result, queue) = read();
    assert!(
        queue.len() <= SSE_MAX_QUEUED + EVENT_BYTES,
        "mcp_message: the SSE reader buffered {} messages",
        queue.len()
    );
    if !queue.is_empty() {
        assert!(
            data.windows(5).any(|w| w == b"data:"),
            "mcp_message: SSE messages queued from a body without a data: line"
        );
    }
    match &result {
        Ok(()) => {}
        Err(SseStop::Failed(why)) => assert!(
            why.len() <= 512,
            "mcp_message: an SSE stop reason of {} bytes",
            why.len()
        ),
        Err(SseStop::TimedOut) => panic!("mcp_message: an in-memory SSE body timed out"),
    }
    let (again, queue_again) = read();
    assert!(
        again == result && queue_again == queue,
        "mcp_message: the SSE reader is not deterministic"
    );
}

/// `mcp_message` target.
pub fn mcp_message(data: &[u8]) {
    sse_body(data);
    let limits = capture_limits();
    let newline: fn(&u8) -> bool = |b| *b == b'\n';
    let mut script = Script {
        lines: data.split(newline),
        garbage: 0,
        requests: Vec::new(),
    };
    let deadline = std::time::Instant::now() + limits.timeout;
    let result = run_capture(&mut script, deadline, &limits);
    for method in ["tools/list", "resources/list", "prompts/list"] {
        let pages = script.requests.iter().filter(|m| *m == method).count();
        assert!(
            pages <= limits.max_pages,
            "mcp_message: {pages} {method} requests over a limit of {} pages",
            limits.max_pages
        );
    }
    let Ok(mut surface) = result else {
        return;
    };
    assert!(
        SUPPORTED_PROTOCOL_VERSIONS.contains(&surface.protocol_version.as_str()),
        "mcp_message: a surface with unsupported protocol version {:?}",
        surface.protocol_version
    );
    for (what, n) in [
        ("tools", surface.tools.len()),
        ("resources", surface.resources.len()),
        ("prompts", surface.prompts.len()),
    ] {
        assert!(
            n <= limits.max_items,
            "mcp_message: {n} {what} kept over a limit of {}",
            limits.max_items
        );
    }
    surface.command = "npx".into();
    surface.args = vec!["-y".into(), "@x/server@1.0.0".into()];
    let approval = Approval {
        approve: true,
        approver: Some(APPROVER_PLACEHOLDER.into()),
    };
    let Ok(lock) = build_lock(
        &surface,
        Vec::new(),
        &approval,
        Some("fuzz"),
        "2026-01-01T00:00:00Z",
    ) else {
        // A value without a canonical form (an integer beyond 2^53): not pinnable.
        return;
    };
    assert!(
        lock.is_self_consistent(),
        "mcp_message: a freshly built lock does not reproduce its overall_digest"
    );
    let bytes = to_pretty_json(&lock);
    match read_whole_lock(&bytes) {
        Ok(back) => assert!(back == lock, "mcp_message: pin reads back a different lock"),
        Err(e) => panic!("mcp_message: pin cannot read the lock it wrote: {e}"),
    }
    match parse_file(FileFormat::Lock, &bytes) {
        ChildMessage::Lock(Ok(summary)) => {
            assert_eq!(
                summary.overall_digest, lock.overall_digest,
                "mcp_message: doctor reads a different overall_digest"
            );
            assert_eq!(
                approval_problem(&summary),
                None,
                "mcp_message: doctor does not count the approval of a lock pin wrote"
            );
        }
        other => panic!("mcp_message: doctor's lock reader refuses a lock pin wrote: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_reads_quote_output_back() {
        for w in [
            "", "a b", "it's", "a\\b", "'\\", "=x", "%self", "$HOME", "日本",
        ] {
            let q = crate::text::quote::quote(w);
            assert_eq!(
                shell_words(&format!("x {q} y")),
                Ok(vec!["x".into(), w.into(), "y".into()])
            );
        }
        assert!(shell_words("a;b").is_err());
        assert!(shell_words("a\nb").is_err());
        assert!(shell_words("\"$x\"").is_err());
        assert!(shell_words("=ls").is_err());
        assert!(shell_words("'open").is_err());
    }

    #[test]
    fn offsets_follow_child_positions() {
        assert_eq!(offset_of("ab\r\ncd", 2, 2), Some(5));
        assert_eq!(offset_of("a\rb", 2, 1), Some(2));
        assert_eq!(offset_of("\u{FEFF}x", 1, 1), Some(3));
        assert_eq!(offset_of("é\"k\"", 1, 2), Some(2));
        assert_eq!(offset_of("x", 3, 1), None);
    }

    #[test]
    fn spec_fields_split_on_nul() {
        let (name, spec) = spec_from_bytes(b"gh\0npx\0\0-y\0\x01TOKEN=x\0\x02Auth: y");
        assert_eq!(name, "gh");
        assert_eq!(spec.launch_command(), Some("npx"));
        assert_eq!(spec.remote_url(), None);
        assert_eq!(spec.args(), ["-y"]);
        assert_eq!(spec.env(), [("TOKEN".into(), "x".into())]);
        assert_eq!(spec.declared.headers, [("Auth".into(), "y".into())]);
        // Moved into the launch, not copied.
        assert_eq!(spec.declared.command, None);
        assert!(spec.declared.args.is_empty());
    }
}
