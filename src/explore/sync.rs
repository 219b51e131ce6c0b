//! The atomics and threads of the concurrent parts (`table`, `pool`). The
//! loom model tests (`tests/loom_table.rs`, `tests/loom_pool.rs`) compile
//! those files against their own `sync` modules with loom's instead.

pub(crate) use std::hint::spin_loop;
pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
pub(crate) use std::sync::{Arc, Condvar, Mutex};
pub(crate) use std::thread::{yield_now, JoinHandle};

/// `spin_loop`s a waiting pool thread makes first (about 50 us), then
/// `yield_now`s (about a millisecond in all, longer than the sequential
/// gaps between a search's parallel phases) before a helper parks.
pub(crate) const SPIN_ROUNDS: u32 = 2_000;
pub(crate) const YIELD_ROUNDS: u32 = 1_000;

/// `n` atomics holding 0, from the allocator's zeroed memory: a large
/// block is fresh pages, zero without a pass over them (`table`).
pub(crate) fn zeroed_atomics(n: usize) -> Box<[AtomicU64]> {
    if n == 0 {
        return Box::new([]);
    }
    let layout = std::alloc::Layout::array::<AtomicU64>(n).expect("a table under isize::MAX bytes");
    // SAFETY: `layout` has a non-zero size; all-zero bytes are a valid
    // `AtomicU64` (holding 0), so the `n` zeroed items are initialised,
    // and the box frees them with the same layout (`[AtomicU64]` of `n`).
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<AtomicU64>();
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
    }
}

/// Starts a pool helper thread, if the system lets it; the thread hands
/// its share of the heap count back as it ends ([`super::heap::settle`]).
pub(crate) fn spawn(f: impl FnOnce() + Send + 'static) -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("gsync-explore".into())
        .spawn(move || {
            f();
            super::heap::settle();
        })
        .ok()
}
