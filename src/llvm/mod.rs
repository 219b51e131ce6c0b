//! Reading CUDA C++ through clang-19's LLVM IR (issue #39, route A of the
//! spike): `toolchain` runs clang and opt on a `.cu` file with CUDA's
//! headers from the PyPI wheels, `lexer` and `parse` read the textual IR
//! they emit into the owned data model of `ir`, `debug` maps an
//! instruction back to a line of the user's file through the `inlinedAt`
//! chain, `sync` lists a kernel's synchronisation operations, and `lower`
//! turns one kernel into the checker's program for a launch (`gsync-check
//! check FILE.cu --kernel NAME`, through `api::prepare_kernel`). No LLVM
//! library is linked.

pub mod debug;
pub mod ir;
pub mod lexer;
pub(crate) mod lower;
pub mod parse;
pub mod sync;
pub mod toolchain;

pub use ir::Module;
pub use lexer::ParseError;

/// Parses the textual LLVM IR `text` (a whole `.ll` file).
pub fn parse(text: &str) -> Result<Module, ParseError> {
    parse::parse_module(text)
}
