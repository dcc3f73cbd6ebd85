//! Regular expressions compiled for the haystacks they actually meet.
//!
//! A Unicode class such as `\d`, `\w` or `[^<>]` compiles into a large UTF-8
//! automaton: about half a millisecond each, which is most of what doctor spends on
//! a small home. On an ASCII haystack (nearly every config value) the same pattern
//! compiled without Unicode matches exactly the same text, because the Unicode
//! classes restricted to ASCII are their ASCII forms (`\d` is `[0-9]`, `\w` is
//! `[0-9A-Za-z_]`, `\b` follows from `\w`). So each pattern is compiled lazily in
//! the form a haystack needs: the ASCII one for ASCII text, the full Unicode one the
//! first time anything else comes along. A test checks both forms agree on ASCII.
//!
//! A pattern a small home meets on every launch can also carry a hand-written
//! matcher for ASCII haystacks ([`Pattern::with_matcher`]): compiling even the ASCII
//! form was several percent of a small home's run. A test checks each matcher
//! against the ASCII form on generated haystacks.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

/// One pattern, two lazily compiled forms.
pub(crate) struct Pattern {
    /// The pattern as written, with Unicode classes.
    unicode_src: &'static str,
    /// The same language over ASCII, accepted by a non-Unicode `Regex` (a negated
    /// class must be spelled as ASCII ranges there, or it could match a lone byte).
    ascii_src: &'static str,
    /// Exactly the ASCII form's `is_match`, without compiling it.
    ascii_matcher: Option<fn(&str) -> bool>,
    unicode: OnceLock<Regex>,
    ascii: OnceLock<Regex>,
}

impl Pattern {
    /// A pattern whose text is also valid without Unicode, answered on ASCII
    /// haystacks by `matcher` (see [`Pattern::with_matcher`]).
    pub(crate) const fn matched(src: &'static str, matcher: fn(&str) -> bool) -> Self {
        Self::with_matcher(src, src, matcher)
    }

    /// A pattern with a separate spelling for ASCII haystacks.
    pub(crate) const fn with_ascii_form(
        unicode_src: &'static str,
        ascii_src: &'static str,
    ) -> Self {
        Self::build(unicode_src, ascii_src, None)
    }

    /// A pattern answered on ASCII haystacks by `matcher` (which must say what the
    /// ASCII form `ascii_src`'s `is_match` says) instead of a compiled automaton.
    pub(crate) const fn with_matcher(
        unicode_src: &'static str,
        ascii_src: &'static str,
        matcher: fn(&str) -> bool,
    ) -> Self {
        Self::build(unicode_src, ascii_src, Some(matcher))
    }

    const fn build(
        unicode_src: &'static str,
        ascii_src: &'static str,
        ascii_matcher: Option<fn(&str) -> bool>,
    ) -> Self {
        Pattern {
            unicode_src,
            ascii_src,
            ascii_matcher,
            unicode: OnceLock::new(),
            ascii: OnceLock::new(),
        }
    }

    /// The compiled form for `haystack`.
    pub(crate) fn for_haystack(&self, haystack: &str) -> &Regex {
        if haystack.is_ascii() {
            self.ascii.get_or_init(|| {
                RegexBuilder::new(self.ascii_src)
                    .unicode(false)
                    .build()
                    .expect("constant pattern, ASCII form")
            })
        } else {
            self.unicode
                .get_or_init(|| Regex::new(self.unicode_src).expect("constant pattern"))
        }
    }

    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        match self.ascii_matcher {
            Some(matches) if haystack.is_ascii() => matches(haystack),
            _ => self.for_haystack(haystack).is_match(haystack),
        }
    }

    /// Both forms, for tests that compare them.
    #[cfg(test)]
    pub(crate) fn forms(&self) -> (Regex, Regex) {
        (
            Regex::new(self.unicode_src).expect("constant pattern"),
            RegexBuilder::new(self.ascii_src)
                .unicode(false)
                .build()
                .expect("constant pattern, ASCII form"),
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::refs::ANGLE_SLOT;
    use super::super::supply::{GIT_SHA40, NPM_PINNED, PIP_NAME, PYTHON_NAME, UV_AT_VERSION};
    use super::*;

    /// Every pattern, with pieces its haystacks are made of.
    fn cases() -> Vec<(&'static str, &'static Pattern, Vec<&'static str>)> {
        let npm = vec![
            "@", "pkg", "/", "1", "2.3", "-rc", "+b", "sha512", ":", "-", "ab", "F0", "x_y", " ",
            "\n",
        ];
        vec![
            ("NPM_PINNED", &NPM_PINNED, npm.clone()),
            (
                "UV_AT_VERSION",
                &UV_AT_VERSION,
                vec![
                    "pkg", "[", "]", "extra", "@", "1", ".2", "!", "+", "-", "_", "a", "\u{7f}",
                    "\\", "^",
                ],
            ),
            (
                "GIT_SHA40",
                &GIT_SHA40,
                vec!["@", "0123456789", "abcdef", "ABCDEF", "g", "_", " ", "-"],
            ),
            (
                "PIP_NAME",
                &PIP_NAME,
                vec!["pip", "python", "3", ".", "11", "x", ""],
            ),
            (
                "PYTHON_NAME",
                &PYTHON_NAME,
                vec!["python", "pip", "3", ".", "12", "w", ""],
            ),
            (
                "ANGLE_SLOT",
                &ANGLE_SLOT,
                vec![
                    "<",
                    ">",
                    "your token",
                    "=",
                    "?",
                    ";",
                    "\t",
                    "\n",
                    "x",
                    "\u{0}",
                    "\u{7f}",
                ],
            ),
        ]
    }

    #[test]
    fn ascii_form_matches_like_the_unicode_form_on_ascii() {
        let mut generated = crate::test_gen::Generated::new(0x853c_49e6_748f_ea9b);
        for (name, pattern, pieces) in cases() {
            let (unicode, ascii) = pattern.forms();
            for _ in 0..4000 {
                let hay = generated.text(&pieces, 14);
                assert!(hay.is_ascii());
                let spans = |re: &Regex| re.find_iter(&hay).map(|m| m.range()).collect::<Vec<_>>();
                assert_eq!(spans(&unicode), spans(&ascii), "{name} on {hay:?}");
                if let Some(matches) = pattern.ascii_matcher {
                    assert_eq!(
                        matches(&hay),
                        ascii.is_match(&hay),
                        "{name}'s matcher on {hay:?}"
                    );
                }
            }
            // A 40-hex run for GIT_SHA40 and long slots are not left to chance.
            for hay in [
                "@".to_string() + &"a".repeat(40),
                format!("<{}>", "x".repeat(64)),
                format!("<{}>", "x".repeat(65)),
            ] {
                assert_eq!(
                    unicode.is_match(&hay),
                    ascii.is_match(&hay),
                    "{name} on {hay:?}"
                );
                assert_eq!(
                    pattern.is_match(&hay),
                    ascii.is_match(&hay),
                    "{name} on {hay:?}"
                );
            }
        }
    }

    #[test]
    fn every_launch_pattern_has_a_matcher_that_is_checked_above() {
        // The matchers only help if the patterns met on every launch have one; and
        // each one is compared with its regex in the test above.
        for (name, pattern, _) in cases() {
            let expected = name != "ANGLE_SLOT";
            assert_eq!(pattern.ascii_matcher.is_some(), expected, "{name}");
        }
    }

    #[test]
    fn non_ascii_haystacks_use_the_unicode_form() {
        // U+0663 ARABIC-INDIC DIGIT THREE is `\d` in Unicode and not in ASCII.
        assert!(NPM_PINNED.is_match("pkg@\u{663}"));
        assert!(PIP_NAME.is_match("pip\u{663}"));
        assert!(ANGLE_SLOT.is_match("<é>"));
        assert!(!NPM_PINNED.is_match("pkg@x"));
    }
}
