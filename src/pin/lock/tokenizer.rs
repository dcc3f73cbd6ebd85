//! Identifier tokenizer and capability derivation (the flags stored in every tool
//! entry and hashed into its `entry_digest`).
//!
//! The split rule is the earlier implementation's: explicit delimiters
//! (`_`, `-`, `.`, whitespace), a lower/digit→upper boundary (`runShell`), and an
//! acronym boundary (`HTTPServer` → `HTTP`, `Server`). Matching is on whole
//! segments, never substrings, so `shelter` never means `shell`.

use serde_json::Value;

/// Name tokens and property tokens for one capability flag.
struct CapRule {
    flag: &'static str,
    name_tokens: &'static [&'static str],
    prop_tokens: &'static [&'static str],
}

const SHELL: CapRule = CapRule {
    flag: "shell-exec",
    name_tokens: &[
        "shell",
        "exec",
        "spawn",
        "system",
        "subprocess",
        "sudo",
        "bash",
        "sh",
        "cmd",
        "powershell",
    ],
    prop_tokens: &["command", "cmd", "script", "shell"],
};
const FS_WRITE: CapRule = CapRule {
    flag: "fs-write",
    name_tokens: &[
        "write", "save", "create", "delete", "rm", "unlink", "mkdir", "chmod", "mv", "rename",
    ],
    prop_tokens: &["path", "file", "filename", "dest", "target"],
};
const FS_READ: CapRule = CapRule {
    flag: "fs-read",
    name_tokens: &["read", "cat", "open", "load", "get", "list"],
    prop_tokens: &["path", "file", "filename", "src", "source"],
};
const HTTP: CapRule = CapRule {
    flag: "http-request",
    name_tokens: &["fetch", "http", "request", "curl", "download", "webhook"],
    prop_tokens: &["url", "uri", "endpoint", "host", "hostname"],
};
const SQL: CapRule = CapRule {
    flag: "sql-query",
    name_tokens: &["sql", "query", "execute", "db"],
    prop_tokens: &["query", "sql", "statement"],
};
/// Content-like properties that, next to a path property, imply a write.
const FS_WRITE_CONTENT: &[&str] = &["content", "data", "body", "text", "bytes", "payload"];

const ALL: [&CapRule; 5] = [&SHELL, &FS_WRITE, &FS_READ, &HTTP, &SQL];

/// Whitespace as Python's `\s` sees it in a `str` pattern: Rust's White_Space
/// set plus the four C0 separators U+001C..U+001F, which Python counts as space.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn is_delim(c: char) -> bool {
    c == '_' || c == '-' || c == '.' || is_py_space(c)
}

/// Split an identifier into lowercase segments (empty segments dropped).
pub fn tokenize(identifier: &str) -> Vec<String> {
    let chars: Vec<char> = identifier.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_delim(c) {
            // A run of delimiters is one split.
            while i < chars.len() && is_delim(chars[i]) {
                i += 1;
            }
            push_segment(&mut out, &mut cur);
            continue;
        }
        if i > 0 && !cur.is_empty() {
            let prev = chars[i - 1];
            let next = chars.get(i + 1).copied();
            let lower_to_upper =
                (prev.is_ascii_lowercase() || prev.is_ascii_digit()) && c.is_ascii_uppercase();
            let acronym_end = prev.is_ascii_uppercase()
                && c.is_ascii_uppercase()
                && next.is_some_and(|n| n.is_ascii_lowercase());
            if lower_to_upper || acronym_end {
                push_segment(&mut out, &mut cur);
            }
        }
        cur.push(c);
        i += 1;
    }
    push_segment(&mut out, &mut cur);
    out
}

fn push_segment(out: &mut Vec<String>, cur: &mut String) {
    if !cur.is_empty() {
        out.push(cur.to_lowercase());
        cur.clear();
    }
}

fn has_token(identifier: &str, keywords: &[&str]) -> bool {
    tokenize(identifier)
        .iter()
        .any(|t| keywords.contains(&t.as_str()))
}

/// Top-level `properties` keys of a schema, in document order.
pub fn property_names(schema: Option<&Value>) -> Vec<&str> {
    schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn has_property(props: &[&str], keywords: &[&str]) -> bool {
    props.iter().any(|p| has_token(p, keywords))
}

/// Sorted, de-duplicated capability flags of a tool. `schema` is the input
/// schema only when it is a JSON object.
pub fn derive_capabilities(name: &str, schema: Option<&Value>) -> Vec<String> {
    let props = property_names(schema);
    let mut flags = Vec::new();
    if has_token(name, SHELL.name_tokens) || has_property(&props, SHELL.prop_tokens) {
        flags.push(SHELL.flag);
    }
    let has_path = has_property(&props, FS_WRITE.prop_tokens);
    if has_path && (has_token(name, FS_WRITE.name_tokens) || has_property(&props, FS_WRITE_CONTENT))
    {
        flags.push(FS_WRITE.flag);
    }
    if has_token(name, FS_READ.name_tokens) && has_property(&props, FS_READ.prop_tokens) {
        flags.push(FS_READ.flag);
    }
    if has_token(name, HTTP.name_tokens) || has_property(&props, HTTP.prop_tokens) {
        flags.push(HTTP.flag);
    }
    if has_token(name, SQL.name_tokens) || has_property(&props, SQL.prop_tokens) {
        flags.push(SQL.flag);
    }
    flags.sort_unstable();
    flags.into_iter().map(str::to_string).collect()
}

/// Secret-free evidence for a derived flag: the matching name token (the
/// smallest one) or the first matching property name.
pub fn capability_evidence(name: &str, schema: Option<&Value>, flag: &str) -> String {
    let Some(rule) = ALL.iter().find(|r| r.flag == flag) else {
        return format!("derived capability '{flag}'");
    };
    let mut matched: Vec<String> = tokenize(name)
        .into_iter()
        .filter(|t| rule.name_tokens.contains(&t.as_str()))
        .collect();
    matched.sort();
    if let Some(first) = matched.first() {
        return format!("name token '{first}'");
    }
    for p in property_names(schema) {
        if has_token(p, rule.prop_tokens) {
            return format!("property '{p}'");
        }
    }
    format!("derived capability '{flag}'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokenize_vectors() {
        assert_eq!(tokenize("runShellCommand"), ["run", "shell", "command"]);
        assert_eq!(tokenize("fs.write_file"), ["fs", "write", "file"]);
        assert_eq!(tokenize("HTTPServer"), ["http", "server"]);
        assert_eq!(tokenize("shelter"), ["shelter"]);
        assert_eq!(tokenize("__a--B"), ["a", "b"]);
        assert_eq!(tokenize("getURLs2Go"), ["get", "ur", "ls2", "go"]);
        assert!(tokenize("").is_empty());
    }

    #[test]
    fn capabilities_vectors() {
        let s = json!({"properties": {"path": {}, "data": {}}});
        assert_eq!(derive_capabilities("apply", Some(&s)), ["fs-write"]);
        let s = json!({"properties": {"command": {"type": "string"}}});
        assert_eq!(derive_capabilities("run_command", Some(&s)), ["shell-exec"]);
        assert_eq!(
            capability_evidence("run_command", Some(&s), "shell-exec"),
            "property 'command'"
        );
        let s = json!({"properties": {"path": {"type": "string"}}});
        assert_eq!(
            capability_evidence("read_file", Some(&s), "fs-read"),
            "name token 'read'"
        );
    }
}
