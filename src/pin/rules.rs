//! Pin-time rule ids that are not (yet) in [`crate::rules`]: capability flags,
//! malformed schemas and the drift classes `check` reports. Same shape as the
//! main catalog so the table can move there unchanged.

use crate::rules::Severity;

/// One pin-time rule.
#[derive(Debug)]
pub struct PinRule {
    pub code: &'static str,
    pub severity: Severity,
    pub short: &'static str,
    pub help: &'static str,
}

const CAP_HELP: &str = "Capabilities are derived from the tool's name and input properties. Confirm the server needs this power, restrict it where the client allows, and keep the lock under review so a change is noticed.";

/// Capability and schema rules produced at pin time.
pub static PIN_RULES: &[PinRule] = &[
    PinRule {
        code: "WRD-CAP-SHELL",
        severity: Severity::Critical,
        short: "A tool can run shell commands.",
        help: CAP_HELP,
    },
    PinRule {
        code: "WRD-CAP-FS-WRITE",
        severity: Severity::High,
        short: "A tool can write files.",
        help: CAP_HELP,
    },
    PinRule {
        code: "WRD-CAP-FS-READ",
        severity: Severity::Medium,
        short: "A tool can read files.",
        help: CAP_HELP,
    },
    PinRule {
        code: "WRD-CAP-HTTP",
        severity: Severity::High,
        short: "A tool can make network requests.",
        help: CAP_HELP,
    },
    PinRule {
        code: "WRD-CAP-SQL",
        severity: Severity::High,
        short: "A tool can run database queries.",
        help: CAP_HELP,
    },
    PinRule {
        code: "WRD-SCHEMA-MALFORMED",
        severity: Severity::Low,
        short: "A tool's inputSchema is not a JSON object.",
        help: "The MCP schema requires an object inputSchema; capability analysis was skipped for this tool. Report it to the server's maintainers.",
    },
];

/// The rule and severity for a capability flag.
pub fn capability_rule(flag: &str) -> Option<&'static PinRule> {
    let code = match flag {
        "shell-exec" => "WRD-CAP-SHELL",
        "fs-write" => "WRD-CAP-FS-WRITE",
        "fs-read" => "WRD-CAP-FS-READ",
        "http-request" => "WRD-CAP-HTTP",
        "sql-query" => "WRD-CAP-SQL",
        _ => return None,
    };
    PIN_RULES.iter().find(|r| r.code == code)
}

/// `WRD-DRIFT-<CLASS>` for a drift class (`tool-added` → `WRD-DRIFT-TOOL-ADDED`).
pub fn drift_rule_id(class: &str) -> String {
    format!("WRD-DRIFT-{}", class.to_ascii_uppercase())
}

/// Help text for every drift rule.
pub const DRIFT_HELP: &str = "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, re-pin and re-approve (mcp-warden pin … --approve --approver ID), otherwise treat the server as compromised or misconfigured.";

/// Every drift class `check` can report, with its severity (some schema classes
/// vary in severity per change; the usual one is listed).
pub static DRIFT_CLASSES: &[(&str, Severity)] = &[
    ("server-identity", Severity::Critical),
    ("tool-added", Severity::High),
    ("tool-removed", Severity::Medium),
    ("schema-modified", Severity::High),
    ("schema-cosmetic-modified", Severity::Low),
    ("capability-added", Severity::High),
    ("capability-removed", Severity::Medium),
    ("description-modified", Severity::Low),
    ("inspection-policy-modified", Severity::Medium),
    ("tool-annotations-modified", Severity::High),
    ("schema-out-added", Severity::High),
    ("schema-out-removed", Severity::High),
    ("resource-added", Severity::Medium),
    ("resource-removed", Severity::Low),
    ("resource-modified", Severity::Low),
    ("prompt-added", Severity::Medium),
    ("prompt-removed", Severity::Low),
    ("prompt-modified", Severity::Low),
    ("unapproved-change", Severity::High),
    ("schema-version-migrated", Severity::Low),
];
