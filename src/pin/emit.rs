//! JSONL and SARIF for `pin` and `check`: findings first, then drift.
//!
//! JSONL lines use the earlier implementation's spelling (`", "`/`": "`
//! separators, non-ASCII literal) so consumers of its output keep working.

use serde_json::{json, Map, Value};

use super::drift::DriftItem;
use super::lock::LockFinding;
use super::rules::{drift_rule_id, PIN_RULES};

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

fn short_description(id: &str) -> Option<&'static str> {
    if let Some(r) = PIN_RULES.iter().find(|r| r.code == id) {
        return Some(r.short);
    }
    crate::rules::RULES
        .iter()
        .find(|r| r.code == id)
        .map(|r| r.short)
}

/// SARIF 2.1.0, pretty-printed with one trailing newline.
pub fn sarif(findings: &[LockFinding], drift: &[DriftItem]) -> String {
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
            let mut r = json!({"id": id, "name": id});
            if let Some(s) = short_description(id) {
                r["shortDescription"] = json!({"text": s});
            }
            r
        })
        .collect();
    let location = |target: &str| {
        json!([{
            "physicalLocation": {"artifactLocation": {"uri": "warden.lock"}},
            "logicalLocations": [{"fullyQualifiedName": target, "kind": "resource"}]
        }])
    };
    let mut results: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule_id,
                "level": level(&f.severity),
                "message": {"text": format!("{} [{}]", f.message, f.snippet)},
                "locations": location(&f.target),
                "properties": {"severity": f.severity, "target": f.target}
            })
        })
        .collect();
    results.extend(drift.iter().map(|d| {
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
            "ruleId": drift_rule_id(&d.drift_class),
            "level": level(&d.severity),
            "message": {"text": d.message},
            "locations": location(&d.target),
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
                "rules": rules
            }},
            "results": results
        }]
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
