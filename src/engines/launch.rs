//! WRD-DOCTOR-VARIABLE-LAUNCH and WRD-DOCTOR-HEADERS-HELPER: what a client starts
//! that the launch itself does not show.
//!
//! * A command or URL that depends on a variable runs whatever the variable holds
//!   when the client starts: doctor audits it with every variable unset (defaults
//!   applied), so the verdict is about one of many possible launches.
//! * Claude Code runs a remote server's `headersHelper` as a shell command at every
//!   connection: it is a launch of its own, and the WRD-SUP-* checks run over it as
//!   `sh -c <helper>`.

use crate::model::{EngineFinding, FieldPath, Launch, ServerSpec};
use crate::reading::Reader;
use crate::rules::RuleId;
use crate::text::display;

/// The findings about `spec`'s origin: variables and helper commands.
pub fn check_origin(name: &str, spec: &ServerSpec) -> Vec<EngineFinding> {
    let mut out = Vec::new();
    let varying = crate::reading::varying_refs(spec);
    if !varying.is_empty() {
        let (what, field) = match spec.launch {
            Launch::Remote(_) => ("URL", FieldPath::Url),
            _ => ("command", FieldPath::Command),
        };
        let refs: Vec<String> = varying
            .iter()
            .take(4)
            .map(|v| display(v).into_owned())
            .collect();
        out.push(EngineFinding::new(
            RuleId::DoctorVariableLaunch,
            format!(
                "the {what} depends on {}: what the client starts changes with the environment it starts in; doctor audited it with the variables unset — write the {what} literally",
                refs.join(", ")
            ),
            name.to_string(),
        ).at_field(field));
    }
    let helper = spec
        .declared
        .extra()
        .headers_helper
        .as_deref()
        .filter(|h| !h.trim().is_empty());
    if let (Some(helper), Launch::Remote(_)) = (helper, &spec.launch) {
        if spec.origin.readers.contains(Reader::ClaudeCode) {
            let field = FieldPath::Named("headersHelper");
            out.push(EngineFinding::new(
                RuleId::DoctorHeadersHelper,
                "headersHelper is a shell command Claude Code runs at every connection to this server; review it like a launch command",
                name.to_string(),
            ).at_field(field.clone()));
            let args = ["-c".to_string(), helper.to_string()];
            out.extend(
                super::supply::check_launch("sh", &args)
                    .into_iter()
                    .map(|f| f.at_field(field.clone())),
            );
        }
    }
    out
}
