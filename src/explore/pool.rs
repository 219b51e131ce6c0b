//! The explorer's worker threads: a caller and `threads - 1` helpers that
//! stay alive for the whole search and run its parallel phases.
//!
//! A search runs five short parallel phases per batch (expand, two claim
//! passes, commit, record) with a little sequential work between them, a
//! few milliseconds a batch; a helper that went to sleep in such a gap
//! costs a futex wake-up (tens of microseconds in a virtual machine) at
//! every phase, and a work-stealing split of a handful of chunks leaves a
//! thread idle at the end. So here an idle helper spins, then yields its
//! core (to a thread that has work, should the machine have more threads
//! than free cores), for about a millisecond in all ([`Backoff`]) before it
//! parks; the caller takes part in every job, and the items of a job are
//! handed out in order by one counter.
//!
//! A job is announced in one atomic word, `state`:
//!
//! ```text
//! [ epoch (bits 33..64) | open (bit 32) | helpers inside (bits 0..32) ]
//! ```
//!
//! The caller stores the job, then a new epoch with `open` set; a helper
//! *joins* by a compare-and-swap that adds one helper to an open state of
//! an epoch it has not run, reads the job, runs it and leaves (`- 1`). The
//! caller, once it finds no item left, clears `open` (nobody can join any
//! more) and waits until the helpers inside have left: then every item is
//! done and the job (on the caller's stack) is no longer referenced.
//! Dropping the pool sets `stopping`, which ends the helpers whether they
//! spin or sleep (no wait for a spin to run out).
//!
//! Self-contained (it only uses `super::sync`) so that the loom model test
//! (`tests/loom_pool.rs`) compiles this file against loom's primitives.

use super::sync::{
    spawn, spin_loop, yield_now, Arc, AtomicBool, AtomicPtr, AtomicU64, Condvar, JoinHandle, Mutex,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
    SPIN_ROUNDS, YIELD_ROUNDS,
};

/// Helpers inside the current job.
const INSIDE: u64 = (1 << 32) - 1;
/// Helpers may join the current job.
const OPEN: u64 = 1 << 32;
/// One epoch (one job).
const EPOCH: u64 = 1 << 33;

/// A job as the helpers see it: run it until it finds nothing left to do.
type Job<'a> = &'a (dyn Fn() + Sync);

/// A panic payload, carried from a helper to the caller.
type Panic = Box<dyn std::any::Any + Send>;

struct Shared {
    state: AtomicU64,
    /// Points at the current job (a [`Job`] on the caller's stack).
    job: AtomicPtr<()>,
    /// The pool is dropped: helpers return (checked while spinning, and
    /// under `parking` before they park).
    stopping: AtomicBool,
    /// Helpers parked on `wake`.
    parking: Mutex<usize>,
    wake: Condvar,
    /// The first panic of a helper in the current job.
    panic: Mutex<Option<Panic>>,
}

/// The helpers of one search; the caller is the first worker.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A pool of `threads` workers: the caller and `threads - 1` helpers
    /// (fewer if the system refuses threads).
    pub(super) fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            state: AtomicU64::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            stopping: AtomicBool::new(false),
            parking: Mutex::new(0),
            wake: Condvar::new(),
            panic: Mutex::new(None),
        });
        let helpers = (1..threads)
            .map_while(|_| {
                let shared = shared.clone();
                spawn(move || help(&shared))
            })
            .collect();
        Pool { shared, helpers }
    }

    /// Whether there are helpers.
    pub(super) fn has_helpers(&self) -> bool {
        !self.helpers.is_empty()
    }

    /// The workers: the helpers and the caller.
    pub(super) fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Runs `work` on the caller and on every helper that joins in time,
    /// and returns once all have returned from it; a panic in any of them
    /// is resumed here. `work` must share its items out itself (each call
    /// takes items until none is left).
    pub(super) fn run(&self, work: &(dyn Fn() + Sync)) {
        let sh = &*self.shared;
        let job: Job = work;
        sh.job.store(&job as *const Job as *mut (), Relaxed);
        let closed = sh.state.load(Relaxed);
        debug_assert_eq!(closed & (OPEN | INSIDE), 0, "a job is running");
        sh.state.store(closed.wrapping_add(EPOCH) | OPEN, Release);
        // A helper parks under the lock after it found no job: taking the
        // lock here, either it is parked (and is woken) or it will find
        // this job. (Uncontended: a few atomics per job.)
        if *sh.parking.lock().unwrap() > 0 {
            sh.wake.notify_all();
        }
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        // No helper joins from now on; wait for those inside to leave.
        sh.state.fetch_and(!OPEN, AcqRel);
        let mut backoff = Backoff::default();
        while sh.state.load(Acquire) & INSIDE != 0 {
            if !backoff.wait() {
                yield_now();
            }
        }
        if let Err(p) = mine {
            std::panic::resume_unwind(p);
        }
        let theirs = sh.panic.lock().unwrap().take();
        if let Some(p) = theirs {
            std::panic::resume_unwind(p);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Release);
        // Under the lock: a helper about to park sees `stopping` or is woken.
        let parked = self.shared.parking.lock().unwrap();
        self.shared.wake.notify_all();
        drop(parked);
        for h in self.helpers.drain(..) {
            let _ = h.join();
        }
    }
}

/// Whether `state` announces a job that a helper which last ran epoch
/// `seen` may join.
fn joinable(state: u64, seen: u64) -> bool {
    state & OPEN != 0 && state / EPOCH != seen
}

/// A helper's loop: wait for a job, join it, run it, leave.
fn help(sh: &Shared) {
    let mut seen = 0;
    loop {
        let mut state = sh.state.load(Acquire);
        let mut backoff = Backoff::default();
        while !joinable(state, seen) {
            if sh.stopping.load(Acquire) {
                return;
            }
            if !backoff.wait() {
                park(sh, seen);
            }
            state = sh.state.load(Acquire);
        }
        if sh
            .state
            .compare_exchange(state, state + 1, Acquire, Relaxed)
            .is_err()
        {
            continue;
        }
        seen = state / EPOCH;
        // SAFETY: the caller stored the job before announcing this epoch
        // (the successful join acquired it), and it keeps the job alive
        // until this helper has left.
        let job = unsafe { *(sh.job.load(Relaxed) as *const Job) };
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)) {
            sh.panic.lock().unwrap().get_or_insert(p);
        }
        sh.state.fetch_sub(1, Release);
    }
}

/// Sleeps until a job a helper that last ran epoch `seen` may join is
/// announced or the pool is dropped.
fn park(sh: &Shared, seen: u64) {
    let mut parked = sh.parking.lock().unwrap();
    *parked += 1;
    while !sh.stopping.load(Acquire) && !joinable(sh.state.load(Acquire), seen) {
        parked = sh.wake.wait(parked).unwrap();
    }
    *parked -= 1;
}

/// Waiting for another thread without sleeping: [`SPIN_ROUNDS`]
/// `spin_loop`s, then [`YIELD_ROUNDS`] `yield_now`s, which hand the core to
/// a thread that has work when every core is taken (a spinning helper would
/// otherwise hold up the caller it waits for).
#[derive(Default)]
struct Backoff(u32);

impl Backoff {
    /// Waits a moment; `false` (without waiting) once the rounds are used up.
    fn wait(&mut self) -> bool {
        self.0 = self.0.saturating_add(1);
        if self.0 <= SPIN_ROUNDS {
            spin_loop();
        } else if self.0 <= SPIN_ROUNDS + YIELD_ROUNDS {
            yield_now();
        } else {
            return false;
        }
        true
    }
}
