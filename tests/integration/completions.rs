//! `mcp-warden completions SHELL` and `mcp-warden man [COMMAND]`: generated from the
//! one CLI definition, so every subcommand is in them.

use crate::util::*;

const SUBCOMMANDS: &[&str] = &[
    "doctor",
    "auth",
    "sandbox",
    "pin",
    "check",
    "lock",
    "completions",
    "man",
];

#[test]
fn every_shells_completions_name_every_subcommand_and_doctors_options() {
    let env = Env::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = Run::from(env.command(&["completions", shell]).output().expect("run"));
        run.expect_code(0);
        for sub in SUBCOMMANDS {
            assert!(run.stdout.contains(sub), "{shell}: {sub} missing");
        }
        for option in ["fail-on", "ignore-file", "color", "sarif"] {
            assert!(run.stdout.contains(option), "{shell}: --{option} missing");
        }
    }
    // The bash script is valid bash and registers the completion.
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok()
    {
        let run = Run::from(env.command(&["completions", "bash"]).output().expect("run"));
        let script = env.write("completion.bash", &run.stdout);
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}' && complete -p mcp-warden",
                script.display()
            ))
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bad = Run::from(env.command(&["completions", "tcsh"]).output().expect("run"));
    bad.expect_code(2);
}

#[test]
fn every_command_has_a_man_page_that_names_it() {
    let env = Env::new();
    let root = Run::from(env.command(&["man"]).output().expect("run"));
    root.expect_code(0);
    assert!(root.stdout.contains(".TH MCP-WARDEN 1"), "{}", root.stdout);
    for sub in SUBCOMMANDS {
        assert!(root.stdout.contains(sub), "the main page lists {sub}");
    }
    for page in [
        "doctor",
        "auth",
        "auth-audit",
        "sandbox",
        "sandbox-status",
        "sandbox-selftest",
        "pin",
        "check",
        "lock",
        "lock-rotate",
        "completions",
        "man",
    ] {
        let run = Run::from(env.command(&["man", page]).output().expect("run"));
        run.expect_code(0);
        let title = format!(".TH MCP-WARDEN-{} 1", page.to_uppercase());
        assert!(run.stdout.contains(&title), "{page}: {}", run.stdout);
        let name = format!("mcp\\-warden\\-{}", page.replace('-', "\\-"));
        assert!(run.stdout.contains(&name), "{page}: {}", run.stdout);
    }
    // pin and check parse their own argv: their pages carry the option table.
    for (page, options) in [
        ("pin", &["--env", "--header", "--approver", "--lock"][..]),
        ("check", &["--env", "--header", "--lock"][..]),
    ] {
        let run = Run::from(env.command(&["man", page]).output().expect("run"));
        for option in options {
            assert!(run.stdout.contains(option), "{page}: {option}");
        }
    }
    let bad = Run::from(env.command(&["man", "nope"]).output().expect("run"));
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("no man page for nope"),
        "{}",
        bad.stderr
    );
    // Rendered by man itself where it is installed: no roff warnings.
    if std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok()
    {
        let page = env.write(
            "doctor.1",
            &Run::from(env.command(&["man", "doctor"]).output().expect("run")).stdout,
        );
        let out = std::process::Command::new("man")
            .args(["-l", "--warnings"])
            .arg(&page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "80")
            .output()
            .expect("man");
        let rendered = String::from_utf8_lossy(&out.stdout);
        assert!(rendered.contains("mcp-warden-doctor"), "{rendered}");
    }
}
