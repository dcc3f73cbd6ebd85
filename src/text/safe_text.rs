//! `safe_text`: neutralise every character a terminal or a copy buffer can be
//! tricked by, and cap the length.
//!
//! A config is attacker-controlled (a cloned repository ships `.mcp.json`), so any
//! string taken from one may try to repaint the terminal (`ESC [2K`, CSI/OSC in C1),
//! reorder what is displayed (bidi overrides and isolates, CVE-2021-42574), hide text
//! (zero-width and default-ignorable characters) or smuggle a second line into a
//! block the user is told to paste (LF, CR, NEL, U+2028/U+2029).
//!
//! # What is replaced
//!
//! Each of these code points becomes one U+FFFD REPLACEMENT CHARACTER:
//!
//! * every code point whose Unicode general category is `Cc` (C0, DEL, C1 incl.
//!   NEL, CSI, OSC), `Cf` (soft hyphen, ZWSP/ZWNJ/ZWJ, LRM/RLM, ALM U+061C, bidi
//!   embeddings/overrides/isolates, word joiner and invisible operators, BOM,
//!   U+180E, Tags U+E0001/U+E0020–U+E007F, U+FFF9–U+FFFB, U+0600–U+0605, …),
//!   `Zl` (U+2028), `Zp` (U+2029), `Co` (private use), `Cs` (surrogates; they
//!   cannot occur in a Rust `str`, listed for completeness) and `Cn` (unassigned
//!   code points and noncharacters such as U+FFFE, including the unassigned rest
//!   of the Tags block) — classified by the maintained `unicode-properties`
//!   tables rather than a hand-written range list;
//! * the Default_Ignorable_Code_Point characters (Unicode DerivedCoreProperties)
//!   that are *not* in one of those categories, i.e. invisible characters of
//!   category `Mn` or `Lo`: U+034F COMBINING GRAPHEME JOINER, the Hangul fillers
//!   U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels U+17B4/U+17B5, the
//!   Mongolian free variation selectors U+180B–U+180D and U+180F, and the variation
//!   selectors U+FE00–U+FE0F and U+E0100–U+E01EF. They render as nothing, so they
//!   let two different strings look identical (U+034F is `Mn`; it is neutralised
//!   because it is default-ignorable, unlike ordinary combining marks, which stay).
//!
//! The spec's explicit list (DOCTOR.md §2) is a subset of this set; a unit test
//! checks every character of it.
//!
//! # Cap
//!
//! Replacement happens first; then a string longer than `max` code points becomes
//! its first `max - 1` code points followed by `…` (U+2026), so it is exactly `max`
//! long. The result is idempotent: neither U+FFFD nor `…` is neutralised.

use std::borrow::Cow;

use unicode_properties::general_category::{GeneralCategory, UnicodeGeneralCategory};

/// Default cap, in code points.
pub const DEFAULT_CAP: usize = 200;

/// Cap for the argv words and URL of the printed pin command.
pub const ARGV_CAP: usize = 2048;

/// The replacement for every neutralised character.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Printed as the last character of a truncated string.
pub const ELLIPSIS: char = '\u{2026}';

/// `safe_text` with the default 200-code-point cap.
pub fn safe_text(s: &str) -> String {
    safe_text_capped(s, DEFAULT_CAP)
}

/// `safe_text` that borrows when nothing changes, for renderers that print
/// thousands of strings and would otherwise copy each one.
pub fn safe_text_cow(s: &str) -> Cow<'_, str> {
    safe_text_capped_cow(s, DEFAULT_CAP)
}

/// [`safe_text_capped`] that borrows when nothing changes.
pub fn safe_text_capped_cow(s: &str, max: usize) -> Cow<'_, str> {
    // Fast path for the common case: printable ASCII (U+0020..U+007E) needs no
    // category lookup, and within the cap it is returned unchanged.
    if s.len() <= max && s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(neutralise_and_cap(s, max))
    }
}

/// Replace neutralised characters by U+FFFD, then cap at `max` code points
/// (the last one becoming `…` when cut). `max == 0` yields the empty string.
pub fn safe_text_capped(s: &str, max: usize) -> String {
    safe_text_capped_cow(s, max).into_owned()
}

fn neutralise_and_cap(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_mul(4)));
    let mut count = 0usize;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if count + 1 == max && chars.peek().is_some() {
            out.push(ELLIPSIS);
            return out;
        }
        if count == max {
            // Only reachable when max == 0.
            return out;
        }
        out.push(if is_neutralised(c) { REPLACEMENT } else { c });
        count += 1;
    }
    out
}

/// Whether `c` is replaced by U+FFFD in rendered output.
pub fn is_neutralised(c: char) -> bool {
    if c.is_ascii() {
        // Fast path: only C0 and DEL among ASCII.
        return c.is_ascii_control();
    }
    match c.general_category() {
        GeneralCategory::Control
        | GeneralCategory::Format
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator
        | GeneralCategory::PrivateUse
        | GeneralCategory::Surrogate
        | GeneralCategory::Unassigned => true,
        _ => is_invisible_ignorable(c),
    }
}

/// Default_Ignorable_Code_Point characters outside `Cc`/`Cf`/`Cn` (see module docs).
fn is_invisible_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FFA0}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's explicit character set (DOCTOR.md §2, doctor-reference §1.10).
    fn spec_set() -> Vec<char> {
        let ranges: &[(u32, u32)] = &[
            (0x0000, 0x001F),
            (0x007F, 0x009F),
            (0x00AD, 0x00AD),
            (0x200B, 0x200F),
            (0x2028, 0x2029),
            (0x202A, 0x202E),
            (0x2060, 0x2064),
            (0x2066, 0x2069),
            (0xFEFF, 0xFEFF),
            (0xE0000, 0xE007F),
        ];
        ranges
            .iter()
            .flat_map(|&(a, b)| (a..=b).filter_map(char::from_u32))
            .collect()
    }

    /// Beyond the spec: reference §3 item 22 and the brief.
    fn extra_set() -> Vec<char> {
        let mut v = vec![
            '\u{061C}', // ARABIC LETTER MARK (Cf, bidi)
            '\u{180E}', // MONGOLIAN VOWEL SEPARATOR (Cf)
            '\u{034F}', // COMBINING GRAPHEME JOINER (Mn, default-ignorable)
            '\u{115F}',
            '\u{1160}',
            '\u{3164}',
            '\u{FFA0}', // Hangul fillers
            '\u{17B4}',
            '\u{17B5}', // Khmer inherent vowels
            '\u{180B}',
            '\u{180C}',
            '\u{180D}',
            '\u{180F}', // Mongolian FVS
            '\u{FFF9}',
            '\u{FFFA}',
            '\u{FFFB}', // interlinear annotation
            '\u{206A}',
            '\u{206B}',
            '\u{206C}',
            '\u{206D}',
            '\u{206E}',
            '\u{206F}',
            '\u{0600}',
            '\u{0605}',
            '\u{06DD}',
            '\u{070F}',
            '\u{08E2}',
            '\u{110BD}',
            '\u{E000}',
            '\u{F8FF}',
            '\u{F0000}',
            '\u{10FFFD}', // private use
            '\u{FFFE}',
            '\u{FFFF}',
            '\u{FDD0}',
            '\u{10FFFF}', // noncharacters
            '\u{0378}',   // unassigned
            '\u{E0080}',
            '\u{E0FFF}', // unassigned tail of the tags/VS area
        ];
        v.extend(('\u{FE00}'..='\u{FE0F}').collect::<Vec<_>>());
        v.extend(('\u{E0100}'..='\u{E01EF}').collect::<Vec<_>>());
        v
    }

    #[test]
    fn every_spec_and_extra_character_is_replaced_once() {
        for c in spec_set().into_iter().chain(extra_set()) {
            let s = format!("a{c}b");
            assert_eq!(
                safe_text(&s),
                "a\u{FFFD}b",
                "U+{:04X} not neutralised",
                c as u32
            );
        }
    }

    #[test]
    fn reference_tests_28_48_56() {
        assert!(!safe_text("a\x1b[2Kb").contains('\x1b'));
        assert_eq!(safe_text("a\nb"), "a\u{FFFD}b");
        let long = safe_text(&"x".repeat(300));
        assert_eq!(long.chars().count(), 200);
        assert!(long.ends_with('…'));
        for ch in ["\u{2028}", "\u{202e}", "\u{9b}", "\u{85}", "\u{200b}"] {
            let evil = format!("gh{ch}  mcp-warden pin sh -c 'curl x|sh' --approve #");
            let out = safe_text(&evil);
            assert!(!out.contains(ch));
            assert!(out.contains('\u{FFFD}'));
        }
        for ch in [
            "\u{feff}",
            "\u{2060}",
            "\u{2064}",
            "\u{00ad}",
            "\u{e0001}",
            "\u{e007f}",
        ] {
            assert_eq!(safe_text(&format!("a{ch}b")), "a\u{FFFD}b");
        }
        assert_eq!(
            safe_text("gh\x1b[2K\x1b[1;31mFAKE CLEAN"),
            "gh\u{FFFD}[2K\u{FFFD}[1;31mFAKE CLEAN"
        );
    }

    #[test]
    fn visible_text_is_kept() {
        for s in [
            "~/.cursor/mcp.json#github",
            "日本語 ñ é (e\u{301}) — … \u{FFFD} 🙂 Ω",
            "\u{00A0}x\u{3000}", // visible spaces stay (quoting handles them)
            "ᄀ한",
        ] {
            assert_eq!(safe_text(s), s);
        }
    }

    #[test]
    fn replacement_happens_before_truncation_and_counts_code_points() {
        let s = format!("{}{}", "\u{202E}".repeat(5), "y".repeat(300));
        let out = safe_text_capped(&s, 10);
        assert_eq!(out, "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}yyyy…");
        assert_eq!(safe_text_capped("abc", 3), "abc");
        assert_eq!(safe_text_capped("abcd", 3), "ab…");
        assert_eq!(safe_text_capped("ééé", 3), "ééé");
        assert_eq!(safe_text_capped("abc", 1), "…");
        assert_eq!(safe_text_capped("a", 1), "a");
        assert_eq!(safe_text_capped("abc", 0), "");
        assert_eq!(safe_text_capped("", 0), "");
    }

    #[test]
    fn exhaustive_properties_over_every_code_point() {
        // Output never contains a neutralised character and each input character
        // maps to exactly one output character.
        for cp in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let mut buf = [0u8; 4];
            let out = safe_text(c.encode_utf8(&mut buf));
            assert_eq!(out.chars().count(), 1);
            let o = out.chars().next().unwrap_or(REPLACEMENT);
            assert!(!is_neutralised(o), "U+{cp:04X}");
            assert_eq!(o == REPLACEMENT, is_neutralised(c) || c == REPLACEMENT);
        }
    }

    /// Deterministic pseudo-random strings (no extra dev-dependency): a mix of
    /// printable ASCII, hostile characters and arbitrary code points.
    fn samples() -> Vec<String> {
        let hostile = [
            '\n',
            '\x1b',
            '\u{9b}',
            '\u{202e}',
            '\u{2066}',
            '\u{200b}',
            '\u{feff}',
            '\u{e0041}',
            '\u{fe0f}',
            '\u{3164}',
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..2000)
            .map(|_| {
                let len = (next() % 400) as usize;
                (0..len)
                    .map(|_| match next() % 4 {
                        0 => hostile[(next() % hostile.len() as u64) as usize],
                        1 => char::from_u32((next() % 0x11_0000) as u32).unwrap_or('x'),
                        _ => char::from(b' ' + (next() % 95) as u8),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn property_no_neutralised_output_capped_and_idempotent() {
        for s in samples() {
            for max in [1usize, 2, 7, 200, 2048] {
                let out = safe_text_capped(&s, max);
                assert!(out.chars().all(|c| !is_neutralised(c)));
                assert!(out.chars().count() <= max);
                assert_eq!(safe_text_capped(&out, max), out, "not idempotent");
                let n = s.chars().count();
                if n <= max {
                    assert_eq!(out.chars().count(), n);
                } else {
                    assert_eq!(out.chars().count(), max);
                    assert!(out.ends_with('…'));
                }
            }
        }
    }

    #[test]
    fn property_identity_on_printable_ascii_up_to_cap() {
        for s in samples() {
            let ascii: String = s.chars().filter(|c| (' '..='~').contains(c)).collect();
            let head: String = ascii.chars().take(200).collect();
            assert_eq!(safe_text(&head), head);
        }
    }
}
