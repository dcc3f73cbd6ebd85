//! Each finding names the field it is about, as the file spells it, and the line
//! and column of that value: from the built binary, one file per format and a
//! field of each kind, and the layouts that make positions hard.
//!
//! Each test checks the `field`, `line` and `column` of the JSONL records against
//! the file it wrote.

use serde_json::Value;

use crate::util::*;

const SLACK: &str = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";

/// Line and column (code points, a BOM not counted) where the first copy of
/// `needle` after `after` starts in `text`.
fn position_of(text: &str, needle: &str, after: &str) -> (u64, u64) {
    let from = text.find(after).unwrap_or(0);
    let offset = from + text[from..].find(needle).expect("needle in text");
    let before = &text[..offset];
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let column = before[line_start..]
        .chars()
        .filter(|&c| c != '\u{FEFF}')
        .count();
    let line = before.matches('\n').count() + before.matches('\r').count()
        - before.matches("\r\n").count();
    (line as u64 + 1, column as u64 + 1)
}

/// One expected finding: its rule, the end of its target, its field and where the
/// value starts.
struct Expect {
    rule: &'static str,
    target_ends: &'static str,
    field: &'static str,
    at: (u64, u64),
}

/// Scan the home, then check each expected finding is reported; with
/// `structured`, also its `field`, `line` and `column`.
fn check(env: &Env, expect: &[Expect], structured: bool) {
    let run = env.doctor(&["--json"]);
    let records = run.jsonl();
    for e in expect {
        let found: Vec<&Value> = records
            .iter()
            .filter(|r| {
                r["rule_id"] == e.rule
                    && r["target"]
                        .as_str()
                        .is_some_and(|t| t.ends_with(e.target_ends))
            })
            .collect();
        assert_eq!(
            found.len(),
            1,
            "{} at {}: {}",
            e.rule,
            e.target_ends,
            run.all()
        );
        if structured {
            let r = found[0];
            assert_eq!(r["field"], e.field, "{r}");
            assert_eq!(r["line"], e.at.0, "{r}");
            assert_eq!(r["column"], e.at.1, "{r}");
        }
    }
}

fn json_home() -> (Env, Vec<Expect>) {
    let env = Env::new();
    let text = format!(
        "{{\n  \"mcpServers\": {{\n    \"slack\": {{\n      \"command\": \"node\",\n      \"args\": [\"server.js\"],\n      \"env\": {{\n        \"SLACK_TOKEN\": \"{SLACK}\"\n      }}\n    }},\n    \"pkg\": {{\"command\": \"npx\", \"args\": [\"-y\", \"@scope/server\"]}},\n    \"web\": {{\"url\": \"http://mcp.example.com/mcp\", \"headers\": {{\"Authorization\": \"Bearer ${{T}}\"}}}}\n  }}\n}}\n"
    );
    env.write("home/.cursor/mcp.json", &text);
    let expect = vec![
        Expect {
            rule: "WRD-SEC-SLACK",
            target_ends: "#slack",
            field: "env.SLACK_TOKEN",
            at: (7, 24),
        },
        Expect {
            rule: "WRD-SUP-NPX-UNPINNED",
            target_ends: "#pkg",
            field: "args[1]",
            at: position_of(&text, "\"@scope", ""),
        },
        Expect {
            rule: "WRD-AUTH-PLAINTEXT-HTTP",
            target_ends: "#web",
            field: "url",
            at: position_of(&text, "\"http://", ""),
        },
    ];
    assert_eq!(position_of(&text, "\"xoxb", ""), (7, 24));
    (env, expect)
}

fn other_formats_home() -> (Env, Vec<Expect>) {
    let env = Env::new();
    let windsurf = "{\"mcpServers\": {\"w\": {\"serverUrl\": \"http://mcp.example.com/sse\", \"headers\": {\"Authorization\": \"Bearer ${T}\"}}}}";
    env.write("home/.codeium/windsurf/mcp_config.json", windsurf);
    let codex = format!(
        "[mcp_servers.remote]\nurl = \"https://mcp.example.com/mcp\"\nhttp_headers = {{ \"X-Api-Key\" = \"{SLACK}\" }}\n"
    );
    env.write("home/.codex/config.toml", &codex);
    let vscode = "{\n  // servers\n  \"servers\": {\n    \"v\": { /* c */ \"type\": \"stdio\", \"command\": \"uvx\", \"args\": [ \"mcp-server-git\", ], },\n  },\n}\n";
    env.write("work/.vscode/mcp.json", vscode);
    let opencode =
        "{\"mcp\": {\"o\": {\"type\": \"local\", \"command\": [\"npx\", \"-y\", \"left-pad\"]}}}";
    env.write("home/.config/opencode/opencode.json", opencode);
    let expect = vec![
        Expect {
            rule: "WRD-AUTH-PLAINTEXT-HTTP",
            target_ends: "#w",
            field: "serverUrl",
            at: position_of(windsurf, "\"http", ""),
        },
        Expect {
            rule: "WRD-SEC-SLACK",
            target_ends: "#remote",
            field: "http_headers.X-Api-Key",
            at: position_of(&codex, "\"xoxb", ""),
        },
        Expect {
            rule: "WRD-SUP-UVX-UNPINNED",
            target_ends: "#v",
            field: "args[0]",
            at: position_of(vscode, "\"mcp-server-git\"", ""),
        },
        Expect {
            rule: "WRD-SUP-NPX-UNPINNED",
            target_ends: "#o",
            field: "command[2]",
            at: position_of(opencode, "\"left-pad\"", ""),
        },
    ];
    (env, expect)
}

/// Values on one line, CRLF, a BOM, wide characters before the value, escapes, and
/// a repeated key (the copy read is the last).
fn hostile_home() -> (Env, Vec<Expect>) {
    let env = Env::new();
    let text = format!(
        "\u{FEFF}{{\"mcpServers\": {{\r\n\"é😀\": {{\"command\": \"node\", \"args\": [\"a\\n\\u00e9\"], \"env\": {{\"A\": \"é\", \"B\": \"{SLACK}\"}}}},\r\n\"dup\": {{\"command\": \"node\", \"env\": {{\"T\": \"x\", \"T\": \"ghp_0123456789abcdefghijklmnopqrstuvwxyz\"}}}}}}}}"
    );
    env.write("work/.mcp.json", &text);
    let expect = vec![
        Expect {
            rule: "WRD-SEC-SLACK",
            target_ends: "#é😀",
            field: "env.B",
            at: position_of(&text, "\"xoxb", ""),
        },
        Expect {
            rule: "WRD-SEC-GITHUB",
            target_ends: "#dup",
            field: "env.T",
            at: position_of(&text, "\"ghp_", ""),
        },
    ];
    (env, expect)
}

#[test]
fn findings_are_reported_in_every_format() {
    for (env, expect) in [json_home(), other_formats_home(), hostile_home()] {
        check(&env, &expect, false);
    }
}

#[test]
fn json_findings_name_their_field_and_value_position() {
    let (env, expect) = json_home();
    check(&env, &expect, true);
}

#[test]
fn each_format_names_fields_as_the_file_spells_them() {
    let (env, expect) = other_formats_home();
    check(&env, &expect, true);
}

#[test]
fn hostile_layouts_keep_exact_value_positions() {
    let (env, expect) = hostile_home();
    check(&env, &expect, true);
}
