//! Pinning: capture an MCP server's declared surface, write it to a
//! `warden.lock` (schema version 4, digest-compatible with the earlier
//! implementation), re-attest a lock (`lock rotate`), and compare a server with
//! its lock (`check`).
//!
//! The entry points for other commands are [`capture_and_build`],
//! [`write_lock_exclusive`] and [`write_lock_replace`].

pub mod capture;
pub mod check;
pub mod checks;
pub mod commands;
pub mod drift;
pub mod lock;
pub mod rotate;
pub mod rules;
pub mod time;

use std::path::Path;
use std::time::Duration;

pub use capture::{CaptureError, Endpoint, Limits, Surface};
pub use lock::build::Approval;
pub use lock::write::{write_lock_exclusive, write_lock_replace, WriteError};
pub use lock::Lock;

use crate::model::ServerSpec;

/// `pin`'s own option names (plus the `--` separator). A `pin` line whose server
/// argv contains one of these (or `--name=value`) must be printed in the
/// `mcp-warden pin [options] -- ARGV…` form, since trailing pin options are
/// taken from the end of the line. `crate::render::PIN_OPTION_NAMES` must list
/// the same words (a unit test checks it).
pub const PIN_OPTION_NAMES: &[&str] = &[
    "--url",
    "--lock",
    "--approve",
    "--approver",
    "--timeout",
    "--header",
    "--env",
    "--json",
    "--sarif",
    "--help",
    "-h",
    "--version",
    "-V",
    "--",
];

/// Why pinning failed.
#[derive(Debug)]
pub enum PinError {
    /// The server spec names neither a command nor a URL, or a header cannot be expanded.
    Spec(String),
    Capture(CaptureError),
    /// The surface has no canonical form.
    Build(String),
    Write(WriteError),
}

impl std::fmt::Display for PinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PinError::Spec(m) | PinError::Build(m) => f.write_str(m),
            PinError::Capture(e) => write!(f, "capture failed: {e}"),
            PinError::Write(e) => write!(f, "could not write lock: {e}"),
        }
    }
}

impl std::error::Error for PinError {}

impl From<CaptureError> for PinError {
    fn from(e: CaptureError) -> Self {
        PinError::Capture(e)
    }
}

/// Expand `$VAR` and `${VAR}` in a header value from the environment, so a
/// secret never has to be written on a command line or in a config. An unset
/// variable is an error (fail closed rather than send an empty credential).
pub fn expand_env(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, consumed) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => return Err("unterminated ${ in a header value".into()),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            // Not a variable reference: keep the `$` literally.
            out.push('$');
            rest = after;
            continue;
        }
        match std::env::var(name) {
            Ok(v) => out.push_str(&v),
            Err(_) => return Err(format!("header value references ${name}, which is not set")),
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The capture endpoint for a configured server: stdio argv = command + args,
/// env = the config's env over the minimal environment, working directory =
/// `cwd_for_project` when given; a URL server gets the config's headers
/// (with `$VAR` references expanded).
pub fn endpoint_for(
    server: &ServerSpec,
    cwd_for_project: Option<&Path>,
) -> Result<Endpoint, PinError> {
    if let Some(url) = server.remote_url() {
        let headers = server
            .headers()
            .iter()
            .map(|(k, v)| expand_env(v).map(|v| (k.clone(), v)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(PinError::Spec)?;
        return Ok(Endpoint::Http {
            url: url.to_string(),
            headers,
        });
    }
    let Some(command) = server.launch_command() else {
        return Err(PinError::Spec(
            "provide either a server command or --url".into(),
        ));
    };
    let mut argv = vec![command.to_string()];
    argv.extend(server.args().iter().cloned());
    Ok(Endpoint::Stdio {
        argv,
        env: server.env().to_vec(),
        cwd: cwd_for_project.map(Path::to_path_buf),
    })
}

/// Capture a configured server and build its (unapproved) lock, findings
/// included. For `doctor --pin`; write the result with [`write_lock_exclusive`].
pub fn capture_and_build(
    server: &ServerSpec,
    cwd_for_project: Option<&Path>,
    timeout: Duration,
) -> Result<Lock, PinError> {
    let endpoint = endpoint_for(server, cwd_for_project)?;
    let limits = Limits {
        timeout,
        ..Limits::default()
    };
    let surface = capture::capture(&endpoint, &limits)?;
    build(&surface, &Approval::default())
}

/// Findings plus lock for a captured surface.
pub fn build(surface: &Surface, approval: &Approval) -> Result<Lock, PinError> {
    let findings = checks::run_checks(surface);
    lock::build::build_lock(surface, findings, approval, None, &time::now_rfc3339())
        .map_err(|e| PinError::Build(e.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_names_agree_with_the_next_steps_renderer() {
        let mut ours: Vec<&str> = PIN_OPTION_NAMES.to_vec();
        let mut theirs: Vec<&str> = crate::render::PIN_OPTION_NAMES.to_vec();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs);
        // Every option the parser knows is in the list.
        for name in commands::option_words() {
            assert!(PIN_OPTION_NAMES.contains(&name), "{name}");
        }
    }

    #[test]
    fn env_expansion() {
        std::env::set_var("MCPW_TEST_TOKEN", "abc");
        assert_eq!(
            expand_env("Bearer $MCPW_TEST_TOKEN").as_deref(),
            Ok("Bearer abc")
        );
        assert_eq!(expand_env("x${MCPW_TEST_TOKEN}y").as_deref(), Ok("xabcy"));
        assert_eq!(expand_env("a $ b $1").as_deref(), Ok("a $ b $1"));
        assert!(expand_env("$MCPW_TEST_UNSET_VAR_X").is_err());
    }
}
