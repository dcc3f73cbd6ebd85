//! Black-box tests: every case runs the built `mcp-warden` binary against a
//! temporary home and working directory.
// Test-harness messages (a skipped shell, a measured ratio) are not product output.
#![allow(clippy::disallowed_macros)]

mod util;

mod bounded;

mod action;
mod approval;
mod approval_hostile;
mod as_printed;
mod audit;
mod clients;
mod completions;
mod corpus_clients;
mod counts;
mod discovery;
mod discovery_clients;
mod discovery_hostile;
mod formats_hostile;
mod gating;
mod hostile;
mod locations;
mod locks;
mod output;
mod paste;
mod paste_review;
mod pin;
mod pins;
mod pre_commit;
mod report_review;
mod roundtrip;
mod rules;
mod sandbox;
mod static_binary;
mod streamed;
mod suppress;
mod text_layout;
mod writes;
