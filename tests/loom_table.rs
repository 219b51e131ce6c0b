//! Loom model checks of the explorer's concurrent table
//! (`src/explore/table.rs`): every interleaving of the worker threads'
//! atomic operations, under the C++11 memory model, for small batches.
//!
//! The table's file is compiled here on its own against loom's atomics
//! (it takes them from `super::sync`), so this target builds only that
//! file and loom, not the crate a second time; it runs with the normal
//! `cargo test --release`, in well under a second.

// The explorer uses more of the table than these models do.
#![allow(dead_code)]

mod sync {
    pub use loom::sync::atomic::{AtomicU64, Ordering};

    /// Loom's atomics are not plain memory: made one by one.
    pub fn zeroed_atomics(n: usize) -> Box<[AtomicU64]> {
        (0..n).map(|_| AtomicU64::new(0)).collect()
    }
}

#[path = "../src/explore/table.rs"]
mod table;

use loom::sync::Arc;
use loom::thread;
use table::{Claim, Table};

/// One hash for every value: all claims meet in one probe chain and must
/// be told apart by comparing values.
const HASH: u64 = 0xDEAD_BEEF_0000_0001;

/// Claims batch successor `index` (of value `values[index]`) with no
/// committed states.
fn claim(table: &Table, values: &[u32], index: u32) -> Claim {
    let v = values[index as usize];
    table.claim(HASH, index, |_| false, |i| values[i as usize] == v)
}

fn slot(c: Claim) -> usize {
    match c {
        Claim::New(pos) => pos,
        Claim::Old(id) => panic!("nothing is committed, got old state {id}"),
    }
}

/// Two threads claim successors 0..3 where 0 and 2 are one state and 1
/// another: whatever the interleaving, equal successors share a slot that
/// keeps their smallest index, and different ones get different slots.
#[test]
fn concurrent_claims_keep_the_first_discovery() {
    loom::model(|| {
        let values = [7u32, 9, 7];
        let table = Arc::new(Table::with_capacity(4));
        let t = {
            let table = table.clone();
            thread::spawn(move || {
                [
                    slot(claim(&table, &values, 2)),
                    slot(claim(&table, &values, 1)),
                ]
            })
        };
        let first = slot(claim(&table, &values, 0));
        let [third, second] = t.join().unwrap();
        assert_eq!(first, third, "equal states share one slot");
        assert_ne!(first, second, "different states do not");
        assert_eq!(table.winner(first), 0);
        assert_eq!(table.winner(second), 1);
    });
}

/// The later discovery claims first and the earlier one must lower the
/// index with `fetch_min`, racing with a third equal claim.
#[test]
fn the_smallest_index_wins_in_any_order() {
    loom::model(|| {
        let values = [5u32, 5, 5];
        let table = Arc::new(Table::with_capacity(4));
        let t = {
            let table = table.clone();
            thread::spawn(move || slot(claim(&table, &values, 2)))
        };
        let a = slot(claim(&table, &values, 1));
        let b = slot(claim(&table, &values, 0));
        let c = t.join().unwrap();
        assert!(a == b && b == c);
        assert_eq!(table.winner(a), 0);
    });
}

/// A successor equal to a committed state finds its id while another
/// thread claims a new state in the same probe chain; after the commit the
/// new state is found under its id too.
#[test]
fn committed_states_are_found_beside_new_claims() {
    loom::model(|| {
        let mut table = Table::with_capacity(4);
        // Committed state 0 has value 3.
        table.insert_new(HASH, 0);
        let values = [3u32, 4];
        let table = Arc::new(table);
        let same_old = |v: u32| move |id: u32| id == 0 && v == 3;
        let t = {
            let table = table.clone();
            thread::spawn(move || {
                let v = values[1];
                table.claim(HASH, 1, same_old(v), |i| values[i as usize] == v)
            })
        };
        let v = values[0];
        let old = table.claim(HASH, 0, same_old(v), |i| values[i as usize] == v);
        let new = t.join().unwrap();
        assert_eq!(old, Claim::Old(0));
        let pos = slot(new);
        assert_eq!(table.winner(pos), 1);
        table.commit(pos, 1);
        assert_eq!(table.committed(pos), Some(1));
        assert_eq!(table.find(HASH, |id| id == 1), Some(1));
        assert_eq!(table.find(HASH, |id| id == 0), Some(0));
    });
}

/// Two threads commit different slots at once; both entries are found.
#[test]
fn concurrent_commits_are_all_visible() {
    loom::model(|| {
        let values = [1u32, 2];
        let table = Table::with_capacity(4);
        let p0 = slot(claim(&table, &values, 0));
        let p1 = slot(claim(&table, &values, 1));
        let table = Arc::new(table);
        let t = {
            let table = table.clone();
            thread::spawn(move || table.commit(p1, 11))
        };
        table.commit(p0, 10);
        t.join().unwrap();
        assert_eq!(table.find(HASH, |id| id == 10), Some(10));
        assert_eq!(table.find(HASH, |id| id == 11), Some(11));
        assert_eq!(table.find(HASH, |id| id == 12), None);
    });
}
