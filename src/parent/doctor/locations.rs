//! Findings carry the field they are about, as the file spells it, and the line
//! and column of that value: every format, every kind of field, and the texts that
//! make positions hard (one line, CRLF, a BOM, wide characters, repeated keys).

use super::*;
use crate::model::FieldPath;

/// The report doctor builds from one file of `format`, read by `readers`, with
/// every engine run (the child's reading, validation and the parent's audit).
fn report_of(format: FileFormat, readers: &'static [Reader], text: &str) -> Report {
    let message = crate::child::parse_file(format, text.as_bytes());
    super::super::validate::check_message(format, text.len() as u64, &message)
        .expect("an honest answer");
    let ChildMessage::Config(Ok(config)) = message else {
        panic!("{format:?} not read: {message:?}");
    };
    let file = ConfigFile {
        client: "test".into(),
        label: "f".into(),
        path: Path::new("/f").into(),
        format,
        scope: Scope::Explicit,
        readers: file_readers(readers, Path::new("/home/u"), None),
        client_id: None,
        layer: Layer::Explicit,
        project_dir: None,
    };
    let mut report = Report::default();
    let mut pending = Vec::new();
    let mut diag = Diag::to(Box::new(std::io::sink()));
    add_config(
        &file,
        config,
        Vec::new(),
        &mut report,
        &mut pending,
        &mut diag,
    );
    audit_servers(&mut report.servers, pending, &[], ScanMode::Doctor, false);
    engines::approval::apply(&mut report);
    report
}

/// The one finding of `rule`.
fn the(report: &Report, rule: RuleId) -> Finding {
    let found: Vec<&Finding> = report.findings().filter(|f| f.rule == rule).collect();
    match found.as_slice() {
        [one] => (*one).clone(),
        _ => panic!("{} findings of {rule:?}: {:?}", found.len(), report),
    }
}

/// Line and column (code points, a BOM not counted) where the `nth` copy of
/// `needle` starts in `text`.
fn position_of(text: &str, needle: &str, nth: usize) -> Position {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("{needle:?} not in the text"));
    let before = &text[..offset];
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let column = before[line_start..]
        .chars()
        .filter(|&c| c != '\u{FEFF}')
        .count();
    let line = before.matches('\n').count() + before.matches('\r').count()
        - before.matches("\r\n").count();
    Position {
        line: u32::try_from(line + 1).unwrap_or(u32::MAX),
        column: u32::try_from(column + 1).unwrap_or(u32::MAX),
    }
}

fn assert_at(f: &Finding, field: &str, at: Position) {
    assert_eq!(
        f.field.as_ref().map(ToString::to_string).as_deref(),
        Some(field),
        "{f:?}"
    );
    assert_eq!(f.at, Some(at), "{f:?}");
}

const SLACK: &str = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";

#[test]
fn a_slack_token_in_env_points_at_the_value_on_its_line() {
    let text = format!(
        "{{\n  \"mcpServers\": {{\n    \"slack\": {{\n      \"command\": \"node\",\n      \"args\": [\"server.js\"],\n      \"env\": {{\n        \"SLACK_TOKEN\": \"{SLACK}\"\n      }}\n    }}\n  }}\n}}\n"
    );
    let r = report_of(FileFormat::McpJson, &[Reader::ClaudeCode], &text);
    let f = the(&r, RuleId::SecSlack);
    assert_at(
        &f,
        "env.SLACK_TOKEN",
        Position {
            line: 7,
            column: 24,
        },
    );
    assert_eq!(f.at, Some(position_of(&text, "\"xoxb", 0)));
}

#[test]
fn each_field_kind_of_a_json_entry() {
    let text = r#"{"mcpServers": {
  "pkg": {"command": "npx", "args": ["-y", "@scope/server"]},
  "web": {"url": "http://mcp.example.com/mcp",
          "headers": {"Authorization": "Bearer abcdefghijklmnopqrstuvwx0123456789"}},
  "helper": {"type": "http", "url": "https://mcp.example.com/mcp",
             "headersHelper": "sh ./token.sh"},
  "var": {"command": "${RUNNER:-npx}", "args": ["-y", "pkg@1.0.0"]},
  "bare": {"type": "sse"}
}}"#;
    let r = report_of(FileFormat::McpJson, &[Reader::ClaudeCode], text);
    assert_at(
        &the(&r, RuleId::SupNpxUnpinned),
        "args[1]",
        position_of(text, "\"@scope/server\"", 0),
    );
    assert_at(
        &the(&r, RuleId::AuthPlaintextHttp),
        "url",
        position_of(text, "\"http://", 0),
    );
    assert_at(
        &the(&r, RuleId::AuthTokenInConfig),
        "headers.Authorization",
        position_of(text, "\"Bearer", 0),
    );
    assert_at(
        &the(&r, RuleId::DoctorHeadersHelper),
        "headersHelper",
        position_of(text, "\"sh ./token.sh\"", 0),
    );
    assert_at(
        &the(&r, RuleId::DoctorVariableLaunch),
        "command",
        position_of(text, "\"${RUNNER", 0),
    );
    let bare: Vec<&Finding> = r
        .findings()
        .filter(|f| f.rule == RuleId::AuthNoAuth && f.target.ends_with("#bare"))
        .collect();
    assert_eq!(bare.len(), 1, "{r:?}");
    assert_at(bare[0], "type", position_of(text, "\"sse\"", 0));
    // About the whole entry: no field, at the entry's key.
    let no_lock = r
        .findings()
        .find(|f| f.rule == RuleId::DoctorNoLock && f.target.ends_with("#pkg"))
        .expect("no lock");
    assert_eq!(no_lock.field, None);
    assert_eq!(no_lock.at, Some(position_of(text, "\"pkg\"", 0)));
}

#[test]
fn windsurf_server_url_is_named_as_written() {
    let text = "{\"mcpServers\": {\"w\": {\"serverUrl\": \"http://mcp.example.com/sse\"}}}";
    let r = report_of(FileFormat::Json, &[Reader::Windsurf], text);
    assert_at(
        &the(&r, RuleId::AuthPlaintextHttp),
        "serverUrl",
        position_of(text, "\"http", 0),
    );
}

#[test]
fn codex_fields_are_named_as_codex_spells_them() {
    let text = format!(
        "[mcp_servers.remote]\nurl = \"https://mcp.example.com/mcp\"\nhttp_headers = {{ \"X-Api-Key\" = \"{SLACK}\" }}\n\n[mcp_servers.local]\ncommand = \"npx\"\nargs = [\"-y\", \"left-pad\"]\n\n[mcp_servers.local.env]\nTOKEN = \"ghp_0123456789abcdefghijklmnopqrstuvwxyz\"\n"
    );
    let r = report_of(FileFormat::CodexToml, &[Reader::Codex], &text);
    assert_at(
        &the(&r, RuleId::SecSlack),
        "http_headers.X-Api-Key",
        position_of(&text, "\"xoxb", 0),
    );
    assert_at(
        &the(&r, RuleId::SecGithub),
        "env.TOKEN",
        position_of(&text, "\"ghp_", 0),
    );
    assert_at(
        &the(&r, RuleId::SupNpxUnpinned),
        "args[1]",
        position_of(&text, "\"left-pad\"", 0),
    );
}

#[test]
fn continue_yaml_values() {
    let text = format!(
        "name: a\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: s\n    command: npx\n    args:\n      - -y\n      - \"left-pad\"\n    env:\n      SLACK: {SLACK}\n"
    );
    let r = report_of(FileFormat::ContinueYaml, &[Reader::Continue], &text);
    assert_at(
        &the(&r, RuleId::SecSlack),
        "env.SLACK",
        position_of(&text, "xoxb", 0),
    );
    assert_at(
        &the(&r, RuleId::SupNpxUnpinned),
        "args[1]",
        position_of(&text, "\"left-pad\"", 0),
    );
}

#[test]
fn vscode_jsonc_with_comments_and_trailing_commas() {
    let text = "{\n  // servers\n  \"servers\": {\n    \"s\": { /* c */ \"type\": \"stdio\", \"command\": \"uvx\", \"args\": [ /* x */ \"mcp-server-git\", ], },\n  },\n}\n";
    let r = report_of(FileFormat::Jsonc, &[Reader::VsCode], text);
    assert_at(
        &the(&r, RuleId::SupUvxUnpinned),
        "args[0]",
        position_of(text, "\"mcp-server-git\"", 0),
    );
}

#[test]
fn opencode_command_items_and_environment() {
    let text = format!(
        "{{\"mcp\": {{\"s\": {{\"type\": \"local\", \"command\": [\"npx\", \"-y\", \"left-pad\"], \"environment\": {{\"K\": \"{SLACK}\"}}}}}}}}"
    );
    let r = report_of(FileFormat::OpenCode, &[Reader::OpenCode], &text);
    assert_at(
        &the(&r, RuleId::SupNpxUnpinned),
        "command[2]",
        position_of(&text, "\"left-pad\"", 0),
    );
    assert_at(
        &the(&r, RuleId::SecSlack),
        "environment.K",
        position_of(&text, "\"xoxb", 0),
    );
}

#[test]
fn zed_context_servers() {
    let text =
        "{\"context_servers\": {\"z\": {\"command\": \"npx\", \"args\": [\"-y\", \"left-pad\"]}}}";
    let r = report_of(FileFormat::ZedSettings, &[Reader::Zed], text);
    assert_at(
        &the(&r, RuleId::SupNpxUnpinned),
        "args[1]",
        position_of(text, "\"left-pad\"", 0),
    );
}

#[test]
fn cline_auto_approve_points_at_the_list() {
    let text = "{\"mcpServers\": {\"c\": {\"command\": \"node\", \"args\": [\"s.js\"],\n  \"autoApprove\": [\"write_file\"]}}}";
    let r = report_of(FileFormat::Json, &[Reader::Cline], text);
    assert_at(
        &the(&r, RuleId::ClientToolAutoApprove),
        "autoApprove",
        position_of(text, "[\"write_file\"]", 0),
    );
}

#[test]
fn hostile_layouts_keep_exact_positions() {
    // Several values on one line, wide characters before the value, CRLF line
    // breaks, a BOM, and escapes that make the source longer than the value.
    let text = format!(
        "\u{FEFF}{{\"mcpServers\": {{\r\n\"é😀\": {{\"command\": \"node\", \"args\": [\"a\\n\\u00e9\", \"x\"], \"env\": {{\"A\": \"é\", \"B\": \"{SLACK}\"}}}}}}}}"
    );
    let r = report_of(FileFormat::McpJson, &[Reader::ClaudeCode], &text);
    let f = the(&r, RuleId::SecSlack);
    let at = position_of(&text, "\"xoxb", 0);
    assert_eq!(at.line, 2);
    assert_at(&f, "env.B", at);
    // The entry's own key, on the same line, for findings about the whole entry.
    let no_lock = the(&r, RuleId::DoctorNoLock);
    assert_eq!(no_lock.at, Some(position_of(&text, "\"é😀\"", 0)));
}

#[test]
fn a_repeated_key_points_at_the_copy_that_is_read() {
    let text = format!(
        "{{\"mcpServers\": {{\"s\": {{\"command\": \"node\",\n  \"env\": {{\"T\": \"harmless\",\n  \"T\": \"{SLACK}\"}},\n  \"url\": \"https://a.example.com\", \"url\": \"http://b.example.com/mcp\"}}}}}}"
    );
    let r = report_of(FileFormat::McpJson, &[Reader::ClaudeCode], &text);
    assert_at(
        &the(&r, RuleId::SecSlack),
        "env.T",
        position_of(&text, "\"xoxb", 0),
    );
}

#[test]
fn multi_line_yaml_values_start_where_they_are_written() {
    let text = format!(
        "name: a\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: s\n    command: node\n    env:\n      K: >-\n        {SLACK}\n"
    );
    let r = report_of(FileFormat::ContinueYaml, &[Reader::Continue], &text);
    let f = the(&r, RuleId::SecSlack);
    assert_eq!(
        f.field.as_ref().map(ToString::to_string).as_deref(),
        Some("env.K")
    );
    // A block scalar's value starts where its text does, on the line below the
    // indicator: where the secret is.
    assert_eq!(f.at, Some(position_of(&text, "xoxb", 0)));
}

#[test]
fn auth_audit_places_findings_the_same_way() {
    let text = format!(
        "{{\"mcpServers\": {{\"s\": {{\"url\": \"https://x.example.com\",\n \"headers\": {{\"Authorization\": \"{SLACK}\"}}}}}}}}"
    );
    let r = report_of(FileFormat::McpJson, &[Reader::ClaudeCode], &text);
    let server = &r.servers[0];
    let audit = auth_findings(
        &server.name,
        &server.spec,
        &server.target,
        key_position(server),
    );
    let doctor: Vec<&Finding> = server
        .findings
        .iter()
        .filter(|f| audit.iter().any(|a| a.rule == f.rule))
        .collect();
    assert!(!audit.is_empty());
    assert_eq!(audit.iter().collect::<Vec<_>>(), doctor);
    assert!(audit.iter().all(|f| f.at.is_some()));
}

#[test]
fn a_field_without_a_position_is_named_and_placed_at_the_key() {
    let spec = crate::model::ServerSpec::stdio("npx", &["-y", "left-pad"]);
    let key_at = Position { line: 3, column: 5 };
    let (field, at) = spec.place(Some(&FieldPath::Arg(1)), key_at);
    assert_eq!(field, Some(FieldPath::Arg(1)));
    assert_eq!(at, key_at);
    assert_eq!(spec.place(None, key_at), (None, key_at));
}

#[test]
fn a_setting_finding_is_at_the_setting() {
    let text = "{\n  \"editor.fontSize\": 12,\n  \"chat.tools.autoApprove\": true\n}\n";
    let r = report_of(FileFormat::VsCodeSettings, &[Reader::VsCode], text);
    let f = the(&r, RuleId::ClientToolAutoApprove);
    assert_eq!(f.field, Some(FieldPath::Named("chat.tools.autoApprove")));
    assert_eq!(f.at, Some(position_of(text, "\"chat.tools", 0)));
    let s = &r.setting_findings[0];
    assert_eq!(
        f.at,
        Some(Position {
            line: s.line,
            column: s.column
        })
    );
}
