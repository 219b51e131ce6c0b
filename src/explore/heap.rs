//! The live heap of the process, counted by a global allocator, so that
//! `--max-memory` bounds everything a check allocates: the explorer's store
//! and also its batch buffers, the model's tables and the analyses after
//! the search (the explorer's own accounting sees only the first).
//!
//! The binary installs [`CountingAlloc`]; a program that does not gets
//! `None` from [`live_bytes`], and the limits fall back to the explorer's
//! own accounting.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes it holds for the program.
pub struct CountingAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

#[inline]
fn grew(bytes: usize) {
    // A load first: after the first allocation the flag's cache line is
    // only read, never written again.
    if !INSTALLED.load(Relaxed) {
        INSTALLED.store(true, Relaxed);
    }
    LIVE.fetch_add(bytes, Relaxed);
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
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

/// Bytes the program holds on the heap now, if [`CountingAlloc`] is the
/// global allocator.
#[inline]
pub fn live_bytes() -> Option<u64> {
    INSTALLED.load(Relaxed).then(|| LIVE.load(Relaxed) as u64)
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
    fn unit_tests_run_without_the_counting_allocator() {
        // The library's tests use the system allocator: the limits fall
        // back to the explorer's own accounting.
        assert_eq!(live_bytes(), None);
        assert_eq!(in_use(), None);
    }
}
