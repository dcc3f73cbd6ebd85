//! How each client turns a server entry into what it starts.
//!
//! The child sends every field an entry declares, as written
//! ([`ServerBody`]); which of them a client uses, and how, is decided here and
//! nowhere else: the transport rule, the client's own field names (Windsurf's
//! `serverUrl`, Gemini CLI's `httpUrl`, Codex's `http_headers`,
//! `env_http_headers` and `bearer_token_env_var`; the child already brings
//! OpenCode's command array and `environment` and Zed's `command` object to
//! `command`/`args`/`env`), its variable expansion ([`expand`]), and the switch
//! that turns an entry off. The transport rules, the switches and what each
//! client's parser accepts are in `rules.rs`. The result is one [`ServerSpec`] per
//! distinct reading, used by the
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
mod rules;

use std::borrow::Cow;
use std::sync::Arc;

use crate::model::{Client, Launch, Origin, RemoteLaunch, ServerSpec, StdioLaunch, Transport};
use crate::protocol::{ServerBody, ServerMap};
use crate::text::safe_text::safe_text_capped;
use expand::Field;

/// One client's reader of one kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reader {
    /// `~/.claude.json` and `.mcp.json`.
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    /// `mcp.json` (user) and `.vscode/mcp.json`.
    VsCode,
    /// VS Code's reader of the `mcpServers` format: a workspace `.mcp.json` (recent
    /// VS Code), and Claude Desktop's, Cursor's and Windsurf's files when its
    /// discovery of other apps' servers is on.
    VsCodeWorkspace,
    Windsurf,
    Codex,
    GeminiCli,
    /// Zed's `context_servers`.
    Zed,
    /// The Cline extension's `cline_mcp_settings.json`.
    Cline,
    /// The Roo Code extension's `mcp_settings.json` and a project `.roo/mcp.json`.
    RooCode,
    /// GitHub Copilot CLI's `mcp-config.json`.
    CopilotCli,
    /// Amazon Q Developer's `mcp.json`.
    AmazonQ,
    /// Kiro's `settings/mcp.json`.
    Kiro,
    /// OpenCode's `mcp`.
    OpenCode,
    /// Continue's YAML and JSON server files.
    Continue,
    /// Claude Desktop starting an installed extension's `server.mcp_config`.
    ClaudeDesktopExtension,
}

/// A set of readers, in [`Reader`] order (a server can hold one per reading; a
/// bit set keeps the tens of thousands of them small).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Readers(u32);

impl Readers {
    pub fn of(readers: &[Reader]) -> Readers {
        let mut set = Readers::default();
        for &r in readers {
            set.insert(r);
        }
        set
    }

    pub fn insert(&mut self, reader: Reader) {
        self.0 |= 1 << (reader as u32);
    }

    pub fn contains(self, reader: Reader) -> bool {
        self.0 & (1 << (reader as u32)) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn iter(self) -> impl Iterator<Item = Reader> {
        EVERY.iter().copied().filter(move |&r| self.contains(r))
    }
}

/// Every reader, the JSON ones first (so that [`ANY_JSON`] is a prefix); also the
/// order in which a [`Readers`] set lists them.
pub const EVERY: [Reader; 17] = [
    Reader::ClaudeCode,
    Reader::ClaudeDesktop,
    Reader::Cursor,
    Reader::VsCode,
    Reader::VsCodeWorkspace,
    Reader::Windsurf,
    Reader::GeminiCli,
    Reader::Codex,
    Reader::Zed,
    Reader::Cline,
    Reader::RooCode,
    Reader::CopilotCli,
    Reader::AmazonQ,
    Reader::Kiro,
    Reader::OpenCode,
    Reader::Continue,
    Reader::ClaudeDesktopExtension,
];

/// The readers of a `--config` file whose name says nothing: every JSON reader of
/// the spec's files.
///
/// The `mcpServers` readers added since (Cline, Roo Code, Kiro, Amazon Q, Copilot
/// CLI, Continue's JSON files) are not among them: every command, argument, url
/// and header they build from an entry is already built by one of these (Cursor
/// reads every command and every url, Claude Desktop and VS Code's `.mcp.json`
/// reader keep every reference as written; tested by
/// `any_json_already_covers_the_other_mcp_servers_readers`), so adding them would
/// only lengthen every
/// ambiguity message. What they may build differently is an environment value's
/// spelling of an unset variable (Amazon Q's `${env:X}` → `${X}`) and Roo Code's
/// forward slashes in a Windows workspace path.
pub const ANY_JSON: &[Reader] = EVERY.split_at(7).0;

impl Reader {
    /// The client this reader belongs to.
    pub fn client(self) -> Client {
        match self {
            Reader::ClaudeCode => Client::ClaudeCode,
            Reader::ClaudeDesktop | Reader::ClaudeDesktopExtension => Client::ClaudeDesktop,
            Reader::Cursor => Client::Cursor,
            Reader::VsCode | Reader::VsCodeWorkspace => Client::VsCode,
            Reader::Windsurf => Client::Windsurf,
            Reader::Codex => Client::Codex,
            Reader::GeminiCli => Client::GeminiCli,
            Reader::Zed => Client::Zed,
            Reader::Cline => Client::Cline,
            Reader::RooCode => Client::RooCode,
            Reader::CopilotCli => Client::CopilotCli,
            Reader::AmazonQ => Client::AmazonQ,
            Reader::Kiro => Client::Kiro,
            Reader::OpenCode => Client::OpenCode,
            Reader::Continue => Client::Continue,
        }
    }

    /// The client's name; a client with a second reader names which one.
    pub fn name(self) -> &'static str {
        match self {
            Reader::VsCodeWorkspace => "VS Code (mcpServers reader)",
            Reader::ClaudeDesktopExtension => "Claude Desktop (extension)",
            other => other.client().name(),
        }
    }

    /// Whether this reader loads the entries of `map`.
    pub fn reads(self, map: ServerMap) -> bool {
        match self {
            Reader::VsCode => map == ServerMap::Servers,
            Reader::VsCodeWorkspace => matches!(map, ServerMap::McpServers | ServerMap::Flat),
            Reader::Zed => map == ServerMap::ContextServers,
            Reader::OpenCode => map == ServerMap::Mcp,
            Reader::ClaudeDesktopExtension => map == ServerMap::Manifest,
            _ => map == ServerMap::McpServers,
        }
    }

    /// Whether every entry gives this reader at most one launch built from each
    /// field (so the only reading may move the entry's strings).
    fn builds_one_launch(self) -> bool {
        matches!(
            self,
            Reader::ClaudeCode | Reader::VsCode | Reader::VsCodeWorkspace | Reader::GeminiCli
        )
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
    let mut body = body;
    // The only reading of an entry may move the strings it uses verbatim out of the
    // entry instead of copying them (a `~/.claude.json` holds tens of thousands of
    // entries); `declared` then keeps what the launch does not carry as written,
    // and the credential scans read both. Readers that build two launches from one
    // field (Windsurf's two URLs share the headers) always copy.
    let take = match file.readers {
        [only] => only.builds_one_launch(),
        _ => false,
    };
    // One buffer for every reader's launches: the usual entry has one.
    let mut found: Vec<Found> = Vec::with_capacity(1);
    let mut refusals: Vec<String> = Vec::new();
    for &reader in file.readers {
        let first = found.len();
        if let Err(reason) = launches(reader, &mut body, take, &file.known, &mut found) {
            refusals.push(format!("{} refuses this entry: {reason}", reader.name()));
        }
        let off = reader.honours_disabled(body.extra());
        for f in found.get_mut(first..).unwrap_or_default() {
            f.reader = reader;
            f.disabled = off;
        }
    }
    // A reading is switched off only if every reader that starts it honours the
    // entry's switch: one reader that ignores the key starts it.
    let all_off = file
        .readers
        .iter()
        .all(|r| r.honours_disabled(body.extra()));
    if take && !found.is_empty() {
        // The launch's kind carries the transport (`type` matters to the audit only
        // for an entry that starts nothing).
        body.transport = None;
    }
    // Most entries' only reading moved every field: they share one empty body.
    let declared = if body == ServerBody::default() {
        empty_body()
    } else {
        Arc::new(body)
    };
    let mut specs: Vec<ServerSpec> = Vec::with_capacity(1);
    for Found {
        reader,
        launch,
        variables,
        disabled,
    } in found
    {
        match specs.iter_mut().find(|s| same_start(&s.launch, &launch)) {
            Some(spec) => {
                spec.origin.readers.insert(reader);
                spec.origin.disabled &= disabled;
                for v in variables {
                    if spec.origin.variables.len() < expand::MAX_RECORDED_REFS
                        && !spec.origin.variables.contains(&v)
                    {
                        spec.origin.variables.push(v);
                    }
                }
            }
            None => specs.push(ServerSpec {
                launch,
                declared: Arc::clone(&declared),
                origin: Origin {
                    readers: Readers::of(&[reader]),
                    key: crate::model::EntryKey::default(),
                    variables,
                    disabled,
                    values: None,
                },
            }),
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
            declared,
            origin: Origin {
                readers: Readers::of(file.readers),
                disabled: all_off && !file.readers.is_empty(),
                ..Origin::default()
            },
        });
    }
    let ambiguous = (specs.len() > 1).then(|| describe(&specs));
    Ok(Readings { specs, ambiguous })
}

/// One launch a reader builds, before readings are merged.
struct Found {
    reader: Reader,
    launch: Launch,
    variables: Vec<String>,
    /// The reader skips the entry (its `enabled: false` / `disabled: true`).
    disabled: bool,
}

/// The empty entry body, allocated once per process.
fn empty_body() -> Arc<ServerBody> {
    static EMPTY: std::sync::OnceLock<Arc<ServerBody>> = std::sync::OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| Arc::new(ServerBody::default())))
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

/// "Claude Code starts sh; VS Code (mcpServers reader) connects to https://…".
fn describe(specs: &[ServerSpec]) -> String {
    let parts: Vec<String> = specs
        .iter()
        .map(|s| {
            let who: Vec<&str> = s.origin.readers.iter().map(Reader::name).collect();
            let what = match &s.launch {
                Launch::Stdio(l) => format!("starts {}", safe_text_capped(&l.command, 48)),
                Launch::Remote(l) => format!("connects to {}", safe_text_capped(&l.url, 48)),
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
        "clients read this entry differently ({}); each reading is audited",
        parts.join("; ")
    )
}

/// The variable references the command (stdio) or the URL (remote) of `spec`
/// depends on, as written: empty when what starts does not change with the
/// environment. (A command the expansion left unchanged may have moved into the
/// launch; fields with references never move, so both are looked at.)
pub fn varying_refs(spec: &ServerSpec) -> Vec<&str> {
    let texts = launch_texts(&spec.launch, &spec.declared);
    spec.origin
        .variables
        .iter()
        .map(String::as_str)
        .filter(|v| texts.iter().any(|w| w.contains(v)))
        .collect()
}

/// The command (stdio) or the URL fields (remote) of an entry, as written.
fn launch_texts<'a>(launch: &'a Launch, declared: &'a ServerBody) -> Vec<&'a str> {
    match launch {
        Launch::Stdio(s) => declared
            .command
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(s.command.as_str()))
            .collect(),
        Launch::Remote(r) => [
            &declared.url,
            &declared.extra().server_url,
            &declared.extra().http_url,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .chain(std::iter::once(r.url.as_str()))
        .collect(),
        Launch::Nothing => Vec::new(),
    }
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}

/// What `reader` starts from `body`: usually one launch; several where the
/// reader's rule is not known (each possible reading); none where it starts
/// nothing. Each launch comes with the variable references it depends on.
fn launches(
    reader: Reader,
    body: &mut ServerBody,
    take: bool,
    known: &expand::Known,
    out: &mut Vec<Found>,
) -> Result<(), String> {
    if reader == Reader::Codex {
        out.push(Found {
            reader,
            launch: codex(body)?,
            variables: Vec::new(),
            disabled: false,
        });
        return Ok(());
    }
    // Cursor and Windsurf: what an unset `${env:…}` becomes is not documented, so
    // an entry that names one is read both ways.
    let variants: &[expand::UnsetEnv] = match reader {
        Reader::Cursor | Reader::Windsurf if mentions_env(body) => {
            &[expand::UnsetEnv::Empty, expand::UnsetEnv::Literal]
        }
        _ => &[expand::UnsetEnv::Empty],
    };
    for &unset in variants {
        build(reader, unset, body, take, known, out);
    }
    Ok(())
}

/// Whether any string of the entry names an `${env:…}` variable.
fn mentions_env(body: &ServerBody) -> bool {
    let has = |s: &str| s.contains("${env:");
    body.command.as_deref().is_some_and(has)
        || body.url.as_deref().is_some_and(has)
        || body.extra().server_url.as_deref().is_some_and(has)
        || body.args.iter().any(|a| has(a))
        || body
            .env
            .iter()
            .chain(&body.headers)
            .any(|(k, v)| has(k) || has(v))
}

/// One reader's launches under one expansion variant (the rules are in [`rules`]).
fn build(
    reader: Reader,
    unset: expand::UnsetEnv,
    body: &mut ServerBody,
    take: bool,
    known: &expand::Known,
    out: &mut Vec<Found>,
) {
    rules::build(&mut Build {
        reader,
        unset,
        body,
        take,
        known,
        out,
    });
}

/// Which field a remote launch's endpoint comes from.
#[derive(Clone, Copy)]
enum UrlField {
    Url,
    ServerUrl,
    HttpUrl,
}

/// Builds one reader's launches from an entry, expanding each string the reader's
/// way; with `take`, a string the expansion leaves unchanged is moved out of the
/// entry instead of copied (see [`read`]).
struct Build<'b> {
    reader: Reader,
    unset: expand::UnsetEnv,
    body: &'b mut ServerBody,
    take: bool,
    known: &'b expand::Known,
    out: &'b mut Vec<Found>,
}

impl Build<'_> {
    fn push(&mut self, launch: Launch, variables: Vec<String>) {
        self.out.push(Found {
            reader: self.reader,
            launch,
            variables,
            disabled: false,
        });
    }

    fn expand<'t>(&self, field: Field, text: &'t str, refs: &mut Vec<String>) -> Cow<'t, str> {
        expand::expand(self.reader, self.unset, field, text, self.known, refs)
    }

    fn words(&mut self, list: ListField, refs: &mut Vec<String>) -> Vec<String> {
        let (reader, unset, known) = (self.reader, self.unset, self.known);
        let field = match list {
            ListField::Args => &mut self.body.args,
        };
        let expanded: Vec<Cow<'_, str>> = field
            .iter()
            .map(|a| expand::expand(reader, unset, Field::Arg, a, known, refs))
            .collect();
        if self.take && expanded.iter().all(|w| matches!(w, Cow::Borrowed(_))) {
            drop(expanded);
            return std::mem::take(field);
        }
        expanded.into_iter().map(Cow::into_owned).collect()
    }

    fn pairs(&mut self, map: MapField, refs: &mut Vec<String>) -> Vec<(String, String)> {
        let (reader, unset, known) = (self.reader, self.unset, self.known);
        let (field, key_field, value_field) = match map {
            MapField::Env => (&mut self.body.env, Field::EnvKey, Field::EnvValue),
            MapField::Headers => (&mut self.body.headers, Field::HeaderKey, Field::HeaderValue),
        };
        let values: Vec<Cow<'_, str>> = field
            .iter()
            .map(|(_, v)| expand::expand(reader, unset, value_field, v, known, refs))
            .collect();
        // Clients that resolve the whole object (or the file's text) resolve its
        // keys as well.
        let keys: Option<Vec<Cow<'_, str>>> = expands_keys(reader).then(|| {
            field
                .iter()
                .map(|(k, _)| expand::expand(reader, unset, key_field, k, known, refs))
                .collect()
        });
        let unchanged = |list: &[Cow<'_, str>]| list.iter().all(|v| matches!(v, Cow::Borrowed(_)));
        if self.take && unchanged(&values) && keys.as_deref().is_none_or(unchanged) {
            drop(values);
            drop(keys);
            return std::mem::take(field);
        }
        let values = values.into_iter().map(Cow::into_owned);
        match keys {
            Some(keys) => keys.into_iter().map(Cow::into_owned).zip(values).collect(),
            None => field.iter().map(|(k, _)| k.clone()).zip(values).collect(),
        }
    }

    fn stdio(&mut self) {
        let mut refs = Vec::new();
        let Some(written) = non_empty(&self.body.command) else {
            return;
        };
        let command = match self.expand(Field::Command, written, &mut refs) {
            Cow::Borrowed(_) if self.take => self.body.command.take().unwrap_or_default(),
            other => other.into_owned(),
        };
        if command.is_empty() {
            // `${env:RUNNER}` with RUNNER unset: nothing to start.
            return;
        }
        let args = self.words(ListField::Args, &mut refs);
        let env = self.pairs(MapField::Env, &mut refs);
        let cwd = self
            .body
            .extra()
            .cwd
            .as_deref()
            .map(|c| self.expand(Field::Cwd, c, &mut refs).into_owned());
        self.push(
            Launch::Stdio(StdioLaunch {
                command,
                args,
                env,
                cwd,
            }),
            refs,
        );
    }

    fn remote(&mut self, field: UrlField, transport: Transport) {
        let mut refs = Vec::new();
        let written = match field {
            UrlField::Url => &self.body.url,
            UrlField::ServerUrl => &self.body.extra().server_url,
            UrlField::HttpUrl => &self.body.extra().http_url,
        };
        let Some(written) = non_empty(written) else {
            return;
        };
        let url = match self.expand(Field::Url, written, &mut refs) {
            Cow::Borrowed(_) if self.take && matches!(field, UrlField::Url) => {
                self.body.url.take().unwrap_or_default()
            }
            other => other.into_owned(),
        };
        if url.is_empty() {
            return;
        }
        let headers = self.pairs(MapField::Headers, &mut refs);
        self.push(
            Launch::Remote(RemoteLaunch {
                transport,
                url,
                headers,
            }),
            refs,
        );
    }
}

/// Whether `reader` resolves variables in object keys too: VS Code's resolver
/// walks keys, Roo Code replaces in the JSON text of the entry, Cline and OpenCode
/// in the file's text.
fn expands_keys(reader: Reader) -> bool {
    matches!(
        reader,
        Reader::VsCode | Reader::RooCode | Reader::Cline | Reader::OpenCode
    )
}

#[derive(Clone, Copy)]
enum ListField {
    Args,
}

#[derive(Clone, Copy)]
enum MapField {
    Env,
    Headers,
}

fn transport_of(t: &str) -> Transport {
    match t {
        "http" | "streamable-http" | "streamablehttp" | "streamable_http" => Transport::Http,
        "sse" | "sse-ide" => Transport::Sse,
        "ws" | "ws-ide" | "websocket" => Transport::WebSocket,
        _ => Transport::Unspecified,
    }
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
        // `env_vars` are forwarded from Codex's own environment: each is a variable
        // reference, never a literal.
        let mut env = body.env.clone();
        for name in &body.extra().env_vars {
            env.push((name.clone(), format!("${{{name}}}")));
        }
        return Ok(Launch::Stdio(StdioLaunch {
            command: command.to_string(),
            args: body.args.clone(),
            env,
            cwd: body.extra().cwd.clone(),
        }));
    }
    let Some(url) = body.url.as_deref() else {
        return Err("invalid transport (neither command nor url)".into());
    };
    let stdio_field = [
        (!body.args.is_empty()).then_some("args"),
        (!body.env.is_empty()).then_some("env"),
        (!body.extra().env_vars.is_empty()).then_some("env_vars"),
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
