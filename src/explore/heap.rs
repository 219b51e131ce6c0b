//! The live heap of the process, counted by a global allocator, so that
//! `--max-memory` bounds everything a check allocates: the explorer's store
//! and also its batch buffers, the model's tables and the analyses after
//! the search (the explorer's own accounting sees only the first).
//!
//! The binary installs [`CountingAlloc`]; a program that does not gets
//! `None` from [`live_bytes`], and the limits fall back to the explorer's
//! own accounting.
//!
//! Each thread counts its own allocations and frees in a thread-local
//! delta and adds it to the global count only once it passes [`FLUSH`]
//! either way: one atomic line written by every allocation of every worker
//! was a contended cache line at 16 threads. So the global count may be
//! off by up to [`FLUSH`] per thread alive (8 MiB at 32 threads), which a
//! memory limit of hundreds of MiB does not notice; the explorer's pool
//! threads hand their delta back as they end ([`settle`]), so threads that
//! come and go leave no drift behind.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

/// The system allocator, counting the bytes it holds for the program.
pub struct CountingAlloc;

/// The bytes counted so far: the flushed deltas of every thread. A thread
/// may free what another allocated, so a delta, and for a moment the sum,
/// may be negative.
static LIVE: AtomicIsize = AtomicIsize::new(0);
/// The most [`LIVE`] held since [`take_peak`] last looked.
static PEAK: AtomicIsize = AtomicIsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// How far a thread's own count may drift before it is added to [`LIVE`].
pub(crate) const FLUSH: isize = 256 * 1024;

thread_local! {
    // Const-initialised and without a destructor: no lazy initialisation
    // and no registration at thread exit, which an allocator cannot do.
    static DELTA: Cell<isize> = const { Cell::new(0) };
}

#[inline]
fn count(bytes: isize) {
    let flushed = DELTA.try_with(|d| {
        let now = d.get() + bytes;
        if now.unsigned_abs() < FLUSH.unsigned_abs() {
            d.set(now);
            0
        } else {
            d.set(0);
            now
        }
    });
    // A thread whose locals are gone counts straight into the total.
    let flushed = flushed.unwrap_or(bytes);
    if flushed != 0 {
        let now = LIVE.fetch_add(flushed, Relaxed) + flushed;
        PEAK.fetch_max(now, Relaxed);
    }
}

#[inline]
fn grew(bytes: usize) {
    // A load first: after the first allocation the flag's cache line is
    // only read, never written again.
    if !INSTALLED.load(Relaxed) {
        INSTALLED.store(true, Relaxed);
    }
    count(bytes as isize);
}

#[inline]
fn shrank(bytes: usize) {
    count(-(bytes as isize));
}

/// Adds this thread's uncounted delta to the total: called by a thread
/// before it ends (the explorer's pool helpers do), so that its last
/// allocations and frees are not lost with it.
pub(crate) fn settle() {
    let left = DELTA.try_with(|d| d.replace(0)).unwrap_or(0);
    if left != 0 {
        LIVE.fetch_add(left, Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged and returns its result; the counters have no effect on memory.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Blocks of at least this many bytes get mappings of their own
/// ([`map_large_blocks`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MAPPED_BLOCK: libc::c_int = 1 << 20;

/// Has the C allocator (glibc's) give every block of [`MAPPED_BLOCK`] bytes
/// or more a mapping of its own, so that growing a large vector
/// (`realloc`) moves page tables (`mremap`) instead of copying its bytes
/// and faulting in a new block. glibc's own threshold starts at 128 KiB
/// and rises as mapped blocks are freed, up to 32 MiB; past that rise,
/// the explorer's vectors of up to 32 MiB (parents, actions, the code
/// locations, edge list ends) grew by copying, on its one thread between
/// the parallel phases, and the pages past the old contents are now first
/// written by the workers that fill them. Only speed: no effect on what
/// the program computes. Call it before the program allocates much (a
/// fixed threshold also stops glibc's rise). A no-op on other C libraries.
pub fn map_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tuning parameter of malloc; it is safe
    // to call at any time, and a refusal (0) leaves glibc's default.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED_BLOCK);
    }
}

/// Bytes the program holds on the heap now, if [`CountingAlloc`] is the
/// global allocator, within [`FLUSH`] per thread (see the module's comment).
#[inline]
pub fn live_bytes() -> Option<u64> {
    INSTALLED
        .load(Relaxed)
        .then(|| LIVE.load(Relaxed).max(0) as u64)
}

/// The most bytes the program held on the heap since the last call (as
/// [`live_bytes`] counts them), if [`CountingAlloc`] is installed: where
/// a phase's memory peaks, for `GSYNC_DIST_MEMORY`.
pub fn take_peak() -> Option<u64> {
    let now = LIVE.load(Relaxed);
    (INSTALLED.load(Relaxed)).then(|| PEAK.swap(now, Relaxed).max(now).max(0) as u64)
}

/// What the process holds as the memory limit counts it: the live heap
/// plus what it held outside the heap when first asked (code, static data,
/// the main stack), so that a limit bounds the resident set, not the heap
/// alone. `None` without [`CountingAlloc`].
pub fn in_use() -> Option<u64> {
    let live = live_bytes()?;
    Some(live + outside_heap())
}

/// Resident bytes not on the heap, measured once: the resident set minus
/// the live heap at the first call (0 where `/proc` is unavailable).
fn outside_heap() -> u64 {
    static OUTSIDE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *OUTSIDE.get_or_init(|| {
        let live = live_bytes().unwrap_or(0);
        resident_bytes().map_or(0, |rss| rss.saturating_sub(live))
    })
}

/// The resident set size now, from `/proc/self/statm` (Linux).
#[cfg(unix)]
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096))
}

/// No resident set to read off Unix (or in a browser).
#[cfg(not(unix))]
fn resident_bytes() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_set_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(resident_bytes().unwrap() > 0);
        }
    }

    #[test]
    fn a_thread_adds_its_count_past_the_threshold_and_as_it_ends() {
        // The library's tests do not install the allocator, so only this
        // test moves `LIVE`; it runs on a thread of its own.
        std::thread::spawn(|| {
            let at = |live: isize| assert_eq!(LIVE.load(Relaxed), live);
            let start = LIVE.load(Relaxed);
            count(FLUSH - 1);
            at(start);
            count(1);
            at(start + FLUSH);
            count(-FLUSH + 1);
            at(start + FLUSH);
            count(-1);
            at(start);
            count(-7);
            at(start);
            settle();
            at(start - 7);
            settle();
            at(start - 7);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn unit_tests_run_without_the_counting_allocator() {
        // The library's tests use the system allocator: the limits fall
        // back to the explorer's own accounting.
        assert_eq!(live_bytes(), None);
        assert_eq!(in_use(), None);
    }
}
