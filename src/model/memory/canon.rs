//! Canonical form of the `ptx` model's words, applied after every step so
//! that states which no future step can tell apart are stored once.
//!
//! Only the *readers* of a location can ever read it: every thread for
//! global memory, the block's threads for its copy of a `shared` variable,
//! and of those only the *live* ones: not finished, and with an access of
//! the location still reachable from their pc (`por::Futures`; a store
//! counts, since where it lands depends on its thread's view). Everything
//! else in a view is information that may flow, through joins, into a
//! reader's view; it matters only where it is newer than what every live
//! reader already has. So after each step:
//!
//! - writes older than what every live reader may still read are dropped
//!   (threads of other blocks no longer hold a block's shared lines back),
//!   and all but the latest of a location only ever accessed by
//!   read-modify-writes that always write (`Locations::latest_only`);
//! - a *dead* write is removed wherever it is in the history: one that is
//!   no longer the latest, of a location only ever accessed by atomics,
//!   with the value every `atomicCAS` of it expects (`drop_dead_writes`;
//!   `--no-drop-dead-writes` keeps them);
//! - a message's base (the newest write its writer knew) is moved up past
//!   writes that do not race with it, as far as every live reader's view
//!   (no write is ever inserted below that): only the racing writes
//!   between the base and the message are ever used;
//! - a view entry no newer than every live reader's own view of that
//!   location is set to 0 (joining it can raise nobody), and likewise a
//!   thread's pending acquire entries no newer than its own view, and a
//!   release write's entry for its own location (`forget_pcs_and_own_entries`);
//! - a thread whose last fence left nothing to release forgets that it
//!   fenced, where an empty release is no release (`drop_empty_rel`).
//!
//! Before these, a live thread's view of a location is raised to the
//! SC-fence views where its next SC fence comes before any use of that view
//! (`refresh_views`; `por::Refreshes` has the argument, `--no-view-refresh`
//! turns it off).
//!
//! Views and positions only move forward, and inserting or retiring a
//! write shifts all of them alike, so "no newer than" is kept by every
//! later step: each rule maps a state to one that has the same futures.
//!
//! One pass is not idempotent: the dead-write drop and the view clamps run
//! after a location's repeat merge and can make new repeats, which
//! the fixpoint merges too (`fixpoint`; on unless `--no-canonical-fixpoint`).

use super::effective_scope;
use super::layout::*;
use super::{Foresight, PtxMemory};
use crate::ir::atomic_result;
use crate::ir::{from_raw, AtomicOp, Expr, Op, Order, Program, Scope};
use crate::ir::{Participants, Storage, Type};
use crate::model::threads::Threads;

thread_local! {
    /// Per location, every live reader's view after the drops
    /// (`canonicalize`), reused from step to step.
    static FLOORS: std::cell::RefCell<Vec<Option<usize>>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The floors as view words (`clamp_views`).
    static THRESHOLDS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Which threads are live readers of which locations in one state
/// (computed once per step: every rule asks): per thread, a row of
/// `locations.div_ceil(64)` words with bit `x % 64` of word `x / 64` set
/// where it reads `x`.
pub(super) struct Readers<'a> {
    rows: &'a [u64],
    width: usize,
}

impl<'a> Readers<'a> {
    pub(super) fn new(rows: &'a [u64], locations: usize) -> Readers<'a> {
        Readers {
            rows,
            width: locations.div_ceil(64),
        }
    }

    /// Whether thread `t` is a live reader of location `x`.
    #[inline]
    fn has(&self, t: usize, x: usize) -> bool {
        self.rows[t * self.width + x / 64] >> (x % 64) & 1 != 0
    }
}

/// What the code tells about each location (a word of memory).
pub(super) struct Locations {
    /// The block whose threads alone can access it (`None`: global memory,
    /// every thread).
    pub owners: Vec<Option<u32>>,
    /// Some location is a block's own (`shared`).
    pub any_shared: bool,
    /// Only read-modify-writes that always write access it, all morally
    /// strong with each other: each must read the write right before the
    /// next one (atomicity), so only the latest write can ever be read.
    pub latest_only: Vec<bool>,
    /// Only atomics access it, all morally strong with each other, and
    /// every `atomicCAS` of it expects the same constant: that value and
    /// the location's type (`drop_dead_writes`).
    pub dead_value: Vec<Option<(i64, Type)>>,
    /// Every access is strong and in the scope of every other (atomics,
    /// `volatile`, relaxed at device scope, block scope for `shared`): no
    /// two of them ever race, so no report needs its writes' pcs.
    pub race_free: Vec<bool>,
    /// Which writes' writers no step can read (`PtxMemory::forget`):
    /// `Some(strong_stores)` for a location whose every access is strong at
    /// device scope or wider on one GPU, or plain where one thread of each
    /// block runs the harness (no scope check depends on who wrote: a
    /// plain access is morally strong with no write; a race is with a
    /// write beyond the reader's view, never its own, so another block's),
    /// with `strong_stores` telling whether a strong store that is not a
    /// read-modify-write accesses it (such a store continues the
    /// release of its own thread's earlier write: a release's writer then
    /// matters); `None` where a writer can matter.
    pub writers_unread: Vec<Option<bool>>,
    /// Whether a release read from one's own block can be acquired apart
    /// from one read from another block (a block-scope fence or a
    /// `__syncthreads()` acquires only the former) by a thread that did not
    /// write it: when several threads of a block run the harness.
    pub near_far_apart: bool,
}

impl Locations {
    pub(super) fn of(prog: &Program, var_base: &[usize], locs: usize) -> Locations {
        let mut owners = vec![None; locs];
        let mut latest_only = vec![false; locs];
        let mut dead_value = vec![None; locs];
        let mut race_free = vec![false; locs];
        let mut writers_unread = vec![None; locs];
        let one_gpu = prog.devices.windows(2).all(|d| d[0] == d[1]);
        let participants = match prog.participants {
            Participants::All => prog.launch.threads_per_block,
            Participants::Master => 1,
        };
        for (v, var) in prog.vars.iter().enumerate() {
            let shared = var.storage == Storage::Shared;
            let copies = if shared { prog.launch.blocks } else { 1 } as usize;
            // Every word of the element: a 64-bit one's high word is marked
            // as its low word is (no access names it).
            let len = var.len as usize * var.ty.words();
            let wide = |order: Order, scope: Scope| match effective_scope(order, scope) {
                Scope::Cta => shared,
                Scope::Gpu => one_gpu,
                Scope::Sys => true,
            };
            let accesses = || {
                prog.code.iter().filter_map(|i| {
                    let a = i.op.access().filter(|a| a.loc.var as usize == v)?;
                    let op = match &i.op {
                        Op::Atomic { op, .. } => Some(*op),
                        _ => None,
                    };
                    Some((op, a.order, a.scope))
                })
            };
            let strong = accesses().all(|(op, order, scope)| {
                (op.is_some() || order != Order::Weak) && wide(order, scope)
            });
            let only_rmws =
                strong && accesses().all(|(op, ..)| op.is_some_and(|o| o != AtomicOp::Cas));
            let only_atomics = strong && accesses().all(|(op, ..)| op.is_some());
            let dead = match cas_expects(prog, v) {
                Some(e) if only_atomics => Some((e, var.ty)),
                _ => None,
            };
            // A plain access is morally strong with nothing, whoever wrote;
            // with one thread of each block in the harness, a race is with
            // another block, whichever.
            let device_wide = one_gpu
                && accesses().all(|(op, order, scope)| {
                    match op.is_none() && order == Order::Weak {
                        true => participants == 1,
                        false => effective_scope(order, scope) != Scope::Cta,
                    }
                });
            let strong_stores = prog.code.iter().any(|i| {
                matches!(&i.op, Op::Store { access, .. }
                    if access.loc.var as usize == v && access.order != Order::Weak)
            });
            for b in 0..copies {
                let words = var_base[v] + b * len..var_base[v] + (b + 1) * len;
                if shared {
                    owners[words.clone()].fill(Some(b as u32));
                }
                latest_only[words.clone()].fill(only_rmws);
                dead_value[words.clone()].fill(dead);
                writers_unread[words.clone()].fill(device_wide.then_some(strong_stores));
                race_free[words].fill(strong);
            }
        }
        Locations {
            any_shared: owners.iter().any(Option::is_some),
            owners,
            latest_only,
            dead_value,
            race_free,
            writers_unread,
            near_far_apart: participants > 1,
        }
    }
}

/// The value every `atomicCAS` of variable `v` expects, where there is one
/// `atomicCAS` at least and each expects the same constant.
fn cas_expects(prog: &Program, v: usize) -> Option<i64> {
    let mut expected = prog.code.iter().filter_map(|i| match &i.op {
        Op::Atomic {
            op: AtomicOp::Cas,
            access,
            operands,
            ..
        } if access.loc.var as usize == v => Some(match operands.first() {
            Some(Expr::Const(c)) => Some(*c),
            _ => None,
        }),
        _ => None,
    });
    let first = expected.next()??;
    expected.all(|e| e == Some(first)).then_some(first)
}

impl PtxMemory {
    /// Raises each live thread's view of a location to the SC-fence views
    /// where its next SC fence comes before any use of that view
    /// (`facts::Refreshes` has the argument).
    pub(super) fn refresh_views(&self, th: &Threads, s: &mut [u32], facts: &impl Foresight) {
        for t in 0..self.sec.threads {
            // Most threads of most states already hold both SC-fence views
            // (a normal form's refreshed entries do), and then finding the
            // thread's node in its refined flow is spared.
            if !th.is_finished(s, t) && !self.holds_sc_views(s, t) {
                self.refresh_thread(th, s, facts, t);
            }
        }
    }

    /// Whether thread `t`'s view holds both SC-fence views it can be
    /// refreshed from (its block's and the device's) at every location:
    /// then a refresh raises nothing, whatever its fence refreshes.
    #[inline]
    pub(super) fn holds_sc_views(&self, s: &[u32], t: usize) -> bool {
        let sec = &self.sec;
        let cur = sec.thread_view(t, CUR);
        let (block, device) = (sec.sc_view(Some(self.block(t))), sec.sc_view(None));
        (0..sec.vw).all(|w| {
            let sc = join_word(s[block + w], s[device + w]);
            at_least_mask(s[cur + w], sc) == !0
        })
    }

    /// The view refresh of live thread `t` (`refresh_views`).
    pub(super) fn refresh_thread(
        &self,
        th: &Threads,
        s: &mut [u32],
        facts: &impl Foresight,
        t: usize,
    ) {
        let Some((by_block, by_device)) = facts.refreshed(th, s, t) else {
            return;
        };
        let sec = &self.sec;
        let cur = sec.thread_view(t, CUR);
        let (block, device) = (sec.sc_view(Some(self.block(t))), sec.sc_view(None));
        for (i, &bits) in by_block.iter().enumerate() {
            let mut rest = bits;
            while rest != 0 {
                let x = i * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let mut e = get(s, block, x);
                if by_device[i] >> (x % 64) & 1 == 1 {
                    e = e.max(get(s, device, x));
                }
                if e > get(s, cur, x) {
                    set(s, cur, x, e);
                }
            }
        }
    }

    /// Whether thread `t` can access location `x`.
    pub(super) fn reads(&self, t: usize, x: usize) -> bool {
        self.locations.owners[x].is_none_or(|b| b as usize == self.block(t))
    }

    /// Drops unreadable writes and puts bases and views in canonical form.
    /// `readers`: which threads may still access which locations (they
    /// have not finished, can access it, and their code may reach an
    /// access of it).
    pub(super) fn canonicalize(&self, s: &mut [u32], readers: &Readers) {
        FLOORS.with_borrow_mut(|floors| {
            floors.clear();
            floors.extend((0..self.sec.locs).map(|x| self.settle(s, readers, x)));
            self.clamp_views(s, floors);
            if self.fixpoint {
                self.merge_to_fixpoint(s, readers, floors);
            }
        })
    }

    /// The form's rules on location `x` alone, before the view clamps:
    /// its writes, their bases, and the positions of `x` in every view.
    /// Returns the floor of `x` for `clamp_views`: every live reader's view
    /// of `x` (`None`: it has none).
    pub(super) fn settle(&self, s: &mut [u32], readers: &Readers, x: usize) -> Option<usize> {
        self.forget_pcs_and_own_entries(s, x, !self.races || self.locations.race_free[x]);
        self.merge_repeats(s, x);
        self.drop_dead_writes(s, x);
        let reader = |t: usize| readers.has(t, x);
        let len = self.len(s, x);
        // With no live reader nothing about `x` matters any more.
        let floor = (0..self.sec.threads)
            .filter(|&t| reader(t))
            .map(|t| self.cur(s, t, x))
            .min();
        self.tighten_bases(s, x, floor.unwrap_or(len - 1));
        // The oldest write any live reader may still read: the one the
        // reader with the oldest view may (`oldest_readable` grows with
        // the view).
        let k = match (self.locations.latest_only[x], floor) {
            (false, Some(f)) => self.oldest_readable_from(s, x, f),
            _ => len - 1,
        };
        if k > 0 {
            self.drop_oldest(s, x, k);
        }
        // Views moved down by `k`, saturating as `drop_oldest` does: a
        // location written only by read-modify-writes keeps its latest
        // write alone (`k = len - 1`), past readers' views.
        floor.map(|f| f.saturating_sub(k))
    }

    /// Forgets the writer of every write no step can tell apart by its
    /// writer (it is kept for reports, so only the search forgets it:
    /// `reduced`). Who wrote is read only by scope checks (writer and reader
    /// in each other's scope), by where a relaxed read puts a release (its
    /// own block's or another's), and by a strong store continuing its own
    /// thread's release; where none of them can happen, every step from the
    /// state does the same whoever wrote, so states differing only there
    /// have the same futures. With one thread of each block in the harness
    /// a release to the block, or one read from it, reaches only its
    /// writer, whose own view already holds it: forgotten, it reaches
    /// nobody, to the same effect.
    pub fn forget(&self, s: &mut [u32]) {
        for x in 0..self.sec.locs {
            // `writer_unread` is false for each write of such a location.
            if self.locations.writers_unread[x].is_none() {
                continue;
            }
            for p in 0..self.len(s, x) {
                let meta = self.sec.msg(x, p) + MSG_META;
                let m = s[meta];
                if writer(m).is_some() && self.writer_unread(x, m) {
                    s[meta] = with_writer(m, FORGOTTEN_WRITER);
                }
            }
        }
    }

    /// Whether the writer of a message of `x` with meta `m` can matter to
    /// a step (`forget` has the rules); `None` for every message of a
    /// location where it can.
    fn writer_unread(&self, x: usize, m: u32) -> bool {
        let Some(strong_stores) = self.locations.writers_unread[x] else {
            return false;
        };
        !(m & MSG_REL != 0 && (strong_stores || self.locations.near_far_apart))
    }

    /// Merges each read-modify-write that wrote back the value it read into
    /// the write it read, where no step can tell the two apart: on a
    /// location whose accesses are all strong and device-wide (`forget`
    /// and `race_free`), the second has the same value, neither has a
    /// writer a step reads, and they have the same release (none, or the same view at the same
    /// scope). Part of the canonical form (so traces, which name who
    /// wrote, say that the earlier write was read). Nothing can land
    /// between them (the second is an atomic's, morally strong with every
    /// write), so reading either gives the same value, release and later
    /// choices, and an atomic reading the first reads what it would read
    /// in the second: the states have the same futures. (`atomicCAS(x, 0,
    /// 0)` polls, `atomicOr` of a bit already set: each adds a write the
    /// model would otherwise keep apart in every reader's view.) A merge
    /// frees a slot of the bounded history, where the model retires the
    /// oldest write; that only brings it closer to PTX.
    fn merge_repeats(&self, s: &mut [u32], x: usize) {
        if !self.merges(x) {
            return;
        }
        let mut q = 1;
        while q < self.len(s, x) {
            if self.repeats(s, x, q) {
                self.remove(s, x, q, true);
            } else {
                q += 1;
            }
        }
    }

    /// Clears the entry a release write's view holds for its own location
    /// (its own position, set when it was written), and where `pcs`, the
    /// writing instruction of each write (only race reports name it): one
    /// pass over the history for both.
    ///
    /// The own entry: only a thread that reads the write can acquire its
    /// view, and reading it moves the reader's view of the location to it
    /// already; a release sequence that continues it sets the new write's
    /// own entry anyway. So the entry raises nobody, and a release whose
    /// view is otherwise empty becomes one that `drop_empty_release` drops.
    fn forget_pcs_and_own_entries(&self, s: &mut [u32], x: usize, pcs: bool) {
        for p in 0..self.len(s, x) {
            let msg = self.sec.msg(x, p);
            let meta = s[msg + MSG_META];
            if pcs {
                s[msg + MSG_META] = without_pc(meta);
            }
            if meta & MSG_REL != 0 {
                set(s, msg + MSG_VIEW, x, 0);
            }
        }
    }

    /// Forgets that thread `t` has fenced where the view its fence left
    /// for later relaxed writes to release (REL) is empty and at device
    /// scope, on one GPU, in a program with no release at system scope
    /// (no such fence or release access): such a write then releases an
    /// empty view at device scope (or narrows a continued release to
    /// device scope, which it is already, at most), which
    /// `drop_empty_release` drops as no release. REL only
    /// changes at the next fence, which sets the flag again, and an entry
    /// cleared from it stays useless (`clamp_views`).
    fn drop_empty_rel(&self, s: &mut [u32], t: usize) {
        let f = self.sec.flags(t);
        let flags = s[f];
        let rel = self.sec.thread_view(t, REL);
        if self.empty_rel_is_none
            && flags & HAS_REL != 0
            && flags_rel_scope(flags) == Scope::Gpu
            && s[rel..rel + self.sec.vw].iter().all(|w| *w == 0)
        {
            s[f] = flags & SKIP_BITS;
        }
    }

    /// Removes the dead writes of `x`: those no step can read any more.
    /// Where only atomics access `x`, all morally strong with each other,
    /// no write can land below the latest one (each must land right after
    /// the write it read, and nothing lands between a morally strong
    /// read-modify-write and the write it read), and only a failed
    /// `atomicCAS` may read another write than the latest. One that reads
    /// the value it expects does not fail, so once a write of that value is
    /// no longer the latest, no step reads it again: its release is never
    /// acquired, no release sequence continues it, and nothing races on
    /// `x`. A view from it on then may read exactly what a view from the
    /// write after it on may, so the views and bases that named it name
    /// that write instead (joins take the larger position, and the
    /// renumbering keeps the order). The state has the same futures, less
    /// the retirement of the oldest write from a full history, which comes
    /// later: that only brings the bounded model closer to PTX, as a merged
    /// repeat does. (`atomicCAS(lock, 0, 1)` with `atomicExch(lock, 0)`:
    /// every released lock is a dead 0 once it is taken again, and a
    /// spinner's view behind it could otherwise tell states apart.)
    fn drop_dead_writes(&self, s: &mut [u32], x: usize) {
        let Some((expected, ty)) = self.locations.dead_value[x].filter(|_| self.drop_dead) else {
            return;
        };
        let mut q = 0;
        while q + 1 < self.len(s, x) {
            let old = from_raw(ty, self.sec.value(s, self.sec.msg(x, q), ty));
            if atomic_result(AtomicOp::Cas, ty, old, [expected, 0]).is_some() {
                self.remove(s, x, q, false);
            } else {
                q += 1;
            }
        }
    }

    /// Whether some write of `x` repeats the write before it, one
    /// `merge_repeats` would merge.
    pub(super) fn has_repeat(&self, s: &[u32], x: usize) -> bool {
        self.merges(x) && (1..self.len(s, x)).any(|q| self.repeats(s, x, q))
    }

    /// Whether `merge_repeats` can merge anything on `x`: `repeats` needs
    /// both (`writer_unread` is false without the latter).
    fn merges(&self, x: usize) -> bool {
        self.locations.race_free[x] && self.locations.writers_unread[x].is_some()
    }

    /// Whether write `q` of `x` repeats write `q - 1` (`merge_repeats`).
    fn repeats(&self, s: &[u32], x: usize, q: usize) -> bool {
        let (a, b) = (self.sec.msg(x, q - 1), self.sec.msg(x, q));
        let (ma, mb) = (s[a + MSG_META], s[b + MSG_META]);
        let release = |m: u32| (m & MSG_REL != 0).then(|| release_scope(m));
        // Every access strong and in each other's scope: no plain store can
        // land between the two (`forget` also covers plain locations).
        // The cheap tests first (this runs on every pair of neighbours).
        mb & RMW != 0
            && self.sec.same_value(s, a, b)
            && self.locations.race_free[x]
            && self.writer_unread(x, ma)
            && self.writer_unread(x, mb)
            && release(ma) == release(mb)
            && (release(mb).is_none()
                || s[a + MSG_VIEW..a + MSG_VIEW + self.sec.vw]
                    == s[b + MSG_VIEW..b + MSG_VIEW + self.sec.vw])
    }

    /// Raises each message's base past writes that do not race with it, up
    /// to `floor`: no write can ever be inserted at or below every live
    /// reader's view, so the racing writes counted from the base stay the
    /// same ones (the initial value's base is 0: it races with nothing).
    fn tighten_bases(&self, s: &mut [u32], x: usize, floor: usize) {
        for p in 0..self.len(s, x) {
            let msg = self.sec.msg(x, p);
            let kmeta = s[msg + MSG_META];
            let base = s[msg + MSG_BASE] as usize;
            let tight = match writer(kmeta) {
                None => 0,
                Some(k) => {
                    let strong = kmeta & STRONG != 0;
                    let first_racing = (base + 1..p).find(|&q| {
                        let meta = s[self.sec.msg(x, q) + MSG_META];
                        !self.morally_strong(meta, k, strong, write_scope(kmeta))
                    });
                    base.max(first_racing.map_or(p, |q| q - 1).min(floor))
                }
            };
            s[msg + MSG_BASE] = tight as u32;
        }
    }

    /// Zeroes the view entries that can raise no reader's view: those no
    /// newer than `floors[x]` (every live reader's view of `x`), and a
    /// thread's pending entries no newer than its own view. Word by word:
    /// each view word is compared with a word of thresholds, one byte per
    /// location (the hot loop of the canonical form).
    pub(super) fn clamp_views(&self, s: &mut [u32], floors: &[Option<usize>]) {
        let sec = &self.sec;
        THRESHOLDS.with_borrow_mut(|below| {
            // Per view word: the newest entry of each location that raises
            // nobody (a location with no live reader: every entry).
            below.clear();
            below.extend((0..sec.vw).map(|w| {
                (0..4).fold(0u32, |word, i| {
                    let b = floors
                        .get(w * 4 + i)
                        .map_or(0, |f| f.map_or(MAX_ENTRY, |f| f as u32));
                    word | b << (8 * i)
                })
            }));
            let below = &below[..];
            let vw = sec.vw;
            for t in 0..sec.threads {
                // CUR, NEAR, FAR, then REL and the views kept for named
                // barriers (which release like REL): one slice of the state.
                const _: () = assert!(NEAR == CUR + 1 && FAR == NEAR + 1 && REL == FAR + 1);
                let first = sec.thread_view(t, CUR);
                let (cur, rest) = s[first..first + sec.views * vw].split_at_mut(vw);
                let (pending, released) = rest.split_at_mut(2 * vw);
                let (near, far) = pending.split_at_mut(vw);
                for w in 0..vw {
                    // Mostly nothing is pending.
                    if near[w] | far[w] != 0 {
                        let own = join_word(cur[w], below[w]);
                        near[w] = clamp_word(near[w], own);
                        far[w] = clamp_word(far[w], own);
                    }
                }
                clamp_range(released, below);
                self.drop_empty_rel(s, t);
                // A reader's own view is what the floors are made of: only
                // the entries of locations it cannot access go.
                if self.locations.any_shared {
                    for x in (0..sec.locs).filter(|&x| !self.reads(t, x)) {
                        let e = get(s, first, x);
                        if e != 0 && floors[x].is_none_or(|f| e <= f) {
                            set(s, first, x, 0);
                        }
                    }
                }
            }
            let sc = sec.sc_base;
            clamp_range(&mut s[sc..sc + (1 + sec.blocks) * vw], below);
            for y in 0..sec.locs {
                for p in 0..self.len(s, y) {
                    let msg = sec.msg(y, p);
                    // Only a release carries a view (the others stay zero).
                    if s[msg + MSG_META] & MSG_REL != 0 {
                        clamp_range(&mut s[msg + MSG_VIEW..msg + MSG_VIEW + vw], below);
                        self.drop_empty_release(s, msg);
                    }
                }
            }
        })
    }
}

impl PtxMemory {
    /// A release whose view raises nobody is no release, where its scope
    /// cannot narrow another's: at device scope or wider on one GPU (a
    /// read-modify-write continuing it takes the narrower of its own
    /// release and this one, and on one GPU device and system scope reach
    /// the same threads).
    fn drop_empty_release(&self, s: &mut [u32], msg: usize) {
        let meta = s[msg + MSG_META];
        let empty = s[msg + MSG_VIEW..msg + MSG_VIEW + self.sec.vw]
            .iter()
            .all(|w| *w == 0);
        if empty && self.devices.is_empty() && release_scope(meta) != Scope::Cta {
            s[msg + MSG_META] = without_release(meta);
        }
    }
}

/// Clamps consecutive views, `words` (a whole number of views), with
/// `below` (`clamp_views`).
#[inline]
fn clamp_range(words: &mut [u32], below: &[u32]) {
    // One word a view (up to four locations) is the common case: one
    // threshold for every word.
    if let [b] = below {
        for word in words {
            *word = clamp_word(*word, *b);
        }
        return;
    }
    for view in words.chunks_exact_mut(below.len()) {
        for (word, &b) in view.iter_mut().zip(below) {
            *word = clamp_word(*word, b);
        }
    }
}

/// The entries of view word `v` newer than those of `below` (one byte a
/// location), the others zero.
#[inline]
fn clamp_word(v: u32, below: u32) -> u32 {
    // `v > below` is `v >= below + 1`, byte by byte (no carry: a threshold
    // is at most `MAX_ENTRY + 1`, under 128).
    v & at_least_mask(v, below + 0x0101_0101)
}
