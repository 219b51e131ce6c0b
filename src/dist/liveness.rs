//! Deadlock and liveness under a progress model on the partitioned
//! labelled graph (`labels`), deciding what the sequential
//! `check::analyse` decides, in its order: a deadlock (a state where an
//! unfinished thread can never progress again, and, in a harness that can
//! finish, that cannot finish), then a livelock, then the starvation of
//! each thread. Reachability is propagated along the edges (`colour::spread`);
//! fair cycles are searched as the sequential `check::liveness` does
//! (its module doc has the argument), with its worklist run on all items
//! at once: strongly connected components by colouring (`colour`), each
//! judged by the sequential judge from the sums of its states' and edges'
//! labels (`Survey`), and the components it prunes or restricts searched
//! again as new items. The fair component with the smallest state is the
//! sequential check's choice; process 0 gathers it (its states and edges
//! only) and builds the very lasso the sequential check reports.

use std::collections::{BTreeMap, HashMap};

use super::colour::{self, Way};
use super::labels::{self, Labelled};
use super::memory::{held, Memory};
use super::partition::{Partition, COPIES_AT_ONCE};
use super::rounds::{Msg, Rounds};
use super::search::{first_limit, limit_code, walk};
use super::slots::{self, Comps, Items, NONE};
use crate::check::{
    edge_sets, Checkable, Component, CycleGraph, EdgeSet, Excluded, Filter, Finding, Judge, Judged,
    Label, Requirement, Seen, Survey, Tally,
};
use crate::explore::{LimitKind, Options, StateId};

/// The most threads the labels' bit sets hold.
pub(super) const MAX_THREADS: usize = 64;

/// Edge sets searched for fair cycles at once, each on its own copy of
/// the states: their colourings share rounds, which set the pace at many
/// workers. A set after the first with a fair component is work for
/// nothing until that one is found, hence two, the livelock's with the
/// first starvation's: `priority_semaphore --blocks 3 --scheduler fair`
/// at 8 × 2 took 1,720 rounds one at a time, 1,208 two at once, 1,210
/// four or eight at once, and more time (16-core host). No more than
/// `COPIES_AT_ONCE`, which sizes a worker's slots.
const AT_ONCE: usize = COPIES_AT_ONCE as usize;

/// What the analyses found, the same on every worker (the finding of a
/// fair cycle only on worker 0).
pub(super) enum Live {
    Clean,
    /// The actions to the first deadlocked state, and the thread that can
    /// never progress there where the harness never finishes.
    Deadlock {
        path: Vec<u32>,
        thread: Option<usize>,
    },
    Cycle(Option<Box<Finding>>),
}

/// Decides deadlock and then, under `judge`'s progress models, liveness
/// on the graph of a complete search of `sys` that kept its edges with
/// their labels (they are moved into the labelled graph). A limit of
/// `opts` (time, memory, an interrupt) reached on any worker ends it on
/// every worker, between its phases and between its colourings, as the
/// sequential analyses end.
pub(super) fn analyse<S: Checkable>(
    sys: &S,
    judge: Option<&Judge<'_, S>>,
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    opts: &Options,
) -> Result<Live, LimitKind> {
    let phases = Phases::new(rounds);
    let memory = Memory::new(rounds);
    memory.end("search", &part.held());
    let g = labels::label(rounds, part);
    phases.end(rounds, "labels");
    memory.end("labels", &[&part.held()[..], &g.held()].concat());
    limit_anywhere(rounds, opts)?;
    let part = &*part;
    if let Some((path, thread)) = deadlock(sys, rounds, part, &g) {
        return Ok(Live::Deadlock { path, thread });
    }
    phases.end(rounds, "deadlock");
    memory.end("deadlock", &[&part.held()[..], &g.held()].concat());
    let Some(judge) = judge else {
        return Ok(Live::Clean);
    };
    limit_anywhere(rounds, opts)?;
    let sets: Vec<_> = edge_sets(sys.thread_count()).collect();
    for batch in sets.chunks(AT_ONCE) {
        let mut search = Fair::new(&g, batch.to_vec());
        let found = search.run(judge, rounds, (part, &g), (opts, &memory))?;
        phases.end(rounds, &format!("fair cycles, {} edge sets", batch.len()));
        if let Some(found) = found {
            return Ok(Live::Cycle(search.report(judge, rounds, part, &g, found)));
        }
    }
    Ok(Live::Clean)
}

/// The limit of `opts` that some worker has reached, the same on every
/// worker (one round).
fn limit_anywhere(rounds: &mut Rounds<'_>, opts: &Options) -> Result<(), LimitKind> {
    let all = rounds.gather(vec![limit_code(opts.limit_reached())]);
    first_limit(all.iter().map(|v| v[0])).map_or(Ok(()), Err)
}

/// With `GSYNC_DIST_WAITS`, the rounds of each phase of the analyses and
/// the time worker 0 took and waited in them (#43: the rounds' ends set
/// the pace at many workers).
struct Phases(Option<std::cell::Cell<(u64, std::time::Duration, std::time::Instant)>>);

impl Phases {
    fn new(rounds: &Rounds<'_>) -> Phases {
        let on = super::waits_wanted() && rounds.index() == 0;
        Phases(on.then(|| std::cell::Cell::new(Self::now(rounds))))
    }

    fn now(rounds: &Rounds<'_>) -> (u64, std::time::Duration, std::time::Instant) {
        let (n, waited, _) = rounds.waits();
        (n, waited, std::time::Instant::now())
    }

    /// Prints the phase that ends here, since the last one ended.
    fn end(&self, rounds: &Rounds<'_>, what: &str) {
        let Some(last) = &self.0 else {
            return;
        };
        let ((n0, waited0, t0), now) = (last.get(), Self::now(rounds));
        let line = format!(
            "liveness {what}: {} rounds, waited {:.3} s of {:.3} s\n",
            now.0 - n0,
            (now.1 - waited0).as_secs_f64(),
            (now.2 - t0).as_secs_f64()
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        last.set(now);
    }
}

/// The first state (by sequential id) where an unfinished thread can never
/// progress again (and, in a harness that can finish, that cannot), with
/// the path to it and, where the harness never finishes, the first such thread.
fn deadlock<S: Checkable>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &Partition,
    g: &Labelled,
) -> Option<(Vec<u32>, Option<usize>)> {
    let n = g.len();
    let finals = rounds.sum(vec![part.finals.count_ones() as u64])[0];
    // Copy 0, bit 0: can finish; backward from the final states. Copy 1,
    // bit t: thread t can still progress; backward from its progress
    // edges. Both fixpoints travel in the same rounds.
    let mut bits: Vec<u64> = (0..n as u32)
        .map(|l| u64::from(part.finals.get(l)))
        .collect();
    bits.extend((0..n as u32).map(|l| {
        g.out(l)
            .filter(|e| e.0.progress)
            .fold(0, |m, e| m | 1 << e.0.thread)
    }));
    let start = (0..2 * n).filter(|&s| bits[s] != 0);
    let start = start.map(colour::slot).collect();
    backward_or(rounds, g, &mut bits, start);
    let (can_finish, can_progress) = bits.split_at(n);
    let stuck_thread = |l: u32| {
        let s = &part.state(l);
        (0..sys.thread_count())
            .find(|&t| !sys.is_finished(s, t) && can_progress[l as usize] >> t & 1 == 0)
    };
    let first = (0..n as u32)
        .filter(|&l| finals == 0 || can_finish[l as usize] == 0)
        .filter_map(|l| stuck_thread(l).map(|t| (g.ids[l as usize], t, l)))
        .min();
    let mine = first.map_or(vec![], |(id, t, _)| vec![id, t as u64]);
    let all = rounds.gather(mine);
    let min = all.iter().filter(|v| !v.is_empty()).min()?.clone();
    let at = first.filter(|f| f.0 == min[0]).map(|f| f.2);
    let thread = (finals == 0).then_some(min[1] as usize);
    Some((walk(rounds, part, at), thread))
}

/// ORs each slot's bits into its state's predecessors' (the same copy),
/// to a fixpoint.
fn backward_or(rounds: &mut Rounds<'_>, g: &Labelled, bits: &mut [u64], start: Vec<u32>) {
    let b = std::cell::RefCell::new(bits);
    let n = g.len();
    colour::spread(
        rounds,
        g,
        Way::Backward,
        start,
        |s| (slots::copy_item(s / n), b.borrow()[s]),
        |_, _| true,
        |s, _, value| {
            let mut b = b.borrow_mut();
            let old = b[s];
            b[s] = old | value;
            old | value != old
        },
    );
}

/// A search for a fair component with each of several edge sets, in
/// order (each for the starvation of its thread, if any), set `k` on copy
/// `k` of the states (`colour::spread`'s slots): each slot's item, the
/// filters of the items this worker holds slots of, and the fair
/// components found. The first set with a fair component is the
/// sequential check's finding; the sets after it are given up once it
/// has one, the sets before it searched to the end.
struct Fair {
    sets: Vec<(EdgeSet, Option<usize>)>,
    /// States of this worker (slots per copy).
    states: usize,
    item: Items,
    excluded: HashMap<u64, Excluded>,
    /// The states of each fair component found (a vector of every slot
    /// took eight bytes a slot, #43), and the filter of each.
    found: HashMap<u64, Vec<u32>>,
    found_excluded: HashMap<u64, Excluded>,
    /// Fair components judged on this worker: (smallest id, component).
    judged: Vec<(u64, u64)>,
    /// The first copy with a fair component so far (`sets.len()`: none).
    first_fair: usize,
}

/// One worker's sums over a component's states and edges inside it.
#[derive(Default)]
struct Part {
    item: u64,
    count: u64,
    /// The smallest state and whether each thread is finished and has run there.
    first: (u64, u64, u64),
    enabled: u64,
    disabled: u64,
    moves: u64,
    progress: bool,
    self_loop: bool,
    /// (thread, location, bits) of the memory accesses.
    memory: std::collections::BTreeSet<(u64, u64, u64)>,
}

impl Part {
    fn encode(&self, comp: u64) -> Vec<u64> {
        let mut v = vec![
            comp,
            self.item,
            self.count,
            self.first.0,
            self.first.1,
            self.first.2,
            self.enabled,
            self.disabled,
            self.moves,
            u64::from(self.progress),
            u64::from(self.self_loop),
        ];
        v.extend(self.memory.iter().flat_map(|m| [m.0, m.1, m.2]));
        v
    }

    /// Adds another worker's sums (`v`: as `encode` lays them out).
    fn merge(&mut self, v: &[u64]) {
        let first = (v[3], v[4], v[5]);
        if self.count == 0 || first.0 < self.first.0 {
            self.first = first;
        }
        self.item = v[1];
        self.count += v[2];
        self.enabled |= v[6];
        self.disabled |= v[7];
        self.moves |= v[8];
        self.progress |= v[9] == 1;
        self.self_loop |= v[10] == 1;
        self.memory
            .extend(v[11..].chunks(3).map(|c| (c[0], c[1], c[2])));
    }

    fn survey(&self, threads: usize) -> Survey {
        let bit = |m: u64, t: usize| m >> t & 1 == 1;
        let mut memory = Tally::default();
        for &(thread, location, bits) in &self.memory {
            memory.add(&Label {
                thread: thread as u32,
                action: 0,
                progress: false,
                location: location as u32,
                memory: bits as u8,
            });
        }
        Survey {
            seen: (0..threads)
                .map(|t| Seen {
                    finished: bit(self.first.1, t),
                    started: bit(self.first.2, t) || bit(self.moves, t),
                    moves: bit(self.moves, t),
                    enabled_somewhere: bit(self.enabled, t),
                    disabled_somewhere: bit(self.disabled, t),
                })
                .collect(),
            progress: self.progress,
            memory,
        }
    }
}

impl Fair {
    fn new(g: &Labelled, sets: Vec<(EdgeSet, Option<usize>)>) -> Fair {
        let (copies, n) = (sets.len(), g.len());
        debug_assert!(copies < slots::MAX_COPIES);
        Fair {
            item: Items::new(copies, n),
            excluded: (0..copies)
                .map(|k| (slots::copy_item(k), Excluded::default()))
                .collect(),
            found: HashMap::new(),
            found_excluded: HashMap::new(),
            judged: Vec::new(),
            first_fair: copies,
            sets,
            states: n,
        }
    }

    /// Bytes held per slot (the maps of filters aside).
    fn bytes(&self) -> usize {
        let found: usize = self.found.values().map(held).sum();
        self.item.bytes() + found + held(&self.judged)
    }

    fn allows(&self, item: u64, l: &Label) -> bool {
        self.sets[slots::copy_of(item)].0.allows(*l) && !self.excluded[&item].forbids(l)
    }

    /// Searches until no item is left; the fair component with the
    /// smallest state, (its smallest id, its root id), on every worker.
    /// Each colouring's decisions carry the workers' limits, so that all
    /// stop at the same colouring when one reaches a limit of `opts`.
    fn run<S: Checkable>(
        &mut self,
        judge: &Judge<'_, S>,
        rounds: &mut Rounds<'_>,
        (part, g): (&Partition, &Labelled),
        (opts, memory): (&Options, &Memory),
    ) -> Result<Option<(u64, u64)>, LimitKind> {
        // Every copy holds every state at first (the initial state at least).
        let mut active = true;
        let mut round = 0u64;
        while active {
            let comp = colour::components(rounds, g, &self.item, &|i, l| self.allows(i, l));
            // Copies with slots left for the next colouring.
            let left = (0..comp.len())
                .filter(|&s| !comp.is_found(s) && self.item.get(s) != NONE)
                .fold(0u64, |m, s| m | 1 << (s / self.states));
            let parts = self.sums(judge.model, rounds, (part, g), &comp);
            let figures = [left, limit_code(opts.limit_reached())];
            let (decisions, left, limit) = self.judge(judge, rounds, parts, figures);
            if let Some(kind) = limit {
                return Err(kind);
            }
            round += 1;
            self.apply(g, &comp, &decisions, round);
            let held = [("components", comp.bytes()), ("fair search", self.bytes())];
            memory.end(
                &format!("colouring {round}"),
                &[&part.held()[..], &g.held(), &held].concat(),
            );
            active = (0..self.sets.len().min(self.first_fair + 1)).any(|k| {
                left >> k & 1 == 1
                    || (decisions.iter()).any(|d| slots::copy_of(d[0]) == k && d[1] != 1)
            });
        }
        let k = self.first_fair;
        if k == self.sets.len() {
            return Ok(None);
        }
        let mine = (self.judged.iter())
            .filter(|j| slots::copy_of(j.1) == k)
            .min()
            .map_or(vec![], |m| vec![m.0, m.1]);
        let all = rounds.gather(mine);
        let min = all.iter().filter(|v| !v.is_empty()).min();
        Ok(min.map(|m| (m[0], m[1])))
    }

    /// This worker's sums of each component found this round (`comp`: of
    /// each slot).
    fn sums<S: Checkable>(
        &self,
        sys: &S,
        rounds: &mut Rounds<'_>,
        (part, g): (&Partition, &Labelled),
        comp: &Comps,
    ) -> BTreeMap<u64, Part> {
        let me = rounds.index() as u32;
        let all = (1u64 << sys.thread_count()).wrapping_sub(1);
        let all = if sys.thread_count() == 64 {
            u64::MAX
        } else {
            all
        };
        // An edge within a component: target, component, label, whether a
        // self-loop (records many to a message, not a message each),
        // summed where it arrives, as it comes: an edge to this worker's
        // own state at once, and what the others sent taken in as this
        // worker sends (#43: a large component's edges were all held).
        let mut out = labels::Records::new(rounds.peers(), 5);
        let n = self.states;
        let mut parts: BTreeMap<u64, Part> = BTreeMap::new();
        let take = |parts: &mut BTreeMap<u64, Part>, m: Msg| {
            let Msg::Data(m) = m else { return };
            for m in m.chunks_exact(5) {
                add_edge(parts, comp, n, m);
            }
        };
        let found = comp.found();
        let mut sent = 0usize;
        for (slot, c) in found.clone() {
            let l = (slot % n) as u32;
            for e in g.out(l) {
                if !self.allows(self.item.get(slot), &e.0) {
                    continue;
                }
                let [a, b] = labels::encode(&e.0);
                let edge = [u64::from(e.1 .1), c, a, b, u64::from(e.1 == (me, l))];
                if e.1 .0 == me {
                    add_edge(&mut parts, comp, n, &edge);
                    continue;
                }
                out.record(rounds, e.1 .0).extend(edge);
                sent += 1;
                if sent.is_multiple_of(colour::TAKE_EVERY) {
                    rounds.take_early(|m| take(&mut parts, m));
                }
            }
        }
        rounds.exchange_each(out.into_msgs(), |m| take(&mut parts, m));
        for (slot, c) in found {
            let l = (slot % n) as u32;
            let id = g.ids[l as usize];
            // Every other state of a component reaches its root within
            // it: a root that no edge within reached is alone, a trivial
            // component, which no judge hears of (#43: most components of
            // a colouring are, and each took a map entry here and there).
            if c == slots::copy_item(slots::copy_of(c)) | id && !parts.contains_key(&c) {
                continue;
            }
            let p = parts.entry(c).or_default();
            p.item = self.item.get(slot);
            p.count += 1;
            if p.count == 1 || id < p.first.0 {
                // Finished and started threads, read at the smallest state.
                let s = &part.state(l);
                let bits = |f: &dyn Fn(usize) -> bool| {
                    (0..sys.thread_count()).fold(0u64, |m, t| m | u64::from(f(t)) << t)
                };
                let finished = bits(&|t| sys.is_finished(s, t));
                p.first = (id, finished, bits(&|t| sys.has_run(s, t)));
            }
            p.enabled |= g.enabled[l as usize];
            p.disabled |= !g.enabled[l as usize] & all;
        }
        parts
    }

    /// Sends the sums to each component's judge (worker `root % peers`),
    /// judges, and returns every decision, on every worker: (component,
    /// 1 fair / 2 prune the states where thread `v[2]` is enabled, of
    /// which some are not / 3 exclude the requirements that follow).
    /// Components not named are unfair or trivial, or lose every state.
    /// `[left, limit]` (copies with slots left uncoloured, this worker's
    /// [`limit_code`]) travel with the decisions: what every worker left,
    /// ORed, and the first limit any reached come back with them.
    fn judge<S: Checkable>(
        &mut self,
        judge: &Judge<'_, S>,
        rounds: &mut Rounds<'_>,
        parts: BTreeMap<u64, Part>,
        [left, limit]: [u64; 2],
    ) -> (Vec<Vec<u64>>, u64, Option<LimitKind>) {
        let peers = rounds.peers() as u64;
        let threads = judge.model.thread_count();
        // Most components are single states: their sums go many to a
        // message.
        let mut out = labels::Records::new(peers as usize, 1);
        for (c, p) in &parts {
            out.frame(rounds, (c % peers) as u32, &p.encode(*c));
        }
        let mut merged: BTreeMap<u64, Part> = BTreeMap::new();
        for m in rounds.exchange(out.into_msgs()) {
            let Msg::Data(m) = m else { continue };
            for v in labels::frames(&m) {
                merged.entry(v[0]).or_default().merge(v);
            }
        }
        let mut decisions = Vec::new();
        for (c, p) in merged {
            if p.count == 1 && !p.self_loop {
                continue;
            }
            let starving = self.sets[slots::copy_of(c)].1;
            match judge.judge(&p.survey(threads), starving) {
                Judged::Unfair => {}
                Judged::Fair => {
                    self.judged.push((p.first.0, c));
                    decisions.push(vec![c, 1]);
                }
                Judged::PruneEnabled(t) if p.disabled >> t & 1 == 1 => {
                    decisions.push(vec![c, 2, t as u64]);
                }
                Judged::PruneEnabled(_) => {}
                Judged::Exclude(rs) => {
                    let mut d = vec![c, 3];
                    d.extend(rs.iter().flat_map(|r| encode_requirement(*r)));
                    decisions.push(d);
                }
            }
        }
        let from = rounds.index() as u32;
        let out: Vec<(u32, Msg)> = (0..peers as u32)
            .flat_map(|w| {
                let left = Msg::Figures {
                    from,
                    values: vec![left, limit],
                };
                (decisions.iter().map(move |d| (w, Msg::Data(d.clone())))).chain([(w, left)])
            })
            .collect();
        let mut all = Vec::new();
        let (mut left, mut limits) = (0, Vec::new());
        for m in rounds.exchange(out) {
            match m {
                Msg::Data(v) => all.push(v),
                Msg::Figures { values, .. } => {
                    left |= values[0];
                    limits.push(values[1]);
                }
                _ => {}
            }
        }
        all.sort_unstable();
        // The sets after the first with a fair component are given up.
        let fair = all.iter().filter(|d| d[1] == 1);
        let first = fair.map(|d| slots::copy_of(d[0])).min();
        self.first_fair = self.first_fair.min(first.unwrap_or(self.sets.len()));
        (all, left, first_limit(limits))
    }

    /// Moves each slot of a component found to where its decision puts
    /// it: out of every item, into the fair ones found, or into a new item
    /// (the component's, in colouring `round`); and every slot of the
    /// copies given up out of every item.
    fn apply(&mut self, g: &Labelled, comp: &Comps, decisions: &[Vec<u64>], round: u64) {
        let by: HashMap<u64, &[u64]> = decisions.iter().map(|d| (d[0], &d[1..])).collect();
        let n = self.states;
        for (slot, c) in comp.found() {
            let old = self.item.get(slot);
            self.item.set(slot, NONE);
            // The component's root id (below 2^32) and its round name the
            // new item, under the copy's tag.
            let new = c | round << 32;
            match by.get(&c).copied() {
                Some([1]) => {
                    let state = (slot % n) as u32;
                    self.found.entry(c).or_default().push(state);
                    let ex = self.excluded[&old].clone();
                    self.found_excluded.insert(c, ex);
                }
                Some([2, t]) if !g.is_enabled((slot % n) as u32, *t as usize) => {
                    let ex = self.excluded[&old].clone();
                    self.excluded.entry(new).or_insert(ex);
                    self.item.set(slot, new);
                }
                Some([3, rs @ ..]) => {
                    let rs: Vec<Requirement> = rs.chunks(3).map(decode_requirement).collect();
                    let ex = self.excluded[&old].with(&rs);
                    self.excluded.entry(new).or_insert(ex);
                    self.item.set(slot, new);
                }
                _ => {}
            }
        }
        let given_up = (self.first_fair + 1).min(self.sets.len()) * n;
        self.item.clear_from(given_up);
    }

    /// The finding of fair component `(first, c)`, built on worker 0 from
    /// its states and edges gathered there.
    fn report<S: Checkable>(
        &self,
        judge: &Judge<'_, S>,
        rounds: &mut Rounds<'_>,
        part: &Partition,
        g: &Labelled,
        (first, c): (u64, u64),
    ) -> Option<Box<Finding>> {
        let mut out = Vec::new();
        let mut entry = None;
        let k = slots::copy_of(c);
        let states = self.found.get(&c).map_or(&[][..], Vec::as_slice);
        let targets: Vec<_> = (states.iter())
            .flat_map(|&l| g.out(l).map(|e| e.1))
            .collect();
        let target_ids = labels::ids_of(rounds, g, &targets);
        for &l in states {
            let id = g.ids[l as usize];
            if id == first {
                entry = Some(l);
            }
            let words = part.state(l);
            let mut m = vec![0, id, g.enabled[l as usize], words.len() as u64];
            m.extend(words.iter().map(|&w| u64::from(w)));
            for e in g.out(l) {
                m.extend(labels::encode(&e.0));
                m.push(target_ids[&e.1]);
            }
            out.push((0, Msg::Data(m)));
        }
        if let Some(ex) = self.found_excluded.get(&c).filter(|_| entry.is_some()) {
            let rs = ex.requirements();
            let mut m = vec![1];
            m.extend(rs.iter().flat_map(|r| encode_requirement(*r)));
            out.push((0, Msg::Data(m)));
        }
        let got = rounds.exchange(out);
        let stem = walk(rounds, part, entry);
        if rounds.index() != 0 {
            return None;
        }
        let mut view = Gathered {
            states: BTreeMap::new(),
            stem,
        };
        let mut excluded = Excluded::default();
        for m in got {
            let Msg::Data(m) = m else { continue };
            let (kind, m) = m.split_first().expect("a tagged record");
            if *kind == 1 {
                let rs: Vec<Requirement> = m.chunks(3).map(decode_requirement).collect();
                excluded = excluded.with(&rs);
                continue;
            }
            let words_end = 3 + m[2] as usize;
            let words = m[3..words_end].iter().map(|&w| w as u32).collect();
            let edges = m[words_end..]
                .chunks(3)
                .map(|e| (labels::decode(&e[..2]), e[2] as StateId))
                .collect();
            view.states.insert(m[0] as StateId, (words, m[1], edges));
        }
        let comp = Component {
            states: view.states.keys().copied().collect(),
            filter: Filter {
                edges: self.sets[k].0,
                excluded,
            },
            starving: self.sets[k].1,
        };
        Some(Box::new(judge.report(&view, comp)))
    }
}

/// Adds edge `m` (target, component, label, whether a self-loop) to its
/// component's sums where its target is in that component too.
fn add_edge(parts: &mut BTreeMap<u64, Part>, comp: &Comps, n: usize, m: &[u64]) {
    if comp.get(slots::copy_of(m[1]) * n + m[0] as usize) != m[1] {
        return;
    }
    let l = labels::decode(&m[2..4]);
    let p = parts.entry(m[1]).or_default();
    p.moves |= 1 << l.thread;
    p.progress |= l.progress;
    p.self_loop |= m[4] == 1;
    if l.memory != 0 {
        (p.memory).insert((
            u64::from(l.thread),
            u64::from(l.location),
            u64::from(l.memory),
        ));
    }
}

fn encode_requirement(r: Requirement) -> [u64; 3] {
    match r {
        Requirement::Reads { thread, location } => [0, u64::from(thread), u64::from(location)],
        Requirement::Lands { location } => [1, 0, u64::from(location)],
    }
}

fn decode_requirement(c: &[u64]) -> Requirement {
    match c[0] {
        0 => Requirement::Reads {
            thread: c[1] as u32,
            location: c[2] as u32,
        },
        _ => Requirement::Lands {
            location: c[2] as u32,
        },
    }
}

/// A state's words, enabled threads, and edges out in action order.
type GatheredState = (Vec<u32>, u64, Vec<(Label, StateId)>);

/// A fair component gathered on worker 0: per state (by id) its words,
/// enabled threads and edges out in action order; the path to its entry.
struct Gathered {
    states: BTreeMap<StateId, GatheredState>,
    stem: Vec<u32>,
}

impl CycleGraph for Gathered {
    fn each_edge(&self, id: StateId, f: &mut dyn FnMut(Label, StateId)) {
        // petgraph lists a node's edges newest first.
        if let Some(s) = self.states.get(&id) {
            for &(l, to) in s.2.iter().rev() {
                f(l, to);
            }
        }
    }

    fn is_enabled(&self, id: StateId, t: usize) -> bool {
        self.states.get(&id).is_some_and(|s| s.1 >> t & 1 == 1)
    }

    fn path_to(&self, _id: StateId) -> Vec<u32> {
        self.stem.clone()
    }

    fn decode(&self, id: StateId) -> Vec<u32> {
        self.states[&id].0.clone()
    }
}
