//! The report's bytes: doctor's text report in size and shape (sources, a findings
//! table, a pin command and a CI check step per server), or one JSON line per server.
//!
//! The audit is a stand-in: every server gets doctor's "no warden.lock" finding (the
//! floor reads no locks), and the servers that pass env or header names are counted.
//! Table cells wrap after a space, `/` or `#` at a fixed width counted in chars (doctor
//! lays the table out by display width for the terminal). Printed text has its
//! control characters replaced and shell words are quoted, so nothing printed runs
//! anything but what it says.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;

use crate::wire::{Section, Server};

const RULE: &str = "WRD-DOCTOR-NO-LOCK";
const MESSAGE: &str =
    "no warden.lock pins this server's declared surface; run the pin command below";
const SEVERITY: &str = "low";
const SOURCE: &str = "~/.claude.json";
/// Column widths of the findings table on an 80-column terminal.
const WIDTHS: [usize; 4] = [8, 18, 20, 21];
const HEADINGS: [&str; 4] = ["severity", "rule", "server", "message"];
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
    // About 720 bytes per server, as doctor's report on the large home.
    out.reserve(4096 + servers * 768 + sections.len() * 96);
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
        let _ = write!(s, "  ({} server(s))", section.servers.len());
        line(out, &mut s);
    }
    let _ = write!(s, "  parsed in a sandbox: {confinement}");
    line(out, &mut s);

    let _ = write!(s, "Posture findings ({servers})");
    line(out, &mut s);
    border(out, '┌', '┬', '┐');
    row(out, HEADINGS);
    border(out, '├', '┼', '┤');
    let mut target = String::new();
    for (section, server) in each_server(sections) {
        display(section, server, &mut target);
        row(out, [SEVERITY, RULE, &target, MESSAGE]);
    }
    border(out, '└', '┴', '┘');

    let _ = write!(
        s,
        "\nNext steps — {servers} server(s) have no warden.lock. Pin each once, commit the \
         lock, then wire the check into CI:"
    );
    line(out, &mut s);
    let mut launch = String::new();
    for ((section, server), lock) in each_server(sections).zip(&locks) {
        display(section, server, &mut target);
        s.push_str("  # ");
        shell_word(&target, &mut s);
        line(out, &mut s);
        launch_words(server, &mut launch);
        let _ = write!(
            s,
            "  mcp-warden pin {launch} --approve --approver you@example.com --lock {lock}"
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
        let _ = write!(s, "      - name: Check {lock}\n        run: |");
        line(out, &mut s);
        match server.url.as_deref() {
            Some(url) => {
                s.push_str("          mcp-warden check --url ");
                shell_word(&printable(url), &mut s);
                let _ = write!(s, " --lock {lock}");
            }
            None => {
                launch_words(server, &mut launch);
                let _ = write!(s, "          mcp-warden check --lock {lock} {launch}");
            }
        }
        line(out, &mut s);
    }
}

/// One JSON line per server: doctor's finding record.
pub fn json(sections: &[Section<'_>], out: &mut Vec<u8>) {
    let servers: usize = sections.iter().map(|s| s.servers.len()).sum();
    out.reserve(servers * 288);
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
        out.extend_from_slice(b"}\n");
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

fn border(out: &mut Vec<u8>, left: char, middle: char, right: char) {
    let mut s = String::new();
    s.push(left);
    for (i, w) in WIDTHS.iter().enumerate() {
        if i > 0 {
            s.push(middle);
        }
        s.extend(std::iter::repeat_n('─', w + 2));
    }
    s.push(right);
    s.push('\n');
    out.extend_from_slice(s.as_bytes());
}

/// One table row: each cell wrapped to its column, the row as tall as its tallest cell.
fn row(out: &mut Vec<u8>, cells: [&str; 4]) {
    let wrapped = [
        wrap(cells[0], WIDTHS[0]),
        wrap(cells[1], WIDTHS[1]),
        wrap(cells[2], WIDTHS[2]),
        wrap(cells[3], WIDTHS[3]),
    ];
    let height = wrapped.iter().map(Lines::len).max().unwrap_or(1);
    for i in 0..height {
        out.extend_from_slice("│".as_bytes());
        for (cell, width) in wrapped.iter().zip(WIDTHS) {
            let text = cell.get(i);
            out.push(b' ');
            out.extend_from_slice(text.as_bytes());
            let used = if text.is_ascii() {
                text.len()
            } else {
                text.chars().count()
            };
            out.resize(out.len() + width.saturating_sub(used), b' ');
            out.extend_from_slice(" │".as_bytes());
        }
        out.push(b'\n');
    }
}

/// A cell's lines (a cell of this report wraps to a few lines; more are kept in a Vec).
struct Lines<'t> {
    first: [&'t str; 8],
    more: Vec<&'t str>,
    len: usize,
}

impl<'t> Lines<'t> {
    fn push(&mut self, line: &'t str) {
        if let Some(slot) = self.first.get_mut(self.len) {
            *slot = line;
        } else {
            self.more.push(line);
        }
        self.len += 1;
    }
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, i: usize) -> &'t str {
        match self.first.get(i) {
            Some(line) if i < self.len => line,
            Some(_) => "",
            None => self.more.get(i - self.first.len()).copied().unwrap_or(""),
        }
    }
}

/// `text` broken into lines of at most `width` chars, after a space, `/` or `#` where
/// one falls within the line, else at the width.
fn wrap(text: &str, width: usize) -> Lines<'_> {
    let mut lines = Lines {
        first: [""; 8],
        more: Vec::new(),
        len: 0,
    };
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len();
        let mut after_break = None;
        for (count, (i, c)) in rest.char_indices().enumerate() {
            if count == width {
                end = i;
                break;
            }
            if matches!(c, ' ' | '/' | '#') {
                after_break = Some(i + c.len_utf8());
            }
        }
        if end == rest.len() {
            lines.push(rest);
            break;
        }
        let cut = if rest[end..].starts_with(' ') {
            end
        } else {
            after_break.unwrap_or(end)
        };
        lines.push(rest[..cut].trim_end_matches(' '));
        rest = rest[cut..].trim_start_matches(' ');
    }
    if lines.len == 0 {
        lines.push("");
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_wrap_like_doctors_table() {
        let w = wrap("~/.claude.json#projects[/home/dev/src/project-0]#s0-0", 20);
        let lines: Vec<&str> = (0..w.len()).map(|i| w.get(i)).collect();
        assert_eq!(
            lines,
            [
                "~/.claude.json#",
                "projects[/home/dev/",
                "src/project-0]#s0-0"
            ]
        );
        let w = wrap(MESSAGE, 21);
        let lines: Vec<&str> = (0..w.len()).map(|i| w.get(i)).collect();
        assert_eq!(
            lines,
            [
                "no warden.lock pins",
                "this server's",
                "declared surface; run",
                "the pin command below"
            ]
        );
        let long = "x".repeat(200);
        let w = wrap(&long, 8);
        assert_eq!(w.len(), 25);
        assert_eq!(w.get(24), "xxxxxxxx");
    }

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
