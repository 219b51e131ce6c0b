//! The spec front end: lexer, parser, header, AST and located diagnostics.

pub mod ast;
pub mod diag;
