//! Adversarial cases for what doctor prints to paste or commit, beyond the
//! command-shaped lines `paste.rs` runs:
//!
//! * a whole pasted block (Next steps, the `doctor --pin` results) runs nothing but
//!   `mcp-warden`: its prose lines are inert in bash, an interactive zsh without
//!   `INTERACTIVE_COMMENTS`, and fish;
//! * no printed line asks the user to export (or a CI step to set) a variable that
//!   decides what later commands run or trust (`PATH`, `LD_PRELOAD`, `BASH_ENV`,
//!   `XDG_CONFIG_HOME`, a proxy, mcp-warden's own settings);
//! * a header placeholder never names a variable the user's shell may already hold,
//!   and a `$` the client sends literally is never printed as a reference, so the
//!   printed line never sends the caller's own value where the client sends text;
//! * two variables that GitHub would read from one secret get no CI step;
//! * a rescan line is printed whole, however long its path;
//! * a credential held in a name (env key, header name, server name, referenced
//!   variable) is printed nowhere.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::util::*;

fn shell_available(shell: &str) -> bool {
    Command::new(shell)
        .args(["-c", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// Run `script` in `shell` with a PATH holding only a stub `mcp-warden`; every
/// other command name the shell tries to run is logged by its not-found hook.
/// Returns the names that were tried (the stub logs `mcp-warden`).
fn tried_commands(shell: &str, script: &str) -> Vec<String> {
    let scratch = tempfile::tempdir().expect("tempdir");
    let log = scratch.path().join("log");
    let bin = scratch.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let stub = bin.join("mcp-warden");
    std::fs::write(&stub, "#!/bin/sh\nprintf 'mcp-warden\\n' >> \"$LOG\"\n").expect("stub");
    std::fs::set_permissions(&stub, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    let program = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(shell))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| shell.into());
    let run = |args: &[&str], stdin: &str| {
        use std::io::Write as _;
        let mut child = Command::new(&program)
            .args(args)
            .current_dir(scratch.path())
            .env_clear()
            .env("PATH", &bin)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .env("XDG_DATA_HOME", &home)
            .env("LOG", &log)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn shell");
        if let Some(mut input) = child.stdin.take() {
            let _ = input.write_all(stdin.as_bytes());
        }
        let _ = child.wait();
    };
    match shell {
        "bash" => run(
            &["--norc", "--noprofile", "-i"],
            &format!("command_not_found_handle() {{ printf '%s\\n' \"$1\" >> \"$LOG\"; }}\n{script}\nexit\n"),
        ),
        "zsh" => run(
            &["-f", "-i"],
            &format!("command_not_found_handler() {{ printf '%s\\n' \"$1\" >> \"$LOG\"; }}\n{script}\nexit\n"),
        ),
        // fish reads a script whole (one syntax error stops all of it): one line
        // at a time, as a user pastes it.
        _ => {
            for line in script.lines() {
                let hook = "function fish_command_not_found; printf '%s\\n' $argv[1] >> $LOG; end";
                run(&["-N", "-c", &format!("{hook}; {line}")], "");
            }
        }
    }
    std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Paste `block` whole into each installed shell: it runs `mcp-warden` exactly
/// `commands` times and tries no other command (zsh runs a `#` line as a command
/// named `#`: harmless, and all such a line may do).
fn assert_block_runs_only_mcp_warden(block: &str, commands: usize) {
    let mut shells = 0;
    for shell in ["bash", "zsh", "fish"] {
        if !shell_available(shell) {
            assert_ne!(shell, "bash", "bash is required");
            eprintln!("skipping {shell}: not installed");
            continue;
        }
        shells += 1;
        let tried = tried_commands(shell, block);
        let others: Vec<&String> = tried
            .iter()
            .filter(|c| *c != "mcp-warden" && *c != "#")
            .collect();
        assert!(others.is_empty(), "{shell} ran {others:?} from\n{block}");
        assert_eq!(
            tried.iter().filter(|c| *c == "mcp-warden").count(),
            commands,
            "{shell}: {tried:?}\n{block}"
        );
    }
    assert!(shells >= 1);
}

/// The lines of the Next steps block, up to the CI snippet.
fn next_steps_block(stdout: &str) -> String {
    let start = stdout.find("Next steps").expect("a Next steps block");
    let block = &stdout[start..];
    let end = block.find("\nThen in CI").unwrap_or(block.len());
    block[..end]
        .lines()
        .skip(1)
        .map(str::trim_start)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Servers whose Next steps carry every prose note: one pinned unapproved, env
/// keys to pass, a withheld header, names left out, execution-control names.
fn noisy_home(env: &Env) {
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {
            "envs": {"command": "node", "args": ["e.js"], "env": {
                "API_TOKEN": "v", "A B": "1", "PATH": "./bin:/usr/bin", "LD_PRELOAD": "./Evil9.so"}},
            "hdrs": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer Sup3rS3cretPw9"}},
        }})
        .to_string(),
    );
}

#[test]
fn pasting_the_whole_next_steps_block_runs_only_mcp_warden() {
    let env = Env::new();
    noisy_home(&env);
    let run = env.doctor(&[]);
    let block = next_steps_block(&run.stdout);
    let commands = block
        .lines()
        .filter(|l| l.starts_with("mcp-warden "))
        .count();
    assert!(block.contains("pinned unapproved"), "{block}");
    assert!(block.contains("not plain names"), "{block}");
    assert_block_runs_only_mcp_warden(&block, commands);
}

#[test]
fn pasting_the_doctor_pin_results_runs_only_mcp_warden() {
    let env = Env::new();
    let config = env.write(
        "work/mine.json",
        json!({"mcpServers": {
            "gone": {"command": "/nonexistent/srv; touch P", "args": ["(x)"]},
        }})
        .to_string(),
    );
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
        "--yes",
    ]);
    // The block starts at the line that says what --pin did, and ends at a blank line.
    let block: String = run
        .stdout
        .lines()
        .skip_while(|l| !(l.starts_with("doctor --pin") || l.starts_with("# 'doctor --pin")))
        .take_while(|l| !l.is_empty())
        .map(str::trim_start)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(block.contains("not pinned"), "{block}");
    let commands = block
        .lines()
        .filter(|l| l.starts_with("mcp-warden "))
        .count();
    assert_block_runs_only_mcp_warden(&block, commands);
}

/// Env keys and header-derived names that must never be exported from a config.
const CONTROL: &[&str] = &[
    "PATH",
    "path",
    "LD_PRELOAD",
    "BASH_ENV",
    "HOME",
    "IFS",
    "NODE_OPTIONS",
    "XDG_CONFIG_HOME",
    "HTTPS_PROXY",
    "WARDEN_APPROVER",
    "GITHUB_ENV",
];

#[test]
fn execution_control_names_are_never_exported_or_set_in_ci() {
    let env = Env::new();
    let mut vars = serde_json::Map::new();
    for name in CONTROL {
        vars.insert(name.to_string(), json!("./Evil9.so"));
    }
    vars.insert("API_TOKEN".into(), json!("x"));
    let mut headers = serde_json::Map::new();
    headers.insert("X-Path".into(), json!("${env:PATH}"));
    env.cursor(json!({
        "s": {"command": "node", "args": ["s.js"], "env": vars},
        "r": {"url": "https://h.example/mcp", "headers": headers},
    }));
    let run = env.doctor(&[]);
    let out = &run.stdout;
    for name in CONTROL {
        assert!(!out.contains(&format!("--env {name} ")), "{name}: {out}");
        let ci_key = format!("\n          {name}: ");
        assert!(!out.contains(&ci_key), "{name} in CI: {out}");
    }
    assert!(out.contains("--env API_TOKEN"), "{out}");
    assert!(out.contains("API_TOKEN: ${{ secrets.API_TOKEN }}"), "{out}");
    assert!(out.contains("# 'not passed: PATH path LD_PRELOAD"), "{out}");
    // The reference stays (pin reads the caller's own PATH, as the client does),
    // but the step never sets PATH from a secret.
    assert!(out.contains("--header 'X-Path: ${PATH}'"), "{out}");
}

#[test]
fn a_header_placeholder_never_names_a_variable_the_shell_may_hold() {
    let env = Env::new();
    env.cursor(json!({
        "r": {"url": "https://h.example/mcp", "headers": {
            "Path": "Sup3rS3cretPw9", "Github-Token": "Sup3rS3cretPw9", "Home": "Sup3rS3cretPw9"}},
    }));
    let run = env.doctor(&[]);
    let out = &run.stdout;
    assert!(!out.contains("Sup3rS3cretPw9"), "{out}");
    for header in ["Path", "Github-Token", "Home"] {
        let line = format!("--header '{header}: ${{MCP_HEADER_");
        assert!(out.contains(&line), "{header}: {out}");
    }
    for bare in ["${PATH}", "${GITHUB_TOKEN}", "${HOME}", "secrets.PATH"] {
        assert!(!out.contains(bare), "{bare}: {out}");
    }
}

#[test]
fn a_dollar_the_client_sends_literally_is_never_printed_as_a_reference() {
    let env = Env::new();
    // Cursor and VS Code expand only `${env:NAME}`: `${GITHUB_TOKEN}` is sent as
    // written, so a line passing `${GITHUB_TOKEN}` to pin would send the user's token.
    env.cursor(json!({
        "c": {"url": "https://h.example/mcp", "headers": {
            "Authorization": "Bearer ${GITHUB_TOKEN}", "X-Ok": "${env:FM_KEY}"}},
    }));
    env.write(
        "home/.config/Code/User/mcp.json",
        json!({"servers": {"v": {"type": "http", "url": "https://v.example/mcp",
            "headers": {"X-Api-Key": "${AWS_SECRET_ACCESS_KEY}"}}}})
        .to_string(),
    );
    let run = env.doctor(&[]);
    let out = &run.stdout;
    assert!(out.contains("--header 'X-Ok: ${FM_KEY}'"), "{out}");
    for leaked in ["${GITHUB_TOKEN}", "${AWS_SECRET_ACCESS_KEY}"] {
        assert!(!out.contains(leaked), "{leaked}: {out}");
    }
    assert!(
        out.contains("--header 'Authorization: ${MCP_HEADER_AUTHORIZATION}'"),
        "{out}"
    );
    assert!(
        out.contains("--header 'X-Api-Key: ${MCP_HEADER_X_API_KEY}'"),
        "{out}"
    );
}

#[test]
fn two_variables_read_from_one_secret_get_no_ci_step() {
    let env = Env::new();
    env.cursor(json!({
        "a": {"command": "node", "args": ["a.js"], "env": {"API_TOKEN": "1", "api_token": "2"}},
        "b": {"command": "node", "args": ["b.js"], "env": {"GITHUB_TOKEN": "1", "MCP_GITHUB_TOKEN": "2"}},
        "c": {"command": "node", "args": ["c.js"], "env": {"API_TOKEN": "1"}},
    }));
    let run = env.doctor(&[]);
    let out = &run.stdout;
    assert!(out.contains("# No step for a.warden.lock: the variables API_TOKEN and api_token would both come from the repository secret"), "{out}");
    assert!(
        out.contains(
            "# No step for b.warden.lock: the variables GITHUB_TOKEN and MCP_GITHUB_TOKEN"
        ),
        "{out}"
    );
    assert!(out.contains("- name: Check c.warden.lock"), "{out}");
    assert!(!out.contains("- name: Check a.warden.lock"), "{out}");
}

#[test]
fn a_rescan_line_is_printed_whole_however_long_its_path() {
    let env = Env::new();
    let long = "d".repeat(180);
    let home = env.root().join(&long).join("h");
    let real = env.write("real.json", json!({"mcpServers": {}}).to_string());
    std::fs::create_dir_all(home.join(".cursor")).expect("mkdir");
    std::os::unix::fs::symlink(&real, home.join(".cursor/mcp.json")).expect("symlink");
    let mut cmd = env.command(&[
        "doctor",
        "--home",
        home.to_str().expect("utf-8"),
        "--platform",
        "linux",
        "--system-root",
        env.system_root().to_str().expect("utf-8"),
    ]);
    let out = cmd.output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let path = home.join(".cursor/mcp.json");
    let expected = format!("mcp-warden doctor --config {}", path.display());
    assert!(
        stdout.lines().any(|l| l.trim() == expected),
        "{expected}\n{stdout}"
    );
    assert!(Path::new(&path).exists());
}

#[test]
fn a_credential_held_in_a_name_is_never_printed() {
    // Names are config text too: an env key, a header name, a server name (the
    // lock file name is built from it) and a variable a header references.
    let gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let slack = "xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJabcd";
    let aws = "AKIAIOSFODNN7EXAMPLQ";
    let env = Env::new();
    let mut vars = serde_json::Map::new();
    vars.insert(gh.into(), json!("x"));
    vars.insert("API_TOKEN".into(), json!("x"));
    let mut headers = serde_json::Map::new();
    headers.insert(slack.into(), json!("on"));
    headers.insert("X-Trace".into(), json!(format!("${{env:{gh}}}")));
    headers.insert("X-Ok".into(), json!("${env:FM_KEY}"));
    let mut servers = serde_json::Map::new();
    servers.insert(
        format!("gh-{gh}"),
        json!({"command": "node", "args": ["s.js"], "env": vars}),
    );
    servers.insert(aws.into(), json!({"command": "node", "args": ["t.js"]}));
    servers.insert(
        "r".into(),
        json!({"url": "https://h.example/mcp", "headers": headers}),
    );
    env.cursor(serde_json::Value::Object(servers));
    for args in [&[][..], &["--json"][..], &["--sarif"][..]] {
        let run = env.doctor(args);
        let all = format!("{}{}", run.stdout, run.stderr);
        for secret in [gh, slack, aws, &gh.to_lowercase(), &aws.to_lowercase()] {
            assert!(!all.contains(secret), "{args:?} printed {secret}: {all}");
        }
        if args.is_empty() {
            // The rest of each line is still printed, and what was left out is said.
            let out = &run.stdout;
            assert!(out.contains("--env API_TOKEN"), "{out}");
            assert!(out.contains("--header 'X-Ok: ${FM_KEY}'"), "{out}");
            assert!(
                out.contains("--header 'X-Trace: ${MCP_HEADER_X_TRACE}'"),
                "{out}"
            );
            assert!(out.contains("--lock gh-ghp-len-40.warden.lock"), "{out}");
            assert!(
                out.contains("# '2 env or header names are not plain"),
                "{out}"
            );
        }
    }
}
