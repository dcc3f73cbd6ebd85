//! Warnings and errors on stderr: one line each, `warning:` / `error:` prefixed,
//! every config-derived character neutralised and every credential shape masked
//! ([`crate::text::redact::display_capped`]).

use std::io::Write;

use crate::text::redact::display_capped;

/// Longest diagnostic line, in code points (paths in warnings can be long).
const DIAG_CAP: usize = 400;

/// The stderr sink. Lines are printed as they occur, before any stdout output.
pub struct Diag {
    out: Box<dyn Write>,
}

impl Diag {
    pub fn stderr() -> Diag {
        Diag {
            out: crate::output::diagnostics(),
        }
    }

    /// A sink that writes somewhere else (tests).
    pub fn to(out: Box<dyn Write>) -> Diag {
        Diag { out }
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
        // stderr failures cannot be reported anywhere; the exit code still tells.
        let _ = writeln!(self.out, "{prefix}{}", display_capped(text, DIAG_CAP));
    }
}
