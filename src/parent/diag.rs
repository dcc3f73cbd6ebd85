//! Warnings and errors on stderr: one line each, `warning:` / `error:` prefixed,
//! every config-derived character neutralised and every credential shape masked
//! ([`crate::text::redact::display_capped`]).

use std::io::Write;

use crate::text::redact::display_capped;

/// Longest diagnostic line, in code points (paths in warnings can be long).
const DIAG_CAP: usize = 400;

/// The stderr sink. Lines are printed as they occur, before any stdout output.
pub struct Diag {
    out: Out,
}

enum Out {
    /// `Send`, so that work done on another thread can hold a sink of its own.
    Write(Box<dyn Write + Send>),
    /// Lines kept for later ([`Diag::held`]).
    Held(Vec<u8>),
}

impl Diag {
    pub fn stderr() -> Diag {
        Diag::to(crate::output::diagnostics())
    }

    /// A sink that writes somewhere else (tests).
    pub fn to(out: Box<dyn Write + Send>) -> Diag {
        Diag {
            out: Out::Write(out),
        }
    }

    /// A sink that keeps its lines until [`Diag::release_into`]: for work done ahead
    /// of its turn (a part of an answer collected while the child parses the rest),
    /// whose lines must come out in the order the work would have printed them.
    pub fn held() -> Diag {
        Diag {
            out: Out::Held(Vec::new()),
        }
    }

    /// Print the lines a [`Diag::held`] sink kept into `into`, in order.
    pub fn release_into(self, into: &mut Diag) {
        if let Out::Held(lines) = self.out {
            into.write_raw(&lines);
        }
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        match &mut self.out {
            // stderr failures cannot be reported anywhere; the exit code still tells.
            Out::Write(out) => {
                let _ = out.write_all(bytes);
            }
            Out::Held(lines) => lines.extend_from_slice(bytes),
        }
    }

    pub fn warning(&mut self, text: &str) {
        self.line("warning: ", text);
    }

    pub fn error(&mut self, text: &str) {
        self.line("error: ", text);
    }

    /// A line with its own prefix (`--pin refused …`).
    pub fn raw(&mut self, text: &str) {
        self.line("", text);
    }

    fn line(&mut self, prefix: &str, text: &str) {
        let line = format!("{prefix}{}\n", display_capped(text, DIAG_CAP));
        self.write_raw(line.as_bytes());
    }
}
