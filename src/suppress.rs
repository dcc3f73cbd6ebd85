//! User suppressions (`ignore.toml`): where the user's file is, what an entry means,
//! and which findings it suppresses.
//!
//! # Trust
//!
//! The file is the user's own: its location is a function of the user's
//! environment alone ([`user_file`]: `$XDG_CONFIG_HOME` when absolute, else
//! `~/.config` when the home directory is absolute (a relative `HOME` would resolve
//! below the directory doctor runs in: no user file then), on Linux and macOS; `%APPDATA%` on Windows), or the path named with
//! `--ignore-file`. Nothing below the directory doctor runs in, and nothing the scan
//! discovers, is ever consulted, so a cloned repository cannot silence findings
//! about its own servers. Below the configuration directory no component may be a
//! symlink (the discovery rule): a link into a repository is refused and reported,
//! never followed; `--ignore-file` may name a symlink, as `--config` may.
//!
//! # Entries
//!
//! ```toml
//! [[ignore]]
//! rule = "WRD-SUP-NPX-UNPINNED"         # one rule id
//! target = "~/.cursor/mcp.json#*"        # a glob over the finding's target
//! reason = "pinned by the internal mirror"   # required, not blank
//! expires = "2027-01-31"                 # required: the last day it applies (UTC)
//! ```
//!
//! An entry applies through its `expires` day (UTC) and not after. An entry that is
//! malformed (a missing or blank field, an unknown rule id, a bad glob, a date that
//! is not a calendar date) is a `WRD-DOCTOR-IGNORE-INVALID` finding and suppresses
//! nothing; an expired one is a `WRD-DOCTOR-IGNORE-EXPIRED` finding and suppresses
//! nothing. An entry that matches no finding is not a finding: one file serves every
//! project, and a run in one project does not meet the others' servers.
//!
//! # Target globs
//!
//! Matched against the whole target as doctor prints it (`~/.cursor/mcp.json#github`,
//! `~/.claude.json#projects[/home/u/app]#db`). Separators are `/` and `#`:
//!
//! * `*` matches any run of characters without a separator, `?` one such character;
//! * `**` matches any run of characters, separators included (`**/` also matches
//!   nothing, so `**/.mcp.json#x` matches `.mcp.json#x`);
//! * `\` makes the next character literal (`\*`, `\?`, `\\`); every other character
//!   is literal, `~` included: a file under the home directory prints as `~/…`, and a
//!   glob that starts with the home directory's absolute path is read as `~/…`.

use crate::hash::HashMapExt;
use std::path::{Path, PathBuf};

use crate::cli::Platform;
use crate::model::{FieldPath, Finding, Position, Report, SettingFinding, Suppression};
use crate::protocol::{IgnoreEntry, IgnoreList};
use crate::rules::RuleId;

/// Largest suppression file read (a real one is a few kilobytes).
pub const IGNORE_SIZE_CAP: u64 = 1 << 20;
/// Longest target glob accepted, in bytes.
const MAX_GLOB_BYTES: usize = 4096;

/// Where the user's own suppression file is: `path`, below `base`, the directory
/// the user chose (no component between them may be a symlink).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserFile {
    pub base: PathBuf,
    pub path: PathBuf,
}

/// The user's suppression file on `platform`, from the user's environment only;
/// `None` on Windows without `%APPDATA%` and elsewhere when the file would be
/// below a relative home without an absolute `$XDG_CONFIG_HOME` (never guessed,
/// never resolved against the directory doctor runs in).
pub fn user_file(
    platform: Platform,
    home: &Path,
    xdg_config_home: Option<&Path>,
    appdata: Option<&Path>,
) -> Option<UserFile> {
    let base = match platform {
        Platform::Win32 => appdata.filter(|a| a.is_absolute())?.to_path_buf(),
        Platform::Linux | Platform::Darwin => match xdg_config_home.filter(|x| x.is_absolute()) {
            Some(xdg) => xdg.to_path_buf(),
            // A relative home is below the directory doctor runs in: never used.
            None if home.is_absolute() => home.join(".config"),
            None => return None,
        },
    };
    Some(UserFile {
        path: base.join("mcp-warden").join("ignore.toml"),
        base,
    })
}

/// A calendar date (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// `YYYY-MM-DD`, exactly, naming a day that exists.
    pub fn parse(text: &str) -> Option<Date> {
        let b = text.as_bytes();
        let digits = |r: std::ops::Range<usize>| -> Option<u32> {
            b.get(r.clone())
                .filter(|d| d.iter().all(u8::is_ascii_digit))
                .and_then(|_| text.get(r))
                .and_then(|s| s.parse().ok())
        };
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days).contains(&day).then_some(Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }

    /// Today in UTC, from the system clock (the lock's one clock reading).
    pub fn today_utc() -> Date {
        let now = crate::pin::time::now_rfc3339();
        now.get(..10).and_then(Date::parse).unwrap_or(Date {
            year: 1970,
            month: 1,
            day: 1,
        })
    }
}

/// A compiled target glob (see the module docs).
#[derive(Debug, Clone)]
pub struct Glob(regex::Regex);

impl Glob {
    /// Compile `pattern`; a leading `<home>/` is read as `~/`.
    pub fn new(pattern: &str, home: Option<&str>) -> Result<Glob, String> {
        if pattern.is_empty() {
            return Err("target is empty".into());
        }
        if pattern.len() > MAX_GLOB_BYTES {
            return Err(format!("target is longer than {MAX_GLOB_BYTES} bytes"));
        }
        let pattern = match home.map(|h| h.trim_end_matches('/')) {
            Some(h) if !h.is_empty() => match pattern.strip_prefix(h) {
                Some(rest) if rest.starts_with('/') => format!("~{rest}"),
                _ => pattern.to_string(),
            },
            _ => pattern.to_string(),
        };
        let mut re = String::from("(?s)\\A");
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(next) => re.push_str(&regex::escape(&next.to_string())),
                    None => return Err("target ends with a lone \\".into()),
                },
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    if chars.peek() == Some(&'*') {
                        return Err("target has *** (use ** for any run of characters)".into());
                    }
                    if chars.peek() == Some(&'/') {
                        chars.next();
                        re.push_str("(?:.*/)?");
                    } else {
                        re.push_str(".*");
                    }
                }
                '*' => re.push_str("[^/#]*"),
                '?' => re.push_str("[^/#]"),
                c => re.push_str(&regex::escape(&c.to_string())),
            }
        }
        re.push_str("\\z");
        regex::Regex::new(&re)
            .map(Glob)
            .map_err(|_| "target is too complex a glob".into())
    }

    pub fn matches(&self, target: &str) -> bool {
        self.0.is_match(target)
    }
}

/// One entry, checked.
#[derive(Debug)]
enum Entry {
    Valid {
        rule: RuleId,
        glob: Glob,
        suppression: Suppression,
        expires: Date,
    },
    /// Malformed: which field and why.
    Invalid {
        field: Option<&'static str>,
        why: String,
    },
}

/// Rules an entry may not name: the file's own findings cannot be silenced by it.
fn unsuppressible(rule: RuleId) -> bool {
    matches!(
        rule,
        RuleId::DoctorIgnoreExpired | RuleId::DoctorIgnoreInvalid
    )
}

fn check(entry: &IgnoreEntry, home: Option<&str>) -> Entry {
    let invalid = |field, why: String| Entry::Invalid { field, why };
    if let Some(why) = &entry.shape_error {
        return invalid(None, why.clone());
    }
    let Some(rule_text) = entry.rule.as_deref() else {
        return invalid(Some("rule"), "rule is missing".into());
    };
    let rule = match RuleId::from_code(rule_text) {
        Some(rule) if unsuppressible(rule) => {
            return invalid(
                Some("rule"),
                format!("{rule_text} cannot be suppressed (it reports this file's own entries)"),
            )
        }
        Some(rule) => rule,
        None => {
            return invalid(
                Some("rule"),
                format!("{rule_text:?} is not a rule id (see docs/rules.md)"),
            )
        }
    };
    let Some(target) = entry.target.as_deref() else {
        return invalid(Some("target"), "target is missing".into());
    };
    let glob = match Glob::new(target, home) {
        Ok(glob) => glob,
        Err(why) => return invalid(Some("target"), why),
    };
    let reason = match entry.reason.as_deref().map(str::trim) {
        None => {
            return invalid(
                Some("reason"),
                "reason is missing (say why the finding is accepted)".into(),
            )
        }
        Some("") => {
            return invalid(
                Some("reason"),
                "reason is blank (say why the finding is accepted)".into(),
            )
        }
        Some(r) => r.to_string(),
    };
    let Some(expires_text) = entry.expires.as_deref() else {
        return invalid(
            Some("expires"),
            "expires is missing (the last day the entry applies, YYYY-MM-DD)".into(),
        );
    };
    let Some(expires) = Date::parse(expires_text) else {
        return invalid(
            Some("expires"),
            format!("expires {expires_text:?} is not a date of the form YYYY-MM-DD"),
        );
    };
    Entry::Valid {
        rule,
        glob,
        suppression: Suppression {
            reason,
            expires: expires_text.to_string(),
        },
        expires,
    }
}

/// A target (kept alive while its address is a key) and the index of the first
/// entry of the finding's rule that matches it.
type Decided = (std::sync::Arc<str>, Option<usize>);

/// Where the suppression file's own findings go.
#[derive(Debug, Clone, Copy)]
pub struct FileAt {
    /// Index into [`Report::sources`] of the file's source.
    pub source: usize,
}

/// Apply `list` (from the file at `at`, shown as `label`) to every finding of
/// `report`, then add the file's own findings (expired and malformed entries) to
/// [`Report::setting_findings`]. The first valid, unexpired entry whose rule and
/// target match a finding suppresses it. Returns how many findings were suppressed.
pub fn apply(
    report: &mut Report,
    list: &IgnoreList,
    at: FileAt,
    label: &str,
    today: Date,
    home: Option<&str>,
) -> usize {
    let entries: Vec<(&IgnoreEntry, Entry)> =
        list.entries.iter().map(|e| (e, check(e, home))).collect();
    // Live entries by rule, in file order: a finding is matched against its own
    // rule's globs only.
    let mut live: crate::hash::HashMap<RuleId, Vec<(&Glob, &Suppression)>> =
        crate::hash::HashMap::new();
    for (_, e) in &entries {
        if let Entry::Valid {
            rule,
            glob,
            suppression,
            expires,
        } = e
        {
            if *expires >= today {
                live.entry(*rule).or_default().push((glob, suppression));
            }
        }
    }
    let mut suppressed = 0;
    if !live.is_empty() {
        let findings = report
            .servers
            .iter_mut()
            .flat_map(|s| s.findings.iter_mut())
            .chain(report.setting_findings.iter_mut().map(|f| &mut f.finding));
        // The first matching entry per (rule, target), decided once: a server's
        // thousands of findings share one target (one `Arc`), which may be 64 KiB
        // long, and each of hundreds of globs may have to read all of it. Keyed by
        // the allocation, not the text, so a finding costs no hash of its target;
        // the kept clone keeps the address from being reused.
        let mut decided: crate::hash::HashMap<(RuleId, *const u8), Decided> =
            crate::hash::HashMap::new();
        for finding in findings {
            if unsuppressible(finding.rule) || finding.suppressed.is_some() {
                continue;
            }
            let Some(globs) = live.get(&finding.rule) else {
                continue;
            };
            let key = (finding.rule, finding.target.as_ptr());
            let (_, hit) = decided.entry(key).or_insert_with(|| {
                let first = globs
                    .iter()
                    .position(|(glob, _)| glob.matches(&finding.target));
                (finding.target.clone(), first)
            });
            if let Some((_, suppression)) = hit.and_then(|i| globs.get(i)) {
                finding.suppressed = Some(Box::new((*suppression).clone()));
                suppressed += 1;
            }
        }
    }
    let target: std::sync::Arc<str> = label.into();
    for (n, (raw, entry)) in entries.iter().enumerate() {
        let snippet = format!(
            "[[ignore]] #{}{}",
            n + 1,
            raw.rule
                .as_deref()
                .map(|r| format!(" {}", short(r)))
                .unwrap_or_default()
        );
        let (rule, message, field) = match entry {
            Entry::Invalid { field, why } => (
                RuleId::DoctorIgnoreInvalid,
                format!("suppression entry {} is malformed and suppresses nothing: {why}", n + 1),
                *field,
            ),
            Entry::Valid { expires, .. } if *expires < today => (
                RuleId::DoctorIgnoreExpired,
                format!(
                    "suppression entry {} expired on {}; the findings it covered are reported again",
                    n + 1,
                    raw.expires.as_deref().unwrap_or_default()
                ),
                Some("expires"),
            ),
            Entry::Valid { .. } => continue,
        };
        let mut finding = Finding::new(rule, target.clone(), message, snippet);
        // At the value of the field the finding names; at the entry's header when
        // it names none, or the field is missing.
        let (line, column) = field
            .and_then(|name| raw.at.of(name))
            .unwrap_or((raw.line, raw.column));
        finding.field = field.map(FieldPath::Named);
        finding.at = Some(Position { line, column });
        report.setting_findings.push(SettingFinding {
            source: at.source,
            line: raw.line,
            column: raw.column,
            finding,
        });
    }
    suppressed
}

/// A finding at the suppression file as a whole (it could not be used as it is).
pub fn file_finding(report: &mut Report, at: FileAt, label: &str, message: String) {
    report.setting_findings.push(SettingFinding {
        source: at.source,
        line: 0,
        column: 0,
        finding: Finding::new(
            RuleId::DoctorIgnoreInvalid,
            label.into(),
            message,
            label.to_string(),
        ),
    });
}

fn short(s: &str) -> String {
    if s.chars().count() <= 80 {
        s.to_string()
    } else {
        s.chars().take(79).collect::<String>() + "…"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_their_definition() {
        let g = |p: &str| Glob::new(p, Some("/home/u")).expect("glob");
        assert!(g("~/.cursor/mcp.json#*").matches("~/.cursor/mcp.json#github"));
        assert!(!g("~/.cursor/mcp.json#*").matches("~/.cursor/mcp.json#a/b"));
        assert!(!g("~/.cursor/mcp.json#*").matches("~/.cursor/mcp.json#gh#servers"));
        assert!(g("~/.cursor/mcp.json#**").matches("~/.cursor/mcp.json#gh#servers"));
        assert!(!g("~/*/mcp.json#x").matches("~/a/b/mcp.json#x"));
        assert!(g("~/**/mcp.json#x").matches("~/a/b/mcp.json#x"));
        assert!(g("**/.mcp.json#x").matches(".mcp.json#x"));
        assert!(g("**/.mcp.json#x").matches("~/src/app/.mcp.json#x"));
        assert!(!g("**/.mcp.json#x").matches("~/src/app/.mcp.json#xy"));
        assert!(g("~/.claude.json#projects[**]#db").matches("~/.claude.json#projects[/p/q]#db"));
        assert!(g("a?c").matches("abc") && !g("a?c").matches("a/c"));
        assert!(g("a\\*").matches("a*") && !g("a\\*").matches("ab"));
        // Anchored: the whole target.
        assert!(!g("mcp.json#x").matches("~/.cursor/mcp.json#x"));
        // The home directory's absolute path is read as `~`.
        assert!(g("/home/u/.cursor/mcp.json#*").matches("~/.cursor/mcp.json#x"));
        assert!(!g("/home/user/.cursor/mcp.json#*").matches("~/.cursor/mcp.json#x"));
        // Regex syntax is literal.
        assert!(g("a.b(c)+").matches("a.b(c)+") && !g("a.b").matches("axb"));
        for bad in ["", "a\\", "a***", &"x".repeat(MAX_GLOB_BYTES + 1)] {
            assert!(Glob::new(bad, None).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn dates_are_calendar_days() {
        assert_eq!(
            Date::parse("2024-02-29"),
            Some(Date {
                year: 2024,
                month: 2,
                day: 29
            })
        );
        for bad in [
            "2023-02-29",
            "2027-13-01",
            "2027-00-10",
            "2027-1-31",
            "2027-01-32",
            "27-01-31",
            "2027/01/31",
            "2027-01-31T00:00:00",
            "+027-01-31",
            "２０２７-01-31",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert_eq!(
            Date::parse(&crate::pin::time::format_unix(1_709_164_800)[..10]),
            Date::parse("2024-02-29")
        );
        assert!(Date::today_utc() > Date::parse("2020-01-01").expect("date"));
    }

    #[test]
    fn user_file_comes_from_the_environment_only() {
        let home = Path::new("/home/u");
        let at = |p, x: Option<&str>, a: Option<&str>| {
            user_file(p, home, x.map(Path::new), a.map(Path::new)).map(|f| f.path)
        };
        assert_eq!(
            at(Platform::Linux, None, None),
            Some(PathBuf::from("/home/u/.config/mcp-warden/ignore.toml"))
        );
        assert_eq!(
            at(Platform::Darwin, Some("/x"), None),
            Some(PathBuf::from("/x/mcp-warden/ignore.toml"))
        );
        // A relative XDG_CONFIG_HOME is invalid (XDG rule) and ignored.
        assert_eq!(
            at(Platform::Linux, Some("rel"), None),
            Some(PathBuf::from("/home/u/.config/mcp-warden/ignore.toml"))
        );
        assert_eq!(at(Platform::Win32, None, None), None);
        assert_eq!(at(Platform::Win32, Some("/x"), Some("rel")), None);
        assert_eq!(
            at(Platform::Win32, None, Some("/appdata")),
            Some(PathBuf::from("/appdata/mcp-warden/ignore.toml"))
        );
    }

    fn entry(rule: &str, target: &str, reason: &str, expires: &str) -> IgnoreEntry {
        IgnoreEntry {
            line: 1,
            column: 1,
            rule: Some(rule.into()),
            target: Some(target.into()),
            reason: Some(reason.into()),
            expires: Some(expires.into()),
            shape_error: None,
            at: crate::protocol::IgnorePositions::default(),
        }
    }

    #[test]
    fn entries_are_checked_field_by_field() {
        let today = Date::parse("2026-06-01").expect("date");
        let ok = entry("WRD-SUP-NPX-UNPINNED", "*", "r", "2026-06-01");
        assert!(matches!(check(&ok, None), Entry::Valid { expires, .. } if expires >= today));
        let field_of = |e: IgnoreEntry| match check(&e, None) {
            Entry::Invalid { field, .. } => field,
            Entry::Valid { .. } => Some("valid"),
        };
        let mut e = ok.clone();
        e.reason = Some("  ".into());
        assert_eq!(field_of(e), Some("reason"));
        let mut e = ok.clone();
        e.reason = None;
        assert_eq!(field_of(e), Some("reason"));
        let mut e = ok.clone();
        e.rule = Some("WRD-SUP-NPX-UNPINED".into());
        assert_eq!(field_of(e), Some("rule"));
        let mut e = ok.clone();
        e.rule = Some("WRD-DOCTOR-IGNORE-EXPIRED".into());
        assert_eq!(field_of(e), Some("rule"));
        let mut e = ok.clone();
        e.target = Some("a***".into());
        assert_eq!(field_of(e), Some("target"));
        let mut e = ok.clone();
        e.expires = Some("2026-02-30".into());
        assert_eq!(field_of(e), Some("expires"));
        let mut e = ok.clone();
        e.expires = None;
        assert_eq!(field_of(e), Some("expires"));
        let mut e = ok;
        e.shape_error = Some("unknown key".into());
        assert_eq!(field_of(e), None);
    }

    #[test]
    fn a_relative_home_has_no_users_file() {
        for home in [".", "home", "./x/.."] {
            let at = user_file(Platform::Linux, Path::new(home), None, None);
            assert_eq!(at, None, "{home}");
        }
        // An absolute XDG_CONFIG_HOME does not depend on the home directory.
        assert_eq!(
            user_file(Platform::Linux, Path::new("."), Some(Path::new("/x")), None).map(|f| f.path),
            Some(PathBuf::from("/x/mcp-warden/ignore.toml"))
        );
    }

    /// Hundreds of entries over thousands of findings that share long targets
    /// (the findings of one server): each (rule, target) is matched once, so the
    /// run ends within a deadline that matching every finding against every glob
    /// (40,000 × 300 globs over 16 KiB each) does not meet; and the result is the
    /// first matching entry, as before.
    #[test]
    fn findings_sharing_a_target_are_matched_once() {
        let today = Date::parse("2026-06-01").expect("date");
        let rule = "WRD-SEC-ENTROPY";
        let mut entries: Vec<IgnoreEntry> = (0..300)
            .map(|i| entry(rule, &format!("**#nomatch-*{i}"), "no", "2999-12-31"))
            .collect();
        entries.push(entry(rule, "~/.cursor/mcp.json#7-*", "seven", "2999-12-31"));
        entries.push(entry(rule, "**#7-*", "later", "2999-12-31"));
        let list = IgnoreList { entries };
        let mut report = Report::default();
        for server in 0..10 {
            let target: std::sync::Arc<str> =
                format!("~/.cursor/mcp.json#{server}-{}", "n".repeat(16 * 1024)).into();
            for _ in 0..4000 {
                report.setting_findings.push(SettingFinding {
                    source: 0,
                    line: 1,
                    column: 1,
                    finding: Finding::new(RuleId::SecEntropy, target.clone(), "m", "s".into()),
                });
            }
        }
        let started = std::time::Instant::now();
        let n = apply(
            &mut report,
            &list,
            FileAt { source: 0 },
            "ignore.toml",
            today,
            None,
        );
        let took = started.elapsed();
        assert_eq!(n, 4000);
        let reasons: Vec<Option<&str>> = report
            .setting_findings
            .iter()
            .map(|f| f.finding.suppressed.as_ref().map(|s| s.reason.as_str()))
            .collect();
        assert!(reasons[..28_000].iter().all(Option::is_none));
        assert!(reasons[28_000..32_000].iter().all(|r| *r == Some("seven")));
        assert!(reasons[32_000..40_000].iter().all(Option::is_none));
        assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    }
}
