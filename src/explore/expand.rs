//! Successor generation for a batch of stored states, on one thread or
//! several. Workers only *compute* (actions, steps, hashes) into their own
//! buffers; the explorer then merges the buffers in state-id order, so ids,
//! parents, edges and the first fault are exactly those of a sequential
//! breadth-first search, whatever the number of threads.

use super::store::{hash_state, StateId, StateStore};
use super::TransitionSystem;

/// States expanded by one worker task.
const CHUNK: usize = 128;

/// One generated successor.
#[derive(Clone, Copy)]
pub(crate) struct Succ<A> {
    pub action: A,
    pub hash: u64,
    /// The state's id if it was already stored before this batch (looked
    /// up by the worker, so that the merge skips the table for it).
    pub known: Option<StateId>,
}

/// The successors of a run of consecutive states.
pub(crate) struct Chunk<A, F> {
    /// First state of the run.
    pub first: StateId,
    /// Successor words, `words` per successor, in generation order.
    pub states: Vec<u32>,
    pub succs: Vec<Succ<A>>,
    /// `ends[i]`: end (exclusive) in `succs` of the successors of state `first + i`.
    pub ends: Vec<usize>,
    /// A step that failed: (index of the state in this run, action, fault).
    /// The run stops there; the state's earlier successors are kept.
    pub fault: Option<(usize, A, F)>,
    /// How many actions each state had (to reserve memory before merging).
    pub enabled: Vec<usize>,
    /// `reduced[i]`: state `first + i` was expanded by an ample subset only.
    pub reduced: Vec<bool>,
}

impl<A: Copy, F> Chunk<A, F> {
    pub(crate) fn new() -> Self {
        Chunk {
            first: 0,
            states: Vec::new(),
            succs: Vec::new(),
            ends: Vec::new(),
            fault: None,
            enabled: Vec::new(),
            reduced: Vec::new(),
        }
    }

    /// Words of successor `i`.
    #[inline]
    pub fn state(&self, i: usize, words: usize) -> &[u32] {
        &self.states[i * words..(i + 1) * words]
    }

    /// Expands states `first..first + count`: by their ample sets when
    /// `reduce`, else by every enabled action.
    pub(crate) fn fill<S: TransitionSystem<Action = A, Fault = F>>(
        &mut self,
        sys: &S,
        store: &StateStore,
        (first, count): (StateId, usize),
        look_up: bool,
        reduce: bool,
    ) {
        let words = store.words();
        self.first = first;
        self.states.clear();
        self.succs.clear();
        self.ends.clear();
        self.enabled.clear();
        self.reduced.clear();
        self.fault = None;
        let mut actions = Vec::new();
        let mut next = vec![0u32; words];
        for i in 0..count {
            let cur = store.get(first + i as StateId);
            actions.clear();
            let reduced = match reduce {
                true => sys.ample_actions(cur, &mut actions),
                false => {
                    sys.actions(cur, &mut actions);
                    false
                }
            };
            self.reduced.push(reduced);
            self.enabled.push(actions.len());
            for &a in &actions {
                if let Err(fault) = sys.step(cur, a, &mut next) {
                    self.ends.push(self.succs.len());
                    self.fault = Some((i, a, fault));
                    return;
                }
                sys.canonicalize(&mut next);
                self.states.extend_from_slice(&next);
                let hash = hash_state(&next);
                self.succs.push(Succ {
                    action: a,
                    hash,
                    known: look_up.then(|| store.find_hashed(&next, hash)).flatten(),
                });
            }
            self.ends.push(self.succs.len());
        }
    }
}

/// Expands batches of states into reusable chunk buffers.
pub(crate) struct Expander<A, F> {
    pool: Option<rayon::ThreadPool>,
    chunks: Vec<Chunk<A, F>>,
}

impl<A: Copy + Send, F: Send> Expander<A, F> {
    /// An expander using `threads` worker threads (1: the caller's thread).
    pub fn new(threads: usize) -> Self {
        let pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .ok()
            })
            .flatten();
        Expander {
            pool,
            chunks: Vec::new(),
        }
    }

    /// How many states one call to [`expand`](Self::expand) takes at most.
    pub fn batch(&self) -> usize {
        match &self.pool {
            // Enough chunks per thread that uneven chunks balance out.
            Some(pool) => CHUNK * 8 * pool.current_num_threads(),
            None => CHUNK,
        }
    }

    /// Expands states `first..first + count` (all stored) and returns their
    /// chunks in state order.
    pub fn expand<S>(
        &mut self,
        sys: &S,
        store: &StateStore,
        first: StateId,
        count: usize,
    ) -> &[Chunk<A, F>]
    where
        S: TransitionSystem<Action = A, Fault = F>,
    {
        let n = count.div_ceil(CHUNK);
        while self.chunks.len() < n {
            self.chunks.push(Chunk::new());
        }
        let chunks = &mut self.chunks[..n];
        // With several workers, they also look successors up in the store
        // (read-only here), taking most of the table work off the
        // sequential merge; alone, that would only be done twice.
        let look_up = self.pool.is_some();
        let job = |(k, c): (usize, &mut Chunk<A, F>)| {
            let start = k * CHUNK;
            let n = CHUNK.min(count - start);
            c.fill(sys, store, (first + start as StateId, n), look_up, true);
        };
        match &self.pool {
            Some(pool) => {
                use rayon::prelude::*;
                pool.install(|| chunks.par_iter_mut().enumerate().for_each(job));
            }
            None => chunks.iter_mut().enumerate().for_each(job),
        }
        &self.chunks[..n]
    }
}
