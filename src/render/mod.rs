//! Everything that turns a [`crate::model::Report`] into bytes for a terminal, a
//! pipe or a file. Every config-controlled string is printed through
//! [`crate::text`] (neutralised, credentials masked, quoted where it is pasted).
//!
//! * [`text::render`]: the human report (header, sources, sandbox line, verdict or
//!   findings, Next steps, summary);
//! * [`findings`]: the findings grouped by server and the closing summary, shared
//!   by `doctor` and `auth audit` ([`audit::render`]);
//! * [`style`]: the one colour decision (`--color`, `NO_COLOR`, `CLICOLOR`,
//!   `CLICOLOR_FORCE`, `TERM`) and the width of the output stream;
//! * [`wrap`]: display width and line filling that never splits a word;
//! * [`jsonl::render_with_summary`]: `--json`, one object per finding and a
//!   summary record;
//! * [`sarif::render`]: `--sarif`, SARIF 2.1.0 for GitHub code scanning;
//! * [`record`]: the record shape those two writers write, for doctor and for
//!   `pin`/`check` alike;
//! * [`servers`]: `--servers`, the effective view per client, and the header's
//!   per-client counts;
//! * [`lock_names`]: lock file names ([`lock_names::assign_lock_names`], shared with
//!   `doctor --pin`);
//! * [`next_steps`]: the printed `pin`/`lock rotate`/`check` lines and the CI workflow;
//!
//! Renderers write to a caller-owned `&mut dyn Write` (the caller handles broken
//! pipes) and never print directly.
//!
//! # Two threads for the large reports
//!
//! Next steps and the JSONL findings are made in chunks (`chunks_by_weight`) on
//! two threads and written in order by one (`write_in_order`): by the time the
//! report is written the parser child has exited and the audit is done, so the
//! second core is idle, while the masking, quoting and credential scans behind
//! every printed word are most of what the parent does on a large home. Each
//! chunk's text depends on that chunk alone, so the bytes are the ones a single
//! thread writes; the tests of each renderer compare one thread with two. Before
//! Next steps, while one thread writes the text report's header and findings, the
//! other groups Next steps' servers (`next_steps::render_next_steps_after`).

use std::sync::Arc;

pub mod audit;
pub mod findings;
pub mod jsonl;
pub mod lock_names;
pub mod next_steps;
pub mod record;
pub mod sarif;
pub mod servers;
pub mod style;
pub mod text;
pub mod wrap;

pub use lock_names::{assign_lock_names, lock_slug};
pub use next_steps::{pin_command, render_next_steps};
pub use text::{no_configs_line, TextStyle};

/// [`crate::text::display`] of each finding's target, computed once per server: all
/// findings of a server share its target (one `Arc`), which may be 64 KiB long, and a
/// server may have thousands of findings.
pub(crate) struct Targets {
    last: Option<(Arc<str>, Arc<str>)>,
}

impl Targets {
    pub(crate) fn new() -> Targets {
        Targets { last: None }
    }

    /// The printed form of `target`.
    pub(crate) fn display(&mut self, target: &Arc<str>) -> Arc<str> {
        if let Some((raw, shown)) = &self.last {
            if Arc::ptr_eq(raw, target) {
                return Arc::clone(shown);
            }
        }
        let shown: Arc<str> = crate::text::display(target).into();
        self.last = Some((Arc::clone(target), Arc::clone(&shown)));
        shown
    }
}

/// Reports are built line by line into a buffer that is handed to the writer in
/// blocks of about this size: a large report has hundreds of thousands of short
/// lines, and one write per line (or one allocation per line) dominates.
pub(crate) const FLUSH_AT: usize = 64 * 1024;

/// Hand `buf` to `out` once it holds a block.
pub(crate) fn flush_if_full<B: Block>(
    buf: &mut B,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if buf.bytes().len() >= FLUSH_AT {
        out.write_all(buf.bytes())?;
        buf.clear();
    }
    Ok(())
}

/// A block of output being built: what [`write_in_order`] hands from one thread to
/// the other.
pub(crate) trait Block: Default + Send {
    fn bytes(&self) -> &[u8];
    fn clear(&mut self);
    /// Append `other`'s text.
    fn push_block(&mut self, other: &Self);
}

impl Block for String {
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }

    fn clear(&mut self) {
        String::clear(self);
    }

    fn push_block(&mut self, other: &Self) {
        self.push_str(other);
    }
}

impl Block for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }

    fn push_block(&mut self, other: &Self) {
        self.extend_from_slice(other);
    }
}

/// How a renderer's items are cut into chunks (`chunks_by_weight`) and on how
/// many threads the chunks are made (`write_in_order`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    pub(crate) threads: usize,
    /// A chunk weighs about this much (about this many printed lines).
    pub(crate) chunk_weight: usize,
}

impl Split {
    /// For a renderer with `items` items (lock groups, servers) to write: two
    /// threads from [`SPLIT_FROM`] items on (one below, where starting a thread
    /// costs more than it saves), chunks of about 256 lines (tens of KiB: few
    /// enough that handing them over, a few microseconds when a thread has to be
    /// woken, is lost in the work).
    pub(crate) fn for_items(items: usize) -> Split {
        Split {
            threads: if items >= SPLIT_FROM { 2 } else { 1 },
            chunk_weight: 256,
        }
    }
}

/// See [`Split::for_items`].
const SPLIT_FROM: usize = 512;

/// Consecutive items of a renderer, written as one piece by [`write_in_order`].
pub(crate) struct Chunk<'i, T> {
    pub(crate) items: &'i [T],
    /// Its weight reaches a chunk's alone: it is written on this thread, in blocks
    /// as it is made, never held whole by the other.
    pub(crate) heavy: bool,
}

/// `items` cut into chunks of about `chunk_weight`, `weight` telling how many lines
/// (or line-sized pieces) each item prints; an item that weighs that much alone is
/// a chunk of its own, marked heavy.
pub(crate) fn chunks_by_weight<T>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    chunk_weight: usize,
) -> Vec<Chunk<'_, T>> {
    let chunk_weight = chunk_weight.max(1);
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut carried = 0;
    for (i, item) in items.iter().enumerate() {
        let w = weight(item);
        if w >= chunk_weight {
            if start < i {
                chunks.push(Chunk {
                    items: &items[start..i],
                    heavy: false,
                });
            }
            chunks.push(Chunk {
                items: &items[i..=i],
                heavy: true,
            });
            start = i + 1;
            carried = 0;
            continue;
        }
        carried += w;
        if carried >= chunk_weight {
            chunks.push(Chunk {
                items: &items[start..=i],
                heavy: false,
            });
            start = i + 1;
            carried = 0;
        }
    }
    if start < items.len() {
        chunks.push(Chunk {
            items: &items[start..],
            heavy: false,
        });
    }
    chunks
}

/// How many chunks past the next one to write may be made ahead of it.
const AHEAD: usize = 8;

/// A chunk made ahead of its turn: its text and its result (or the panic of the
/// thread that made it, raised again when its turn comes).
type Made<B, R> = (B, std::thread::Result<std::io::Result<R>>);

/// What the two threads of [`write_in_order`] share.
struct Shared<B, R> {
    /// The next chunk nobody has taken.
    next: usize,
    /// Chunks written so far: the next to write is this one.
    written: usize,
    /// The chunks made ahead of their turn, by index.
    made: Vec<Option<Made<B, R>>>,
    /// Written blocks, for the next chunk made ahead.
    spare: Vec<B>,
    /// The writing thread has stopped (a write or a chunk failed).
    stop: bool,
    /// Threads waiting for a change: a change wakes them (a system call) only
    /// when there is one.
    waiting: usize,
}

impl<B, R> Shared<B, R> {
    /// Wait on `changed` until another thread changes the state.
    fn wait<'g>(
        mut guard: std::sync::MutexGuard<'g, Self>,
        changed: &std::sync::Condvar,
    ) -> std::sync::MutexGuard<'g, Self> {
        guard.waiting += 1;
        let mut guard = changed
            .wait(guard)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.waiting -= 1;
        guard
    }

    /// Wake the waiting thread, if any.
    fn changed(&self, changed: &std::sync::Condvar) {
        if self.waiting > 0 {
            changed.notify_all();
        }
    }
}

/// Runs its function when dropped, unwinding included.
struct StopOnDrop<F: Fn()>(F);

impl<F: Fn()> Drop for StopOnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// Write `chunks` in order, each chunk's text made by `work` and handed to `out` in
/// blocks of about [`FLUSH_AT`]; the result of each chunk, in order.
///
/// With two `threads`, both take the next chunk nobody has taken, up to [`AHEAD`]
/// chunks past the next one to write. This thread writes: the next chunk, when it
/// takes it, straight into `buf` and `out` as it is made (`work` gets `Some(out)`
/// and may hand a block over mid-chunk); any later one into a block of its own,
/// written when its turn comes, as are the worker's. `work` makes a chunk's text
/// from that chunk alone, so the bytes are those of one thread writing every chunk
/// in order (the renderers' tests check one thread against two, at several chunk
/// sizes). A chunk `lendable` refuses (too heavy to hold whole: one server with a
/// hundred thousand findings) is only ever made by this thread in its turn, so it
/// is streamed as it always was.
///
/// Why: the report is written after the parser child has exited and the audit is
/// done, so the second core is idle, and on a large home the masking, quoting and
/// credential scans behind each printed word are most of the parent's time.
/// Neither thread waits for the other while there is a chunk to take (on a busy
/// machine one of them is often not running), and neither holds more than a few
/// chunks of text: holding the second half of a section until the first was
/// written was about 2 MB of fresh pages per section on a large home. Written
/// blocks are reused.
///
/// A thread that cannot be started leaves every chunk to this one. A failed write
/// or a failed chunk ends the work with that error once its turn comes (the
/// worker stops taking chunks); a panic in the worker is raised here in its turn
/// (in a build that unwinds: the release profile aborts at the panic).
pub(crate) fn write_in_order<C: Sync, B: Block, R: Send>(
    chunks: &[C],
    lendable: impl Fn(&C) -> bool + Sync,
    threads: usize,
    buf: &mut B,
    out: &mut dyn std::io::Write,
    work: impl Fn(&mut B, &C, Option<&mut dyn std::io::Write>) -> std::io::Result<R> + Sync,
) -> std::io::Result<Vec<R>> {
    use std::sync::{Condvar, Mutex, PoisonError};
    let mut results = Vec::with_capacity(chunks.len());
    if threads < 2 || chunks.len() < 2 || !chunks.iter().any(&lendable) {
        for chunk in chunks {
            results.push(work(buf, chunk, Some(&mut *out))?);
            flush_if_full(buf, out)?;
        }
        return Ok(results);
    }
    let shared = Mutex::new(Shared::<B, R> {
        next: 0,
        written: 0,
        made: (0..chunks.len()).map(|_| None).collect(),
        spare: Vec::new(),
        stop: false,
        waiting: 0,
    });
    let changed = Condvar::new();
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    let (work, lendable) = (&work, &lendable);
    // Take the next chunk if it may be made ahead now; `None` when there is none
    // to take yet.
    let take_ahead = |state: &mut Shared<B, R>| -> Option<(usize, B)> {
        let i = state.next;
        let chunk = chunks.get(i)?;
        if state.stop || i >= state.written + 1 + AHEAD || !lendable(chunk) {
            return None;
        }
        state.next += 1;
        Some((i, state.spare.pop().unwrap_or_default()))
    };
    // Make chunk `i` ahead of its turn into `block` and leave it for the writer.
    let make_ahead = |i: usize, mut block: B| {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            work(&mut block, &chunks[i], None)
        }));
        let mut state = lock();
        state.made[i] = Some((block, result));
        state.changed(&changed);
    };
    std::thread::scope(|scope| {
        let _ = std::thread::Builder::new()
            .name("render".into())
            .spawn_scoped(scope, || loop {
                let mut state = lock();
                let taken = loop {
                    if state.stop || state.next >= chunks.len() {
                        break None;
                    }
                    if let Some(taken) = take_ahead(&mut state) {
                        break Some(taken);
                    }
                    state = Shared::wait(state, &changed);
                };
                drop(state);
                match taken {
                    Some((i, block)) => make_ahead(i, block),
                    None => return,
                }
            });
        // However this thread leaves (done, an error, a panic), the worker takes no
        // more chunks and the scope's join returns.
        let _stop = StopOnDrop(|| {
            let mut state = lock();
            state.stop = true;
            state.changed(&changed);
        });
        let mut state = lock();
        while state.written < chunks.len() {
            let i = state.written;
            if let Some((mut block, result)) = state.made[i].take() {
                drop(state);
                let result = match result {
                    Ok(result) => result,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                results.push(result?);
                buf.push_block(&block);
                flush_if_full(buf, out)?;
                block.clear();
                state = lock();
                state.spare.push(block);
                state.written += 1;
                state.changed(&changed);
            } else if state.next == i {
                // Its turn and nobody has it: made here, written as it is made.
                state.next += 1;
                drop(state);
                results.push(work(buf, &chunks[i], Some(&mut *out))?);
                flush_if_full(buf, out)?;
                state = lock();
                state.written += 1;
                state.changed(&changed);
            } else if let Some((j, block)) = take_ahead(&mut state) {
                // Its turn, but the worker is making it: make a later one meanwhile.
                drop(state);
                make_ahead(j, block);
                state = lock();
            } else {
                state = Shared::wait(state, &changed);
            }
        }
        drop(state);
        Ok(results)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_item_in_order_and_heavy_items_alone() {
        let weights = [1, 3, 70, 2, 2, 64, 63, 1, 0, 0, 5];
        let chunks = chunks_by_weight(&weights, |w| *w, 4);
        let covered: Vec<usize> = chunks.iter().flat_map(|c| c.items.to_vec()).collect();
        assert_eq!(covered, weights);
        for c in &chunks {
            if c.heavy {
                assert_eq!(c.items.len(), 1);
                assert!(c.items[0] >= 4);
            } else {
                assert!(c.items.iter().all(|w| *w < 4));
            }
        }
        let shapes: Vec<(usize, bool)> = chunks.iter().map(|c| (c.items.len(), c.heavy)).collect();
        assert_eq!(
            shapes,
            [
                (2, false),
                (1, true),
                (2, false),
                (1, true),
                (1, true),
                (3, false),
                (1, true)
            ]
        );
        assert!(chunks_by_weight(&[] as &[usize], |w| *w, 4).is_empty());
    }

    /// Each item's text, one line per unit of its weight.
    fn work(
        buf: &mut String,
        chunk: &Chunk<'_, usize>,
        mut out: Option<&mut dyn std::io::Write>,
    ) -> std::io::Result<usize> {
        for &item in chunk.items {
            for line in 0..=item {
                buf.push_str(&format!("{item}.{line}\n"));
                if let Some(out) = out.as_deref_mut() {
                    flush_if_full(buf, out)?;
                }
            }
        }
        Ok(chunk.items.iter().sum())
    }

    #[test]
    fn two_threads_write_what_one_writes_and_return_results_in_order() {
        let items: Vec<usize> = (0..3000).map(|i| (i * 7919) % 40).collect();
        for chunk_weight in [1, 3, 64, 100_000] {
            let chunks = chunks_by_weight(&items, |w| *w, chunk_weight);
            let run = |threads| {
                let mut out = Vec::new();
                let mut buf = String::from("head\n");
                let results =
                    write_in_order(&chunks, |c| !c.heavy, threads, &mut buf, &mut out, work)
                        .unwrap_or_else(|e| panic!("{e}"));
                out.extend_from_slice(buf.as_bytes());
                (out, results)
            };
            let one = run(1);
            assert_eq!(one, run(2), "{chunk_weight}");
            assert_eq!(one.1.iter().sum::<usize>(), items.iter().sum::<usize>());
        }
    }

    #[test]
    fn a_panic_making_a_chunk_is_raised_by_the_writer() {
        let items: Vec<usize> = (0..64).collect();
        let chunks = chunks_by_weight(&items, |_| 1, 4);
        for bad in [0, 5, 37, 63] {
            let got = std::panic::catch_unwind(|| {
                let mut buf = String::new();
                write_in_order(
                    &chunks,
                    |_| true,
                    2,
                    &mut buf,
                    &mut Vec::new(),
                    |_: &mut String, c: &Chunk<'_, usize>, _| {
                        assert!(!c.items.contains(&bad), "chunk {bad}");
                        Ok(())
                    },
                )
            });
            assert!(got.is_err(), "{bad}");
        }
    }

    #[test]
    fn a_failed_chunk_on_the_worker_is_the_error() {
        let items: Vec<usize> = (0..64).collect();
        let chunks = chunks_by_weight(&items, |_| 1, 4);
        let mut buf = String::new();
        let got = write_in_order(
            &chunks,
            |_| true,
            2,
            &mut buf,
            &mut Vec::new(),
            |_: &mut String, c: &Chunk<'_, usize>, _| {
                if c.items.contains(&37) {
                    Err(std::io::Error::other("chunk 37"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(got.map_err(|e| e.to_string()), Err("chunk 37".to_string()));
    }
}
