//! Pin-time rule ids in the shared catalog ([`crate::rules`]): capability flags,
//! malformed schemas and the drift classes `check` reports.

use crate::rules::{Rule, RuleId};

/// The catalog entry for a capability flag of the lock tokenizer.
pub fn capability_rule(flag: &str) -> Option<&'static Rule> {
    RuleId::for_capability(flag).map(RuleId::rule)
}

/// `WRD-DRIFT-<CLASS>` for a drift class (`tool-added` → `WRD-DRIFT-TOOL-ADDED`).
pub fn drift_rule_id(class: &str) -> String {
    format!("WRD-DRIFT-{}", class.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_capability_flag_has_a_rule() {
        for flag in [
            "shell-exec",
            "fs-write",
            "fs-read",
            "http-request",
            "sql-query",
        ] {
            assert!(capability_rule(flag).is_some(), "{flag}");
        }
        assert!(capability_rule("teleport").is_none());
    }

    #[test]
    fn every_drift_class_in_the_diff_has_a_rule() {
        // Every `item("<class>", ...)` call in the diff names a class.
        let source = include_str!("drift.rs");
        let mut classes = Vec::new();
        for marker in ["item(", "change(path,", "push("] {
            for call in source.split(marker).skip(1) {
                if let Some(class) = call
                    .trim_start()
                    .strip_prefix('"')
                    .and_then(|c| c.split('"').next())
                {
                    classes.push(class.to_string());
                }
            }
        }
        // Tuples that pick a schema class: ("schema-type-narrowed", "low").
        for piece in source.split("(\"schema-").skip(1) {
            if let Some(rest) = piece.split('"').next() {
                classes.push(format!("schema-{rest}"));
            }
        }
        assert!(
            classes.len() >= 10,
            "drift classes not found in drift.rs: {classes:?}"
        );
        for class in classes {
            assert!(
                RuleId::for_drift(&class).is_some(),
                "no catalog rule for drift class {class}"
            );
        }
    }
}
