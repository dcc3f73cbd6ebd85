//! Replays every checked-in fuzz input through the fuzz targets' properties, without
//! libFuzzer: `fuzz/regressions/<target>/` (inputs that once failed, plus hand-made
//! hostile ones) and `fuzz/corpus/<target>/` (the minimised seed corpus).
//!
//! Each input runs exactly as in the fuzz harness (`fuzz/src/lib.rs`): the
//! properties of `mcp_warden::fuzz_props`, under a clock and the same counting
//! allocator, with the same time and heap bounds. The file name is printed before
//! each call, so a failure names its input (`cargo test --test fuzz_regressions --
//! --nocapture`).
// Test-harness messages are not product output.
#![allow(clippy::disallowed_macros)]

#[path = "../fuzz/src/alloc.rs"]
mod alloc;

use std::path::{Path, PathBuf};
use std::time::Instant;

use mcp_warden::fuzz_props;

#[global_allocator]
static ALLOC: alloc::CountingAlloc = alloc::CountingAlloc;

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for kind in ["regressions", "corpus"] {
        let Ok(entries) = std::fs::read_dir(root.join(kind).join(target)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

fn replay(target: &str) {
    // One unmeasured run first, as in the fuzz harness: one-time initialisation
    // (the vendor regexes) is not charged to an input.
    fuzz_props::run(target, b"");
    let files = inputs(target);
    for path in &files {
        println!("{target}: {}", path.display());
        let data = match std::fs::read(path) {
            Ok(d) => d,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        };
        let start = Instant::now();
        let ((), peak, largest) = alloc::measure(|| fuzz_props::run(target, &data));
        // Debug builds are far slower than the fuzz build; the bound has the room.
        fuzz_props::check_time(target, data.len(), start.elapsed());
        fuzz_props::check_memory(target, data.len(), peak, largest);
    }
    println!("{target}: {} inputs replayed", files.len());
}

#[test]
fn every_target_has_a_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    for t in fuzz_props::TARGETS {
        assert!(
            root.join(format!("{t}.rs")).is_file(),
            "fuzz_props::TARGETS names {t}, which has no fuzz target"
        );
    }
}

#[test]
fn jsonc() {
    replay("jsonc");
}

#[test]
fn json() {
    replay("json");
}

#[test]
fn toml() {
    replay("toml");
}

#[test]
fn yaml() {
    replay("yaml");
}

#[test]
fn lock() {
    replay("lock");
}

#[test]
fn safe_text() {
    replay("safe_text");
}

#[test]
fn frame() {
    replay("frame");
}

#[test]
fn pin_command() {
    replay("pin_command");
}

#[test]
fn mcp_message() {
    replay("mcp_message");
}
