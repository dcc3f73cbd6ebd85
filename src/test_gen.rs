//! Generated inputs for tests that hold a fast path to its plain definition: strings
//! built from given pieces by a fixed-seed xorshift64, so every run sees the same
//! inputs and a failure names one of them.

/// A deterministic source of test strings.
pub(crate) struct Generated {
    state: u64,
}

impl Generated {
    /// `seed` must not be zero (xorshift stays at zero).
    pub(crate) fn new(seed: u64) -> Self {
        Generated { state: seed }
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// A number below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n.max(1) as u64).unwrap_or(0)
    }

    /// One of `items`, which must not be empty.
    pub(crate) fn pick<'i, T>(&mut self, items: &'i [T]) -> &'i T {
        &items[self.below(items.len())]
    }

    /// A string of fewer than `max_pieces` pieces, each chosen from `pieces`.
    pub(crate) fn text(&mut self, pieces: &[&str], max_pieces: usize) -> String {
        let n = self.next() % max_pieces.max(1) as u64;
        (0..n)
            .map(|_| pieces[(self.next() % pieces.len() as u64) as usize])
            .collect()
    }
}
