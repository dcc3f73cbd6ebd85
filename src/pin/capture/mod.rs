//! The MCP capture client: start or reach a server, run `initialize`, then read
//! every page of `tools/list`, `resources/list` and `prompts/list`.
//!
//! Everything the server sends is hostile input: messages are size-capped,
//! parsed with serde_json's recursion limit, item counts and page counts are
//! capped, one wall-clock deadline covers the whole exchange, and the server's
//! words reach the terminal only through `crate::text::safe_text`.

pub mod http;
pub mod jsonrpc;
pub mod normalize;
pub mod stdio;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

/// One captured tool, as declared (pre-hash).
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedTool {
    pub name: String,
    pub description: Option<String>,
    /// Present but possibly not an object (then reported as WRD-SCHEMA-MALFORMED).
    pub input_schema: Option<Value>,
    pub annotations: Option<Value>,
    pub output_schema: Option<Value>,
}

/// One captured resource.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedResource {
    pub uri: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// One captured prompt; `arguments` already normalized for hashing.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedPrompt {
    pub name: String,
    pub description: Option<String>,
    pub arguments: Option<Vec<Value>>,
}

/// The declared surface of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// `argv[0]` for stdio; empty for HTTP.
    pub command: String,
    pub args: Vec<String>,
    /// The endpoint for HTTP captures.
    pub url: Option<String>,
    /// The server's `protocolVersion` from the initialize result.
    pub protocol_version: String,
    pub tools: Vec<CapturedTool>,
    pub resources: Vec<CapturedResource>,
    pub prompts: Vec<CapturedPrompt>,
}

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// Spawn `argv` (never through a shell) with the minimal environment plus
    /// `env`, in `cwd` when given.
    Stdio {
        argv: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<PathBuf>,
    },
    /// POST to a Streamable HTTP endpoint with these (already expanded) headers.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// Bounds on one capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// One wall clock over spawn, handshake and every list call.
    pub timeout: Duration,
    /// Pages per list method; past it the capture fails closed.
    pub max_pages: usize,
    /// Largest single message (one stdio line, one HTTP body or SSE event).
    pub max_message_bytes: usize,
    /// Items per list method, over all pages.
    pub max_items: usize,
    /// Server stderr kept for the error report (the tail).
    pub max_stderr_bytes: usize,
}

/// Default `--timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Pages per list method.
pub const MAX_LIST_PAGES: usize = 256;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: DEFAULT_TIMEOUT,
            max_pages: MAX_LIST_PAGES,
            max_message_bytes: 16 * 1024 * 1024,
            max_items: 10_000,
            max_stderr_bytes: 64 * 1024,
        }
    }
}

/// A capture failure. `message` may quote server text: render it through
/// safe_text. `stderr` is the tail of the server's stderr (stdio only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    pub message: String,
    pub stderr: Option<String>,
}

impl CaptureError {
    pub fn new(message: impl Into<String>) -> Self {
        CaptureError {
            message: message.into(),
            stderr: None,
        }
    }
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CaptureError {}

/// Capture the declared surface of a server.
pub fn capture(endpoint: &Endpoint, limits: &Limits) -> Result<Surface, CaptureError> {
    match endpoint {
        Endpoint::Stdio { argv, env, cwd } => stdio::capture(argv, env, cwd.as_deref(), limits),
        Endpoint::Http { url, headers } => http::capture(url, headers, limits),
    }
}
