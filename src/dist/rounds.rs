//! Bulk-synchronous rounds on timely-dataflow: every worker hands in the
//! messages it addresses to other workers, and gets back those addressed
//! to it once timely's progress tracking says that no message of the
//! round is still on its way. Timely routes the records (`exchange`),
//! serializes them between processes (bincode over serde) and carries
//! them over its TCP connections; this module only counts rounds.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// One worker's end of the rounds: an input, the records that reached this
/// worker, and a probe on the operator that collected them.
pub(super) struct Rounds<'w> {
    worker: &'w mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<(u32, Msg)>>>,
    probe: ProbeHandle<u64>,
    /// What reached this worker, by round (a faster worker may already
    /// send the next round's).
    received: Rc<RefCell<BTreeMap<u64, Vec<Msg>>>>,
    round: u64,
}

impl<'w> Rounds<'w> {
    /// Builds the dataflow on `worker` (every worker builds the same one).
    pub(super) fn new(worker: &'w mut Worker) -> Self {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let received = Rc::new(RefCell::new(BTreeMap::new()));
        let sink = Rc::clone(&received);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<(u32, Msg)>>()
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|m: &(u32, Msg)| u64::from(m.0)),
                    "Deliver",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each_stamp(|stamp, batches| {
                                let mut got = sink.borrow_mut();
                                let round = *stamp.least().expect("a round");
                                let got = got.entry(round).or_insert_with(Vec::new);
                                for batch in batches {
                                    got.extend(batch.drain(..).map(|(_, m)| m));
                                }
                            });
                        }
                    },
                )
                .probe_with(&probe);
        });
        Rounds {
            worker,
            input,
            probe,
            received,
            round: 0,
        }
    }

    /// This worker's index among all workers of all processes.
    pub(super) fn index(&self) -> usize {
        self.worker.index()
    }

    /// Number of workers of all processes.
    pub(super) fn peers(&self) -> usize {
        self.worker.peers()
    }

    /// Sends each `(worker, message)` and returns what every worker sent to
    /// this one in this round (in no particular order). Every worker must
    /// call it the same number of times.
    pub(super) fn exchange(&mut self, out: impl IntoIterator<Item = (u32, Msg)>) -> Vec<Msg> {
        for m in out {
            self.input.send(m);
        }
        let round = self.round;
        self.round += 1;
        self.input.advance_to(self.round);
        while self.probe.less_than(&self.round) {
            self.worker.step_or_park(None);
        }
        let got = self.received.borrow_mut().remove(&round);
        got.unwrap_or_default()
    }
}

/// A position in a BFS level: the rank of the expanded state within its
/// level, and the index of the action among its actions. A sequential
/// search meets the successors of a level in this order.
pub(super) type Key = (u64, u32);

/// A state held by a worker: (worker, index in its partition).
pub(super) type Ptr = (u32, u32);

/// Every record the workers exchange.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Msg {
    /// A successor, for the worker that owns it.
    Succ {
        words: Vec<u32>,
        key: Key,
        from: Ptr,
        action: u32,
        /// The depth of `from` in the BFS tree.
        depth: u32,
    },
    /// A new state's first position, for the worker that ranks its range.
    Key { key: Key, owner: u32, local: u32 },
    /// The rank of a new state within its level, for its owner.
    Rank { local: u32, rank: u64 },
    /// One worker's figures, for every worker.
    Figures { from: u32, values: Vec<u64> },
    /// Backward reachability: state `local` can finish.
    Mark { local: u32 },
    /// Asks the owner whether this state can finish.
    Ask { words: Vec<u32> },
    /// The proviso: a label that state `local` reaches (`proviso`).
    Label { local: u32, label: u64 },
    /// The liveness analyses' records (`labels`, `colour`, `liveness`),
    /// each laid out by the module that sends it.
    Data(Vec<u64>),
}

impl Rounds<'_> {
    /// Sends `mine` to every worker; returns every worker's, by index.
    pub(super) fn gather(&mut self, mine: Vec<u64>) -> Vec<Vec<u64>> {
        let me = self.index() as u32;
        let peers = self.peers() as u32;
        let got = self.exchange((0..peers).map(|w| {
            let values = mine.clone();
            (w, Msg::Figures { from: me, values })
        }));
        let mut all = vec![Vec::new(); peers as usize];
        for m in got {
            match m {
                Msg::Figures { from, values } => all[from as usize] = values,
                other => unreachable!("a gather round got {other:?}"),
            }
        }
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
