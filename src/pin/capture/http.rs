//! Streamable HTTP transport: each client message is a POST; the answer is a
//! JSON body or an SSE stream; `Mcp-Session-Id` and `MCP-Protocol-Version`
//! ride along once the handshake set them.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::jsonrpc::{run_capture, Transport};
use super::{CaptureError, Limits, Surface};
use crate::text::mask::display_url;

/// Messages buffered from one HTTP response at most.
pub(crate) const MAX_QUEUED: usize = 10_000;

struct HttpTransport<'a> {
    agent: ureq::Agent,
    url: &'a str,
    headers: &'a [(String, String)],
    session_id: Option<String>,
    protocol_version: Option<String>,
    queue: VecDeque<Value>,
    max_bytes: usize,
    timeout: Duration,
}

impl HttpTransport<'_> {
    fn timeout_error(&self) -> CaptureError {
        CaptureError::new(format!(
            "MCP server at '{}' did not complete the handshake within {:.0}s (it may be unreachable or hung).",
            display_url(self.url),
            self.timeout.as_secs_f64()
        ))
    }

    fn failure(&self, why: impl std::fmt::Display) -> CaptureError {
        CaptureError::new(format!(
            "Failed to capture MCP server at '{}': {why}",
            display_url(self.url)
        ))
    }

    fn enqueue(&mut self, v: Value) {
        enqueue(&mut self.queue, v);
    }

    /// Read SSE events until the answer to `expect` arrived or the stream ends.
    fn read_sse(
        &mut self,
        body: impl Read,
        expect: Option<u64>,
        deadline: Instant,
    ) -> Result<(), CaptureError> {
        read_sse_events(body, self.max_bytes, expect, deadline, &mut self.queue).map_err(|stop| {
            match stop {
                SseStop::TimedOut => self.timeout_error(),
                SseStop::Failed(why) => self.failure(why),
            }
        })
    }
}

/// A batch is queued message by message.
fn enqueue(queue: &mut VecDeque<Value>, v: Value) {
    match v {
        Value::Array(items) => queue.extend(items),
        other => queue.push_back(other),
    }
}

/// Whether `v` (a message or a batch) answers request `id`.
fn answers(v: &Value, id: u64) -> bool {
    let is = |m: &Value| {
        m.get("id").and_then(Value::as_u64) == Some(id)
            && (m.get("result").is_some() || m.get("error").is_some())
    };
    match v {
        Value::Array(items) => items.iter().any(is),
        other => is(other),
    }
}

/// Why an SSE body was not read to its end or to the expected answer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SseStop {
    /// The deadline passed.
    TimedOut,
    /// The stream broke a limit, was not JSON, or could not be read.
    Failed(String),
}

/// Read the server-sent events of one response body into `queue` until the answer to
/// `expect` arrived or the body ends. Everything here comes from the server, so it is
/// bounded: a line or an event holds at most `max_bytes`, the body at most four times
/// that, and at most [`MAX_QUEUED`] messages are buffered. Only `data:` lines carry
/// anything; `event:`, `id:`, `retry:` and comments are skipped. The `mcp_message`
/// fuzz target drives this with arbitrary bodies.
pub(crate) fn read_sse_events(
    body: impl Read,
    max_bytes: usize,
    expect: Option<u64>,
    deadline: Instant,
    queue: &mut VecDeque<Value>,
) -> Result<(), SseStop> {
    let mut reader = BufReader::new(body);
    let mut data = String::new();
    let mut line = Vec::new();
    // One response may carry several events, but not without end.
    let budget = (max_bytes as u64).saturating_mul(4);
    let mut total: u64 = 0;
    loop {
        if Instant::now() >= deadline {
            return Err(SseStop::TimedOut);
        }
        line.clear();
        // Bounded line read: never more than one message's worth.
        let n = (&mut reader)
            .take(max_bytes as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| {
                // ureq reports its deadline as an I/O error from the body reader.
                let near_deadline =
                    deadline.saturating_duration_since(Instant::now()) < Duration::from_millis(250);
                if e.kind() == std::io::ErrorKind::TimedOut || near_deadline {
                    SseStop::TimedOut
                } else {
                    SseStop::Failed(e.to_string())
                }
            })?;
        if n == 0 {
            return Ok(());
        }
        total = total.saturating_add(n as u64);
        if total > budget || queue.len() > MAX_QUEUED {
            return Err(SseStop::Failed(format!(
                "an SSE response exceeded {budget} bytes or {MAX_QUEUED} events"
            )));
        }
        if line.len() > max_bytes || data.len() + line.len() > max_bytes {
            return Err(SseStop::Failed(format!(
                "an SSE event is larger than {max_bytes} bytes"
            )));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text.is_empty() {
            if !data.is_empty() {
                let v: Value = serde_json::from_str(&data).map_err(|e| {
                    SseStop::Failed(format!("protocol error: an SSE event is not JSON ({e})"))
                })?;
                data.clear();
                let done = expect.is_some_and(|id| answers(&v, id));
                enqueue(queue, v);
                if done {
                    return Ok(());
                }
            }
            continue;
        }
        if let Some(rest) = text.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        }
        // `event:`, `id:`, `retry:` and comments carry nothing we need.
    }
}

impl Transport for HttpTransport<'_> {
    fn send(
        &mut self,
        msg: &Value,
        expect: Option<u64>,
        deadline: Instant,
    ) -> Result<(), CaptureError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timeout_error());
        }
        let body = serde_json::to_vec(msg).map_err(|e| self.failure(e))?;
        let mut req = self
            .agent
            .post(self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (k, v) in self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        if let Some(id) = &self.session_id {
            req = req.header("Mcp-Session-Id", id.as_str());
        }
        if let Some(v) = &self.protocol_version {
            req = req.header("MCP-Protocol-Version", v.as_str());
        }
        let req = req
            .config()
            .timeout_global(Some(left))
            .http_status_as_error(false)
            .build();
        let resp = req.send(&body[..]).map_err(|e| match e {
            ureq::Error::Timeout(_) => self.timeout_error(),
            other => self.failure(other),
        })?;
        let status = resp.status().as_u16();
        if let Some(id) = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            if id.len() <= 1024 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                self.session_id = Some(id.to_string());
            }
        }
        if status == 202 || status == 204 {
            return Ok(());
        }
        if !(200..300).contains(&status) {
            return Err(self.failure(format!("HTTP status {status}")));
        }
        let ctype = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let body = resp.into_body();
        if ctype.starts_with("text/event-stream") {
            let reader = body.into_reader();
            return self.read_sse(reader, expect, deadline);
        }
        let bytes = body
            .into_with_config()
            .limit(self.max_bytes as u64)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::Timeout(_) => self.timeout_error(),
                other => self.failure(other),
            })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| self.failure(format!("protocol error: the response is not JSON ({e})")))?;
        self.enqueue(v);
        Ok(())
    }

    fn recv(&mut self, _deadline: Instant) -> Result<Value, CaptureError> {
        self.queue.pop_front().ok_or_else(|| {
            self.failure("protocol error: the server's response ended without an answer")
        })
    }

    fn set_protocol_version(&mut self, version: &str) {
        self.protocol_version = Some(version.to_string());
    }
}

/// Connect and capture.
pub fn capture(
    url: &str,
    headers: &[(String, String)],
    limits: &Limits,
) -> Result<Surface, CaptureError> {
    let deadline = Instant::now() + limits.timeout;
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(CaptureError::new(format!(
            "--url must be an http:// or https:// URL (got '{}')",
            display_url(url)
        )));
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        // A redirect could carry our headers somewhere else: refuse to follow.
        .max_redirects(0)
        .build()
        .into();
    let mut t = HttpTransport {
        agent,
        url,
        headers,
        session_id: None,
        protocol_version: None,
        queue: VecDeque::new(),
        max_bytes: limits.max_message_bytes,
        timeout: limits.timeout,
    };
    let result = run_capture(&mut t, deadline, limits);
    if let Some(id) = t.session_id.clone() {
        // Best effort: tell the server the session is over.
        let mut req = t.agent.delete(url).header("Mcp-Session-Id", id.as_str());
        for (k, v) in headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let _ = req
            .config()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .call();
    }
    let mut s = result?;
    s.url = Some(url.to_string());
    Ok(s)
}

#[cfg(test)]
mod tests {
    fn sse(body: &str, max: usize) -> (Result<(), super::SseStop>, Vec<serde_json::Value>) {
        let mut queue = std::collections::VecDeque::new();
        let far = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let r = super::read_sse_events(body.as_bytes(), max, Some(1), far, &mut queue);
        (r, queue.into_iter().collect())
    }

    #[test]
    fn sse_events_stop_at_the_answer_and_skip_what_carries_nothing() {
        let body = ": comment\nevent: message\nid: 7\ndata: {\"method\":\"n\"}\n\n\
                    data: {\"id\":1,\r\ndata: \"result\":{}}\n\ndata: {\"id\":2}\n\n";
        let (r, q) = sse(body, 1024);
        assert_eq!(r, Ok(()));
        // Multi-line data joins with LF; reading stops after the answer to id 1.
        assert_eq!(
            q,
            vec![
                serde_json::json!({"method": "n"}),
                serde_json::json!({"id": 1, "result": {}})
            ]
        );
        // A batch is queued message by message.
        let (_, q) = sse("data: [{\"a\":1},{\"b\":2}]\n\n", 1024);
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn sse_limits_and_garbage_are_reasons_not_panics() {
        let (r, _) = sse(&format!("data: {}\n\n", "1".repeat(100)), 64);
        assert!(matches!(r, Err(super::SseStop::Failed(w)) if w.contains("larger than 64 bytes")));
        let (r, _) = sse("data: {not json\n\n", 1024);
        assert!(matches!(r, Err(super::SseStop::Failed(w)) if w.contains("not JSON")));
        let many = "data: 1\n\n".repeat(100);
        let (r, _) = sse(&many, 64);
        assert!(matches!(r, Err(super::SseStop::Failed(w)) if w.contains("exceeded 256 bytes")));
        // A body that ends without a blank line leaves the partial event unread.
        assert_eq!(sse("data: {}", 64), (Ok(()), vec![]));
    }
}
