//! Memory fairness in the liveness check: the stale-read lassos of `ptx`
//! go away, the real livelocks stay.

use super::graph::LabeledGraph;
use super::liveness;
use crate::explore::{explore, Options, Outcome};
use crate::ir::{lower, Launch};
use crate::model::{MemoryModel, Model, ModelOptions, Scheduler, ViolationKind};
use crate::spec::diag::Source;

const TWO_BLOCKS: Launch = Launch {
    blocks: 2,
    threads_per_block: 1,
    warp_size: 32,
};

/// The liveness finding of `text` under weak fairness and `model`, with
/// memory fairness on or off.
fn liveness(text: &str, model: MemoryModel, memory_fairness: bool) -> Option<ViolationKind> {
    let source = Source::new("t.gsync", text);
    let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    let prog =
        lower(&file, &source, TWO_BLOCKS, &[]).unwrap_or_else(|d| panic!("lower: {}", d.message));
    let options = ModelOptions {
        memory_model: model,
        ..ModelOptions::default()
    };
    let m = Model::new(&prog, options);
    let opts = Options {
        keep_edges: true,
        ..Options::default()
    };
    let e = explore(&m, &opts);
    assert!(
        matches!(e.outcome(), Outcome::Complete),
        "{:?}",
        e.outcome()
    );
    let graph = LabeledGraph::build(&m, &e);
    liveness::find_with(&m, &e, &graph, Scheduler::Weak, memory_fairness).map(|f| f.kind)
}

/// Block 1 waits for block 0's one store.
const LATE_FLAG: &str = "
global volatile i32 flag = 0;
harness master {
    if (blockIdx == 0) { flag = 1; } else { while (flag == 0) { } }
}";

/// Block 0 raises and lowers the flag forever; block 1 may look only while
/// it is down, under any memory model.
const TOGGLED_FLAG: &str = "
global volatile i32 flag = 0;
harness master {
    if (blockIdx == 0) {
        while (true) { flag = 1; flag = 0; progress; }
    } else {
        while (flag == 0) { }
    }
}";

#[test]
fn a_store_nobody_overwrites_becomes_visible_to_a_spinning_reader() {
    // Without memory fairness block 1 may read the initial 0 forever after
    // block 0 finished: a livelock no GPU has.
    assert_eq!(
        liveness(LATE_FLAG, MemoryModel::Ptx, false),
        Some(ViolationKind::Livelock)
    );
    assert_eq!(liveness(LATE_FLAG, MemoryModel::Ptx, true), None);
    assert_eq!(liveness(LATE_FLAG, MemoryModel::Sc, true), None);
}

/// Block 1 writes `x = 2` until block 0 has seen a 2.
const REPEATED_STORE: &str = "
global volatile i32 x = 0;
global volatile i32 seen = 0;
harness master {
    if (blockIdx == 0) {
        x = 1;
        while (x != 2) { }
        seen = 1;
    } else {
        while (seen == 0) { x = 2; }
    }
}";

#[test]
fn stores_do_not_keep_landing_before_a_write_forever() {
    // Without memory fairness every `x = 2` may land before block 0's
    // `x = 1` in coherence order, so block 0 reads 1 forever.
    assert_eq!(
        liveness(REPEATED_STORE, MemoryModel::Ptx, false),
        Some(ViolationKind::Livelock)
    );
    assert_eq!(liveness(REPEATED_STORE, MemoryModel::Ptx, true), None);
    assert_eq!(liveness(REPEATED_STORE, MemoryModel::Sc, true), None);
}

#[test]
fn a_reader_that_keeps_missing_new_writes_still_starves() {
    // Every read of block 1 may read the newest write (0): memory fairness
    // allows it, so the starvation SC has is still found under ptx.
    for model in [MemoryModel::Sc, MemoryModel::Ptx] {
        assert_eq!(
            liveness(TOGGLED_FLAG, model, true),
            Some(ViolationKind::Starvation),
            "{model:?}"
        );
    }
}
