//! Seeded pseudo-random numbers for the tools whose draws must repeat from
//! a seed alone (the bug hunt's walks, the litmus runs' stress parameters):
//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014), small enough to keep here rather than tie a
//! counterexample's seed to a crate's version.

/// SplitMix64: a 64-bit state advanced by a fixed odd increment, each draw
/// the state mixed. Every seed is fine, zero included.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A draw in `0..n` (`n > 0`; the modulo's bias is below 2^-32 for the
    /// small `n` its users draw from).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn a_seed_repeats_its_draws_and_seeds_differ() {
        let draws = |seed| {
            let mut r = SplitMix64::new(seed);
            (0..8).map(|_| r.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
        assert!(draws(0).iter().all(|&d| d < 1000));
    }

    #[test]
    fn the_first_draw_of_seed_zero_is_the_reference_value() {
        // The reference implementation's first output from state 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
