//! Reads one Codex `config.toml` the way Codex reads it and prints, as one JSON
//! object on stdout, the MCP servers Codex would configure from it.
//!
//! The rules are taken from the client table in `docs/clients.md` (section
//! "Codex"), not from mcp-warden's own reader: the file is parsed with the
//! `toml` crate line Codex pins (`toml::from_str::<toml::Value>`), then every
//! `[mcp_servers.<name>]` table is classified like Codex's `McpServerConfig`:
//!
//! * `command` present: stdio; `url`, `bearer_token_env_var`, `bearer_token`,
//!   `http_headers`, `env_http_headers`, `oauth`, `oauth_resource` are errors;
//! * else `url` present: streamable HTTP; `args`, `env`, `env_vars`, `cwd`,
//!   `bearer_token` are errors;
//! * neither: "invalid transport".
//!
//! Any error in any entry fails the whole configuration (Codex does not
//! start), printed as `{"status":"rejected","reason":...}`. A loaded file prints
//! `{"status":"loaded","servers":[...]}` with, per server, what Codex would
//! launch or connect to and the names of the variables and headers it sends.
//!
//! Usage: `codex-reader PATH`. Exit 0 whenever a verdict was printed; 2 when
//! the file could not be opened at all.

use serde_json::{json, Value as Json};
use toml::Value;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: codex-reader PATH");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("codex-reader: {}: {err}", path.to_string_lossy());
            std::process::exit(2);
        }
    };
    let verdict = match read_config(&bytes) {
        Ok(servers) => json!({"status": "loaded", "servers": servers}),
        Err(reason) => json!({"status": "rejected", "reason": reason}),
    };
    println!("{verdict}");
}

/// The server set Codex configures from the file, or why it refuses the file.
fn read_config(bytes: &[u8]) -> Result<Vec<Json>, String> {
    // Codex reads the file as text: bytes that are not UTF-8 fail the read.
    let text = std::str::from_utf8(bytes).map_err(|err| format!("not UTF-8: {err}"))?;
    let root: Value = toml::from_str(text).map_err(|err| format!("TOML error: {err}"))?;
    let Some(servers) = root.get("mcp_servers") else {
        return Ok(Vec::new());
    };
    let servers = servers
        .as_table()
        .ok_or_else(|| "mcp_servers is not a table".to_string())?;
    servers
        .iter()
        .map(|(name, entry)| {
            read_server(name, entry).map_err(|why| format!("mcp_servers.{name}: {why}"))
        })
        .collect()
}

fn read_server(name: &str, entry: &Value) -> Result<Json, String> {
    let entry = entry.as_table().ok_or("not a table")?;
    let present = |key: &str| entry.contains_key(key);
    let enabled = match entry.get("enabled") {
        None => true,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err("enabled is not a boolean".into()),
    };
    if present("command") {
        for key in [
            "url",
            "bearer_token_env_var",
            "bearer_token",
            "http_headers",
            "env_http_headers",
            "oauth",
            "oauth_resource",
        ] {
            if present(key) {
                return Err(format!("{key} is not supported for stdio"));
            }
        }
        let command = string(entry.get("command"), "command")?.unwrap_or_default();
        let args = string_list(entry.get("args"), "args")?;
        let mut env_names: Vec<String> = string_table(entry.get("env"), "env")?
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        env_names.extend(env_var_names(entry.get("env_vars"))?);
        string(entry.get("cwd"), "cwd")?;
        Ok(json!({
            "name": name,
            "transport": "stdio",
            "command": command,
            "args": args,
            "env_names": env_names,
            "header_names": [],
            "disabled": !enabled,
        }))
    } else if present("url") {
        for key in ["args", "env", "env_vars", "cwd", "bearer_token"] {
            if present(key) {
                return Err(format!("{key} is not supported for streamable_http"));
            }
        }
        let url = string(entry.get("url"), "url")?.unwrap_or_default();
        let mut header_names: Vec<String> =
            string_table(entry.get("http_headers"), "http_headers")?
                .into_iter()
                .map(|(k, _)| k)
                .collect();
        // Headers filled from the environment are sent whenever the variable
        // is set, so they belong to what Codex may send.
        header_names.extend(
            string_table(entry.get("env_http_headers"), "env_http_headers")?
                .into_iter()
                .map(|(k, _)| k),
        );
        if string(entry.get("bearer_token_env_var"), "bearer_token_env_var")?.is_some() {
            header_names.push("Authorization".into());
        }
        Ok(json!({
            "name": name,
            "transport": "http",
            "url": url,
            "env_names": [],
            "header_names": header_names,
            "disabled": !enabled,
        }))
    } else {
        Err("invalid transport".into())
    }
}

fn string(value: Option<&Value>, key: &str) -> Result<Option<String>, String> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{key} is not a string")),
    }
}

fn string_list(value: Option<&Value>, key: &str) -> Result<Vec<String>, String> {
    list(value, key, |item| item.as_str().map(str::to_owned))
}

/// An optional array whose every item `item` accepts.
fn list(
    value: Option<&Value>,
    key: &str,
    item: impl Fn(&Value) -> Option<String>,
) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| item(v).ok_or_else(|| format!("{key} holds a value of the wrong type")))
            .collect(),
        Some(_) => Err(format!("{key} is not an array")),
    }
}

fn string_table(value: Option<&Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Table(table)) => table
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("{key}.{k} is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("{key} is not a table")),
    }
}

/// `env_vars`: names forwarded from Codex's environment, as strings or as
/// `{ name = "...", source = "local" | "remote" }` tables.
fn env_var_names(value: Option<&Value>) -> Result<Vec<String>, String> {
    list(value, "env_vars", |item| match item {
        Value::String(s) => Some(s.clone()),
        Value::Table(t) => t.get("name").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    })
}
