//! The codes of the stored states (see `codec`): variable-length byte
//! strings packed in segments that are allocated once and never move, and
//! the location of each state's code.
//!
//! A single growing buffer would be copied at every doubling. Segments are
//! allocated zeroed (`calloc`: fresh pages the kernel zeroes on first
//! touch, no `memset`), so a batch's new codes are written, and their
//! pages faulted in, by the workers that copy them, in parallel. A code
//! never straddles two segments: a segment is closed when the next code
//! does not fit (wasting less than the longest code). Segment sizes double
//! from a few states' worth (small runs stay small, as the memory limit
//! tests need) up to [`SEGMENT_BYTES`]. Hash compaction keeps only the
//! search queue in a [`queue`](Arena::queue) of small segments, and frees
//! whole segments behind the search's head.

use super::limits::{vec_after_reserve, vec_bytes};
use super::table::{advise_huge_pages, prefetch};
use std::mem::MaybeUninit;

/// Bytes of the largest segment (unless one code needs more).
const SEGMENT_BYTES: usize = 16 << 20;
/// Bytes of the largest segment of a queue (hash compaction), which frees
/// its segments as the search moves on, so that they must stay small.
const QUEUE_SEGMENT_BYTES: usize = 64 << 10;
/// The first segment holds this many longest codes.
const FIRST_CODES: usize = 16;
/// Bytes of a cache line (what one prefetch fetches).
const LINE_BYTES: usize = 64;
/// Every segment holds at least this many longest codes (so that at most a
/// quarter of it is lost at its end).
const MIN_CODES: usize = 4;

struct Segment {
    /// `None` once dropped.
    bytes: Option<Box<[u8]>>,
    size: usize,
    /// Bytes filled.
    used: usize,
    /// The first state stored in it (its end if it holds none yet).
    first: usize,
}

/// The codes of states `0..len`; the segments wholly before
/// [`first_held`](Arena::first_held) may have been dropped.
pub(crate) struct Arena {
    /// The longest code.
    max_code: usize,
    first_size: usize,
    cap_size: usize,
    segments: Vec<Segment>,
    /// The segment being filled (the last one with codes).
    filling: usize,
    /// Segments before this one were dropped.
    dropped: usize,
    /// `locs[i - locs_base]`: segment (high 32 bits) and offset (low 32
    /// bits) of the code of state `i`, for held states.
    locs: Vec<u64>,
    locs_base: usize,
    /// Locations handed out by the last [`append_groups`](Arena::append_groups)
    /// in the spare room of `locs`, counted by
    /// [`appended`](Arena::appended) once the runs are filled.
    pending: usize,
    /// The first state of segment `dropped`.
    first_held: usize,
    len: usize,
}

/// Room for the codes of consecutive states of one group of
/// [`Arena::append_groups`] in one segment: their bytes and locations,
/// filled in order by [`push`](Run::push).
pub(crate) struct Run<'a> {
    /// The group the states belong to.
    pub group: usize,
    /// The location of the first code.
    base: u64,
    bytes: &'a mut [u8],
    /// Spare room of the arena's locations: the caller zeroes nothing, the
    /// worker that fills the run writes them (and faults in their pages).
    locs: &'a mut [MaybeUninit<u64>],
    /// States and bytes filled so far.
    filled: (usize, usize),
}

impl Run<'_> {
    /// How many states the run holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.locs.len()
    }

    /// Whether every state of the run was pushed.
    pub(crate) fn is_full(&self) -> bool {
        self.filled.0 == self.locs.len()
    }

    /// Stores the code of the run's next state.
    #[inline]
    pub(crate) fn push(&mut self, code: &[u8]) {
        let (i, at) = self.filled;
        self.bytes[at..at + code.len()].copy_from_slice(code);
        self.locs[i].write(self.base + at as u64);
        self.filled = (i + 1, at + code.len());
    }
}

impl Arena {
    /// An empty arena for codes of at most `max_code` bytes.
    pub(super) fn new(max_code: usize) -> Self {
        Self::with_segments(max_code, FIRST_CODES * max_code, SEGMENT_BYTES)
    }

    /// An empty arena like `self` (which must be empty), whose segments
    /// grow to `cap` bytes at most instead.
    pub(super) fn capped(&self, cap: usize) -> Self {
        debug_assert_eq!(self.len, 0);
        Self::with_segments(self.max_code, FIRST_CODES * self.max_code, cap)
    }

    /// An empty arena used as a queue: the states before the search's head
    /// are dropped ([`drop_before`](Self::drop_before)).
    pub(super) fn queue(max_code: usize) -> Self {
        Self::with_segments(max_code, FIRST_CODES * max_code, QUEUE_SEGMENT_BYTES)
    }

    /// An empty arena whose segments double from `first` bytes up to `cap`
    /// (each of at least [`MIN_CODES`] longest codes).
    pub(super) fn with_segments(max_code: usize, first: usize, cap: usize) -> Self {
        let least = (MIN_CODES * max_code).max(1);
        let cap_size = cap.max(least);
        Arena {
            max_code,
            first_size: first.max(least).min(cap_size),
            cap_size,
            segments: Vec::new(),
            filling: 0,
            dropped: 0,
            locs: Vec::new(),
            locs_base: 0,
            pending: 0,
            first_held: 0,
            len: 0,
        }
    }

    fn segment_size(&self, k: usize) -> usize {
        let doubled = self.first_size.saturating_mul(1 << k.min(40));
        doubled.min(self.cap_size)
    }

    /// The first state whose code is held.
    pub(super) fn first_held(&self) -> usize {
        self.first_held
    }

    /// The code of state `i` (held, below `len`), followed by the bytes of
    /// the codes after it in its segment: a code is never a prefix of
    /// another, so comparing a code with the start is exact.
    #[inline]
    pub(super) fn get(&self, i: usize) -> &[u8] {
        debug_assert!(i < self.len && i >= self.first_held);
        let loc = self.locs[i - self.locs_base];
        let seg = &self.segments[(loc >> 32) as usize];
        let bytes = seg.bytes.as_deref().expect("the state's segment is held");
        &bytes[(loc as u32) as usize..seg.used]
    }

    /// The location of state `i`'s code, where it is held (a prefetch's
    /// hint may name any state).
    #[inline]
    fn held_location(&self, i: usize) -> Option<&u64> {
        i.checked_sub(self.locs_base).and_then(|k| self.locs.get(k))
    }

    /// Asks the CPU to fetch the location of state `i`'s code, which
    /// [`prefetch_code`](Self::prefetch_code) then reads. A hint: nothing
    /// where `i` is not held.
    #[inline]
    pub(super) fn prefetch_location(&self, i: usize) {
        if let Some(loc) = self.held_location(i) {
            prefetch(loc);
        }
    }

    /// Asks the CPU to fetch the cache lines of the first `len` bytes of
    /// state `i`'s code (the compare of a code of `len` bytes with it
    /// reads no more). A hint: nothing where `i` is not held.
    #[inline]
    pub(super) fn prefetch_code(&self, i: usize, len: usize) {
        let Some(&loc) = self.held_location(i) else {
            return;
        };
        let Some(seg) = self.segments.get((loc >> 32) as usize) else {
            return;
        };
        let Some(bytes) = seg.bytes.as_deref() else {
            return;
        };
        let at = (loc as u32) as usize;
        let end = (at + len).min(seg.used);
        // The line of the first byte, then the start of each line after.
        let mut line = at;
        while line < end {
            prefetch(&bytes[line]);
            line = (line | (LINE_BYTES - 1)) + 1;
        }
    }

    /// Bytes held: segments and locations.
    pub(super) fn bytes(&self) -> usize {
        let held: usize = self.segments[self.dropped..].iter().map(|s| s.size).sum();
        held + vec_bytes(&self.locs)
    }

    /// The segments to add so that `n` more codes of `bytes` bytes in all
    /// surely fit: each segment takes all but less than a longest code of
    /// its free room.
    fn segments_to_add(&self, bytes: usize) -> usize {
        let absorbs = |free: usize| free.saturating_sub(self.max_code.saturating_sub(1));
        let mut left = bytes;
        let mut k = self.filling;
        while k < self.segments.len() && left > 0 {
            let s = &self.segments[k];
            left = left.saturating_sub(absorbs(s.size - s.used));
            k += 1;
        }
        let mut added = 0;
        while left > 0 {
            left = left.saturating_sub(absorbs(self.segment_size(k)));
            k += 1;
            added += 1;
        }
        added
    }

    /// Bytes after [`reserve`](Self::reserve)`(n, bytes)`, and the size of
    /// the old location buffer if it grows then (segments never move).
    pub(super) fn bytes_after_reserve(&self, n: usize, bytes: usize) -> (usize, usize) {
        let start = self.segments.len();
        let more: usize = (start..start + self.segments_to_add(bytes))
            .map(|k| self.segment_size(k))
            .sum();
        let (locs_after, locs_old) = vec_after_reserve(&self.locs, n);
        (
            self.bytes() - vec_bytes(&self.locs) + more + locs_after,
            locs_old,
        )
    }

    /// Makes room for `n` more codes of `bytes` bytes in all.
    pub(super) fn reserve(&mut self, n: usize, bytes: usize) {
        for _ in 0..self.segments_to_add(bytes) {
            self.add_segment();
        }
        self.locs.reserve(n);
    }

    fn add_segment(&mut self) {
        let size = self.segment_size(self.segments.len());
        let bytes = vec![0u8; size].into_boxed_slice();
        // Claims compare with codes anywhere in the arena.
        advise_huge_pages(&bytes);
        self.segments.push(Segment {
            bytes: Some(bytes),
            size,
            used: 0,
            first: self.len,
        });
    }

    /// Places a code of `len` bytes after the last one: its segment and
    /// offset. Allocates a segment if none has room (reserve to avoid it).
    fn place(&mut self, len: usize) -> (usize, usize) {
        debug_assert!(len <= self.max_code);
        loop {
            if self.filling == self.segments.len() {
                self.add_segment();
            }
            let s = &mut self.segments[self.filling];
            if s.size - s.used >= len {
                let at = s.used;
                s.used += len;
                return (self.filling, at);
            }
            self.filling += 1;
            if let Some(next) = self.segments.get_mut(self.filling) {
                next.first = self.len;
            }
        }
    }

    /// Appends the code `code`.
    pub(super) fn push(&mut self, code: &[u8]) {
        debug_assert_eq!(self.pending, 0, "a batch's locations are counted first");
        let (seg, at) = self.place(code.len());
        self.locs.push((seg as u64) << 32 | at as u64);
        self.len += 1;
        let bytes = self.segments[seg]
            .bytes
            .as_deref_mut()
            .expect("a held segment");
        bytes[at..at + code.len()].copy_from_slice(code);
    }

    /// Appends the states of `groups` (each `(states, bytes)`: a count of
    /// consecutive states and the bytes of their codes) in order, and
    /// returns the room to fill with their codes: [`Run`]s of consecutive
    /// states of one group and one segment, in order. `len_of(g, j)` is the
    /// code length of state `j` of group `g`; it is asked only for a group
    /// that does not fit in the segment being filled, so that placing a
    /// batch is one step per group, and the workers that fill the runs
    /// write the states' locations (into spare room, which
    /// [`appended`](Self::appended) counts once they are filled). Codes
    /// land where one-by-one placement would put them.
    pub(super) fn append_groups(
        &mut self,
        groups: &[(usize, usize)],
        len_of: impl Fn(usize, usize) -> usize,
    ) -> Vec<Run<'_>> {
        // (group, segment, first byte, end byte, states) of each run.
        let mut spans: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
        let mut total = 0;
        for (g, &(n, bytes)) in groups.iter().enumerate() {
            total += n;
            match self.segments.get_mut(self.filling) {
                Some(s) if n > 0 && s.size - s.used >= bytes => {
                    spans.push((g, self.filling, s.used, s.used + bytes, n));
                    s.used += bytes;
                    self.len += n;
                }
                _ => {
                    for j in 0..n {
                        let len = len_of(g, j);
                        let (seg, at) = self.place(len);
                        self.len += 1;
                        match spans.last_mut() {
                            Some(r) if (r.0, r.1) == (g, seg) => (r.3, r.4) = (at + len, r.4 + 1),
                            _ => spans.push((g, seg, at, at + len, 1)),
                        }
                    }
                }
            }
        }
        debug_assert_eq!(self.pending, 0, "a batch's locations are counted first");
        self.locs.reserve(total);
        self.pending = total;
        let mut locs = &mut self.locs.spare_capacity_mut()[..total];
        let mut runs = Vec::with_capacity(spans.len());
        let mut spans = spans.into_iter().peekable();
        for (k, s) in self.segments.iter_mut().enumerate() {
            let bytes = s.bytes.as_deref_mut();
            let mut rest = match bytes {
                Some(b) => &mut b[..],
                None => &mut [][..],
            };
            let mut cut = 0;
            while let Some(&(group, seg, at, to, n)) = spans.peek() {
                if seg != k {
                    break;
                }
                let (_, tail) = std::mem::take(&mut rest).split_at_mut(at - cut);
                let (mine, tail) = tail.split_at_mut(to - at);
                let (my_locs, more) = std::mem::take(&mut locs).split_at_mut(n);
                (rest, locs, cut) = (tail, more, to);
                runs.push(Run {
                    group,
                    base: (seg as u64) << 32 | at as u64,
                    bytes: mine,
                    locs: my_locs,
                    filled: (0, 0),
                });
                spans.next();
            }
        }
        runs
    }

    /// Counts the locations the runs of the last
    /// [`append_groups`](Self::append_groups) wrote.
    ///
    /// # Safety
    ///
    /// Every one of those runs was filled ([`Run::is_full`]).
    pub(super) unsafe fn appended(&mut self) {
        // SAFETY: the runs split the first `pending` items of the spare
        // room between them, and the caller filled every run.
        unsafe { self.locs.set_len(self.locs.len() + self.pending) };
        self.pending = 0;
    }

    /// Drops the segments that hold only states before `i`, and their
    /// locations.
    pub(super) fn drop_before(&mut self, i: usize) {
        while self.dropped < self.filling && self.segments[self.dropped + 1].first <= i {
            self.segments[self.dropped].bytes = None;
            self.dropped += 1;
        }
        self.first_held = self.segments.get(self.dropped).map_or(0, |s| s.first);
        let gone = self.first_held - self.locs_base;
        // Shift the locations down once half of them are gone (amortized).
        if gone > 0 && gone * 2 >= self.locs.len() {
            self.locs.drain(..gone);
            self.locs_base += gone;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A code of `len` bytes naming `i`.
    fn code(i: usize, len: usize) -> Vec<u8> {
        (0..len).map(|k| (i * 7 + k) as u8).collect()
    }

    fn len_of(i: usize) -> usize {
        1 + i % 9
    }

    #[test]
    fn push_append_get_and_drop() {
        let mut a = Arena::with_segments(9, 40, 80);
        for i in 0..5 {
            a.push(&code(i, len_of(i)));
        }
        let lens: Vec<usize> = (5..200).map(len_of).collect();
        let total = lens.iter().sum();
        let (projected, _) = a.bytes_after_reserve(lens.len(), total);
        a.reserve(lens.len(), total);
        assert_eq!(projected, a.bytes());
        let segments = a.segments.len();
        // Groups of up to 20 states: most fit their segment whole, some
        // straddle two.
        let groups: Vec<(usize, usize)> = (5..200)
            .step_by(20)
            .map(|g| {
                let n = 20.min(200 - g);
                (n, (g..g + n).map(len_of).sum())
            })
            .collect();
        let runs = a.append_groups(&groups, |g, j| len_of(5 + 20 * g + j));
        assert!(runs.len() > groups.len(), "the batch straddles segments");
        let mut next = 5;
        for mut run in runs {
            assert_eq!((next - 5) / 20, run.group, "runs in group order");
            for _ in 0..run.len() {
                run.push(&code(next, len_of(next)));
                next += 1;
            }
            assert_eq!(run.filled.1, run.bytes.len(), "run {} filled", run.group);
        }
        // SAFETY: every run was filled (the assertions above).
        unsafe { a.appended() };
        assert_eq!(next, 200);
        assert_eq!(a.segments.len(), segments, "reserve made room for all");
        for i in 0..200 {
            assert!(a.get(i).starts_with(&code(i, len_of(i))), "state {i}");
        }
        let mut one_by_one = Arena::with_segments(9, 40, 80);
        for i in 0..200 {
            one_by_one.push(&code(i, len_of(i)));
        }
        assert_eq!(a.locs, one_by_one.locs, "placed as one by one");
        let before = a.bytes();
        a.drop_before(150);
        assert!(a.first_held() <= 150 && a.first_held() > 0);
        assert!(a.bytes() < before);
        for i in a.first_held()..200 {
            assert!(a.get(i).starts_with(&code(i, len_of(i))), "state {i}");
        }
        a.push(&code(200, 3));
        assert!(a.get(200).starts_with(&code(200, 3)));
    }

    /// The runs of one batch filled on different threads at once (as the
    /// commit's workers do) give the locations one-by-one placement gives.
    #[test]
    fn runs_filled_on_several_threads() {
        let mut a = Arena::with_segments(9, 40, 80);
        let lens: Vec<usize> = (0..300).map(len_of).collect();
        a.reserve(lens.len(), lens.iter().sum());
        let groups: Vec<(usize, usize)> = (0..300)
            .step_by(30)
            .map(|g| (30, (g..g + 30).map(len_of).sum()))
            .collect();
        let runs = a.append_groups(&groups, |g, j| len_of(30 * g + j));
        // Each run's first state, then the runs dealt out to four threads.
        let mut first = 0;
        let mut dealt: Vec<Vec<(usize, Run<'_>)>> = (0..4).map(|_| Vec::new()).collect();
        for (k, run) in runs.into_iter().enumerate() {
            let n = run.len();
            dealt[k % 4].push((first, run));
            first += n;
        }
        std::thread::scope(|s| {
            for mine in dealt {
                s.spawn(move || {
                    for (first, mut run) in mine {
                        for i in first..first + run.len() {
                            run.push(&code(i, len_of(i)));
                        }
                        assert!(run.is_full());
                    }
                });
            }
        });
        // SAFETY: every run was filled (asserted on its thread).
        unsafe { a.appended() };
        let mut one_by_one = Arena::with_segments(9, 40, 80);
        for i in 0..300 {
            one_by_one.push(&code(i, len_of(i)));
            assert!(a.get(i).starts_with(&code(i, len_of(i))), "state {i}");
        }
        assert_eq!(a.locs, one_by_one.locs, "placed as one by one");
    }

    #[test]
    fn empty_codes() {
        let mut a = Arena::new(0);
        a.push(&[]);
        a.push(&[]);
        assert_eq!(a.get(1), &[] as &[u8]);
    }
}
