//! Discovery against a hostile machine, location by location: every documented
//! location (per platform) under the symlink rule at the file and at each directory
//! below its base, a FIFO, a socket or a directory at the file's path (never opened,
//! never blocking), the size cap, an unreadable file, the walk-up boundary, and the
//! rule that a skip is never green; then the relocation variables, the listed
//! directories and `--config` for every format.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{Env, Run};

const MCP_SERVERS: &str = r#"{"mcpServers": {"s": {"command": "node", "args": ["s.js"]}}}"#;
const VS_SERVERS: &str = r#"{"servers": {"s": {"command": "node", "args": ["s.js"]}}}"#;
const VS_SETTINGS: &str = r#"{"mcp": {"servers": {"s": {"command": "node", "args": ["s.js"]}}}}"#;
const CODEX: &str = "[mcp_servers.s]\ncommand = \"node\"\nargs = [\"s.js\"]\n";
const ZED: &str = r#"{"context_servers": {"s": {"command": "node", "args": ["s.js"]}}}"#;
const OPENCODE: &str = r#"{"mcp": {"s": {"type": "local", "command": ["node", "s.js"]}}}"#;
const CONTINUE_YAML: &str =
    "name: c\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: s\n    command: node\n    args: [s.js]\n";
const MANIFEST: &str = r#"{"manifest_version": "0.2", "name": "s", "version": "1.0.0", "server": {"type": "node", "entry_point": "s.js", "mcp_config": {"command": "node", "args": ["s.js"]}}}"#;
const CLAUDE_SETTINGS: &str = r#"{"enableAllProjectMcpServers": true}"#;

/// One location: `(platform, label, path below T, base below T, content)`. The
/// base is the directory the symlink rule trusts: home, `%APPDATA%`, the project
/// directory, or the system directory holding the client's own.
type Location = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

const LOCATIONS: &[Location] = &[
    // Linux, user
    ("linux", "Claude Code", "home/.claude.json", "home", MCP_SERVERS),
    ("linux", "Claude Code", "home/.claude/settings.json", "home", CLAUDE_SETTINGS),
    ("linux", "Codex", "home/.codex/config.toml", "home", CODEX),
    ("linux", "VS Code", "home/.config/Code/User/mcp.json", "home", VS_SERVERS),
    ("linux", "VS Code", "home/.config/Code/User/settings.json", "home", VS_SETTINGS),
    ("linux", "VS Code (profile)", "home/.config/Code/User/profiles/7e1a/mcp.json", "home", VS_SERVERS),
    ("linux", "VS Code (profile)", "home/.config/Code/User/profiles/7e1a/settings.json", "home", VS_SETTINGS),
    ("linux", "Cline (profile)", "home/.config/Code/User/profiles/7e1a/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "home", MCP_SERVERS),
    ("linux", "Roo Code (profile)", "home/.config/Code/User/profiles/7e1a/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "home", MCP_SERVERS),
    ("linux", "VS Code Insiders", "home/.config/Code - Insiders/User/mcp.json", "home", VS_SERVERS),
    ("linux", "VS Code Insiders", "home/.config/Code - Insiders/User/settings.json", "home", VS_SETTINGS),
    ("linux", "VS Code Insiders (profile)", "home/.config/Code - Insiders/User/profiles/p/mcp.json", "home", VS_SERVERS),
    ("linux", "VS Code Insiders (profile)", "home/.config/Code - Insiders/User/profiles/p/settings.json", "home", VS_SETTINGS),
    ("linux", "Gemini CLI", "home/.gemini/settings.json", "home", MCP_SERVERS),
    ("linux", "Zed", "home/.config/zed/settings.json", "home", ZED),
    ("linux", "Cline", "home/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "home", MCP_SERVERS),
    ("linux", "Cline (Cursor)", "home/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "home", MCP_SERVERS),
    ("linux", "Roo Code", "home/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "home", MCP_SERVERS),
    ("linux", "Roo Code (Cursor)", "home/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "home", MCP_SERVERS),
    ("linux", "GitHub Copilot CLI", "home/.copilot/mcp-config.json", "home", MCP_SERVERS),
    ("linux", "Amazon Q Developer", "home/.aws/amazonq/mcp.json", "home", MCP_SERVERS),
    ("linux", "Kiro", "home/.kiro/settings/mcp.json", "home", MCP_SERVERS),
    ("linux", "OpenCode", "home/.config/opencode/opencode.json", "home", OPENCODE),
    ("linux", "OpenCode", "home/.config/opencode/opencode.jsonc", "home", OPENCODE),
    ("linux", "Continue", "home/.continue/config.yaml", "home", CONTINUE_YAML),
    ("linux", "Continue", "home/.continue/mcpServers/u.json", "home", MCP_SERVERS),
    ("linux", "Continue", "home/.continue/mcpServers/u.yaml", "home", CONTINUE_YAML),
    ("linux", "Claude Desktop", "home/.config/Claude/claude_desktop_config.json", "home", MCP_SERVERS),
    ("linux", "Claude Desktop (extension)", "home/.config/Claude/Claude Extensions/ant.dir.s/manifest.json", "home", MANIFEST),
    // Linux, system and managed
    ("linux", "Claude Code (managed)", "system/etc/claude-code/managed-mcp.json", "system/etc", MCP_SERVERS),
    ("linux", "Claude Code (managed)", "system/etc/claude-code/managed-settings.json", "system/etc", CLAUDE_SETTINGS),
    ("linux", "Claude Code (managed)", "system/etc/claude-code/managed-settings.d/10-policy.json", "system/etc", CLAUDE_SETTINGS),
    ("linux", "Codex (system)", "system/etc/codex/config.toml", "system/etc", CODEX),
    ("linux", "Gemini CLI (system)", "system/etc/gemini-cli/settings.json", "system/etc", MCP_SERVERS),
    // Project (cwd = T/work, the walk-up's only directory)
    ("linux", "Claude Code (project)", "work/.mcp.json", "work", MCP_SERVERS),
    ("linux", "Claude Code (project)", "work/.claude/settings.json", "work", CLAUDE_SETTINGS),
    ("linux", "Claude Code (local)", "work/.claude/settings.local.json", "work", CLAUDE_SETTINGS),
    ("linux", "VS Code (project)", "work/.vscode/settings.json", "work", VS_SETTINGS),
    ("linux", "Codex (project)", "work/.codex/config.toml", "work", CODEX),
    ("linux", "Gemini CLI (project)", "work/.gemini/settings.json", "work", MCP_SERVERS),
    ("linux", "Zed (project)", "work/.zed/settings.json", "work", ZED),
    ("linux", "Roo Code (project)", "work/.roo/mcp.json", "work", MCP_SERVERS),
    ("linux", "Amazon Q Developer (project)", "work/.amazonq/mcp.json", "work", MCP_SERVERS),
    ("linux", "Kiro (project)", "work/.kiro/settings/mcp.json", "work", MCP_SERVERS),
    ("linux", "OpenCode (project)", "work/opencode.json", "work", OPENCODE),
    ("linux", "OpenCode (project)", "work/opencode.jsonc", "work", OPENCODE),
    ("linux", "Continue (project)", "work/.continue/mcpServers/s.yaml", "work", CONTINUE_YAML),
    ("linux", "Continue (project)", "work/.continue/mcpServers/s.yml", "work", CONTINUE_YAML),
    ("linux", "Continue (project)", "work/.continue/mcpServers/s.json", "work", MCP_SERVERS),
    // macOS
    ("darwin", "Claude Code (managed)", "system/Library/Application Support/ClaudeCode/managed-mcp.json", "system/Library/Application Support", MCP_SERVERS),
    ("darwin", "Claude Code (managed)", "system/Library/Application Support/ClaudeCode/managed-settings.d/a.json", "system/Library/Application Support", CLAUDE_SETTINGS),
    ("darwin", "Gemini CLI (system)", "system/Library/Application Support/GeminiCli/settings.json", "system/Library/Application Support", MCP_SERVERS),
    ("darwin", "Codex (system)", "system/etc/codex/config.toml", "system/etc", CODEX),
    ("darwin", "VS Code (profile)", "home/Library/Application Support/Code/User/profiles/p/mcp.json", "home", VS_SERVERS),
    ("darwin", "Zed", "home/.config/zed/settings.json", "home", ZED),
    ("darwin", "Roo Code (Cursor)", "home/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "home", MCP_SERVERS),
    ("darwin", "Claude Desktop (extension)", "home/Library/Application Support/Claude/Claude Extensions/ant.dir.s/manifest.json", "home", MANIFEST),
    // Windows (APPDATA = T/AppData/Roaming, ProgramData = T/ProgramData)
    ("win32", "Claude Code (managed)", "system/Program Files/ClaudeCode/managed-mcp.json", "system/Program Files", MCP_SERVERS),
    ("win32", "Claude Code (managed)", "system/Program Files/ClaudeCode/managed-settings.d/a.json", "system/Program Files", CLAUDE_SETTINGS),
    ("win32", "Codex (system)", "ProgramData/OpenAI/Codex/config.toml", "ProgramData", CODEX),
    ("win32", "Gemini CLI (system)", "system/ProgramData/gemini-cli/settings.json", "system/ProgramData", MCP_SERVERS),
    ("win32", "VS Code Insiders (profile)", "AppData/Roaming/Code - Insiders/User/profiles/p/mcp.json", "AppData/Roaming", VS_SERVERS),
    ("win32", "Zed", "AppData/Roaming/Zed/settings.json", "AppData/Roaming", ZED),
    ("win32", "Cline (Cursor)", "AppData/Roaming/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "AppData/Roaming", MCP_SERVERS),
    ("win32", "OpenCode", "home/.config/opencode/opencode.json", "home", OPENCODE),
    ("win32", "Claude Desktop (extension)", "AppData/Roaming/Claude/Claude Extensions/ant.dir.s/manifest.json", "AppData/Roaming", MANIFEST),
];

/// A file in another client's place, read in every run: the scan goes on past
/// whatever the location under test does.
const SENTINEL: (&str, &str) = (
    "home/.cursor/mcp.json",
    "  Cursor  ~/.cursor/mcp.json  (1 server(s))",
);

/// The env for `platform`, with Windows' APPDATA and ProgramData injected.
fn env_for(platform: &'static str) -> Env {
    let mut env = Env::with_platform(platform);
    if platform == "win32" {
        let appdata = env.mkdir("AppData/Roaming");
        let program_data = env.mkdir("ProgramData");
        env.extra_env.push(("APPDATA".into(), appdata.into()));
        env.extra_env
            .push(("ProgramData".into(), program_data.into()));
    }
    env
}

/// How doctor shows the path at `rel` below T: `~/…` under the home.
fn shown(env: &Env, rel: &str) -> String {
    match rel.strip_prefix("home/") {
        Some(under_home) => format!("~/{under_home}"),
        None => env.root().join(rel).display().to_string(),
    }
}

/// The start of the source line of `label` at `shown` (any server count).
fn source(label: &str, shown: &str) -> String {
    format!("  {label}  {shown}  (")
}

/// The doctor run of `env`, bounded: a scan that blocks (on a FIFO, say) fails
/// the test instead of hanging it. The bound is generous; it is not a timing
/// assertion. `as_nobody` runs it as uid 65534 when the tests run as root, so a
/// mode-000 file is really unreadable.
fn doctor_bounded(env: &Env, cwd: &Path, args: &[&str], as_nobody: bool) -> Run {
    let home = env.home();
    let system = env.system_root();
    let mut full = vec![
        "doctor",
        "--home",
        home.to_str().expect("utf-8"),
        "--platform",
        env.platform,
        "--system-root",
        system.to_str().expect("utf-8"),
    ];
    full.extend_from_slice(args);
    let mut cmd = env.command_in(cwd, &full);
    let out_path = env.root().join(".stdout");
    let err_path = env.root().join(".stderr");
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    let out = std::fs::File::create(&out_path).expect("stdout file");
    let err = std::fs::File::create(&err_path).expect("stderr file");
    cmd.stdout(Stdio::from(out)).stderr(Stdio::from(err));
    if as_nobody && nix::unistd::geteuid().is_root() {
        open_up(env.root());
        cmd.uid(65534).gid(65534);
    }
    let mut child = cmd.spawn().expect("spawn mcp-warden");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("doctor did not finish within 120 s (blocked?) in {cwd:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&std::fs::read(&out_path).expect("stdout")).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).expect("stderr")).into_owned(),
    }
}

/// Let uid 65534 traverse T (the temporary directory is 0700) and write the
/// output files; files keep their modes, so a mode-000 file stays unreadable.
fn open_up(root: &Path) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&dir) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let mode = meta.permissions().mode() & 0o7777;
        if mode != 0 {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
            for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
                stack.push(entry.path());
            }
        }
    }
}

/// A skip is never green: at least exit 1, and neither of the all-clear lines.
fn never_green(run: &Run) -> bool {
    run.code >= 1
        && !run.all().contains("doctor clean")
        && !run.all().contains("no MCP configs found")
}

/// The skip was reported with exactly `line`, never green, and the sentinel
/// file was still audited.
fn skip_reported(run: &Run, line: &str) -> bool {
    never_green(run) && run.stderr.lines().any(|l| l == line) && run.stdout.contains(SENTINEL.1)
}

/// The directories strictly below `base` on the way to `rel`, then `rel` itself.
fn components_below_base(rel: &str, base: &str) -> Vec<String> {
    let below = rel
        .strip_prefix(base)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or_else(|| panic!("{rel} is not below {base}"));
    let parts: Vec<&str> = below.split('/').collect();
    (1..=parts.len())
        .map(|n| format!("{base}/{}", parts[..n].join("/")))
        .collect()
}

/// One hostile change at a location and what must be said about it.
fn check(
    failures: &mut Vec<String>,
    env: &Env,
    what: &str,
    location: &Location,
    expect: impl Fn(&Run) -> bool,
    as_nobody: bool,
) {
    let &(platform, label, rel, _, _) = location;
    let run = doctor_bounded(env, &env.work(), &[], as_nobody);
    let not_read = !run.stdout.contains(&source(label, &shown(env, rel)));
    let sentinel = run.stdout.contains(SENTINEL.1);
    if !(expect(&run) && not_read && sentinel && never_green(&run)) {
        failures.push(format!(
            "{platform} {rel} [{what}]: exit {}\n{}{}",
            run.code, run.stdout, run.stderr
        ));
    }
}

/// A fresh environment with the location's file and the sentinel written.
fn setup(location: &Location) -> Env {
    let &(platform, _, rel, _, content) = location;
    let env = env_for(platform);
    env.write(rel, content);
    env.write(SENTINEL.0, MCP_SERVERS);
    env
}

#[test]
fn every_location_skips_a_symlink_at_the_file_and_at_each_directory_below_its_base() {
    let mut failures = Vec::new();
    for location in LOCATIONS {
        let &(platform, label, rel, base, _) = location;
        // Found as it is.
        let env = setup(location);
        let run = doctor_bounded(&env, &env.work(), &[], false);
        if !run.stdout.contains(&source(label, &shown(&env, rel))) {
            failures.push(format!(
                "{platform} {rel}: not found\n{}{}",
                run.stdout, run.stderr
            ));
            continue;
        }
        for component in components_below_base(rel, base) {
            let env = setup(location);
            // The real directory (or file) moves elsewhere; a link takes its place.
            let real = env.root().join("moved-away");
            std::fs::rename(env.root().join(&component), &real).expect("move");
            env.symlink(&real, &component);
            let at = shown(&env, &component);
            check(
                &mut failures,
                &env,
                &format!("symlink at {component}"),
                location,
                |run| {
                    run.stderr.lines().any(|l| {
                        l.starts_with("warning: skipping ")
                            && l.contains("symlink")
                            && (l.starts_with(&format!("warning: skipping {at}:"))
                                || l.contains(&format!(" at {at} ("))
                                || l.contains(&format!(" at {at};")))
                    })
                },
                false,
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn every_location_skips_a_fifo_socket_or_directory_unopened_and_an_oversized_file() {
    let mut failures = Vec::new();
    for location in LOCATIONS {
        let &(_, _, rel, _, _) = location;
        for what in ["FIFO", "socket", "directory", "oversized"] {
            let env = setup(location);
            let path = env.root().join(rel);
            std::fs::remove_file(&path).expect("rm");
            let expected = match what {
                "FIFO" => {
                    // Opening it for reading would block until a writer came.
                    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
                    "a FIFO, not a regular file; it was not read".to_string()
                }
                "socket" => {
                    // Bound at a short path (the limit is 108 bytes), then moved.
                    let short = env.root().join("s.sock");
                    let listener = std::os::unix::net::UnixListener::bind(&short).expect("bind");
                    std::fs::rename(&short, &path).expect("move socket");
                    drop(listener);
                    "a socket, not a regular file; it was not read".to_string()
                }
                "directory" => {
                    std::fs::create_dir(&path).expect("mkdir");
                    "a directory, not a regular file; it was not read".to_string()
                }
                // `.claude.json` has a cap of its own (session history).
                _ if rel.ends_with("/.claude.json") => {
                    let file = std::fs::File::create(&path).expect("create");
                    file.set_len(64 * 1024 * 1024 + 1).expect("sparse");
                    "67108865 bytes exceeds the 67108864-byte cap".to_string()
                }
                _ => {
                    let file = std::fs::File::create(&path).expect("create");
                    file.set_len(8 * 1024 * 1024 + 1).expect("sparse");
                    "8388609 bytes exceeds the 8388608-byte cap".to_string()
                }
            };
            let line = format!("warning: skipping {}: {expected}", shown(&env, rel));
            check(
                &mut failures,
                &env,
                what,
                location,
                // An oversized file's line may end with the `--config` line that
                // scans it anyway.
                |run| {
                    run.stderr.lines().any(|l| {
                        l == line
                            || (what == "oversized"
                                && l.starts_with(&format!("{line} (to scan it anyway: ")))
                    })
                },
                false,
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn every_location_reports_an_unreadable_file_as_a_hard_error_and_audits_the_rest() {
    let mut failures = Vec::new();
    for location in LOCATIONS {
        let &(_, _, rel, _, _) = location;
        let env = setup(location);
        let path = env.root().join(rel);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
        let line = format!(
            "warning: cannot read {}: permission denied (scan continues; final exit will be 2)",
            shown(&env, rel)
        );
        check(
            &mut failures,
            &env,
            "mode 000",
            location,
            |run| run.code == 2 && run.stderr.lines().any(|l| l.eq_ignore_ascii_case(&line)),
            true,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn an_unreadable_listed_directory_is_a_hard_error_naming_it() {
    let mut failures = Vec::new();
    for (platform, dir) in [
        ("linux", "home/.config/Code/User/profiles"),
        ("linux", "home/.config/Code - Insiders/User/profiles"),
        ("linux", "home/.config/Claude/Claude Extensions"),
        ("linux", "home/.continue/mcpServers"),
        ("linux", "work/.continue/mcpServers"),
        ("linux", "system/etc/claude-code/managed-settings.d"),
        (
            "darwin",
            "system/Library/Application Support/ClaudeCode/managed-settings.d",
        ),
        ("win32", "AppData/Roaming/Code/User/profiles"),
    ] {
        let env = env_for(platform);
        env.write(SENTINEL.0, MCP_SERVERS);
        let path = env.mkdir(dir);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
        let run = doctor_bounded(&env, &env.work(), &[], true);
        let line = format!(
            "warning: cannot list {}: permission denied (scan continues; final exit will be 2)",
            shown(&env, dir)
        );
        if !(run.code == 2
            && run.stderr.lines().any(|l| l == line)
            && run.stdout.contains(SENTINEL.1)
            && never_green(&run))
        {
            failures.push(format!(
                "{platform} {dir}: exit {}\n{}{}",
                run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// Every project location, relative to a project directory.
const PROJECT_FILES: &[(&str, &str)] = &[
    (".mcp.json", MCP_SERVERS),
    (".cursor/mcp.json", MCP_SERVERS),
    (".vscode/mcp.json", VS_SERVERS),
    (".claude/settings.json", CLAUDE_SETTINGS),
    (".claude/settings.local.json", CLAUDE_SETTINGS),
    (".vscode/settings.json", VS_SETTINGS),
    (".codex/config.toml", CODEX),
    (".gemini/settings.json", MCP_SERVERS),
    (".zed/settings.json", ZED),
    (".roo/mcp.json", MCP_SERVERS),
    (".amazonq/mcp.json", MCP_SERVERS),
    (".kiro/settings/mcp.json", MCP_SERVERS),
    ("opencode.json", OPENCODE),
    ("opencode.jsonc", OPENCODE),
    (".continue/mcpServers/a.yaml", CONTINUE_YAML),
    (".continue/mcpServers/b.json", MCP_SERVERS),
];

/// Write every project file below `dir` (relative to T).
fn project_files(env: &Env, dir: &str) {
    for (rel, content) in PROJECT_FILES {
        let path = if dir.is_empty() {
            rel.to_string()
        } else {
            format!("{dir}/{rel}")
        };
        env.write(&path, content);
    }
}

/// Every project file below `dir` is read (named on a source line) or none is
/// named anywhere in the output.
fn project_files_seen(env: &Env, run: &Run, dir: &Path, read: bool) -> Vec<String> {
    PROJECT_FILES
        .iter()
        .filter_map(|(rel, _)| {
            let path = dir.join(rel);
            let path = match path.strip_prefix(env.home()) {
                Ok(below) => format!("~/{}", below.display()),
                Err(_) => path.display().to_string(),
            };
            let seen = if read {
                run.stdout.contains(&format!("  {path}  ("))
            } else {
                !run.all().contains(&path)
            };
            (!seen).then(|| format!("{} {path}", if read { "not read:" } else { "read:" }))
        })
        .collect()
}

#[test]
fn every_project_location_stops_at_the_walk_up_boundary() {
    // Above a `.git` root: not read; the root itself and below: read.
    let env = Env::new();
    project_files(&env, "work");
    project_files(&env, "work/repo");
    env.mkdir("work/repo/.git");
    let cwd = env.mkdir("work/repo/sub");
    let run = doctor_bounded(&env, &cwd, &[], false);
    let mut failures = project_files_seen(&env, &run, &env.root().join("work/repo"), true);
    failures.extend(project_files_seen(&env, &run, &env.work(), false));

    // Above home when cwd is under home: not read (home itself is the last one).
    let env = Env::new();
    project_files(&env, "");
    let cwd = env.mkdir("home/code/p");
    project_files(&env, "home/code/p");
    let run = doctor_bounded(&env, &cwd, &[], false);
    failures.extend(project_files_seen(&env, &run, &cwd, true));
    failures.extend(project_files_seen(&env, &run, env.root(), false));

    // cwd outside home with no repository: cwd alone, never its parent.
    let env = Env::new();
    project_files(&env, "shared");
    let cwd = env.mkdir("shared/proj");
    project_files(&env, "shared/proj");
    let run = doctor_bounded(&env, &cwd, &[], false);
    failures.extend(project_files_seen(&env, &run, &cwd, true));
    failures.extend(project_files_seen(
        &env,
        &run,
        &env.root().join("shared"),
        false,
    ));

    // A `.git` 33 directories up is beyond the 32-level bound: cwd alone.
    let env = Env::new();
    env.mkdir("deep/.git");
    project_files(&env, "deep");
    let mut rel = String::from("deep");
    for i in 0..32 {
        rel.push_str(&format!("/{i}"));
    }
    let cwd = env.mkdir(&rel);
    project_files(&env, &rel);
    let run = doctor_bounded(&env, &cwd, &[], false);
    failures.extend(project_files_seen(&env, &run, &cwd, true));
    failures.extend(project_files_seen(
        &env,
        &run,
        &env.root().join("deep"),
        false,
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A doctor run of `env` with `vars` set too (each a variable and its value).
fn doctor_with(env: &Env, vars: &[(&str, &std::ffi::OsStr)], args: &[&str]) -> Run {
    let home = env.home();
    let system = env.system_root();
    let mut full = vec![
        "doctor",
        "--home",
        home.to_str().expect("utf-8"),
        "--platform",
        env.platform,
        "--system-root",
        system.to_str().expect("utf-8"),
    ];
    full.extend_from_slice(args);
    let mut cmd = env.command_in(&env.work(), &full);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("run mcp-warden"))
}

/// No line of the run carries a control character or a bidirectional mark.
fn clean_lines(run: &Run) -> Result<(), String> {
    let bidi = |c: char| matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    for line in run.stdout.lines().chain(run.stderr.lines()) {
        if line.chars().any(|c| c.is_control() || bidi(c)) {
            return Err(format!("raw control or bidi character in {line:?}"));
        }
    }
    Ok(())
}

const HOSTILE: &str = "a\nb\rc\x1b[31m\u{202e}\u{2066}d\te\u{7}";

#[test]
fn the_relocation_header_neutralises_every_variable_value_and_stays_one_line() {
    let mut failures = Vec::new();
    for (var, file, content) in [
        ("CLAUDE_CONFIG_DIR", ".claude.json", MCP_SERVERS),
        ("CODEX_HOME", "config.toml", CODEX),
        ("COPILOT_HOME", "mcp-config.json", MCP_SERVERS),
        ("XDG_CONFIG_HOME", "zed/settings.json", ZED),
        ("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "s.json", MCP_SERVERS),
    ] {
        let env = Env::new();
        let dir = env.root().join(HOSTILE);
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, content).expect("write");
        let value = if var == "GEMINI_CLI_SYSTEM_SETTINGS_PATH" {
            path.clone()
        } else {
            dir.clone()
        };
        let run = doctor_with(&env, &[(var, value.as_os_str())], &[]);
        let headers: Vec<&str> = run
            .stdout
            .lines()
            .filter(|l| l.starts_with("  locations moved by "))
            .collect();
        let ok = run.code == 1
            && headers.len() == 1
            && headers[0].contains(&format!("{var}="))
            && headers[0].contains("e\u{fffd}")
            && run.stdout.contains("server(s))")
            && clean_lines(&run).is_ok();
        if !ok {
            failures.push(format!(
                "{var}: {:?}\n{}{}",
                clean_lines(&run),
                run.stdout,
                run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// `(platform, variable, directory below T it is set to, [(default location,
/// where it moves)])`: every path the variable moves, per docs/clients.md. Every
/// other location of the platform must stay where it is.
type Moves = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const MOVES: &[Moves] = &[
    ("linux", "CLAUDE_CONFIG_DIR", "cc", &[
        ("home/.claude.json", "cc/.claude.json"),
        ("home/.claude/settings.json", "cc/settings.json"),
    ]),
    ("linux", "CODEX_HOME", "cx", &[("home/.codex/config.toml", "cx/config.toml")]),
    ("linux", "COPILOT_HOME", "cp", &[("home/.copilot/mcp-config.json", "cp/mcp-config.json")]),
    ("linux", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "g/system.json", &[
        ("system/etc/gemini-cli/settings.json", "g/system.json"),
    ]),
    ("linux", "XDG_CONFIG_HOME", "xdg", &[
        ("home/.config/Code/User/mcp.json", "xdg/Code/User/mcp.json"),
        ("home/.config/Code/User/settings.json", "xdg/Code/User/settings.json"),
        ("home/.config/Code/User/profiles/7e1a/mcp.json", "xdg/Code/User/profiles/7e1a/mcp.json"),
        ("home/.config/Code/User/profiles/7e1a/settings.json", "xdg/Code/User/profiles/7e1a/settings.json"),
        ("home/.config/Code/User/profiles/7e1a/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "xdg/Code/User/profiles/7e1a/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"),
        ("home/.config/Code/User/profiles/7e1a/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "xdg/Code/User/profiles/7e1a/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
        ("home/.config/Code - Insiders/User/mcp.json", "xdg/Code - Insiders/User/mcp.json"),
        ("home/.config/Code - Insiders/User/settings.json", "xdg/Code - Insiders/User/settings.json"),
        ("home/.config/Code - Insiders/User/profiles/p/mcp.json", "xdg/Code - Insiders/User/profiles/p/mcp.json"),
        ("home/.config/Code - Insiders/User/profiles/p/settings.json", "xdg/Code - Insiders/User/profiles/p/settings.json"),
        ("home/.config/zed/settings.json", "xdg/zed/settings.json"),
        ("home/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "xdg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"),
        ("home/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "xdg/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"),
        ("home/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "xdg/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
        ("home/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "xdg/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
        ("home/.config/opencode/opencode.json", "xdg/opencode/opencode.json"),
        ("home/.config/opencode/opencode.jsonc", "xdg/opencode/opencode.jsonc"),
        ("home/.config/Claude/claude_desktop_config.json", "xdg/Claude/claude_desktop_config.json"),
        ("home/.config/Claude/Claude Extensions/ant.dir.s/manifest.json", "xdg/Claude/Claude Extensions/ant.dir.s/manifest.json"),
    ]),
    // macOS: only OpenCode follows XDG_CONFIG_HOME (Zed's ~/.config/zed does not).
    ("darwin", "XDG_CONFIG_HOME", "xdg", &[]),
    ("win32", "XDG_CONFIG_HOME", "xdg", &[
        ("home/.config/opencode/opencode.json", "xdg/opencode/opencode.json"),
    ]),
    ("win32", "APPDATA", "roaming2", &[
        ("AppData/Roaming/Code - Insiders/User/profiles/p/mcp.json", "roaming2/Code - Insiders/User/profiles/p/mcp.json"),
        ("AppData/Roaming/Zed/settings.json", "roaming2/Zed/settings.json"),
        ("AppData/Roaming/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "roaming2/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"),
        ("AppData/Roaming/Claude/Claude Extensions/ant.dir.s/manifest.json", "roaming2/Claude/Claude Extensions/ant.dir.s/manifest.json"),
    ]),
    ("win32", "ProgramData", "pd2", &[
        ("ProgramData/OpenAI/Codex/config.toml", "pd2/OpenAI/Codex/config.toml"),
    ]),
];

#[test]
fn each_relocation_variable_moves_exactly_its_clients_paths() {
    let mut failures = Vec::new();
    for &(platform, var, value, moves) in MOVES {
        let env = env_for(platform);
        let rows: Vec<&Location> = LOCATIONS.iter().filter(|l| l.0 == platform).collect();
        for &&(_, _, rel, _, content) in &rows {
            env.write(rel, content);
            if let Some((_, to)) = moves.iter().find(|(from, _)| *from == rel) {
                env.write(to, content);
            }
        }
        let value = env.root().join(value);
        let run = doctor_with(&env, &[(var, value.as_os_str())], &[]);
        for &&(_, label, rel, _, _) in &rows {
            let moved = moves.iter().find(|(from, _)| *from == rel);
            let expected = moved.map_or(rel, |(_, to)| to);
            if !run.stdout.contains(&source(label, &shown(&env, expected))) {
                failures.push(format!("{platform} {var}: {expected} not read"));
            }
            // As a file the report names (a source, a target, `file:line`, a
            // warning), not a mention in a rule's advice.
            let old = shown(&env, rel);
            let named = ["  (", "#", ":", "'"]
                .iter()
                .any(|after| run.all().contains(&format!("{old}{after}")));
            if moved.is_some() && named {
                failures.push(format!("{platform} {var}: {rel} still read"));
            }
        }
        // APPDATA and ProgramData are where Windows locations are, not a move.
        let relocation = !matches!(var, "APPDATA" | "ProgramData");
        if relocation
            && !moves.is_empty()
            && !run.stdout.contains(&format!("{var}={}", value.display()))
        {
            failures.push(format!(
                "{platform} {var}: not in the header\n{}",
                run.stdout
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The server records of a `--json --inventory` run.
fn inventory(run: &Run) -> Vec<serde_json::Value> {
    run.jsonl()
        .into_iter()
        .filter(|v| v["kind"] == "server")
        .collect()
}

#[test]
fn a_variable_that_leads_into_the_project_reads_the_file_once_as_the_user_file() {
    let mut failures = Vec::new();
    for (var, file, content, project_label, value) in [
        (
            "CODEX_HOME",
            "work/.codex/config.toml",
            CODEX,
            "Codex (project)",
            "work/.codex",
        ),
        (
            "CODEX_HOME",
            "work/.codex/config.toml",
            CODEX,
            "Codex (project)",
            "link",
        ),
        (
            "CODEX_HOME",
            "work/.codex/config.toml",
            CODEX,
            "Codex (project)",
            "work/../work/.codex",
        ),
        (
            "CODEX_HOME",
            "work/.codex/config.toml",
            CODEX,
            "Codex (project)",
            "./.codex/",
        ),
        (
            "CLAUDE_CONFIG_DIR",
            "work/.claude/settings.json",
            CLAUDE_SETTINGS,
            "Claude Code (project)",
            "link",
        ),
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            "work/.gemini/settings.json",
            MCP_SERVERS,
            "Gemini CLI (project)",
            "work/../work/.gemini/settings.json",
        ),
    ] {
        let env = Env::new();
        let path = env.write(file, content);
        let dir = path.parent().expect("parent").to_path_buf();
        env.symlink(&dir, "link");
        // A relative value is taken from cwd (T/work).
        let value: PathBuf = if value.starts_with("./") {
            value.into()
        } else {
            env.root().join(value)
        };
        let run = doctor_with(&env, &[(var, value.as_os_str())], &[]);
        let sources = run
            .stdout
            .lines()
            .filter(|l| l.contains("server(s))"))
            .count();
        let inv = doctor_with(
            &env,
            &[(var, value.as_os_str())],
            &["--json", "--inventory"],
        );
        let servers = inventory(&inv).len();
        let want_servers = usize::from(content != CLAUDE_SETTINGS);
        if sources != 1 || servers != want_servers || run.stdout.contains(project_label) {
            failures.push(format!(
                "{var}={}: {sources} source(s), {servers} server(s)\n{}{}",
                value.display(),
                run.stdout,
                run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn variables_pointing_at_one_directory_read_each_file_once_by_its_first_location() {
    // Claude Code's, Codex's and Copilot CLI's homes in one directory: distinct
    // names, each read by its own client.
    let env = Env::new();
    let same = env.mkdir("same");
    env.write("same/.claude.json", MCP_SERVERS);
    env.write("same/config.toml", CODEX);
    env.write("same/mcp-config.json", MCP_SERVERS);
    let vars = [
        ("CLAUDE_CONFIG_DIR", same.as_os_str()),
        ("CODEX_HOME", same.as_os_str()),
        ("COPILOT_HOME", same.as_os_str()),
    ];
    let run = doctor_with(&env, &vars, &[]);
    for (label, file) in [
        ("Claude Code", "same/.claude.json"),
        ("Codex", "same/config.toml"),
        ("GitHub Copilot CLI", "same/mcp-config.json"),
    ] {
        let line = format!("{}1 server(s))", source(label, &shown(&env, file)));
        assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
    }
    assert_eq!(
        inventory(&doctor_with(&env, &vars, &["--json", "--inventory"])).len(),
        3
    );

    // CLAUDE_CONFIG_DIR at Zed's directory below XDG_CONFIG_HOME: one path for two
    // locations, searched and read once, as the first (Claude Code's settings).
    let env = Env::new();
    let xdg = env.mkdir("xdg");
    let zed = env.mkdir("xdg/zed");
    let alone = doctor_with(&env, &[("XDG_CONFIG_HOME", xdg.as_os_str())], &[]);
    let both = [
        ("XDG_CONFIG_HOME", xdg.as_os_str()),
        ("CLAUDE_CONFIG_DIR", zed.as_os_str()),
    ];
    let together = doctor_with(&env, &both, &[]);
    let searched = |run: &Run| -> usize {
        let text = run.stdout.split("(searched ").nth(1).unwrap_or_default();
        text.split(' ')
            .next()
            .unwrap_or_default()
            .parse()
            .unwrap_or(0)
    };
    assert_eq!(
        searched(&together) + 1,
        searched(&alone),
        "{}\n{}",
        alone.stdout,
        together.stdout
    );
    env.write("xdg/zed/settings.json", CLAUDE_SETTINGS);
    let run = doctor_with(&env, &both, &[]);
    let path = shown(&env, "xdg/zed/settings.json");
    assert_eq!(
        run.stdout.matches(&format!("  {path}  (")).count(),
        1,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&source("Claude Code", &path)),
        "{}",
        run.stdout
    );
}

#[test]
fn a_variable_naming_a_file_or_fifo_instead_of_a_directory_is_a_skip_never_green() {
    let mut failures = Vec::new();
    for (platform, var) in [
        ("linux", "CLAUDE_CONFIG_DIR"),
        ("linux", "CODEX_HOME"),
        ("linux", "COPILOT_HOME"),
        ("linux", "XDG_CONFIG_HOME"),
        ("win32", "APPDATA"),
        ("win32", "ProgramData"),
    ] {
        for what in ["regular file", "FIFO"] {
            let env = Env::with_platform(platform);
            env.write(SENTINEL.0, MCP_SERVERS);
            let path = env.root().join("not-a-dir");
            if what == "FIFO" {
                nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
            } else {
                std::fs::write(&path, MCP_SERVERS).expect("write");
            }
            let mut env = env;
            env.extra_env.push((var.into(), path.clone().into()));
            let run = doctor_bounded(&env, &env.work(), &[], false);
            let line = format!(
                "warning: skipping {}: {var} names a {what}, not a directory; nothing below it was read",
                path.display()
            );
            if !skip_reported(&run, &line) {
                failures.push(format!(
                    "{var} {what}: exit {}\n{}{}",
                    run.code, run.stdout, run.stderr
                ));
            }
        }
    }
    // Gemini CLI's variable names a file: a directory there is skipped unopened.
    let mut env = Env::new();
    let dir = env.mkdir("gemini-dir");
    env.extra_env
        .push(("GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(), dir.clone().into()));
    let run = doctor_bounded(&env, &env.work(), &[], false);
    let line = format!(
        "warning: skipping {}: a directory, not a regular file; it was not read",
        dir.display()
    );
    if !(never_green(&run) && run.stderr.lines().any(|l| l == line)) {
        failures.push(format!(
            "GEMINI dir: exit {}\n{}{}",
            run.code, run.stdout, run.stderr
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn a_variable_set_to_home_itself_moves_its_files_into_home() {
    let env = Env::new();
    let home = env.home();
    env.write("home/config.toml", CODEX);
    env.write("home/.claude.json", MCP_SERVERS);
    env.write("home/settings.json", CLAUDE_SETTINGS);
    env.write("home/Code/User/mcp.json", VS_SERVERS);
    let vars = [
        ("CODEX_HOME", home.as_os_str()),
        ("CLAUDE_CONFIG_DIR", home.as_os_str()),
        ("XDG_CONFIG_HOME", home.as_os_str()),
    ];
    let run = doctor_with(&env, &vars, &[]);
    for (label, path, n) in [
        ("Codex", "~/config.toml", 1),
        ("Claude Code", "~/.claude.json", 1),
        ("Claude Code", "~/settings.json", 0),
        ("VS Code", "~/Code/User/mcp.json", 1),
    ] {
        let line = format!("{}{n} server(s))", source(label, path));
        assert_eq!(
            run.stdout.matches(&line).count(),
            1,
            "{line}\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .contains(&format!("CODEX_HOME={}", home.display())),
        "{}",
        run.stdout
    );
}

/// Every listed directory: `(platform, directory below T, one entry's path below
/// the entry, its content, whether entries are directories)`. An entry `E` is
/// `dir/E` (a directory, for profiles and extensions) or the file `dir/E.ext`.
type Listed = (&'static str, &'static str, &'static str, &'static str, bool);

const LISTED: &[Listed] = &[
    (
        "linux",
        "home/.config/Code/User/profiles",
        "mcp.json",
        VS_SERVERS,
        true,
    ),
    (
        "linux",
        "home/.config/Code - Insiders/User/profiles",
        "settings.json",
        VS_SETTINGS,
        true,
    ),
    (
        "linux",
        "home/.config/Code/User/profiles",
        "globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        MCP_SERVERS,
        true,
    ),
    (
        "linux",
        "home/.config/Code/User/profiles",
        "globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
        MCP_SERVERS,
        true,
    ),
    (
        "linux",
        "home/.config/Claude/Claude Extensions",
        "manifest.json",
        MANIFEST,
        true,
    ),
    (
        "linux",
        "home/.continue/mcpServers",
        ".json",
        MCP_SERVERS,
        false,
    ),
    (
        "linux",
        "home/.continue/mcpServers",
        ".yaml",
        CONTINUE_YAML,
        false,
    ),
    (
        "linux",
        "work/.continue/mcpServers",
        ".yml",
        CONTINUE_YAML,
        false,
    ),
    (
        "linux",
        "work/.continue/mcpServers",
        ".json",
        MCP_SERVERS,
        false,
    ),
    (
        "linux",
        "system/etc/claude-code/managed-settings.d",
        ".json",
        CLAUDE_SETTINGS,
        false,
    ),
    (
        "darwin",
        "home/Library/Application Support/Claude/Claude Extensions",
        "manifest.json",
        MANIFEST,
        true,
    ),
    (
        "win32",
        "AppData/Roaming/Code/User/profiles",
        "mcp.json",
        VS_SERVERS,
        true,
    ),
    (
        "win32",
        "system/Program Files/ClaudeCode/managed-settings.d",
        ".json",
        CLAUDE_SETTINGS,
        false,
    ),
];

/// The path below T of entry `name` of a listed directory (`name` as bytes, so
/// it may be anything but `/` and NUL).
fn entry_path(env: &Env, listed: &Listed, name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let &(_, dir, inner, _, dirs) = listed;
    let dir = env.root().join(dir);
    if dirs {
        dir.join(std::ffi::OsStr::from_bytes(name)).join(inner)
    } else {
        let mut file = name.to_vec();
        file.extend_from_slice(inner.as_bytes());
        dir.join(std::ffi::OsStr::from_bytes(&file))
    }
}

fn write_entry(env: &Env, listed: &Listed, name: &[u8]) -> PathBuf {
    let path = entry_path(env, listed, name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, listed.3).expect("write");
    path
}

/// The file was audited: a source line with its server (or, for a settings
/// file, with none).
fn audited(run: &Run, listed: &Listed) -> bool {
    let servers = if listed.3 == CLAUDE_SETTINGS { 0 } else { 1 };
    run.stdout.contains(&format!("  ({servers} server(s))"))
}

#[test]
fn listed_names_with_control_characters_bidi_marks_or_invalid_utf8_are_neutralised() {
    let mut failures = Vec::new();
    for listed in LISTED {
        for name in [HOSTILE.as_bytes(), b"p\xff\xfe\x80q".as_slice()] {
            let env = env_for(listed.0);
            write_entry(&env, listed, name);
            let run = doctor_bounded(&env, &env.work(), &[], false);
            let ok = run.code == 1
                && audited(&run, listed)
                && run.stdout.contains('\u{fffd}')
                && clean_lines(&run).is_ok();
            if !ok {
                failures.push(format!(
                    "{} {} {name:?}: exit {} {:?}\n{}{}",
                    listed.0,
                    listed.1,
                    run.code,
                    clean_lines(&run),
                    run.stdout,
                    run.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn every_listing_is_bounded_and_names_the_entries_beyond_it_never_green() {
    let mut failures = Vec::new();
    for listed in LISTED {
        let env = env_for(listed.0);
        for i in 0..256 {
            write_entry(&env, listed, format!("e{i:03}").as_bytes());
        }
        // The 257th by name carries a line break: it is named, neutralised.
        let extra = write_entry(&env, listed, b"z\nwarning: fake");
        let _ = extra;
        let run = doctor_bounded(&env, &env.work(), &[], false);
        let shown_dir = shown(&env, listed.1);
        let name = if listed.4 {
            "z\u{fffd}warning: fake".to_string()
        } else {
            format!("z\u{fffd}warning: fake{}", listed.2)
        };
        let line = format!(
            "warning: skipping 1 entr(ies) of {shown_dir}: only the first 256 by name are read; not read: {name}"
        );
        if !(never_green(&run)
            && run.stderr.lines().any(|l| l == line)
            && clean_lines(&run).is_ok())
        {
            failures.push(format!(
                "{} {}: exit {}\n{}",
                listed.0, listed.1, run.code, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn a_directory_where_a_listed_file_belongs_is_skipped_and_hidden_drop_ins_are_not_read() {
    let mut failures = Vec::new();
    for listed in LISTED {
        let env = env_for(listed.0);
        let path = entry_path(&env, listed, b"d");
        std::fs::create_dir_all(&path).expect("mkdir");
        env.write(SENTINEL.0, MCP_SERVERS);
        let run = doctor_bounded(&env, &env.work(), &[], false);
        let rel = path
            .strip_prefix(env.root())
            .expect("below T")
            .to_str()
            .expect("utf-8")
            .to_string();
        let line = format!(
            "warning: skipping {}: a directory, not a regular file; it was not read",
            shown(&env, &rel)
        );
        if !skip_reported(&run, &line) {
            failures.push(format!(
                "{} {}: exit {}\n{}",
                listed.0, listed.1, run.code, run.stderr
            ));
        }
    }
    // Claude Code merges only the visible `*.json` drop-ins; a hidden one is not
    // among its files, so it is neither read nor a skip.
    let env = Env::new();
    env.write(
        "system/etc/claude-code/managed-settings.d/.hidden.json",
        CLAUDE_SETTINGS,
    );
    env.write(
        "system/etc/claude-code/managed-settings.d/a.json.bak",
        CLAUDE_SETTINGS,
    );
    let run = doctor_bounded(&env, &env.work(), &[], false);
    if run.code != 0 || run.all().contains(".hidden.json") || run.all().contains(".bak") {
        failures.push(format!(
            "hidden drop-in: exit {}\n{}{}",
            run.code, run.stdout, run.stderr
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// `--config` names for every format: `(path below T, content only that
/// client's reader accepts or reads that way, a rule that proves the reader or
/// "", servers, content that breaks the file)`.
type Explicit = (
    &'static str,
    &'static str,
    &'static str,
    usize,
    &'static str,
);

const EXPLICIT: &[Explicit] = &[
    ("x/config.yaml", CONTINUE_YAML, "", 1, "mcpServers: [\n"),
    (
        "x/.continue/mcpServers/s.yml",
        CONTINUE_YAML,
        "",
        1,
        "a: &a [*a]\n",
    ),
    ("x/.continue/mcpServers/s.json", MCP_SERVERS, "", 1, "{"),
    ("x/codex.toml", CODEX, "", 1, "[mcp_servers\n"),
    ("x/ext/manifest.json", MANIFEST, "", 1, r#"{"name": 3}"#),
    (
        "x/.zed/settings.json",
        ZED,
        "",
        1,
        r#"{"context_servers": [1]}"#,
    ),
    (
        "x/opencode.jsonc",
        "// c\n{\"mcp\": {\"s\": {\"type\": \"local\", \"command\": [\"node\"]}},}",
        "",
        1,
        "{\"mcp\": [",
    ),
    (
        "x/.vscode/settings.json",
        "// c\n{\"mcp\": {\"servers\": {\"s\": {\"command\": \"node\"}}},}",
        "",
        1,
        "{\"mcp\":",
    ),
    (
        "x/.gemini/settings.json",
        "// c\n{\"mcpServers\": {\"s\": {\"command\": \"node\", \"trust\": true}}}",
        "WRD-CLIENT-TOOL-AUTO-APPROVE",
        1,
        "{\"mcpServers\": {},}",
    ),
    (
        "x/.claude/settings.json",
        CLAUDE_SETTINGS,
        "WRD-CLIENT-PROJECT-AUTO-APPROVE",
        0,
        r#"{"permissions": 3}"#,
    ),
    (
        "x/managed-settings.d/10.json",
        CLAUDE_SETTINGS,
        "WRD-CLIENT-PROJECT-AUTO-APPROVE",
        0,
        r#"{"enabledMcpjsonServers": "s"}"#,
    ),
    (
        "x/cline_mcp_settings.json",
        r#"{"mcpServers": {"s": {"command": "node", "autoApprove": ["t"]}}}"#,
        "WRD-CLIENT-TOOL-AUTO-APPROVE",
        1,
        "{",
    ),
    (
        "x/mcp_settings.json",
        r#"{"mcpServers": {"s": {"command": "node", "alwaysAllow": ["t"]}}}"#,
        "WRD-CLIENT-TOOL-AUTO-APPROVE",
        1,
        "{",
    ),
    (
        "x/.roo/mcp.json",
        r#"{"mcpServers": {"s": {"command": "node", "alwaysAllow": ["t"]}}}"#,
        "WRD-CLIENT-TOOL-AUTO-APPROVE",
        1,
        "{",
    ),
    (
        "x/.kiro/settings/mcp.json",
        r#"{"mcpServers": {"s": {"command": "node", "autoApprove": ["t"]}}}"#,
        "WRD-CLIENT-TOOL-AUTO-APPROVE",
        1,
        "{",
    ),
    ("x/mcp-config.json", MCP_SERVERS, "", 1, "{"),
    ("x/.amazonq/mcp.json", MCP_SERVERS, "", 1, "{"),
];

fn explicit_run(env: &Env, path: &Path) -> Run {
    doctor_bounded(
        env,
        &env.work(),
        &[
            "--no-discover",
            "--json",
            "--config",
            path.to_str().expect("utf-8"),
        ],
        false,
    )
}

#[test]
fn explicit_configs_of_every_format_are_read_by_their_clients_reader_even_through_a_symlink() {
    let mut failures = Vec::new();
    for &(rel, content, rule, servers, _) in EXPLICIT {
        let env = Env::new();
        let path = env.write(rel, content);
        // A symlinked `--config` is trusted as given: the same reading.
        let link = env.symlink(
            &path,
            &format!("link/{}", rel.rsplit('/').next().unwrap_or(rel)),
        );
        for given in [&path, &link] {
            let run = explicit_run(&env, given);
            let ids = run.rule_ids();
            let no_lock = ids.iter().filter(|r| *r == "WRD-DOCTOR-NO-LOCK").count();
            let ok = run.code == usize::from(servers > 0 || !rule.is_empty()) as i32
                && no_lock == servers
                && (rule.is_empty() || ids.iter().any(|r| r == rule))
                && !run.stderr.contains("symlink");
            if !ok {
                failures.push(format!(
                    "{rel} via {}: exit {}\n{}{}",
                    given.display(),
                    run.code,
                    run.stdout,
                    run.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn an_explicit_config_that_is_a_directory_or_malformed_fails_with_one_error_line() {
    let mut failures = Vec::new();
    for &(rel, _, _, _, broken) in EXPLICIT {
        // A directory with the name: never opened.
        let env = Env::new();
        let dir = env.mkdir(rel);
        let run = explicit_run(&env, &dir);
        let line = format!(
            "error: cannot read {}: a directory, not a regular file",
            dir.display()
        );
        if run.code != 2
            || run.stderr.lines().collect::<Vec<_>>() != [line.as_str()]
            || !run.stdout.is_empty()
        {
            failures.push(format!(
                "{rel} (directory): exit {}\n{}{}",
                run.code, run.stdout, run.stderr
            ));
        }
        // Content its reader refuses: one error naming the path and the reason.
        let env = Env::new();
        let path = env.write(rel, broken);
        let run = explicit_run(&env, &path);
        let lines: Vec<&str> = run.stderr.lines().collect();
        let ok = run.code == 2
            && run.stdout.is_empty()
            && lines.len() == 1
            && lines[0].starts_with("error: ")
            && lines[0].contains(&path.display().to_string())
            && lines[0].len() > "error: ".len() + path.display().to_string().len() + 10;
        // The reason names the file's own syntax, never "JSON" for YAML, TOML
        // or a JSONC settings file.
        let not_json = [
            ".yaml",
            ".yml",
            ".toml",
            ".vscode/settings.json",
            ".zed/settings.json",
            ".jsonc",
        ];
        let wrong_kind = not_json.iter().any(|end| rel.ends_with(end))
            && lines.first().is_some_and(|l| l.contains("invalid JSON in"));
        if !ok || wrong_kind {
            failures.push(format!(
                "{rel} (malformed): exit {}\n{}{}",
                run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// One line of `strace -f -y` output: (pid, syscall name, the rest).
fn strace_line(line: &str) -> Option<(u32, &str, &str)> {
    let (pid, rest) = line.split_once(' ')?;
    let pid: u32 = pid.trim().parse().ok()?;
    let rest = rest.trim_start();
    let name_end = rest.find('(')?;
    Some((pid, &rest[..name_end], &rest[name_end..]))
}

#[test]
fn listed_directories_are_read_only_in_the_confined_child_and_nothing_they_name_runs() {
    if crate::util::strace_is_missing() {
        return;
    }
    let env = Env::new();
    let stdio = r#"{"mcpServers": {"x": {"command": "/bin/true", "args": ["x"]}}}"#;
    let files: &[(&str, &str)] = &[
        ("home/.config/Code/User/profiles/p/mcp.json", r#"{"servers": {"v": {"command": "/bin/true"}}}"#),
        ("home/.config/Code/User/profiles/p/settings.json", r#"{"mcp": {"servers": {"w": {"command": "/bin/true"}}}}"#),
        ("home/.config/Code/User/profiles/p/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", stdio),
        ("home/.config/Code - Insiders/User/profiles/q/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", stdio),
        ("home/.config/Claude/Claude Extensions/ant.dir.e/manifest.json", r#"{"name": "e", "version": "1.0.0", "server": {"type": "binary", "mcp_config": {"command": "/bin/true"}}}"#),
        ("home/.continue/mcpServers/u.yaml", "name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: y\n    command: /bin/true\n"),
        ("work/.continue/mcpServers/p.json", stdio),
        ("system/etc/claude-code/managed-settings.d/10.json", r#"{"enableAllProjectMcpServers": true}"#),
    ];
    for (rel, text) in files {
        env.write(rel, text);
    }
    let trace = env.root().join("trace.txt");
    let home = env.home();
    let system = env.system_root();
    let out = env
        .strace(
            &trace,
            "execve,execveat,socket,connect,read,pread64,readv,mmap,seccomp,landlock_restrict_self",
        )
        .args(["doctor", "--json", "--home"])
        .arg(&home)
        .args(["--platform", "linux", "--system-root"])
        .arg(&system)
        .output()
        .expect("strace");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).expect("trace");
    let own = std::fs::canonicalize(crate::util::bin()).expect("binary");
    let (mut child, mut landlocked, mut filtered) = (Vec::new(), Vec::new(), Vec::new());
    let mut read_in_child = vec![false; files.len()];
    for line in text.lines() {
        let Some((pid, name, rest)) = strace_line(line) else {
            continue;
        };
        match name {
            "execve" | "execveat" if !rest.contains("= -1") => {
                assert!(
                    rest.contains(own.to_str().unwrap_or("")) || rest.contains("/proc/self/exe"),
                    "execve of something other than mcp-warden: {line}"
                );
                if rest.contains("/proc/self/exe") {
                    child.push(pid);
                }
            }
            "socket" | "connect" => panic!("the default path opened a socket: {line}"),
            "landlock_restrict_self" if rest.contains("= 0") => landlocked.push(pid),
            "seccomp" if rest.contains("= 0") => filtered.push(pid),
            "read" | "pread64" | "readv" | "mmap" => {
                for (i, (rel, _)) in files.iter().enumerate() {
                    let real = env.root().join(rel);
                    let real = std::fs::canonicalize(&real).unwrap_or(real);
                    if rest.contains(&format!("{}>", real.display())) {
                        assert!(
                            child.contains(&pid),
                            "config bytes read outside the child: {line}"
                        );
                        assert!(landlocked.contains(&pid), "read before landlock: {line}");
                        assert!(filtered.contains(&pid), "read before seccomp: {line}");
                        read_in_child[i] = true;
                    }
                }
            }
            _ => {}
        }
    }
    for (i, (rel, _)) in files.iter().enumerate() {
        assert!(read_in_child[i], "{rel} was not read by the child:\n{text}");
    }
}

#[test]
fn a_fifo_or_file_where_a_listed_directory_belongs_is_a_skip_never_green() {
    let mut failures = Vec::new();
    for listed in LISTED {
        for what in ["FIFO", "regular file"] {
            let env = env_for(listed.0);
            env.write(SENTINEL.0, MCP_SERVERS);
            let path = env.root().join(listed.1);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            if what == "FIFO" {
                nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
            } else {
                std::fs::write(&path, MCP_SERVERS).expect("write");
            }
            let run = doctor_bounded(&env, &env.work(), &[], false);
            let line = format!(
                "warning: skipping {}: a {what}, not a directory; nothing below it was read",
                shown(&env, listed.1)
            );
            if !skip_reported(&run, &line) {
                failures.push(format!(
                    "{} {} {what}: exit {}\n{}",
                    listed.0, listed.1, run.code, run.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}
