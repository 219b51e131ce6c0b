//! The spec front end: lexer, parser, header, AST and located diagnostics.

pub mod ast;
pub mod diag;
pub(crate) mod header;
pub mod input;
pub(crate) mod lexer;
pub(crate) mod parser;

/// Parses a whole `.gsync` spec (header and items). Never panics; the first
/// problem found is returned as a located [`diag::Diagnostic`].
pub fn parse(source: &diag::Source) -> diag::SpecResult<ast::SpecFile> {
    parser::parse_file(&source.text)
}
