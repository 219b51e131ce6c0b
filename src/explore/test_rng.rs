//! A small seeded pseudo-random generator (xorshift64*) for the unit
//! tests' reproducible random graphs (a nonzero seed: zero stays zero).

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A draw in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % n
    }
}
