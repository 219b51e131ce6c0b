//! The library API: load a spec (built-in or from a file), check it under a
//! configuration, and get a [`Report`]. The CLI is a thin layer over this.

#[cfg(feature = "args")]
pub mod args;
mod config;
mod error;
mod expect;
#[cfg(feature = "cuda-frontend")]
mod kernel;
mod prepare;
mod replay;
mod run;
mod source;

pub use crate::check::Hunt;
pub use config::*;
pub use error::Error;
pub use expect::expectation_met;
#[cfg(feature = "cuda-frontend")]
pub use kernel::*;
pub use prepare::*;
pub use replay::*;
pub use run::*;
pub use source::*;
