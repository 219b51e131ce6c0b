//! Tools built on `api` that search over variants of a spec's
//! synchronization: `relax` finds the weakest orders, narrowest scopes
//! and fewest fences under which every `//! expect` line still holds;
//! `repair` the least strengthening that makes a violated check verify.
//!
//! Both work on the spec's text: `points` finds every atomic, `load`,
//! `store`, fence and `volatile` declaration with its order and scope
//! (`level` is their lattice), a variant is the original text with some
//! of them respelt (`points::apply`), and `expect` checks a variant
//! through `api` as `verify` does. `search` is the descent both share;
//! `report` is the result as data, `diff` prints it in the spec's lines.
//!
//! A harness that imports CUDA has points in its `.cu` files too
//! (`imports`, from the front end's parse): a variant is then the spec's
//! text and each file's, checked through an in-memory overlay, and
//! `output` writes the changed files beside the written harness.

pub mod diff;
mod expect;
mod imports;
mod level;
pub mod output;
mod points;
mod relax;
mod repair;
mod report;
mod scale;
mod search;
mod suggest;
mod walk;

pub use expect::Budget;
pub use level::Class;
pub use relax::{relax, RelaxOptions};
pub use repair::{repair, RepairOptions};
pub use report::{Change, Counts, CudaFile, RefusalReport, Status, Tuned};
pub use scale::ScaleCheck;
pub use suggest::suggest_fix;
