//! Symmetry reduction over interchangeable blocks.
//!
//! A launch runs N copies of the same code, so many states differ only by
//! which block is which. Blocks are *interchangeable* when they start alike
//! (same initial words, up to the ids they hold) and the code uses block
//! ids only as names (`ids`: copied, offset, compared for equality; a block
//! compared with a constant, like `blockIdx == 0`, stays apart). Every state
//! is then replaced by a representative of its class before it is stored:
//! the blocks of each class are sorted by their words and the block ids
//! held in memory and locals are renamed to match (Ip & Dill's scalarsets).
//! A counterexample found on the representatives is mapped back to real
//! blocks by [`Symmetry::concretize`].
//!
//! Blocks may be grouped into SMs (`my_sm = blockIdx / blocks_per_sm`), a
//! second scalarset: alike blocks of an SM are sorted, then alike full SMs,
//! each with its blocks and the words it owns (`shapes`: arrays indexed by
//! a block or SM id). When the code names ring neighbours
//! (`(blockIdx + 1) % nblocks`) only rotations keep its meaning, and the
//! blocks are rotated instead of sorted.
//!
//! The per-block part of a state is described by [`Segment`]s taken from the
//! layout: the block's threads, its copies of `shared` variables and the
//! global words it owns (per-SM segments likewise). Every
//! word of the state must be global memory, or in a segment; state that this
//! module does not know about (a semantics adding words) turns symmetry off
//! with a reason instead of risking a wrong verdict. To make new per-block
//! or per-thread words symmetric, describe them here as segments (with the
//! words that hold block ids, if any).

mod ids;
mod kind;
mod shapes;
mod why;

pub use why::{Asymmetry, Holds, IdUse, Indexed};

use crate::ir::cfg::Liveness;
use crate::ir::{from_raw, to_raw, LocalId, Program};
use crate::ir::{Storage, Type};
use crate::model::memory::BlockWords;
use crate::model::state::Layout;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::cmp::Ordering;

/// Per-thread header words before the locals (pc, flags, critical weight,
/// phases): plain data. A semantics that adds header words must extend this
/// module (see the module comment); until then symmetry turns itself off.
const THREAD_HEADER: usize = 4;

/// Takes one real step (state, thread, successor); `false` if it faults.
pub(crate) type StepFn<'a> = dyn Fn(&[u32], u32, &mut [u32]) -> bool + 'a;

/// Buffers reused by every canonicalization on a thread.
#[derive(Default)]
struct Scratch {
    copy: Vec<u32>,
    /// `perm[old block]`: its block in the representative.
    perm: Vec<u32>,
    /// `sm_perm[old SM]`: its SM in the representative.
    sm_perm: Vec<u32>,
    /// `first[block]`: the first global id word naming it (`u32::MAX`: none).
    first: Vec<u32>,
    order: Vec<u32>,
    /// `at[slot]`: the old block in that slot after sorting within SMs.
    at: Vec<u32>,
    /// Global locations moved (from, to), and view entries (`ptx`).
    moves: Vec<(usize, usize)>,
    entries: Vec<usize>,
    /// `keys[block]` / `sm_keys[SM]`: the first two words of its sort
    /// key, one number (see [`Symmetry::block_prefix`]).
    keys: Vec<u64>,
    sm_keys: Vec<u64>,
    /// Block pairs of two SMs being compared.
    pairs: Vec<(u32, u32)>,
}

/// Words of one block (or SM): `len` words at `base + unit * stride`.
#[derive(Clone, Copy, Debug)]
struct Segment {
    base: usize,
    len: usize,
    stride: usize,
    /// Global memory words (locations whose `ptx` view entries move too).
    global: bool,
}

impl Segment {
    fn words<'s>(&self, s: &'s [u32], unit: usize) -> &'s [u32] {
        let from = self.base + unit * self.stride;
        &s[from..from + self.len]
    }
}

/// A word holding `block id + offset` (raw, of type `ty`).
#[derive(Clone, Copy, Debug)]
struct IdWord {
    offset: i64,
    ty: Type,
}

/// A local holding `a * unit + c` (a block id, or an SM id when `sm`).
#[derive(Clone, Copy, Debug)]
struct UnitLocal {
    local: LocalId,
    sm: bool,
    a: i64,
    c: i64,
    ty: Type,
}

/// The classes of interchangeable blocks a [`Symmetry`] found, as data
/// (`format::reductions` words them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classes {
    /// Blocks per SM (1: each block its own SM).
    pub blocks_per_sm: usize,
    /// The blocks form a ring: `sms` holds the one class of blocks
    /// rotated.
    pub ring: bool,
    /// Interchangeable full SMs (blocks, where `blocks_per_sm` is 1), each
    /// class sorted.
    pub sms: Vec<Vec<u32>>,
    /// Interchangeable blocks within one SM, each class sorted.
    pub within_sm: Vec<Vec<u32>>,
}

/// The symmetry of one program under one launch: a wreath product. Blocks
/// are grouped into SMs of `g` (1: each block its own SM); alike blocks of
/// one SM are interchangeable, and so are alike full SMs, each with its
/// blocks and its per-SM words.
pub struct Symmetry {
    blocks: usize,
    /// Blocks per SM.
    g: usize,
    sms: usize,
    threads_per_block: usize,
    thread_words: usize,
    mem_words: usize,
    /// Interchangeable blocks within one SM (each class sorted, in one SM,
    /// at least two blocks); empty when `g == 1`.
    rank_classes: Vec<Vec<u32>>,
    /// Interchangeable SMs (with `g == 1`: blocks).
    sm_classes: Vec<Vec<u32>>,
    /// The blocks form a ring (code names ring neighbours): the one class
    /// is rotated, not sorted.
    cyclic: bool,
    /// The words of each block: its threads first, then its shared copies,
    /// the model's words, the global words it owns.
    block_segs: Vec<Segment>,
    /// The global words each SM owns (and their `ptx` histories).
    sm_segs: Vec<Segment>,
    /// Global memory words holding ids.
    global_ids: Vec<(usize, IdWord)>,
    /// Shared variables holding ids: (base, len, kind), one copy per block.
    shared_ids: Vec<(usize, usize, IdWord)>,
    /// Locals holding ids, block or SM (renamed only where live).
    local_ids: Vec<UnitLocal>,
    /// For each word of a block (`block_segs` order) / SM: may hold an id.
    block_mask: Vec<bool>,
    sm_mask: Vec<bool>,
    /// Some word may hold a block id.
    has_ids: bool,
    liveness: Liveness,
    code_len: u32,
    /// The `ptx` model's words, when it is on.
    memory: Option<BlockWords>,
    /// Per memory word: it holds block ids (for the values in its history).
    value_ids: Vec<Option<IdWord>>,
}

/// Which words of a state move with a block or with an SM when blocks are
/// renamed, and which hold block ids (renamed along).
struct Words {
    /// A block's threads, its shared memory, its own global words and
    /// (under `ptx`) their histories.
    block_segs: Vec<Segment>,
    /// Whether each word of `block_segs` after the threads holds an id.
    block_mask_tail: Vec<bool>,
    /// The global words an SM owns (and their histories).
    sm_segs: Vec<Segment>,
    sm_mask: Vec<bool>,
    /// Global words holding block ids.
    global_ids: Vec<(usize, IdWord)>,
    /// Shared variables holding block ids: (base, len, id).
    shared_ids: Vec<(usize, usize, IdWord)>,
}

impl Words {
    fn of(
        prog: &Program,
        layout: &Layout,
        kinds: &ids::BlockIds,
        memory: Option<&BlockWords>,
    ) -> Words {
        let g = kinds.g as usize;
        let tpb = layout.threads_per_block;
        let id_word = |k: kind::Kind, ty: Type| match k {
            kind::Kind::Id(offset) => Some(IdWord { offset, ty }),
            _ => None,
        };
        let seg = |base, len, stride, global| Segment {
            base,
            len,
            stride,
            global,
        };
        let mut w = Words {
            block_segs: vec![seg(
                layout.mem_words,
                tpb * layout.thread_words,
                tpb * layout.thread_words,
                false,
            )],
            block_mask_tail: Vec::new(),
            sm_segs: Vec::new(),
            sm_mask: Vec::new(),
            global_ids: Vec::new(),
            shared_ids: Vec::new(),
        };
        let mut owned_segs = Vec::new();
        for (v, var) in prog.vars.iter().enumerate() {
            let base = layout.var_base[v];
            let len = var.len as usize;
            let id = id_word(kinds.vars[v], var.ty);
            if var.storage == Storage::Shared {
                w.block_segs.push(seg(base, len, len, false));
                w.block_mask_tail
                    .extend(std::iter::repeat_n(id.is_some(), len));
                if let Some(id) = id {
                    w.shared_ids.push((base, len, id));
                }
                continue;
            }
            if let Some(id) = id {
                w.global_ids.extend((base..base + len).map(|w| (w, id)));
            }
            if let Some(o) = kinds.owned[v] {
                for c in 0..o.chunks {
                    let s = seg(base + o.base + c * o.period, o.len, o.stride, true);
                    owned_segs.push((o.by_sm && g > 1, s, id.is_some()));
                }
            }
        }
        if let Some(m) = memory {
            let runs = m.runs();
            w.block_segs
                .extend(runs.iter().map(|r| seg(r.base, r.len, r.stride, false)));
            let words: usize = runs.iter().map(|r| r.len).sum();
            w.block_mask_tail.extend(std::iter::repeat_n(false, words));
        }
        for &(by_sm, s, ids) in &owned_segs {
            let (segs, mask) = match by_sm {
                true => (&mut w.sm_segs, &mut w.sm_mask),
                false => (&mut w.block_segs, &mut w.block_mask_tail),
            };
            segs.push(s);
            mask.extend(std::iter::repeat_n(ids, s.len));
            if let Some(m) = memory {
                let h = m.history(s.base, s.len, s.stride);
                segs.push(seg(h.base, h.len, h.stride, false));
                mask.extend(std::iter::repeat_n(false, h.len));
            }
        }
        w
    }
}

/// The locals holding a unit's id (`a * unit + c`, a block or SM number).
fn unit_locals(prog: &Program, kinds: &ids::BlockIds) -> Vec<UnitLocal> {
    prog.locals
        .iter()
        .enumerate()
        .filter_map(|(l, local)| {
            let (ug, a, c) = kinds.locals[l].as_unit()?;
            Some(UnitLocal {
                local: l as LocalId,
                sm: ug > 1,
                a,
                c,
                ty: local.ty,
            })
        })
        .collect()
}

thread_local! {
    /// Scratch state and permutation for [`Symmetry::canonicalize`].
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Symmetry {
    /// The interchangeable blocks of `prog`, or why there are none usable.
    /// `memory` describes the `ptx` model's words (it must be given when
    /// the layout has them).
    pub fn infer(
        prog: &Program,
        layout: &Layout,
        memory: Option<BlockWords>,
    ) -> Result<Symmetry, Asymmetry> {
        let blocks = prog.launch.blocks as usize;
        let described = match memory {
            Some(_) => layout.model_words,
            None => 0,
        };
        if layout.wide {
            // Block ids live in one word; a 64-bit value's two are not
            // described (its halves would have to move together).
            return Err(Asymmetry::WideVariables);
        }
        if layout.thread_words != THREAD_HEADER + prog.locals.len()
            || layout.words() != layout.mem_words + layout.threads * layout.thread_words + described
        {
            return Err(Asymmetry::UndescribedWords);
        }
        let liveness = Liveness::compute(&prog.code, prog.locals.len());
        let live_at_entry = |l: LocalId| !prog.code.is_empty() && liveness.is_live(0, l);
        let kinds = ids::infer(prog, &live_at_entry)?;
        let g = kinds.g as usize;
        let words = Words::of(prog, layout, &kinds, memory.as_ref());
        let local_ids = unit_locals(prog, &kinds);
        let mut thread = vec![false; layout.thread_words];
        for u in &local_ids {
            thread[THREAD_HEADER + u.local as usize] = true;
        }
        let mut block_mask = thread.repeat(layout.threads_per_block);
        block_mask.extend(words.block_mask_tail);
        let mut value_ids = vec![None; layout.mem_words];
        for &(w, id) in &words.global_ids {
            value_ids[w] = Some(id);
        }
        for &(base, len, id) in &words.shared_ids {
            value_ids[base..base + blocks * len].fill(Some(id));
        }
        let has_ids = !words.global_ids.is_empty()
            || block_mask.contains(&true)
            || words.sm_mask.contains(&true);
        let mut sym = Symmetry {
            blocks,
            g,
            sms: blocks.div_ceil(g),
            threads_per_block: layout.threads_per_block,
            thread_words: layout.thread_words,
            mem_words: layout.mem_words,
            rank_classes: Vec::new(),
            sm_classes: Vec::new(),
            cyclic: kinds.cyclic,
            block_segs: words.block_segs,
            sm_segs: words.sm_segs,
            global_ids: words.global_ids,
            shared_ids: words.shared_ids,
            local_ids,
            block_mask,
            sm_mask: words.sm_mask,
            has_ids,
            liveness,
            code_len: prog.code.len() as u32,
            memory,
            value_ids,
        };
        sym.find_classes(prog, layout, &kinds);
        if sym.cyclic {
            let all: Vec<u32> = (0..blocks as u32).collect();
            if sym.sm_classes != [all] {
                return Err(Asymmetry::RingSingledOut);
            }
        }
        if sym.rank_classes.is_empty() && sym.sm_classes.is_empty() {
            return Err(Asymmetry::NoneInterchangeable);
        }
        Ok(sym)
    }

    /// Groups alike blocks of each SM, and alike full SMs; blocks, ranks
    /// and SMs singled out by the code stay where they are.
    fn find_classes(&mut self, prog: &Program, layout: &Layout, kinds: &ids::BlockIds) {
        let mut init = vec![0u32; layout.words()];
        layout.initial(prog, &mut init);
        let signature = |segs: &[Segment], mask: &[bool], unit: usize| -> Vec<u32> {
            let words = segs.iter().flat_map(|s| s.words(&init, unit).iter());
            words
                .zip(mask)
                .map(|(w, masked)| if *masked { u32::MAX } else { *w })
                .collect()
        };
        let block_sig = |b: usize| signature(&self.block_segs, &self.block_mask, b);
        let g = self.g;
        let fixed_block = |b: usize| kinds.fixed.contains(&(b as u32));
        if g > 1 {
            for m in 0..self.sms {
                let members = (m * g..((m + 1) * g).min(self.blocks))
                    .filter(|b| !fixed_block(*b) && !kinds.fixed_ranks.contains(&((b % g) as u32)));
                self.rank_classes.extend(group_by(members, block_sig));
            }
        }
        let full = self.blocks / g;
        let sms = (0..full).filter(|m| {
            !kinds.fixed_sms.contains(&(*m as u32)) && !(m * g..(m + 1) * g).any(fixed_block)
        });
        let sm_sig = |m: usize| {
            let mut sig = signature(&self.sm_segs, &self.sm_mask, m);
            for b in m * g..(m + 1) * g {
                sig.extend(block_sig(b));
            }
            sig
        };
        self.sm_classes = group_by(sms, sm_sig);
    }

    /// The classes of interchangeable blocks (within an SM) and SMs.
    pub fn classes(&self) -> (&[Vec<u32>], &[Vec<u32>]) {
        (&self.rank_classes, &self.sm_classes)
    }

    /// The classes found, as `--stats` reports them.
    pub fn found(&self) -> Classes {
        Classes {
            blocks_per_sm: self.g,
            ring: self.cyclic,
            sms: self.sm_classes.clone(),
            within_sm: self.rank_classes.clone(),
        }
    }

    /// Replaces `s` by the representative of its class.
    pub fn canonicalize(&self, s: &mut [u32]) {
        SCRATCH.with(|scratch| self.canonicalize_with(s, &mut scratch.borrow_mut()));
    }

    /// Like [`canonicalize`](Self::canonicalize); afterwards `scratch.perm[b]`
    /// is where block `b` of the old state went.
    ///
    /// First the alike blocks of each SM are sorted, then the alike SMs (by
    /// their own words, then their blocks' in rank order). Blocks and SMs
    /// are ordered by their words with ids masked (a block's own id says
    /// nothing), then where global memory first names them, then all their
    /// words. The first two parts do not change when blocks are renamed,
    /// which makes most representatives unique.
    fn canonicalize_with(&self, s: &mut [u32], scratch: &mut Scratch) {
        let Scratch {
            copy,
            perm,
            sm_perm,
            first,
            order,
            at,
            moves,
            entries,
            keys,
            sm_keys,
            pairs,
        } = scratch;
        perm.clear();
        perm.extend(0..self.blocks as u32);
        sm_perm.clear();
        sm_perm.extend(0..self.sms as u32);
        first.clear();
        first.resize(self.blocks, u32::MAX);
        for (i, (w, id)) in self.global_ids.iter().enumerate() {
            let b = from_raw(id.ty, u64::from(s[*w])) - id.offset;
            if (0..self.blocks as i64).contains(&b) {
                first[b as usize] = first[b as usize].min(i as u32);
            }
        }
        // Keys are compared in place (no copy of the words): most
        // comparisons stop at the first few words.
        let state: &[u32] = s;
        let mut moved = false;
        if self.cyclic {
            let r = self.best_rotation(state, first);
            let n = self.blocks as u32;
            for (b, p) in perm.iter_mut().enumerate() {
                *p = (b as u32 + n - r) % n;
            }
            moved = r != 0;
        }
        // Each block's first two words (its first thread's pc and flags)
        // decide most comparisons; the whole key is compared on ties only.
        keys.clear();
        keys.extend((0..self.blocks).map(|b| self.block_prefix(state, b)));
        let by_block = |a: u32, b: u32| match keys[a as usize].cmp(&keys[b as usize]) {
            Ordering::Equal => self.compare_units(state, first, &[], &[(a, b)]).is_gt(),
            o => o.is_gt(),
        };
        for class in &self.rank_classes {
            sort_class(class, order, by_block);
            for (slot, old) in class.iter().zip(order.iter()) {
                perm[*old as usize] = *slot;
                moved |= slot != old;
            }
        }
        if !self.sm_classes.is_empty() && !self.cyclic {
            if self.g == 1 {
                // Each block its own SM: the SM classes are block classes.
                for class in &self.sm_classes {
                    sort_class(class, order, by_block);
                    for (slot, old) in class.iter().zip(order.iter()) {
                        perm[*old as usize] = *slot;
                        moved |= slot != old;
                    }
                }
                sm_perm.copy_from_slice(perm);
            } else {
                let g = self.g;
                at.clear();
                at.resize(self.blocks, 0);
                for (old, slot) in perm.iter().enumerate() {
                    at[*slot as usize] = old as u32;
                }
                sm_keys.clear();
                sm_keys.extend((0..self.sms).map(|m| match at.get(m * g) {
                    Some(b) => self.sm_prefix(state, m, *b as usize),
                    None => 0,
                }));
                for class in &self.sm_classes {
                    sort_class(class, order, |x, y| {
                        let (x, y) = (x as usize, y as usize);
                        match sm_keys[x].cmp(&sm_keys[y]) {
                            Ordering::Equal => {
                                pairs.clear();
                                pairs.extend((0..g).map(|r| (at[x * g + r], at[y * g + r])));
                                self.compare_units(state, first, &[(x, y)], pairs).is_gt()
                            }
                            o => o.is_gt(),
                        }
                    });
                    for (slot, old) in class.iter().zip(order.iter()) {
                        sm_perm[*old as usize] = *slot;
                        moved |= slot != old;
                    }
                }
                for p in perm.iter_mut() {
                    let (m, r) = (*p as usize / g, *p as usize % g);
                    *p = sm_perm[m] * g as u32 + r as u32;
                }
            }
        }
        if moved {
            self.apply(s, perm, sm_perm, copy, moves, entries);
        }
    }

    /// Renames the blocks of `s` by `perm` and its SMs by `sm_perm` (which
    /// must agree: block `b` of SM `m` goes to SM `sm_perm[m]`); the other
    /// arguments are scratch.
    fn apply(
        &self,
        s: &mut [u32],
        perm: &[u32],
        sm_perm: &[u32],
        copy: &mut Vec<u32>,
        moves: &mut Vec<(usize, usize)>,
        entries: &mut Vec<usize>,
    ) {
        moves.clear();
        move_units(s, copy, &self.block_segs, perm, moves);
        move_units(s, copy, &self.sm_segs, sm_perm, moves);
        if let (Some(m), false) = (&self.memory, moves.is_empty()) {
            m.move_view_entries(s, moves, entries);
        }
        self.rename(s, perm, sm_perm);
    }

    /// The rotation `r` (block `r` becomes block 0) whose sequence of
    /// blocks is smallest by their sort keys.
    fn best_rotation(&self, s: &[u32], first: &[u32]) -> u32 {
        let n = self.blocks as u32;
        let mut best = 0;
        for r in 1..n {
            let order = (0..n)
                .map(|i| self.compare_units(s, first, &[], &[((r + i) % n, (best + i) % n)]))
                .find(|o| o.is_ne());
            if order == Some(Ordering::Less) {
                best = r;
            }
        }
        best
    }

    /// The first two words of block `b`'s sort key as one number, ordered
    /// as the words are: its first thread's pc and flags (never ids).
    fn block_prefix(&self, s: &[u32], b: usize) -> u64 {
        let at = self.block_segs[0].base + b * self.block_segs[0].stride;
        (u64::from(s[at]) << 32) | u64::from(s[at + 1])
    }

    /// The first two words of SM `m`'s sort key (ids masked), whose first
    /// block (rank 0, after sorting within SMs) is `b`.
    fn sm_prefix(&self, s: &[u32], m: usize, b: usize) -> u64 {
        let sm = self.sm_segs.iter().flat_map(|seg| seg.words(s, m));
        let sm = sm
            .zip(&self.sm_mask)
            .map(|(w, masked)| if *masked { 0 } else { *w });
        let block = self.block_segs[0].words(s, b).iter().copied();
        sm.chain(block)
            .take(2)
            .fold(0u64, |key, w| (key << 32) | u64::from(w))
    }

    /// Orders two SMs (`sms`: their indices, or none) with blocks `blocks`
    /// (pairs compared in turn) by their sort key (see
    /// [`canonicalize_with`](Self::canonicalize_with)).
    fn compare_units(
        &self,
        s: &[u32],
        first: &[u32],
        sms: &[(usize, usize)],
        blocks: &[(u32, u32)],
    ) -> Ordering {
        let parts = || {
            let sm = sms
                .iter()
                .map(|&(x, y)| (&self.sm_segs[..], &self.sm_mask[..], x, y));
            let bl = blocks.iter().map(|&(x, y)| {
                (
                    &self.block_segs[..],
                    &self.block_mask[..],
                    x as usize,
                    y as usize,
                )
            });
            sm.chain(bl)
        };
        if self.has_ids {
            // Whether some id word differs: if none does, the words are
            // equal and the last pass can be skipped.
            let mut ids_differ = false;
            for (segs, mask, x, y) in parts() {
                let (o, differ) = compare_masked(s, segs, mask, x, y);
                if o.is_ne() {
                    return o;
                }
                ids_differ |= differ;
            }
            for &(x, y) in blocks {
                let o = first[x as usize].cmp(&first[y as usize]);
                if o.is_ne() {
                    return o;
                }
            }
            if !ids_differ {
                return Ordering::Equal;
            }
        }
        for (segs, _, x, y) in parts() {
            let o = compare_words(s, segs, x, y);
            if o.is_ne() {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Renames the block and SM ids held in `s` by `perm` and `sm_perm`.
    fn rename(&self, s: &mut [u32], perm: &[u32], sm_perm: &[u32]) {
        let blocks = self.blocks as i64;
        let map = |raw: u32, id: IdWord| -> u32 {
            let b = from_raw(id.ty, u64::from(raw)) - id.offset;
            if (0..blocks).contains(&b) {
                to_raw(id.ty, i64::from(perm[b as usize]) + id.offset) as u32
            } else {
                raw
            }
        };
        for (w, id) in &self.global_ids {
            s[*w] = map(s[*w], *id);
        }
        if let Some(m) = &self.memory {
            m.rename(s, perm, &|x, raw| match self.value_ids[x] {
                Some(id) => map(raw, id),
                None => raw,
            });
        }
        for (base, len, id) in &self.shared_ids {
            for b in 0..self.blocks {
                for w in &mut s[base + b * len..base + (b + 1) * len] {
                    *w = map(*w, *id);
                }
            }
        }
        if self.local_ids.is_empty() {
            return;
        }
        let map_unit = |raw: u32, u: &UnitLocal| -> u32 {
            let units = if u.sm { sm_perm } else { perm };
            let d = from_raw(u.ty, u64::from(raw)) - u.c;
            if d % u.a != 0 || !(0..units.len() as i64).contains(&(d / u.a)) {
                return raw;
            }
            to_raw(u.ty, u.a * i64::from(units[(d / u.a) as usize]) + u.c) as u32
        };
        for t in 0..self.blocks * self.threads_per_block {
            let at = self.mem_words + t * self.thread_words;
            let pc = s[at];
            if pc >= self.code_len {
                continue;
            }
            for u in &self.local_ids {
                if self.liveness.is_live(pc, u.local) {
                    let w = at + THREAD_HEADER + u.local as usize;
                    s[w] = map_unit(s[w], u);
                }
            }
        }
    }

    /// Maps a schedule over representatives (each action a thread index of
    /// the representative it moves from) to one over real threads from the
    /// real `initial` state, and likewise a cycle after it, repeated until it
    /// returns to a real state it started a round from (the rounds before
    /// that one are added to the schedule). `step` takes one real step and
    /// says whether it succeeded (a faulting step ends the schedule);
    /// `step_rep` takes a step of a representative as the search took it
    /// (with whatever the search forgets forgotten, before this
    /// canonicalizes: what is forgotten can decide which permutation
    /// canonicalizes, and so which thread an action names).
    ///
    /// Representatives and real states are stepped side by side, keeping
    /// the renaming between them, so this does not rely on representatives
    /// being unique per class.
    pub fn concretize(
        &self,
        initial: &[u32],
        schedule: &[u32],
        cycle: &[u32],
        (step, step_rep): (&StepFn, &StepFn),
    ) -> (Vec<u32>, Vec<u32>) {
        let steps = (step, step_rep);
        let mut walk = Walk::new(self, initial);
        let mut real_schedule = Vec::with_capacity(schedule.len());
        for &a in schedule {
            let (t, ok) = walk.step(self, a, steps);
            real_schedule.push(t);
            if !ok {
                return (real_schedule, Vec::new());
            }
        }
        let mut real_cycle = Vec::new();
        if cycle.is_empty() {
            return (real_schedule, real_cycle);
        }
        // A cycle of representatives permutes real blocks; it closes after
        // at most the order of that permutation (at most lcm(1..=blocks)).
        // Where the stored states also forget what no step reads, a round
        // may first change only that (the writers of the cycle's own
        // writes): the rounds before the real states repeat join the stem.
        let mut starts = vec![(walk.real.clone(), 0)];
        for _ in 0..2 * self.max_rounds() {
            for &a in cycle {
                let (t, ok) = walk.step(self, a, steps);
                real_cycle.push(t);
                if !ok {
                    return (real_schedule, real_cycle);
                }
            }
            if let Some(&(_, at)) = starts.iter().find(|(s, _)| *s == walk.real) {
                real_schedule.extend(real_cycle.drain(..at));
                break;
            }
            starts.push((walk.real.clone(), real_cycle.len()));
        }
        (real_schedule, real_cycle)
    }

    fn max_rounds(&self) -> usize {
        (1..=self.blocks).fold(1usize, |acc, n| {
            let g = gcd(acc, n);
            acc / g * n
        })
    }
}

/// A real state and its representative, stepped side by side.
struct Walk {
    real: Vec<u32>,
    rep: Vec<u32>,
    next: Vec<u32>,
    scratch: Scratch,
    /// `sigma[real block]`: that block's place in the representative.
    sigma: Vec<u32>,
}

impl Walk {
    fn new(sym: &Symmetry, initial: &[u32]) -> Walk {
        let mut w = Walk {
            real: initial.to_vec(),
            rep: initial.to_vec(),
            next: initial.to_vec(),
            scratch: Scratch::default(),
            sigma: Vec::new(),
        };
        sym.canonicalize_with(&mut w.rep, &mut w.scratch);
        w.sigma = w.scratch.perm.clone();
        w
    }

    /// Takes action `a` of the representative; returns the real thread that
    /// moved and whether the step succeeded.
    fn step(
        &mut self,
        sym: &Symmetry,
        a: u32,
        (step, step_rep): (&StepFn, &StepFn),
    ) -> (u32, bool) {
        let tpb = sym.threads_per_block;
        let thread = crate::model::thread_of(a);
        let block = self.sigma.iter().position(|b| *b as usize == thread / tpb);
        // The action's other bits (a memory-model choice) are kept.
        let t = a - thread as u32 + (block.unwrap_or(0) * tpb + thread % tpb) as u32;
        if !step(&self.real, t, &mut self.next) {
            return (t, false);
        }
        self.real.copy_from_slice(&self.next);
        if !step_rep(&self.rep, a, &mut self.next) {
            return (t, false);
        }
        self.rep.copy_from_slice(&self.next);
        sym.canonicalize_with(&mut self.rep, &mut self.scratch);
        for b in self.sigma.iter_mut() {
            *b = self.scratch.perm[*b as usize];
        }
        (t, true)
    }
}

/// Sorts `class` into `order` by `greater` (insertion sort: classes are small).
fn sort_class(class: &[u32], order: &mut Vec<u32>, mut greater: impl FnMut(u32, u32) -> bool) {
    order.clear();
    order.extend_from_slice(class);
    for i in 1..order.len() {
        let mut j = i;
        while j > 0 && greater(order[j - 1], order[j]) {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Compares the words of units `x` and `y` over `segs`.
fn compare_words(s: &[u32], segs: &[Segment], x: usize, y: usize) -> Ordering {
    for seg in segs {
        let (a, b) = (seg.words(s, x), seg.words(s, y));
        // Equal long runs are common (idle blocks): a memcmp says so fast;
        // short ones (per-SM words) are compared in place.
        if seg.len > 8 && a == b {
            continue;
        }
        if let Some((v, w)) = a.iter().zip(b).find(|(v, w)| v != w) {
            return v.cmp(w);
        }
    }
    Ordering::Equal
}

/// Like [`compare_words`], skipping the words `mask` marks (ids); also
/// says whether some skipped word differs.
fn compare_masked(
    s: &[u32],
    segs: &[Segment],
    mask: &[bool],
    x: usize,
    y: usize,
) -> (Ordering, bool) {
    let mut at = 0;
    let mut ids_differ = false;
    for seg in segs {
        let (a, b) = (seg.words(s, x), seg.words(s, y));
        if seg.len > 8 && a == b {
            at += seg.len;
            continue;
        }
        let masked = &mask[at..at + seg.len];
        for ((v, w), m) in a.iter().zip(b).zip(masked) {
            if v != w {
                if !*m {
                    return (v.cmp(w), ids_differ);
                }
                ids_differ = true;
            }
        }
        at += seg.len;
    }
    (Ordering::Equal, ids_differ)
}

/// Moves the words of each unit of `segs` to their unit's new place
/// `perm[unit]` in `s` (`copy`: scratch for the moved units' old words);
/// records moved global locations.
fn move_units(
    s: &mut [u32],
    copy: &mut Vec<u32>,
    segs: &[Segment],
    perm: &[u32],
    moves: &mut Vec<(usize, usize)>,
) {
    let moved = || {
        perm.iter()
            .enumerate()
            .filter(|(old, new)| *old as u32 != **new)
    };
    for seg in segs {
        copy.clear();
        for (old, _) in moved() {
            let from = seg.base + old * seg.stride;
            copy.extend_from_slice(&s[from..from + seg.len]);
        }
        for ((old, new), words) in moved().zip(copy.chunks_exact(seg.len.max(1))) {
            let from = seg.base + old * seg.stride;
            let to = seg.base + *new as usize * seg.stride;
            s[to..to + seg.len].copy_from_slice(&words[..seg.len]);
            if seg.global {
                moves.extend((0..seg.len).map(|i| (from + i, to + i)));
            }
        }
    }
}

/// Classes (at least two members) of `members` with equal `key`.
fn group_by<K: PartialEq>(
    members: impl Iterator<Item = usize>,
    key: impl Fn(usize) -> K,
) -> Vec<Vec<u32>> {
    let mut classes: Vec<(K, Vec<u32>)> = Vec::new();
    for m in members {
        let k = key(m);
        match classes.iter_mut().find(|(c, _)| *c == k) {
            Some((_, list)) => list.push(m as u32),
            None => classes.push((k, vec![m as u32])),
        }
    }
    classes
        .into_iter()
        .map(|(_, m)| m)
        .filter(|m| m.len() > 1)
        .collect()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests;
