//! Output hygiene: the one place that decides what a config- or lock-derived string
//! may look like once mcp-warden prints it.
//!
//! Everything doctor prints can end up somewhere dangerous: a terminal that obeys
//! escape sequences, a shell the user pastes a line into, a workflow file the user
//! commits, a CI log that other people read. The inputs are attacker-reachable (a
//! cloned repository ships `.mcp.json`, locks and file names), so each of those
//! destinations has one function here, and every printer — the text report, JSONL,
//! SARIF, Next steps, the CI snippet, stderr warnings, hints inside finding
//! messages, the `--pin` prompt and its `pinned …` lines, `pin`/`check`/`lock
//! rotate` output — goes through them instead of doing its own version:
//!
//! * [`safe_text`](mod@safe_text): every character a terminal or a copy buffer can
//!   be tricked by becomes U+FFFD, and the length is capped;
//! * [`quote`](mod@quote): shell quoting that bash, zsh and fish read back as the same word,
//!   the ANSI-C form for the consent prompt, and YAML scalars for the CI snippet;
//! * [`url`](mod@url): the one URL splitter (byte-exact ranges, WHATWG authority rules), so
//!   every printer agrees on where a URL's userinfo, host and query are;
//! * [`redact`](mod@redact): the one credential redactor — the evidence form of a secret
//!   (`ghp_…(len=40)`), and [`redact::display`], which masks a credential of any
//!   recognised shape *inside* a longer text (a URL with userinfo, an
//!   `Authorization: Bearer …` header, an auth-shaped `KEY=value`, a vendor token);
//! * [`mask`](mod@mask): which words of a printed `mcp-warden pin`/`check` line must be
//!   withheld, decided with the same credential detection as the audit.
//!
//! Why one module: when quoting, redaction and URL parsing each lived in several
//! printers, they disagreed (one URL parser ended the authority at `\`, the others
//! did not; the pin line did not redact a `sh -c` script that the evidence snippet
//! did), and every leak or paste injection lived in such a difference.

pub mod mask;
pub mod quote;
pub mod redact;
pub mod safe_text;
pub mod url;

pub use quote::quote;
pub use redact::{display, redact_secret};
pub use safe_text::{safe_text, safe_text_capped, safe_text_capped_cow, safe_text_cow};
