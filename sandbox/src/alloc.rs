//! The memory allocator of mcp-warden's two one-shot processes: the parent and the
//! confined parser child (`#[global_allocator]` in `src/main.rs`).
//!
//! # Why not glibc's `malloc`
//!
//! Both processes live for one run: they allocate as they go and the process exit
//! frees everything. On an 8 MiB `~/.claude.json` (20,000 servers) glibc's allocator
//! and the faults on its fresh 4 KiB pages were about a third of both processes'
//! CPU (`malloc`/`free`/`malloc_consolidate` about 15 %, page faults about 16 %):
//! every string of every record is allocated, and the memory each process touches
//! (tens of MiB) is faulted in one 4 KiB page at a time. glibc's remedies (its
//! `hugetlb` tunable) are read from the environment, which the child's is not
//! allowed to carry. So this allocator:
//!
//! * serves small blocks (up to [`SMALL_MAX`]) from size classes, four per power of
//!   two (at most a quarter of a block is slack), each with a free list, carved from
//!   large chunks by moving a pointer; freed blocks go back to their class's list
//!   and are reused, never coalesced; the pages of a freed block above 128 KiB
//!   (`RETURN_ABOVE`) go back to the kernel (the process exit returns the rest).
//!   Blocks up to 1 MiB come from the chunks, on huge pages, because a long answer
//!   arrives in parts whose lists (a part's servers, a section's decoded entries)
//!   are hundreds of KiB each: mapped on their own they were faulted in a small page
//!   at a time and zeroed afresh for every part (on the 8 MiB home, about 1,500
//!   faults; 0.93–0.99× of the wall time with them carved from chunks);
//! * maps chunks of growing size, from the second one on aligned to 2 MiB and
//!   advised into transparent huge pages (`MADV_HUGEPAGE`): a 2 MiB fault instead
//!   of 512 small ones. The first chunk stays on small pages, so a run that needs
//!   little memory (a small home) touches little;
//! * maps each large block on its own (huge pages from [`HUGE_FROM`]), grows it
//!   with `mremap` (a `Vec` doubling to 64 MiB copies nothing) and unmaps it when
//!   it is freed;
//! * grows the most recently carved block in place when it is reallocated (a
//!   `String` or `Vec` filled while nothing else allocates copies nothing). Such a
//!   block is freed into the class it grew to, not the one it was asked for: a text
//!   built by appending and freed once per item leaves one grown block per item on
//!   that class's list while each next one is carved afresh, so per-item texts are
//!   built in one reused buffer (each server's target in `add_sections`: 14 MiB of
//!   the parent's peak on a 16 MiB file of dense servers, `docs/performance.md`).
//!   Moving every growth instead removes the waste everywhere but costs the child
//!   the old blocks of its growing buffers (measured, not kept).
//!
//! Every system call it makes (`mmap` without `PROT_EXEC`, `munmap`, `mremap`,
//! `madvise(MADV_HUGEPAGE)` and `madvise(MADV_DONTNEED)`) is on the child's seccomp
//! allow-list already, for glibc's allocator; it adds none. Under the child's
//! `RLIMIT_AS` a chunk that cannot be mapped falls back to one just large enough,
//! and an allocation that still fails returns null, which Rust turns into the usual
//! out-of-memory abort.
//!
//! # Threads
//!
//! The parent audits on a few threads; the child has one. Each thread has a heap of
//! its own (free lists and current chunk, in thread-local storage), so no call takes
//! a lock or an atomic: a shared, locked heap measured slower than glibc once two
//! auditing threads allocated at once. A block freed by another thread than the one
//! that allocated it joins the freeing thread's lists (blocks belong to no thread;
//! memory is never given back). A finished thread's heap is left as it is. With no
//! lock there is nothing a `fork` could inherit held.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// The page size mappings are made in.
const PAGE: usize = 4096;
/// The largest block served from a size class; larger blocks are mapped on their own.
pub const SMALL_MAX: usize = 1 << 20;
/// Large blocks and chunks from this size are advised into huge pages.
pub const HUGE_FROM: usize = 4 << 20;
/// Number of size classes: 16-byte steps to 128, then four per power of two up to
/// [`SMALL_MAX`] (`class_of(SMALL_MAX)` is the last).
const CLASSES: usize = 60;
/// Power-of-two classes for blocks aligned beyond 16 bytes (32 B .. `SMALL_MAX`).
const ALIGNED_CLASSES: usize = 21;
/// A freed block larger than this gives its whole pages back to the kernel before it
/// joins its free list (see [`give_back`]).
const RETURN_ABOVE: usize = 128 << 10;
/// The first chunk (on small pages), and the largest a chunk grows to.
const FIRST_CHUNK: usize = 1 << 20;
const MAX_CHUNK: usize = 64 << 20;

/// The allocator: see the module documentation. It holds no state of its own: each
/// thread allocates from a heap of its own.
pub struct OneShotAlloc;

/// One thread's small-block state.
struct Heap {
    /// Next free byte of the current chunk, and its end.
    bump: usize,
    end: usize,
    /// The block carved last (its address and block size), while it ends at `bump`:
    /// the one block that can grow in place.
    last: usize,
    last_size: usize,
    /// Size of the next chunk to map.
    next_chunk: usize,
    /// Free-list heads: each free block's first word is the next free block.
    free: [*mut u8; CLASSES],
    aligned: [*mut u8; ALIGNED_CLASSES],
}

thread_local! {
    // Constant-initialised and without a destructor: reaching it never allocates
    // (std keeps it in the thread's static TLS block), so the allocator may use it.
    static HEAP: UnsafeCell<Heap> = const {
        UnsafeCell::new(Heap {
            bump: 0,
            end: 0,
            last: 0,
            last_size: 0,
            next_chunk: FIRST_CHUNK,
            free: [ptr::null_mut(); CLASSES],
            aligned: [ptr::null_mut(); ALIGNED_CLASSES],
        })
    };
}

impl OneShotAlloc {
    /// The allocator (nothing is mapped until the first allocation).
    #[must_use]
    pub const fn new() -> Self {
        OneShotAlloc
    }

    /// Run `f` on this thread's heap.
    fn with_heap<R>(&self, f: impl FnOnce(&mut Heap) -> R) -> R {
        HEAP.with(|heap| {
            // SAFETY: the heap is this thread's alone, and `f` (the allocator's own
            // code, which never allocates) cannot reach it again while it runs, so
            // this is the only reference to it.
            f(unsafe { &mut *heap.get() })
        })
    }
}

impl Default for OneShotAlloc {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a layout is served from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Size class `index`, blocks of `size` bytes, 16-byte aligned.
    Small { index: usize, size: usize },
    /// Power-of-two class `index` (blocks of `size` bytes, aligned to `size` up to a
    /// page): a block aligned beyond 16 bytes.
    Aligned { index: usize, size: usize },
    /// A mapping of its own (page aligned).
    Large,
    /// An alignment beyond a page: never requested by this program, refused.
    Unsupported,
}

/// The size class of a block of `size` bytes (1..=`SMALL_MAX`): its index and size.
const fn class_of(size: usize) -> (usize, usize) {
    if size <= 128 {
        let index = size.saturating_sub(1) / 16;
        (index, (index + 1) * 16)
    } else {
        let s = size - 1;
        let log = (usize::BITS - 1 - s.leading_zeros()) as usize; // 7..=19
        let shift = log - 2;
        let quarter = s >> shift; // 4..=7
        (8 + (log - 7) * 4 + (quarter - 4), (quarter + 1) << shift)
    }
}

fn kind_of(layout: Layout) -> Kind {
    let size = layout.size().max(1);
    let align = layout.align();
    if align <= 16 {
        if size <= SMALL_MAX {
            let (index, size) = class_of(size);
            Kind::Small { index, size }
        } else {
            Kind::Large
        }
    } else if align <= PAGE {
        let size = size.max(align).next_power_of_two();
        if size <= SMALL_MAX {
            Kind::Aligned {
                index: size.trailing_zeros() as usize,
                size,
            }
        } else {
            Kind::Large
        }
    } else {
        Kind::Unsupported
    }
}

/// `n` rounded up to a multiple of `to` (a power of two), or `None` on overflow.
fn round_up(n: usize, to: usize) -> Option<usize> {
    Some(n.checked_add(to - 1)? & !(to - 1))
}

impl Heap {
    /// A block of `size` bytes aligned to `align` from the current chunk, mapping a new
    /// chunk when it does not fit. Null when no memory can be mapped.
    fn carve(&mut self, size: usize, align: usize) -> *mut u8 {
        let fits = |h: &Heap| {
            round_up(h.bump, align)
                .and_then(|start| Some((start, start.checked_add(size)?)))
                .filter(|&(_, stop)| stop <= h.end)
        };
        let (start, stop) = match fits(self) {
            Some(span) => span,
            None => {
                if !self.new_chunk(size) {
                    return ptr::null_mut();
                }
                match fits(self) {
                    Some(span) => span,
                    None => return ptr::null_mut(),
                }
            }
        };
        self.bump = stop;
        self.last = start;
        self.last_size = size;
        start as *mut u8
    }

    /// Map the next chunk (at least `need` bytes). The rest of the current chunk is
    /// left unused (less than one small block).
    fn new_chunk(&mut self, need: usize) -> bool {
        let want = self.next_chunk.max(need);
        let (base, len) = match sys_map(want, want >= HUGE_FROM) {
            Some(base) => (base, want),
            None => {
                // Under an address-space limit: just what this block needs.
                let Some(len) = round_up(need, PAGE) else {
                    return false;
                };
                match sys_map(len, false) {
                    Some(base) => (base, len),
                    None => return false,
                }
            }
        };
        self.bump = base as usize;
        self.end = self.bump + len;
        self.last = 0;
        self.last_size = 0;
        // The first chunk is small; the next ones are huge-page chunks that double.
        self.next_chunk = if want < HUGE_FROM {
            HUGE_FROM
        } else {
            want.saturating_mul(2).min(MAX_CHUNK)
        };
        true
    }
}

/// Map `len` bytes of fresh, zeroed, read-write memory (page aligned; with `huge`,
/// 2 MiB aligned and advised into huge pages).
fn sys_map(len: usize, huge: bool) -> Option<*mut u8> {
    crate::sys::map_anonymous(len, huge)
}

// SAFETY: every block returned is either carved from a chunk this allocator mapped
// and never handed out twice while live (a block is on at most one free list, and
// only after its owner freed it), or a mapping of its own; sizes and alignments are
// those of `kind_of(layout)`, which are at least the layout's. `dealloc` and
// `realloc` receive the layout the block was allocated with (GlobalAlloc's
// contract), so `kind_of` finds the same class again.
unsafe impl GlobalAlloc for OneShotAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match kind_of(layout) {
            Kind::Small { index, size } => self.with_heap(|heap| {
                let head = heap.free[index];
                if head.is_null() {
                    heap.carve(size, 16)
                } else {
                    // SAFETY: `head` is a free block of this class (at least 16 bytes,
                    // 16-byte aligned) whose first word holds the next free block.
                    heap.free[index] = unsafe { head.cast::<*mut u8>().read() };
                    head
                }
            }),
            Kind::Aligned { index, size } => self.with_heap(|heap| {
                let head = heap.aligned[index];
                if head.is_null() {
                    heap.carve(size, size.min(PAGE))
                } else {
                    // SAFETY: as above, for the aligned class `index`.
                    heap.aligned[index] = unsafe { head.cast::<*mut u8>().read() };
                    head
                }
            }),
            Kind::Large => large_map(layout.size()),
            Kind::Unsupported => ptr::null_mut(),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match kind_of(layout) {
            // Fresh mappings are zero already.
            Kind::Large => large_map(layout.size()),
            Kind::Small { index, size } => {
                let (block, fresh) = self.with_heap(|heap| {
                    let head = heap.free[index];
                    if head.is_null() {
                        (heap.carve(size, 16), true)
                    } else {
                        // SAFETY: as in `alloc`.
                        heap.free[index] = unsafe { head.cast::<*mut u8>().read() };
                        (head, false)
                    }
                });
                if !fresh && !block.is_null() {
                    // SAFETY: `block` is a live block of at least `layout.size()` bytes.
                    unsafe { ptr::write_bytes(block, 0, layout.size()) };
                }
                block
            }
            Kind::Aligned { .. } | Kind::Unsupported => {
                // SAFETY: the caller's layout, passed on.
                let block = unsafe { self.alloc(layout) };
                if !block.is_null() {
                    // SAFETY: `block` is a live block of at least `layout.size()` bytes.
                    unsafe { ptr::write_bytes(block, 0, layout.size()) };
                }
                block
            }
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match kind_of(layout) {
            Kind::Small { index, size } => self.with_heap(|heap| {
                give_back(block, size);
                // SAFETY: `block` was allocated with this layout, so it is a block of
                // class `index` (16-byte aligned, at least 16 bytes) that its owner no
                // longer uses: its first word may hold the list link.
                unsafe { block.cast::<*mut u8>().write(heap.free[index]) };
                heap.free[index] = block;
                if heap.last == block as usize {
                    heap.last = 0;
                }
            }),
            Kind::Aligned { index, size } => self.with_heap(|heap| {
                give_back(block, size);
                // SAFETY: as above, for the aligned class `index`.
                unsafe { block.cast::<*mut u8>().write(heap.aligned[index]) };
                heap.aligned[index] = block;
                if heap.last == block as usize {
                    heap.last = 0;
                }
            }),
            Kind::Large => large_unmap(block, layout.size()),
            Kind::Unsupported => {}
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return ptr::null_mut();
        };
        let old = kind_of(layout);
        let new = kind_of(new_layout);
        match (old, new) {
            (Kind::Small { size: have, .. }, Kind::Small { size: want, .. }) => {
                if want <= have {
                    // Same class, or shrinking: the block serves the new class as it
                    // is (its tail is unused until the process exits).
                    return block;
                }
                // The last block carved grows in place while the chunk has room.
                let grown = self.with_heap(|heap| {
                    let start = block as usize;
                    if heap.last != start || heap.bump != start + heap.last_size {
                        return false;
                    }
                    // Never move `bump` back: what lies past it must be unused memory
                    // (`alloc_zeroed` relies on carved memory being fresh).
                    match start.checked_add(want) {
                        Some(stop) if stop <= heap.bump => true,
                        Some(stop) if stop <= heap.end => {
                            heap.bump = stop;
                            heap.last_size = want;
                            true
                        }
                        _ => false,
                    }
                });
                if grown {
                    return block;
                }
            }
            (Kind::Large, Kind::Large) => return large_remap(block, layout.size(), new_size),
            _ => {}
        }
        // SAFETY: `new_layout` is valid (checked above) and non-zero in size
        // (GlobalAlloc::realloc's contract).
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both blocks are live, distinct, and at least this long.
            unsafe { ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size)) };
            // SAFETY: `block` was allocated with `layout` and is no longer used.
            unsafe { self.dealloc(block, layout) };
        }
        moved
    }
}

/// The mapped length of a large block of `size` bytes.
fn large_len(size: usize) -> Option<usize> {
    round_up(size, PAGE)
}

/// Give the pages of a freed block of `size` bytes back to the kernel when it is
/// larger than [`RETURN_ABOVE`], all but the page holding its free-list link: the
/// blocks of the largest classes (a part's server list, a decoded section's
/// entries) are freed when the answer is merged and would otherwise stay resident
/// until the process exits. Smaller blocks keep their pages for the next block of
/// their class.
fn give_back(block: *mut u8, size: usize) {
    if size <= RETURN_ABOVE {
        return;
    }
    let start = block as usize;
    let (Some(from), Some(to)) = (
        round_up(start + 1, PAGE),
        start.checked_add(size).map(|end| end & !(PAGE - 1)),
    ) else {
        return;
    };
    if from < to {
        crate::sys::discard(from as *mut u8, to - from);
    }
}

fn large_map(size: usize) -> *mut u8 {
    large_len(size)
        .and_then(|len| sys_map(len, len >= HUGE_FROM))
        .unwrap_or(ptr::null_mut())
}

fn large_unmap(block: *mut u8, size: usize) {
    if let Some(len) = large_len(size) {
        crate::sys::unmap(block, len);
    }
}

fn large_remap(block: *mut u8, size: usize, new_size: usize) -> *mut u8 {
    match (large_len(size), large_len(new_size)) {
        (Some(old), Some(new)) => crate::sys::remap(block, old, new, new >= HUGE_FROM),
        _ => ptr::null_mut(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    #[test]
    fn classes_cover_every_size_with_at_most_a_quarter_slack() {
        let mut last = (0, 16);
        for size in 1..=SMALL_MAX {
            let (index, block) = class_of(size);
            assert!(block >= size, "{size} -> {block}");
            assert!(index < CLASSES, "{size} -> class {index}");
            assert_eq!(block % 16, 0);
            if size > 128 {
                assert!(block - size < size / 4 + 1, "{size} -> {block}");
            }
            assert!(
                index == last.0 || index == last.0 + 1,
                "classes are consecutive"
            );
            if index == last.0 {
                assert_eq!(block, last.1);
            }
            last = (index, block);
        }
        assert_eq!(class_of(SMALL_MAX), (CLASSES - 1, SMALL_MAX));
    }

    /// A deterministic generator (no dependency for a test's random sizes).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> usize {
            usize::try_from(self.next() % n).unwrap_or(0)
        }
    }

    /// A block written with a pattern of its own, checked before it is reallocated
    /// or freed: two live blocks that overlap, or a block handed out twice, fail.
    struct Live {
        block: *mut u8,
        layout: Layout,
        tag: u8,
    }

    fn fill(block: *mut u8, len: usize, tag: u8) {
        // SAFETY: the test owns `len` bytes at `block`.
        unsafe { ptr::write_bytes(block, tag, len) };
    }

    fn check(live: &Live) {
        // SAFETY: the test owns the block and wrote all of it.
        let bytes = unsafe { std::slice::from_raw_parts(live.block, live.layout.size()) };
        assert!(
            bytes.iter().all(|&b| b == live.tag),
            "a block was overwritten"
        );
    }

    fn size_for(rng: &mut Rng) -> usize {
        match rng.below(40) {
            0..=23 => 1 + rng.below(200),
            24..=33 => 1 + rng.below(8 << 10),
            34..=38 => 1 + rng.below(SMALL_MAX as u64 * 2),
            _ => 1 + rng.below(6 << 20),
        }
    }

    fn churn(alloc: &OneShotAlloc, seed: u64, rounds: usize) {
        let mut rng = Rng(seed | 1);
        let mut live: Vec<Live> = Vec::new();
        for round in 0..rounds {
            let tag = u8::try_from(round % 251).unwrap_or(0) + 1;
            match rng.below(4) {
                0 | 1 => {
                    let align = 1usize << rng.below(13); // up to a page
                    let layout = Layout::from_size_align(size_for(&mut rng), align).unwrap();
                    let zeroed = rng.below(2) == 0;
                    // SAFETY: a valid, non-zero layout.
                    let block = unsafe {
                        if zeroed {
                            alloc.alloc_zeroed(layout)
                        } else {
                            alloc.alloc(layout)
                        }
                    };
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "alignment {align}");
                    if zeroed {
                        // SAFETY: the block is live and `layout.size()` long.
                        let bytes = unsafe { std::slice::from_raw_parts(block, layout.size()) };
                        assert!(
                            bytes.iter().all(|&b| b == 0),
                            "alloc_zeroed gave dirty memory"
                        );
                    }
                    fill(block, layout.size(), tag);
                    live.push(Live { block, layout, tag });
                }
                2 if !live.is_empty() => {
                    let i = rng.below(live.len() as u64);
                    let old = live.swap_remove(i);
                    check(&old);
                    let new_size = size_for(&mut rng);
                    // SAFETY: `old` was allocated with its layout; the size is non-zero.
                    let block = unsafe { alloc.realloc(old.block, old.layout, new_size) };
                    assert!(!block.is_null());
                    assert_eq!(block as usize % old.layout.align(), 0);
                    let kept = old.layout.size().min(new_size);
                    // SAFETY: the block is live and at least `kept` long.
                    let bytes = unsafe { std::slice::from_raw_parts(block, kept) };
                    assert!(bytes.iter().all(|&b| b == old.tag), "realloc lost contents");
                    let layout = Layout::from_size_align(new_size, old.layout.align()).unwrap();
                    fill(block, new_size, tag);
                    live.push(Live { block, layout, tag });
                }
                _ if !live.is_empty() => {
                    let i = rng.below(live.len() as u64);
                    let old = live.swap_remove(i);
                    check(&old);
                    // SAFETY: allocated with this layout, no longer used.
                    unsafe { alloc.dealloc(old.block, old.layout) };
                }
                _ => {}
            }
            if live.len() > 64 {
                let old = live.swap_remove(0);
                check(&old);
                // SAFETY: as above.
                unsafe { alloc.dealloc(old.block, old.layout) };
            }
        }
        for old in live {
            check(&old);
            // SAFETY: as above.
            unsafe { alloc.dealloc(old.block, old.layout) };
        }
    }

    #[test]
    fn blocks_never_overlap_keep_their_contents_and_honour_alignment() {
        static ALLOC: OneShotAlloc = OneShotAlloc::new();
        churn(&ALLOC, 0x9e37_79b9_7f4a_7c15, 20_000);
    }

    #[test]
    fn threads_sharing_one_allocator_never_share_a_block() {
        static ALLOC: OneShotAlloc = OneShotAlloc::new();
        std::thread::scope(|s| {
            for seed in 1..=4u64 {
                s.spawn(move || churn(&ALLOC, seed.wrapping_mul(0x2545_f491_4f6c_dd1d), 10_000));
            }
        });
    }

    #[test]
    fn freed_blocks_are_reused_and_the_last_block_grows_in_place() {
        static ALLOC: OneShotAlloc = OneShotAlloc::new();
        let layout = Layout::from_size_align(40, 8).unwrap();
        // SAFETY: valid layouts; each block is freed once, with its layout.
        unsafe {
            let a = ALLOC.alloc(layout);
            ALLOC.dealloc(a, layout);
            let b = ALLOC.alloc(layout);
            assert_eq!(a, b, "a freed block of the class is handed out again");
            ALLOC.dealloc(b, layout);
            let b = ALLOC.alloc(Layout::from_size_align(300, 8).unwrap());
            let grown = ALLOC.realloc(b, Layout::from_size_align(300, 8).unwrap(), 1000);
            assert_eq!(grown, b, "the block carved last grows where it is");
            let neighbour = Layout::from_size_align(700, 8).unwrap();
            let other = ALLOC.alloc(neighbour);
            let moved = ALLOC.realloc(grown, Layout::from_size_align(1000, 8).unwrap(), 5000);
            assert_ne!(moved, grown, "a block with a neighbour after it moves");
            ALLOC.dealloc(other, neighbour);
            ALLOC.dealloc(moved, Layout::from_size_align(5000, 8).unwrap());
        }
    }

    /// Pages of `len` bytes from `from` (whole pages only) that are resident.
    #[cfg(target_os = "linux")]
    fn resident_pages(from: usize, len: usize) -> usize {
        let start = from.next_multiple_of(PAGE);
        let stop = (from + len) & !(PAGE - 1);
        let mut pages = vec![0u8; (stop - start) / PAGE];
        // SAFETY: the range is mapped (a block the test holds or just freed, inside a
        // chunk the allocator never unmaps) and page aligned; `pages` has one byte per
        // page for the kernel to write.
        let rc =
            unsafe { libc::mincore(start as *mut libc::c_void, stop - start, pages.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore");
        pages.iter().filter(|&&p| p & 1 == 1).count()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn freed_blocks_of_the_largest_classes_give_their_pages_back() {
        static ALLOC: OneShotAlloc = OneShotAlloc::new();
        for (size, returned) in [
            (RETURN_ABOVE, false),
            (RETURN_ABOVE + 1, true),
            (SMALL_MAX, true),
        ] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: a valid layout; each block is freed once, with its layout, and
            // read only while it is live.
            unsafe {
                let block = ALLOC.alloc(layout);
                assert!(!block.is_null());
                fill(block, size, 7);
                let written = resident_pages(block as usize, size);
                assert!(
                    written >= size / PAGE - 1,
                    "{size}: {written} pages resident"
                );
                ALLOC.dealloc(block, layout);
                let left = resident_pages(block as usize, size);
                if returned {
                    // The page holding the free-list link stays.
                    assert!(left <= 1, "{size}: {left} of {written} pages kept");
                } else {
                    assert_eq!(
                        left, written,
                        "{size}: a block of a smaller class keeps its pages"
                    );
                }
                let again = ALLOC.alloc_zeroed(layout);
                assert_eq!(again, block, "{size}: the freed block is handed out again");
                let bytes = std::slice::from_raw_parts(again, size);
                assert!(bytes.iter().all(|&b| b == 0), "{size}: reused as zeros");
                ALLOC.dealloc(again, layout);
            }
        }
    }

    #[test]
    fn alignments_beyond_a_page_are_refused_not_misaligned() {
        static ALLOC: OneShotAlloc = OneShotAlloc::new();
        let layout = Layout::from_size_align(64, 2 * PAGE).unwrap();
        // SAFETY: a valid layout; a null result is the refusal under test.
        assert!(unsafe { ALLOC.alloc(layout) }.is_null());
    }

    #[test]
    fn blocks_freed_by_another_thread_are_reused_safely() {
        static ALLOC: OneShotAlloc = OneShotAlloc::new();
        let (send, receive) = std::sync::mpsc::channel::<(usize, usize, u8)>();
        std::thread::scope(|s| {
            s.spawn(move || {
                let mut rng = Rng(77);
                for i in 0..5_000usize {
                    let layout = Layout::from_size_align(size_for(&mut rng) % 4096 + 1, 8).unwrap();
                    // SAFETY: a valid layout.
                    let block = unsafe { ALLOC.alloc(layout) };
                    assert!(!block.is_null());
                    let tag = u8::try_from(i % 200).unwrap() + 1;
                    fill(block, layout.size(), tag);
                    send.send((block as usize, layout.size(), tag)).unwrap();
                }
            });
            // This thread frees what the other allocated, and allocates from it again.
            let mut mine = Vec::new();
            for (address, size, tag) in receive {
                let layout = Layout::from_size_align(size, 8).unwrap();
                let theirs = Live {
                    block: address as *mut u8,
                    layout,
                    tag,
                };
                check(&theirs);
                // SAFETY: allocated with this layout by the other thread, no longer used there.
                unsafe { ALLOC.dealloc(theirs.block, layout) };
                // SAFETY: a valid layout.
                let block = unsafe { ALLOC.alloc(layout) };
                fill(block, size, tag ^ 0xff);
                mine.push(Live {
                    block,
                    layout,
                    tag: tag ^ 0xff,
                });
            }
            for live in mine {
                check(&live);
                // SAFETY: as above.
                unsafe { ALLOC.dealloc(live.block, live.layout) };
            }
        });
    }
}
