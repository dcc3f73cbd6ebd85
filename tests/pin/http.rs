//! Streamable HTTP capture against a tiny loopback server in a test thread:
//! SSE and JSON answers, session id, and user headers with `$VAR` expansion.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{read_json, run, tempdir};

struct Req {
    method: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn read_req(stream: &mut TcpStream) -> Option<Req> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let method = line.split_whitespace().next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end().to_string();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len.min(1 << 20)];
    reader.read_exact(&mut body).ok()?;
    Some(Req {
        method,
        headers,
        body,
    })
}

fn respond(stream: &mut TcpStream, status: &str, ctype: &str, extra: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

/// Serve MCP on 127.0.0.1 until `max_conns` connections or 30 s; record each
/// request's (method, authorization, session id).
fn serve(log: Arc<Mutex<Vec<(String, String, String)>>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(30);
        let mut served = 0;
        while Instant::now() < end && served < 50 {
            let Ok((mut s, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            served += 1;
            let _ = s.set_nonblocking(false);
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let Some(req) = read_req(&mut s) else {
                continue;
            };
            let get = |k: &str| {
                req.headers
                    .iter()
                    .find(|(h, _)| h == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            let msg: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            let method = msg["method"].as_str().unwrap_or(&req.method).to_string();
            if let Ok(mut l) = log.lock() {
                l.push((method.clone(), get("authorization"), get("mcp-session-id")));
            }
            if get("authorization") != "Bearer s3cret" {
                respond(&mut s, "401 Unauthorized", "text/plain", "", "no");
                continue;
            }
            let id = msg["id"].clone();
            match method.as_str() {
                "initialize" => {
                    let result = json!({"jsonrpc": "2.0", "id": id, "result": {
                        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "loopback", "version": "1"}}});
                    let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}});
                    let body =
                        format!("event: message\ndata: {note}\n\n: comment\ndata: {result}\n\n");
                    respond(
                        &mut s,
                        "200 OK",
                        "text/event-stream",
                        "Mcp-Session-Id: sess-1\r\n",
                        &body,
                    );
                }
                "tools/list" => {
                    let result = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                        {"name": "fetch_page", "description": "Fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}}]}});
                    respond(
                        &mut s,
                        "200 OK",
                        "application/json",
                        "",
                        &result.to_string(),
                    );
                }
                "resources/list" | "prompts/list" => {
                    let err = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}});
                    respond(&mut s, "200 OK", "application/json", "", &err.to_string());
                }
                _ => respond(&mut s, "202 Accepted", "text/plain", "", ""),
            }
        }
    });
    port
}

#[test]
fn pin_over_streamable_http_on_loopback() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let port = serve(Arc::clone(&log));
    let url = format!("http://127.0.0.1:{port}/mcp");
    let tmp = tempdir();
    let r = run(
        &[
            "pin",
            "--url",
            &url,
            "--header",
            "Authorization: Bearer ${MCPW_TEST_TOKEN}",
            "--lock",
            "h.lock",
        ],
        tmp.path(),
        &[("MCPW_TEST_TOKEN", "s3cret")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lock = read_json(&tmp.path().join("h.lock"));
    assert_eq!(lock["server"]["url"], json!(url));
    assert_eq!(lock["server"]["command"], json!(""));
    assert_eq!(lock["tools"][0]["name"], json!("fetch_page"));
    assert_eq!(lock["tools"][0]["capabilities"], json!(["http-request"]));
    assert_eq!(lock["pin"]["mcp_protocol_version"], json!("2025-06-18"));
    let expected = mcp_warden::digest::command_digest_url(&url);
    assert_eq!(lock["server"]["command_digest"], json!(expected));
    let log = log.lock().expect("log").clone();
    let tools = log
        .iter()
        .find(|(m, _, _)| m == "tools/list")
        .expect("tools/list seen");
    assert_eq!(tools.2, "sess-1", "session id not sent back");
    assert!(log.iter().all(|(_, auth, _)| auth == "Bearer s3cret"));
    // The secret never appears in what we print.
    assert!(!r.stdout.contains("s3cret") && !r.stderr.contains("s3cret"));
}

#[test]
fn http_errors_are_clean() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let port = serve(log);
    let tmp = tempdir();
    // Wrong credentials: a 401 fails the capture with exit 2.
    let url = format!("http://u:pw@127.0.0.1:{port}/mcp?token=abc");
    let r = run(
        &[
            "pin",
            "--url",
            &url,
            "--header",
            "Authorization: Bearer nope",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("401"), "{}", r.stderr);
    assert!(
        !r.stderr.contains("pw@") && !r.stderr.contains("token=abc"),
        "{}",
        r.stderr
    );
    // An unset variable in a header is refused before anything is sent.
    let r = run(
        &[
            "pin",
            "--url",
            &url,
            "--header",
            "Authorization: Bearer $MCPW_UNSET_VAR_Q",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not set"), "{}", r.stderr);
    // A server that opens an SSE stream and then says nothing: the deadline holds.
    let stall = TcpListener::bind("127.0.0.1:0").expect("bind");
    let stall_port = stall.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = stall.accept() {
            let _ = read_req(&mut s);
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: hello\n\n",
            );
            std::thread::sleep(Duration::from_secs(10));
        }
    });
    let started = Instant::now();
    let r = run(
        &[
            "pin",
            "--url",
            &format!("http://127.0.0.1:{stall_port}/mcp"),
            "--timeout",
            "2",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("did not complete the handshake within 2s"),
        "{}",
        r.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(8));
    // Nothing listening.
    let dead = TcpListener::bind("127.0.0.1:0").expect("bind");
    let dead_port = dead.local_addr().expect("addr").port();
    drop(dead);
    let r = run(
        &[
            "pin",
            "--url",
            &format!("http://127.0.0.1:{dead_port}/mcp"),
            "--timeout",
            "3",
        ],
        tmp.path(),
        &[],
    );
    assert_eq!(r.code, 2);
}
