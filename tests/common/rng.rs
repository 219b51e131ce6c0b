//! A deterministic generator for the randomized tests (the library's
//! SplitMix64): no dependency, and a seed names every input it makes.

pub struct Rng(gsync_check::litmus::gpu::stress::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(gsync_check::litmus::gpu::stress::Rng::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Mostly small, sometimes large: `1..=max`, log-uniform.
    pub fn size(&mut self, max: usize) -> usize {
        let bits = usize::BITS - max.leading_zeros();
        let cap = 1usize << self.below(bits as usize + 1);
        1 + self.below(cap.min(max))
    }

    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
