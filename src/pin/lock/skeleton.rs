//! Schema skeleton: the security-relevant structure of a JSON Schema, one record
//! per property path, hashed into `entry_digest` and used by `check` to say *what*
//! changed. Extraction never fails: malformed, cyclic or over-deep input degrades
//! to opaque (`{"$ref": …}`) or truncated (`{"_truncated": true}`) leaves.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::pyjson;

/// Deepest node walked; deeper nodes become truncated leaves.
const MAX_DEPTH: usize = 64;
/// In-document `$ref`s that may be followed along one path.
const MAX_REFS: usize = 256;
/// Path under which the root node's facts are recorded.
pub const ROOT_PATH: &str = "$root";
/// Constraint keys kept in a record; everything else is cosmetic.
const CONSTRAINT_KEYS: [&str; 7] = [
    "maxLength",
    "minLength",
    "minimum",
    "maximum",
    "pattern",
    "format",
    "additionalProperties",
];

/// A `$ref` that could not be followed.
enum Resolved<'a> {
    Node(&'a Map<String, Value>),
    Opaque,
    Cycle,
}

struct Walker<'a> {
    root: Option<&'a Value>,
    /// Sorted by path so the serialized skeleton is deterministic.
    props: BTreeMap<String, Value>,
}

fn facts(ty: Value, required: bool, en: Value, constraints: Map<String, Value>) -> Value {
    // Key order as the earlier implementation writes it; JCS re-sorts for hashing.
    let mut m = Map::new();
    m.insert("type".into(), ty);
    m.insert("required".into(), Value::Bool(required));
    m.insert("enum".into(), en);
    m.insert("constraints".into(), Value::Object(constraints));
    Value::Object(m)
}

fn marker(required: bool, key: &str, value: Value) -> Value {
    let mut c = Map::new();
    c.insert(key.into(), value);
    facts(Value::Null, required, Value::Null, c)
}

fn normalize_type(raw: Option<&Value>) -> Value {
    match raw {
        Some(Value::String(s)) => Value::Array(vec![Value::String(s.clone())]),
        Some(Value::Array(items)) => {
            let mut names: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            names.sort_unstable();
            names.dedup();
            if names.is_empty() {
                Value::Null
            } else {
                Value::Array(names.into_iter().map(|s| Value::String(s.into())).collect())
            }
        }
        _ => Value::Null,
    }
}

fn normalize_enum(raw: Option<&Value>) -> Value {
    match raw {
        Some(Value::Array(items)) => {
            let mut keyed: Vec<((&str, String), &Value)> = items
                .iter()
                .map(|v| ((pyjson::type_name(v), pyjson::dumps_sorted(v)), v))
                .collect();
            // Stable, like Python's sorted().
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Array(keyed.into_iter().map(|(_, v)| v.clone()).collect())
        }
        _ => Value::Null,
    }
}

fn constraints(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut sorted: BTreeMap<&str, Value> = BTreeMap::new();
    for key in CONSTRAINT_KEYS {
        if let Some(v) = schema.get(key) {
            sorted.insert(key, v.clone());
        }
    }
    sorted
        .entry("additionalProperties")
        .or_insert(Value::Bool(true));
    sorted
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// Percent-decoding as `urllib.parse.unquote` does it: `%XX` sequences become
/// bytes, the bytes are read as UTF-8 with invalid sequences replaced.
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_array_index(seg: &str, len: usize) -> Option<usize> {
    if seg.is_empty() || !seg.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if seg.len() > 1 && seg.starts_with('0') {
        return None;
    }
    seg.parse::<usize>().ok().filter(|&i| i < len)
}

impl<'a> Walker<'a> {
    fn resolve(&self, reference: &str, ref_path: &[String]) -> Resolved<'a> {
        let Some(root) = self.root else {
            return Resolved::Opaque;
        };
        if !reference.starts_with('#') || reference == "#" {
            return Resolved::Opaque;
        }
        if ref_path.iter().any(|r| r == reference) {
            return Resolved::Cycle;
        }
        if ref_path.len() >= MAX_REFS {
            return Resolved::Opaque;
        }
        let frag = percent_decode(&reference[1..]);
        if frag.is_empty() {
            return Resolved::Opaque;
        }
        let mut segments = frag.split('/');
        // A JSON pointer starts with '/': the first split piece must be empty.
        if segments.next() != Some("") {
            return Resolved::Opaque;
        }
        let mut cur: &'a Value = root;
        for seg in segments {
            let seg = seg.replace("~1", "/").replace("~0", "~");
            cur = match cur {
                Value::Object(m) => match m.get(&seg) {
                    Some(v) => v,
                    None => return Resolved::Opaque,
                },
                Value::Array(items) => match is_array_index(&seg, items.len()) {
                    Some(i) => &items[i],
                    None => return Resolved::Opaque,
                },
                _ => return Resolved::Opaque,
            };
        }
        match cur {
            Value::Object(m) => Resolved::Node(m),
            _ => Resolved::Opaque,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        schema: &'a Value,
        path: &str,
        required: bool,
        visited: &[usize],
        depth: usize,
        ref_path: &[String],
    ) {
        let node_key = if path.is_empty() { ROOT_PATH } else { path };
        let Value::Object(map) = schema else {
            // A non-object property schema records a bare open leaf; note that
            // `required` is false here even when the parent lists the key (the
            // format hashes this quirk, so it is kept).
            if !path.is_empty() {
                let mut c = Map::new();
                c.insert("additionalProperties".into(), Value::Bool(true));
                self.props
                    .insert(path.to_string(), facts(Value::Null, false, Value::Null, c));
            }
            return;
        };
        self.walk_object(map, node_key, path, required, visited, depth, ref_path);
    }

    #[allow(clippy::too_many_arguments)]
    fn walk_object(
        &mut self,
        map: &'a Map<String, Value>,
        node_key: &str,
        path: &str,
        required: bool,
        visited: &[usize],
        depth: usize,
        ref_path: &[String],
    ) {
        if let Some(reference) = map.get("$ref") {
            if map.len() != 1 {
                // Siblings next to $ref: resolving would drop their meaning.
                let text = pyjson::py_str(reference);
                self.props.insert(
                    node_key.to_string(),
                    marker(required, "$ref", Value::String(text)),
                );
                return;
            }
            let Value::String(r) = reference else {
                let text = pyjson::py_str(reference);
                self.props.insert(
                    node_key.to_string(),
                    marker(required, "$ref", Value::String(text)),
                );
                return;
            };
            match self.resolve(r, ref_path) {
                Resolved::Opaque => {
                    self.props.insert(
                        node_key.to_string(),
                        marker(required, "$ref", Value::String(r.clone())),
                    );
                }
                Resolved::Cycle => {
                    self.props.insert(
                        node_key.to_string(),
                        marker(required, "_truncated", Value::Bool(true)),
                    );
                }
                Resolved::Node(target) => {
                    let mut next_refs = ref_path.to_vec();
                    next_refs.push(r.clone());
                    self.walk_object(
                        target,
                        node_key,
                        path,
                        required,
                        visited,
                        depth + 1,
                        &next_refs,
                    );
                }
            }
            return;
        }

        // Node identity, as the earlier implementation's id(): the address of the
        // map. Re-entering the same node on one path (through differently spelled
        // refs) is a cycle.
        let node_id = map as *const Map<String, Value> as usize;
        if depth > MAX_DEPTH || visited.contains(&node_id) {
            self.props.insert(
                node_key.to_string(),
                marker(required, "_truncated", Value::Bool(true)),
            );
            return;
        }
        let mut visited = visited.to_vec();
        visited.push(node_id);

        self.props.insert(
            node_key.to_string(),
            facts(
                normalize_type(map.get("type")),
                required,
                normalize_enum(map.get("enum")),
                constraints(map),
            ),
        );

        if let Some(Value::Object(properties)) = map.get("properties") {
            let required_set: Vec<&str> = match map.get("required") {
                Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let mut keys: Vec<&String> = properties.keys().collect();
            keys.sort();
            for key in keys {
                if let Some(child) = properties.get(key) {
                    let child_path = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    let req = required_set.contains(&key.as_str());
                    self.walk(child, &child_path, req, &visited, depth + 1, ref_path);
                }
            }
        }
        if let Some(items @ Value::Object(_)) = map.get("items") {
            let child_path = if path.is_empty() {
                "[]".to_string()
            } else {
                format!("{path}[]")
            };
            self.walk(items, &child_path, false, &visited, depth + 1, ref_path);
        }
    }
}

/// The skeleton of a schema as the JSON value stored in the lock: `{"props": {…}}`.
pub fn extract_skeleton(schema: Option<&Value>) -> Value {
    let root = schema.filter(|s| s.is_object());
    let mut walker = Walker {
        root,
        props: BTreeMap::new(),
    };
    if let Some(s) = schema {
        walker.walk(s, "", false, &[], 0, &[]);
    }
    let props: Map<String, Value> = walker.props.into_iter().collect();
    let mut out = Map::new();
    out.insert("props".into(), Value::Object(props));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn simple_schema() {
        let s =
            json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]});
        let sk = extract_skeleton(Some(&s));
        assert_eq!(
            sk,
            json!({"props":{"$root":{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true}},
                "path":{"type":["string"],"required":true,"enum":null,"constraints":{"additionalProperties":true}}}})
        );
    }

    #[test]
    fn refs_cycles_and_quirks() {
        let s = json!({
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {
                "a": {"$ref": "#/$defs/node"},
                "b": {"$ref": "https://x/y"},
                "c": {"$ref": "#/$defs/node", "description": "x"},
                "d": 5
            },
            "required": ["d"]
        });
        let sk = extract_skeleton(Some(&s));
        let p = &sk["props"];
        assert_eq!(p["a"]["type"], json!(["object"]));
        assert_eq!(p["a.next"]["constraints"], json!({"_truncated": true}));
        assert_eq!(p["b"]["constraints"], json!({"$ref": "https://x/y"}));
        assert_eq!(p["c"]["constraints"], json!({"$ref": "#/$defs/node"}));
        assert_eq!(p["d"]["required"], json!(false));
        assert_eq!(extract_skeleton(Some(&json!("x"))), json!({"props": {}}));
        assert_eq!(extract_skeleton(None), json!({"props": {}}));
    }

    #[test]
    fn enum_order() {
        let s = json!({"enum": ["b", 1, null, true, 2.5, "a", {"y":1,"x":2}]});
        let sk = extract_skeleton(Some(&s));
        assert_eq!(
            sk["props"]["$root"]["enum"],
            json!([null, true, {"y":1,"x":2}, 2.5, 1, "a", "b"])
        );
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/%24defs/a%2"), "/$defs/a%2");
    }
}
