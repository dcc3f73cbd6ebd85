//! Cost of one parser child: re-exec, confinement, hello, request, an empty reply, reap.
//!
//! `harness = false`, plain `Instant`: median of 200 runs after 20 warm-up runs.
//! Run with `cargo bench -p mcp-warden-sandbox --bench spawn`.
// A benchmark's table is its own output, not the product's.
#![allow(clippy::disallowed_macros)]

use std::time::{Duration, Instant};

use mcp_warden_sandbox::{run_parser, serve_child, Limits, WeakSandboxPolicy, CHILD_ARG};

const WARM_UP: usize = 20;
const RUNS: usize = 200;

fn once() -> Duration {
    let t = Instant::now();
    let out = run_parser::<(), u8>(
        &(),
        Vec::new(),
        &Limits::default(),
        WeakSandboxPolicy::Default,
    );
    let took = t.elapsed();
    match out {
        Ok(out) if out.messages.is_empty() => took,
        other => panic!("child failed: {other:?}"),
    }
}

fn main() {
    if std::env::args_os().nth(1).is_some_and(|a| a == CHILD_ARG) {
        serve_child(|(): (), _files, _tx| Ok(()));
    }
    for _ in 0..WARM_UP {
        once();
    }
    let mut samples: Vec<Duration> = (0..RUNS).map(|_| once()).collect();
    samples.sort();
    let pct = |p: usize| samples[(samples.len() - 1) * p / 100];
    println!(
        "spawn+confine+empty reply: median {:?}, p10 {:?}, p90 {:?} ({RUNS} runs)",
        pct(50),
        pct(10),
        pct(90)
    );
}
