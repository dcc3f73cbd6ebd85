//! The report's bytes: doctor's text report in size and shape (sources, a pin command
//! and a CI check step per server, a summary), or one JSON finding line per server.
//!
//! The audit is a stand-in: every server gets doctor's "no warden.lock" finding (the
//! floor reads no locks), and the servers that pass env or header names are counted.
//! Lines are laid out for 80 columns counted in chars (doctor counts display width
//! and groups servers that share a launch under one pin line). Printed text has its
//! control characters replaced and shell words are quoted, so nothing printed runs
//! anything but what it says.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;

use crate::wire::{Section, Server};

const MESSAGE: &str =
    "no warden.lock pins this server's declared surface; run the pin command below";
const SOURCE: &str = "~/.claude.json";
/// The terminal width the report is laid out for.
const WIDTH: usize = 80;
const CI_HEADER: &str = "\
# .github/workflows/mcp-warden.yml
name: mcp-warden
on: [push, pull_request]
permissions:
  contents: read
jobs:
  mcp-check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
      - name: Install mcp-warden
        run: cargo install mcp-warden-cli --locked --version =0.1.0
";

/// The text report.
pub fn text(sections: &[Section<'_>], confinement: &str, out: &mut Vec<u8>) {
    let servers: usize = sections.iter().map(|s| s.servers.len()).sum();
    let locks = lock_names(sections);
    let credentials = sections
        .iter()
        .flat_map(|s| &s.servers)
        .filter(|s| !s.env_keys.is_empty() || !s.header_names.is_empty())
        .count();
    // About 440 bytes per server, as doctor's report on the large home.
    out.reserve(4096 + servers * 512 + sections.len() * 96);
    let mut s = String::new();

    let _ = write!(
        s,
        "MCP posture — {} config source(s), {servers} server(s)",
        sections.len()
    );
    line(out, &mut s);
    let _ = write!(
        s,
        "  Claude Code: {servers} server(s); {credentials} pass env or header names"
    );
    line(out, &mut s);
    for section in sections {
        s.push_str("  Claude Code  ");
        source(section, &mut s);
        let count = format!("({} server(s))", section.servers.len());
        // A source line longer than the terminal continues on the next one.
        if s.chars().count() + 2 + count.len() > WIDTH {
            line(out, &mut s);
            s.push_str("  │ ");
        } else {
            s.push_str("  ");
        }
        s.push_str(&count);
        line(out, &mut s);
    }
    let _ = write!(s, "  parsed in a sandbox: {confinement}");
    line(out, &mut s);
    let _ = write!(
        s,
        "no posture findings; {servers} server(s) have no warden.lock: pin each with its \
         line\n  under Next steps\n\nNext steps — {servers} servers have no warden.lock. Pin\n  \
         each once, commit the lock, then wire the check into CI:"
    );
    line(out, &mut s);
    let mut target = String::new();
    let mut launch = String::new();
    let mut env = String::new();
    for ((section, server), lock) in each_server(sections).zip(&locks) {
        display(section, server, &mut target);
        s.push_str("  # ");
        shell_word(&target, &mut s);
        line(out, &mut s);
        launch_words(server, &mut launch);
        env_flags(server, &mut env);
        let _ = write!(
            s,
            "  mcp-warden pin {launch}{env} --approve --approver you@example.com --lock {lock}"
        );
        line(out, &mut s);
    }
    out.extend_from_slice(
        b"  (env values are never printed: export the ones a server needs in your shell \
          before pinning it)\n\nThen in CI (one check step per pinned server), e.g. as \
          .github/workflows/mcp-warden.yml:\n",
    );
    out.extend_from_slice(CI_HEADER.as_bytes());
    for ((_, server), lock) in each_server(sections).zip(&locks) {
        let _ = write!(s, "      - name: Check {lock}");
        line(out, &mut s);
        if !server.env_keys.is_empty() || !server.header_names.is_empty() {
            s.push_str("        env:");
            line(out, &mut s);
            for key in &server.env_keys {
                let key = printable(key);
                let _ = write!(s, "          {key}: ${{{{ secrets.{key} }}}}");
                line(out, &mut s);
            }
            for (i, name) in server.header_names.iter().enumerate() {
                let _ = write!(
                    s,
                    "          MCP_WARDEN_HEADER_{i}: '{}: ${{{{ secrets.MCP_WARDEN_HEADER_{i} }}}}'",
                    printable(name)
                );
                line(out, &mut s);
            }
        }
        s.push_str("        run: |");
        line(out, &mut s);
        match server.url.as_deref() {
            Some(url) => {
                s.push_str("          mcp-warden check --url ");
                shell_word(&printable(url), &mut s);
                for i in 0..server.header_names.len() {
                    let _ = write!(s, " --header \"$MCP_WARDEN_HEADER_{i}\"");
                }
                let _ = write!(s, " --lock {lock}");
            }
            None => {
                launch_words(server, &mut launch);
                env_flags(server, &mut env);
                let _ = write!(s, "          mcp-warden check --lock {lock}{env} {launch}");
            }
        }
        line(out, &mut s);
    }
    let _ = write!(
        s,
        "\nSummary: {servers} server(s) in 1 config file(s); {servers} finding(s): {servers} low;\n  \
         0 suppressed;\n  {servers} without an approved lock ({servers} with none, under Next \
         steps);\n  every file was scanned\nexit 0: the floor's findings do not fail its run"
    );
    line(out, &mut s);
}

/// One JSON line per server: doctor's finding record.
pub fn json(sections: &[Section<'_>], out: &mut Vec<u8>) {
    let servers: usize = sections.iter().map(|s| s.servers.len()).sum();
    out.reserve(servers * 448);
    let mut target = String::new();
    for (section, server) in each_server(sections) {
        display(section, server, &mut target);
        out.extend_from_slice(
            br#"{"kind": "finding", "rule_id": "WRD-DOCTOR-NO-LOCK", "severity": "low", "level": "note", "target": "#,
        );
        json_string(&target, out);
        out.extend_from_slice(br#", "message": ""#);
        out.extend_from_slice(MESSAGE.as_bytes());
        out.extend_from_slice(br#"", "snippet": "#);
        json_string(&server.name, out);
        out.extend_from_slice(br#", "file": "~/.claude.json", "server": "#);
        json_string(&server.name, out);
        out.extend_from_slice(br#", "project": "#);
        match &section.project {
            Some(project) => json_string(project, out),
            None => out.extend_from_slice(b"null"),
        }
        // The floor resolves no positions (doctor's records carry line and column).
        out.extend_from_slice(
            br#", "field": null, "line": null, "column": null, "suppressed": null}"#,
        );
        out.push(b'\n');
    }
}

/// Moves the line in `s` to `out`, ended by a newline.
fn line(out: &mut Vec<u8>, s: &mut String) {
    out.extend_from_slice(s.as_bytes());
    out.push(b'\n');
    s.clear();
}

fn each_server<'s, 'a>(
    sections: &'s [Section<'a>],
) -> impl Iterator<Item = (&'s Section<'a>, &'s Server<'a>)> {
    sections
        .iter()
        .flat_map(|section| section.servers.iter().map(move |server| (section, server)))
}

/// `~/.claude.json` or `~/.claude.json#projects[PATH]`.
fn source(section: &Section<'_>, out: &mut String) {
    out.push_str(SOURCE);
    if let Some(project) = &section.project {
        out.push_str("#projects[");
        out.push_str(&printable(project));
        out.push(']');
    }
}

/// The server as doctor names it: its source, `#`, its name.
fn display(section: &Section<'_>, server: &Server<'_>, out: &mut String) {
    out.clear();
    source(section, out);
    out.push('#');
    out.push_str(&printable(&server.name));
}

/// The launch as shell words: the command and its arguments, or `--url URL`.
fn launch_words(server: &Server<'_>, out: &mut String) {
    out.clear();
    if let Some(url) = &server.url {
        out.push_str("--url ");
        shell_word(&printable(url), out);
        return;
    }
    for (i, word) in server.command.iter().chain(&server.args).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        shell_word(&printable(word), out);
    }
}

/// ` --env NAME` for each env name the server passes.
fn env_flags(server: &Server<'_>, out: &mut String) {
    out.clear();
    for key in &server.env_keys {
        out.push_str(" --env ");
        shell_word(&printable(key), out);
    }
}

/// One lock file name per server, in report order: the name's slug, made unique.
fn lock_names(sections: &[Section<'_>]) -> Vec<String> {
    let mut taken = HashSet::new();
    let mut names = Vec::with_capacity(sections.iter().map(|s| s.servers.len()).sum());
    for (_, server) in each_server(sections) {
        let slug: String = server
            .name
            .chars()
            .map(|c| match c {
                'a'..='z' | '0'..='9' | '-' | '_' | '.' => c,
                'A'..='Z' => c.to_ascii_lowercase(),
                _ => '-',
            })
            .collect();
        let slug = slug.trim_matches(['-', '.']);
        let slug = if slug.is_empty() { "server" } else { slug };
        let mut name = format!("{slug}.warden.lock");
        let mut n = 2u32;
        while !taken.insert(name.clone()) {
            name = format!("{slug}-{n}.warden.lock");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// `text` with every control character replaced by `?`.
pub fn printable(text: &str) -> Cow<'_, str> {
    let suspect = |b: u8| !(0x20..0x7f).contains(&b);
    if !text.bytes().any(suspect) || !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect(),
    )
}

/// `word` as one POSIX shell word: bare when it has only safe characters, else in
/// single quotes.
fn shell_word(word: &str, out: &mut String) {
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&b);
    if !word.is_empty() && word.bytes().all(safe) {
        out.push_str(word);
        return;
    }
    out.push('\'');
    for (i, part) in word.split('\'').enumerate() {
        if i > 0 {
            out.push_str("'\\''");
        }
        out.push_str(part);
    }
    out.push('\'');
}

/// `text` as a JSON string.
fn json_string(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f | 0x7f => b"",
            _ => continue,
        };
        out.extend_from_slice(&text.as_bytes()[start..i]);
        if escape.is_empty() {
            let _ = std::io::Write::write_fmt(out, format_args!("\\u{b:04x}"));
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(&text.as_bytes()[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_words_cannot_run_anything_else() {
        let mut s = String::new();
        shell_word("a'b; rm -rf ~", &mut s);
        assert_eq!(s, r"'a'\''b; rm -rf ~'");
        assert_eq!(printable("a\u{1b}[2Jb\n"), "a?[2Jb?");
        let mut out = Vec::new();
        json_string("q\"\\\u{1}", &mut out);
        assert_eq!(out, br#""q\"\\\u0001""#);
    }
}
