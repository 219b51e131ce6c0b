//! The atomics and threads of the concurrent parts (`table`, `pool`). The
//! loom model tests (`tests/loom_table.rs`, `tests/loom_pool.rs`) compile
//! those files against their own `sync` modules with loom's instead.

pub(crate) use std::hint::spin_loop;
pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
pub(crate) use std::sync::{Arc, Condvar, Mutex};
pub(crate) use std::thread::JoinHandle;

/// Loads an idle pool helper makes (one `spin_loop` apart) before it
/// parks: about a millisecond, longer than the sequential gaps between a
/// search's parallel phases.
pub(crate) const SPIN_ROUNDS: u32 = 50_000;

/// Starts a pool helper thread, if the system lets it.
pub(crate) fn spawn(f: impl FnOnce() + Send + 'static) -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("gsync-explore".into())
        .spawn(f)
        .ok()
}
