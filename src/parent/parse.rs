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
    run_parser_with, Confinement, Delivery, Limits, MessageShare, SandboxError, StartedParser,
    WeakSandboxPolicy,
};

use super::validate::{check_message_after, check_part, InvalidRecord, PartTally};
use crate::protocol::{
    bounds, ChildMessage, FileFormat, FileJob, LoadError, LoadErrorKind, ParseRequest,
    ParsedConfig, PAYLOAD_VERSION,
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

/// Payload headroom of every share: error messages, positions and tags.
const SHARE_HEADROOM: u64 = 64 << 10;
/// Decoded headroom of every share: the record structs of a small answer.
const DECODED_HEADROOM: u64 = 64 << 10;
/// Payload bytes a config's answer may take per source byte. No count is bounded, so
/// the densest files set it: an empty server under a repeated empty name (`"":{},`,
/// 6 source bytes) crosses as a 19-byte record (3.1 per byte); with a shape error
/// of its own (`"":0,`, a 47-byte message) as 12 per byte.
const CONFIG_PAYLOAD_PER_BYTE: u64 = 16;
/// Decoded bytes a config's answer may own per source byte: the densest valid file
/// (those empty servers, each a 232-byte record) owns 39 per byte, the densest with
/// shape errors 56.
const CONFIG_DECODED_PER_BYTE: u64 = 64;
/// Suppression entries' fixed part (payload and decoded): an inline `{}` entry is
/// 3 source bytes and becomes a position, five option tags and a shape message of at
/// most `MAX_SHAPE_ERROR` bytes.
const IGNORE_ENTRY_BYTES: u64 = crate::child::ignore::MAX_SHAPE_ERROR as u64 + 256;

/// The share of the answer for a file of `size` bytes (at most its size cap). A
/// message's share is the only limit on what it may own once decoded (the frame's
/// wire-relative bound would refuse honest records of empty fields), so each is sized
/// to admit every honest answer any file of that size can produce, however many
/// records it holds (no count is bounded; see [`bounds::most_items`]), and grows
/// linearly with the file:
///
/// * Config (and a Claude Desktop extension manifest, whose launch is sent once per
///   platform override: one server, four copies of its strings): payload
///   `16 × size + 64 KiB`, decoded `64 × size + 64 KiB` (`CONFIG_PAYLOAD_PER_BYTE`,
///   `CONFIG_DECODED_PER_BYTE`: the densest files, measured). A Continue YAML file
///   of unnamed non-map entries (`[0,0,…]`, each named by its index and given a shape
///   error) can exceed it and is answered with a `TooLarge` error of its own.
/// * Lock, for doctor: payload `size + 64 KiB` (the summary is strings of the lock
///   and their length prefixes); decoded `8 × size + 64 KiB` (digests are 71-byte
///   strings in 24-byte slots; an empty argument is 24 bytes for 3).
/// * Whole lock, for `check` and `lock rotate`: payload `3 × size + 64 KiB` (a number
///   in a skeleton crosses as 2 to 9 bytes), decoded `16 × size + 64 KiB` (one token
///   slot per JSON value, the smallest of which is 2 source bytes).
/// * Suppression file: `2 × size` payload and `8 × size` decoded for its strings,
///   plus `IGNORE_ENTRY_BYTES` for each entry the file can hold.
///
/// `honest_answers_fit_their_shares` checks real and extreme honest files against
/// these; the exchange's totals are their sums.
pub fn share(format: FileFormat, size: u64) -> MessageShare {
    let (payload, decoded) = match format {
        FileFormat::Lock => (size, size.saturating_mul(8)),
        FileFormat::LockRecord => (size.saturating_mul(3), size.saturating_mul(16)),
        FileFormat::Ignore => {
            let entries =
                (bounds::most_items(format, size) as u64).saturating_mul(IGNORE_ENTRY_BYTES);
            (
                size.saturating_mul(2).saturating_add(entries),
                size.saturating_mul(8).saturating_add(entries),
            )
        }
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
        | FileFormat::DesktopExtension
        | FileFormat::ContinueYaml => (
            size.saturating_mul(CONFIG_PAYLOAD_PER_BYTE),
            size.saturating_mul(CONFIG_DECODED_PER_BYTE),
        ),
    };
    MessageShare {
        max_payload: u32::try_from(payload.saturating_add(SHARE_HEADROOM)).unwrap_or(u32::MAX),
        max_decoded: decoded.saturating_add(DECODED_HEADROOM),
    }
}

/// The size a share is computed from when the descriptor's size is unknown (not a
/// regular file).
const UNKNOWN_SIZE: u64 = 16 << 20;

/// The file's size from its descriptor, within its cap (a file that grew is refused
/// by the child at the cap); `None` when it is not a regular file.
fn measured_size(fd: &OwnedFd, cap: u64) -> Option<u64> {
    match super::open::regular_size(fd) {
        Ok(Some(size)) => Some(size.min(cap)),
        _ => None,
    }
}

/// Parse every job in one confined child, answers validated, one per job in job
/// order. A `~/.claude.json` answer sent in parts comes back assembled.
///
/// # Errors
/// The sandbox failed, or the child sent something no honest child sends.
pub fn parse_all(jobs: Vec<Job>, policy: WeakSandboxPolicy) -> Result<Parsed, ParseError> {
    let mut parts: Vec<(usize, ParsedConfig)> = Vec::new();
    let mut parsed =
        parse_all_streaming(jobs, policy, None, &mut |job, part| parts.push((job, part)))?;
    let mut parts = parts.into_iter().peekable();
    for (job, answer) in parsed.answers.iter_mut().enumerate() {
        let mut ahead = Vec::new();
        while let Some((_, part)) = parts.next_if(|(j, _)| *j == job) {
            ahead.extend(part.sections);
        }
        if let ChildMessage::Config(Ok(config)) = answer {
            if config.continues_parts {
                let rest = config.sections.split_off(config.sections.len().min(1));
                config.sections.extend(ahead);
                config.sections.extend(rest);
                config.continues_parts = false;
            }
        }
    }
    Ok(parsed)
}

/// [`parse_all`], handing each part of an answer sent in parts to `on_part` as soon
/// as it arrives and is validated (the job's index and the part's sections), while
/// the child goes on parsing: the parent works on a large `~/.claude.json` while the
/// child is still reading it. The answer that completes the parts comes back as the
/// child sent it ([`ParsedConfig::continues_parts`]); a job whose answer is an error,
/// or a whole answer, voids its parts. `started` is a child the caller started before
/// it opened the files (see [`StartedParser`]); without one, the child starts here.
///
/// # Errors
/// As [`parse_all`].
pub fn parse_all_streaming(
    jobs: Vec<Job>,
    policy: WeakSandboxPolicy,
    started: Option<StartedParser>,
    on_part: &mut dyn FnMut(usize, ParsedConfig),
) -> Result<Parsed, ParseError> {
    if jobs.len() > bounds::MAX_FILES {
        return Err(ParseError::TooManyFiles(jobs.len()));
    }
    // The size each file's share and count bounds follow from. Of a descriptor of
    // unknown size the share is a fixed one, and its counts are bounded by the
    // share alone.
    let measured: Vec<Option<u64>> = jobs
        .iter()
        .map(|j| measured_size(&j.fd, j.size_cap))
        .collect();
    let shares: Vec<MessageShare> = jobs
        .iter()
        .zip(&measured)
        .map(|(j, size)| share(j.format, size.unwrap_or(j.size_cap.min(UNKNOWN_SIZE))))
        .collect();
    let sizes: Vec<u64> = measured.iter().map(|s| s.unwrap_or(u64::MAX)).collect();
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
    super::resources::phase("spawn");
    let fds: Vec<OwnedFd> = jobs.into_iter().map(|j| j.fd).collect();
    let limits = exchange_limits(&shares);
    // Every answer, and every part of one, is validated as it arrives; the first
    // invalid record ends the exchange (the child is killed) and the scan.
    let mut answers: Vec<ChildMessage> = Vec::with_capacity(formats.len());
    let mut tallies = vec![PartTally::default(); formats.len()];
    let mut invalid: Option<InvalidRecord> = None;
    let mut sink = |job: usize, delivery: Delivery<ChildMessage>| -> Result<(), SandboxError> {
        let (Some(format), Some(size), Some(tally)) =
            (formats.get(job), sizes.get(job), tallies.get_mut(job))
        else {
            // More answers than jobs: the sandbox's message count refuses it first.
            return Err(SandboxError::Protocol("an answer to no job".into()));
        };
        let checked = match delivery {
            Delivery::Part(part) => check_part(*format, *size, tally, &part).map(|()| {
                if let ChildMessage::Config(Ok(config)) = part {
                    on_part(job, config);
                }
            }),
            Delivery::Message(message) => {
                check_message_after(*format, *size, tally, &message).map(|()| answers.push(message))
            }
        };
        checked.map_err(|e| {
            invalid = Some(e);
            SandboxError::Protocol("an invalid record".into())
        })
    };
    let output = match started {
        Some(child) => {
            child.run_with::<ParseRequest, ChildMessage>(&request, fds, &limits, policy, &mut sink)
        }
        None => {
            run_parser_with::<ParseRequest, ChildMessage>(&request, fds, &limits, policy, &mut sink)
        }
    };
    if let Some(e) = invalid {
        return Err(ParseError::Invalid(e));
    }
    let output = output.map_err(ParseError::Sandbox)?;
    super::resources::note_child_reaped();
    if answers.len() > formats.len()
        || (answers.len() < formats.len() && output.cut_short.is_none())
    {
        return Err(ParseError::Invalid(InvalidRecord(format!(
            "{} answers to {} files",
            answers.len(),
            formats.len()
        ))));
    }
    super::resources::phase("validated");
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
        // The extremes an honest file can reach: no count is bounded, so the
        // smallest records a file can hold, more of them than any count limit the
        // protocol once had (50,000 servers, 20,000 sections, 4,096 list entries, 256
        // settings, 4,096 suppression entries). Each must fit its file's share.
        let joined = |n: usize, item: &dyn Fn(usize) -> String| {
            (0..n).map(item).collect::<Vec<_>>().join(",")
        };
        for (what, format, text) in [
            (
                "60,000 numbered empty servers",
                FileFormat::Json,
                format!("{{\"mcpServers\":{{{}}}}}", joined(60_000, &|i| format!("\"{i}\":{{}}"))),
            ),
            (
                "60,000 empty servers of one repeated empty name",
                FileFormat::McpJson,
                format!("{{\"mcpServers\":{{{}}}}}", joined(60_000, &|_| "\"\":{}".into())),
            ),
            (
                "60,000 servers that are numbers (a shape error each)",
                FileFormat::Json,
                format!("{{\"mcpServers\":{{{}}}}}", joined(60_000, &|_| "\"\":0".into())),
            ),
            (
                "25,000 projects of one empty server",
                FileFormat::ClaudeJson,
                format!(
                    "{{\"projects\":{{{}}}}}",
                    joined(25_000, &|i| format!("\"{i}\":{{\"mcpServers\":{{\"s\":{{}}}}}}"))
                ),
            ),
            (
                "25,000 projects of a malformed map",
                FileFormat::ClaudeJson,
                format!("{{\"projects\":{{{}}}}}", joined(25_000, &|_| "\"\":{\"servers\":0}".into())),
            ),
            (
                "25,000 projects of approval settings",
                FileFormat::ClaudeJson,
                format!(
                    "{{\"projects\":{{{}}}}}",
                    joined(25_000, &|i| if i % 2 == 0 {
                        format!("\"{i}\":{{\"enableAllProjectMcpServers\":true}}")
                    } else {
                        format!("\"{i}\":{{\"enabledMcpjsonServers\":[\"\"],\"disabledMcpServers\":[\"\"]}}")
                    })
                ),
            ),
            (
                "25,000 projects of default settings and one server",
                FileFormat::ClaudeJson,
                format!(
                    "{{\"mcpServers\":{{\"s\":{{}}}},\"projects\":{{{}}}}}",
                    joined(25_000, &|i| format!("\"/p/{i}\":{{\"enabledMcpjsonServers\":[],\"disabledMcpjsonServers\":[],\"enableAllProjectMcpServers\":false,\"disabledMcpServers\":[]}}"))
                ),
            ),
            (
                "a server of 60,000 empty arguments",
                FileFormat::Json,
                format!("{{\"mcpServers\":{{\"a\":{{\"args\":[{}]}}}}}}", joined(60_000, &|_| "\"\"".into())),
            ),
            (
                "a server of 20,000 env entries and repeated fields",
                FileFormat::Jsonc,
                format!(
                    "{{\"mcpServers\":{{\"a\":{{\"env\":{{{}}},{}}}}}}}",
                    joined(20_000, &|i| format!("\"{i}\":\"\"")),
                    joined(20_000, &|i| format!("\"{i}\":0,\"{i}\":0"))
                ),
            ),
            (
                "60,000 Codex servers",
                FileFormat::CodexToml,
                format!("[mcp_servers]\n{}", (0..60_000).map(|i| format!("s{i}={{}}\n")).collect::<String>()),
            ),
            (
                "a Codex server of 60,000 arguments",
                FileFormat::CodexToml,
                format!("[mcp_servers.a]\nargs=[{}]\n", joined(60_000, &|_| "''".into())),
            ),
            (
                "60,000 Continue servers",
                FileFormat::ContinueYaml,
                format!("mcpServers: [{}]\n", joined(60_000, &|_| "{name: a, command: a}".into())),
            ),
            (
                "a Continue server of 60,000 arguments",
                FileFormat::ContinueYaml,
                format!("mcpServers: [{{name: a, command: a, args: [{}]}}]\n", joined(60_000, &|_| "a".into())),
            ),
            (
                "VS Code settings repeating a setting 10,000 times",
                FileFormat::VsCodeSettings,
                format!("{{{}}}", joined(10_000, &|_| "\"chat.mcp.discovery.enabled\":false".into())),
            ),
            (
                "Claude Code settings of 60,000 names and rules",
                FileFormat::ClaudeSettings,
                format!(
                    "{{\"enableAllProjectMcpServers\":true,\"enabledMcpjsonServers\":[{}],\"permissions\":{{\"allow\":[{}]}}}}",
                    joined(60_000, &|_| "\"\"".into()),
                    joined(60_000, &|_| "\"mcp__\"".into())
                ),
            ),
            (
                "60,000 suppression entries",
                FileFormat::Ignore,
                format!("ignore = [{}]\n", joined(60_000, &|_| "{}".into())),
            ),
            (
                "60,000 suppression entries with a shape error each",
                FileFormat::Ignore,
                format!("ignore = [{}]\n", joined(60_000, &|_| "{rule=0,x=0}".into())),
            ),
        ] {
            check(what, format, text.as_bytes());
        }
        // The other clients' files at their extremes: as many empty entries as the
        // largest count limit the protocol once had, and more.
        let empty_map = |key: &str| {
            format!(
                "{{\"{key}\":{{{}}}}}",
                joined(60_000, &|i| format!("\"{i}\":{{}}"))
            )
        };
        for (format, key) in [
            (FileFormat::GeminiSettings, "mcpServers"),
            (FileFormat::ZedSettings, "context_servers"),
            (FileFormat::OpenCode, "mcp"),
            (FileFormat::VsCodeSettings, "mcp.servers"),
        ] {
            check(
                &format!("60,000 empty {format:?} entries"),
                format,
                empty_map(key).as_bytes(),
            );
        }
        // A manifest whose launch is sent four times (the base and three overrides
        // that change nothing), more arguments than any count limit once allowed.
        let args: Vec<String> = (0..10_000).map(|_| String::new()).collect();
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
                crate::parent::validate::check_message(*format, 1 << 20, answer).is_err(),
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
        assert_eq!(big.max_payload, u32::MAX);
        // Linear in the file: the same share per byte at 1 MiB and at the cap.
        let mib = share(FileFormat::ClaudeJson, 1 << 20);
        let cap = share(FileFormat::ClaudeJson, 64 << 20);
        assert_eq!(
            u64::from(cap.max_payload) - SHARE_HEADROOM,
            64 * (u64::from(mib.max_payload) - SHARE_HEADROOM)
        );
        assert_eq!(
            cap.max_decoded - DECODED_HEADROOM,
            64 * (mib.max_decoded - DECODED_HEADROOM)
        );
        let limits = exchange_limits(&[s, big]);
        assert_eq!(limits.message_shares, [s, big]);
        assert!(limits.max_total_bytes >= u64::from(s.max_payload) + u64::from(big.max_payload));
        assert!(limits.keep_partial);
    }
}
