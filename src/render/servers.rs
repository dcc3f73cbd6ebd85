//! `doctor --servers`: the effective view (text, or one JSONL line per server with
//! `--json`), and the report header's per-client counts. Both print
//! [`crate::parent::effective::compute`], the one place that decides which server
//! starts.
//!
//! Every config-derived string (names, labels, key paths) goes through
//! [`crate::text::display`]; no env value, header or argument is printed at all.

use std::io::{self, Write};

use crate::engines::approval::SettingAt;
use crate::model::{Layer, Report};
use crate::parent::effective::{self, ClientView, Effective, Entry, Prompt, State, Why};
use crate::render::jsonl::push_json_string;
use crate::render::style::{paint, BOLD, YELLOW};
use crate::render::FLUSH_AT;
use crate::text::display;

/// What the view cannot show: files (or entries) that could not be read and files
/// skipped unread. A skip is never green, so the view and the counts say so.
pub fn unread_note(report: &Report) -> Option<String> {
    if report.hard_errors == 0 && report.skipped == 0 {
        return None;
    }
    let mut what = Vec::new();
    if report.hard_errors > 0 {
        what.push(format!(
            "{} config file(s) or entries could not be read",
            report.hard_errors
        ));
    }
    if report.skipped > 0 {
        what.push(format!("{} file(s) were skipped unread", report.skipped));
    }
    Some(format!(
        "incomplete: {} (each named in a warning); the servers and settings they hold are not counted",
        what.join(" and ")
    ))
}

/// `Claude Code: 3 servers would start (1 would prompt); Cursor: 2`, or `None` when
/// no client has a server; with [`unread_note`] when a file was not read.
pub fn header_counts(report: &Report, view: &Effective) -> Option<String> {
    let parts: Vec<String> = view
        .clients
        .iter()
        .enumerate()
        .map(|(i, client)| {
            let (starting, prompting) = client.counts();
            let mut part = if i == 0 {
                format!("{}: {starting} server(s) would start", client.name())
            } else {
                format!("{}: {starting}", client.name())
            };
            if prompting > 0 {
                part.push_str(&format!(" ({prompting} would prompt)"));
            }
            // A managed file that excludes the others changes what the whole list
            // above means: say so where it is read first.
            let excluded = client
                .entries
                .iter()
                .filter(|e| e.state == State::NotStarted(Why::ManagedExclusive))
                .count();
            if excluded > 0 {
                part.push_str(&format!(
                    " ({excluded} not loaded: managed-mcp.json has exclusive control)"
                ));
            }
            part
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    let mut line = parts.join("; ");
    if let Some(note) = unread_note(report) {
        line.push_str(&format!(" ({note})"));
    }
    Some(line)
}

fn layer_word(layer: Layer) -> &'static str {
    match layer {
        Layer::System => "system",
        Layer::User => "user",
        Layer::Project => "project",
        Layer::Local => "local",
        Layer::Managed => "managed",
        Layer::Explicit => "explicit",
    }
}

fn prompt_word(prompt: Prompt) -> &'static str {
    match prompt {
        Prompt::No => "no",
        Prompt::Asks => "yes",
        Prompt::NotKnown => "unknown",
    }
}

/// `<key> in <label>:<line>`.
fn setting_place(report: &Report, at: &SettingAt) -> String {
    let label = report
        .sources
        .get(at.source)
        .map_or("", |s| s.label.as_str());
    format!("{} in {}:{}", at.key, display(label), at.line)
}

/// Why a server does not start, in words (config text already displayed).
fn reason(report: &Report, why: &Why) -> String {
    let target = |i: usize| {
        report
            .servers
            .get(i)
            .map_or(String::new(), |s| display(&s.target).into_owned())
    };
    match why {
        Why::Disabled => "disabled in its file".into(),
        Why::DisabledInProject(at) => format!("skipped: listed in {}", setting_place(report, at)),
        Why::Rejected(at) => format!("rejected: listed in {}", setting_place(report, at)),
        Why::ManagedExclusive => "not loaded: managed-mcp.json has exclusive control".into(),
        Why::Overridden { by } => format!("overridden by {}", target(*by)),
        Why::MergedInto { by } => format!(
            "merged field by field into {} (fields it does not set come from here)",
            target(*by)
        ),
        Why::DisabledByMerge { by } => format!(
            "disabled: enabled = false in {} is merged into it",
            target(*by)
        ),
        Why::OtherProject => "loads only in sessions in that project directory".into(),
        Why::StartsNothing => {
            "its entry starts nothing (no command or URL this client uses)".into()
        }
        Why::Excluded(at) => format!("excluded: listed in {}", setting_place(report, at)),
        Why::NotAllowed(at) => format!("not allowed: not listed in {}", setting_place(report, at)),
    }
}

/// The file, key path and layer of an entry's server: `(label, key, layer)`.
fn origin(report: &Report, entry: &Entry) -> (String, String, &'static str) {
    let Some(server) = report.servers.get(entry.server) else {
        return (String::new(), String::new(), "");
    };
    let source = report.sources.get(server.source);
    (
        source.map_or(String::new(), |s| display(&s.label).into_owned()),
        display(&server.spec.origin.key.path()).into_owned(),
        source.map_or("", |s| layer_word(s.layer)),
    )
}

fn push_text_client(buf: &mut String, report: &Report, client: &ClientView, color: bool) {
    let (starting, prompting) = client.counts();
    buf.push_str(&format!(
        "{} — {starting} of {} server(s) would start{}\n",
        paint(color, BOLD, client.name()),
        client.entries.len(),
        if prompting > 0 {
            format!(" ({prompting} would prompt)")
        } else {
            String::new()
        }
    ));
    for entry in &client.entries {
        let name = report.servers.get(entry.server).map_or(String::new(), |s| {
            display(&s.spec.origin.key.name).into_owned()
        });
        let (label, key, layer) = origin(report, entry);
        let state = match &entry.state {
            State::Starts(Prompt::No) => paint(color, YELLOW, "starts without a prompt"),
            State::Starts(Prompt::Asks) => "would prompt before starting".to_string(),
            State::Starts(Prompt::NotKnown) => "starts".to_string(),
            State::NotStarted(why) => format!("not started: {}", reason(report, why)),
        };
        buf.push_str(&format!(
            "  {name}  {state}\n      from {label} {key} ({layer})\n"
        ));
        if let Some(note) = entry.note {
            buf.push_str(&format!("      note: {note}\n"));
        }
    }
}

/// The text view: one block per client; client names in bold and servers that
/// start without a prompt in yellow when `color` is on.
pub fn render_text(report: &Report, out: &mut dyn Write, color: bool) -> io::Result<()> {
    let view = effective::compute(report);
    let mut buf = String::new();
    buf.push_str(&format!(
        "MCP servers that would start in {} — per client, after precedence, managed files, disabled flags and approvals\n",
        display(&report.cwd.to_string_lossy())
    ));
    let unread = unread_note(report);
    if view.clients.is_empty() {
        buf.push_str(if unread.is_some() {
            "  no server in the files that could be read\n"
        } else {
            "  no server configured\n"
        });
    }
    for client in &view.clients {
        push_text_client(&mut buf, report, client, color);
        if buf.len() >= FLUSH_AT {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    if let Some(note) = unread {
        buf.push_str(&format!("{note}\n"));
    }
    out.write_all(buf.as_bytes())
}

fn push_json_line(
    buf: &mut Vec<u8>,
    report: &Report,
    client: &ClientView,
    entry: &Entry,
) -> io::Result<()> {
    let target = report
        .servers
        .get(entry.server)
        .map_or(String::new(), |s| display(&s.target).into_owned());
    let name = report.servers.get(entry.server).map_or(String::new(), |s| {
        display(&s.spec.origin.key.name).into_owned()
    });
    let (label, key, layer) = origin(report, entry);
    buf.extend_from_slice(b"{\"kind\": \"effective\", \"client\": ");
    push_json_string(buf, client.name())?;
    for (field, value) in [
        ("name", name.as_str()),
        ("target", target.as_str()),
        ("file", label.as_str()),
        ("key", key.as_str()),
        ("layer", layer),
    ] {
        buf.extend_from_slice(b", \"");
        buf.extend_from_slice(field.as_bytes());
        buf.extend_from_slice(b"\": ");
        push_json_string(buf, value)?;
    }
    let (starts, prompt, why) = match &entry.state {
        State::Starts(p) => (true, Some(prompt_word(*p)), None),
        State::NotStarted(why) => (false, None, Some(reason(report, why))),
    };
    buf.extend_from_slice(if starts {
        b", \"starts\": true, \"prompt\": "
    } else {
        b", \"starts\": false, \"prompt\": "
    });
    match prompt {
        Some(p) => push_json_string(buf, p)?,
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b", \"reason\": ");
    match &why {
        Some(w) => push_json_string(buf, w)?,
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b", \"note\": ");
    match entry.note {
        Some(n) => push_json_string(buf, n)?,
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b"}\n");
    Ok(())
}

/// `--servers --json`: one `{"kind": "effective", …}` line per server per client,
/// then, when a file was not read, one `{"kind": "incomplete", …}` line.
pub fn render_jsonl(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let view = effective::compute(report);
    let mut buf = Vec::new();
    for client in &view.clients {
        for entry in &client.entries {
            push_json_line(&mut buf, report, client, entry)?;
            if buf.len() >= FLUSH_AT {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
    }
    if let Some(note) = unread_note(report) {
        buf.extend_from_slice(
            format!(
                "{{\"kind\": \"incomplete\", \"unreadable\": {}, \"skipped\": {}, \"message\": ",
                report.hard_errors, report.skipped
            )
            .as_bytes(),
        );
        push_json_string(&mut buf, &note)?;
        buf.extend_from_slice(b"}\n");
    }
    out.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::approval::tests::Fixture;
    use crate::model::Client;

    fn fixture() -> Fixture {
        let mut f = Fixture::new("/w/repo");
        let user = f.source(
            Client::ClaudeCode,
            Layer::User,
            "~/.claude.json",
            None,
            vec![],
        );
        let project = f.source(
            Client::ClaudeCode,
            Layer::Project,
            "/w/repo/.mcp.json",
            Some("/w/repo"),
            vec![],
        );
        let cursor = f.source(
            Client::Cursor,
            Layer::User,
            "~/.cursor/mcp.json",
            None,
            vec![],
        );
        f.server(user, "gh");
        let p = f.server(project, "evil\u{1b}[2J");
        std::sync::Arc::make_mut(&mut f.report.servers[p].spec.declared).env = vec![(
            "API_TOKEN".into(),
            "sk-live-9f8e7d6c5b4a3e2d1c0b9a8f".into(),
        )];
        f.server(cursor, "a");
        f.server(cursor, "b");
        f
    }

    #[test]
    fn header_counts_per_client() {
        let f = fixture();
        let view = effective::compute(&f.report);
        assert_eq!(
            header_counts(&f.report, &view).as_deref(),
            Some("Claude Code: 2 server(s) would start (1 would prompt); Cursor: 2")
        );
        assert_eq!(header_counts(&f.report, &Effective::default()), None);
    }

    #[test]
    fn text_and_jsonl_neutralise_names_and_print_no_values() {
        let f = fixture();
        let mut text = Vec::new();
        render_text(&f.report, &mut text, false).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8(text).unwrap_or_default();
        assert!(
            text.contains("Claude Code — 2 of 2 server(s) would start (1 would prompt)"),
            "{text}"
        );
        assert!(text.contains("would prompt before starting"), "{text}");
        let mut json = Vec::new();
        render_jsonl(&f.report, &mut json).unwrap_or_else(|e| panic!("{e}"));
        let json = String::from_utf8(json).unwrap_or_default();
        for out in [&text, &json] {
            assert!(!out.contains('\u{1b}'), "{out}");
            assert!(
                !out.contains("sk-live") && !out.contains("API_TOKEN"),
                "{out}"
            );
        }
        let lines: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_default())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1]["prompt"], "yes");
        assert_eq!(lines[1]["layer"], "project");
        assert_eq!(
            lines[1]["key"]
                .as_str()
                .map(|k| k.starts_with("mcpServers.evil")),
            Some(true)
        );
        assert_eq!(lines[2]["client"], "Cursor");
        assert_eq!(lines[2]["prompt"], "unknown");
        assert_eq!(lines[0]["reason"], serde_json::Value::Null);
    }
}
