//! Next steps work exactly as printed: every pin, rotate and check line doctor
//! prints for a real home is run, as printed, in bash, against fixture servers
//! that need what the config gives them: a stdio server that exits unless an env
//! variable holds its value, and an HTTP server that answers 401 without a header
//! and redirects `/mcp/` to `/mcp` with a 307. Each line must succeed (check after
//! pin exits 0); without the exports the block asks for, the pasted lines fail
//! with a message naming the variable.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::json;

use crate::util::*;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pin")
        .join(name)
        .display()
        .to_string()
}

/// The HTTP fixture on a free loopback port, killed on drop.
struct HttpServer {
    child: Child,
    port: u16,
}

impl HttpServer {
    fn start(header: &str, value: &str) -> HttpServer {
        let mut child = Command::new("python3")
            .args([fixture("http_server.py").as_str(), header, value])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 http fixture");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        BufReader::new(stdout).read_line(&mut line).expect("port");
        let port = line.trim().parse().expect("port number");
        HttpServer { child, port }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory holding `mcp-warden`, the binary under test, for PATH.
fn bin_dir(env: &Env) -> PathBuf {
    let dir = env.mkdir("bin");
    std::os::unix::fs::symlink(bin(), dir.join("mcp-warden")).expect("symlink");
    dir
}

/// Run `script` in `bash --norc` in `cwd` with only `vars` (and PATH with the binary
/// under test first) in its environment.
fn bash(env: &Env, cwd: &Path, script: &str, vars: &[(&str, &str)]) -> Run {
    let path = format!(
        "{}:{}",
        env.root().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.args(["--norc", "--noprofile", "-c", script])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", env.home());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("bash"))
}

const TOKEN: &str = "fixture-token-value-1";
const API_KEY: &str = "fixture-api-key-2";

/// A home whose Cursor config and whose project `.mcp.json` (Claude Code's
/// `${VAR}` syntax, Cursor's `${env:VAR}`) name the two fixtures.
fn home_with_fixtures(env: &Env, port: u16) {
    let surface = env.write(
        "surface.json",
        json!({"require_env": {"FIXTURE_TOKEN": TOKEN},
               "tools": [{"name": "read_file", "inputSchema": {"type": "object"}}]})
        .to_string(),
    );
    let url = format!("http://127.0.0.1:{port}/mcp/");
    env.cursor(json!({
        "needs-env": {"command": "python3", "args": [fixture("server.py"), surface.display().to_string()],
                      "env": {"FIXTURE_TOKEN": TOKEN}},
        "needs-header": {"url": url, "headers": {"X-Api-Key": "${env:FM_KEY}"}},
    }));
    // The same HTTP launch in a project: one lock for both, approved after review.
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {"api": {"type": "http", "url": url, "headers": {"X-Api-Key": "${FM_KEY}"}}}})
            .to_string(),
    );
}

/// The `mcp-warden …` lines of the Next steps block, in order.
fn printed_lines(stdout: &str) -> Vec<String> {
    let start = stdout.find("Next steps").expect("a Next steps block");
    let end = stdout[start..]
        .find("\nThen in CI")
        .map_or(stdout.len(), |e| start + e);
    stdout[start..end]
        .lines()
        .filter_map(|l| l.strip_prefix("  mcp-warden "))
        .map(|l| format!("mcp-warden {l}"))
        .collect()
}

/// Each CI check step as GitHub would run it: its `run:` script, with its `env:`
/// map, each `${{ secrets.NAME }}` taken from `secrets`.
fn ci_steps(stdout: &str, secrets: &[(&str, &str)]) -> Vec<(String, Vec<(String, String)>)> {
    let start = stdout.find("# .github/workflows/").expect("a CI snippet");
    // The report's summary follows the snippet.
    let end = stdout.rfind("\nSummary:").unwrap_or(stdout.len());
    let docs = yaml_rust2::YamlLoader::load_from_str(&stdout[start..end]).expect("yaml");
    let steps = docs[0]["jobs"]["mcp-check"]["steps"]
        .as_vec()
        .expect("steps")
        .clone();
    steps[2..]
        .iter()
        .map(|step| {
            let run = step["run"].as_str().expect("run").to_string();
            let mut vars = Vec::new();
            if let Some(map) = step["env"].as_hash() {
                for (k, v) in map {
                    let (k, v) = (k.as_str().expect("key"), v.as_str().expect("value"));
                    let value = match v
                        .strip_prefix("${{ secrets.")
                        .and_then(|s| s.strip_suffix(" }}"))
                    {
                        Some(secret) => secrets
                            .iter()
                            .find(|(n, _)| *n == secret)
                            .unwrap_or_else(|| panic!("no secret {secret} for {k}"))
                            .1
                            .to_string(),
                        None => v.to_string(),
                    };
                    vars.push((k.to_string(), value));
                }
            }
            (run, vars)
        })
        .collect()
}

#[test]
fn every_printed_pin_rotate_and_check_line_succeeds_as_printed() {
    let env = Env::new();
    let server = HttpServer::start("X-Api-Key", API_KEY);
    home_with_fixtures(&env, server.port);
    bin_dir(&env);
    let run = env.doctor(&[]);
    run.expect_code(1);
    let lines = printed_lines(&run.stdout);
    let pins: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("mcp-warden pin "))
        .collect();
    // One pin line per launch: the project's HTTP server and the user's share one.
    assert_eq!(pins.len(), 2, "{}", run.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("mcp-warden lock rotate ")),
        "{}",
        run.stdout
    );
    assert!(
        pins.iter().any(|l| l.contains(" --env FIXTURE_TOKEN ")),
        "{}",
        run.stdout
    );
    assert!(
        pins.iter()
            .any(|l| l.contains(" --header 'X-Api-Key: ${FM_KEY}' ")),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains(TOKEN), "an env value was printed");
    // Near miss: without the exports, each pin line fails naming its variable.
    let bare = env.mkdir("bare");
    for line in &pins {
        let r = bash(&env, &bare, line, &[]);
        assert_eq!(r.code, 2, "{line}\n{}", r.stderr);
        let named = if line.contains("--env") {
            "the variable FIXTURE_TOKEN (passed with --env FIXTURE_TOKEN) is not set"
        } else {
            "FM_KEY, which is not set"
        };
        assert!(r.stderr.contains(named), "{line}\n{}", r.stderr);
    }
    // As the block instructs: export each variable, then paste each line in order.
    let exported = [("FIXTURE_TOKEN", TOKEN), ("FM_KEY", API_KEY)];
    let work = env.work();
    for line in &lines {
        let r = bash(&env, &work, line, &exported);
        assert_eq!(r.code, 0, "{line}\n{}{}", r.stdout, r.stderr);
    }
    // Each CI step, with its variables from repository secrets of the names it uses.
    let steps = ci_steps(&run.stdout, &exported);
    assert_eq!(steps.len(), 2, "{}", run.stdout);
    for (script, vars) in &steps {
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let r = bash(&env, &work, script, &vars);
        assert_eq!(r.code, 0, "{script}\n{vars:?}\n{}{}", r.stdout, r.stderr);
    }
    // Now every server is covered by an approved lock.
    let after = env.doctor(&["--json"]);
    let rules = after.rule_ids();
    assert!(
        !rules.is_empty(),
        "the home's other findings are still reported"
    );
    assert!(
        !rules
            .iter()
            .any(|r| r == "WRD-DOCTOR-NO-LOCK" || r == "WRD-DOCTOR-LOCK-UNAPPROVED"),
        "{rules:?}"
    );
}

#[test]
fn a_header_value_that_holds_a_credential_is_a_placeholder_that_works_once_exported() {
    let env = Env::new();
    let literal = "k9Zq2Lr7Vx4Tn8Wm3Yp6Hs1Jd5Fg0Bc";
    let server = HttpServer::start("Authorization", &format!("Bearer {literal}"));
    env.cursor(json!({
        "literal": {"url": format!("http://127.0.0.1:{}/mcp/", server.port),
                    "headers": {"Authorization": format!("Bearer {literal}")}},
    }));
    bin_dir(&env);
    let run = env.doctor(&[]);
    assert!(!run.all().contains(literal), "a credential was printed");
    let lines = printed_lines(&run.stdout);
    let pin = lines.first().expect("a pin line");
    assert!(
        pin.contains("--header 'Authorization: ${MCP_HEADER_AUTHORIZATION}'"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("export MCP_HEADER_NAME as the whole value the config gives that header"),
        "{}",
        run.stdout
    );
    let value = format!("Bearer {literal}");
    let vars = [("MCP_HEADER_AUTHORIZATION", value.as_str())];
    for line in &lines {
        let r = bash(&env, &env.work(), line, &vars);
        assert_eq!(r.code, 0, "{line}\n{}", r.stderr);
    }
}

#[test]
fn refused_redirects_say_where_they_pointed() {
    let env = Env::new();
    let server = HttpServer::start("X-Api-Key", API_KEY);
    bin_dir(&env);
    for (path, says) in [
        ("loop", "redirects back to 'http://127.0.0.1:"),
        (
            "away",
            "redirects to 'http://127.0.0.1:1/mcp', another origin: refused",
        ),
    ] {
        let line = format!(
            "mcp-warden pin --url http://127.0.0.1:{}/{path} --header 'X-Api-Key: ${{FM_KEY}}' --lock x.warden.lock",
            server.port
        );
        let r = bash(&env, &env.work(), &line, &[("FM_KEY", API_KEY)]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains(says), "{path}: {}", r.stderr);
        assert!(!r.stderr.contains("s3cr3tvalue"), "{}", r.stderr);
    }
}

/// Every `--approver X` in `text`, X unquoted.
fn approvers_in(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"--approver[ =]+('[^']*'|[^\s)]+)").expect("regex");
    re.captures_iter(text)
        .map(|c| c[1].trim_matches('\'').to_string())
        .collect()
}

#[test]
fn every_printed_approver_is_the_one_placeholder_and_pastes_as_a_word() {
    use mcp_warden::render::next_steps::APPROVER_PLACEHOLDER;
    assert!(
        mcp_warden::text::quote::is_bare(APPROVER_PLACEHOLDER),
        "the placeholder must paste as one plain word"
    );
    let env = Env::new();
    // An uncovered user-level server (pinned approved), a project one (rotate line
    // after review), and one matched by an unapproved lock (the lock message).
    let surface = env.write("surface.json", json!({"tools": []}).to_string());
    let stdio = json!({"command": "python3", "args": [fixture("server.py"), surface.display().to_string()]});
    env.cursor(json!({"user": stdio, "locked": {"command": "node", "args": ["l.js"]}}));
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {"proj": {"command": "node", "args": ["p.js"]}}}).to_string(),
    );
    env.write(
        "work/locked.warden.lock",
        lock_for(
            json!({"command": "node", "args": ["l.js"], "url": null}),
            false,
        )
        .to_string(),
    );
    let mine = env.write(
        "work/mine.json",
        json!({"mcpServers": {"mine": stdio}}).to_string(),
    );
    let sarif = env.root().join("d.sarif");
    let mut outputs = vec![
        env.doctor(&[]).all(),
        env.doctor(&["--json"]).all(),
        env.doctor(&["--servers"]).all(),
    ];
    env.doctor(&["--sarif", sarif.to_str().expect("utf-8")]);
    outputs.push(std::fs::read_to_string(&sarif).expect("sarif"));
    outputs.push(
        env.doctor(&[
            "--no-discover",
            "--config",
            mine.to_str().expect("utf-8"),
            "--pin",
            "--yes",
        ])
        .all(),
    );
    let pin = Run::from(
        env.command(&[
            "pin",
            "--approve",
            "--lock",
            "z.warden.lock",
            "python3",
            "-c",
            "1",
        ])
        .output()
        .expect("pin"),
    );
    outputs.push(pin.all());
    let mut seen = 0;
    for text in &outputs {
        for approver in approvers_in(text) {
            assert_eq!(approver, APPROVER_PLACEHOLDER, "in:\n{text}");
            seen += 1;
        }
    }
    // The pin line, the rotate lines, the lock message, --pin's lines, pin's error.
    assert!(seen >= 6, "only {seen} approver placeholders printed");
    assert!(pin.stderr.contains(APPROVER_PLACEHOLDER), "{}", pin.stderr);
}
