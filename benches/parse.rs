//! Loader throughput: each of our loaders next to `serde_json`'s own parse of the
//! same bytes (the physical reference for "how fast can this file be parsed").
//!
//! `cargo bench --bench parse` — reads the synthetic homes written by
//! `benches/gen_homes.py` (generated on the fly into target/bench-homes if absent)
//! and prints MB/s, the median of 30 runs after 3 warm-ups. `-- history` prints the
//! ignored-history table alone (its 64 MiB home is the one `benches/harness.py`
//! measures, written by it on the fly if absent).
//!
//! These are figures of one long process on the system allocator, each run reusing
//! the memory the last one freed: not the parser child's, which parses once, in
//! fresh memory, on its own allocator (`benches/harness.py` measures that). The
//! child's allocator is not used here on purpose: in a loop like this one, each run
//! takes its blocks off free lists that hold the whole last tree in the order it
//! was freed (each one a cache miss) and maps its large blocks afresh, which the
//! child, parsing once, mostly does not. `docs/performance.md` has the figures of
//! both.
// A benchmark's table is its own output, not the product's.
#![allow(clippy::disallowed_macros)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_warden::child::parse_file;
use mcp_warden::protocol::FileFormat;

const RUNS: usize = 30;
const WARMUP: usize = 3;

fn median<F: FnMut()>(mut f: F) -> Duration {
    for _ in 0..WARMUP {
        f();
    }
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn mb_per_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / (1024.0 * 1024.0) / t.as_secs_f64()
}

fn homes() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-homes");
    if !dir.join("large/home/.claude.json").exists() {
        let status = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen_homes.py"))
            .arg(&dir)
            .status()
            .expect("python3 benches/gen_homes.py");
        assert!(status.success(), "gen_homes.py failed");
    }
    dir
}

/// The same JSON document with a comment and trailing commas, for the JSONC loader.
fn as_jsonc(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 64);
    out.push_str("// VS Code settings\n");
    out.push_str(json.trim_end().strip_suffix('}').unwrap_or(json));
    out.push_str(",\n}\n");
    out
}

fn main() {
    let dir = homes();
    // `cargo bench --bench parse -- history`: the history table alone, for comparing
    // two builds of the parser's skipping side by side.
    if std::env::args().any(|a| a == "history") {
        history_table(&dir);
        return;
    }
    let claude = std::fs::read(dir.join("large/home/.claude.json")).expect("large home");
    let claude_text = String::from_utf8(claude.clone()).expect("utf-8");
    // A plain config: the large file's servers re-shaped into one mcpServers map.
    let doc: serde_json::Value = serde_json::from_slice(&claude).expect("json");
    let mut servers = serde_json::Map::new();
    if let Some(projects) = doc["projects"].as_object() {
        for (key, project) in projects {
            if let Some(map) = project["mcpServers"].as_object() {
                for (name, body) in map {
                    servers.insert(format!("{key}:{name}"), body.clone());
                }
            }
        }
    }
    let plain =
        serde_json::to_vec_pretty(&serde_json::json!({ "mcpServers": servers })).expect("encode");
    let plain_jsonc = as_jsonc(std::str::from_utf8(&plain).expect("utf-8")).into_bytes();
    let toml_text: String = servers
        .iter()
        .take(20_000)
        .enumerate()
        .map(|(i, (_, body))| {
            let command = body["command"].as_str().unwrap_or("node");
            let args: Vec<String> = body["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|v| format!("{:?}", v.as_str().unwrap_or("")))
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "[mcp_servers.s{i}]\ncommand = {command:?}\nargs = [{}]\n\n",
                args.join(", ")
            )
        })
        .collect();
    let _ = claude_text;
    let toml_bytes = toml_text.into_bytes();

    println!("| input | bytes | loader | MB/s | serde_json::Value MB/s | ratio |");
    println!("|---|---|---|---|---|---|");
    let serde = |bytes: &[u8]| {
        median(|| {
            let v: serde_json::Value = serde_json::from_slice(bytes).expect("serde_json");
            std::hint::black_box(v);
        })
    };
    for (name, bytes, format, reference) in [
        (
            "~/.claude.json, 8 MiB, 20,000 servers",
            &claude,
            FileFormat::ClaudeJson,
            Some(&claude),
        ),
        (
            "mcpServers map (JSON)",
            &plain,
            FileFormat::Json,
            Some(&plain),
        ),
        (
            "the same map as JSONC",
            &plain_jsonc,
            FileFormat::Jsonc,
            Some(&plain),
        ),
        (
            "Codex config.toml, 20,000 servers",
            &toml_bytes,
            FileFormat::CodexToml,
            None,
        ),
    ] {
        let ours = median(|| {
            std::hint::black_box(parse_file(format, bytes));
        });
        let (reference_rate, ratio) = match reference {
            Some(r) => {
                let t = serde(r);
                (
                    format!("{:.0}", mb_per_s(r.len(), t)),
                    format!("{:.2}×", ours.as_secs_f64() / t.as_secs_f64()),
                )
            }
            None => ("—".into(), "—".into()),
        };
        println!(
            "| {name} | {} | {format:?} | {:.0} | {reference_rate} | {ratio} |",
            bytes.len(),
            mb_per_s(bytes.len(), ours)
        );
    }
    println!();
    history_table(&dir);
}

fn history_table(dir: &Path) {
    // Ignored session history: 64 MiB of it around 4,001 servers, against
    // serde_json passing over the same bytes without keeping anything (`IgnoredAny`),
    // the least any parser that validates JSON can do.
    let path = dir.join("scaling-history/64m/home/.claude.json");
    if !path.exists() {
        let benches = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches");
        let status = std::process::Command::new("python3")
            .arg("-c")
            .arg("import sys; sys.path.insert(0, sys.argv[1]); import harness; harness.scaling_homes('history', [64])")
            .arg(&benches)
            .status()
            .expect("python3 benches/harness.py");
        assert!(status.success(), "writing the 64 MiB history home failed");
    }
    let history = std::fs::read(&path).expect("scaling-history/64m home");
    let ours = median(|| {
        std::hint::black_box(parse_file(FileFormat::ClaudeJson, &history));
    });
    let skipped = median(|| {
        let v: serde::de::IgnoredAny = serde_json::from_slice(&history).expect("serde_json");
        std::hint::black_box(v);
    });
    let mib = history.len() as f64 / (1024.0 * 1024.0);
    println!("| input | bytes | ms per MiB | serde_json IgnoredAny ms per MiB | ratio |");
    println!("|---|---|---|---|---|");
    println!(
        "| ~/.claude.json, 64 MiB of history, 4,001 servers | {} | {:.3} | {:.3} | {:.2}× |",
        history.len(),
        ours.as_secs_f64() * 1000.0 / mib,
        skipped.as_secs_f64() * 1000.0 / mib,
        ours.as_secs_f64() / skipped.as_secs_f64()
    );
}
