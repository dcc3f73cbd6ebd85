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

use crate::model::{AuditedServer, Finding, Report};
use crate::render::Targets;
use crate::rules::{Rule, RuleId, RULES};
use crate::text::display;
use crate::text::safe_text::safe_text;

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
    results: Vec<SarifResult>,
    column_kind: &'static str,
    properties: RunProperties,
}

#[derive(Serialize)]
struct OriginalUriBaseIds {
    #[serde(rename = "%SRCROOT%")]
    srcroot: ArtifactLocation,
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
    id: &'static str,
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
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    partial_fingerprints: PartialFingerprints,
    properties: ResultProperties,
}

#[derive(Serialize)]
struct PartialFingerprints {
    #[serde(rename = "mcpWardenFinding/v1")]
    finding: String,
}

#[derive(Serialize)]
struct ResultProperties {
    severity: &'static str,
    target: String,
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
    start_column: u32,
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

fn descriptor(rule: &Rule) -> ReportingDescriptor {
    ReportingDescriptor {
        id: rule.code,
        name: rule_name(rule.code),
        short_description: Text {
            text: rule.short.to_string(),
        },
        full_description: Text {
            text: format!("{} {}", rule.short, rule.help),
        },
        help_uri: format!("{RULES_DOC_URI}#{}", rule.code.to_ascii_lowercase()),
        help: Help {
            text: rule.help.to_string(),
            markdown: format!(
                "**{}** (default severity: {})\n\n{}\n\n{}",
                rule.code, rule.severity, rule.short, rule.help
            ),
        },
        default_configuration: DefaultConfiguration {
            level: rule.severity.level(),
        },
        properties: RuleProperties {
            security_severity: rule.severity.security_severity(),
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

/// Where a finding is: its source (index into [`Report::sources`]) and the
/// position of the server's or setting's key.
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
    let severity = finding.severity();
    // Capped at 200 code points by `display`: one short copy per result.
    let target = memo.0.display(&finding.target).to_string();
    let physical_location = report
        .sources
        .get(at.source)
        .map(|source| PhysicalLocation {
            artifact_location: artifact_location(&source.path, base_dir),
            region: (at.line > 0).then(|| Region {
                start_line: at.line,
                start_column: at.column.max(1),
            }),
        });
    SarifResult {
        rule_id: finding.rule.as_str(),
        rule_index: finding.rule as usize,
        level: severity.level(),
        message: Text {
            text: format!(
                "{} [{}]",
                display(&finding.message_with_fix()),
                display(&finding.snippet)
            ),
        },
        locations: [Location {
            physical_location,
            logical_locations: [LogicalLocation {
                fully_qualified_name: target.clone(),
                kind: "resource",
            }],
        }],
        partial_fingerprints: PartialFingerprints {
            finding: memo.1.of(finding),
        },
        properties: ResultProperties {
            severity: severity.as_str(),
            target,
        },
    }
}

/// The SARIF 2.1.0 log for `report`, pretty-printed with a trailing newline.
/// `base_dir` (the directory doctor ran in, absolute) becomes `%SRCROOT%`.
pub fn render(report: &Report, tool_version: &str, base_dir: &Path) -> String {
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
    let original_uri_base_ids = base_dir.is_absolute().then(|| {
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
    });
    let log = Log {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "mcp-warden",
                    version: tool_version,
                    semantic_version: tool_version,
                    information_uri: INFORMATION_URI,
                    rules: RULES.iter().map(descriptor).collect(),
                },
            },
            original_uri_base_ids,
            results,
            column_kind: "unicodeCodePoints",
            properties: RunProperties {
                sandbox: safe_text(&report.sandbox),
                skipped_configs: report.skipped,
                unreadable_configs: report.hard_errors,
            },
        }],
    };
    // Serialising these plain structs cannot fail (string keys, no maps of non-strings).
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
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
            path: "/work/repo/.mcp.json".into(),
            scope: crate::model::Scope::User,
            client_id: None,
            layer: crate::model::Layer::User,
            project_dir: None,
            settings: Vec::new(),
        });
        r.sources.push(Source {
            client: "VS Code (project)".into(),
            label: "/work/repo/sub dir/.vscode/mcp.json".into(),
            path: "/work/repo/sub dir/\u{202e}x/.vscode/mcp.json".into(),
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
        validate(&render(&mixed_report(), "0.1.0", Path::new("/work/repo")));
        validate(&render(
            &Report::default(),
            "0.1.0",
            Path::new("/work/repo"),
        ));
        validate(&render(&worked_example(), "0.1.0", Path::new("relative")));
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
        let text = render(&r, "0.1.0", Path::new("/work/repo"));
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
        let mut v = parse(&render(&mixed_report(), "0.1.0", Path::new("/work/repo")));
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
        let text = render(&mixed_report(), "0.1.0", Path::new("/work/repo"));
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
        let a = render(&mixed_report(), "0.1.0", Path::new("/work/repo"));
        let b = render(&mixed_report(), "9.9.9", Path::new("/elsewhere"));
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
            render(&mixed_report(), "0.1.0", Path::new("/work/repo")),
        );
        write(
            "empty.sarif",
            render(&Report::default(), "0.1.0", Path::new("/work/repo")),
        );
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
