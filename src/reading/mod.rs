//! How each client turns a server entry into what it starts.
//!
//! The child sends every field an entry declares, as written
//! ([`ServerBody`]); which of them a client uses, and how, is decided here and
//! nowhere else: the transport rule, the client's own field names (Windsurf's
//! `serverUrl`, Gemini CLI's `httpUrl`, Codex's `http_headers`,
//! `env_http_headers` and `bearer_token_env_var`), and its variable expansion
//! ([`expand`]). The result is one [`ServerSpec`] per distinct reading, used by the
//! engines, lock coverage, Next steps and `--pin` alike, so what is audited, what
//! a lock must match and what the pin line runs can never disagree.
//!
//! A file is read by one client, or by several (a workspace `.mcp.json` is read by
//! Claude Code and by VS Code), or, for a `--config` file whose name does not say,
//! by any of them. Where the readers, or the versions of one reader, start
//! different things from the same entry, every distinct reading is audited and
//! the entry is flagged ([`Readings::ambiguous`]). The rules and their sources are
//! in `docs/clients.md`.

pub mod expand;

use std::sync::Arc;

use crate::model::{Launch, Origin, RemoteLaunch, ServerSpec, StdioLaunch, Transport};
use crate::protocol::{Construct, ServerBody};

/// One client's reader of one kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reader {
    /// `~/.claude.json` and `.mcp.json`.
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    /// `mcp.json` (user) and `.vscode/mcp.json`.
    VsCode,
    /// Recent VS Code's reader of a workspace `.mcp.json`.
    VsCodeWorkspace,
    Windsurf,
    Codex,
    GeminiCli,
}

/// Every JSON reader: a `--config` file whose name says nothing is read by each.
pub const ANY_JSON: &[Reader] = &[
    Reader::ClaudeCode,
    Reader::ClaudeDesktop,
    Reader::Cursor,
    Reader::VsCodeWorkspace,
    Reader::Windsurf,
    Reader::GeminiCli,
];

impl Reader {
    pub fn name(self) -> &'static str {
        match self {
            Reader::ClaudeCode => "Claude Code",
            Reader::ClaudeDesktop => "Claude Desktop",
            Reader::Cursor => "Cursor",
            Reader::VsCode => "VS Code",
            Reader::VsCodeWorkspace => "VS Code (workspace .mcp.json)",
            Reader::Windsurf => "Windsurf",
            Reader::Codex => "Codex",
            Reader::GeminiCli => "Gemini CLI",
        }
    }

    /// Whether this reader loads a file that has `construct`, which doctor refuses:
    /// `Some(true)` known to load it, `None` not known.
    pub fn loads(self, construct: Construct) -> Option<bool> {
        use Construct::*;
        use Reader::*;
        match (self, construct) {
            // Node's JSON.parse (after Claude Code strips a BOM): duplicates keep the
            // last, lone surrogates and invalid UTF-8 (decoded as U+FFFD) pass, and
            // nesting is bounded by the engine's stack, far beyond 128.
            (ClaudeCode | VsCodeWorkspace, ByteOrderMark) => Some(true),
            (ClaudeCode | VsCodeWorkspace, InvalidUtf8 | LoneSurrogate | DeepNesting) => Some(true),
            (ClaudeCode | VsCodeWorkspace, DuplicateKey | ProtoKey | DottedKey) => Some(true),
            (ClaudeCode, Comment | TrailingComma) => Some(false),
            // Which parser recent VS Code reads a workspace `.mcp.json` with is not
            // settled (`JSON.parse` in the source read; JSONC reported).
            (VsCodeWorkspace, Comment | TrailingComma) => None,
            // VS Code's JSONC parser: comments, trailing commas, lone surrogates,
            // any depth; invalid UTF-8 decoded lossily.
            (VsCode, _) => Some(true),
            // Gemini CLI strips comments before JSON.parse.
            (GeminiCli, Comment) => Some(true),
            (GeminiCli, InvalidUtf8 | LoneSurrogate | DeepNesting | DuplicateKey) => Some(true),
            (Codex, _) => Some(false),
            _ => None,
        }
    }
}

/// The readers of a file, and what doctor knows that they know.
#[derive(Debug, Clone)]
pub struct FileReaders {
    pub readers: &'static [Reader],
    pub known: expand::Known,
}

/// An entry's readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readings {
    /// One spec per distinct launch, in reader order.
    pub specs: Vec<ServerSpec>,
    /// Why the readings differ, when there is more than one.
    pub ambiguous: Option<String>,
}

/// Every distinct reading of `body` by `readers`, or why every reader refuses it
/// (only Codex refuses entries: it then starts none of the file's servers).
pub fn read(body: ServerBody, file: &FileReaders) -> Result<Readings, String> {
    let declared = Arc::new(body);
    let mut specs: Vec<ServerSpec> = Vec::new();
    let mut refusals: Vec<String> = Vec::new();
    for &reader in file.readers {
        let launches = match launches(reader, &declared, &file.known) {
            Ok(l) => l,
            Err(reason) => {
                refusals.push(format!("{} refuses this entry: {reason}", reader.name()));
                continue;
            }
        };
        for (launch, variables) in launches {
            let launch_varies = varies(&launch, &declared, &variables);
            match specs.iter_mut().find(|s| same_start(&s.launch, &launch)) {
                Some(spec) => {
                    if !spec.origin.readers.contains(&reader) {
                        spec.origin.readers.push(reader);
                    }
                    for v in variables {
                        if !spec.origin.variables.contains(&v) {
                            spec.origin.variables.push(v);
                        }
                    }
                    spec.origin.launch_varies |= launch_varies;
                }
                None => specs.push(ServerSpec {
                    launch,
                    declared: Arc::clone(&declared),
                    origin: Origin {
                        readers: vec![reader],
                        variables,
                        launch_varies,
                        disabled: declared.extra().enabled == Some(false)
                            || declared.extra().disabled == Some(true),
                    },
                }),
            }
        }
    }
    if specs.is_empty() {
        if let Some(first) = refusals.into_iter().next() {
            return Err(first);
        }
        // Nothing any reader would start: still audited (credentials, a remote
        // `type` without a URL), as one spec.
        specs.push(ServerSpec {
            launch: Launch::Nothing,
            declared: Arc::clone(&declared),
            origin: Origin {
                readers: file.readers.to_vec(),
                disabled: declared.extra().enabled == Some(false)
                    || declared.extra().disabled == Some(true),
                ..Origin::default()
            },
        });
    }
    let ambiguous = (specs.len() > 1).then(|| describe(&specs));
    Ok(Readings { specs, ambiguous })
}

/// Whether two readings start the same thing: the same argv, environment and
/// directory, or the same URL with the same headers. Readers that name the remote
/// transport differently (`http` for one, unspecified for another) still connect
/// to the same endpoint with the same credentials: one reading, not an ambiguity.
fn same_start(a: &Launch, b: &Launch) -> bool {
    match (a, b) {
        (Launch::Remote(x), Launch::Remote(y)) => x.url == y.url && x.headers == y.headers,
        _ => a == b,
    }
}

/// "Claude Code starts the command; VS Code (workspace .mcp.json) connects to a URL".
fn describe(specs: &[ServerSpec]) -> String {
    let parts: Vec<String> = specs
        .iter()
        .map(|s| {
            let who: Vec<&str> = s.origin.readers.iter().map(|r| r.name()).collect();
            let what = match &s.launch {
                Launch::Stdio(l) => format!("starts {}", excerpt(&l.command)),
                Launch::Remote(l) => format!("connects to {}", excerpt(&l.url)),
                Launch::Nothing => "starts nothing".to_string(),
            };
            let what = if who.len() > 1 {
                what.replacen("starts", "start", 1)
                    .replacen("connects", "connect", 1)
            } else {
                what.to_string()
            };
            format!("{} {what}", who.join(", "))
        })
        .collect();
    format!(
        "clients read this entry differently ({}); each reading is audited — make the entry say one thing",
        parts.join("; ")
    )
}

/// A config word for a message (the printers apply `text::display` on top).
fn excerpt(s: &str) -> String {
    const MAX: usize = 48;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or_default()),
    }
}

/// Whether the command (stdio) or the URL (remote) depends on a variable.
fn varies(launch: &Launch, declared: &ServerBody, variables: &[String]) -> bool {
    if variables.is_empty() {
        return false;
    }
    let written: Vec<&str> = match launch {
        Launch::Stdio(_) => declared.command.iter().map(String::as_str).collect(),
        Launch::Remote(_) => [
            &declared.url,
            &declared.extra().server_url,
            &declared.extra().http_url,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect(),
        Launch::Nothing => Vec::new(),
    };
    written
        .iter()
        .any(|w| variables.iter().any(|v| w.contains(v.as_str())))
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}

/// What `reader` starts from `body`: usually one launch; several where the
/// reader's rule is not known (each possible reading); none where it starts
/// nothing. Each launch comes with the variable references it depends on.
fn launches(
    reader: Reader,
    body: &ServerBody,
    known: &expand::Known,
) -> Result<Vec<(Launch, Vec<String>)>, String> {
    let ty = body.transport.as_deref().map(str::to_ascii_lowercase);
    let command = non_empty(&body.command);
    let url = non_empty(&body.url);
    let mut out = Vec::new();
    let mut push = |launch: Option<Launch>, refs: Vec<String>| {
        if let Some(l) = launch {
            out.push((l, refs));
        }
    };
    match reader {
        Reader::ClaudeCode => {
            // zod union: `type` absent or "stdio" with a command is stdio (a url
            // beside it is stripped); a remote `type` needs a url (the command is
            // stripped). A url with no `type` is invalid to Claude Code; it is
            // audited as remote anyway (a superset: nothing hides).
            let mut refs = Vec::new();
            let launch = match ty.as_deref() {
                None | Some("stdio") if command.is_some() => stdio(reader, body, known, &mut refs),
                None | Some("stdio") => url.and_then(|u| {
                    remote(reader, u, Transport::Unspecified, body, known, &mut refs)
                }),
                Some(t) => {
                    url.and_then(|u| remote(reader, u, transport_of(t), body, known, &mut refs))
                }
            };
            push(launch, refs);
        }
        Reader::VsCode => {
            // `sanitizeServer`: a type other than stdio/http becomes
            // `command ? stdio : http`; http reads url + headers, stdio the rest.
            let http = match ty.as_deref() {
                Some("stdio") => false,
                Some("http") => true,
                _ => command.is_none(),
            };
            let mut refs = Vec::new();
            let launch = if http {
                url.and_then(|u| remote(reader, u, Transport::Http, body, known, &mut refs))
            } else {
                stdio(reader, body, known, &mut refs)
            };
            push(launch, refs);
        }
        Reader::VsCodeWorkspace => {
            // `claudeConfigToServerDefinition`: a truthy url is HTTP, else stdio.
            let mut refs = Vec::new();
            let launch = match url {
                Some(u) => remote(reader, u, Transport::Http, body, known, &mut refs),
                None => stdio(reader, body, known, &mut refs),
            };
            push(launch, refs);
        }
        Reader::ClaudeDesktop => {
            // Local stdio servers; one report has `type: http|sse` + url working.
            let mut refs = Vec::new();
            push(stdio(reader, body, known, &mut refs), refs);
            let remote_type =
                matches!(ty.as_deref(), Some(t) if transport_of(t) != Transport::Unspecified);
            if command.is_none() || remote_type {
                let mut refs = Vec::new();
                let t = ty.as_deref().map_or(Transport::Unspecified, transport_of);
                push(
                    url.and_then(|u| remote(reader, u, t, body, known, &mut refs)),
                    refs,
                );
            }
        }
        Reader::Cursor => {
            // The rule for an entry with both a command and a url is not
            // documented: both readings.
            let mut refs = Vec::new();
            push(stdio(reader, body, known, &mut refs), refs);
            let mut refs = Vec::new();
            let t = ty.as_deref().map_or(Transport::Unspecified, transport_of);
            push(
                url.and_then(|u| remote(reader, u, t, body, known, &mut refs)),
                refs,
            );
        }
        Reader::Windsurf => {
            // `serverUrl` or `url` (documented); which wins when both differ, and
            // the rule beside a command, are not: every reading.
            let mut refs = Vec::new();
            push(stdio(reader, body, known, &mut refs), refs);
            let t = ty.as_deref().map_or(Transport::Unspecified, transport_of);
            for u in [non_empty(&body.extra().server_url), url]
                .into_iter()
                .flatten()
            {
                let mut refs = Vec::new();
                push(remote(reader, u, t, body, known, &mut refs), refs);
            }
        }
        Reader::GeminiCli => {
            // `httpUrl` (streamable HTTP) wins over `url` (SSE), both over `command`.
            let mut refs = Vec::new();
            let launch = if let Some(u) = non_empty(&body.extra().http_url) {
                remote(reader, u, Transport::Http, body, known, &mut refs)
            } else if let Some(u) = url {
                remote(reader, u, Transport::Sse, body, known, &mut refs)
            } else {
                stdio(reader, body, known, &mut refs)
            };
            push(launch, refs);
        }
        Reader::Codex => return codex(body).map(|l| vec![(l, Vec::new())]),
    }
    Ok(out)
}

fn transport_of(t: &str) -> Transport {
    match t {
        "http" | "streamable-http" | "streamablehttp" | "streamable_http" => Transport::Http,
        "sse" | "sse-ide" => Transport::Sse,
        "ws" | "ws-ide" | "websocket" => Transport::WebSocket,
        _ => Transport::Unspecified,
    }
}

fn expand_pairs(
    reader: Reader,
    pairs: &[(String, String)],
    known: &expand::Known,
    refs: &mut Vec<String>,
) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.clone(), expand::expand(reader, v, known, refs)))
        .collect()
}

fn stdio(
    reader: Reader,
    body: &ServerBody,
    known: &expand::Known,
    refs: &mut Vec<String>,
) -> Option<Launch> {
    let command = expand::expand(reader, non_empty(&body.command)?, known, refs);
    if command.is_empty() {
        // `${env:RUNNER}` with RUNNER unset: nothing to start.
        return None;
    }
    Some(Launch::Stdio(StdioLaunch {
        command,
        args: body
            .args
            .iter()
            .map(|a| expand::expand(reader, a, known, refs))
            .collect(),
        env: expand_pairs(reader, &body.env, known, refs),
        cwd: body
            .extra()
            .cwd
            .as_deref()
            .map(|c| expand::expand(reader, c, known, refs)),
    }))
}

fn remote(
    reader: Reader,
    url: &str,
    transport: Transport,
    body: &ServerBody,
    known: &expand::Known,
    refs: &mut Vec<String>,
) -> Option<Launch> {
    let url = expand::expand(reader, url, known, refs);
    if url.is_empty() {
        return None;
    }
    Some(Launch::Remote(RemoteLaunch {
        transport,
        url,
        headers: expand_pairs(reader, &body.headers, known, refs),
    }))
}

/// Codex's `McpServerConfig`: a command is stdio and then the HTTP fields are
/// errors; else a url is streamable HTTP and the stdio fields are errors; neither
/// is "invalid transport". Any error stops Codex from loading the whole file.
fn codex(body: &ServerBody) -> Result<Launch, String> {
    if body.extra().bearer_token.is_some() {
        return Err("bearer_token is not supported (use bearer_token_env_var)".into());
    }
    if let Some(command) = body.command.as_deref() {
        let http_field = [
            body.url.is_some().then_some("url"),
            body.extra()
                .bearer_token_env_var
                .is_some()
                .then_some("bearer_token_env_var"),
            (!body.headers.is_empty()).then_some("http_headers"),
            (!body.extra().env_http_headers.is_empty()).then_some("env_http_headers"),
        ]
        .into_iter()
        .flatten()
        .next();
        if let Some(field) = http_field {
            return Err(format!(
                "{field} is not supported for a stdio server (command is set)"
            ));
        }
        if command.is_empty() {
            return Ok(Launch::Nothing);
        }
        return Ok(Launch::Stdio(StdioLaunch {
            command: command.to_string(),
            args: body.args.clone(),
            env: body.env.clone(),
            cwd: body.extra().cwd.clone(),
        }));
    }
    let Some(url) = body.url.as_deref() else {
        return Err("invalid transport (neither command nor url)".into());
    };
    let stdio_field = [
        (!body.args.is_empty()).then_some("args"),
        (!body.env.is_empty()).then_some("env"),
        body.extra().cwd.is_some().then_some("cwd"),
    ]
    .into_iter()
    .flatten()
    .next();
    if let Some(field) = stdio_field {
        return Err(format!(
            "{field} is not supported for a streamable HTTP server (url is set)"
        ));
    }
    let mut headers = body.headers.clone();
    for (header, var) in &body.extra().env_http_headers {
        headers.push((header.clone(), format!("${{{var}}}")));
    }
    if let Some(var) = &body.extra().bearer_token_env_var {
        headers.push(("Authorization".into(), format!("Bearer ${{{var}}}")));
    }
    if url.is_empty() {
        return Ok(Launch::Nothing);
    }
    Ok(Launch::Remote(RemoteLaunch {
        transport: Transport::Http,
        url: url.to_string(),
        headers,
    }))
}

#[cfg(test)]
mod tests;
