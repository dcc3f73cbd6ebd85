//! Static findings over a captured surface and its launch argv, recorded in the
//! lock at pin time: WRD-SUP-* and WRD-SEC-* from the shared engines,
//! WRD-CAP-* from the capability tokenizer, WRD-SCHEMA-MALFORMED.

use crate::hash::HashSetExt;
use serde_json::Value;

use super::capture::Surface;
use super::lock::tokenizer::{capability_evidence, derive_capabilities};
use super::lock::LockFinding;
use super::rules::capability_rule;
use crate::engines::{secrets, supply};
use crate::model::EngineFinding;
use crate::rules::RuleId;

fn from_engine(f: EngineFinding, target: &str) -> LockFinding {
    LockFinding::new(
        f.rule,
        target.to_string(),
        f.message.into_owned(),
        f.snippet,
    )
}

fn scan(value: &str, target: &str, out: &mut Vec<LockFinding>) {
    out.extend(
        secrets::scan_field(value)
            .into_iter()
            .map(|f| from_engine(f, target)),
    );
}

/// String `default`, `enum` and `examples` values anywhere in a schema
/// (property keys are not scanned: a key named `api_key` is not a leak).
fn schema_strings<'a>(node: &'a Value, out: &mut Vec<&'a str>) {
    match node {
        Value::Object(m) => {
            if let Some(Value::String(s)) = m.get("default") {
                out.push(s);
            }
            for key in ["enum", "examples"] {
                if let Some(Value::Array(items)) = m.get(key) {
                    out.extend(items.iter().filter_map(Value::as_str));
                }
            }
            for (k, v) in m {
                if !matches!(k.as_str(), "default" | "enum" | "examples") {
                    schema_strings(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| schema_strings(i, out)),
        _ => {}
    }
}

fn json_type_name(v: &Value) -> &'static str {
    // The earlier implementation printed Python type names here.
    super::lock::pyjson::type_name(v)
}

/// Every pin-time finding, de-duplicated on (rule, target, snippet) and sorted
/// by (target, rule, snippet).
pub fn run_checks(surface: &Surface) -> Vec<LockFinding> {
    let mut out = Vec::new();
    let launch = "launch/command";
    if surface.url.is_none() {
        out.extend(
            supply::check_launch(&surface.command, &surface.args)
                .into_iter()
                .map(|f| from_engine(f, launch)),
        );
        scan(&surface.command, launch, &mut out);
        for a in &surface.args {
            scan(a, launch, &mut out);
        }
    } else if let Some(url) = &surface.url {
        // Not scanned by the earlier implementation; a key in a query string
        // would otherwise be committed with the lock unremarked.
        scan(url, "launch/url", &mut out);
    }
    for tool in &surface.tools {
        let target = format!("tools/{}", tool.name);
        let schema_obj = tool.input_schema.as_ref().filter(|s| s.is_object());
        if let Some(s) = tool.input_schema.as_ref().filter(|s| !s.is_object()) {
            out.push(LockFinding::new(
                RuleId::SchemaMalformed,
                target.clone(),
                "inputSchema is present but not a JSON object; capability analysis skipped".into(),
                format!("inputSchema type={}", json_type_name(s)),
            ));
        }
        for flag in derive_capabilities(&tool.name, schema_obj) {
            if let Some(rule) = capability_rule(&flag) {
                let evidence = capability_evidence(&tool.name, schema_obj, &flag);
                out.push(LockFinding::new(
                    rule.id,
                    target.clone(),
                    format!("Tool derives capability '{flag}' ({evidence})"),
                    evidence,
                ));
            }
        }
        scan(&tool.name, &target, &mut out);
        if let Some(d) = tool.description.as_deref().filter(|d| !d.is_empty()) {
            scan(d, &target, &mut out);
        }
        if let Some(s) = schema_obj {
            let mut strings = Vec::new();
            schema_strings(s, &mut strings);
            for v in strings {
                scan(v, &target, &mut out);
            }
        }
    }
    for res in &surface.resources {
        let target = format!("resources/{}", res.uri);
        for field in [
            Some(res.uri.as_str()),
            res.name.as_deref(),
            res.description.as_deref(),
        ]
        .into_iter()
        .flatten()
        .filter(|f| !f.is_empty())
        {
            scan(field, &target, &mut out);
        }
    }
    for p in &surface.prompts {
        let target = format!("prompts/{}", p.name);
        scan(&p.name, &target, &mut out);
        if let Some(d) = p.description.as_deref().filter(|d| !d.is_empty()) {
            scan(d, &target, &mut out);
        }
    }
    let mut seen = crate::hash::HashSet::new();
    out.retain(|f| seen.insert((f.rule_id.clone(), f.target.clone(), f.snippet.clone())));
    // By the rule's id as printed (the enum's order is the catalog's, not the id's).
    out.sort_by(|a, b| {
        (&a.target, a.rule_id.as_str(), &a.snippet).cmp(&(
            &b.target,
            b.rule_id.as_str(),
            &b.snippet,
        ))
    });
    out
}
