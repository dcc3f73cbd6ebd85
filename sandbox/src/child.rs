//! The child side: sanitize, confine, greet, read the request, run the handler, end.
//!
//! The child trusts its parent (the parent created it and chose its descriptors) and
//! distrusts its input. Nothing here reads a byte of input before [`confine`] returned.
//! Every failure ends the process through [`finish`]: one line on stderr, a non-zero
//! `_exit`, never a silent continuation.

use std::ffi::OsString;
use std::fs::File;
use std::io::Write;

use nix::unistd::{self, Pid};
use serde::{de::DeserializeOwned, Serialize};

use crate::frame::{self, ChildFrame, PROTOCOL_VERSION};
use crate::sys::{self, FIRST_FILE_FD};
use crate::{Confinement, MessageShare, SandboxError};

/// The only extra argument the parent may add: build the seccomp filter in log mode.
pub(crate) const SECCOMP_LOG_FLAG: &str = "--seccomp-log";

/// Most descriptors that can be handed over: every discovered config plus up to 1,000
/// lock files fit. The parent raises its own soft RLIMIT_NOFILE to make room to open
/// them; the child's confinement sets its limit to room for this many
/// (`confine/rlimits.rs`), since it confines itself before it knows how many come.
pub(crate) const MAX_FILES: usize = 2048;

/// Largest request frame the child accepts.
const MAX_REQUEST_LEN: u32 = 64 << 20;

/// Exit status of a panicking child (as with Rust's default, but without a backtrace).
pub(crate) const PANIC_EXIT: i32 = 101;

/// What the first statements established.
pub(crate) struct Start {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    parent: Pid,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    seccomp_log: bool,
    /// Non-flag arguments after `argv[1]` (the probe name of a selftest child).
    pub(crate) positional: Vec<OsString>,
}

/// The first statements of the child, before anything else:
/// a panic hook that cannot turn into SIGSYS, the descriptor table reduced to the fixed
/// layout, an empty environment, and the parent's pid recorded.
pub(crate) fn start() -> Result<Start, SandboxError> {
    // A panic writes one fixed line and `_exit(101)`s. The default hook could capture a
    // backtrace (getcwd, readlink, openat on /proc/self/maps: SIGSYS under the filter).
    std::panic::set_hook(Box::new(|info| {
        sys::write_stderr(b"mcp-warden child: panicked");
        if let Some(loc) = info.location() {
            sys::write_stderr(format!(" at {}:{}", loc.file(), loc.line()).as_bytes());
        }
        sys::write_stderr(b"\n");
        sys::exit_now(PANIC_EXIT);
    }));

    // The parent placed only 3 and 4 and marked everything above close-on-exec; close
    // anything from 5 up (runtime leftovers included). The handed files come later,
    // over the request socket, once the child is confined (`run`).
    sys::close_fds_from(FIRST_FILE_FD).map_err(|e| SandboxError::confine("close_range", e))?;

    // The parent used env_clear; clear again so no variable (RUST_BACKTRACE, MALLOC_*,
    // GLIBC_TUNABLES, LD_*) can matter even if a future caller forgets. Single-threaded.
    for (key, _) in std::env::vars_os() {
        std::env::remove_var(key);
    }

    let mut seccomp_log = false;
    let mut positional = Vec::new();
    for arg in std::env::args_os().skip(2) {
        if arg == SECCOMP_LOG_FLAG {
            seccomp_log = true;
        } else if arg.to_string_lossy().starts_with('-') {
            return Err(SandboxError::confine(
                "argument check",
                format!("unknown flag {}", arg.to_string_lossy()),
            ));
        } else {
            positional.push(arg);
        }
    }
    Ok(Start {
        parent: unistd::getppid(),
        seccomp_log,
        positional,
    })
}

#[cfg(target_os = "linux")]
fn confine(start: &Start) -> Result<Confinement, SandboxError> {
    let most_files =
        i32::try_from(MAX_FILES).map_err(|_| SandboxError::confine("rlimits", "fd count"))?;
    crate::confine::apply(&crate::confine::Options {
        highest_fd: FIRST_FILE_FD - 1 + most_files,
        parent: start.parent,
        seccomp_log: start.seccomp_log,
    })
}

#[cfg(not(target_os = "linux"))]
fn confine(_start: &Start) -> Result<Confinement, SandboxError> {
    // No kernel sandbox exists here: the child is only a separate process. The parent's
    // policy refuses this unless the user allows a weak sandbox.
    Ok(Confinement::none())
}

/// What a message type declares so that [`Sender::send_within`] can bound its decoded
/// size without decoding it.
pub trait WireSlots {
    /// The most bytes the parent's decoder charges per byte of the message's encoding:
    /// at least, for every sequence element, map key and map value type it holds at
    /// any depth, that type's `size_of` over the fewest bytes its own encoding takes
    /// (without its string text, charged a byte a byte, and without the elements of
    /// its own sequences, charged on their own).
    const DECODED_PER_BYTE: u64;
}

/// Sends payload messages from the child to the parent.
///
/// Writes are blocking: the parent drains the pipe concurrently, and a parent that
/// stopped reading has killed us or will at its deadline.
pub struct Sender {
    out: File,
    count: u64,
    /// What the parts sent so far of the message in progress cost (payload bytes,
    /// decoded bytes at most): charged to that message's share.
    parts: (u64, u64),
}

/// What a part must leave of its message's share for the message that completes it
/// (payload bytes, decoded bytes): room for an error answer at least.
const PART_RESERVE: (u64, u64) = (16 << 10, 64 << 10);

impl Sender {
    /// Sends one message as one frame.
    ///
    /// # Errors
    /// The message cannot be encoded, or the report pipe is closed.
    pub fn send<M: Serialize>(&mut self, message: &M) -> Result<(), SandboxError> {
        self.write(&ChildFrame::Message(message))?;
        self.count += 1;
        self.parts = (0, 0);
        Ok(())
    }

    /// Sends one message as one frame if it fits `share` (less what its parts took),
    /// as the parent will check it. If it does not fit, nothing is sent and
    /// [`SandboxError::ShareExceeded`] comes back, so the handler can send a smaller
    /// answer (an error naming the input, say) in its place.
    ///
    /// Whether it fits is known without decoding when the frame is small against the
    /// share: the decoded value owns at most `payload × DECODED_PER_BYTE` bytes
    /// ([`WireSlots`]). Otherwise the frame is decoded here by the parent's
    /// own decoder, under the same budget ([`crate::decoded_bound`] and
    /// `share.max_decoded`), before it is written. (Decoding a large answer again only
    /// to measure it was a fifth of the parser child's time.)
    ///
    /// # Errors
    /// [`SandboxError::ShareExceeded`]; otherwise as for [`Sender::send`].
    pub fn send_within<M: Serialize + DeserializeOwned + WireSlots>(
        &mut self,
        message: &M,
        share: &MessageShare,
    ) -> Result<(), SandboxError> {
        let bytes = frame::encode(&ChildFrame::Message(message))?;
        self.charge::<M>(&bytes, &self.left_of(share, (0, 0)))?;
        self.write_bytes(&bytes)?;
        self.count += 1;
        self.parts = (0, 0);
        Ok(())
    }

    /// Sends `part` ahead of the message it belongs to (the next one sent with
    /// [`Sender::send_within`] under the same `share`), if it fits what the share has
    /// left after the parts before it, with room to spare for that message. The parent
    /// receives it as it arrives ([`crate::Delivery::Part`]).
    ///
    /// # Errors
    /// [`SandboxError::ShareExceeded`] (nothing was sent: send the rest, or an answer
    /// that replaces the parts, as the message); otherwise as for [`Sender::send`].
    pub fn send_part_within<M: Serialize + DeserializeOwned + WireSlots>(
        &mut self,
        part: &M,
        share: &MessageShare,
    ) -> Result<(), SandboxError> {
        let bytes = frame::encode(&ChildFrame::Part(part))?;
        let cost = self.charge::<M>(&bytes, &self.left_of(share, PART_RESERVE))?;
        self.write_bytes(&bytes)?;
        self.parts = (
            self.parts.0.saturating_add(cost.payload),
            self.parts.1.saturating_add(cost.decoded),
        );
        Ok(())
    }

    /// What `share` has left for the next frame of the message in progress, keeping
    /// `reserve` back.
    fn left_of(&self, share: &MessageShare, reserve: (u64, u64)) -> MessageShare {
        let payload = u64::from(share.max_payload)
            .saturating_sub(self.parts.0)
            .saturating_sub(reserve.0);
        MessageShare {
            max_payload: u32::try_from(payload).unwrap_or(u32::MAX),
            max_decoded: share
                .max_decoded
                .saturating_sub(self.parts.1)
                .saturating_sub(reserve.1),
        }
    }

    /// The cost of the encoded frame `bytes` (prefix included) if it fits `left`: its
    /// payload bytes and its decoded bytes, or their upper bound when the bound alone
    /// shows that it fits.
    fn charge<M: DeserializeOwned + WireSlots>(
        &self,
        bytes: &[u8],
        left: &MessageShare,
    ) -> Result<frame::MessageCost, SandboxError> {
        let payload = &bytes[frame::HEADER_LEN..];
        let len = u64::try_from(payload.len()).unwrap_or(u64::MAX);
        let most = len.saturating_mul(M::DECODED_PER_BYTE.max(1));
        let surely_fits = len <= u64::from(left.max_payload) && most <= left.max_decoded;
        if surely_fits && !cfg!(debug_assertions) {
            return Ok(frame::MessageCost {
                payload: len,
                decoded: most,
            });
        }
        let cost = frame::message_cost::<M>(payload, left)?;
        // Every debug run checks the bound the release build relies on.
        debug_assert!(
            !surely_fits || cost.decoded <= most,
            "a message decoded to {} bytes, above its {most}-byte bound: \
             WireSlots::DECODED_PER_BYTE is too small",
            cost.decoded
        );
        if !left.admits(cost.payload, cost.decoded) {
            return Err(SandboxError::ShareExceeded {
                payload: cost.payload,
                decoded: cost.decoded,
                max_payload: u64::from(left.max_payload),
                max_decoded: left.max_decoded.min(crate::decoded_bound(payload.len())),
            });
        }
        // The same charge as a release build makes, so both builds send alike.
        Ok(frame::MessageCost {
            payload: len,
            decoded: if surely_fits { most } else { cost.decoded },
        })
    }

    fn write<M: Serialize>(&mut self, frame: &ChildFrame<M>) -> Result<(), SandboxError> {
        let bytes = frame::encode(frame)?;
        self.write_bytes(&bytes)
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SandboxError> {
        self.out
            .write_all(bytes)
            .map_err(SandboxError::child_io("write to the report pipe"))
    }
}

/// Confines, greets, reads the request and runs `handle`; the common body of the parser
/// child and of the selftest probes.
pub(crate) fn run<Req, F>(start: Start, handle: F) -> Result<(), SandboxError>
where
    Req: DeserializeOwned,
    F: FnOnce(Req, Vec<File>, &mut Sender) -> Result<(), SandboxError>,
{
    // Confined first, while the parent is still finding the files: every layer is in
    // place before a handed descriptor exists in this process, and the confinement's
    // time overlaps the parent's discovery instead of following it.
    let confinement = confine(&start)?;
    // The handed files land on 5, 6, … without gaps (`handover.rs`); the receive
    // is the filter's `recvmsg` on descriptor 3.
    let files = crate::handover::receive_files(sys::REQUEST_FD, MAX_FILES)
        .map_err(|e| SandboxError::confine("descriptor handover", e))?;
    // Taking ownership checks the descriptors are open (fcntl(F_GETFD)).
    let fds =
        sys::adopt_child_fds(files).map_err(|e| SandboxError::confine("descriptor layout", e))?;
    let mut sender = Sender {
        out: File::from(fds.report),
        count: 0,
        parts: (0, 0),
    };
    sender.write(&ChildFrame::<()>::Hello {
        version: PROTOCOL_VERSION,
        confinement,
    })?;

    // The parent sends the request only after it accepted the hello.
    let mut request_pipe = File::from(fds.request);
    let request: Req = frame::read_frame(&mut request_pipe, MAX_REQUEST_LEN)?
        .ok_or_else(|| SandboxError::Protocol("the parent sent no request".into()))?;
    drop(request_pipe);

    let files = fds.files.into_iter().map(File::from).collect();
    handle(request, files, &mut sender)?;
    let count = sender.count;
    sender.write(&ChildFrame::<()>::End { count })
}

/// Ends the child: status 0, or one line on stderr and status 1.
pub(crate) fn finish(result: Result<(), SandboxError>) -> ! {
    match result {
        Ok(()) => sys::exit_now(0),
        Err(e) => {
            sys::write_stderr(format!("mcp-warden child: {e}\n").as_bytes());
            sys::exit_now(1)
        }
    }
}
