//! One exchange with the parser child: the request, the descriptors, each file's share
//! of the answer, and the checked answers.
//!
//! # Shares
//!
//! Every file gets its own share of what the child may send back ([`share`]): payload
//! bytes, checked at the frame's length prefix before anything is allocated, and
//! decoded bytes, checked while the frame is decoded. The child checks its answer
//! against the share before sending it and answers a file whose records do not fit
//! with a `TooLarge` error for that file instead, so one large file costs only its own
//! answer; a child that sends more than the share is compromised and the exchange
//! fails closed. The exchange's totals are the sums of the shares, so an honest child
//! never reaches them.
//!
//! # Time
//!
//! The exchange has one deadline. Configs are handed over before locks, and when the
//! child runs out of time, CPU or memory the answers that arrived complete are kept:
//! each file it did not reach gets an `Unfinished` error of its own (and doctor's exit
//! code 2), instead of the whole scan failing.

use std::os::fd::OwnedFd;

use mcp_warden_sandbox::{
    run_parser, Confinement, Limits, MessageShare, SandboxError, WeakSandboxPolicy,
};

use super::validate::{check_message, InvalidRecord};
use crate::protocol::{
    bounds, ChildMessage, FileFormat, FileJob, LoadError, LoadErrorKind, ParseRequest,
    PAYLOAD_VERSION,
};

/// A file ready for the child.
pub struct Job {
    pub fd: OwnedFd,
    pub format: FileFormat,
    pub size_cap: u64,
}

/// The child's answers, one per job in job order, all validated.
pub struct Parsed {
    pub confinement: Confinement,
    pub warnings: Vec<String>,
    /// One per job; a job the child did not reach has an `Unfinished` error.
    pub answers: Vec<ChildMessage>,
    /// Why the child stopped before answering every job, if it did.
    pub cut_short: Option<SandboxError>,
}

#[derive(Debug)]
pub enum ParseError {
    Sandbox(SandboxError),
    Invalid(InvalidRecord),
    TooManyFiles(usize),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Sandbox(e) => write!(f, "parser sandbox failed: {e}"),
            ParseError::Invalid(InvalidRecord(why)) => {
                write!(f, "parser child sent an invalid record ({why}); treating it as compromised, nothing was reported")
            }
            ParseError::TooManyFiles(n) => {
                write!(
                    f,
                    "{n} files to parse exceed the limit of {}",
                    bounds::MAX_FILES
                )
            }
        }
    }
}

/// Largest answer share of one config (payload bytes): a config's records are its
/// server maps, a fraction of the file for `~/.claude.json`.
pub const MAX_CONFIG_ANSWER: u64 = 16 << 20;
/// Payload headroom of every share: error messages, positions and tags.
const SHARE_HEADROOM: u64 = 64 << 10;
/// Decoded headroom of every share: the record structs of a small answer.
const DECODED_HEADROOM: u64 = 64 << 10;
/// The fixed part of the most records a config may hold (50,000 servers and 20,000
/// sections, each a struct and perhaps a short error message), which does not grow
/// with the file once the file is large enough to hold them.
const CONFIG_RECORD_HEADROOM: u64 = 16 << 20;

/// The share of the answer for a file of `size` bytes (at most its size cap). A
/// message's share is the only limit on what it may own once decoded (the frame's
/// wire-relative bound would refuse honest records of empty fields), so each is sized
/// to admit every honest answer the file can produce and nothing far beyond it:
///
/// * Config: payload `2 × size + 64 KiB` (records copy the file's strings, plus a few
///   bytes per entry; a server entry is never shorter on the wire than half its
///   source) up to [`MAX_CONFIG_ANSWER`]. Decoded 64 KiB more than
///   `min(32 × size, 8 × size + 16 MiB)`: strings own at most 8 bytes per source byte (an empty `""` argument
///   is a 24-byte `String` for 3 source bytes), and the fixed part of the records is
///   bounded both by what the file can hold (a `"n": 1` entry, 6 source bytes,
///   becomes a struct and an error message, under 32 bytes per source byte) and by
///   the protocol's record counts.
/// * A Claude Desktop extension manifest: four times a config's (its launch is sent
///   once per platform override, each merged over the base).
/// * Lock, for doctor: payload `size + 64 KiB` (the summary is strings of the lock
///   and their length prefixes); decoded `8 × size + 64 KiB` (digests are 71-byte
///   strings in 24-byte slots; an empty argument is 24 bytes for 3).
/// * Whole lock, for `check` and `lock rotate`: payload `3 × size + 64 KiB` (a number
///   in a skeleton crosses as 2 to 9 bytes), decoded `16 × size + 64 KiB` (one token
///   slot per JSON value, the smallest of which is 2 source bytes).
///
/// `honest_answers_fit_their_shares` checks real and extreme honest files against
/// these; the exchange's totals are their sums.
pub fn share(format: FileFormat, size: u64) -> MessageShare {
    let (payload, decoded) = match format {
        FileFormat::Lock => (size, size.saturating_mul(8)),
        FileFormat::LockRecord => (size.saturating_mul(3), size.saturating_mul(16)),
        // Strings of the file and their length prefixes, plus per entry (an inline
        // `{}` is 3 source bytes) a position, five option tags and a shape message of
        // at most `MAX_SHAPE_ERROR` bytes: bounded by the entry count, not the file.
        FileFormat::Ignore => {
            let per_entry = crate::child::ignore::MAX_SHAPE_ERROR as u64 + 256;
            let entries = bounds::MAX_IGNORE_ENTRIES as u64;
            (
                size.saturating_mul(2)
                    .saturating_add(entries * per_entry)
                    .min(MAX_CONFIG_ANSWER),
                size.saturating_mul(8).saturating_add(entries * per_entry),
            )
        }
        // Up to four launches of one manifest (the base and its `darwin`, `win32`
        // and `linux` overrides merged over it), each copying the base's strings.
        FileFormat::DesktopExtension => (
            size.saturating_mul(8).min(MAX_CONFIG_ANSWER),
            size.saturating_mul(4 * 32).min(
                size.saturating_mul(4 * 8)
                    .min(MAX_CONFIG_ANSWER * 8)
                    .saturating_add(CONFIG_RECORD_HEADROOM),
            ),
        ),
        FileFormat::Json
        | FileFormat::McpJson
        | FileFormat::Jsonc
        | FileFormat::ClaudeJson
        | FileFormat::CodexToml
        | FileFormat::VsCodeSettings
        | FileFormat::ClaudeSettings
        | FileFormat::GeminiSettings
        | FileFormat::ZedSettings
        | FileFormat::OpenCode
        | FileFormat::ContinueYaml => (
            size.saturating_mul(2).min(MAX_CONFIG_ANSWER),
            size.saturating_mul(32).min(
                size.saturating_mul(8)
                    .min(MAX_CONFIG_ANSWER * 8)
                    .saturating_add(CONFIG_RECORD_HEADROOM),
            ),
        ),
    };
    MessageShare {
        max_payload: u32::try_from(payload.saturating_add(SHARE_HEADROOM)).unwrap_or(u32::MAX),
        max_decoded: decoded.saturating_add(DECODED_HEADROOM),
    }
}

/// The size the share is computed from: the file's size from its descriptor, within
/// its cap (a file that grew is refused by the child at the cap).
fn share_size(fd: &OwnedFd, cap: u64) -> u64 {
    match super::open::regular_size(fd) {
        Ok(Some(size)) => size.min(cap),
        _ => cap.min(MAX_CONFIG_ANSWER),
    }
}

/// Hand every job to one confined child and collect its checked answers.
pub fn parse_all(jobs: Vec<Job>, policy: WeakSandboxPolicy) -> Result<Parsed, ParseError> {
    if jobs.len() > bounds::MAX_FILES {
        return Err(ParseError::TooManyFiles(jobs.len()));
    }
    let shares: Vec<MessageShare> = jobs
        .iter()
        .map(|j| share(j.format, share_size(&j.fd, j.size_cap)))
        .collect();
    let request = ParseRequest {
        payload_version: PAYLOAD_VERSION,
        jobs: jobs
            .iter()
            .zip(&shares)
            .enumerate()
            .map(|(i, (j, share))| FileJob {
                fd_index: u32::try_from(i).unwrap_or(u32::MAX),
                format: j.format,
                size_cap: j.size_cap,
                share: *share,
            })
            .collect(),
    };
    let formats: Vec<FileFormat> = jobs.iter().map(|j| j.format).collect();
    let fds: Vec<OwnedFd> = jobs.into_iter().map(|j| j.fd).collect();
    let limits = exchange_limits(&shares);
    let output = run_parser::<ParseRequest, ChildMessage>(&request, fds, &limits, policy)
        .map_err(ParseError::Sandbox)?;
    super::resources::note_child_reaped();
    let mut answers = output.messages;
    if answers.len() > formats.len()
        || (answers.len() < formats.len() && output.cut_short.is_none())
    {
        return Err(ParseError::Invalid(InvalidRecord(format!(
            "{} answers to {} files",
            answers.len(),
            formats.len()
        ))));
    }
    for (format, message) in formats.iter().zip(&answers) {
        check_message(*format, message).map_err(ParseError::Invalid)?;
    }
    if let Some(why) = &output.cut_short {
        fill_unreached(&mut answers, &formats, why);
    }
    Ok(Parsed {
        confinement: output.confinement,
        warnings: output.warnings,
        answers,
        cut_short: output.cut_short,
    })
}

/// The exchange's limits: its totals are the sums of the shares.
fn exchange_limits(shares: &[MessageShare]) -> Limits {
    // Hello and end marker, and a frame header per message.
    const ENVELOPE: u64 = 64 << 10;
    let payload = shares
        .iter()
        .fold(0u64, |t, s| t.saturating_add(u64::from(s.max_payload) + 4));
    let decoded = shares
        .iter()
        .fold(0u64, |t, s| t.saturating_add(s.max_decoded));
    let largest = shares.iter().map(|s| s.max_payload).max().unwrap_or(0);
    Limits {
        max_frame_len: largest.max(64 << 10),
        max_messages: shares.len(),
        max_total_bytes: payload.saturating_add(ENVELOPE),
        max_decoded_bytes: decoded.saturating_add(ENVELOPE),
        message_shares: shares.to_vec(),
        keep_partial: true,
        ..Limits::default()
    }
}

/// One `Unfinished` error for each job after the answers the child sent.
fn fill_unreached(answers: &mut Vec<ChildMessage>, formats: &[FileFormat], why: &SandboxError) {
    let reason = format!("the parser child stopped before reaching this file ({why})");
    for format in formats.get(answers.len()..).unwrap_or_default() {
        answers.push(unfinished(*format, &reason));
    }
}

/// The answer standing in for a file the child never answered.
fn unfinished(format: FileFormat, reason: &str) -> ChildMessage {
    let error = LoadError {
        kind: LoadErrorKind::Unfinished,
        message: reason.to_string(),
        construct: None,
    };
    match format {
        FileFormat::Lock => ChildMessage::Lock(Err(error)),
        FileFormat::LockRecord => ChildMessage::LockRecord(Err(error)),
        FileFormat::Ignore => ChildMessage::Ignore(Err(error)),
        _ => ChildMessage::Config(Err(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in hostile report streams (`fuzz/regressions/frame/`): frames of
    /// minimal wire size that would own 15 to 26 times their size once decoded are
    /// refused by the decoder, before the memory is taken.
    #[test]
    fn amplifying_report_streams_are_refused_while_decoding() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/frame");
        for name in [
            "empty-strings-in-lock-args",
            "empty-sections",
            "tiny-server-entries",
        ] {
            let data = std::fs::read(dir.join(name)).expect("regression input");
            let limits = crate::fuzz_props::frame_limits();
            let out = mcp_warden_sandbox::decode_report_stream::<ChildMessage>(
                &data[1..],
                &limits,
                WeakSandboxPolicy::AllowWeak,
            );
            assert!(
                matches!(out, Err(SandboxError::DecodedTooLarge { .. })),
                "{name}: {out:?}"
            );
        }
    }

    /// The shares fit what honest files produce: the golden locks, read both ways, and
    /// configs shaped like real and benchmark ones (pretty, minified, `~/.claude.json`
    /// projects). Each answer's decoded/wire ratio is printed for the record.
    #[test]
    #[allow(clippy::disallowed_macros)] // a note for the test log, not product output
    fn honest_answers_fit_their_shares() {
        let check = |what: &str, format: FileFormat, bytes: &[u8]| {
            let answer = crate::child::parse_file(format, bytes);
            let share = share(format, bytes.len() as u64);
            let cost = mcp_warden_sandbox::message_cost(&answer, &share).expect("cost");
            println!(
                "{what}: {} bytes in, {} on the wire, {} decoded ({:.2}x)",
                bytes.len(),
                cost.payload,
                cost.decoded,
                cost.decoded as f64 / cost.payload as f64
            );
            assert!(
                share.admits(cost.payload, cost.decoded),
                "{what}: {cost:?} over {share:?}"
            );
            assert!(
                !matches!(
                    &answer,
                    ChildMessage::Config(Err(_))
                        | ChildMessage::Lock(Err(_))
                        | ChildMessage::LockRecord(Err(_))
                ),
                "{what}: {answer:?}"
            );
        };
        let golden =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pin/golden");
        for entry in std::fs::read_dir(golden).expect("golden") {
            let path = entry.expect("entry").path();
            let bytes = std::fs::read(&path).expect("read");
            let name = path.display().to_string();
            check(&name, FileFormat::Lock, &bytes);
            check(&name, FileFormat::LockRecord, &bytes);
        }
        let server = |i: usize| {
            if i % 3 == 0 {
                serde_json::json!({"command": "npx", "args": ["-y", format!("@example/server-{i}@1.{i}.0")], "env": {"API_TOKEN": "${TOKEN}"}})
            } else {
                serde_json::json!({"command": "uvx", "args": [format!("mcp-server-{i}==0.{i}.1")]})
            }
        };
        let servers: serde_json::Map<String, serde_json::Value> =
            (0..20_000).map(|i| (format!("s{i}"), server(i))).collect();
        let plain = serde_json::json!({ "mcpServers": servers });
        check(
            "pretty config",
            FileFormat::Json,
            &serde_json::to_vec_pretty(&plain).expect("json"),
        );
        check(
            "minified config",
            FileFormat::Json,
            plain.to_string().as_bytes(),
        );
        let projects: serde_json::Map<String, serde_json::Value> = (0..10_000)
            .map(|i| {
                (
                    format!("/home/u/src/project-{i}"),
                    serde_json::json!({"mcpServers": {"a": server(i), "b": server(i + 1)}, "history": ["x"]}),
                )
            })
            .collect();
        let claude = serde_json::json!({"mcpServers": {"top": server(0)}, "projects": projects});
        check(
            "~/.claude.json",
            FileFormat::ClaudeJson,
            &serde_json::to_vec_pretty(&claude).expect("json"),
        );
        // The extremes an honest file can reach: the smallest records the protocol
        // allows, as many as it allows. Each must still fit its file's share.
        let empty: serde_json::Map<String, serde_json::Value> = (0..49_990)
            .map(|i| (format!("{i}"), serde_json::json!({})))
            .collect();
        check(
            "49,990 empty servers",
            FileFormat::Json,
            serde_json::json!({ "mcpServers": empty })
                .to_string()
                .as_bytes(),
        );
        let tiny_projects: serde_json::Map<String, serde_json::Value> = (0..19_990)
            .map(|i| (format!("{i}"), serde_json::json!({"mcpServers": {"s": {}}})))
            .collect();
        check(
            "19,990 projects of one empty server",
            FileFormat::ClaudeJson,
            serde_json::json!({ "projects": tiny_projects })
                .to_string()
                .as_bytes(),
        );
        let shared: serde_json::Map<String, serde_json::Value> = (0..19_990)
            .map(|i| {
                (
                    format!("/p/{i}"),
                    serde_json::json!({"mcpServers": {"gh": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}}}),
                )
            })
            .collect();
        check(
            "19,990 projects sharing a server",
            FileFormat::ClaudeJson,
            serde_json::json!({ "projects": shared })
                .to_string()
                .as_bytes(),
        );
        // Approval settings: 19,990 projects each with only the settings that take
        // effect (the smallest records a settings-only project section can be),
        // and a file of the defaults every project holds (no section sent).
        let approving: serde_json::Map<String, serde_json::Value> = (0..19_990)
            .map(|i| {
                let settings = if i % 2 == 0 {
                    serde_json::json!({"enableAllProjectMcpServers": true})
                } else {
                    serde_json::json!({"enabledMcpjsonServers": [""], "disabledMcpServers": [""]})
                };
                (format!("{i}"), settings)
            })
            .collect();
        check(
            "19,990 projects of approval settings",
            FileFormat::ClaudeJson,
            serde_json::json!({ "projects": approving })
                .to_string()
                .as_bytes(),
        );
        let defaults: serde_json::Map<String, serde_json::Value> = (0..19_990)
            .map(|i| {
                (
                    format!("/p/{i}"),
                    serde_json::json!({"enabledMcpjsonServers": [], "disabledMcpjsonServers": [], "enableAllProjectMcpServers": false, "disabledMcpServers": []}),
                )
            })
            .collect();
        check(
            "19,990 projects of default settings and one server",
            FileFormat::ClaudeJson,
            serde_json::json!({ "mcpServers": {"s": {}}, "projects": defaults })
                .to_string()
                .as_bytes(),
        );
        // The other clients' files at their extremes: as many empty entries as a
        // file may declare, and settings files at the per-section bound.
        let empty_map = |key: &str| {
            let entries: serde_json::Map<String, serde_json::Value> = (0..49_990)
                .map(|i| (format!("{i}"), serde_json::json!({})))
                .collect();
            serde_json::json!({ key: entries }).to_string()
        };
        for (format, key) in [
            (FileFormat::GeminiSettings, "mcpServers"),
            (FileFormat::ZedSettings, "context_servers"),
            (FileFormat::OpenCode, "mcp"),
            (FileFormat::VsCodeSettings, "mcp.servers"),
        ] {
            check(
                &format!("49,990 empty {format:?} entries"),
                format,
                empty_map(key).as_bytes(),
            );
        }
        let discovery: String = (0..crate::protocol::bounds::MAX_SETTINGS_PER_SECTION)
            .map(|_| r#""chat.mcp.discovery.enabled":false"#)
            .collect::<Vec<_>>()
            .join(",");
        check(
            "VS Code settings at the settings bound",
            FileFormat::VsCodeSettings,
            format!("{{{discovery}}}").as_bytes(),
        );
        check(
            "Claude Code settings",
            FileFormat::ClaudeSettings,
            serde_json::json!({
                "enableAllProjectMcpServers": true,
                "enabledMcpjsonServers": vec![""; 4096],
                "permissions": {"allow": vec!["mcp__"; 4096]},
            })
            .to_string()
            .as_bytes(),
        );
        // A manifest whose launch is sent four times (the base and three overrides
        // that change nothing), arguments as long as honest ones get.
        let args: Vec<String> = (0..4096).map(|i| format!("--flag-{i}")).collect();
        check(
            "Desktop extension with three platform overrides",
            FileFormat::DesktopExtension,
            serde_json::json!({
                "manifest_version": "0.3",
                "name": "x",
                "server": {"type": "binary", "entry_point": "x", "mcp_config": {
                    "command": "x", "args": args,
                    "platform_overrides": {"darwin": {}, "win32": {}, "linux": {}}
                }}
            })
            .to_string()
            .as_bytes(),
        );
        let wide: Vec<String> = (0..4096).map(|_| String::new()).collect();
        let wide_servers: serde_json::Map<String, serde_json::Value> = (0..12)
            .map(|i| {
                (
                    format!("w{i}"),
                    serde_json::json!({"command": "", "args": wide}),
                )
            })
            .collect();
        check(
            "servers of 4,096 empty arguments",
            FileFormat::Json,
            serde_json::json!({ "mcpServers": wide_servers })
                .to_string()
                .as_bytes(),
        );
    }

    #[test]
    fn files_not_reached_get_their_own_error_of_their_kind() {
        let formats = [FileFormat::Json, FileFormat::Lock, FileFormat::LockRecord];
        let first = crate::child::parse_file(FileFormat::Json, br#"{"mcpServers": {}}"#);
        let mut answers = vec![first.clone()];
        let why = SandboxError::Timeout {
            after: std::time::Duration::from_secs(10),
        };
        fill_unreached(&mut answers, &formats, &why);
        assert_eq!(answers.len(), 3);
        assert_eq!(answers[0], first, "an answer received is kept");
        for (format, answer) in formats.iter().zip(&answers).skip(1) {
            assert!(
                check_message(*format, answer).is_err(),
                "the child may not send these"
            );
            let e = match answer {
                ChildMessage::Lock(Err(e)) | ChildMessage::LockRecord(Err(e)) => e,
                other => panic!("{other:?}"),
            };
            assert_eq!(e.kind, LoadErrorKind::Unfinished);
            assert!(
                e.message.contains("did not finish within 10.0 s"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn shares_follow_the_file_and_stay_within_a_frame() {
        let s = share(FileFormat::Lock, 10_000);
        assert_eq!(u64::from(s.max_payload), 10_000 + SHARE_HEADROOM);
        let big = share(FileFormat::ClaudeJson, u64::MAX);
        assert_eq!(
            u64::from(big.max_payload),
            MAX_CONFIG_ANSWER + SHARE_HEADROOM
        );
        let limits = exchange_limits(&[s, big]);
        assert_eq!(limits.message_shares, [s, big]);
        assert!(limits.max_total_bytes >= u64::from(s.max_payload) + u64::from(big.max_payload));
        assert!(limits.keep_partial);
    }
}
