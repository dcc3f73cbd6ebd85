//! WRD-AUTH-*: the static auth-posture audit.

use crate::model::{EngineFinding, ServerSpec};

/// Every WRD-AUTH-* and WRD-SEC-* finding for one server (headers, env, args, URL).
pub fn audit_server(_name: &str, _server: &ServerSpec) -> Vec<EngineFinding> {
    Vec::new()
}

/// `${VAR}`, `$VAR`, `{{ x }}`, `%VAR%`, secret-manager URIs: a value that names a
/// secret instead of holding one.
pub fn is_secret_reference(_value: &str) -> bool {
    false
}
