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
pub(crate) fn flush_if_full(buf: &mut String, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    if buf.len() >= FLUSH_AT {
        out.write_all(buf.as_bytes())?;
        buf.clear();
    }
    Ok(())
}
