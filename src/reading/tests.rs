//! Each client's transport rule, field names and expansion, one reader at a time.

use super::*;

fn known() -> expand::Known {
    expand::Known {
        home: Some("/home/u".into()),
        workspace: Some("/home/u/proj".into()),
        separator: '/',
    }
}

fn file(readers: &'static [Reader]) -> FileReaders {
    FileReaders {
        readers,
        known: known(),
    }
}

fn body(json: serde_json::Value) -> ServerBody {
    let s = |k: &str| json.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let pairs = |k: &str| -> Vec<(String, String)> {
        json.get(k)
            .and_then(|v| v.as_object())
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    ServerBody {
        command: s("command"),
        args: json
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        url: s("url"),
        transport: s("type"),
        env: pairs("env"),
        headers: pairs("headers"),
        extra: vec![crate::protocol::ServerExtra {
            server_url: s("serverUrl"),
            http_url: s("httpUrl"),
            bearer_token_env_var: s("bearer_token_env_var"),
            bearer_token: s("bearer_token"),
            env_http_headers: pairs("env_http_headers"),
            enabled: json.get("enabled").and_then(|v| v.as_bool()),
            disabled: json.get("disabled").and_then(|v| v.as_bool()),
            ..crate::protocol::ServerExtra::default()
        }],
    }
}

/// (kind, command or url) of each reading.
fn read_as(readers: &'static [Reader], json: serde_json::Value) -> Vec<(&'static str, String)> {
    let r = read(body(json), &file(readers)).expect("readable");
    r.specs
        .iter()
        .map(|s| {
            let what = match &s.launch {
                Launch::Stdio(l) => format!("{} {}", l.command, l.args.join(" ")),
                Launch::Remote(l) => l.url.clone(),
                Launch::Nothing => String::new(),
            };
            (s.launch.kind(), what.trim().to_string())
        })
        .collect()
}

use serde_json::json;

#[test]
fn claude_code_runs_the_command_unless_a_remote_type_says_otherwise() {
    let cc = &[Reader::ClaudeCode][..];
    let both = json!({"command": "sh", "args": ["-c", "x"], "url": "https://ok.example.com/mcp"});
    assert_eq!(read_as(cc, both.clone()), [("stdio", "sh -c x".into())]);
    let mut typed = both.clone();
    typed["type"] = json!("stdio");
    assert_eq!(read_as(cc, typed), [("stdio", "sh -c x".into())]);
    let mut http = both;
    http["type"] = json!("http");
    assert_eq!(
        read_as(cc, http),
        [("http", "https://ok.example.com/mcp".into())]
    );
    // A url without a type is invalid to Claude Code: audited as remote anyway.
    assert_eq!(
        read_as(cc, json!({"url": "https://x.example.com"})),
        [("remote", "https://x.example.com".into())]
    );
}

#[test]
fn vscode_decides_by_command_when_the_type_is_not_stdio_or_http() {
    let vs = &[Reader::VsCode][..];
    let both = json!({"command": "sh", "url": "https://ok.example.com/mcp"});
    assert_eq!(read_as(vs, both.clone()), [("stdio", "sh".into())]);
    let mut sse = both.clone();
    sse["type"] = json!("sse");
    assert_eq!(read_as(vs, sse), [("stdio", "sh".into())]);
    let mut http = both;
    http["type"] = json!("http");
    assert_eq!(
        read_as(vs, http),
        [("http", "https://ok.example.com/mcp".into())]
    );
    // `type: stdio` with only a url: a stdio server with no command starts nothing.
    assert_eq!(
        read_as(vs, json!({"type": "stdio", "url": "https://x.example.com"})),
        [("none", String::new())]
    );
}

#[test]
fn a_dot_mcp_json_entry_with_both_is_read_two_ways() {
    let r = read(
        body(json!({"command": "sh", "url": "https://ok.example.com/mcp"})),
        &file(&[Reader::ClaudeCode, Reader::VsCodeWorkspace]),
    )
    .expect("readable");
    assert_eq!(r.specs.len(), 2);
    assert_eq!(
        r.specs[0].origin.readers,
        Readers::of(&[Reader::ClaudeCode])
    );
    assert_eq!(
        r.specs[1].origin.readers,
        Readers::of(&[Reader::VsCodeWorkspace])
    );
    assert!(r.ambiguous.is_some());
    // The same entry without a url: both clients agree, one reading, no flag.
    let one = read(
        body(json!({"command": "npx", "args": ["-y", "a@1"]})),
        &file(&[Reader::ClaudeCode, Reader::VsCodeWorkspace]),
    )
    .expect("readable");
    assert_eq!(one.specs.len(), 1);
    assert_eq!(one.specs[0].origin.readers.len(), 2);
    assert!(one.ambiguous.is_none());
}

#[test]
fn windsurf_reads_server_url_and_every_undocumented_reading() {
    let ws = &[Reader::Windsurf][..];
    assert_eq!(
        read_as(ws, json!({"serverUrl": "https://real.example.com/mcp"})),
        [("remote", "https://real.example.com/mcp".into())]
    );
    let decoy = read_as(
        ws,
        json!({"serverUrl": "https://real.example.com/mcp", "url": "https://decoy.example.com"}),
    );
    assert!(decoy.contains(&("remote", "https://real.example.com/mcp".into())));
    assert!(decoy.contains(&("remote", "https://decoy.example.com".into())));
}

#[test]
fn gemini_prefers_http_url_then_url_then_command() {
    let g = &[Reader::GeminiCli][..];
    assert_eq!(
        read_as(
            g,
            json!({"httpUrl": "https://a.example.com", "url": "https://b.example.com", "command": "x"})
        ),
        [("http", "https://a.example.com".into())]
    );
    assert_eq!(
        read_as(g, json!({"url": "https://b.example.com", "command": "x"})),
        [("sse", "https://b.example.com".into())]
    );
}

#[test]
fn codex_builds_auth_headers_and_refuses_what_codex_refuses() {
    let cx = &[Reader::Codex][..];
    let r = read(
        body(json!({"url": "https://x.example.com/mcp", "bearer_token_env_var": "TOK", "env_http_headers": {"X-Key": "KEY"}})),
        &file(cx),
    )
    .expect("readable");
    assert_eq!(
        r.specs[0].headers(),
        [
            ("X-Key".to_string(), "${KEY}".to_string()),
            ("Authorization".to_string(), "Bearer ${TOK}".to_string())
        ]
    );
    for refused in [
        json!({"command": "npx", "url": "https://x.example.com"}),
        json!({"command": "npx", "bearer_token_env_var": "T"}),
        json!({"url": "https://x.example.com", "args": ["a"]}),
        json!({"url": "https://x.example.com", "bearer_token": "abc"}),
        json!({"args": ["a"]}),
    ] {
        let e = read(body(refused.clone()), &file(cx)).expect_err("refused");
        assert!(e.starts_with("Codex refuses this entry"), "{refused}: {e}");
    }
    let off = read(body(json!({"command": "npx", "enabled": false})), &file(cx)).expect("ok");
    assert!(off.specs[0].origin.disabled);
}

#[test]
fn expansion_is_per_client_and_flags_a_varying_command() {
    let cc = read(
        body(json!({"command": "${RUNNER:-npx}", "args": ["-y", "${PKG:-evil-pkg}"]})),
        &file(&[Reader::ClaudeCode]),
    )
    .expect("ok");
    assert_eq!(cc.specs[0].launch_command(), Some("npx"));
    assert_eq!(cc.specs[0].args(), ["-y", "evil-pkg"]);
    assert!(!varying_refs(&cc.specs[0]).is_empty());
    // Only an argument varies: the command does not.
    let arg = read(
        body(json!({"command": "npx", "args": ["${PKG:-a@1}"]})),
        &file(&[Reader::ClaudeCode]),
    )
    .expect("ok");
    assert!(varying_refs(&arg.specs[0]).is_empty());
    assert_eq!(arg.specs[0].origin.variables, ["${PKG:-a@1}"]);
    // VS Code: the workspace folder is known, an unset env var is empty.
    let vs = read(
        body(json!({"command": "${workspaceFolder}/run.sh", "args": ["${env:X}"]})),
        &file(&[Reader::VsCode]),
    )
    .expect("ok");
    assert_eq!(vs.specs[0].launch_command(), Some("/home/u/proj/run.sh"));
    assert_eq!(vs.specs[0].args(), [""]);
}
