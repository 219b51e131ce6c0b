//! Expressions, by C precedence. Each parsing function returns the tree's
//! height with it: a long operator chain (`a + b + ...`) is built by a loop,
//! not by recursion, but every later pass walks the tree recursively, so its
//! height is bounded here with a located error.

use super::Parser;
use crate::diag::{Diagnostic, SpecResult};
use crate::spec::ast::*;
use crate::spec::lexer::{Kw, Sym, Tok};

/// The highest expression tree: every pass after the parser (names,
/// constants, lowering, evaluation, CUDA) recurses over it, so this bounds
/// their stack. Written specs stay below 20.
pub(crate) const MAX_EXPR_HEIGHT: u32 = 256;

/// Binary operators and their C precedence (higher binds tighter).
fn binop(tok: &Tok) -> Option<(BinOp, u8)> {
    let Tok::Sym(sym) = tok else { return None };
    Some(match sym {
        Sym::OrOr => (BinOp::Or, 1),
        Sym::AndAnd => (BinOp::And, 2),
        Sym::Pipe => (BinOp::BitOr, 3),
        Sym::Caret => (BinOp::BitXor, 4),
        Sym::Amp => (BinOp::BitAnd, 5),
        Sym::EqEq => (BinOp::Eq, 6),
        Sym::Ne => (BinOp::Ne, 6),
        Sym::Lt => (BinOp::Lt, 7),
        Sym::Le => (BinOp::Le, 7),
        Sym::Gt => (BinOp::Gt, 7),
        Sym::Ge => (BinOp::Ge, 7),
        Sym::Shl => (BinOp::Shl, 8),
        Sym::Shr => (BinOp::Shr, 8),
        Sym::Plus => (BinOp::Add, 9),
        Sym::Minus => (BinOp::Sub, 9),
        Sym::Star => (BinOp::Mul, 10),
        Sym::Slash => (BinOp::Div, 10),
        Sym::Percent => (BinOp::Rem, 10),
        _ => return None,
    })
}

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> SpecResult<Expr> {
        Ok(self.expr_tree()?.0)
    }

    fn expr_tree(&mut self) -> SpecResult<(Expr, u32)> {
        self.enter()?;
        let (cond, h) = self.binary(1)?;
        let result = match self.eat(Sym::Question) {
            None => (cond, h),
            Some(question) => {
                let (then, h1) = self.expr_tree()?;
                self.expect(Sym::Colon)?;
                let (other, h2) = self.expr_tree()?;
                let span = cond.span.to(other.span);
                let kind = ExprKind::Ternary(Box::new(cond), Box::new(then), Box::new(other));
                node(kind, span, h.max(h1).max(h2), question)?
            }
        };
        self.leave();
        Ok(result)
    }

    /// Precedence climbing: left-associative operators binding at least `min`.
    fn binary(&mut self, min: u8) -> SpecResult<(Expr, u32)> {
        let (mut lhs, mut h) = self.unary()?;
        while let Some((op, prec)) = binop(&self.peek().tok) {
            if prec < min {
                break;
            }
            let op_span = self.bump().span;
            let (rhs, rh) = self.binary(prec + 1)?;
            let span = lhs.span.to(rhs.span);
            let kind = ExprKind::Binary(op, Box::new(lhs), Box::new(rhs));
            (lhs, h) = node(kind, span, h.max(rh), op_span)?;
        }
        Ok((lhs, h))
    }

    fn unary(&mut self) -> SpecResult<(Expr, u32)> {
        let op = match self.peek().tok {
            Tok::Sym(Sym::Bang) => UnOp::Not,
            Tok::Sym(Sym::Minus) => UnOp::Neg,
            Tok::Sym(Sym::Tilde) => UnOp::BitNot,
            _ => return self.primary(),
        };
        let start = self.bump().span;
        self.enter()?;
        let (operand, h) = self.unary()?;
        self.leave();
        let span = start.to(operand.span);
        node(ExprKind::Unary(op, Box::new(operand)), span, h, start)
    }

    fn primary(&mut self) -> SpecResult<(Expr, u32)> {
        let tok = self.peek().clone();
        let kind = match tok.tok {
            Tok::Int(v) => ExprKind::Int(v),
            Tok::Kw(Kw::True) => ExprKind::Bool(true),
            Tok::Kw(Kw::False) => ExprKind::Bool(false),
            Tok::Sym(Sym::LParen) => {
                self.bump();
                let (inner, h) = self.expr_tree()?;
                let close = self.expect(Sym::RParen)?;
                // The parentheses belong to the span, so enclosing spans cover them.
                let span = tok.span.to(close);
                return Ok((
                    Expr {
                        kind: inner.kind,
                        span,
                    },
                    h,
                ));
            }
            Tok::Ident(name) => {
                self.bump();
                return self.name_expr(Ident {
                    name,
                    span: tok.span,
                });
            }
            _ => return Err(self.expected("an expression")),
        };
        self.bump();
        Ok((
            Expr {
                kind,
                span: tok.span,
            },
            1,
        ))
    }

    /// What follows a name: a call, a dotted call, an index, `blockIdx.x` or nothing.
    fn name_expr(&mut self, name: Ident) -> SpecResult<(Expr, u32)> {
        let mut qualifiers = Vec::new();
        while self.eat(Sym::Dot).is_some() {
            let tok = self.peek().clone();
            let qual = match tok.tok {
                Tok::Ident(q) => q,
                // `store.volatile(x, 1)`: keywords are fine as suffixes.
                Tok::Kw(kw) => kw.as_str().to_string(),
                _ => return Err(self.expected("a name after `.`")),
            };
            self.bump();
            qualifiers.push(Ident {
                name: qual,
                span: tok.span,
            });
        }
        if self.at(Sym::LParen) {
            return self.call(name, qualifiers);
        }
        if let Some(first) = qualifiers.first() {
            return Ok((self.launch_dim(name, &qualifiers, first)?, 1));
        }
        if self.eat(Sym::LBracket).is_some() {
            if self.at(Sym::RBracket) {
                return Err(self
                    .expected("an index")
                    .hint("write the element index: `a[i]`"));
            }
            let (index, h) = self.expr_tree()?;
            let close = self.expect(Sym::RBracket)?;
            let at = name.span;
            let span = name.span.to(close);
            return node(ExprKind::Index(name, Box::new(index)), span, h, at);
        }
        Ok((
            Expr {
                span: name.span,
                kind: ExprKind::Name(name),
            },
            1,
        ))
    }

    /// `blockIdx.x` / `threadIdx.x`: the launch is one-dimensional.
    fn launch_dim(&mut self, name: Ident, qualifiers: &[Ident], first: &Ident) -> SpecResult<Expr> {
        let last = qualifiers.last().unwrap_or(first);
        if !matches!(name.name.as_str(), "blockIdx" | "threadIdx") {
            return Err(self
                .expected(&format!(
                    "`(` after `{}`",
                    self.text
                        .get(name.span.start as usize..last.span.end as usize)
                        .unwrap_or("")
                ))
                .hint(
                    "dotted names are calls (`fence.sc.gpu()`) or `blockIdx.x` / `threadIdx.x`",
                ));
        }
        if first.name != "x" {
            return Err(Diagnostic::new(
                first.span,
                format!(
                    "`{}.{}` does not exist: only .x exists",
                    name.name, first.name
                ),
            )
            .label("only .x exists")
            .hint(format!(
                "launches are one-dimensional; write `{}.x` or `{}`",
                name.name, name.name
            )));
        }
        if let Some(extra) = qualifiers.get(1) {
            return Err(Diagnostic::new(
                extra.span,
                format!("unexpected `.{}` after `{}.x`", extra.name, name.name),
            )
            .label("only .x exists"));
        }
        Ok(Expr {
            span: name.span.to(first.span),
            kind: ExprKind::Name(name),
        })
    }

    fn call(&mut self, name: Ident, qualifiers: Vec<Ident>) -> SpecResult<(Expr, u32)> {
        self.bump();
        let mut args = Vec::new();
        let mut h = 0;
        let close = match self.eat(Sym::RParen) {
            Some(close) => close,
            None => loop {
                let (arg, ah) = self.expr_tree()?;
                args.push(arg);
                h = h.max(ah);
                if let Some(close) = self.eat(Sym::RParen) {
                    break close;
                }
                if self.eat(Sym::Comma).is_none() {
                    return Err(self
                        .expected("`,` or `)`")
                        .label("expected `)` to close the call")
                        .hint(format!(
                            "close the argument list of `{}` with `)`",
                            name.name
                        )));
                }
            },
        };
        let (at, span) = (name.span, name.span.to(close));
        let kind = ExprKind::Call {
            name,
            qualifiers,
            args,
        };
        node(kind, span, h, at)
    }
}

/// A node over children at most `below` high: an error at `at` (the
/// operator) once the tree would be higher than [`MAX_EXPR_HEIGHT`].
fn node(kind: ExprKind, span: Span, below: u32, at: Span) -> SpecResult<(Expr, u32)> {
    let height = below + 1;
    if height > MAX_EXPR_HEIGHT {
        return Err(Diagnostic::new(
            at,
            format!("expression nests deeper than {MAX_EXPR_HEIGHT} levels"),
        )
        .label("the limit is reached here")
        .hint(
            "a long chain such as `a + b + c + ...` nests one level per operator; \
             split it with local variables (`u32 t = a + b; ... t + c ...`)",
        ));
    }
    Ok((Expr { kind, span }, height))
}
