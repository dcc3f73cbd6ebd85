//! Codex `config.toml`: servers from the `mcp_servers` table.
//!
//! Parsed with the `toml` crate's span-preserving document parser (`DeTable`),
//! the same TOML 1.1 grammar Codex itself reads with. It bounds nesting at 80
//! (below the config bound of 128), refuses duplicate keys and raw control
//! characters, and accepts a leading BOM, as Codex does. An entry's position is
//! the start of its name in the `[mcp_servers.<name>]` header, or in the dotted or
//! inline key that first defines it; a value's position is the start of the value
//! (a string's opening quote), from the same spans.
//!
//! Keys read: `command`, `args`, `env`, `env_vars`, `cwd`, `url`, `http_headers`
//! (reported as headers), `env_http_headers`, `bearer_token_env_var`,
//! `bearer_token`, `enabled`, and the tool approval modes
//! (`default_tools_approval_mode`, `tools.<tool>.approval_mode`). Everything else
//! (timeouts, `enabled_tools`, ...) is ignored. TOML has no `null`; an integer, float, boolean or
//! datetime where a string belongs is a wrong-shaped entry, never converted.

use toml::de::{DeTable, DeValue};

use super::position::line_col;
use super::servers::{finish, server_body_at, shape, Dialect, Found, Node, PendingSection};
use crate::protocol::{LoadError, LoadErrorKind, ParsedConfig, ServerMap};

impl Node for DeValue<'_> {
    fn kind(&self) -> &'static str {
        match self {
            DeValue::String(_) => "a string",
            DeValue::Integer(_) => "an integer",
            DeValue::Float(_) => "a float",
            DeValue::Boolean(_) => "a boolean",
            DeValue::Datetime(_) => "a datetime",
            DeValue::Array(_) => "an array",
            DeValue::Table(_) => "a table",
        }
    }
    fn is_null(&self) -> bool {
        false
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            DeValue::String(s) => Some(s),
            _ => None,
        }
    }
    fn is_map(&self) -> bool {
        matches!(self, DeValue::Table(_))
    }
    fn items_at(&self) -> Option<impl ExactSizeIterator<Item = (&Self, usize)>> {
        match self {
            DeValue::Array(items) => Some(items.iter().map(|i| (i.get_ref(), i.span().start))),
            _ => None,
        }
    }
    fn entries_at(
        &self,
    ) -> Option<impl ExactSizeIterator<Item = (&str, &Self, usize)> + DoubleEndedIterator> {
        match self {
            DeValue::Table(t) => Some(
                t.iter()
                    .map(|(k, v)| (k.get_ref().as_ref(), v.get_ref(), v.span().start)),
            ),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            DeValue::Boolean(b) => Some(*b),
            _ => None,
        }
    }
    /// TOML refuses repeated keys, so there are none to report.
    fn repeated_keys(&self) -> Vec<&str> {
        Vec::new()
    }
    fn field_at(&self, key: &str) -> Option<(&Self, usize)> {
        match self {
            DeValue::Table(t) => t
                .iter()
                .find(|(k, _)| k.get_ref() == key)
                .map(|(_, v)| (v.get_ref(), v.span().start)),
            _ => None,
        }
    }
}

/// The single section of a Codex config.
pub(crate) fn codex_config(text: &str) -> Result<ParsedConfig, LoadError> {
    let doc = DeTable::parse(text).map_err(|e| syntax_error(text, &e))?;
    let root = doc.get_ref();
    let mut found = Vec::new();
    if let Some((_, servers)) = root.iter().find(|(k, _)| k.get_ref() == "mcp_servers") {
        let DeValue::Table(table) = servers.get_ref() else {
            return Err(shape(format!(
                "mcp_servers must be a table (it is {})",
                servers.get_ref().kind()
            )));
        };
        found.reserve(table.len());
        for (name, entry) in table.iter() {
            let offset = name.span().start;
            let name = name.get_ref();
            if name.len() > crate::protocol::bounds::MAX_STRING_BYTES {
                let (line, col) = line_col(text, offset);
                return Err(shape(format!(
                    "server name at line {line} column {col} is longer than {} bytes",
                    crate::protocol::bounds::MAX_STRING_BYTES
                )));
            }
            found.push(Found::new(
                ServerMap::McpServers,
                name.to_string(),
                offset,
                server_body_at(entry.get_ref(), Dialect::Toml),
            ));
        }
    }
    finish(text, vec![PendingSection::of_servers(None, Ok(found))])
}

/// A TOML syntax error with its position (also the suppression file's).
pub(crate) fn syntax_error(text: &str, e: &toml::de::Error) -> LoadError {
    let mut reason: String = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    if reason.chars().count() > 200 {
        reason = reason.chars().take(199).collect::<String>() + "…";
    }
    let message = match e.span() {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            format!("invalid TOML at line {line} column {col}: {reason}")
        }
        None => format!("invalid TOML: {reason}"),
    };
    LoadError {
        kind: LoadErrorKind::Syntax,
        message,
        construct: None,
    }
}
