//! Bulk-synchronous rounds on timely's communication: every worker hands
//! in the messages it addresses to other workers, and gets back those
//! addressed to it. Timely's channels carry the records, serialize them
//! between processes (bincode over serde) and carry them over its TCP
//! connections; this module counts rounds. A round ends for a worker once
//! every worker's end of round has reached it, each saying how many
//! records it sent there before: one message's way, where timely's
//! progress tracking (a probe) took a broadcast of every worker's counts
//! after the records arrived, which set the pace at many workers (#43).

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use timely::communication::{Pull, Push};
use timely::dataflow::channels::Message;
use timely::progress::Stamp;
use timely::worker::Worker;

use super::succs::{words_as_bytes, States};

/// The most bytes a record is meant to carry. Timely's buffers grow to
/// the largest record serialized and keep that size, per connection: a
/// record of a whole batch's successors (megabytes) made most of each
/// process's memory beyond its states.
pub(super) const RECORD_BYTES: usize = 1 << 18;

/// What travels from one worker to another at once: (round, a message or
/// the end of the sender's round) each, in timely's envelope (whose
/// serialization and stamp, left empty, come with it).
type Bundle = Message<u64, Vec<(u64, Part)>>;

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Part {
    Msg(Msg),
    /// The sender sent this many records of the round before.
    End(u32),
}

/// What reached a worker of one round.
#[derive(Default)]
struct Arrived {
    /// Records not handed on yet.
    msgs: Vec<Msg>,
    /// Records handed on.
    taken: usize,
    ends: usize,
    /// Records announced by the ends so far.
    announced: usize,
}

impl Arrived {
    fn complete(&self, peers: usize) -> bool {
        self.ends == peers && self.taken + self.msgs.len() == self.announced
    }
}

/// One worker's end of the rounds: a channel to every worker, and the
/// records that reached this worker.
pub(super) struct Rounds<'w> {
    worker: &'w mut Worker,
    /// To each worker, by index: timely's channel, without a dataflow's
    /// operators and progress tracking (nothing here waits on a frontier;
    /// its updates went to every worker at every flush).
    to: Vec<Box<dyn Push<Bundle>>>,
    from: Box<dyn Pull<Bundle>>,
    /// What reached this worker, by round (a faster worker may already
    /// send the next round's).
    received: BTreeMap<u64, Arrived>,
    round: u64,
    /// Records sent to each worker in this round so far.
    sent: Vec<u32>,
    /// Time spent idle at the rounds' ends so far, and handling their
    /// records as they came.
    waited: std::time::Duration,
    handled: std::time::Duration,
    /// Workers of each process (timely numbers a process's workers
    /// consecutively).
    per_process: usize,
}

impl<'w> Rounds<'w> {
    /// Allocates the channel on `worker`, one of `per_process` workers of
    /// each process (every worker allocates the same one, the same number
    /// of times).
    pub(super) fn new(worker: &'w mut Worker, per_process: usize) -> Self {
        let id = worker.new_identifier();
        // The address names no dataflow: a record's arrival only wakes the
        // worker.
        let (to, from) = worker.allocate(id, Rc::from(vec![usize::MAX]));
        let peers = worker.peers();
        Rounds {
            worker,
            to,
            from,
            received: BTreeMap::new(),
            round: 0,
            sent: vec![0; peers],
            per_process: per_process.max(1),
            waited: std::time::Duration::ZERO,
            handled: std::time::Duration::ZERO,
        }
    }

    /// Whether worker `to` runs in another process: what is sent there is
    /// serialized and copied through the network.
    pub(super) fn is_remote(&self, to: u32) -> bool {
        to as usize / self.per_process != self.index() / self.per_process
    }

    /// The rounds so far, the time this worker waited idle at their ends,
    /// and the time it spent there handling their records as they came.
    pub(super) fn waits(&self) -> (u64, std::time::Duration, std::time::Duration) {
        (self.round, self.waited, self.handled)
    }

    /// This worker's index among all workers of all processes.
    pub(super) fn index(&self) -> usize {
        self.worker.index()
    }

    /// Number of workers of all processes.
    pub(super) fn peers(&self) -> usize {
        self.worker.peers()
    }

    /// Hands `parts` of the current round to worker `to` (sent at the next
    /// step of the worker).
    fn push(&mut self, to: u32, parts: Vec<(u64, Part)>) {
        let bundle = Message::new(Stamp::new(), parts);
        self.to[to as usize].push(&mut Some(bundle));
        self.to[to as usize].done();
    }

    /// Takes in what reached this worker: `current`'s records and ends into
    /// `got`, later rounds' kept for them.
    fn take_in(&mut self, current: u64, got: &mut Arrived) {
        while let Some(bundle) = self.from.recv() {
            for (round, part) in bundle.data {
                let got = match round == current {
                    true => &mut *got,
                    false => self.received.entry(round).or_default(),
                };
                match part {
                    Part::Msg(m) => got.msgs.push(m),
                    Part::End(n) => {
                        got.ends += 1;
                        got.announced += n as usize;
                    }
                }
            }
        }
    }

    /// Sends `m` to worker `to` in the current round now, so that it
    /// travels while this worker goes on (for full records).
    pub(super) fn post(&mut self, to: u32, m: Msg) {
        self.sent[to as usize] += 1;
        self.push(to, vec![(self.round, Part::Msg(m))]);
        self.worker.step();
    }

    /// Hands `each` the records of the current round that have reached
    /// this worker so far (the workers' figures aside, which its end
    /// reads): a worker that sends a long round takes in what comes
    /// meanwhile, so that timely's buffers, which keep the most they ever
    /// held, do not hold the whole round (#43).
    pub(super) fn take_early(&mut self, mut each: impl FnMut(Msg)) {
        let round = self.round;
        let mut got = self.received.remove(&round).unwrap_or_default();
        self.take_in(round, &mut got);
        let mut figures = Vec::new();
        for m in got.msgs.drain(..) {
            match m {
                Msg::Figures { .. } => figures.push(m),
                m => {
                    got.taken += 1;
                    each(m);
                }
            }
        }
        got.msgs = figures;
        self.received.insert(round, got);
    }

    /// Sends each `(worker, message)` and returns what every worker sent to
    /// this one in this round (in no particular order). Every worker must
    /// call it the same number of times.
    pub(super) fn exchange(&mut self, out: impl IntoIterator<Item = (u32, Msg)>) -> Vec<Msg> {
        let mut got = Vec::new();
        self.exchange_each(out, |m| got.push(m));
        got
    }

    /// Sends each `(worker, message)` and hands `each` what every worker
    /// sent to this one in this round, as it comes: while the slowest
    /// worker's records are still on their way, the others' are handled
    /// (#43: a worker waited at a level's end, then did its share of the
    /// inserts). Every worker must call it the same number of times.
    pub(super) fn exchange_each(
        &mut self,
        out: impl IntoIterator<Item = (u32, Msg)>,
        mut each: impl FnMut(Msg),
    ) {
        let round = self.round;
        let mut parts: Vec<Vec<(u64, Part)>> = vec![Vec::new(); self.peers()];
        for (to, m) in out {
            self.sent[to as usize] += 1;
            parts[to as usize].push((round, Part::Msg(m)));
        }
        for (to, mut parts) in parts.into_iter().enumerate() {
            let n = std::mem::take(&mut self.sent[to]);
            parts.push((round, Part::End(n)));
            self.push(to as u32, parts);
        }
        // Sends them (a worker whose round is complete at once would keep
        // them until its next round).
        self.worker.step();
        let peers = self.peers();
        // Polling before parking (yielding the core to the network
        // threads for up to 200 µs) measured no faster on the 16-core host.
        let waiting = std::time::Instant::now();
        let mut handled = std::time::Duration::ZERO;
        let mut got = self.received.remove(&round).unwrap_or_default();
        loop {
            self.take_in(round, &mut got);
            let complete = got.complete(peers);
            let start = std::time::Instant::now();
            got.taken += got.msgs.len();
            got.msgs.drain(..).for_each(&mut each);
            handled += start.elapsed();
            if complete {
                break;
            }
            self.worker.step_or_park(None);
        }
        self.waited += waiting.elapsed().saturating_sub(handled);
        self.handled += handled;
        self.round += 1;
    }
}

/// A position in a BFS level: the rank of the expanded state within its
/// level (or, while that level's ranks are on their way, its own first
/// position packed in a word, `search::pack`: the same order), and the
/// index of the action among its actions. A sequential search meets the
/// successors of a level in this order.
pub(super) type Key = (u64, u32);

/// A state held by a worker: (worker, index in its partition).
pub(super) type Ptr = (u32, u32);

/// Where a successor was reached: its position, the state it was reached
/// from, the action, and the depth of that state in the BFS tree.
pub(super) type Reached = (Key, Ptr, u32, u32);

/// Every record the workers exchange: one per receiving worker and round,
/// each carrying all that worker's items of the round (timely's cost is
/// per record; a batch is serialized as a few flat vectors).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Msg {
    /// Successors, for the worker that owns them: their states, where
    /// each was reached, and, where the search keeps labelled edges, each
    /// edge's label beyond its action (`labels::effect`; empty otherwise).
    Succs {
        states: States,
        reached: Vec<Reached>,
        effects: Vec<u64>,
    },
    /// A level's first positions (packed), for every worker: a run of
    /// one worker's, in order.
    Keys(Vec<u64>),
    /// One worker's figures, for every worker.
    Figures { from: u32, values: Vec<u64> },
    /// Backward reachability: these states (indices) are marked.
    Marks(Vec<u32>),
    /// Asks the owner whether these states can finish: their words, one
    /// after another.
    Asks(#[serde(with = "words_as_bytes")] Vec<u32>),
    /// The proviso: labels that states reach (`proviso`): (index, label).
    Labels(Vec<(u32, u64)>),
    /// The liveness analyses' records (`labels`, `colour`, `liveness`),
    /// each laid out by the module that sends it.
    Data(Vec<u64>),
    /// Values spread along edges (`colour::spread`): (index, item, value).
    Spread(Vec<(u32, u64, u64)>),
}

/// Items addressed to workers in the current round, one message per
/// worker: a worker's items leave as soon as they fill a record, so a
/// round's items are never all held at once (a fixpoint's first round
/// can carry an edge per stored state).
pub(super) struct Outbox<T> {
    each: Vec<Vec<T>>,
    wrap: fn(Vec<T>) -> Msg,
    /// Items handed in so far.
    count: u64,
}

impl<T> Outbox<T> {
    pub(super) fn new(peers: usize, wrap: fn(Vec<T>) -> Msg) -> Self {
        Outbox {
            each: (0..peers).map(|_| Vec::new()).collect(),
            wrap,
            count: 0,
        }
    }

    /// Hands in `item` for worker `to`; a full record of them is posted.
    pub(super) fn push(&mut self, rounds: &mut Rounds<'_>, to: u32, item: T) {
        let full = (RECORD_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        let items = &mut self.each[to as usize];
        items.push(item);
        self.count += 1;
        if items.len() >= full {
            let m = (self.wrap)(std::mem::take(items));
            rounds.post(to, m);
        }
    }

    /// The items not posted yet: one message per worker that has some.
    pub(super) fn into_msgs(self) -> Vec<(u32, Msg)> {
        let wrap = self.wrap;
        self.each
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(w, v)| (w as u32, wrap(v)))
            .collect()
    }
}

impl Rounds<'_> {
    /// Ends a round of a fixpoint with `out`'s items: the items sent to
    /// this one, or `None` where no worker sent anything (one round, where
    /// an exchange and a sum of what is left took two).
    pub(super) fn end_fixpoint_round<T>(
        &mut self,
        out: Outbox<T>,
        unwrap: fn(Msg) -> Option<Vec<T>>,
    ) -> Option<Vec<T>> {
        let mut got = Vec::new();
        let any = self.end_fixpoint_round_each(out, unwrap, |item| got.push(item));
        any.then_some(got)
    }

    /// Ends a round of a fixpoint with `out`'s items, handing each item
    /// sent to this worker to `each` as its message comes (a round's
    /// items are not held all at once: #43, a colouring's first round
    /// carries an edge per state); whether any worker sent any.
    pub(super) fn end_fixpoint_round_each<T>(
        &mut self,
        out: Outbox<T>,
        unwrap: fn(Msg) -> Option<Vec<T>>,
        mut each: impl FnMut(T),
    ) -> bool {
        let sent = vec![out.count];
        let mut msgs = out.into_msgs();
        msgs.extend(self.to_all(sent));
        let mut any = false;
        self.exchange_each(msgs, |m| match m {
            Msg::Figures { values, .. } => any |= values[0] > 0,
            m => unwrap(m).into_iter().flatten().for_each(&mut each),
        });
        any
    }

    /// `mine` for every worker.
    pub(super) fn to_all(&self, mine: Vec<u64>) -> impl Iterator<Item = (u32, Msg)> {
        let from = self.index() as u32;
        (0..self.peers() as u32).map(move |w| {
            let values = mine.clone();
            (w, Msg::Figures { from, values })
        })
    }

    /// Every worker's figures among `got`, by index, and the other
    /// messages.
    fn figures(&self, got: Vec<Msg>) -> (Vec<Vec<u64>>, Vec<Msg>) {
        let mut all = vec![Vec::new(); self.peers()];
        let mut rest = Vec::new();
        for m in got {
            match m {
                Msg::Figures { from, values } => all[from as usize] = values,
                other => rest.push(other),
            }
        }
        (all, rest)
    }

    /// Sends `mine` to every worker; returns every worker's, by index.
    pub(super) fn gather(&mut self, mine: Vec<u64>) -> Vec<Vec<u64>> {
        let out: Vec<_> = self.to_all(mine).collect();
        let got = self.exchange(out);
        let (all, rest) = self.figures(got);
        debug_assert!(rest.is_empty(), "a gather round got {rest:?}");
        all
    }

    /// The sum over all workers of each of `mine`'s figures.
    pub(super) fn sum(&mut self, mine: Vec<u64>) -> Vec<u64> {
        let n = mine.len();
        self.gather(mine).iter().fold(vec![0; n], |mut acc, v| {
            for (a, x) in acc.iter_mut().zip(v) {
                *a += x;
            }
            acc
        })
    }
}

/// The marks of a message of marks.
pub(super) fn marks(m: Msg) -> Option<Vec<u32>> {
    match m {
        Msg::Marks(v) => Some(v),
        _ => None,
    }
}

/// The values of a message of spread values.
pub(super) fn spread_values(m: Msg) -> Option<Vec<(u32, u64, u64)>> {
    match m {
        Msg::Spread(v) => Some(v),
        _ => None,
    }
}
