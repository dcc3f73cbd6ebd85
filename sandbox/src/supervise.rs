//! Parent side, supervision: the exchange with a child treated as compromised.
//!
//! One `poll` loop over the report pipe, the stderr pipe and (once the hello is accepted)
//! the non-blocking request socket, under one deadline for the whole exchange. Both pipes
//! are drained until end of file *before* the child is reaped, so a report larger than a
//! pipe buffer cannot deadlock. Any misbehaviour ends in a distinct [`SandboxError`], and
//! the child is killed and reaped on every error path. Nothing half-read is returned:
//! success needs a hello accepted by the policy, an end marker whose count matches, no
//! byte after it, and exit status 0 — or, when the caller asked for it
//! (`Limits::keep_partial`), a child that ran out of time, CPU or memory after its
//! hello: then the complete messages that arrived before are returned with the reason.
//!
//! Each message is held to its share (`Limits::message_shares`): the length prefix
//! against the payload share before anything is allocated, the decoded value against
//! the decoded share (and the frame's own `decoded_bound`) while it is decoded, and all
//! messages together against `max_decoded_bytes`.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStderr, ExitStatus};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use serde::{de::DeserializeOwned, Serialize};

use crate::error::sanitize_excerpt;
use crate::frame::{self, ChildFrame, FrameReader, HEADER_LEN, PROTOCOL_VERSION};
use crate::spawn::Spawned;
use crate::{
    policy, Confinement, Delivery, Exchanged, Limits, MessageShare, SandboxError, WeakSandboxPolicy,
};

/// Largest payload of an `End` frame (tag and a `u64` varint), allowed after any message
/// whatever that message's share.
const END_FRAME_MAX: u32 = 16;

/// Bytes of the child's stderr kept (the rest is read and dropped so the child never
/// blocks on a full pipe).
const STDERR_CAP: usize = 64 << 10;
/// One read from a pipe.
const CHUNK: usize = 64 << 10;

/// Where each message (and each part of one) goes as soon as it is decoded: the
/// index of the message it belongs to, and the message or part.
pub(crate) type Sink<'s, Msg> = &'s mut dyn FnMut(usize, Delivery<Msg>) -> Result<(), SandboxError>;

/// Runs the whole exchange with a spawned child, handing each message to `sink` as
/// it arrives.
pub(crate) fn exchange<Req: Serialize, Msg: DeserializeOwned>(
    spawned: Spawned,
    request: &Req,
    limits: &Limits,
    policy: WeakSandboxPolicy,
    sink: Sink<'_, Msg>,
) -> Result<Exchanged, SandboxError> {
    let Spawned {
        child,
        request: request_fd,
        report,
        stderr,
        placement: _placement,
    } = spawned;
    let mut sup = Supervisor {
        child,
        stderr_buf: Vec::new(),
        deadline: Instant::now() + limits.timeout,
        timeout: limits.timeout,
        partial: None,
    };
    let pumped = frame::encode(request).and_then(|bytes| {
        sup.pump(
            Pipes {
                request: Some(File::from(request_fd)),
                report: File::from(report),
                stderr,
            },
            bytes,
            limits,
            policy,
            sink,
        )
    });
    match pumped {
        Ok(stream) => sup.conclude(stream, limits),
        Err(e) => {
            sup.kill();
            match sup.partial.take() {
                Some(stream) if limits.keep_partial && e.is_exhaustion() => stream.cut_short(e),
                _ => Err(e),
            }
        }
    }
}

struct Pipes {
    request: Option<File>,
    report: File,
    stderr: ChildStderr,
}

/// What has arrived on the report pipe.
struct Stream {
    frames: FrameReader,
    hello: Option<(Confinement, Vec<String>)>,
    /// Complete messages received.
    messages: usize,
    /// What the parts received of the message in progress cost (payload bytes,
    /// decoded bytes), charged to its share; `None` before its first part.
    parts: Option<(u64, u64)>,
    total_bytes: u64,
    decoded_left: u64,
    ended: bool,
}

impl Stream {
    fn new(limits: &Limits) -> Self {
        Stream {
            frames: FrameReader::new(limits.max_frame_len),
            hello: None,
            messages: 0,
            parts: None,
            total_bytes: 0,
            decoded_left: limits.max_decoded_bytes,
            ended: false,
        }
    }

    /// The exchange so far when the child stopped early, and why it stopped.
    fn cut_short(self, reason: SandboxError) -> Result<Exchanged, SandboxError> {
        match self.hello {
            Some((confinement, warnings)) if !self.ended => Ok(Exchanged {
                confinement,
                warnings,
                messages: self.messages,
                cut_short: Some(reason),
            }),
            _ => Err(reason),
        }
    }
}

struct Supervisor {
    child: Child,
    stderr_buf: Vec<u8>,
    deadline: Instant,
    timeout: Duration,
    /// The stream when pumping stopped with an error, for `Limits::keep_partial`.
    partial: Option<Stream>,
}

fn set_nonblocking(fd: impl AsFd) -> Result<(), SandboxError> {
    fcntl(fd, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))
        .map(drop)
        .map_err(|e| SandboxError::parent_io("fcntl(O_NONBLOCK)")(e.into()))
}

impl Supervisor {
    fn remaining(&self) -> Result<Duration, SandboxError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(SandboxError::Timeout {
                after: self.timeout,
            })
        } else {
            Ok(left)
        }
    }

    /// Moves bytes until both the report and the stderr pipe reached end of file. On
    /// an error, what arrived so far is left in `self.partial`.
    fn pump<Msg: DeserializeOwned>(
        &mut self,
        pipes: Pipes,
        request: Vec<u8>,
        limits: &Limits,
        policy: WeakSandboxPolicy,
        sink: Sink<'_, Msg>,
    ) -> Result<Stream, SandboxError> {
        let mut stream = Stream::new(limits);
        let pumped = self.pump_into(&mut stream, pipes, request, limits, policy, sink);
        match pumped {
            Ok(()) => Ok(stream),
            Err(e) => {
                self.partial = Some(stream);
                Err(e)
            }
        }
    }

    fn pump_into<Msg: DeserializeOwned>(
        &mut self,
        stream: &mut Stream,
        mut pipes: Pipes,
        request: Vec<u8>,
        limits: &Limits,
        policy: WeakSandboxPolicy,
        sink: Sink<'_, Msg>,
    ) -> Result<(), SandboxError> {
        set_nonblocking(&pipes.report)?;
        set_nonblocking(&pipes.stderr)?;
        if let Some(r) = &pipes.request {
            set_nonblocking(r)?;
        }
        let mut sent = 0usize;
        let (mut report_open, mut stderr_open) = (true, true);
        let mut chunk = vec![0u8; CHUNK];
        let ready = PollFlags::POLLIN | PollFlags::POLLHUP | PollFlags::POLLERR;

        while report_open || stderr_open {
            let timeout = PollTimeout::try_from(self.remaining()?).unwrap_or(PollTimeout::MAX);
            // The request goes out only after the hello was accepted by the policy.
            let writing = stream.hello.is_some() && pipes.request.is_some();
            let (report_ready, stderr_ready, request_ready) = {
                let mut fds = Vec::with_capacity(3);
                if report_open {
                    fds.push(PollFd::new(pipes.report.as_fd(), PollFlags::POLLIN));
                }
                if stderr_open {
                    fds.push(PollFd::new(pipes.stderr.as_fd(), PollFlags::POLLIN));
                }
                if let (true, Some(r)) = (writing, &pipes.request) {
                    fds.push(PollFd::new(r.as_fd(), PollFlags::POLLOUT));
                }
                match poll(&mut fds, timeout) {
                    Ok(_) => {}
                    Err(Errno::EINTR) => continue,
                    Err(e) => return Err(SandboxError::parent_io("poll")(e.into())),
                }
                let mut revents = fds
                    .iter()
                    .map(|f| f.revents().unwrap_or(PollFlags::empty()));
                let report_ready =
                    report_open && revents.next().is_some_and(|r| r.intersects(ready));
                let stderr_ready =
                    stderr_open && revents.next().is_some_and(|r| r.intersects(ready));
                let request_ready = writing && revents.next().is_some_and(|r| !r.is_empty());
                (report_ready, stderr_ready, request_ready)
            };

            if stderr_ready {
                match pipes.stderr.read(&mut chunk) {
                    Ok(0) => stderr_open = false,
                    Ok(n) => {
                        let room = STDERR_CAP.saturating_sub(self.stderr_buf.len());
                        self.stderr_buf.extend_from_slice(&chunk[..n.min(room)]);
                    }
                    Err(e) if is_retry(&e) => {}
                    Err(e) => return Err(SandboxError::parent_io("read child stderr")(e)),
                }
            }
            if report_ready {
                match pipes.report.read(&mut chunk) {
                    Ok(0) => {
                        report_open = false;
                        if stream.ended && stream.frames.pending() > 0 {
                            return Err(SandboxError::Protocol(
                                "bytes after the end marker".into(),
                            ));
                        }
                    }
                    Ok(n) => {
                        stream.frames.push(&chunk[..n]);
                        stream.drain(limits, policy, &mut *sink)?;
                    }
                    Err(e) if is_retry(&e) => {}
                    Err(e) => return Err(SandboxError::parent_io("read the report pipe")(e)),
                }
            }
            if request_ready {
                if let Some(pipe) = pipes.request.as_mut() {
                    match pipe.write(&request[sent..]) {
                        Ok(n) => sent += n,
                        Err(e) if is_retry(&e) => {}
                        // The child closed its end or died; its exit status tells why.
                        Err(e) if e.kind() == ErrorKind::BrokenPipe => sent = request.len(),
                        Err(e) => return Err(SandboxError::parent_io("write the request")(e)),
                    }
                }
                if sent >= request.len() {
                    // Closing our end lets the child see end of file after the request.
                    pipes.request = None;
                }
            }
        }
        Ok(())
    }

    /// Both pipes are at end of file: reap the child and give the verdict.
    fn conclude(mut self, stream: Stream, limits: &Limits) -> Result<Exchanged, SandboxError> {
        let status = match self.wait() {
            Ok(status) => status,
            Err(e) if limits.keep_partial && e.is_exhaustion() => return stream.cut_short(e),
            Err(e) => return Err(e),
        };
        let stderr = sanitize_excerpt(&self.stderr_buf);
        if let Some(signal) = status.signal() {
            let e = SandboxError::Killed { signal, stderr };
            if limits.keep_partial && e.is_exhaustion() {
                return stream.cut_short(e);
            }
            return Err(e);
        }
        match status.code() {
            Some(0) => {}
            Some(code) => return Err(SandboxError::Exited { code, stderr }),
            None => return Err(SandboxError::Exited { code: -1, stderr }),
        }
        match (stream.hello, stream.ended) {
            (Some((confinement, warnings)), true) => Ok(Exchanged {
                confinement,
                warnings,
                messages: stream.messages,
                cut_short: None,
            }),
            _ => Err(SandboxError::Truncated { stderr }),
        }
    }

    /// Waits for the exit within the deadline; kills on timeout.
    fn wait(&mut self) -> Result<ExitStatus, SandboxError> {
        let mut nap = Duration::from_micros(20);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(e) => {
                    self.kill();
                    return Err(SandboxError::parent_io("waitpid")(e));
                }
            }
            let left = match self.remaining() {
                Ok(left) => left,
                Err(e) => {
                    self.kill();
                    return Err(e);
                }
            };
            std::thread::sleep(nap.min(left));
            nap = (nap * 2).min(Duration::from_millis(5));
        }
    }

    /// SIGKILL and reap; errors are moot (the child may already be gone).
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_retry(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

impl Stream {
    /// What is left of the next message's share (after its parts), if the caller gave
    /// one.
    fn next_share(&self, limits: &Limits) -> Option<MessageShare> {
        let share = limits.message_shares.get(self.messages).copied()?;
        let (payload, decoded) = self.parts.unwrap_or((0, 0));
        Some(MessageShare {
            max_payload: u32::try_from(u64::from(share.max_payload).saturating_sub(payload))
                .unwrap_or(0),
            max_decoded: share.max_decoded.saturating_sub(decoded),
        })
    }

    /// Accepts every complete frame buffered so far. Each frame's length prefix is
    /// checked against the limit for the frame that can come next: the hello, then
    /// either the next message or a part of it (what its share has left) or the end
    /// marker.
    fn drain<Msg: DeserializeOwned>(
        &mut self,
        limits: &Limits,
        policy: WeakSandboxPolicy,
        sink: Sink<'_, Msg>,
    ) -> Result<(), SandboxError> {
        loop {
            let share = self.next_share(limits).filter(|_| self.hello.is_some());
            let max = match share {
                Some(s) => s.max_payload.min(limits.max_frame_len).max(END_FRAME_MAX),
                None => limits.max_frame_len,
            };
            self.frames.set_max(max);
            let payload = match self.frames.next_payload() {
                Ok(Some(p)) => p,
                Ok(None) => return Ok(()),
                Err(SandboxError::FrameTooLarge { len, max }) if share.is_some() => {
                    return Err(SandboxError::MessageOverShare {
                        index: self.messages,
                        len,
                        max,
                    })
                }
                Err(e) => return Err(e),
            };
            self.accept(&payload, share, limits, policy, &mut *sink)?;
        }
    }

    /// Checks one complete frame against the protocol and the limits, and hands a
    /// message or part to the sink.
    fn accept<Msg: DeserializeOwned>(
        &mut self,
        payload: &[u8],
        share: Option<MessageShare>,
        limits: &Limits,
        policy: WeakSandboxPolicy,
        sink: Sink<'_, Msg>,
    ) -> Result<(), SandboxError> {
        let len = u64::try_from(payload.len()).unwrap_or(u64::MAX);
        self.total_bytes = self
            .total_bytes
            .saturating_add(u64::try_from(HEADER_LEN).unwrap_or(0) + len);
        if self.total_bytes > limits.max_total_bytes {
            return Err(SandboxError::TooManyBytes {
                max: limits.max_total_bytes,
            });
        }
        if self.ended {
            return Err(SandboxError::Protocol(
                "a frame after the end marker".into(),
            ));
        }
        // A message with a share is held to what is left of it: the share is sized
        // from the file the parent opened, which an honest answer cannot outgrow,
        // whether it comes whole or in parts. Other frames (hello, end, an exchange
        // without shares) are held to the frame's own bound.
        let max_decoded = share
            .map_or_else(|| frame::decoded_bound(payload.len()), |s| s.max_decoded)
            .min(self.decoded_left);
        let (decoded, spent) = frame::decode_within::<ChildFrame<Msg>>(payload, max_decoded)?;
        match decoded {
            ChildFrame::Hello {
                version,
                confinement,
            } => {
                if self.hello.is_some() {
                    return Err(SandboxError::Protocol("a second hello".into()));
                }
                if version != PROTOCOL_VERSION {
                    return Err(SandboxError::VersionMismatch {
                        got: version,
                        expected: PROTOCOL_VERSION,
                    });
                }
                let warnings = policy::evaluate(&confinement, policy)?;
                self.hello = Some((confinement, warnings));
            }
            _ if self.hello.is_none() => {
                return Err(SandboxError::Protocol(
                    "the first frame was not a hello".into(),
                ));
            }
            ChildFrame::Message(m) | ChildFrame::Part(m)
                if self.messages >= limits.max_messages =>
            {
                drop(m);
                return Err(SandboxError::TooManyMessages {
                    max: limits.max_messages,
                });
            }
            ChildFrame::Message(m) => {
                self.check_share(len, share)?;
                self.decoded_left = self.decoded_left.saturating_sub(spent);
                let index = self.messages;
                self.messages += 1;
                self.parts = None;
                sink(index, Delivery::Message(m))?;
            }
            ChildFrame::Part(m) => {
                self.check_share(len, share)?;
                self.decoded_left = self.decoded_left.saturating_sub(spent);
                let (payload, decoded) = self.parts.unwrap_or((0, 0));
                self.parts = Some((payload.saturating_add(len), decoded.saturating_add(spent)));
                sink(self.messages, Delivery::Part(m))?;
            }
            ChildFrame::End { count } => {
                if self.parts.is_some() {
                    return Err(SandboxError::Protocol(
                        "parts of a message that never came".into(),
                    ));
                }
                let received = u64::try_from(self.messages).unwrap_or(u64::MAX);
                if count != received {
                    return Err(SandboxError::CountMismatch {
                        announced: count,
                        received,
                    });
                }
                self.ended = true;
            }
        }
        Ok(())
    }

    /// A message or part shorter than an end marker passed the prefix check under the
    /// end marker's allowance: hold it to what its share has left.
    fn check_share(&self, len: u64, share: Option<MessageShare>) -> Result<(), SandboxError> {
        match share {
            Some(s) if len > u64::from(s.max_payload) => Err(SandboxError::MessageOverShare {
                index: self.messages,
                len,
                max: u64::from(s.max_payload),
            }),
            _ => Ok(()),
        }
    }
}

/// Decodes a complete report stream with exactly the checks the supervisor applies to
/// a live child (frame limits, hello first, policy, message and byte limits, end
/// count, nothing after the end), minus the process handling. It exists so the
/// decoder can be fuzzed and tested on bytes alone.
pub(crate) fn decode_stream<Msg: DeserializeOwned>(
    bytes: &[u8],
    limits: &Limits,
    policy: WeakSandboxPolicy,
    sink: Sink<'_, Msg>,
) -> Result<Exchanged, SandboxError> {
    let mut stream = Stream::new(limits);
    // Fed in bounded chunks, as reads from the pipe would arrive.
    for chunk in bytes.chunks(CHUNK) {
        stream.frames.push(chunk);
        stream.drain(limits, policy, &mut *sink)?;
    }
    if stream.frames.pending() > 0 {
        return Err(SandboxError::Truncated {
            stderr: String::new(),
        });
    }
    match (stream.hello, stream.ended) {
        (Some((confinement, warnings)), true) => Ok(Exchanged {
            confinement,
            warnings,
            messages: stream.messages,
            cut_short: None,
        }),
        _ => Err(SandboxError::Truncated {
            stderr: String::new(),
        }),
    }
}
