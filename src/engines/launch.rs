//! WRD-DOCTOR-VARIABLE-LAUNCH and WRD-DOCTOR-HEADERS-HELPER: what a client starts
//! that the launch itself does not show.
//!
//! * A command or URL that depends on a variable runs whatever the variable holds
//!   when the client starts: doctor audits it with every variable unset (defaults
//!   applied), so the verdict is about one of many possible launches.
//! * Claude Code runs a remote server's `headersHelper` as a shell command at every
//!   connection: it is a launch of its own, and the WRD-SUP-* checks run over it as
//!   `sh -c <helper>`.

use crate::model::{EngineFinding, Launch, ServerSpec};
use crate::reading::Reader;
use crate::rules::RuleId;
use crate::text::display;

/// The findings about `spec`'s origin: variables and helper commands.
pub fn check_origin(name: &str, spec: &ServerSpec) -> Vec<EngineFinding> {
    let mut out = Vec::new();
    let varying = crate::reading::varying_refs(spec);
    if !varying.is_empty() {
        let what = match spec.launch {
            Launch::Remote(_) => "URL",
            _ => "command",
        };
        let refs: Vec<String> = varying
            .iter()
            .take(4)
            .map(|v| display(v).into_owned())
            .collect();
        out.push(EngineFinding {
            rule: RuleId::DoctorVariableLaunch,
            message: format!(
                "the {what} depends on {}: what the client starts changes with the environment it starts in; doctor audited it with the variables unset — write the {what} literally",
                refs.join(", ")
            ),
            snippet: name.to_string(),
        });
    }
    let helper = spec
        .declared
        .extra()
        .headers_helper
        .as_deref()
        .filter(|h| !h.trim().is_empty());
    if let (Some(helper), Launch::Remote(_)) = (helper, &spec.launch) {
        if spec.origin.readers.contains(Reader::ClaudeCode) {
            out.push(EngineFinding {
                rule: RuleId::DoctorHeadersHelper,
                message: "headersHelper is a shell command Claude Code runs at every connection to this server; review it like a launch command".into(),
                snippet: name.to_string(),
            });
            let args = ["-c".to_string(), helper.to_string()];
            out.extend(super::supply::check_launch("sh", &args));
        }
    }
    out
}
