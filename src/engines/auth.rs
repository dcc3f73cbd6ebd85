//! WRD-AUTH-*: the static auth-posture audit, and the WRD-SEC-* scan of everything a
//! server's config carries (headers, env, launch argv, URL).
//!
//! This module owns the verdicts per server: is the endpoint remote, cleartext or
//! unauthenticated, and which configured values are literal credentials or
//! placeholders. It never renders: messages may quote config text (a host, a key)
//! and go through safe_text downstream; snippets are always redacted here.

use super::keys::is_auth_key;
use super::secrets::{scan_field, scan_launch_text};
use super::text::py_strip;
use crate::model::{EngineFinding, FieldPath, ServerSpec};
use crate::rules::RuleId;
use crate::text::mask::{arg_credentials, percent_decode, url_credentials};
use crate::text::redact::redact_secret;
use crate::text::url::{is_local_host, split};

pub use super::refs::is_secret_reference;

/// `type`/`transport` values that make a server remote without a URL. The reference
/// set plus the spellings some clients write (`streamableHttp`, `streamable_http`,
/// `ws`).
const REMOTE_TRANSPORTS: &[&str] = &[
    "http",
    "sse",
    "streamable-http",
    "websocket",
    "streamablehttp",
    "streamable_http",
    "ws",
];

/// Where a literal was found; chooses the message wording.
#[derive(Clone, Copy)]
enum Place {
    /// `headers` or `env`: the reference's wording.
    Mapping,
    Arg,
    Url,
}

fn literal_finding(
    place: Place,
    key: &str,
    value: &str,
    vendor_hit: bool,
) -> Option<EngineFinding> {
    if value.is_empty() || (!vendor_hit && is_secret_reference(value)) {
        return None;
    }
    // A value the vendor patterns or entropy recognise is a credential however it is
    // dressed up: never downgraded to a placeholder.
    let placeholder = !vendor_hit && super::refs::looks_like_placeholder(value);
    let what = match place {
        Place::Mapping => format!("auth key '{key}'"),
        Place::Arg => format!("launch argument '{key}'"),
        Place::Url => format!("URL parameter '{key}'"),
    };
    let (rule, message) = if placeholder {
        (
            RuleId::AuthPlaceholderSecret,
            format!("{what} holds a placeholder, not a working credential; wire it to a secret reference (${{VAR}})"),
        )
    } else {
        (
            RuleId::AuthTokenInConfig,
            format!("{what} holds a literal credential in config; reference a secret manager (${{VAR}}) instead"),
        )
    };
    Some(EngineFinding::new(
        rule,
        message,
        redact_secret(py_strip(value)),
    ))
}

/// `findings`, each about `field`.
fn about(
    findings: impl IntoIterator<Item = EngineFinding>,
    field: &FieldPath,
) -> Vec<EngineFinding> {
    findings
        .into_iter()
        .map(|f| f.at_field(field.clone()))
        .collect()
}

/// `headers` / `env`: literal credentials under auth-shaped keys, and every secret
/// under any key; each finding about the value's field (`field(key)`).
fn scan_mapping(
    entries: &[(String, String)],
    field: fn(String) -> FieldPath,
    out: &mut Vec<EngineFinding>,
) {
    for (key, value) in entries {
        if value.is_empty() {
            continue;
        }
        let vendor = scan_field(value);
        let literal = is_auth_key(key)
            .then(|| literal_finding(Place::Mapping, key, value, !vendor.is_empty()))
            .flatten();
        // The field (a copy of the key) only for a value with something to report.
        if literal.is_none() && vendor.is_empty() {
            continue;
        }
        let at = field(key.clone());
        out.extend(about(literal, &at));
        out.extend(about(vendor, &at));
    }
}

/// Launch argv: secrets anywhere (command included), and literal credentials after
/// auth-shaped flags, in `KEY=value` / `Key: value`, JSON and URL arguments.
fn scan_argv(command: Option<&str>, args: &[String], out: &mut Vec<EngineFinding>) {
    if let Some(cmd) = command.filter(|c| !c.is_empty()) {
        out.extend(about(scan_launch_text(cmd), &FieldPath::Command));
    }
    let mut prev: Option<&str> = None;
    for (i, arg) in args.iter().enumerate() {
        let at = FieldPath::Arg(i);
        out.extend(about(scan_launch_text(arg), &at));
        for c in arg_credentials(prev, arg) {
            let vendor = !scan_launch_text(&c.value).is_empty();
            out.extend(about(
                literal_finding(Place::Arg, &c.key, &c.value, vendor),
                &at,
            ));
        }
        prev = Some(arg);
    }
}

/// URL: secrets in each piece (userinfo, path segments, query keys and values,
/// fragment), and literal credentials in auth-shaped query or fragment parameters;
/// each finding about `field`.
fn scan_url(url: &str, field: &FieldPath, out: &mut Vec<EngineFinding>) {
    let p = split(url);
    let mut pieces: Vec<String> = Vec::new();
    if let Some(u) = p.userinfo(url) {
        pieces.push(percent_decode(u, false).into_owned());
    }
    pieces.extend(
        url[p.path.clone()]
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| percent_decode(s, false).into_owned()),
    );
    for range in [p.query.clone(), p.fragment.clone()].into_iter().flatten() {
        for pair in url[range].split('&') {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            pieces.push(percent_decode(k, true).into_owned());
            pieces.push(percent_decode(v, true).into_owned());
        }
    }
    for piece in pieces.iter().filter(|s| !s.is_empty()) {
        out.extend(about(scan_launch_text(piece), field));
    }
    for c in url_credentials(url) {
        let vendor = !scan_launch_text(&c.value).is_empty();
        out.extend(about(
            literal_finding(Place::Url, &c.key, &c.value, vendor),
            field,
        ));
    }
}

/// Whether the server declares any authentication material: an auth-shaped header
/// (the launch's, Codex's built ones included) or env key with a non-blank value,
/// URL userinfo, or an auth-shaped URL parameter.
fn has_auth(server: &ServerSpec, url: Option<&str>) -> bool {
    let mapped = server
        .headers()
        .iter()
        .chain(server.declared.headers.iter())
        .chain(server.declared.env.iter())
        .any(|(k, v)| is_auth_key(k) && !py_strip(v).is_empty());
    mapped || url.is_some_and(|u| split(u).userinfo(u).is_some() || !url_credentials(u).is_empty())
}

/// Every WRD-AUTH-* and WRD-SEC-* finding for one server, sorted by (rule id,
/// snippet). The endpoint checks read the launch (what the client connects to);
/// the credential scans read the launch and every field as written, so a literal
/// in a field this client ignores, or in a default a variable expands to, is
/// still found.
pub fn audit_server(name: &str, server: &ServerSpec) -> Vec<EngineFinding> {
    let mut out = Vec::new();
    let declared = &server.declared;
    let transport = declared
        .transport
        .as_deref()
        .or(declared.extra().transport_key.as_deref())
        .unwrap_or("")
        .to_lowercase();
    if let Some(url) = server.remote_url() {
        let p = split(url);
        let host = p.host(url);
        let remote = !is_local_host(host);
        if p.userinfo(url).is_some() {
            out.push(EngineFinding::new(
                RuleId::AuthUrlCredential,
                "MCP endpoint URL embeds a userinfo credential; move it to a header referencing a secret manager"
                    .to_string(),
                p.safe_url(url),
            ).at_field(FieldPath::Url));
        }
        let scheme = p.scheme(url).map(str::to_ascii_lowercase);
        let cleartext = match scheme.as_deref() {
            Some("http") => Some(("http://", "https://")),
            Some("ws") => Some(("ws://", "wss://")),
            _ => None,
        };
        if let (Some((clear, secure)), true) = (cleartext, remote) {
            out.push(
                EngineFinding::new(
                    RuleId::AuthPlaintextHttp,
                    format!("remote MCP endpoint '{host}' uses cleartext {clear}; use {secure}"),
                    p.safe_url(url),
                )
                .at_field(FieldPath::Url),
            );
        }
        if remote && !has_auth(server, Some(url)) {
            out.push(EngineFinding::new(
                RuleId::AuthNoAuth,
                format!(
                    "remote MCP endpoint '{host}' declares no authentication (no Authorization/token header or env)"
                ),
                host.to_string(),
            ).at_field(FieldPath::Url));
        }
        scan_url(url, &FieldPath::Url, &mut out);
    } else if matches!(server.launch, crate::model::Launch::Nothing)
        && REMOTE_TRANSPORTS.contains(&transport.as_str())
        && !has_auth(server, None)
    {
        // The transport is remote without a URL: the field that says so.
        let field = if declared.transport.is_some() {
            FieldPath::Transport
        } else {
            FieldPath::Named("transport")
        };
        out.push(
            EngineFinding::new(
                RuleId::AuthNoAuth,
                format!("{transport} MCP server declares no authentication material"),
                name.to_string(),
            )
            .at_field(field),
        );
    }
    scan_mapping(server.headers(), FieldPath::Header, &mut out);
    scan_mapping(server.env(), FieldPath::Env, &mut out);
    scan_argv(server.launch_command(), server.args(), &mut out);
    // As written: fields this reading ignores, and values before expansion. A
    // field the launch carries unchanged was scanned just above.
    if declared.headers != server.headers() {
        scan_mapping(&declared.headers, FieldPath::Header, &mut out);
    }
    if declared.env != server.env() {
        scan_mapping(&declared.env, FieldPath::Env, &mut out);
    }
    if declared.command.as_deref() != server.launch_command() || declared.args != server.args() {
        scan_argv(declared.command.as_deref(), &declared.args, &mut out);
    }
    for (field, url) in [
        (FieldPath::Url, &declared.url),
        (FieldPath::Named("serverUrl"), &declared.extra().server_url),
        (FieldPath::Named("httpUrl"), &declared.extra().http_url),
    ] {
        let Some(url) = url.as_deref() else { continue };
        if url.is_empty() || Some(url) == server.remote_url() {
            continue;
        }
        // A declared `url` the launch does not use is named as written, not as
        // the endpoint (which may come from another field).
        let field = match field {
            FieldPath::Url => FieldPath::Named("url"),
            other => other,
        };
        scan_url(url, &field, &mut out);
    }
    if let Some(token) = declared
        .extra()
        .bearer_token
        .as_deref()
        .filter(|t| !t.is_empty())
    {
        scan_mapping(
            &[("bearer_token".to_string(), token.to_string())],
            |_| FieldPath::Named("bearer_token"),
            &mut out,
        );
    }
    out.sort_by(|a, b| (a.rule.as_str(), &a.snippet).cmp(&(b.rule.as_str(), &b.snippet)));
    out.dedup();
    out
}
