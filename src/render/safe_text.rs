//! `safe_text`: neutralise every character a terminal or a copy buffer can be
//! tricked by, and cap the length.

/// Default cap, in code points.
pub const DEFAULT_CAP: usize = 200;

/// `safe_text` with the default 200-code-point cap.
pub fn safe_text(s: &str) -> String {
    safe_text_capped(s, DEFAULT_CAP)
}

/// Replace neutralised characters by U+FFFD, then cap at `max` code points
/// (the last one becoming `…` when cut).
pub fn safe_text_capped(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    if out.chars().count() > max {
        out = out.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
    }
    out
}
