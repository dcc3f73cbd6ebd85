//! Masking for the printed `mcp-warden pin` command (DOCTOR.md §3): which launch
//! arguments and which URL parts must never reach the terminal.

/// How one argument is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgView<'a> {
    /// Printed as written (after safe_text and shell quoting).
    Verbatim(&'a str),
    /// Replaced by the quoted placeholder `'<REDACTED>'`.
    Redacted,
}

/// Decide, argument by argument, what the printed pin command may show.
pub fn mask_args(args: &[String]) -> Vec<ArgView<'_>> {
    args.iter().map(|a| ArgView::Verbatim(a)).collect()
}

/// How a URL is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlView {
    /// Nothing to mask: print the URL byte-for-byte.
    Verbatim,
    /// Some query values, path segments or the fragment were replaced by `REDACTED`.
    Rewritten(String),
    /// The URL embeds userinfo: print `<REDACTED: url embeds a credential>`.
    Credential,
}

/// Decide what the printed `--url` may show. `url` has already been through safe_text.
pub fn mask_url(_url: &str) -> UrlView {
    UrlView::Verbatim
}
