//! Variable expansion, in each client's own syntax, with every variable unset
//! ([`expand`], for the audit) or from a real environment ([`expand_with`], for
//! `doctor --pin`, which starts the server as its client would on this machine).
//!
//! doctor never reads the user's environment into a verdict: a launch is audited
//! as the client would start it on a machine where none of the variables it names
//! is set. Defaults apply (`${RUNNER:-npx}` is `npx`), and values the client knows
//! without the environment (`${workspaceFolder}`, `${userHome}`) are filled in when
//! doctor knows them too. Everything else is left as the client leaves it: as the
//! literal reference, or as the empty string where the client's rule says so.
//! Every reference is recorded, so that a launch whose command or URL depends on
//! one is flagged (`WRD-DOCTOR-VARIABLE-LAUNCH`).
//!
//! The rules, per client (sources in `docs/clients.md`):
//!
//! | Syntax | Client | Unset |
//! |---|---|---|
//! | `${VAR}`, `${VAR:-default}` | Claude Code | default (up to a second `:-`, as `split(':-', 2)` cuts it), else the literal `${VAR}` |
//! | `${env:VAR}`, `${input:…}`, `${command:…}`, `${config:…}`, `${workspaceFolder}`, `${userHome}`, `${pathSeparator}`, `${/}` | VS Code | `env:` is empty; `input:`/`command:`/`config:` stay literal (the client prompts or computes them) |
//! | `${env:VAR}`, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}`, `${/}` | Cursor | `env:` is empty |
//! | `${env:VAR}`, `${file:/path}` | Windsurf | literal (the client's rule is not documented) |
//! | `$VAR`, `${VAR}` | Gemini CLI | literal |
//! | `${env:VAR}` (any text up to `}`), every string and key | Cline | literal |
//! | `${env:VAR}` (`VAR` of `[A-Za-z0-9_]`), `${workspaceFolder}` (backslashes made `/`), every string and key; `${userHome}` and VS Code's other predefined variables in some releases | Roo Code | `env:` literal; the workspace filled in when known; the predefined variables recorded and left as written |
//! | `{env:VAR}` (no `$`), `{file:path}`, the whole file text | OpenCode | `env:` is empty; `file:` reads a file doctor does not read: left as written |
//! | `${{ secrets.NAME }}`, `${{ inputs.NAME }}`; `${VAR}` in a JSON file's `env` (made a secret) | Continue | literal (resolved from Continue's secret store) |
//! | `${env:VAR}` in `env` values | Amazon Q Developer | `${VAR}` (the code's fallback), other fields left as written |
//! | `${VAR}` (documented in `env`) | Kiro, GitHub Copilot CLI | literal (rule not known) |
//! | `${__dirname}`, `${HOME}`, `${pathSeparator}`, `${/}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}`, `${user_config.KEY}` | Claude Desktop (extension) | `__dirname` is the extension's directory and `HOME` the home directory when known; the others stay literal |
//! | none | Claude Desktop, Codex, VS Code's `.mcp.json` reader, Zed | — |
//!
//! Where a client's rule for a form is not known, the text is left as written and
//! the reference still recorded: the launch audited is the literal one, and a
//! command that depends on the reference is flagged. Every scanner is one pass
//! over the text (a hostile entry with thousands of references stays linear), and
//! at most [`MAX_RECORDED_REFS`] references are kept per launch.

use std::borrow::Cow;

use super::Reader;

/// What doctor knows without reading the environment.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// The home directory, for `${userHome}`.
    pub home: Option<String>,
    /// The workspace folder the file belongs to (project files only); for a
    /// Claude Desktop extension's manifest, the extension's directory
    /// (`${__dirname}`).
    pub workspace: Option<String>,
    /// `/` or `\`.
    pub separator: char,
}

/// What an unset `${env:NAME}` becomes. VS Code documents the empty string;
/// Cursor's and Windsurf's rule is not documented, so each of their entries is
/// read both ways (`crate::reading`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnsetEnv {
    Empty,
    Literal,
}

/// Which field of an entry a string comes from (some clients expand only some).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Command,
    Arg,
    EnvKey,
    EnvValue,
    Cwd,
    Url,
    HeaderKey,
    HeaderValue,
}

/// Expand one string the way `reader` does; references found are appended to `refs`.
/// Borrowed when the expansion leaves the text as it is (no reference, or only
/// references the client keeps literally).
pub fn expand<'t>(
    reader: Reader,
    unset: UnsetEnv,
    field: Field,
    text: &'t str,
    known: &Known,
    refs: &mut Vec<String>,
) -> Cow<'t, str> {
    // OpenCode's references have no `$`.
    let marker = if reader == Reader::OpenCode { '{' } else { '$' };
    if !text.contains(marker) {
        return Cow::Borrowed(text);
    }
    let out = expand_owned(reader, unset, field, text, known, &|_| None, refs);
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// A variable's value, or `None` when it is unset.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Expand one string the way `reader` does when `lookup` answers for the
/// environment: a set variable becomes its value, an unset one what the client's
/// rule makes of it (as in [`expand`]). Secret stores a client resolves itself
/// (Continue's `${{ secrets.… }}`) and files it reads (`${file:…}`) stay as written.
pub fn expand_with(
    reader: Reader,
    unset: UnsetEnv,
    field: Field,
    text: &str,
    known: &Known,
    lookup: Lookup<'_>,
) -> String {
    let mut refs = Vec::new();
    expand_owned(reader, unset, field, text, known, lookup, &mut refs)
}

fn expand_owned(
    reader: Reader,
    unset: UnsetEnv,
    field: Field,
    text: &str,
    known: &Known,
    lookup: Lookup<'_>,
    refs: &mut Vec<String>,
) -> String {
    let env = |name: &str| {
        lookup(name).or(match (reader, unset) {
            (Reader::VsCode, _) | (_, UnsetEnv::Empty) => Some(String::new()),
            (_, UnsetEnv::Literal) => None,
        })
    };
    match reader {
        // `varContent.split(':-', 2)`: JavaScript's split with a limit keeps the
        // first two pieces, so the default ends at a second `:-`. A set variable
        // wins over the default.
        Reader::ClaudeCode => braced(text, refs, |inner| {
            let name = inner.split_once(":-").map_or(inner, |(name, _)| name);
            if let Some(value) = lookup(name) {
                return Some(value);
            }
            let (_, rest) = inner.split_once(":-")?;
            Some(rest.split(":-").next().unwrap_or_default().to_string())
        }),
        // A reference whose text holds `${` is not resolved (no nesting).
        Reader::VsCode | Reader::Cursor => braced(text, refs, |inner| {
            if inner.contains("${") {
                return None;
            }
            if let Some(name) = inner.strip_prefix("env:") {
                return env(name);
            }
            match inner {
                "userHome" => known.home.clone(),
                "workspaceFolder" => known.workspace.clone(),
                "workspaceFolderBasename" => known.workspace.as_deref().map(|w| {
                    w.trim_end_matches(known.separator)
                        .rsplit(known.separator)
                        .next()
                        .unwrap_or_default()
                        .to_string()
                }),
                "pathSeparator" | "/" => Some(known.separator.to_string()),
                _ => None,
            }
        }),
        // `${file:…}` reads a file doctor does not read: left as written.
        Reader::Windsurf => braced(text, refs, |inner| match inner.strip_prefix("env:") {
            Some(name) if !inner.contains("${") => env(name),
            _ => None,
        }),
        Reader::GeminiCli => {
            let braced_refs = braced(text, refs, lookup);
            bare_refs(&braced_refs, refs, lookup)
        }
        // `substituteEnvironmentVariables`: `/\$\{env:([^}]+)\}/g`, an unset
        // variable keeps its placeholder. Other `${…}` are not references.
        Reader::Cline => braced_matching(
            text,
            refs,
            |inner| inner.strip_prefix("env:").is_some_and(|n| !n.is_empty()),
            |inner| inner.strip_prefix("env:").and_then(lookup),
        ),
        // `injectVariables(config, { env: process.env, workspaceFolder })` on the
        // JSON text: `${env:\w+}` (unset: the match is kept), then
        // `${workspaceFolder}` with backslashes made `/` (`toPosix`).
        // Some releases also fill VS Code's predefined variables
        // (`resolveVSCodeVariables`): recorded, so a command holding one is
        // flagged, and left as written.
        Reader::RooCode => braced_matching(
            text,
            refs,
            |inner| {
                inner == "workspaceFolder"
                    || ROO_PREDEFINED.contains(&inner)
                    || inner.strip_prefix("env:").is_some_and(|n| {
                        !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    })
            },
            |inner| match inner {
                "workspaceFolder" => known.workspace.as_deref().map(|w| w.replace('\\', "/")),
                _ => inner.strip_prefix("env:").and_then(lookup),
            },
        ),
        Reader::OpenCode => opencode(text, refs, lookup),
        Reader::Continue => {
            let templates = continue_templates(text, refs);
            // A JSON server file's `env` values: `${VAR}` becomes a secret.
            if field == Field::EnvValue {
                braced_matching(
                    &templates,
                    refs,
                    |inner| !inner.is_empty() && !inner.starts_with('{'),
                    |_| None,
                )
            } else {
                templates
            }
        }
        // `process_env_vars` on `env` values: an unset `${env:NAME}` becomes
        // `${NAME}`. The reference is recorded in every field (a command holding
        // one is flagged, whatever the field rule of a release).
        Reader::AmazonQ => braced_matching(
            text,
            refs,
            |inner| inner.strip_prefix("env:").is_some_and(|n| !n.is_empty()),
            |inner| match (field, inner.strip_prefix("env:")) {
                (_, Some(name)) if lookup(name).is_some() => lookup(name),
                (Field::EnvValue, Some(name)) => Some(format!("${{{name}}}")),
                _ => None,
            },
        ),
        Reader::Kiro | Reader::CopilotCli => braced(text, refs, lookup),
        Reader::ClaudeDesktopExtension => braced(text, refs, |inner| match inner {
            "__dirname" => known.workspace.clone(),
            "HOME" => known.home.clone(),
            "pathSeparator" | "/" => Some(known.separator.to_string()),
            _ => None,
        }),
        Reader::ClaudeDesktop | Reader::Codex | Reader::VsCodeWorkspace | Reader::Zed => {
            text.to_string()
        }
    }
}

/// VS Code's predefined variables that some Roo Code releases fill in besides
/// `${workspaceFolder}` (`resolveVSCodeVariables`).
const ROO_PREDEFINED: &[&str] = &[
    "workspaceFolderBasename",
    "workspaceRoot",
    "file",
    "fileWorkspaceFolder",
    "relativeFile",
    "relativeFileDirname",
    "fileBasename",
    "fileBasenameNoExtension",
    "fileExtname",
    "fileDirname",
    "fileDirnameBasename",
    "userHome",
    "pathSeparator",
    "lineNumber",
    "selectedText",
    "clipboardText",
];

/// Replace each `${inner}` (no nesting: the first `}` closes it) with what `value`
/// says, or leave it as written when `value` has nothing.
fn braced(text: &str, refs: &mut Vec<String>, value: impl Fn(&str) -> Option<String>) -> String {
    braced_matching(text, refs, |inner| !inner.is_empty(), value)
}

/// [`braced`] for the references `is_ref` accepts; any other `${…}` is plain text
/// (not recorded, never replaced).
fn braced_matching(
    text: &str,
    refs: &mut Vec<String>,
    is_ref: impl Fn(&str) -> bool,
    value: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut closes = Closes::new(text, '}');
    // `text[..done]` is in `out`; the next `${` is searched from `from`.
    let (mut done, mut from) = (0, 0);
    while let Some(at) = find_from(text, from, "${") {
        let Some(close) = closes.first_after(at + 2) else {
            break;
        };
        let inner = text.get(at + 2..close).unwrap_or_default();
        if is_ref(inner) {
            let whole = text.get(at..=close).unwrap_or_default();
            out.push_str(text.get(done..at).unwrap_or_default());
            record(refs, whole);
            match value(inner) {
                Some(v) => out.push_str(&v),
                None => out.push_str(whole),
            }
            done = close + 1;
            from = done;
        } else {
            // Not a reference: the `$` is text, and a reference may start right
            // after it (`${${env:X}}` holds one), as a regex scan would find it.
            from = at + 1;
        }
    }
    out.push_str(text.get(done..).unwrap_or_default());
    out
}

/// `text[from..]`'s first `needle`, as an index into `text`. A byte search: `str::find`
/// builds a two-way searcher on every call, and this runs for each reference of each
/// value. `needle` is UTF-8, so a match starts on a character boundary.
fn find_from(text: &str, from: usize, needle: &str) -> Option<usize> {
    let rest = text.as_bytes().get(from..)?;
    match needle.as_bytes() {
        [byte] => memchr::memchr(*byte, rest),
        bytes => memchr::memmem::find(rest, bytes),
    }
    .map(|i| from + i)
}

/// The closing characters of a text, found once: a scan that tries one opening
/// after another asks for the first close after each, and the text is read once in
/// all (a hostile `${${${…}` stays linear).
struct Closes<'t> {
    text: &'t str,
    close: char,
    /// The last answer: the first close at or after `.0`, if any.
    cached: Option<(usize, Option<usize>)>,
}

impl<'t> Closes<'t> {
    fn new(text: &'t str, close: char) -> Closes<'t> {
        Closes {
            text,
            close,
            cached: None,
        }
    }

    /// The first close at or after `from` (queries come in increasing order).
    fn first_after(&mut self, from: usize) -> Option<usize> {
        if let Some((start, found)) = self.cached {
            match found {
                Some(c) if start <= from && from <= c => return Some(c),
                None if start <= from => return None,
                _ => {}
            }
        }
        let found = find_from(self.text, from, self.close.encode_utf8(&mut [0; 4]));
        self.cached = Some((from, found));
        found
    }
}

/// OpenCode's `substitute`: every `{env:NAME}` (`[^}]+`) becomes the variable's
/// value or the empty string, then every `{file:path}` in the result is replaced by
/// that file's contents — a file doctor does not read, so it is left as written.
fn opencode(text: &str, refs: &mut Vec<String>, lookup: Lookup<'_>) -> String {
    let env = scan_prefixed(text, "{env:", |whole| {
        record(refs, whole);
        let name = whole
            .strip_prefix("{env:")
            .and_then(|n| n.strip_suffix('}'))
            .unwrap_or_default();
        Some(lookup(name).unwrap_or_default())
    });
    scan_prefixed(&env, "{file:", |whole| {
        record(refs, whole);
        None
    })
}

/// Replace each `<prefix>NAME}` (NAME non-empty, without `}`) with what `value`
/// returns for the whole match, or keep it. One left-to-right pass, as a global
/// regex replace does it.
fn scan_prefixed(
    text: &str,
    prefix: &str,
    mut value: impl FnMut(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut closes = Closes::new(text, '}');
    let (mut done, mut from) = (0, 0);
    while let Some(at) = find_from(text, from, prefix) {
        let start = at + prefix.len();
        match closes.first_after(start) {
            Some(close) if close > start => {
                let whole = text.get(at..=close).unwrap_or_default();
                out.push_str(text.get(done..at).unwrap_or_default());
                match value(whole) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(whole),
                }
                done = close + 1;
                from = done;
            }
            // No closing brace at all: nothing further can match.
            None => break,
            // `{env:}`: the `{` is text; scanning goes on after it.
            Some(_) => from = at + 1,
        }
    }
    out.push_str(text.get(done..).unwrap_or_default());
    out
}

/// Record Continue's `${{ … }}` templates (secrets and inputs, filled from its
/// secret store or the hub): left as written.
fn continue_templates(text: &str, refs: &mut Vec<String>) -> String {
    let mut rest = text;
    while let Some(at) = rest.find("${{") {
        let after = rest.get(at + 3..).unwrap_or_default();
        let Some(close) = after.find("}}") else {
            break;
        };
        record(refs, rest.get(at..at + 5 + close).unwrap_or_default());
        rest = after.get(close + 2..).unwrap_or_default();
    }
    text.to_string()
}

/// Most distinct references recorded per launch: enough to flag a varying command
/// and to name it (the command is expanded first), and bounded whatever a hostile
/// entry repeats.
pub const MAX_RECORDED_REFS: usize = 16;

fn record(refs: &mut Vec<String>, reference: &str) {
    if refs.len() < MAX_RECORDED_REFS && !refs.iter().any(|r| r == reference) {
        // Room for exactly one more: nearly every launch that names a variable names
        // one, and the list lives as long as the report (a first `push` would make
        // room for four, 72 bytes never used, for each of a large home's servers).
        refs.reserve_exact(1);
        refs.push(reference.to_string());
    }
}

/// Record `$NAME` references; each becomes its value when `lookup` has one, and
/// is left as written otherwise.
fn bare_refs(text: &str, refs: &mut Vec<String>, lookup: Lookup<'_>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut done) = (0, 0);
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'$') {
            let start = i;
            i += 1;
            while bytes
                .get(i)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                i += 1;
            }
            if i > start + 1 {
                let whole = text.get(start..i).unwrap_or_default();
                record(refs, whole);
                if let Some(value) = lookup(text.get(start + 1..i).unwrap_or_default()) {
                    out.push_str(text.get(done..start).unwrap_or_default());
                    out.push_str(&value);
                    done = i;
                }
            }
        } else {
            i += 1;
        }
    }
    out.push_str(text.get(done..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Known {
        Known {
            home: Some("/home/u".into()),
            workspace: Some("/home/u/proj".into()),
            separator: '/',
        }
    }

    fn run(reader: Reader, text: &str) -> (String, Vec<String>) {
        let mut refs = Vec::new();
        let out = expand(
            reader,
            UnsetEnv::Empty,
            Field::Arg,
            text,
            &known(),
            &mut refs,
        )
        .into_owned();
        (out, refs)
    }

    #[test]
    fn claude_code_applies_defaults_and_keeps_unset_references() {
        assert_eq!(run(Reader::ClaudeCode, "${RUNNER:-npx}").0, "npx");
        assert_eq!(
            run(Reader::ClaudeCode, "${PKG:-evil-pkg}@1").0,
            "evil-pkg@1"
        );
        assert_eq!(run(Reader::ClaudeCode, "${A:-}").0, "");
        assert_eq!(run(Reader::ClaudeCode, "${HOME}/x").0, "${HOME}/x");
        // One split on the first `:-`; no nesting: the first `}` closes.
        assert_eq!(run(Reader::ClaudeCode, "${A:-b:-c}").0, "b");
        assert_eq!(run(Reader::ClaudeCode, "${A:-${B:-sh}}").0, "${B}");
        assert_eq!(run(Reader::ClaudeCode, "${A:-${B}}").0, "${B}");
        assert_eq!(run(Reader::ClaudeCode, "$HOME").0, "$HOME");
        assert_eq!(run(Reader::ClaudeCode, "${unclosed").0, "${unclosed");
        let (_, refs) = run(Reader::ClaudeCode, "${A:-x} ${B}");
        assert_eq!(refs, ["${A:-x}", "${B}"]);
    }

    #[test]
    fn vscode_and_cursor_fill_what_they_know() {
        assert_eq!(run(Reader::VsCode, "${env:TOOL}sh").0, "sh");
        assert_eq!(
            run(Reader::VsCode, "${workspaceFolder}/run.sh").0,
            "/home/u/proj/run.sh"
        );
        assert_eq!(run(Reader::Cursor, "${userHome}${/}bin").0, "/home/u/bin");
        assert_eq!(run(Reader::Cursor, "${workspaceFolderBasename}").0, "proj");
        assert_eq!(run(Reader::VsCode, "${input:cmd}").0, "${input:cmd}");
        assert_eq!(run(Reader::VsCode, "${command:x}").0, "${command:x}");
        // Claude Code's default syntax means nothing to VS Code.
        assert_eq!(run(Reader::VsCode, "${X:-npx}").0, "${X:-npx}");
    }

    #[test]
    fn clients_without_expansion_leave_text_alone() {
        for r in [
            Reader::ClaudeDesktop,
            Reader::Codex,
            Reader::VsCodeWorkspace,
        ] {
            let (out, refs) = run(r, "${RUNNER:-npx}");
            assert_eq!(out, "${RUNNER:-npx}");
            assert!(refs.is_empty());
        }
        let mut refs = Vec::new();
        let kept = expand(
            Reader::Windsurf,
            UnsetEnv::Literal,
            Field::Arg,
            "${env:X}a",
            &known(),
            &mut refs,
        );
        assert_eq!(kept, "${env:X}a");
        assert_eq!(refs, ["${env:X}"]);
        assert_eq!(run(Reader::Windsurf, "${env:X}a").0, "a");
        assert_eq!(run(Reader::Windsurf, "${file:/etc/x}").0, "${file:/etc/x}");
        // No nesting for VS Code: a reference holding `${` stays as written.
        assert_eq!(run(Reader::VsCode, "${env:${X}}").0, "${env:${X}}");
        let (out, refs) = run(Reader::GeminiCli, "$RUN ${X}");
        assert_eq!(out, "$RUN ${X}");
        assert_eq!(refs.len(), 2);
    }
}
