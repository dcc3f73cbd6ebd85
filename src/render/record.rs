//! The one record shape behind every command's machine output: a doctor finding,
//! a `pin`/`check` finding and a `check` drift item are each turned into a
//! [`Record`], and the JSONL and SARIF writers ([`super::jsonl`], [`super::sarif`])
//! write records, never a command's own types. The typed parts (the rule, the
//! severity, the drift class) stay typed up to the writer, which is the only place
//! they become strings.

use std::borrow::Cow;

use crate::pin::drift::DriftItem;
use crate::pin::lock::{LockFinding, Recorded};
use crate::pin::rules::DriftClass;
use crate::rules::{RuleId, Severity};
use crate::text::display;

/// What the record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// A static finding (`"kind": "finding"`).
    Finding,
    /// A difference between a lock and a fresh capture (`"kind": "drift"`).
    Drift(DriftClass),
}

impl RecordKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Finding => "finding",
            RecordKind::Drift(_) => "drift",
        }
    }
}

/// A rule id as a record carries it: one of the catalog's, the precise id of a
/// drift class (`WRD-DRIFT-SCHEMA-ENUM-REMOVED`, described by its catalog entry), or
/// an id a lock recorded that this version does not know (kept verbatim).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordRule<'a> {
    Catalog(RuleId),
    Drift(DriftClass),
    Unknown(&'a str),
}

impl<'a> RecordRule<'a> {
    /// The public id (a recorded one neutralised for printing).
    pub fn id(self) -> Cow<'a, str> {
        match self {
            RecordRule::Catalog(rule) => Cow::Borrowed(rule.as_str()),
            RecordRule::Drift(class) => Cow::Borrowed(class.rule_id()),
            RecordRule::Unknown(id) => display(id),
        }
    }

    /// The catalog entry that documents it (none for an unknown id).
    pub fn catalog(self) -> Option<RuleId> {
        match self {
            RecordRule::Catalog(rule) => Some(rule),
            RecordRule::Drift(class) => Some(class.rule()),
            RecordRule::Unknown(_) => None,
        }
    }
}

/// A severity as a record carries it: one of the four, or a string a lock recorded
/// that is none of them (kept verbatim; its level is `warning`, as the earlier
/// implementation's emitters mapped any other value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grade<'a> {
    Known(Severity),
    Unknown(&'a str),
}

impl<'a> Grade<'a> {
    /// As printed (a recorded one neutralised for printing).
    pub fn as_str(self) -> Cow<'a, str> {
        match self {
            Grade::Known(s) => Cow::Borrowed(s.as_str()),
            Grade::Unknown(s) => display(s),
        }
    }

    /// SARIF / JSONL `level`.
    pub fn level(self) -> &'static str {
        match self {
            Grade::Known(s) => s.level(),
            Grade::Unknown(_) => "warning",
        }
    }
}

/// One record. Text fields are what is printed: passed through
/// [`crate::text::display`] by the constructors below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    pub kind: RecordKind,
    pub rule: RecordRule<'a>,
    pub severity: Grade<'a>,
    pub target: Cow<'a, str>,
    pub message: Cow<'a, str>,
    pub evidence: Evidence<'a>,
}

/// The evidence a record ends with: a finding's snippet, or a drift item's detail
/// (`null` when it has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence<'a> {
    Snippet(Cow<'a, str>),
    Detail(Option<Cow<'a, str>>),
}

impl<'a> Record<'a> {
    /// A finding `pin` or `check` reports (or a lock recorded).
    pub fn of_lock_finding(f: &'a LockFinding) -> Record<'a> {
        Record {
            kind: RecordKind::Finding,
            rule: match &f.rule_id {
                Recorded::Known(rule) => RecordRule::Catalog(*rule),
                Recorded::Unknown(id) => RecordRule::Unknown(id),
            },
            severity: match &f.severity {
                Recorded::Known(s) => Grade::Known(*s),
                Recorded::Unknown(s) => Grade::Unknown(s),
            },
            target: display(&f.target),
            message: display(&f.message),
            evidence: Evidence::Snippet(display(&f.snippet)),
        }
    }

    /// A drift item of `check`.
    pub fn of_drift(d: &'a DriftItem) -> Record<'a> {
        Record {
            kind: RecordKind::Drift(d.class),
            rule: RecordRule::Drift(d.class),
            severity: Grade::Known(d.severity()),
            target: display(&d.target),
            message: display(&d.message),
            evidence: Evidence::Detail(d.detail.as_deref().map(display)),
        }
    }

    /// The SARIF message: the message and, for a finding, its evidence in brackets.
    pub fn sarif_message(&self) -> String {
        match &self.evidence {
            Evidence::Snippet(snippet) => format!("{} [{snippet}]", self.message),
            Evidence::Detail(_) => self.message.to_string(),
        }
    }
}

/// What `pin` and `check` report, as records in report order (findings, then
/// drift), each with what its SARIF result needs: the raw target and evidence the
/// fingerprint is taken over, and the line of the entry in the lock's text.
pub fn lock_records<'a>(
    findings: &'a [LockFinding],
    drift: &'a [DriftItem],
    lock_text: &str,
) -> Vec<LockRecord<'a>> {
    let lines = crate::pin::lock::write::EntryLines::new(lock_text);
    let line = |target: &str| lines.of(target);
    findings
        .iter()
        .map(|f| LockRecord {
            record: Record::of_lock_finding(f),
            target: &f.target,
            fingerprinted: &f.snippet,
            line: line(&f.target),
        })
        .chain(drift.iter().map(|d| LockRecord {
            record: Record::of_drift(d),
            target: &d.target,
            fingerprinted: &d.message,
            line: line(&d.target),
        }))
        .collect()
}

/// A record of `pin`/`check` located in its lock (see [`lock_records`]).
pub struct LockRecord<'a> {
    pub record: Record<'a>,
    /// The target as recorded (the printed one may be neutralised or capped).
    pub target: &'a str,
    /// The raw text the fingerprint ends with: a finding's snippet, a drift
    /// item's message.
    pub fingerprinted: &'a str,
    /// 1-based line of the entry in the lock (1 when it cannot be found).
    pub line: u32,
}
