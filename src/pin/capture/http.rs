//! Streamable HTTP transport: each client message is a POST; the answer is a
//! JSON body or an SSE stream; `Mcp-Session-Id` and `MCP-Protocol-Version`
//! ride along once the handshake set them.
//!
//! # Redirects
//!
//! A server at `…/mcp/` may answer `307` to `…/mcp`. Redirects are followed here,
//! not by the HTTP client, so that every hop is checked: at most
//! [`MAX_REDIRECTS`] per message, only to the same origin (scheme, host and port
//! of the configured URL, so the headers, which may carry credentials, never leave
//! it), never back to a URL already visited for that message. `307` and `308`
//! repeat the POST with its body; `301` and `302` repeat it too (HTTP lets a client
//! keep the method, and an MCP message means nothing as a GET); `303` is followed
//! with a GET, as HTTP defines it. After a `301` or `308` the new URL is used for
//! the messages that follow. A refused redirect names where it pointed, through
//! [`display_url`] and [`crate::text::redact`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::jsonrpc::{run_capture, Transport};
use super::{CaptureError, Limits, Surface};
use crate::text::mask::display_url;

/// Messages buffered from one HTTP response at most.
pub(crate) const MAX_QUEUED: usize = 10_000;

/// Redirects followed for one message at most.
pub const MAX_REDIRECTS: usize = 5;

/// `scheme://host:port`, lowercased, with the scheme's default port filled in.
fn origin(url: &str) -> Option<(String, String, u16)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = match (uri.port_u16(), scheme.as_str()) {
        (Some(p), _) => p,
        (None, "http") => 80,
        (None, "https") => 443,
        (None, _) => return None,
    };
    Some((scheme, host, port))
}

/// `location` resolved against `base` (absolute, scheme-relative, absolute-path or
/// relative-path reference; a fragment is dropped).
pub(crate) fn resolve_location(base: &str, location: &str) -> Option<String> {
    let location = location.trim();
    let location = location.split('#').next().unwrap_or_default();
    if location.is_empty() || location.contains(|c: char| c.is_ascii_control() || c == ' ') {
        return None;
    }
    let (scheme, rest) = base.split_once("://")?;
    if location.contains("://") {
        return Some(location.to_string());
    }
    if let Some(authority_and_path) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{authority_and_path}"));
    }
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let root = format!("{scheme}://{authority}");
    if location.starts_with('/') {
        return Some(format!("{root}{location}"));
    }
    let path = &rest[authority_end..];
    let path = path.split('?').next().unwrap_or_default();
    let dir = match path.rfind('/') {
        Some(i) => &path[..=i],
        None => "/",
    };
    if location.starts_with('?') {
        return Some(format!("{root}{path}{location}"));
    }
    Some(format!("{root}{dir}{location}"))
}

/// Why a redirect was not followed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RedirectRefusal {
    /// No usable `Location`.
    NoLocation,
    /// Another scheme, host or port than the configured URL.
    CrossOrigin(String),
    /// A URL already visited for this message.
    Loop(String),
    /// More than [`MAX_REDIRECTS`].
    TooMany(String),
}

impl RedirectRefusal {
    fn describe(&self, status: u16) -> String {
        let shown = |u: &str| crate::text::redact::display(&display_url(u)).into_owned();
        match self {
            RedirectRefusal::NoLocation => {
                format!("HTTP status {status} (a redirect without a usable Location)")
            }
            RedirectRefusal::CrossOrigin(to) => format!(
                "HTTP status {status} redirects to '{}', another origin: refused (the request's headers must not leave the configured origin; configure that URL instead if you trust it)",
                shown(to)
            ),
            RedirectRefusal::Loop(to) => format!(
                "HTTP status {status} redirects back to '{}': a redirect loop",
                shown(to)
            ),
            RedirectRefusal::TooMany(to) => format!(
                "HTTP status {status} redirects to '{}' after {MAX_REDIRECTS} redirects already: refused",
                shown(to)
            ),
        }
    }
}

/// The next hop of a redirect from `current` (the `visited` URLs included), or why
/// it is refused: same origin as `configured` only, no loop, at most
/// [`MAX_REDIRECTS`] hops.
pub(crate) fn next_hop(
    configured: &str,
    current: &str,
    location: Option<&str>,
    visited: &[String],
) -> Result<String, RedirectRefusal> {
    let to = location
        .and_then(|l| resolve_location(current, l))
        .ok_or(RedirectRefusal::NoLocation)?;
    match (origin(configured), origin(&to)) {
        (Some(a), Some(b)) if a == b => {}
        _ => return Err(RedirectRefusal::CrossOrigin(to)),
    }
    if to == current || visited.contains(&to) {
        return Err(RedirectRefusal::Loop(to));
    }
    if visited.len() > MAX_REDIRECTS {
        return Err(RedirectRefusal::TooMany(to));
    }
    Ok(to)
}

struct HttpTransport<'a> {
    agent: ureq::Agent,
    /// The configured endpoint (the origin every redirect must stay on).
    configured: &'a str,
    /// Where messages go: the configured URL, or where a permanent redirect moved it.
    url: String,
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
            display_url(self.configured),
            self.timeout.as_secs_f64()
        ))
    }

    fn failure(&self, why: impl std::fmt::Display) -> CaptureError {
        CaptureError::new(format!(
            "Failed to capture MCP server at '{}': {why}",
            display_url(self.configured)
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

impl HttpTransport<'_> {
    /// One request of a message: the POST, or a GET after a `303`.
    fn request(
        &self,
        target: &str,
        as_get: bool,
        body: &[u8],
        left: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, CaptureError> {
        macro_rules! with_headers {
            ($req:expr) => {{
                let mut req = $req.header("Accept", "application/json, text/event-stream");
                for (k, v) in self.headers {
                    req = req.header(k.as_str(), v.as_str());
                }
                if let Some(id) = &self.session_id {
                    req = req.header("Mcp-Session-Id", id.as_str());
                }
                if let Some(v) = &self.protocol_version {
                    req = req.header("MCP-Protocol-Version", v.as_str());
                }
                req.config()
                    .timeout_global(Some(left))
                    .http_status_as_error(false)
                    .build()
            }};
        }
        let sent = if as_get {
            with_headers!(self.agent.get(target)).call()
        } else {
            with_headers!(self
                .agent
                .post(target)
                .header("Content-Type", "application/json"))
            .send(body)
        };
        sent.map_err(|e| match e {
            ureq::Error::Timeout(_) => self.timeout_error(),
            other => self.failure(other),
        })
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
        let mut target = self.url.clone();
        let mut visited: Vec<String> = vec![target.clone()];
        let mut as_get = false;
        let resp = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.timeout_error());
            }
            let resp = self.request(&target, as_get, &body, left)?;
            let status = resp.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                break resp;
            }
            let location = resp.headers().get("location").and_then(|v| v.to_str().ok());
            let next = next_hop(self.configured, &target, location, &visited)
                .map_err(|why| self.failure(why.describe(status)))?;
            if status == 303 {
                as_get = true;
            }
            if matches!(status, 301 | 308) && !as_get && target == self.url {
                self.url = next.clone();
            }
            visited.push(next.clone());
            target = next;
        };
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
        // Redirects are followed by `send`, which checks each hop's origin.
        .max_redirects(0)
        .build()
        .into();
    let mut t = HttpTransport {
        agent,
        configured: url,
        url: url.to_string(),
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
        let mut req = t
            .agent
            .delete(t.url.as_str())
            .header("Mcp-Session-Id", id.as_str());
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

    #[test]
    fn redirects_stay_on_the_configured_origin_and_are_bounded() {
        use super::{next_hop, resolve_location, RedirectRefusal as R};
        let base = "https://h.example/mcp/";
        assert_eq!(
            resolve_location(base, "/mcp").as_deref(),
            Some("https://h.example/mcp")
        );
        assert_eq!(
            resolve_location("https://h.example/a/b?x=1", "c").as_deref(),
            Some("https://h.example/a/c")
        );
        assert_eq!(
            resolve_location(base, "//other.example/mcp").as_deref(),
            Some("https://other.example/mcp")
        );
        assert_eq!(resolve_location(base, "\r\nX: y"), None);
        let hop = |current: &str, to: &str, visited: &[&str]| {
            let visited: Vec<String> = visited.iter().map(|v| v.to_string()).collect();
            next_hop(base, current, Some(to), &visited)
        };
        assert_eq!(
            hop(base, "/mcp", &[base]),
            Ok("https://h.example/mcp".into())
        );
        // Default ports and case do not make another origin.
        assert!(hop(base, "HTTPS://H.EXAMPLE:443/x", &[base]).is_ok());
        for to in [
            "http://h.example/mcp",
            "https://h.example:8443/mcp",
            "https://evil.example/mcp",
            "//evil.example/mcp",
            "https://h.example.evil.example/mcp",
            "https://h.example@evil.example/mcp",
            "ftp://h.example/mcp",
        ] {
            assert!(
                matches!(hop(base, to, &[base]), Err(R::CrossOrigin(_))),
                "{to}"
            );
        }
        assert!(matches!(
            hop(
                "https://h.example/mcp",
                "/mcp/",
                &[base, "https://h.example/mcp"]
            ),
            Err(R::Loop(_))
        ));
        assert!(matches!(hop(base, base, &[base]), Err(R::Loop(_))));
        assert_eq!(next_hop(base, base, None, &[]), Err(R::NoLocation));
        let many: Vec<String> = (0..6).map(|i| format!("https://h.example/{i}")).collect();
        assert!(matches!(
            next_hop(base, &many[5], Some("/next"), &many),
            Err(R::TooMany(_))
        ));
        // A refusal names where it pointed, without the credential it carried.
        let why =
            R::CrossOrigin("https://u:pw@evil.example/p?api_key=s3cretvalue1".into()).describe(307);
        assert!(why.contains("evil.example"), "{why}");
        assert!(!why.contains("s3cret") && !why.contains("pw@"), "{why}");
    }
}
