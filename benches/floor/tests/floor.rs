//! The floor binary on tiny homes: it reports the servers of both kinds of server
//! map, in text and JSON, and fails closed with one `error:` line.

use std::path::Path;
use std::process::{Command, Output};

fn floor(home: &Path, json: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-warden-floor"));
    cmd.arg("--home").arg(home);
    if json {
        cmd.arg("--json");
    }
    cmd.output().expect("run the floor")
}

fn home_with(claude_json: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temporary home");
    std::fs::write(home.path().join(".claude.json"), claude_json).expect("write");
    home
}

#[test]
fn prints_every_server_of_a_tiny_file() {
    let home = home_with(
        r#"{"numStartups": 3, "history": [{"display": "x"}],
            "mcpServers": {"global": {"command": "npx", "args": ["-y", "it's@1"], "env": {"TOKEN": "hunter2"}}},
            "projects": {"/src/p": {"allowedTools": [], "mcpServers": {"Remote One": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer hunter2"}}}}}}"#,
    );
    let out = floor(home.path(), false);
    let text = String::from_utf8(out.stdout).expect("UTF-8 report");
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("MCP posture — 2 config source(s), 2 server(s)\n"),
        "{text}"
    );
    assert!(text.contains("  Claude Code  ~/.claude.json#projects[/src/p]  (1 server(s))\n"));
    assert!(text.contains("  parsed in a sandbox: "));
    assert!(text.contains(
        "  mcp-warden pin npx -y 'it'\\''s@1' --env TOKEN --approve --approver you@example.com --lock global.warden.lock\n"
    ));
    assert!(text.contains("  # '~/.claude.json#projects[/src/p]#Remote One'\n"));
    assert!(text.contains(
        "          mcp-warden check --url https://example.com/mcp --header \"$MCP_WARDEN_HEADER_0\" --lock remote-one.warden.lock\n"
    ));
    assert!(!text.contains("hunter2"), "a credential was printed");

    let out = floor(home.path(), true);
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).expect("UTF-8 report");
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2, "{json}");
    assert!(lines[1].contains(r#""target": "~/.claude.json#projects[/src/p]#Remote One""#));
    assert!(lines[1].contains(r#""snippet": "Remote One", "file": "~/.claude.json", "server": "Remote One", "project": "/src/p", "#));
}

#[test]
fn fails_closed_with_one_error_line() {
    for bad in [
        "{\"mcpServers\": {\"a\": {\"command\": 1}}}",
        "[",
        "{\"mcpServers\": {\"a\": {}}}",
    ] {
        let home = home_with(bad);
        let out = floor(home.path(), false);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(out.stdout.is_empty(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.lines().count() == 1,
            "{bad}: {err}"
        );
    }
    let home = tempfile::tempdir().expect("temporary home");
    std::os::unix::fs::symlink("/etc/passwd", home.path().join(".claude.json")).expect("symlink");
    assert_eq!(floor(home.path(), false).status.code(), Some(2));
}
