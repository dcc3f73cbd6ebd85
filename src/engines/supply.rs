//! WRD-SUP-*: supply-chain checks over a launch argv.
//!
//! This module owns the launcher grammars (which argument of `npx`, `uvx`,
//! `pip install` and their relatives is the package, which are option values, and
//! where the server's own arguments begin), the pin rules, and the
//! remote-fetch-execute shape. Every snippet is built through
//! `super::mask::snippet_words`, so a credential on the launch line is redacted
//! before it can reach a lock, JSONL or SARIF.

use std::borrow::Cow;

use super::pattern::Pattern;
use super::shell::{split_words, Tok};
use crate::model::{EngineFinding, FieldPath};
use crate::rules::RuleId;
use crate::text::mask::snippet_words;

/// How deep `sh -c "… sh -c '…'"` nesting is followed.
const MAX_SCRIPT_DEPTH: usize = 4;
/// The CURL-PIPE snippet keeps this many code points of the (redacted) command line.
const CURL_SNIPPET_LEN: usize = 120;

/// npm: pinned to a version or a registry digest (the reference's rule: `pkg@1`
/// counts as pinned, `pkg@v1.2.3` does not).
pub(crate) static NPM_PINNED: Pattern =
    Pattern::matched(r"@(\d[\w.\-+]*|sha\d+[:\-][0-9a-fA-F]+)$", npm_pinned);
/// Python: a git ref pinned to a full commit.
pub(crate) static GIT_SHA40: Pattern = Pattern::matched(r"@[0-9a-fA-F]{40}\b", git_sha40);
/// uv's own exact-version syntax `pkg@1.2.3` (uv reads it as `pkg==1.2.3`).
pub(crate) static UV_AT_VERSION: Pattern = Pattern::with_matcher(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?@\d[\w.+!-]*$",
    r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[\x00-\x5C\x5E-\x7F]*\])?@\d[\w.+!-]*$",
    uv_at_version,
);
pub(crate) static PIP_NAME: Pattern =
    Pattern::matched(r"^pip(\d+(\.\d+)?)?$", |s| versioned_name(s, "pip"));
pub(crate) static PYTHON_NAME: Pattern =
    Pattern::matched(r"^python(\d+(\.\d+)?)?$", |s| versioned_name(s, "python"));

// The ASCII matchers of the patterns above (`Pattern::with_matcher`): each says what
// the pattern's ASCII form says (`\d` is `[0-9]`, `\w` is `[0-9A-Za-z_]`), which
// `engines::pattern`'s tests check on generated haystacks.

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `@(\d[\w.\-+]*|sha\d+[:\-][0-9a-fA-F]+)$`: some `@` whose rest is a version or
/// a digest. Linear like the regex: neither class holds `@`, so the look at one
/// `@`'s rest stops at the next `@`.
fn npm_pinned(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'@', b).any(|at| {
        let rest = b.get(at + 1..).unwrap_or_default();
        let version = rest.first().is_some_and(u8::is_ascii_digit)
            && rest
                .iter()
                .all(|&c| is_word_byte(c) || matches!(c, b'.' | b'-' | b'+'));
        let digest = rest.strip_prefix(b"sha").is_some_and(|after| {
            let digits = after.iter().take_while(|c| c.is_ascii_digit()).count();
            match after.get(digits..) {
                Some([b':' | b'-', hex @ ..]) => {
                    digits > 0 && !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit)
                }
                _ => false,
            }
        });
        version || digest
    })
}

/// `@[0-9a-fA-F]{40}\b`: some `@` followed by exactly forty hex digits and then no
/// word character.
fn git_sha40(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'@', b).any(|at| {
        let hex = b.get(at + 1..at + 41);
        hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
            && !b.get(at + 41).copied().is_some_and(is_word_byte)
    })
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?@\d[\w.+!-]*$`.
fn uv_at_version(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphanumeric) {
        return false;
    }
    let name = b
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        .count();
    let mut rest = b.get(name..).unwrap_or_default();
    if let Some(extras) = rest.strip_prefix(b"[") {
        match memchr::memchr(b']', extras) {
            Some(close) => rest = extras.get(close + 1..).unwrap_or_default(),
            None => return false,
        }
    }
    match rest.strip_prefix(b"@") {
        Some(version) => {
            version.first().is_some_and(u8::is_ascii_digit)
                && version
                    .iter()
                    .all(|&c| is_word_byte(c) || matches!(c, b'.' | b'+' | b'!' | b'-'))
        }
        None => false,
    }
}

/// `^<name>(\d+(\.\d+)?)?$`.
fn versioned_name(s: &str, name: &str) -> bool {
    let Some(version) = s.strip_prefix(name) else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    match version.split_once('.') {
        None => version.is_empty() || digits(version),
        Some((major, minor)) => digits(major) && digits(minor),
    }
}

/// The argument before a shell script: `-c`, `-lc`, `-ec` (sh family), `/c`, `/k`
/// (cmd), `-Command` (PowerShell): `^(-[A-Za-z]*c[A-Za-z]*|/[cCkK]|-[Cc]ommand)$`,
/// whose classes are ASCII in any haystack.
fn is_script_flag(word: &str) -> bool {
    match word.as_bytes() {
        [b'/', b'c' | b'C' | b'k' | b'K'] => true,
        [b'-', letters @ ..] => {
            letters.iter().all(u8::is_ascii_alphabetic)
                && (letters.contains(&b'c') || letters == b"Command")
        }
        _ => false,
    }
}

/// The command name of a word: last path component, lowercase, without a Windows
/// launcher extension (`/usr/local/bin/npx`, `npx.cmd`, `C:\…\npx.exe` → `npx`).
/// Borrowed when the word is already so (lowercase ASCII): this runs for every
/// launch argument.
fn command_name(word: &str) -> Cow<'_, str> {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let base: Cow<'_, str> = if base
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(base)
    } else {
        Cow::Owned(base.to_lowercase())
    };
    for ext in [".exe", ".cmd", ".bat", ".ps1"] {
        if let Some(stem) = base.strip_suffix(ext) {
            return match base {
                Cow::Borrowed(b) => Cow::Borrowed(&b[..stem.len()]),
                Cow::Owned(_) => Cow::Owned(stem.to_string()),
            };
        }
    }
    base
}

fn is_local_path(t: &str) -> bool {
    let b = t.as_bytes();
    t.starts_with("./")
        || t.starts_with("../")
        || t.starts_with('/')
        || t.starts_with('~')
        || t.starts_with("file:")
        || t == "."
        || t.starts_with(".\\")
        || t.starts_with("..\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

fn is_latest(t: &str) -> bool {
    t.ends_with("@latest") || t.ends_with("==latest")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Npm,
    /// uvx / uv tool run: `pkg@1.2.3` is an exact pin.
    Uv,
    /// pipx run, uv run --with.
    Pipx,
    Pip,
}

struct Launch<'a> {
    family: Family,
    /// As the user would say it: `npx`, `pnpm dlx`, `uv tool run`.
    label: &'static str,
    specs: Vec<&'a str>,
}

/// Options that take a value, per family. Everything else that starts with `-` is a
/// boolean switch.
const NPM_VALUE_FLAGS: &[&str] = &[
    "--registry",
    "--cache",
    "--userconfig",
    "--globalconfig",
    "--prefix",
    "-w",
    "--workspace",
    "--node-options",
    "--loglevel",
    "--shell",
    "--script-shell",
    "--include",
    "--omit",
    "--before",
    "--scope",
    "--tag",
];
const UV_VALUE_FLAGS: &[&str] = &[
    "-p",
    "--python",
    "--index",
    "--index-url",
    "--extra-index-url",
    "--default-index",
    "-f",
    "--find-links",
    "--directory",
    "--project",
    "--config-file",
    "--cache-dir",
    "--color",
    "--python-preference",
    "--resolution",
    "--prerelease",
    "--exclude-newer",
    "--index-strategy",
    "--keyring-provider",
    "--link-mode",
    "--refresh-package",
    "--reinstall-package",
    "-P",
    "--upgrade-package",
    "-C",
    "--config-setting",
    "--no-build-package",
    "--no-binary-package",
    "--env-file",
    "--allow-insecure-host",
    "--with-requirements",
    "--constraints",
    "--overrides",
    "--build-constraints",
    "--script",
    "--package",
    "--group",
    "--extra",
];
const PIPX_VALUE_FLAGS: &[&str] = &[
    "--python",
    "--pip-args",
    "--index-url",
    "--backend",
    "--path",
];
const PIP_GLOBAL_VALUE_FLAGS: &[&str] = &[
    "--proxy",
    "--cache-dir",
    "--log",
    "--python",
    "--retries",
    "--timeout",
    "--exists-action",
    "--cert",
    "--client-cert",
    "--use-feature",
    "--use-deprecated",
    "--trusted-host",
    "--progress-bar",
];
const PIP_INSTALL_VALUE_FLAGS: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--only-binary",
    "--no-binary",
    "--upgrade-strategy",
    "-C",
    "--config-settings",
    "--global-option",
    "--report",
    "--root-user-action",
];

/// Walk options from `start`: returns the index of the first positional (after `--`
/// if one ends the options) and calls `on_flag(flag, value)` for each option, where a
/// value-taking flag gets its inline (`--x=v`) or following value.
fn walk_options<'a>(
    argv: &[&'a str],
    start: usize,
    value_flags: &[&[&str]],
    mut on_flag: impl FnMut(&str, Option<&'a str>),
) -> Option<usize> {
    let mut j = start;
    while j < argv.len() {
        let a = argv[j];
        if a == "--" {
            return (j + 1 < argv.len()).then_some(j + 1);
        }
        if a.starts_with('-') && a.len() > 1 {
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) => (f, Some(v)),
                None => (a, None),
            };
            if value_flags.iter().any(|list| list.contains(&flag)) {
                let value = match inline {
                    Some(v) => Some(v),
                    None => {
                        j += 1;
                        argv.get(j).copied()
                    }
                };
                on_flag(flag, value);
            } else {
                on_flag(flag, inline);
            }
            j += 1;
            continue;
        }
        return Some(j);
    }
    None
}

/// What one launcher fetches, and where the search for the next launcher resumes:
/// its options and their values (`npx -p npx …`, `--registry npx`) are never a
/// command of their own, so every word is read by at most one launcher's grammar
/// and the scan stays linear in the argv.
type Specs<'a> = (Vec<&'a str>, usize);

/// `npx [opts] <pkg> [server args…]`, `npx -p <pkg>… <cmd>`, `npx -c '<cmd>'`.
fn npm_specs<'a>(argv: &[&'a str], start: usize) -> Specs<'a> {
    let flags: [&[&str]; 2] = [NPM_VALUE_FLAGS, &["-p", "--package", "-c", "--call"]];
    let mut packages = Vec::new();
    let mut call = false;
    let first = walk_options(argv, start, &flags, |flag, value| match flag {
        "-p" | "--package" => packages.extend(value),
        "-c" | "--call" => call = true,
        _ => {}
    });
    let resume = first.unwrap_or(argv.len());
    let specs = if !packages.is_empty() {
        packages // the positional is the command to run, not a package
    } else if call {
        Vec::new()
    } else {
        first.map(|i| vec![argv[i]]).unwrap_or_default()
    };
    (specs, resume)
}

/// `uvx [opts] <pkg> [args…]`, `uvx --from <spec> <cmd>`, plus `--with` extras.
fn uv_specs<'a>(argv: &[&'a str], start: usize) -> Specs<'a> {
    let flags: [&[&str]; 2] = [UV_VALUE_FLAGS, &["--from", "--with", "--with-editable"]];
    let mut from = None;
    let mut extras = Vec::new();
    let first = walk_options(argv, start, &flags, |flag, value| match flag {
        "--from" => from = value,
        "--with" | "--with-editable" => extras.extend(value.into_iter().flat_map(|v| v.split(','))),
        _ => {}
    });
    let mut specs: Vec<&str> = match from {
        Some(f) => vec![f],
        None => first.map(|i| vec![argv[i]]).unwrap_or_default(),
    };
    specs.extend(extras.into_iter().filter(|s| !s.is_empty()));
    (specs, first.unwrap_or(argv.len()))
}

/// `uv run --with <pkg> …`: only the `--with` packages are fetched.
fn uv_run_specs<'a>(argv: &[&'a str], start: usize) -> Specs<'a> {
    let flags: [&[&str]; 2] = [UV_VALUE_FLAGS, &["--with", "--with-editable", "--from"]];
    let mut extras = Vec::new();
    let first = walk_options(argv, start, &flags, |flag, value| {
        if flag == "--with" || flag == "--with-editable" {
            extras.extend(value.into_iter().flat_map(|v| v.split(',')));
        }
    });
    let specs = extras.into_iter().filter(|s| !s.is_empty()).collect();
    (specs, first.unwrap_or(argv.len()))
}

/// `pipx run [--spec <spec>] <app> [args…]`.
fn pipx_specs<'a>(argv: &[&'a str], start: usize) -> Specs<'a> {
    let flags: [&[&str]; 2] = [PIPX_VALUE_FLAGS, &["--spec"]];
    let mut spec = None;
    let first = walk_options(argv, start, &flags, |flag, value| {
        if flag == "--spec" {
            spec = value;
        }
    });
    let specs = match spec {
        Some(s) => vec![s],
        None => first.map(|i| vec![argv[i]]).unwrap_or_default(),
    };
    (specs, first.unwrap_or(argv.len()))
}

/// `pip [global opts] install [opts] <spec>…`: every later word is pip's, so the
/// search for another launcher resumes after the argv.
fn pip_specs<'a>(argv: &[&'a str], start: usize) -> Specs<'a> {
    let Some(sub) = walk_options(argv, start, &[PIP_GLOBAL_VALUE_FLAGS], |_, _| {}) else {
        return (Vec::new(), argv.len());
    };
    if argv[sub] != "install" {
        return (Vec::new(), sub);
    }
    let flags: [&[&str]; 3] = [
        PIP_INSTALL_VALUE_FLAGS,
        PIP_GLOBAL_VALUE_FLAGS,
        &["-e", "--editable"],
    ];
    let mut specs = Vec::new();
    let mut j = sub + 1;
    let mut options_done = false;
    while j < argv.len() {
        let a = argv[j];
        if !options_done && a == "--" {
            options_done = true;
        } else if !options_done && a.starts_with('-') && a.len() > 1 {
            let (flag, inline) = a.split_once('=').map_or((a, None), |(f, v)| (f, Some(v)));
            if flags.iter().any(|list| list.contains(&flag)) {
                let value = inline.or_else(|| {
                    j += 1;
                    argv.get(j).copied()
                });
                if matches!(flag, "-e" | "--editable") {
                    specs.extend(value);
                }
            }
        } else {
            specs.push(a);
        }
        j += 1;
    }
    (specs, argv.len())
}

/// Every package launch in one simple command, left to right. After a launcher,
/// the search resumes where its grammar says its own words end (see [`Specs`]).
fn launches<'a>(argv: &[&'a str]) -> Vec<Launch<'a>> {
    let mut out = Vec::new();
    let word = |i: usize| argv.get(i).map(|s| command_name(s)).unwrap_or_default();
    let mut i = 0;
    while i < argv.len() {
        let name = command_name(argv[i]);
        // The next word's name only for the launchers that look at it.
        let next = || word(i + 1);
        let (family, label, (specs, resume)) = match &*name {
            "npx" => (Family::Npm, "npx", npm_specs(argv, i + 1)),
            "bunx" => (Family::Npm, "bunx", npm_specs(argv, i + 1)),
            "pnpx" => (Family::Npm, "pnpx", npm_specs(argv, i + 1)),
            "npm" if matches!(&*next(), "exec" | "x") => {
                (Family::Npm, "npm exec", npm_specs(argv, i + 2))
            }
            "pnpm" if next() == "dlx" => (Family::Npm, "pnpm dlx", npm_specs(argv, i + 2)),
            "yarn" if next() == "dlx" => (Family::Npm, "yarn dlx", npm_specs(argv, i + 2)),
            "bun" if next() == "x" => (Family::Npm, "bun x", npm_specs(argv, i + 2)),
            "uvx" => (Family::Uv, "uvx", uv_specs(argv, i + 1)),
            "uv" if next() == "tool" && word(i + 2) == "run" => {
                (Family::Uv, "uv tool run", uv_specs(argv, i + 3))
            }
            "uv" if next() == "run" => (Family::Pipx, "uv run --with", uv_run_specs(argv, i + 2)),
            "pipx" if next() == "run" => (Family::Pipx, "pipx run", pipx_specs(argv, i + 2)),
            n if PIP_NAME.is_match(n) => (Family::Pip, "pip", pip_specs(argv, i + 1)),
            _ => {
                i += 1;
                continue;
            }
        };
        if !specs.is_empty() {
            out.push(Launch {
                family,
                label,
                specs,
            });
        }
        i = resume.max(i + 1);
    }
    out
}

/// `require_hashes`: the argv carries `--require-hashes` (looked up once per argv,
/// not once per spec).
fn py_pinned(spec: &str, require_hashes: bool, family: Family) -> bool {
    require_hashes
        || spec.contains("==")
        || GIT_SHA40.is_match(spec)
        || (family == Family::Uv && UV_AT_VERSION.is_match(spec))
}

fn spec_snippet(spec: &str) -> String {
    snippet_words(&[spec]).pop().unwrap_or_default()
}

/// The field of the launch argv word `i`: the command, then `args[i - 1]`.
fn argv_field(i: usize) -> FieldPath {
    match i.checked_sub(1) {
        None => FieldPath::Command,
        Some(arg) => FieldPath::Arg(arg),
    }
}

/// The index of the argv word that `spec` is a slice of. Specs borrow from the
/// words (`--package=x` gives `x`), so the word is the one whose bytes hold the
/// slice's; compared as addresses, never dereferenced.
fn word_of(argv: &[&str], spec: &str) -> Option<usize> {
    let start = spec.as_ptr() as usize;
    argv.iter().position(|w| {
        let from = w.as_ptr() as usize;
        start >= from && start + spec.len() <= from + w.len()
    })
}

/// `origin`: the launch field a nested script came from (every finding in it is
/// about that field); `None` for the launch's own argv.
fn check_packages(argv: &[&str], origin: Option<&FieldPath>, out: &mut Vec<EngineFinding>) {
    let require_hashes = argv.contains(&"--require-hashes");
    for launch in launches(argv) {
        for spec in launch.specs {
            if spec.is_empty() || is_local_path(spec) {
                continue;
            }
            let (rule, message) = if is_latest(spec) {
                let fam = match launch.family {
                    Family::Pip => "pip",
                    _ => launch.label,
                };
                (
                    RuleId::SupLatestTag,
                    format!("Explicit floating 'latest' tag in {fam} spec"),
                )
            } else {
                match launch.family {
                    Family::Npm if !NPM_PINNED.is_match(spec) => (
                        RuleId::SupNpxUnpinned,
                        format!("Unpinned {} package (resolves latest at run)", launch.label),
                    ),
                    Family::Uv | Family::Pipx
                        if !py_pinned(spec, require_hashes, launch.family) =>
                    {
                        (
                            RuleId::SupUvxUnpinned,
                            format!("Unpinned {} package (mutable upstream)", launch.label),
                        )
                    }
                    Family::Pip if !py_pinned(spec, require_hashes, launch.family) => (
                        RuleId::SupPipUnpinned,
                        "Unpinned pip install target (mutable dependency)".to_string(),
                    ),
                    _ => continue,
                }
            };
            let field = match origin {
                Some(field) => Some(field.clone()),
                None => word_of(argv, spec).map(argv_field),
            };
            out.push(EngineFinding {
                field,
                ..EngineFinding::new(rule, message, spec_snippet(spec))
            });
        }
    }
}

/// Indices of arguments that a shell will run as a script.
fn is_script_arg(argv: &[&str], i: usize) -> bool {
    i >= 1 && is_script_flag(argv[i - 1])
}

/// Simple commands of a script, split at every control operator.
fn simple_commands(script: &str) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for t in split_words(script) {
        match t {
            Tok::Word(w) => {
                if let Some(last) = out.last_mut() {
                    last.push(w.into_owned());
                }
            }
            Tok::Op(_) => out.push(Vec::new()),
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

fn check_packages_deep(
    argv: &[&str],
    depth: usize,
    origin: Option<&FieldPath>,
    out: &mut Vec<EngineFinding>,
) {
    check_packages(argv, origin, out);
    if depth >= MAX_SCRIPT_DEPTH {
        return;
    }
    for i in 0..argv.len() {
        if is_script_arg(argv, i) {
            let field = origin.cloned().unwrap_or_else(|| argv_field(i));
            for cmd in simple_commands(argv[i]) {
                let words: Vec<&str> = cmd.iter().map(String::as_str).collect();
                check_packages_deep(&words, depth + 1, Some(&field), out);
            }
        }
    }
}

fn is_fetch(name: &str) -> bool {
    matches!(
        name,
        "curl" | "wget" | "fetch" | "iwr" | "irm" | "invoke-webrequest" | "invoke-restmethod"
    )
}

fn is_interpreter(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "fish"
            | "node"
            | "nodejs"
            | "perl"
            | "ruby"
            | "php"
            | "pwsh"
            | "powershell"
            | "iex"
            | "invoke-expression"
    ) || PYTHON_NAME.is_match(name)
}

/// The command a simple command runs: past env assignments, `sudo`/`env`/`exec`…
/// wrappers and their options. Fed one word at a time as the command is read, so
/// asking for it after every word (a word holding `$(` asks) costs nothing extra:
/// each word is looked at once.
#[derive(Default)]
struct StageCommand {
    after_wrapper: bool,
    /// The previous word was a wrapper option that takes a value (`sudo -u root`).
    skip_value: bool,
    found: Option<String>,
}

impl StageCommand {
    const WRAPPERS: &'static [&'static str] = &[
        "sudo", "doas", "env", "exec", "command", "nohup", "time", "nice", "stdbuf",
    ];
    const SUDO_VALUE: &'static [&'static str] =
        &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"];

    fn push(&mut self, w: &str) {
        if self.found.is_some() {
            return;
        }
        if self.skip_value {
            self.skip_value = false;
            return;
        }
        if w.contains('=') && !w.starts_with('-') {
            return; // VAR=value
        }
        let name = command_name(w);
        if Self::WRAPPERS.contains(&&*name) {
            self.after_wrapper = true;
        } else if self.after_wrapper && w.starts_with('-') {
            self.skip_value = Self::SUDO_VALUE.contains(&w);
        } else {
            self.found = Some(name.into_owned());
        }
    }

    /// The command of the words pushed so far, if one was reached.
    fn command(&self) -> Option<&str> {
        self.found.as_deref()
    }

    /// The command, ending this simple command.
    fn finish(self) -> Option<String> {
        self.found
    }
}

/// Token stream of the launch line: script arguments are split into shell words and
/// operators; other arguments are words (an argument that is exactly an operator
/// counts as one, as the reference's joined command line did).
fn launch_tokens<'a>(argv: &[&'a str]) -> Vec<Tok<'a>> {
    let mut out = Vec::new();
    for (i, a) in argv.iter().enumerate() {
        if is_script_arg(argv, i) {
            // A script is its own command line. Only a script that *starts* with a
            // substitution (`bash -c '$(curl …)'`) runs that substitution's output
            // as a command, so only then does the outer shell stay the consumer.
            let t = a.trim_start();
            if !(t.starts_with("$(") || t.starts_with('`')) {
                out.push(Tok::Op(";"));
            }
            out.extend(split_words(a));
            out.push(Tok::Op(";"));
        } else {
            match *a {
                "|" => out.push(Tok::Op("|")),
                "||" => out.push(Tok::Op("||")),
                "&&" => out.push(Tok::Op("&&")),
                ";" => out.push(Tok::Op(";")),
                _ => out.push(Tok::Word(Cow::Borrowed(a))),
            }
        }
    }
    out
}

/// `fetch … | interpreter` within one pipeline, or an interpreter / `eval` /
/// `source` whose input is a command substitution that fetches
/// (`bash -c "$(curl …)"`, `bash <(curl …)`).
fn fetch_execute(tokens: &[Tok], consumer: Option<&str>, depth: usize) -> bool {
    let mut stage = StageCommand::default();
    let mut fetched = false;
    // The command that consumes the next substitution, if it can execute code.
    let mut pending: Option<String> = consumer.map(str::to_string);
    let eval_like = |n: &str| is_interpreter(n) || matches!(n, "eval" | "source" | ".");
    for t in tokens.iter().chain(std::iter::once(&Tok::Op(";"))) {
        match t {
            Tok::Word(w) => {
                if depth < MAX_SCRIPT_DEPTH
                    && (w.contains("$(") || w.contains('`') || w.contains("<("))
                    && fetch_execute(&split_words(w), stage.command(), depth + 1)
                {
                    return true;
                }
                stage.push(w);
            }
            Tok::Op(op) => {
                let cmd = std::mem::take(&mut stage).finish();
                if let Some(c) = cmd.as_deref() {
                    if fetched && is_interpreter(c) {
                        return true;
                    }
                    if is_fetch(c) && pending.as_deref().is_some_and(eval_like) {
                        return true;
                    }
                }
                match *op {
                    "|" => fetched |= cmd.as_deref().is_some_and(is_fetch),
                    "$(" | "<(" | "`" | "(" => {
                        fetched = false;
                        pending = cmd.or(pending.take());
                    }
                    _ => {
                        fetched = false;
                        pending = None;
                    }
                }
            }
        }
    }
    false
}

/// The command line as evidence: script arguments split into words, every
/// credential-shaped word redacted, capped at 120 code points.
fn launch_snippet(argv: &[&str]) -> String {
    let mut words: Vec<String> = Vec::new();
    for (i, a) in argv.iter().enumerate() {
        if is_script_arg(argv, i) || a.chars().any(char::is_whitespace) {
            for t in split_words(a) {
                match t {
                    Tok::Word(w) => words.push(w.into_owned()),
                    Tok::Op(op) => words.push(op.to_string()),
                }
            }
        } else {
            words.push(a.to_string());
        }
    }
    // Each shown word adds at least one code point (its separator), so words past
    // the cap can never be shown: do not classify them.
    words.truncate(CURL_SNIPPET_LEN + 1);
    snippet_words(&words)
        .join(" ")
        .chars()
        .take(CURL_SNIPPET_LEN)
        .collect()
}

/// Findings for `command` + `args`, sorted by (rule id, snippet). Snippets are
/// redacted where they may carry a secret.
pub fn check_launch(command: &str, args: &[String]) -> Vec<EngineFinding> {
    // The words borrowed, not copied: most launches have no finding, and a copy
    // of every word of every launch was most of this check's allocations.
    let mut argv: Vec<&str> = Vec::with_capacity(args.len() + 1);
    argv.push(command);
    argv.extend(args.iter().map(String::as_str));
    let mut out = Vec::new();
    if fetch_execute(&launch_tokens(&argv), None, 0) {
        // The script that fetches and runs, when the launch has one; else the
        // launch as a whole starts at its command.
        let field = (1..argv.len())
            .find(|&i| is_script_arg(&argv, i))
            .map_or(FieldPath::Command, argv_field);
        out.push(
            EngineFinding::new(
                RuleId::SupCurlPipe,
                "Launch reconstructs a remote-fetch-execute (curl|sh / wget|sh) shape".to_string(),
                launch_snippet(&argv),
            )
            .at_field(field),
        );
    }
    check_packages_deep(&argv, 0, None, &mut out);
    out.sort_by(|a, b| (a.rule.as_str(), &a.snippet).cmp(&(b.rule.as_str(), &b.snippet)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    /// The script-flag matcher says what its pattern says, on generated words and
    /// on the flags it exists for.
    #[test]
    fn script_flag_matcher_is_its_pattern() {
        let pattern = Regex::new(r"^(-[A-Za-z]*c[A-Za-z]*|/[cCkK]|-[Cc]ommand)$")
            .expect("constant script flag pattern");
        let pieces = [
            "-", "/", "c", "C", "k", "K", "ommand", "l", "e", "Z", "\u{e9}", " ", "1", "",
        ];
        let mut generated = crate::test_gen::Generated::new(0x5eed_5c21_9f1a_0001);
        for _ in 0..20_000 {
            let word = generated.text(&pieces, 5);
            assert_eq!(is_script_flag(&word), pattern.is_match(&word), "{word:?}");
        }
        for word in ["-c", "-lc", "-ec", "/c", "/K", "-Command", "-command"] {
            assert!(is_script_flag(word), "{word}");
        }
        for word in [
            "-",
            "/",
            "-C",
            "c",
            "/cc",
            "-Commands",
            "--c",
            "-c\u{e9}",
            "-1c",
        ] {
            assert_eq!(is_script_flag(word), pattern.is_match(word), "{word}");
        }
    }

    /// The edges of the pinned-version matchers, each against its pattern's ASCII
    /// form: forty hex digits and what follows them, digests, extras brackets.
    #[test]
    fn pin_matchers_agree_with_their_patterns_at_the_edges() {
        let hex40 = "0123456789abcdefABCDEF0123456789abcdef01";
        let cases: [(&Pattern, Vec<String>); 4] = [
            (
                &GIT_SHA40,
                vec![
                    format!("git+https://h/r@{hex40}"),
                    format!("r@{hex40}0"),
                    format!("r@{hex40}_"),
                    format!("r@{hex40}-x"),
                    format!("r@{hex40}#egg=x"),
                    format!("r@{}", &hex40[1..]),
                    format!("a@x@{hex40}"),
                    format!("@{hex40}"),
                ],
            ),
            (
                &NPM_PINNED,
                [
                    "pkg@1",
                    "pkg@1.2.3-rc.1+b",
                    "pkg@v1",
                    "pkg@sha512:ab",
                    "pkg@sha512-AB",
                    "pkg@sha:ab",
                    "pkg@sha1:",
                    "pkg@sha1:xyz",
                    "a@1@x",
                    "a@x@1",
                    "@1",
                    "pkg@",
                    "pkg@1 x",
                ]
                .map(String::from)
                .to_vec(),
            ),
            (
                &UV_AT_VERSION,
                [
                    "pkg@1.2",
                    "pkg[extra]@1.2",
                    "pkg[a,b]@1!2",
                    "pkg[@1",
                    "pkg]@1",
                    "-pkg@1",
                    "pkg[x]y@1",
                    "p@1.x_y",
                    "p@x",
                    "p",
                    "p[]@0",
                    "p[[]@0",
                    "p@1@2",
                ]
                .map(String::from)
                .to_vec(),
            ),
            (
                &PIP_NAME,
                [
                    "pip", "pip3", "pip3.12", "pip3.", "pip.3", "pip3.1.2", "pipx", "Pip3", "pip33",
                ]
                .map(String::from)
                .to_vec(),
            ),
        ];
        for (pattern, haystacks) in cases {
            let (_, ascii) = pattern.forms();
            for hay in haystacks {
                assert_eq!(pattern.is_match(&hay), ascii.is_match(&hay), "{hay:?}");
            }
        }
    }

    /// The word-list rule `StageCommand` replaces, as it read before: the whole
    /// simple command, from its first word, every time it was asked.
    fn command_of_words(words: &[&str]) -> Option<String> {
        let mut i = 0;
        let mut after_wrapper = false;
        while i < words.len() {
            let w = words[i];
            let name = command_name(w);
            if (!after_wrapper || !w.starts_with('-')) && w.contains('=') && !w.starts_with('-') {
                i += 1;
            } else if StageCommand::WRAPPERS.contains(&&*name) {
                after_wrapper = true;
                i += 1;
            } else if after_wrapper && w.starts_with('-') {
                i += if StageCommand::SUDO_VALUE.contains(&w) {
                    2
                } else {
                    1
                };
            } else {
                return Some(name.into_owned());
            }
        }
        None
    }

    #[test]
    fn stage_command_fed_word_by_word_equals_the_whole_command_rule() {
        let pieces = [
            "sudo",
            "env",
            "-u",
            "root",
            "A=1",
            "-i",
            "curl",
            "bash",
            "--",
            "=$(",
            "X=",
            "exec",
            "/usr/bin/Nice",
            "-C",
            "stdbuf.exe",
        ];
        let mut generated = crate::test_gen::Generated::new(0x2545_f491_4f6c_dd1d);
        // A number below `n`: the length of a generated string of one-byte pieces.
        let mut below = |n: usize| generated.text(&["x"], n).len();
        for _ in 0..20_000 {
            let len = below(10);
            let words: Vec<&str> = (0..len).map(|_| pieces[below(pieces.len())]).collect();
            let mut stage = StageCommand::default();
            for (k, w) in words.iter().enumerate() {
                assert_eq!(
                    stage.command().map(str::to_string),
                    command_of_words(&words[..k]),
                    "{words:?} after {k}"
                );
                stage.push(w);
            }
            assert_eq!(stage.finish(), command_of_words(&words), "{words:?}");
        }
    }

    fn rules(command: &str, args: &[String]) -> Vec<(RuleId, String)> {
        check_launch(command, args)
            .into_iter()
            .map(|f| (f.rule, f.snippet))
            .collect()
    }

    #[test]
    fn a_launcher_in_another_launchers_options_is_not_a_launch() {
        let w = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        // `npx` as the value of `-p` or `--registry` is a package or an address.
        assert_eq!(
            rules("npx", &w("-p npx -p foo@1.0.0 cmd")),
            [(RuleId::SupNpxUnpinned, "npx".to_string())]
        );
        assert!(rules("npx", &w("--registry npx pkg@1.0.0")).is_empty());
        // Every word after `pip install` is pip's.
        assert_eq!(
            rules("pip", &w("install pip install x")),
            [
                (RuleId::SupPipUnpinned, "install".to_string()),
                (RuleId::SupPipUnpinned, "pip".to_string()),
                (RuleId::SupPipUnpinned, "x".to_string()),
            ]
        );
        // A launcher among the server's own arguments is still one.
        assert_eq!(
            rules("npx", &w("-y mcp-proxy@1.0.0 uvx mcp-thing")),
            [(RuleId::SupUvxUnpinned, "mcp-thing".to_string())]
        );
        assert_eq!(
            rules("npx", &w("-y npx pkg")),
            [
                (RuleId::SupNpxUnpinned, "npx".to_string()),
                (RuleId::SupNpxUnpinned, "pkg".to_string()),
            ]
        );
    }

    #[test]
    fn findings_never_outgrow_the_argv() {
        // Chains where every launcher's options run to the end of the argv: each
        // word is a spec of one launch at most, so findings grow with the argv, not
        // with its square.
        for unit in [["-p", "npx"], ["pip", "install"], ["--with", "uvx"]] {
            let args: Vec<String> = unit
                .iter()
                .cycle()
                .take(4096)
                .map(|s| s.to_string())
                .collect();
            let found = check_launch(unit[1], &args).len();
            assert!(found <= args.len(), "{unit:?}: {found} findings");
        }
        let mut args = vec!["install".to_string()];
        args.extend((0..4095).map(|k| format!("a{k}")));
        assert_eq!(check_launch("pip", &args).len(), 4095);
    }
}
