//! The atomics of the concurrent parts (`table`). The loom model test
//! (`tests/loom_table.rs`) compiles `table.rs` against its own `sync`
//! module with loom's atomics instead.

pub(crate) use std::sync::atomic::{AtomicU64, Ordering};
