//! WRD-SUP-*: supply-chain checks over a launch argv.

use crate::model::EngineFinding;

/// Findings for `command` + `args`. Snippets are redacted where they may carry a secret.
pub fn check_launch(_command: &str, _args: &[String]) -> Vec<EngineFinding> {
    Vec::new()
}
