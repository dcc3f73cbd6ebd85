//! The degraded-kernel decision: does the child's confinement keep the promise?
//!
//! The promise: *the child can read nothing but the descriptors it was handed and can
//! run, connect and write nothing.* Under the descriptor-passing design, seccomp alone
//! keeps it (no `open*`, no `execve*`, no `socket`, `write` only to two fds), so:
//!
//! | Missing layer                            | Promise kept? | Default  | AllowWeak | Strict |
//! |------------------------------------------|---------------|----------|-----------|--------|
//! | landlock (no ABI)                        | yes (seccomp) | warn     | warn      | refuse |
//! | landlock below ABI 6 (no TCP/scope rules)| yes (seccomp) | warn     | warn      | refuse |
//! | landlock partially enforced              | yes (seccomp) | warn     | warn      | refuse |
//! | seccomp (absent or log-only debug mode)  | **no**        | refuse   | warn      | refuse |
//! | no_new_privs                             | **no**        | refuse   | warn      | refuse |
//! | capabilities not all dropped             | **no**        | refuse   | warn      | refuse |
//!
//! Without seccomp, landlock (below ABI 10) does not gate UDP or socket creation, and a
//! root child's `ptrace`/`process_vm_readv` rely on the other layers, so the promise is
//! broken. `Strict` asks for every layer at an ABI that also confines TCP and scopes (6).
//! The function is pure so every case is unit-tested with fabricated values.

use crate::{Confinement, SandboxError, WeakSandboxPolicy};

/// The landlock ABI from which TCP bind/connect (4) and scopes (6) are handled.
pub const FULL_LANDLOCK_ABI: u32 = 6;

/// Decides on the child's hello: `Ok(warnings)` to go on (one line per accepted gap), or
/// the refusal. The parent kills the child on refusal, before sending the request.
///
/// # Errors
/// [`SandboxError::WeakSandbox`] when the policy refuses the confinement.
pub fn evaluate(c: &Confinement, policy: WeakSandboxPolicy) -> Result<Vec<String>, SandboxError> {
    // (gap description, promise still kept by the remaining layers)
    let mut gaps: Vec<(String, bool)> = Vec::new();
    match c.landlock_abi {
        None => gaps.push(("landlock unavailable".into(), true)),
        Some(abi) if abi < FULL_LANDLOCK_ABI => gaps.push((
            format!("landlock ABI {abi} (no TCP or scope rules before ABI {FULL_LANDLOCK_ABI})"),
            true,
        )),
        Some(_) => {}
    }
    if c.landlock_abi.is_some() && !c.landlock_full {
        gaps.push(("landlock only partially enforced".into(), true));
    }
    if c.seccomp_log_only {
        gaps.push(("seccomp in log-only debug mode".into(), false));
    } else if !c.seccomp {
        gaps.push(("seccomp unavailable".into(), false));
    }
    if !c.no_new_privs {
        gaps.push(("no_new_privs not set".into(), false));
    }
    if !c.capabilities_dropped {
        gaps.push(("capabilities not dropped".into(), false));
    }

    let describe = |only_broken: bool| {
        gaps.iter()
            .filter(|(_, kept)| !only_broken || !kept)
            .map(|(g, _)| g.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let promise_kept = gaps.iter().all(|(_, kept)| *kept);
    match policy {
        WeakSandboxPolicy::Strict if !gaps.is_empty() => Err(SandboxError::WeakSandbox {
            missing: describe(false),
            strict: true,
        }),
        WeakSandboxPolicy::Default if !promise_kept => Err(SandboxError::WeakSandbox {
            missing: describe(true),
            strict: false,
        }),
        _ => Ok(gaps
            .iter()
            .map(|(gap, kept)| {
                if *kept {
                    format!("sandbox degraded: {gap}; seccomp still forbids opening files, exec and sockets")
                } else {
                    format!("sandbox WEAK: {gap}; continuing only because a weak sandbox was allowed")
                }
            })
            .collect()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
pub(crate) mod tests {
    use super::*;
    use WeakSandboxPolicy::{AllowWeak, Default, Strict};

    /// Every layer applied, as on this machine as root (shared with the crate's tests).
    pub(crate) fn full() -> Confinement {
        Confinement {
            landlock_abi: Some(7),
            landlock_full: true,
            seccomp: true,
            seccomp_log_only: false,
            no_new_privs: true,
            capabilities_dropped: true,
            dropped_to_uid: Some(65534),
        }
    }

    fn refused(r: Result<Vec<String>, SandboxError>, strict: bool) -> String {
        match r {
            Err(SandboxError::WeakSandbox { missing, strict: s }) if s == strict => missing,
            other => panic!("expected a refusal (strict={strict}), got {other:?}"),
        }
    }

    #[test]
    fn full_confinement_passes_every_policy_silently() {
        for p in [Default, AllowWeak, Strict] {
            assert_eq!(evaluate(&full(), p).unwrap(), Vec::<String>::new());
        }
    }

    #[test]
    fn missing_landlock_warns_unless_strict() {
        let c = Confinement {
            landlock_abi: None,
            landlock_full: false,
            ..full()
        };
        for p in [Default, AllowWeak] {
            let w = evaluate(&c, p).unwrap();
            assert_eq!(w.len(), 1);
            assert!(w[0].contains("landlock unavailable"));
        }
        assert!(refused(evaluate(&c, Strict), true).contains("landlock unavailable"));
    }

    #[test]
    fn old_landlock_abi_warns_unless_strict() {
        let c = Confinement {
            landlock_abi: Some(3),
            ..full()
        };
        assert!(evaluate(&c, Default).unwrap()[0].contains("landlock ABI 3"));
        assert!(refused(evaluate(&c, Strict), true).contains("ABI 3"));
        // ABI 6 is enough for Strict.
        let c = Confinement {
            landlock_abi: Some(6),
            ..full()
        };
        assert!(evaluate(&c, Strict).unwrap().is_empty());
    }

    #[test]
    fn partial_landlock_warns_unless_strict() {
        let c = Confinement {
            landlock_full: false,
            ..full()
        };
        assert!(evaluate(&c, Default).unwrap()[0].contains("partially"));
        assert!(refused(evaluate(&c, Strict), true).contains("partially"));
    }

    #[test]
    fn missing_seccomp_is_refused_unless_allowed() {
        let c = Confinement {
            seccomp: false,
            ..full()
        };
        assert_eq!(refused(evaluate(&c, Default), false), "seccomp unavailable");
        assert!(refused(evaluate(&c, Strict), true).contains("seccomp"));
        let w = evaluate(&c, AllowWeak).unwrap();
        assert!(w[0].starts_with("sandbox WEAK: seccomp unavailable"));
    }

    #[test]
    fn seccomp_log_mode_counts_as_missing_seccomp() {
        let c = Confinement {
            seccomp: false,
            seccomp_log_only: true,
            ..full()
        };
        assert!(refused(evaluate(&c, Default), false).contains("log-only"));
        assert_eq!(evaluate(&c, AllowWeak).unwrap().len(), 1);
    }

    #[test]
    fn no_landlock_and_no_seccomp_is_refused_naming_what_breaks_the_promise() {
        let c = Confinement {
            landlock_abi: None,
            landlock_full: false,
            seccomp: false,
            ..full()
        };
        assert_eq!(refused(evaluate(&c, Default), false), "seccomp unavailable");
        assert_eq!(
            refused(evaluate(&c, Strict), true),
            "landlock unavailable, seccomp unavailable"
        );
        assert_eq!(evaluate(&c, AllowWeak).unwrap().len(), 2);
    }

    #[test]
    fn missing_nnp_or_caps_is_refused_unless_allowed() {
        for c in [
            Confinement {
                no_new_privs: false,
                ..full()
            },
            Confinement {
                capabilities_dropped: false,
                ..full()
            },
        ] {
            refused(evaluate(&c, Default), false);
            refused(evaluate(&c, Strict), true);
            assert_eq!(evaluate(&c, AllowWeak).unwrap().len(), 1);
        }
    }

    #[test]
    fn non_root_child_needs_no_uid_drop() {
        let c = Confinement {
            dropped_to_uid: None,
            ..full()
        };
        assert!(evaluate(&c, Strict).unwrap().is_empty());
    }
}
