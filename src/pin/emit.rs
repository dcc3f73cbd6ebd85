//! JSONL and SARIF for `pin` and `check`: findings first, then drift.
//!
//! JSONL lines use the earlier implementation's spelling (`", "`/`": "`
//! separators, non-ASCII literal) so consumers of its output keep working.

use serde_json::{json, Map, Value};

use super::drift::DriftItem;
use super::lock::LockFinding;
use super::rules::drift_rule_id;

/// SARIF/JSONL level for a severity string.
pub fn level(severity: &str) -> &'static str {
    match severity {
        "critical" | "high" => "error",
        "medium" => "warning",
        "low" => "note",
        _ => "warning",
    }
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, val)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write_value(val, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn finding_record(f: &LockFinding) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), json!("finding"));
    m.insert("rule_id".into(), json!(f.rule_id));
    m.insert("severity".into(), json!(f.severity));
    m.insert("level".into(), json!(level(&f.severity)));
    m.insert("target".into(), json!(f.target));
    m.insert("message".into(), json!(f.message));
    m.insert("snippet".into(), json!(f.snippet));
    Value::Object(m)
}

fn drift_record(d: &DriftItem) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), json!("drift"));
    m.insert("rule_id".into(), json!(drift_rule_id(&d.drift_class)));
    m.insert("drift_class".into(), json!(d.drift_class));
    m.insert("severity".into(), json!(d.severity));
    m.insert("level".into(), json!(level(&d.severity)));
    m.insert("target".into(), json!(d.target));
    m.insert("message".into(), json!(d.message));
    m.insert("detail".into(), json!(d.detail));
    Value::Object(m)
}

/// One JSON object per line; empty when there is nothing to report.
pub fn jsonl(findings: &[LockFinding], drift: &[DriftItem]) -> String {
    let mut out = String::new();
    let records = findings
        .iter()
        .map(finding_record)
        .chain(drift.iter().map(drift_record));
    for r in records {
        write_value(&r, &mut out);
        out.push('\n');
    }
    out
}

/// Descriptive fields of a rule id: (short description, help, default level).
fn describe(id: &str) -> (String, String, &'static str) {
    let rule = crate::rules::RuleId::from_code(id).or_else(|| {
        id.strip_prefix("WRD-DRIFT-")
            .and_then(|class| crate::rules::RuleId::for_drift(&class.to_ascii_lowercase()))
    });
    match rule {
        Some(rule) => {
            let r = rule.rule();
            (r.short.into(), r.help.into(), r.severity.level())
        }
        None => (
            format!("{id}."),
            "See the message for details.".into(),
            "warning",
        ),
    }
}

fn security_severity(level: &str) -> &'static str {
    match level {
        "error" => "8.0",
        "warning" => "5.5",
        _ => "2.0",
    }
}

/// 1-based line of the entry `target` names in the pretty lock text (1 when unknown).
fn lock_line(lock_text: &str, target: &str) -> usize {
    let (section, key, name) = if let Some(n) = target.strip_prefix("tools/") {
        ("  \"tools\": [", "\"name\": ", n)
    } else if let Some(n) = target.strip_prefix("resources/") {
        ("  \"resources\": [", "\"uri\": ", n)
    } else if let Some(n) = target.strip_prefix("prompts/") {
        ("  \"prompts\": [", "\"name\": ", n)
    } else if target == "launch/command" {
        ("  \"server\": {", "\"command", "")
    } else if let Some(field) = target.strip_prefix("pin/") {
        ("  \"pin\": {", "", field)
    } else {
        return 1;
    };
    let needle = if key.is_empty() {
        format!("\"{name}\":")
    } else if name.is_empty() {
        key.to_string()
    } else {
        format!("{key}{}", Value::String(name.to_string()))
    };
    let mut in_section = false;
    for (i, line) in lock_text.lines().enumerate() {
        if line.starts_with(section) {
            in_section = true;
        } else if line.starts_with("  \"") {
            in_section = false;
        }
        if in_section && line.trim_start().starts_with(&needle) {
            return i + 1;
        }
    }
    1
}

/// A relative path as a SARIF URI reference; an absolute one as a `file://` URI.
/// Bytes outside the unreserved set are percent-encoded.
fn path_uri(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    if path.is_absolute() {
        out.push_str("file://");
    }
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn fingerprint(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// SARIF 2.1.0, pretty-printed with one trailing newline. Results are located
/// in `lock_path` (at the entry's line in `lock_text` when it can be found).
pub fn sarif(
    findings: &[LockFinding],
    drift: &[DriftItem],
    lock_path: &std::path::Path,
    lock_text: &str,
) -> String {
    let mut ids: Vec<String> = findings
        .iter()
        .map(|f| f.rule_id.clone())
        .chain(drift.iter().map(|d| drift_rule_id(&d.drift_class)))
        .collect();
    ids.sort();
    ids.dedup();
    let rules: Vec<Value> = ids
        .iter()
        .map(|id| {
            let (short, help, level) = describe(id);
            json!({
                "id": id,
                // SARIF wants a name distinct from the id: the same PascalCase
                // form doctor's SARIF uses.
                "name": crate::render::sarif::rule_name(id),
                "shortDescription": {"text": short},
                "fullDescription": {"text": short},
                "helpUri": format!("{}#{}", crate::render::sarif::RULES_DOC_URI, id.to_ascii_lowercase()),
                "help": {"text": help, "markdown": help},
                "defaultConfiguration": {"level": level},
                "properties": {"security-severity": security_severity(level), "tags": ["security"]}
            })
        })
        .collect();
    let index = |id: &str| ids.iter().position(|i| i == id).unwrap_or(0);
    let uri = path_uri(lock_path);
    let location = |target: &str| {
        json!([{
            "physicalLocation": {
                "artifactLocation": {"uri": uri},
                "region": {"startLine": lock_line(lock_text, target)}
            },
            "logicalLocations": [{"fullyQualifiedName": target, "kind": "resource"}]
        }])
    };
    let mut results: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule_id,
                "ruleIndex": index(&f.rule_id),
                "level": level(&f.severity),
                "message": {"text": format!("{} [{}]", f.message, f.snippet)},
                "locations": location(&f.target),
                "partialFingerprints": {"mcpWardenPin/v1": fingerprint(&[&f.rule_id, &f.target, &f.snippet])},
                "properties": {"severity": f.severity, "target": f.target}
            })
        })
        .collect();
    results.extend(drift.iter().map(|d| {
        let id = drift_rule_id(&d.drift_class);
        let mut props = json!({
            "severity": d.severity,
            "target": d.target,
            "driftClass": d.drift_class,
            "schemaPath": d.target
        });
        if let Some(detail) = &d.detail {
            props["detail"] = json!(detail);
        }
        json!({
            "ruleId": id,
            "ruleIndex": index(&id),
            "level": level(&d.severity),
            "message": {"text": d.message},
            "locations": location(&d.target),
            "partialFingerprints": {"mcpWardenPin/v1": fingerprint(&[&id, &d.target, &d.message])},
            "properties": props
        })
    }));
    let doc = json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "mcp-warden",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": crate::render::sarif::INFORMATION_URI,
                "rules": rules
            }},
            "results": results
        }]
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
