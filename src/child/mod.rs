//! The confined side: reads and parses config and lock bytes, answers with records.
//!
//! Everything in here runs only inside the parser child, after the sandbox crate
//! confined it. It never renders, never spawns, and never opens a path: it reads
//! the descriptors it was handed.
//!
//! [`parse_file`] is a pure, total function from one file's bytes to the answer for
//! that job: it never panics and never recurses on input nesting. The loaders:
//!
//! * `json`: one iterative parser for strict JSON (`Json`, `ClaudeJson`, `Lock`)
//!   and VS Code JSONC (`Jsonc`), with key positions and duplicate-key refusal.
//! * `servers`: the union of `mcpServers` and `servers`, `~/.claude.json`
//!   sections, and typed server bodies.
//! * `claude`: `~/.claude.json`, the one large file, read in the same parse that
//!   checks it, without a tree of the file (the same answer as `servers` gives for
//!   the tree, which stays the reference it is tested against).
//! * `clients`: the other clients' JSON files (VS Code and Claude Code settings,
//!   Gemini CLI, Zed, OpenCode, Claude Desktop extension manifests) and the
//!   approval settings of `~/.claude.json` projects.
//! * `toml`: Codex `config.toml`.
//! * `yaml`: Continue's `config.yaml` and `.continue/mcpServers/*.yaml` blocks.
//! * `ignore`: the user's suppression file (`ignore.toml`).
//! * `lock`: the one `warden.lock` reader (validation, the whole record, and the
//!   summary doctor uses), for every command.
//!
//! A leading UTF-8 BOM is refused in strict JSON (Node's `JSON.parse`, which the
//! JSON clients use, refuses it too) and skipped in JSONC (VS Code strips it when it
//! reads the file) and in the files Claude Code reads (it strips it too); the other
//! clients' files follow their readers (`clients::reading`). TOML accepts it, as
//! Codex's own parser does.

use std::io::Read;

use crate::protocol::{
    ChildMessage, Construct, FileFormat, LoadError, LoadErrorKind, ParsedConfig,
};

pub(crate) mod claude;
pub(crate) mod clients;
pub(crate) mod ignore;
pub(crate) mod json;
pub(crate) mod lock;
pub(crate) mod position;
pub mod serve;
pub(crate) mod servers;
pub(crate) mod toml;
pub(crate) mod yaml;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

/// What happens to a JSON parse tree once the records are extracted from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TreeDisposal {
    /// Free it: a long-lived caller (tests, benches, fuzz targets) parses again.
    Free,
    /// Leave it to the kernel: the parser child is a one-shot process under an
    /// address-space limit, and freeing a tree of tens of thousands of nodes one by
    /// one just before exiting is measurable (a tenth of the child's time on an
    /// 8 MiB `~/.claude.json`).
    LeaveToExit,
}

/// How a JSON file is read: what happens to its tree, and which reader reads a
/// `~/.claude.json`.
#[derive(Debug, Clone, Copy)]
struct Reading {
    disposal: TreeDisposal,
    /// Read `~/.claude.json` through the tree reader (`servers::json_config`), the
    /// reference the streamed reader (`claude`) is held to, instead of the streamed one.
    claude_by_tree: bool,
}

/// Parse one file's bytes (already read, at most size_cap bytes) into the answer for that job.
pub fn parse_file(format: FileFormat, bytes: &[u8]) -> ChildMessage {
    parse_file_with(
        format,
        bytes,
        Reading {
            disposal: TreeDisposal::Free,
            claude_by_tree: false,
        },
    )
}

/// [`parse_file`] for a `~/.claude.json` read through the tree reader: the answer the
/// streamed reader must give, for the tests and the `json` fuzz target.
pub(crate) fn claude_json_by_tree(bytes: &[u8]) -> ChildMessage {
    parse_file_with(
        FileFormat::ClaudeJson,
        bytes,
        Reading {
            disposal: TreeDisposal::Free,
            claude_by_tree: true,
        },
    )
}

/// [`parse_file`] for the parser child, which exits after its last answer. `leave` says
/// whether this file's tree may be left to the exit (see `serve`: only while the
/// trees left so far are bounded).
///
/// A `~/.claude.json` offers its project sections to `ahead` as it reads them (see
/// [`claude::read_sending`]); other files ignore it.
pub(crate) fn parse_file_in_child(
    format: FileFormat,
    bytes: &[u8],
    leave: bool,
    ahead: Option<claude::SendAhead<'_>>,
) -> ChildMessage {
    let disposal = if leave {
        TreeDisposal::LeaveToExit
    } else {
        TreeDisposal::Free
    };
    parse_file_sending(
        format,
        bytes,
        Reading {
            disposal,
            claude_by_tree: false,
        },
        ahead,
    )
}

fn parse_file_with(format: FileFormat, bytes: &[u8], reading: Reading) -> ChildMessage {
    parse_file_sending(format, bytes, reading, None)
}

fn parse_file_sending(
    format: FileFormat,
    bytes: &[u8],
    reading: Reading,
    ahead: Option<claude::SendAhead<'_>>,
) -> ChildMessage {
    let text = std::str::from_utf8(bytes).map_err(|e| LoadError {
        kind: LoadErrorKind::Read,
        message: format!("not valid UTF-8 at byte {}", e.valid_up_to()),
        construct: Some(Construct::InvalidUtf8),
    });
    match format {
        FileFormat::Lock => ChildMessage::Lock(text.and_then(lock::read_lock)),
        FileFormat::LockRecord => ChildMessage::LockRecord(text.and_then(lock::read_lock_record)),
        FileFormat::CodexToml => ChildMessage::Config(text.and_then(toml::codex_config)),
        FileFormat::Ignore => ChildMessage::Ignore(text.and_then(ignore::read_ignore)),
        FileFormat::ContinueYaml => ChildMessage::Config(yaml::continue_config_bytes(bytes)),
        // Zed reads its settings into a Rust `String`, which refuses bytes that are
        // not UTF-8; the JavaScript clients below decode them lossily.
        FileFormat::ZedSettings => {
            ChildMessage::Config(text.and_then(|t| json_config(t, format, false, reading, None)))
        }
        FileFormat::Json
        | FileFormat::McpJson
        | FileFormat::Jsonc
        | FileFormat::ClaudeJson
        | FileFormat::VsCodeSettings
        | FileFormat::ClaudeSettings
        | FileFormat::GeminiSettings
        | FileFormat::OpenCode
        | FileFormat::DesktopExtension => {
            ChildMessage::Config(match text {
                Ok(t) => lenient_json_config(t, format, reading, ahead),
                Err(e) => {
                    // The JSON clients run on Node, which decodes a file as UTF-8
                    // with each invalid sequence read as U+FFFD and loads it. So does
                    // doctor, and it says so: the servers are audited and the file is
                    // still an error (exit 2), because the bytes are not what any
                    // editor shows.
                    let lossy = String::from_utf8_lossy(bytes);
                    lenient_json_config(&lossy, format, reading, ahead).map(|c| {
                        with_note(
                            c,
                            LoadError {
                                kind: LoadErrorKind::Read,
                                message: format!(
                                    "{}; audited as the JavaScript clients decode it, each \
                                     invalid byte sequence read as U+FFFD",
                                    e.message
                                ),
                                construct: Some(Construct::InvalidUtf8),
                            },
                        )
                    })
                }
            })
        }
    }
}

/// A JSON config, read the way its most lenient known reader reads it where that
/// is safe: a `.mcp.json` with comments or trailing commas, which Claude Code
/// refuses, is read as JSONC (VS Code's parser) and audited, and the refusal is
/// kept as the file's error so the run still exits 2.
fn lenient_json_config(
    text: &str,
    format: FileFormat,
    reading: Reading,
    ahead: Option<claude::SendAhead<'_>>,
) -> Result<ParsedConfig, LoadError> {
    // Only `~/.claude.json` sends sections ahead, and it is never read twice here.
    match json_config(text, format, false, reading, ahead) {
        Err(e)
            if format == FileFormat::McpJson
                && matches!(
                    e.construct,
                    Some(Construct::Comment | Construct::TrailingComma)
                ) =>
        {
            let config = json_config(text, format, true, reading, None)?;
            Ok(with_note(
                config,
                LoadError {
                    message: format!(
                        "{}; Claude Code refuses the file, and its servers were audited as a \
                         JSONC reader (VS Code's) reads them",
                        e.message
                    ),
                    ..e
                },
            ))
        }
        other => other,
    }
}

/// Attach `note` to the file's first section as its error: the servers are still
/// audited, and the file counts as unreadable for the exit code.
fn with_note(mut config: ParsedConfig, note: LoadError) -> ParsedConfig {
    if let Some(first) = config.sections.first_mut() {
        first.error = Some(match first.error.take() {
            None => note,
            Some(earlier) => LoadError {
                message: format!("{}; {}", note.message, earlier.message),
                ..note
            },
        });
    }
    config
}

/// Read buffers from this size on are advised to use transparent huge pages (two
/// huge pages: a smaller buffer rarely covers an aligned one).
const HUGE_PAGE_BUFFER: usize = 4 << 20;

/// Read the whole file, refusing (never truncating) one longer than `cap` bytes.
///
/// Reads at most `cap + 1` bytes, so an endless or growing file cannot exhaust
/// memory.
///
/// # Errors
/// `TooLarge` when there is more than `cap` bytes; `Read` when read(2) fails.
pub fn read_capped(
    file: &mut impl Read,
    cap: u64,
    size_hint: Option<u64>,
) -> Result<Vec<u8>, LoadError> {
    let mut buf = Vec::new();
    // One allocation of the expected size (plus the byte that detects growth)
    // instead of doubling: an 8 MiB file would otherwise cost 16 MiB and copies.
    // The hint is only a hint: the cap below is what bounds the read.
    if let Some(hint) = size_hint {
        let expected = hint.min(cap).saturating_add(1);
        let _ = buf.try_reserve_exact(usize::try_from(expected).unwrap_or(0));
        // Fresh memory costs about five times less to fault in as huge pages: a large
        // file the child could not map (see `serve.rs`) is read into 2 MiB pages
        // where the kernel allows it.
        if buf.capacity() >= HUGE_PAGE_BUFFER {
            mcp_warden_sandbox::advise_huge_pages(buf.spare_capacity_mut());
        }
    }
    file.take(cap.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| LoadError {
            kind: LoadErrorKind::Read,
            message: format!("read failed: {e}"),
            construct: None,
        })?;
    if u64::try_from(buf.len()).map_or(true, |n| n > cap) {
        return Err(LoadError {
            kind: LoadErrorKind::TooLarge,
            message: format!("larger than the {cap}-byte cap"),
            construct: None,
        });
    }
    Ok(buf)
}

fn json_config(
    text: &str,
    format: FileFormat,
    as_jsonc: bool,
    reading: Reading,
    ahead: Option<claude::SendAhead<'_>>,
) -> Result<ParsedConfig, LoadError> {
    let client = clients::reading(format);
    let jsonc = format == FileFormat::Jsonc || as_jsonc || client.is_some_and(|r| r.comments);
    let trailing_commas =
        format == FileFormat::Jsonc || as_jsonc || client.is_some_and(|r| r.trailing_commas);
    let dialect = if jsonc { "JSONC" } else { "JSON" };
    let bom = text.starts_with('\u{FEFF}');
    // VS Code and Claude Code strip a BOM before parsing; the other JSON clients'
    // readers are not known to, and Node's `JSON.parse` refuses one.
    let bom_stripped = matches!(
        format,
        FileFormat::Jsonc | FileFormat::ClaudeJson | FileFormat::McpJson
    ) || client.is_some_and(|r| r.bom_stripped);
    if bom && !bom_stripped {
        return Err(LoadError {
            kind: LoadErrorKind::Syntax,
            message: "invalid JSON at line 1 column 1: the file starts with a UTF-8 byte order \
                      mark (BOM), which strict JSON does not allow"
                .into(),
            construct: Some(Construct::ByteOrderMark),
        });
    }
    let opts = json::Options {
        jsonc,
        trailing_commas,
        cr_ends_line_comment: client.is_none_or(|r| r.cr_ends_line_comment),
        max_depth: crate::protocol::bounds::MAX_CONFIG_DEPTH,
        // A `.mcp.json` may be read flat (every top-level member a server), so all
        // of it is built; it is a small project file.
        select: match client {
            Some(r) => json::Select::Settings {
                paths: r.paths,
                dotted: r.dotted,
            },
            None if format == FileFormat::McpJson => json::Select::All,
            None => json::Select::Config {
                claude: format == FileFormat::ClaudeJson,
            },
        },
        keep_duplicates: true,
        refuse_skipped_duplicates: client.is_none(),
    };
    let start = if bom { '\u{FEFF}'.len_utf8() } else { 0 };
    let refused_by = |offset: usize, reason: String| {
        let (line, col) = position::line_col(text, offset);
        LoadError {
            kind: LoadErrorKind::Syntax,
            message: format!("invalid {dialect} at line {line} column {col}: {reason}"),
            construct: None,
        }
    };
    // Gemini CLI strips comments with `strip-json-comments` before `JSON.parse`;
    // where that differs from reading them as JSONC, read what it leaves.
    let closed;
    let text = match format {
        FileFormat::GeminiSettings => match clients::gemini_stripped(text) {
            Err((offset, reason)) => return Err(refused_by(offset, reason)),
            Ok(clients::GeminiStripped::AsWritten) => text,
            Ok(clients::GeminiStripped::OpenBlockCommentAtEnd) => {
                closed = format!("{text}*/");
                closed.as_str()
            }
        },
        FileFormat::OpenCode => {
            clients::opencode_raw_references(text)
                .map_err(|(offset, reason)| refused_by(offset, reason))?;
            text
        }
        _ => text,
    };
    let syntax = |e: json::SyntaxError| {
        let (line, col) = position::line_col(text, e.offset);
        LoadError {
            kind: LoadErrorKind::Syntax,
            message: format!(
                "invalid {dialect} at line {line} column {col}: {}",
                e.reason
            ),
            construct: e.construct,
        }
    };
    if format == FileFormat::ClaudeJson && !reading.claude_by_tree {
        return claude::read_sending(text, start, opts, ahead).map_err(syntax)?;
    }
    let doc = json::parse(text, start, opts).map_err(syntax)?;
    let config = match client {
        Some(_) => clients::client_config(text, &doc, format),
        None => servers::json_config(text, &doc, format),
    };
    if reading.disposal == TreeDisposal::LeaveToExit {
        std::mem::forget(doc);
    }
    config
}
