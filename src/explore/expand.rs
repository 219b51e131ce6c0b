//! Successor generation for a batch of stored states, on one thread or
//! several. Workers only *compute* (actions, steps, hashes) into their own
//! chunk buffers; [`batch`](super::batch) then deduplicates and stores the
//! successors so that ids, parents, edges and the first fault are exactly
//! those of a sequential breadth-first search, whatever the number of
//! threads.

use super::codec::hash_code;
use super::limits::{LimitKind, Options};
use super::store::{StateId, StateStore};
use super::workers::Workers;
use super::TransitionSystem;

/// States expanded by one worker task.
pub(crate) const CHUNK: usize = 64;
/// The most states expanded per batch. Not scaled with the threads, so
/// that the explorer's own memory accounting stops every thread count at
/// the same batch; large enough that 16 workers each get dozens of chunks
/// (at 32 chunks a batch, the uneven end of each batch cost 16 threads
/// half their time in successor generation).
pub(crate) const BATCH: usize = CHUNK * 128;
/// The most bytes a batch's successors are meant to take (codes and their
/// bookkeeping): wide launches have thousands of successors of kilobytes
/// each per state, and a batch of [`BATCH`] of them would hold gigabytes.
pub(crate) const BATCH_BYTES: usize = 32 << 20;

/// States in the next batch, given what the states expanded so far took
/// per state (`bytes_per_state`, 0 before the first batch) and the memory
/// limit: as many as fit in [`BATCH_BYTES`] (an eighth of the limit if
/// that is less), at least one, at most [`BATCH`]. It depends only on the
/// states, so ids and outcomes stay those of a sequential search.
pub(crate) fn batch_len(bytes_per_state: usize, max_memory: Option<u64>) -> usize {
    let budget = max_memory.map_or(BATCH_BYTES, |m| BATCH_BYTES.min((m / 8) as usize));
    match bytes_per_state {
        0 => BATCH,
        b => (budget / b).clamp(1, BATCH),
    }
}

/// One generated successor.
#[derive(Clone, Copy)]
pub(crate) struct Succ<A> {
    pub action: A,
    /// Hash of the code.
    pub hash: u64,
    /// Where its code starts in the chunk's `codes`, and its length.
    pub code: (u32, u32),
    /// [`TransitionSystem::is_final`] of the successor, and whether its
    /// [`check_state`](TransitionSystem::check_state) fails: taken while
    /// its words are at hand, so that the claims need not decode the
    /// successors that turn out new (a decode and an unpack each, where
    /// these two are a few compares).
    pub is_final: bool,
    pub fails_check: bool,
}

/// The successors of a run of consecutive states. Aligned to its own
/// cache lines: workers fill neighbouring chunks at once (vector lengths
/// written at every successor).
#[repr(align(128))]
pub(crate) struct Chunk<A, F> {
    /// First state of the run.
    pub first: StateId,
    /// Successor codes (see `codec`), in generation order. Only codes are
    /// kept: the few successors that turn out new are decoded again, which
    /// is cheaper than keeping every successor's words (copies of ~1 KB
    /// written and read back through the caches). Only its first
    /// `code_bytes` bytes are codes: the rest is room kept for the next
    /// code, so that it is not zeroed again at every successor.
    codes: Vec<u8>,
    code_bytes: usize,
    /// The successor being computed.
    next: Vec<u32>,
    pub succs: Vec<Succ<A>>,
    /// `ends[i]`: end (exclusive) in `succs` of the successors of state `first + i`.
    pub ends: Vec<usize>,
    /// A step that failed: (index of the state in this run, action, fault).
    /// The run stops there; the state's earlier successors are kept.
    pub fault: Option<(usize, A, F)>,
    /// `reduced[i]`: state `first + i` was expanded by an ample subset only.
    pub reduced: Vec<bool>,
    /// With [`Options::early_deadlock`]: the first state of the run
    /// (index) that is stuck, i.e. not final and without an enabled step.
    /// The run stops there, as at a fault.
    pub stuck: Option<usize>,
    /// A time or memory limit reached while filling the chunk: the run
    /// stopped there and the chunk is incomplete.
    pub interrupted: Option<LimitKind>,
}

impl<A: Copy, F> Chunk<A, F> {
    fn new() -> Self {
        Chunk {
            first: 0,
            codes: Vec::new(),
            code_bytes: 0,
            next: Vec::new(),
            succs: Vec::new(),
            ends: Vec::new(),
            fault: None,
            reduced: Vec::new(),
            stuck: None,
            interrupted: None,
        }
    }

    /// Bytes the chunk's successors take, as [`batch_len`] counts them.
    pub(super) fn succ_bytes(&self) -> usize {
        self.code_bytes + self.succs.len() * std::mem::size_of::<Succ<A>>()
    }

    /// Bytes of the chunk's successor codes.
    pub(super) fn code_bytes(&self) -> usize {
        self.code_bytes
    }

    /// Code of successor `i`.
    #[inline]
    pub(super) fn code(&self, i: usize) -> &[u8] {
        let (at, len) = self.succs[i].code;
        &self.codes[at as usize..(at + len) as usize]
    }

    /// Expands states `first..first + count` by their ample sets (the
    /// proviso expands some of them fully later, see `proviso`). Checks the
    /// time and memory limits of `opts` before each state: one state of a
    /// wide launch can take a long time and much memory.
    fn fill<S: TransitionSystem<Action = A, Fault = F>>(
        &mut self,
        sys: &S,
        store: &StateStore,
        (first, count): (StateId, usize),
        opts: &Options,
    ) {
        self.first = first;
        self.code_bytes = 0;
        self.succs.clear();
        self.ends.clear();
        self.reduced.clear();
        self.fault = None;
        self.stuck = None;
        self.interrupted = None;
        let mut actions = Vec::new();
        let words = store.words();
        let mut cur = vec![0u32; words];
        for i in 0..count {
            if let Some(limit) = opts.limit_reached() {
                self.interrupted = Some(limit);
                return;
            }
            store.read(first + i as StateId, &mut cur);
            let before = self.succs.len();
            let (reduced, fault) = self.push_successors(sys, store, &cur, &mut actions);
            self.reduced.push(reduced);
            self.ends.push(self.succs.len());
            if let Some((a, fault)) = fault {
                self.fault = Some((i, a, fault));
                return;
            }
            if opts.early_deadlock && self.succs.len() == before && is_stuck(sys, &cur, reduced) {
                self.stuck = Some(i);
                return;
            }
        }
    }

    /// Expands one state: appends its successors (canonical words, action,
    /// hash) in action order, by its ample set. Stops at a step that fails
    /// and returns it, with whether the set was reduced.
    #[inline]
    fn push_successors<S: TransitionSystem<Action = A, Fault = F>>(
        &mut self,
        sys: &S,
        store: &StateStore,
        cur: &[u32],
        actions: &mut Vec<A>,
    ) -> (bool, Option<(A, F)>) {
        actions.clear();
        let reduced = sys.ample_actions(cur, actions);
        let mut next = std::mem::take(&mut self.next);
        next.resize(cur.len(), 0);
        let mut failed = None;
        for &a in actions.iter() {
            // The step starts from a copy of the state (no zeroing).
            next.copy_from_slice(cur);
            if let Err(fault) = sys.step_from_copy(cur, a, &mut next) {
                failed = Some((a, fault));
                break;
            }
            sys.canonicalize(&mut next);
            let from = self.code_bytes;
            self.code_bytes += store.encode_at(&next, &mut self.codes, from);
            let code = &self.codes[from..self.code_bytes];
            self.succs.push(Succ {
                action: a,
                hash: hash_code(code),
                code: (from as u32, code.len() as u32),
                is_final: sys.is_final(&next),
                fails_check: sys.check_state(&next).is_err(),
            });
        }
        self.next = next;
        (reduced, failed)
    }
}

/// Whether `state`, whose ample set was empty (`reduced`: the system said
/// it left steps out), is stuck: not final, and no step at all enabled.
///
/// Why this is a deadlock of the model, whatever the reductions: a state
/// with no enabled step cannot finish unless it is final, and it is stored
/// only if reachable. Each reduction keeps that:
/// - ample sets: an ample set is a subset of the enabled steps that is
///   empty only when none is enabled (a non-empty persistent set exists
///   wherever a step is); should a system still return an empty reduced
///   set, the full set of actions decides (`reduced`);
/// - symmetry: a representative is a renaming of a reachable state, and
///   renaming blocks keeps both finality and the enabled steps;
/// - awaits (stale failed polls left out) and tree or hash compaction do
///   not change which states are reached; a left-out poll only stutters,
///   so a state whose only steps are such polls cannot finish either (the
///   full analysis also takes it for stuck).
///
/// Spinning deadlocks (steps enabled, none leading out) have successors
/// and are left to the analysis of the whole graph.
fn is_stuck<S: TransitionSystem>(sys: &S, state: &[u32], reduced: bool) -> bool {
    if sys.is_final(state) {
        return false;
    }
    if reduced {
        let mut all = Vec::new();
        sys.actions(state, &mut all);
        return all.is_empty();
    }
    true
}

/// Expands batches of states into reusable chunk buffers.
pub(crate) struct Expander<A, F> {
    chunks: Vec<Chunk<A, F>>,
    /// `(first, count)` of each chunk's states within the batch.
    spans: Vec<(usize, usize)>,
}

/// States in the next chunk when `left` states of the batch are left
/// (guided scheduling): a quarter of each worker's share of what is left,
/// at most [`CHUNK`] and at least [`CHUNK`]` / 8`, so that chunks shrink as
/// the batch drains and the workers finish it within a small chunk of each
/// other; a batch of few (large) states is split so that every worker gets
/// some (chunk bounds do not change ids: positions order successors the
/// same).
fn chunk_len(left: usize, batch: usize, threads: usize) -> usize {
    if batch < CHUNK / 4 * threads {
        return left.min(batch.div_ceil(threads).max(1));
    }
    (left / (4 * threads)).clamp(CHUNK / 8, CHUNK).min(left)
}

impl<A: Copy + Send, F: Send> Expander<A, F> {
    pub(super) fn new() -> Self {
        Expander {
            chunks: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// Expands states `first..first + count` (all stored) and returns their
    /// chunks in state order; a chunk that a limit of `opts` interrupted
    /// says so. The parts of the store's prepared growth
    /// ([`StateStore::start_growth`]) run in the same phase.
    pub(super) fn expand<S>(
        &mut self,
        workers: &Workers,
        sys: &S,
        store: &StateStore,
        (first, count): (StateId, usize),
        opts: &Options,
    ) -> &[Chunk<A, F>]
    where
        S: TransitionSystem<Action = A, Fault = F>,
    {
        self.spans.clear();
        let mut start = 0;
        while start < count {
            let n = chunk_len(count - start, count, workers.count());
            self.spans.push((start, n));
            start += n;
        }
        let n = self.spans.len();
        let spans = &self.spans;
        while self.chunks.len() < n {
            self.chunks.push(Chunk::new());
        }
        // The store's prepared table growth first: its page faults and
        // moves wait for memory where the chunks' steps compute.
        let growth = (store.growth_parts(), |k| store.grow_part(k));
        workers.each_after(growth, &mut self.chunks[..n], |k, c| {
            let (start, n) = spans[k];
            c.fill(sys, store, (first + start as StateId, n), opts);
        });
        &self.chunks[..n]
    }
}
