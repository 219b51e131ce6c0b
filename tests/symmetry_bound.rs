//! How much block symmetry can reduce, measured exactly: every state of the
//! full graph is mapped to its representative, the distinct representatives
//! are the orbits, and the reduction factor is the mean orbit size, at most
//! the number of renamings of the interchangeable blocks (5! = 120 when
//! block 0 is the writer of a semaphore and blocks 1..5 its readers).
//! States in which some readers are in the same local state have smaller
//! orbits, which is why the factor stays below 120 (see
//! `book/src/results.md`, "How far symmetry can go").

use gsync_check::api::Semantics;
use gsync_check::api::{self, CheckConfig};
use gsync_check::explore::{explore, Options, TransitionSystem};
use gsync_check::ir::Launch;
use gsync_check::model::MemoryModel;
use gsync_check::reduce::{Reduced, Reductions};
use rustc_hash::FxHashMap;

/// (full states, orbits, states in orbits of the largest size, largest orbit).
fn orbits(name: &str, blocks: u32) -> (usize, usize, usize, usize) {
    let spec = api::SpecSource::builtin(name).unwrap();
    // Measured under sc: the orbits of the interleavings alone.
    let config = CheckConfig {
        launch: Launch {
            blocks,
            ..Launch::default()
        },
        semantics: Semantics {
            memory_model: Some(MemoryModel::Sc),
            ..Semantics::default()
        },
        ..CheckConfig::default()
    };
    let prepared = api::prepare(&spec, &config).unwrap();
    let full = api::model_of(&prepared);
    let symmetry = Reductions {
        symmetry: true,
        ..Reductions::NONE
    };
    let (sym, why) = Reduced::new(&full, symmetry);
    assert!(sym.symmetry().is_some(), "{why:?}");
    let opts = Options {
        max_states: Some(5_000_000),
        ..Options::default()
    };
    let all = explore(&full, &opts);
    assert!(all.is_complete(), "{name}");
    let mut size: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    for id in 0..all.num_states() as u32 {
        let mut s = all.state(id).to_vec();
        sym.canonicalize(&mut s);
        *size.entry(s).or_default() += 1;
    }
    let largest = size.values().copied().max().unwrap();
    let in_largest = size.values().filter(|n| **n == largest).sum();
    // The symmetric search stores exactly one state per orbit.
    let reduced = explore(&sym, &opts);
    assert_eq!(
        reduced.num_states(),
        size.len(),
        "{name}: canonical form not exact"
    );
    (all.num_states(), size.len(), in_largest, largest)
}

#[test]
fn semaphore_reduction_is_the_mean_orbit_size_below_five_factorial() {
    // priority_semaphore (1.6 M states, 15 s) gives 57.6 the same way; see the book.
    let (states, orbits, in_largest, largest) = orbits("heterosync_semaphore", 6);
    // The figures in book/src/checker-performance.md.
    assert_eq!((states, orbits, largest), (80_919, 2_049, 120));
    let factor = states as f64 / orbits as f64;
    println!(
        "heterosync_semaphore --blocks 6: {states} states, {orbits} orbits, factor {factor:.1}, \
         largest orbit {largest} holding {in_largest} states"
    );
    // The bound: no orbit exceeds the 5! renamings of the readers...
    assert!(largest <= 120);
    // ...and the factor is their mean, strictly below it here.
    assert!(factor < largest as f64);
}
