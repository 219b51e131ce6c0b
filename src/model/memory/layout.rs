//! Where the `ptx` model keeps its state in the flat `u32` array, and the
//! operations on views and histories that every instruction shares.
//!
//! ```text
//! [ location 0: len | message 0 | ... | message H-1 ] [ location 1 ] ...
//! message  = [ value | meta | base | release view | high word? ]
//! [ thread 0: cur | near | far | rel | arrived at barrier 0.. | flags ] [ thread 1 ] ...
//! [ sc view of the device | sc view of block 0 | block 1 | ... ]
//! ```
//!
//! The high word is there only when the program has a 64-bit variable: it
//! holds the upper half of the value of a 64-bit location's write (0 for
//! the others), so a write's two halves are one message, read and placed
//! together. The location of a 64-bit element is its low word; its high
//! word is a location no access names, whose history stays its initial
//! value.
//!
//! A view holds one byte per location: a position in that location's
//! history (4 locations per word). Positions are relative to the oldest
//! message kept, so equal configurations are equal states.

use crate::ir::Scope;

/// The thread's view: the oldest write of each location it may still read.
pub(super) const CUR: usize = 0;
/// Release views of morally strong writes it read from its own block, not
/// yet acquired (a later `fence.cta` or wider acquires them).
pub(super) const NEAR: usize = 1;
/// The same for writes from other blocks (acquired by `fence.gpu`).
pub(super) const FAR: usize = 2;
/// Its view at its last fence: later relaxed stores release it.
pub(super) const REL: usize = 3;
const VIEWS: usize = 4;
/// Its view when it last arrived at each named barrier (`bars`), one per
/// barrier id the program names, after the four above: what an instance
/// of that barrier releases to the threads it lets pass.
pub(super) const ARRIVED: usize = VIEWS;

/// Thread flags: the thread has a release view (REL) ...
pub(super) const HAS_REL: u32 = 1;
/// ... of this scope (bits 1-2) ...
const REL_SCOPE_SHIFT: u32 = 1;
/// ... and (bits 4-31, pc + 1) the instruction it already performed early,
/// to skip when it gets there.
const SKIP_SHIFT: u32 = 4;
/// The bits of the flags a fence keeps.
pub(super) const SKIP_BITS: u32 = !0 << SKIP_SHIFT;

pub(super) fn skip_of(flags: u32) -> Option<u32> {
    let v = flags >> SKIP_SHIFT;
    (v != 0).then(|| v - 1)
}

pub(super) fn with_skip(flags: u32, pc: u32) -> u32 {
    (flags & !SKIP_BITS) | (pc + 1) << SKIP_SHIFT
}

/// Words of a message: its value, meta, base and release view. The base is
/// the position of the newest write of the location the writer knew when it
/// wrote (the writes between the base and the message race with it).
pub(super) const MSG_META: usize = 1;
pub(super) const MSG_BASE: usize = 2;
pub(super) const MSG_VIEW: usize = 3;

/// Message meta: writer thread + 1 in bits 0-10 (0: the initial value).
const WRITER_BITS: u32 = 0x7FF;
pub(super) const STRONG: u32 = 1 << 11;
const SCOPE_SHIFT: u32 = 12;
/// The message carries a release view (in bits 15-16 its scope).
pub(super) const MSG_REL: u32 = 1 << 14;
const MSG_REL_SHIFT: u32 = 15;
/// Written by a read-modify-write that read the message before it.
pub(super) const RMW: u32 = 1 << 17;
const PC_SHIFT: u32 = 18;

pub(super) fn scope_code(scope: Scope) -> u32 {
    match scope {
        Scope::Cta => 0,
        Scope::Gpu => 1,
        Scope::Sys => 2,
    }
}

pub(super) fn scope_of_code(code: u32) -> Scope {
    match code & 3 {
        0 => Scope::Cta,
        1 => Scope::Gpu,
        _ => Scope::Sys,
    }
}

/// The meta word of a write by thread `t` at `pc`.
pub(super) fn meta(t: usize, pc: u32, strong: bool, scope: Scope) -> u32 {
    (t as u32 + 1)
        | if strong { STRONG } else { 0 }
        | scope_code(scope) << SCOPE_SHIFT
        | pc << PC_SHIFT
}

/// The initial value: written before everything, at system scope.
pub(super) fn initial_meta() -> u32 {
    STRONG | scope_code(Scope::Sys) << SCOPE_SHIFT
}

pub(super) fn with_release(meta: u32, scope: Scope) -> u32 {
    meta | MSG_REL | scope_code(scope) << MSG_REL_SHIFT
}

/// The same meta word without a release.
pub(super) fn without_release(meta: u32) -> u32 {
    meta & !(MSG_REL | 3 << MSG_REL_SHIFT)
}

/// The writer of a write forgotten where no step reads it (`forget`): a
/// thread that is not the initial value and is no thread of the launch.
pub(super) const FORGOTTEN_WRITER: usize = WRITER_BITS as usize - 1;

/// The writer of a message (`None`: the initial value).
pub(super) fn writer(meta: u32) -> Option<usize> {
    let w = meta & WRITER_BITS;
    (w != 0).then(|| w as usize - 1)
}

/// The same meta word, written by thread `t`.
pub(super) fn with_writer(meta: u32, t: usize) -> u32 {
    (meta & !WRITER_BITS) | (t as u32 + 1)
}

pub(super) fn write_scope(meta: u32) -> Scope {
    scope_of_code(meta >> SCOPE_SHIFT)
}

pub(super) fn release_scope(meta: u32) -> Scope {
    scope_of_code(meta >> MSG_REL_SHIFT)
}

pub(super) fn write_pc(meta: u32) -> u32 {
    meta >> PC_SHIFT
}

/// The meta word without the writing instruction (kept for race reports only).
pub(super) fn without_pc(meta: u32) -> u32 {
    meta & ((1 << PC_SHIFT) - 1)
}

pub(super) fn rel_flags(scope: Scope) -> u32 {
    HAS_REL | scope_code(scope) << REL_SCOPE_SHIFT
}

pub(super) fn flags_rel_scope(flags: u32) -> Scope {
    scope_of_code(flags >> REL_SCOPE_SHIFT)
}

/// The word offsets of the model's section.
#[derive(Clone, Debug)]
pub(super) struct Sections {
    pub locs: usize,
    /// Messages kept per location.
    pub hist: usize,
    /// Words per view.
    pub vw: usize,
    pub msg_words: usize,
    /// The offset of the high word in a message, when the program has
    /// 64-bit variables.
    pub hi: Option<usize>,
    pub loc_base: usize,
    pub loc_words: usize,
    pub thread_base: usize,
    pub thread_words: usize,
    /// Views per thread: the four above and the named barriers' ones.
    pub views: usize,
    pub threads: usize,
    pub sc_base: usize,
    pub blocks: usize,
}

impl Sections {
    pub(super) fn new(
        base: usize,
        locs: usize,
        hist: usize,
        (threads, blocks): (usize, usize),
        (wide, barriers): (bool, usize),
    ) -> Sections {
        let vw = locs.div_ceil(4).max(1);
        let hi = wide.then_some(MSG_VIEW + vw);
        let msg_words = MSG_VIEW + vw + usize::from(wide);
        let loc_words = 1 + hist * msg_words;
        let thread_base = base + locs * loc_words;
        let views = VIEWS + barriers;
        let thread_words = views * vw + 1;
        let sc_base = thread_base + threads * thread_words;
        Sections {
            locs,
            hist,
            vw,
            msg_words,
            hi,
            loc_base: base,
            loc_words,
            thread_base,
            thread_words,
            views,
            threads,
            sc_base,
            blocks,
        }
    }

    /// What word `i` of the state holds, if it is in this section.
    pub(super) fn kind_of(&self, i: usize) -> Option<WordKind> {
        let r = i.checked_sub(self.loc_base)?;
        if r < self.thread_base - self.loc_base {
            let o = r % self.loc_words;
            return Some(match o.checked_sub(1).map(|o| o % self.msg_words) {
                None => WordKind::HistoryLength,
                Some(f) if f >= MSG_VIEW && Some(f) != self.hi => WordKind::ReleaseView,
                Some(MSG_META | MSG_BASE) => WordKind::Writer,
                Some(_) => WordKind::Value,
            });
        }
        if i < self.sc_base {
            let k = (i - self.thread_base) % self.thread_words;
            return Some(match k < self.views * self.vw {
                true => WordKind::ThreadView,
                false => WordKind::Flags,
            });
        }
        (i < self.loc_base + self.words()).then_some(WordKind::ScView)
    }

    /// Words of the whole section.
    pub(super) fn words(&self) -> usize {
        self.sc_base + (1 + self.blocks) * self.vw - self.loc_base
    }

    pub(super) fn len_word(&self, x: usize) -> usize {
        self.loc_base + x * self.loc_words
    }

    /// First word of message `p` of location `x`: value, meta, view.
    pub(super) fn msg(&self, x: usize, p: usize) -> usize {
        self.len_word(x) + 1 + p * self.msg_words
    }

    /// The raw value of the message at `msg`, a write to a location of type
    /// `ty`.
    pub(super) fn value(&self, s: &[u32], msg: usize, ty: crate::ir::Type) -> u64 {
        let lo = u64::from(s[msg]);
        match self.hi {
            Some(h) if ty.words() == 2 => lo | u64::from(s[msg + h]) << 32,
            _ => lo,
        }
    }

    /// Sets the value of the message at `msg` (both halves).
    pub(super) fn set_value(&self, s: &mut [u32], msg: usize, raw: u64) {
        s[msg] = raw as u32;
        if let Some(h) = self.hi {
            s[msg + h] = (raw >> 32) as u32;
        }
    }

    /// Whether two messages hold the same value.
    pub(super) fn same_value(&self, s: &[u32], a: usize, b: usize) -> bool {
        s[a] == s[b] && self.hi.is_none_or(|h| s[a + h] == s[b + h])
    }

    pub(super) fn thread_view(&self, t: usize, which: usize) -> usize {
        self.thread_base + t * self.thread_words + which * self.vw
    }

    pub(super) fn flags(&self, t: usize) -> usize {
        self.thread_base + t * self.thread_words + self.views * self.vw
    }

    /// The SC-fence view of the device (`None`) or of a block.
    pub(super) fn sc_view(&self, block: Option<usize>) -> usize {
        self.sc_base + block.map_or(0, |b| 1 + b) * self.vw
    }

    /// Calls `f` with `s` and the first word of every view in it that may
    /// hold a position (threads, fences, the messages a history holds; the
    /// free slots after them are zero): the hot loops (drops, inserts) use
    /// this, not the chained iterator of [`all_views`](Self::all_views).
    #[inline]
    pub(super) fn for_each_view(&self, s: &mut [u32], mut f: impl FnMut(&mut [u32], usize)) {
        for t in 0..self.threads {
            let base = self.thread_base + t * self.thread_words;
            for k in 0..self.views {
                f(s, base + k * self.vw);
            }
        }
        for b in 0..=self.blocks {
            f(s, self.sc_base + b * self.vw);
        }
        for x in 0..self.locs {
            for p in 0..s[self.len_word(x)] as usize {
                f(s, self.msg(x, p) + MSG_VIEW);
            }
        }
    }

    /// Every view in the state (threads, fences, messages), by first word.
    pub(super) fn all_views(&self) -> impl Iterator<Item = usize> + '_ {
        let threads = (0..self.threads)
            .flat_map(move |t| (0..self.views).map(move |k| self.thread_view(t, k)));
        let scs = (0..=self.blocks).map(move |b| self.sc_base + b * self.vw);
        let msgs = (0..self.locs)
            .flat_map(move |x| (0..self.hist).map(move |p| self.msg(x, p) + MSG_VIEW));
        threads.chain(scs).chain(msgs)
    }
}

/// The kinds of word of the ptx part of a state (for measuring which of
/// them make states differ: `benches/ptx.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WordKind {
    HistoryLength,
    Value,
    /// A write's writer, strength, scope and base.
    Writer,
    ReleaseView,
    ThreadView,
    /// A thread's flags (a store performed early).
    Flags,
    ScView,
}

pub(super) fn get(s: &[u32], view: usize, x: usize) -> usize {
    ((s[view + x / 4] >> ((x % 4) * 8)) & 0xFF) as usize
}

pub(super) fn set(s: &mut [u32], view: usize, x: usize, v: usize) {
    let shift = (x % 4) * 8;
    let w = &mut s[view + x / 4];
    *w = (*w & !(0xFF << shift)) | ((v as u32) << shift);
}

/// `dst ⊔= src`, bytewise.
pub(super) fn join(s: &mut [u32], dst: usize, src: usize, words: usize) {
    for i in 0..words {
        s[dst + i] = join_word(s[dst + i], s[src + i]);
    }
}

/// The high bit of each byte of a view word.
const HIGH_BITS: u32 = 0x8080_8080;

/// The newest entry a view may hold (an entry is a position in a history;
/// `clamp_word`'s thresholds go one past it): under 128, so that view
/// words are compared and joined four entries at once, as 7-bit lanes.
pub(super) const MAX_ENTRY: u32 = 0x7E;
const _: () = assert!(super::HISTORY as u32 <= MAX_ENTRY);

/// Per byte of two view words of entries up to [`MAX_ENTRY`] + 1: 0xFF
/// where `a`'s entry is at least `b`'s, else 0. Setting the high bit of
/// `a`'s bytes keeps each byte's subtraction from borrowing from the next
/// one, and leaves the high bit set exactly where `a >= b`.
#[inline]
pub(super) fn at_least_mask(a: u32, b: u32) -> u32 {
    ((((a | HIGH_BITS) - b) & HIGH_BITS) >> 7) * 0xFF
}

/// The larger entry of each location of two view words.
#[inline]
pub(super) fn join_word(a: u32, b: u32) -> u32 {
    let a_wins = at_least_mask(a, b);
    (a & a_wins) | (b & !a_wins)
}

pub(super) fn copy(s: &mut [u32], dst: usize, src: usize, words: usize) {
    s.copy_within(src..src + words, dst);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of entries up to `MAX_ENTRY + 1`, in every byte, against
    /// the byte-by-byte definition (the other bytes vary too: a borrow
    /// would show in a neighbour).
    #[test]
    fn at_least_mask_compares_each_byte_alone() {
        let top = MAX_ENTRY + 1;
        for a in 0..=top {
            for b in 0..=top {
                for shift in [0, 8, 16, 24] {
                    let other = (shift + 8) % 32;
                    let (x, y) = (a << shift | (top - a) << other, b << shift | b << other);
                    let by_byte = |x: u32, y: u32| {
                        u32::from_le_bytes(std::array::from_fn(|i| {
                            match x.to_le_bytes()[i] >= y.to_le_bytes()[i] {
                                true => 0xFF,
                                false => 0,
                            }
                        }))
                    };
                    assert_eq!(at_least_mask(x, y), by_byte(x, y), "{x:#x} {y:#x}");
                    let max = u32::from_le_bytes(std::array::from_fn(|i| {
                        x.to_le_bytes()[i].max(y.to_le_bytes()[i])
                    }));
                    assert_eq!(join_word(x, y), max, "{x:#x} {y:#x}");
                }
            }
        }
    }

    #[test]
    fn views_pack_four_positions_per_word_and_join_bytewise() {
        let mut s = vec![0u32; 4];
        set(&mut s, 0, 1, 3);
        set(&mut s, 0, 4, 7);
        set(&mut s, 2, 1, 2);
        set(&mut s, 2, 2, 5);
        join(&mut s, 0, 2, 2);
        assert_eq!(
            (0..5).map(|x| get(&s, 0, x)).collect::<Vec<_>>(),
            [0, 3, 5, 0, 7]
        );
    }

    #[test]
    fn meta_round_trips() {
        let m = with_release(meta(5, 300, true, Scope::Cta), Scope::Gpu);
        assert_eq!(writer(m), Some(5));
        assert_eq!(write_scope(m), Scope::Cta);
        assert_eq!(release_scope(m), Scope::Gpu);
        assert_eq!(write_pc(m), 300);
        assert!(m & STRONG != 0 && m & RMW == 0);
    }
}
