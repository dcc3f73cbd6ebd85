//! stdio transport: spawn the server from an argv (never a shell) in its own
//! process group, talk newline-delimited JSON-RPC over its stdin/stdout, keep a
//! bounded tail of its stderr, and always end the whole group.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::Value;

use super::jsonrpc::{run_capture, Transport};
use super::{CaptureError, Limits, Surface};

/// Environment variables passed through from ours (the MCP SDK's POSIX default).
pub const INHERITED_ENV: [&str; 6] = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
/// Lines on stdout that are not JSON tolerated (banners, stray logging).
const MAX_GARBAGE_LINES: usize = 64;
/// Grace period after closing stdin, and after SIGTERM.
const GRACE: Duration = Duration::from_secs(2);

enum Event {
    Message(Value),
    Garbage,
    TooLarge,
    Eof,
}

/// Tail buffer for the server's stderr.
struct Tail {
    buf: Vec<u8>,
    cap: usize,
}

impl Tail {
    fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
        if self.buf.len() > self.cap.saturating_mul(2) {
            let cut = self.buf.len() - self.cap;
            self.buf.drain(..cut);
        }
    }
    fn text(&self) -> String {
        let start = self.buf.len().saturating_sub(self.cap);
        String::from_utf8_lossy(&self.buf[start..]).into_owned()
    }
}

struct StdioTransport {
    child: Child,
    pgid: Pid,
    /// Lines for the writer thread; dropping it closes the server's stdin.
    stdin: Option<Sender<Vec<u8>>>,
    rx: Receiver<Event>,
    stderr: Arc<Mutex<Tail>>,
    garbage: usize,
    max_bytes: usize,
    finished: Option<Option<ExitStatus>>,
}

fn read_lines(out: impl Read, tx: std::sync::mpsc::SyncSender<Event>, max: usize) {
    let mut reader = BufReader::with_capacity(64 * 1024, out);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let (consumed, done) = match reader.fill_buf() {
            Ok([]) => {
                // EOF: a last unterminated line is still a message.
                if !line.is_empty() {
                    let _ = tx.send(parse_line(&line));
                }
                let _ = tx.send(Event::Eof);
                return;
            }
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    line.extend_from_slice(&buf[..i]);
                    (i + 1, true)
                }
                None => {
                    line.extend_from_slice(buf);
                    (buf.len(), false)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => {
                let _ = tx.send(Event::Eof);
                return;
            }
        };
        reader.consume(consumed);
        if line.len() > max {
            let _ = tx.send(Event::TooLarge);
            return;
        }
        if done {
            let ev = parse_line(&line);
            line.clear();
            if tx.send(ev).is_err() {
                return;
            }
        }
    }
}

fn parse_line(line: &[u8]) -> Event {
    let trimmed = line.strip_suffix(b"\r").unwrap_or(line);
    if trimmed.iter().all(u8::is_ascii_whitespace) {
        // Blank lines carry nothing; `null` is skipped by the receiver.
        return Event::Message(Value::Null);
    }
    match serde_json::from_slice::<Value>(trimmed) {
        Ok(v) => Event::Message(v),
        Err(_) => Event::Garbage,
    }
}

fn describe(status: Option<ExitStatus>) -> String {
    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            _ => "unknown status".to_string(),
        },
        None => "still running".to_string(),
    }
}

impl StdioTransport {
    fn stderr_text(&self) -> Option<String> {
        let text = self.stderr.lock().map(|t| t.text()).unwrap_or_default();
        (!text.trim().is_empty()).then_some(text)
    }

    /// Has the leader exited? On Linux this does not reap it, so the process
    /// group id stays reserved until we have signalled the whole group.
    fn leader_exited(&mut self) -> bool {
        #[cfg(target_os = "linux")]
        {
            use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
            matches!(
                waitid(
                    Id::Pid(self.pgid),
                    WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT
                ),
                Ok(status) if status != WaitStatus::StillAlive
            )
        }
        #[cfg(not(target_os = "linux"))]
        {
            matches!(self.child.try_wait(), Ok(Some(_)))
        }
    }

    fn wait_exit(&mut self, grace: Duration) -> bool {
        let end = Instant::now() + grace;
        loop {
            if self.leader_exited() {
                return true;
            }
            if Instant::now() >= end {
                return false;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Close stdin, give the server 2 s, SIGTERM the group, 2 s, SIGKILL the
    /// group; reap the leader. Idempotent. Returns the leader's exit status.
    fn finish(&mut self) -> Option<ExitStatus> {
        if let Some(done) = self.finished {
            return done;
        }
        drop(self.stdin.take());
        if self.pgid.as_raw() <= 1 {
            // Never signal our own group (0) or init (1); cannot happen for a
            // spawned child, but a wrong id here would be catastrophic.
            let status = self.child.wait().ok();
            self.finished = Some(status);
            return status;
        }
        if !self.wait_exit(GRACE) {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            if !self.wait_exit(GRACE) {
                let _ = killpg(self.pgid, Signal::SIGKILL);
            }
        }
        // Whatever the leader did, nothing it started may outlive the capture.
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let status = self.child.wait().ok();
        self.finished = Some(status);
        status
    }

    fn exited_early(&mut self, command: &str) -> CaptureError {
        // Give a crashing server a moment to finish writing stderr and exit.
        let _ = self.wait_exit(Duration::from_millis(500));
        let status = self.finish();
        let mut e = CaptureError::new(format!(
            "MCP server '{command}' exited before completing the capture ({})",
            describe(status)
        ));
        e.stderr = self.stderr_text();
        e
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.finish();
    }
}

struct Wire<'a> {
    t: StdioTransport,
    command: &'a str,
    timeout: Duration,
}

impl Wire<'_> {
    fn timeout_error(&mut self) -> CaptureError {
        let mut e = CaptureError::new(format!(
            "MCP server '{}' did not complete the handshake within {:.0}s (it may be hung or waiting on input).",
            self.command,
            self.timeout.as_secs_f64()
        ));
        self.t.finish();
        e.stderr = self.t.stderr_text();
        e
    }
}

impl Transport for Wire<'_> {
    fn send(
        &mut self,
        msg: &Value,
        _expect: Option<u64>,
        _deadline: Instant,
    ) -> Result<(), CaptureError> {
        let mut line = serde_json::to_vec(msg).map_err(|e| CaptureError::new(e.to_string()))?;
        line.push(b'\n');
        // Never block here: a server that stops reading its stdin must not stall
        // us past the deadline. The writer thread does the blocking write; it
        // ends (and the channel disconnects) when the pipe breaks.
        let sent = match self.t.stdin.as_ref() {
            Some(tx) => tx.send(line).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            Err(self.t.exited_early(self.command))
        }
    }

    fn recv(&mut self, deadline: Instant) -> Result<Value, CaptureError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.timeout_error());
            }
            match self.t.rx.recv_timeout(left) {
                Ok(Event::Message(Value::Null)) => continue,
                Ok(Event::Message(v)) => return Ok(v),
                Ok(Event::Garbage) => {
                    self.t.garbage += 1;
                    if self.t.garbage > MAX_GARBAGE_LINES {
                        self.t.finish();
                        let mut e = CaptureError::new(format!(
                            "protocol error: MCP server '{}' wrote more than {MAX_GARBAGE_LINES} lines to stdout that are not JSON-RPC messages",
                            self.command
                        ));
                        e.stderr = self.t.stderr_text();
                        return Err(e);
                    }
                }
                Ok(Event::TooLarge) => {
                    self.t.finish();
                    return Err(CaptureError::new(format!(
                        "protocol error: MCP server '{}' sent a message larger than {} bytes",
                        self.command, self.t.max_bytes
                    )));
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.t.exited_early(self.command))
                }
                Err(RecvTimeoutError::Timeout) => return Err(self.timeout_error()),
            }
        }
    }
}

/// The child's environment: the inherited minimum, then the caller's pairs.
pub fn child_env(extra: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = INHERITED_ENV
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
        // Exported shell functions are never passed on (the SDK's rule).
        .filter(|(_, v)| !v.starts_with("()"))
        .collect();
    for (k, v) in extra {
        env.retain(|(ek, _)| ek != k);
        env.push((k.clone(), v.clone()));
    }
    env
}

/// Spawn and capture.
pub fn capture(
    argv: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
    limits: &Limits,
) -> Result<Surface, CaptureError> {
    let deadline = Instant::now() + limits.timeout;
    let Some((command, args)) = argv.split_first() else {
        return Err(CaptureError::new("no server command provided"));
    };
    let mut cmd = Command::new(command);
    cmd.args(args)
        .env_clear()
        .envs(child_env(env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Own process group: the whole tree can be signalled at once.
        .process_group(0);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            CaptureError::new(format!("MCP server command not found: '{command}' ({e})."))
        }
        _ => CaptureError::new(format!("Failed to capture MCP server '{command}': {e}")),
    })?;
    let pgid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let stdin_pipe = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr_pipe = child.stderr.take();
    let (tx, rx) = sync_channel(64);
    let tail = Arc::new(Mutex::new(Tail {
        buf: Vec::new(),
        cap: limits.max_stderr_bytes,
    }));
    let (stdin_tx, stdin_rx) = channel::<Vec<u8>>();
    let transport = StdioTransport {
        child,
        pgid,
        stdin: Some(stdin_tx),
        rx,
        stderr: Arc::clone(&tail),
        garbage: 0,
        max_bytes: limits.max_message_bytes,
        finished: None,
    };
    let (Some(stdout), Some(mut stdin_pipe)) = (stdout, stdin_pipe) else {
        return Err(CaptureError::new(
            "could not attach to the server's stdin/stdout",
        ));
    };
    thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || {
            // Ends when the channel closes (we are done: stdin is closed by the
            // drop) or when the server's stdin breaks.
            for line in stdin_rx {
                if stdin_pipe
                    .write_all(&line)
                    .and_then(|()| stdin_pipe.flush())
                    .is_err()
                {
                    return;
                }
            }
        })
        .map_err(|e| CaptureError::new(format!("could not start a writer thread: {e}")))?;
    let max = limits.max_message_bytes;
    thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || read_lines(stdout, tx, max))
        .map_err(|e| CaptureError::new(format!("could not start a reader thread: {e}")))?;
    if let Some(mut err) = stderr_pipe {
        let _ = thread::Builder::new()
            .name("mcp-stderr".into())
            .spawn(move || {
                let mut chunk = [0u8; 8192];
                loop {
                    match err.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            if let Ok(mut t) = tail.lock() {
                                t.push(&chunk[..n]);
                            }
                        }
                    }
                }
            });
    }
    let mut wire = Wire {
        t: transport,
        command,
        timeout: limits.timeout,
    };
    let result = run_capture(&mut wire, deadline, limits);
    // Shut down before returning either way (Drop would too; this keeps the
    // order explicit and the stderr text complete).
    let stderr_text = {
        wire.t.finish();
        wire.t.stderr_text()
    };
    match result {
        Ok(mut s) => {
            s.command = command.clone();
            s.args = args.to_vec();
            Ok(s)
        }
        Err(mut e) => {
            if e.stderr.is_none() {
                e.stderr = stderr_text;
            }
            Err(e)
        }
    }
}
