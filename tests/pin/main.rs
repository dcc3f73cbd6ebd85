//! Integration tests for `pin`, `check` and `lock rotate`, run against the built
//! binary and a configurable Python fixture server (tests/fixtures/pin/server.py).

mod capture;
mod check;
#[path = "../integration/deadline.rs"]
mod deadline;
mod http;
mod output;
mod parity;
mod rotate;
mod util;
mod writes;
