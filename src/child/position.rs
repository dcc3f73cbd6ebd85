//! Byte offsets to 1-based (line, column) positions, column in Unicode code points.
//!
//! Line breaks are `\n`, `\r\n` and a lone `\r`, as editors count them. A leading
//! UTF-8 byte order mark is not a column. Offsets are resolved in one linear pass
//! over the text however many there are, so 20,000 server positions in an 8 MiB
//! single-line file cost one scan, not 20,000. A reader whose parser counted the
//! line breaks before each offset ([`Lines::at_marked`]) skips even that scan for
//! the lines between them, and counts only the columns of an offset's own line.

use super::json::LineMark;

/// Position of one byte offset (`offset` past the end clamps to the end).
pub(crate) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    line_cols(text, &[offset])
        .first()
        .copied()
        .unwrap_or((1, 1))
}

/// Positions of many byte offsets, returned in the order given.
pub(crate) fn line_cols(text: &str, offsets: &[usize]) -> Vec<(u32, u32)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_unstable_by_key(|&i| offsets.get(i).copied().unwrap_or(0));
    let mut out = vec![(1u32, 1u32); offsets.len()];

    let bytes = text.as_bytes();
    let mut at = Cursor::start(text);
    for idx in order {
        let target = offsets.get(idx).copied().unwrap_or(0).min(bytes.len());
        at.advance(bytes, target);
        if let Some(slot) = out.get_mut(idx) {
            *slot = (at.line, at.col);
        }
    }
    out
}

/// Positions of offsets given in ascending order, each resolved from the one
/// before: a reader that meets its offsets in file order resolves all of them in
/// one pass over the text, without collecting and sorting them first. An offset
/// behind the last one (a reader never asks for one) is resolved from the start.
pub(crate) struct Lines<'t> {
    text: &'t str,
    at: Cursor,
}

impl<'t> Lines<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Lines {
            text,
            at: Cursor::start(text),
        }
    }

    /// The position of `offset` ([`line_col`]'s answer).
    pub(crate) fn at(&mut self, offset: usize) -> (u32, u32) {
        let bytes = self.text.as_bytes();
        let target = offset.min(bytes.len());
        if target < self.at.i {
            return line_col(self.text, offset);
        }
        self.at.advance(bytes, target);
        (self.at.line, self.at.col)
    }

    /// The position of `offset`, given `mark`: the line breaks before it as the
    /// parser counted them in the trivia it skipped ([`LineMark`]). The text
    /// between the last position and `offset` is then not scanned for breaks: on
    /// the same line only its columns are counted, on a later line only the columns
    /// from that line's start. A mark that cannot be right for this text (its line
    /// starts behind the last position, or past `offset`) is ignored and `offset`
    /// resolved as [`Lines::at`] does.
    pub(crate) fn at_marked(&mut self, offset: usize, mark: LineMark) -> (u32, u32) {
        let bytes = self.text.as_bytes();
        let target = offset.min(bytes.len());
        let line = mark.breaks.saturating_add(1);
        if target < self.at.i {
            return self.at(offset);
        }
        if line != self.at.line {
            if line < self.at.line || mark.line_start < self.at.i || mark.line_start > target {
                return self.at(offset);
            }
            self.at = Cursor {
                line,
                col: 1,
                i: mark.line_start,
            };
        }
        let columns = bytes.get(self.at.i..target).map_or(0, columns_in);
        self.at.col = self
            .at
            .col
            .saturating_add(u32::try_from(columns).unwrap_or(u32::MAX));
        self.at.i = target;
        (self.at.line, self.at.col)
    }
}

/// A position in the text: byte `i` is at (`line`, `col`).
struct Cursor {
    line: u32,
    col: u32,
    i: usize,
}

impl Cursor {
    /// The start of the text: past a byte order mark, which is not a column.
    fn start(text: &str) -> Self {
        Cursor {
            line: 1,
            col: 1,
            i: if text.starts_with('\u{FEFF}') { 3 } else { 0 },
        }
    }

    /// Move to byte `target` (no-op when it is behind). Line breaks are counted in
    /// a vectorized pass (found with `memchr` when the step holds a `\r`) and
    /// columns counted only after the last one, so an 8 MiB file is resolved at
    /// memory speed rather than one branchy step per byte.
    fn advance(&mut self, bytes: &[u8], target: usize) {
        let Some(segment) = bytes.get(self.i..target) else {
            return;
        };
        // A short step within one line (from one value to the next, in a file
        // written on one line): its columns counted, and the absence of a line
        // break confirmed, in the same pass. A step with a break takes the way below.
        if segment.len() <= SHORT_STEP {
            let (columns, breaks) = columns_and_breaks(segment);
            if !breaks {
                self.col = self
                    .col
                    .saturating_add(u32::try_from(columns).unwrap_or(u32::MAX));
                self.i = target;
                return;
            }
        }
        // Most files break lines with `\n` alone: the breaks are then counted in one
        // vectorized pass and the last one found from the end, instead of one
        // search call per line (a pretty-printed history has a line every 60 bytes).
        let (newlines, carriage_returns) = newlines_and_carriage_returns(segment);
        let mut line_start = None;
        if carriage_returns == 0 {
            self.line = self
                .line
                .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            line_start = memchr::memrchr(b'\n', segment).map(|last| last + 1);
        } else {
            for p in memchr::memchr2_iter(b'\n', b'\r', segment) {
                let at = self.i + p;
                if ends_line(bytes, at) {
                    self.line = self.line.saturating_add(1);
                    line_start = Some(p + 1);
                }
            }
        }
        // Columns count code points: every byte but UTF-8 continuation bytes, and
        // not the `\r` of a `\r\n` whose `\n` lies beyond `target`.
        let counted = |s: &[u8]| u32::try_from(columns_in(s)).unwrap_or(u32::MAX);
        match line_start {
            Some(start) => self.col = 1u32.saturating_add(counted(&segment[start..])),
            None => self.col = self.col.saturating_add(counted(segment)),
        }
        self.i = target;
    }
}

/// Whether the `\n` or `\r` at `at` ends a line: `\r\n` is one break, counted
/// at the `\n`.
pub(crate) fn ends_line(bytes: &[u8], at: usize) -> bool {
    bytes.get(at) == Some(&b'\n') || bytes.get(at + 1) != Some(&b'\n')
}

/// Steps up to this many bytes are first tried as a single line ([`Cursor::advance`]).
const SHORT_STEP: usize = 1024;

// The three counters below share their shape (chunks of 255 into byte-wide
// counters) and are written out one by one on purpose: one generic helper over an
// array of tests, measured in their place, parsed 64 MiB of history at 0.57-0.66
// ms per MiB against 0.47-0.52 for these (`cargo bench --bench parse`, nine
// alternating runs of each): it was not compiled as tightly as each of them is.

/// [`columns_in`] of `s`, and whether `s` holds a `\n` or `\r`.
fn columns_and_breaks(s: &[u8]) -> (usize, bool) {
    let mut total = 0usize;
    let mut breaks = 0u8;
    for chunk in s.chunks(255) {
        let mut n: u8 = 0;
        for &b in chunk {
            n = n.wrapping_add(u8::from((b & 0xC0 != 0x80) & (b != b'\r')));
            breaks |= u8::from((b == b'\n') | (b == b'\r'));
        }
        total += usize::from(n);
    }
    (total, breaks != 0)
}

/// How many `\n` and how many `\r` bytes `s` holds, counted as [`columns_in`] counts.
fn newlines_and_carriage_returns(s: &[u8]) -> (usize, usize) {
    let (mut newlines, mut carriage_returns) = (0usize, 0usize);
    for chunk in s.chunks(255) {
        let (mut n, mut r): (u8, u8) = (0, 0);
        for &b in chunk {
            n = n.wrapping_add(u8::from(b == b'\n'));
            r = r.wrapping_add(u8::from(b == b'\r'));
        }
        newlines += usize::from(n);
        carriage_returns += usize::from(r);
    }
    (newlines, carriage_returns)
}

/// Bytes of `s` that start a code point, not counting `\r`. Counted in chunks of
/// 255 into a byte-wide counter so that the loop compiles to byte-lane SIMD: a
/// one-line 8 MiB file is counted whole.
fn columns_in(s: &[u8]) -> usize {
    let mut total = 0usize;
    for chunk in s.chunks(255) {
        let mut n: u8 = 0;
        for &b in chunk {
            n = n.wrapping_add(u8::from((b & 0xC0 != 0x80) & (b != b'\r')));
        }
        total += usize::from(n);
    }
    total
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_code_point_columns() {
        let text = "ab\n\"é😀\" x\r\ny\rz";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 2), (1, 3));
        assert_eq!(line_col(text, 3), (2, 1));
        // After `"é😀"` and a space: 1 + 4 code points + 1.
        let x = text.find('x').unwrap();
        assert_eq!(line_col(text, x), (2, 6));
        assert_eq!(line_col(text, text.find('y').unwrap()), (3, 1));
        assert_eq!(line_col(text, text.find('z').unwrap()), (4, 1));
        assert_eq!(line_col(text, 10_000), (4, 2));
    }

    #[test]
    fn many_offsets_any_order_and_bom() {
        let text = "\u{FEFF}a\nbc";
        let got = line_cols(text, &[5, 3, 0, 6]);
        assert_eq!(got, vec![(2, 1), (1, 1), (1, 1), (2, 2)]);
    }

    /// The byte-at-a-time definition the fast path must agree with.
    fn naive(text: &str, offset: usize) -> (u32, u32) {
        let bytes = text.as_bytes();
        let (mut line, mut col) = (1u32, 1u32);
        let start = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
        for i in start..offset.min(bytes.len()) {
            match bytes[i] {
                b'\n' => (line, col) = (line + 1, 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => (line, col) = (line + 1, 1),
                b'\r' => {}
                b if b & 0xC0 == 0x80 => {}
                _ => col += 1,
            }
        }
        (line, col)
    }

    /// The forward cursor answers as the one-offset definition, for offsets in
    /// ascending order (steps short and long, across every kind of line break, and
    /// in text broken by `\n` alone, which long steps count apart) and for one
    /// behind it.
    #[test]
    fn lines_agree_with_line_col() {
        let long = "y".repeat(700);
        let every_break = [
            "a", "\n", "\r", "\r\n", "é", "😀", " ", "\u{FEFF}", "\"x\"", &long,
        ];
        let newlines_only = [
            "a", "\n", "\n\n", "é", "😀", " ", "\u{FEFF}", "\"x\"", &long,
        ];
        let mut generated = crate::test_gen::Generated::new(0x1f2e_3d4c_5b6a_7988);
        for round in 0..3000 {
            let pieces: &[&str] = if round % 2 == 0 {
                &every_break
            } else {
                &newlines_only
            };
            let text = generated.text(pieces, 24);
            let mut lines = Lines::new(&text);
            let mut offset = 0;
            let mut step = 1;
            while offset <= text.len() + 1 {
                assert_eq!(
                    lines.at(offset),
                    naive(&text, offset),
                    "{text:?} at {offset}"
                );
                offset += step;
                step = step % 1500 + 1 + step / 2;
            }
            assert_eq!(lines.at(0), (1, 1));
        }
    }

    /// The mark the parser would give: breaks before `offset` and where its line
    /// starts ([`LineMark`]).
    fn mark(text: &str, offset: usize) -> LineMark {
        let b = text.as_bytes();
        let mut m = LineMark {
            breaks: 0,
            line_start: if text.starts_with('\u{FEFF}') { 3 } else { 0 },
        };
        for i in 0..offset.min(b.len()) {
            if b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')) {
                m.breaks += 1;
                m.line_start = i + 1;
            }
        }
        m
    }

    /// Positions resolved from marks are `line_col`'s; a mark that cannot be right
    /// (a line behind the cursor's, a line start behind the cursor or past the
    /// offset) is ignored rather than trusted, and so is an offset behind the cursor.
    #[test]
    fn marked_positions_agree_with_line_col() {
        let long = "y".repeat(1500);
        let pieces = [
            "a", "\n", "\r", "\r\n", "é", "😀", " ", "\u{FEFF}", "\"x\"", &long,
        ];
        let mut generated = crate::test_gen::Generated::new(0x7a3c_55e1_9d02_4b6f);
        for round in 0..3000 {
            let text = generated.text(&pieces, 24);
            let mut lines = Lines::new(&text);
            let mut offset = 0;
            let mut step = 1;
            while offset <= text.len() + 1 {
                let right = mark(&text, offset);
                let (cursor_line, cursor_i) = (lines.at.line, lines.at.i);
                let given = match (round + offset) % 5 {
                    // Impossible marks: a line behind the cursor's; a line start
                    // past the offset; one behind the cursor, on another line.
                    1 if right.breaks + 1 == cursor_line && right.breaks > 0 => LineMark {
                        breaks: right.breaks - 1,
                        line_start: right.line_start,
                    },
                    2 => LineMark {
                        breaks: right.breaks + 1,
                        line_start: offset + 1,
                    },
                    3 if cursor_i > 0 => LineMark {
                        breaks: right.breaks + 7,
                        line_start: 0,
                    },
                    _ => right,
                };
                let want = line_col(&text, offset);
                if text.is_char_boundary(offset.min(text.len())) {
                    assert_eq!(
                        lines.at_marked(offset, given),
                        want,
                        "{text:?} at {offset} given {given:?}"
                    );
                }
                offset += step;
                step = step % 1500 + 1 + step / 2;
            }
            assert_eq!(lines.at_marked(0, mark(&text, 0)), (1, 1));
        }
    }

    #[test]
    fn agrees_with_the_byte_at_a_time_definition() {
        let pieces = ["a", "\n", "\r", "\r\n", "é", "😀", " ", "\u{FEFF}", "\"x\""];
        let mut generated = crate::test_gen::Generated::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..2000 {
            let text = generated.text(&pieces, 24);
            let offsets: Vec<usize> = (0..=text.len() + 1).rev().collect();
            let got = line_cols(&text, &offsets);
            for (o, g) in offsets.iter().zip(got) {
                assert_eq!(g, naive(&text, *o), "{text:?} at {o}");
            }
        }
    }
}
