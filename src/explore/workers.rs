//! Parallel loops over a phase's items (chunks, jobs) on the explorer's
//! [`Pool`], or on the caller's thread alone; or, to measure that choice,
//! on a rayon pool ([`WorkerPool::Rayon`], `benches/pool.rs`).

use super::pool::Pool;
use super::stats::Wait;
use super::waits::{PhaseClock, Waits};
#[cfg(feature = "parallel")]
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which threads run the explorer's parallel phases. The result of a
/// search does not depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkerPool {
    /// The explorer's own pool: helpers spin briefly between the short
    /// phases of a batch and the caller takes part (explore/pool.rs).
    #[default]
    Own,
    /// A rayon pool of as many threads (work stealing, parked between
    /// phases): kept to measure against (`benches/pool.rs`).
    Rayon,
}

/// Runs jobs on the explorer's worker threads, or on the caller's thread.
pub(crate) struct Workers {
    backend: Backend,
    /// How long the explorer's pool waited in the jobs since last asked.
    waits: Waits,
}

enum Backend {
    /// The caller's thread alone.
    Caller,
    Own(Pool),
    #[cfg(feature = "parallel")]
    Rayon(rayon::ThreadPool),
}

/// The items of one [`Workers::each`], handed out one index at a time.
struct Items<T> {
    first: *mut T,
    len: usize,
    next: AtomicUsize,
}

// SAFETY: every index is handed out once (`take`), so the workers get
// disjoint `&mut T`, which `T: Send` allows on any thread.
unsafe impl<T: Send> Sync for Items<T> {}

impl<T> Items<T> {
    fn of(items: &mut [T]) -> Self {
        Items {
            first: items.as_mut_ptr(),
            len: items.len(),
            next: AtomicUsize::new(0),
        }
    }

    /// The next item not yet handed out, with its index.
    #[allow(clippy::mut_from_ref)] // each item once: see `Sync`
    fn take(&self) -> Option<(usize, &mut T)> {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `k` is in bounds and handed out once (see `Sync`).
        (k < self.len).then(|| (k, unsafe { &mut *self.first.add(k) }))
    }
}

impl Workers {
    /// `threads` workers (1: the caller's thread) of the explorer's pool.
    #[cfg(test)]
    pub(crate) fn new(threads: usize) -> Self {
        Self::of(WorkerPool::Own, threads)
    }

    /// The caller's thread alone.
    pub(crate) fn caller() -> Self {
        Workers {
            backend: Backend::Caller,
            waits: Waits::default(),
        }
    }

    /// `threads` workers of `pool` (1: the caller's thread).
    pub(super) fn of(pool: WorkerPool, threads: usize) -> Self {
        let backend = match pool {
            _ if threads <= 1 => Backend::Caller,
            WorkerPool::Own => match Pool::new(threads) {
                p if p.has_helpers() => Backend::Own(p),
                _ => Backend::Caller,
            },
            #[cfg(feature = "parallel")]
            WorkerPool::Rayon => match rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .exit_handler(|_| super::heap::settle())
                .build()
            {
                Ok(p) => Backend::Rayon(p),
                Err(_) => Backend::Caller,
            },
            // Built without rayon: the caller's thread.
            #[cfg(not(feature = "parallel"))]
            WorkerPool::Rayon => Backend::Caller,
        };
        Workers {
            backend,
            waits: Waits::default(),
        }
    }

    /// Worker seconds the explorer's pool waited inside the jobs since the
    /// last call (`waits.rs`; none on the caller's thread alone or rayon).
    pub(super) fn take_waits(&self) -> Wait {
        self.waits.take()
    }

    /// How many threads run the jobs (the caller included).
    pub(super) fn count(&self) -> usize {
        match &self.backend {
            Backend::Caller => 1,
            Backend::Own(p) => p.threads(),
            #[cfg(feature = "parallel")]
            Backend::Rayon(p) => p.current_num_threads(),
        }
    }

    /// Calls `job(k, &mut items[k])` for every item, in parallel when there
    /// are workers and more than one item; returns when all are done.
    /// Workers take the items in order, one at a time.
    pub(super) fn each<T: Send>(&self, items: &mut [T], job: impl Fn(usize, &mut T) + Sync) {
        match &self.backend {
            #[cfg(feature = "parallel")]
            Backend::Rayon(pool) if items.len() > 1 => pool.install(|| {
                items
                    .par_iter_mut()
                    .enumerate()
                    .with_max_len(1)
                    .for_each(|(k, t)| job(k, t))
            }),
            Backend::Own(pool) if items.len() > 1 => {
                let items = Items::of(items);
                let clock = PhaseClock::start(pool.threads(), &self.waits);
                pool.run(&|| {
                    let joined = clock.now();
                    while let Some((k, t)) = items.take() {
                        job(k, t);
                    }
                    clock.left(joined);
                });
                clock.end();
            }
            _ => items.iter_mut().enumerate().for_each(|(k, t)| job(k, t)),
        }
    }

    /// [`each`](Self::each) of `items`, with `first_job(0..first)` handed
    /// out before them in the same phase: work that does not depend on
    /// `items` fills the workers' time between them rather than taking a
    /// phase of its own. Returns when all are done.
    pub(super) fn each_after<T: Send>(
        &self,
        (first, first_job): (usize, impl Fn(usize) + Sync),
        items: &mut [T],
        job: impl Fn(usize, &mut T) + Sync,
    ) {
        match &self.backend {
            Backend::Own(pool) if first + items.len() > 1 => {
                let (next, items) = (AtomicUsize::new(0), Items::of(items));
                let clock = PhaseClock::start(pool.threads(), &self.waits);
                pool.run(&|| {
                    let joined = clock.now();
                    loop {
                        match next.fetch_add(1, Ordering::Relaxed) {
                            k if k < first => first_job(k),
                            _ => break,
                        }
                    }
                    while let Some((k, t)) = items.take() {
                        job(k, t);
                    }
                    clock.left(joined);
                });
                clock.end();
            }
            _ => {
                self.each(&mut vec![(); first], |k, _| first_job(k));
                self.each(items, job);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Workers;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn each_item_once_and_done_on_return() {
        for threads in [1, 2, 3] {
            let workers = Workers::new(threads);
            let mut items = vec![0u64; 100];
            for round in 1..=300u64 {
                if round % 100 == 0 {
                    // Long enough for the helpers to park.
                    std::thread::sleep(Duration::from_millis(20));
                }
                let len = (round % 7) as usize + 1;
                workers.each(&mut items[..len], |k, x| *x += k as u64 + round);
                // Every item written exactly once per round, and visible here.
                for (k, x) in items[..len].iter_mut().enumerate() {
                    let want: u64 = (1..=round)
                        .filter(|r| (*r % 7) as usize + 1 > k)
                        .map(|r| k as u64 + r)
                        .sum();
                    assert_eq!(*x, want, "{threads} threads, round {round}, item {k}");
                }
            }
        }
    }

    #[test]
    fn each_after_runs_the_first_jobs_and_the_items_once() {
        for threads in [1, 2, 3] {
            let workers = Workers::new(threads);
            for (first, len) in [(0, 5), (3, 0), (1, 1), (40, 17)] {
                let ran: Vec<AtomicUsize> = (0..first).map(|_| AtomicUsize::new(0)).collect();
                let mut items = vec![0u32; len];
                workers.each_after(
                    (first, |k| _ = ran[k].fetch_add(1, Ordering::Relaxed)),
                    &mut items,
                    |k, x| *x += k as u32 + 1,
                );
                assert!(ran.iter().all(|r| r.load(Ordering::Relaxed) == 1));
                assert!(items.iter().enumerate().all(|(k, &x)| x == k as u32 + 1));
            }
        }
    }

    #[test]
    fn helpers_take_part() {
        let workers = Workers::new(2);
        let threads = std::sync::Mutex::new(std::collections::HashSet::new());
        let mut items = vec![(); 64];
        for _ in 0..200 {
            workers.each(&mut items, |_, _| {
                threads.lock().unwrap().insert(std::thread::current().id());
                std::thread::sleep(Duration::from_micros(50));
            });
            if threads.lock().unwrap().len() == 2 {
                return;
            }
        }
        panic!("the helper never ran an item");
    }

    #[test]
    fn a_panic_in_a_job_reaches_the_caller_and_the_pool_goes_on() {
        let workers = Workers::new(2);
        let done = AtomicUsize::new(0);
        let mut items = vec![0u32; 32];
        for bad in [0, 31] {
            let r = catch_unwind(AssertUnwindSafe(|| {
                workers.each(&mut items, |k, _| {
                    std::thread::sleep(Duration::from_micros(100));
                    assert_ne!(k, bad, "item {bad} fails");
                    done.fetch_add(1, Ordering::Relaxed);
                })
            }));
            assert!(r.is_err(), "item {bad}'s panic was lost");
        }
        workers.each(&mut items, |k, x| *x = k as u32);
        assert!(items.iter().enumerate().all(|(k, &x)| x == k as u32));
        assert!(done.load(Ordering::Relaxed) <= 62);
    }
}
