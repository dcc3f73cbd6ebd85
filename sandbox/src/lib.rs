//! The confined parser child of mcp-warden: how it is created, confined, spoken to
//! and supervised. (API skeleton; the implementation fills in each function.)

use std::fmt;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::time::Duration;

use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// The fixed hidden argument with which the parent re-executes its own binary as the
/// parser child. `main` must dispatch on it before parsing any other argument.
pub const CHILD_ARG: &str = "__mcp-warden-parser";
/// The hidden argument for one `sandbox selftest` probe child.
pub const PROBE_ARG: &str = "__mcp-warden-probe";

/// What the caller accepts when a kernel lacks a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeakSandboxPolicy {
    /// Continue with a warning when the remaining layers still keep the promise
    /// (the child can read nothing but its descriptors and can run, connect and
    /// write nothing); refuse otherwise.
    #[default]
    Default,
    /// `--allow-weak-sandbox`: continue even when the promise is not kept (warn).
    AllowWeak,
    /// `--strict-sandbox` / MCP_WARDEN_STRICT_SANDBOX=1: refuse on any missing layer.
    Strict,
}

/// Bounds on one exchange with the child.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock deadline for the whole exchange; the child is killed past it.
    pub timeout: Duration,
    /// Largest single frame accepted (checked before allocating).
    pub max_frame_len: u32,
    /// Most payload messages accepted.
    pub max_messages: usize,
    /// Most payload bytes accepted over the whole exchange.
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            max_frame_len: 16 << 20,
            max_messages: 4096,
            max_total_bytes: 256 << 20,
        }
    }
}

/// The layers the child reports it applied (sent in its hello frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// Effective landlock ABI, `None` when landlock is unavailable.
    pub landlock_abi: Option<u32>,
    /// Landlock ruleset fully enforced at that ABI.
    pub landlock_full: bool,
    pub seccomp: bool,
    pub no_new_privs: bool,
    /// Every capability set verified empty.
    pub capabilities_dropped: bool,
    /// The uid the child runs as after a root parent dropped it, if it did.
    pub dropped_to_uid: Option<u32>,
}

impl fmt::Display for Confinement {
    /// One line for doctor's header, e.g. `landlock ABI 7, seccomp, no capabilities`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _ = f;
        todo!()
    }
}

/// Everything the child sent, after a clean end marker and exit status 0.
#[derive(Debug)]
pub struct ChildOutput<M> {
    pub confinement: Confinement,
    /// One line per missing layer that the policy accepted.
    pub warnings: Vec<String>,
    pub messages: Vec<M>,
}

/// Run the parser child: re-exec this binary with [`CHILD_ARG`], hand it `files`
/// (descriptors the parent opened without reading), send `request`, and collect its
/// messages under `limits`. Fails closed on any misbehaviour of the child.
pub fn run_parser<Req: Serialize, Msg: DeserializeOwned>(
    request: &Req,
    files: Vec<OwnedFd>,
    limits: &Limits,
    policy: WeakSandboxPolicy,
) -> Result<ChildOutput<Msg>, SandboxError> {
    let _ = (request, files, limits, policy);
    todo!()
}

/// Sends payload messages from the child to the parent.
pub struct Sender {
    _private: (),
}

impl Sender {
    pub fn send<M: Serialize>(&mut self, message: &M) -> Result<(), SandboxError> {
        let _ = message;
        todo!()
    }
}

/// The child's entry point (call from `main` when argv[1] is [`CHILD_ARG`]): sanitize
/// descriptors and environment, confine, send the hello, read the request, then call
/// `handle` with the request, the handed-over files (request order) and a sender.
/// Writes the end marker and exits; never returns.
pub fn serve_child<Req, F>(handle: F) -> !
where
    Req: DeserializeOwned,
    F: FnOnce(Req, Vec<File>, &mut Sender) -> Result<(), SandboxError>,
{
    let _ = handle;
    todo!()
}

/// Entry point of a selftest probe child (argv[1] is [`PROBE_ARG`]). Never returns.
pub fn probe_main() -> ! {
    todo!()
}

/// What this kernel offers, for `mcp-warden sandbox status`.
pub fn kernel_status() -> String {
    todo!()
}

/// Run every probe in its own confined child; returns (table text, all matched).
pub fn selftest() -> (String, bool) {
    todo!()
}

/// Everything that can go wrong on either side of the boundary.
#[derive(Debug)]
pub enum SandboxError {
    Todo,
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sandbox error")
    }
}

impl std::error::Error for SandboxError {}
