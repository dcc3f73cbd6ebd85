//! `doctor --pin`: the opt-in spawn path and every refusal.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use crate::util::*;

fn server_py() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pin/server.py")
        .display()
        .to_string()
}

fn surface(env: &Env, body: serde_json::Value) -> String {
    env.write("surface.json", body.to_string())
        .display()
        .to_string()
}

fn basic_surface(env: &Env) -> String {
    surface(
        env,
        json!({"tools": [{"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]}),
    )
}

/// A config whose server would leave a marker file behind if anything ran it.
fn marker_server(env: &Env) -> (serde_json::Value, PathBuf) {
    let marker = env.root().join("spawned-marker");
    (
        json!({"command": "sh", "args": ["-c", format!("touch {}", marker.display())]}),
        marker,
    )
}

fn locks_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.retain(|n| n.ends_with(".warden.lock"));
    names.sort();
    names
}

#[test]
fn non_interactive_pin_without_yes_refuses_and_spawns_nothing() {
    let env = Env::new();
    let (server, marker) = marker_server(&env);
    let config = env.write(
        "work/mine.json",
        json!({"mcpServers": {"m": server}}).to_string(),
    );
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
    ]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("refusing in a non-interactive session without --yes"),
        "{}",
        run.stderr
    );
    assert!(!marker.exists());
    assert!(locks_in(&env.work()).is_empty());
}

#[test]
fn discovered_project_config_is_refused_even_with_yes() {
    let env = Env::new();
    env.mkdir("work/.git");
    let (server, marker) = marker_server(&env);
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {"evil": server}}).to_string(),
    );
    let run = env.doctor(&["--pin", "--yes"]);
    run.expect_code(2);
    let expected = format!(
        "--pin refused {0}/.mcp.json#evil: discovered config ({0}/.mcp.json); pass it with --config to allow spawning",
        env.work().display()
    );
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    assert!(!marker.exists(), "a discovered server was spawned");
    assert!(locks_in(&env.work()).is_empty());
}

#[test]
fn a_refusal_beside_a_pinned_server_still_exits_two() {
    let env = Env::new();
    let (server, marker) = marker_server(&env);
    env.cursor(json!({"planted": server}));
    let config = env.write(
        "work/mine.json",
        json!({"mcpServers": {"clean": {"command": "python3", "args": [server_py(), basic_surface(&env)]}}}).to_string(),
    );
    let run = env.doctor(&[
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
        "--yes",
    ]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--pin refused ~/.cursor/mcp.json#planted"),
        "{}",
        run.stderr
    );
    assert!(!marker.exists());
    assert_eq!(locks_in(&env.work()), ["clean.warden.lock"]);
}

#[test]
fn pin_yes_writes_an_unapproved_lock_that_the_next_run_reports() {
    let env = Env::new();
    let config = env.write(
        "work/mcp.json",
        json!({"mcpServers": {"clean": {"command": "python3", "args": [server_py(), basic_surface(&env)]}}}).to_string(),
    );
    let c = config.to_str().expect("utf-8");
    let run = env.doctor(&["--no-discover", "--config", c, "--pin", "--yes"]);
    run.expect_code(1);
    // What --pin did, not what it was about to do: the report describes the state
    // after pinning (the lock is there, unapproved), with no Next steps block asking
    // to pin what was just pinned.
    let block = format!(
        "# 'doctor --pin pinned 1 of 1 launches into unapproved locks in the current directory:'
  # '{c}#clean'
  # 'pinned into clean.warden.lock, unapproved: review it, approve it, then check it and commit it'
  mcp-warden lock rotate clean.warden.lock --approver you@example.com
  mcp-warden check --lock clean.warden.lock python3 {} {}
",
        server_py(),
        env.root().join("surface.json").display()
    );
    // The block ends the report, before its summary.
    let before_summary = &run.stdout[..run.stdout.rfind("\nSummary:").unwrap_or(run.stdout.len())];
    assert!(
        before_summary.ends_with(&block),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stdout.contains("Next steps"), "{}", run.stdout);
    assert!(!run.stdout.contains("WRD-DOCTOR-NO-LOCK"), "{}", run.stdout);
    assert!(
        run.stdout.contains("WRD-DOCTOR-LOCK-UNAPPROVED"),
        "{}",
        run.stdout
    );
    let lock: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.work().join("clean.warden.lock")).expect("lock written"),
    )
    .expect("json");
    assert_eq!(lock["pin"]["approved"], false);
    assert_eq!(lock["tools"][0]["name"], "read_file");

    let again = env.doctor(&["--no-discover", "--config", c, "--json"]);
    again.expect_code(1);
    assert_eq!(again.rule_ids(), ["WRD-DOCTOR-LOCK-UNAPPROVED"]);
}

#[test]
fn pin_with_json_keeps_stdout_pure() {
    let env = Env::new();
    let config = env.write(
        "work/mcp.json",
        json!({"mcpServers": {"clean": {"command": "python3", "args": [server_py(), basic_surface(&env)]}}}).to_string(),
    );
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
        "--yes",
        "--json",
    ]);
    run.expect_code(1);
    let records = run.jsonl();
    assert_eq!(
        run.rule_ids(),
        ["WRD-DOCTOR-LOCK-UNAPPROVED"],
        "{records:?}"
    );
    assert!(
        run.stderr.contains("pinned into clean.warden.lock"),
        "{}",
        run.stderr
    );
}

#[test]
fn capture_failure_is_exit_two_and_writes_nothing() {
    let env = Env::new();
    let config = env.write(
        "work/mcp.json",
        json!({"mcpServers": {"dead": {"command": "python3", "args": ["-c", "raise SystemExit(3)"]}}}).to_string(),
    );
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
        "--yes",
        "--timeout",
        "5",
    ]);
    run.expect_code(2);
    assert!(
        run.stdout
            .contains("# 'doctor --pin pinned 0 of 1 launches"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  # 'not pinned: capture failed: "),
        "{}",
        run.stdout
    );
    // The server is still uncovered: its pin line is still printed, for the user.
    assert!(
        run.stdout
            .contains("Next steps — 1 server has no warden.lock"),
        "{}",
        run.stdout
    );
    assert!(locks_in(&env.work()).is_empty());
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let env = Env::new();
    env.write("work/clean.warden.lock", "{}");
    let config = env.write(
        "work/mine.json",
        json!({"mcpServers": {"clean": {"command": "python3", "args": [server_py(), basic_surface(&env)]}}}).to_string(),
    );
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
        "--yes",
    ]);
    assert_eq!(
        std::fs::read_to_string(env.work().join("clean.warden.lock")).expect("still there"),
        "{}"
    );
    // The printed and the written name agree: the taken name got a hash suffix.
    let pinned: Vec<String> = locks_in(&env.work())
        .into_iter()
        .filter(|n| n != "clean.warden.lock")
        .collect();
    assert_eq!(pinned.len(), 1, "{}{}", run.stdout, run.stderr);
    assert!(pinned[0].starts_with("clean-"), "{pinned:?}");
    assert!(
        run.stdout.contains(&format!("--lock {}", pinned[0])),
        "{}",
        run.stdout
    );
}

#[test]
fn servers_launch_with_their_env_and_project_directory() {
    let env = Env::new();
    let project = env.mkdir("work/proj");
    let surf = surface(
        &env,
        json!({"env_echo": "WARDEN_FIXTURE_VALUE", "cwd_echo": true, "tools": []}),
    );
    let config = env.write(
        "work/proj/.mcp.json",
        json!({"mcpServers": {"s": {"command": "python3", "args": [server_py(), surf], "env": {"WARDEN_FIXTURE_VALUE": "from-config"}}}})
            .to_string(),
    );
    let names = pinned_tool_names(&env, &config, "s.warden.lock");
    assert!(names.iter().any(|n| n == "from-config"), "{names:?}");
    let base = project
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    assert!(names.contains(&format!("cwd:{base}")), "{names:?}");
}

/// `doctor --no-discover --config CONFIG --pin --yes` (exit 1: the new lock is
/// unapproved), then the tool names of the lock it wrote.
fn pinned_tool_names(env: &Env, config: &std::path::Path, lock: &str) -> Vec<String> {
    let run = env.doctor(&[
        "--no-discover",
        "--config",
        config.to_str().expect("utf-8"),
        "--pin",
        "--yes",
    ]);
    run.expect_code(1);
    let lock: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.work().join(lock)).expect("lock written"),
    )
    .expect("json");
    lock["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn env_references_are_expanded_from_the_environment_like_the_client() {
    let mut env = Env::new();
    env.extra_env
        .push(("RAW_TOKEN".into(), "expanded-from-env".into()));
    let surf = surface(&env, json!({"env_echo": "MCPW_CONFIG_VAR", "tools": []}));
    // `.mcp.json` is Claude Code's (`${VAR}`); a VS Code file uses `${env:VAR}`.
    for (file, reference) in [
        ("work/a/.mcp.json", "${RAW_TOKEN}"),
        ("work/b/.vscode/mcp.json", "${env:RAW_TOKEN}"),
    ] {
        let servers = json!({"echo": {"command": "python3", "args": [server_py(), surf],
            "env": {"MCPW_CONFIG_VAR": reference}}});
        let key = if file.ends_with(".vscode/mcp.json") {
            "servers"
        } else {
            "mcpServers"
        };
        let config = env.write(file, json!({ key: servers }).to_string());
        let names = pinned_tool_names(&env, &config, "echo.warden.lock");
        assert_eq!(names, ["expanded-from-env"], "{file}");
        std::fs::remove_file(env.work().join("echo.warden.lock")).expect("rm");
    }
}

/// Drive the interactive prompt through a pseudo-terminal.
fn on_a_tty(env: &Env, args: &[&str], answer: &str) -> (i32, String) {
    let script = r#"
import os, pty, sys, select
argv, answer = sys.argv[1:-1], sys.argv[-1]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
out = b""
sent = False
while True:
    r, _, _ = select.select([fd], [], [], 30)
    if not r:
        break
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not sent and b"[y/N]" in out:
        os.write(fd, answer.encode() + b"\n")
        sent = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
"#;
    let home = env.home();
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(script).arg(bin()).args([
        "doctor",
        "--home",
        home.to_str().expect("utf-8"),
        "--platform",
        "linux",
    ]);
    // Our own colours are on for a terminal; NO_COLOR leaves only what a config could inject.
    cmd.args(args)
        .arg(answer)
        .current_dir(env.work())
        .env("NO_COLOR", "1");
    let out = cmd.output().expect("python3 pty driver");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_prompt_names_every_argv_exactly_and_defaults_to_no() {
    let env = Env::new();
    let surf = basic_surface(&env);
    let config = env.write(
        "work/mine.json",
        json!({"mcpServers": {"clean": {"command": "python3", "args": [server_py(), surf, "x\u{1b}[2Ky"]}}}).to_string(),
    );
    let c = config.to_str().expect("utf-8");
    let (code, screen) = on_a_tty(&env, &["--no-discover", "--config", c, "--pin"], "");
    assert_eq!(code, 2, "{screen}");
    assert!(screen.contains("will spawn: python3 "), "{screen}");
    assert!(screen.contains("server.py"), "{screen}");
    assert!(
        screen.contains("$'x\\x1b[2Ky'"),
        "the escape must be shown, not sent: {screen}"
    );
    assert!(!screen.contains('\u{1b}'), "{screen:?}");
    assert!(locks_in(&env.work()).is_empty());

    let (code, screen) = on_a_tty(&env, &["--no-discover", "--config", c, "--pin"], "y");
    assert_eq!(code, 1, "{screen}");
    assert_eq!(locks_in(&env.work()), ["clean.warden.lock"]);
}
