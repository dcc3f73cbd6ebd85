//! Suppressions (`ignore.toml`): only the user's own file, or `--ignore-file`,
//! ever suppresses; a repository cannot silence findings about its servers, from
//! any place in its tree; expired and malformed entries are findings themselves.
//!
//! Exit codes carry the verdict: a suppressed finding never fails the run, so a
//! setup whose only finding is suppressed exits 0 and the same setup unsuppressed
//! exits 1.

use crate::util::{approved_lock, Env};

const NPX: &str = "WRD-SUP-NPX-UNPINNED";

/// `~/.cursor/mcp.json` with one server whose only finding is WRD-SUP-NPX-UNPINNED
/// (an approved lock in cwd covers its launch), and a repository checkout in `dir`
/// (relative to T) with the same kind of server in its `.mcp.json`.
fn setup(env: &Env, repo: &str) {
    env.cursor(serde_json::json!({"tool": {"command": "npx", "args": ["-y", "pkg"]}}));
    env.mkdir(&format!("{repo}/.git"));
    env.write(
        &format!("{repo}/.mcp.json"),
        serde_json::json!({"mcpServers": {"evil": {"command": "npx", "args": ["-y", "pkg"]}}})
            .to_string(),
    );
    let lock = approved_lock("npx", &["-y", "pkg"]).to_string();
    env.write(&format!("{repo}/warden.lock"), &lock);
    env.write("work/warden.lock", &lock);
}

fn entry(target: &str, expires: &str) -> String {
    format!(
        "[[ignore]]\nrule = \"{NPX}\"\ntarget = \"{target}\"\nreason = \"pinned by the mirror\"\nexpires = \"{expires}\"\n"
    )
}

/// Every place a repository might hope doctor looks for a suppression file.
const REPO_PLACES: &[&str] = &[
    "ignore.toml",
    "mcp-warden/ignore.toml",
    ".mcp-warden/ignore.toml",
    ".config/mcp-warden/ignore.toml",
    ".mcp-warden.toml",
    "mcp-warden.toml",
    ".github/mcp-warden/ignore.toml",
    ".vscode/mcp-warden/ignore.toml",
    "home/.config/mcp-warden/ignore.toml",
];

/// Findings (not suppressed) as (rule, target), via the exit code and JSONL.
fn npx_targets(run: &crate::util::Run) -> Vec<String> {
    run.rules()
        .into_iter()
        .filter(|(r, _)| r == NPX)
        .map(|(_, t)| t)
        .collect()
}

#[test]
fn the_users_own_file_suppresses() {
    let env = Env::new();
    setup(&env, "work/repo");
    env.doctor(&["--json"]).expect_code(1);
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#*", "2999-12-31"),
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(0);
    // Still reported: a suppressed finding stays in the report.
    assert_eq!(npx_targets(&run), ["~/.cursor/mcp.json#tool"]);
    // The glob may name the home directory by its absolute path.
    let abs = format!("{}/.cursor/mcp.json#tool", env.home().display());
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        entry(&abs, "2999-12-31"),
    );
    env.doctor(&["--json"]).expect_code(0);
    // A glob that does not match the target leaves the finding failing the run.
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#tool2", "2999-12-31"),
    );
    env.doctor(&["--json"]).expect_code(1);
}

#[test]
fn xdg_config_home_moves_the_users_file_only_when_absolute() {
    let mut env = Env::new();
    setup(&env, "work/repo");
    env.write(
        "xdg/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#*", "2999-12-31"),
    );
    env.extra_env
        .push(("XDG_CONFIG_HOME".into(), env.root().join("xdg").into()));
    env.doctor(&["--json"]).expect_code(0);
    // With XDG_CONFIG_HOME set, ~/.config is not read.
    let mut env2 = Env::new();
    setup(&env2, "work/repo");
    env2.write(
        "home/.config/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#*", "2999-12-31"),
    );
    env2.extra_env
        .push(("XDG_CONFIG_HOME".into(), env2.root().join("xdg").into()));
    env2.doctor(&["--json"]).expect_code(1);
    // A relative XDG_CONFIG_HOME (here one that names the cwd's own `.config`) is
    // invalid and ignored: the repository's copy is never read.
    let mut env3 = Env::new();
    setup(&env3, "work");
    env3.write(
        "work/.config/mcp-warden/ignore.toml",
        entry("**", "2999-12-31"),
    );
    env3.extra_env
        .push(("XDG_CONFIG_HOME".into(), ".config".into()));
    env3.doctor(&["--json"]).expect_code(1);
}

#[test]
fn a_relative_home_never_locates_the_users_file_in_the_checkout() {
    // `HOME=.` (a misconfigured CI job) with cwd a repository: `~/.config` would be
    // the repository's own `.config`, so the file there must not be read.
    for home in [".", "", "./", "work/.."] {
        let env = Env::new();
        setup(&env, "work");
        env.write(
            "work/.config/mcp-warden/ignore.toml",
            entry("**", "2999-12-31"),
        );
        env.write(
            "work/../.config/mcp-warden/ignore.toml",
            entry("**", "2999-12-31"),
        );
        let system = env.system_root();
        let mut cmd = env.command(&[
            "doctor",
            "--platform",
            "linux",
            "--system-root",
            system.to_str().expect("utf-8 path"),
            "--json",
        ]);
        cmd.env("HOME", home);
        let run = crate::util::Run::from(cmd.output().expect("run mcp-warden"));
        if home.is_empty() {
            // No home at all: a usage error, nothing read.
            run.expect_code(2);
            continue;
        }
        run.expect_code(1);
        assert!(
            npx_targets(&run)
                .iter()
                .any(|t| t.ends_with(".mcp.json#evil")),
            "HOME={home:?}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert!(
            run.stderr.contains("not an absolute path"),
            "HOME={home:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_hostile_repository_cannot_suppress_from_anywhere_in_its_tree() {
    let env = Env::new();
    setup(&env, "work");
    let everything = format!("{}{}", entry("**", "2999-12-31"), entry("*", "2999-12-31"));
    for place in REPO_PLACES {
        env.write(&format!("work/{place}"), &everything);
        env.write(&format!("work/sub/{place}"), &everything);
    }
    env.mkdir("work/sub/dir");
    for cwd in [
        env.work(),
        env.work().join("sub"),
        env.work().join("sub/dir"),
    ] {
        let run = env.doctor_in(&cwd, &["--json"]);
        run.expect_code(1);
        let targets = npx_targets(&run);
        assert!(
            targets.iter().any(|t| t.ends_with(".mcp.json#evil"))
                && targets.contains(&"~/.cursor/mcp.json#tool".to_string()),
            "{targets:?}\n{}",
            run.stderr
        );
    }
    // Even with the user's own file present, the repository's entries add nothing:
    // the user's entry covers their server only.
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#*", "2999-12-31"),
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    let targets = npx_targets(&run);
    assert!(
        targets.iter().any(|t| t.ends_with(".mcp.json#evil")),
        "{targets:?}"
    );
}

#[test]
fn running_inside_the_config_directory_reads_only_the_users_file() {
    // cwd is `~/.config` (and a repository cloned below it): the file at the
    // documented place is the user's; a repository's `ignore.toml` at cwd is not.
    let env = Env::new();
    setup(&env, "home/.config/cloned");
    env.write("home/.config/cloned/ignore.toml", entry("**", "2999-12-31"));
    env.write(
        "home/.config/cloned/mcp-warden/ignore.toml",
        entry("**", "2999-12-31"),
    );
    env.write(
        "home/.config/cloned/.config/mcp-warden/ignore.toml",
        entry("**", "2999-12-31"),
    );
    let run = env.doctor_in(&env.home().join(".config/cloned"), &["--json"]);
    run.expect_code(1);
    assert!(npx_targets(&run)
        .iter()
        .any(|t| t.ends_with("cloned/.mcp.json#evil")));
    // The user's file applies from there too, to what it names.
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        format!(
            "{}{}",
            entry("~/.config/cloned/.mcp.json#evil", "2999-12-31"),
            entry("~/.cursor/mcp.json#tool", "2999-12-31")
        ),
    );
    env.doctor_in(&env.home().join(".config/cloned"), &["--json"])
        .expect_code(0);
}

#[test]
fn a_symlinked_users_file_is_refused_and_reported() {
    // The link points into a repository: never followed, so nothing is suppressed,
    // and the refusal is a finding at the file.
    let env = Env::new();
    setup(&env, "work");
    let inside = env.write("work/ignore.toml", entry("**", "2999-12-31"));
    env.symlink(&inside, "home/.config/mcp-warden/ignore.toml");
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert!(npx_targets(&run).len() >= 2, "{}", run.stdout);
    assert!(
        run.rules().contains(&(
            "WRD-DOCTOR-IGNORE-INVALID".into(),
            "~/.config/mcp-warden/ignore.toml".into()
        )),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    // A symlinked directory below the configuration directory too.
    let env = Env::new();
    setup(&env, "work");
    env.write("work/mcp-warden/ignore.toml", entry("**", "2999-12-31"));
    env.mkdir("home/.config");
    env.symlink(&env.work().join("mcp-warden"), "home/.config/mcp-warden");
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert!(run
        .rule_ids()
        .contains(&"WRD-DOCTOR-IGNORE-INVALID".to_string()));
    // Named with --ignore-file, the same link is the user's choice and is followed.
    let link = env.home().join(".config/mcp-warden/ignore.toml");
    env.doctor(&["--json", "--ignore-file", link.to_str().expect("utf-8")])
        .expect_code(0);
}

#[test]
fn ignore_file_replaces_the_users_file() {
    let env = Env::new();
    setup(&env, "work/repo");
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#*", "2999-12-31"),
    );
    let other = env.write("elsewhere/none.toml", "");
    env.doctor(&["--json", "--ignore-file", other.to_str().expect("utf-8")])
        .expect_code(1);
    let named = env.write(
        "elsewhere/mine.toml",
        entry("~/.cursor/mcp.json#tool", "2999-12-31"),
    );
    env.doctor(&["--json", "--ignore-file", named.to_str().expect("utf-8")])
        .expect_code(0);
    // Relative to cwd.
    env.write(
        "work/mine.toml",
        entry("~/.cursor/mcp.json#tool", "2999-12-31"),
    );
    env.doctor(&["--json", "--ignore-file", "mine.toml"])
        .expect_code(0);
    // Named and missing, or not TOML: one error line, exit 2, nothing on stdout.
    for (path, content) in [
        ("elsewhere/missing.toml", None),
        ("elsewhere/bad.toml", Some("[[ignore]\n")),
    ] {
        let full = env.root().join(path);
        if let Some(c) = content {
            env.write(path, c);
        }
        let run = env.doctor(&["--json", "--ignore-file", full.to_str().expect("utf-8")]);
        run.expect_code(2);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(
            run.stderr
                .lines()
                .filter(|l| l.starts_with("error:"))
                .count(),
            1,
            "{}",
            run.stderr
        );
    }
}

#[test]
fn expired_entries_suppress_nothing_and_are_findings() {
    let env = Env::new();
    setup(&env, "work/repo");
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        entry("~/.cursor/mcp.json#*", "2000-01-01"),
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert!(npx_targets(&run).contains(&"~/.cursor/mcp.json#tool".to_string()));
    assert!(run.rules().contains(&(
        "WRD-DOCTOR-IGNORE-EXPIRED".into(),
        "~/.config/mcp-warden/ignore.toml".into()
    )));
    // The expired entry is low: with --fail-on high only the finding it no longer
    // covers fails the run.
    env.doctor(&["--json", "--fail-on", "critical"])
        .expect_code(0);
    env.doctor(&["--json", "--fail-on", "high"]).expect_code(1);
    // A TOML date literal means the same as the quoted form.
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        format!(
            "[[ignore]]\nrule = \"{NPX}\"\ntarget = \"**\"\nreason = \"r\"\nexpires = 2999-12-31\n"
        ),
    );
    env.doctor(&["--json"]).expect_code(0);
}

#[test]
fn malformed_entries_are_findings_and_the_others_still_apply() {
    let env = Env::new();
    setup(&env, "work/repo");
    let bad = [
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = \"**\"\nexpires = \"2999-01-01\"\n"),
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = \"**\"\nreason = \" \"\nexpires = \"2999-01-01\"\n"),
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = \"**\"\nreason = \"r\"\nexpires = \"2999-31-01\"\n"),
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = \"**\"\nreason = \"r\"\n"),
        "[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINED\"\ntarget = \"**\"\nreason = \"r\"\nexpires = \"2999-01-01\"\n".to_string(),
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = \"a***\"\nreason = \"r\"\nexpires = \"2999-01-01\"\n"),
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = \"**\"\nreason = \"r\"\nexpires = \"2999-01-01\"\nreviewer = \"x\"\n"),
        format!("[[ignore]]\nrule = \"{NPX}\"\ntarget = 1\nreason = \"r\"\nexpires = \"2999-01-01\"\n"),
    ];
    for b in &bad {
        env.write("home/.config/mcp-warden/ignore.toml", b);
        let run = env.doctor(&["--json"]);
        run.expect_code(1);
        assert!(
            npx_targets(&run).contains(&"~/.cursor/mcp.json#tool".to_string()),
            "{b}"
        );
        assert_eq!(
            run.rule_ids()
                .iter()
                .filter(|r| *r == "WRD-DOCTOR-IGNORE-INVALID")
                .count(),
            1,
            "{b}\n{}",
            run.stdout
        );
    }
    // Next to a valid entry: it still suppresses; the malformed one (medium) still
    // fails the default and the medium gate, not the high one.
    env.write(
        "home/.config/mcp-warden/ignore.toml",
        format!("{}{}", bad[0], entry("~/.cursor/mcp.json#*", "2999-12-31")),
    );
    env.doctor(&["--json"]).expect_code(1);
    env.doctor(&["--json", "--fail-on", "medium"])
        .expect_code(1);
    env.doctor(&["--json", "--fail-on", "high"]).expect_code(0);
}

#[test]
fn a_users_file_that_is_not_toml_is_unreadable() {
    let env = Env::new();
    setup(&env, "work/repo");
    for content in ["[[ignore]\n", "[[ignores]]\nrule = \"x\"\n", "ignore = 3\n"] {
        env.write("home/.config/mcp-warden/ignore.toml", content);
        let run = env.doctor(&["--json"]);
        run.expect_code(2);
        // The scan still reports everything it found.
        assert!(npx_targets(&run).contains(&"~/.cursor/mcp.json#tool".to_string()));
        assert!(run.stderr.contains("suppression file"), "{}", run.stderr);
    }
}

/// `cmd` run to its end within `deadline`, or killed and the test failed: a
/// suppression file that blocks the open would otherwise hang the suite.
fn within(mut cmd: std::process::Command, deadline: std::time::Duration) -> crate::util::Run {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            panic!("doctor did not finish within {deadline:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    crate::util::Run::from(child.wait_with_output().expect("output"))
}

#[test]
fn a_users_file_that_is_no_regular_file_never_hangs_and_never_passes() {
    // A FIFO with no writer, a directory, a file over the 1 MiB cap: each is
    // refused without reading it, nothing is suppressed and the run is not green.
    let deadline = std::time::Duration::from_secs(30);
    let place = "home/.config/mcp-warden/ignore.toml";
    for kind in ["fifo", "directory", "huge"] {
        let env = Env::new();
        setup(&env, "work/repo");
        let path = env.root().join(place);
        match kind {
            "fifo" => {
                env.mkdir("home/.config/mcp-warden");
                let made = std::process::Command::new("mkfifo")
                    .arg(&path)
                    .status()
                    .expect("mkfifo");
                assert!(made.success());
            }
            "directory" => {
                env.mkdir(place);
            }
            _ => {
                let mut text = entry("**", "2999-12-31");
                text.push_str(&"#".repeat(1 << 20));
                env.write(place, text);
            }
        }
        let run = within(env.doctor_command(&env.work(), &["--json"]), deadline);
        assert_ne!(run.code, 0, "{kind}: {}", run.stderr);
        assert!(
            npx_targets(&run).contains(&"~/.cursor/mcp.json#tool".to_string()),
            "{kind}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("suppression file"),
            "{kind}: {}",
            run.stderr
        );
    }
    // Named with --ignore-file, a FIFO is a usage error, not a hang.
    let env = Env::new();
    setup(&env, "work/repo");
    let fifo = env.root().join("named.fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    let fifo = fifo.to_str().expect("utf-8 path").to_string();
    let run = within(
        env.doctor_command(&env.work(), &["--json", "--ignore-file", &fifo]),
        deadline,
    );
    run.expect_code(2);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
}
