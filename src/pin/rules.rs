//! Pin-time rule ids in the shared catalog ([`crate::rules`]): capability flags,
//! and the drift classes `check` reports.
//!
//! [`DriftClass`] is the one place a drift class becomes its public strings: the
//! class (`schema-enum-removed`), its rule id (`WRD-DRIFT-<CLASS>`, upper case), its
//! severity and the catalog entry that documents it. The strings are a contract
//! (users filter on them in CI) and are the earlier implementation's.

use crate::rules::{Rule, RuleId, Severity};

/// The catalog entry for a capability flag of the lock tokenizer.
pub fn capability_rule(flag: &str) -> Option<&'static Rule> {
    RuleId::for_capability(flag).map(RuleId::rule)
}

macro_rules! schema_changes {
    ($( $variant:ident => $class:literal, $upper:literal, $sev:ident; )*) => {
        /// One classified structural change to a tool's input or output schema
        /// (property paths are compared between the two schema skeletons).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum SchemaChange { $( $variant, )* }

        impl SchemaChange {
            /// Every change, in declaration order.
            pub const ALL: &'static [SchemaChange] = &[ $( SchemaChange::$variant, )* ];

            /// The change's name (`enum-removed`).
            pub fn as_str(self) -> &'static str {
                match self { $( SchemaChange::$variant => $class, )* }
            }

            /// `schema-<change>`.
            fn input_class(self) -> &'static str {
                match self { $( SchemaChange::$variant => concat!("schema-", $class), )* }
            }

            /// `schema-out-<change>`.
            fn output_class(self) -> &'static str {
                match self { $( SchemaChange::$variant => concat!("schema-out-", $class), )* }
            }

            fn input_rule_id(self) -> &'static str {
                match self { $( SchemaChange::$variant => concat!("WRD-DRIFT-SCHEMA-", $upper), )* }
            }

            fn output_rule_id(self) -> &'static str {
                match self { $( SchemaChange::$variant => concat!("WRD-DRIFT-SCHEMA-OUT-", $upper), )* }
            }

            /// The same for an input and an output schema.
            pub fn severity(self) -> Severity {
                match self { $( SchemaChange::$variant => Severity::$sev, )* }
            }
        }
    };
}

schema_changes! {
    TypeNarrowed => "type-narrowed", "TYPE-NARROWED", Low;
    TypeBroadened => "type-broadened", "TYPE-BROADENED", High;
    TypeChanged => "type-changed", "TYPE-CHANGED", Medium;
    EnumRemoved => "enum-removed", "ENUM-REMOVED", High;
    EnumAdded => "enum-added", "ENUM-ADDED", Low;
    EnumNarrowed => "enum-narrowed", "ENUM-NARROWED", Low;
    EnumWidened => "enum-widened", "ENUM-WIDENED", High;
    ConstraintTightened => "constraint-tightened", "CONSTRAINT-TIGHTENED", Low;
    ConstraintRelaxed => "constraint-relaxed", "CONSTRAINT-RELAXED", Medium;
    // A `$ref` or truncation marker changed, or no skeleton to compare.
    Modified => "modified", "MODIFIED", High;
    AdditionalPropsOpened => "additional-props-opened", "ADDITIONAL-PROPS-OPENED", High;
    RequiredUnconstrainedAdded => "required-unconstrained-added", "REQUIRED-UNCONSTRAINED-ADDED", High;
    RequiredAdded => "required-added", "REQUIRED-ADDED", Medium;
    UnconstrainedAdded => "unconstrained-added", "UNCONSTRAINED-ADDED", High;
    PropertyAdded => "property-added", "PROPERTY-ADDED", Low;
    RequiredRemoved => "required-removed", "REQUIRED-REMOVED", High;
    PropertyRemoved => "property-removed", "PROPERTY-REMOVED", Medium;
}

macro_rules! drift_classes {
    ($( $variant:ident => $class:literal, $id:literal, $sev:ident, $rule:ident; )*) => {
        /// Every kind of drift `check` reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum DriftClass {
            $( $variant, )*
            /// A classified change to a tool's `inputSchema` (`schema-<change>`).
            InputSchema(SchemaChange),
            /// A classified change to a tool's `outputSchema` (`schema-out-<change>`).
            OutputSchema(SchemaChange),
        }

        impl DriftClass {
            /// The classes that are not schema changes.
            const FLAT: &'static [DriftClass] = &[ $( DriftClass::$variant, )* ];

            /// The class as reports print it (`tool-added`, `schema-out-type-changed`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( DriftClass::$variant => $class, )*
                    DriftClass::InputSchema(c) => c.input_class(),
                    DriftClass::OutputSchema(c) => c.output_class(),
                }
            }

            /// The public rule id: `WRD-DRIFT-<CLASS>` in upper case. The
            /// fine-grained schema classes keep their precise id
            /// (`WRD-DRIFT-SCHEMA-ENUM-REMOVED`), documented by [`Self::rule`].
            pub fn rule_id(self) -> &'static str {
                match self {
                    $( DriftClass::$variant => $id, )*
                    DriftClass::InputSchema(c) => c.input_rule_id(),
                    DriftClass::OutputSchema(c) => c.output_rule_id(),
                }
            }

            pub fn severity(self) -> Severity {
                match self {
                    $( DriftClass::$variant => Severity::$sev, )*
                    DriftClass::InputSchema(c) | DriftClass::OutputSchema(c) => c.severity(),
                }
            }

            /// The catalog entry that documents the class: its own, or
            /// `WRD-DRIFT-SCHEMA-MODIFIED` for a fine-grained schema class.
            pub fn rule(self) -> RuleId {
                match self {
                    $( DriftClass::$variant => RuleId::$rule, )*
                    DriftClass::InputSchema(_) | DriftClass::OutputSchema(_) => {
                        RuleId::DriftSchemaModified
                    }
                }
            }
        }
    };
}

drift_classes! {
    ServerIdentity => "server-identity", "WRD-DRIFT-SERVER-IDENTITY", Critical, DriftServerIdentity;
    ToolAdded => "tool-added", "WRD-DRIFT-TOOL-ADDED", High, DriftToolAdded;
    ToolRemoved => "tool-removed", "WRD-DRIFT-TOOL-REMOVED", Medium, DriftToolRemoved;
    ToolAnnotationsModified => "tool-annotations-modified", "WRD-DRIFT-TOOL-ANNOTATIONS-MODIFIED", High, DriftToolAnnotationsModified;
    CapabilityAdded => "capability-added", "WRD-DRIFT-CAPABILITY-ADDED", High, DriftCapabilityAdded;
    CapabilityRemoved => "capability-removed", "WRD-DRIFT-CAPABILITY-REMOVED", Medium, DriftCapabilityRemoved;
    InspectionPolicyModified => "inspection-policy-modified", "WRD-DRIFT-INSPECTION-POLICY-MODIFIED", Medium, DriftInspectionPolicyModified;
    DescriptionModified => "description-modified", "WRD-DRIFT-DESCRIPTION-MODIFIED", Low, DriftDescriptionModified;
    SchemaCosmeticModified => "schema-cosmetic-modified", "WRD-DRIFT-SCHEMA-COSMETIC-MODIFIED", Low, DriftSchemaCosmeticModified;
    SchemaOutAdded => "schema-out-added", "WRD-DRIFT-SCHEMA-OUT-ADDED", High, DriftSchemaOutAdded;
    SchemaOutRemoved => "schema-out-removed", "WRD-DRIFT-SCHEMA-OUT-REMOVED", High, DriftSchemaOutRemoved;
    SchemaOutCosmeticModified => "schema-out-cosmetic-modified", "WRD-DRIFT-SCHEMA-OUT-COSMETIC-MODIFIED", Low, DriftSchemaModified;
    ResourceAdded => "resource-added", "WRD-DRIFT-RESOURCE-ADDED", Medium, DriftResourceAdded;
    ResourceRemoved => "resource-removed", "WRD-DRIFT-RESOURCE-REMOVED", Low, DriftResourceRemoved;
    ResourceModified => "resource-modified", "WRD-DRIFT-RESOURCE-MODIFIED", Low, DriftResourceModified;
    PromptAdded => "prompt-added", "WRD-DRIFT-PROMPT-ADDED", Medium, DriftPromptAdded;
    PromptRemoved => "prompt-removed", "WRD-DRIFT-PROMPT-REMOVED", Low, DriftPromptRemoved;
    PromptModified => "prompt-modified", "WRD-DRIFT-PROMPT-MODIFIED", Low, DriftPromptModified;
    UnapprovedChange => "unapproved-change", "WRD-DRIFT-UNAPPROVED-CHANGE", High, DriftUnapprovedChange;
    SchemaVersionMigrated => "schema-version-migrated", "WRD-DRIFT-SCHEMA-VERSION-MIGRATED", Low, DriftSchemaVersionMigrated;
}

impl DriftClass {
    /// Every class: the flat ones, then each schema change for input and output.
    pub fn all() -> impl Iterator<Item = DriftClass> {
        DriftClass::FLAT
            .iter()
            .copied()
            .chain(
                SchemaChange::ALL
                    .iter()
                    .map(|&c| DriftClass::InputSchema(c)),
            )
            .chain(
                SchemaChange::ALL
                    .iter()
                    .map(|&c| DriftClass::OutputSchema(c)),
            )
    }
}

impl std::fmt::Display for DriftClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{HashSet, HashSetExt};

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
    fn drift_strings_are_the_contract() {
        let mut classes = HashSet::new();
        let mut ids = HashSet::new();
        for class in DriftClass::all() {
            let name = class.as_str();
            assert!(classes.insert(name), "class {name} twice");
            assert!(ids.insert(class.rule_id()), "id of {name} twice");
            // The earlier implementation's spelling: WRD-DRIFT-<CLASS upper>.
            assert_eq!(
                class.rule_id(),
                format!("WRD-DRIFT-{}", name.to_ascii_uppercase())
            );
            // A class whose id is in the catalog is documented by that entry, at
            // the catalog's severity; the others by WRD-DRIFT-SCHEMA-MODIFIED.
            match RuleId::from_code(class.rule_id()) {
                Some(rule) => {
                    assert_eq!(class.rule(), rule, "{name}");
                    assert_eq!(class.severity(), rule.severity(), "{name}");
                }
                None => {
                    assert!(name.starts_with("schema-"), "{name} has no catalog entry");
                    assert_eq!(class.rule(), RuleId::DriftSchemaModified);
                }
            }
        }
        // Every catalog drift rule is some class's own.
        for rule in crate::rules::RULES {
            if rule.code.starts_with("WRD-DRIFT-") {
                assert!(
                    DriftClass::all().any(|c| c.rule_id() == rule.code),
                    "{} is reported by no class",
                    rule.code
                );
            }
        }
        assert_eq!(classes.len(), 20 + 2 * 17);
        assert_eq!(
            DriftClass::OutputSchema(SchemaChange::TypeChanged).as_str(),
            "schema-out-type-changed"
        );
        assert_eq!(
            DriftClass::InputSchema(SchemaChange::EnumRemoved).rule_id(),
            "WRD-DRIFT-SCHEMA-ENUM-REMOVED"
        );
    }
}
