//! `SandboxError`: the one error type of the crate, for both sides of the boundary.
//!
//! Variants are named after what failed. Every `Display` is one line that says what
//! happened and, where there is one, what the user can do about it. Text that came from
//! the child (its stderr) is carried only as a sanitized excerpt: printable ASCII, bounded
//! (see [`sanitize_excerpt`]), because the child may be compromised and its output must
//! not be able to drive the user's terminal.

use std::fmt;
use std::io;
use std::time::Duration;

/// Longest stderr excerpt carried in an error (characters of printable ASCII).
pub const STDERR_EXCERPT_LEN: usize = 400;

/// Everything that can go wrong on either side of the boundary.
#[derive(Debug)]
#[non_exhaustive]
pub enum SandboxError {
    // ---- parent: creating the child ----
    /// A system call the parent needed to create or talk to the child failed.
    ParentIo {
        /// What the parent was doing.
        op: &'static str,
        source: io::Error,
    },
    /// Starting `/proc/self/exe` failed.
    Spawn(io::Error),
    /// More descriptors were handed over than the fixed layout allows.
    TooManyFiles { count: usize, max: usize },

    // ---- parent: the weak-sandbox decision ----
    /// The child's confinement does not keep the promise and the policy refuses it.
    WeakSandbox {
        /// The missing layers, e.g. `seccomp unavailable`.
        missing: String,
        /// Whether `--allow-weak-sandbox` would accept it (false under `Strict`).
        strict: bool,
    },

    // ---- parent: supervision verdicts ----
    /// The whole exchange did not finish before the deadline; the child was killed.
    Timeout { after: Duration },
    /// The child was killed by a signal (SIGSYS means a seccomp violation).
    Killed {
        signal: i32,
        /// Sanitized excerpt of the child's stderr.
        stderr: String,
    },
    /// The child exited with a non-zero status.
    Exited {
        code: i32,
        /// Sanitized excerpt of the child's stderr.
        stderr: String,
    },
    /// The report stream ended before the end marker, and the child exited 0.
    Truncated { stderr: String },
    /// A frame announced a length above the limit (checked before allocating).
    FrameTooLarge { len: u64, max: u64 },
    /// A frame did not decode to the expected type, or left trailing bytes.
    BadFrame(String),
    /// A frame's value would own more than its decoded-size budget (checked while
    /// decoding, before the memory is taken).
    DecodedTooLarge { len: u64, max: u64 },
    /// Message `index` announced more bytes than its share (checked before allocating).
    MessageOverShare { index: usize, len: u64, max: u64 },
    /// The first frame was not a hello, or a hello came twice, or data followed the end.
    Protocol(String),
    /// The child's hello carried another protocol version.
    VersionMismatch { got: u32, expected: u32 },
    /// The child sent more messages than `Limits::max_messages`.
    TooManyMessages { max: usize },
    /// The child sent more payload bytes than `Limits::max_total_bytes`.
    TooManyBytes { max: u64 },
    /// The end marker announced a count other than the number of messages received.
    CountMismatch { announced: u64, received: u64 },

    // ---- child side ----
    /// A confinement step failed; the child refuses to read any input.
    Confine {
        /// The step, e.g. `setresuid(65534)` or `landlock_restrict_self`.
        step: &'static str,
        detail: String,
    },
    /// The child could not write to the report pipe or read its request.
    ChildIo { op: &'static str, source: io::Error },
    /// A value could not be encoded into a frame.
    Encode(String),
    /// Child side, nothing sent: the message does not fit the share it was given
    /// (see `Sender::send_within`). The handler may send something smaller instead.
    ShareExceeded {
        payload: u64,
        decoded: u64,
        max_payload: u64,
        max_decoded: u64,
    },
    /// The caller's handler in the child failed (free text, already safe to show).
    Handler(String),
}

impl SandboxError {
    /// A failure of the caller's handler inside the child.
    #[must_use]
    pub fn handler(message: impl Into<String>) -> Self {
        SandboxError::Handler(message.into())
    }

    /// The sanitized stderr excerpt of the child, when the error carries one.
    #[must_use]
    pub fn child_stderr(&self) -> Option<&str> {
        match self {
            SandboxError::Killed { stderr, .. }
            | SandboxError::Exited { stderr, .. }
            | SandboxError::Truncated { stderr } => Some(stderr),
            _ => None,
        }
    }

    /// The child ran out of time, CPU or memory rather than breaking the protocol: the
    /// deadline passed, or it died of SIGXCPU, SIGKILL (the hard CPU limit, the OOM
    /// killer) or SIGABRT (its allocator hit the address-space limit). What it sent
    /// before is complete and checked (see `Limits::keep_partial`).
    #[must_use]
    pub fn is_exhaustion(&self) -> bool {
        match self {
            SandboxError::Timeout { .. } => true,
            SandboxError::Killed { signal, .. } => {
                matches!(*signal, libc::SIGXCPU | libc::SIGKILL | libc::SIGABRT)
            }
            _ => false,
        }
    }

    pub(crate) fn confine(step: &'static str, detail: impl fmt::Display) -> Self {
        SandboxError::Confine {
            step,
            detail: detail.to_string(),
        }
    }

    pub(crate) fn parent_io(op: &'static str) -> impl FnOnce(io::Error) -> Self {
        move |source| SandboxError::ParentIo { op, source }
    }

    pub(crate) fn child_io(op: &'static str) -> impl FnOnce(io::Error) -> Self {
        move |source| SandboxError::ChildIo { op, source }
    }
}

/// `SIGSYS` etc. by number, for messages (never from child-controlled text).
pub(crate) fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGSYS => "SIGSYS".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGXCPU => "SIGXCPU".into(),
        libc::SIGXFSZ => "SIGXFSZ".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        libc::SIGTERM => "SIGTERM".into(),
        other => format!("signal {other}"),
    }
}

/// Keeps printable ASCII only (a newline becomes ` | `), at most [`STDERR_EXCERPT_LEN`]
/// characters, so child output can neither inject terminal escapes nor flood a message.
pub(crate) fn sanitize_excerpt(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        if out.len() >= STDERR_EXCERPT_LEN {
            out.push_str(" ...");
            break;
        }
        match b {
            b'\n' => {
                if !out.is_empty() && !out.ends_with(" | ") {
                    out.push_str(" | ");
                }
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push('?'),
        }
    }
    out.trim_end_matches(" | ").trim().to_string()
}

fn with_stderr(f: &mut fmt::Formatter<'_>, stderr: &str) -> fmt::Result {
    if stderr.is_empty() {
        Ok(())
    } else {
        write!(f, " (child stderr: {stderr})")
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxError::ParentIo { op, source } => {
                write!(f, "sandbox: {op} failed in the parent: {source}")
            }
            SandboxError::Spawn(e) => write!(
                f,
                "cannot start the parser child (re-exec of /proc/self/exe): {e}; is /proc mounted?"
            ),
            SandboxError::TooManyFiles { count, max } => write!(
                f,
                "cannot hand {count} files to the parser child (at most {max} per child)"
            ),
            SandboxError::WeakSandbox {
                missing,
                strict: false,
            } => write!(
                f,
                "refusing to parse: the kernel sandbox is too weak ({missing}); \
                 pass --allow-weak-sandbox to parse anyway"
            ),
            SandboxError::WeakSandbox {
                missing,
                strict: true,
            } => write!(
                f,
                "refusing to parse: strict sandbox requested but {missing}; \
                 drop --strict-sandbox / MCP_WARDEN_STRICT_SANDBOX to accept a degraded kernel"
            ),
            SandboxError::Timeout { after } => write!(
                f,
                "parser child did not finish within {:.1} s and was killed",
                after.as_secs_f64()
            ),
            SandboxError::Killed { signal, stderr } => {
                match *signal {
                    libc::SIGSYS => write!(
                        f,
                        "sandbox violation: the parser child made a forbidden system call \
                         (syscall unknown; rerun with MCP_WARDEN_SECCOMP_LOG=1 and read dmesg, \
                         or use strace -f) and was killed by SIGSYS"
                    )?,
                    libc::SIGABRT => write!(
                        f,
                        "parser child aborted (SIGABRT): out of memory or an internal abort"
                    )?,
                    libc::SIGXCPU => {
                        write!(f, "parser child exceeded its CPU-time limit (SIGXCPU)")?
                    }
                    libc::SIGKILL => write!(f, "parser child was killed by SIGKILL")?,
                    s => write!(f, "parser child was killed by {}", signal_name(s))?,
                }
                with_stderr(f, stderr)
            }
            SandboxError::Exited { code: 101, stderr } => {
                write!(f, "parser child panicked (exit status 101)")?;
                with_stderr(f, stderr)
            }
            SandboxError::Exited { code, stderr } => {
                write!(f, "parser child failed with exit status {code}")?;
                with_stderr(f, stderr)
            }
            SandboxError::Truncated { stderr } => {
                write!(f, "parser child's report ended before its end marker")?;
                with_stderr(f, stderr)
            }
            SandboxError::FrameTooLarge { len, max } => write!(
                f,
                "parser child sent a frame of {len} bytes (limit {max}); child killed"
            ),
            SandboxError::BadFrame(detail) => {
                write!(f, "parser child sent an undecodable frame: {detail}")
            }
            SandboxError::DecodedTooLarge { len, max } => write!(
                f,
                "parser child sent a {len}-byte frame that decodes to more than {max} bytes; \
                 child killed"
            ),
            SandboxError::MessageOverShare { index, len, max } => write!(
                f,
                "parser child sent {len} bytes for message {} (its share is {max}); child killed",
                index + 1
            ),
            SandboxError::Protocol(detail) => {
                write!(f, "parser child broke the protocol: {detail}")
            }
            SandboxError::VersionMismatch { got, expected } => write!(
                f,
                "parser child speaks protocol version {got}, expected {expected} \
                 (is /proc/self/exe a different build?)"
            ),
            SandboxError::TooManyMessages { max } => {
                write!(
                    f,
                    "parser child sent more than {max} messages; child killed"
                )
            }
            SandboxError::TooManyBytes { max } => {
                write!(f, "parser child sent more than {max} bytes; child killed")
            }
            SandboxError::CountMismatch {
                announced,
                received,
            } => write!(
                f,
                "parser child announced {announced} messages but sent {received}"
            ),
            SandboxError::Confine { step, detail } => {
                write!(f, "sandbox setup failed at {step}: {detail}")
            }
            SandboxError::ChildIo { op, source } => write!(f, "child: {op} failed: {source}"),
            SandboxError::Encode(detail) => write!(f, "cannot encode a frame: {detail}"),
            SandboxError::ShareExceeded {
                payload,
                decoded,
                max_payload,
                max_decoded,
            } => write!(
                f,
                "the message takes {payload} bytes ({decoded} decoded), above its share of \
                 {max_payload} bytes ({max_decoded} decoded)"
            ),
            SandboxError::Handler(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for SandboxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SandboxError::ParentIo { source, .. } | SandboxError::ChildIo { source, .. } => {
                Some(source)
            }
            SandboxError::Spawn(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    #[test]
    fn excerpt_keeps_printable_ascii_only() {
        let s = sanitize_excerpt(b"panicked at x.rs:1\n\x1b[31mred\x07\n\xff");
        assert_eq!(s, "panicked at x.rs:1 | ?[31mred? | ?");
    }

    #[test]
    fn excerpt_is_bounded() {
        let s = sanitize_excerpt(&[b'a'; 10_000]);
        assert!(s.len() <= STDERR_EXCERPT_LEN + 4);
    }

    #[test]
    fn sigsys_is_called_a_sandbox_violation() {
        let e = SandboxError::Killed {
            signal: libc::SIGSYS,
            stderr: String::new(),
        };
        assert!(e.to_string().starts_with("sandbox violation"));
    }
}
