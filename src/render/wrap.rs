//! Laying text out in a width: display width of printed text, and line filling
//! that breaks only between words (prose) or after a path separator (paths and
//! targets), never inside one. A word wider than the line gets a line of its own,
//! unbroken: a split word is a different word when copied.
//!
//! Every line after the first starts with the caller's continuation prefix, which
//! is fixed text: a wrapped config value therefore never begins a line, so a
//! server name ending in `mcp-warden pin sh -c …` cannot pose as a command line.

use unicode_width::UnicodeWidthChar;

/// Terminal columns taken by `s`: East Asian wide characters count 2, combining
/// marks and other zero-width characters 0 (the width `wcwidth` gives each).
pub fn display_width(s: &str) -> usize {
    // Printed text has passed `safe_text`, so ASCII is printable: one column each.
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Where a piece of text may be broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breaks {
    /// Only at spaces (prose, messages, evidence).
    Words,
    /// At spaces and after `/` or `#` (paths, targets): the separator stays at the
    /// end of its line.
    Path,
    /// Nowhere: one word.
    None,
}

/// The unbreakable pieces of `text`: `(glue, atom)` pairs, where `glue` is what
/// separates the atom from the previous one (spaces, or nothing after a path
/// separator) and is dropped when a line breaks there.
///
/// An iterator, not a list: a report pushes hundreds of thousands of cells, and
/// one allocation per cell was a large share of its time.
fn atoms(text: &str, breaks: Breaks) -> Atoms<'_> {
    Atoms {
        text,
        breaks,
        chars: text.char_indices(),
        glue_start: 0,
        atom_start: None,
        whole: breaks == Breaks::None,
    }
}

/// The iterator of [`atoms`].
struct Atoms<'t> {
    text: &'t str,
    breaks: Breaks,
    chars: std::str::CharIndices<'t>,
    glue_start: usize,
    atom_start: Option<usize>,
    /// [`Breaks::None`]: the whole text is one atom, not yet returned.
    whole: bool,
}

impl<'t> Iterator for Atoms<'t> {
    type Item = (&'t str, &'t str);

    fn next(&mut self) -> Option<(&'t str, &'t str)> {
        let text = self.text;
        if self.breaks == Breaks::None {
            return std::mem::take(&mut self.whole).then_some(("", text));
        }
        for (i, c) in self.chars.by_ref() {
            if c == ' ' {
                if let Some(start) = self.atom_start.take() {
                    let piece = (&text[self.glue_start..start], &text[start..i]);
                    self.glue_start = i;
                    return Some(piece);
                }
                continue;
            }
            let start = *self.atom_start.get_or_insert(i);
            if self.breaks == Breaks::Path && (c == '/' || c == '#') {
                let end = i + c.len_utf8();
                let piece = (&text[self.glue_start..start], &text[start..end]);
                self.glue_start = end;
                self.atom_start = None;
                return Some(piece);
            }
        }
        let start = self.atom_start.take()?;
        Some((&text[self.glue_start..start], &text[start..]))
    }
}

/// Lines being filled in a buffer: the first after `first`, each following one
/// after `rest`, at most `width` columns wide unless a single atom is wider.
pub struct Lines<'b> {
    buf: &'b mut String,
    width: usize,
    rest: &'b str,
    rest_width: usize,
    /// Columns used on the current line, prefix included.
    used: usize,
    /// Nothing but the prefix on the current line yet.
    empty: bool,
    color: bool,
}

impl<'b> Lines<'b> {
    /// Start a line in `buf` with `first`.
    pub fn new(
        buf: &'b mut String,
        width: usize,
        first: &str,
        rest: &'b str,
        color: bool,
    ) -> Lines<'b> {
        buf.push_str(first);
        Lines {
            buf,
            width,
            rest,
            rest_width: display_width(rest),
            used: display_width(first),
            empty: true,
            color,
        }
    }

    /// Append `text`, separated from what precedes it on the line by `gap`,
    /// breaking it where `breaks` allows; painted with `sgr` when colour is on.
    pub fn push(&mut self, gap: &str, text: &str, breaks: Breaks, sgr: &str) -> &mut Self {
        // Painted, each atom is wrapped in its own colour codes.
        let unpainted = !self.color || sgr.is_empty();
        let gap_w = display_width(gap);
        if breaks != Breaks::None
            && unpainted
            && text.is_ascii()
            && self.used + gap_w + text.len() <= self.width
        {
            // It fits as it is, so no atom can break the line: the atoms, each after
            // its glue, are the text without its leading and trailing spaces (the
            // glue before the first is the gap, dropped at the start of a line).
            // Most header lines and cells are such pieces: walking their atoms one
            // character at a time took about 1.3 ms of the large home's text
            // header (about 4.4 ms in all). ASCII only: its width is its length,
            // so the width of the whole is the sum of the atoms' widths, as the
            // walk counts them, whatever the text holds.
            let trimmed = text.trim_matches(' ');
            if !trimmed.is_empty() {
                if !self.empty {
                    self.buf.push_str(gap);
                    self.used += gap_w;
                }
                self.buf.push_str(trimmed);
                self.used += trimmed.len();
                self.empty = false;
            }
            return self;
        }
        self.push_atoms(gap, text, breaks, sgr)
    }

    /// [`Lines::push`] one atom at a time, breaking the line where the next does
    /// not fit.
    fn push_atoms(&mut self, gap: &str, text: &str, breaks: Breaks, sgr: &str) -> &mut Self {
        // A piece that fits on a line of its own is not broken to fill this one:
        // `~/.config/Code/User/mcp.json:4` reads better whole on the next line.
        let whole = display_width(text);
        if !self.empty
            && self.used + display_width(gap) + whole > self.width
            && self.rest_width + whole <= self.width
        {
            self.break_line();
        }
        for (i, (glue, atom)) in atoms(text, breaks).enumerate() {
            let glue = if i == 0 { gap } else { glue };
            let atom_w = display_width(atom);
            let glue_w = if self.empty { 0 } else { display_width(glue) };
            if !self.empty && self.used + glue_w + atom_w > self.width {
                self.break_line();
            } else if !self.empty {
                self.buf.push_str(glue);
                self.used += glue_w;
            }
            crate::render::style::push_painted(self.buf, self.color, sgr, atom);
            self.used += atom_w;
            self.empty = false;
        }
        self
    }

    /// Start a new line (after the continuation prefix).
    pub fn break_line(&mut self) {
        self.buf.push('\n');
        self.buf.push_str(self.rest);
        self.used = self.rest_width;
        self.empty = true;
    }

    /// End the last line.
    pub fn finish(self) {
        self.buf.push('\n');
    }
}

/// `text` filled into lines of `width` columns, the first after `first` and the
/// others after `rest`, breaking where `breaks` allows (no colour).
pub fn wrapped(text: &str, breaks: Breaks, width: usize, first: &str, rest: &str) -> String {
    let mut buf = String::new();
    let mut lines = Lines::new(&mut buf, width, first, rest, false);
    lines.push("", text, breaks, "");
    lines.finish();
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_breaks_at_spaces_only() {
        assert_eq!(wrapped("a bb ccc", Breaks::Words, 4, "", ""), "a bb\nccc\n");
        // A word longer than the line is never cut: it gets a line of its own.
        assert_eq!(
            wrapped("x abcdefghij y", Breaks::Words, 4, "", ""),
            "x\nabcdefghij\ny\n"
        );
        assert_eq!(wrapped("", Breaks::Words, 4, "> ", ". "), "> \n");
        assert_eq!(wrapped("a  b", Breaks::Words, 10, "", ""), "a  b\n");
    }

    #[test]
    fn prefixes_count_and_lead_every_line() {
        assert_eq!(
            wrapped("one two three", Breaks::Words, 9, "│ ", "│ "),
            "│ one two\n│ three\n"
        );
        assert_eq!(
            wrapped("one two three", Breaks::Words, 9, "", "    "),
            "one two\n    three\n"
        );
    }

    #[test]
    fn paths_break_after_separators() {
        assert_eq!(
            wrapped("~/.config/Claude/x.json#srv", Breaks::Path, 12, "", ""),
            "~/.config/\nClaude/\nx.json#srv\n"
        );
        assert_eq!(wrapped("/a b/c", Breaks::Path, 3, "", ""), "/a\nb/c\n");
        assert_eq!(wrapped("a/b", Breaks::None, 1, "", ""), "a/b\n");
    }

    #[test]
    fn wide_and_combining_characters_take_their_columns() {
        assert_eq!(display_width("日本語"), 6);
        assert_eq!(display_width("e\u{301}"), 1);
        assert_eq!(wrapped("日本 語", Breaks::Words, 4, "", ""), "日本\n語\n");
        assert_eq!(
            wrapped("e\u{301}e\u{301} ab", Breaks::Words, 5, "", ""),
            "e\u{301}e\u{301} ab\n"
        );
    }

    /// Every push, through the whole-piece path where it applies and one atom at
    /// a time, leaves the same text and the same line state: texts of spaces,
    /// separators, wide and zero-width characters and control bytes, pushed after
    /// every kind of line start, painted or not, at widths from 1 to 24.
    #[test]
    fn a_piece_that_fits_is_written_as_its_atoms_would_write_it() {
        const PARTS: &[&str] = &[
            " ", "  ", "a", "bc", "/", "#", "de/f", "日", "e\u{301}", "\u{1}", "x y", "é",
        ];
        let mut generated = crate::test_gen::Generated::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let mut pieces = Vec::new();
            for _ in 0..1 + generated.below(3) {
                let text = generated.text(PARTS, 6);
                let gap = *generated.pick(&["", " ", "  "]);
                let breaks = *generated.pick(&[Breaks::Words, Breaks::Path, Breaks::None]);
                pieces.push((gap, text, breaks));
            }
            let width = 1 + generated.below(24);
            let first = *generated.pick(&["", "  ", "│ "]);
            let color = generated.below(2) == 1;
            let sgr = *generated.pick(&["", "\x1b[1m"]);
            let (mut fast, mut slow) = (String::new(), String::new());
            let mut a = Lines::new(&mut fast, width, first, "  ", color);
            let mut b = Lines::new(&mut slow, width, first, "  ", color);
            for (gap, text, breaks) in &pieces {
                a.push(gap, text, *breaks, sgr);
                b.push_atoms(gap, text, *breaks, sgr);
                assert_eq!(
                    (a.used, a.empty),
                    (b.used, b.empty),
                    "{pieces:?} at {width}"
                );
            }
            a.finish();
            b.finish();
            assert_eq!(fast, slow, "{pieces:?} at {width}");
        }
    }

    #[test]
    fn colour_wraps_each_atom() {
        let mut buf = String::new();
        let mut lines = Lines::new(&mut buf, 80, "", "", true);
        lines.push("", "a b", Breaks::Words, "\x1b[1m");
        lines.finish();
        assert_eq!(buf, "\x1b[1ma\x1b[0m \x1b[1mb\x1b[0m\n");
    }
}
