//! Drift: what changed between a stored lock and a freshly built one, as the
//! earlier implementation classified it (`tool-added`, `schema-*`,
//! `capability-added`, …). Any drift makes `check` exit 1.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::lock::pyjson;
use super::lock::{Lock, PromptEntry, ResourceEntry, ToolEntry};
use super::rules::{DriftClass, SchemaChange};
use crate::rules::Severity;

/// One difference between baseline and current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftItem {
    pub class: DriftClass,
    pub target: String,
    pub message: String,
    /// Compact structural detail for schema drift (never raw secrets).
    pub detail: Option<String>,
}

impl DriftItem {
    /// The class's severity (every class has one).
    pub fn severity(&self) -> Severity {
        self.class.severity()
    }
}

fn item(class: DriftClass, target: &str, message: String, detail: Option<String>) -> DriftItem {
    DriftItem {
        class,
        target: target.into(),
        message,
        detail,
    }
}

/// One skeleton record.
#[derive(Debug, Clone, PartialEq)]
struct Facts {
    ty: Option<Vec<String>>,
    required: bool,
    en: Option<Vec<Value>>,
    constraints: Map<String, Value>,
}

fn parse_skeleton(v: &Value) -> BTreeMap<String, Facts> {
    let mut out = BTreeMap::new();
    let Some(props) = v.get("props").and_then(Value::as_object) else {
        return out;
    };
    for (path, f) in props {
        let ty = f.get("type").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        });
        out.insert(
            path.clone(),
            Facts {
                ty,
                required: f.get("required").and_then(Value::as_bool).unwrap_or(false),
                en: f.get("enum").and_then(Value::as_array).cloned(),
                constraints: f
                    .get("constraints")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            },
        );
    }
    out
}

/// One classified schema change.
struct Change {
    path: String,
    class: SchemaChange,
    detail: String,
}

fn change(path: &str, class: SchemaChange, detail: impl Into<String>) -> Change {
    Change {
        path: path.into(),
        class,
        detail: detail.into(),
    }
}

const SECRET_HINTS: [&str; 7] = [
    "secret", "token", "password", "apikey", "api_key", "key", "bearer",
];

/// A constraint value for `detail`: redacted when it smells like a secret, capped at 40 chars.
fn safe(v: Option<&Value>) -> String {
    let s = match v {
        None => "None".to_string(),
        Some(v) => pyjson::py_str(v),
    };
    let lower = s.to_lowercase();
    if SECRET_HINTS.iter().any(|h| lower.contains(h)) {
        return "<redacted>".into();
    }
    if s.chars().count() > 40 {
        let head: String = s.chars().take(40).collect();
        return format!("{head}…");
    }
    s
}

fn is_unconstrained(f: &Facts) -> bool {
    if f.en.as_ref().is_some_and(|e| !e.is_empty()) {
        return false;
    }
    let set = |k: &str| f.constraints.get(k).is_some_and(|v| !v.is_null());
    if set("pattern") || set("maxLength") {
        return false;
    }
    match &f.ty {
        None => true,
        Some(t) => t.iter().all(|x| x == "string" || x == "object"),
    }
}

fn py_list(items: &BTreeSet<String>) -> String {
    if items.is_empty() {
        return "any".into();
    }
    let parts: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", parts.join(", "))
}

fn diff_type(path: &str, b: &Facts, c: &Facts, out: &mut Vec<Change>) {
    let bt: BTreeSet<String> = b.ty.clone().unwrap_or_default().into_iter().collect();
    let ct: BTreeSet<String> = c.ty.clone().unwrap_or_default().into_iter().collect();
    if bt == ct {
        return;
    }
    let detail = format!("type {}→{}", py_list(&bt), py_list(&ct));
    let class = if bt.is_empty() {
        SchemaChange::TypeNarrowed
    } else if ct.is_empty() || bt.is_subset(&ct) {
        SchemaChange::TypeBroadened
    } else if ct.is_subset(&bt) {
        SchemaChange::TypeNarrowed
    } else {
        SchemaChange::TypeChanged
    };
    out.push(change(path, class, detail));
}

fn diff_enum(path: &str, b: &Facts, c: &Facts, out: &mut Vec<Change>) {
    match (&b.en, &c.en) {
        (be, ce) if be == ce => {}
        (Some(_), None) => out.push(change(path, SchemaChange::EnumRemoved, "enum removed")),
        (None, Some(_)) => out.push(change(path, SchemaChange::EnumAdded, "enum added")),
        (Some(be), Some(ce)) => {
            let bs: BTreeSet<String> = be.iter().map(pyjson::dumps_sorted).collect();
            let cs: BTreeSet<String> = ce.iter().map(pyjson::dumps_sorted).collect();
            let detail = format!("enum {}→{} values", be.len(), ce.len());
            if cs.is_subset(&bs) && cs != bs {
                out.push(change(path, SchemaChange::EnumNarrowed, detail));
            } else {
                // Wider, equal-size or disjoint: new values are allowed.
                out.push(change(path, SchemaChange::EnumWidened, detail));
            }
        }
        _ => {}
    }
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

fn diff_numeric(
    path: &str,
    key: &str,
    bc: &Map<String, Value>,
    cc: &Map<String, Value>,
    relax_up: bool,
    out: &mut Vec<Change>,
) {
    let (bv, cv) = (num(bc.get(key)), num(cc.get(key)));
    match (bv, cv) {
        (None, None) => {}
        (None, Some(_)) => out.push(change(
            path,
            SchemaChange::ConstraintTightened,
            format!("{key} added {}", safe(cc.get(key))),
        )),
        (Some(_), None) => out.push(change(
            path,
            SchemaChange::ConstraintRelaxed,
            format!("{key} removed"),
        )),
        (Some(b), Some(c)) if b == c => {}
        (Some(b), Some(c)) => {
            let relaxed = if relax_up { c > b } else { c < b };
            let class = if relaxed {
                SchemaChange::ConstraintRelaxed
            } else {
                SchemaChange::ConstraintTightened
            };
            out.push(change(
                path,
                class,
                format!("{key} {}→{}", safe(bc.get(key)), safe(cc.get(key))),
            ));
        }
    }
}

fn diff_constraints(path: &str, b: &Facts, c: &Facts, out: &mut Vec<Change>) {
    let (bc, cc) = (&b.constraints, &c.constraints);
    for marker in ["$ref", "_truncated"] {
        if bc.get(marker) != cc.get(marker) {
            out.push(change(
                path,
                SchemaChange::Modified,
                format!("{marker} {}→{}", safe(bc.get(marker)), safe(cc.get(marker))),
            ));
        }
    }
    let t = Value::Bool(true);
    let b_ap = bc.get("additionalProperties").unwrap_or(&t);
    let c_ap = cc.get("additionalProperties").unwrap_or(&t);
    let (b_open, c_open) = (b_ap != &Value::Bool(false), c_ap != &Value::Bool(false));
    let ap_detail = || {
        format!(
            "additionalProperties {}→{}",
            safe(Some(b_ap)),
            safe(Some(c_ap))
        )
    };
    if !b_open && c_open {
        out.push(change(
            path,
            SchemaChange::AdditionalPropsOpened,
            ap_detail(),
        ));
    } else if b_open && !c_open {
        out.push(change(path, SchemaChange::ConstraintTightened, ap_detail()));
    }
    for key in ["maxLength", "maximum"] {
        diff_numeric(path, key, bc, cc, true, out);
    }
    for key in ["minLength", "minimum"] {
        diff_numeric(path, key, bc, cc, false, out);
    }
    for key in ["pattern", "format"] {
        let (bv, cv) = (
            bc.get(key).filter(|v| !v.is_null()),
            cc.get(key).filter(|v| !v.is_null()),
        );
        match (bv, cv) {
            (a, b) if a == b => {}
            (Some(_), None) => out.push(change(
                path,
                SchemaChange::ConstraintRelaxed,
                format!("{key} removed"),
            )),
            (None, Some(_)) => out.push(change(
                path,
                SchemaChange::ConstraintTightened,
                format!("{key} added"),
            )),
            _ => out.push(change(
                path,
                SchemaChange::ConstraintTightened,
                format!("{key} changed"),
            )),
        }
    }
}

fn classify_added(path: &str, f: &Facts) -> Change {
    match (f.required, is_unconstrained(f)) {
        (true, true) => change(
            path,
            SchemaChange::RequiredUnconstrainedAdded,
            "new required unconstrained",
        ),
        (true, false) => change(
            path,
            SchemaChange::RequiredAdded,
            "new required constrained",
        ),
        (false, true) => change(
            path,
            SchemaChange::UnconstrainedAdded,
            "new optional unconstrained",
        ),
        (false, false) => change(
            path,
            SchemaChange::PropertyAdded,
            "new optional constrained",
        ),
    }
}

fn diff_skeletons(base: &Value, cur: &Value) -> Vec<Change> {
    let (bp, cp) = (parse_skeleton(base), parse_skeleton(cur));
    let mut out = Vec::new();
    for (path, f) in &cp {
        if !bp.contains_key(path) {
            out.push(classify_added(path, f));
        }
    }
    for (path, f) in &bp {
        if !cp.contains_key(path) {
            out.push(if f.required {
                change(
                    path,
                    SchemaChange::RequiredRemoved,
                    "required property removed",
                )
            } else {
                change(
                    path,
                    SchemaChange::PropertyRemoved,
                    "optional property removed",
                )
            });
        }
    }
    for (path, b) in &bp {
        let Some(c) = cp.get(path) else { continue };
        if b.required && !c.required {
            out.push(change(
                path,
                SchemaChange::ConstraintRelaxed,
                "required→optional",
            ));
        } else if !b.required && c.required {
            out.push(if is_unconstrained(c) {
                change(
                    path,
                    SchemaChange::RequiredUnconstrainedAdded,
                    "optional→required unconstrained",
                )
            } else {
                change(path, SchemaChange::RequiredAdded, "optional→required")
            });
        }
        diff_type(path, b, c, &mut out);
        diff_enum(path, b, c, &mut out);
        diff_constraints(path, b, c, &mut out);
    }
    // In the order of the class names, as the earlier implementation sorted them.
    out.sort_by(|a, b| (&a.path, a.class.as_str()).cmp(&(&b.path, b.class.as_str())));
    out
}

fn hash_null() -> String {
    crate::digest::hash_value(&Value::Null).unwrap_or_default()
}

fn diff_tool_schema(
    name: &str,
    target: &str,
    b: &ToolEntry,
    c: &ToolEntry,
    out: &mut Vec<DriftItem>,
) {
    let (Some(bs), Some(cs)) = (&b.schema_skeleton, &c.schema_skeleton) else {
        out.push(item(
            DriftClass::InputSchema(SchemaChange::Modified),
            target,
            format!("Tool '{name}' inputSchema changed"),
            None,
        ));
        return;
    };
    let changes = diff_skeletons(bs, cs);
    if changes.is_empty() {
        out.push(item(
            DriftClass::SchemaCosmeticModified,
            target,
            format!("Tool '{name}' inputSchema changed cosmetically (no structural change)"),
            None,
        ));
    }
    for ch in changes {
        out.push(item(
            DriftClass::InputSchema(ch.class),
            target,
            format!(
                "Tool '{name}' schema {} at '{}'",
                DriftClass::InputSchema(ch.class),
                ch.path
            ),
            Some(ch.detail),
        ));
    }
}

fn metadata_changes(
    name: &str,
    target: &str,
    b: &ToolEntry,
    c: &ToolEntry,
    out: &mut Vec<DriftItem>,
) {
    let flat = |h: &Option<Option<String>>| h.clone().flatten();
    let (ba, ca) = (flat(&b.annotations_hash), flat(&c.annotations_hash));
    if ba.is_some() && ba != ca {
        out.push(item(
            DriftClass::ToolAnnotationsModified,
            target,
            format!("Tool '{name}' annotations changed (server declarations, not authority)"),
            None,
        ));
    }
    let (bo, co) = (flat(&b.output_schema_hash), flat(&c.output_schema_hash));
    let Some(bo) = bo else { return };
    if Some(&bo) == co.as_ref() {
        return;
    }
    let null = hash_null();
    let mut push = |class: DriftClass, msg: String, detail: Option<String>| {
        out.push(item(class, target, format!("Tool '{name}' {msg}"), detail));
    };
    if bo == null {
        push(
            DriftClass::SchemaOutAdded,
            "outputSchema added".into(),
            None,
        );
    } else if co.as_deref() == Some(null.as_str()) {
        push(
            DriftClass::SchemaOutRemoved,
            "outputSchema removed".into(),
            None,
        );
    } else {
        let bsk = b.output_schema_skeleton.clone().flatten();
        let csk = c.output_schema_skeleton.clone().flatten();
        match (bsk, csk) {
            (Some(bs), Some(cs)) => {
                let changes = diff_skeletons(&bs, &cs);
                if changes.is_empty() {
                    push(
                        DriftClass::SchemaOutCosmeticModified,
                        "outputSchema changed cosmetically (no structural change)".into(),
                        None,
                    );
                }
                for ch in changes {
                    let class = DriftClass::OutputSchema(ch.class);
                    push(
                        class,
                        format!("outputSchema {class} at '{}'", ch.path),
                        Some(ch.detail),
                    );
                }
            }
            _ => push(
                DriftClass::OutputSchema(SchemaChange::Modified),
                "outputSchema changed".into(),
                None,
            ),
        }
    }
}

fn diff_tools(base: &[ToolEntry], cur: &[ToolEntry], out: &mut Vec<DriftItem>) {
    let b = index_tools(base);
    let c = index_tools(cur);
    for name in c.keys().filter(|n| !b.contains_key(*n)) {
        out.push(item(
            DriftClass::ToolAdded,
            &format!("tools/{name}"),
            format!("Tool '{name}' added since pin"),
            None,
        ));
    }
    for name in b.keys().filter(|n| !c.contains_key(*n)) {
        out.push(item(
            DriftClass::ToolRemoved,
            &format!("tools/{name}"),
            format!("Tool '{name}' removed since pin"),
            None,
        ));
    }
    for (name, bt) in &b {
        let Some(ct) = c.get(name) else { continue };
        let target = format!("tools/{name}");
        let schema_changed = bt.input_schema_hash != ct.input_schema_hash;
        if schema_changed {
            diff_tool_schema(name, &target, bt, ct, out);
        }
        metadata_changes(name, &target, bt, ct, out);
        let bcap: BTreeSet<&String> = bt.capabilities.iter().collect();
        let ccap: BTreeSet<&String> = ct.capabilities.iter().collect();
        let added: Vec<&&String> = ccap.difference(&bcap).collect();
        let removed: Vec<&&String> = bcap.difference(&ccap).collect();
        for cap in &added {
            out.push(item(
                DriftClass::CapabilityAdded,
                &target,
                format!("Tool '{name}' gained capability '{cap}'"),
                None,
            ));
        }
        for cap in &removed {
            out.push(item(
                DriftClass::CapabilityRemoved,
                &target,
                format!("Tool '{name}' lost capability '{cap}'"),
                None,
            ));
        }
        if bt.inspection != ct.inspection {
            out.push(item(DriftClass::InspectionPolicyModified,
                &target,
                format!("Tool '{name}' inspection policy changed (security-relevant relaxation/tightening)"),
                None,
            ));
        }
        if bt.description_hash != ct.description_hash
            && !schema_changed
            && added.is_empty()
            && removed.is_empty()
        {
            out.push(item(
                DriftClass::DescriptionModified,
                &target,
                format!("Tool '{name}' description changed"),
                None,
            ));
        }
    }
}

fn index_tools(v: &[ToolEntry]) -> BTreeMap<&str, &ToolEntry> {
    v.iter().map(|t| (t.name.as_str(), t)).collect()
}

fn diff_resources(base: &[ResourceEntry], cur: &[ResourceEntry], out: &mut Vec<DriftItem>) {
    let b: BTreeMap<&str, &ResourceEntry> = base.iter().map(|r| (r.uri.as_str(), r)).collect();
    let c: BTreeMap<&str, &ResourceEntry> = cur.iter().map(|r| (r.uri.as_str(), r)).collect();
    for uri in c.keys().filter(|u| !b.contains_key(*u)) {
        out.push(item(
            DriftClass::ResourceAdded,
            &format!("resources/{uri}"),
            format!("Resource '{uri}' added"),
            None,
        ));
    }
    for uri in b.keys().filter(|u| !c.contains_key(*u)) {
        out.push(item(
            DriftClass::ResourceRemoved,
            &format!("resources/{uri}"),
            format!("Resource '{uri}' removed"),
            None,
        ));
    }
    for (uri, br) in &b {
        if let Some(cr) = c.get(uri) {
            if br.entry_digest != cr.entry_digest {
                out.push(item(
                    DriftClass::ResourceModified,
                    &format!("resources/{uri}"),
                    format!("Resource '{uri}' modified"),
                    None,
                ));
            }
        }
    }
}

fn diff_prompts(base: &[PromptEntry], cur: &[PromptEntry], out: &mut Vec<DriftItem>) {
    let b: BTreeMap<&str, &PromptEntry> = base.iter().map(|p| (p.name.as_str(), p)).collect();
    let c: BTreeMap<&str, &PromptEntry> = cur.iter().map(|p| (p.name.as_str(), p)).collect();
    for name in c.keys().filter(|n| !b.contains_key(*n)) {
        out.push(item(
            DriftClass::PromptAdded,
            &format!("prompts/{name}"),
            format!("Prompt '{name}' added"),
            None,
        ));
    }
    for name in b.keys().filter(|n| !c.contains_key(*n)) {
        out.push(item(
            DriftClass::PromptRemoved,
            &format!("prompts/{name}"),
            format!("Prompt '{name}' removed"),
            None,
        ));
    }
    for (name, bp) in &b {
        if let Some(cp) = c.get(name) {
            if bp.entry_digest != cp.entry_digest {
                out.push(item(
                    DriftClass::PromptModified,
                    &format!("prompts/{name}"),
                    format!("Prompt '{name}' modified"),
                    None,
                ));
            }
        }
    }
}

/// Every drift between a stored baseline and a current lock, sorted by
/// (target, class). Equal `overall_digest`s mean no drift.
pub fn compute_drift(baseline: &Lock, current: &Lock) -> Vec<DriftItem> {
    if baseline.overall_digest == current.overall_digest {
        return Vec::new();
    }
    let mut out = Vec::new();
    if baseline.server.command_digest != current.server.command_digest {
        out.push(item(
            DriftClass::ServerIdentity,
            "launch/command",
            "Server launch command/args changed since pin (you are pinning a different launch)"
                .into(),
            None,
        ));
    }
    diff_tools(&baseline.tools, &current.tools, &mut out);
    diff_resources(&baseline.resources, &current.resources, &mut out);
    diff_prompts(&baseline.prompts, &current.prompts, &mut out);
    if baseline.schema_version < 4 && current.schema_version >= 4 && !baseline.pin.approved {
        out.push(item(DriftClass::SchemaVersionMigrated,
            "pin/approved_digest",
            "Legacy lock does not commit tool annotations/outputSchema; review and re-pin under schema v4".into(),
            None,
        ));
    }
    if baseline.pin.approved
        && baseline
            .pin
            .approved_digest
            .as_ref()
            .is_some_and(|d| d != &current.overall_digest)
    {
        out.push(item(
            DriftClass::UnapprovedChange,
            "pin/approved_digest",
            "Surface changed since approval; approved_digest no longer matches the current surface"
                .into(),
            None,
        ));
        if current.schema_version > baseline.schema_version {
            out.push(item(DriftClass::SchemaVersionMigrated,
                "pin/approved_digest",
                format!(
                    "Lock schema version migrated v{}→v{}; the approved_digest changed because the lock's schema format was upgraded. This advisory does not excuse the accompanying 'unapproved-change' finding: review it and re-pin to re-attest the surface under schema v{}.",
                    baseline.schema_version, current.schema_version, current.schema_version
                ),
                None,
            ));
        }
    }
    out.sort_by(|a, b| (&a.target, a.class.as_str()).cmp(&(&b.target, b.class.as_str())));
    out
}
