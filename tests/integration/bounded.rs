//! The deadline runner ([`deadline`](deadline.rs)) with this crate's fixtures:
//! `doctor` and any other command run in an [`Env`], returning a [`Run`].

use std::process::Command;

#[path = "deadline.rs"]
mod deadline;

pub use deadline::{mkfifo, socket, temporaries};

/// See [`deadline::assert_refused`].
#[track_caller]
pub fn assert_refused(run: &Run, needle: &str) {
    deadline::assert_refused(run.code, &run.stdout, &run.stderr, needle);
}

use crate::util::{Env, Run};

/// Run `cmd`, failing the test if it blocks.
#[track_caller]
pub fn output(cmd: Command) -> Run {
    Run::from(deadline::output(cmd))
}

/// `mcp-warden doctor --home … --platform … ARGS` in `env`'s work directory.
#[track_caller]
pub fn doctor(env: &Env, args: &[&str]) -> Run {
    let home = env.home();
    let mut full = vec![
        "doctor",
        "--home",
        home.to_str().expect("utf-8 path"),
        "--platform",
        env.platform,
    ];
    full.extend_from_slice(args);
    output(env.command(&full))
}
