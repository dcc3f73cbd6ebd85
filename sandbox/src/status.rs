//! `mcp-warden sandbox status`: what this kernel offers and what a child really gets.
//!
//! The last lines come from an actual confined child (the no-op probe), so the status
//! shows the layers a parser child would apply, not what the kernel advertises.

use crate::probe::{run_probe, HELLO_PROBE};
use crate::{policy, sys, WeakSandboxPolicy};

/// What this kernel offers, for `mcp-warden sandbox status`.
#[must_use]
pub fn kernel_status() -> String {
    let mut out = String::new();
    let mut line = |k: &str, v: String| out.push_str(&format!("{k:<10} {v}\n"));
    #[cfg(not(target_os = "linux"))]
    line(
        "platform:",
        "no kernel sandbox exists on this platform; the parser runs in a separate, \
         unconfined process (doctor needs --allow-weak-sandbox)"
            .into(),
    );

    line(
        "landlock:",
        match sys::landlock_abi() {
            Some(abi) => format!("ABI {abi} available"),
            None => "not available (not built in, or not in the lsm= boot list)".into(),
        },
    );
    let actions = std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    line(
        "seccomp:",
        if sys::seccomp_filter_available() {
            format!("filter mode available (actions: {actions})")
        } else {
            "filter mode not available".into()
        },
    );
    line(
        "identity:",
        if nix::unistd::geteuid().is_root() {
            "running as root; the parser child drops to uid 65534".into()
        } else {
            format!("running as uid {}", nix::unistd::geteuid())
        },
    );
    match run_probe(HELLO_PROBE) {
        Ok(out) => {
            line("child:", out.confinement.to_string());
            line(
                "verdict:",
                match policy::evaluate(&out.confinement, WeakSandboxPolicy::Default) {
                    Ok(w) if w.is_empty() => "complete sandbox; doctor runs".into(),
                    Ok(w) => format!("doctor runs with warnings: {}", w.join("; ")),
                    Err(e) => e.to_string(),
                },
            );
        }
        Err(e) => line("child:", format!("could not start a confined child: {e}")),
    }
    out
}
