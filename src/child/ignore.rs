//! The user's suppression file (`ignore.toml`): its `[[ignore]]` tables, each field
//! as written.
//!
//! Parsed with the same span-preserving TOML parser as Codex configs (nesting
//! bounded, duplicate keys refused). The file's shape is strict: the only top-level
//! key is `ignore`, an array of tables; anything else makes the whole file
//! unreadable (a `[[ignores]]` typo must not pass as "no suppressions"). Within an
//! entry, a field of the wrong type or an unknown key is that entry's own
//! [`IgnoreEntry::shape_error`]: the parent reports the entry and applies the
//! others. What the values mean is the parent's (`crate::suppress`).

use toml::de::{DeTable, DeValue};

use super::position::{line_col, line_cols};
use super::servers::Node;
use crate::protocol::bounds::MAX_STRING_BYTES;
use crate::protocol::{IgnoreEntry, IgnoreList, LoadError, LoadErrorKind};

/// Longest [`IgnoreEntry::shape_error`], in bytes (the answer's share counts it
/// per entry).
pub(crate) const MAX_SHAPE_ERROR: usize = 256;

/// The keys an entry may have.
const KEYS: [&str; 4] = ["rule", "target", "reason", "expires"];

fn shape(message: String) -> LoadError {
    LoadError {
        kind: LoadErrorKind::Shape,
        message,
        construct: None,
    }
}

/// The entries of a suppression file.
///
/// # Errors
/// `Syntax` when the text is not TOML; `Shape` when it is not a list of `[[ignore]]`
/// tables (another top-level key, `ignore` not an array of tables). Every entry is
/// read, however many the file holds.
pub(crate) fn read_ignore(text: &str) -> Result<IgnoreList, LoadError> {
    let doc = DeTable::parse(text).map_err(|e| super::toml::syntax_error(text, &e))?;
    // Every position the entries need, resolved in one pass over the text (an inline
    // `ignore = [{}, {}, …]` puts hundreds of thousands of entries on one line).
    let mut offsets = Vec::new();
    for (_, value) in doc.get_ref().iter() {
        if let DeValue::Array(items) = value.get_ref() {
            for item in items.iter() {
                offsets.push(item.span().start);
                if let DeValue::Table(table) = item.get_ref() {
                    offsets.extend(table.iter().map(|(_, v)| v.span().start));
                }
            }
        }
    }
    let mut positions = line_cols(text, &offsets).into_iter();
    let mut next_position = move || positions.next().unwrap_or((1, 1));
    let mut entries = Vec::new();
    for (key, value) in doc.get_ref().iter() {
        if key.get_ref() != "ignore" {
            let (line, col) = line_col(text, key.span().start);
            return Err(shape(format!(
                "unknown top-level key at line {line} column {col} (only [[ignore]] tables are read)"
            )));
        }
        let DeValue::Array(items) = value.get_ref() else {
            return Err(shape(format!(
                "ignore must be an array of tables ([[ignore]]); it is {}",
                value.get_ref().kind()
            )));
        };
        for item in items.iter() {
            let (line, column) = next_position();
            let DeValue::Table(table) = item.get_ref() else {
                return Err(shape(format!(
                    "the ignore entry at line {line} column {column} is {}, not a table",
                    item.get_ref().kind()
                )));
            };
            let mut entry = IgnoreEntry {
                line: line.max(1),
                column: column.max(1),
                ..IgnoreEntry::default()
            };
            let mut problems = Vec::new();
            for (k, v) in table.iter() {
                let name = k.get_ref().as_ref();
                let value = match (name, v.get_ref()) {
                    (_, DeValue::String(s)) => Some(s.to_string()),
                    // `expires = 2027-01-31` (a TOML local date) means the same as the
                    // quoted form.
                    ("expires", DeValue::Datetime(d)) => match (d.date, d.time, d.offset) {
                        (Some(date), None, None) => Some(date.to_string()),
                        _ => {
                            problems.push(
                                "expires must be a date (YYYY-MM-DD), not a date-time".to_string(),
                            );
                            None
                        }
                    },
                    (_, other) if KEYS.contains(&name) => {
                        problems.push(format!("{name} must be a string (it is {})", other.kind()));
                        None
                    }
                    _ => None,
                };
                let (value_line, value_column) = next_position();
                let value_at = Some((value_line.max(1), value_column.max(1)));
                match name {
                    "rule" => entry.at.rule = value_at,
                    "target" => entry.at.target = value_at,
                    "reason" => entry.at.reason = value_at,
                    "expires" => entry.at.expires = value_at,
                    _ => {}
                }
                let slot = match name {
                    "rule" => &mut entry.rule,
                    "target" => &mut entry.target,
                    "reason" => &mut entry.reason,
                    "expires" => &mut entry.expires,
                    _ => {
                        let shown: String = name.chars().take(64).collect();
                        problems.push(format!(
                            "unknown key {shown:?} (an entry has rule, target, reason and expires)"
                        ));
                        continue;
                    }
                };
                match value {
                    Some(v) if v.len() > MAX_STRING_BYTES => {
                        problems.push(format!("{name} is longer than {MAX_STRING_BYTES} bytes"));
                    }
                    v => *slot = v,
                }
            }
            if !problems.is_empty() {
                let mut why = problems.join("; ");
                if why.len() > MAX_SHAPE_ERROR {
                    let mut end = MAX_SHAPE_ERROR - '…'.len_utf8();
                    while !why.is_char_boundary(end) {
                        end -= 1;
                    }
                    why.truncate(end);
                    why.push('…');
                }
                entry.shape_error = Some(why);
            }
            entries.push(entry);
        }
    }
    Ok(IgnoreList { entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_fields_and_positions() {
        let list = read_ignore(
            "# mine\n[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINNED\"\ntarget = \"~/.cursor/mcp.json#*\"\n\
             reason = \"mirror\"\nexpires = \"2999-01-31\"\n\n[[ignore]]\nrule = 3\nexpires = 2999-02-01\nx = 1\n",
        )
        .expect("parses");
        assert_eq!(list.entries.len(), 2);
        let first = &list.entries[0];
        assert_eq!((first.line, first.column), (2, 1));
        assert_eq!(first.rule.as_deref(), Some("WRD-SUP-NPX-UNPINNED"));
        assert_eq!(first.expires.as_deref(), Some("2999-01-31"));
        assert_eq!(first.shape_error, None);
        let second = &list.entries[1];
        assert_eq!(second.line, 8);
        assert_eq!(second.rule, None);
        assert_eq!(second.expires.as_deref(), Some("2999-02-01"));
        let why = second.shape_error.as_deref().unwrap_or_default();
        assert!(
            why.contains("rule must be a string") && why.contains("unknown key"),
            "{why}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_list_of_ignore_tables_is_unreadable() {
        for (text, kind) in [
            ("[[ignore]\n", LoadErrorKind::Syntax),
            ("rule = 1\n", LoadErrorKind::Shape),
            ("[[ignores]]\nrule = \"x\"\n", LoadErrorKind::Shape),
            ("ignore = 1\n", LoadErrorKind::Shape),
            ("ignore = [1]\n", LoadErrorKind::Shape),
            ("[ignore]\nrule = \"x\"\n", LoadErrorKind::Shape),
        ] {
            assert_eq!(read_ignore(text).map_err(|e| e.kind), Err(kind), "{text:?}");
        }
        assert_eq!(read_ignore("").map(|l| l.entries.len()), Ok(0));
    }
}
