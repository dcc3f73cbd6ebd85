//! A configured server's environment and headers, as `pin` gets them: expanded
//! from the real environment the way its client expands them (`doctor --pin`), and
//! in the form a printed pin line passes them (`--env NAME`, `--header 'K: ${VAR}'`).
//!
//! The audited launch is read with every variable unset ([`crate::reading`]); the
//! command and its arguments are started exactly as audited (and as the consent
//! prompt shows them), whatever the environment holds. Only environment values and
//! header values are expanded again, from the entry as written, in the syntax of
//! the client that reads it ([`crate::reading::expand::expand_with`]).
//!
//! # What the printed line says
//!
//! * Each environment key that is a plain variable name (`[A-Za-z_][A-Za-z0-9_]*`)
//!   becomes `--env KEY`: `pin` passes the caller's `KEY`, so the value never
//!   appears on the line. Any other key cannot be exported from a shell, is not
//!   printed, and is counted ([`PinEnv::unnamed`]). So is a key that holds a
//!   credential ([`names_a_credential`]): a name is printed verbatim, in the pin
//!   line and as the CI snippet's `secrets.NAME`, so it must carry nothing.
//! * A header whose value, in `pin`'s `${VAR}` syntax, is only variable references
//!   and literal text that is not a credential is printed as it is
//!   (`X-Api-Key: ${FM_KEY}`; `pin` expands it). Literal text counts as no
//!   credential only when it has no credential shape and every word of it is plain
//!   (digits, or letters of one case: `on`, `en-US`, `application/json`), and, for
//!   a header whose name says it carries a secret (`Authorization`, `*-Key`,
//!   `Cookie`, …), only scheme words (`Bearer ${TOKEN}`). Any other value (a literal
//!   credential, text `pin` would misread) is replaced by one placeholder variable
//!   derived from the header name (`Authorization: ${AUTHORIZATION}`), which the
//!   user exports with the value the config gives the header. A header whose name
//!   is not an HTTP token, or holds a credential, is not printed and is counted;
//!   a value referencing a variable whose name holds one is withheld.
//! * A placeholder is always named `MCP_HEADER_<NAME>` ([`HEADER_PLACEHOLDER_PREFIX`]):
//!   a bare `${AUTHORIZATION}`, `${PATH}` or `${GITHUB_TOKEN}` would be a variable
//!   the user's shell may already hold, and `pin` would send *that* value (the
//!   user's own PATH or token) to the server in place of the config's.
//! * A reference is printed only where the client expands it: a `${NAME}` that the
//!   client sends literally (VS Code's reader keeps `${NAME}`; only `${env:NAME}`
//!   is a reference there) would make `pin` send the caller's `NAME` instead of the
//!   literal text, so such a value is withheld like a credential.
//! * A name that decides what a shell, the dynamic loader, an interpreter, git, TLS
//!   or a proxy runs or trusts, or that configures mcp-warden itself
//!   ([`is_execution_control`]: `PATH`, `LD_PRELOAD`, `BASH_ENV`, `NODE_OPTIONS`,
//!   `XDG_CONFIG_HOME`, `HTTPS_PROXY`, …) is never a variable a printed line asks
//!   the user to export: exporting a config's value of it into an interactive shell
//!   (or setting it in a CI step) changes what every later command runs, the
//!   `mcp-warden` of the next line included. Such an env key is left out of the
//!   line and listed ([`PinEnv::withheld`]); a header that references one keeps the
//!   reference (`pin` reads the caller's own value, as the client does) but it is
//!   not among the variables to export ([`PinHeader::variables`]).

use crate::hash::{HashMap, HashSet};
use crate::hash::{HashMapExt, HashSetExt};

use std::sync::Arc;

use crate::model::{Launch, ServerSpec};
use crate::reading::expand::{expand_with, Field, Known, Lookup, UnsetEnv};
use crate::reading::Reader;
use crate::text::redact::{has_credential, names_a_credential, redact_in_place};
use crate::text::safe_text::is_neutralised;

/// Whether `name` is a plain variable name a shell can export and `pin --env`
/// (and a GitHub Actions `env:` key) takes as it is.
pub fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Names (compared case-insensitively: zsh ties `path` to `PATH`) that decide what
/// runs or what is trusted once exported: shells, the loader, interpreters, git,
/// TLS trust, proxies, the CI runner's files, and mcp-warden's own settings.
const EXECUTION_CONTROL_NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "IFS",
    "ENV",
    "BASH_ENV",
    "SHELL",
    "SHELLOPTS",
    "BASHOPTS",
    "CDPATH",
    "FPATH",
    "MANPATH",
    "MODULE_PATH",
    "GLOBIGNORE",
    "ZDOTDIR",
    "HISTFILE",
    "PROMPT",
    "PROMPT_COMMAND",
    "RPROMPT",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "TERM",
    "TERMINFO",
    "USER",
    "LOGNAME",
    "TMPDIR",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "BROWSER",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "SSH_AUTH_SOCK",
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "HOSTALIASES",
    "LOCPATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUSERBASE",
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_EXTRA_CA_CERTS",
    "NPM_CONFIG_PREFIX",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "GEM_HOME",
    "GEM_PATH",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_WORKSPACE",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
];

/// Prefixes (case-insensitive) of such names.
const EXECUTION_CONTROL_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "BASH_FUNC_",
    "GIT_",
    "XDG_",
    "WARDEN_",
    "MCP_WARDEN_",
    "RUNNER_",
    "ACTIONS_",
    "NPM_CONFIG_",
    "CARGO_",
    "RUSTUP_",
    "PIP_",
    "UV_",
];

/// Whether exporting `name` (with a value a config chose) into a shell or a CI step
/// would change what later commands run or trust: the loader (`LD_PRELOAD`), the
/// shell (`PATH`, `BASH_ENV`, `IFS`, `PROMPT_COMMAND`), an interpreter
/// (`NODE_OPTIONS`, `PYTHONPATH`), git, TLS trust, a proxy (`*_PROXY`), the runner's
/// files (`GITHUB_ENV`) or mcp-warden's own configuration (`XDG_CONFIG_HOME` decides
/// which suppression file it reads, `WARDEN_APPROVER` whose approval `pin` records).
pub fn is_execution_control(name: &str) -> bool {
    // ASCII case-insensitive compares: the names and prefixes are upper-case ASCII,
    // so this is exactly a compare of the upper-cased name, without the copy.
    let bytes = name.as_bytes();
    let starts =
        |p: &str| bytes.len() >= p.len() && bytes[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    let ends = |p: &str| {
        bytes.len() >= p.len() && bytes[bytes.len() - p.len()..].eq_ignore_ascii_case(p.as_bytes())
    };
    EXECUTION_CONTROL_NAMES
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
        || EXECUTION_CONTROL_PREFIXES.iter().any(|p| starts(p))
        || ends("_PROXY")
        || name.eq_ignore_ascii_case("PROXY")
}

/// Whether `name` is an HTTP header name (`pin --header` accepts only these).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// The reader whose syntax the entry's strings are expanded in: the first client
/// of the reading (readings agree on what they start with every variable unset).
fn reader_of(spec: &ServerSpec) -> Option<Reader> {
    spec.origin.readers.iter().next()
}

/// Each launch pair with its value as written in the entry. The reading moves a
/// field into the launch only when expansion left it as written, and keeps pairs in
/// file order, so the declared list (when present) lines up with the launch's.
fn written_pairs<'a>(
    launched: &'a [(String, String)],
    declared: &'a [(String, String)],
) -> Vec<(&'a str, &'a str)> {
    launched
        .iter()
        .enumerate()
        .map(|(i, (k, v))| {
            let written = if declared.len() <= launched.len() {
                declared.get(i).map_or(v.as_str(), |(_, w)| w.as_str())
            } else {
                v.as_str()
            };
            (k.as_str(), written)
        })
        .collect()
}

/// Codex builds some values itself from variable names (`env_vars`,
/// `env_http_headers`, `bearer_token_env_var`): `${NAME}` in `pin`'s syntax. Those
/// pairs follow the declared ones.
fn built_by_codex(reader: Option<Reader>, i: usize, declared: usize) -> bool {
    reader == Some(Reader::Codex) && i >= declared
}

/// Expand `${NAME}` references only (`pin`'s own `--header` syntax subset that
/// Codex's built values use), recording unset names.
fn expand_braced(text: &str, lookup: Lookup<'_>, unset: &mut Vec<String>) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[at..]);
            return Some(out);
        };
        let name = &after[..close];
        match lookup(name) {
            Some(v) => out.push_str(&v),
            None => {
                if !unset.iter().any(|u| u == name) {
                    unset.push(name.to_string());
                }
                return None;
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// What `doctor --pin` starts: env (stdio) or headers (remote) expanded from
/// `lookup` as the client would; the names of the variables referenced but unset.
pub struct Expanded {
    pub env: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    /// Variables a value referenced that `lookup` did not have: the value is what
    /// the client makes of it without them (its default, the literal text, empty).
    pub unset: Vec<String>,
}

/// `spec`'s environment values and header values expanded from `lookup` in its
/// client's syntax.
pub fn expanded(spec: &ServerSpec, known: &Known, lookup: Lookup<'_>) -> Expanded {
    let reader = reader_of(spec);
    let mut unset: Vec<String> = Vec::new();
    let missed = std::cell::RefCell::new(Vec::<String>::new());
    let recording = |name: &str| {
        let v = lookup(name);
        if v.is_none() {
            missed.borrow_mut().push(name.to_string());
        }
        v
    };
    let mut expand_pairs = |launched: &[(String, String)],
                            declared: &[(String, String)],
                            field: Field| {
        written_pairs(launched, declared)
            .into_iter()
            .enumerate()
            .filter_map(|(i, (k, written))| {
                if built_by_codex(reader, i, declared.len()) {
                    // Codex forwards a variable only when it is set.
                    return expand_braced(written, lookup, &mut unset).map(|v| (k.to_string(), v));
                }
                let value = match reader {
                    Some(r) => expand_with(r, UnsetEnv::Empty, field, written, known, &recording),
                    None => written.to_string(),
                };
                Some((k.to_string(), value))
            })
            .collect::<Vec<_>>()
    };
    let (env, headers) = match &spec.launch {
        Launch::Stdio(s) => (
            expand_pairs(&s.env, &spec.declared.env, Field::EnvValue),
            Vec::new(),
        ),
        Launch::Remote(r) => (
            Vec::new(),
            expand_pairs(&r.headers, &spec.declared.headers, Field::HeaderValue),
        ),
        Launch::Nothing => (Vec::new(), Vec::new()),
    };
    for name in missed.into_inner() {
        if !unset.contains(&name) {
            unset.push(name);
        }
    }
    Expanded {
        env,
        headers,
        unset,
    }
}

/// How a printed pin line passes a server's environment. The names borrow the
/// server's keys: Next steps asks for every launch of a run, and a copy of each
/// name was an allocation per server for text that is already in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinEnv<'s> {
    /// `--env NAME` for each, in file order, without repeats.
    pub names: Vec<&'s str>,
    /// Keys that are not plain variable names, or that hold a credential
    /// ([`names_a_credential`]): not passed, not printed.
    pub unnamed: usize,
    /// Plain names that control execution ([`is_execution_control`]): not passed,
    /// listed so the user knows the pin runs without the config's value of them.
    pub withheld: Vec<&'s str>,
}

/// The `--env` names of a stdio server (empty for a remote one).
pub fn pin_env(spec: &ServerSpec) -> PinEnv<'_> {
    let mut out = PinEnv::default();
    for (k, _) in spec.env() {
        let k = k.as_str();
        if !is_plain_name(k) || names_a_credential(k) {
            out.unnamed += 1;
        } else if is_execution_control(k) {
            if !out.withheld.contains(&k) {
                out.withheld.push(k);
            }
        } else if !out.names.contains(&k) {
            out.names.push(k);
        }
    }
    out
}

/// One `--header` of a printed pin line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinHeader {
    /// `Name: value` in `pin`'s syntax, with no credential in it.
    pub text: String,
    /// The variables `pin` expands in it that the user exports first (a reference to
    /// an [`is_execution_control`] name is expanded from the caller's own value, as
    /// the client does, and is not listed).
    pub variables: Vec<String>,
    /// The value was withheld: its one variable is a placeholder to export with the
    /// value the config gives the header.
    pub withheld: bool,
}

/// How a printed pin line passes a remote server's headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinHeaders {
    pub headers: Vec<PinHeader>,
    /// Headers whose name is not an HTTP token or holds a credential: not printed.
    pub unnamed: usize,
}

/// Header-name words that mark a value as a credential whatever its shape.
const SECRET_NAME_WORDS: &[&str] = &[
    "auth",
    "token",
    "key",
    "secret",
    "cookie",
    "session",
    "pass",
    "credential",
    "signature",
    "jwt",
    "bearer",
    "sig",
];

/// Literal words an authorization value may hold beside its references.
const SCHEMES: &[&str] = &[
    "bearer", "basic", "token", "bot", "apikey", "api-key", "digest",
];

/// Split `value` (in `pin`'s syntax) into its `${NAME}` references and the literal
/// text around them; `None` when a `$` is not the start of such a reference
/// (`pin` would read `$word` as a variable the config did not mean).
fn references(value: &str) -> Option<(Vec<String>, String)> {
    let mut names: Vec<String> = Vec::new();
    let mut literal = String::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        literal.push_str(&rest[..at]);
        let after = rest[at + 1..].strip_prefix('{')?;
        let close = after.find('}')?;
        let name = &after[..close];
        if !is_plain_name(name) {
            return None;
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        literal.push(' ');
        rest = &after[close + 1..];
    }
    literal.push_str(rest);
    Some((names, literal))
}

/// Whether the literal text of a header value carries no secret.
fn literal_is_harmless(name: &str, literal: &str) -> bool {
    // A credential shape, a vendor pattern or a token-like word (the launch-text
    // scan's rules) anywhere in the literal text.
    if has_credential(literal) || redact_in_place(literal) != literal || !only_plain_words(literal)
    {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if !SECRET_NAME_WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // An authorization-like header: nothing but scheme words around references.
    literal
        .split_whitespace()
        .all(|w| SCHEMES.contains(&w.to_ascii_lowercase().as_str()))
}

/// Whether every alphanumeric run of `literal` is a plain word: digits only, or
/// letters only in one case (an initial capital allowed). A header is the channel
/// credentials travel in, and a credential need not have a recognised shape
/// (`k=Sup3rS3cretPw9`), so a run that mixes digits and letters or cases is
/// treated as one: the value is withheld.
fn only_plain_words(literal: &str) -> bool {
    literal
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| {
            let digits = w.chars().all(|c| c.is_ascii_digit());
            let lower = w.chars().all(|c| c.is_ascii_lowercase());
            let upper = w.chars().all(|c| c.is_ascii_uppercase());
            let capitalised = w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && w.chars().skip(1).all(|c| c.is_ascii_lowercase());
            digits || lower || upper || capitalised
        })
        && literal.is_ascii()
}

/// What every placeholder variable starts with: a namespace no shell, loader or
/// tool sets, so an unexported placeholder fails `pin` instead of sending a value
/// the user's environment happens to hold.
pub const HEADER_PLACEHOLDER_PREFIX: &str = "MCP_HEADER_";

/// The placeholder variable for a withheld header: [`HEADER_PLACEHOLDER_PREFIX`],
/// then its name upper-cased with each run of other characters made `_`
/// (`X-Api-Key` → `MCP_HEADER_X_API_KEY`), distinct from `taken`.
fn placeholder_for(name: &str, taken: &HashSet<String>) -> String {
    let mut base = String::from(HEADER_PLACEHOLDER_PREFIX);
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            base.push(c.to_ascii_uppercase());
        } else if !base.ends_with('_') {
            base.push('_');
        }
    }
    let named = base.trim_end_matches('_').to_string();
    // The header name was judged as written; upper-cased, or with a counter, it
    // can read as a credential (`akia…` is nothing, `AKIA…` is an AWS key id):
    // such a candidate is skipped for the neutral `MCP_HEADER_VALUE` series.
    let neutral = format!("{HEADER_PLACEHOLDER_PREFIX}VALUE");
    for base in [named, neutral] {
        let mut candidate = base.clone();
        let mut i = 2u32;
        loop {
            if names_a_credential(&candidate) {
                break;
            }
            if !taken.contains(&candidate) {
                return candidate;
            }
            candidate = format!("{base}_{i}");
            i = i.saturating_add(1);
        }
    }
    // Only reachable if the neutral series itself read as a credential.
    String::from(HEADER_PLACEHOLDER_PREFIX)
}

/// Marks around a reference the client expands, while a header value is rewritten
/// (private-use characters; a written value holding one is withheld).
const REFERENCE_OPEN: char = '\u{F8F0}';
const REFERENCE_CLOSE: char = '\u{F8F1}';

/// `expanded` (references marked) in `pin`'s syntax, or `None` when it keeps a `$`
/// the client sends literally, which `pin` would expand instead (VS Code sends
/// `${NAME}` as written: printed as is, the line would send the caller's `NAME`).
fn in_pins_syntax(expanded: &str) -> Option<String> {
    if expanded.contains('$') {
        return None;
    }
    Some(
        expanded
            .replace(REFERENCE_OPEN, "${")
            .replace(REFERENCE_CLOSE, "}"),
    )
}

/// A header value that prints as it is: its variables and its text.
type Printable = (Vec<String>, String);

/// What [`pin_headers`] decides from: the reader, the launched headers and the
/// declared ones.
type HeaderInputs = (Option<Reader>, Vec<(String, String)>, Vec<(String, String)>);

/// One input of [`pin_headers`] and its judgment.
type Judged = (HeaderInputs, Arc<PinHeaders>);

thread_local! {
    /// [`pin_headers`] of each distinct input seen in this thread, by a hash of the
    /// input (each bucket holds the inputs themselves, compared in full). Lock
    /// naming and Next steps both ask for every remote server's headers, and a
    /// large `~/.claude.json` repeats the same few header maps across thousands of
    /// projects: each distinct map is judged once, and every later ask gets that
    /// same judgment, shared (an `Arc`, not a copy: a copy per server was most of
    /// the memory lock naming touched). Bounded by the servers of the run.
    static PIN_HEADERS: std::cell::RefCell<HashMap<u64, Vec<Judged>>> =
        std::cell::RefCell::new(HashMap::new());
}

/// The per-process seed of the memo's hash (a hostile file cannot aim at one bucket).
fn memo_hasher() -> &'static foldhash::fast::RandomState {
    static SEED: std::sync::OnceLock<foldhash::fast::RandomState> = std::sync::OnceLock::new();
    SEED.get_or_init(foldhash::fast::RandomState::default)
}

/// The `--header` options of a remote server (empty for a stdio one).
pub fn pin_headers(spec: &ServerSpec) -> Arc<PinHeaders> {
    let Launch::Remote(remote) = &spec.launch else {
        static NONE: std::sync::LazyLock<Arc<PinHeaders>> =
            std::sync::LazyLock::new(|| Arc::new(PinHeaders::default()));
        return Arc::clone(&NONE);
    };
    let reader = reader_of(spec);
    let declared = &spec.declared.headers;
    let key = std::hash::BuildHasher::hash_one(memo_hasher(), (reader, &remote.headers, declared));
    let same = |(r, launched, written): &HeaderInputs| {
        *r == reader && launched == &remote.headers && written == declared
    };
    let known = PIN_HEADERS.with(|memo| {
        memo.borrow()
            .get(&key)
            .and_then(|bucket| bucket.iter().find(|(input, _)| same(input)))
            .map(|(_, headers)| Arc::clone(headers))
    });
    if let Some(headers) = known {
        return headers;
    }
    let headers = Arc::new(judge_headers(spec, remote, reader));
    PIN_HEADERS.with(|memo| {
        memo.borrow_mut().entry(key).or_default().push((
            (reader, remote.headers.clone(), declared.clone()),
            Arc::clone(&headers),
        ));
    });
    headers
}

/// [`pin_headers`] without the memo.
fn judge_headers(
    spec: &ServerSpec,
    remote: &crate::model::RemoteLaunch,
    reader: Option<Reader>,
) -> PinHeaders {
    // Every variable reference, in the client's syntax, marked; the marks become
    // `${NAME}` once every `$` the client keeps literally has been ruled out.
    let as_reference = |name: &str| Some(format!("{REFERENCE_OPEN}{name}{REFERENCE_CLOSE}"));
    let known = Known::default();
    let declared = &spec.declared.headers;
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = PinHeaders::default();
    // (name, Some((variables, value)) when the value prints as it is)
    let mut pending: Vec<(String, Option<Printable>)> = Vec::new();
    for (i, (name, written)) in written_pairs(&remote.headers, declared)
        .into_iter()
        .enumerate()
    {
        if !is_header_name(name) || names_a_credential(name) {
            out.unnamed += 1;
            continue;
        }
        let value = match reader {
            Some(r) if !built_by_codex(reader, i, declared.len()) => in_pins_syntax(&expand_with(
                r,
                UnsetEnv::Literal,
                Field::HeaderValue,
                written,
                &known,
                &as_reference,
            ))
            .filter(|_| !written.contains([REFERENCE_OPEN, REFERENCE_CLOSE])),
            _ => Some(written.to_string()),
        };
        let value = value.as_deref().unwrap_or("$").trim_start();
        let parsed = references(value)
            .filter(|(_, literal)| literal_is_harmless(name, literal))
            .filter(|(names, _)| !names.iter().any(|n| names_a_credential(n)))
            // A control, format or separator character would be neutralised when
            // printed (or break the line): the printed value would not be the one
            // the client sends, so it is withheld.
            .filter(|_| !value.chars().any(is_neutralised))
            // Judged on the printed form too: the redactor reads `Name: value` as
            // an auth-shaped pair when the name is auth-like in its own terms
            // (`X_pat: /r`), whatever the header-name words above say.
            .filter(|_| !has_credential(&format!("{name}: {value}")));
        if let Some((names, _)) = &parsed {
            taken.extend(names.iter().cloned());
        }
        pending.push((
            name.to_string(),
            parsed.map(|(names, _)| (names, value.to_string())),
        ));
    }
    for (name, parsed) in pending {
        out.headers.push(match parsed {
            Some((variables, value)) => PinHeader {
                text: format!("{name}: {value}"),
                variables: variables
                    .into_iter()
                    .filter(|v| !is_execution_control(v))
                    .collect(),
                withheld: false,
            },
            None => {
                let var = placeholder_for(&name, &taken);
                taken.insert(var.clone());
                PinHeader {
                    text: format!("{name}: ${{{var}}}"),
                    variables: vec![var],
                    withheld: true,
                }
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::Readers;

    fn remote(reader: Reader, headers: &[(&str, &str)]) -> ServerSpec {
        let pairs: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut spec = ServerSpec::remote("https://h.example/mcp").with_headers(pairs);
        spec.origin.readers = Readers::of(&[reader]);
        spec
    }

    fn texts(spec: &ServerSpec) -> Vec<String> {
        pin_headers(spec)
            .headers
            .iter()
            .map(|h| h.text.clone())
            .collect()
    }

    /// The memo answers only for the very same input: the same header under
    /// another reader (VS Code sends `${NAME}` literally) or with other declared
    /// values is judged again, and asking twice gives the first judgment.
    #[test]
    fn remembered_judgments_are_per_input() {
        let claude = remote(Reader::ClaudeCode, &[("X-Api-Key", "${FM_KEY}")]);
        let vscode = remote(Reader::VsCode, &[("X-Api-Key", "${FM_KEY}")]);
        for _ in 0..2 {
            assert_eq!(texts(&claude), ["X-Api-Key: ${FM_KEY}"]);
            assert_eq!(texts(&vscode), ["X-Api-Key: ${MCP_HEADER_X_API_KEY}"]);
        }
        let secret = remote(Reader::ClaudeCode, &[("X-Api-Key", "Sup3rS3cretPw9")]);
        assert_eq!(texts(&secret), ["X-Api-Key: ${MCP_HEADER_X_API_KEY}"]);
        assert_eq!(texts(&claude), ["X-Api-Key: ${FM_KEY}"]);
    }

    /// Lock naming and Next steps share one judgment per header map: the same
    /// input gets the very same `PinHeaders`, not a copy.
    #[test]
    fn one_judgment_is_shared_not_copied() {
        let a = remote(Reader::ClaudeCode, &[("X-Api-Key", "${FM_KEY}")]);
        let b = a.clone();
        assert!(Arc::ptr_eq(&pin_headers(&a), &pin_headers(&b)));
        let stdio = ServerSpec::stdio("srv", &[]);
        assert!(pin_headers(&stdio).headers.is_empty());
        assert_eq!(pin_headers(&stdio).unnamed, 0);
    }

    #[test]
    fn references_print_in_pins_syntax_and_credentials_never() {
        let spec = remote(
            Reader::ClaudeCode,
            &[
                ("X-Api-Key", "${FM_KEY}"),
                ("Authorization", "Bearer ${TOKEN:-x}"),
                ("X-Trace", "on"),
                ("Cookie", "sid=abc123"),
                (
                    "Authorization2",
                    "Bearer ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
                ),
                ("X-Plain", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
                ("X-Dollar", "a$b"),
                ("X-Other", "k=Sup3rS3cretPw9"),
                ("Accept-Language", "en-US,en;q=0.9"),
            ],
        );
        assert_eq!(
            texts(&spec),
            [
                "X-Api-Key: ${FM_KEY}",
                "Authorization: Bearer ${TOKEN}",
                "X-Trace: on",
                "Cookie: ${MCP_HEADER_COOKIE}",
                "Authorization2: ${MCP_HEADER_AUTHORIZATION2}",
                "X-Plain: ${MCP_HEADER_X_PLAIN}",
                "X-Dollar: ${MCP_HEADER_X_DOLLAR}",
                "X-Other: ${MCP_HEADER_X_OTHER}",
                "Accept-Language: en-US,en;q=0.9",
            ]
        );
        // VS Code's `${env:X}` is `${X}` for pin.
        let spec = remote(Reader::VsCode, &[("X-Api-Key", "${env:FM_KEY}")]);
        assert_eq!(texts(&spec), ["X-Api-Key: ${FM_KEY}"]);
        // A placeholder never takes a name a reference already uses.
        let spec = remote(
            Reader::ClaudeCode,
            &[
                ("X-Key", "${MCP_HEADER_X_KEY_X}"),
                ("X-Key-X", "literal-secret-value"),
            ],
        );
        assert_eq!(
            texts(&spec),
            [
                "X-Key: ${MCP_HEADER_X_KEY_X}",
                "X-Key-X: ${MCP_HEADER_X_KEY_X_2}"
            ]
        );
        // Names that are not HTTP tokens are dropped and counted.
        let spec = remote(Reader::ClaudeCode, &[("A B", "x"), ("X\n", "y")]);
        let h = pin_headers(&spec);
        assert!(h.headers.is_empty());
        assert_eq!(h.unnamed, 2);
    }

    #[test]
    fn env_names_are_plain_or_not_printed() {
        let spec = ServerSpec::stdio("srv", &[]).with_env(
            [
                ("GITHUB_TOKEN", "x"),
                ("A B", "x"),
                ("X;rm -rf ~", "x"),
                ("--lock", "x"),
                ("1X", "x"),
                ("_ok", "x"),
                ("$(id)", "x"),
            ]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        );
        let env = pin_env(&spec);
        assert_eq!(env.names, ["GITHUB_TOKEN", "_ok"]);
        assert_eq!(env.unnamed, 5);
    }

    #[test]
    fn names_holding_a_credential_are_never_printed() {
        let gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        let spec = ServerSpec::stdio("srv", &[]).with_env(vec![
            (gh.to_string(), "x".to_string()),
            ("AKIAIOSFODNN7EXAMPLQ".to_string(), "x".to_string()),
            ("API_TOKEN".to_string(), "x".to_string()),
        ]);
        let env = pin_env(&spec);
        assert_eq!(env.names, ["API_TOKEN"]);
        assert_eq!(env.unnamed, 2);
        let reference = format!("${{{gh}}}");
        let spec = remote(
            Reader::ClaudeCode,
            &[
                (
                    "xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJabcd",
                    "on",
                ),
                ("X-Trace", &reference),
                ("X-Ok", "${FM_KEY}"),
            ],
        );
        let h = pin_headers(&spec);
        assert_eq!(h.unnamed, 1);
        assert_eq!(
            texts(&spec),
            ["X-Trace: ${MCP_HEADER_X_TRACE}", "X-Ok: ${FM_KEY}"]
        );
        // A placeholder upper-cases the name: one that then reads as a credential
        // takes a neutral name.
        let spec = remote(
            Reader::ClaudeCode,
            &[
                ("akiaiosfodnn7examplq", "Sup3rS3cretPw9"),
                ("-4e5f-6a7bhttpsrofile", "Sup3rS3cretPw9"),
            ],
        );
        let shown = texts(&spec);
        assert_eq!(shown.len(), 2, "{shown:?}");
        // A pair the redactor reads as auth-shaped is withheld whatever the words.
        let spec = remote(Reader::ClaudeCode, &[("_pat_THERYhttp", "/r")]);
        assert_eq!(
            texts(&spec),
            ["_pat_THERYhttp: ${MCP_HEADER_PAT_THERYHTTP}"]
        );
        // A value with a character the printer would neutralise is withheld too.
        for odd in ["//\u{c}", "a\u{b}b", "x\u{2028}", "on\u{202e}", "v\u{85}"] {
            let spec = remote(Reader::ClaudeCode, &[("X-Trace", odd)]);
            assert_eq!(texts(&spec), ["X-Trace: ${MCP_HEADER_X_TRACE}"], "{odd:?}");
        }
        for text in shown {
            assert!(!names_a_credential(&text), "{text}");
            assert!(text.contains("${MCP_HEADER_VALUE"), "{text}");
        }
    }

    #[test]
    fn doctor_pin_expands_env_in_each_clients_syntax() {
        let lookup = |name: &str| (name == "RAW_TOKEN").then(|| "s3cret".to_string());
        let known = Known::default();
        for (reader, written, want) in [
            (Reader::ClaudeCode, "${RAW_TOKEN}", "s3cret"),
            (Reader::ClaudeCode, "${UNSET:-dflt}", "dflt"),
            (Reader::ClaudeCode, "${RAW_TOKEN:-dflt}", "s3cret"),
            (Reader::VsCode, "${env:RAW_TOKEN}", "s3cret"),
            (Reader::VsCode, "${RAW_TOKEN}", "${RAW_TOKEN}"),
            (Reader::Cursor, "x${env:RAW_TOKEN}", "xs3cret"),
            (Reader::GeminiCli, "$RAW_TOKEN", "s3cret"),
            (Reader::GeminiCli, "${RAW_TOKEN}", "s3cret"),
            (Reader::OpenCode, "{env:RAW_TOKEN}", "s3cret"),
            (Reader::Cline, "${env:RAW_TOKEN}", "s3cret"),
            (Reader::AmazonQ, "${env:RAW_TOKEN}", "s3cret"),
            (Reader::AmazonQ, "${env:UNSET}", "${UNSET}"),
            (Reader::ClaudeDesktop, "${RAW_TOKEN}", "${RAW_TOKEN}"),
        ] {
            let mut spec = ServerSpec::stdio("srv", &[])
                .with_env(vec![("T".to_string(), written.to_string())]);
            spec.origin.readers = Readers::of(&[reader]);
            let e = expanded(&spec, &known, &lookup);
            assert_eq!(
                e.env,
                [("T".to_string(), want.to_string())],
                "{reader:?} {written}"
            );
        }
        // Codex forwards `env_vars` only when set.
        let mut spec = ServerSpec::stdio("srv", &[]).with_env(vec![
            ("RAW_TOKEN".into(), "${RAW_TOKEN}".into()),
            ("UNSET".into(), "${UNSET}".into()),
        ]);
        std::sync::Arc::make_mut(&mut spec.declared).env.clear();
        spec.origin.readers = Readers::of(&[Reader::Codex]);
        let e = expanded(&spec, &known, &lookup);
        assert_eq!(e.env, [("RAW_TOKEN".to_string(), "s3cret".to_string())]);
        assert_eq!(e.unset, ["UNSET"]);
    }
}
