//! The one writer: every byte mcp-warden prints leaves the process through here.
//!
//! Renderers write into a caller-owned `&mut dyn Write`; the commands get that
//! writer from [`writer`], and one-off lines (a usage error, `--version`, a
//! diagnostic) go through [`write_text`]. Nothing else touches the process's stdout
//! or stderr: clippy's `disallowed-macros` and `disallowed-methods`
//! (`clippy.toml`) refuse `print!`, `println!`, `eprint!`, `eprintln!`, `dbg!`,
//! `std::io::stdout` and `std::io::stderr` everywhere but this module. So there is
//! one place that decides what a closed pipe means, whether a stream is a terminal
//! and how wide it is — and no second path by which config text could reach a
//! terminal without passing the renderers' neutralisation.

// This module is the one allowed user of the handles the lints forbid elsewhere.
#![allow(clippy::disallowed_methods)]

use std::io::{self, IsTerminal, Write};

/// A standard stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// Whether this stream is a terminal.
    pub fn is_terminal(self) -> bool {
        match self {
            Stream::Stdout => io::stdout().is_terminal(),
            Stream::Stderr => io::stderr().is_terminal(),
        }
    }

    /// The terminal's width in columns, when this stream is a terminal that says.
    pub fn terminal_width(self) -> Option<usize> {
        // `terminal_size` does the TIOCGWINSZ ioctl (unsafe code, kept out of this crate).
        let size = match self {
            Stream::Stdout => terminal_size::terminal_size_of(io::stdout()),
            Stream::Stderr => terminal_size::terminal_size_of(io::stderr()),
        };
        size.map(|(w, _)| usize::from(w.0)).filter(|&w| w > 0)
    }
}

/// A buffered writer to `stream`, holding its lock until dropped (a report is
/// written as one block, never interleaved with another thread's line). The caller
/// flushes it and decides what an error means (a closed pipe is usually the
/// reader's choice, not a failure).
pub fn writer(stream: Stream) -> io::BufWriter<Box<dyn Write>> {
    let inner: Box<dyn Write> = match stream {
        Stream::Stdout => Box::new(io::stdout().lock()),
        Stream::Stderr => Box::new(io::stderr().lock()),
    };
    io::BufWriter::new(inner)
}

/// An unbuffered writer to stderr, for diagnostics printed as they occur.
pub fn diagnostics() -> Box<dyn Write + Send> {
    Box::new(io::stderr())
}

/// Write `text` to `stream` whole. Errors are dropped: this is for messages that
/// have nowhere else to go (a usage error, `--version`, a diagnostic), and the exit
/// code still tells.
pub fn write_text(stream: Stream, text: &str) {
    let mut out = writer(stream);
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// [`write_text`] of `text` and a newline.
pub fn line(stream: Stream, text: &str) {
    let mut out = writer(stream);
    let _ = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
}
