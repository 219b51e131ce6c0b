//! The scoped PTX memory model (`--memory-model ptx`): an operational model
//! the explicit-state explorer enumerates, sound with respect to the PTX
//! axiomatic model on the litmus corpus (book/src/ptx-model.md).
//!
//! Every location keeps a bounded *history* of writes in coherence order
//! (the L2's order of a line); the last one is the value in the SC memory
//! words. Each thread has a *view*: for each location the oldest write it
//! may still read. What the hardware picture calls a stale L1 line is a read
//! of a write older than the latest; a store sitting in the store buffer
//! while later stores drain is a store placed in coherence order before
//! writes other threads already made, or read late by others. Views move
//! only through:
//!
//! - program order on one location (a thread never reads older than its own
//!   last write: per-location coherence);
//! - morally strong reads (both strong, each in the other's scope), which
//!   also keep strong reads coherent (CoRR);
//! - release/acquire at a scope: a release write carries the writer's view,
//!   an acquire read in its scope joins it; fences release/acquire for the
//!   relaxed accesses around them, `fence.cta` only what comes from the
//!   block, `fence.gpu` also what comes from other blocks;
//! - `fence.sc`: a view per scope that every sc fence joins and publishes
//!   (their total order);
//! - `__syncthreads()`: the block's views are joined (`bar.cta.sync`).
//!
//! Weak (plain) reads never move views: racing weak accesses get no
//! coherence, as in PTX. Read-modify-writes read a write and land right
//! after it; two morally strong RMWs never read the same write (atomicity),
//! block-scope RMWs of different blocks may. A store whose instruction
//! follows a load or RMW with no dependency on it may be performed first
//! (load→store reordering, load buffering).
//!
//! Bounds: [`HISTORY`] writes per location. Writes nobody can read any more
//! are dropped after each step; when a history is full and a thread writes,
//! the oldest write is retired first (every view moves past it, as if the
//! lagging thread's L1 line were invalidated): the only place the model is
//! stronger than PTX, and only for threads more than `HISTORY - 1` writes
//! behind.

mod blocks;
mod canon;
mod fairness;
mod fixpoint;
mod layout;
mod race;

pub use fairness::{MemoryEffect, Recency};
pub use layout::WordKind;

use super::threads::{runtime_error, Threads};
use super::{Event, MemoryModel, ModelOptions, Violation};
use crate::ir::atomic_result;
use crate::ir::Type;
use crate::ir::{
    from_raw, to_raw, AtomicOp, Expr, Loc, MemAccess, MemOrder, Op, Order, Pc, Program, Scope,
};
pub use blocks::BlockWords;
use layout::*;

/// What the canonical form may know of the threads' code ahead of any
/// state (`model::facts` computes it): without it every unfinished thread
/// counts as a reader of every location it can access, and no view is
/// refreshed.
pub trait Foresight {
    /// The memory words thread `t` at `pc` may still read, then those it
    /// may still write (`None`: not known).
    fn future(&self, t: usize, pc: Pc) -> Option<(&[u64], &[u64])>;
    /// The words whose view thread `t`'s next SC fence refreshes from the
    /// block's SC-fence view, then those it refreshes from the device's as
    /// well (`None`: none, or nothing known).
    fn refreshed(&self, th: &Threads, s: &[u32], t: usize) -> Option<(&[u64], &[u64])>;
    /// Whether [`refreshed`](Self::refreshed) can say anything at all.
    fn refreshes(&self) -> bool;
}

thread_local! {
    /// Which threads read which locations in the state being put in
    /// canonical form (`PtxMemory::readers`), reused from step to step.
    static READERS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Writes kept per location.
pub const HISTORY: usize = 4;

/// Choice bit: perform the store or atomic after the load first.
const EARLY_CHOICE: u32 = 0x8000;
/// Choice bit: a load reads the racing write at this absolute position,
/// older than its view.
const BELOW: u32 = 0x4000;

/// The `ptx` memory model of one program (named apart from `Order::Weak`,
/// plain accesses, and `Progress::Fair`, weak fairness).
pub struct PtxMemory {
    sec: Sections,
    /// Per pc: the store or atomic after it that may be performed first
    /// (`reorderable`).
    early: Vec<Option<Pc>>,
    /// The GPU of each block (empty: one GPU).
    devices: Vec<u32>,
    tpb: usize,
    races: bool,
    locations: canon::Locations,
    /// Put states in canonical form after each step (`canon`).
    canonical: bool,
    /// ... with dead writes removed (`canon::drop_dead_writes`).
    drop_dead: bool,
    /// ... merged until nothing merges (`fixpoint`).
    fixpoint: bool,
    /// One GPU and no release at system scope (no system-scope fence or
    /// release access; a `volatile` access is relaxed): an empty
    /// device-scope release is no release, so an empty REL needs no flag
    /// (`canon::drop_empty_rel`).
    empty_rel_is_none: bool,
    /// Per location: the low word of a 64-bit element, whose high word is
    /// the next memory word (see `layout`).
    wide: Vec<bool>,
    /// Per thread, the locations it can access (`reads`), as bit rows
    /// (`canon::Readers`).
    accessible: Vec<u64>,
}

/// The note for a write that lands before `later` writes already made.
fn lands_before(later: usize) -> Option<String> {
    (later > 0).then(|| {
        format!(
            "lands before {later} write{} already made to it (coherence order is not real time)",
            if later == 1 { "" } else { "s" }
        )
    })
}

/// A write about to be placed in a history.
struct NewWrite {
    x: usize,
    raw: u64,
    meta: u32,
    release: Option<Scope>,
}

fn is_acquire(o: Order) -> bool {
    matches!(o, Order::Acquire | Order::AcqRel | Order::Sc)
}

fn is_release(o: Order) -> bool {
    matches!(o, Order::Release | Order::AcqRel | Order::Sc)
}

/// `volatile` is relaxed at system scope.
fn effective_scope(o: Order, scope: Scope) -> Scope {
    if o == Order::Volatile {
        Scope::Sys
    } else {
        scope
    }
}

/// Destination, location, order and the expressions read by a memory access.
fn access_parts(op: &Op) -> Option<(Option<u32>, &Loc, Order, Vec<&Expr>)> {
    fn with_index<'a>(loc: &'a Loc, mut v: Vec<&'a Expr>) -> Vec<&'a Expr> {
        v.extend(loc.index.as_ref());
        v
    }
    let (dst, operands) = match op {
        Op::Load { dst, .. } => (Some(*dst), vec![]),
        Op::Store { value, .. } => (None, vec![value]),
        Op::Atomic { dst, operands, .. } => (*dst, operands.iter().collect()),
        _ => return None,
    };
    let MemAccess { loc, order, .. } = op.access()?;
    Some((dst, loc, *order, with_index(loc, operands)))
}

/// The store or atomic right after a load or atomic at `pc` may be
/// performed first when it does not depend on it and nothing orders them
/// (load→store reordering: load buffering), also across a block-scope
/// fence, which orders them only for the block (`MICRO24-Fig4b`; for
/// observers in the block this over-approximates). Its pc, decided once
/// per instruction from the code (`rmw_vars`: the variables some atomic
/// accesses); where the two access the same word is decided when run.
/// The operands of an atomic, evaluated (`None` where one fails: the step
/// reports it).
fn rmw_args(th: &Threads, s: &[u32], t: usize, operands: &[Expr]) -> Option<[i64; 2]> {
    let mut args = [0i64; 2];
    for (a, e) in args.iter_mut().zip(operands) {
        *a = th.eval(e, s, t).ok()?;
    }
    Some(args)
}

fn reorderable(code: &[crate::ir::Instr], pc: usize, rmw_vars: &[bool]) -> Option<Pc> {
    let first = &code[pc].op;
    let (dst, _, order, reads) = access_parts(first)?;
    if matches!(first, Op::Store { .. }) {
        return None;
    }
    let mut early = pc + 1;
    if let Op::Fence(MemOrder {
        scope: Scope::Cta, ..
    }) = code.get(early)?.op
    {
        early += 1;
    }
    let second = &code.get(early)?.op;
    let (dst2, loc2, order2, reads2) = access_parts(second)?;
    if matches!(second, Op::Load { .. }) || is_release(order2) {
        return None;
    }
    // Past an acquire only a weak store to a location some atomic reads:
    // PTX lets that atomic read it without ordering the store after what
    // the acquire saw (`LB+RMW-a`); other readers would see a coherence
    // violation (`LB+RMW-b`).
    if is_acquire(order) && (order2 != Order::Weak || !rmw_vars[loc2.var as usize]) {
        return None;
    }
    // No dependency either way through registers.
    let depends = dst.is_some_and(|d| reads2.iter().any(|e| uses_local(e, d)))
        || dst2.is_some_and(|d| reads.iter().any(|e| uses_local(e, d)) || Some(d) == dst);
    (!depends).then_some(early as Pc)
}

fn uses_local(e: &Expr, l: u32) -> bool {
    match e {
        Expr::Local(x) => *x == l,
        Expr::Const(_) | Expr::Builtin(_) => false,
        Expr::Unary(_, a) => uses_local(a, l),
        Expr::Binary(_, a, b) => uses_local(a, l) || uses_local(b, l),
        Expr::Ternary(a, b, c) => uses_local(a, l) || uses_local(b, l) || uses_local(c, l),
        Expr::Fma(_, abc) => abc.iter().any(|x| uses_local(x, l)),
        Expr::Global(_, i) => i.as_deref().is_some_and(|i| uses_local(i, l)),
    }
}

/// The memory part of a model. Under sequential consistency the memory
/// words of the state are the memory, and loads and stores act on them
/// (`exec`); under `ptx` a [`PtxMemory`] keeps histories and views in
/// words of its own and executes the memory instructions itself.
pub enum Memory {
    Sc,
    Ptx(Box<PtxMemory>),
}

impl Memory {
    /// The memory `options` name, its words reserved in `layout`.
    pub fn new(
        prog: &Program,
        layout: &mut super::state::Layout,
        options: &ModelOptions,
    ) -> Memory {
        match options.memory_model {
            MemoryModel::Sc => Memory::Sc,
            MemoryModel::Ptx => Memory::Ptx(Box::new(PtxMemory::new(prog, layout, options))),
        }
    }

    /// The PTX model, when it is the memory model.
    #[inline]
    pub fn ptx(&self) -> Option<&PtxMemory> {
        match self {
            Memory::Sc => None,
            Memory::Ptx(w) => Some(w),
        }
    }
}

impl PtxMemory {
    /// Sizes the model for `prog` and reserves its words in `layout`.
    pub fn new(
        prog: &Program,
        layout: &mut super::state::Layout,
        options: &ModelOptions,
    ) -> PtxMemory {
        let canonical = options.canonical_memory;
        let sec = Sections::new(
            layout.model_base(),
            layout.mem_words,
            HISTORY,
            (layout.threads, prog.launch.blocks as usize),
            (layout.wide, prog.barrier_ids().len()),
        );
        let mut wide = vec![false; layout.mem_words];
        for (v, var) in prog.vars.iter().enumerate() {
            if var.ty.words() == 2 {
                let copies = var.init.len();
                (0..copies).for_each(|k| wide[layout.var_base[v] + 2 * k] = true);
            }
        }
        layout.model_words = sec.words();
        let mut rmw_vars = vec![false; prog.vars.len()];
        for i in &prog.code {
            if let Op::Atomic { access, .. } = &i.op {
                rmw_vars[access.loc.var as usize] = true;
            }
        }
        let early = (0..prog.code.len())
            .map(|pc| reorderable(&prog.code, pc, &rmw_vars))
            .collect();
        let mut memory = PtxMemory {
            sec,
            early,
            devices: prog.devices.clone(),
            tpb: layout.threads_per_block,
            races: options.races,
            locations: canon::Locations::of(prog, &layout.var_base, layout.mem_words),
            drop_dead: options.drop_dead_writes,
            fixpoint: options.canonical_fixpoint,
            empty_rel_is_none: prog.devices.is_empty()
                && !prog.code.iter().any(|i| match &i.op {
                    Op::Fence(m) => m.scope == Scope::Sys,
                    op => op.access().is_some_and(|a| {
                        is_release(a.order) && effective_scope(a.order, a.scope) == Scope::Sys
                    }),
                }),
            canonical,
            wide,
            accessible: Vec::new(),
        };
        let locs = memory.sec.locs;
        memory.accessible = (0..memory.sec.threads)
            .flat_map(|t| {
                let memory = &memory;
                (0..locs.div_ceil(64)).map(move |i| {
                    (i * 64..locs.min(i * 64 + 64))
                        .filter(|&x| memory.reads(t, x))
                        .fold(0u64, |row, x| row | 1 << (x % 64))
                })
            })
            .collect();
        memory
    }

    /// Every location starts with its initial value, readable by all.
    pub fn initial(&self, s: &mut [u32]) {
        for x in 0..self.sec.locs {
            s[self.sec.len_word(x)] = 1;
            let m = self.sec.msg(x, 0);
            let raw = u64::from(s[x])
                | if self.wide[x] {
                    u64::from(s[x + 1]) << 32
                } else {
                    0
                };
            self.sec.set_value(s, m, raw);
            s[m + 1] = initial_meta();
        }
    }

    fn len(&self, s: &[u32], x: usize) -> usize {
        s[self.sec.len_word(x)] as usize
    }

    fn cur(&self, s: &[u32], t: usize, x: usize) -> usize {
        get(s, self.sec.thread_view(t, CUR), x)
    }

    /// The block of thread `t` (of a writer that is no thread,
    /// `FORGOTTEN_WRITER`, the quotient all the same).
    #[inline]
    fn block(&self, t: usize) -> usize {
        super::state::block_of(t, self.tpb)
    }

    fn same_block(&self, a: usize, b: usize) -> bool {
        self.block(a) == self.block(b)
    }

    /// Whether `b` is inside scope `scope` of `a`.
    fn in_scope(&self, a: usize, b: usize, scope: Scope) -> bool {
        match scope {
            Scope::Cta => self.same_block(a, b),
            Scope::Gpu => self.device(a) == self.device(b),
            Scope::Sys => true,
        }
    }

    fn device(&self, t: usize) -> u32 {
        self.devices.get(self.block(t)).copied().unwrap_or(0)
    }

    /// Whether an access of `t` (strength, scope) and the write `meta` are
    /// morally strong: both strong, each in the other's scope. The initial
    /// value is ordered before everything.
    fn morally_strong(&self, meta: u32, t: usize, strong: bool, scope: Scope) -> bool {
        let Some(w) = writer(meta) else { return true };
        strong
            && meta & STRONG != 0
            && self.in_scope(t, w, scope)
            && self.in_scope(w, t, write_scope(meta))
    }

    /// Whether a write `meta` may land at position `q` of `x`: not between a
    /// morally strong read-modify-write and the write it read.
    fn may_insert(&self, s: &[u32], x: usize, q: usize, meta: u32) -> bool {
        if q >= self.len(s, x) {
            return true;
        }
        let next = s[self.sec.msg(x, q) + 1];
        if next & RMW == 0 {
            return true;
        }
        let Some(w) = writer(meta) else { return true };
        let strong = meta & STRONG != 0;
        !self.morally_strong(next, w, strong, write_scope(meta))
    }

    /// The alternatives of thread `t`'s next step, as actions.
    pub fn alternatives(&self, th: &Threads, s: &[u32], t: usize, out: &mut Vec<u32>) {
        let pc = th.pc(s, t);
        let before = out.len();
        self.choices(th, s, t, pc, &mut |c| out.push(t as u32 | c << 16));
        if out.len() == before {
            // Not a memory instruction, or one that fails: one way to go.
            out.push(t as u32);
        }
        if let Some((early, _)) = self.early_op(th, s, t, pc) {
            self.choices(th, s, t, early, &mut |c| {
                out.push(t as u32 | (EARLY_CHOICE | c) << 16)
            });
        }
    }

    /// The choices of the memory instruction at `pc` for thread `t`: which
    /// write a load or atomic reads, where a store lands.
    fn choices(&self, th: &Threads, s: &[u32], t: usize, pc: Pc, push: &mut impl FnMut(u32)) {
        let op = &th.prog.code[pc as usize].op;
        let Some(MemAccess { loc, .. }) = op.access() else {
            return;
        };
        let Ok((x, _)) = th.address(s, t, loc) else {
            return;
        };
        let roomy = match op {
            Op::Load { .. } => None,
            _ => self.roomy(s, x),
        };
        let s = roomy.as_deref().unwrap_or(s);
        let cur = self.cur(s, t, x);
        let len = self.len(s, x);
        match op {
            Op::Load { .. } => {
                (cur..len).for_each(|p| push((p - cur) as u32));
                self.racing_below(s, x, cur)
                    .into_iter()
                    .for_each(|p| push(BELOW | p as u32));
            }
            Op::Store {
                access: MemAccess { order, scope, .. },
                ..
            } => {
                let meta = meta(
                    t,
                    pc,
                    *order != Order::Weak,
                    effective_scope(*order, *scope),
                );
                for q in cur + 1..=len {
                    if self.may_insert(s, x, q, meta) {
                        push((q - cur - 1) as u32);
                    }
                }
            }
            Op::Atomic {
                op,
                operands,
                access: MemAccess { scope, .. },
                ..
            } => {
                let Some(args) = rmw_args(th, s, t, operands) else {
                    return;
                };
                let ty = th.prog.vars[loc.var as usize].ty;
                let meta = meta(t, pc, true, *scope) | RMW;
                for p in cur..len {
                    let writes = self.rmw_writes(s, (x, p), ty, *op, args);
                    if !writes || self.may_insert(s, x, p + 1, meta) {
                        push((p - cur) as u32);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether action `a` only reads, and reads an older write than the
    /// latest of its location (for `reduce::awaits`): a load, or an atomic
    /// that writes nothing (a failed `atomicCAS`), not performed early.
    pub fn reads_stale(&self, th: &Threads, s: &[u32], a: u32) -> bool {
        let (t, choice) = (crate::model::thread_of(a), a >> 16);
        if choice & EARLY_CHOICE != 0 {
            return false;
        }
        let op = &th.prog.code[th.pc(s, t) as usize].op;
        let Some(Ok((x, _))) = op.access().map(|access| th.address(s, t, &access.loc)) else {
            return false;
        };
        let (cur, len) = (self.cur(s, t, x), self.len(s, x));
        match op {
            Op::Load { .. } => choice & BELOW != 0 || cur + (choice as usize) + 1 < len,
            Op::Atomic {
                op,
                operands,
                access,
                ..
            } => {
                // An atomic makes room first (`rmw`): where the history is
                // full its choices count from the history without the
                // oldest write (`choices`), so its position `p` is `p + 1`
                // here, and a view at the oldest write moves up to it.
                let dropped = usize::from(len == self.sec.hist);
                let p = cur.saturating_sub(dropped) + (choice & !BELOW) as usize;
                let ty = th.prog.vars[access.loc.var as usize].ty;
                p + 1 < len - dropped
                    && rmw_args(th, s, t, operands)
                        .is_some_and(|args| !self.rmw_writes(s, (x, p + dropped), ty, *op, args))
            }
            _ => false,
        }
    }

    /// Whether action `a` reads a write newer than its thread's view, if
    /// its instruction is a load (for `reduce::awaits`): not performed
    /// early, not a racing write below the view, not the write at it.
    pub fn reads_past_view(a: u32) -> bool {
        let choice = a >> 16;
        choice != 0 && choice & (EARLY_CHOICE | BELOW) == 0
    }

    /// Whether action `a` performs a later instruction early.
    pub fn is_early(a: u32) -> bool {
        (a >> 16) & EARLY_CHOICE != 0
    }

    /// The location the load at thread `t`'s pc reads (`None`: no load, or
    /// an address that faults).
    pub fn load_location(&self, th: &Threads, s: &[u32], t: usize) -> Option<usize> {
        let Op::Load { access, .. } = &th.prog.code[th.pc(s, t) as usize].op else {
            return None;
        };
        th.address(s, t, &access.loc).ok().map(|(x, _)| x)
    }

    /// Gives the write of `x` at `t`'s view the value `raw` (a one-word
    /// value): what `t` reads there if a write of that value were made.
    pub fn set_value_at_view(&self, s: &mut [u32], t: usize, x: usize, raw: u32) {
        s[self.sec.msg(x, self.cur(s, t, x))] = raw;
    }

    /// Whether an atomic `op` with `args` that reads write `p` of `x` writes.
    fn rmw_writes(
        &self,
        s: &[u32],
        (x, p): (usize, usize),
        ty: Type,
        op: AtomicOp,
        args: [i64; 2],
    ) -> bool {
        let old = from_raw(ty, self.sec.value(s, self.sec.msg(x, p), ty));
        atomic_result(op, ty, old, args).is_some()
    }

    /// Per pc: the store or atomic that may be performed before the
    /// instruction there (`reorderable`).
    pub fn early_ops(&self) -> &[Option<Pc>] {
        &self.early
    }

    /// The parts of the state the store may keep once per distinct
    /// content (`explore::parts`): the write histories. They take far
    /// fewer values than the states, which are the threads' positions,
    /// locals and views times them (priority_semaphore at 4 blocks:
    /// 364,515 histories in 11,982,026 states). The views repeat less
    /// (1,064,813 there) and change at almost every step, so that looking
    /// them up cost more time (+17%) than their share of memory is worth.
    pub fn state_parts(&self) -> Vec<std::ops::Range<usize>> {
        std::iter::once(self.sec.loc_base..self.sec.thread_base).collect()
    }

    /// The words of thread `t`'s views and flags.
    pub fn thread_section(&self, t: usize) -> std::ops::Range<usize> {
        self.sec.thread_view(t, CUR)..self.sec.flags(t) + 1
    }

    /// The words of location `x`'s history (its length and messages).
    pub fn location_section(&self, x: usize) -> std::ops::Range<usize> {
        let base = self.sec.len_word(x);
        base..base + self.sec.loc_words
    }

    /// The words of the SC-fence view of the device (`None`) or a block.
    pub fn sc_section(&self, block: Option<usize>) -> std::ops::Range<usize> {
        let base = self.sec.sc_view(block);
        base..base + self.sec.vw
    }

    /// Whether some location has writes that become dead
    /// (`canon::drop_dead_writes`), whether or not they are dropped.
    pub fn drops_dead_writes(&self) -> bool {
        self.locations.dead_value.iter().any(Option::is_some)
    }

    /// What word `i` of a state holds, if it is one of this model's.
    pub fn word_kind(&self, i: usize) -> Option<WordKind> {
        self.sec.kind_of(i)
    }

    /// Whether thread `t`'s memory flags (a store performed early) are the
    /// same in `a` and `b`.
    pub fn same_flags(&self, a: &[u32], b: &[u32], t: usize) -> bool {
        let f = self.sec.flags(t);
        a[f] == b[f]
    }

    /// The state after making room in a full history (`None`: not full).
    fn roomy(&self, s: &[u32], x: usize) -> Option<Vec<u32>> {
        (self.len(s, x) == self.sec.hist).then(|| {
            let mut c = s.to_vec();
            self.drop_oldest(&mut c, x, 1);
            c
        })
    }

    /// Writes older than the thread's view that race with the write it
    /// knows (written without knowing it, and not morally strong with it):
    /// PTX gives racing writes no coherence order, so either may be read.
    fn racing_below(&self, s: &[u32], x: usize, cur: usize) -> Vec<usize> {
        let known = self.sec.msg(x, cur);
        let (kmeta, base) = (s[known + MSG_META], s[known + MSG_BASE] as usize);
        let Some(k) = writer(kmeta) else {
            return vec![];
        };
        let strong = kmeta & STRONG != 0;
        (base + 1..cur)
            .filter(|&p| {
                let meta = s[self.sec.msg(x, p) + MSG_META];
                !self.morally_strong(meta, k, strong, write_scope(kmeta))
            })
            .collect()
    }

    /// Whether thread `t`'s next step may perform the store or atomic after
    /// it first (`early_op`): its alternatives then access two locations.
    pub fn may_perform_early(&self, th: &Threads, s: &[u32], t: usize) -> bool {
        self.early_op(th, s, t, th.pc(s, t)).is_some()
    }

    /// The store or atomic right after the load or atomic at `pc` that
    /// thread `t` may perform first (`reorderable`), when it has not
    /// performed one early already and the two access different words.
    /// Returns its pc and location.
    fn early_op(&self, th: &Threads, s: &[u32], t: usize, pc: Pc) -> Option<(Pc, usize)> {
        if skip_of(s[self.sec.flags(t)]).is_some() {
            return None;
        }
        let early = self.early.get(pc as usize).copied().flatten()?;
        let code = &th.prog.code;
        let loc = &code[pc as usize].op.access()?.loc;
        let loc2 = &code[early as usize].op.access()?.loc;
        let x = th.address(s, t, loc).ok()?.0;
        let y = th.address(s, t, loc2).ok()?.0;
        (x != y).then_some((early, y))
    }

    /// Executes a memory instruction or fence; `None` for the others (the
    /// sequentially consistent code runs them). Returns the next pc.
    pub fn exec(
        &self,
        th: &Threads,
        s: &mut [u32],
        t: usize,
        pc: Pc,
        choice: u32,
        mut event: Option<&mut Event>,
    ) -> Result<Option<Pc>, Violation> {
        let op = &th.prog.code[pc as usize].op;
        if choice & EARLY_CHOICE != 0 {
            let Some((early, _)) = self.early_op(th, s, t, pc) else {
                return Err(runtime_error("no store or atomic to perform early"));
            };
            if let Some(e) = event.as_deref_mut() {
                e.pc = early;
            }
            let choice = choice & !EARLY_CHOICE;
            match &th.prog.code[early as usize].op {
                Op::Store { access, value } => self.store(
                    th,
                    s,
                    t,
                    early,
                    (access, value),
                    choice,
                    event.as_deref_mut(),
                )?,
                _ => self.rmw(th, s, (t, early), choice, event.as_deref_mut())?,
            }
            let f = self.sec.flags(t);
            s[f] = with_skip(s[f], early);
            if let Some(e) = event {
                e.note = Some(format!(
                    "{}; performed before the {} above it, which it does not depend on (load→store reordering)",
                    e.note.take().unwrap_or_default(),
                    if matches!(op, Op::Load { .. }) { "load" } else { "atomic" }
                ));
            }
            return Ok(Some(pc));
        }
        match op {
            Op::Load { dst, access } => {
                self.load(th, s, t, pc, (*dst, access), choice, event)?;
                Ok(Some(self.next_pc(s, t, pc)))
            }
            Op::Store { access, value } => {
                self.store(th, s, t, pc, (access, value), choice, event)?;
                Ok(Some(self.next_pc(s, t, pc)))
            }
            Op::Atomic { .. } => {
                self.rmw(th, s, (t, pc), choice, event)?;
                Ok(Some(self.next_pc(s, t, pc)))
            }
            Op::Fence(MemOrder { order, scope }) => {
                self.fence(s, t, *order, *scope);
                Ok(Some(self.next_pc(s, t, pc)))
            }
            _ => Ok(None),
        }
    }

    /// The instruction after `pc`, skipping one already performed early.
    fn next_pc(&self, s: &mut [u32], t: usize, pc: Pc) -> Pc {
        let f = self.sec.flags(t);
        if skip_of(s[f]) == Some(pc + 1) {
            s[f] &= !SKIP_BITS;
            pc + 2
        } else {
            pc + 1
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &self,
        th: &Threads,
        s: &mut [u32],
        t: usize,
        pc: Pc,
        (dst, access): (u32, &MemAccess),
        choice: u32,
        event: Option<&mut Event>,
    ) -> Result<(), Violation> {
        let MemAccess { loc, order, scope } = access;
        let (order, scope) = (*order, *scope);
        let (x, index) = th.address(s, t, loc)?;
        let scope = effective_scope(order, scope);
        let strong = order != Order::Weak;
        let cur = self.cur(s, t, x);
        let p = if choice & BELOW != 0 {
            (choice & !BELOW) as usize
        } else {
            cur + choice as usize
        };
        let valid = if choice & BELOW != 0 {
            self.racing_below(s, x, cur).contains(&p)
        } else {
            p < self.len(s, x)
        };
        if !valid {
            return Err(runtime_error("the load has no such write to read"));
        }
        if self.races {
            self.check_race(th, s, t, pc, x, (strong, scope))?;
        }
        let ty = th.prog.vars[loc.var as usize].ty;
        let raw = self.sec.value(s, self.sec.msg(x, p), ty);
        // Notes only for a recorded step: the search formats nothing.
        let note = event.is_some().then(|| self.read_source(th, s, t, x, p));
        self.observe(s, t, x, p, (strong, scope), is_acquire(order));
        let v = from_raw(ty, raw);
        th.write_local(s, t, dst, v);
        if let Some(e) = event {
            e.reads.push((th.location_name(t, loc, index), v));
            e.note = note;
        }
        Ok(())
    }

    /// Where a read of write `p` of `x` comes from, for traces.
    fn read_source(&self, th: &Threads, s: &[u32], t: usize, x: usize, p: usize) -> String {
        let newer = self.len(s, x) - 1 - p;
        let meta = s[self.sec.msg(x, p) + 1];
        let whose = match writer(meta) {
            None => "the initial value".to_string(),
            Some(w) if w == t => "its own store".to_string(),
            Some(w) => format!("{}'s store", th.thread_name(w)),
        };
        let plural = if newer == 1 { " is" } else { "s are" };
        if newer == 0 {
            format!("read {whose} from L2 (the latest write)")
        } else if writer(meta) == Some(t) {
            format!("read {whose} from its store buffer (forwarded): {newer} newer write{plural} not visible to it yet")
        } else {
            // Not "a stale L1 line": the model has no caches, and the
            // same read happens between blocks of one SM and to volatile
            // loads, which bypass the L1.
            format!(
                "read {whose}, an older write: {newer} newer write{plural} not visible to it yet"
            )
        }
    }

    /// A read by `t` of write `p` of `x`: coherence and acquire.
    fn observe(
        &self,
        s: &mut [u32],
        t: usize,
        x: usize,
        p: usize,
        (strong, scope): (bool, Scope),
        acquire: bool,
    ) {
        let msg = self.sec.msg(x, p);
        let meta = s[msg + 1];
        if !self.morally_strong(meta, t, strong, scope) {
            return;
        }
        let cur = self.sec.thread_view(t, CUR);
        set(s, cur, x, p.max(get(s, cur, x)));
        let Some(w) = writer(meta) else { return };
        if meta & MSG_REL == 0 || !self.in_scope(w, t, release_scope(meta)) {
            return;
        }
        let into = if acquire {
            CUR
        } else if self.same_block(w, t) {
            NEAR
        } else {
            FAR
        };
        join(
            s,
            self.sec.thread_view(t, into),
            msg + MSG_VIEW,
            self.sec.vw,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &self,
        th: &Threads,
        s: &mut [u32],
        t: usize,
        pc: Pc,
        (access, value): (&MemAccess, &Expr),
        choice: u32,
        event: Option<&mut Event>,
    ) -> Result<(), Violation> {
        let MemAccess { loc, order, scope } = access;
        let (order, scope) = (*order, *scope);
        let v = th.eval(value, s, t)?;
        let (x, index) = th.address(s, t, loc)?;
        let scope = effective_scope(order, scope);
        let strong = order != Order::Weak;
        self.make_room(s, x);
        if self.races {
            self.check_race(th, s, t, pc, x, (strong, scope))?;
        }
        let q = self.cur(s, t, x) + 1 + choice as usize;
        if q > self.len(s, x) {
            return Err(runtime_error("the store has no such place to land"));
        }
        let ty = th.prog.vars[loc.var as usize].ty;
        let w = NewWrite {
            x,
            raw: to_raw(ty, v),
            meta: meta(t, pc, strong, scope),
            release: is_release(order).then_some(scope),
        };
        let later = self.write(s, t, q, w);
        if let Some(e) = event {
            e.writes
                .push((th.location_name(t, loc, index), from_raw(ty, to_raw(ty, v))));
            e.note = lands_before(later);
        }
        Ok(())
    }

    fn rmw(
        &self,
        th: &Threads,
        s: &mut [u32],
        (t, pc): (usize, Pc),
        choice: u32,
        event: Option<&mut Event>,
    ) -> Result<(), Violation> {
        let Op::Atomic {
            dst,
            op,
            access: MemAccess { loc, order, scope },
            operands,
        } = &th.prog.code[pc as usize].op
        else {
            unreachable!("rmw runs atomics")
        };
        let mut args = [0i64; 2];
        for (a, e) in args.iter_mut().zip(operands) {
            *a = th.eval(e, s, t)?;
        }
        let (x, index) = th.address(s, t, loc)?;
        self.make_room(s, x);
        if self.races {
            self.check_race(th, s, t, pc, x, (true, *scope))?;
        }
        let p = self.cur(s, t, x) + choice as usize;
        if p >= self.len(s, x) {
            return Err(runtime_error("the atomic has no such write to read"));
        }
        let ty = th.prog.vars[loc.var as usize].ty;
        let old = from_raw(ty, self.sec.value(s, self.sec.msg(x, p), ty));
        let mut note = event.is_some().then(|| self.read_source(th, s, t, x, p));
        self.observe(s, t, x, p, (true, *scope), is_acquire(*order));
        let new = atomic_result(*op, ty, old, args);
        if let Some(n) = new {
            let w = NewWrite {
                x,
                raw: to_raw(ty, n),
                meta: meta(t, pc, true, *scope) | RMW,
                release: is_release(*order).then_some(*scope),
            };
            if !self.may_insert(s, x, p + 1, w.meta) {
                return Err(runtime_error("the atomic would break another's atomicity"));
            }
            let later = self.write(s, t, p + 1, w);
            if let (Some(n), Some(extra)) = (note.as_mut(), lands_before(later)) {
                *n = format!("{n}; {extra}");
            }
        }
        if let Some(d) = dst {
            th.write_local(s, t, *d, old);
        }
        if let Some(e) = event {
            let name = th.location_name(t, loc, index);
            e.reads.push((name.clone(), old));
            if let Some(n) = new {
                e.writes.push((name, from_raw(ty, to_raw(ty, n))));
            }
            e.note = note;
        }
        Ok(())
    }

    /// Places a write of `t` at position `q`; returns how many writes
    /// already made it lands before (coherence order is not real time).
    fn write(&self, s: &mut [u32], t: usize, q: usize, w: NewWrite) -> usize {
        let x = w.x;
        let len = self.len(s, x);
        let sec = &self.sec;
        let base = self.cur(s, t, x);
        // Positions name writes, all below `len`: a write placed last (a
        // read-modify-write of the latest write, mostly) moves none.
        if q < len {
            self.renumber(s, x, |v| if v >= q { v + 1 } else { v });
        }
        // Messages q.. move up one slot.
        for p in (q..len).rev() {
            let (from, to) = (sec.msg(x, p), sec.msg(x, p + 1));
            s.copy_within(from..from + sec.msg_words, to);
        }
        s[sec.len_word(x)] = len as u32 + 1;
        let cur = sec.thread_view(t, CUR);
        set(s, cur, x, q);
        let msg = sec.msg(x, q);
        sec.set_value(s, msg, w.raw);
        s[msg + MSG_BASE] = base as u32;
        let (meta, views) = self.release_of(s, t, &w, q, base);
        s[msg + MSG_META] = meta;
        let view = msg + MSG_VIEW;
        s[view..view + sec.vw].fill(0);
        if meta & MSG_REL != 0 {
            for v in views.into_iter().flatten() {
                join(s, view, v, sec.vw);
            }
            set(s, view, x, q);
        }
        let last = sec.msg(x, len);
        s[x] = s[last];
        if self.wide[x] {
            s[x + 1] = (sec.value(s, last, crate::ir::Type::U64) >> 32) as u32;
        }
        len - q
    }

    /// The release a new write carries, and the views it releases: its own
    /// (a release write), the view at the thread's last fence (a relaxed
    /// write after a fence), and the release of the write it continues (a
    /// release sequence: an atomic's read write, or the thread's own
    /// earlier write of the location for a strong store). Two views at
    /// most: no allocation on the hot path.
    fn release_of(
        &self,
        s: &[u32],
        t: usize,
        w: &NewWrite,
        q: usize,
        base: usize,
    ) -> (u32, [Option<usize>; 2]) {
        let sec = &self.sec;
        let strong = w.meta & STRONG != 0;
        let continued = if w.meta & RMW != 0 {
            Some(q - 1)
        } else {
            Some(base)
        };
        // The new write has one writer and one release scope, so it can
        // continue only a release whose scope holds its writer: then the
        // threads it reaches are ones the continued release reaches too. A
        // block-scope release of another block continued by an atomic is
        // dropped (the PTX release sequence reaches only that block, which
        // this write's writer and scope cannot name): weaker, never
        // stronger, than PTX.
        let continued = continued.map(|p| sec.msg(w.x, p)).filter(|&m| {
            let meta = s[m + MSG_META];
            let reaches_writer =
                writer(meta).is_none_or(|v| self.in_scope(v, t, release_scope(meta)));
            strong
                && meta & MSG_REL != 0
                && reaches_writer
                && (w.meta & RMW != 0 || writer(meta) == Some(t))
        });
        let mut views = [None; 2];
        let mut scope: Option<Scope> = None;
        let mut narrow = |s2: Scope| {
            scope = Some(match scope {
                Some(old) if scope_code(old) < scope_code(s2) => old,
                _ => s2,
            })
        };
        if let Some(sc) = w.release {
            views[0] = Some(sec.thread_view(t, CUR));
            narrow(sc);
            // A release atomic also continues the release sequence of the
            // write it read (as any atomic does), when that release reaches
            // at least this one's scope: the message keeps this scope, so it
            // reaches no thread the continued release does not.
            if let Some(m) = continued.filter(|&m| {
                w.meta & RMW != 0 && scope_code(release_scope(s[m + MSG_META])) >= scope_code(sc)
            }) {
                views[1] = Some(m + MSG_VIEW);
            }
        } else {
            let flags = s[sec.flags(t)];
            if flags & HAS_REL != 0 {
                views[0] = Some(sec.thread_view(t, REL));
                narrow(flags_rel_scope(flags));
            }
            if let Some(m) = continued {
                views[1] = Some(m + MSG_VIEW);
                narrow(release_scope(s[m + MSG_META]));
            }
        }
        match scope {
            Some(sc) => (with_release(w.meta, sc), views),
            None => (w.meta, views),
        }
    }

    /// A fence: acquire what reads before it saw, order with the other sc
    /// fences of its scope, release for the stores after it.
    fn fence(&self, s: &mut [u32], t: usize, order: Order, scope: Scope) {
        let sec = &self.sec;
        let vw = sec.vw;
        let cur = sec.thread_view(t, CUR);
        self.acquire_pending(s, t, scope != Scope::Cta);
        if order == Order::Sc {
            let block = sec.sc_view(Some(self.block(t)));
            let device = self
                .sc_fence_orders_device(scope)
                .then(|| sec.sc_view(None));
            let scs = std::iter::once(block).chain(device);
            for v in scs.clone() {
                join(s, cur, v, vw);
            }
            for v in scs {
                copy(s, v, cur, vw);
            }
        }
        copy(s, sec.thread_view(t, REL), cur, vw);
        s[sec.flags(t)] = (s[sec.flags(t)] & SKIP_BITS) | rel_flags(scope);
    }

    /// Whether an SC fence at `scope` joins the device's SC-fence view as
    /// well as its block's: one order for the device's sc fences; with
    /// several GPUs only `.sys` ones share it (`.gpu` ones then order only
    /// within the block: weaker than PTX, never stronger).
    pub fn sc_fence_orders_device(&self, scope: Scope) -> bool {
        scope == Scope::Sys || (scope == Scope::Gpu && self.devices.is_empty())
    }

    /// Joins the pending release views of the block (and of other blocks
    /// for device scope) into the thread's view.
    fn acquire_pending(&self, s: &mut [u32], t: usize, device: bool) {
        let sec = &self.sec;
        let cur = sec.thread_view(t, CUR);
        // A slice, not a vector: this runs in most steps, and a heap
        // allocation per step took the allocator's lock on every worker.
        let pending: &[usize] = if device { &[NEAR, FAR] } else { &[NEAR] };
        for &k in pending {
            let v = sec.thread_view(t, k);
            join(s, cur, v, sec.vw);
            s[v..v + sec.vw].fill(0);
        }
    }

    /// `__syncthreads()` (or a kernel boundary) releases `group`: everyone
    /// acquires what it read, then all views are joined.
    pub fn synchronize(&self, th: &Threads, s: &mut [u32], group: std::ops::Range<usize>) {
        let device = group.len() > self.tpb;
        let live: Vec<usize> = group.filter(|&u| !th.is_finished(s, u)).collect();
        self.join_views(s, &live, device);
    }

    /// Thread `t` arrives at the named barrier of slot `slot`: its view
    /// now is what the barrier's instance will release.
    pub fn arrive_at_barrier(&self, s: &mut [u32], t: usize, slot: usize) {
        let sec = &self.sec;
        copy(
            s,
            sec.thread_view(t, ARRIVED + slot),
            sec.thread_view(t, CUR),
            sec.vw,
        );
    }

    /// An instance of the named barrier of slot `slot` releases `waiters`;
    /// `arrivers` are the threads whose latest arrival is at that instance
    /// (waiters included): every waiter acquires what it read and the
    /// views they had on arriving. (A thread that arrived there and has
    /// arrived again since is left out: its later view would release too
    /// much.)
    pub fn release_barrier(
        &self,
        s: &mut [u32],
        waiters: &[usize],
        arrivers: &[usize],
        slot: usize,
    ) {
        let sec = &self.sec;
        let Some(&first) = waiters.first() else {
            return;
        };
        for &u in waiters {
            self.acquire_pending(s, u, false);
        }
        let acc = sec.thread_view(first, CUR);
        for &u in &waiters[1..] {
            join(s, acc, sec.thread_view(u, CUR), sec.vw);
        }
        for &u in arrivers {
            join(s, acc, sec.thread_view(u, ARRIVED + slot), sec.vw);
        }
        for &u in &waiters[1..] {
            copy(s, sec.thread_view(u, CUR), acc, sec.vw);
        }
    }

    fn join_views(&self, s: &mut [u32], live: &[usize], device: bool) {
        let Some(&first) = live.first() else { return };
        for &u in live {
            self.acquire_pending(s, u, device);
        }
        let vw = self.sec.vw;
        let acc = self.sec.thread_view(first, CUR);
        for &u in &live[1..] {
            join(s, acc, self.sec.thread_view(u, CUR), vw);
        }
        for &u in &live[1..] {
            copy(s, self.sec.thread_view(u, CUR), acc, vw);
        }
    }

    /// After each step: finished threads forget their views; writes nobody
    /// can read any more are dropped.
    /// `futures`: where known, the words each thread may still access; a
    /// thread that never accesses a location again is no reader of it.
    pub fn normalize(&self, th: &Threads, s: &mut [u32], facts: &impl Foresight) {
        for t in 0..self.sec.threads {
            if th.is_finished(s, t) {
                // What it published at a named barrier still reaches the
                // threads that barrier releases later.
                let sec = &self.sec;
                s[sec.thread_view(t, CUR)..sec.thread_view(t, ARRIVED)].fill(0);
                let flags = sec.flags(t);
                s[flags] = 0;
            }
        }
        let live = |s: &[u32], t: usize| !th.is_finished(s, t);
        if self.canonical {
            if facts.refreshes() {
                self.refresh_views(th, s, facts);
            }
            return READERS.with_borrow_mut(|rows| {
                self.readers(th, s, facts, rows);
                self.canonicalize(s, &canon::Readers::new(rows, self.sec.locs))
            });
        }
        for x in 0..self.sec.locs {
            let len = self.len(s, x);
            let k = (0..self.sec.threads)
                .filter(|&t| live(s, t))
                .map(|t| self.oldest_readable(s, t, x))
                .min()
                .unwrap_or(len - 1);
            if k > 0 {
                self.drop_oldest(s, x, k);
            }
        }
    }

    /// Fills `out` with which threads may still access which locations,
    /// as bit rows (`canon::Readers`): threads not finished that can
    /// access it, and (where `futures` are known) whose code can still
    /// reach an access of it.
    fn readers(&self, th: &Threads, s: &[u32], facts: &impl Foresight, out: &mut Vec<u64>) {
        out.clear();
        let width = self.sec.locs.div_ceil(64);
        for t in 0..self.sec.threads {
            let accessible = &self.accessible[t * width..(t + 1) * width];
            if th.is_finished(s, t) {
                out.resize(out.len() + width, 0);
                continue;
            }
            match facts.future(t, th.pc(s, t)) {
                // Future accesses are by memory word, from word 0 on: one
                // per location, then words no row here reads.
                Some((reads, writes)) => {
                    debug_assert!(reads.len() >= width, "a row per location");
                    let rows = reads.iter().zip(writes).zip(accessible);
                    out.extend(rows.map(|((r, w), a)| (r | w) & a));
                }
                None => out.extend_from_slice(accessible),
            }
        }
    }

    /// The oldest write of `x` that `t` may still read, or (for racing
    /// writes older than its view) the base they are counted from: the
    /// racing writes below a write are counted from its base, and `t` may
    /// come to know any write from its view on, so every such write's base
    /// must stay (dropping writes below it would move the base up onto a
    /// racing write, and `t` could no longer read that one).
    fn oldest_readable(&self, s: &[u32], t: usize, x: usize) -> usize {
        self.oldest_readable_from(s, x, self.cur(s, t, x))
    }

    /// [`oldest_readable`](Self::oldest_readable) for a view of `x` at `cur`.
    fn oldest_readable_from(&self, s: &[u32], x: usize, cur: usize) -> usize {
        (cur..self.len(s, x))
            .map(|p| self.sec.msg(x, p))
            .filter(|&msg| writer(s[msg + MSG_META]).is_some())
            .map(|msg| s[msg + MSG_BASE] as usize)
            .fold(cur, usize::min)
    }

    /// Maps every position of `x` held in the state (views and the bases of
    /// `x`'s writes) through `to`: a write inserted, retired or merged
    /// moves the positions after it.
    #[inline]
    fn renumber(&self, s: &mut [u32], x: usize, to: impl Fn(usize) -> usize) {
        let (word, shift) = (x / 4, (x % 4) * 8);
        self.sec.for_each_view(s, |s, view| {
            let w = &mut s[view + word];
            let v = ((*w >> shift) & 0xFF) as usize;
            let n = to(v);
            if n != v {
                *w = (*w & !(0xFF << shift)) | (n as u32) << shift;
            }
        });
        for p in 0..self.len(s, x) {
            let b = self.sec.msg(x, p) + MSG_BASE;
            s[b] = to(s[b] as usize) as u32;
        }
    }

    /// Retires the `k` oldest writes of `x`; views move past them.
    fn drop_oldest(&self, s: &mut [u32], x: usize, k: usize) {
        let sec = &self.sec;
        let len = self.len(s, x);
        self.renumber(s, x, |v| v.saturating_sub(k));
        let (from, to) = (sec.msg(x, k), sec.msg(x, 0));
        s.copy_within(from..sec.msg(x, len), to);
        s[sec.msg(x, len - k)..sec.msg(x, len)].fill(0);
        s[sec.len_word(x)] = (len - k) as u32;
    }

    /// Removes write `q` of `x`. The views and bases that named it name
    /// the write before it where `into_earlier` (a repeat merged into the
    /// write it repeats: `canon::merge_repeats`), else the write after it
    /// (a dead write: `canon::drop_dead_writes`); those past it move down
    /// by one.
    fn remove(&self, s: &mut [u32], x: usize, q: usize, into_earlier: bool) {
        let sec = &self.sec;
        let len = self.len(s, x);
        let first_moved = if into_earlier { q } else { q + 1 };
        self.renumber(s, x, |v| if v >= first_moved { v - 1 } else { v });
        s.copy_within(sec.msg(x, q + 1)..sec.msg(x, len), sec.msg(x, q));
        s[sec.msg(x, len - 1)..sec.msg(x, len)].fill(0);
        s[sec.len_word(x)] = (len - 1) as u32;
    }

    /// A write needs a free slot: a full history retires its oldest write.
    fn make_room(&self, s: &mut [u32], x: usize) {
        if self.len(s, x) == self.sec.hist {
            self.drop_oldest(s, x, 1);
        }
    }
}

#[cfg(test)]
mod tests;
