//! Symmetry reduction over interchangeable blocks.
//!
//! A launch runs N copies of the same code, so many states differ only by
//! which block is which. Blocks are *interchangeable* when they start alike
//! (same initial words, up to their own block id) and the code uses block
//! ids only as names (`ids`: copied, offset, compared for equality; a block
//! compared with a constant, like `blockIdx == 0`, stays apart). Every state
//! is then replaced by a representative of its class before it is stored:
//! the blocks of each class are sorted by their words and the block ids
//! held in memory and locals are renamed to match (Ip & Dill's scalarsets).
//! A counterexample found on the representatives is mapped back to real
//! blocks by [`Symmetry::concretize`].
//!
//! The per-block part of a state is described by [`Segment`]s taken from the
//! layout: the block's threads and its copies of `shared` variables. Every
//! word of the state must be global memory, or in a segment; state that this
//! module does not know about (a semantics adding words) turns symmetry off
//! with a reason instead of risking a wrong verdict. To make new per-block
//! or per-thread words symmetric, describe them here as segments (with the
//! words that hold block ids, if any).

mod ids;

use super::memory::BlockWords;
use super::state::Layout;
use crate::ir::cfg::Liveness;
use crate::ir::{from_raw, to_raw, LocalId, Program};
use crate::spec::ast::{Storage, Type};
use std::cell::RefCell;

/// Per-thread header words before the locals (pc, flags, critical weight,
/// phases): plain data. A semantics that adds header words must extend this
/// module (see the module comment); until then symmetry turns itself off.
const THREAD_HEADER: usize = 4;

/// Takes one real step (state, thread, successor); `false` if it faults.
pub type StepFn<'a> = dyn Fn(&[u32], u32, &mut [u32]) -> bool + 'a;

/// Buffers reused by every canonicalization on a thread.
#[derive(Default)]
struct Scratch {
    copy: Vec<u32>,
    /// `perm[old block]`: its block in the representative.
    perm: Vec<u32>,
    /// `first[block]`: the first global id word naming it (`u32::MAX`: none).
    first: Vec<u32>,
    order: Vec<u32>,
}

/// Words of one block: `len` words at `base + block * stride`.
#[derive(Clone, Copy, Debug)]
struct Segment {
    base: usize,
    len: usize,
    stride: usize,
}

/// A word holding `block id + offset` (raw, of type `ty`).
#[derive(Clone, Copy, Debug)]
struct IdWord {
    offset: i64,
    ty: Type,
}

/// The symmetry of one program under one launch.
pub struct Symmetry {
    blocks: usize,
    threads_per_block: usize,
    thread_words: usize,
    mem_words: usize,
    /// Interchangeable blocks: each class sorted, at least two blocks.
    classes: Vec<Vec<u32>>,
    /// The words of each block: its threads first, then its shared copies.
    segments: Vec<Segment>,
    /// Global memory words holding ids.
    global_ids: Vec<(usize, IdWord)>,
    /// Shared variables holding ids: (base, len, kind), one copy per block.
    shared_ids: Vec<(usize, usize, IdWord)>,
    /// Locals holding ids (renamed only where live).
    local_ids: Vec<(LocalId, IdWord)>,
    /// For each word of a block ([`Symmetry::block_words`] order): may hold an id.
    id_mask: Vec<bool>,
    /// Some word may hold a block id.
    has_ids: bool,
    liveness: Liveness,
    code_len: u32,
    /// The `ptx` model's words, when it is on.
    memory: Option<BlockWords>,
    /// Per memory word: it holds block ids (for the values in its history).
    value_ids: Vec<Option<IdWord>>,
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
    ) -> Result<Symmetry, String> {
        let blocks = prog.launch.blocks as usize;
        let tpb = layout.threads_per_block;
        let described = match memory {
            Some(_) => layout.model_words,
            None => 0,
        };
        if layout.thread_words != THREAD_HEADER + prog.locals.len()
            || layout.words() != layout.mem_words + layout.threads * layout.thread_words + described
        {
            return Err("the state has words the symmetry reduction does not describe".into());
        }
        let liveness = Liveness::compute(&prog.code, prog.locals.len());
        let live_at_entry = |l: LocalId| !prog.code.is_empty() && liveness.is_live(0, l);
        let kinds = ids::infer(prog, &live_at_entry)?;
        let id_word = |k: ids::Kind, ty: Type| match k {
            ids::Kind::Id(offset) => Some(IdWord { offset, ty }),
            _ => None,
        };

        let mut segments = vec![Segment {
            base: layout.mem_words,
            len: tpb * layout.thread_words,
            stride: tpb * layout.thread_words,
        }];
        let mut global_ids = Vec::new();
        let mut shared_ids = Vec::new();
        for (v, var) in prog.vars.iter().enumerate() {
            let base = layout.var_base[v];
            let len = var.len as usize;
            let id = id_word(kinds.vars[v], var.ty);
            if var.storage == Storage::Shared {
                segments.push(Segment {
                    base,
                    len,
                    stride: len,
                });
                if let Some(id) = id {
                    shared_ids.push((base, len, id));
                }
            } else if let Some(id) = id {
                global_ids.extend((base..base + len).map(|w| (w, id)));
            }
        }
        if let Some(m) = &memory {
            segments.extend(m.runs().into_iter().map(|r| Segment {
                base: r.base,
                len: r.len,
                stride: r.stride,
            }));
        }
        let mut value_ids = vec![None; layout.mem_words];
        for &(w, id) in &global_ids {
            value_ids[w] = Some(id);
        }
        for &(base, len, id) in &shared_ids {
            value_ids[base..base + blocks * len].fill(Some(id));
        }
        let local_ids: Vec<(LocalId, IdWord)> = prog
            .locals
            .iter()
            .enumerate()
            .filter_map(|(l, local)| Some((l as LocalId, id_word(kinds.locals[l], local.ty)?)))
            .collect();

        let mut sym = Symmetry {
            blocks,
            threads_per_block: tpb,
            thread_words: layout.thread_words,
            mem_words: layout.mem_words,
            classes: Vec::new(),
            segments,
            global_ids,
            shared_ids,
            local_ids,
            id_mask: Vec::new(),
            has_ids: false,
            liveness,
            code_len: prog.code.len() as u32,
            memory,
            value_ids,
        };
        sym.id_mask = sym.id_mask();
        sym.has_ids = !sym.global_ids.is_empty() || sym.id_mask.contains(&true);
        sym.classes = sym.classes_of(prog, layout, &kinds.fixed);
        if sym.classes.is_empty() {
            return Err("no two blocks are interchangeable".into());
        }
        Ok(sym)
    }

    /// Groups blocks whose initial words agree (ids masked); blocks singled
    /// out by the code stay alone.
    fn classes_of(&self, prog: &Program, layout: &Layout, fixed: &[u32]) -> Vec<Vec<u32>> {
        let mut init = vec![0u32; layout.words()];
        layout.initial(prog, &mut init);
        let signature = |b: usize| -> Vec<u32> {
            self.block_words(b)
                .zip(&self.id_mask)
                .map(|(w, masked)| if *masked { u32::MAX } else { init[w] })
                .collect()
        };
        let mut classes: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        for b in 0..self.blocks {
            if fixed.contains(&(b as u32)) {
                continue;
            }
            let sig = signature(b);
            match classes.iter_mut().find(|(s, _)| *s == sig) {
                Some((_, members)) => members.push(b as u32),
                None => classes.push((sig, vec![b as u32])),
            }
        }
        classes
            .into_iter()
            .map(|(_, m)| m)
            .filter(|m| m.len() > 1)
            .collect()
    }

    /// The words of block `b`, in segment order.
    fn block_words(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        self.segments
            .iter()
            .flat_map(move |s| s.base + b * s.stride..s.base + b * s.stride + s.len)
    }

    /// For each word of a block (in [`block_words`](Self::block_words)
    /// order), whether it may hold a block id.
    fn id_mask(&self) -> Vec<bool> {
        let mut thread = vec![false; self.thread_words];
        for (l, _) in &self.local_ids {
            thread[THREAD_HEADER + *l as usize] = true;
        }
        let mut mask = thread.repeat(self.threads_per_block);
        for s in &self.segments[1..] {
            let ids = self.shared_ids.iter().any(|(base, _, _)| *base == s.base);
            mask.extend(std::iter::repeat_n(ids, s.len));
        }
        mask
    }

    /// The classes of interchangeable blocks.
    pub fn classes(&self) -> &[Vec<u32>] {
        &self.classes
    }

    /// A one-line description for reports (`blocks 1-5 interchangeable`).
    pub fn describe(&self) -> String {
        let classes: Vec<String> = self
            .classes
            .iter()
            .map(|c| {
                let names: Vec<String> = c.iter().map(u32::to_string).collect();
                format!("{{{}}}", names.join(","))
            })
            .collect();
        format!("interchangeable blocks {}", classes.join(" "))
    }

    /// Replaces `s` by the representative of its class.
    pub fn canonicalize(&self, s: &mut [u32]) {
        SCRATCH.with(|scratch| self.canonicalize_with(s, &mut scratch.borrow_mut()));
    }

    /// Like [`canonicalize`](Self::canonicalize); afterwards `scratch.perm[b]`
    /// is where block `b` of the old state went.
    ///
    /// Blocks of a class are ordered by a sort key per block: its words with
    /// ids masked (a block's own id says nothing), then where global memory
    /// first names it, then all its words. The first two parts do not change
    /// when blocks are renamed, which makes most representatives unique per
    /// class.
    fn canonicalize_with(&self, s: &mut [u32], scratch: &mut Scratch) {
        let Scratch {
            copy,
            perm,
            first,
            order,
        } = scratch;
        perm.clear();
        perm.extend(0..self.blocks as u32);
        first.clear();
        first.resize(self.blocks, u32::MAX);
        for (i, (w, id)) in self.global_ids.iter().enumerate() {
            let b = from_raw(id.ty, s[*w]) - id.offset;
            if (0..self.blocks as i64).contains(&b) {
                first[b as usize] = first[b as usize].min(i as u32);
            }
        }
        // Keys are compared in place (no copy of the blocks' words): most
        // comparisons stop at the first few words.
        let state: &[u32] = s;
        let greater = |a: u32, b: u32| self.compare_blocks(state, first, a, b).is_gt();
        let mut moved = false;
        for class in &self.classes {
            order.clear();
            order.extend_from_slice(class);
            // Insertion sort: classes are small.
            for i in 1..order.len() {
                let mut j = i;
                while j > 0 && greater(order[j - 1], order[j]) {
                    order.swap(j - 1, j);
                    j -= 1;
                }
            }
            for (slot, old) in class.iter().zip(order.iter()) {
                perm[*old as usize] = *slot;
                moved |= slot != old;
            }
        }
        if !moved {
            return;
        }
        copy.clear();
        copy.extend_from_slice(s);
        for seg in &self.segments {
            for (old, new) in perm.iter().enumerate() {
                if old as u32 != *new {
                    let from = seg.base + old * seg.stride;
                    let to = seg.base + *new as usize * seg.stride;
                    s[to..to + seg.len].copy_from_slice(&copy[from..from + seg.len]);
                }
            }
        }
        self.rename(s, perm);
    }

    /// Orders blocks `a` and `b` of `s` by their sort key (see
    /// [`canonicalize_with`](Self::canonicalize_with)): their words with ids
    /// masked, then `first[block]` (where global memory first names it),
    /// then all their words.
    fn compare_blocks(&self, s: &[u32], first: &[u32], a: u32, b: u32) -> std::cmp::Ordering {
        let (a, b) = (a as usize, b as usize);
        let words = |seg: &Segment, x: usize| {
            let from = seg.base + x * seg.stride;
            &s[from..from + seg.len]
        };
        if self.has_ids {
            let mut mask = self.id_mask.iter();
            for seg in &self.segments {
                for (x, y) in words(seg, a).iter().zip(words(seg, b)) {
                    let masked = *mask.next().expect("one mask bit per block word");
                    if !masked && x != y {
                        return x.cmp(y);
                    }
                }
            }
            let by_first = first[a].cmp(&first[b]);
            if by_first.is_ne() {
                return by_first;
            }
        }
        for seg in &self.segments {
            let (x, y) = (words(seg, a), words(seg, b));
            // Equal blocks are common (idle blocks): a memcmp says so fast.
            if x != y {
                return x.cmp(y);
            }
        }
        std::cmp::Ordering::Equal
    }

    /// Renames the block ids held in `s` by `perm`.
    fn rename(&self, s: &mut [u32], perm: &[u32]) {
        let blocks = self.blocks as i64;
        let map = |raw: u32, id: IdWord| -> u32 {
            let b = from_raw(id.ty, raw) - id.offset;
            if (0..blocks).contains(&b) {
                to_raw(id.ty, i64::from(perm[b as usize]) + id.offset)
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
        for t in 0..self.blocks * self.threads_per_block {
            let at = self.mem_words + t * self.thread_words;
            let pc = s[at];
            if pc >= self.code_len {
                continue;
            }
            for (l, id) in &self.local_ids {
                if self.liveness.is_live(pc, *l) {
                    let w = at + THREAD_HEADER + *l as usize;
                    s[w] = map(s[w], *id);
                }
            }
        }
    }

    /// Maps a schedule over representatives (each action a thread index of
    /// the representative it moves from) to one over real threads from the
    /// real `initial` state, and likewise a cycle after it, repeated until it
    /// returns to the same real state. `step` takes one step and says
    /// whether it succeeded (a faulting step ends the schedule).
    ///
    /// Representatives and real states are stepped side by side, keeping
    /// the renaming between them, so this does not rely on representatives
    /// being unique per class.
    pub fn concretize(
        &self,
        initial: &[u32],
        schedule: &[u32],
        cycle: &[u32],
        step: &StepFn,
    ) -> (Vec<u32>, Vec<u32>) {
        let mut walk = Walk::new(self, initial);
        let mut real_schedule = Vec::with_capacity(schedule.len());
        for &a in schedule {
            let (t, ok) = walk.step(self, a, step);
            real_schedule.push(t);
            if !ok {
                return (real_schedule, Vec::new());
            }
        }
        let mut real_cycle = Vec::new();
        if cycle.is_empty() {
            return (real_schedule, real_cycle);
        }
        let entry = walk.real.clone();
        // A cycle of representatives permutes real blocks; it closes after
        // at most the order of that permutation (at most lcm(1..=blocks)).
        for _ in 0..self.max_rounds() {
            for &a in cycle {
                let (t, ok) = walk.step(self, a, step);
                real_cycle.push(t);
                if !ok {
                    return (real_schedule, real_cycle);
                }
            }
            if walk.real == entry {
                break;
            }
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
    fn step(&mut self, sym: &Symmetry, a: u32, step: &StepFn) -> (u32, bool) {
        let tpb = sym.threads_per_block;
        let thread = super::thread_of(a);
        let block = self.sigma.iter().position(|b| *b as usize == thread / tpb);
        // The action's other bits (a memory-model choice) are kept.
        let t = a - thread as u32 + (block.unwrap_or(0) * tpb + thread % tpb) as u32;
        if !step(&self.real, t, &mut self.next) {
            return (t, false);
        }
        self.real.copy_from_slice(&self.next);
        if !step(&self.rep, a, &mut self.next) {
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

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests;
