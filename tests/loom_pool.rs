//! Loom model checks of the explorer's worker pool
//! (`src/explore/pool.rs`): every interleaving of the caller and a helper
//! announcing, joining, running and closing jobs, and parking in between,
//! under the C++11 memory model. The items are loom cells, so loom also
//! checks that what the helper wrote happens before the caller reads it.
//!
//! As for `loom_table.rs`, the pool's file is compiled here on its own
//! against loom's primitives (it takes them from `super::sync`).

// The explorer uses more of the pool than these models do.
#![allow(dead_code)]

mod sync {
    pub use loom::hint::spin_loop;
    pub use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
    pub use loom::sync::{Arc, Condvar, Mutex};
    pub use loom::thread::JoinHandle;

    /// One spin, then park: both paths to a job in few steps.
    pub const SPIN_ROUNDS: u32 = 1;

    pub fn spawn(f: impl FnOnce() + Send + 'static) -> Option<JoinHandle<()>> {
        Some(loom::thread::spawn(f))
    }
}

#[path = "../src/explore/pool.rs"]
mod pool;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use pool::Pool;

/// Items shared out by a counter, as `Workers::each` does.
struct Items {
    cells: Vec<UnsafeCell<u32>>,
    next: AtomicUsize,
}

// SAFETY: each cell is written by the one worker that took its index
// (loom checks the accesses).
unsafe impl Sync for Items {}

impl Items {
    fn new(n: usize) -> Items {
        Items {
            cells: (0..n).map(|_| UnsafeCell::new(0)).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// Takes items until none is left, adding `round` to each.
    fn work(&self, round: u32) {
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(cell) = self.cells.get(k) else {
                return;
            };
            cell.with_mut(|x| unsafe { *x += round });
        }
    }

    fn reset(&self) {
        self.next.store(0, Ordering::Relaxed);
    }

    fn values(&self) -> Vec<u32> {
        self.cells
            .iter()
            .map(|c| c.with(|x| unsafe { *x }))
            .collect()
    }
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(3);
    b.check(f);
}

#[test]
fn one_job_is_done_once_and_seen_by_the_caller() {
    model(|| {
        let pool = Pool::new(2);
        let items = Items::new(2);
        pool.run(&|| items.work(1));
        assert_eq!(items.values(), [1, 1]);
        drop(pool);
    });
}

#[test]
fn two_jobs_in_a_row_each_run_once() {
    model(|| {
        let pool = Pool::new(2);
        let items = Items::new(2);
        pool.run(&|| items.work(1));
        items.reset();
        pool.run(&|| items.work(2));
        assert_eq!(items.values(), [3, 3]);
        drop(pool);
    });
}

#[test]
fn a_pool_without_jobs_stops() {
    model(|| {
        drop(Pool::new(2));
    });
}

#[test]
fn a_parked_helper_is_woken_for_the_next_job() {
    model(|| {
        let pool = Pool::new(2);
        // The second job cannot end before the helper took part in it.
        let taken = AtomicUsize::new(0);
        let both = || {
            if taken.fetch_add(1, Ordering::Relaxed) < 2 {
                // (A read-modify-write reads the latest count.)
                while taken.fetch_add(0, Ordering::Relaxed) < 2 {
                    loom::hint::spin_loop();
                }
            }
        };
        pool.run(&|| {});
        pool.run(&both);
        drop(pool);
    });
}
