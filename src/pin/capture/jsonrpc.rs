//! The transport-independent half of a capture: JSON-RPC 2.0 requests and
//! responses, the initialize handshake, and cursor pagination.

use std::time::Instant;

use serde_json::{json, Map, Value};

use super::normalize;
use super::{CaptureError, Limits, Surface};

/// The protocol version we ask for.
pub const CLIENT_PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions a server may answer with (the ones the spec defines for initialize).
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// JSON-RPC "Method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Unrelated messages (notifications, server requests, stray responses) tolerated
/// while waiting for one answer; a server that floods them is refused.
const MAX_STRAY_MESSAGES: usize = 10_000;

/// A message pipe to one server.
pub trait Transport {
    /// Send one message. `expect` is the id of the request it carries, so a
    /// streaming transport knows when the answer has arrived.
    fn send(
        &mut self,
        msg: &Value,
        expect: Option<u64>,
        deadline: Instant,
    ) -> Result<(), CaptureError>;
    /// The next message from the server.
    fn recv(&mut self, deadline: Instant) -> Result<Value, CaptureError>;
    /// Told once the handshake settled the version (HTTP sends it as a header).
    fn set_protocol_version(&mut self, _version: &str) {}
}

/// A JSON-RPC error object from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// A client session over a transport.
pub struct Session<'a, T: Transport> {
    transport: &'a mut T,
    next_id: u64,
    deadline: Instant,
}

fn rpc_error(v: &Value) -> RpcError {
    let code = v.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = v
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("(no message)");
    // Bound what we keep of server text.
    let message: String = message.chars().take(500).collect();
    RpcError { code, message }
}

impl<'a, T: Transport> Session<'a, T> {
    pub fn new(transport: &'a mut T, deadline: Instant) -> Self {
        Session {
            transport,
            next_id: 0,
            deadline,
        }
    }

    /// Send a request and wait for its response.
    pub fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Result<Value, RpcError>, CaptureError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = Map::new();
        msg.insert("jsonrpc".into(), json!("2.0"));
        msg.insert("id".into(), json!(id));
        msg.insert("method".into(), json!(method));
        if let Some(p) = params {
            msg.insert("params".into(), p);
        }
        self.transport
            .send(&Value::Object(msg), Some(id), self.deadline)?;
        let mut stray = 0usize;
        loop {
            let incoming = self.transport.recv(self.deadline)?;
            if let Some(answer) = self.dispatch(&incoming, id)? {
                return Ok(answer);
            }
            stray += 1;
            if stray > MAX_STRAY_MESSAGES {
                return Err(CaptureError::new(format!(
                    "protocol error: more than {MAX_STRAY_MESSAGES} unrelated messages while waiting for {method}"
                )));
            }
        }
    }

    /// Handle one incoming message; `Some` when it answers request `id`.
    fn dispatch(
        &mut self,
        msg: &Value,
        id: u64,
    ) -> Result<Option<Result<Value, RpcError>>, CaptureError> {
        let Value::Object(m) = msg else {
            return Err(CaptureError::new(
                "protocol error: the server sent a JSON value that is not a JSON-RPC message",
            ));
        };
        if let Some(method) = m.get("method") {
            if let Some(req_id) = m.get("id") {
                // A server-initiated request (sampling, roots, elicitation…): we
                // offer no client features, so answer "method not found".
                let _ = method;
                let reply = json!({
                    "jsonrpc": "2.0",
                    "id": req_id,
                    "error": {"code": METHOD_NOT_FOUND, "message": "Method not found"}
                });
                self.transport.send(&reply, None, self.deadline)?;
            }
            // Notifications (logging, progress, list_changed) are ignored.
            return Ok(None);
        }
        let matches = m.get("id").and_then(Value::as_u64) == Some(id);
        if !matches {
            // A response to something we did not ask (or a batch leftover).
            return Ok(None);
        }
        if let Some(err) = m.get("error") {
            return Ok(Some(Err(rpc_error(err))));
        }
        match m.get("result") {
            Some(r) => Ok(Some(Ok(r.clone()))),
            None => Err(CaptureError::new(
                "protocol error: a response carries neither result nor error",
            )),
        }
    }

    /// Send a notification.
    pub fn notify(&mut self, method: &str) -> Result<(), CaptureError> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        self.transport.send(&msg, None, self.deadline)
    }
}

/// Which sections the server declared in its capabilities. Missing or
/// malformed capabilities count as declared so failures fail closed.
fn declared(init: &Value) -> [bool; 3] {
    match init.get("capabilities") {
        Some(Value::Object(c)) => {
            ["tools", "resources", "prompts"].map(|k| c.get(k).is_some_and(|v| !v.is_null()))
        }
        _ => [true; 3],
    }
}

fn next_cursor(result: &Value) -> Option<String> {
    ["nextCursor", "next_cursor"].iter().find_map(|k| {
        result
            .get(*k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    })
}

/// Every page of one list method. `None` when the section is not supported
/// (undeclared and "method not found" on the first page).
fn list_all<T: Transport>(
    session: &mut Session<'_, T>,
    method: &str,
    key: &str,
    declared: bool,
    limits: &Limits,
) -> Result<Vec<Value>, CaptureError> {
    let first = match session.request(method, None)? {
        Ok(r) => r,
        Err(e) if !declared && e.code == METHOD_NOT_FOUND => return Ok(Vec::new()),
        Err(e) => {
            let state = if declared { "declared" } else { "undeclared" };
            return Err(CaptureError::new(format!(
                "{method} failed for a {state} capability: {e}"
            )));
        }
    };
    let mut items = Vec::new();
    let mut take = |result: &Value, page: usize| -> Result<Option<String>, CaptureError> {
        let arr = result.get(key).and_then(Value::as_array).ok_or_else(|| {
            CaptureError::new(format!(
                "{method}: page {page} has no '{key}' array; refusing to pin a partial surface"
            ))
        })?;
        if items.len() + arr.len() > limits.max_items {
            return Err(CaptureError::new(format!(
                "{method}: more than {} items; refusing to pin",
                limits.max_items
            )));
        }
        items.extend(arr.iter().cloned());
        Ok(next_cursor(result))
    };
    let mut cursor = take(&first, 1)?;
    let mut page = 1usize;
    while let Some(c) = cursor {
        page += 1;
        if page > limits.max_pages {
            return Err(CaptureError::new(format!(
                "{method}: cursor chain exceeded {} pages; refusing to pin a surface that never terminates",
                limits.max_pages
            )));
        }
        let result = match session.request(method, Some(json!({"cursor": c})))? {
            Ok(r) => r,
            Err(e) => {
                return Err(CaptureError::new(format!(
                    "{method}: page {page} failed after a partial surface: {e}"
                )))
            }
        };
        cursor = take(&result, page)?;
    }
    Ok(items)
}

/// Run the whole capture over a connected transport. `command`/`args`/`url`
/// identify the server in the returned surface.
pub fn run_capture<T: Transport>(
    transport: &mut T,
    deadline: Instant,
    limits: &Limits,
) -> Result<Surface, CaptureError> {
    let mut session = Session::new(transport, deadline);
    let params = json!({
        "protocolVersion": CLIENT_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-warden", "version": env!("CARGO_PKG_VERSION")}
    });
    let init = match session.request("initialize", Some(params))? {
        Ok(r) => r,
        Err(e) => return Err(CaptureError::new(format!("initialize failed: {e}"))),
    };
    if !init.is_object() {
        return Err(CaptureError::new(
            "protocol error: the initialize result is not an object",
        ));
    }
    let version = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version.as_str()) {
        let shown: String = version.chars().take(64).collect();
        return Err(CaptureError::new(format!(
            "Unsupported protocol version from the server: '{shown}'"
        )));
    }
    session.transport.set_protocol_version(&version);
    session.notify("notifications/initialized")?;
    let [dt, dr, dp] = declared(&init);

    let tools = list_all(&mut session, "tools/list", "tools", dt, limits)?;
    let resources = list_all(&mut session, "resources/list", "resources", dr, limits)?;
    let prompts = list_all(&mut session, "prompts/list", "prompts", dp, limits)?;

    let surface = Surface {
        command: String::new(),
        args: Vec::new(),
        url: None,
        protocol_version: version,
        tools: tools
            .iter()
            .enumerate()
            .map(|(i, t)| normalize::tool(t).map_err(|e| item_error("tools/list", i, &e)))
            .collect::<Result<_, _>>()?,
        resources: resources
            .iter()
            .enumerate()
            .map(|(i, r)| normalize::resource(r).map_err(|e| item_error("resources/list", i, &e)))
            .collect::<Result<_, _>>()?,
        prompts: prompts
            .iter()
            .enumerate()
            .map(|(i, p)| normalize::prompt(p).map_err(|e| item_error("prompts/list", i, &e)))
            .collect::<Result<_, _>>()?,
    };
    normalize::reject_duplicates(&surface)?;
    Ok(surface)
}

fn item_error(method: &str, index: usize, why: &str) -> CaptureError {
    CaptureError::new(format!(
        "{method}: item {index} is not a valid declaration ({why}); refusing to pin"
    ))
}
