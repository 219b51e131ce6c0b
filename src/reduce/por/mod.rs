//! Partial-order reduction of independent shared accesses (ample sets).
//!
//! Under sequential consistency with independent thread scheduling a thread
//! has one next step, fixed by its own state. The next steps of a set `T`
//! of threads form an ample set of a state `s` (Clarke, Grumberg, Peled,
//! *Model Checking*, conditions C0–C2; the explorer adds the proviso, in
//! Valmari's terminal-component form, see `explore::proviso`) when
//!
//! - **persistent** (C1): no thread outside `T` can, before the members
//!   move, take a step that depends on a member's next step. Other threads
//!   only ever reach instructions reachable from their pc in the
//!   control-flow graph, so this module precomputes, per thread and pc, the
//!   memory words the thread may still read and write (`future`; array
//!   indices evaluated over the values each local can hold, see `values`),
//!   and grows `T` from one thread until no thread outside may still access
//!   a word that the next step of a member accesses, one of them writing (a
//!   stubborn set, Valmari; Godefroid's persistent sets by conflicts). `T`
//!   must not reach every enabled thread, and its members must be enabled
//!   (what enables a waiting thread is not tracked). `shared` words of
//!   different blocks are different words. Barrier arrival and exit touch
//!   the other threads of the block (and the grid, at a kernel boundary), so
//!   they qualify only when the thread is alone in its block.
//!   A thread outside `T` that, run alone, settles (goes round a spin loop
//!   forever, or finishes: its *lasso*), where nobody outside `T` can
//!   disturb it, is *asleep*: until the members move it only takes its
//!   lasso's steps, so it counts with the words of its lasso, not with
//!   everything it may ever access (`spin`, which has the argument). In a
//!   barrier every waiting block may access every word in a later episode,
//!   while it actually spins on one flag.
//!   Under `check barrier` a thread's count of entered phases is one more
//!   word (*phases*): entering a phase writes it, and leaving one reads every
//!   thread's (the check fails when some thread has entered fewer phases).
//!   Counts only grow, so a leaving step that passes its check in `s` passes
//!   it after any steps of the others, and ends in the same state whichever
//!   goes first: a member's leaving step conflicts with nothing (where it
//!   fails in `s` the fault is found at `s`), and neither does a leaving
//!   step in an asleep thread's lasso, which passed its check from `s`. A
//!   member's entering step does conflict with every thread that may still
//!   leave a phase: that one may fail its check before the member enters.
//! - **invisible** (C2): the step changes nothing a property reads in a
//!   state: critical sections (whose check reads every thread's position)
//!   are never ample while their check is on, nor writes to a word that a
//!   `check invariant` reads. A step that fails an assertion or
//!   faults at run time fails alike whatever the others did first (it reads
//!   only words they cannot write), so it is found from the reduced state.
//!
//! **Under `ptx`** a thread's next step has alternatives (which write a
//! load reads, where a store lands), all in the set with the thread. A
//! load, store or atomic of location `x` reads or changes only `x`'s
//! history and its own thread's views, so it counts as an access to the
//! word of `x`, as under sequential consistency: two steps of other
//! threads on other locations commute, and dropping writes nobody can
//! read, done after every step, maps both orders to states with the same
//! futures. A fence other than SC moves only its thread's views
//! (thread-local); an SC fence reads and writes the SC-fence views it
//! orders with: its block's, and for a device-wide one the device's, one
//! more word each (`ScWords`): `fence.sc.cta`s of different blocks
//! commute. A step that may perform the next store early
//! (`may_perform_early`) accesses two locations and is never in a set. A
//! thread run alone has several next steps, so its lasso is its *solo
//! graph*, every state it reaches alone (`solo`).
//!
//! The proof that these preserve every fault and every deadlock is the
//! usual one (the first member step on a path can be moved to its front;
//! a path with none keeps its outcome after a member step is put before
//! it), with the proviso ruling out that the search postpones a step
//! forever: every terminal strong component of the reduced graph holds a
//! fully expanded state (`explore::proviso` has the argument).
//!
//! What that preserves (argued here, since the tests can only sample it):
//! every reachable fault, and the existence of a reachable state from
//! which the harness cannot finish (*deadlock*: being unable to finish is
//! kept by every successor, and finishing means every thread moved, so a
//! postponed ample step always still fits). It does not preserve which
//! threads are enabled in each state, which the fair-cycle analyses
//! (livelock, starvation) and the per-thread progress analysis of a harness
//! that never finishes read: those run without ample sets (`check`).

mod memo;
mod solo;
mod spin;

use crate::ir::Storage;
use crate::ir::{Expr, Loc, MemOrder, Op, Order};
use crate::model::facts::{
    clear, get, no_warp_collectives, phase_word, set, Bits, Footprint, Futures, NoFutures, ScWords,
};
use crate::model::state::FINISHED;
use crate::model::{thread_of, Model};
use std::sync::Arc;

/// Whether a thread's conflicts are in [`Scratch::conflicts`].
#[derive(Clone, Copy)]
enum Known {
    Unknown,
    Yes,
    /// Its next step is never in a stubborn set.
    Opaque,
}

/// Whether a thread has a lasso in the current state (`spin`).
#[derive(Clone, Copy)]
enum Lasso {
    Unknown,
    No,
    /// Its words and their writers are in [`Scratch`].
    Yes,
}

/// Per-worker buffers of [`Independence::reduce`], reused across states
/// (allocating them per candidate set cost a tenth of the search), with
/// sets of threads as bits.
#[derive(Default)]
struct Scratch {
    /// `u64` words per set of threads.
    width: usize,
    enabled: Vec<u64>,
    member: Vec<u64>,
    best: Vec<u64>,
    /// Threads outside the members that conflict with one by their future.
    want: Vec<u64>,
    /// Spinning threads asleep with respect to the members.
    asleep: Vec<u64>,
    /// Memory words the members' next steps write, and those they read.
    written: Vec<u64>,
    read: Vec<u64>,
    known: Vec<Known>,
    /// Per thread, the threads that may conflict with its next step.
    conflicts: Vec<u64>,
    /// Per thread whose conflicts are known: the words its next step
    /// accesses.
    access: Vec<Footprint>,
    lasso: Vec<Lasso>,
    /// Per thread with a lasso, the words it reads, those it writes
    /// (memory-word bits)...
    lasso_reads: Vec<u64>,
    lasso_writes: Vec<u64>,
    /// ...and the other threads that may still write a word it reads,
    /// and those whose lassos write one.
    writers: Vec<u64>,
    clashers: Vec<u64>,
    /// Whether `settled` (the enabled threads with lassos) is known.
    lassos_known: bool,
    settled: Vec<u64>,
    /// A state to run lassos in, and the own words of its anchor.
    sim: Vec<u32>,
    anchor: Vec<u32>,
    memo: memo::LassoMemo,
    /// The others' critical weights, for a memo entry.
    critical: Vec<u32>,
    /// Under `ptx`: the solo graphs' buffers (`solo`).
    solo: solo::SoloScratch,
}

impl Scratch {
    fn reset(&mut self, threads: usize, mem_width: usize) {
        self.width = threads.div_ceil(64);
        for v in [
            &mut self.enabled,
            &mut self.member,
            &mut self.best,
            &mut self.want,
            &mut self.asleep,
            &mut self.settled,
        ] {
            v.clear();
            v.resize(self.width, 0);
        }
        for v in [&mut self.written, &mut self.read] {
            v.clear();
            v.resize(mem_width, 0);
        }
        self.known.clear();
        self.known.resize(threads, Known::Unknown);
        self.lasso.clear();
        self.lasso.resize(threads, Lasso::Unknown);
        self.access.resize(threads, Footprint::LOCAL);
        self.conflicts.resize(threads * self.width, 0);
        self.writers.resize(threads * self.width, 0);
        self.clashers.resize(threads * self.width, 0);
        self.lassos_known = false;
        self.lasso_reads.resize(threads * mem_width, 0);
        self.lasso_writes.resize(threads * mem_width, 0);
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Which memory words each thread may still access, per pc.
pub(crate) struct Independence {
    /// `u64` words per bit set of memory words.
    width: usize,
    /// What each thread may still access (the model's, or computed here).
    future: Arc<Futures>,
    /// Words read by a `check invariant`: writing them is visible.
    watched: Vec<u64>,
    /// A thread's exit may release a grid-wide kernel boundary.
    kernel_boundary: bool,
    /// Per pc: a step from there may be part of a lasso (`spin`).
    settles_from: Vec<bool>,
    /// Names this table's entries in the workers' lasso memos.
    memo_owner: u64,
    /// Whether to let settled threads sleep: only under `check barrier`,
    /// where a waiting block's future is the next episode's every access.
    /// (Measured on the mutex and semaphore families: states within 1%,
    /// the lassos' cost up to 1.7 times the search time.)
    sleeping: bool,
    /// Under `ptx`: the words that stand for the SC-fence views.
    sc_words: Option<ScWords>,
}

impl Independence {
    /// Precomputes the future accesses of every thread of `model`'s launch;
    /// says why not where the reduction does not apply.
    pub(crate) fn new(model: &Model) -> Result<Independence, NoFutures> {
        let prog = model.prog;
        no_warp_collectives(model)?;
        let ptx = model.memory.ptx().is_some();
        let future = match &model.facts().futures {
            Some(f) => Arc::clone(f),
            None => Arc::new(Futures::compute(model)?),
        };
        let width = future.width;
        let mut watched = vec![0u64; width];
        for (inv, _) in &prog.checks.invariants {
            watch(model, inv, &mut watched);
        }
        let kernel_boundary = prog.code.iter().any(|i| matches!(i.op, Op::KernelBoundary));
        Ok(Independence {
            width,
            future,
            watched,
            kernel_boundary,
            sc_words: ptx.then(|| ScWords::of(model)),
            settles_from: (0..prog.code.len())
                .map(|pc| spin::may_settle_from(model, pc, kernel_boundary))
                .collect(),
            memo_owner: memo::new_owner(),
            sleeping: prog.checks.barrier,
        })
    }

    /// Whether settled threads sleep on their lassos (`spin`).
    pub(crate) fn lets_spinners_sleep(&self) -> bool {
        self.sleeping
    }

    /// Replaces the enabled actions `out[start..]` by the steps of the
    /// smallest stubborn set of threads found (see [`Self::stubborn`]);
    /// `true` if that left some out (the explorer's proviso looks at it).
    pub(crate) fn reduce(
        &self,
        model: &Model,
        s: &[u32],
        out: &mut Vec<u32>,
        start: usize,
    ) -> bool {
        SCRATCH.with_borrow_mut(|scratch| self.reduce_with(scratch, model, s, out, start))
    }

    fn reduce_with(
        &self,
        scratch: &mut Scratch,
        model: &Model,
        s: &[u32],
        out: &mut Vec<u32>,
        start: usize,
    ) -> bool {
        let threads = model.threads.layout.threads;
        scratch.reset(threads, self.width);
        let layout = &model.threads.layout;
        scratch.memo.claim(
            self.memo_owner,
            (layout.thread_words, layout.mem_words, self.width),
            threads - 1,
        );
        let mut n_enabled = 0;
        for a in &out[start..] {
            let t = thread_of(*a);
            if !get(&scratch.enabled, t) {
                set(&mut scratch.enabled, t);
                n_enabled += 1;
            }
        }
        if n_enabled < 2 {
            return false;
        }
        let mut best_len = n_enabled;
        let mut found = false;
        // First without sleeping threads (cheap); where that leaves more
        // than one thread, again letting settled threads sleep, which runs
        // their lassos (a second plain pass would only repeat the first).
        let passes: &[bool] = if self.sleeping {
            &[false, true]
        } else {
            &[false]
        };
        for &sleep in passes {
            let mut found_here = false;
            for t in 0..threads {
                if best_len == 1 {
                    break;
                }
                if !get(&scratch.enabled, t) || (found_here && get(&scratch.best, t)) {
                    // Not enabled, or its set lies inside the best one found:
                    // at most a little smaller (measured: no fewer states), not
                    // worth the closure.
                    continue;
                }
                if let Some(len) = self.stubborn(scratch, model, s, t, best_len, sleep) {
                    best_len = len;
                    found = true;
                    found_here = true;
                    std::mem::swap(&mut scratch.best, &mut scratch.member);
                }
            }
        }
        if !found {
            return false;
        }
        let mut k = start;
        for i in start..out.len() {
            if get(&scratch.best, thread_of(out[i])) {
                out[k] = out[i];
                k += 1;
            }
        }
        out.truncate(k);
        true
    }

    /// The threads that must move together with `seed`: closed under "a
    /// thread outside may still access what the next step of a member
    /// accesses (one of them writing)", where a thread asleep with respect
    /// to the set (`spin`) counts only with the words of its lasso. Then no
    /// step outside depends on a step inside before that step is taken
    /// (persistence). Leaves the set in `scratch.member` and returns its
    /// size; `None` when a member's next step is visible, touches other
    /// threads' positions, waits, or the set grows to `limit` threads or
    /// more. Each thread's conflicts and lasso are computed once per state
    /// (`Scratch`). With `sleep` off no thread is asleep; with it on, the
    /// asleep set is computed for the seed and kept, less the threads that
    /// join, as the set grows (still asleep: their writers are members or
    /// asleep).
    fn stubborn(
        &self,
        scratch: &mut Scratch,
        model: &Model,
        s: &[u32],
        seed: usize,
        limit: usize,
        sleep: bool,
    ) -> Option<usize> {
        clear(&mut scratch.member);
        set(&mut scratch.member, seed);
        let mut count = 1;
        loop {
            self.wanted(scratch, model, s)?;
            if scratch.want.iter().all(|b| *b == 0) {
                return Some(count);
            }
            if !sleep {
                clear(&mut scratch.asleep);
            } else if count == 1 {
                self.asleep(scratch, model, s);
            } else {
                // Still asleep for the grown set (its writers are members
                // or asleep), if maybe fewer than a fresh computation.
                for k in 0..scratch.width {
                    scratch.asleep[k] &= !scratch.member[k];
                }
            }
            let mut grew = false;
            for i in 0..scratch.width {
                let mut bits = scratch.want[i];
                while bits != 0 {
                    let u = i * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if !get(&scratch.asleep, u) || self.woken(scratch, u) {
                        set(&mut scratch.member, u);
                        count += 1;
                        grew = true;
                    }
                }
            }
            if !grew {
                return Some(count);
            }
            if count >= limit {
                return None;
            }
        }
    }

    /// Sets `scratch.want` to the threads outside the members that may
    /// conflict with a member's next step by their future, and
    /// `scratch.written` / `scratch.read` to the words those steps access;
    /// `None` when a member cannot be in a stubborn set.
    fn wanted(&self, scratch: &mut Scratch, model: &Model, s: &[u32]) -> Option<()> {
        clear(&mut scratch.want);
        clear(&mut scratch.written);
        clear(&mut scratch.read);
        for i in 0..scratch.width {
            let mut bits = scratch.member[i];
            while bits != 0 {
                let m = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if !get(&scratch.enabled, m) {
                    return None; // waiting: what would enable it is not tracked
                }
                let at = self.conflicts(scratch, model, s, m)?;
                for k in 0..scratch.width {
                    scratch.want[k] |= scratch.conflicts[at + k] & !scratch.member[k];
                }
                let footprint = scratch.access[m];
                for &w in footprint.words() {
                    match footprint.write {
                        true => set(&mut scratch.written, w),
                        false => set(&mut scratch.read, w),
                    }
                }
            }
        }
        Some(())
    }

    /// Whether a member's next step and asleep thread `u`'s lasso access a
    /// word in common, one of them writing it.
    fn woken(&self, scratch: &Scratch, u: usize) -> bool {
        let mw = self.width;
        let reads = &scratch.lasso_reads[u * mw..(u + 1) * mw];
        let writes = &scratch.lasso_writes[u * mw..(u + 1) * mw];
        (0..mw).any(|k| {
            (reads[k] | writes[k]) & scratch.written[k] != 0 || writes[k] & scratch.read[k] != 0
        })
    }

    /// Sets `scratch.asleep` to an asleep set for the members (see
    /// `spin`): the threads with lassos, less those with a writer that is
    /// awake outside or asleep with a lasso that writes what they read.
    fn asleep(&self, scratch: &mut Scratch, model: &Model, s: &[u32]) {
        if !scratch.lassos_known {
            self.find_lassos(scratch, model, s);
        }
        for k in 0..scratch.width {
            scratch.asleep[k] = scratch.settled[k] & !scratch.member[k];
        }
        spin::keep_consistent(
            &mut scratch.asleep,
            &scratch.member,
            (&scratch.writers, &scratch.clashers),
            scratch.width,
        );
    }

    /// Runs every enabled thread's lasso (once per state), and notes who
    /// may write what each one reads: `scratch.settled`, `writers` and
    /// `clashers`.
    fn find_lassos(&self, scratch: &mut Scratch, model: &Model, s: &[u32]) {
        scratch.lassos_known = true;
        clear(&mut scratch.settled);
        for u in 0..model.threads.layout.threads {
            if get(&scratch.enabled, u) && self.settles(scratch, model, s, u) {
                set(&mut scratch.settled, u);
            }
        }
        let (tw, mw) = (scratch.width, self.width);
        for b in 0..model.threads.layout.threads {
            if !get(&scratch.settled, b) {
                continue;
            }
            let reads = &scratch.lasso_reads[b * mw..(b + 1) * mw];
            let row = &mut scratch.clashers[b * tw..(b + 1) * tw];
            clear(row);
            for c in 0..model.threads.layout.threads {
                let writes = &scratch.lasso_writes[c * mw..(c + 1) * mw];
                if c != b
                    && get(&scratch.settled, c)
                    && reads.iter().zip(writes).any(|(r, w)| r & w != 0)
                {
                    set(row, c);
                }
            }
        }
    }

    /// Whether thread `u` has a lasso in `s`, with its words and writers
    /// in `scratch` (computed on first use in this state).
    fn settles(&self, scratch: &mut Scratch, model: &Model, s: &[u32], u: usize) -> bool {
        match scratch.lasso[u] {
            Lasso::Yes => return true,
            Lasso::No => return false,
            Lasso::Unknown => {}
        }
        let mw = self.width;
        let reads = &mut scratch.lasso_reads[u * mw..(u + 1) * mw];
        let writes = &mut scratch.lasso_writes[u * mw..(u + 1) * mw];
        let layout = &model.threads.layout;
        let own = &s[layout.thread(u, 0)..layout.thread(u, layout.thread_words)];
        let mem = &s[..layout.mem_words];
        if self.sc_words.is_some() {
            // Under `ptx` a lasso is a solo graph (`solo`).
            let solo = &mut scratch.solo;
            let lasso = self.solo_lasso(model, s, u, solo, spin::Accesses { reads, writes });
            let settles = matches!(lasso, spin::Settles::Yes { .. });
            return self.note_lasso(scratch, model, s, u, settles);
        }
        let remembered = scratch
            .memo
            .get(u, own, mem)
            .filter(|e| self.still_holds(model, s, u, e.settles, e.critical.iter().copied()));
        let settles = if let Some(e) = remembered {
            reads.copy_from_slice(e.reads);
            writes.copy_from_slice(e.writes);
            e.settles != spin::Settles::Never
        } else if get(&scratch.enabled, u) {
            clear(reads);
            clear(writes);
            let lasso = self.lasso(
                model,
                s,
                u,
                (&mut scratch.sim, &mut scratch.anchor),
                spin::Accesses { reads, writes },
            );
            if lasso != spin::Settles::NotHere {
                let (reads, writes) = (&scratch.lasso_reads, &scratch.lasso_writes);
                let critical = &mut scratch.critical;
                critical.clear();
                critical.extend(spin::critical_words(model, u).map(|w| s[w]));
                let entry = memo::Entry {
                    reads: &reads[u * mw..(u + 1) * mw],
                    writes: &writes[u * mw..(u + 1) * mw],
                    critical,
                    settles: lasso,
                };
                scratch.memo.put(u, own, mem, entry);
            }
            matches!(lasso, spin::Settles::Yes { .. })
        } else {
            false
        };
        self.note_lasso(scratch, model, s, u, settles)
    }

    /// Records whether `u` settles, and if so who may write what its
    /// lasso reads; returns `settles`.
    fn note_lasso(
        &self,
        scratch: &mut Scratch,
        model: &Model,
        s: &[u32],
        u: usize,
        settles: bool,
    ) -> bool {
        scratch.lasso[u] = if settles { Lasso::Yes } else { Lasso::No };
        if settles {
            let mw = self.width;
            let tw = scratch.width;
            let row = &mut scratch.writers[u * tw..(u + 1) * tw];
            clear(row);
            let reads = &scratch.lasso_reads[u * mw..(u + 1) * mw];
            for w in 0..model.threads.layout.threads {
                if w != u && self.may_write_any(model, s, w, reads) {
                    set(row, w);
                }
            }
        }
        settles
    }

    /// Where in `scratch.conflicts` the threads that may conflict with the
    /// next step of `m` start (computed on first use in this state); `None`
    /// when that step is never in a stubborn set.
    fn conflicts(
        &self,
        scratch: &mut Scratch,
        model: &Model,
        s: &[u32],
        m: usize,
    ) -> Option<usize> {
        let at = m * scratch.width;
        match scratch.known[m] {
            Known::Yes => return Some(at),
            Known::Opaque => return None,
            Known::Unknown => {}
        }
        let Some(footprint) = self.footprint(model, s, m) else {
            scratch.known[m] = Known::Opaque;
            return None;
        };
        let row = &mut scratch.conflicts[at..at + scratch.width];
        clear(row);
        scratch.access[m] = footprint;
        for &w in footprint.words() {
            for u in 0..model.threads.layout.threads {
                if u != m && self.may_conflict(model, s, u, w, footprint.write) {
                    set(row, u);
                }
            }
        }
        scratch.known[m] = Known::Yes;
        Some(at)
    }

    /// The words the next step of `t` touches (none: only its own state);
    /// `None` when the step is visible or touches other threads (never in
    /// a stubborn set).
    fn footprint(&self, model: &Model, s: &[u32], t: usize) -> Option<Footprint> {
        let prog = model.prog;
        let pc = model.threads.pc(s, t);
        if pc == FINISHED {
            return None;
        }
        let ptx = model.memory.ptx();
        if ptx.is_some_and(|w| w.may_perform_early(&model.threads, s, t)) {
            // Its alternatives access two locations: never in a set.
            return None;
        }
        let word = |loc: &Loc, write: bool| {
            let (w, _) = model.threads.address(s, t, loc).ok()?;
            (!write || !get(&self.watched, w)).then_some(Footprint::one(w, write))
        };
        let local = |ok: bool| ok.then_some(Footprint::LOCAL);
        match &prog.code[pc as usize].op {
            Op::Load { access, .. } => word(&access.loc, false),
            Op::Store { access, .. } | Op::Atomic { access, .. } => word(&access.loc, true),
            // Under `ptx` an SC fence reads and writes the SC-fence views.
            Op::Fence(MemOrder {
                order: Order::Sc,
                scope,
            }) if self.sc_words.is_some() => self.sc_words.map(|sc| sc.of_fence(model, t, *scope)),
            // Thread-local (reached when local steps are not fused; under
            // `ptx` a fence other than SC moves only its thread's views).
            Op::Fence(_)
            | Op::Backoff
            | Op::Assign { .. }
            | Op::Branch { .. }
            | Op::Jump { .. }
            | Op::Assert { .. }
            | Op::Progress => local(true),
            Op::CriticalEnter { .. } | Op::CriticalExit => local(prog.checks.capacity.is_none()),
            // A phase word under `check barrier`; leaving reads, see *phases*.
            Op::PhaseEnter => {
                Some(phase_word(model, t).map_or(Footprint::LOCAL, |w| Footprint::one(w, true)))
            }
            Op::PhaseExit => local(true),
            Op::SyncThreads => local(self.alone_in_block(model, s, t)),
            Op::Exit => local(!self.kernel_boundary && self.alone_in_block(model, s, t)),
            Op::KernelBoundary
            | Op::NamedBarrier { .. }
            | Op::SyncWarp { .. }
            | Op::Vote { .. }
            | Op::ActiveMask { .. }
            | Op::Shuffle { .. }
            | Op::LockBitTry { .. }
            | Op::LockBitRelease { .. } => None,
        }
    }

    /// Whether unfinished thread `u` may still write `w` (or read it, when
    /// the other access is a write).
    fn may_conflict(&self, model: &Model, s: &[u32], u: usize, w: usize, write: bool) -> bool {
        let pc = model.threads.pc(s, u);
        if pc == FINISHED {
            return false;
        }
        let (reads, writes) = self.future.sets(u, pc);
        get(writes, w) || (write && get(reads, w))
    }

    fn alone_in_block(&self, model: &Model, s: &[u32], t: usize) -> bool {
        let layout = &model.threads.layout;
        // One thread a block (the families' launches): alone, always.
        if layout.threads_per_block == 1 {
            return true;
        }
        layout
            .block_threads(t)
            .all(|u| u == t || model.threads.is_finished(s, u))
    }
}

/// Marks the global words an invariant reads (whole variables).
fn watch(model: &Model, e: &Expr, out: &mut Bits) {
    match e {
        Expr::Global(var, index) => {
            let v = &model.prog.vars[*var as usize];
            if v.storage == Storage::Global {
                (0..v.len).for_each(|i| set(out, model.threads.layout.mem(model.prog, *var, i, 0)));
            }
            if let Some(i) = index {
                watch(model, i, out);
            }
        }
        Expr::Const(_) | Expr::Builtin(_) | Expr::Local(_) => {}
        Expr::Unary(_, a) => watch(model, a, out),
        Expr::Binary(_, a, b) => {
            watch(model, a, out);
            watch(model, b, out);
        }
        Expr::Ternary(c, a, b) => [c, a, b].into_iter().for_each(|e| watch(model, e, out)),
        Expr::Fma(_, abc) => abc.iter().for_each(|e| watch(model, e, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{self, CheckConfig};

    fn words_of(model: &Model, name: &str) -> Vec<usize> {
        let v = model.prog.vars.iter().position(|v| v.name == name).unwrap();
        let len = model.prog.vars[v].len;
        (0..len)
            .map(|i| model.threads.layout.mem(model.prog, v as u32, i, 0))
            .collect()
    }

    #[test]
    fn indices_over_value_sets_name_a_blocks_own_words() {
        // perSMBarr[2 * my_sm + k], k in {0, 1}, one block per SM.
        let spec = api::SpecSource::builtin("tree_barrier_block_atomics").unwrap();
        let prepared = api::prepare(&spec, &CheckConfig::default()).unwrap();
        let model = api::model_of(&prepared);
        let por = Independence::new(&model).unwrap();
        let own = words_of(&model, "perSMBarr");
        let global = words_of(&model, "globalBarr");
        for t in 0..2 {
            let (_, writes) = por.future.sets(t, 0);
            for (i, w) in own.iter().enumerate() {
                assert_eq!(get(writes, *w), i / 2 == t, "block {t}, perSMBarr[{i}]");
            }
            assert!(global.iter().all(|w| get(writes, *w)), "block {t}");
        }
    }
}
