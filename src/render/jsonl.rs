//! `--json`: one JSON object per finding.
//!
//! Lines follow report order (sources, servers, each server's sorted findings),
//! with the keys `kind, rule_id, severity, level, target, message, snippet` in
//! that order, spelled like Python's `json.dumps(ensure_ascii=False)`: separators
//! `", "` and `": "`, non-ASCII written literally, one `\n` after each object.
//! No finding, no output. Config-derived fields pass through [`safe_text`](crate::text::safe_text::safe_text) first.
//!
//! `--inventory` adds, before the findings, one `{"kind": "server", …}` line per
//! audited server: what each client reading of each entry starts, for inventories
//! and for checking doctor's reading against a client's own (see
//! `docs/clients.md`). Its `launch_digest` is the lock format's `command_digest` of
//! the launch (after the client's expansion), so it names exactly what a lock must
//! pin without printing any word of it.

use std::io::{self, Write};

use crate::digest;
use crate::model::{AuditedServer, Finding, Launch, Report};
use crate::render::{Targets, FLUSH_AT};
use crate::text::display;

/// Append `s` as a JSON string literal (quotes and escapes as serde_json writes them).
pub(crate) fn push_json_string(buf: &mut Vec<u8>, s: &str) -> io::Result<()> {
    serde_json::to_writer(buf, s).map_err(io::Error::other)
}

/// Append one JSONL line for `finding`, without the trailing newline.
fn push_line(buf: &mut Vec<u8>, finding: &Finding, targets: &mut Targets) -> io::Result<()> {
    let severity = finding.severity();
    buf.extend_from_slice(b"{\"kind\": \"finding\", \"rule_id\": ");
    push_json_string(buf, finding.rule.as_str())?;
    buf.extend_from_slice(b", \"severity\": ");
    push_json_string(buf, severity.as_str())?;
    buf.extend_from_slice(b", \"level\": ");
    push_json_string(buf, severity.level())?;
    buf.extend_from_slice(b", \"target\": ");
    push_json_string(buf, &targets.display(&finding.target))?;
    buf.extend_from_slice(b", \"message\": ");
    push_json_string(buf, &display(&finding.message_with_fix()))?;
    buf.extend_from_slice(b", \"snippet\": ");
    push_json_string(buf, &display(&finding.snippet))?;
    buf.push(b'}');
    Ok(())
}

/// Append a JSON array of strings, spelled like the rest of the line.
fn push_json_strings<'s>(
    buf: &mut Vec<u8>,
    items: impl Iterator<Item = &'s str>,
) -> io::Result<()> {
    buf.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            buf.extend_from_slice(b", ");
        }
        push_json_string(buf, item)?;
    }
    buf.push(b']');
    Ok(())
}

/// Append one `{"kind": "server", …}` line for `server`, without the newline.
fn push_server_line(
    buf: &mut Vec<u8>,
    report: &Report,
    server: &AuditedServer,
    targets: &mut Targets,
) -> io::Result<()> {
    let spec = &server.spec;
    let client = report
        .sources
        .get(server.source)
        .map_or("", |s| s.client.as_str());
    buf.extend_from_slice(b"{\"kind\": \"server\", \"target\": ");
    push_json_string(buf, &targets.display(&server.target))?;
    buf.extend_from_slice(b", \"client\": ");
    push_json_string(buf, &display(client))?;
    buf.extend_from_slice(b", \"readers\": ");
    push_json_strings(buf, spec.origin.readers.iter().map(|r| r.name()))?;
    buf.extend_from_slice(b", \"name\": ");
    push_json_string(buf, &display(&spec.origin.key.name))?;
    buf.extend_from_slice(b", \"key\": ");
    push_json_string(buf, &display(&spec.origin.key.path()))?;
    buf.extend_from_slice(b", \"transport\": ");
    push_json_string(buf, spec.launch.kind())?;
    buf.extend_from_slice(b", \"launch_digest\": ");
    let digest = match &spec.launch {
        Launch::Stdio(s) => Some(digest::command_digest_stdio(&s.command, &s.args)),
        Launch::Remote(r) => Some(digest::command_digest_url(&r.url)),
        Launch::Nothing => None,
    };
    match digest {
        Some(d) => push_json_string(buf, &d)?,
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b", \"disabled\": ");
    buf.extend_from_slice(if spec.origin.disabled {
        b"true"
    } else {
        b"false"
    });
    let names = |pairs: &[(String, String)]| -> Vec<String> {
        pairs.iter().map(|(k, _)| display(k).into_owned()).collect()
    };
    for (key, list) in [
        ("env_names", names(spec.env())),
        ("header_names", names(spec.headers())),
    ] {
        buf.extend_from_slice(b", \"");
        buf.extend_from_slice(key.as_bytes());
        buf.extend_from_slice(b"\": ");
        push_json_strings(buf, list.iter().map(String::as_str))?;
    }
    buf.push(b'}');
    Ok(())
}

/// Write one `{"kind": "server", …}` line per audited server (`--inventory`).
pub fn render_inventory(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::with_capacity(2 * FLUSH_AT);
    let mut targets = Targets::new();
    for server in &report.servers {
        push_server_line(&mut buf, report, server, &mut targets)?;
        buf.push(b'\n');
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// One JSONL line for `finding`, without the trailing newline.
pub fn line(finding: &Finding) -> String {
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail, and the bytes are UTF-8 JSON.
    let _ = push_line(&mut buf, finding, &mut Targets::new());
    String::from_utf8(buf).unwrap_or_default()
}

/// Write every finding of `report` as one JSON object per line.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::with_capacity(2 * FLUSH_AT);
    let mut targets = Targets::new();
    for finding in report.findings() {
        push_line(&mut buf, finding, &mut targets)?;
        buf.push(b'\n');
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{AuditedServer, Coverage, ServerSpec, Source};
    use crate::rules::RuleId;

    fn finding(rule: RuleId, target: &str, message: &str, snippet: &str) -> Finding {
        Finding {
            rule,
            target: target.into(),
            message: message.into(),
            snippet: snippet.into(),
            fix: None,
            field: None,
            at: None,
            suppressed: None,
        }
    }

    const NO_LOCK_MSG: &str =
        "no warden.lock pins this server's declared surface; run the pin command below";

    fn server(
        source: usize,
        name: &str,
        label: &str,
        spec: ServerSpec,
        findings: Vec<Finding>,
    ) -> AuditedServer {
        AuditedServer {
            source,
            name: name.into(),
            target: format!("{label}#{name}").into(),
            spec,
            line: 1,
            column: 3,
            findings,
            coverage: Coverage::None,
            lock_name: None,
        }
    }

    /// The fake home of doctor-reference §2.0 (F1), as doctor reports it on darwin.
    pub(crate) fn worked_example() -> Report {
        let claude = "~/.claude.json#projects[/repo]";
        let cursor = "~/.cursor/mcp.json";
        let desktop = "~/Library/Application Support/Claude/claude_desktop_config.json";
        let t_ok = format!("{claude}#ok");
        let t_gh = format!("{cursor}#gh");
        let t_remote = format!("{desktop}#remote");
        let ok = server(
            0,
            "ok",
            claude,
            crate::engines::tests::spec_of(crate::protocol::ServerBody {
                url: Some("https://h.example.com".into()),
                headers: vec![("Authorization".into(), "Bearer ${T}".into())],
                ..crate::protocol::ServerBody::default()
            }),
            vec![finding(RuleId::DoctorNoLock, &t_ok, NO_LOCK_MSG, "ok")],
        );
        let gh = server(
            1,
            "gh",
            cursor,
            crate::engines::tests::spec_of(crate::protocol::ServerBody {
                command: Some("npx".into()),
                args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
                env: vec![("GITHUB_TOKEN".into(), "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2".into())],
                ..crate::protocol::ServerBody::default()
            }),
            vec![
                finding(
                    RuleId::AuthTokenInConfig,
                    &t_gh,
                    "auth key 'GITHUB_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead",
                    "ghp_…(len=40)",
                ),
                finding(RuleId::DoctorNoLock, &t_gh, NO_LOCK_MSG, "gh"),
                finding(RuleId::SecGithub, &t_gh, "WRD-SEC-GITHUB: possible secret in field", "ghp_…(len=40)"),
                finding(
                    RuleId::SupNpxUnpinned,
                    &t_gh,
                    "Unpinned npx package (resolves latest at run)",
                    "@modelcontextprotocol/server-github",
                ),
            ],
        );
        let remote = server(
            2,
            "remote",
            desktop,
            crate::engines::tests::spec_of(crate::protocol::ServerBody { url: Some("http://mcp.example.com/sse".into()), ..crate::protocol::ServerBody::default() }),
            vec![
                finding(
                    RuleId::AuthNoAuth,
                    &t_remote,
                    "remote MCP endpoint 'mcp.example.com' declares no authentication (no Authorization/token header or env)",
                    "mcp.example.com",
                ),
                finding(
                    RuleId::AuthPlaintextHttp,
                    &t_remote,
                    "remote MCP endpoint 'mcp.example.com' uses cleartext http://; use https://",
                    "http://mcp.example.com",
                ),
                finding(RuleId::DoctorNoLock, &t_remote, NO_LOCK_MSG, "remote"),
            ],
        );
        let src = |client: &str, label: &str, path: &str| Source {
            client_id: [
                crate::model::Client::ClaudeCode,
                crate::model::Client::Cursor,
                crate::model::Client::ClaudeDesktop,
            ]
            .into_iter()
            .find(|c| c.name() == client),
            client: client.into(),
            label: label.into(),
            path: path.into(),
            scope: crate::model::Scope::User,
            layer: crate::model::Layer::User,
            project_dir: None,
            settings: Vec::new(),
        };
        Report {
            sources: vec![
                src("Claude Code", claude, "/home/u/.claude.json"),
                src("Cursor", cursor, "/home/u/.cursor/mcp.json"),
                src(
                    "Claude Desktop",
                    desktop,
                    "/home/u/Library/Application Support/Claude/claude_desktop_config.json",
                ),
            ],
            servers: vec![ok, gh, remote],
            sandbox: "landlock ABI 6, seccomp, no capabilities".into(),
            skipped: 0,
            hard_errors: 0,
            searched: 9,
            files_read: 3,
            relocations: Vec::new(),
            ..Report::default()
        }
    }

    fn render_string(r: &Report) -> String {
        let mut buf = Vec::new();
        render(r, &mut buf).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(buf).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn worked_example_lines_exact() {
        let expected = r#"{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/.claude.json#projects[/repo]#ok", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "ok"}
{"kind": "finding", "rule_id": "WRD-AUTH-TOKEN-IN-CONFIG", "severity": "high", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "auth key 'GITHUB_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead", "snippet": "ghp_…(len=40)"}
{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/.cursor/mcp.json#gh", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "gh"}
{"kind": "finding", "rule_id": "WRD-SEC-GITHUB", "severity": "critical", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "WRD-SEC-GITHUB: possible secret in field", "snippet": "ghp_…(len=40)"}
{"kind": "finding", "rule_id": "WRD-SUP-NPX-UNPINNED", "severity": "high", "level": "error", "target": "~/.cursor/mcp.json#gh", "message": "Unpinned npx package (resolves latest at run)", "snippet": "@modelcontextprotocol/server-github"}
{"kind": "finding", "rule_id": "WRD-AUTH-NOAUTH", "severity": "medium", "level": "warning", "target": "~/Library/Application Support/Claude/claude_desktop_config.json#remote", "message": "remote MCP endpoint 'mcp.example.com' declares no authentication (no Authorization/token header or env)", "snippet": "mcp.example.com"}
{"kind": "finding", "rule_id": "WRD-AUTH-PLAINTEXT-HTTP", "severity": "high", "level": "error", "target": "~/Library/Application Support/Claude/claude_desktop_config.json#remote", "message": "remote MCP endpoint 'mcp.example.com' uses cleartext http://; use https://", "snippet": "http://mcp.example.com"}
{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "~/Library/Application Support/Claude/claude_desktop_config.json#remote", "message": "no warden.lock pins this server's declared surface; run the pin command below", "snippet": "remote"}
"#;
        assert_eq!(render_string(&worked_example()), expected);
    }

    #[test]
    fn no_findings_no_output() {
        assert_eq!(render_string(&Report::default()), "");
    }

    #[test]
    fn hostile_fields_are_neutralised_and_still_one_line_each() {
        let mut r = worked_example();
        let f = &mut r.servers[0].findings[0];
        f.target = "~/x.json#gh\n{\"kind\": \"finding\"}\u{202e}\"\\".into();
        f.message = "m\u{1b}[2K".into();
        f.snippet = "s".repeat(300);
        let text = render_string(&r);
        assert_eq!(text.lines().count(), 8);
        let first = text.lines().next().unwrap_or_default();
        assert!(!first.contains('\u{1b}') && !first.contains('\u{202e}'));
        let v: serde_json::Value = serde_json::from_str(first).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            v["target"],
            "~/x.json#gh\u{FFFD}{\"kind\": \"finding\"}\u{FFFD}\"\\"
        );
        assert_eq!(v["message"], "m\u{FFFD}[2K");
        assert_eq!(v["snippet"].as_str().map(|s| s.chars().count()), Some(200));
        let keys: Vec<&String> = v
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            ["kind", "rule_id", "severity", "level", "target", "message", "snippet"]
        );
    }
}
