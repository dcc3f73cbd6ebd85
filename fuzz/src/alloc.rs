//! A counting global allocator for the fuzz harnesses: live heap, peak and largest
//! single allocation, per thread, around one call.
//!
//! Shared by the libFuzzer harness (`fuzz/src/lib.rs`) and the `cargo test` replay
//! (`tests/fuzz_regressions.rs`, through `#[path]`), so both check the same bounds.
//! The counters are thread-local with `const` initialisers and no destructor, so
//! touching them never allocates and works during thread teardown.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Wraps the system allocator and counts per thread.
pub struct CountingAlloc;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn grow(size: usize) {
    let size = isize::try_from(size).unwrap_or(isize::MAX);
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(size);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrink(size: usize) {
    let size = isize::try_from(size).unwrap_or(isize::MAX);
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

fn note_request(size: usize) {
    let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
}

// SAFETY: every method forwards to `System` with the caller's pointer and layout
// unchanged, so `System`'s guarantees are ours; the counting only touches
// thread-local `Cell`s and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_request(layout.size());
        grow(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_request(layout.size());
        grow(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: `ptr` was returned by this allocator (that is, by `System`) for `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_request(new_size);
        shrink(layout.size());
        grow(new_size);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract; forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Run `f` and return its result with the peak live heap above the starting level
/// and the largest single allocation request made by this thread during the call.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    let start = LIVE.try_with(Cell::get).unwrap_or(0);
    let _ = PEAK.try_with(|p| p.set(start));
    let _ = LARGEST.try_with(|m| m.set(0));
    let out = f();
    let peak = PEAK.try_with(Cell::get).unwrap_or(start);
    let largest = LARGEST.try_with(Cell::get).unwrap_or(0);
    let above = usize::try_from(peak.saturating_sub(start)).unwrap_or(0);
    (out, above, largest)
}
