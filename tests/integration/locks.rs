//! Lock coverage: search bounds, matching, approval binding, and the Next steps block.

use serde_json::json;

use crate::util::*;

const FIXTURE_ARGS: [&str; 1] = ["tests/fixtures/clean_server.py"];

fn explicit(env: &Env, servers: serde_json::Value) -> String {
    let path = env.write(
        "work/mine.json",
        json!({ "mcpServers": servers }).to_string(),
    );
    path.to_str().expect("utf-8").to_string()
}

fn doctor_explicit(env: &Env, config: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--no-discover", "--config", config, "--json"];
    args.extend_from_slice(extra);
    env.doctor(&args)
}

#[test]
fn approved_binding_lock_covers_exact_launch_only() {
    let env = Env::new();
    env.write(
        "work/warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    let run = doctor_explicit(&env, &config, &[]);
    run.expect_code(0);
    assert!(run.no_jsonl_findings(), "{}", run.stdout);

    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": ["tests/fixtures/clean_server.py", "--x"]}}),
    );
    let run = doctor_explicit(&env, &config, &[]);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"]);

    let config = explicit(
        &env,
        json!({"s": {"url": "https://h.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}}),
    );
    let run = doctor_explicit(&env, &config, &[]);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"]);
}

#[test]
fn clean_run_prints_doctor_clean_with_exit_zero() {
    let env = Env::new();
    env.write(
        "work/warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    let run = env.doctor(&["--no-discover", "--config", &config]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("doctor clean — every server is pinned and shows no posture findings"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("parsed in a sandbox:"),
        "{}",
        run.stdout
    );
}

#[test]
fn url_servers_match_on_url_equality() {
    let env = Env::new();
    env.write(
        "work/r.warden.lock",
        approved_url_lock("https://h.example.com/mcp").to_string(),
    );
    let ok =
        json!({"url": "https://h.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}});
    let config = explicit(&env, json!({"r": ok}));
    doctor_explicit(&env, &config, &[]).expect_code(0);
    let config = explicit(
        &env,
        json!({"r": {"url": "https://h.example.com/mcp/", "headers": {"Authorization": "Bearer ${T}"}}}),
    );
    assert_eq!(
        doctor_explicit(&env, &config, &[]).rule_ids(),
        ["WRD-DOCTOR-NO-LOCK"]
    );
}

#[test]
fn unapproved_lock_is_a_finding_and_not_a_next_step() {
    let env = Env::new();
    let mut lock = lock_for(
        json!({"command": "python", "args": FIXTURE_ARGS, "url": null}),
        false,
    );
    lock["pin"]["approved"] = json!(false);
    env.write(
        "work/planted.warden.lock",
        serde_json::to_string_pretty(&lock).expect("json") + "\n",
    );
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    let run = doctor_explicit(&env, &config, &[]);
    run.expect_code(1);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-LOCK-UNAPPROVED"]);
    assert!(run.stdout.contains("pin.approved is false"));
    let text = env.doctor(&["--no-discover", "--config", &config]);
    assert!(!text.stdout.contains("Next steps"), "{}", text.stdout);
}

#[test]
fn hand_edited_approval_does_not_count() {
    let env = Env::new();
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );

    // Stale: approved_digest is not overall_digest.
    let mut stale = approved_lock("python", &FIXTURE_ARGS);
    stale["pin"]["approved_digest"] =
        json!("sha256:0000000000000000000000000000000000000000000000000000000000000000");
    env.write("work/warden.lock", stale.to_string());
    let run = doctor_explicit(&env, &config, &[]);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-LOCK-UNAPPROVED"]);
    assert!(run.stdout.contains("stale"), "{}", run.stdout);

    // Inconsistent: approved_digest == overall_digest, but the entry digests do not reproduce it.
    let mut forged = approved_lock("python", &FIXTURE_ARGS);
    forged["overall_digest"] = json!("sha256:0");
    forged["pin"]["approved_digest"] = json!("sha256:0");
    env.write("work/warden.lock", forged.to_string());
    let run = doctor_explicit(&env, &config, &[]);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-LOCK-UNAPPROVED"]);
    assert!(run.stdout.contains("inconsistent"), "{}", run.stdout);

    // Inconsistent: command_digest does not belong to the pinned launch.
    let mut swapped = approved_lock("python", &FIXTURE_ARGS);
    let other = approved_lock("node", &["other.js"]);
    swapped["server"]["command_digest"] = other["server"]["command_digest"].clone();
    env.write("work/warden.lock", swapped.to_string());
    let run = doctor_explicit(&env, &config, &[]);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-LOCK-UNAPPROVED"]);
}

#[test]
fn approved_and_unapproved_together_is_covered() {
    let env = Env::new();
    env.write(
        "work/warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    env.write(
        "work/b.warden.lock",
        lock_for(
            json!({"command": "python", "args": FIXTURE_ARGS, "url": null}),
            false,
        )
        .to_string(),
    );
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    doctor_explicit(&env, &config, &[]).expect_code(0);
}

#[test]
fn lock_search_is_bounded_skips_dependency_dirs_and_symlinks() {
    let env = Env::new();
    let lock = approved_lock("python", &FIXTURE_ARGS).to_string();
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    for rel in [
        "work/a/b/c/d/e/deep.warden.lock",
        "work/node_modules/pkg/warden.lock",
        "work/.git/warden.lock",
        "work/.venv/x.warden.lock",
        "work/venv/x.warden.lock",
        "work/__pycache__/x.warden.lock",
        "work/.tox/x.warden.lock",
        "work/.ruff_cache/x.warden.lock",
    ] {
        env.write(rel, &lock);
    }
    let outside = env.write("elsewhere/warden.lock", &lock);
    env.symlink(&outside, "work/linked.warden.lock");
    env.symlink(&env.root().join("elsewhere"), "work/linkdir");
    env.write("work/broken.warden.lock", "{");
    let run = doctor_explicit(&env, &config, &[]);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"], "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: ignoring unreadable lock broken.warden.lock"),
        "{}",
        run.stderr
    );
    // The symlinked lock is named, never followed; the directory link is not a lock.
    assert!(
        run.stderr.contains(
            "warning: skipping lock linked.warden.lock: a symlink, never followed; it does not count as coverage"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("linkdir"), "{}", run.stderr);
    // Four levels down is still searched.
    env.write("work/a/b/c/d/ok.warden.lock", &lock);
    std::fs::remove_file(env.work().join("linked.warden.lock")).expect("unlink");
    doctor_explicit(&env, &config, &[]).expect_code(0);
}

#[test]
fn locks_at_the_project_root_count_when_running_from_a_subdirectory() {
    let env = Env::new();
    env.mkdir("work/.git");
    env.write(
        "work/.mcp.json",
        json!({"mcpServers": {"s": {"command": "python", "args": FIXTURE_ARGS}}}).to_string(),
    );
    env.write(
        "work/warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    let sub = env.mkdir("work/sub");
    let run = env.doctor_in(&sub, &["--json"]);
    run.expect_code(0);
    assert!(run.no_jsonl_findings(), "{}", run.stdout);
}

#[test]
fn malformed_and_oversized_locks_are_ignored_with_a_warning() {
    let env = Env::new();
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    let mut v5 = approved_lock("python", &FIXTURE_ARGS);
    v5["schema_version"] = json!(5);
    env.write("work/v5.warden.lock", v5.to_string());
    let mut nested = String::from("{\"x\": ");
    nested.push_str(&"[".repeat(600));
    nested.push_str(&"]".repeat(600));
    nested.push('}');
    env.write("work/deep.warden.lock", nested);
    let big = std::fs::File::create(env.root().join("work/big.warden.lock")).expect("create");
    big.set_len(8 * 1024 * 1024 + 1).expect("sparse");
    let run = doctor_explicit(&env, &config, &[]);
    run.expect_code(1);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"]);
    for name in ["v5.warden.lock", "deep.warden.lock"] {
        assert!(
            run.stderr
                .contains(&format!("ignoring unreadable lock {name}")),
            "{name}: {}",
            run.stderr
        );
    }
    // Over the cap: skipped unread, like an oversized config.
    assert!(
        run.stderr.contains(
            "warning: skipping lock big.warden.lock: 8388609 bytes exceeds the 8388608-byte cap"
        ),
        "{}",
        run.stderr
    );
    // Alone, the oversized lock still keeps the run from being green.
    std::fs::remove_file(env.work().join("v5.warden.lock")).expect("unlink");
    std::fs::remove_file(env.work().join("deep.warden.lock")).expect("unlink");
    env.write(
        "work/ok.warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    let run = doctor_explicit(&env, &config, &[]);
    run.expect_code(1);
    assert!(run.rule_ids().is_empty(), "{}", run.stdout);
}

#[test]
fn slug_collisions_get_a_hash_suffix() {
    let env = Env::new();
    let auth = json!({"Authorization": "Bearer ${T}"});
    env.write(
        "home/.cursor/mcp.json",
        json!({"mcpServers": {"a/b": {"url": "https://a.example.com", "headers": auth}, "a-b": {"url": "https://b.example.com", "headers": auth}}})
            .to_string(),
    );
    let run = env.doctor(&[]);
    let lines = run.pin_lines();
    assert!(lines[0].ends_with("--lock a-b.warden.lock"), "{lines:?}");
    assert!(
        lines[1].ends_with("--lock a-b-d44362.warden.lock"),
        "{lines:?}"
    );
}

#[test]
fn an_existing_unrelated_lock_name_gets_the_suffix_too() {
    let env = Env::new();
    env.cursor(json!({"gh": {"url": "https://a.example.com", "headers": {"Authorization": "Bearer ${T}"}}}));
    env.write(
        "work/gh.warden.lock",
        approved_lock("other", &[]).to_string(),
    );
    let run = env.doctor(&[]);
    let lines = run.pin_lines();
    assert_eq!(lines.len(), 1);
    assert!(!lines[0].ends_with("--lock gh.warden.lock"), "{lines:?}");
    assert!(lines[0].contains("--lock gh-"), "{lines:?}");
}

#[test]
fn next_steps_block_ends_with_a_ci_snippet() {
    let env = Env::new();
    env.cursor(json!({"gh": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@1.0.0"]}}));
    let run = env.doctor(&[]);
    assert!(run.stdout.contains("Next steps"), "{}", run.stdout);
    assert!(run.stdout.contains(".github/workflows/"), "{}", run.stdout);
    assert!(run.stdout.contains("mcp-warden check"), "{}", run.stdout);
}

#[test]
fn more_locks_than_the_cap_are_counted_not_fatal_even_under_a_low_fd_limit() {
    let env = Env::new();
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    let lock = approved_lock("other", &[]).to_string();
    for i in 0..1050 {
        env.write(&format!("work/locks/l{i:04}.warden.lock"), &lock);
    }
    env.write(
        "work/zz/warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    let home = env.home();
    let script = format!(
        "ulimit -Sn 1024; exec '{}' doctor --home '{}' --platform linux --no-discover --config '{}' --json",
        bin().display(),
        home.display(),
        config
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.work())
        .output()
        .expect("sh");
    let run = Run::from(out);
    assert!(
        run.stderr
            .contains("51 more lock file(s) found beyond the first 1000"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("error:"), "{}", run.stderr);
    // The covering lock sorts after the cap, so it was not read: the server is uncovered.
    run.expect_code(1);
    assert_eq!(run.rule_ids(), ["WRD-DOCTOR-NO-LOCK"]);
}

/// A valid lock of about `bytes` bytes whose summary is as large as the lock (its
/// launch has long arguments), for the per-file budget cases.
fn large_lock(bytes: usize) -> String {
    let arg = "a".repeat(60_000);
    let n = (bytes / 60_010).clamp(1, 4096);
    let args: Vec<&str> = vec![arg.as_str(); n];
    lock_for(json!({"command": "big", "args": args, "url": null}), false).to_string()
}

#[test]
fn many_large_locks_cannot_hide_the_findings_of_the_users_configs() {
    // Dozens of large, valid locks: one blob checked out under many names, as git
    // does with identical files. Together they are several times what one exchange
    // with the parser child may carry.
    let env = Env::new();
    let lock = env.write("work/locks/l00.warden.lock", large_lock(7 << 20));
    for i in 1..40 {
        std::fs::hard_link(&lock, env.work().join(format!("locks/l{i:02}.warden.lock")))
            .expect("hard link");
    }
    env.cursor(
        json!({"gh": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}),
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(2);
    assert!(
        !run.stderr.contains("parser sandbox failed"),
        "{}",
        run.stderr
    );
    // The user's own config is fully reported.
    let rules = run.rule_ids();
    assert!(
        rules.contains(&"WRD-DOCTOR-NO-LOCK".to_string()),
        "{rules:?}\n{}",
        run.stderr
    );
    assert!(rules.iter().any(|r| r.starts_with("WRD-SUP-")), "{rules:?}");
    // The locks beyond the scan's lock budget are named, one line each, never read.
    let skipped = run
        .stderr
        .lines()
        .filter(|l| {
            l.starts_with("warning: not reading lock locks/l") && l.contains("final exit will be 2")
        })
        .count();
    assert!(
        skipped >= 30,
        "{skipped} locks named as not read:\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("l00.warden.lock"), "{}", run.stderr);
}

#[test]
fn a_file_over_its_share_of_the_answer_is_its_own_error() {
    // An honest parse whose records are larger than the file's share of the answer
    // (a Continue YAML list of 20,000 bare numbers, each an entry named by its index
    // with a shape error, over 16 wire bytes per source byte): that file is reported
    // as too large, and every other file is still audited.
    let env = Env::new();
    env.write(
        "home/.continue/config.yaml",
        format!("mcpServers: [{}0]\n", "0,".repeat(20_000)),
    );
    env.cursor(
        json!({"gh": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}),
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(2);
    assert!(
        run.stderr.lines().any(
            |l| l.starts_with("warning: cannot read ~/.continue/config.yaml:")
                && l.contains("share of the parser's answer")
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.rule_ids().iter().any(|r| r.starts_with("WRD-SUP-")),
        "{}",
        run.stdout
    );
}

#[test]
fn check_and_rotate_open_only_a_regular_lock_and_say_why_in_one_line() {
    let env = Env::new();
    let real = env.write(
        "work/real.warden.lock",
        approved_lock("python", &FIXTURE_ARGS).to_string(),
    );
    env.symlink(&real, "work/link.warden.lock");
    env.mkdir("work/dir.warden.lock");
    nix::unistd::mkfifo(
        &env.work().join("fifo.warden.lock"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .expect("mkfifo");
    let big = std::fs::File::create(env.work().join("big.warden.lock")).expect("create");
    big.set_len(8 * 1024 * 1024 + 1).expect("sparse");
    let before = std::fs::read(&real).expect("read");
    for (name, reason) in [
        ("link.warden.lock", "is a symlink; refusing to follow it"),
        ("dir.warden.lock", "is not a regular file"),
        ("fifo.warden.lock", "is not a regular file"),
        ("big.warden.lock", "larger than the 8388608-byte cap"),
        ("missing.warden.lock", "lock file not found"),
    ] {
        for args in [
            vec!["check", "--lock", name, "--", "/nonexistent/server"],
            vec!["lock", "rotate", name, "--approver", "a@example.com"],
        ] {
            let start = std::time::Instant::now();
            let out = env.command(&args).output().expect("run");
            let run = Run::from(out);
            run.expect_code(2);
            assert!(
                start.elapsed() < std::time::Duration::from_secs(10),
                "{args:?} took {:?}",
                start.elapsed()
            );
            let lines: Vec<&str> = run.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
            assert!(
                lines[0].starts_with("error: ") && lines[0].contains(name),
                "{args:?}: {}",
                run.stderr
            );
            assert!(lines[0].contains(reason), "{args:?}: {}", run.stderr);
        }
    }
    // Nothing was written through the symlink.
    assert_eq!(std::fs::read(&real).expect("read"), before);
}

#[test]
fn check_and_rotate_refuse_what_doctor_refuses() {
    // One reader: a lock doctor ignores is refused by check and rotate, with the
    // same reason, and a lock doctor reads is read by them.
    let env = Env::new();
    let good = approved_lock("python", &FIXTURE_ARGS);
    let mut dup = good.to_string();
    dup = dup.replacen(
        "\"schema_version\":4",
        "\"schema_version\":4,\"schema_version\":4",
        1,
    );
    let mut deep_unknown = good.clone();
    let mut nested = json!([]);
    for _ in 0..600 {
        nested = json!([nested]);
    }
    deep_unknown["x"] = nested;
    let mut big_number = good.clone();
    big_number["tools"] = json!([{"name": "t", "description_hash": "d", "input_schema_hash": "i",
        "capabilities": [], "schema_skeleton": {"props": {"p": {"enum": [12345]}}},
        "annotations_hash": "a", "output_schema_hash": "o", "output_schema_skeleton": null,
        "entry_digest": "e"}]);
    let big_number = big_number.to_string().replace("12345", "1e400");
    for (name, text, reason) in [
        ("dup.warden.lock", dup, "duplicate key"),
        (
            "deep.warden.lock",
            deep_unknown.to_string(),
            "nesting deeper than 512",
        ),
        ("num.warden.lock", big_number, "cannot be represented"),
    ] {
        assert!(text.contains("schema_version"), "{name}");
        env.write(&format!("work/{name}"), &text);
        let run = Run::from(
            env.command(&["lock", "rotate", name, "--approver", "a@example.com"])
                .output()
                .expect("run"),
        );
        run.expect_code(2);
        assert!(run.stderr.contains(reason), "{name}: {}", run.stderr);
    }
    let config = explicit(
        &env,
        json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
    );
    let run = doctor_explicit(&env, &config, &[]);
    for (name, reason) in [
        ("dup.warden.lock", "duplicate key"),
        ("deep.warden.lock", "nesting deeper than 512"),
        ("num.warden.lock", "cannot be represented"),
    ] {
        assert!(
            run.stderr
                .lines()
                .any(|l| l.contains(&format!("ignoring unreadable lock {name}"))
                    && l.contains(reason)),
            "{name}: {}",
            run.stderr
        );
    }
}

#[test]
fn lock_named_symlinks_and_special_files_are_skipped_never_coverage() {
    // Each shape sits beside a real approved lock that covers the server, so the
    // only thing between the run and exit 0 is the skip: a skip is never green.
    let lock = approved_lock("python", &FIXTURE_ARGS).to_string();
    type Plant = fn(&Env, &str);
    let shapes: [(&str, Plant, &str); 6] = [
        (
            "to-a-lock",
            |env, rel| {
                let outside = env.write(
                    "elsewhere/warden.lock",
                    approved_lock("python", &FIXTURE_ARGS).to_string(),
                );
                env.symlink(&outside, rel);
            },
            "a symlink, never followed",
        ),
        (
            "dangling",
            |env, rel| {
                env.symlink(&env.root().join("gone"), rel);
            },
            "a symlink, never followed",
        ),
        (
            "to-a-fifo",
            |env, rel| {
                let fifo = env.root().join("fifo");
                crate::bounded::mkfifo(&fifo);
                env.symlink(&fifo, rel);
            },
            "a symlink, never followed",
        ),
        (
            "fifo",
            |env, rel| crate::bounded::mkfifo(&env.root().join(rel)),
            "a FIFO, not a regular file",
        ),
        (
            "directory",
            |env, rel| {
                env.mkdir(rel);
            },
            "a directory, not a regular file",
        ),
        (
            "device-link",
            |env, rel| {
                env.symlink(std::path::Path::new("/dev/zero"), rel);
            },
            "a symlink, never followed",
        ),
    ];
    for (what, plant, why) in shapes {
        let env = Env::new();
        let config = explicit(
            &env,
            json!({"s": {"command": "python", "args": FIXTURE_ARGS}}),
        );
        env.write("work/ok.warden.lock", &lock);
        plant(&env, "work/sub/x.warden.lock");
        let run = crate::bounded::doctor(&env, &["--no-discover", "--config", &config, "--json"]);
        run.expect_code(1);
        assert!(run.no_jsonl_findings(), "{what}: {}", run.stdout);
        assert!(
            run.stderr.contains(&format!(
                "warning: skipping lock sub/x.warden.lock: {why}; it does not count as coverage"
            )),
            "{what}: {}",
            run.stderr
        );
        // Without the real lock, the planted one never covers the server.
        std::fs::remove_file(env.work().join("ok.warden.lock")).expect("unlink");
        let run = crate::bounded::doctor(&env, &["--no-discover", "--config", &config, "--json"]);
        assert_eq!(
            run.rule_ids(),
            ["WRD-DOCTOR-NO-LOCK"],
            "{what}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_socket_named_like_a_lock_is_skipped() {
    let env = Env::new();
    let config = explicit(&env, json!({}));
    let _socket = crate::bounded::socket(&env.work().join("warden.lock"));
    let run = crate::bounded::doctor(&env, &["--no-discover", "--config", &config]);
    run.expect_code(1);
    assert!(
        run.stderr
            .contains("warning: skipping lock warden.lock: a socket, not a regular file"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("doctor clean"), "{}", run.stdout);
}

#[test]
fn a_claude_json_of_many_one_server_projects_is_audited_whole() {
    // Honest records of nearly empty fields own more than 8 bytes per wire byte once
    // decoded: a `~/.claude.json` of thousands of projects, each with one small
    // server, must still be audited, not refused as "larger than its share".
    let env = Env::new();
    let projects: serde_json::Map<String, serde_json::Value> = (0..3_000)
        .map(|i| {
            (
                format!("/p{i}"),
                json!({"mcpServers": {"gh": {"command": "x"}}}),
            )
        })
        .collect();
    env.write(
        "home/.claude.json",
        json!({"projects": projects}).to_string(),
    );
    let run = env.doctor(&["--json"]);
    run.expect_code(1);
    assert!(!run.stderr.contains("share"), "{}", run.stderr);
    assert_eq!(
        run.rule_ids()
            .iter()
            .filter(|r| *r == "WRD-DOCTOR-NO-LOCK")
            .count(),
        3_000
    );
}
