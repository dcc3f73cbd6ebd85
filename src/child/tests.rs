//! `parse_file` tests: the reference catalog (doctor reference §2 tests 4–8,
//! 45–47, 52–55) plus hostile inputs, field typing, positions, TOML and locks.
// Test-harness messages (a skipped shell, a measured ratio) are not product output.
#![allow(clippy::disallowed_macros)]

use super::{parse_file, read_capped};
use crate::protocol::bounds::MAX_STRING_BYTES;
use crate::protocol::{
    ChildMessage, FileFormat, LoadError, LoadErrorKind, LockSummary, ParsedConfig, ServerBody,
    ServerEntry, ServerMap,
};
use std::time::{Duration, Instant};

fn config(format: FileFormat, text: &str) -> Result<ParsedConfig, LoadError> {
    config_bytes(format, text.as_bytes())
}

fn config_bytes(format: FileFormat, bytes: &[u8]) -> Result<ParsedConfig, LoadError> {
    match parse_file(format, bytes) {
        ChildMessage::Config(r) => r,
        other => panic!("config job answered with {other:?}"),
    }
}

fn ok(format: FileFormat, text: &str) -> ParsedConfig {
    match config(format, text) {
        Ok(c) => c,
        Err(e) => panic!("{text:?}: {e:?}"),
    }
}

fn err(format: FileFormat, text: &str) -> LoadError {
    match config(format, text) {
        Ok(c) => panic!("{text:?} loaded: {c:?}"),
        Err(e) => e,
    }
}

/// The servers of a single-section file.
fn servers(format: FileFormat, text: &str) -> Vec<ServerEntry> {
    let mut c = ok(format, text);
    assert_eq!(c.sections.len(), 1, "{c:?}");
    let s = c.sections.remove(0);
    assert_eq!(s.project, None);
    assert_eq!(s.error, None);
    s.servers
}

fn names(entries: &[ServerEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.name.as_str()).collect()
}

fn body(entry: &ServerEntry) -> &ServerBody {
    match &entry.body {
        Ok(b) => b,
        Err(e) => panic!("{}: {e}", entry.name),
    }
}

/// The body error of the only server in a JSON file `{"mcpServers": {"s": <entry>}}`.
fn body_error(entry: &str) -> String {
    let text = format!("{{\"mcpServers\": {{\"s\": {entry}}}}}");
    let s = servers(FileFormat::Json, &text);
    match &s[0].body {
        Err(e) => e.clone(),
        Ok(b) => panic!("{entry}: accepted as {b:?}"),
    }
}

const JSON: FileFormat = FileFormat::Json;
const JSONC: FileFormat = FileFormat::Jsonc;
const CLAUDE: FileFormat = FileFormat::ClaudeJson;
const TOML: FileFormat = FileFormat::CodexToml;

// --- reference catalog ---------------------------------------------------------

#[test]
fn t04_json_accepts_mcpservers_and_vscode_servers_key() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"fs": {"command": "npx", "args": ["x"]}}}"#,
    );
    assert_eq!(names(&s), ["fs"]);
    assert_eq!(s[0].map, ServerMap::McpServers);
    assert_eq!(body(&s[0]).command.as_deref(), Some("npx"));
    assert_eq!(body(&s[0]).args, ["x"]);
    let s = servers(
        JSON,
        r#"{"servers": {"vs": {"url": "https://h.example.com"}}}"#,
    );
    assert_eq!(names(&s), ["vs"]);
    assert_eq!(s[0].map, ServerMap::Servers);
    assert_eq!(body(&s[0]).url.as_deref(), Some("https://h.example.com"));
    // `{}`: one empty section (the parent counts it as no source).
    assert!(servers(JSON, "{}").is_empty());
}

#[test]
fn t05_jsonc_comments_and_trailing_commas_parse_for_vscode() {
    let text = "{\n  // user comment\n  \"servers\": { /* block */ \"vs\": {\"url\": \"https://h.example.com\",},},\n}\n";
    assert_eq!(names(&servers(JSONC, text)), ["vs"]);
    let s = servers(
        JSONC,
        r#"{"servers": {"x": {"args": ["http://x//y", "/* keep */"]},},}"#,
    );
    assert_eq!(body(&s[0]).args, ["http://x//y", "/* keep */"]);
    let e = err(JSON, text);
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    assert_eq!(
        e.message,
        "invalid JSON at line 2 column 3: comments are not allowed in JSON (the file looks like JSONC)"
    );
    let e = err(JSON, "{\"servers\": {\"vs\": {\"url\": \"u\",}}}");
    assert!(e
        .message
        .contains("trailing commas are not allowed in JSON (the file looks like JSONC)"));
}

#[test]
fn t06_claude_json_yields_top_level_and_per_project() {
    let c = ok(
        CLAUDE,
        r#"{"mcpServers": {"global": {"command": "x"}}, "projects": {"/repo": {"mcpServers": {"local": {"command": "y"}}}, "/bare": {}}}"#,
    );
    assert_eq!(c.sections.len(), 2);
    assert_eq!(c.sections[0].project, None);
    assert_eq!(names(&c.sections[0].servers), ["global"]);
    assert_eq!(c.sections[1].project.as_deref(), Some("/repo"));
    assert_eq!(names(&c.sections[1].servers), ["local"]);
    assert!(c.sections.iter().all(|s| s.error.is_none()));
}

#[test]
fn t07_codex_toml() {
    let s = servers(
        TOML,
        "[mcp_servers.gh]\ncommand = \"npx\"\nargs = [\"-y\", \"@x/y\"]\n",
    );
    assert_eq!(names(&s), ["gh"]);
    assert_eq!(s[0].map, ServerMap::McpServers);
    assert_eq!(body(&s[0]).command.as_deref(), Some("npx"));
    assert_eq!(body(&s[0]).args, ["-y", "@x/y"]);
}

#[test]
fn t08_malformed_config_fails_closed() {
    let e = err(JSON, "{not json");
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    assert!(
        e.message.starts_with("invalid JSON at line 1 column 2:"),
        "{}",
        e.message
    );
    let e = err(JSON, "[]");
    assert_eq!(e.kind, LoadErrorKind::Shape);
    assert_eq!(
        e.message,
        "top-level config must be an object (it is an array)"
    );
    let e = err(JSON, r#"{"mcpServers": 3}"#);
    assert_eq!(e.kind, LoadErrorKind::Shape);
    assert_eq!(e.message, "mcpServers must be an object (it is a number)");
    let e = err(TOML, "a = [");
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    assert!(
        e.message.starts_with("invalid TOML at line 1 column"),
        "{}",
        e.message
    );
    let e = err(JSON, r#"{"servers": "x"}"#);
    assert_eq!(e.message, "servers must be an object (it is a string)");
}

#[test]
fn t45_vscode_decoy_mcpservers_does_not_hide_the_servers_map() {
    let s = servers(
        JSONC,
        r#"{"mcpServers": {"gh": {"url": "https://ok.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}}, "servers": {"gh": {"url": "http://evil.example.com/mcp"}}}"#,
    );
    assert_eq!(names(&s), ["gh", "gh"]);
    assert_eq!(s[0].map, ServerMap::McpServers);
    assert_eq!(s[1].map, ServerMap::Servers);
    assert!(s[0].twin.is_some() && s[1].twin.is_some());
    assert_eq!(
        body(&s[0]).headers,
        [("Authorization".to_string(), "Bearer ${T}".to_string())]
    );
    assert_eq!(
        body(&s[1]).url.as_deref(),
        Some("http://evil.example.com/mcp")
    );
}

#[test]
fn t46_identical_entries_under_both_keys_dedupe_silently() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"gh": {"url": "https://h.example.com"}}, "servers": {"gh": {"url": "https://h.example.com"}}}"#,
    );
    assert_eq!(names(&s), ["gh"]);
    assert!(s[0].twin.is_none());
    assert_eq!(s[0].map, ServerMap::McpServers);
    // Member order and number spelling do not make bodies different.
    let s = servers(
        JSON,
        r#"{"servers": {"a": {"url": "u", "timeout": 1.0, "x": [1]}}, "mcpServers": {"a": {"x": [1e0], "timeout": 1, "url": "u"}}}"#,
    );
    assert_eq!(s.len(), 1);
    // A different unknown key does.
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"url": "u"}}, "servers": {"a": {"url": "u", "env": {}}}}"#,
    );
    assert_eq!(s.len(), 2);
    assert!(s.iter().all(|e| e.twin.is_some()));
}

#[test]
fn t47_jsonc_trailing_comma_pass_never_edits_string_contents() {
    let s = servers(
        JSONC,
        r#"{"servers": {"s": {"args": ["-c", "echo {a, }", "x, ]", "//not-a-comment"], "env": {"k": "1",},},},}"#,
    );
    assert_eq!(
        body(&s[0]).args,
        ["-c", "echo {a, }", "x, ]", "//not-a-comment"]
    );
    assert_eq!(body(&s[0]).env, [("k".to_string(), "1".to_string())]);
}

#[test]
fn t52_user_named_hash_servers_entry_is_neither_dropped_nor_flagged() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"gh": {"url": "https://a.example.com"}, "gh#servers": {"url": "https://m.example.com"}}, "servers": {"gh": {"url": "https://b.example.com"}}}"#,
    );
    let got: Vec<(ServerMap, &str, bool, Option<&str>)> = s
        .iter()
        .map(|e| {
            (
                e.map,
                e.name.as_str(),
                e.twin.is_some(),
                body(e).url.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                ServerMap::McpServers,
                "gh",
                true,
                Some("https://a.example.com")
            ),
            (
                ServerMap::McpServers,
                "gh#servers",
                false,
                Some("https://m.example.com")
            ),
            (
                ServerMap::Servers,
                "gh",
                true,
                Some("https://b.example.com")
            ),
        ]
    );
}

#[test]
fn t53_user_named_hash_servers_alone_is_not_flagged_ambiguous() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"x#servers": {"url": "https://h.example.com", "headers": {"Authorization": "Bearer ${T}"}}}}"#,
    );
    assert_eq!(names(&s), ["x#servers"]);
    assert!(s[0].twin.is_none());
}

#[test]
fn t54_unterminated_block_comments_are_linear() {
    let hostile = "/* ".repeat(8 * 1024 * 1024 / 3);
    let t = Instant::now();
    let e = err(JSONC, &hostile);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    assert_eq!(
        e.message,
        "invalid JSONC at line 1 column 1: unterminated block comment"
    );
    // The reference's 200,000 × "/* " too.
    let e = err(JSONC, &"/* ".repeat(200_000));
    assert!(e.message.contains("unterminated block comment"));
}

#[test]
fn t55_comments_between_comma_and_close_and_unterminated_inputs() {
    let s = servers(
        JSONC,
        "{\"servers\": {\"s\": {\"args\": [\"1\", \"2\", /* c */ ], \"env\": {\"k\": \"v\", // trailing\n}, \"url\": \"/* not */ // not\", }}}",
    );
    assert_eq!(body(&s[0]).args, ["1", "2"]);
    assert_eq!(body(&s[0]).env, [("k".to_string(), "v".to_string())]);
    assert_eq!(body(&s[0]).url.as_deref(), Some("/* not */ // not"));
    let e = err(JSONC, r#"{"a":1"#);
    assert!(
        e.message
            .contains("the object opened at line 1 column 1 is not closed"),
        "{}",
        e.message
    );
    let e = err(JSONC, r#"{"a": "unterminated"#);
    assert_eq!(
        e.message,
        "invalid JSONC at line 1 column 7: unterminated string"
    );
}

// --- dialects --------------------------------------------------------------------

#[test]
fn jsonc_equals_strict_json_on_comment_free_input() {
    let docs = [
        r#"{"mcpServers": {"a": {"command": "npx", "args": ["-y", "p@1", "{a, }"], "env": {"K": "v"}}}, "servers": {"b": {"type": "http", "url": "https://x", "headers": {"H": "v"}}}}"#,
        "{}",
        "{\"mcpServers\": null, \"servers\": {\n  \"é\": {\"command\": \"c\"}\n}}",
        r#"{"mcpServers": {"n": 1, "o": {"args": [1, true]}}}"#,
    ];
    for doc in docs {
        assert_eq!(config(JSON, doc), config(JSONC, doc), "{doc}");
        assert_eq!(config(JSON, doc), config(CLAUDE, doc), "{doc}");
    }
}

#[test]
fn bom_is_refused_in_strict_json_and_skipped_in_jsonc() {
    let text = "\u{FEFF}{\"mcpServers\": {\"a\": {}}}";
    let e = err(JSON, text);
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    assert!(e.message.contains("byte order mark"));
    // Claude Code strips a BOM before JSON.parse: ~/.claude.json and .mcp.json too.
    assert_eq!(names(&servers(CLAUDE, text)), ["a"]);
    assert_eq!(names(&servers(FileFormat::McpJson, text)), ["a"]);
    assert_eq!(
        err(JSON, text).construct,
        Some(crate::protocol::Construct::ByteOrderMark)
    );
    let s = servers(JSONC, text);
    assert_eq!(names(&s), ["a"]);
    // The BOM is not a column.
    assert_eq!((s[0].line, s[0].column), (1, 17));
    // TOML accepts a BOM, as Codex does.
    assert_eq!(names(&servers(TOML, "\u{FEFF}[mcp_servers.a]\n")), ["a"]);
}

#[test]
fn non_utf8_is_read_as_node_reads_it_and_kept_as_the_files_error() {
    // JSON configs: decoded with U+FFFD for each invalid sequence, audited, and the
    // file's error says so (the parent then exits 2).
    let c = config_bytes(JSON, b"{\"mcpServers\": {\"a\xff\": {}}}").expect("read lossily");
    let section = &c.sections[0];
    assert_eq!(section.servers[0].name, "a\u{FFFD}");
    let e = section.error.as_ref().expect("flagged");
    assert_eq!(e.kind, LoadErrorKind::Read);
    assert!(
        e.message.starts_with("not valid UTF-8 at byte 18;"),
        "{}",
        e.message
    );
    assert_eq!(e.construct, Some(crate::protocol::Construct::InvalidUtf8));
    // Codex's TOML and locks are refused.
    let e = config_bytes(TOML, b"[mcp_servers.\"\xff\"]").unwrap_err();
    assert_eq!(e.message, "not valid UTF-8 at byte 14");
    match parse_file(FileFormat::Lock, b"\xc3") {
        ChildMessage::Lock(Err(e)) => assert_eq!(e.message, "not valid UTF-8 at byte 0"),
        other => panic!("{other:?}"),
    }
}

// --- hostile inputs ---------------------------------------------------------------

#[test]
fn deep_nesting_is_a_clear_error_on_a_small_stack() {
    const STACK: usize = 256 * 1024;
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(|| {
            let deep = format!("{{\"mcpServers\":{{\"a\":{}", "[".repeat(200_000));
            let mut out = Vec::new();
            for f in [JSON, JSONC, CLAUDE] {
                out.push(config(f, &deep).unwrap_err());
            }
            let lock = format!("{{\"x\":{}", "[".repeat(200_000));
            if let ChildMessage::Lock(Err(e)) = parse_file(FileFormat::Lock, lock.as_bytes()) {
                out.push(e);
            }
            out
        })
        .unwrap();
    let mut errors = handle.join().unwrap();
    // TOML's own bound (80) is below the config bound. The toml crate recurses up
    // to that bound; a debug build needs more than 256 KiB of stack for it (the
    // child parses on its 8 MiB main thread), so this case runs on 2 MiB.
    let toml = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let shapes = [
                format!("a = {}", "[".repeat(200_000)),
                format!("a = {}", "{b = ".repeat(200_000)),
                format!("{} = 1", vec!["a"; 200_000].join(".")),
                format!("[mcp_servers.{}]", vec!["a"; 200_000].join(".")),
            ];
            shapes
                .iter()
                .map(|t| config(TOML, t).unwrap_err())
                .collect::<Vec<_>>()
        })
        .unwrap();
    let toml_errors = toml.join().unwrap();
    assert!(toml_errors.iter().all(|e| e.kind == LoadErrorKind::Syntax));
    errors.push(toml_errors[0].clone());
    assert_eq!(errors.len(), 5);
    for e in &errors[..3] {
        assert_eq!(e.kind, LoadErrorKind::Syntax);
        assert!(
            e.message.contains("nesting deeper than 128 levels"),
            "{}",
            e.message
        );
    }
    assert!(errors[3].message.contains("nesting deeper than 512 levels"));
    assert_eq!(errors[4].kind, LoadErrorKind::Syntax);
}

#[test]
fn config_depth_bound_is_128() {
    // Root object at depth 0; the unknown key's value is at depth 1.
    let nest = |n: usize| format!("{{\"x\": {}{}}}", "[".repeat(n), "]".repeat(n));
    assert!(config(JSON, &nest(128)).is_ok());
    assert!(err(JSON, &nest(129))
        .message
        .contains("nesting deeper than 128"));
}

#[test]
fn strings_must_be_strict_json_in_both_dialects() {
    for f in [JSON, JSONC] {
        let e = err(f, "{\"mcpServers\": {\"a\": {\"command\": \"x\ny\"}}}");
        assert!(
            e.message.contains("raw control character U+000A"),
            "{}",
            e.message
        );
        let e = err(f, "{\"mcpServers\": {\"a\": {\"command\": \"x\u{0}\"}}}");
        assert!(e.message.contains("U+0000"));
        let e = err(f, r#"{"mcpServers": {"a": {"command": "\ud800"}}}"#);
        assert!(
            e.message.contains("unpaired surrogate \\ud800"),
            "{}",
            e.message
        );
        let e = err(f, r#"{"mcpServers": {"a": {"command": "\udc00\ud800"}}}"#);
        assert!(e.message.contains("unpaired surrogate"));
        let e = err(f, "{\"mcpServers\": {\"a\": {\"command\": \"unterminated");
        assert!(e.message.ends_with("unterminated string"), "{}", e.message);
        let e = err(f, "{\"mcpServers\": {\"a\": {'command': \"x\"}}}");
        assert!(e.message.contains("double-quoted"), "{}", e.message);
        let e = err(f, r#"{"mcpServers": {"a": {"x": NaN}}}"#);
        assert!(e.message.contains("NaN"));
        let e = err(f, r#"{"mcpServers": {"a": {"x": 0x10}}}"#);
        assert_eq!(e.kind, LoadErrorKind::Syntax);
    }
    // Escapes decode; the surrogate pair is one character; RLO stays intact.
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"command": "\u00e9\ud83d\ude00\u202e\t"}}}"#,
    );
    assert_eq!(body(&s[0]).command.as_deref(), Some("é😀\u{202e}\t"));
}

#[test]
fn repeated_server_bearing_keys_keep_every_copy() {
    // A repeated server name: every copy is sent, each flagged.
    for f in [JSON, JSONC, CLAUDE] {
        let s = servers(
            f,
            "{\"mcpServers\": {\"gh\": {\"url\": \"https://a\"},\n  \"gh\": {\"url\": \"http://evil\"}}}",
        );
        assert_eq!(names(&s), ["gh", "gh"]);
        assert!(s
            .iter()
            .all(|e| e.twin == Some(crate::protocol::Twin::DuplicateName)));
        assert_eq!(body(&s[1]).url.as_deref(), Some("http://evil"));
        assert_eq!((s[1].line, s[1].column), (2, 3));
    }
    // A repeated map key: the servers of every copy.
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"command": "ok"}}, "mcpServers": {"b": {"command": "sh"}}}"#,
    );
    assert_eq!(names(&s), ["a", "b"]);
    // A repeated field: the last copy, as every client reads it, and the key recorded.
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"command": "npx", "command": "sh", "env": {"K": "1", "K": "2"}}}}"#,
    );
    assert_eq!(body(&s[0]).command.as_deref(), Some("sh"));
    assert_eq!(body(&s[0]).env, [("K".to_string(), "2".to_string())]);
    assert_eq!(body(&s[0]).extra().repeated_keys, ["command", "env.K"]);
}

#[test]
fn huge_numbers_never_matter_unless_they_sit_where_a_string_belongs() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"command": "c", "timeout": 1e999999, "n": -123456789012345678901234567890}}}"#,
    );
    assert_eq!(body(&s[0]).command.as_deref(), Some("c"));
    assert_eq!(
        body_error(r#"{"args": ["x", 123456789012345678901234567890]}"#),
        "args must be a list of strings (args[1] is a number)"
    );
}

#[test]
fn skipped_parts_are_validated_like_kept_ones() {
    // Parts no loader reads (session history, unknown keys) are not built, but they
    // are held to the same grammar: a file is either valid everywhere or refused.
    for f in [JSON, JSONC, CLAUDE] {
        let cases = [
            (
                r#"{"history": [{"a": 1, "a": 2}], "mcpServers": {}}"#,
                "duplicate key \"a\"",
            ),
            (r#"{"x": "\ud800", "mcpServers": {}}"#, "unpaired surrogate"),
            (
                "{\"x\": \"a\u{1}b\", \"mcpServers\": {}}",
                "raw control character U+0001",
            ),
            (
                r#"{"x": "\q", "mcpServers": {}}"#,
                "invalid escape sequence",
            ),
            (r#"{"x": [1,], "mcpServers": {}}"#, "trailing commas"),
            (r#"{"x": {"y": }, "mcpServers": {}}"#, "expected a value"),
            (
                r#"{"projects": {"/p": {"history": ["a", "b" "c"]}}}"#,
                "expected ','",
            ),
            (
                r#"{"projects": {"/p": {"history": {"k": 1, "k": 2}, "mcpServers": {}}}}"#,
                "duplicate key \"k\"",
            ),
        ];
        for (text, want) in cases {
            if f == JSONC && want == "trailing commas" {
                continue;
            }
            let e = err(f, text);
            assert_eq!(e.kind, LoadErrorKind::Syntax, "{f:?} {text}");
            assert!(e.message.contains(want), "{f:?} {text}: {}", e.message);
        }
        let deep = format!(
            "{{\"x\": {}{}, \"mcpServers\": {{}}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(err(f, &deep).message.contains("nesting deeper than 128"));
    }
    // Keys with escapes in skipped objects are compared decoded.
    let e = err(
        CLAUDE,
        r#"{"projects": {"/p": {"h": {"\u0061": 1, "a": 2}}}}"#,
    );
    assert!(e.message.contains("duplicate key \"a\""), "{}", e.message);
}

// --- field typing ------------------------------------------------------------------

#[test]
fn wrong_typed_fields_become_body_errors() {
    let cases = [
        (
            r#""npx -y x""#,
            "server entry must be an object (it is a string)",
        ),
        ("[]", "server entry must be an object (it is an array)"),
        ("null", "server entry must be an object (it is null)"),
        (
            r#"{"command": 1}"#,
            "command must be a string (it is a number)",
        ),
        (
            r#"{"command": ["npx"]}"#,
            "command must be a string (it is an array)",
        ),
        (
            r#"{"args": "x y"}"#,
            "args must be a list of strings (it is a string)",
        ),
        (
            r#"{"args": {"0": "x"}}"#,
            "args must be a list of strings (it is an object)",
        ),
        (
            r#"{"args": ["a", "b", 3]}"#,
            "args must be a list of strings (args[2] is a number)",
        ),
        (
            r#"{"args": [true]}"#,
            "args must be a list of strings (args[0] is a boolean)",
        ),
        (
            r#"{"args": [null]}"#,
            "args must be a list of strings (args[0] is null)",
        ),
        (
            r#"{"url": false}"#,
            "url must be a string (it is a boolean)",
        ),
        (
            r#"{"env": ["A=1"]}"#,
            "env must be an object (it is an array)",
        ),
        (
            r#"{"env": {"FOO": 1}}"#,
            "env.FOO must be a string (it is a number)",
        ),
        (
            r#"{"env": {"FOO": null}}"#,
            "env.FOO must be a string (it is null)",
        ),
        (
            r#"{"headers": "Authorization: x"}"#,
            "headers must be an object (it is a string)",
        ),
        (
            r#"{"headers": {"H": {"v": 1}}}"#,
            "headers.H must be a string (it is an object)",
        ),
        (r#"{"type": 1}"#, "type must be a string (it is a number)"),
        (
            r#"{"transport": ["http"]}"#,
            "transport must be a string (it is an array)",
        ),
    ];
    for (entry, want) in cases {
        assert_eq!(body_error(entry), want, "{entry}");
    }
    // A wrong entry never hides its neighbours.
    let s = servers(
        JSON,
        r#"{"mcpServers": {"bad": "npx x", "good": {"command": "c"}}}"#,
    );
    assert_eq!(names(&s), ["bad", "good"]);
    assert!(s[0].body.is_err() && s[1].body.is_ok());
}

#[test]
fn null_fields_are_absent_and_unknown_keys_ignored() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"command": null, "args": null, "url": null, "env": null, "headers": null, "type": null, "x": {"deep": [1]}}}}"#,
    );
    assert_eq!(*body(&s[0]), ServerBody::default());
}

#[test]
fn type_and_transport_are_kept_apart() {
    // Clients read `type`; a `transport` key is kept on its own (the audit of an
    // entry that starts nothing still reads it).
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"type": "http", "transport": "sse"}, "b": {"transport": "sse"}, "c": {"type": null, "transport": "ws"}}}"#,
    );
    let t: Vec<(Option<&str>, Option<&str>)> = s
        .iter()
        .map(|e| {
            let b = body(e);
            (b.transport.as_deref(), b.extra().transport_key.as_deref())
        })
        .collect();
    assert_eq!(
        t,
        [
            (Some("http"), Some("sse")),
            (None, Some("sse")),
            (None, Some("ws"))
        ]
    );
}

#[test]
fn full_body_in_file_order() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {"a": {"command": "npx", "args": ["-y", "1", "true"], "url": "https://x", "type": "stdio", "env": {"B": "2", "A": "1"}, "headers": {"Z": "z", "Authorization": "Bearer ${T}"}}}}"#,
    );
    assert_eq!(
        *body(&s[0]),
        ServerBody {
            command: Some("npx".into()),
            args: vec!["-y".into(), "1".into(), "true".into()],
            url: Some("https://x".into()),
            transport: Some("stdio".into()),
            env: vec![("B".into(), "2".into()), ("A".into(), "1".into())],
            headers: vec![
                ("Z".into(), "z".into()),
                ("Authorization".into(), "Bearer ${T}".into())
            ],
            ..ServerBody::default()
        }
    );
}

#[test]
fn bounds_on_strings_entries_and_servers() {
    let long = "x".repeat(MAX_STRING_BYTES + 1);
    assert_eq!(
        body_error(&format!(r#"{{"command": "{long}"}}"#)),
        format!("command is longer than {MAX_STRING_BYTES} bytes")
    );
    assert_eq!(
        body_error(&format!(r#"{{"args": ["a", "{long}"]}}"#)),
        format!("args[1] is longer than {MAX_STRING_BYTES} bytes")
    );
    let ok_len = "y".repeat(MAX_STRING_BYTES);
    let s = servers(
        JSON,
        &format!(r#"{{"mcpServers": {{"a": {{"url": "{ok_len}"}}}}}}"#),
    );
    assert_eq!(
        body(&s[0]).url.as_deref().map(str::len),
        Some(MAX_STRING_BYTES)
    );
    // No count is bounded: every argument of a long list is read, with its position.
    let args = vec!["\"a\""; 10_000].join(",");
    let s = servers(
        JSON,
        &format!(r#"{{"mcpServers": {{"a": {{"args": [{args}]}}}}}}"#),
    );
    assert_eq!(body(&s[0]).args.len(), 10_000);
    let last = crate::protocol::values::decode(s[0].line, s[0].column, &s[0].values)
        .unwrap()
        .into_iter()
        .find(|at| at.field == crate::protocol::FieldRef::Arg(9_999))
        .unwrap();
    assert_eq!((last.line, last.column), (1, 32 + 4 * 9_999));
    let e = err(JSON, &format!(r#"{{"mcpServers": {{"{long}": {{}}}}}}"#));
    assert_eq!(e.kind, LoadErrorKind::Shape);
    assert!(
        e.message
            .starts_with("server name at line 1 column 17 is longer than"),
        "{}",
        e.message
    );

    let many = |n: usize| {
        let entries: Vec<String> = (0..n).map(|i| format!("\"s{i}\":{{}}")).collect();
        format!("{{\"mcpServers\":{{{}}}}}", entries.join(","))
    };
    assert_eq!(servers(JSON, &many(60_000)).len(), 60_000);
}

// --- ~/.claude.json ------------------------------------------------------------------

#[test]
fn claude_json_keeps_good_projects_beside_a_malformed_one() {
    let c = ok(
        CLAUDE,
        r#"{"projects": {
            "/a": {"mcpServers": {"one": {"command": "a"}}},
            "/bad": {"mcpServers": ["not", "a", "map"]},
            "/scalar": "not an object",
            "/null": null,
            "/empty": {"mcpServers": {}},
            "/b": {"servers": {"two": {"url": "https://b"}}, "mcpServers": null}
        }}"#,
    );
    let got: Vec<(Option<&str>, Vec<&str>, Option<&str>)> = c
        .sections
        .iter()
        .map(|s| {
            (
                s.project.as_deref(),
                names(&s.servers),
                s.error.as_ref().map(|e| e.message.as_str()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (None, vec![], None),
            (Some("/a"), vec!["one"], None),
            (
                Some("/bad"),
                vec![],
                Some("mcpServers must be an object (it is an array)")
            ),
            (Some("/b"), vec!["two"], None),
        ]
    );
    assert_eq!(
        c.sections[2].error.as_ref().map(|e| e.kind),
        Some(LoadErrorKind::Shape)
    );
}

#[test]
fn claude_json_top_level_error_is_confined_to_section_zero() {
    let c = ok(
        CLAUDE,
        r#"{"mcpServers": "oops", "projects": {"/a": {"mcpServers": {"one": {}}}}}"#,
    );
    assert_eq!(c.sections.len(), 2);
    assert_eq!(c.sections[0].project, None);
    assert_eq!(
        c.sections[0].error.as_ref().map(|e| e.message.as_str()),
        Some("mcpServers must be an object (it is a string)")
    );
    assert_eq!(names(&c.sections[1].servers), ["one"]);
    // A non-object `projects` is not something a client can read: the file fails.
    let e = err(CLAUDE, r#"{"projects": ["/a"]}"#);
    assert_eq!(e.message, "projects must be an object (it is an array)");
    // Plain JSON files ignore `projects`.
    assert!(servers(JSON, r#"{"projects": ["/a"]}"#).is_empty());
}

#[test]
fn claude_json_project_union_and_ambiguity_are_per_section() {
    let c = ok(
        CLAUDE,
        r#"{"mcpServers": {"x": {"url": "a"}}, "projects": {"/p": {"mcpServers": {"x": {"url": "b"}}, "servers": {"x": {"url": "c"}}}}}"#,
    );
    assert!(c.sections[0].servers[0].twin.is_none());
    let p = &c.sections[1].servers;
    assert_eq!(p.len(), 2);
    assert!(p.iter().all(|e| e.twin.is_some()));
}

// --- positions -------------------------------------------------------------------

#[test]
fn positions_in_json_jsonc_and_after_non_ascii() {
    let text =
        "{\n  \"mcpServers\": {\n    \"a\": {},\n\t\"b\": {}\n  },\n  \"servers\": {\"c\": {}}\n}";
    let s = servers(JSON, text);
    let pos: Vec<(u32, u32)> = s.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(pos, [(3, 5), (4, 2), (6, 15)]);

    let text = "// header comment\n/* a\n   block */ {\"servers\": { /* é😀 */ \"vs\": {}}}";
    let s = servers(JSONC, text);
    assert_eq!((s[0].line, s[0].column), (3, 36));

    // Column counts code points, not bytes.
    let text = "{\"_note\": \"日本語😀\", \"mcpServers\": {\"k\": {}}}";
    let s = servers(JSON, text);
    let byte_col = text.find("\"k\"").unwrap() + 1;
    assert_eq!((s[0].line, s[0].column), (1, 34));
    assert!(byte_col > 34);

    // CRLF files.
    let s = servers(JSON, "{\r\n\"mcpServers\": {\r\n  \"a\": {}}}");
    assert_eq!((s[0].line, s[0].column), (3, 3));
}

#[test]
fn positions_in_claude_json_sections_follow_the_file() {
    let c = ok(
        CLAUDE,
        "{\"projects\": {\"/p\": {\"mcpServers\": {\"late\": {}}}},\n\"mcpServers\": {\"early\": {}}}",
    );
    assert_eq!(
        (
            c.sections[0].servers[0].line,
            c.sections[0].servers[0].column
        ),
        (2, 16)
    );
    assert_eq!(
        (
            c.sections[1].servers[0].line,
            c.sections[1].servers[0].column
        ),
        (1, 37)
    );
}

// --- TOML ------------------------------------------------------------------------

#[test]
fn toml_fields_positions_and_ignored_keys() {
    let text = r#"model = "o3"

[mcp_servers.gh]
command = "npx"
args = ["-y", "@x/y"]
env = { GITHUB_TOKEN = "t", B = "2" }
startup_timeout_sec = 10

[mcp_servers."remote é"]
url = "https://h.example.com/mcp"
http_headers = { Authorization = "Bearer ${T}" }
bearer_token_env_var = "TOKEN"
"#;
    let s = servers(TOML, text);
    assert_eq!(names(&s), ["gh", "remote é"]);
    assert_eq!((s[0].line, s[0].column), (3, 14));
    assert_eq!((s[1].line, s[1].column), (9, 14));
    assert_eq!(
        *body(&s[0]),
        ServerBody {
            command: Some("npx".into()),
            args: vec!["-y".into(), "@x/y".into()],
            env: vec![
                ("GITHUB_TOKEN".into(), "t".into()),
                ("B".into(), "2".into())
            ],
            ..ServerBody::default()
        }
    );
    assert_eq!(
        body(&s[1]).url.as_deref(),
        Some("https://h.example.com/mcp")
    );
    assert_eq!(
        body(&s[1]).headers,
        [("Authorization".to_string(), "Bearer ${T}".to_string())]
    );
    assert!(s
        .iter()
        .all(|e| e.map == ServerMap::McpServers && e.twin.is_none()));
}

#[test]
fn toml_inline_and_dotted_definitions() {
    let s = servers(TOML, "mcp_servers = { a = { command = \"x\" } }\n");
    assert_eq!(names(&s), ["a"]);
    assert_eq!((s[0].line, s[0].column), (1, 17));
    let s = servers(TOML, "[mcp_servers]\nb.command = \"y\"\nb.args = [\"1\"]\n");
    assert_eq!(names(&s), ["b"]);
    assert_eq!((s[0].line, s[0].column), (2, 1));
    assert_eq!(body(&s[0]).args, ["1"]);
    assert!(servers(TOML, "model = \"x\"\n").is_empty());
}

#[test]
fn toml_shape_errors() {
    let e = err(TOML, "mcp_servers = 3\n");
    assert_eq!(e.kind, LoadErrorKind::Shape);
    assert_eq!(e.message, "mcp_servers must be a table (it is an integer)");
    let e = err(TOML, "[[mcp_servers]]\ncommand = \"x\"\n");
    assert_eq!(e.message, "mcp_servers must be a table (it is an array)");
    let s = servers(
        TOML,
        "[mcp_servers]\na = \"npx x\"\n[mcp_servers.b]\nargs = [\"x\", 1]\n[mcp_servers.c]\ncommand = 1.5\n[mcp_servers.d]\nenv = { K = true }\n[mcp_servers.e]\nhttp_headers = \"h\"\n[mcp_servers.f]\nurl = 1979-05-27\n",
    );
    let errors: Vec<&str> = s
        .iter()
        .map(|e| e.body.as_ref().unwrap_err().as_str())
        .collect();
    assert_eq!(
        errors,
        [
            "server entry must be a table (it is a string)",
            "args must be a list of strings (args[1] is an integer)",
            "command must be a string (it is a float)",
            "env.K must be a string (it is a boolean)",
            "http_headers must be a table (it is a string)",
            "url must be a string (it is a datetime)",
        ]
    );
}

#[test]
fn toml_syntax_errors_have_positions() {
    let e = err(TOML, "[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n");
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    assert!(
        e.message.starts_with("invalid TOML at line 3 column 1:"),
        "{}",
        e.message
    );
    assert!(!e.message.contains('\n'));
    let e = err(TOML, "[mcp_servers.a]\ncommand = \"x\u{0}\"\n");
    assert_eq!(e.kind, LoadErrorKind::Syntax);
}

// --- locks -------------------------------------------------------------------------

/// Doctor's reading of a lock; every call also checks that the whole-lock reading of
/// `check` and `lock rotate` accepts and refuses the same texts, with the same words.
fn lock(text: &str) -> Result<LockSummary, LoadError> {
    let summary = match parse_file(FileFormat::Lock, text.as_bytes()) {
        ChildMessage::Lock(r) => r,
        other => panic!("lock job answered with {other:?}"),
    };
    let whole = match parse_file(FileFormat::LockRecord, text.as_bytes()) {
        ChildMessage::LockRecord(r) => r,
        other => panic!("whole-lock job answered with {other:?}"),
    };
    match (&summary, &whole) {
        (Ok(s), Ok(w)) => {
            assert_eq!(s.overall_digest, w.overall_digest);
            assert_eq!(s.tool_digests.len(), w.tools.len());
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("the two readings disagree: {summary:?} / {whole:?}"),
    }
    summary
}

const TOOL_V3: &str = r#"{"name": "t", "description_hash": "sha256:d", "input_schema_hash": "sha256:i", "capabilities": ["fs-read"], "schema_skeleton": {"props": {"$root": {"type": ["object"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}}}, "entry_digest": "sha256:t1"}"#;
const TOOL_V4: &str = r#"{"name": "t", "description_hash": "sha256:d", "input_schema_hash": "sha256:i", "capabilities": [], "schema_skeleton": {"props": {}}, "annotations_hash": "sha256:a", "output_schema_hash": "sha256:o", "output_schema_skeleton": null, "entry_digest": "sha256:t1"}"#;

fn lock_text(version: &str, tools: &str, extra: &str) -> String {
    format!(
        r#"{{"schema_version": {version}, "warden_version": "1.2.0",
 "server": {{"command": "python", "args": ["tests/fixtures/clean_server.py"], "command_digest": "sha256:0"}},
 "tools": [{tools}], "resources": [{{"uri": "x://1", "name": null, "description_hash": "sha256:d", "mime_type": null, "entry_digest": "sha256:r1"}}],
 "prompts": [{{"name": "p", "description_hash": "sha256:d", "arguments_hash": "sha256:a", "entry_digest": "sha256:p1"}}],
 "findings": [{{"rule_id": "WRD-X", "severity": "low", "target": "t", "message": "m", "snippet": "s"}}],
 "overall_digest": "sha256:all",
 "pin": {{"created_at": "2026-01-01T00:00:00Z", "warden_version": "1.2.0", "mcp_protocol_version": "2025-11-25", "approved": true, "approved_digest": "sha256:all"}}{extra}}}"#
    )
}

#[test]
fn lock_minimal_reference_fixture() {
    let text = r#"{"schema_version": 4, "warden_version": "1.2.0",
 "server": {"command": "python", "args": ["tests/fixtures/clean_server.py"], "command_digest": "sha256:0"},
 "tools": [], "resources": [], "prompts": [], "findings": [], "overall_digest": "sha256:0",
 "pin": {"created_at": "2026-01-01T00:00:00Z", "warden_version": "1.2.0", "mcp_protocol_version": "2025-11-25", "approved": true}}"#;
    assert_eq!(
        lock(text).unwrap(),
        LockSummary {
            schema_version: 4,
            server_command: "python".into(),
            server_args: vec!["tests/fixtures/clean_server.py".into()],
            server_url: None,
            command_digest: "sha256:0".into(),
            tool_digests: vec![],
            resource_digests: vec![],
            prompt_digests: vec![],
            overall_digest: "sha256:0".into(),
            approved: true,
            approved_digest: None,
        }
    );
}

#[test]
fn lock_versions_1_to_4() {
    for v in ["1", "2", "3"] {
        let s = lock(&lock_text(v, TOOL_V3, "")).unwrap();
        assert_eq!(s.schema_version.to_string(), v);
        assert_eq!(s.tool_digests, ["sha256:t1"]);
        assert_eq!(s.resource_digests, ["sha256:r1"]);
        assert_eq!(s.prompt_digests, ["sha256:p1"]);
        assert!(s.approved);
        assert_eq!(s.approved_digest.as_deref(), Some("sha256:all"));
    }
    let s = lock(&lock_text("4", &format!("{TOOL_V4}, {TOOL_V4}"), "")).unwrap();
    assert_eq!(s.schema_version, 4);
    assert_eq!(s.tool_digests, ["sha256:t1", "sha256:t1"]);
}

#[test]
fn lock_v4_tools_require_the_v4_keys() {
    let want =
        "v4 tool entries require annotations_hash, output_schema_hash, and output_schema_skeleton";
    let e = lock(&lock_text("4", TOOL_V3, "")).unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::Shape);
    assert!(e.message.starts_with(want), "{}", e.message);
    for (from, to) in [
        (r#""annotations_hash": "sha256:a", "#, ""),
        (r#""output_schema_hash": "sha256:o", "#, ""),
        (
            r#""annotations_hash": "sha256:a""#,
            r#""annotations_hash": null"#,
        ),
        (
            r#""output_schema_hash": "sha256:o""#,
            r#""output_schema_hash": null"#,
        ),
        (r#", "output_schema_skeleton": null"#, ""),
    ] {
        let tool = TOOL_V4.replace(from, to);
        assert_ne!(tool, TOOL_V4);
        let e = lock(&lock_text("4", &tool, "")).unwrap_err();
        assert!(e.message.starts_with(want), "{from}: {}", e.message);
    }
    // Below version 4 the same tools are fine.
    assert!(lock(&lock_text(
        "3",
        &TOOL_V4.replace(r#", "output_schema_skeleton": null"#, ""),
        ""
    ))
    .is_ok());
}

#[test]
fn lock_schema_version_range_and_type() {
    for v in ["0", "5", "-1", "99999999999999999999999"] {
        let e = lock(&lock_text(v, "", "")).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::Shape);
        assert_eq!(
            e.message,
            format!("schema_version {v} is outside the supported range 1..4; a lock at a newer format level cannot be verified by this version")
        );
    }
    for v in ["4.0", "\"4\"", "true", "null"] {
        let e = lock(&lock_text(v, "", "")).unwrap_err();
        assert!(
            e.message.contains("schema_version must be an integer"),
            "{v}: {}",
            e.message
        );
    }
}

#[test]
fn lock_nesting_512_accepted_513_refused() {
    // The reference test: an extra key "x" holding n nested arrays around an empty one.
    let nested = |n: usize| format!(", \"x\": {}{}", "[".repeat(n + 1), "]".repeat(n + 1));
    assert!(lock(&lock_text("4", TOOL_V4, &nested(511))).is_ok());
    let e = lock(&lock_text("4", TOOL_V4, &nested(512))).unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::TooDeep);
    assert!(
        e.message.contains("nesting deeper than 512"),
        "{}",
        e.message
    );
}

#[test]
fn lock_unknown_keys_are_ignored() {
    let text = lock_text("4", &TOOL_V4.replace("{\"name\"", "{\"future\": {\"a\": [1]}, \"name\""), ", \"future_top\": 1")
        .replace("\"approved\": true", "\"approved\": true, \"future_signature\": \"x\", \"rotation_count\": 7, \"pinner\": {\"tool\": \"mcp-warden\", \"extra\": 1}");
    assert!(lock(&text).is_ok(), "{:?}", lock(&text));
}

#[test]
fn lock_shape_errors() {
    let base = lock_text("4", TOOL_V4, "");
    let cases = [
        (
            r#""warden_version": "1.2.0","#,
            "",
            "missing required key warden_version",
        ),
        (
            r#""overall_digest": "sha256:all","#,
            "",
            "missing required key overall_digest",
        ),
        (
            r#""command_digest": "sha256:0""#,
            r#""x": 1"#,
            "missing required key server.command_digest",
        ),
        (
            r#""args": ["tests/fixtures/clean_server.py"]"#,
            r#""args": [1]"#,
            "server.args[0] must be a string (it is a number)",
        ),
        (
            r#""entry_digest": "sha256:t1""#,
            r#""entry_digest": 1"#,
            "tools[0].entry_digest must be a string (it is a number)",
        ),
        (
            r#""name": null, "#,
            "",
            "missing required key resources[0].name",
        ),
        (
            r#""approved": true"#,
            r#""approved": "true""#,
            "pin.approved must be a boolean (it is a string)",
        ),
        (
            r#""mcp_protocol_version": "2025-11-25", "#,
            "",
            "missing required key pin.mcp_protocol_version",
        ),
        (
            r#""snippet": "s""#,
            r#""snippet": null"#,
            "findings[0].snippet must be a string (it is null)",
        ),
        (
            r#""capabilities": []"#,
            r#""capabilities": "fs-read""#,
            "tools[0].capabilities must be an array (it is a string)",
        ),
    ];
    for (from, to, want) in cases {
        let text = base.replacen(from, to, 1);
        assert_ne!(text, base, "{from}");
        let e = lock(&text).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::Shape, "{from}");
        assert_eq!(e.message, format!("failed schema validation: {want}"));
    }
    let e = lock("[]").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::Shape);
    let e = lock("{").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::Syntax);
    let e = lock(&format!("\u{FEFF}{base}")).unwrap_err();
    assert!(e.message.contains("byte order mark"));
    let e =
        lock(&base.replace("\"findings\"", "\"overall_digest\": \"x\", \"findings\"")).unwrap_err();
    assert!(
        e.message.contains("duplicate key \"overall_digest\""),
        "{}",
        e.message
    );
    let note = "n".repeat(1001);
    let text = base.replace(
        "\"approved\": true",
        &format!("\"approved\": true, \"attestations\": [{{\"actor\": \"a\", \"created_at\": \"c\", \"bound_digest\": \"b\", \"note\": \"{note}\"}}]"),
    );
    assert!(lock(&text)
        .unwrap_err()
        .message
        .contains("exceeds 1000 chars"));
}

#[test]
fn lock_http_server_and_defaults() {
    let text = r#"{"schema_version": 4, "warden_version": "1.2.0",
 "server": {"url": "https://h.example.com/mcp", "command_digest": "sha256:u"},
 "tools": [], "resources": [], "prompts": [], "findings": [], "overall_digest": "sha256:o",
 "pin": {"created_at": "c", "warden_version": "w", "mcp_protocol_version": "m"}}"#;
    let s = lock(text).unwrap();
    assert_eq!(s.server_command, "");
    assert!(s.server_args.is_empty());
    assert_eq!(s.server_url.as_deref(), Some("https://h.example.com/mcp"));
    assert!(!s.approved);
    assert_eq!(s.approved_digest, None);
}

/// The literal v4 lock of engines reference §6.7 (its skeletons trimmed there too).
#[test]
fn lock_literal_example_reads_and_its_command_digest_recomputes() {
    let text = r#"{
  "schema_version": 4,
  "warden_version": "1.2.0",
  "server": {
    "command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"],
    "url": null,
    "command_digest": "sha256:586e40c1ab55ec9c6c0a471e55753aae13181a3d543d7c3af7f4fda5875b010a"
  },
  "tools": [
    {
      "name": "add_observations",
      "description_hash": "sha256:ff2fb5d38c2442cc2f1eb423b633d93c034141f318cf3f4cfdf5a9cad184c5cc",
      "input_schema_hash": "sha256:73c9d2bfd98581b3be93976c78e44389209f2f9ec63e8652fd9e84795616842b",
      "capabilities": [],
      "schema_skeleton": {"props": {"$root": {"type": ["object"], "required": false, "enum": null,
                          "constraints": {"additionalProperties": true}}}},
      "annotations_hash": "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
      "output_schema_hash": "sha256:c0a91d3961f360b126a83ba1e51ecb9bfe45d3b9f1e5105fc441b655575e8d60",
      "output_schema_skeleton": {"props": {"$root": {"type": ["object"], "required": false, "enum": null,
                                 "constraints": {"additionalProperties": false}}}},
      "entry_digest": "sha256:b39d41b7225375035e5744916253e4df4d244ddc30f902493fa65745b40821bc"
    }
  ],
  "resources": [],
  "prompts": [],
  "findings": [
    {"rule_id": "WRD-CAP-SQL", "severity": "high", "target": "tools/search_nodes",
     "message": "Tool derives capability 'sql-query' (property 'query')", "snippet": "property 'query'"}
  ],
  "overall_digest": "sha256:f8dfe8da6ca9a4103887c9e8a8f3014b3d652a27debe1560fa5744102ab923ab",
  "pin": {
    "created_at": "2026-10-02T02:57:56Z",
    "warden_version": "1.2.0",
    "mcp_protocol_version": "2025-11-25",
    "approved": true,
    "approver": "examples@mcp-warden.invalid",
    "approved_at": "2026-10-02T02:57:56Z",
    "approved_digest": "sha256:f8dfe8da6ca9a4103887c9e8a8f3014b3d652a27debe1560fa5744102ab923ab",
    "provenance_version": 1,
    "pinner": {"tool": "mcp-warden", "tool_version": "1.2.0", "actor": null, "environment": null},
    "attestations": [
      {"actor": "examples@mcp-warden.invalid", "role": "approver", "method": "manual",
       "created_at": "2026-10-02T02:57:56Z",
       "bound_digest": "sha256:f8dfe8da6ca9a4103887c9e8a8f3014b3d652a27debe1560fa5744102ab923ab",
       "note": null, "signature_bundle": null}
    ],
    "rotated_at": null,
    "rotation_count": 0
  }
}
"#;
    let s = lock(text).unwrap();
    assert_eq!(
        crate::digest::command_digest_stdio(&s.server_command, &s.server_args),
        s.command_digest
    );
    assert_eq!(s.server_url, None);
    assert_eq!(
        s.tool_digests,
        ["sha256:b39d41b7225375035e5744916253e4df4d244ddc30f902493fa65745b40821bc"]
    );
    assert!(s.approved);
    assert_eq!(
        s.approved_digest.as_deref(),
        Some(s.overall_digest.as_str())
    );
}

// --- reading -------------------------------------------------------------------------

#[test]
fn read_capped_refuses_instead_of_truncating() {
    let data = [b'x'; 100];
    assert_eq!(read_capped(&mut &data[..], 100, None).unwrap().len(), 100);
    assert_eq!(read_capped(&mut &data[..], 1000, None).unwrap().len(), 100);
    let e = read_capped(&mut &data[..], 99, None).unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::TooLarge);
    assert_eq!(read_capped(&mut &b""[..], 0, None).unwrap().len(), 0);
    assert_eq!(
        read_capped(&mut &b"x"[..], 0, None).unwrap_err().kind,
        LoadErrorKind::TooLarge
    );
    // An endless reader stops at cap + 1 bytes.
    let e = read_capped(&mut std::io::repeat(b'a'), 1 << 20, None).unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::TooLarge);

    struct Failing;
    impl std::io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("boom"))
        }
    }
    // The size hint only presizes the buffer: a wrong one changes nothing, and a
    // huge one is bounded by the cap.
    for hint in [Some(0), Some(10), Some(100), Some(u64::MAX)] {
        assert_eq!(read_capped(&mut &data[..], 1000, hint).unwrap().len(), 100);
        let e = read_capped(&mut &data[..], 99, hint).unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::TooLarge);
    }
    let e = read_capped(&mut Failing, 10, None).unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::Read);
    assert!(e.message.contains("boom"));
}

// --- the streamed ~/.claude.json reader against the tree reader -----------------------

/// Generated `~/.claude.json` files: the shapes the two readers could disagree on
/// (repeated maps, names, projects and settings; both maps with equal and different
/// bodies; every kind of wrong value where a map, an entry, a field or `projects`
/// belongs; escapes, wide characters, CR, CRLF, a BOM, over-long names, deep
/// nesting, comments and trailing commas), each also cut short and mutated.
struct ClaudeGen(u64);

impl ClaudeGen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
        from[self.below(from.len())]
    }

    fn ws(&mut self) -> &'static str {
        self.pick(&["", "", " ", "\n", "\r\n", "\r", "\t", " \r\n\t "])
    }

    fn key(&mut self, names: &[&str]) -> String {
        self.key_or_long(names, 300)
    }

    /// A key from `names`, or one in `long` an over-long one.
    fn key_or_long(&mut self, names: &[&str], long: usize) -> String {
        if self.one_in(long) {
            return format!("\"{}\"", "k".repeat(MAX_STRING_BYTES + 1));
        }
        format!("\"{}\"", self.pick(names))
    }

    fn object(&mut self, members: Vec<String>) -> String {
        let mut s = String::from("{");
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(self.ws());
            s.push_str(m);
            s.push_str(self.ws());
        }
        if !members.is_empty() && self.one_in(600) {
            s.push(',');
        }
        if self.one_in(600) {
            s.push_str("/* c */");
        }
        s.push('}');
        s
    }

    fn member(&mut self, key: String, value: String) -> String {
        format!("{key}{}:{}{value}", self.ws(), self.ws())
    }

    fn scalar(&mut self) -> String {
        self.pick(&[
            "null",
            "true",
            "false",
            "0",
            "-1.5e3",
            "1e999",
            "\"s\"",
            "\"\\u00e9\\ud83d\\ude00\"",
            "\"é😀\u{2028}\"",
            "\"a\\\"b\\\\c\\/\\n\"",
            "\"\"",
            "[]",
            "{}",
        ])
        .to_string()
    }

    /// Any value, up to `depth` levels, with repeated keys now and then.
    fn value(&mut self, depth: usize) -> String {
        if depth == 0 || self.one_in(3) {
            return self.scalar();
        }
        if self.one_in(2) {
            let items: Vec<String> = (0..self.below(4)).map(|_| self.value(depth - 1)).collect();
            return format!("[{}]", items.join(","));
        }
        let members = (0..self.below(4))
            .map(|_| {
                let k = self.key(&["a", "b", "c", "d", "e", "f", "\\u0061", "command", "url"]);
                let v = self.value(depth - 1);
                self.member(k, v)
            })
            .collect();
        self.object(members)
    }

    fn strings(&mut self) -> String {
        let items: Vec<String> = (0..self.below(4))
            .map(|_| {
                if self.one_in(12) {
                    self.scalar()
                } else {
                    format!(
                        "\"{}\"",
                        self.pick(&["-y", "pkg@1", "é", "\\t", "${T}", ""])
                    )
                }
            })
            .collect();
        format!("[{}]", items.join(", "))
    }

    fn string_map(&mut self) -> String {
        let members = (0..self.below(4))
            .map(|_| {
                let k = self.key(&["K", "L", "\\u004b", "Authorization"]);
                let v = if self.one_in(12) {
                    self.scalar()
                } else {
                    "\"v\"".to_string()
                };
                self.member(k, v)
            })
            .collect();
        self.object(members)
    }

    fn entry(&mut self) -> String {
        if self.one_in(12) {
            return self.value(2);
        }
        let members = (0..self.below(6))
            .map(|_| {
                let field = self.pick(&[
                    "command",
                    "args",
                    "env",
                    "url",
                    "headers",
                    "type",
                    "transport",
                    "serverUrl",
                    "httpUrl",
                    "headersHelper",
                    "disabled",
                    "enabled",
                    "autoApprove",
                    "alwaysAllow",
                    "trust",
                    "cwd",
                    "timeout",
                ]);
                let value = match (field, self.below(10)) {
                    (_, 0) => self.value(2),
                    ("args" | "autoApprove" | "alwaysAllow", _) => self.strings(),
                    ("env" | "headers", _) => self.string_map(),
                    ("disabled" | "enabled" | "trust", _) => self.pick(&["true", "false"]).into(),
                    _ => format!(
                        "\"{}\"",
                        self.pick(&["npx", "http", "https://h/", "é😀", "a\\u0000b"])
                    ),
                };
                self.member(format!("\"{field}\""), value)
            })
            .collect();
        self.object(members)
    }

    /// A server map's value (mostly an object of entries).
    fn map(&mut self) -> String {
        if self.one_in(10) {
            return self
                .pick(&["null", "\"x\"", "[{\"a\": 1, \"a\": 2}]", "1", "[]"])
                .into();
        }
        let members = (0..self.below(5))
            .map(|_| {
                let k = self.key_or_long(&["gh", "db", "\\u0067h", "é", ""], 40);
                let v = self.entry();
                self.member(k, v)
            })
            .collect();
        self.object(members)
    }

    fn project(&mut self) -> String {
        if self.one_in(10) {
            return self.scalar();
        }
        let members = (0..self.below(6))
            .map(|_| {
                let key = self.pick(&[
                    "mcpServers",
                    "servers",
                    "mcpServers",
                    "history",
                    "enabledMcpjsonServers",
                    "disabledMcpjsonServers",
                    "enableAllProjectMcpServers",
                    "disabledMcpServers",
                    "allowedTools",
                ]);
                let value = match key {
                    "mcpServers" | "servers" => self.map(),
                    "enableAllProjectMcpServers" if !self.one_in(5) => {
                        self.pick(&["true", "false"]).into()
                    }
                    k if k.ends_with("Servers") && !self.one_in(5) => self.strings(),
                    _ => self.value(3),
                };
                self.member(format!("\"{key}\""), value)
            })
            .collect();
        self.object(members)
    }

    fn file(&mut self) -> Vec<u8> {
        let mut out = String::new();
        if self.one_in(20) {
            out.push('\u{feff}');
        }
        out.push_str(self.ws());
        if self.one_in(25) {
            out.push_str(&self.value(2));
            return out.into_bytes();
        }
        let members = (0..self.below(6))
            .map(|_| {
                let key = self.pick(&[
                    "mcpServers",
                    "servers",
                    "projects",
                    "projects",
                    "numStartups",
                    "enableAllProjectMcpServers",
                ]);
                let value = match key {
                    "mcpServers" | "servers" => self.map(),
                    "projects" if self.one_in(10) => self.scalar(),
                    "projects" => {
                        let members = (0..self.below(5))
                            .map(|_| {
                                let k = self.key(&["/p", "/q", "/\\u0070", "C:\\\\é"]);
                                let v = self.project();
                                self.member(k, v)
                            })
                            .collect();
                        self.object(members)
                    }
                    _ => self.value(2),
                };
                self.member(format!("\"{key}\""), value)
            })
            .collect();
        out.push_str(&self.object(members));
        out.push_str(self.ws());
        let mut bytes = out.into_bytes();
        if self.one_in(40) {
            let at = self.below(bytes.len());
            bytes.insert(at, 0xff);
        }
        bytes
    }
}

fn same_as_the_tree_reader(bytes: &[u8]) {
    let streamed = parse_file(CLAUDE, bytes);
    let tree = super::claude_json_by_tree(bytes);
    assert_eq!(
        streamed,
        tree,
        "{:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(2_000)])
    );
}

/// `bytes` read with its project sections sent ahead `batch` at a time (the
/// receiver taking the first `taken` batches and refusing the rest), then put back
/// together as the parent does: the answer read whole, whatever went ahead.
fn same_when_sent_ahead(bytes: &[u8], batch: usize, taken: usize) {
    let whole = parse_file(CLAUDE, bytes);
    let mut sent: Vec<Vec<Section>> = Vec::new();
    let mut send = |sections: Vec<Section>| {
        if sent.len() < taken {
            sent.push(sections);
            Ok(())
        } else {
            Err(sections)
        }
    };
    let answer = super::parse_file_in_child(
        CLAUDE,
        bytes,
        false,
        Some(super::claude::SendAhead {
            send: &mut send,
            batch,
        }),
    );
    let assembled = match answer {
        ChildMessage::Config(Ok(mut config)) if config.continues_parts => {
            let rest = config.sections.split_off(config.sections.len().min(1));
            config.sections.extend(sent.into_iter().flatten());
            config.sections.extend(rest);
            config.continues_parts = false;
            ChildMessage::Config(Ok(config))
        }
        // Nothing went ahead, or the answer voids what did.
        other => other,
    };
    assert_eq!(
        assembled,
        whole,
        "batch {batch}, {taken} taken: {:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(2_000)])
    );
}

#[test]
fn claude_json_sent_ahead_is_the_answer_read_whole() {
    let mut g = ClaudeGen(0x5e7d_a4ea_d0f5_ec75);
    for round in 0..3_000 {
        let file = g.file();
        same_when_sent_ahead(&file, 1, usize::MAX);
        same_when_sent_ahead(&file, 2, round % 3);
        let cut = g.below(file.len() + 1);
        same_when_sent_ahead(&file[..cut], 1, usize::MAX);
    }
    // A project written again after its section went ahead, and a second
    // `projects` key after the first one's sections went ahead: read again whole.
    let projects = |n: usize| {
        (0..n)
            .map(|i| format!(r#""/p{i}": {{"mcpServers": {{"s": {{"command": "x{i}"}}}}}}"#))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for text in [
        format!(
            r#"{{"projects": {{{}, "/p1": {{"mcpServers": {{"t": {{"url": "u"}}}}}}}}}}"#,
            projects(9)
        ),
        format!(
            r#"{{"projects": {{{}}}, "projects": {{{}}}}}"#,
            projects(9),
            projects(3)
        ),
        format!(r#"{{"projects": {{{}}}, "projects": null}}"#, projects(9)),
        format!(
            r#"{{"projects": {{{}}}, "mcpServers": {{"top": {{"command": "y"}}}}}}"#,
            projects(9)
        ),
        format!(
            r#"{{"projects": {{{}, "{}": {{"mcpServers": {{"s": {{}}}}}}}}}}"#,
            projects(9),
            "k".repeat(70_000)
        ),
    ] {
        for batch in [1, 2, 4, 100] {
            for taken in [0, 1, usize::MAX] {
                same_when_sent_ahead(text.as_bytes(), batch, taken);
            }
        }
    }
}

#[test]
fn claude_json_streamed_reader_answers_as_the_tree_reader() {
    let mut g = ClaudeGen(0x0c1a_0de5_7ea3_11ed);
    for _ in 0..6_000 {
        let file = g.file();
        same_as_the_tree_reader(&file);
        // Cut short, and with a byte changed: the errors must agree too.
        let cut = g.below(file.len() + 1);
        same_as_the_tree_reader(&file[..cut]);
        let mut changed = file.clone();
        if !changed.is_empty() {
            let at = g.below(changed.len());
            changed[at] = *b"{}[],:\"\\ 0nx\n".get(g.below(14)).unwrap_or(&b'x');
            same_as_the_tree_reader(&changed);
        }
    }
}

#[test]
fn claude_json_streamed_reader_agrees_on_large_and_hostile_files() {
    // Many entries, many projects, names repeated across and within maps, both
    // maps with equal and different bodies.
    let mut s = String::from("{\"mcpServers\": {");
    for i in 0..3_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"s{}\": {{\"command\": \"npx\", \"args\": [\"-y\", \"p{i}\"], \"env\": {{\"K\": \"{i}\"}}}}",
            i % 1_000
        ));
    }
    s.push_str("}, \"servers\": {");
    for i in 0..2_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"s{i}\": {{\"args\": [\"-y\", \"p{i}\"], \"command\": \"npx\", \"env\": {{\"K\": \"{i}\"}}}}"
        ));
    }
    s.push_str("}, \"projects\": {");
    for p in 0..2_000 {
        if p > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"/p{}\": {{\"history\": [{{\"display\": \"é😀\\n\"}}], \"mcpServers\": {{\"x\": {{\"url\": \"https://{p}\"}}}}, \"servers\": {{\"x\": {{\"url\": \"https://{p}\"}}}}, \"enabledMcpjsonServers\": [\"x\"]}}",
            p % 1_500
        ));
    }
    s.push_str("}}");
    same_as_the_tree_reader(s.as_bytes());
    same_as_the_tree_reader(s.replace(", ", ",\r\n\t").as_bytes());
    same_as_the_tree_reader(format!("\u{feff}{s}").as_bytes());
    // 60,000 empty entries of one repeated name; one entry of 60,000 arguments.
    let many = format!(
        "{{\"mcpServers\": {{{}}}}}",
        vec!["\"a\":{}"; 60_000].join(",")
    );
    same_as_the_tree_reader(many.as_bytes());
    let args = format!(
        "{{\"mcpServers\": {{\"a\": {{\"args\": [{}]}}}}}}",
        vec!["\"\""; 60_000].join(",")
    );
    same_as_the_tree_reader(args.as_bytes());
    // Deep nesting inside an entry and inside a skipped part, past the bound and
    // far past it (the parser is iterative: no stack is at risk).
    for n in [127, 128, 129, 200_000] {
        for at in [
            "{\"mcpServers\": {\"a\": {\"x\": %}}}",
            "{\"projects\": {\"/p\": {\"history\": %}}}",
            "{\"projects\": {\"/p\": {\"mcpServers\": {\"a\": %}}}}",
        ] {
            let deep = at.replace('%', &format!("{}{}", "[".repeat(n), "]".repeat(n)));
            same_as_the_tree_reader(deep.as_bytes());
        }
    }
    // Over-long names and wrong maps in every order of maps and of the file: the
    // section's error is chosen by the maps' order (mcpServers, then servers; map
    // errors before names), not by where they are written.
    let long = |c: char| c.to_string().repeat(MAX_STRING_BYTES + 1);
    let (l1, l2) = (long('a'), long('b'));
    let pieces = [
        format!("\"mcpServers\": {{\"ok\": {{}}, \"{l1}\": {{}}}}"),
        format!("\"servers\": {{\"{l2}\": {{}}, \"ok\": {{}}}}"),
        "\"mcpServers\": 1".to_string(),
        "\"servers\": \"x\"".to_string(),
        "\"mcpServers\": {\"fine\": {\"command\": \"c\"}}".to_string(),
    ];
    for a in &pieces {
        for b in &pieces {
            for c in &pieces {
                let members = format!("{a}, {b}, {c}");
                same_as_the_tree_reader(format!("{{{members}}}").as_bytes());
                same_as_the_tree_reader(
                    format!("{{\"projects\": {{\"/p\": {{{members}}}}}}}").as_bytes(),
                );
            }
        }
    }
    // A huge string where a name, a value and skipped text sit.
    let huge = "é".repeat(MAX_STRING_BYTES);
    for doc in [
        format!("{{\"mcpServers\": {{\"{huge}\": {{}}}}}}"),
        format!("{{\"mcpServers\": {{\"a\": {{\"command\": \"{huge}\"}}}}}}"),
        format!("{{\"projects\": {{\"{huge}\": {{\"mcpServers\": {{\"a\": {{}}}}}}}}}}"),
        format!("{{\"x\": \"{huge}\", \"mcpServers\": {{\"a\": {{\"command\": \"c\"}}}}}}"),
    ] {
        same_as_the_tree_reader(doc.as_bytes());
    }
}

// --- totality ------------------------------------------------------------------------

/// A small deterministic fuzz: every prefix and many single-byte mutations of some
/// seeds, through every format. Nothing may panic.
#[test]
fn no_input_panics() {
    let seeds: Vec<String> = vec![
        r#"{"mcpServers": {"a": {"command": "npx", "args": ["-y", "\u00e9\ud83d\ude00"], "env": {"K": "v"}}}, "servers": {"a": {"url": "u"}}}"#.into(),
        "{ // c\n \"servers\": {\"vs\": {\"url\": \"https://h\",},}, /* x */ }".into(),
        r#"{"projects": {"/p": {"mcpServers": {"x": {"type": "http"}}}, "/q": 1}}"#.into(),
        "[mcp_servers.gh]\ncommand = \"npx\"\nargs = [\"-y\", 1]\nenv = { A = \"b\" }\n".into(),
        lock_text("4", TOOL_V4, ""),
    ];
    let formats = [JSON, JSONC, CLAUDE, TOML, FileFormat::Lock];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"{}[],:\"\\/*\n\r\t 0123456789.eE+-tfnu'x\xff\xc3\xa9";
    for seed in &seeds {
        let bytes = seed.as_bytes();
        for cut in 0..=bytes.len() {
            for f in formats {
                let _ = parse_file(f, &bytes[..cut]);
            }
        }
        for _ in 0..2000 {
            let mut m = bytes.to_vec();
            for _ in 0..=(next() % 3) {
                let i = (next() as usize) % m.len();
                let c = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 => m[i] = c,
                    1 => m.insert(i, c),
                    _ => {
                        m.remove(i);
                    }
                }
                if m.is_empty() {
                    break;
                }
            }
            for f in formats {
                let _ = parse_file(f, &m);
            }
        }
    }
}

// --- ad-hoc throughput (run: cargo test --release --lib child::tests::bench -- --ignored --nocapture)

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed());
    }
    best
}

fn claude_json_8mib() -> String {
    let mut s = String::from("{\"numStartups\": 12, \"mcpServers\": {");
    for i in 0..5_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"srv-{i}\": {{\"command\": \"npx\", \"args\": [\"-y\", \"@scope/pkg-{i}@1.2.3\"], \"env\": {{\"TOKEN\": \"${{TOKEN_{i}}}\"}}}}"
        ));
    }
    s.push_str("}, \"projects\": {");
    let mut p = 0;
    while s.len() < 8 * 1024 * 1024 - 4096 {
        if p > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"/home/u/src/project-{p}\": {{\"allowedTools\": [], \"history\": ["
        ));
        for h in 0..3 {
            if h > 0 {
                s.push(',');
            }
            s.push_str(&format!("{{\"display\": \"fix the flaky test in module {h} — see \\\"ci.log\\\" and retry\\n\", \"pastedContents\": {{}}}}"));
        }
        s.push_str("], \"mcpServers\": {");
        if p < 15_000 {
            s.push_str(&format!("\"local-{p}\": {{\"type\": \"http\", \"url\": \"https://h{p}.example.com/mcp\", \"headers\": {{\"Authorization\": \"Bearer ${{T}}\"}}}}"));
        }
        s.push_str("}, \"hasTrustDialogAccepted\": true, \"lastCost\": 0.0123}");
        p += 1;
    }
    s.push_str("}}");
    s
}

#[test]
#[ignore]
fn bench() {
    let claude = claude_json_8mib();
    let cfg = ok(CLAUDE, &claude);
    let n: usize = cfg.sections.iter().map(|s| s.servers.len()).sum();
    let serde = best_of(30, || {
        serde_json::from_slice::<serde_json::Value>(claude.as_bytes()).unwrap()
    });
    let mine = best_of(30, || parse_file(CLAUDE, claude.as_bytes()));
    println!(
        "claude.json {:.1} MiB, {} sections, {n} servers: parse_file {:?}, serde_json Value {:?}",
        claude.len() as f64 / 1048576.0,
        cfg.sections.len(),
        mine,
        serde
    );
    // Same bytes as JSONC, and a commented variant.
    let jsonc_same = best_of(10, || parse_file(JSONC, claude.as_bytes()));
    println!("same bytes as Jsonc: {jsonc_same:?}");
    let commented = claude.replace(
        ", \"hasTrustDialogAccepted\"",
        ", /* trust */ // note\n\"hasTrustDialogAccepted\"",
    );
    let jsonc = best_of(10, || parse_file(JSONC, commented.as_bytes()));
    println!(
        "commented JSONC {:.1} MiB: {jsonc:?}",
        commented.len() as f64 / 1048576.0
    );
    let all = best_of(10, || {
        super::json::parse(
            &claude,
            0,
            super::json::Options {
                jsonc: false,
                trailing_commas: false,
                cr_ends_line_comment: true,
                max_depth: 128,
                select: super::json::Select::All,
                keep_duplicates: false,
                refuse_skipped_duplicates: true,
            },
        )
        .unwrap()
    });
    println!("full tree (Select::All) on the same bytes: {all:?}");
    // A multi-MiB file that is all server map: everything is built.
    let mut big = String::from("{\"mcpServers\": {");
    for i in 0..40_000 {
        if i > 0 {
            big.push(',');
        }
        big.push_str(&format!("\"s{i}\": {{\"command\": \"npx\", \"args\": [\"-y\", \"@scope/pkg-{i}@1.2.3\", \"--flag=\\u00e9\"], \"env\": {{\"TOKEN\": \"${{T}}\", \"N\": \"{i}\"}}, \"timeout\": 30.5}}"));
    }
    big.push_str("}}");
    let serde_big = best_of(20, || {
        serde_json::from_slice::<serde_json::Value>(big.as_bytes()).unwrap()
    });
    let json_big = best_of(20, || parse_file(JSON, big.as_bytes()));
    let jsonc_big = best_of(20, || parse_file(JSONC, big.as_bytes()));
    let mb = big.len() as f64 / 1048576.0;
    println!(
        "server map {mb:.1} MiB, 40000 servers: Json {json_big:?} ({:.0} MiB/s), Jsonc {jsonc_big:?} ({:.0} MiB/s), serde_json Value {serde_big:?} ({:.0} MiB/s)",
        mb / json_big.as_secs_f64(),
        mb / jsonc_big.as_secs_f64(),
        mb / serde_big.as_secs_f64()
    );
    let tree = best_of(10, || {
        super::json::parse(
            &claude,
            0,
            super::json::Options {
                jsonc: false,
                trailing_commas: false,
                cr_ends_line_comment: true,
                max_depth: 128,
                select: super::json::Select::Config { claude: true },
                keep_duplicates: false,
                refuse_skipped_duplicates: true,
            },
        )
        .unwrap()
    });
    println!("tree only (json::parse): {tree:?}");
    let mib = claude.len() as f64 / 1048576.0;
    println!(
        "throughput: parse_file {:.0} MiB/s, serde_json {:.0} MiB/s",
        mib / mine.as_secs_f64(),
        mib / serde.as_secs_f64()
    );
}

#[test]
#[ignore]
fn bench_phases() {
    let claude = claude_json_8mib();
    let doc = super::json::parse(
        &claude,
        0,
        super::json::Options {
            jsonc: false,
            trailing_commas: false,
            cr_ends_line_comment: true,
            max_depth: 128,
            select: super::json::Select::Config { claude: true },
            keep_duplicates: false,
            refuse_skipped_duplicates: true,
        },
    )
    .unwrap();
    let cfg = super::servers::json_config(&claude, &doc, crate::protocol::FileFormat::ClaudeJson)
        .unwrap();
    let offsets: Vec<usize> = (0..19391).map(|i| i * 400).collect();
    let lc = best_of(20, || super::position::line_cols(&claude, &offsets));
    let ex = best_of(20, || {
        super::servers::json_config(&claude, &doc, crate::protocol::FileFormat::ClaudeJson).unwrap()
    });
    let drop_cfg = best_of(20, || drop(cfg.clone()));
    println!(
        "line_cols {lc:?}, json_config (incl. line_cols) {ex:?}, clone+drop records {drop_cfg:?}"
    );
}

// --- the other clients' files ----------------------------------------------------

const VSCODE: FileFormat = FileFormat::VsCodeSettings;
const CLAUDE_SETTINGS: FileFormat = FileFormat::ClaudeSettings;
const GEMINI: FileFormat = FileFormat::GeminiSettings;
const ZED: FileFormat = FileFormat::ZedSettings;
const OPENCODE: FileFormat = FileFormat::OpenCode;
const EXTENSION: FileFormat = FileFormat::DesktopExtension;

use crate::protocol::{ClientSetting, Construct, Section, SettingValue, Twin};

/// The single section of a file.
fn section(format: FileFormat, text: &str) -> Section {
    let mut c = ok(format, text);
    assert_eq!(c.sections.len(), 1, "{c:?}");
    c.sections.remove(0)
}

fn values(settings: &[ClientSetting]) -> Vec<&SettingValue> {
    settings.iter().map(|s| &s.value).collect()
}

fn extra(entry: &ServerEntry) -> crate::protocol::ServerExtra {
    body(entry).extra().clone()
}

#[test]
fn new_formats_are_read_not_refused() {
    for f in [VSCODE, CLAUDE_SETTINGS, GEMINI, ZED, OPENCODE] {
        let s = section(f, "{}");
        assert!(s.servers.is_empty() && s.settings.is_empty() && s.error.is_none());
    }
    // A manifest always names its server.
    assert!(config(EXTENSION, "{}").is_err());
    // Continue YAML has its own loader: an empty flow mapping declares nothing.
    let s = section(FileFormat::ContinueYaml, "{}");
    assert!(s.servers.is_empty() && s.settings.is_empty() && s.error.is_none());
}

#[test]
fn vscode_settings_servers_nested_dotted_and_older_mcp_servers() {
    let nested = "{\n  // user settings\n  \"editor.tabSize\": 2,\n  \"mcp\": {\"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"1\"],},},},\n}";
    let s = servers(VSCODE, nested);
    assert_eq!(names(&s), ["a"]);
    assert_eq!(
        (s[0].map, s[0].line, s[0].column),
        (ServerMap::Servers, 4, 23)
    );
    assert_eq!(body(&s[0]).command.as_deref(), Some("x"));
    let dotted = servers(
        VSCODE,
        r#"{"mcp.servers": {"b": {"type": "http", "url": "https://e"}}}"#,
    );
    assert_eq!(names(&dotted), ["b"]);
    assert_eq!(body(&dotted[0]).url.as_deref(), Some("https://e"));
    // The older reader merged `mcpServers` of the `mcp` section into its servers.
    let older = servers(
        VSCODE,
        r#"{"mcp": {"mcpServers": {"c": {"command": "y"}}}}"#,
    );
    assert_eq!(
        (older[0].name.as_str(), older[0].map),
        ("c", ServerMap::McpServers)
    );
    let dotted_older = servers(VSCODE, r#"{"mcp.mcpServers": {"c": {"command": "y"}}}"#);
    assert_eq!(dotted_older[0].map, ServerMap::McpServers);
    // A BOM is skipped, as VS Code skips it.
    let bom = format!("\u{FEFF}{nested}");
    assert_eq!(names(&servers(VSCODE, &bom)), ["a"]);
    // Parts VS Code reads as other settings are not servers.
    for other in [
        r#"{"servers": {"a": {"command": "x"}}}"#,
        r#"{"mcpServers": {"a": {"command": "x"}}}"#,
        r#"{"chat": {"mcp.servers": {"a": {"command": "x"}}}}"#,
        r#"{"mcp": {"servers.a": {"command": "x"}}}"#,
        r#"{"mcp": 3}"#,
    ] {
        assert!(servers(VSCODE, other).is_empty(), "{other}");
    }
}

#[test]
fn vscode_settings_every_copy_of_the_servers_map_is_sent_and_flagged() {
    // Nested first, dotted second: VS Code keeps the dotted copy (the later one).
    let text = r#"{"mcp": {"servers": {"a": {"command": "decoy"}, "b": {"command": "x"}}},
        "mcp.servers": {"a": {"command": "real"}}}"#;
    let s = servers(VSCODE, text);
    assert_eq!(names(&s), ["a", "b", "a"]);
    assert_eq!(s[0].twin, Some(Twin::DuplicateName));
    assert_eq!(s[1].twin, Some(Twin::EarlierCopy));
    assert_eq!(s[2].twin, Some(Twin::DuplicateName));
    assert_eq!(body(&s[2]).command.as_deref(), Some("real"));
    // Two `mcp` objects: every copy again.
    let twice = servers(
        VSCODE,
        r#"{"mcp": {"servers": {"a": {}}}, "mcp": {"servers": {"z": {}}}}"#,
    );
    assert_eq!(names(&twice), ["a", "z"]);
    assert_eq!(twice[0].twin, Some(Twin::EarlierCopy));
    assert_eq!(twice[1].twin, None);
    // The same name in `servers` and `mcpServers` with different bodies.
    let both = servers(
        VSCODE,
        r#"{"mcp": {"servers": {"a": {"command": "x"}}, "mcpServers": {"a": {"command": "y"}}}}"#,
    );
    assert_eq!(both.len(), 2);
    assert!(both.iter().all(|e| e.twin == Some(Twin::BothMaps)));
}

#[test]
fn vscode_settings_refuse_what_vscode_reads_as_hidden_servers() {
    for (text, construct) in [
        (
            r#"{"mcp.servers.x": {"command": "evil"}}"#,
            Construct::DottedKey,
        ),
        (r#"{"mcp.servers.x.command": "evil"}"#, Construct::DottedKey),
        (r#"{"mcp.mcpServers.x": {}}"#, Construct::DottedKey),
        (
            r#"{"mcp": {"servers": {"__proto__": {"command": "evil"}}}}"#,
            Construct::ProtoKey,
        ),
        (
            r#"{"mcp": {"servers": {"a": {"__proto__": {"command": "x"}}}}}"#,
            Construct::ProtoKey,
        ),
        (
            r#"{"__proto__": {"mcp": {"servers": {}}}}"#,
            Construct::ProtoKey,
        ),
    ] {
        let e = err(VSCODE, text);
        assert_eq!(
            (e.kind, e.construct),
            (LoadErrorKind::Shape, Some(construct)),
            "{text}"
        );
    }
    // Parts no loader reads may hold anything VS Code accepts.
    let s = section(
        VSCODE,
        r#"{"editor.x": {"__proto__": 1, "k": 1, "k": 2}, "a.b": 1, "a.b": 2, "mcp": {"servers": {}}}"#,
    );
    assert!(s.servers.is_empty() && s.error.is_none());
    let e = err(VSCODE, r#"{"mcp": {"servers": 3}}"#);
    assert_eq!(e.kind, LoadErrorKind::Shape);
    assert!(
        e.message.contains("mcp.servers must be an object"),
        "{}",
        e.message
    );
}

#[test]
fn vscode_discovery_setting_in_every_form() {
    let s = section(VSCODE, "{\n  \"chat.mcp.discovery.enabled\": false\n}");
    assert_eq!(
        values(&s.settings),
        [&SettingValue::DiscoveryImport(vec![(String::new(), false)])]
    );
    assert_eq!((s.settings[0].line, s.settings[0].column), (2, 3));
    let nested = section(
        VSCODE,
        r#"{"chat": {"mcp": {"discovery": {"enabled": {"claude-desktop": true, "windsurf": false}}}}}"#,
    );
    assert_eq!(
        values(&nested.settings),
        [&SettingValue::DiscoveryImport(vec![
            ("claude-desktop".into(), true),
            ("windsurf".into(), false)
        ])]
    );
    assert_eq!(nested.settings[0].column, 33);
    let partly = section(VSCODE, r#"{"chat.mcp": {"discovery": {"enabled": true}}}"#);
    assert_eq!(partly.settings.len(), 1);
    // Both forms: both sent, in file order (VS Code keeps the last).
    let both = section(
        VSCODE,
        r#"{"chat.mcp.discovery.enabled": true, "chat": {"mcp": {"discovery": {"enabled": false}}}}"#,
    );
    assert_eq!(both.settings.len(), 2);
    assert!(both.settings[0].column < both.settings[1].column);
    // A nested key is not split, and a null is absent.
    for none in [
        r#"{"chat": {"mcp.discovery.enabled": true}}"#,
        r#"{"chat.mcp.discovery.enabled": null}"#,
        r#"{"chat.mcp.discovery": true}"#,
    ] {
        assert!(section(VSCODE, none).settings.is_empty(), "{none}");
    }
}

#[test]
fn vscode_malformed_discovery_is_the_sections_error_and_servers_are_still_sent() {
    for bad in [r#""yes""#, "1", r#"{"claude-desktop": "yes"}"#, "[]"] {
        let text = format!(
            r#"{{"mcp": {{"servers": {{"a": {{"command": "x"}}}}}}, "chat.mcp.discovery.enabled": {bad}}}"#
        );
        let c = ok(VSCODE, &text);
        let s = &c.sections[0];
        assert_eq!(names(&s.servers), ["a"], "{bad}");
        let e = s.error.as_ref().expect("a section error");
        assert_eq!(e.kind, LoadErrorKind::Shape);
        assert!(
            e.message.contains("chat.mcp.discovery.enabled at line 1"),
            "{}",
            e.message
        );
        assert!(s.settings.is_empty());
    }
}

#[test]
fn claude_settings_values_positions_and_near_misses() {
    let text = "\u{FEFF}{\n\"permissions\": {\"allow\": [\"Bash(ls)\", \"mcp__github__create_issue\", 3, \"mcp__db\"], \"deny\": [\"mcp__x\"]},\n\"enableAllProjectMcpServers\": false,\n\"enabledMcpjsonServers\": [\"gh\"],\n\"disabledMcpjsonServers\": [],\n\"__proto__\": {\"enableAllProjectMcpServers\": true}\n}";
    let s = section(CLAUDE_SETTINGS, text);
    assert!(s.servers.is_empty() && s.error.is_none());
    assert_eq!(
        values(&s.settings),
        [
            &SettingValue::AllowedTools(vec!["mcp__github__create_issue".into(), "mcp__db".into()]),
            &SettingValue::EnableAllProjectServers(false),
            &SettingValue::EnabledProjectServers(vec!["gh".into()]),
        ]
    );
    let at: Vec<(u32, u32)> = s.settings.iter().map(|s| (s.line, s.column)).collect();
    assert_eq!(at, [(2, 17), (3, 1), (4, 1)]);
    // Only `mcp__` rules matter; none is no setting.
    let plain = section(
        CLAUDE_SETTINGS,
        r#"{"permissions": {"allow": ["Bash(ls)"]}}"#,
    );
    assert!(plain.settings.is_empty());
    let on = section(CLAUDE_SETTINGS, r#"{"enableAllProjectMcpServers": true}"#);
    assert_eq!(
        values(&on.settings),
        [&SettingValue::EnableAllProjectServers(true)]
    );
}

#[test]
fn claude_settings_a_value_claude_code_rejects_fails_the_file() {
    for bad in [
        r#"{"enableAllProjectMcpServers": "true"}"#,
        r#"{"enabledMcpjsonServers": "gh"}"#,
        r#"{"disabledMcpjsonServers": [1]}"#,
        r#"{"permissions": "all"}"#,
        r#"{"permissions": {"allow": "mcp__x"}}"#,
    ] {
        let e = err(CLAUDE_SETTINGS, bad);
        assert_eq!(e.kind, LoadErrorKind::Shape, "{bad}");
        assert!(
            e.message.contains("ignores the whole settings file"),
            "{}",
            e.message
        );
    }
    // No count is bounded: a list of 5,000 names is read whole.
    let many: Vec<String> = (0..5000).map(|i| format!("\"s{i}\"")).collect();
    let c = ok(
        CLAUDE_SETTINGS,
        &format!("{{\"enabledMcpjsonServers\": [{}]}}", many.join(",")),
    );
    assert!(
        matches!(&c.sections[0].settings[..], [s] if matches!(&s.value, SettingValue::EnabledProjectServers(n) if n.len() == 5000)),
        "the 5,000 names"
    );
    // Strict JSON: Claude Code's settings reader refuses comments.
    let e = err(CLAUDE_SETTINGS, "{// x\n}");
    assert_eq!(e.construct, Some(Construct::Comment));
    // A project key is not a settings key.
    assert!(section(CLAUDE_SETTINGS, r#"{"disabledMcpServers": ["a"]}"#)
        .settings
        .is_empty());
}

#[test]
fn claude_json_project_settings_are_sent_only_when_they_take_effect() {
    let text = r#"{
"enableAllProjectMcpServers": true,
"projects": {
  "/quiet": {"enabledMcpjsonServers": [], "disabledMcpjsonServers": [], "enableAllProjectMcpServers": false, "disabledMcpServers": [], "history": ["x"]},
  "/auto": {"enableAllProjectMcpServers": true},
  "/named": {"enabledMcpjsonServers": ["gh"], "disabledMcpServers": ["db"], "mcpServers": {"s": {"command": "x"}}},
  "/twice": {"enableAllProjectMcpServers": true, "enableAllProjectMcpServers": false},
  "/bad": {"enabledMcpjsonServers": 3, "mcpServers": {"t": {"command": "y"}}}
}}"#;
    let c = ok(CLAUDE, text);
    let keys: Vec<Option<&str>> = c.sections.iter().map(|s| s.project.as_deref()).collect();
    assert_eq!(
        keys,
        [
            None,
            Some("/auto"),
            Some("/named"),
            Some("/twice"),
            Some("/bad")
        ]
    );
    // The top level's copy is not read by Claude Code there.
    assert!(c.sections[0].settings.is_empty());
    assert_eq!(
        values(&c.sections[1].settings),
        [&SettingValue::EnableAllProjectServers(true)]
    );
    assert_eq!(
        (
            c.sections[1].settings[0].line,
            c.sections[1].settings[0].column
        ),
        (5, 13)
    );
    assert_eq!(
        values(&c.sections[2].settings),
        [
            &SettingValue::EnabledProjectServers(vec!["gh".into()]),
            &SettingValue::DisabledServers(vec!["db".into()]),
        ]
    );
    assert_eq!(names(&c.sections[2].servers), ["s"]);
    assert_eq!(
        values(&c.sections[3].settings),
        [
            &SettingValue::EnableAllProjectServers(true),
            &SettingValue::EnableAllProjectServers(false)
        ]
    );
    let bad = &c.sections[4];
    assert_eq!(names(&bad.servers), ["t"]);
    assert!(bad
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("enabledMcpjsonServers")));
}

#[test]
fn json_approval_fields_of_cline_roo_kiro_and_gemini() {
    let s = servers(
        JSON,
        r#"{"mcpServers": {
            "cline": {"command": "x", "autoApprove": ["read", "write"], "disabled": false, "type": "stdio"},
            "roo": {"command": "x", "alwaysAllow": ["t"]},
            "kiro": {"command": "x", "autoApprove": []},
            "gemini": {"httpUrl": "https://e", "trust": false},
            "copilot": {"type": "local", "command": "x", "tools": ["*"], "enabled": true}
        }}"#,
    );
    assert_eq!(extra(&s[0]).auto_approve, ["read", "write"]);
    assert_eq!(extra(&s[0]).disabled, Some(false));
    assert_eq!(body(&s[0]).transport.as_deref(), Some("stdio"));
    assert_eq!(extra(&s[1]).always_allow, ["t"]);
    // An empty list is no approval, and costs no extra record.
    assert!(body(&s[2]).extra.is_empty());
    assert_eq!(extra(&s[3]).trust, Some(false));
    assert_eq!(extra(&s[4]).enabled, Some(true));
    assert_eq!(body(&s[4]).transport.as_deref(), Some("local"));
    for (entry, want) in [
        (
            r#"{"autoApprove": "all"}"#,
            "autoApprove must be a list of strings (it is a string)",
        ),
        (
            r#"{"alwaysAllow": [1]}"#,
            "alwaysAllow must be a list of strings (alwaysAllow[0] is a number)",
        ),
        (
            r#"{"trust": "yes"}"#,
            "trust must be a boolean (it is a string)",
        ),
        (
            r#"{"enabled": 1}"#,
            "enabled must be a boolean (it is a number)",
        ),
    ] {
        assert_eq!(body_error(entry), want);
    }
}

#[test]
fn gemini_settings_comments_but_no_trailing_commas_or_bom() {
    let text = "{\n  // servers\n  \"mcpServers\": {\"g\": {\"command\": \"x\", \"cwd\": \"/w\", \"trust\": true, \"timeout\": 5, \"includeTools\": [\"a\"]}},\n  \"theme\": \"x\"\n}";
    let s = servers(GEMINI, text);
    assert_eq!(
        (s[0].name.as_str(), s[0].map, s[0].line),
        ("g", ServerMap::McpServers, 3)
    );
    assert_eq!(extra(&s[0]).trust, Some(true));
    assert_eq!(extra(&s[0]).cwd.as_deref(), Some("/w"));
    let e = err(GEMINI, r#"{"mcpServers": {},}"#);
    assert_eq!(e.construct, Some(Construct::TrailingComma));
    let e = err(GEMINI, "\u{FEFF}{}");
    assert_eq!(e.construct, Some(Construct::ByteOrderMark));
    let e = err(GEMINI, r#"{"mcpServers": {"__proto__": {"command": "x"}}}"#);
    assert_eq!(e.construct, Some(Construct::ProtoKey));
    // Only `mcpServers`.
    assert!(servers(GEMINI, r#"{"servers": {"a": {"command": "x"}}}"#).is_empty());
    let repeated = servers(
        GEMINI,
        r#"{"mcpServers": {"a": {}}, "mcpServers": {"a": {}}}"#,
    );
    assert!(repeated.iter().all(|e| e.twin == Some(Twin::DuplicateName)));
}

#[test]
fn zed_context_servers_in_every_shape() {
    let text = r#"{
  // Zed settings
  "context_servers": {
    "current": {"command": "npx", "args": ["-y", "s"], "env": {"K": "v"}, "enabled": false,},
    "remote": {"url": "https://e/mcp", "headers": {"Authorization": "x"}},
    "older": {"source": "custom", "command": {"path": "/bin/s", "args": ["a"], "env": {"E": "1"}}},
    "extension": {"source": "extension", "settings": {"database_url": "postgres://"}},
  },
}"#;
    let s = servers(ZED, text);
    assert_eq!(names(&s), ["current", "remote", "older", "extension"]);
    assert!(s.iter().all(|e| e.map == ServerMap::ContextServers));
    assert_eq!(body(&s[0]).command.as_deref(), Some("npx"));
    assert_eq!(body(&s[0]).args, ["-y", "s"]);
    assert_eq!(body(&s[0]).env, [("K".to_string(), "v".to_string())]);
    assert_eq!(extra(&s[0]).enabled, Some(false));
    assert_eq!(body(&s[1]).url.as_deref(), Some("https://e/mcp"));
    assert_eq!(body(&s[1]).headers.len(), 1);
    assert_eq!(body(&s[2]).command.as_deref(), Some("/bin/s"));
    assert_eq!(body(&s[2]).args, ["a"]);
    assert_eq!(body(&s[2]).env, [("E".to_string(), "1".to_string())]);
    let ext = body(&s[3]);
    assert!(ext.command.is_none() && ext.url.is_none());
    assert_eq!((s[3].line, s[3].column), (7, 5));
    // Wrong shapes are entries with a reason, never dropped.
    let bad = servers(
        ZED,
        r#"{"context_servers": {"a": {"command": 1}, "b": {"command": {"path": 1}}, "c": "x", "d": {"command": {"path": "p", "args": "a"}}}}"#,
    );
    let reasons: Vec<&str> = bad
        .iter()
        .map(|e| e.body.as_ref().unwrap_err().as_str())
        .collect();
    assert_eq!(
        reasons,
        [
            "command must be a string (it is a number)",
            "command.path must be a string (it is a number)",
            "server entry must be an object (it is a string)",
            "command.args must be a list of strings (it is a string)",
        ]
    );
    // serde reads `__proto__` as an ordinary key; Zed reads the file as a Rust string.
    assert_eq!(
        names(&servers(
            ZED,
            r#"{"context_servers": {"__proto__": {"command": "x"}}}"#
        )),
        ["__proto__"]
    );
    let e = config_bytes(
        ZED,
        b"{\"context_servers\": {\"a\": {\"command\": \"\xff\"}}}",
    )
    .unwrap_err();
    assert_eq!(e.construct, Some(Construct::InvalidUtf8));
}

#[test]
fn opencode_local_and_remote_entries() {
    let text = r#"{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "local": {"type": "local", "command": ["npx", "-y", "pkg"], "environment": {"T": "{env:T}"}, "enabled": false},
    "remote": {"type": "remote", "url": "https://e/mcp", "headers": {"Authorization": "Bearer {env:K}"}},
    "empty": {"type": "local", "command": []},
  },
}"#;
    let s = servers(OPENCODE, text);
    assert_eq!(names(&s), ["local", "remote", "empty"]);
    assert!(s.iter().all(|e| e.map == ServerMap::Mcp));
    let local = body(&s[0]);
    assert_eq!(local.command.as_deref(), Some("npx"));
    assert_eq!(local.args, ["-y", "pkg"]);
    assert_eq!(local.env, [("T".to_string(), "{env:T}".to_string())]);
    assert_eq!(local.transport.as_deref(), Some("local"));
    assert_eq!(extra(&s[0]).enabled, Some(false));
    let remote = body(&s[1]);
    assert_eq!(
        (remote.url.as_deref(), remote.transport.as_deref()),
        (Some("https://e/mcp"), Some("remote"))
    );
    assert_eq!(remote.headers[0].1, "Bearer {env:K}");
    assert!(body(&s[2]).command.is_none());
    let bad = servers(
        OPENCODE,
        r#"{"mcp": {"a": {"type": "local", "command": "npx -y pkg"}, "b": {"environment": []}}}"#,
    );
    assert_eq!(
        bad[0].body.as_ref().unwrap_err(),
        "command must be a list of strings (it is a string)"
    );
    assert_eq!(
        bad[1].body.as_ref().unwrap_err(),
        "environment must be an object (it is an array)"
    );
    let e = err(OPENCODE, r#"{"mcp": {"a": {"__proto__": {}}}}"#);
    assert_eq!(e.construct, Some(Construct::ProtoKey));
}

#[test]
fn desktop_extension_manifest_and_platform_overrides() {
    let text = r#"{
  "manifest_version": "0.3",
  "name": "files",
  "version": "1.0.0",
  "server": {
    "type": "node",
    "entry_point": "server/index.js",
    "mcp_config": {
      "command": "node",
      "args": ["${__dirname}/server/index.js"],
      "env": {"ROOT": "${user_config.root}"},
      "platform_overrides": {
        "win32": {"command": "node.exe"},
        "freebsd": {"command": "never-selected"},
        "linux": {"env": {}}
      }
    }
  }
}"#;
    let s = servers(EXTENSION, text);
    assert_eq!(names(&s), ["files", "files", "files"]);
    assert!(s
        .iter()
        .all(|e| e.map == ServerMap::Manifest && e.twin == Some(Twin::DuplicateName)));
    // The position is the name's value.
    assert!(s.iter().all(|e| (e.line, e.column) == (3, 11)));
    assert_eq!(body(&s[0]).command.as_deref(), Some("node"));
    assert_eq!(body(&s[1]).command.as_deref(), Some("node.exe"));
    assert_eq!(body(&s[1]).args, ["${__dirname}/server/index.js"]);
    assert_eq!(body(&s[1]).env.len(), 1);
    assert_eq!(body(&s[2]).command.as_deref(), Some("node"));
    assert!(body(&s[2]).env.is_empty());
    // Without overrides: one entry, not flagged.
    let one = servers(
        EXTENSION,
        r#"{"name": "x", "server": {"type": "binary", "mcp_config": {"command": "/x"}}}"#,
    );
    assert_eq!((one.len(), one[0].twin), (1, None));
    // An entry that cannot be read is still listed, with the reason.
    for (manifest, want) in [
        (r#"{"name": "x"}"#, "the manifest has no \"server\""),
        (
            r#"{"name": "x", "server": 1}"#,
            "server must be an object (it is a number)",
        ),
        (
            r#"{"name": "x", "server": {"type": "uv", "entry_point": "main.py"}}"#,
            "a \"uv\" server without mcp_config",
        ),
        (
            r#"{"name": "x", "server": {"mcp_config": {"command": 1}}}"#,
            "server.mcp_config.command must be a string",
        ),
        (
            r#"{"name": "x", "server": {"mcp_config": {"command": "c", "platform_overrides": {"win32": 1}}}}"#,
            "platform_overrides.win32.must be an object",
        ),
    ] {
        let s = servers(EXTENSION, manifest);
        let reason = s
            .iter()
            .find_map(|e| e.body.as_ref().err())
            .expect("a reason");
        assert!(reason.contains(want), "{manifest}: {reason}");
    }
    for (manifest, construct) in [
        ("{}", None),
        (r#"{"name": 1}"#, None),
        ("\u{FEFF}{\"name\": \"x\"}", Some(Construct::ByteOrderMark)),
        ("{\"name\": \"x\", // c\n}", Some(Construct::Comment)),
        (
            r#"{"name": "x", "server": {"mcp_config": {"__proto__": {}}}}"#,
            Some(Construct::ProtoKey),
        ),
    ] {
        assert_eq!(err(EXTENSION, manifest).construct, construct, "{manifest}");
    }
}

#[test]
fn codex_tool_approval_modes() {
    let text = "[mcp_servers.gh]\ncommand = \"x\"\ndefault_tools_approval_mode = \"approve\"\nenabled_tools = [\"a\"]\n[mcp_servers.gh.tools.create_issue]\napproval_mode = \"prompt\"\n[mcp_servers.gh.tools.list]\ndescription = \"no mode\"\n";
    let s = servers(TOML, text);
    assert_eq!(
        extra(&s[0]).tool_approvals,
        [
            ("*".to_string(), "approve".to_string()),
            ("create_issue".to_string(), "prompt".to_string())
        ]
    );
    let plain = servers(TOML, "[mcp_servers.a]\ncommand = \"x\"\n");
    assert!(body(&plain[0]).extra.is_empty());
    for (toml, want) in [
        (
            "default_tools_approval_mode = 1",
            "default_tools_approval_mode must be a string (it is an integer)",
        ),
        ("tools = 1", "tools must be a table (it is an integer)"),
        (
            "tools = { t = 1 }",
            "tools.t must be a table (it is an integer)",
        ),
        (
            "tools.t.approval_mode = true",
            "tools.t.approval_mode must be a string (it is a boolean)",
        ),
    ] {
        let s = servers(TOML, &format!("[mcp_servers.a]\ncommand = \"x\"\n{toml}\n"));
        assert_eq!(s[0].body.as_ref().unwrap_err(), want, "{toml}");
    }
}

#[test]
fn new_formats_never_recurse_on_nesting() {
    const STACK: usize = 256 * 1024;
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(|| {
            let deep = "[".repeat(200_000);
            let shapes = [
                (VSCODE, format!(r#"{{"mcp": {{"servers": {{"a": {deep}"#)),
                (VSCODE, format!(r#"{{"chat.mcp.discovery.enabled": {deep}"#)),
                (VSCODE, format!(r#"{{"unread": {deep}"#)),
                (
                    CLAUDE_SETTINGS,
                    format!(r#"{{"permissions": {{"allow": {deep}"#),
                ),
                (GEMINI, format!(r#"{{"mcpServers": {{"a": {deep}"#)),
                (ZED, format!(r#"{{"context_servers": {{"a": {deep}"#)),
                (OPENCODE, format!(r#"{{"mcp": {{"a": {deep}"#)),
                (EXTENSION, format!(r#"{{"server": {{"mcp_config": {deep}"#)),
                (
                    CLAUDE,
                    format!(r#"{{"projects": {{"/p": {{"enabledMcpjsonServers": {deep}"#),
                ),
            ];
            shapes
                .iter()
                .map(|(f, t)| config(*f, t).unwrap_err())
                .collect::<Vec<_>>()
        })
        .unwrap();
    for e in handle.join().unwrap() {
        assert!(
            e.message.contains("nesting deeper than 128 levels"),
            "{}",
            e.message
        );
    }
}

#[test]
fn new_formats_survive_hostile_bytes() {
    let inputs: [&[u8]; 8] = [
        b"",
        b"\xff\xfe",
        b"{\"mcp\": {\"servers\": {\"a\": {\"command\": \"\xc3\x28\"}}}}",
        b"{\"mcp.servers\": null, \"chat.mcp.discovery.enabled\": {}}",
        b"{\"name\": \"\", \"server\": {\"mcp_config\": {\"command\": \"\", \"platform_overrides\": {\"darwin\": {}, \"darwin\": {}}}}}",
        b"{\"context_servers\": {\"a\": {\"command\": {}}}}",
        b"{\"mcp\": {\"a\": {\"command\": [1]}}}",
        b"{\"permissions\": {\"allow\": [null, {}, \"mcp__\"]}}",
    ];
    for format in [VSCODE, CLAUDE_SETTINGS, GEMINI, ZED, OPENCODE, EXTENSION] {
        for input in inputs {
            let msg = parse_file(format, input);
            assert!(
                crate::parent::validate::check_message(format, input.len() as u64, &msg).is_ok(),
                "{format:?} {input:?}: {msg:?}"
            );
        }
    }
}

#[test]
fn vscode_tool_auto_approval_in_both_names_and_forms() {
    let s = section(
        VSCODE,
        r#"{"chat.tools.autoApprove": true, "chat": {"tools": {"global": {"autoApprove": {"runInTerminal": true, "fetch": false}}}}, "chat.mcp.discovery.enabled": {"cursor-global": true}}"#,
    );
    assert_eq!(
        values(&s.settings),
        [
            &SettingValue::ToolsAutoApprove(vec![(String::new(), true)]),
            &SettingValue::ToolsAutoApprove(vec![
                ("runInTerminal".into(), true),
                ("fetch".into(), false)
            ]),
            &SettingValue::DiscoveryImport(vec![("cursor-global".into(), true)]),
        ]
    );
    // A near miss: the terminal's own auto-approval list is another setting.
    let other = section(
        VSCODE,
        r#"{"chat.tools.terminal.autoApprove": {"rm": false}}"#,
    );
    assert!(other.settings.is_empty());
    let off = section(VSCODE, r#"{"chat.tools.autoApprove": false}"#);
    assert_eq!(
        values(&off.settings),
        [&SettingValue::ToolsAutoApprove(vec![(
            String::new(),
            false
        )])]
    );
    let bad = section(VSCODE, r#"{"chat.tools.autoApprove": "yes"}"#);
    assert!(bad.error.is_some() && bad.settings.is_empty());
}

#[test]
fn gemini_server_lists_in_both_versions() {
    let text = r#"{"mcpServers": {"a": {"command": "x"}}, "mcp": {"allowed": ["a"], "excluded": []}, "excludeMCPServers": ["b"]}"#;
    let s = section(GEMINI, text);
    assert_eq!(names(&s.servers), ["a"]);
    assert_eq!(
        values(&s.settings),
        [
            &SettingValue::AllowedServers(vec!["a".into()]),
            &SettingValue::ExcludedServers(vec![]),
            &SettingValue::ExcludedServers(vec!["b".into()]),
        ]
    );
    let bad = section(
        GEMINI,
        r#"{"mcpServers": {"a": {}}, "mcp": {"allowed": "a"}}"#,
    );
    assert_eq!(names(&bad.servers), ["a"]);
    assert!(bad
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("mcp.allowed")));
    // Not split: a dotted key is an ordinary Gemini key.
    assert!(section(GEMINI, r#"{"mcp.allowed": ["a"]}"#)
        .settings
        .is_empty());
}

#[test]
fn a_lone_cr_ends_a_line_comment_only_where_the_client_ends_it() {
    // Gemini CLI and Zed read the rest of the line after a lone CR as comment
    // text: the launch doctor audits must be the one they run, not the one a
    // VS Code-style scanner would see.
    let hidden = "{\"SERVERS\": {\"a\": {\"command\": \"x\" // \r, \"args\": [\"safe\"]}}, \"z\": {\"y\": {\"q\": 1\n, \"args\": [\"evil\"]}}}";
    for (format, key) in [(GEMINI, "mcpServers"), (ZED, "context_servers")] {
        let s = servers(format, &hidden.replace("SERVERS", key));
        assert_eq!(body(&s[0]).args, ["evil"], "{format:?}");
    }
    let s = servers(VSCODE, &hidden.replace("SERVERS", "mcp.servers"));
    assert_eq!(body(&s[0]).args, ["safe"]);
    let opencode = "{\"mcp\": {\"a\": {\"command\": [\"x\"] // \r, \"environment\": {\"S\": \"safe\"}}}, \"z\": {\"y\": {\"q\": 1\n, \"environment\": {\"S\": \"evil\"}}}}";
    let s = servers(OPENCODE, opencode);
    assert_eq!(body(&s[0]).env, [("S".to_string(), "safe".to_string())]);
}

#[test]
fn malformed_settings_cost_one_position_pass_however_many() {
    // Every project's malformed setting is its section's error: positions are
    // resolved in the file's one pass, not once per problem (19,000 scans of a
    // megabyte would not finish).
    let projects: Vec<String> = (0..19_000)
        .map(|i| format!(r#""/p/{i}": {{"enabledMcpjsonServers": 1}}"#))
        .collect();
    let text = format!(r#"{{"projects": {{{}}}}}"#, projects.join(","));
    let c = ok(CLAUDE, &text);
    assert_eq!(c.sections.len(), 19_001);
    let last = c.sections.last().and_then(|s| s.error.as_ref()).unwrap();
    assert!(
        last.message
            .starts_with("the setting enabledMcpjsonServers at line 1 column "),
        "{}",
        last.message
    );
    // A key repeated 100,000 times: a few problems are spelt out, the rest counted.
    let repeated = vec![r#""enableAllProjectMcpServers": 1"#; 100_000].join(",");
    let c = ok(
        CLAUDE,
        &format!(r#"{{"projects": {{"/p": {{{repeated}}}}}}}"#),
    );
    let e = c.sections[1].error.as_ref().unwrap();
    assert!(e.message.ends_with("; and 99996 more"), "{}", e.message);
    assert!(e.message.len() < 1_000);
    assert!(c.sections[1].settings.is_empty());
    // A VS Code settings file repeating a setting: every copy is kept (no count is
    // bounded), none is a problem.
    let many = vec![r#""chat.mcp.discovery.enabled": false"#; 10_000].join(",");
    let s = &ok(VSCODE, &format!("{{{many}}}")).sections[0];
    assert_eq!(s.settings.len(), 10_000);
    assert!(s.error.is_none(), "{:?}", s.error);
}

#[test]
fn gemini_reads_what_strip_json_comments_leaves() {
    // An unterminated `/*` at the end is dropped by the stripper: the file loads.
    let s = servers(
        GEMINI,
        "{\"mcpServers\": {\"a\": {\"command\": \"sh\"}}}\n/* open",
    );
    assert_eq!(names(&s), ["a"]);
    // Not at the end: what is left is not JSON.
    assert!(err(GEMINI, "{\"mcpServers\": {} /* , \"x\": 1}")
        .message
        .contains("invalid"));
    // The stripper keeps U+2028 (and the other `\s` characters JSON does not
    // allow) in a comment, so JSON.parse fails and Gemini CLI loads nothing.
    for c in [
        '\u{2028}', '\u{2029}', '\u{00A0}', '\u{000B}', '\u{FEFF}', '\u{3000}',
    ] {
        let text = format!(
            "{{\n  // note {c} x\n  \"mcpServers\": {{\"b\": {{\"command\": \"sh\"}}}}\n}}"
        );
        let e = err(GEMINI, &text);
        assert!(
            e.message.contains("Gemini CLI does not load"),
            "{c:?}: {}",
            e.message
        );
        let text = format!("{{ /* {c} */ \"mcpServers\": {{}}}}");
        assert!(err(GEMINI, &text).message.contains("JSON.parse refuses"));
    }
    // In a string they are ordinary characters; comment markers in strings are text.
    let s = servers(
        GEMINI,
        "{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"args\": [\"x\u{2028}\", \"// y\", \"\\\" /* z\"]}}} // c",
    );
    assert_eq!(body(&s[0]).args, ["x\u{2028}", "// y", "\" /* z"]);
}

#[test]
fn opencode_refuses_raw_text_references_it_cannot_read_as_strings() {
    // Inside one string: expanded by the reading (empty), read here as written.
    let s = servers(
        OPENCODE,
        r#"{"mcp": {"a": {"type": "local", "command": ["{env:B}sh", "x{env:Q}"]}}} // {env:C}"#,
    );
    assert_eq!(body(&s[0]).command.as_deref(), Some("{env:B}sh"));
    // A `{file:…}` on a line starting with `//` is left alone by OpenCode.
    servers(OPENCODE, "{\n  // {file:/x}\n  \"mcp\": {}\n}");
    let refused = [
        // Spans two strings: OpenCode's substitution joins them.
        r#"{"mcp": {"a": {"type": "local", "command": ["sh{env:X", "-c", "evil}"]}}}"#,
        // An escape in the reference: the raw text is not the string.
        r#"{"mcp": {"a": {"type": "local", "command": ["x{env:\u007d}"]}}}"#,
        r#"{"mcp": {"a": {"type": "local", "command": ["x{env:A\"}y"]}}}"#,
        // Outside any string.
        r#"{"mcp": {"a": {env:X} {"type": "local", "command": ["sh"]}}}"#,
        // In a key: OpenCode's name is not the one written.
        r#"{"mcp": {"a{env:X}": {"type": "local", "command": ["sh"]}}}"#,
        // Runs past the end of its line comment.
        "{\n  // {env:X\n  \"mcp\": {\"a\": {\"type\": \"local\", \"command\": [\"evil\"]}},\n  \"y\": \"}\"\n}",
        // Its removal ends a block comment early.
        "{ /* a*{env:X}/ \"mcp\": {} */ }",
        // A file OpenCode inserts as raw text, in a string or a block comment.
        r#"{"mcp": {"a": {"type": "local", "command": ["sh", "{file:/etc/x}"]}}}"#,
        "{ /* {file:/etc/x} */ }",
        "{\"a\": \"x\", // {file:/etc/x}\n}",
        // A `{file:` that the `{env:…}` substitution assembles.
        r#"{"a": "{fi{env:X}le:/etc/x}"}"#,
    ];
    for text in refused {
        let e = err(OPENCODE, text);
        assert!(e.message.contains("OpenCode"), "{text}: {}", e.message);
    }
}

#[test]
fn opencode_strict_schema_fields_are_the_files_error_and_the_entry_is_still_sent() {
    let text = r#"{"mcp": {
        "a": {"type": "local", "command": ["sh"], "args": ["x"]},
        "r": {"type": "remote", "url": "https://e/mcp", "command": ["sh"]},
        "ok": {"type": "local", "command": ["sh"], "environment": {}, "enabled": true, "timeout": 5, "cwd": "/w"},
        "any": {"command": ["sh"], "url": "https://e/mcp", "oauth": {}}
    }}"#;
    let s = section(OPENCODE, text);
    assert_eq!(names(&s.servers), ["a", "r", "ok", "any"]);
    let e = s.error.expect("the unknown fields are the section's error");
    assert!(e.message.contains("mcp.a.args"), "{}", e.message);
    assert!(e.message.contains("mcp.r.command"), "{}", e.message);
    assert!(!e.message.contains("mcp.ok."), "{}", e.message);
    assert!(!e.message.contains("mcp.any."), "{}", e.message);
    assert!(section(
        OPENCODE,
        r#"{"mcp": {"ok": {"type": "local", "command": ["sh"]}}}"#
    )
    .error
    .is_none());
}

#[test]
fn zed_a_repeated_context_servers_key_is_the_files_error_and_every_copy_is_sent() {
    let s = section(
        ZED,
        r#"{"context_servers": {"a": {"command": "one"}}, "context_servers": {"b": {"command": "two"}}}"#,
    );
    assert_eq!(names(&s.servers), ["a", "b"]);
    let e = s
        .error
        .expect("a repeated struct field is the file's error");
    assert!(
        e.message
            .contains("Zed's settings types refuse a repeated field"),
        "{}",
        e.message
    );
    assert!(section(
        ZED,
        r#"{"context_servers": {"a": {"command": "one"}, "a": {"command": "two"}}}"#
    )
    .error
    .is_none());
}

#[test]
fn desktop_extension_every_copy_of_server_and_mcp_config_is_sent() {
    let text = r#"{"name": "ext", "server": {"mcp_config": {"command": "one"}},
        "server": {"mcp_config": {"command": "two"}, "mcp_config": {"command": "three"}}}"#;
    let s = servers(FileFormat::DesktopExtension, text);
    let commands: Vec<_> = s.iter().map(|e| body(e).command.as_deref()).collect();
    assert_eq!(commands, [Some("one"), Some("two"), Some("three")]);
    assert!(
        s.iter().all(|e| e.twin == Some(Twin::DuplicateName)),
        "{s:?}"
    );
}

#[test]
fn desktop_extension_copies_beyond_the_bound_are_that_entrys_error() {
    let copy = r#""server": {"mcp_config": {"command": "x"}}"#;
    let text = format!(r#"{{"name": "ext", {}}}"#, [copy; 5].join(", "));
    let s = servers(FileFormat::DesktopExtension, &text);
    assert_eq!(s.len(), 1, "{s:?}");
    let reason = s[0].body.as_ref().expect_err("too many copies");
    assert!(reason.contains("5 copies"), "{reason}");
    let text = format!(r#"{{"name": "ext", {}}}"#, [copy; 4].join(", "));
    assert_eq!(servers(FileFormat::DesktopExtension, &text).len(), 4);
}
