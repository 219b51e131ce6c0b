//! Recursive-descent parser: tokens → [`SpecFile`]. It stops at the first
//! error; every error names what was expected and shows the token found.
//!
//! This file holds the token plumbing and the error helpers; the grammar
//! is in [`items`] (top-level declarations, the harness and its checks),
//! [`stmt`] (statements) and [`expr`] (expressions, by C precedence).

mod expr;
mod items;
mod stmt;
#[cfg(test)]
mod tests;

use super::ast::*;
use super::header::{check_liveness_names, parse_header};
use super::lexer::{lex, Kw, Sym, Tok, Token};
use crate::diag::{Diagnostic, SpecResult};

/// Deeper nesting than this is an error rather than a stack overflow.
const MAX_DEPTH: u32 = 100;

const TYPES_HINT: &str =
    "the types are bool, u8, u16, u32, u64, i8, i16, i32, i64 (`int` is i32, `unsigned` is u32)";

/// Lexes, reads the header and parses the items of a whole spec.
pub(crate) fn parse_file(text: &str) -> SpecResult<SpecFile> {
    let lexed = lex(text)?;
    let header = parse_header(&lexed.header)?;
    let eof = Span::new(text.len(), text.len());
    let mut parser = Parser {
        text,
        toks: lexed.tokens,
        pos: 0,
        prev_end: 0,
        depth: 0,
        eof: Token {
            tok: Tok::Eof,
            span: eof,
        },
    };
    let mut items = Vec::new();
    while parser.peek().tok != Tok::Eof {
        items.push(parser.item()?);
    }
    let file = SpecFile { header, items };
    let params: Vec<&str> = file.param_names().collect();
    check_liveness_names(&file.header, &params)?;
    Ok(file)
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    /// End of the last consumed token: where a missing `;` belongs.
    prev_end: usize,
    depth: u32,
    eof: Token,
}

fn type_of(kw: Kw) -> Option<Type> {
    Some(match kw {
        Kw::Bool => Type::Bool,
        Kw::U8 => Type::U8,
        Kw::U16 => Type::U16,
        Kw::U32 | Kw::Unsigned => Type::U32,
        Kw::I8 => Type::I8,
        Kw::I16 => Type::I16,
        Kw::I32 | Kw::Int => Type::I32,
        Kw::U64 => Type::U64,
        Kw::I64 => Type::I64,
        _ => return None,
    })
}

// Token plumbing and error helpers.
impl Parser<'_> {
    fn peek(&self) -> &Token {
        self.toks.get(self.pos).unwrap_or(&self.eof)
    }

    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }

    fn bump(&mut self) -> Token {
        let tok = self.peek().clone();
        if tok.tok != Tok::Eof {
            self.pos += 1;
            self.prev_end = tok.span.end as usize;
        }
        tok
    }

    /// The span from `start` to the end of the last token consumed.
    fn since(&self, start: Span) -> Span {
        start.to(Span::new(self.prev_end, self.prev_end))
    }

    fn at(&self, sym: Sym) -> bool {
        self.peek().tok == Tok::Sym(sym)
    }

    fn at_kw(&self, kw: Kw) -> bool {
        self.peek().tok == Tok::Kw(kw)
    }

    fn eat(&mut self, sym: Sym) -> Option<Span> {
        self.at(sym).then(|| self.bump().span)
    }

    /// The found token for messages: `` `text` `` or `end of file`.
    fn found(&self) -> String {
        let tok = self.peek();
        if tok.tok == Tok::Eof {
            return "end of file".to_string();
        }
        let text = self
            .text
            .get(tok.span.start as usize..tok.span.end as usize)
            .unwrap_or("?");
        match text.char_indices().nth(24) {
            Some((cut, _)) => format!("`{}...`", &text[..cut]),
            None => format!("`{text}`"),
        }
    }

    /// "expected WHAT, found TOKEN", pointing at the token.
    fn expected(&self, what: &str) -> Diagnostic {
        let found = self.found();
        Diagnostic::new(self.peek().span, format!("expected {what}, found {found}"))
            .label(format!("expected {what}"))
    }

    fn expect(&mut self, sym: Sym) -> SpecResult<Span> {
        self.eat(sym)
            .ok_or_else(|| self.expected(&format!("`{}`", sym.as_str())))
    }

    /// The `;` ending a statement or item. A token on the same line is
    /// garbage to point at; otherwise the `;` was forgotten at the line end.
    fn expect_semi(&mut self) -> SpecResult<Span> {
        if let Some(span) = self.eat(Sym::Semi) {
            return Ok(span);
        }
        let next = self.peek().span.start as usize;
        let between = self.text.get(self.prev_end..next).unwrap_or("");
        if between.contains('\n') || self.peek().tok == Tok::Eof {
            let found = self.found();
            let here = Span::new(self.prev_end, self.prev_end);
            return Err(
                Diagnostic::new(here, format!("expected `;`, found {found}"))
                    .label("missing `;`")
                    .hint("statements and declarations end with `;`"),
            );
        }
        Err(self
            .expected("`;`")
            .label(format!("unexpected {}", self.found()))
            .hint("is an operator or a `;` missing?"))
    }

    fn ident(&mut self, what: &str) -> SpecResult<Ident> {
        let tok = self.peek().clone();
        match tok.tok {
            Tok::Ident(name) => {
                self.bump();
                Ok(Ident {
                    name,
                    span: tok.span,
                })
            }
            Tok::Kw(kw) => Err(self
                .expected(what)
                .hint(format!("`{}` is a reserved word", kw.as_str()))),
            _ => Err(self.expected(what)),
        }
    }

    fn enter(&mut self) -> SpecResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diagnostic::new(self.peek().span, "nested too deeply")
                .label("nesting limit reached here")
                .hint(format!(
                    "at most {MAX_DEPTH} levels of nested blocks and expressions"
                )));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn ty(&mut self) -> SpecResult<Type> {
        let tok = self.peek().clone();
        match tok.tok {
            Tok::Kw(kw) => match type_of(kw) {
                Some(ty) => {
                    self.bump();
                    Ok(ty)
                }
                None => Err(self.expected("a type").hint(TYPES_HINT)),
            },
            Tok::Ident(name) => Err(type_error(&name, tok.span)),
            _ => Err(self.expected("a type").hint(TYPES_HINT)),
        }
    }
}

/// The keyword among `candidates` that `word` is likely a misspelling of
/// (`whle`: `while`), as names get "did you mean"; words shorter than three
/// letters are too close to everything to tell.
fn misspelt_keyword(word: &str, candidates: &[Kw]) -> Option<&'static str> {
    if word.chars().count() < 3 {
        return None;
    }
    crate::diag::suggest(word, candidates.iter().map(|k| k.as_str()))
}

fn type_error(name: &str, span: Span) -> Diagnostic {
    const WIDE: &[&str] = &["uint64_t", "size_t", "usize"];
    const SIGNED_WIDE: &[&str] = &["int64_t", "long", "isize"];
    let spelled = if WIDE.contains(&name) {
        "u64"
    } else if SIGNED_WIDE.contains(&name) {
        "i64"
    } else {
        ""
    };
    if !spelled.is_empty() {
        return Diagnostic::new(span, format!("unknown type `{name}`"))
            .label("not a type")
            .hint(format!("the 64-bit types are spelt `{spelled}` here"));
    }
    Diagnostic::new(span, format!("unknown type `{name}`"))
        .label("not a type")
        .hint(TYPES_HINT)
}
