//! The static release binary (`scripts/build-release.sh`): no ELF interpreter and no
//! shared library, and host names resolve from it without loading an NSS module.
//!
//! The binary is `MCP_WARDEN_STATIC_BIN`, else `dist/mcp-warden-VERSION-x86_64-unknown-linux-musl`.
//! Its tests are skipped only when it has not been built; `MCP_WARDEN_REQUIRE_STATIC=1`
//! (set by `.ci/run`, which builds it first) makes a missing binary a failure.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use crate::util::bin;

fn static_bin() -> Option<PathBuf> {
    let path = std::env::var_os("MCP_WARDEN_STATIC_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
                "dist/mcp-warden-{}-x86_64-unknown-linux-musl",
                env!("CARGO_PKG_VERSION")
            ))
        });
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("MCP_WARDEN_REQUIRE_STATIC").is_none_or(|v| v != "1"),
        "the static binary {} is missing (run scripts/build-release.sh)",
        path.display()
    );
    eprintln!(
        "skipping: the static binary {} is not built",
        path.display()
    );
    None
}

/// What makes an ELF file depend on the host at run time.
#[derive(Debug, PartialEq, Eq)]
enum Dependency {
    /// A `PT_INTERP` program header (the dynamic loader).
    Interpreter,
    /// A `DT_NEEDED` entry (a shared library).
    Needed,
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// The run-time dependencies of an x86_64 ELF64 executable, read from its program
/// headers (what the kernel and the loader read, independent of readelf).
fn dependencies(elf: &[u8]) -> Vec<Dependency> {
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    const DT_NEEDED: u64 = 1;
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(elf[4], 2, "not ELF64");
    assert_eq!(elf[5], 1, "not little-endian");
    assert_eq!(le_u16(elf, 0x12), 62, "not x86_64");
    let phoff = le_u64(elf, 0x20) as usize;
    let phentsize = usize::from(le_u16(elf, 0x36));
    let phnum = usize::from(le_u16(elf, 0x38));
    let mut found = Vec::new();
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        let offset = le_u64(elf, ph + 8) as usize;
        let size = le_u64(elf, ph + 32) as usize;
        match le_u32(elf, ph) {
            PT_INTERP => found.push(Dependency::Interpreter),
            PT_DYNAMIC => {
                for entry in elf[offset..offset + size].chunks_exact(16) {
                    match le_u64(entry, 0) {
                        0 => break,
                        DT_NEEDED => found.push(Dependency::Needed),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    found
}

#[test]
fn static_binary_has_no_interpreter_and_no_shared_library() {
    let Some(path) = static_bin() else {
        return;
    };
    let elf = std::fs::read(&path).expect("read the static binary");
    assert_eq!(dependencies(&elf), vec![], "{}", path.display());
}

#[test]
fn the_dependency_check_sees_the_dynamic_test_build() {
    // The check itself can fail: the ordinary (dynamically linked) build has both.
    let elf = std::fs::read(bin()).expect("read the test binary");
    let deps = dependencies(&elf);
    if std::env::var_os("MCP_WARDEN_TEST_BIN").is_none() {
        assert!(deps.contains(&Dependency::Interpreter), "{deps:?}");
        assert!(deps.contains(&Dependency::Needed), "{deps:?}");
    }
}

/// A loopback server that answers one request with 401 and reports its Host header.
fn one_shot_server() -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut reader = BufReader::new(&stream);
        let mut host = String::new();
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some((k, v)) = trimmed.split_once(':') {
                if k.eq_ignore_ascii_case("host") {
                    host = v.trim().to_string();
                }
            }
            line.clear();
        }
        let _ = (&stream).write_all(
            b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        let _ = tx.send(host);
    });
    (port, rx)
}

/// `pin --url http://localhost:PORT/mcp` from `binary` reaches the loopback server
/// (the name resolved through /etc/hosts); under strace, no `libnss_*` shared object
/// is opened (checked when `without_nss_modules`): musl resolves `/etc/hosts` and DNS with its own code and has no NSS.
fn resolves_localhost(binary: &Path, without_nss_modules: bool) {
    let (port, host) = one_shot_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("http://localhost:{port}/mcp");
    let trace = dir.path().join("trace.txt");
    let traced = without_nss_modules && Command::new("strace").arg("-V").output().is_ok();
    let mut cmd = if traced {
        let mut c = Command::new("strace");
        c.args(["-f", "-qq", "-e", "trace=openat,open", "-o"])
            .arg(&trace)
            .arg(binary);
        c
    } else {
        Command::new(binary)
    };
    let out = cmd
        .args(["pin", "--url", &url])
        .current_dir(dir.path())
        .env_clear()
        .env("HOME", dir.path())
        .output()
        .expect("run pin");
    let seen = host
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| {
            panic!(
                "{} never reached the server at {url}: {}",
                binary.display(),
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(seen, format!("localhost:{port}"));
    assert_ne!(out.status.code(), Some(0), "a 401 is not a capture");
    if traced {
        let text = std::fs::read_to_string(&trace).expect("trace");
        let loaded: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("libnss_") && !l.contains("= -1"))
            .collect();
        assert!(loaded.is_empty(), "an NSS module was loaded: {loaded:?}");
    }
}

#[test]
fn static_binary_resolves_localhost_without_an_nss_module() {
    if let Some(path) = static_bin() {
        resolves_localhost(&path, true);
    }
}

#[test]
fn test_build_resolves_localhost() {
    // A dynamic build loads whatever NSS modules the host's nsswitch.conf names.
    resolves_localhost(&bin(), false);
}

/// A name that only a hosts file given to the binary knows resolves from the static
/// binary: `/etc/hosts` is replaced by a bind mount in a private mount namespace
/// (`unshare -m`, root only; skipped where the namespace cannot be made).
#[test]
fn static_binary_resolves_a_name_from_the_hosts_file() {
    let Some(path) = static_bin() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "127.0.0.1 warden-static-test.internal\n").expect("hosts");
    let probe = Command::new("unshare")
        .args(["-m", "mount", "--bind"])
        .arg(&hosts)
        .arg("/etc/hosts")
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipping: no private mount namespace here (unshare -m needs root)");
        return;
    }
    let (port, host) = one_shot_server();
    let url = format!("http://warden-static-test.internal:{port}/mcp");
    let script = "mount --bind \"$1\" /etc/hosts && exec \"$2\" pin --url \"$3\"";
    let out = Command::new("unshare")
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(&hosts)
        .arg(&path)
        .arg(&url)
        .current_dir(dir.path())
        .env_clear()
        .env("HOME", dir.path())
        .output()
        .expect("run pin");
    let seen = host
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| {
            panic!(
                "the static binary never reached {url}: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(seen, format!("warden-static-test.internal:{port}"));
}
