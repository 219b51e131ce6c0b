//! Deduplication of one batch of successors, in parallel and deterministic.
//!
//! A sequential breadth-first search gives a new state the next id when it
//! first meets it, expanding states in id order and their actions in order;
//! so the new states of a batch get ids in the order of their first
//! discovery, i.e. of the smallest *position* (parent, action index) among
//! the successors equal to them. Positions are the successors' indices in
//! the batch's chunks taken in order. Workers [`claim`](Claims::claim) every
//! successor in the concurrent table, which keeps the smallest position per
//! new state whatever the interleaving; a successor is then a *winner* (the
//! first discovery of a new state) iff the table kept its own position.
//! Winners get ids in position order, exactly the ids of the sequential
//! search, whatever the number of threads.

use super::expand::Chunk;
use super::store::StateStore;
use super::table::Claim;
use super::workers::Workers;
use super::TransitionSystem;

/// How many successors ahead of its claim a successor's table slot is
/// prefetched: enough misses in flight to hide the memory latency, few
/// enough that the lines are still cached when their claims come.
const AHEAD: usize = 12;
/// How many successors ahead of its claim the location of the stored
/// state that the claim will compare the successor with is fetched (the
/// table slot naming that state was fetched at [`AHEAD`]), and then, at
/// [`CODE_AHEAD`], that state's code: each stage reads what the one before
/// fetched. Most successors are states stored before, each compared with
/// its stored code, and at 6 blocks the codes and their locations are far
/// larger than a core's caches.
const LOCATION_AHEAD: usize = 8;
const CODE_AHEAD: usize = 4;

/// Per chunk: what the claims found. Aligned to its own cache lines, as
/// [`Chunk`] is.
#[repr(align(128))]
pub(crate) struct ChunkClaims<F> {
    /// Position of the chunk's first successor in the batch.
    pub offset: usize,
    /// The claim of each successor.
    pub claims: Vec<Claim>,
    /// Local indices of the winners, increasing.
    pub winners: Vec<u32>,
    /// Bytes of the winners' codes.
    pub bytes: usize,
    /// `is_final` of each winner.
    pub finals: Vec<bool>,
    /// The first winner (index into `winners`) that `check_state` rejects.
    pub bad: Option<(usize, F)>,
    /// The words of a winner that fails `check_state` (decoded from its
    /// code, for the fault).
    state: Vec<u32>,
}

/// Reusable per-chunk buffers of a batch.
pub(crate) struct Claims<F> {
    pub chunks: Vec<ChunkClaims<F>>,
}

impl<F: Send> Claims<F> {
    pub(super) fn new() -> Self {
        Claims { chunks: Vec::new() }
    }

    /// Claims every successor of `chunks` in the store's table and finds
    /// the winners with their finality and the first that fails its state
    /// invariants (as the successors' generation found them; on the
    /// workers). Returns the number of successors. The table must have room
    /// for all of them ([`StateStore::reserve`]).
    pub(super) fn claim<S, A>(
        &mut self,
        workers: &Workers,
        sys: &S,
        store: &StateStore,
        chunks: &[Chunk<A, F>],
    ) -> usize
    where
        S: TransitionSystem<Action = A, Fault = F>,
        A: Copy + Send + Sync,
        F: Sync,
    {
        while self.chunks.len() < chunks.len() {
            self.chunks.push(ChunkClaims {
                offset: 0,
                claims: Vec::new(),
                winners: Vec::new(),
                bytes: 0,
                finals: Vec::new(),
                bad: None,
                state: Vec::new(),
            });
        }
        let mine = &mut self.chunks[..chunks.len()];
        let mut total = 0;
        for (c, chunk) in mine.iter_mut().zip(chunks) {
            c.offset = total;
            total += chunk.succs.len();
        }
        let offsets: Vec<usize> = mine.iter().map(|c| c.offset).collect();
        let words = store.words();
        let table = store.table();
        // Successor `i` of the batch, for comparing with a pending claim.
        let batch_code = |i: u32| {
            let i = i as usize;
            let c = offsets.partition_point(|&o| o <= i) - 1;
            let k = i - offsets[c];
            (chunks[c].code(k), chunks[c].succs[k].hash)
        };
        workers.each(mine, |c, mine| {
            let chunk = &chunks[c];
            mine.claims.clear();
            let succs = &chunk.succs;
            for s in &succs[..AHEAD.min(succs.len())] {
                table.prefetch(s.hash);
            }
            // The stored states the location stage found, by successor
            // modulo [`LOCATION_AHEAD`], for the code stage.
            let mut matches = [None; LOCATION_AHEAD];
            for (k, s) in succs.iter().enumerate() {
                if let Some(ahead) = succs.get(k + AHEAD) {
                    table.prefetch(ahead.hash);
                }
                if let Some(ahead) = succs.get(k + LOCATION_AHEAD) {
                    matches[k % LOCATION_AHEAD] = store.prefetch_match_location(ahead.hash);
                }
                let code_ahead = k + CODE_AHEAD;
                if let (Some(ahead), Some(id)) =
                    (succs.get(code_ahead), matches[code_ahead % LOCATION_AHEAD])
                {
                    store.prefetch_code(id, ahead.code.1 as usize);
                }
                let index = (mine.offset + k) as u32;
                let claim = store.claim(chunk.code(k), s.hash, index, batch_code);
                mine.claims.push(claim);
            }
        });
        workers.each(mine, |c, mine| {
            let chunk = &chunks[c];
            mine.winners.clear();
            mine.finals.clear();
            mine.bytes = 0;
            mine.bad = None;
            for (k, claim) in mine.claims.iter().enumerate() {
                if let Some(&Claim::New(ahead)) = mine.claims.get(k + AHEAD) {
                    table.prefetch_slot(ahead);
                }
                let Claim::New(pos) = *claim else { continue };
                if table.winner(pos) as usize != mine.offset + k {
                    continue;
                }
                let succ = &chunk.succs[k];
                let code = chunk.code(k);
                mine.bytes += code.len();
                mine.winners.push(k as u32);
                mine.finals.push(succ.is_final);
                if succ.fails_check && mine.bad.is_none() {
                    let state = &mut mine.state;
                    state.resize(words, 0);
                    store.decode(code, state);
                    if let Err(fault) = sys.check_state(state) {
                        mine.bad = Some((mine.winners.len() - 1, fault));
                    }
                }
            }
        });
        total
    }
}
