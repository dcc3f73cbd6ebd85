//! The printed Next steps lines, pasted into a shell, run exactly the server's argv.
//!
//! A stub `mcp-warden` on PATH records the argv it receives; each printed pin line
//! is fed to `bash -c` (and zsh and fish when installed) and the recorded argv must
//! equal the config's argv, with masked arguments replaced by `<REDACTED>`.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use mcp_warden::text::mask::{mask_args, ArgView};
use mcp_warden::text::safe_text_capped;

use crate::util::*;

fn stub(dir: &Path) {
    let script = dir.join("mcp-warden");
    std::fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$ARGV_OUT\"\n",
    )
    .expect("stub");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
}

fn received(shell: &str, line: &str, bin_dir: &Path, out: &Path) -> Option<Vec<String>> {
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new(shell)
        .arg("-c")
        .arg(line)
        .env("PATH", path)
        .env("ARGV_OUT", out)
        .status()
        .ok()?;
    assert!(status.success(), "{shell} failed on {line}");
    let bytes = std::fs::read(out).expect("argv recorded");
    let mut words: Vec<String> = bytes
        .split(|b| *b == 0)
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    words.pop(); // after the last NUL
    Some(words)
}

#[test]
fn every_printed_pin_line_runs_exactly_the_servers_argv() {
    let args: Vec<&str> = vec![
        "-y",
        "@scope/pkg@1.2.3",
        "a b",
        "it's",
        "$HOME",
        "`id`",
        "$(id)",
        "a;b|c&d",
        "!x",
        "~/x",
        "=ls",
        "%APPDATA%",
        "${TOKEN}",
        "*.json",
        "{a,b}",
        "x\ny",
        "tab\there",
        "back\\slash",
        "\"dq\"",
        "日本語",
        "\u{202e}rlo",
        "#not-a-comment",
        "",
        "--token",
        GHP_ENG,
        "--api-key=plain",
        "Authorization: Bearer abc123",
    ];
    let env = Env::new();
    env.cursor(json!({
        "argv": {"command": "node", "args": args},
        "opt": {"command": "node", "args": ["server.js", "--lock", "x", "--url", "y"]}
    }));
    let run = env.doctor(&[]);
    let lines = run.pin_lines();
    assert_eq!(lines.len(), 2, "{}", run.stdout);

    let bin_dir = env.mkdir("stubbin");
    stub(&bin_dir);
    let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut expected_argv = vec!["node".to_string()];
    for (arg, view) in owned.iter().zip(mask_args(&owned)) {
        expected_argv.push(match view {
            ArgView::Redacted => "<REDACTED>".into(),
            ArgView::Verbatim(_) => safe_text_capped(arg, 2048),
        });
    }
    assert!(
        expected_argv.contains(&"<REDACTED>".to_string()),
        "the token must be masked"
    );
    let tail = |name: &str| {
        vec![
            "--approve".to_string(),
            "--approver".into(),
            "you@example.com".into(),
            "--lock".into(),
            name.into(),
        ]
    };

    let mut shells_run = 0;
    for shell in ["bash", "zsh", "fish"] {
        let out = env.root().join(format!("argv-{shell}"));
        let Some(first) = received(shell, &lines[0], &bin_dir, &out) else {
            assert_ne!(shell, "bash", "bash is required");
            eprintln!("skipping {shell}: not installed");
            continue;
        };
        shells_run += 1;
        let mut want = vec!["pin".to_string()];
        want.extend(expected_argv.iter().cloned());
        // The token makes the server critical: pinned without `--approve`.
        want.extend(["--lock".to_string(), "argv.warden.lock".into()]);
        assert_eq!(first, want, "{shell}: {}", lines[0]);
        assert!(!lines[0].contains(GHP_ENG));

        // An argv holding pin's own option names is printed after `--`.
        let second = received(shell, &lines[1], &bin_dir, &out).expect("shell ran once already");
        let mut want = vec!["pin".to_string()];
        want.extend(tail("opt.warden.lock"));
        want.push("--".into());
        want.extend(["node", "server.js", "--lock", "x", "--url", "y"].map(String::from));
        assert_eq!(second, want, "{shell}: {}", lines[1]);
    }
    assert!(shells_run >= 1);
}

#[test]
fn printed_url_lines_round_trip_byte_for_byte() {
    let env = Env::new();
    let auth = json!({"Authorization": "Bearer ${T}"});
    let urls = [
        "https://h.example.com/a%20b/mcp?profile=p&x=1#frag",
        "https://h.example.com/server-sequential-thinking/mcp",
        "https://h.example.com/mcp?q=it's",
    ];
    let servers: serde_json::Map<String, serde_json::Value> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| (format!("u{i}"), json!({"url": u, "headers": auth})))
        .collect();
    env.cursor(serde_json::Value::Object(servers));
    let run = env.doctor(&[]);
    let bin_dir = env.mkdir("stubbin");
    stub(&bin_dir);
    let out = env.root().join("argv");
    for (i, line) in run.pin_lines().iter().enumerate() {
        let argv = received("bash", line, &bin_dir, &out).expect("bash");
        assert_eq!(argv[1], "--url");
        assert_eq!(argv[2], urls[i], "{line}");
    }
}
