//! Strict JSON (RFC 8259) and VS Code JSONC, parsed by one small iterative parser.
//!
//! # Why a hand-written parser
//!
//! Every config and lock byte is attacker-reachable, and the loaders need more from
//! a parse than a value: the position of every server key and value, refusal of duplicate
//! keys, exact control over what is lenient, and a nesting bound that is 128 for
//! configs but 512 for locks. The crates on hand each cover part of that:
//!
//! * `serde_json` has no positions, keeps the last duplicate silently, and its fixed
//!   recursion limit (128) is below the lock bound; lifting it means recursion on
//!   attacker input.
//! * `jsonc-parser` has positions (through its AST, a second, heavier tree), but
//!   keeps the last duplicate, accepts raw control characters in strings, is lax by
//!   default and measured about 2× slower than `serde_json`.
//!
//! This parser does the whole job in one left-to-right pass: it builds a borrowed
//! tree (strings without escapes and number texts point into the input) of only
//! the parts a loader reads ([`Select`]; everything else is validated, not built),
//! records
//! the byte offset of every object key and of every value it builds (a member's
//! value, an array's items: what a finding about one field points at), refuses
//! duplicate keys when an object
//! closes, and never recurses: containers live on an explicit stack whose depth is
//! checked before every value, so a 200,000-deep `[[[[` fails in microseconds on
//! any thread stack. Comments are skipped with one forward search each, so an
//! unterminated `/*` or string ends the parse at once: the whole pass is linear.
//!
//! A caller may also take parts as they end instead of a tree ([`parse_into`] and a
//! [`Sink`]): the `~/.claude.json` reader (`claude.rs`) takes each server entry
//! whole and turns it into its record while the next is parsed, so the largest file
//! is never held as a tree. What is accepted, and every error, is the same either
//! way: only what is kept differs.
//!
//! # The two dialects
//!
//! * Strict: RFC 8259 exactly. No comments, no trailing commas, no `NaN`, no raw
//!   control characters (U+0000..U+001F) in strings, no unpaired surrogate escapes,
//!   only space, tab, LF and CR as whitespace. A comment or a trailing comma is
//!   reported as "the file looks like JSONC".
//! * JSONC (VS Code): strict JSON plus `//` and `/* */` comments and a trailing
//!   comma before `]` or `}`. Nothing else from JSON5. A line comment ends at LF or
//!   CR only, as VS Code's scanner ends it (a vertical tab, form feed, U+2028 or
//!   U+2029 is comment text), so what VS Code loads is what is read.
//!
//! # Differences from clients, all failing closed
//!
//! Duplicate keys are an error (clients keep the last; a reader that keeps the
//! first would audit a decoy). Numbers are kept as their source text and never
//! converted. Depth is counted with the root at 0; an element deeper than
//! `max_depth` is refused.

use std::borrow::Cow;

use super::position::line_col;
use crate::protocol::Construct;

/// Which dialect and which nesting bound.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    /// Allow `//` and `/* */` comments (and, with `trailing_commas`, trailing commas).
    pub jsonc: bool,
    /// With `jsonc`, also allow a comma before `]` or `}` (VS Code, Zed, OpenCode;
    /// not Gemini CLI, whose comment stripper leaves commas to `JSON.parse`).
    pub trailing_commas: bool,
    /// A `//` comment also ends at a lone CR (VS Code's scanner); off, only at LF
    /// (Gemini CLI's `strip-json-comments` and Zed's `serde_json_lenient`, which
    /// read the rest of the line after a lone CR as comment text).
    pub cr_ends_line_comment: bool,
    /// Deepest element accepted (root at depth 0).
    pub max_depth: usize,
    /// Which parts of the document to build (everything else is only validated).
    pub select: Select,
    /// Keep every copy of a repeated key in the objects that are built (configs:
    /// the loaders audit every copy of a server-bearing key) instead of refusing it.
    /// Skipped objects refuse duplicates unless `refuse_skipped_duplicates` is off.
    pub keep_duplicates: bool,
    /// Refuse a duplicate key in a skipped object too. Off for the client settings
    /// files, whose unread parts (an editor's other settings) no loader reads and
    /// whose clients keep the last copy.
    pub refuse_skipped_duplicates: bool,
}

/// Which values the parser builds. A skipped value is validated exactly like a kept
/// one (syntax, strings, duplicate keys, depth) but not stored: its place in a kept
/// object holds an empty value of the same type. `~/.claude.json` is mostly session
/// history; building only the server maps makes its parse about twice as fast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Select {
    /// Build everything (locks, and everything below a server map).
    All,
    /// A config's top level: keep `mcpServers` and `servers` (and `projects` when
    /// `claude`); skip the rest.
    Config { claude: bool },
    /// `~/.claude.json` `projects`: every member is a project.
    Projects,
    /// One project: keep its `mcpServers` and `servers`.
    Project,
    /// A client settings file's top level: keep the members on the way to one of
    /// `paths` (dot-separated setting names, each kept whole once reached). With
    /// `dotted`, a top-level key may name several steps at once
    /// (`"chat.mcp.discovery.enabled"`), as VS Code's configuration model splits
    /// top-level keys; nested keys are never split.
    Settings {
        paths: &'static [&'static str],
        dotted: bool,
    },
    /// Inside a settings path, `consumed` being the part of a path matched so far.
    Under {
        paths: &'static [&'static str],
        consumed: &'static str,
    },
    /// Validate only.
    ///
    /// (The parser's loops test a mode with `matches!`: the derived `==` is an
    /// out-of-line call that compares the variants' paths too, and it was a
    /// measurable part of the loop.)
    Skip,
    /// `~/.claude.json`, read by [`parse_into`] without a tree: its top level. The
    /// members of an object in this mode and the three below are handed to the
    /// caller's [`Sink`] as each one ends, instead of being kept; the object itself
    /// is left empty. Its `mcpServers` and `servers` are [`Select::Entries`], its
    /// `projects` [`Select::ClaudeProjects`], the rest skipped (as
    /// [`Select::Config`] reads it).
    ClaudeTop,
    /// `~/.claude.json` `projects`: every member is a [`Select::ClaudeProject`].
    ClaudeProjects,
    /// One project: its server maps are [`Select::Entries`], its approval settings
    /// built whole, the rest skipped (as [`Select::Project`] reads it).
    ClaudeProject,
    /// A server map: every member (one entry) is built whole and handed over alone,
    /// so no more than one entry's tree exists at a time. `project` says whether the
    /// map is a project's, `map` which key holds it.
    Entries { project: bool, map: MapKey },
}

/// Which key holds a server map ([`Select::Entries`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MapKey {
    McpServers,
    Servers,
}

impl MapKey {
    pub(crate) fn of(key: &str) -> Option<MapKey> {
        match key {
            "mcpServers" => Some(MapKey::McpServers),
            "servers" => Some(MapKey::Servers),
            _ => None,
        }
    }
}

/// The settings of a `~/.claude.json` project that decide which servers start
/// without asking (built beside its server maps).
pub(crate) const CLAUDE_PROJECT_SETTINGS: &[&str] = &[
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "enableAllProjectMcpServers",
    "disabledMcpServers",
];

impl Select {
    /// The mode of an object member's value.
    fn member(self, key: &str) -> Select {
        match self {
            Select::All => Select::All,
            Select::Skip => Select::Skip,
            Select::Config { .. } | Select::Project if key == "mcpServers" || key == "servers" => {
                Select::All
            }
            Select::Project if CLAUDE_PROJECT_SETTINGS.contains(&key) => Select::All,
            Select::Config { claude: true } if key == "projects" => Select::Projects,
            Select::Projects => Select::Project,
            Select::Config { .. } | Select::Project => Select::Skip,
            Select::Settings { paths, dotted } => Select::step(paths, "", key, dotted),
            Select::Under { paths, consumed } => Select::step(paths, consumed, key, false),
            Select::ClaudeTop => match MapKey::of(key) {
                Some(map) => Select::Entries {
                    project: false,
                    map,
                },
                None if key == "projects" => Select::ClaudeProjects,
                None => Select::Skip,
            },
            Select::ClaudeProjects => Select::ClaudeProject,
            Select::ClaudeProject => match MapKey::of(key) {
                Some(map) => Select::Entries { project: true, map },
                None if CLAUDE_PROJECT_SETTINGS.contains(&key) => Select::All,
                None => Select::Skip,
            },
            Select::Entries { .. } => Select::All,
        }
    }

    /// Whether an object in this mode hands its members to the [`Sink`].
    fn emits(self) -> bool {
        matches!(
            self,
            Select::ClaudeTop
                | Select::ClaudeProjects
                | Select::ClaudeProject
                | Select::Entries { .. }
        )
    }

    /// The mode of the member `key` of an object reached along `consumed`: the
    /// whole value when `consumed.key` is one of `paths`, the way on when it is a
    /// prefix of one, else skipped.
    fn step(
        paths: &'static [&'static str],
        consumed: &'static str,
        key: &str,
        split: bool,
    ) -> Select {
        if !split && key.contains('.') {
            return Select::Skip;
        }
        for &path in paths {
            let rest = if consumed.is_empty() {
                Some(path)
            } else {
                path.strip_prefix(consumed)
                    .and_then(|r| r.strip_prefix('.'))
            };
            let Some(rest) = rest else { continue };
            if rest == key {
                return Select::All;
            }
            if let Some(after) = rest.strip_prefix(key).filter(|a| a.starts_with('.')) {
                if let Some(prefix) = path.get(..path.len() - after.len()) {
                    return Select::Under {
                        paths,
                        consumed: prefix,
                    };
                }
            }
        }
        Select::Skip
    }

    /// The mode of an array item: arrays only matter inside a server map.
    ///
    /// A server map's key holding an array is built as [`Select::Config`] builds
    /// it (whole, so that an object in it keeps its repeated keys instead of
    /// refusing them as a skipped object would): the two readers of
    /// `~/.claude.json` accept and refuse the same files.
    fn item(self) -> Select {
        if matches!(self, Select::All | Select::Entries { .. }) {
            Select::All
        } else {
            Select::Skip
        }
    }
}

/// A parsed JSON value. Strings borrow from the input unless they held escapes;
/// numbers are the exact source text of a valid RFC 8259 number.
#[derive(Debug, Clone)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    Number(&'a str),
    String(Cow<'a, str>),
    /// The items, and the byte offset where each starts (`None` for an empty
    /// array): every item of a list may be a value a finding points at, however
    /// long the list. Boxed so that a value stays 32 bytes; `u32` (4 bytes an item
    /// beside its 32-byte value): the child cannot map a 4 GiB file.
    #[allow(clippy::box_collection)]
    Array(Vec<Value<'a>>, Option<Box<Vec<u32>>>),
    Object(Vec<Member<'a>>),
}

/// One object member: the decoded key, the byte offset of its opening quote, the
/// value and the byte offset where the value starts.
#[derive(Debug, Clone)]
pub(crate) struct Member<'a> {
    pub key: Cow<'a, str>,
    pub offset: usize,
    pub value: Value<'a>,
    pub value_offset: usize,
}

impl<'a> Value<'a> {
    /// The type's name with an article, for messages ("a number", "null").
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(..) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// The member named `key`; of repeated keys the last one, as every client reads it.
    pub(crate) fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Object(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| &m.value),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Every member of `doc` that `path` (a dot-separated setting name) reaches, in
/// file order: the walk [`Select::Settings`] builds. With `dotted`, a top-level key
/// may name several steps at once; nested keys are never split. Recursion is
/// bounded by the number of steps in `path` (a constant of the loader), never by
/// the input's nesting.
pub(crate) fn members_along<'v, 'a>(
    doc: &'v Value<'a>,
    path: &str,
    dotted: bool,
) -> Vec<&'v Member<'a>> {
    fn walk<'v, 'a>(v: &'v Value<'a>, rest: &str, split: bool, out: &mut Vec<&'v Member<'a>>) {
        let Value::Object(members) = v else { return };
        for m in members {
            let key = m.key.as_ref();
            if !split && key.contains('.') {
                continue;
            }
            if key == rest {
                out.push(m);
            } else if let Some(after) = rest.strip_prefix(key).and_then(|r| r.strip_prefix('.')) {
                walk(&m.value, after, false, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(doc, path, dotted, &mut out);
    out
}

/// Structural equality as a JavaScript client sees it: object member order does not
/// matter, numbers compare by their IEEE double value (`1` equals `1.0`).
pub(crate) fn same_value(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.parse::<f64>(), y.parse::<f64>()), (Ok(p), Ok(q)) if p == q)
        }
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x, _), Value::Array(y, _)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            if x.len() <= 16 {
                return x.iter().all(|m| {
                    y.iter()
                        .find(|n| n.key == m.key)
                        .is_some_and(|n| same_value(&m.value, &n.value))
                });
            }
            let mut sorted: Vec<&Member<'_>> = y.iter().collect();
            sorted.sort_unstable_by(|p, q| p.key.cmp(&q.key));
            x.iter().all(|m| {
                sorted
                    .binary_search_by(|n| n.key.as_ref().cmp(m.key.as_ref()))
                    .ok()
                    .and_then(|i| sorted.get(i))
                    .is_some_and(|n| same_value(&m.value, &n.value))
            })
        }
        _ => false,
    }
}

/// Why the text is not accepted, and where (byte offset into the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub offset: usize,
    pub reason: String,
    /// The construct refused, when some JSON reader would accept it (the nesting
    /// bound, a comment in strict JSON, ...).
    pub construct: Option<Construct>,
}

/// Parse `text` from byte `start` (past a BOM the caller chose to skip).
pub(crate) fn parse(text: &str, start: usize, opts: Options) -> Result<Value<'_>, SyntaxError> {
    parse_into(text, start, opts, &mut NoSink)
}

/// What receives the members of the objects whose mode [emits](Select::emits):
/// each member once it ends, in file order, with its key (and where the key
/// starts), its value (built as its mode builds it: whole for an entry or a
/// setting, an empty container for a map or project whose own members were handed
/// over before, and the scalar itself otherwise), where the value starts, and
/// where it ends (the byte after it).
pub(crate) trait Sink<'a> {
    fn member(&mut self, member: Emitted<'a>);
}

/// One member handed to a [`Sink`]; `mode` is the mode of the object it belongs to.
pub(crate) struct Emitted<'a> {
    pub mode: Select,
    pub key: Cow<'a, str>,
    pub offset: usize,
    /// The line breaks before the key ([`LineMark`]).
    pub line: LineMark,
    pub value: Value<'a>,
    pub value_offset: usize,
    pub value_end: usize,
}

/// How many line breaks come before an offset, and where the line holding it
/// starts (the byte after the last of them, or where the parse started).
///
/// Breaks are counted as `position` counts them (`\n`, `\r\n` and a lone `\r`),
/// and in JSON and JSONC they only occur in trivia: a string refuses a raw control
/// character, and numbers and literals hold none. So the parser counts them where
/// it steps over them anyway (whitespace is taken a line break at a time, and
/// comments are rare), and a reader that resolves positions in
/// file order ([`Lines::at_marked`](super::position::Lines::at_marked)) need not
/// scan the text between two keys again: in `~/.claude.json` that text is the
/// session history, most of the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LineMark {
    pub breaks: u32,
    pub line_start: usize,
}

impl LineMark {
    /// A line break ends right before `next`.
    fn broken_at(&mut self, next: usize) {
        self.breaks = self.breaks.saturating_add(1);
        self.line_start = next;
    }
}

/// The sink of a parse whose modes never emit.
struct NoSink;

impl<'a> Sink<'a> for NoSink {
    fn member(&mut self, _: Emitted<'a>) {}
}

/// [`parse`], with the members of every object in an emitting mode (set by
/// `opts.select`) handed to `sink` instead of being built into the result. Exactly
/// the same text is accepted, with exactly the same errors: only what is kept
/// differs.
pub(crate) fn parse_into<'a, S: Sink<'a>>(
    text: &'a str,
    start: usize,
    opts: Options,
    sink: &mut S,
) -> Result<Value<'a>, SyntaxError> {
    Parser {
        text,
        bytes: text.as_bytes(),
        pos: start,
        line: LineMark {
            breaks: 0,
            line_start: start,
        },
        opts,
        skipped_keys: Vec::new(),
        scratch: String::new(),
        skip_frames: Vec::new(),
    }
    .run(sink)
}

const LOOKS_LIKE_JSONC: &str = "(the file looks like JSONC)";

enum Frame<'a> {
    Array {
        items: Vec<Value<'a>>,
        offsets: Vec<u32>,
        open: usize,
        mode: Select,
    },
    Object {
        members: Vec<Member<'a>>,
        /// The key of the member whose value is being parsed.
        key: Cow<'a, str>,
        key_offset: usize,
        key_line: LineMark,
        open: usize,
        mode: Select,
        /// Where this object's keys start in `skipped_keys` (skipped objects only).
        keys_start: usize,
    },
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// The line breaks before `pos`, counted in the trivia skipped so far.
    line: LineMark,
    opts: Options,
    /// Keys of the skipped objects still open, kept only to refuse duplicates.
    skipped_keys: Vec<(Cow<'a, str>, usize)>,
    /// Scratch buffer for validating escapes in skipped strings.
    scratch: String,
    /// The open containers of the skipped value being validated (reused).
    skip_frames: Vec<SkipFrame>,
}

/// A container open inside a skipped value: where it opened, and for an object
/// where its keys start in `skipped_keys`.
#[derive(Clone, Copy)]
struct SkipFrame {
    open: usize,
    object: bool,
    keys_start: usize,
}

impl<'a> Parser<'a> {
    fn run<S: Sink<'a>>(mut self, sink: &mut S) -> Result<Value<'a>, SyntaxError> {
        let mut stack: Vec<Frame<'a>> = Vec::new();
        'value: loop {
            self.skip_trivia()?;
            if stack.len() > self.opts.max_depth {
                return Err(SyntaxError {
                    offset: self.pos,
                    reason: format!("nesting deeper than {} levels", self.opts.max_depth),
                    construct: Some(Construct::DeepNesting),
                });
            }
            let mode = match stack.last() {
                None => self.opts.select,
                Some(Frame::Array { mode, .. }) => mode.item(),
                Some(Frame::Object { mode, key, .. }) => mode.member(key),
            };
            let start = self.pos;
            let mut value = match self.peek() {
                None => return Err(self.eof_error(&stack)),
                Some(b'{') if matches!(mode, Select::Skip) => {
                    self.skip_container(stack.len())?;
                    Value::Object(Vec::new())
                }
                Some(b'[') if matches!(mode, Select::Skip) => {
                    self.skip_container(stack.len())?;
                    Value::Array(Vec::new(), None)
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Value::Object(Vec::new())
                    } else {
                        let mut frame = Frame::Object {
                            members: Vec::new(),
                            key: Cow::Borrowed(""),
                            key_offset: 0,
                            key_line: LineMark::default(),
                            open: start,
                            mode,
                            keys_start: self.skipped_keys.len(),
                        };
                        self.next_key(&mut frame)?;
                        stack.push(frame);
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        Value::Array(Vec::new(), None)
                    } else {
                        stack.push(Frame::Array {
                            items: Vec::new(),
                            offsets: Vec::new(),
                            open: start,
                            mode,
                        });
                        continue 'value;
                    }
                }
                Some(b'"') if matches!(mode, Select::Skip) => {
                    self.skip_string()?;
                    Value::String(Cow::Borrowed(""))
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
                Some(_) => return Err(self.unexpected_value()),
            };
            // Where the finished value starts (a container: its opening bracket).
            let mut value_start = start;
            // Attach the finished value to its container; close containers as long
            // as their closing bracket follows. The container stays in place on the
            // stack while it is open (a frame is a hundred bytes, and moving it out
            // and back for every member was a measurable part of building a tree).
            loop {
                let Some(frame) = stack.last_mut() else {
                    self.skip_trivia()?;
                    if self.pos < self.bytes.len() {
                        return Err(self.error(
                            self.pos,
                            format!(
                                "unexpected {} after the top-level value",
                                self.describe_here()
                            ),
                        ));
                    }
                    return Ok(value);
                };
                match frame {
                    Frame::Array {
                        items,
                        offsets,
                        open,
                        mode,
                    } => {
                        if matches!(mode, Select::All) {
                            items.push(value);
                            offsets.push(u32::try_from(value_start).unwrap_or(u32::MAX));
                        }
                        let open = *open;
                        if self.after_item(b']', "array", open)? {
                            continue 'value;
                        }
                        let offsets = std::mem::take(offsets);
                        value = Value::Array(
                            std::mem::take(items),
                            (!offsets.is_empty()).then(|| Box::new(offsets)),
                        );
                        value_start = open;
                    }
                    Frame::Object {
                        members,
                        key,
                        key_offset,
                        key_line,
                        open,
                        mode,
                        keys_start,
                    } => {
                        if mode.emits() {
                            sink.member(Emitted {
                                mode: *mode,
                                key: std::mem::take(key),
                                offset: *key_offset,
                                line: *key_line,
                                value,
                                value_offset: value_start,
                                value_end: self.pos,
                            });
                        } else if !matches!(mode, Select::Skip) {
                            members.push(Member {
                                key: std::mem::take(key),
                                offset: *key_offset,
                                value,
                                value_offset: value_start,
                            });
                        }
                        let (open, keys_start, skip) =
                            (*open, *keys_start, matches!(mode, Select::Skip));
                        if self.after_item(b'}', "object", open)? {
                            self.next_key(frame)?;
                            continue 'value;
                        }
                        if skip {
                            let keys = self.skipped_keys.get(keys_start..).unwrap_or_default();
                            self.check_duplicates(keys.len(), |i| {
                                keys.get(i).map(|(k, o)| (k.as_ref(), *o))
                            })?;
                            self.skipped_keys.truncate(keys_start);
                            value = Value::Object(Vec::new());
                        } else {
                            let members = std::mem::take(members);
                            if !self.opts.keep_duplicates {
                                self.check_duplicates(members.len(), |i| {
                                    members.get(i).map(|m| (m.key.as_ref(), m.offset))
                                })?;
                            }
                            value = Value::Object(members);
                        }
                        value_start = open;
                    }
                }
                // Closed: its contents are in `value` (dropped in place, not moved out).
                stack.truncate(stack.len().saturating_sub(1));
            }
        }
    }

    /// Validate the container opening at `self.pos` (trivia before it skipped, its
    /// depth `depth` checked) without building it: exactly the checks, in the same
    /// order and with the same errors, as the general loop makes on a skipped
    /// value, on a stack of small frames (where each container opened and where
    /// its keys start) instead of the builder's.
    fn skip_container(&mut self, depth: usize) -> Result<(), SyntaxError> {
        let mut frames = std::mem::take(&mut self.skip_frames);
        frames.clear();
        let result = self.skip_container_on(depth, &mut frames);
        self.skip_frames = frames;
        result
    }

    fn skip_container_on(
        &mut self,
        depth: usize,
        frames: &mut Vec<SkipFrame>,
    ) -> Result<(), SyntaxError> {
        'value: loop {
            let start = self.pos;
            match self.peek() {
                None => return Err(self.skipped_unclosed(frames)),
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        let keys_start = self.skipped_keys.len();
                        self.skipped_key(start)?;
                        frames.push(SkipFrame {
                            open: start,
                            object: true,
                            keys_start,
                        });
                        self.skipped_value_start(depth + frames.len())?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        frames.push(SkipFrame {
                            open: start,
                            object: false,
                            keys_start: 0,
                        });
                        self.skipped_value_start(depth + frames.len())?;
                        continue 'value;
                    }
                }
                Some(b'"') => self.skip_string()?,
                Some(b't') => {
                    self.literal("true", Value::Null)?;
                }
                Some(b'f') => {
                    self.literal("false", Value::Null)?;
                }
                Some(b'n') => {
                    self.literal("null", Value::Null)?;
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                Some(_) => return Err(self.unexpected_value()),
            }
            // A value is complete: close the containers whose closing bracket follows.
            while let Some(&SkipFrame {
                open,
                object,
                keys_start,
            }) = frames.last()
            {
                if object {
                    if self.after_item(b'}', "object", open)? {
                        self.skipped_key(open)?;
                        self.skipped_value_start(depth + frames.len())?;
                        continue 'value;
                    }
                    let keys = self.skipped_keys.get(keys_start..).unwrap_or_default();
                    self.check_duplicates(keys.len(), |i| {
                        keys.get(i).map(|(k, o)| (k.as_ref(), *o))
                    })?;
                    self.skipped_keys.truncate(keys_start);
                } else if self.after_item(b']', "array", open)? {
                    self.skipped_value_start(depth + frames.len())?;
                    continue 'value;
                }
                frames.pop();
            }
            return Ok(());
        }
    }

    /// Before a value inside a skipped container: trivia, then the depth bound.
    fn skipped_value_start(&mut self, depth: usize) -> Result<(), SyntaxError> {
        self.skip_trivia()?;
        if depth > self.opts.max_depth {
            return Err(SyntaxError {
                offset: self.pos,
                reason: format!("nesting deeper than {} levels", self.opts.max_depth),
                construct: Some(Construct::DeepNesting),
            });
        }
        Ok(())
    }

    /// The next key of a skipped object opened at `open`, kept only to refuse duplicates.
    fn skipped_key(&mut self, open: usize) -> Result<(), SyntaxError> {
        let (k, off) = self.key().map_err(|e| {
            if self.peek().is_none() {
                self.unclosed("object", open, e)
            } else {
                e
            }
        })?;
        if self.opts.refuse_skipped_duplicates {
            self.skipped_keys.push((k, off));
        }
        Ok(())
    }

    /// The end of input inside skipped containers: the innermost one is not closed.
    fn skipped_unclosed(&self, frames: &[SkipFrame]) -> SyntaxError {
        let (what, open) = match frames.last() {
            Some(f) if f.object => ("object", f.open),
            Some(f) => ("array", f.open),
            None => ("value", self.pos),
        };
        self.unclosed(what, open, self.error(self.pos, String::new()))
    }

    /// Parse the next key of an object frame into it (or into the skipped-key list).
    fn next_key(&mut self, frame: &mut Frame<'a>) -> Result<(), SyntaxError> {
        let Frame::Object {
            key,
            key_offset,
            key_line,
            open,
            mode,
            ..
        } = frame
        else {
            return Ok(());
        };
        // Trivia before the key is skipped: the breaks counted are those before it.
        let line = self.line;
        let (k, off) = self.key().map_err(|e| {
            if self.peek().is_none() {
                self.unclosed("object", *open, e)
            } else {
                e
            }
        })?;
        if matches!(mode, Select::Skip) {
            if self.opts.refuse_skipped_duplicates {
                self.skipped_keys.push((k, off));
            }
        } else {
            *key = k;
            *key_offset = off;
            *key_line = line;
        }
        Ok(())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn slice(&self, from: usize, to: usize) -> Result<&'a str, SyntaxError> {
        self.text
            .get(from..to)
            .ok_or_else(|| self.error(from, "internal error: split inside a character".into()))
    }

    fn error(&self, offset: usize, reason: String) -> SyntaxError {
        SyntaxError {
            offset,
            reason,
            construct: None,
        }
    }

    /// An error for a construct some JSON reader accepts.
    fn refused(&self, offset: usize, reason: String, construct: Construct) -> SyntaxError {
        SyntaxError {
            offset,
            reason,
            construct: Some(construct),
        }
    }

    fn at(&self, offset: usize) -> String {
        let (line, col) = line_col(self.text, offset);
        format!("line {line} column {col}")
    }

    /// After an array item or object member: `true` when another one follows.
    fn after_item(&mut self, close: u8, what: &str, open: usize) -> Result<bool, SyntaxError> {
        self.skip_trivia()?;
        match self.peek() {
            Some(b',') => {
                let comma = self.pos;
                self.pos += 1;
                self.skip_trivia()?;
                if self.peek() == Some(close) {
                    if !(self.opts.jsonc && self.opts.trailing_commas) {
                        return Err(self.refused(
                            comma,
                            format!("trailing commas are not allowed in JSON {LOOKS_LIKE_JSONC}"),
                            Construct::TrailingComma,
                        ));
                    }
                    self.pos += 1;
                    return Ok(false);
                }
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            None => Err(self.unclosed(
                what,
                open,
                self.error(self.pos, "unexpected end of input".into()),
            )),
            Some(_) => Err(self.error(
                self.pos,
                format!(
                    "expected ',' or '{}' in an {what}, found {}",
                    char::from(close),
                    self.describe_here()
                ),
            )),
        }
    }

    fn unclosed(&self, what: &str, open: usize, e: SyntaxError) -> SyntaxError {
        self.error(
            e.offset,
            format!(
                "unexpected end of input: the {what} opened at {} is not closed",
                self.at(open)
            ),
        )
    }

    fn eof_error(&self, stack: &[Frame<'a>]) -> SyntaxError {
        match stack.last() {
            Some(Frame::Array { open, .. }) => {
                self.unclosed("array", *open, self.error(self.pos, String::new()))
            }
            Some(Frame::Object { open, .. }) => {
                self.unclosed("object", *open, self.error(self.pos, String::new()))
            }
            None => self.error(
                self.pos,
                "the file is empty (expected a JSON object)".into(),
            ),
        }
    }

    /// An object key and the `:` after it.
    fn key(&mut self) -> Result<(Cow<'a, str>, usize), SyntaxError> {
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.error(self.pos, "unexpected end of input".into())),
            Some(b'\'') => {
                return Err(self.error(
                    self.pos,
                    "object keys must be double-quoted (single quotes are not JSON)".into(),
                ))
            }
            Some(_) => {
                return Err(self.error(
                    self.pos,
                    format!(
                        "expected a double-quoted object key, found {}",
                        self.describe_here()
                    ),
                ))
            }
        }
        let offset = self.pos;
        let key = self.string()?;
        self.skip_trivia()?;
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok((key, offset))
            }
            None => Err(self.error(self.pos, "unexpected end of input".into())),
            Some(_) => Err(self.error(
                self.pos,
                format!(
                    "expected ':' after an object key, found {}",
                    self.describe_here()
                ),
            )),
        }
    }

    /// Skip whitespace and (in JSONC) comments. Called before and after every
    /// token: the usual case (no whitespace, or one space, before a token that is
    /// no comment) is decided inline, and only the rest takes the loop.
    #[inline(always)]
    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        let mut at = self.pos;
        match self.bytes.get(at) {
            Some(b' ') => at += 1,
            // A pretty-printed line break and its indentation, up to fifteen spaces
            // measured a word at a time ([`whitespace_end`] says how); more take the
            // loop.
            Some(b'\n') => {
                at += 1;
                self.line.broken_at(at);
                for _ in 0..2 {
                    let Some(word) = self.bytes.get(at..at + 8) else {
                        break;
                    };
                    let other = word.try_into().map_or(0, u64::from_le_bytes) ^ EIGHT_SPACES;
                    at += (other.trailing_zeros() / 8) as usize;
                    if other != 0 {
                        break;
                    }
                }
            }
            _ => {}
        }
        match self.bytes.get(at) {
            Some(&c) if c > b' ' && c != b'/' => {
                self.pos = at;
                Ok(())
            }
            None => {
                self.pos = at;
                Ok(())
            }
            Some(_) => {
                self.pos = at;
                self.skip_trivia_loop()
            }
        }
    }

    #[inline(never)]
    fn skip_trivia_loop(&mut self) -> Result<(), SyntaxError> {
        loop {
            self.pos = whitespace_end(self.bytes, self.pos, &mut self.line);
            let comment = self.pos;
            match self.peek() {
                Some(b'/') => match self.bytes.get(self.pos + 1) {
                    Some(b'/' | b'*') if !self.opts.jsonc => {
                        return Err(self.refused(
                            self.pos,
                            format!("comments are not allowed in JSON {LOOKS_LIKE_JSONC}"),
                            Construct::Comment,
                        ))
                    }
                    Some(b'/') => self.line_comment()?,
                    Some(b'*') => self.block_comment()?,
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
            self.comment_breaks(comment);
        }
    }

    /// Count the line breaks of the comment from `from` to `pos`: a block comment
    /// may span lines, and a `//` comment that a lone CR does not end holds that
    /// CR. They are counted as `position` counts them: a `\r` right before a `\n`
    /// is not a break of its own (the `\n` after the comment is whitespace, and
    /// [`whitespace_end`] counts it).
    fn comment_breaks(&mut self, from: usize) {
        let span = self.bytes.get(from..self.pos).unwrap_or_default();
        for p in memchr::memchr2_iter(b'\n', b'\r', span) {
            let at = from + p;
            if super::position::ends_line(self.bytes, at) {
                self.line.broken_at(at + 1);
            }
        }
    }

    /// A `//` comment ends at LF or CR, exactly where VS Code's scanner ends it
    /// (`isLineBreak`): a vertical tab, form feed, U+2028 or U+2029 is comment text
    /// for VS Code, so it is for doctor too.
    fn line_comment(&mut self) -> Result<(), SyntaxError> {
        let rest = self.bytes.get(self.pos + 2..).unwrap_or_default();
        let cr = self.opts.cr_ends_line_comment;
        let len = rest
            .iter()
            .position(|&b| b == b'\n' || (cr && b == b'\r'))
            .unwrap_or(rest.len());
        self.pos += 2 + len;
        Ok(())
    }

    fn block_comment(&mut self) -> Result<(), SyntaxError> {
        let body = self.pos + 2;
        // `memmem` tests both bytes of `*/` at once, a vector at a time; `str::find`
        // (Two-Way) stepped through a hostile comment of `/* /* …` at a third of
        // the speed, and its speed moved with how the compiler inlined it.
        match self
            .bytes
            .get(body..)
            .and_then(|rest| memchr::memmem::find(rest, b"*/"))
        {
            Some(end) => {
                self.pos = body + end + 2;
                Ok(())
            }
            None => Err(self.error(self.pos, "unterminated block comment".into())),
        }
    }

    fn literal(&mut self, word: &str, value: Value<'a>) -> Result<Value<'a>, SyntaxError> {
        if self
            .bytes
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word.as_bytes()))
        {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected_value())
        }
    }

    fn number(&mut self) -> Result<&'a str, SyntaxError> {
        let start = self.pos;
        let b = self.bytes;
        let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => {
                i += 1;
                if digit(i) {
                    return Err(self.error(start, "numbers must not have leading zeros".into()));
                }
            }
            Some(b'1'..=b'9') => {
                while digit(i) {
                    i += 1;
                }
            }
            Some(b'I') => {
                return Err(self.error(start, "Infinity is not valid JSON".into()));
            }
            _ => return Err(self.error(start, "invalid number".into())),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if !digit(i) {
                return Err(self.error(start, "invalid number (no digit after '.')".into()));
            }
            while digit(i) {
                i += 1;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digit(i) {
                return Err(self.error(start, "invalid number (no digit in the exponent)".into()));
            }
            while digit(i) {
                i += 1;
            }
        }
        self.pos = i;
        self.slice(start, i)
    }

    /// A string literal at `self.pos` (which holds `"`), decoded.
    fn string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        let open = self.pos;
        let b = self.bytes;
        let start = open + 1;
        // Fast path: no escapes, borrow from the input.
        let mut i = special_byte(b, start);
        match b.get(i) {
            None => return Err(self.unterminated(open)),
            Some(b'"') => {
                self.pos = i + 1;
                return Ok(Cow::Borrowed(self.slice(start, i)?));
            }
            Some(b'\\') => {}
            Some(&c) => return Err(self.control_char(i, c)),
        }
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(self.slice(start, i)?);
        loop {
            match b.get(i) {
                None => return Err(self.unterminated(open)),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => i = self.escape(i, &mut out)?,
                Some(&c) if c < 0x20 => return Err(self.control_char(i, c)),
                Some(_) => {
                    let run = i;
                    i = special_byte(b, i);
                    out.push_str(self.slice(run, i)?);
                }
            }
        }
    }

    /// Validate a string literal at `self.pos` without building it.
    fn skip_string(&mut self) -> Result<(), SyntaxError> {
        let open = self.pos;
        let b = self.bytes;
        let mut i = open + 1;
        loop {
            i = special_byte(b, i);
            match b.get(i) {
                None => return Err(self.unterminated(open)),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    let mut scratch = std::mem::take(&mut self.scratch);
                    scratch.clear();
                    let next = self.escape(i, &mut scratch);
                    self.scratch = scratch;
                    i = next?;
                }
                Some(&c) => return Err(self.control_char(i, c)),
            }
        }
    }

    fn unterminated(&self, open: usize) -> SyntaxError {
        self.error(open, "unterminated string".into())
    }

    fn control_char(&self, at: usize, c: u8) -> SyntaxError {
        self.error(
            at,
            format!("raw control character U+{c:04X} in a string (JSON requires it escaped)"),
        )
    }

    /// One escape sequence at `i` (which holds `\`); returns the index after it.
    fn escape(&self, i: usize, out: &mut String) -> Result<usize, SyntaxError> {
        let simple = match self.bytes.get(i + 1) {
            Some(b'"') => Some('"'),
            Some(b'\\') => Some('\\'),
            Some(b'/') => Some('/'),
            Some(b'b') => Some('\u{8}'),
            Some(b'f') => Some('\u{c}'),
            Some(b'n') => Some('\n'),
            Some(b'r') => Some('\r'),
            Some(b't') => Some('\t'),
            Some(b'u') => None,
            None => return Err(self.error(i, "unterminated string".into())),
            Some(_) => {
                return Err(self.error(
                    i,
                    format!("invalid escape sequence \\{}", self.describe_at(i + 1)),
                ))
            }
        };
        if let Some(c) = simple {
            out.push(c);
            return Ok(i + 2);
        }
        let unit = self
            .hex4(i + 2)
            .ok_or_else(|| self.error(i, "invalid \\u escape (expected four hex digits)".into()))?;
        let (scalar, next) = match unit {
            0xD800..=0xDBFF => {
                let low = if self.bytes.get(i + 6) == Some(&b'\\')
                    && self.bytes.get(i + 7) == Some(&b'u')
                {
                    self.hex4(i + 8)
                } else {
                    None
                };
                match low {
                    Some(lo @ 0xDC00..=0xDFFF) => {
                        (0x10000 + ((unit - 0xD800) << 10) + (lo - 0xDC00), i + 12)
                    }
                    _ => {
                        return Err(self.refused(
                            i,
                            format!("unpaired surrogate \\u{unit:04x} in a string"),
                            Construct::LoneSurrogate,
                        ))
                    }
                }
            }
            0xDC00..=0xDFFF => {
                return Err(self.refused(
                    i,
                    format!("unpaired surrogate \\u{unit:04x} in a string"),
                    Construct::LoneSurrogate,
                ))
            }
            _ => (unit, i + 6),
        };
        match char::from_u32(scalar) {
            Some(c) => {
                out.push(c);
                Ok(next)
            }
            None => Err(self.error(i, "invalid \\u escape".into())),
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.bytes.get(at..at + 4)?;
        let mut v = 0u32;
        for &d in digits {
            v = v * 16 + char::from(d).to_digit(16)?;
        }
        Some(v)
    }

    /// Refuse the earliest second occurrence of a key among `n` keys.
    fn check_duplicates<'k>(
        &self,
        n: usize,
        get: impl Fn(usize) -> Option<(&'k str, usize)>,
    ) -> Result<(), SyntaxError> {
        if n < 2 {
            return Ok(());
        }
        let key = |i: usize| get(i).map_or("", |(k, _)| k);
        let mut second: Option<usize> = None;
        if n <= 12 {
            'outer: for j in 1..n {
                for i in 0..j {
                    if key(i) == key(j) {
                        second = Some(j);
                        break 'outer;
                    }
                }
            }
        } else {
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_unstable_by(|&x, &y| key(x).cmp(key(y)).then(x.cmp(&y)));
            for w in idx.windows(2) {
                if let [x, y] = *w {
                    if key(x) == key(y) && second.is_none_or(|s| y < s) {
                        second = Some(y);
                    }
                }
            }
        }
        let Some(j) = second else { return Ok(()) };
        let name = key(j);
        let first = (0..n)
            .find(|&i| key(i) == name)
            .and_then(&get)
            .map_or(0, |(_, o)| o);
        let offset = get(j).map_or(0, |(_, o)| o);
        Err(self.refused(
            offset,
            format!(
                "duplicate key \"{}\" (first at {}); clients keep only the last one, so the \
                 file is ambiguous",
                excerpt(name),
                self.at(first)
            ),
            Construct::DuplicateKey,
        ))
    }

    fn unexpected_value(&self) -> SyntaxError {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let reason = if rest.starts_with(b"NaN") || rest.starts_with(b"Infinity") {
            "NaN and Infinity are not valid JSON".to_string()
        } else if rest.starts_with(b"'") {
            "single-quoted strings are not allowed in JSON".to_string()
        } else {
            format!("expected a value, found {}", self.describe_here())
        };
        self.error(self.pos, reason)
    }

    fn describe_here(&self) -> String {
        self.describe_at(self.pos)
    }

    /// The character at a byte offset, for messages: `'x'` when printable ASCII,
    /// else its code point.
    fn describe_at(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|s| s.chars().next()) {
            None => "end of input".into(),
            Some(c) if c.is_ascii_graphic() => format!("'{c}'"),
            Some(c) => format!("U+{:04X}", u32::from(c)),
        }
    }
}

/// The index of the first byte at or after `from` that ends a run of plain string
/// text: `"`, `\\` or a raw control character (below U+0020); `bytes.len()` when
/// there is none.
///
/// Keys and most values are short: their first sixteen bytes are tested eight at
/// a time (SWAR: a byte-wise "is zero" and "is below 0x20" on one `u64`, exact on
/// whether any byte matches), inline. A longer run (session history is most of a
/// large `~/.claude.json`) is searched with `memchr`'s vector search for the two
/// bytes that end it, and the text before that end is then checked for a control
/// character sixty-four bytes at a time (an `|` reduction the compiler vectorizes):
/// two passes over bytes already in cache, several times faster than eight bytes
/// a step, and still one forward pass over the input.
fn special_byte(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    const SPACES: u64 = ONES * 0x20;
    let special = |c: u8| c == b'"' || c == b'\\' || c < 0x20;
    let rest = bytes.get(from..).unwrap_or_default();
    let mut at = 0;
    for word in rest.chunks_exact(8).take(2) {
        // A word that cannot be read (never: the chunks are exact) ends the word
        // loop, and the bytewise search of the tail below takes it from there.
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        let w = u64::from_le_bytes(word);
        let quote = w ^ QUOTES;
        let backslash = w ^ BACKSLASHES;
        let hit = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(SPACES) & !w);
        if hit & HIGH != 0 {
            // The lowest flag is exact: a borrow only runs upwards, from a byte that
            // is flagged rightly, so a wrong flag can only sit above a right one.
            return from + at + ((hit & HIGH).trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let tail = rest.get(at..).unwrap_or_default();
    if tail.len() < 8 {
        return from + at + tail.iter().position(|&c| special(c)).unwrap_or(tail.len());
    }
    let end = memchr::memchr2(b'"', b'\\', tail).unwrap_or(tail.len());
    let plain = tail.get(..end).unwrap_or_default();
    let mut checked = 0;
    for chunk in plain.chunks(64) {
        let below_space = chunk.iter().fold(0u8, |any, &c| any | u8::from(c < 0x20));
        if below_space != 0 {
            return from + at + checked + chunk.iter().position(|&c| c < 0x20).unwrap_or(0);
        }
        checked += chunk.len();
    }
    from + at + end
}

/// Eight spaces in one little-endian word ([`whitespace_end`]).
const EIGHT_SPACES: u64 = 0x2020_2020_2020_2020;

/// The index of the first byte at or after `from` that is not JSON whitespace
/// (space, tab, LF, CR); `bytes.len()` when there is none.
///
/// A pretty-printed file puts a line break and an indentation of spaces before
/// nearly every token (in session history, a sixth of the bytes), so a run of
/// spaces is measured eight bytes at a time: XOR with eight spaces leaves zero
/// bytes exactly where the spaces are, and the lowest non-zero byte is where the
/// run ends. Tabs and line breaks are taken one at a time.
fn whitespace_end(bytes: &[u8], from: usize, line: &mut LineMark) -> usize {
    let mut at = from;
    loop {
        match bytes.get(at) {
            Some(b' ') => match bytes.get(at..at + 8) {
                Some(word) => {
                    // A word that cannot be read (never: the slice is eight bytes)
                    // reads as no spaces, and `max(1)` steps over the one space
                    // known to be here: the run goes on bytewise.
                    let w = word.try_into().map_or(0, u64::from_le_bytes);
                    let other = w ^ EIGHT_SPACES;
                    at += if other == 0 {
                        8
                    } else {
                        (other.trailing_zeros() / 8).max(1) as usize
                    };
                }
                None => at += 1,
            },
            Some(b'\t') => at += 1,
            Some(b'\n') => {
                at += 1;
                line.broken_at(at);
            }
            Some(b'\r') => {
                at += 1;
                // `\r\n` is one break, counted at its `\n`.
                if bytes.get(at) != Some(&b'\n') {
                    line.broken_at(at);
                }
            }
            _ => return at,
        }
    }
}

/// At most 40 characters of `s`, with `…` when cut.
pub(crate) fn excerpt(s: &str) -> String {
    const MAX: usize = 40;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or_default()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const STRICT: Options = Options {
        jsonc: false,
        trailing_commas: false,
        cr_ends_line_comment: true,
        max_depth: 128,
        select: Select::All,
        keep_duplicates: false,
        refuse_skipped_duplicates: true,
    };
    const JSONC: Options = Options {
        jsonc: true,
        trailing_commas: true,
        cr_ends_line_comment: true,
        max_depth: 128,
        select: Select::All,
        keep_duplicates: false,
        refuse_skipped_duplicates: true,
    };

    fn ok(text: &str, opts: Options) -> Value<'_> {
        match parse(text, 0, opts) {
            Ok(v) => v,
            Err(e) => panic!("{text:?}: {e:?}"),
        }
    }

    fn err(text: &str, opts: Options) -> SyntaxError {
        match parse(text, 0, opts) {
            Ok(v) => panic!("{text:?} parsed: {v:?}"),
            Err(e) => e,
        }
    }

    /// Render a value back as compact JSON, to compare with serde_json.
    fn render(v: &Value<'_>) -> serde_json::Value {
        match v {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::from_str(n).unwrap(),
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Array(items, _) => serde_json::Value::Array(items.iter().map(render).collect()),
            Value::Object(members) => serde_json::Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.to_string(), render(&m.value)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn agrees_with_serde_json_on_valid_documents() {
        let docs = [
            r#"{"a": [1, -2.5e+3, 0, 0.0, 1E2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00\"\\\/"}}"#,
            "[]",
            "{}",
            " \t\r\n[ {} , [ ] ]\n",
            r#""top-level string""#,
            "123",
            r#"{"":"","k":{"":[[]]}}"#,
            "[\"\u{202e}raw rlo\", \"\u{7f}\"]",
        ];
        for doc in docs {
            let mine = render(&ok(doc, STRICT));
            let theirs: serde_json::Value = serde_json::from_str(doc).unwrap();
            assert_eq!(mine, theirs, "{doc}");
            // JSONC == strict JSON on comment-free input.
            assert_eq!(render(&ok(doc, JSONC)), theirs, "{doc}");
        }
    }

    #[test]
    fn rejects_what_serde_json_rejects() {
        let bad = [
            "",
            " ",
            "{",
            "[",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\" 1}",
            "{a:1}",
            "{'a':1}",
            "[NaN]",
            "[Infinity]",
            "[-Infinity]",
            "[01]",
            "[1.]",
            "[.5]",
            "[1e]",
            "[+1]",
            "[\"\\x\"]",
            "[\"\\u12\"]",
            "[\"\\ud800\"]",
            "[\"\\udc00\"]",
            "[\"\\ud800\\u0041\"]",
            "[\"a\nb\"]",
            "[\"a\u{0}b\"]",
            "[\"a\tb\"]",
            "[tru]",
            "[nul]",
            "{} {}",
            "[] x",
            "\u{feff}{}",
            "[\"unterminated",
            "{\"a\":1 // c\n}",
            "[/* c */]",
            "{\"a\":}",
            "[,]",
            "[1,,2]",
            "\u{a0}{}",
            "\u{b}{}",
        ];
        for doc in bad {
            assert!(
                serde_json::from_str::<serde_json::Value>(doc).is_err(),
                "{doc:?}"
            );
            let _ = err(doc, STRICT);
        }
    }

    #[test]
    fn comments_and_trailing_commas_name_jsonc() {
        let e = err("{\n  \"a\": 1 // note\n}", STRICT);
        assert!(e
            .reason
            .contains("comments are not allowed in JSON (the file looks like JSONC)"));
        let e = err("{\"a\": [1, 2,]}", STRICT);
        assert!(e
            .reason
            .contains("trailing commas are not allowed in JSON (the file looks like JSONC)"));
        assert_eq!(e.offset, 11);
    }

    #[test]
    fn jsonc_accepts_comments_and_trailing_commas_only() {
        let v = ok(
            "// head\n{ /* a */ \"a\": [1, 2, /* c */ ], \"b\": {\"k\": \"v\", // t\n}, \"s\": \"/* not */ // not\", }\n/* end */",
            JSONC,
        );
        assert_eq!(
            render(&v),
            serde_json::json!({"a": [1, 2], "b": {"k": "v"}, "s": "/* not */ // not"})
        );
        for bad in [
            "[1,,2]",
            "[,]",
            "{,}",
            "{'a':1}",
            "{a:1}",
            "[0x10]",
            "[1 2]",
            "# c\n{}",
            "[\"a\nb\"]",
        ] {
            let _ = err(bad, JSONC);
        }
    }

    #[test]
    fn jsonc_line_comment_ends_at_cr_too() {
        // A client ends `//` at CR; ending only at LF would hide the map after it.
        let v = ok("{ // c\r\"servers\": {} }", JSONC);
        assert!(v.get("servers").is_some());
        // VS Code's scanner ends a line comment at LF and CR only: what follows a
        // U+2028, a vertical tab or a form feed is still the comment.
        let v = ok("{ // c\u{2028}\"servers\": {}\n }", JSONC);
        assert!(v.get("servers").is_none());
        let v = ok("{ // c\u{b}x\n\"servers\": {} }", JSONC);
        assert!(v.get("servers").is_some());
    }

    #[test]
    fn strings_are_byte_exact() {
        let v = ok(
            r#"{"args": ["-c", "echo {a, }", "x, ]", "//not-a-comment", "/* k */", "http://x//y"],}"#,
            JSONC,
        );
        let args: Vec<&str> = match v.get("args") {
            Some(Value::Array(items, _)) => items.iter().filter_map(Value::as_str).collect(),
            _ => panic!(),
        };
        assert_eq!(
            args,
            [
                "-c",
                "echo {a, }",
                "x, ]",
                "//not-a-comment",
                "/* k */",
                "http://x//y"
            ]
        );
    }

    #[test]
    fn duplicate_keys_are_refused_with_both_positions() {
        let e = err("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", STRICT);
        assert_eq!(e.offset, 19);
        assert!(
            e.reason
                .contains("duplicate key \"a\" (first at line 1 column 2)"),
            "{}",
            e.reason
        );
        // Escaped spelling of the same key is the same key.
        let _ = err(r#"{"a": 1, "\u0061": 2}"#, STRICT);
        // Large objects take the sorting path; the earliest second occurrence is reported.
        let mut doc = String::from("{");
        for i in 0..100 {
            doc.push_str(&format!("\"k{i}\": {i},"));
        }
        doc.push_str("\"k7\": 0, \"k3\": 0}");
        let e = err(&doc, STRICT);
        assert!(e.reason.contains("\"k7\""), "{}", e.reason);
        // Same key in different objects is fine.
        let _ = ok(r#"{"a": {"a": 1}, "b": {"a": 2}}"#, STRICT);
    }

    #[test]
    fn depth_bound_is_exact_and_iterative() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        // n arrays: innermost at depth n-1.
        let _ = ok(&nest(129), STRICT);
        let e = err(&nest(130), STRICT);
        assert!(e.reason.contains("nesting deeper than 128 levels"));
        let lock = Options {
            jsonc: false,
            trailing_commas: false,
            cr_ends_line_comment: true,
            max_depth: 512,
            select: Select::All,
            keep_duplicates: false,
            refuse_skipped_duplicates: true,
        };
        let _ = ok(&nest(513), lock);
        let _ = err(&nest(514), lock);
        // A scalar at depth 513 is refused too.
        let _ = err(&format!("{}1{}", "[".repeat(513), "]".repeat(513)), lock);
        // 200,000 deep on a small thread stack: a clear error, no overflow.
        let handle = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let deep = format!("{{\"mcpServers\":{{\"a\":{}", "[".repeat(200_000));
                parse(&deep, 0, STRICT).map(|_| ()).unwrap_err().reason
            })
            .unwrap();
        assert!(handle.join().unwrap().contains("nesting deeper"));
    }

    #[test]
    fn unterminated_block_comments_are_linear() {
        let hostile = "/* ".repeat(8 * 1024 * 1024 / 3);
        let t = std::time::Instant::now();
        let e = err(&hostile, JSONC);
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(e.reason, "unterminated block comment");
        let e = err("{\"a\": \"unterminated", JSONC);
        assert_eq!(e.reason, "unterminated string");
        let long_string = format!("[\"{}", "x".repeat(8 * 1024 * 1024));
        let t = std::time::Instant::now();
        let _ = err(&long_string, JSONC);
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn huge_numbers_are_kept_as_text() {
        let v = ok(
            "[1e999999, -123456789012345678901234567890, 0.000000000000000000001]",
            STRICT,
        );
        match v {
            Value::Array(items, _) => {
                let texts: Vec<&str> = items
                    .iter()
                    .map(|i| match i {
                        Value::Number(n) => *n,
                        _ => "",
                    })
                    .collect();
                assert_eq!(
                    texts,
                    [
                        "1e999999",
                        "-123456789012345678901234567890",
                        "0.000000000000000000001"
                    ]
                );
            }
            _ => panic!(),
        }
    }

    #[test]
    fn structural_equality_is_order_insensitive_and_numeric() {
        let a = ok(
            r#"{"url": "u", "n": 1, "h": {"x": "1", "y": [1, 2]}}"#,
            STRICT,
        );
        let b = ok(
            r#"{"h": {"y": [1.0, 2e0], "x": "1"}, "n": 1.0, "url": "u"}"#,
            STRICT,
        );
        let c = ok(
            r#"{"h": {"y": [2, 1], "x": "1"}, "n": 1, "url": "u"}"#,
            STRICT,
        );
        assert!(same_value(&a, &b));
        assert!(!same_value(&a, &c));
        assert!(!same_value(&ok("[1]", STRICT), &ok("[\"1\"]", STRICT)));
    }

    /// A skipped value is validated exactly as a built one: same acceptance, same
    /// error (offset, reason, construct) on every input, in both dialects, at the
    /// depth bound too. The skipped side is `"x"` of a config's top level; the built
    /// side is the same text read with everything built and duplicates refused.
    #[test]
    fn skipped_values_are_validated_exactly_like_built_ones() {
        let pieces = [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "\"a\"",
            "\"b\"",
            "\"a\":",
            "1",
            "-0.5e3",
            "01",
            "true",
            "nul",
            "null",
            "\"\\u00e9\"",
            "\"\\ud800\"",
            "\"\\ud83d\\ude00\"",
            "\"\\x\"",
            "\"\u{1}\"",
            "\"",
            "\\",
            "/* c */",
            "// c\n",
            "/",
            "\"é😀\"",
            "\"0123456789abcdef0123456789abcdef0123\"",
            "\"0123456789abcdef0123456789abcdef\\n\"",
            "[[[[",
            "]]]]",
            "{\"a\":{\"a\":",
            "}}",
            "'",
            "x",
        ];
        let mut generated = crate::test_gen::Generated::new(0x005e_ed0f_5c1b);
        for jsonc in [false, true] {
            for depth in [3usize, 128] {
                let opts = |select| Options {
                    jsonc,
                    trailing_commas: jsonc,
                    cr_ends_line_comment: true,
                    max_depth: depth,
                    select,
                    keep_duplicates: false,
                    refuse_skipped_duplicates: true,
                };
                for _ in 0..4000 {
                    let inner = generated.text(&pieces, 16);
                    let doc = format!("{{\"x\": {inner}}}");
                    let skipped = parse(&doc, 0, opts(Select::Config { claude: false }));
                    let built = parse(&doc, 0, opts(Select::All));
                    match (skipped, built) {
                        (Ok(_), Ok(_)) => {}
                        (Err(a), Err(b)) => assert_eq!(a, b, "{doc:?}"),
                        (a, b) => panic!("{doc:?}: skipped {a:?}, built {b:?}"),
                    }
                }
            }
        }
    }

    /// [`special_byte`] by its definition, one byte at a time.
    fn naive_special_byte(b: &[u8], from: usize) -> usize {
        (from..b.len())
            .find(|&i| b[i] == b'"' || b[i] == b'\\' || b[i] < 0x20)
            .unwrap_or(b.len())
    }

    /// The word-at-a-time search finds exactly the first `"`, `\\` or control byte,
    /// wherever it sits in a word, next to bytes of every other value.
    #[test]
    fn special_byte_agrees_with_the_bytewise_definition() {
        let naive = naive_special_byte;
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for filler in [b'a', b' ', 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff] {
                for len in (0..40).chain([63, 64, 65, 80, 90, 127, 128, 129, 200]) {
                    for at in 0..=len {
                        let mut b = vec![filler; len];
                        if at < len {
                            b[at] = special;
                        }
                        for from in 0..=len.min(9) {
                            assert_eq!(special_byte(&b, from), naive(&b, from), "{b:?} {from}");
                        }
                        // And with a closing quote after it: the earlier one wins.
                        if len > 0 && at + 1 < len {
                            b[len - 1] = b'"';
                            for from in 0..=len.min(9) {
                                assert_eq!(special_byte(&b, from), naive(&b, from), "{b:?} {from}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Words that mix the special bytes with their neighbours (where a borrow of
    /// the word-at-a-time test runs into the next byte) still give the first one.
    #[test]
    fn special_byte_is_exact_in_mixed_words() {
        let naive = naive_special_byte;
        let alphabet = [
            b'"', b'\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xff,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let len = (next() % 24) as usize;
            let b: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let from = ((next() % 3) as usize).min(len);
            assert_eq!(special_byte(&b, from), naive(&b, from), "{b:?} {from}");
        }
    }

    /// The word-at-a-time whitespace skip stops exactly where the bytewise one
    /// does, for every byte value at every place in a word.
    #[test]
    fn whitespace_end_agrees_with_the_bytewise_definition() {
        let naive = |b: &[u8], from: usize| {
            (from..b.len())
                .find(|&i| !matches!(b[i], b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(b.len())
        };
        // The breaks in `b[from..end]` as `position` counts them.
        let naive_breaks = |b: &[u8], from: usize, end: usize| {
            let mut m = LineMark::default();
            for i in from..end {
                if b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')) {
                    m.breaks += 1;
                    m.line_start = i + 1;
                }
            }
            m
        };
        let fillers = [b' ', b'\t', b'\n', b'\r'];
        for stop in 0..=255u8 {
            // One kind of whitespace throughout, or all four in turn.
            for mode in 0..=fillers.len() {
                for len in 0..20 {
                    for at in 0..=len {
                        let mut b: Vec<u8> = (0..len)
                            .map(|i| fillers[if mode < fillers.len() { mode } else { i % 4 }])
                            .collect();
                        if at < len {
                            b[at] = stop;
                        }
                        for from in 0..=len.min(9) {
                            let mut line = LineMark::default();
                            let end = whitespace_end(&b, from, &mut line);
                            assert_eq!(end, naive(&b, from), "{b:?} {from}");
                            assert_eq!(line, naive_breaks(&b, from, end), "{b:?} {from}");
                        }
                    }
                }
            }
        }
    }

    /// Generated documents in the `~/.claude.json` modes (whose members are handed
    /// to a sink): every trivia that holds a line break (LF, CRLF, a lone CR, a block
    /// comment over lines, a `//` comment holding a lone CR where a CR does not end
    /// it), at every depth, kept and skipped. Each member's [`LineMark`] is the
    /// byte-at-a-time count, and the positions [`Lines::at_marked`] resolves from
    /// the marks are `line_col`'s.
    #[test]
    fn line_marks_count_the_breaks_before_each_key() {
        use crate::child::position::{line_col, Lines};

        struct Record(Vec<(usize, LineMark)>);
        impl<'a> Sink<'a> for Record {
            fn member(&mut self, m: Emitted<'a>) {
                self.0.push((m.offset, m.line));
            }
        }

        struct Doc {
            g: crate::test_gen::Generated,
            comments: bool,
        }
        impl Doc {
            fn trivia(&mut self) -> String {
                let plain = [" ", "\n", "\r\n", "\r", "\t", "\n    ", "\r\n\t"];
                let comments = [
                    "/* a\r\nb\rc\n\u{e9} */",
                    "// x\ry\n",
                    "// z\r\n",
                    "/**/",
                    "// \u{1F600}\r",
                ];
                let mut pieces: Vec<&str> = plain.to_vec();
                if self.comments {
                    pieces.extend(comments);
                }
                let mut t = self.g.text(&pieces, 4);
                // A line comment must end before the token after it.
                if t.contains("//") && !t.ends_with('\n') && !t.ends_with('\r') {
                    t.push('\n');
                }
                t
            }
            /// A value; an object where `~/.claude.json` holds one whose members
            /// are handed over (the top level, a server map, `projects` and each
            /// project), so that most members reach the sink.
            fn value(&mut self, depth: usize, object: bool) -> String {
                let kind = if object {
                    "o".to_string()
                } else {
                    self.g.text(&["s", "n", "o", "a"], 2)
                };
                match kind.as_str() {
                    "o" | "a" if depth < 4 => {
                        let object = kind == "o";
                        let n = self.g.text(&["x"], 6).len();
                        let mut out = String::from(if object { "{" } else { "[" });
                        for i in 0..n {
                            if i > 0 {
                                out.push(',');
                            }
                            out.push_str(&self.trivia());
                            if object {
                                // Keys repeat across members but never within one object.
                                let keys = ["mcpServers", "projects", "history", "servers", "p"];
                                let k = keys.get(i).copied().unwrap_or("q");
                                out.push_str(&format!(
                                    "\"{k}{}\"",
                                    if i >= keys.len() {
                                        i.to_string()
                                    } else {
                                        String::new()
                                    }
                                ));
                                out.push_str(&self.trivia());
                                out.push(':');
                                out.push_str(&self.trivia());
                            }
                            let inner = object && (depth < 2 || i < 2);
                            out.push_str(&self.value(depth + 1, inner));
                            out.push_str(&self.trivia());
                        }
                        out.push(if object { '}' } else { ']' });
                        out
                    }
                    "n" => "-1.5e3".into(),
                    _ => "\"t\u{e9}\\n\u{1F600}\"".into(),
                }
            }
        }

        let mut doc = Doc {
            g: crate::test_gen::Generated::new(0x5eed_11ce_00dd_ba11),
            comments: false,
        };
        let mut checked = 0;
        for round in 0..4000 {
            doc.comments = round % 2 == 1;
            let bom = if round % 7 == 0 { "\u{FEFF}" } else { "" };
            let body = format!("{}{}{}", doc.trivia(), doc.value(0, true), doc.trivia());
            let text = format!("{bom}{body}");
            let opts = Options {
                jsonc: doc.comments,
                trailing_commas: false,
                cr_ends_line_comment: round % 4 < 2,
                max_depth: 128,
                select: Select::ClaudeTop,
                keep_duplicates: true,
                refuse_skipped_duplicates: false,
            };
            let mut record = Record(Vec::new());
            if parse_into(&text, bom.len(), opts, &mut record).is_err() {
                continue;
            }
            let mut lines = Lines::new(&text);
            let mut last = 0;
            for (offset, mark) in record.0 {
                let before = &text.as_bytes()[..offset];
                let mut breaks = 0;
                let mut line_start = bom.len();
                for (i, &b) in before.iter().enumerate() {
                    if b == b'\n' || (b == b'\r' && text.as_bytes().get(i + 1) != Some(&b'\n')) {
                        breaks += 1;
                        line_start = i + 1;
                    }
                }
                let want = LineMark { breaks, line_start };
                assert_eq!(mark, want, "{text:?} at {offset}");
                // Members end in file order but are handed over as they end, so a
                // key can come before the last one resolved (a map's key after its
                // entries): the cursor then starts again, as `Lines::at` does.
                if offset >= last {
                    assert_eq!(
                        lines.at_marked(offset, mark),
                        line_col(&text, offset),
                        "{text:?} at {offset}"
                    );
                    last = offset;
                }
                checked += 1;
            }
        }
        assert!(checked > 10_000, "only {checked} members checked");
    }

    #[test]
    fn excerpt_caps_long_keys() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(100);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), 41);
        assert!(e.ends_with('…'));
    }
}
