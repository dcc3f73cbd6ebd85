//! The harness every fuzz target calls: the target's properties
//! (`mcp_warden::fuzz_props`) under a clock and a counting allocator.

pub mod alloc;

use std::sync::Once;
use std::time::Instant;

use mcp_warden::fuzz_props;

#[global_allocator]
static ALLOC: alloc::CountingAlloc = alloc::CountingAlloc;

static WARM_UP: Once = Once::new();

/// Check one input of `target`: its properties, then the time and heap bounds.
///
/// The first call runs the target once on an empty input, unmeasured, so that
/// one-time initialisation (the vendor regexes) is not charged to an input.
pub fn check(target: &str, data: &[u8]) {
    WARM_UP.call_once(|| fuzz_props::run(target, b""));
    let start = Instant::now();
    let ((), peak, largest) = alloc::measure(|| fuzz_props::run(target, data));
    fuzz_props::check_time(target, data.len(), start.elapsed());
    fuzz_props::check_memory(target, data.len(), peak, largest);
}
