//! The confined parser child of mcp-warden: how it is created, confined, spoken to and
//! supervised.
//!
//! # Threat model
//!
//! `mcp-warden doctor` reads MCP client configs that an attacker can write (a cloned
//! repository's `.mcp.json`). Every byte of such a file is parsed only in a child process
//! that is confined before it reads a single byte, and the parent treats that child as
//! possibly compromised: its output is size-checked before allocation, decoded with a
//! limit, checked against the protocol, and its exit status is part of the verdict.
//!
//! The promise: **the child can read nothing but the descriptors it was handed and can
//! run, connect and write nothing** (its only outputs are the report pipe and stderr).
//!
//! # Decisions, and why
//!
//! * **Re-exec, not fork** (`spawn.rs`): `/proc/self/exe` with a fixed argv
//!   (`[mcp-warden, CHILD_ARG]`), empty environment, `/dev/null` stdin/stdout, a piped
//!   stderr, and a fixed descriptor layout (3 request socket, 4 report, 5.. files, the
//!   files handed over the socket: `handover.rs`). A fresh
//!   address space and ASLR, a clean runtime, no fork of a multi-threaded process; the
//!   OpenSSH `sshd-auth` shape. The parent is made non-dumpable first (no Yama here, so a
//!   same-uid process could otherwise ptrace it). The only `execve` of the default path is
//!   of our own executable.
//! * **Descriptors, not paths**: the parent opens each file and hands the descriptors
//!   over; the child's seccomp filter has no `open*` at all and its landlock ruleset
//!   handles every right and grants none. The guarantee thus survives a kernel without
//!   landlock (seccomp alone still prevents opening anything), and a root parent can drop
//!   the child to `nobody`.
//! * **Confinement order** (`confine/mod.rs`): fds, environment and panic hook first; then
//!   rlimits, bounding set, uid drop, parent-death signal, no_new_privs, capabilities,
//!   landlock, the mapped-file guard (`mapped.rs`), and seccomp last. Every step fails
//!   closed. The handed files arrive only after the last step (`handover.rs`).
//! * **Degraded kernels** ([`evaluate`]): the parent decides on the child's hello, before
//!   sending the request. Missing landlock is a warning (seccomp keeps the promise);
//!   missing seccomp is a refusal unless [`WeakSandboxPolicy::AllowWeak`];
//!   [`WeakSandboxPolicy::Strict`] refuses any gap.
//! * **Framing** (`frame.rs`): `u32` LE length + bincode 2.0.1 payload, length checked
//!   before allocation, no trailing bytes, no unknown variants, and a bound on what the
//!   decoded value owns ([`decoded_bound`]: 8 bytes per payload byte + 16 KiB, or the
//!   message's share), charged while decoding (`decoded.rs`), before each allocation.
//! * **Shares** ([`MessageShare`]): the caller may give each message its own payload
//!   and decoded-size share, so one large answer cannot use up what the others need; an
//!   honest child checks its message against its share before sending
//!   ([`Sender::send_within`]) and the parent kills a child that exceeds it.
//! * **Supervision** (`supervise.rs`): one deadline, `poll` on all pipes, non-blocking
//!   request writes, pipes drained before `waitpid`, a distinct error per misbehaviour.
//!
//! # Using it
//!
//! `main` must dispatch before parsing anything else:
//!
//! ```no_run
//! # fn parser_child() -> ! { loop {} }
//! match std::env::args_os().nth(1) {
//!     Some(a) if a == mcp_warden_sandbox::CHILD_ARG => parser_child(), // calls serve_child
//!     Some(a) if a == mcp_warden_sandbox::PROBE_ARG => mcp_warden_sandbox::probe_main(),
//!     _ => { /* the normal CLI */ }
//! }
//! ```
//!
//! The process must not restore `SIGPIPE` to its default action (Rust ignores it), so a
//! child that dies mid-request gives the parent `EPIPE` rather than a signal.
//!
//! Message types (`Msg`) must not hold `Box`, `Rc` or `Arc`: the decoded-size budget
//! charges sequence slots and string bytes, not heap pointers.
//!
//! # Test strategy
//!
//! A sandbox cannot be undone, so every confinement case runs in its own re-executed
//! child (`tests/confinement.rs`, `harness = false`, whose `main` dispatches like the real
//! binary). With `MCP_WARDEN_REQUIRE_SANDBOX=1` (set in CI) a kernel without landlock or
//! seccomp makes the tests fail instead of skipping.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod alloc;
mod child;
#[cfg(target_os = "linux")]
mod confine;
mod decoded;
mod error;
mod frame;
mod handover;
mod mapped;
/// `memcpy`, `memmove` and `memset` of the musl release build.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(target_env = "musl"), allow(dead_code))]
mod mem;
mod placement;
mod policy;
mod probe;
mod spawn;
mod status;
mod supervise;
mod sys;

use std::fmt;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::time::Duration;

use serde::{de::DeserializeOwned, Deserialize, Serialize};

pub use alloc::OneShotAlloc;
pub use child::{Sender, WireSlots};
pub use error::SandboxError;
pub use frame::{decoded_bound, MessageCost, DECODE_FACTOR, DECODE_SLACK, PROTOCOL_VERSION};
pub use mapped::MappedFile;
pub use placement::yield_to_the_exchange;
pub use policy::{evaluate, FULL_LANDLOCK_ABI};
pub use probe::{probe_main, selftest};
pub use spawn::SECCOMP_LOG_ENV;
pub use status::kernel_status;
pub use sys::{advise_huge_pages, file_size};

/// The fixed hidden argument with which the parent re-executes its own binary as the
/// parser child. `main` must dispatch on it before parsing any other argument.
pub const CHILD_ARG: &str = "__mcp-warden-parser";
/// The hidden argument for one `sandbox selftest` probe child.
pub const PROBE_ARG: &str = "__mcp-warden-probe";

/// What the caller accepts when a kernel lacks a layer (see [`evaluate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeakSandboxPolicy {
    /// Continue with a warning when the remaining layers still keep the promise
    /// (the child can read nothing but its descriptors and can run, connect and
    /// write nothing); refuse otherwise.
    #[default]
    Default,
    /// `--allow-weak-sandbox`: continue even when the promise is not kept (warn).
    AllowWeak,
    /// `--strict-sandbox` / MCP_WARDEN_STRICT_SANDBOX=1: refuse on any missing layer,
    /// including landlock below ABI [`FULL_LANDLOCK_ABI`].
    Strict,
}

/// Bounds on one exchange with the child.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock deadline for the whole exchange; the child is killed past it.
    pub timeout: Duration,
    /// Largest single frame accepted (checked before allocating).
    pub max_frame_len: u32,
    /// Most payload messages accepted.
    pub max_messages: usize,
    /// Most frame bytes (headers included) accepted over the whole exchange.
    pub max_total_bytes: u64,
    /// Most decoded bytes (as [`decoded_bound`] counts them) over all messages: the
    /// bound on what the messages of one exchange can make the parent hold.
    pub max_decoded_bytes: u64,
    /// The share of message `n` (`message_shares[n]`), checked at its length prefix and
    /// while it is decoded; a message beyond the list gets `max_frame_len` and
    /// [`decoded_bound`]. A child that exceeds its share is killed.
    pub message_shares: Vec<MessageShare>,
    /// When the child runs out of time, CPU or memory (deadline, SIGXCPU, SIGKILL,
    /// SIGABRT) after its hello was accepted, return the messages that arrived
    /// complete, with [`ChildOutput::cut_short`] saying why, instead of an error. Any
    /// breach of the protocol or the limits is still an error.
    pub keep_partial: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            max_frame_len: 16 << 20,
            max_messages: 4096,
            max_total_bytes: 256 << 20,
            max_decoded_bytes: 512 << 20,
            message_shares: Vec::new(),
            keep_partial: false,
        }
    }
}

/// What one message may cost its receiver: wire bytes and decoded bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageShare {
    /// Largest frame payload (the message and its one-byte frame tag).
    pub max_payload: u32,
    /// Most decoded bytes. It replaces the frame's own [`decoded_bound`] for this
    /// message: that bound relates decoded bytes to wire bytes, and honest records of
    /// empty fields own more than 8 bytes per wire byte (an empty `String` is 24 bytes
    /// for one), while a share is sized from the file the record came from.
    pub max_decoded: u64,
}

impl MessageShare {
    /// Whether a message of `payload` wire bytes owning `decoded` bytes fits.
    #[must_use]
    pub fn admits(&self, payload: u64, decoded: u64) -> bool {
        payload <= u64::from(self.max_payload) && decoded <= self.max_decoded
    }
}

/// The layers the child reports it applied (sent in its hello frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// Effective landlock ABI, `None` when landlock is unavailable.
    pub landlock_abi: Option<u32>,
    /// Landlock ruleset fully enforced at that ABI.
    pub landlock_full: bool,
    /// The seccomp allow-list is installed and kills on violation.
    pub seccomp: bool,
    /// Debug mode (`MCP_WARDEN_SECCOMP_LOG=1`): the filter only logs; `seccomp` is false.
    pub seccomp_log_only: bool,
    pub no_new_privs: bool,
    /// Every capability set verified empty.
    pub capabilities_dropped: bool,
    /// The uid the child runs as after a root parent dropped it, if it did.
    pub dropped_to_uid: Option<u32>,
}

impl Confinement {
    /// No layer at all (a platform without a kernel sandbox).
    #[must_use]
    pub fn none() -> Self {
        Confinement {
            landlock_abi: None,
            landlock_full: false,
            seccomp: false,
            seccomp_log_only: false,
            no_new_privs: false,
            capabilities_dropped: false,
            dropped_to_uid: None,
        }
    }
}

impl fmt::Display for Confinement {
    /// One line for doctor's header, e.g. `landlock ABI 7, seccomp, no capabilities`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.landlock_abi, self.landlock_full) {
            (Some(abi), true) => write!(f, "landlock ABI {abi}")?,
            (Some(abi), false) => write!(f, "landlock ABI {abi} (partial)")?,
            (None, _) => f.write_str("no landlock")?,
        }
        f.write_str(match (self.seccomp, self.seccomp_log_only) {
            (true, _) => ", seccomp",
            (false, true) => ", seccomp log-only (debug)",
            (false, false) => ", no seccomp",
        })?;
        if !self.no_new_privs {
            f.write_str(", no_new_privs unset")?;
        }
        f.write_str(if self.capabilities_dropped {
            ", no capabilities"
        } else {
            ", capabilities kept"
        })?;
        if let Some(uid) = self.dropped_to_uid {
            write!(f, ", uid {uid}")?;
        }
        Ok(())
    }
}

/// Everything the child sent, after a clean end marker and exit status 0 (or, with
/// [`Limits::keep_partial`], up to the moment it ran out of time or memory).
#[derive(Debug)]
pub struct ChildOutput<M> {
    pub confinement: Confinement,
    /// One line per missing layer that the policy accepted.
    pub warnings: Vec<String>,
    /// Complete, checked messages in the order sent.
    pub messages: Vec<M>,
    /// `None` after a clean end; with [`Limits::keep_partial`], why the child stopped
    /// before its end marker (the messages after the last one here were never sent).
    pub cut_short: Option<SandboxError>,
}

/// A message, or a part of one, as the child sent it ([`Sender::send_part_within`]).
#[derive(Debug)]
pub enum Delivery<M> {
    /// A part of the message of this index, ahead of the message that completes it.
    /// Parts of a message that never comes (the child stopped early) are the only ones
    /// a caller must discard: [`Exchanged::messages`] counts complete messages.
    Part(M),
    /// The message itself (after its parts, if it had any).
    Message(M),
}

/// How an exchange whose messages went to a sink ended.
#[derive(Debug)]
pub struct Exchanged {
    pub confinement: Confinement,
    /// One line per missing layer that the policy accepted.
    pub warnings: Vec<String>,
    /// Complete messages delivered.
    pub messages: usize,
    /// As [`ChildOutput::cut_short`].
    pub cut_short: Option<SandboxError>,
}

/// Run the parser child: re-exec this binary with [`CHILD_ARG`], hand it `files`
/// (descriptors the parent opened without reading), send `request`, and collect its
/// messages under `limits`. Fails closed on any misbehaviour of the child; a message
/// sent in parts is a protocol error here (see [`run_parser_with`]).
///
/// # Errors
/// Every way the exchange can fail has its own [`SandboxError`] variant; the child is
/// killed and reaped before the error is returned.
pub fn run_parser<Req: Serialize, Msg: DeserializeOwned>(
    request: &Req,
    files: Vec<OwnedFd>,
    limits: &Limits,
    policy: WeakSandboxPolicy,
) -> Result<ChildOutput<Msg>, SandboxError> {
    let mut messages = Vec::new();
    let exchanged = run_parser_with(request, files, limits, policy, &mut collect(&mut messages))?;
    Ok(exchanged.with(messages))
}

/// [`run_parser`], handing each message, and each part of a message sent in parts,
/// to `sink` as soon as it is decoded and checked (its index is the message's), so
/// the caller can work on an answer while the child is still producing the next.
/// The sink runs on the thread that drains the child's pipes, under the exchange's
/// deadline; an error from it ends the exchange (the child is killed) with that
/// error.
///
/// # Errors
/// As [`run_parser`], and whatever the sink returns.
pub fn run_parser_with<Req: Serialize, Msg: DeserializeOwned>(
    request: &Req,
    files: Vec<OwnedFd>,
    limits: &Limits,
    policy: WeakSandboxPolicy,
    sink: &mut dyn FnMut(usize, Delivery<Msg>) -> Result<(), SandboxError>,
) -> Result<Exchanged, SandboxError> {
    StartedParser::start()?.run_with(request, files, limits, policy, sink)
}

/// A parser child started before its files are known: its `execve` and start-up run
/// while the caller discovers and opens the files ([`StartedParser::run_with`] hands
/// them over). The child reads nothing and confines itself only once it has them.
/// Dropped unused, the child is killed and reaped.
pub struct StartedParser {
    spawned: Option<spawn::Spawned>,
}

impl StartedParser {
    /// Starts the parser child.
    ///
    /// # Errors
    /// As [`run_parser`], for what can fail before any file is handed over.
    pub fn start() -> Result<StartedParser, SandboxError> {
        Ok(StartedParser {
            spawned: Some(spawn::start(spawn::Role::Parser)?),
        })
    }

    /// [`run_parser_with`] on this child: hands it `files`, then runs the exchange.
    ///
    /// # Errors
    /// As [`run_parser_with`].
    pub fn run_with<Req: Serialize, Msg: DeserializeOwned>(
        mut self,
        request: &Req,
        files: Vec<OwnedFd>,
        limits: &Limits,
        policy: WeakSandboxPolicy,
        sink: &mut dyn FnMut(usize, Delivery<Msg>) -> Result<(), SandboxError>,
    ) -> Result<Exchanged, SandboxError> {
        let Some(spawned) = self.spawned.take() else {
            return Err(SandboxError::Protocol(
                "the parser child was already used".into(),
            ));
        };
        let spawned = spawn::hand_over(spawned, files)?;
        supervise::exchange(spawned, request, limits, policy, sink)
    }
}

impl Drop for StartedParser {
    fn drop(&mut self) {
        if let Some(spawned) = self.spawned.as_mut() {
            spawned.kill_and_reap();
        }
    }
}

/// A sink that keeps whole messages and refuses parts.
pub(crate) fn collect<Msg>(
    messages: &mut Vec<Msg>,
) -> impl FnMut(usize, Delivery<Msg>) -> Result<(), SandboxError> + '_ {
    move |_, delivery| match delivery {
        Delivery::Message(m) => {
            messages.push(m);
            Ok(())
        }
        Delivery::Part(_) => Err(SandboxError::Protocol(
            "a message in parts, which this exchange does not take".into(),
        )),
    }
}

impl Exchanged {
    pub(crate) fn with<Msg>(self, messages: Vec<Msg>) -> ChildOutput<Msg> {
        ChildOutput {
            confinement: self.confinement,
            warnings: self.warnings,
            messages,
            cut_short: self.cut_short,
        }
    }
}

/// What `message` costs a parent that receives it (payload bytes, decoded bytes), as
/// the parent measures it, within `share` (see [`Sender::send_within`]). For tests and
/// tools that size shares.
///
/// # Errors
/// The message cannot be encoded or does not decode.
pub fn message_cost<M: Serialize + DeserializeOwned>(
    message: &M,
    share: &MessageShare,
) -> Result<MessageCost, SandboxError> {
    let bytes = frame::encode(&frame::ChildFrame::Message(message))?;
    frame::message_cost::<M>(&bytes[frame::HEADER_LEN..], share)
}

/// Decode a complete child→parent byte stream exactly as [`run_parser`] checks a live
/// child's report (every frame, limit and protocol rule), without a process. For the
/// `frame` fuzz target and for tests; a value or an error, never a panic.
pub fn decode_report_stream<Msg: DeserializeOwned>(
    bytes: &[u8],
    limits: &Limits,
    policy: WeakSandboxPolicy,
) -> Result<ChildOutput<Msg>, SandboxError> {
    let mut messages = Vec::new();
    let exchanged = supervise::decode_stream(bytes, limits, policy, &mut collect(&mut messages))?;
    Ok(exchanged.with(messages))
}

/// [`decode_report_stream`] as [`run_parser_with`] checks a live child's report:
/// messages and their parts go to `sink`.
///
/// # Errors
/// As [`decode_report_stream`], and whatever the sink returns.
pub fn decode_report_stream_with<Msg: DeserializeOwned>(
    bytes: &[u8],
    limits: &Limits,
    policy: WeakSandboxPolicy,
    sink: &mut dyn FnMut(usize, Delivery<Msg>) -> Result<(), SandboxError>,
) -> Result<Exchanged, SandboxError> {
    supervise::decode_stream(bytes, limits, policy, sink)
}

/// The child's entry point (call from `main` when `argv[1]` is [`CHILD_ARG`]): sanitize
/// descriptors and environment, confine, send the hello, read the request, then call
/// `handle` with the request, the handed-over files (request order) and a sender.
/// Writes the end marker and exits; never returns.
///
/// `handle` runs under the seccomp filter: it may read its files, allocate, parse and
/// send, and nothing else (no printing to stdout, no opening, no threads).
pub fn serve_child<Req, F>(handle: F) -> !
where
    Req: DeserializeOwned,
    F: FnOnce(Req, Vec<File>, &mut Sender) -> Result<(), SandboxError>,
{
    let result = child::start().and_then(|start| {
        if start.positional.is_empty() {
            child::run(start, handle)
        } else {
            Err(SandboxError::confine(
                "argument check",
                "unexpected argument to the parser child",
            ))
        }
    });
    child::finish(result)
}

/// The seccomp allow-list as `(syscall, argument condition, reason)`, in table order,
/// for reviewers and tooling (the README's table is checked against the same data).
#[cfg(target_os = "linux")]
#[must_use]
pub fn seccomp_allow_list() -> Vec<(&'static str, &'static str, &'static str)> {
    confine::seccomp::ALLOWED
        .iter()
        .map(|a| (a.name, a.args.describe(), a.reason))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    fn full_no_uid_drop() -> Confinement {
        Confinement {
            dropped_to_uid: None,
            ..policy::tests::full()
        }
    }

    #[test]
    fn display_is_one_line() {
        let c = full_no_uid_drop();
        assert_eq!(c.to_string(), "landlock ABI 7, seccomp, no capabilities");
        assert_eq!(
            Confinement::none().to_string(),
            "no landlock, no seccomp, no_new_privs unset, capabilities kept"
        );
    }

    #[test]
    fn report_streams_decode_like_a_live_child() {
        let full = full_no_uid_drop();
        let mut bytes = Vec::new();
        for f in [
            frame::ChildFrame::<String>::Hello {
                version: PROTOCOL_VERSION,
                confinement: full.clone(),
            },
            frame::ChildFrame::Message("a".into()),
            frame::ChildFrame::End { count: 1 },
        ] {
            bytes.extend(frame::encode(&f).expect("encode"));
        }
        let limits = Limits::default();
        let out = decode_report_stream::<String>(&bytes, &limits, WeakSandboxPolicy::Default)
            .expect("valid stream");
        assert_eq!(out.messages, ["a"]);
        assert_eq!(out.confinement, full);
        // Every strict prefix is truncated, never a partial success.
        for cut in 0..bytes.len() {
            assert!(decode_report_stream::<String>(
                &bytes[..cut],
                &limits,
                WeakSandboxPolicy::Default
            )
            .is_err());
        }
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(
            decode_report_stream::<String>(&trailing, &limits, WeakSandboxPolicy::Default).is_err()
        );
    }

    /// What a sink saw: the message index, whether it was a part, the text.
    type Seen = Vec<(usize, bool, String)>;

    /// A stream of `frames` after a hello, and the deliveries a sink saw of it.
    fn delivered(
        frames: Vec<frame::ChildFrame<String>>,
        limits: &Limits,
    ) -> (Result<Exchanged, SandboxError>, Seen) {
        let mut bytes = frame::encode(&frame::ChildFrame::<String>::Hello {
            version: PROTOCOL_VERSION,
            confinement: full_no_uid_drop(),
        })
        .expect("encode");
        for f in frames {
            bytes.extend(frame::encode(&f).expect("encode"));
        }
        let mut seen = Vec::new();
        let out = decode_report_stream_with::<String>(
            &bytes,
            limits,
            WeakSandboxPolicy::Default,
            &mut |i, d| {
                seen.push(match d {
                    Delivery::Part(m) => (i, true, m),
                    Delivery::Message(m) => (i, false, m),
                });
                Ok(())
            },
        );
        (out, seen)
    }

    #[test]
    fn parts_reach_the_sink_in_order_and_count_as_their_message() {
        use frame::ChildFrame::{End, Message, Part};
        let (out, seen) = delivered(
            vec![
                Part("a".into()),
                Part("b".into()),
                Message("c".into()),
                Message("d".into()),
                End { count: 2 },
            ],
            &Limits::default(),
        );
        assert_eq!(out.expect("valid stream").messages, 2);
        let expected = [
            (0, true, "a"),
            (0, true, "b"),
            (0, false, "c"),
            (1, false, "d"),
        ];
        assert_eq!(
            seen,
            expected
                .iter()
                .map(|&(i, p, m)| (i, p, m.to_string()))
                .collect::<Vec<_>>()
        );
        // Parts whose message never comes are a broken protocol, not a message.
        let (out, _) = delivered(vec![Part("a".into()), End { count: 0 }], &Limits::default());
        assert!(matches!(out, Err(SandboxError::Protocol(_))), "{out:?}");
        // A live exchange that does not take parts refuses them.
        let mut bytes = Vec::new();
        for f in [
            frame::ChildFrame::<String>::Hello {
                version: PROTOCOL_VERSION,
                confinement: full_no_uid_drop(),
            },
            Part("a".into()),
            Message("b".into()),
            End { count: 1 },
        ] {
            bytes.extend(frame::encode(&f).expect("encode"));
        }
        assert!(matches!(
            decode_report_stream::<String>(&bytes, &Limits::default(), WeakSandboxPolicy::Default),
            Err(SandboxError::Protocol(_))
        ));
    }

    #[test]
    fn parts_and_their_message_share_one_share() {
        use frame::ChildFrame::{End, Message, Part};
        // Each frame is 1 tag byte + 1 length byte + the text.
        let share = MessageShare {
            max_payload: 30,
            max_decoded: 1 << 20,
        };
        let limits = Limits {
            message_shares: vec![share],
            ..Limits::default()
        };
        let ten = || "x".repeat(8);
        // Three frames of 10 bytes fit a 30-byte share...
        let (out, _) = delivered(
            vec![Part(ten()), Part(ten()), Message(ten()), End { count: 1 }],
            &limits,
        );
        assert_eq!(out.expect("within the share").messages, 1);
        // ...and a fourth byte over it is the child exceeding its share, whichever
        // frame carries it.
        let (out, _) = delivered(
            vec![
                Part(ten()),
                Part(ten()),
                Message("x".repeat(9)),
                End { count: 1 },
            ],
            &limits,
        );
        assert!(
            matches!(out, Err(SandboxError::MessageOverShare { index: 0, .. })),
            "{out:?}"
        );
        let (out, _) = delivered(
            vec![
                Part(ten()),
                Part(ten()),
                Part(ten()),
                Message(String::new()),
            ],
            &limits,
        );
        assert!(
            matches!(out, Err(SandboxError::MessageOverShare { index: 0, .. })),
            "{out:?}"
        );
        // Decoded bytes add up across parts too.
        let limits = Limits {
            message_shares: vec![MessageShare {
                max_payload: 1 << 20,
                max_decoded: 20,
            }],
            ..Limits::default()
        };
        let (out, _) = delivered(
            vec![Part(ten()), Part(ten()), Message(ten()), End { count: 1 }],
            &limits,
        );
        assert!(out.is_err(), "{out:?}");
    }
}
