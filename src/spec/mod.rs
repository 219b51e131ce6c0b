//! The spec front end: lexer, parser, header, AST, and the lowering of
//! the AST into the IR for one launch (`lower/`).

pub mod ast;
pub(crate) mod header;

pub use header::VIOLATION_KINDS;
pub mod input;
pub(crate) mod lexer;
pub(crate) mod lower;
pub(crate) mod parser;

pub use lower::lower;
#[cfg(feature = "cuda-frontend")]
pub(crate) use lower::RESERVED;

/// Parses a whole `.gsync` spec (header and items). Never panics; the first
/// problem found is returned as a located [`crate::diag::Diagnostic`].
pub fn parse(source: &crate::diag::Source) -> crate::diag::SpecResult<ast::SpecFile> {
    parser::parse_file(&source.text)
}

/// The `//!` header of a CUDA file: its `//!` lines before the first line
/// of code, read as a spec's header is (a kernel's `.cu` states its
/// expectations and include folders there). A file without one has an
/// empty header.
pub fn parse_cuda_header(source: &crate::diag::Source) -> crate::diag::SpecResult<ast::Header> {
    header::parse_header(&header::leading_lines(&source.text))
}
