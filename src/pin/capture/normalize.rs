//! Turn raw list items into captured declarations, checking the types the MCP
//! schema requires. Shapes follow what the earlier implementation hashed:
//! tools keep their raw objects (explicit nulls inside `annotations` included),
//! prompt arguments keep `name`/`description`/`required` (null when absent) plus
//! a non-null `title`, and unknown argument keys are dropped.

use crate::hash::HashSetExt;
use serde_json::{Map, Value};

use super::{CaptureError, CapturedPrompt, CapturedResource, CapturedTool, Surface};

fn obj<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what} is not an object"))
}

fn req_str(m: &Map<String, Value>, key: &str) -> Result<String, String> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("'{key}' is not a string")),
        None => Err(format!("'{key}' is missing")),
    }
}

fn opt_str(m: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("'{key}' is not a string")),
    }
}

fn opt_obj(m: &Map<String, Value>, key: &str) -> Result<Option<Value>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Object(_)) => Ok(Some(v.clone())),
        Some(_) => Err(format!("'{key}' is not an object")),
    }
}

fn check_annotations(a: &Value) -> Result<(), String> {
    let Value::Object(m) = a else {
        return Ok(());
    };
    if let Some(t) = m.get("title") {
        if !(t.is_null() || t.is_string()) {
            return Err("'annotations.title' is not a string".into());
        }
    }
    for hint in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ] {
        if let Some(h) = m.get(hint) {
            if !(h.is_null() || h.is_boolean()) {
                return Err(format!("'annotations.{hint}' is not a boolean"));
            }
        }
    }
    Ok(())
}

/// One `tools/list` item.
pub fn tool(v: &Value) -> Result<CapturedTool, String> {
    let m = obj(v, "the tool")?;
    let annotations = opt_obj(m, "annotations")?;
    if let Some(a) = &annotations {
        check_annotations(a)?;
    }
    Ok(CapturedTool {
        name: req_str(m, "name")?,
        description: opt_str(m, "description")?,
        // Kept even when it is not an object: that is reported, not refused.
        input_schema: m.get("inputSchema").filter(|s| !s.is_null()).cloned(),
        annotations,
        output_schema: opt_obj(m, "outputSchema")?,
    })
}

/// One `resources/list` item.
pub fn resource(v: &Value) -> Result<CapturedResource, String> {
    let m = obj(v, "the resource")?;
    Ok(CapturedResource {
        uri: req_str(m, "uri")?,
        name: opt_str(m, "name")?,
        description: opt_str(m, "description")?,
        mime_type: opt_str(m, "mimeType")?,
    })
}

fn prompt_argument(v: &Value) -> Result<Value, String> {
    let m = obj(v, "a prompt argument")?;
    let mut out = Map::new();
    out.insert("name".into(), Value::String(req_str(m, "name")?));
    out.insert(
        "description".into(),
        opt_str(m, "description")?.map_or(Value::Null, Value::String),
    );
    let required = match m.get("required") {
        None | Some(Value::Null) => Value::Null,
        Some(b @ Value::Bool(_)) => b.clone(),
        Some(_) => return Err("'required' of a prompt argument is not a boolean".into()),
    };
    out.insert("required".into(), required);
    if let Some(title) = opt_str(m, "title")? {
        out.insert("title".into(), Value::String(title));
    }
    Ok(Value::Object(out))
}

/// One `prompts/list` item.
pub fn prompt(v: &Value) -> Result<CapturedPrompt, String> {
    let m = obj(v, "the prompt")?;
    let arguments = match m.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(prompt_argument)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("'arguments' is not an array".into()),
    };
    Ok(CapturedPrompt {
        name: req_str(m, "name")?,
        description: opt_str(m, "description")?,
        arguments,
    })
}

/// Names and URIs identify entries in the lock and in drift: a repeat would let
/// one entry shadow another, so an ambiguous surface is never pinned.
pub fn reject_duplicates(s: &Surface) -> Result<(), CaptureError> {
    fn check<'a>(label: &str, keys: impl Iterator<Item = &'a str>) -> Result<(), CaptureError> {
        let mut seen = crate::hash::HashSet::new();
        for k in keys {
            if !seen.insert(k) {
                let shown: String = k.chars().take(100).collect();
                return Err(CaptureError::new(format!(
                    "duplicate {label} '{shown}'; refusing to pin an ambiguous surface"
                )));
            }
        }
        Ok(())
    }
    check("tool name", s.tools.iter().map(|t| t.name.as_str()))?;
    check("resource URI", s.resources.iter().map(|r| r.uri.as_str()))?;
    check("prompt name", s.prompts.iter().map(|p| p.name.as_str()))?;
    Ok(())
}
