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
pub mod configured;
pub mod drift;
pub mod lock;
pub mod options;
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

/// The capture endpoint for a configured server, as its client starts it here:
/// stdio argv = command + args exactly as audited, env = the config's env (values
/// expanded from `lookup` in the client's syntax, see [`configured`]) over the
/// minimal environment, working directory = `cwd_for_project` when given; a URL
/// server gets the config's headers, expanded the same way. Also returns the
/// variables a value referenced that `lookup` did not have.
pub fn endpoint_for(
    server: &ServerSpec,
    cwd_for_project: Option<&Path>,
    known: &crate::reading::expand::Known,
    lookup: crate::reading::expand::Lookup<'_>,
) -> Result<(Endpoint, Vec<String>), PinError> {
    let expanded = configured::expanded(server, known, lookup);
    if let Some(url) = server.remote_url() {
        if let Some((k, _)) = expanded
            .headers
            .iter()
            .find(|(_, v)| v.contains(['\r', '\n', '\0']))
        {
            return Err(PinError::Spec(format!(
                "header '{}' has a line break in its value",
                crate::text::safe_text(k)
            )));
        }
        return Ok((
            Endpoint::Http {
                url: url.to_string(),
                headers: expanded.headers,
            },
            expanded.unset,
        ));
    }
    let Some(command) = server.launch_command() else {
        return Err(PinError::Spec(
            "provide either a server command or --url".into(),
        ));
    };
    let mut argv = vec![command.to_string()];
    argv.extend(server.args().iter().cloned());
    Ok((
        Endpoint::Stdio {
            argv,
            env: expanded.env,
            cwd: cwd_for_project.map(Path::to_path_buf),
        },
        expanded.unset,
    ))
}

/// A configured server captured and built into its (unapproved) lock, and the
/// variables its env or headers referenced that were not set.
pub struct Captured {
    pub lock: Lock,
    pub unset: Vec<String>,
}

/// Capture a configured server with its env and headers expanded from `lookup`
/// and build its (unapproved) lock, findings included. For `doctor --pin`; write
/// the result with [`write_lock_exclusive`].
pub fn capture_configured(
    server: &ServerSpec,
    cwd_for_project: Option<&Path>,
    known: &crate::reading::expand::Known,
    lookup: crate::reading::expand::Lookup<'_>,
    timeout: Duration,
) -> Result<Captured, PinError> {
    let (endpoint, unset) = endpoint_for(server, cwd_for_project, known, lookup)?;
    let limits = Limits {
        timeout,
        ..Limits::default()
    };
    let surface = capture::capture(&endpoint, &limits)?;
    let lock = build(&surface, &Approval::default())?;
    Ok(Captured { lock, unset })
}

/// [`capture_configured`] with this process's environment.
pub fn capture_and_build(
    server: &ServerSpec,
    cwd_for_project: Option<&Path>,
    timeout: Duration,
) -> Result<Lock, PinError> {
    let lookup = |name: &str| std::env::var(name).ok();
    capture_configured(
        server,
        cwd_for_project,
        &crate::reading::expand::Known::default(),
        &lookup,
        timeout,
    )
    .map(|c| c.lock)
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
