//! Continue's YAML configs: `~/.continue/config.yaml` and the workspace block files
//! `.continue/mcpServers/*.yaml|*.yml`, both read for their `mcpServers` list.
//!
//! # Parser
//!
//! Continue parses these files with the `yaml` npm package (`YAML.parse`, default
//! options: YAML 1.2, core schema, unique keys, no merge keys) and checks them with
//! its zod schema. The child reads them with `yaml-rust2`'s event parser (a YAML 1.2
//! state machine over a `&str`: no recursion, no I/O) and builds the tree itself,
//! iteratively, so that every bound is its own:
//!
//! * Depth: no element deeper than [`MAX_CONFIG_DEPTH`] (root at 0), counted through
//!   aliases too (an alias stands at its place with the height of its anchor).
//! * Aliases share their anchor's node (no copy). A document may hold at most
//!   [`MAX_ALIAS_REFERENCES`] alias references, and its aliases may add at most
//!   [`MAX_ALIAS_NODES`] nodes to the document as a reader expands it: a
//!   billion-laughs document is refused at the alias that crosses the budget,
//!   before anything is expanded. An alias to a node that contains it is refused.
//! * Dropping the tree is iterative (see the `Drop` of [`YValue`]).
//!
//! # The `yaml` package's reading, and where doctor refuses instead
//!
//! * Plain scalars resolve as the YAML 1.2 core schema resolves them (`null`, `~`,
//!   empty: null; `true`/`false` in three casings; decimal, `0o` and `0x` integers;
//!   floats, `.inf`, `.nan`); quoted and block scalars are strings. A number or a
//!   boolean where a string belongs is a wrong-shaped entry, never converted (zod's
//!   `z.string()` does not coerce).
//! * A repeated key anywhere is refused, as `yaml` refuses it (`uniqueKeys`).
//! * `<<` is an ordinary key, as in `yaml`'s YAML 1.2 mode: Continue merges nothing.
//! * More than one document is refused, as `YAML.parse` refuses it.
//! * Refused with the reason named, because `yaml` gives them a meaning not modelled
//!   here: a `%YAML`/`%TAG` directive other than `%YAML 1.2` (`%YAML 1.1` switches
//!   `yaml` to YAML 1.1: merge keys, `yes`/`no` booleans); a tag other than `!!str`,
//!   `!!map`, `!!seq` or the non-specific `!`; a mapping key that is not a string
//!   scalar (a number, `null`, an alias, a collection), which JavaScript turns into
//!   some other string.
//! * A leading BOM is skipped (`yaml` skips it); invalid UTF-8 is read as Node
//!   decodes it (U+FFFD) and flagged, like the JSON clients' files.
//!
//! # Servers
//!
//! `mcpServers` is a list; each entry is one [`ServerMap::McpServers`] record named
//! by its `name` (an entry without one is named `[<index>]`), positioned at its
//! `name` key (or at the entry). Continue's entry schema is a union: a stdio server
//! (`command`, `type: stdio`, `args`, `env`, `cwd`) or a remote one (`url`,
//! `type: sse | streamable-http`, `apiKey`, `requestOptions.headers`), with
//! `name`, `serverName`, `faviconUrl`, `sourceFile`, `sourceSlug` and a positive
//! `connectionTimeout` in both; zod tries stdio first and strips the keys its
//! branch does not know. The body is what that union keeps: the stdio branch's
//! fields, or the remote branch's (`requestOptions.headers` as headers). An entry
//! that fits neither or a non-mapping entry has `body: Err(reason)`; because zod
//! then fails the whole file, Continue starts none of its servers, and the file's
//! section carries that as its error. An entry that is not a server but a `uses:`
//! reference to a block elsewhere (the hub, another file) is valid for Continue
//! and not followed here: its body is an error naming the reference, the file's
//! section none. Repeated names are all sent, flagged [`Twin::DuplicateName`]
//! (Continue keeps the first). `${{ secrets.X }}` templates are kept as written.
//! Top-level keys other than `mcpServers` are not read.

use crate::hash::HashMap;
use crate::hash::HashMapExt;
use std::rc::Rc;

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::json::excerpt;
use super::position::line_col;
use super::servers::{
    finish, repeated, server_body_at, shape, Dialect, Found, Located, Node, PendingSection,
};
use crate::protocol::bounds::{MAX_CONFIG_DEPTH, MAX_STRING_BYTES};
use crate::protocol::{Construct, LoadError, LoadErrorKind, ParsedConfig, ServerMap, Twin};

/// Most alias references one document may hold. Continue's `yaml` refuses more
/// than 100 references to one scalar anchor (`maxAliasCount`), so no config it
/// loads comes near.
pub(crate) const MAX_ALIAS_REFERENCES: usize = 1_000;

/// Most nodes the aliases of one document may add when it is expanded.
pub(crate) const MAX_ALIAS_NODES: u64 = 100_000;

/// A YAML node as the core schema resolves it. Collections hold their children
/// behind `Rc`, so that an alias shares its anchor's node instead of copying it.
#[derive(Debug)]
pub(crate) enum YValue {
    Null,
    Bool(bool),
    /// An integer or a float (`integer` says which), as JavaScript holds it.
    Number {
        value: f64,
        integer: bool,
    },
    Str(String),
    /// The items, and the byte offset where each is written (`None` for an empty
    /// list); boxed as JSON's arrays are, so that a node stays small.
    #[allow(clippy::box_collection)]
    Seq(Vec<Rc<YValue>>, Option<Box<Vec<u32>>>),
    Map(Vec<YMember>),
}

/// One mapping member: the key, the byte offset of the key, the value and the
/// byte offset where the value is written (an alias: the alias).
#[derive(Debug)]
pub(crate) struct YMember {
    pub key: String,
    pub offset: usize,
    pub value: Rc<YValue>,
    pub value_offset: usize,
}

impl YValue {
    fn take_children(&mut self) -> Vec<Rc<YValue>> {
        match self {
            YValue::Seq(items, _) => std::mem::take(items),
            YValue::Map(members) => std::mem::take(members)
                .into_iter()
                .map(|m| m.value)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn get(&self, key: &str) -> Option<&YValue> {
        match self {
            YValue::Map(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| m.value.as_ref()),
            _ => None,
        }
    }
}

/// Iterative: a deep tree (or a long chain of shared nodes) is freed from a work
/// list, never by recursion on its nesting.
impl Drop for YValue {
    fn drop(&mut self) {
        let mut work = self.take_children();
        while let Some(child) = work.pop() {
            if let Ok(mut owned) = Rc::try_unwrap(child) {
                work.extend(owned.take_children());
            }
        }
    }
}

impl Node for YValue {
    fn kind(&self) -> &'static str {
        match self {
            YValue::Null => "null",
            YValue::Bool(_) => "a boolean",
            YValue::Number { integer: true, .. } => "an integer",
            YValue::Number { .. } => "a float",
            YValue::Str(_) => "a string",
            YValue::Seq(..) => "a list",
            YValue::Map(_) => "a mapping",
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, YValue::Null)
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            YValue::Str(s) => Some(s),
            _ => None,
        }
    }
    fn is_map(&self) -> bool {
        matches!(self, YValue::Map(_))
    }
    fn items_at(&self) -> Option<impl ExactSizeIterator<Item = (&Self, usize)>> {
        match self {
            YValue::Seq(items, offsets) => {
                let offsets = offsets.as_deref().map_or(&[][..], Vec::as_slice);
                Some(
                    items
                        .iter()
                        .enumerate()
                        .map(move |(i, v)| (v.as_ref(), offsets.get(i).map_or(0, |&o| o as usize))),
                )
            }
            _ => None,
        }
    }
    fn entries_at(
        &self,
    ) -> Option<impl ExactSizeIterator<Item = (&str, &Self, usize)> + DoubleEndedIterator> {
        match self {
            YValue::Map(members) => Some(
                members
                    .iter()
                    .map(|m| (m.key.as_str(), m.value.as_ref(), m.value_offset)),
            ),
            _ => None,
        }
    }
    fn field_at(&self, key: &str) -> Option<(&Self, usize)> {
        match self {
            YValue::Map(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| (m.value.as_ref(), m.value_offset)),
            _ => None,
        }
    }
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            YValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// Repeated keys are refused by the parse, so there are none to report.
    fn repeated_keys(&self) -> Vec<&str> {
        Vec::new()
    }
}

/// Why a document is not read, and where (byte offset).
#[derive(Debug)]
pub(crate) struct YamlError {
    pub kind: LoadErrorKind,
    pub offset: usize,
    pub reason: String,
    pub construct: Option<Construct>,
}

fn syntax(offset: usize, reason: String) -> YamlError {
    YamlError {
        kind: LoadErrorKind::Syntax,
        offset,
        reason,
        construct: None,
    }
}

fn refused(offset: usize, reason: String) -> YamlError {
    YamlError {
        kind: LoadErrorKind::Shape,
        offset,
        reason,
        construct: None,
    }
}

/// Markers to byte offsets. A marker's line (1-based) and column (0-based, in
/// chars) are exact; its `index` is not (inside block scalars `yaml-rust2` adds
/// bytes, elsewhere chars), so it is not used. Markers come in mostly increasing
/// order: a cursor walks forward, and steps back to a line start only when asked.
struct Offsets<'a> {
    text: &'a str,
    /// Byte offset where the parsed text starts (after a BOM).
    base: usize,
    line: usize,
    line_start: usize,
    col: usize,
    at: usize,
}

impl Offsets<'_> {
    fn new(text: &str, base: usize) -> Offsets<'_> {
        Offsets {
            text,
            base,
            line: 1,
            line_start: base,
            col: 0,
            at: base,
        }
    }

    fn byte(&mut self, mark: &Marker) -> usize {
        let bytes = self.text.as_bytes();
        let (line, col) = (mark.line().max(1), mark.col());
        if line < self.line {
            *self = Offsets::new(self.text, self.base);
        }
        while self.line < line {
            let Some(p) = memchr::memchr2(
                b'\n',
                b'\r',
                bytes.get(self.line_start..).unwrap_or_default(),
            ) else {
                break;
            };
            let mut next = self.line_start + p + 1;
            if bytes.get(next - 1) == Some(&b'\r') && bytes.get(next) == Some(&b'\n') {
                next += 1;
            }
            self.line += 1;
            self.line_start = next;
            self.col = 0;
            self.at = next;
        }
        if col < self.col {
            self.col = 0;
            self.at = self.line_start;
        }
        let rest = self.text.get(self.at..).unwrap_or_default();
        for c in rest.chars() {
            if self.col >= col || c == '\n' || c == '\r' {
                break;
            }
            self.col += 1;
            self.at += c.len_utf8();
        }
        self.at
    }
}

/// An open collection while its children are parsed.
struct Open {
    anchor: usize,
    /// Where the collection starts.
    offset: usize,
    /// Nodes in the expanded subtree so far (itself included).
    size: u64,
    /// Height of the subtree so far (a leaf is 0).
    height: usize,
    /// The leaves of the subtree so far, as `yaml`'s alias accounting sees them.
    leaves: Leaves,
    kind: OpenKind,
}

/// The leaves of a subtree that `yaml`'s `getAliasCount` weighs: whether it holds
/// a scalar (weight 1), and the anchors its aliases refer to (weight: that
/// anchor's count times its alias count when it is weighed).
#[derive(Default, Clone)]
struct Leaves {
    scalar: bool,
    aliases: Vec<usize>,
}

impl Leaves {
    fn scalar() -> Leaves {
        Leaves {
            scalar: true,
            aliases: Vec::new(),
        }
    }

    fn add(&mut self, other: &Leaves) {
        self.scalar |= other.scalar;
        for id in &other.aliases {
            if !self.aliases.contains(id) {
                self.aliases.push(*id);
            }
        }
    }
}

/// Continue's `yaml` refuses a document once, at an alias, the references to its
/// anchor (the anchor itself counted as one) times the anchor's alias count
/// (`getAliasCount`: 1 for a scalar, for a collection the largest of its leaves)
/// exceed this (`maxAliasCount`, default 100; `Alias.resolve`).
const YAML_MAX_ALIAS_COUNT: u64 = 100;

enum OpenKind {
    Seq(Vec<Rc<YValue>>, Vec<u32>),
    Map {
        members: Vec<YMember>,
        key: Option<(String, usize)>,
    },
}

/// A completed anchor: its node, expanded size and height, and `yaml`'s
/// accounting of it (`count` starts at 1; `alias_count` 0 until weighed).
struct Anchored {
    value: Rc<YValue>,
    size: u64,
    height: usize,
    leaves: Leaves,
    count: u64,
    alias_count: u64,
}

/// What the parse counts, for the alias bounds (exposed to tests and fuzzing).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Nodes built from the source (aliases share, so this is the tree's size).
    pub nodes: u64,
    /// Alias references seen.
    pub aliases: usize,
    /// Nodes the aliases add when the document is expanded.
    pub alias_nodes: u64,
}

/// The parsed document: its root (`None` for a stream without a document), the
/// root's byte offset, and the counts.
pub(crate) struct Document {
    pub root: Option<Rc<YValue>>,
    pub root_offset: usize,
    pub counts: Counts,
}

/// Parse `text` (the whole file, a leading BOM included) into one document.
pub(crate) fn parse(text: &str) -> Result<Document, YamlError> {
    let base = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let body = text.get(base..).unwrap_or_default();
    refuse_directives(body, base)?;
    // `yaml-rust2` ends a line at a lone CR; Continue's `yaml` does not (the
    // line goes on), so the two read different structures.
    if let Some(cr) = body
        .bytes()
        .enumerate()
        .position(|(i, b)| b == b'\r' && body.as_bytes().get(i + 1) != Some(&b'\n'))
    {
        return Err(refused(
            base + cr,
            "a carriage return not followed by a line feed; Continue's YAML parser does not \
             end a line there, so what it reads is not modelled (Continue may still load \
             this file)"
                .into(),
        ));
    }
    let mut offsets = Offsets::new(text, base);
    let mut parser = Parser::new_from_str(body);
    let mut stack: Vec<Open> = Vec::new();
    let mut anchors: HashMap<usize, Anchored> = HashMap::new();
    let mut counts = Counts::default();
    let mut root: Option<Rc<YValue>> = None;
    let mut root_offset = base;
    let mut documents = 0usize;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let offset = offsets.byte(e.marker());
            // The scanner counts flow nesting in a byte and stops at 256 levels,
            // ahead of the events this loop bounds at 128.
            if e.info() == "recursion limit exceeded" {
                too_deep(offset)
            } else {
                // `yaml-rust2` and Continue's `yaml` differ on some inputs (a tab
                // after `:` is one): say that Continue may still load the file.
                syntax(
                    offset,
                    format!(
                        "{}; Continue's YAML parser may still load this file and start \
                         servers that doctor did not audit",
                        e.info()
                    ),
                )
            }
        })?;
        let offset = offsets.byte(&mark);
        match event {
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(syntax(
                        offset,
                        "a second document (`---`); Continue's YAML parser reads one document \
                         per file and refuses the file"
                            .into(),
                    ));
                }
            }
            Event::Alias(id) => {
                if expects_key(&stack) {
                    return Err(refused(
                        offset,
                        "an alias as a mapping key; JavaScript turns such a key into another \
                         string, so what Continue reads is not modelled"
                            .into(),
                    ));
                }
                let Some(target) = anchors.get(&id) else {
                    return Err(refused(
                        offset,
                        "an alias to a node that contains it (a recursive alias)".into(),
                    ));
                };
                counts.aliases += 1;
                counts.alias_nodes = counts.alias_nodes.saturating_add(target.size);
                if yaml_alias_budget_exceeded(&mut anchors, id) {
                    return Err(refused(
                        offset,
                        format!(
                            "an alias beyond the `yaml` package's alias budget (references to \
                             one anchor times its own aliases above {YAML_MAX_ALIAS_COUNT}): \
                             Continue refuses the file as a resource exhaustion attack"
                        ),
                    ));
                }
                let Some(target) = anchors.get(&id) else {
                    return Err(refused(offset, "an alias to an unknown anchor".into()));
                };
                if counts.aliases > MAX_ALIAS_REFERENCES || counts.alias_nodes > MAX_ALIAS_NODES {
                    return Err(refused(
                        offset,
                        format!(
                            "aliases expand the document beyond {MAX_ALIAS_REFERENCES} references \
                             or {MAX_ALIAS_NODES} added nodes (an alias bomb); Continue's YAML \
                             parser also refuses excessive aliasing"
                        ),
                    ));
                }
                if stack.len() + target.height > MAX_CONFIG_DEPTH {
                    return Err(too_deep(offset));
                }
                let (value, size, height) = (Rc::clone(&target.value), target.size, target.height);
                place(
                    &mut stack,
                    &mut root,
                    &mut anchors,
                    Placed {
                        value,
                        offset,
                        size,
                        height,
                        leaves: Leaves {
                            scalar: false,
                            aliases: vec![id],
                        },
                        anchor: 0,
                    },
                );
            }
            Event::Scalar(raw, style, anchor, tag) => {
                if stack.len() > MAX_CONFIG_DEPTH {
                    return Err(too_deep(offset));
                }
                counts.nodes += 1;
                let value = scalar(raw, style, tag.as_ref(), offset)?;
                if stack.is_empty() {
                    root_offset = offset;
                }
                if let Some(Open {
                    kind:
                        OpenKind::Map {
                            key: key @ None, ..
                        },
                    ..
                }) = stack.last_mut()
                {
                    let YValue::Str(k) = &value else {
                        return Err(refused(
                            offset,
                            format!(
                                "a mapping key that is {} (not a string); JavaScript turns it \
                                 into another string, so what Continue reads is not modelled; \
                                 quote the key",
                                value.kind()
                            ),
                        ));
                    };
                    *key = Some((k.clone(), offset));
                    if let Some(open) = stack.last_mut() {
                        open.leaves.scalar = true;
                    }
                    if anchor != 0 {
                        anchors.insert(
                            anchor,
                            Anchored {
                                value: Rc::new(value),
                                size: 1,
                                height: 0,
                                leaves: Leaves::scalar(),
                                count: 1,
                                alias_count: 0,
                            },
                        );
                    }
                    continue;
                }
                place(
                    &mut stack,
                    &mut root,
                    &mut anchors,
                    Placed {
                        value: Rc::new(value),
                        offset,
                        size: 1,
                        height: 0,
                        leaves: Leaves::scalar(),
                        anchor,
                    },
                );
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if expects_key(&stack) {
                    return Err(refused(
                        offset,
                        "a mapping key that is a collection; JavaScript turns such a key into \
                         another string, so what Continue reads is not modelled"
                            .into(),
                    ));
                }
                if stack.len() > MAX_CONFIG_DEPTH {
                    return Err(too_deep(offset));
                }
                collection_tag(tag.as_ref(), is_map, offset)?;
                counts.nodes += 1;
                if stack.is_empty() {
                    root_offset = offset;
                }
                stack.push(Open {
                    anchor,
                    offset,
                    size: 1,
                    height: 0,
                    leaves: Leaves::default(),
                    kind: if is_map {
                        OpenKind::Map {
                            members: Vec::new(),
                            key: None,
                        }
                    } else {
                        OpenKind::Seq(Vec::new(), Vec::new())
                    },
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(open) = stack.pop() else {
                    return Err(syntax(offset, "a collection end with nothing open".into()));
                };
                let value = match open.kind {
                    OpenKind::Seq(items, offsets) => {
                        YValue::Seq(items, (!offsets.is_empty()).then(|| Box::new(offsets)))
                    }
                    OpenKind::Map { members, .. } => {
                        refuse_repeated_keys(&members)?;
                        YValue::Map(members)
                    }
                };
                place(
                    &mut stack,
                    &mut root,
                    &mut anchors,
                    Placed {
                        value: Rc::new(value),
                        offset: open.offset,
                        size: open.size,
                        height: open.height,
                        leaves: open.leaves,
                        anchor: open.anchor,
                    },
                );
            }
        }
    }
    Ok(Document {
        root,
        root_offset,
        counts,
    })
}

/// `yaml`'s `Alias.resolve` accounting for one more alias to `id`, in document
/// order (the order `toJS` resolves them): whether Continue refuses the file here.
fn yaml_alias_budget_exceeded(anchors: &mut HashMap<usize, Anchored>, id: usize) -> bool {
    let weight = |anchors: &HashMap<usize, Anchored>, target: &Anchored| {
        let inner = target
            .leaves
            .aliases
            .iter()
            .filter_map(|a| anchors.get(a))
            .map(|a| a.count.saturating_mul(a.alias_count))
            .max()
            .unwrap_or(0);
        inner.max(u64::from(target.leaves.scalar))
    };
    let Some(target) = anchors.get(&id) else {
        return false;
    };
    let alias_count = if target.alias_count == 0 {
        weight(anchors, target)
    } else {
        target.alias_count
    };
    let Some(target) = anchors.get_mut(&id) else {
        return false;
    };
    target.count = target.count.saturating_add(1);
    target.alias_count = alias_count;
    target.count.saturating_mul(target.alias_count) > YAML_MAX_ALIAS_COUNT
}

/// Whether the next node is a key of the innermost open mapping.
fn expects_key(stack: &[Open]) -> bool {
    matches!(
        stack.last(),
        Some(Open {
            kind: OpenKind::Map { key: None, .. },
            ..
        })
    )
}

/// A completed node on its way into its parent.
struct Placed {
    value: Rc<YValue>,
    /// Where the node is written (a collection: where it starts).
    offset: usize,
    size: u64,
    height: usize,
    leaves: Leaves,
    anchor: usize,
}

/// Put a completed node into the innermost open collection (or make it the root),
/// recording it under its anchor.
fn place(
    stack: &mut [Open],
    root: &mut Option<Rc<YValue>>,
    anchors: &mut HashMap<usize, Anchored>,
    node: Placed,
) {
    if node.anchor != 0 {
        anchors.insert(
            node.anchor,
            Anchored {
                value: Rc::clone(&node.value),
                size: node.size,
                height: node.height,
                leaves: node.leaves.clone(),
                count: 1,
                alias_count: 0,
            },
        );
    }
    let Some(parent) = stack.last_mut() else {
        *root = Some(node.value);
        return;
    };
    parent.leaves.add(&node.leaves);
    parent.size = parent.size.saturating_add(node.size);
    parent.height = parent.height.max(node.height + 1);
    match &mut parent.kind {
        OpenKind::Seq(items, offsets) => {
            items.push(node.value);
            offsets.push(u32::try_from(node.offset).unwrap_or(u32::MAX));
        }
        OpenKind::Map { members, key } => {
            if let Some((k, offset)) = key.take() {
                members.push(YMember {
                    key: k,
                    offset,
                    value: node.value,
                    value_offset: node.offset,
                });
            }
        }
    }
}

fn too_deep(offset: usize) -> YamlError {
    YamlError {
        kind: LoadErrorKind::TooDeep,
        offset,
        reason: format!("nested deeper than {MAX_CONFIG_DEPTH} levels"),
        construct: Some(Construct::DeepNesting),
    }
}

const CORE: &str = "tag:yaml.org,2002:";

/// The tag's text as written in messages (`!!int`, `!custom`).
fn tag_text(tag: &Tag) -> String {
    if tag.handle == CORE {
        format!("!!{}", excerpt(&tag.suffix))
    } else {
        format!("{}{}", excerpt(&tag.handle), excerpt(&tag.suffix))
    }
}

fn unmodelled_tag(tag: &Tag, offset: usize) -> YamlError {
    refused(
        offset,
        format!(
            "the tag {}; Continue's YAML parser gives tags meanings doctor does not model \
             (only !!str, !!map, !!seq and ! are read); remove the tag",
            tag_text(tag)
        ),
    )
}

/// A collection's tag: none, `!`, or the core tag of its own kind.
fn collection_tag(tag: Option<&Tag>, is_map: bool, offset: usize) -> Result<(), YamlError> {
    match tag {
        None => Ok(()),
        Some(t) if t.handle.is_empty() && t.suffix == "!" => Ok(()),
        Some(t) if t.handle == CORE && t.suffix == if is_map { "map" } else { "seq" } => Ok(()),
        Some(t) => Err(unmodelled_tag(t, offset)),
    }
}

/// A scalar as the core schema reads it.
fn scalar(
    raw: String,
    style: TScalarStyle,
    tag: Option<&Tag>,
    offset: usize,
) -> Result<YValue, YamlError> {
    match tag {
        None => {}
        Some(t)
            if (t.handle.is_empty() && t.suffix == "!")
                || (t.handle == CORE && t.suffix == "str") =>
        {
            return Ok(YValue::Str(raw))
        }
        Some(t) => return Err(unmodelled_tag(t, offset)),
    }
    if style != TScalarStyle::Plain {
        return Ok(YValue::Str(raw));
    }
    Ok(resolve_plain(raw))
}

/// The YAML 1.2 core schema's resolution of a plain scalar (the `yaml` package's
/// `core` tags: null, bool, int in base 10, 8 and 16, float).
pub(crate) fn resolve_plain(raw: String) -> YValue {
    match raw.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return YValue::Null,
        "true" | "True" | "TRUE" => return YValue::Bool(true),
        "false" | "False" | "FALSE" => return YValue::Bool(false),
        ".nan" | ".NaN" | ".NAN" => {
            return YValue::Number {
                value: f64::NAN,
                integer: false,
            }
        }
        _ => {}
    }
    let unsigned = raw.strip_prefix(['-', '+']).unwrap_or(&raw);
    let negative = raw.starts_with('-');
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        let value = if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        return YValue::Number {
            value,
            integer: false,
        };
    }
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    let radix_int = |s: &str, radix: u32| {
        s.chars().fold(0f64, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        })
    };
    if let Some(oct) = raw.strip_prefix("0o").filter(|s| digits(s, 8)) {
        return YValue::Number {
            value: radix_int(oct, 8),
            integer: true,
        };
    }
    if let Some(hex) = raw.strip_prefix("0x").filter(|s| digits(s, 16)) {
        return YValue::Number {
            value: radix_int(hex, 16),
            integer: true,
        };
    }
    if digits(unsigned, 10) {
        let value = raw.parse::<f64>().unwrap_or(f64::NAN);
        return YValue::Number {
            value,
            integer: true,
        };
    }
    if is_core_float(unsigned) {
        if let Ok(value) = raw.parse::<f64>() {
            return YValue::Number {
                value,
                integer: false,
            };
        }
    }
    YValue::Str(raw)
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` without the sign, and not a
/// plain integer (those are matched first).
fn is_core_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let all_digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => all_digits(frac),
        Some((int, frac)) => all_digits(int) && (frac.is_empty() || all_digits(frac)),
        None => all_digits(mantissa),
    };
    let exponent_ok = match exponent {
        None => true,
        Some(e) => all_digits(e.strip_prefix(['-', '+']).unwrap_or(e)),
    };
    mantissa_ok && exponent_ok
}

/// `yaml` refuses a mapping with a repeated key (`uniqueKeys`), and so does doctor.
fn refuse_repeated_keys(members: &[YMember]) -> Result<(), YamlError> {
    let twice = repeated(members.len(), |i| {
        members.get(i).map_or("", |m| m.key.as_str())
    });
    let Some(first) = twice.first() else {
        return Ok(());
    };
    let mut copies = members.iter().filter(|m| m.key == *first);
    let earlier = copies.next().map_or(0, |m| m.offset);
    let later = copies.next().map_or(0, |m| m.offset);
    Err(YamlError {
        kind: LoadErrorKind::Syntax,
        offset: later,
        reason: format!(
            "the key \"{}\" is repeated (first at byte {earlier}); Continue's YAML parser \
             refuses repeated keys",
            excerpt(first)
        ),
        construct: Some(Construct::DuplicateKey),
    })
}

/// `%` directives at the start of a line: `%YAML 1.2` is what the parser assumes
/// anyway; any other (`%YAML 1.1`, `%TAG`) changes how `yaml` reads the document.
fn refuse_directives(body: &str, base: usize) -> Result<(), YamlError> {
    let mut at = 0usize;
    for line in body.split_inclusive(['\n', '\r']) {
        if line.starts_with('%') {
            let words: Vec<&str> = line
                .split('#')
                .next()
                .unwrap_or_default()
                .split_whitespace()
                .collect();
            if words != ["%YAML", "1.2"] {
                return Err(refused(
                    base + at,
                    format!(
                        "the directive \"{}\"; `%YAML 1.1` makes Continue's YAML parser read \
                         YAML 1.1 (merge keys, yes/no booleans) and `%TAG` renames tags, which \
                         doctor does not model; remove the directive",
                        excerpt(line.trim_end())
                    ),
                ));
            }
        }
        at += line.len();
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// From the document to server records.

/// The config's single section, from the file's bytes: invalid UTF-8 is read as
/// Node reads it and flagged as the file's error.
pub(crate) fn continue_config_bytes(bytes: &[u8]) -> Result<ParsedConfig, LoadError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => continue_config(text),
        Err(e) => {
            let lossy = String::from_utf8_lossy(bytes);
            continue_config(&lossy).map(|c| {
                super::with_note(
                    c,
                    LoadError {
                        kind: LoadErrorKind::Read,
                        message: format!(
                            "not valid UTF-8 at byte {}; audited as Continue decodes it, each \
                             invalid byte sequence read as U+FFFD",
                            e.valid_up_to()
                        ),
                        construct: Some(Construct::InvalidUtf8),
                    },
                )
            })
        }
    }
}

/// The config's single section, from its text.
pub(crate) fn continue_config(text: &str) -> Result<ParsedConfig, LoadError> {
    let doc = parse(text).map_err(|e| {
        let (line, col) = line_col(text, e.offset);
        let prefix = match e.kind {
            LoadErrorKind::Syntax => "invalid YAML",
            _ => "refused YAML",
        };
        LoadError {
            kind: e.kind,
            message: format!("{prefix} at line {line} column {col}: {}", e.reason),
            construct: e.construct,
        }
    })?;
    let Some(root) = doc.root.as_deref() else {
        return Err(shape(
            "the file holds no YAML document (Continue needs a mapping)".into(),
        ));
    };
    let YValue::Map(_) = root else {
        return Err(shape(format!(
            "top-level config must be a mapping (it is {})",
            root.kind()
        )));
    };
    let mut found: Vec<Found> = Vec::new();
    // The first entry that fails Continue's schema (zod then fails the file).
    let mut refusal: Option<(String, usize)> = None;
    let list_key = match root {
        YValue::Map(members) => members
            .iter()
            .rev()
            .find(|m| m.key == "mcpServers")
            .map_or(doc.root_offset, |m| m.offset),
        _ => doc.root_offset,
    };
    match root.get("mcpServers") {
        None | Some(YValue::Null) => {}
        Some(YValue::Seq(items, _)) => {
            found.reserve(items.len());
            for (i, item) in items.iter().enumerate() {
                let (server, refuses_file) = entry(text, i, item, list_key)?;
                if refuses_file && refusal.is_none() {
                    refusal = Some((server.name.clone(), server.offset));
                }
                found.push(server);
            }
        }
        Some(other) => {
            return Err(shape(format!(
                "mcpServers must be a list of servers (it is {}); Continue refuses the file",
                other.kind()
            )))
        }
    }
    flag_repeated_names(&mut found);
    let mut config = finish(text, vec![PendingSection::of_servers(None, Ok(found))])?;
    if let (Some((name, offset)), Some(section)) = (refusal, config.sections.first_mut()) {
        let (line, col) = line_col(text, offset);
        section.error = Some(shape(format!(
            "the mcpServers entry \"{}\" at line {line} column {col} does not match Continue's \
             schema, and Continue then refuses the whole file: none of its servers start",
            excerpt(&name)
        )));
    }
    Ok(config)
}

/// One `mcpServers` item, and whether it fails Continue's schema (a `uses:`
/// reference does not: Continue loads the block it names). Offsets of list items
/// are not recorded; an entry's position is its `name` key, or the first key of
/// the mapping, or (for a non-mapping item) the `mcpServers` key.
fn entry(
    text: &str,
    index: usize,
    item: &YValue,
    fallback: usize,
) -> Result<(Found, bool), LoadError> {
    let positional = format!("[{index}]");
    let YValue::Map(members) = item else {
        return Ok((
            Found::new(
                ServerMap::McpServers,
                positional,
                fallback,
                Err(format!(
                    "server entry must be a mapping (it is {}); Continue refuses the whole file",
                    item.kind()
                )),
            ),
            true,
        ));
    };
    let first_key = members.first().map_or(fallback, |m| m.offset);
    // zod tries the server schema first: an entry that is a valid server is one,
    // `uses` or not (the key is stripped); only otherwise is it a block reference.
    let named = matches!(item.get("name"), Some(YValue::Str(_)));
    let as_server = if named {
        continue_body(item)
    } else {
        Err(String::new())
    };
    if let (Some(uses), Err(_)) = (item.get("uses"), &as_server) {
        let what = uses.as_str().map_or_else(
            || uses.kind().to_string(),
            |s| format!("\"{}\"", excerpt(s)),
        );
        let offset = members
            .iter()
            .find(|m| m.key == "uses")
            .map_or(first_key, |m| m.offset);
        return Ok((
            Found::new(
                ServerMap::McpServers,
                uses.as_str()
                    .filter(|s| s.len() <= MAX_STRING_BYTES)
                    .map_or(positional, str::to_string),
                offset,
                Err(format!(
                    "a `uses:` reference to the block {what}; Continue loads that block from \
                 elsewhere (the hub or another file), which doctor does not follow, so what it \
                 starts is not audited"
                )),
            ),
            false,
        ));
    }
    let name_member = members.iter().rev().find(|m| m.key == "name");
    let (name, offset) = match name_member.map(|m| (m.value.as_ref(), m.offset)) {
        Some((YValue::Str(s), offset)) => {
            if s.len() > MAX_STRING_BYTES {
                let (line, col) = line_col(text, offset);
                return Err(shape(format!(
                    "server name at line {line} column {col} is longer than {MAX_STRING_BYTES} \
                     bytes"
                )));
            }
            (s.clone(), offset)
        }
        Some((other, offset)) => {
            return Ok((
                Found::new(
                    ServerMap::McpServers,
                    positional,
                    offset,
                    Err(format!(
                        "name must be a string (it is {}); Continue refuses the whole file",
                        other.kind()
                    )),
                ),
                true,
            ))
        }
        None => {
            return Ok((
                Found::new(
                    ServerMap::McpServers,
                    positional,
                    first_key,
                    Err("the entry has no name; Continue refuses the whole file".into()),
                ),
                true,
            ))
        }
    };
    let refuses_file = as_server.is_err();
    Ok((
        Found::new(ServerMap::McpServers, name, offset, as_server),
        refuses_file,
    ))
}

/// Mark every copy of a name that occurs more than once (Continue keeps the first).
fn flag_repeated_names(found: &mut [Found]) {
    let twice: Vec<String> = repeated(found.len(), |i| {
        found.get(i).map_or("", |f| f.name.as_str())
    })
    .into_iter()
    .map(str::to_string)
    .collect();
    if twice.is_empty() {
        return;
    }
    let twice: crate::hash::HashSet<String> = twice.into_iter().collect();
    for f in found.iter_mut() {
        if twice.contains(&f.name) {
            f.twin = Some(Twin::DuplicateName);
        }
    }
}

/// `Ok` when `key` is absent or holds what `ok` accepts; else why not.
fn check_field(
    entry: &YValue,
    key: &str,
    what: &str,
    ok: impl Fn(&YValue) -> Result<(), String>,
) -> Result<(), String> {
    match entry.get(key) {
        None => Ok(()),
        Some(v) => ok(v).map_err(|detail| {
            if detail.is_empty() {
                format!("{key} must be {what} (it is {})", v.kind())
            } else {
                format!("{key} must be {what} ({detail})")
            }
        }),
    }
}

fn a_string(v: &YValue) -> Result<(), String> {
    match v {
        YValue::Str(_) => Ok(()),
        _ => Err(String::new()),
    }
}

fn strings_list(key: &'static str) -> impl Fn(&YValue) -> Result<(), String> {
    move |v| match v {
        YValue::Seq(items, _) => match items.iter().position(|i| !matches!(**i, YValue::Str(_))) {
            None => Ok(()),
            Some(i) => Err(format!(
                "{key}[{i}] is {}",
                items.get(i).map_or("", |v| v.kind())
            )),
        },
        _ => Err(format!("it is {}", v.kind())),
    }
}

fn strings_map(key: &'static str) -> impl Fn(&YValue) -> Result<(), String> {
    move |v| match v {
        YValue::Map(members) => {
            match members.iter().find(|m| !matches!(*m.value, YValue::Str(_))) {
                None => Ok(()),
                Some(m) => Err(format!("{key}.{} is {}", excerpt(&m.key), m.value.kind())),
            }
        }
        _ => Err(format!("it is {}", v.kind())),
    }
}

/// The fields both branches of Continue's union share.
fn base_fields(entry: &YValue) -> Result<(), String> {
    for key in ["serverName", "faviconUrl", "sourceFile", "sourceSlug"] {
        check_field(entry, key, "a string", a_string)?;
    }
    check_field(
        entry,
        "connectionTimeout",
        "a number greater than 0",
        |v| match v {
            YValue::Number { value, .. } if *value > 0.0 => Ok(()),
            _ => Err(String::new()),
        },
    )
}

fn type_in(entry: &YValue, allowed: &[&str]) -> Result<(), String> {
    check_field(
        entry,
        "type",
        &allowed
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(" or "),
        |v| match v {
            YValue::Str(s) if allowed.contains(&s.as_str()) => Ok(()),
            YValue::Str(s) => Err(format!("it is \"{}\"", excerpt(s))),
            _ => Err(String::new()),
        },
    )
}

/// Continue's stdio branch: `command` and its companions.
fn stdio_branch(entry: &YValue) -> Result<(), String> {
    if entry.get("command").is_none() {
        return Err("command is missing".into());
    }
    check_field(entry, "command", "a string", a_string)?;
    base_fields(entry)?;
    type_in(entry, &["stdio"])?;
    check_field(entry, "args", "a list of strings", strings_list("args"))?;
    check_field(entry, "env", "a mapping of strings", strings_map("env"))?;
    check_field(entry, "cwd", "a string", a_string)
}

/// Continue's remote branch: `url` and its companions.
fn remote_branch(entry: &YValue) -> Result<(), String> {
    if entry.get("url").is_none() {
        return Err("url is missing".into());
    }
    check_field(entry, "url", "a string", a_string)?;
    base_fields(entry)?;
    type_in(entry, &["sse", "streamable-http"])?;
    check_field(entry, "apiKey", "a string", a_string)?;
    check_field(entry, "requestOptions", "a mapping", |v| match v {
        YValue::Map(_) => check_field(v, "headers", "a mapping of strings", strings_map("headers"))
            .map_err(|e| format!("requestOptions.{e}")),
        _ => Err(String::new()),
    })
}

/// The body Continue's union keeps: the stdio branch when it fits (zod tries it
/// first), else the remote branch, each with only its own fields.
fn continue_body(entry: &YValue) -> Result<Located, String> {
    let stdio = stdio_branch(entry);
    let keep: &[&str] = match (&stdio, remote_branch(entry)) {
        (Ok(()), _) => &["command", "type", "args", "env", "cwd"],
        (Err(_), Ok(())) => &["url", "type"],
        (Err(s), Err(r)) => {
            let reason = if entry.get("command").is_some() || entry.get("url").is_none() {
                s.clone()
            } else {
                r
            };
            return Err(format!(
                "{reason}; the entry is neither a stdio server (command) nor a remote one \
                 (url) in Continue's schema, so Continue refuses the whole file"
            ));
        }
    };
    let YValue::Map(members) = entry else {
        return Err(format!(
            "server entry must be a mapping (it is {})",
            entry.kind()
        ));
    };
    let mut view: Vec<YMember> = members
        .iter()
        .filter(|m| keep.contains(&m.key.as_str()))
        .map(|m| YMember {
            key: m.key.clone(),
            offset: m.offset,
            value: Rc::clone(&m.value),
            value_offset: m.value_offset,
        })
        .collect();
    if stdio.is_err() {
        if let Some(headers) = entry.get("requestOptions").and_then(|r| match r {
            YValue::Map(rm) => rm.iter().rev().find(|m| m.key == "headers"),
            _ => None,
        }) {
            view.push(YMember {
                key: "headers".into(),
                offset: headers.offset,
                value: Rc::clone(&headers.value),
                value_offset: headers.value_offset,
            });
        }
    }
    server_body_at(&YValue::Map(view), Dialect::Json)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::child::parse_file;
    use crate::protocol::{ChildMessage, FileFormat, Section, ServerEntry};

    fn load(text: &str) -> Result<ParsedConfig, LoadError> {
        match parse_file(FileFormat::ContinueYaml, text.as_bytes()) {
            ChildMessage::Config(c) => c,
            other => panic!("a config job answered with {other:?}"),
        }
    }

    fn section(text: &str) -> Section {
        let mut c = load(text).unwrap();
        assert_eq!(c.sections.len(), 1);
        c.sections.remove(0)
    }

    fn servers(text: &str) -> Vec<ServerEntry> {
        let s = section(text);
        assert_eq!(s.error, None, "{text}");
        s.servers
    }

    fn refused_with(text: &str, kind: LoadErrorKind, words: &str) -> LoadError {
        let e = load(text).unwrap_err();
        assert_eq!(e.kind, kind, "{e:?}");
        assert!(e.message.contains(words), "{:?} lacks {words:?}", e.message);
        e
    }

    const CONFIG: &str = "\
name: Local Assistant
version: 1.0.0
schema: v1
models:
  - name: Claude
    provider: anthropic
    apiKey: ${{ secrets.ANTHROPIC }}
mcpServers:
  - name: SQLite
    command: npx
    args:
      - -y
      - mcp-sqlite
      - ${{ secrets.DB_PATH }}
    env:
      TOKEN: ${{ inputs.TOKEN }}
    cwd: /work
  - name: Remote
    type: streamable-http
    url: https://mcp.example.com/mcp
    requestOptions:
      headers:
        Authorization: Bearer ${{ secrets.T }}
";

    #[test]
    fn a_config_yaml_gives_every_server_with_positions() {
        let got = servers(CONFIG);
        assert_eq!(got.len(), 2);
        let sqlite = &got[0];
        assert_eq!(sqlite.name, "SQLite");
        assert_eq!(sqlite.map, ServerMap::McpServers);
        assert_eq!((sqlite.line, sqlite.column), (9, 5));
        let body = sqlite.body.as_ref().unwrap();
        assert_eq!(body.command.as_deref(), Some("npx"));
        assert_eq!(body.args, ["-y", "mcp-sqlite", "${{ secrets.DB_PATH }}"]);
        assert_eq!(
            body.env,
            [("TOKEN".to_string(), "${{ inputs.TOKEN }}".to_string())]
        );
        assert_eq!(body.extra().cwd.as_deref(), Some("/work"));
        let remote = &got[1];
        assert_eq!((remote.line, remote.column), (18, 5));
        let body = remote.body.as_ref().unwrap();
        assert_eq!(body.url.as_deref(), Some("https://mcp.example.com/mcp"));
        assert_eq!(body.transport.as_deref(), Some("streamable-http"));
        assert_eq!(
            body.headers,
            [(
                "Authorization".to_string(),
                "Bearer ${{ secrets.T }}".to_string()
            )]
        );
        assert_eq!(body.command, None);
    }

    #[test]
    fn a_block_file_and_flow_style() {
        let block =
            "name: New MCP server\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - {name: fs, \
                     command: npx, args: [\"-y\", '@mcp/fs'], type: stdio}\n";
        let got = servers(block);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "fs");
        assert_eq!((got[0].line, got[0].column), (5, 6));
        let body = got[0].body.as_ref().unwrap();
        assert_eq!(body.args, ["-y", "@mcp/fs"]);
        assert_eq!(body.transport.as_deref(), Some("stdio"));
        // No mcpServers at all, or an empty list: no servers, no error.
        assert!(servers("name: x\nversion: 1\nmodels: []\n").is_empty());
        assert!(servers("mcpServers: []\n").is_empty());
    }

    #[test]
    fn the_union_keeps_only_the_branch_continue_keeps() {
        // Both command and url, no type: zod's stdio branch wins and strips `url`.
        let got = servers("mcpServers:\n  - name: a\n    command: node\n    url: https://x\n");
        let body = got[0].body.as_ref().unwrap();
        assert_eq!(
            (body.command.as_deref(), body.url.as_deref()),
            (Some("node"), None)
        );
        // type sse: the stdio branch fails, the remote one keeps only url and type.
        let got = servers(
            "mcpServers:\n  - name: a\n    type: sse\n    command: node\n    args: [1]\n    url: https://x\n",
        );
        let body = got[0].body.as_ref().unwrap();
        assert_eq!(body.command, None);
        assert!(body.args.is_empty());
        assert_eq!(body.url.as_deref(), Some("https://x"));
        // Fields neither branch knows are not read (Continue strips them).
        let got = servers(
            "mcpServers:\n  - name: a\n    command: node\n    disabled: true\n    headers: {A: b}\n",
        );
        let body = got[0].body.as_ref().unwrap();
        assert!(body.headers.is_empty());
        assert_eq!(body.extra(), &crate::protocol::ServerExtra::default());
    }

    #[test]
    fn wrong_types_are_entry_errors_and_the_file_is_flagged() {
        for (entry, words) in [
            ("command: 12", "command must be a string (it is an integer)"),
            (
                "command: node\n    args: [1, true]",
                "args[0] is an integer",
            ),
            (
                "command: node\n    args: [\"a\", 1.5]",
                "args must be a list of strings (args[1] is a float)",
            ),
            (
                "command: node\n    env: {PORT: 8080}",
                "env.PORT is an integer",
            ),
            (
                "command: node\n    env: {DEBUG: true}",
                "env.DEBUG is a boolean",
            ),
            (
                "command: node\n    cwd:",
                "cwd must be a string (it is null)",
            ),
            ("command: node\n    type: http", "type must be \"stdio\""),
            (
                "command: node\n    connectionTimeout: 0",
                "connectionTimeout must be a number greater than 0",
            ),
            (
                "command: node\n    connectionTimeout: \"5\"",
                "connectionTimeout must be",
            ),
            ("url: 3.5", "url must be a string (it is a float)"),
            (
                "url: https://x\n    requestOptions: {headers: {A: 1}}",
                "requestOptions.headers",
            ),
            ("args: [x]", "command is missing"),
        ] {
            let text =
                format!("mcpServers:\n  - name: s\n    {entry}\n  - name: ok\n    command: node\n");
            let s = section(&text);
            assert_eq!(s.servers.len(), 2, "{text}");
            let reason = s.servers[0].body.as_ref().unwrap_err();
            assert!(reason.contains(words), "{reason:?} lacks {words:?}");
            assert!(s.servers[1].body.is_ok());
            let note = s.error.unwrap();
            assert!(
                note.message.contains("refuses the whole file"),
                "{}",
                note.message
            );
        }
        // `yes` is a string in YAML 1.2 (the core schema), as in Continue's parser.
        let got = servers("mcpServers:\n  - name: s\n    command: yes\n    args: [no, on, 0x1g]\n");
        assert_eq!(got[0].body.as_ref().unwrap().args, ["no", "on", "0x1g"]);
    }

    #[test]
    fn entries_without_a_name_or_not_mappings_or_uses_references() {
        let s = section(
            "mcpServers:\n  - command: node\n  - name: 7\n    command: x\n  - just text\n  - \n  - uses: acme/evil-mcp\n    override: {command: sh}\n",
        );
        let names: Vec<&str> = s.servers.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["[0]", "[1]", "[2]", "[3]", "acme/evil-mcp"]);
        let reasons: Vec<&str> = s
            .servers
            .iter()
            .map(|e| e.body.as_ref().unwrap_err().as_str())
            .collect();
        assert!(reasons[0].contains("no name"));
        assert!(reasons[1].contains("name must be a string (it is an integer)"));
        assert!(reasons[2].contains("must be a mapping (it is a string)"));
        assert!(reasons[3].contains("(it is null)"));
        assert!(reasons[4].contains("`uses:` reference"));
        let refs_only = section("mcpServers:\n  - uses: acme/mcp\n");
        assert!(refs_only.servers[0].body.is_err());
        assert_eq!(refs_only.error, None);
        assert_eq!((s.servers[2].line, s.servers[2].column), (1, 1));
        // A valid server with a `uses` key is a server: zod tries that schema first.
        let got = servers("mcpServers:\n  - name: a\n    command: node\n    uses: acme/x\n");
        assert_eq!(
            got[0].body.as_ref().unwrap().command.as_deref(),
            Some("node")
        );
        assert_eq!((s.servers[4].line, s.servers[4].column), (7, 5));
        assert!(s.error.is_some());
    }

    #[test]
    fn mcp_servers_must_be_a_list() {
        refused_with(
            "mcpServers:\n  fs:\n    command: npx\n",
            LoadErrorKind::Shape,
            "mcpServers must be a list of servers (it is a mapping)",
        );
        refused_with(
            "- a\n- b\n",
            LoadErrorKind::Shape,
            "must be a mapping (it is a list)",
        );
        refused_with("", LoadErrorKind::Shape, "no YAML document");
        refused_with(
            "# only a comment\n",
            LoadErrorKind::Shape,
            "no YAML document",
        );
    }

    #[test]
    fn repeated_names_are_all_sent_and_flagged() {
        let got = servers(
            "mcpServers:\n  - name: a\n    command: one\n  - name: b\n    command: x\n  - name: a\n    command: two\n",
        );
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].twin, Some(Twin::DuplicateName));
        assert_eq!(got[1].twin, None);
        assert_eq!(got[2].twin, Some(Twin::DuplicateName));
        assert_eq!(
            got[2].body.as_ref().unwrap().command.as_deref(),
            Some("two")
        );
    }

    #[test]
    fn repeated_keys_are_refused_anywhere() {
        for text in [
            "mcpServers:\n  - name: a\n    command: one\n    command: two\n",
            "mcpServers: []\nmcpServers:\n  - name: a\n    command: x\n",
            "models: {a: 1, \"a\": 2}\n",
            "mcpServers:\n  - name: a\n    command: x\n    env: {K: a, 'K': b}\n",
        ] {
            let e = refused_with(text, LoadErrorKind::Syntax, "is repeated");
            assert_eq!(e.construct, Some(Construct::DuplicateKey));
        }
    }

    #[test]
    fn anchors_and_aliases_are_shared_and_read() {
        let text = "\
base: &env
  TOKEN: t
args: &args [\"-y\", pkg]
mcpServers:
  - name: a
    command: &cmd npx
    args: *args
    env: *env
  - name: b
    command: *cmd
    env: *env
  - &whole
    name: c
    command: node
  - *whole
";
        let got = servers(text);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].body.as_ref().unwrap().args, ["-y", "pkg"]);
        assert_eq!(
            got[1].body.as_ref().unwrap().command.as_deref(),
            Some("npx")
        );
        assert_eq!(
            got[1].body.as_ref().unwrap().env,
            got[0].body.as_ref().unwrap().env
        );
        // The alias of a whole entry is the same entry again: a repeated name.
        assert_eq!(got[3].name, "c");
        assert_eq!(got[2].twin, Some(Twin::DuplicateName));
        let doc = parse(text).unwrap();
        assert_eq!(doc.counts.aliases, 5);
        // A merge key is an ordinary key in YAML 1.2: Continue merges nothing.
        let got = servers(
            "x: &b {command: evil}\nmcpServers:\n  - name: a\n    command: good\n    <<: *b\n",
        );
        assert_eq!(
            got[0].body.as_ref().unwrap().command.as_deref(),
            Some("good")
        );
        let s = section("x: &b {command: evil}\nmcpServers:\n  - name: a\n    <<: *b\n");
        assert!(s.servers[0]
            .body
            .as_ref()
            .unwrap_err()
            .contains("command is missing"));
    }

    /// A document of `levels` levels of `fan` aliases each: 10^9 nodes expanded at 9x10.
    fn laughs(levels: usize, fan: usize) -> String {
        let mut text = String::from("a0: &a0 lol\n");
        for level in 1..=levels {
            let refs = vec![format!("*a{}", level - 1); fan].join(", ");
            text.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
        }
        text.push_str(&format!(
            "mcpServers:\n  - name: x\n    command: c\n    args: *a{levels}\n"
        ));
        text
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_is_expanded() {
        let text = laughs(9, 10);
        // Continue's own budget refuses it first, at the third level (11 references
        // to `a1`, which weighs 11): one node per source node, counted, not expanded.
        let e = refused_with(&text, LoadErrorKind::Shape, "alias budget");
        assert!(e.message.contains("line 3"), "{}", e.message);
        // doctor's own bounds stay behind it, for anchors `yaml` weighs 0 (empty
        // collections): the reference bound.
        let mut many = String::from("a: &a []\nb: [");
        many.push_str(&vec!["*a"; MAX_ALIAS_REFERENCES + 1].join(","));
        many.push_str("]\n");
        refused_with(&many, LoadErrorKind::Shape, "alias bomb");
        many = String::from("a: &a []\nb: [");
        many.push_str(&vec!["*a"; MAX_ALIAS_REFERENCES].join(","));
        many.push_str("]\n");
        let doc = parse(&many).unwrap();
        assert_eq!(doc.counts.aliases, MAX_ALIAS_REFERENCES);
        assert_eq!(doc.counts.nodes, 5);
        // Anchors of anchors within both budgets: 5 x 1 + 5 x 6 + 1 x 31 nodes.
        let doc = parse(&laughs(2, 5)).unwrap();
        assert_eq!(doc.counts.alias_nodes, 5 + 30 + 31);
    }

    #[test]
    fn a_recursive_alias_is_refused() {
        refused_with("a: &a [1, *a]\n", LoadErrorKind::Shape, "recursive alias");
        refused_with("a: &a {b: *a}\n", LoadErrorKind::Shape, "recursive alias");
        refused_with("*x : 1\n", LoadErrorKind::Syntax, "unknown anchor");
    }

    #[test]
    fn deep_nesting_is_too_deep_without_recursion() {
        for text in [
            "[".repeat(10_000),
            format!("{}x", "- ".repeat(10_000)),
            format!("{}x", "{a: ".repeat(10_000)),
            (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect(),
        ] {
            let e = load(&text).unwrap_err();
            assert_eq!(e.kind, LoadErrorKind::TooDeep, "{}", e.message);
            assert_eq!(e.construct, Some(Construct::DeepNesting));
        }
        // Exactly the bound is accepted: root at depth 0, the innermost at 128.
        let ok = format!(
            "{}{}",
            "[".repeat(MAX_CONFIG_DEPTH),
            "]".repeat(MAX_CONFIG_DEPTH)
        );
        assert!(parse(&ok).is_ok());
        let over = format!(
            "{}{}",
            "[".repeat(MAX_CONFIG_DEPTH + 2),
            "]".repeat(MAX_CONFIG_DEPTH + 2)
        );
        assert_eq!(parse(&over).err().unwrap().kind, LoadErrorKind::TooDeep);
        // Through an alias: a deep anchor placed deeper still.
        let deep = format!(
            "a: &d {}{}\nb: {}*d{}\n",
            "[".repeat(100),
            "]".repeat(100),
            "[".repeat(60),
            "]".repeat(60)
        );
        assert_eq!(parse(&deep).err().unwrap().kind, LoadErrorKind::TooDeep);
        // A deep tree built and dropped without recursion (within the bound, wide).
        let wide = format!("{}{}", "[[], ".repeat(120), "]".repeat(120));
        drop(parse(&wide));
    }

    #[test]
    fn wide_flow_nesting_within_the_bound_is_read() {
        // Many siblings, each nested 20 deep: the depth bound is per element, not
        // a count of brackets.
        let item = format!("{}a{}", "[".repeat(20), "]".repeat(20));
        let text = format!("a: [{}]\n", vec![item.as_str(); 2_000].join(", "));
        let doc = parse(&text).unwrap();
        assert_eq!(doc.counts.nodes, 1 + 1 + 1 + 2_000 * 21);
    }

    #[test]
    fn more_than_one_document_is_refused() {
        refused_with(
            "mcpServers: []\n---\nmcpServers:\n  - name: hidden\n    command: evil\n",
            LoadErrorKind::Syntax,
            "a second document",
        );
        refused_with(
            "---\na: 1\n--- \n",
            LoadErrorKind::Syntax,
            "a second document",
        );
        // One explicit document, with an end marker: fine.
        assert!(servers("---\nmcpServers: []\n...\n").is_empty());
    }

    #[test]
    fn tags_and_directives() {
        let got = servers(
            "mcpServers:\n  - name: !!str a\n    command: !!str 123\n    args: !!seq [! 1]\n",
        );
        assert_eq!(got[0].name, "a");
        let body = got[0].body.as_ref().unwrap();
        assert_eq!(body.command.as_deref(), Some("123"));
        assert_eq!(body.args, ["1"]);
        for (text, words) in [
            ("a: !!int 3\n", "the tag !!int"),
            ("a: !custom x\n", "the tag !custom"),
            ("a: !!binary aGk=\n", "the tag !!binary"),
            ("a: !!map [1]\n", "the tag !!map"),
            ("%YAML 1.1\n---\na: yes\n", "%YAML 1.1"),
            ("%TAG !! tag:evil.example,2000:\n---\na: !!str x\n", "%TAG"),
        ] {
            refused_with(text, LoadErrorKind::Shape, words);
        }
        assert!(servers("%YAML 1.2\n---\nmcpServers: []\n").is_empty());
    }

    #[test]
    fn keys_that_are_not_strings_are_refused() {
        for text in [
            "1: a\n",
            "null: a\n",
            "true: a\n",
            "? [a]\n: b\n",
            "{a: 1}: b\n",
            "a: &k x\n*k : y\n",
        ] {
            let e = load(text).unwrap_err();
            assert_eq!(e.kind, LoadErrorKind::Shape, "{text}: {}", e.message);
            assert!(e.message.contains("key"), "{}", e.message);
        }
        // Quoted, they are strings.
        assert!(servers("\"1\": a\n'null': b\n").is_empty());
    }

    #[test]
    fn core_schema_scalars() {
        let kinds = |s: &str| resolve_plain(s.to_string()).kind();
        for (s, k) in [
            ("", "null"),
            ("~", "null"),
            ("Null", "null"),
            ("nULL", "a string"),
            ("TRUE", "a boolean"),
            ("yes", "a string"),
            ("on", "a string"),
            ("12", "an integer"),
            ("-3", "an integer"),
            ("0o17", "an integer"),
            ("0x1F", "an integer"),
            ("0b1", "a string"),
            ("1_000", "a string"),
            ("1.5", "a float"),
            (".5", "a float"),
            ("1.", "a float"),
            ("1e3", "a float"),
            ("-.INF", "a float"),
            (".NaN", "a float"),
            ("1.2.3", "a string"),
            ("1:30", "a string"),
            ("+12", "an integer"),
            ("0o8", "a string"),
        ] {
            assert_eq!(kinds(s), k, "{s:?}");
        }
    }

    #[test]
    fn bom_invalid_utf8_and_huge_scalars() {
        let with_bom = format!("\u{FEFF}{CONFIG}");
        let got = servers(&with_bom);
        assert_eq!((got[0].line, got[0].column), (9, 5));
        let mut bytes = b"mcpServers:\n  - name: a\xff\n    command: node\n".to_vec();
        let c = match parse_file(FileFormat::ContinueYaml, &bytes) {
            ChildMessage::Config(c) => c.unwrap(),
            _ => panic!(),
        };
        assert_eq!(c.sections[0].servers[0].name, "a\u{FFFD}");
        assert_eq!(
            c.sections[0].error.as_ref().unwrap().construct,
            Some(Construct::InvalidUtf8)
        );
        bytes.clear();
        let huge = "x".repeat(MAX_STRING_BYTES + 1);
        let s = section(&format!("mcpServers:\n  - name: a\n    command: {huge}\n"));
        assert!(s.servers[0]
            .body
            .as_ref()
            .unwrap_err()
            .contains("longer than"));
        refused_with(
            &format!("mcpServers:\n  - name: {huge}\n    command: x\n"),
            LoadErrorKind::Shape,
            "server name at line 2 column 5 is longer",
        );
    }

    #[test]
    fn positions_after_non_ascii_block_scalars_and_line_breaks() {
        // yaml-rust2's marker index counts block-scalar bytes, not chars; the
        // positions come from its lines and columns instead.
        // (A lone CR is refused: see the next test.)
        let text = "mcpServers:\r\n  - name: a\r\n    command: |\r\n      é😀é\r\n  - name: b\n    command: x\n  - {command: y, name: c}\n";
        let got = servers(text);
        let at: Vec<(u32, u32)> = got.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(at, [(2, 5), (5, 5), (7, 18)]);
        assert_eq!(
            got[0].body.as_ref().unwrap().command.as_deref(),
            Some("é😀é\n")
        );
    }

    #[test]
    fn the_yaml_packages_alias_budget_is_continues() {
        // `yaml`'s `maxAliasCount` (100): the anchor counts as one reference, and
        // an anchor is weighed by its largest leaf when it is first aliased.
        let uses = |anchor: &str, n: usize| vec![format!("*{anchor}"); n].join(", ");
        let doc = |body: String| format!("{body}\nmcpServers:\n  - {{name: s, command: sh}}\n");
        let budget = |text: String| match load(&text) {
            Ok(_) => true,
            Err(e) if e.message.contains("alias budget") => false,
            Err(e) => panic!("{text}: {}", e.message),
        };
        assert!(budget(doc(format!("a: &a x\nz: [{}]", uses("a", 99)))));
        assert!(!budget(doc(format!("a: &a x\nz: [{}]", uses("a", 100)))));
        // [*a x9] weighs 10 (a's count then): 9 uses of it are 100, 10 are 110.
        let nested = |n| {
            doc(format!(
                "a: &a x\nb: &b [{}]\nz: [{}]",
                uses("a", 9),
                uses("b", n)
            ))
        };
        assert!(budget(nested(9)));
        assert!(!budget(nested(10)));
        // An empty collection weighs 0: any number of references.
        assert!(budget(doc(format!("e: &e []\nz: [{}]", uses("e", 300)))));
        // Weighed once, when first aliased: later uses of `a` do not raise `b`.
        assert!(budget(doc(format!(
            "a: &a x\nb: &b [*a]\nz: [{}]\ny: [{}]",
            uses("b", 40),
            uses("a", 90)
        ))));
    }

    #[test]
    fn a_lone_carriage_return_is_refused_and_crlf_is_read() {
        let e =
            load("name: c\rversion: '1'\rmcpServers:\r  - {name: a, command: sh}\r").unwrap_err();
        assert!(e.message.contains("carriage return"), "{}", e.message);
        assert_eq!(
            servers("mcpServers:\r\n  - name: a\r\n    command: sh\r\n").len(),
            1
        );
    }

    #[test]
    fn a_syntax_error_says_continue_may_still_load_the_file() {
        // A tab after `:` is a separator for Continue's `yaml`, not for `yaml-rust2`.
        let e = load("mcpServers:\n  - name:\ta\n    command: sh\n").unwrap_err();
        assert!(
            e.message.contains("Continue's YAML parser may still load"),
            "{}",
            e.message
        );
    }

    #[test]
    fn syntax_errors_name_the_position() {
        let e = refused_with(
            "mcpServers:\n  - name: a\n   bad: [\n",
            LoadErrorKind::Syntax,
            "invalid YAML at line",
        );
        assert!(
            e.message.contains("line 3") || e.message.contains("line 4"),
            "{}",
            e.message
        );
        refused_with("a: \"é\n", LoadErrorKind::Syntax, "invalid YAML at line");
        refused_with("a: b: c\n", LoadErrorKind::Syntax, "invalid YAML at line 1");
    }
}
