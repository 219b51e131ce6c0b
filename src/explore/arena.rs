//! The words of the stored states: fixed-stride states in segments that are
//! allocated once and never move.
//!
//! A single growing `Vec` copied the whole arena at every doubling, zeroed
//! every new state before the workers overwrote it, and took its page faults
//! in that sequential zeroing. Segments are allocated zeroed (`calloc`,
//! fresh pages the kernel zeroes on first touch, no `memset`), so a batch's
//! new states are written, and their pages faulted in, by the workers that
//! copy them, in parallel. Segment sizes double from a few states (small
//! runs stay small, as the memory limit tests need) up to a cap of about
//! [`SEGMENT_BYTES`]; then they stay there. Hash compaction keeps only the
//! search queue in a [`queue`](Arena::queue) of small segments, and frees
//! whole segments behind the search's head.

/// Bytes of the largest segment (rounded down to a power of two of states).
const SEGMENT_BYTES: usize = 16 << 20;
/// Bytes of the largest segment of a queue (hash compaction), which frees
/// its segments as the search moves on, so that they must stay small.
const QUEUE_SEGMENT_BYTES: usize = 64 << 10;
/// The fewest states of a queue's largest segment.
const QUEUE_SEGMENT_STATES: usize = 256;
/// States in the first segment.
const FIRST_STATES: usize = 16;

/// States of `words` words each, indexed `0..len`; the segments wholly
/// before [`first_held`](Arena::first_held) may have been dropped.
pub(crate) struct Arena {
    words: usize,
    /// log2 of the first segment's states.
    first_shift: u32,
    /// log2 of the largest (capped) segment's states.
    cap_shift: u32,
    /// Segments in order; `None` once dropped.
    segments: Vec<Option<Box<[u32]>>>,
    /// Segments before this one were dropped.
    dropped: usize,
    /// The first state of segment `dropped`.
    first_held: usize,
    /// States held.
    len: usize,
}

/// Where state `i` lives: its segment and its index in that segment.
#[inline]
fn locate(first_shift: u32, cap_shift: u32, i: usize) -> (usize, usize) {
    let cap = 1usize << cap_shift;
    if i < 2 * cap {
        // Segments of 1, 1, 2, 4, ... times the first segment, up to `cap`.
        let q = i >> first_shift;
        let seg = (usize::BITS - q.leading_zeros()) as usize;
        let start = match seg {
            0 => 0,
            s => 1usize << (first_shift + s as u32 - 1),
        };
        (seg, i - start)
    } else {
        let doubling = (cap_shift - first_shift + 2) as usize;
        let k = i - 2 * cap;
        (doubling + (k >> cap_shift), k & (cap - 1))
    }
}

/// States in segment `seg`.
#[inline]
fn segment_states(first_shift: u32, cap_shift: u32, seg: usize) -> usize {
    let doubling = (cap_shift - first_shift + 2) as usize;
    match seg {
        0 => 1 << first_shift,
        s if s < doubling => 1 << (first_shift + s as u32 - 1),
        _ => 1 << cap_shift,
    }
}

impl Arena {
    /// An empty arena of `words`-word states.
    pub fn new(words: usize) -> Self {
        let cap_states = (SEGMENT_BYTES / 4 / words.max(1)).max(FIRST_STATES);
        Self::with_segments(words, FIRST_STATES, cap_states)
    }

    /// An empty arena of `words`-word states used as a queue: the states
    /// before the search's head are dropped ([`drop_before`](Self::drop_before)).
    pub fn queue(words: usize) -> Self {
        let cap_states = (QUEUE_SEGMENT_BYTES / 4 / words.max(1)).max(QUEUE_SEGMENT_STATES);
        Self::with_segments(words, FIRST_STATES, cap_states)
    }

    /// An empty arena whose segments double from `first` states up to `cap`
    /// (both rounded down to powers of two).
    pub fn with_segments(words: usize, first: usize, cap: usize) -> Self {
        let log2 = |n: usize| usize::BITS - 1 - n.max(1).leading_zeros();
        let first_shift = log2(first);
        Arena {
            words,
            first_shift,
            cap_shift: log2(cap).max(first_shift),
            segments: Vec::new(),
            dropped: 0,
            first_held: 0,
            len: 0,
        }
    }

    fn locate(&self, i: usize) -> (usize, usize) {
        locate(self.first_shift, self.cap_shift, i)
    }

    fn segment_states(&self, seg: usize) -> usize {
        segment_states(self.first_shift, self.cap_shift, seg)
    }

    /// The first state whose words are held.
    pub fn first_held(&self) -> usize {
        self.first_held
    }

    /// The words of state `i` (held, below `len`).
    #[inline]
    pub fn get(&self, i: usize) -> &[u32] {
        debug_assert!(i < self.len);
        let (seg, at) = self.locate(i);
        let segment = self.segments[seg]
            .as_deref()
            .expect("the state's segment is held");
        &segment[at * self.words..(at + 1) * self.words]
    }

    /// Segments needed to hold `n` states.
    fn segments_for(&self, n: usize) -> usize {
        match n {
            0 => 0,
            n => self.locate(n - 1).0 + 1,
        }
    }

    /// Bytes of the segments held.
    pub fn bytes(&self) -> usize {
        let held: usize = (self.dropped..self.segments.len())
            .map(|s| self.segment_states(s))
            .sum();
        held * self.words * 4
    }

    /// Bytes after [`reserve`](Self::reserve)`(additional)` (segments never
    /// move, so nothing else is held meanwhile).
    pub fn bytes_after_reserve(&self, additional: usize) -> usize {
        let more: usize = (self.segments.len()..self.segments_for(self.len + additional))
            .map(|s| self.segment_states(s))
            .sum();
        self.bytes() + more * self.words * 4
    }

    /// Allocates the segments for `additional` more states.
    pub fn reserve(&mut self, additional: usize) {
        let need = self.segments_for(self.len + additional);
        while self.segments.len() < need {
            let n = self.segment_states(self.segments.len()) * self.words;
            self.segments.push(Some(vec![0u32; n].into_boxed_slice()));
        }
    }

    /// Appends `state` (room must be reserved).
    pub fn push(&mut self, state: &[u32]) {
        debug_assert_eq!(state.len(), self.words);
        self.reserve(1);
        let (seg, at) = self.locate(self.len);
        let w = self.words;
        let segment = self.segments[seg].as_deref_mut().expect("a held segment");
        segment[at * w..(at + 1) * w].copy_from_slice(state);
        self.len += 1;
    }

    /// Appends `n` states (room must be reserved) and returns their words
    /// to fill: runs of consecutive states, `(states, words)`, in order.
    pub fn append(&mut self, n: usize) -> Vec<(usize, &mut [u32])> {
        let (start, end) = (self.len, self.len + n);
        assert!(
            self.segments_for(end) <= self.segments.len(),
            "arena room reserved"
        );
        self.len = end;
        let w = self.words;
        let mut runs = Vec::new();
        let mut i = start;
        let (first_shift, cap_shift) = (self.first_shift, self.cap_shift);
        for (seg, segment) in self.segments.iter_mut().enumerate() {
            if i >= end {
                break;
            }
            let (s, at) = locate(first_shift, cap_shift, i);
            if s != seg {
                continue;
            }
            let len = segment_states(first_shift, cap_shift, seg);
            let take = (len - at).min(end - i);
            let segment = segment.as_deref_mut().expect("a held segment");
            runs.push((take, &mut segment[at * w..(at + take) * w]));
            i += take;
        }
        runs
    }

    /// Drops the segments that hold only states before `i`.
    pub fn drop_before(&mut self, i: usize) {
        let keep_from = self.locate(i).0.min(self.segments.len());
        while self.dropped < keep_from {
            self.segments[self.dropped] = None;
            self.first_held += self.segment_states(self.dropped);
            self.dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_double_then_stay_capped() {
        let (f, c) = (2, 4); // log2 of the first and the largest segment
        let sizes: Vec<usize> = (0..8).map(|s| segment_states(f, c, s)).collect();
        assert_eq!(sizes, [4, 4, 8, 16, 16, 16, 16, 16]);
        // Every index maps to the next slot in order.
        let mut expect = (0, 0);
        for i in 0..200 {
            assert_eq!(locate(f, c, i), expect, "state {i}");
            expect.1 += 1;
            if expect.1 == segment_states(f, c, expect.0) {
                expect = (expect.0 + 1, 0);
            }
        }
    }

    #[test]
    fn push_append_get_and_drop() {
        let mut a = Arena::with_segments(3, 2, 8);
        for i in 0..5u32 {
            a.push(&[i, i + 1, i + 2]);
        }
        a.reserve(40);
        let runs = a.append(40);
        assert!(runs.len() > 1, "the batch straddles segments");
        let mut next = 5;
        for (n, words) in runs {
            assert_eq!(words.len(), n * 3);
            for w in words.chunks_exact_mut(3) {
                w.copy_from_slice(&[next, next + 1, next + 2]);
                next += 1;
            }
        }
        assert_eq!(next, 45);
        assert_eq!(a.len, 45);
        for i in 0..45 {
            assert_eq!(a.get(i), &[i as u32, i as u32 + 1, i as u32 + 2]);
        }
        let before = a.bytes();
        a.drop_before(30);
        assert!(a.first_held() <= 30 && a.first_held() > 0);
        assert!(a.bytes() < before);
        assert_eq!(a.get(30), &[30, 31, 32]);
        assert_eq!(a.bytes_after_reserve(0), a.bytes());
        let projected = a.bytes_after_reserve(100);
        a.reserve(100);
        assert_eq!(projected, a.bytes());
    }

    #[test]
    fn zero_word_states() {
        let mut a = Arena::new(0);
        a.push(&[]);
        a.push(&[]);
        assert_eq!(a.get(1), &[] as &[u32]);
    }
}
