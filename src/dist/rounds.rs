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

/// The most bytes a record is meant to carry. Timely's buffers grow to
/// the largest record serialized and keep that size, per connection: a
/// record of a whole batch's successors (megabytes) made most of each
/// process's memory beyond its states.
pub(super) const RECORD_BYTES: usize = 1 << 18;

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

    /// Sends `m` to worker `to` in the current round now, so that it
    /// travels while this worker goes on (for full records).
    pub(super) fn post(&mut self, to: u32, m: Msg) {
        self.input.send((to, m));
        self.input.flush();
        self.worker.step();
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

/// Where a successor was reached: its position, the state it was reached
/// from, the action, and the depth of that state in the BFS tree.
pub(super) type Reached = (Key, Ptr, u32, u32);

/// Every record the workers exchange: one per receiving worker and round,
/// each carrying all that worker's items of the round (timely's cost is
/// per record; a batch is serialized as a few flat vectors).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Msg {
    /// Successors, for the worker that owns them: their words, one state
    /// after another, and where each was reached.
    Succs {
        #[serde(with = "words_as_bytes")]
        words: Vec<u32>,
        reached: Vec<Reached>,
    },
    /// New states' first positions, for the worker that ranks their range:
    /// (key, owner, index).
    Keys(Vec<(Key, u32, u32)>),
    /// The ranks of new states within their level, for their owner:
    /// (index, rank).
    Ranks(Vec<(u32, u64)>),
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

impl Rounds<'_> {
    /// Sends each `(worker, item)` in one message per worker (`wrap`
    /// makes it) and returns the items sent to this one (`unwrap` takes
    /// them out of a message of that kind). Every worker must call it the
    /// same number of times.
    pub(super) fn exchange_each<T>(
        &mut self,
        out: impl IntoIterator<Item = (u32, T)>,
        wrap: fn(Vec<T>) -> Msg,
        unwrap: fn(Msg) -> Option<Vec<T>>,
    ) -> impl Iterator<Item = T> {
        let mut each: Vec<Vec<T>> = (0..self.peers()).map(|_| Vec::new()).collect();
        let full = (RECORD_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        for (w, item) in out {
            let to = &mut each[w as usize];
            to.push(item);
            if to.len() >= full {
                let m = wrap(std::mem::take(to));
                self.post(w, m);
            }
        }
        let out = each
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(w, v)| (w as u32, wrap(v)));
        self.exchange(out).into_iter().filter_map(unwrap).flatten()
    }

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

/// Words as one byte string (little-endian): bincode writes a `Vec<u32>`
/// a word at a time, which was a tenth of a worker's time between
/// processes, and a byte string at once.
mod words_as_bytes {
    use serde::de::{Deserializer, Error, Visitor};
    use serde::Serializer;

    pub(super) fn serialize<S: Serializer>(words: &[u32], s: S) -> Result<S::Ok, S::Error> {
        if cfg!(target_endian = "little") {
            // SAFETY: the bytes of the words' own memory, `4 * len` of them
            // (u8 has no alignment to keep).
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    words.as_ptr().cast::<u8>(),
                    std::mem::size_of_val(words),
                )
            };
            return s.serialize_bytes(bytes);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        d.deserialize_bytes(Words)
    }

    struct Words;

    impl Visitor<'_> for Words {
        type Value = Vec<u32>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a byte string of 32-bit words")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u32>, E> {
            if !bytes.len().is_multiple_of(4) {
                return Err(E::invalid_length(bytes.len(), &self));
            }
            let word = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            Ok(bytes.chunks_exact(4).map(word).collect())
        }
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
