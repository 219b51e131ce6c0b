//! Statements: blocks, declarations, assignments (`x++` is `x += 1`),
//! calls, `if`/`else`, `while`, `for`, `assert`, `critical` and `phase`.

use super::{misspelt_keyword, type_error, type_of, Parser};
use crate::diag::{Diagnostic, SpecResult};
use crate::spec::ast::*;
use crate::spec::lexer::{Kw, Sym, Tok};

/// The keywords that begin a statement, for "did you mean" (`if` is too
/// short to be told from a name).
const STATEMENT_KEYWORDS: &[Kw] = &[
    Kw::While,
    Kw::For,
    Kw::Break,
    Kw::Continue,
    Kw::Return,
    Kw::Assert,
    Kw::Critical,
    Kw::Phase,
    Kw::Progress,
    Kw::Check,
];

fn starts_expr(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Ident(_)
            | Tok::Int(_)
            | Tok::Kw(Kw::True | Kw::False)
            | Tok::Sym(Sym::LParen | Sym::Minus | Sym::Bang | Sym::Tilde)
    )
}

impl Parser<'_> {
    /// `{ stmts }`; `checks` is given for the top block of a harness only.
    pub(super) fn block(&mut self, mut checks: Option<&mut Vec<Check>>) -> SpecResult<Block> {
        if !self.at(Sym::LBrace) {
            return Err(self
                .expected("`{`")
                .hint("bodies are always blocks in braces"));
        }
        let open = self.bump().span;
        self.enter()?;
        let mut stmts = Vec::new();
        let close = loop {
            match self.peek().tok {
                Tok::Sym(Sym::RBrace) => break self.bump().span,
                Tok::Eof | Tok::Kw(Kw::Fn | Kw::Harness | Kw::Param) => {
                    let found = self.found();
                    return Err(
                        Diagnostic::new(open, format!("expected `}}`, found {found}"))
                            .label("this `{` is never closed")
                            .hint("add the missing `}`"),
                    );
                }
                Tok::Kw(kw @ (Kw::Global | Kw::Shared | Kw::Local)) => {
                    return Err(self.expected("a statement").hint(format!(
                        "`{}` declarations are only allowed at top level (is a `}}` missing?); \
                         a local variable is just `u32 x = 0;`",
                        kw.as_str()
                    )))
                }
                Tok::Kw(Kw::Check) => match checks.as_deref_mut() {
                    Some(checks) => checks.push(self.check()?),
                    None => {
                        return Err(Diagnostic::new(
                            self.peek().span,
                            "`check` outside the harness",
                        )
                        .label("not allowed here")
                        .hint("`check` lines belong in the top block of the harness"))
                    }
                },
                _ => stmts.push(self.stmt()?),
            }
        };
        self.leave();
        Ok(Block {
            stmts,
            span: open.to(close),
        })
    }

    fn stmt(&mut self) -> SpecResult<Stmt> {
        let start = self.peek().span;
        let kind = match self.peek().tok.clone() {
            Tok::Sym(Sym::LBrace) => StmtKind::Block(self.block(None)?),
            Tok::Kw(Kw::If) => return self.if_stmt(),
            Tok::Kw(Kw::Else) => {
                return Err(Diagnostic::new(start, "`else` without `if`")
                    .label("no `if` before this `else`")
                    .hint("`else` must follow the `}` of an `if` block"))
            }
            Tok::Kw(Kw::While) => {
                self.bump();
                let cond = self.paren_cond("while")?;
                StmtKind::While {
                    cond,
                    body: self.block(None)?,
                }
            }
            Tok::Kw(Kw::For) => self.for_stmt()?,
            Tok::Kw(Kw::Critical) => {
                self.bump();
                let weight = match self.eat(Sym::LParen) {
                    Some(_) => {
                        let w = self.expr()?;
                        self.expect(Sym::RParen)?;
                        Some(w)
                    }
                    None => None,
                };
                StmtKind::Critical {
                    weight,
                    body: self.block(None)?,
                }
            }
            Tok::Kw(Kw::Phase) => {
                self.bump();
                StmtKind::Phase {
                    body: self.block(None)?,
                }
            }
            Tok::Ident(word) => {
                let parsed = self.simple_kind().and_then(|kind| {
                    self.expect_semi()?;
                    Ok(kind)
                });
                // `whle (x) { }` reads as a call until the `{`: where a
                // statement that starts like a keyword fails, the keyword
                // is the likelier mistake than what the parser expected.
                match (parsed, misspelt_keyword(&word, STATEMENT_KEYWORDS)) {
                    (Err(d), Some(kw)) => return Err(d.hint(format!("did you mean `{kw}`?"))),
                    (parsed, _) => parsed?,
                }
            }
            _ => {
                let kind = self.simple_kind()?;
                self.expect_semi()?;
                kind
            }
        };
        Ok(Stmt {
            kind,
            span: self.since(start),
        })
    }

    /// Statements that end with `;` (the `;` is left to the caller).
    fn simple_kind(&mut self) -> SpecResult<StmtKind> {
        let tok = self.peek().clone();
        Ok(match tok.tok {
            Tok::Kw(Kw::Break) => {
                self.bump();
                StmtKind::Break
            }
            Tok::Kw(Kw::Continue) => {
                self.bump();
                StmtKind::Continue
            }
            Tok::Kw(Kw::Progress) => {
                self.bump();
                StmtKind::Progress
            }
            Tok::Kw(Kw::Return) => {
                self.bump();
                match starts_expr(&self.peek().tok) {
                    true => StmtKind::Return(Some(self.expr()?)),
                    false => StmtKind::Return(None),
                }
            }
            Tok::Kw(Kw::Assert) => self.assert()?,
            Tok::Kw(kw) if type_of(kw).is_some() => self.let_kind()?,
            Tok::Ident(name) if matches!(self.peek_at(1).tok, Tok::Ident(_)) => {
                // `T x` with an unknown T: a declaration.
                return Err(type_error(&name, tok.span));
            }
            _ => self.assign_or_call()?,
        })
    }

    fn let_kind(&mut self) -> SpecResult<StmtKind> {
        let ty = self.ty()?;
        let name = self.ident("a variable name")?;
        if self.at(Sym::LBracket) {
            return Err(
                Diagnostic::new(self.peek().span, "local arrays are not supported")
                    .label("array in a function")
                    .hint("declare the array at top level, e.g. `local u32 a[4];`"),
            );
        }
        let init = match self.eat(Sym::Assign) {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        Ok(StmtKind::Let { ty, name, init })
    }

    fn assign_or_call(&mut self) -> SpecResult<StmtKind> {
        let target = self.expr()?;
        let op = match self.peek().tok {
            Tok::Sym(Sym::Assign) => Some((AssignOp::Set, false)),
            Tok::Sym(Sym::PlusEq) => Some((AssignOp::Add, false)),
            Tok::Sym(Sym::MinusEq) => Some((AssignOp::Sub, false)),
            Tok::Sym(Sym::PlusPlus) => Some((AssignOp::Add, true)),
            Tok::Sym(Sym::MinusMinus) => Some((AssignOp::Sub, true)),
            _ => None,
        };
        let Some((op, step)) = op else {
            if matches!(target.kind, ExprKind::Call { .. }) {
                return Ok(StmtKind::Expr(target));
            }
            if self.at(Sym::Semi) {
                return Err(
                    Diagnostic::new(target.span, "expression statement has no effect")
                        .label("value is not used")
                        .hint("only calls stand alone as statements; did you mean an assignment?"),
                );
            }
            return Err(self.expected("`=`, `+=`, `-=`, `++`, `--` or `;`"));
        };
        let place = match target.kind {
            ExprKind::Name(name) => Place {
                name,
                index: None,
                span: target.span,
            },
            ExprKind::Index(name, index) => Place {
                name,
                index: Some(index),
                span: target.span,
            },
            _ => {
                return Err(
                    Diagnostic::new(target.span, "cannot assign to this expression")
                        .label("not a variable or array element")
                        .hint("the left side of an assignment is `x` or `a[i]`"),
                )
            }
        };
        let op_span = self.bump().span;
        let value = match step {
            true => Expr {
                kind: ExprKind::Int(1),
                span: op_span,
            },
            false => self.expr()?,
        };
        Ok(StmtKind::Assign { place, op, value })
    }

    fn assert(&mut self) -> SpecResult<StmtKind> {
        self.bump();
        self.expect(Sym::LParen)?;
        let cond = self.expr()?;
        let message = match self.eat(Sym::Comma) {
            Some(_) => match self.peek().tok.clone() {
                Tok::Str(s) => {
                    self.bump();
                    Some(s)
                }
                _ => return Err(self.expected("a message string")),
            },
            None => None,
        };
        self.expect(Sym::RParen)?;
        Ok(StmtKind::Assert { cond, message })
    }

    fn paren_cond(&mut self, keyword: &str) -> SpecResult<Expr> {
        if !self.at(Sym::LParen) {
            return Err(self.expected(&format!("`(` after `{keyword}`")));
        }
        self.bump();
        let cond = self.expr()?;
        self.expect(Sym::RParen)?;
        Ok(cond)
    }

    fn if_stmt(&mut self) -> SpecResult<Stmt> {
        let start = self.bump().span;
        self.enter()?; // `else if` chains recurse
        let cond = self.paren_cond("if")?;
        let then_block = self.block(None)?;
        let else_block = match self.at_kw(Kw::Else) {
            false => None,
            true => {
                self.bump();
                if self.at_kw(Kw::If) {
                    let nested = self.if_stmt()?;
                    Some(Block {
                        span: nested.span,
                        stmts: vec![nested],
                    })
                } else {
                    Some(self.block(None)?)
                }
            }
        };
        self.leave();
        Ok(Stmt {
            kind: StmtKind::If {
                cond,
                then_block,
                else_block,
            },
            span: self.since(start),
        })
    }

    fn for_stmt(&mut self) -> SpecResult<StmtKind> {
        self.bump();
        if !self.at(Sym::LParen) {
            return Err(self.expected("`(` after `for`"));
        }
        self.bump();
        let init = match self.at(Sym::Semi) {
            true => None,
            false => Some(Box::new(self.for_part(true)?)),
        };
        self.expect(Sym::Semi)?;
        let cond = match self.at(Sym::Semi) {
            true => None,
            false => Some(self.expr()?),
        };
        self.expect(Sym::Semi)?;
        let step = match self.at(Sym::RParen) {
            true => None,
            false => Some(Box::new(self.for_part(false)?)),
        };
        self.expect(Sym::RParen)?;
        let body = self.block(None)?;
        Ok(StmtKind::For {
            init,
            cond,
            step,
            body,
        })
    }

    /// The init (a declaration or assignment) or step (an assignment) of a `for`.
    fn for_part(&mut self, allow_let: bool) -> SpecResult<Stmt> {
        let start = self.peek().span;
        let kind = match self.peek().tok {
            Tok::Kw(kw) if allow_let && type_of(kw).is_some() => self.let_kind()?,
            _ => self.assign_or_call()?,
        };
        Ok(Stmt {
            kind,
            span: self.since(start),
        })
    }
}
