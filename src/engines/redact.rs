//! `redact_secret`: the one redactor every snippet goes through.

/// At most min(4, n/2) leading code points, then `…(len=N)` (or `len<=3`); never a suffix.
pub fn redact_secret(raw: &str) -> String {
    let n = raw.chars().count();
    let k = (n / 2).min(4);
    let prefix: String = raw.chars().take(k).collect();
    if n <= 3 {
        format!("{prefix}…(len<=3)")
    } else {
        format!("{prefix}…(len={n})")
    }
}
