//! A small deterministic generator for the property tests, so that a
//! failure replays from its seed.

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next value (xorshift64).
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A short word over `a`-`d`, so that random words often coincide.
    pub(crate) fn word(&mut self) -> String {
        let len = 1 + self.next() % 6;
        (0..len)
            .map(|_| (b'a' + (self.next() % 4) as u8) as char)
            .collect()
    }
}
