//! Discovery: which files doctor may read, as a function of (platform, home, cwd,
//! the relocation variables, the system root) plus metadata-only probes (`.git`
//! existence, `lstat`, directory listings).
//!
//! Only documented locations are ever considered (DOCTOR.md §1 and every client's
//! own documentation or source; the table is in `locations.rs`); nothing here opens
//! or reads a file. The symlink rule is checked per component below each
//! candidate's base here ([`probe`], with `lstat`, before anything could follow a
//! link), and again, race-free, when [`super::open`] opens the file with
//! `RESOLVE_NO_SYMLINKS`. Directories that hold one file per entry (VS Code
//! profiles, Continue's `mcpServers/`, Claude Desktop extensions) are listed by
//! name only (`listing.rs`); each file found is a candidate like any other.

mod explicit;
mod kinds;
mod listing;
mod locations;
#[cfg(test)]
mod tests;

use crate::hash::HashSet;
use crate::hash::HashSetExt;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::cli::Platform;
use crate::file_kind::FileKind;
use crate::model::{Client, Layer};
use crate::protocol::FileFormat;
use crate::reading::Reader;

pub use explicit::{explicit_format, explicit_reading};
pub use listing::{ListingProblem, MAX_LISTED};

/// How many ancestors the project walk-up visits at most.
pub const MAX_WALK_UP: usize = 32;

/// The environment variables discovery honours, each only where its client
/// honours it. `None` is unset or empty: a location derived from a variable that is
/// not there does not exist (never guessed), and a relocation variable that is not
/// there leaves its client's default in place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `%APPDATA%` (win32 only): Claude Desktop, VS Code, Cursor's user data, Zed.
    pub appdata: Option<OsString>,
    /// `%ProgramData%` (win32 only): Codex's system `config.toml`.
    pub program_data: Option<OsString>,
    /// Claude Code's config home (`~/.claude`), which also holds `.claude.json`.
    pub claude_config_dir: Option<OsString>,
    /// Codex's home (`~/.codex`).
    pub codex_home: Option<OsString>,
    /// GitHub Copilot CLI's home (`~/.copilot`).
    pub copilot_home: Option<OsString>,
    /// The XDG config home: Linux `~/.config` paths, and OpenCode's config
    /// directory on every platform (it uses `xdg-basedir`); only an absolute value
    /// counts.
    pub xdg_config_home: Option<OsString>,
    /// Gemini CLI's system settings file, replacing the platform's default.
    pub gemini_system_settings: Option<OsString>,
}

impl Environment {
    /// Read the variables from `get` (the process environment in production),
    /// dropping the empty ones and those the platform does not use.
    pub fn read(platform: Platform, get: impl Fn(&str) -> Option<OsString>) -> Environment {
        let var = |name: &str| get(name).filter(|v| !v.is_empty());
        let win = platform == Platform::Win32;
        Environment {
            appdata: var("APPDATA").filter(|_| win),
            program_data: var("ProgramData").filter(|_| win),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            copilot_home: var("COPILOT_HOME"),
            // The XDG rule: a relative value is invalid and ignored.
            xdg_config_home: var("XDG_CONFIG_HOME").filter(|v| Path::new(v).is_absolute()),
            gemini_system_settings: var("GEMINI_CLI_SYSTEM_SETTINGS_PATH"),
        }
    }
}

/// The inputs discovery depends on, so tests can inject every one of them.
#[derive(Debug, Clone)]
pub struct DiscoveryInput {
    pub platform: Platform,
    pub home: PathBuf,
    pub cwd: PathBuf,
    pub env: Environment,
    /// Absolute system paths (`/etc/codex/config.toml`, `C:\Program Files\…`) are
    /// resolved below this directory: `/` in use, a temporary directory in tests.
    pub system_root: PathBuf,
}

/// One place a config may live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Name shown in the report (`Cursor`, `VS Code (project)`).
    pub label: &'static str,
    /// The client that reads this file as its own.
    pub client: Client,
    /// The file's layer among that client's files.
    pub layer: Layer,
    pub path: PathBuf,
    /// Components of `path` below `base` must not be symlinks.
    pub base: PathBuf,
    pub format: FileFormat,
    /// The clients that read this file, each its own way (`crate::reading`).
    pub readers: &'static [Reader],
    /// The project directory this candidate belongs to (project-scoped entries only);
    /// its lock files are searched too.
    pub project_root: Option<PathBuf>,
}

/// What discovery found: the candidates, the relocation variables that moved a
/// path, and the listings that were cut short or refused (each a skip).
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub candidates: Vec<Candidate>,
    /// `(variable, directory or file)` for each variable that moved a location.
    pub relocations: Vec<(&'static str, PathBuf)>,
    pub problems: Vec<ListingProblem>,
}

impl Platform {
    /// The platform this binary runs on, mapped like the earlier implementation.
    pub fn host() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::Darwin
        } else if cfg!(windows) {
            Platform::Win32
        } else {
            Platform::Linux
        }
    }
}

/// Every candidate: user-level entries first (the spec's files in the documented
/// order, then the other clients'), then the system and managed files, then the
/// project entries from cwd upwards; de-duplicated by path, first one wins (a
/// project file that is also a user file, as when cwd is home, stays a user file).
/// Two paths that lead to one file (a relocation variable through a symlink or
/// `..`) are de-duplicated when opened, by the file's identity, with the same rule.
pub fn discover(input: &DiscoveryInput) -> Discovery {
    let mut found = Discovery::default();
    locations::user(input, &mut found);
    locations::system(input, &mut found);
    for dir in project_chain(&input.home, &input.cwd) {
        locations::project(&dir, &mut found);
    }
    let mut seen = HashSet::new();
    found.candidates.retain(|c| seen.insert(c.path.clone()));
    found
}

/// The candidates alone (tests and callers that need no listing problems).
pub fn candidates(input: &DiscoveryInput) -> Vec<Candidate> {
    discover(input).candidates
}

/// The project directories from cwd upwards.
///
/// The walk stops at the first directory holding `.git` (included) or at home when
/// cwd is under home (included), whichever comes first, after at most
/// [`MAX_WALK_UP`] directories. A walk that reaches neither (cwd outside home with no
/// repository, or too deep) yields cwd alone: an unbounded walk from `/tmp/x` would
/// otherwise read a world-writable `/tmp/.mcp.json`.
pub fn project_chain(home: &Path, cwd: &Path) -> Vec<PathBuf> {
    let under_home = is_within(cwd, home);
    let mut chain = Vec::new();
    let mut dir = cwd.to_path_buf();
    for _ in 0..MAX_WALK_UP {
        chain.push(dir.clone());
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return chain;
        }
        if under_home && same_dir(&dir, home) {
            return chain;
        }
        match dir.parent() {
            Some(parent) => dir = parent.to_path_buf(),
            None => break,
        }
    }
    vec![cwd.to_path_buf()]
}

/// `path` equals `dir` or lies below it, comparing both as given and as resolved
/// (a home reached through a symlink still counts).
pub fn is_within(path: &Path, dir: &Path) -> bool {
    if path.starts_with(dir) {
        return true;
    }
    match (std::fs::canonicalize(path), std::fs::canonicalize(dir)) {
        (Ok(p), Ok(d)) => p.starts_with(d),
        _ => false,
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// What is at a discovered path, judged before anything follows a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Nothing there: a component is missing, or one below the base is not a
    /// directory (nothing can live under a file).
    Absent,
    /// A symlink at `at`: the file itself or a directory component below the base.
    /// Dangling or not, pointing at a file, a directory or a FIFO: the same verdict.
    Symlink { at: PathBuf },
    /// The path names this kind of object, reached through directories only.
    Found(FileKind),
    /// A component could not be examined (permission denied, I/O error).
    Failed { at: PathBuf, reason: String },
}

/// Examine `path` (below `base`) one component at a time with `lstat`, never
/// following a link, so the symlink rule is applied before anything else: a
/// dangling link, or one to a directory or a FIFO, is a symlink here, never an
/// absent file. `base` itself is trusted (a home reached through a symlink is
/// still the home). A path not below `base`, or one with `..` below it, is refused
/// like a symlink: it could leave the base.
pub fn probe(base: &Path, path: &Path) -> Probe {
    let Ok(rel) = path.strip_prefix(base) else {
        return Probe::Symlink {
            at: path.to_path_buf(),
        };
    };
    let mut current = base.to_path_buf();
    let mut components = rel.components().peekable();
    while let Some(component) = components.next() {
        match component {
            Component::Normal(name) => current.push(name),
            Component::CurDir => continue,
            _ => return Probe::Symlink { at: current },
        }
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            Err(e) => {
                return match e.raw_os_error().map(nix::errno::Errno::from_raw) {
                    Some(nix::errno::Errno::ENOENT | nix::errno::Errno::ENOTDIR) => Probe::Absent,
                    _ => Probe::Failed {
                        at: current,
                        reason: io_reason(&e),
                    },
                }
            }
        };
        let kind = FileKind::of(meta.file_type());
        let last = components.peek().is_none();
        match kind {
            FileKind::Symlink => return Probe::Symlink { at: current },
            _ if last => return Probe::Found(kind),
            FileKind::Directory => {}
            _ => return Probe::Absent,
        }
    }
    // `path == base`: the base is a directory by construction.
    Probe::Found(FileKind::Directory)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// `~/rel` for paths under home (always `/` separators), else the path as given.
pub fn display_path(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            format!("~/{}", parts.join("/"))
        }
        _ => path.to_string_lossy().into_owned(),
    }
}
