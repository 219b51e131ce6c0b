//! A growable bit set indexed by state id.

use super::store::StateId;

/// One bit per state, packed in `u64` words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
    len: usize,
}

impl BitSet {
    /// `len` cleared bits.
    pub fn new(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// The `len` bits packed in `words` (bits past `len` clear).
    pub(crate) fn from_words(words: Vec<u64>, len: usize) -> Self {
        assert_eq!(words.len(), len.div_ceil(64), "{len} bits");
        Self { words, len }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `i`. Panics if out of range.
    #[inline]
    pub fn get(&self, i: StateId) -> bool {
        let i = i as usize;
        assert!(i < self.len, "bit {i} out of range");
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    /// Sets bit `i`; returns whether it was clear before.
    #[inline]
    pub fn insert(&mut self, i: StateId) -> bool {
        let i = i as usize;
        assert!(i < self.len, "bit {i} out of range");
        let (w, m) = (i / 64, 1u64 << (i % 64));
        let was_clear = self.words[w] & m == 0;
        self.words[w] |= m;
        was_clear
    }

    /// Appends a bit.
    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        if bit {
            self.words[self.len / 64] |= 1 << (self.len % 64);
        }
        self.len += 1;
    }

    /// Appends `bits` in order, a word at a time.
    pub(crate) fn extend(&mut self, bits: &[bool]) {
        let mut rest = bits;
        while !rest.is_empty() {
            let at = self.len % 64;
            if at == 0 {
                self.words.push(0);
            }
            let n = (64 - at).min(rest.len());
            let word = rest[..n]
                .iter()
                .enumerate()
                .fold(0u64, |w, (i, &b)| w | u64::from(b) << i);
            *self.words.last_mut().expect("a word for the bits") |= word << at;
            self.len += n;
            rest = &rest[n..];
        }
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Set bits in increasing order.
    pub fn iter_ones(&self) -> impl Iterator<Item = StateId> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(wi, &w)| ones_of_word(wi, w))
    }

    /// Clear bits (below `len`) in increasing order.
    pub fn iter_zeros(&self) -> impl Iterator<Item = StateId> + '_ {
        let len = self.len;
        self.words.iter().enumerate().flat_map(move |(wi, &w)| {
            let valid = if (wi + 1) * 64 <= len {
                u64::MAX
            } else {
                (1u64 << (len % 64)) - 1
            };
            ones_of_word(wi, !w & valid)
        })
    }

    pub(crate) fn words_vec(&self) -> &Vec<u64> {
        &self.words
    }

    /// Makes room for `additional` more bits.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let need = (self.len + additional).div_ceil(64);
        self.words.reserve(need.saturating_sub(self.words.len()));
    }

    /// Words to reserve for `additional` more bits (for memory projection).
    pub(crate) fn words_needed(&self, additional: usize) -> usize {
        (self.len + additional)
            .div_ceil(64)
            .saturating_sub(self.words.len())
    }
}

/// The ids of the set bits of word `wi` of a bit set, in increasing order.
fn ones_of_word(wi: usize, mut w: u64) -> impl Iterator<Item = StateId> {
    std::iter::from_fn(move || {
        if w == 0 {
            return None;
        }
        let b = w.trailing_zeros();
        w &= w - 1;
        Some((wi * 64) as StateId + b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_appends_as_push_does() {
        let bits: Vec<bool> = (0..300).map(|i| i % 3 == 0 || i % 7 == 1).collect();
        for split in [0, 1, 63, 64, 65, 130] {
            let mut pushed = BitSet::default();
            let mut extended = BitSet::default();
            for (part, at) in [(&bits[..split], 0), (&bits[split..], split)] {
                extended.extend(part);
                for &b in part {
                    pushed.push(b);
                }
                assert_eq!(extended.len(), at + part.len());
            }
            assert_eq!(extended, pushed, "split at {split}");
        }
    }

    #[test]
    fn bits() {
        let mut b = BitSet::default();
        for i in 0..130 {
            b.push(i % 3 == 0);
        }
        assert_eq!(b.len(), 130);
        assert!(b.get(129) && !b.get(128));
        assert_eq!(b.count_ones(), 44);
        assert_eq!(b.iter_ones().count(), 44);
        assert_eq!(b.iter_zeros().count(), 86);
        assert_eq!(b.iter_zeros().next(), Some(1));
        assert!(b.insert(1));
        assert!(!b.insert(1));
        assert_eq!(b.iter_zeros().next(), Some(2));
        let full = BitSet::new(64);
        assert_eq!(full.iter_zeros().count(), 64);
    }
}
