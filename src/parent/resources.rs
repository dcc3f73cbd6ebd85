//! Peak memory figures for the benchmark harness (`benches/run.py`), printed only
//! with `MCP_WARDEN_RESOURCE_REPORT=1`.
//!
//! The parent and the parser child each have a peak, but not at the same time: the
//! child parses while the parent waits, and the parent builds its report after the
//! child is gone. So besides both peaks the line carries the parent's peak *up to
//! the moment the child was reaped*; that value plus the child's peak bounds the
//! memory both held at once.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use nix::sys::resource::{getrusage, UsageWho};

use super::diag::Diag;

/// The parent's `VmHWM` when the child was reaped, in KiB; -1 until then. A
/// process-wide value because the exchange with the child happens deep inside a scan
/// and this is a diagnostics hook, not part of any result.
static PARENT_PEAK_AT_REAP_KIB: AtomicI64 = AtomicI64::new(-1);

fn enabled() -> bool {
    std::env::var_os("MCP_WARDEN_RESOURCE_REPORT").is_some_and(|v| v == "1")
}

/// This process's peak resident memory so far (`VmHWM`: per address space, so it
/// does not inherit the peak of whatever forked us, as `getrusage` does across
/// exec), in KiB; -1 when unknown.
fn own_peak_kib() -> i64 {
    own_status_kib("VmHWM:")
}

/// A figure of this process's `/proc/self/status` in KiB (`VmHWM:`, `RssFile:`);
/// -1 when unknown.
fn own_status_kib(field: &str) -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        })
        .unwrap_or(-1)
}

/// When the run started, and the phases it marked since ([`phase`]).
static STARTED: OnceLock<Instant> = OnceLock::new();
static PHASES: Mutex<Vec<(&'static str, Duration)>> = Mutex::new(Vec::new());

/// Mark the end of a phase of the run (`name` is a fixed word): reported beside the
/// memory figures as milliseconds since the first mark, so the benchmarks can say
/// where a run's time went without a profiler.
pub fn phase(name: &'static str) {
    if !enabled() {
        return;
    }
    let started = *STARTED.get_or_init(Instant::now);
    if let Ok(mut phases) = PHASES.lock() {
        phases.push((name, started.elapsed()));
    }
}

/// Call once the parser child has been reaped.
pub fn note_child_reaped() {
    phase("child_reaped");
    if enabled() {
        PARENT_PEAK_AT_REAP_KIB.store(own_peak_kib(), Ordering::Relaxed);
    }
}

/// One stderr line: `resources: parent_max_rss_kib=… child_max_rss_kib=…
/// parent_max_rss_while_child_kib=… parent_rss_file_kib=…`. The child's figure is
/// `RUSAGE_CHILDREN`, whose floor is this process's size when it forked. The last is
/// the part of the parent's resident memory at the end that is file pages (the
/// program's own code and the libraries', shared with the page cache and with the
/// child, which maps the same executable), which every peak above includes.
pub fn report(diag: &mut Diag) {
    if !enabled() {
        return;
    }
    let child = getrusage(UsageWho::RUSAGE_CHILDREN)
        .map(|u| u.max_rss())
        .unwrap_or(-1);
    diag.raw(&format!(
        "resources: parent_max_rss_kib={} child_max_rss_kib={child} parent_max_rss_while_child_kib={} parent_rss_file_kib={}",
        own_peak_kib(),
        PARENT_PEAK_AT_REAP_KIB.load(Ordering::Relaxed),
        own_status_kib("RssFile:")
    ));
    if let Ok(phases) = PHASES.lock() {
        if !phases.is_empty() {
            let marks: Vec<String> = phases
                .iter()
                .map(|(name, at)| format!("{name}={:.1}", at.as_secs_f64() * 1000.0))
                .collect();
            diag.raw(&format!("phases_ms: {}", marks.join(" ")));
        }
    }
}
