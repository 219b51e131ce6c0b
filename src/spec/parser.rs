//! Recursive-descent parser: tokens → [`SpecFile`]. It stops at the first
//! error; every error names what was expected and shows the token found.

use super::ast::*;
use super::diag::{Diagnostic, SpecResult};
use super::header::{check_liveness_names, parse_header};
use super::lexer::{lex, Kw, Sym, Tok, Token};

/// Deeper nesting than this is an error rather than a stack overflow.
const MAX_DEPTH: u32 = 100;

/// The highest expression tree: every pass after the parser (names,
/// constants, lowering, evaluation, CUDA) recurses over it, so this bounds
/// their stack. Written specs stay below 20.
pub const MAX_EXPR_HEIGHT: u32 = 256;

const TYPES_HINT: &str =
    "the types are bool, u8, u16, u32, i8, i16, i32 (`int` is i32, `unsigned` is u32)";
const ITEMS: &str = "an item (`param`, `global`, `shared`, `local`, `fn` or `harness`)";

/// Lexes, reads the header and parses the items of a whole spec.
pub fn parse_file(text: &str) -> SpecResult<SpecFile> {
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
    let params: Vec<&str> = items
        .iter()
        .filter_map(|i| match i {
            Item::Param(p) => Some(p.name.name.as_str()),
            _ => None,
        })
        .collect();
    check_liveness_names(&header, &params)?;
    Ok(SpecFile { header, items })
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
        _ => return None,
    })
}

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

fn starts_expr(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Ident(_)
            | Tok::Int(_)
            | Tok::Kw(Kw::True | Kw::False)
            | Tok::Sym(Sym::LParen | Sym::Minus | Sym::Bang | Sym::Tilde)
    )
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

fn type_error(name: &str, span: Span) -> Diagnostic {
    const WIDE: &[&str] = &[
        "u64", "i64", "uint64_t", "int64_t", "long", "size_t", "usize", "isize",
    ];
    if WIDE.contains(&name) {
        return Diagnostic::new(
            span,
            format!("type `{name}` is not supported: only types up to 32 bits exist"),
        )
        .label("64-bit type")
        .hint(TYPES_HINT);
    }
    Diagnostic::new(span, format!("unknown type `{name}`"))
        .label("not a type")
        .hint(TYPES_HINT)
}

// Items.
impl Parser<'_> {
    fn item(&mut self) -> SpecResult<Item> {
        let item = match self.peek().tok {
            Tok::Kw(Kw::Param) => Item::Param(self.param()?),
            Tok::Kw(Kw::Global) => Item::Var(self.var(Storage::Global)?),
            Tok::Kw(Kw::Shared) => Item::Var(self.var(Storage::Shared)?),
            Tok::Kw(Kw::Local) => Item::Var(self.var(Storage::Local)?),
            Tok::Kw(Kw::Fn) => Item::Fn(self.function()?),
            Tok::Kw(Kw::Harness) => Item::Harness(self.harness()?),
            Tok::Kw(kw) if type_of(kw).is_some() => {
                return Err(self
                    .expected(ITEMS)
                    .hint("top-level variables need a storage class: `global u32 x = 0;`"))
            }
            _ => return Err(self.expected(ITEMS)),
        };
        Ok(item)
    }

    fn param(&mut self) -> SpecResult<ParamDecl> {
        let start = self.bump().span;
        let name = self.ident("a parameter name")?;
        if !self.at(Sym::Assign) {
            return Err(self
                .expected("`=`")
                .hint("parameters need a default: `param iters = 1;`"));
        }
        self.bump();
        let default = self.expr()?;
        let end = self.expect_semi()?;
        Ok(ParamDecl {
            name,
            default,
            span: start.to(end),
        })
    }

    fn var(&mut self, storage: Storage) -> SpecResult<VarDecl> {
        let start = self.bump().span;
        let volatile = self.at_kw(Kw::Volatile);
        if volatile {
            self.bump();
        }
        let ty = self.ty()?;
        let name = self.ident("a variable name")?;
        let size = match self.eat(Sym::LBracket) {
            Some(_) => {
                if self.at(Sym::RBracket) {
                    return Err(self
                        .expected("an array size")
                        .label("missing size")
                        .hint("arrays need a constant size: `a[4]`"));
                }
                let size = self.expr()?;
                self.expect(Sym::RBracket)?;
                Some(size)
            }
            None => None,
        };
        let init = match self.eat(Sym::Assign) {
            Some(_) if self.at(Sym::LBrace) => self.init_list()?,
            Some(_) => Init::Expr(self.expr()?),
            None => Init::Zero,
        };
        let end = self.expect_semi()?;
        Ok(VarDecl {
            storage,
            volatile,
            ty,
            name,
            size,
            init,
            span: start.to(end),
        })
    }

    /// `{a, b, c}`, a trailing comma allowed.
    fn init_list(&mut self) -> SpecResult<Init> {
        let open = self.bump().span;
        let mut values = Vec::new();
        loop {
            if let Some(close) = self.eat(Sym::RBrace) {
                if values.is_empty() {
                    return Err(Diagnostic::new(open.to(close), "empty initializer list")
                        .label("no values")
                        .hint("give one value per element, or `= 0` for all"));
                }
                return Ok(Init::List(values, open.to(close)));
            }
            values.push(self.expr()?);
            if !self.at(Sym::RBrace) && self.eat(Sym::Comma).is_none() {
                return Err(self.expected("`,` or `}`"));
            }
        }
    }

    fn function(&mut self) -> SpecResult<FnDecl> {
        let start = self.bump().span;
        let name = self.ident("a function name")?;
        self.expect(Sym::LParen)?;
        let mut params = Vec::new();
        if self.eat(Sym::RParen).is_none() {
            loop {
                let ty = self.ty()?;
                let pname = self.ident("a parameter name")?;
                params.push(FnParam { ty, name: pname });
                if self.eat(Sym::RParen).is_some() {
                    break;
                }
                if self.eat(Sym::Comma).is_none() {
                    return Err(self.expected("`,` or `)`"));
                }
            }
        }
        let ret = match self.eat(Sym::Arrow) {
            Some(_) => Some(self.ty()?),
            None => None,
        };
        let body = self.block(None)?;
        Ok(FnDecl {
            name,
            params,
            ret,
            span: start.to(body.span),
            body,
        })
    }

    fn harness(&mut self) -> SpecResult<Harness> {
        let start = self.bump().span;
        let participants = match self.peek().tok {
            Tok::Kw(Kw::Master) => Participants::Master,
            Tok::Kw(Kw::All) => Participants::All,
            _ => return Err(self.expected("`master` or `all` after `harness`").hint(
                "`harness master` runs thread 0 of every block; `harness all` runs every thread",
            )),
        };
        self.bump();
        let mut checks = Vec::new();
        let body = self.block(Some(&mut checks))?;
        Ok(Harness {
            participants,
            checks,
            span: start.to(body.span),
            body,
        })
    }

    fn check(&mut self) -> SpecResult<Check> {
        let start = self.bump().span;
        const KNOWN: &str = "known properties: `mutual_exclusion`, `capacity(n)`, `barrier`, \
                             `invariant(expr)`; deadlocks and assertions are always checked";
        let Tok::Ident(name) = self.peek().tok.clone() else {
            return Err(self.expected("a property after `check`").hint(KNOWN));
        };
        let name_span = self.peek().span;
        let check = match name.as_str() {
            "mutual_exclusion" | "barrier" => {
                self.bump();
                let span = start.to(self.expect_semi()?);
                match name.as_str() {
                    "barrier" => Check::Barrier(span),
                    _ => Check::MutualExclusion(span),
                }
            }
            "capacity" | "invariant" => {
                self.bump();
                self.expect(Sym::LParen)?;
                let e = self.expr()?;
                self.expect(Sym::RParen)?;
                let span = start.to(self.expect_semi()?);
                match name.as_str() {
                    "capacity" => Check::Capacity(e, span),
                    _ => Check::Invariant(e, span),
                }
            }
            _ => {
                return Err(
                    Diagnostic::new(name_span, format!("unknown property `{name}`"))
                        .label("not a property")
                        .hint(KNOWN),
                )
            }
        };
        Ok(check)
    }
}

// Statements.
impl Parser<'_> {
    /// `{ stmts }`; `checks` is given for the top block of a harness only.
    fn block(&mut self, mut checks: Option<&mut Vec<Check>>) -> SpecResult<Block> {
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
            _ => {
                let kind = self.simple_kind()?;
                self.expect_semi()?;
                kind
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(Span::new(self.prev_end, self.prev_end)),
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
            span: start.to(Span::new(self.prev_end, self.prev_end)),
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
            span: start.to(Span::new(self.prev_end, self.prev_end)),
        })
    }
}

// Expressions, by C precedence. Each parsing function returns the tree's
// height with it: a long operator chain (`a + b + ...`) is built by a loop,
// not by recursion, but every later pass walks the tree recursively, so its
// height is bounded here with a located error.
impl Parser<'_> {
    fn expr(&mut self) -> SpecResult<Expr> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::diag::Source;

    const EXAMPLE: &str = r#"//! name: spin_lock
//! family: mutex
//! source: seed 003, Algorithm 1 (spin lock with atomicExch)
//! description: test-and-set spin lock; unlock is an atomic exchange
//! expect: verified
//! expect --blocks 3: verified

param iters = 1;

global u32 lock = 0;

fn lock_acquire() {
    while (atomicExch(lock, 1) != 0) {
        backoff();
    }
    __threadfence();
}

fn lock_release() {
    __threadfence();
    atomicExch(lock, 0);
}

harness master {
    check mutual_exclusion;
    for (u32 i = 0; i < iters; i++) {
        lock_acquire();
        critical { }
        lock_release();
    }
}
"#;

    fn ok(text: &str) -> SpecFile {
        match parse_file(text) {
            Ok(file) => file,
            Err(d) => panic!("{}", d.render(&Source::new("t", text), false)),
        }
    }

    /// The message and `line:col` of the error for `text`.
    fn err(text: &str) -> (String, (u32, u32)) {
        let d = parse_file(text).expect_err("should fail");
        (d.message, Source::new("t", text).line_col(d.span.start))
    }

    fn assert_err(text: &str, message: &str, at: (u32, u32)) {
        let (msg, pos) = err(text);
        assert!(msg.contains(message), "message `{msg}` lacks `{message}`");
        assert_eq!(pos, at, "position of `{msg}`");
        let rendered = parse_file(text)
            .unwrap_err()
            .render(&Source::new("t", text), false);
        assert!(
            rendered.contains(&format!("t:{}:{}", at.0, at.1)),
            "{rendered}"
        );
    }

    /// An S-expression rendering, to compare tree shapes compactly.
    fn sx(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(n) => n.name.clone(),
            ExprKind::Index(n, i) => format!("{}[{}]", n.name, sx(i)),
            ExprKind::Unary(op, a) => format!("({op:?} {})", sx(a)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), sx(a), sx(b)),
            ExprKind::Ternary(c, a, b) => format!("(? {} {} {})", sx(c), sx(a), sx(b)),
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => {
                let mut s = name.name.clone();
                for q in qualifiers {
                    s += &format!(".{}", q.name);
                }
                let args: Vec<String> = args.iter().map(sx).collect();
                format!("{s}({})", args.join(", "))
            }
        }
    }

    /// The expression of `param p = TEXT;`.
    fn expr(text: &str) -> Expr {
        match ok(&format!("param p = {text};")).items.remove(0) {
            Item::Param(p) => p.default,
            other => panic!("{other:?}"),
        }
    }

    fn body(file: &SpecFile, i: usize) -> &Block {
        match &file.items[i] {
            Item::Fn(f) => &f.body,
            Item::Harness(h) => &h.body,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn example_from_reference() {
        let src = Source::new("t", EXAMPLE);
        let file = ok(EXAMPLE);
        assert_eq!(file.header.name.as_deref(), Some("spin_lock"));
        assert_eq!(file.header.expects.len(), 2);
        assert_eq!(file.header.expects[1].args, vec!["--blocks", "3"]);
        assert_eq!(file.items.len(), 5);
        let Item::Param(p) = &file.items[0] else {
            panic!()
        };
        assert_eq!(
            (p.name.name.as_str(), sx(&p.default)),
            ("iters", "1".into())
        );
        assert_eq!(src.snippet(p.span), "param iters = 1;");
        let Item::Var(v) = &file.items[1] else {
            panic!()
        };
        assert_eq!(
            (v.storage, v.volatile, v.ty, v.name.name.as_str()),
            (Storage::Global, false, Type::U32, "lock")
        );
        assert!(matches!(&v.init, Init::Expr(e) if sx(e) == "0"));
        let Item::Fn(f) = &file.items[2] else {
            panic!()
        };
        assert_eq!(
            (f.name.name.as_str(), f.params.len(), f.ret),
            ("lock_acquire", 0, None)
        );
        assert!(
            src.snippet(f.span).starts_with("fn lock_acquire() {")
                && src.snippet(f.span).ends_with('}')
        );
        let StmtKind::While { cond, body } = &f.body.stmts[0].kind else {
            panic!()
        };
        assert_eq!(sx(cond), "(!= atomicExch(lock, 1) 0)");
        assert_eq!(src.snippet(body.stmts[0].span), "backoff();");
        assert_eq!(src.snippet(f.body.stmts[1].span), "__threadfence();");

        let Item::Harness(h) = &file.items[4] else {
            panic!()
        };
        assert_eq!(h.participants, Participants::Master);
        assert!(
            matches!(h.checks[..], [Check::MutualExclusion(s)] if src.snippet(s) == "check mutual_exclusion;")
        );
        assert_eq!(h.body.stmts.len(), 1);
        let StmtKind::For {
            init: Some(init),
            cond: Some(cond),
            step: Some(step),
            body,
        } = &h.body.stmts[0].kind
        else {
            panic!()
        };
        assert_eq!(src.snippet(init.span), "u32 i = 0");
        assert!(
            matches!(&init.kind, StmtKind::Let { ty: Type::U32, name, init: Some(_) } if name.name == "i")
        );
        assert_eq!(sx(cond), "(< i iters)");
        assert_eq!(src.snippet(step.span), "i++");
        let StmtKind::Assign {
            place,
            op: AssignOp::Add,
            value,
        } = &step.kind
        else {
            panic!()
        };
        assert_eq!(
            (src.snippet(place.span), sx(value), src.snippet(value.span)),
            ("i", "1".into(), "++")
        );
        assert_eq!(body.stmts.len(), 3);
        assert!(
            matches!(&body.stmts[1].kind, StmtKind::Critical { weight: None, body } if body.stmts.is_empty())
        );
        assert_eq!(src.snippet(body.stmts[1].span), "critical { }");
        assert!(src.snippet(h.span).starts_with("harness master {"));
    }

    #[test]
    fn precedence_follows_c() {
        assert_eq!(sx(&expr("1 + 2 * 3 - 4")), "(- (+ 1 (* 2 3)) 4)");
        assert_eq!(
            sx(&expr("a || b && c | d ^ e & f == g < h << i + j % k")),
            "(|| a (&& b (| c (^ d (& e (== f (< g (<< h (+ i (% j k))))))))))"
        );
        assert_eq!(sx(&expr("a ? b : c ? d : e")), "(? a b (? c d e))");
        assert_eq!(
            sx(&expr("x == 0 || y > 1 ? -a[i] : ~!b")),
            "(? (|| (== x 0) (> y 1)) (Neg a[i]) (BitNot (Not b)))"
        );
        assert_eq!(sx(&expr("(1 + 2) * 3")), "(* (+ 1 2) 3)");
        assert_eq!(sx(&expr("a - b - c")), "(- (- a b) c)");
        assert_eq!(sx(&expr("0x10 >> 2 != true")), "(!= (>> 16 2) true)");
    }

    #[test]
    fn expression_spans() {
        let text = "param p = (a + b) * f(c, d[1]);";
        let e = expr("(a + b) * f(c, d[1])");
        let src = Source::new("t", text);
        assert_eq!(src.snippet(e.span), "(a + b) * f(c, d[1])");
        let ExprKind::Binary(_, l, r) = &e.kind else {
            panic!()
        };
        assert_eq!(
            (src.snippet(l.span), src.snippet(r.span)),
            ("(a + b)", "f(c, d[1])")
        );
        let ExprKind::Call { args, .. } = &r.kind else {
            panic!()
        };
        assert_eq!(src.snippet(args[1].span), "d[1]");
    }

    #[test]
    fn qualified_calls_and_launch_constants() {
        let text = "param p = atomicExch.release.gpu(x, 0) + fence.sc.cta() + load.acquire.gpu(x) \
                    + store.volatile(x, 1) + atomicCAS_block(l, 0, 1) + blockIdx.x + threadIdx + __activemask();";
        let Item::Param(p) = &ok(text).items[0] else {
            panic!()
        };
        let src = Source::new("t", text);
        let mut e = &p.default;
        let mut parts = Vec::new();
        while let ExprKind::Binary(BinOp::Add, l, r) = &e.kind {
            parts.push(r.as_ref());
            e = l;
        }
        parts.push(e);
        parts.reverse();
        let shown: Vec<String> = parts.iter().map(|e| sx(e)).collect();
        assert_eq!(
            shown,
            [
                "atomicExch.release.gpu(x, 0)",
                "fence.sc.cta()",
                "load.acquire.gpu(x)",
                "store.volatile(x, 1)",
                "atomicCAS_block(l, 0, 1)",
                "blockIdx",
                "threadIdx",
                "__activemask()"
            ]
        );
        let ExprKind::Call {
            name, qualifiers, ..
        } = &parts[0].kind
        else {
            panic!()
        };
        assert_eq!(src.snippet(name.span), "atomicExch");
        assert_eq!(src.snippet(qualifiers[1].span), "gpu");
        assert_eq!(src.snippet(parts[5].span), "blockIdx.x");
        let ExprKind::Name(n) = &parts[5].kind else {
            panic!()
        };
        assert_eq!(src.snippet(n.span), "blockIdx");
    }

    #[test]
    fn declarations() {
        let text = "param n = 4;\nglobal volatile i32 flag = 0;\nglobal u32 flags[nblocks] = 0;\n\
                    global u32 turn[4] = {0, 1, 2, 3,};\nshared unsigned done;\nlocal int sense = 1;\n\
                    fn f(u32 a, bool b) -> u8 { return a; }\nharness all { }\n";
        let file = ok(text);
        let src = Source::new("t", text);
        let Item::Var(flag) = &file.items[1] else {
            panic!()
        };
        assert!(flag.volatile && flag.ty == Type::I32 && flag.size.is_none());
        let Item::Var(flags) = &file.items[2] else {
            panic!()
        };
        assert_eq!(flags.size.as_ref().map(sx).as_deref(), Some("nblocks"));
        let Item::Var(turn) = &file.items[3] else {
            panic!()
        };
        let Init::List(values, span) = &turn.init else {
            panic!()
        };
        assert_eq!((values.len(), src.snippet(*span)), (4, "{0, 1, 2, 3,}"));
        assert_eq!(
            src.snippet(turn.span),
            "global u32 turn[4] = {0, 1, 2, 3,};"
        );
        let Item::Var(done) = &file.items[4] else {
            panic!()
        };
        assert!(
            matches!(done.init, Init::Zero)
                && done.storage == Storage::Shared
                && done.ty == Type::U32
        );
        let Item::Var(sense) = &file.items[5] else {
            panic!()
        };
        assert!(sense.storage == Storage::Local && sense.ty == Type::I32);
        let Item::Fn(f) = &file.items[6] else {
            panic!()
        };
        let params: Vec<(Type, &str)> = f
            .params
            .iter()
            .map(|p| (p.ty, p.name.name.as_str()))
            .collect();
        assert_eq!(
            (params, f.ret),
            (vec![(Type::U32, "a"), (Type::Bool, "b")], Some(Type::U8))
        );
        assert!(matches!(&f.body.stmts[0].kind, StmtKind::Return(Some(e)) if sx(e) == "a"));
        let Item::Harness(h) = &file.items[7] else {
            panic!()
        };
        assert_eq!(h.participants, Participants::All);
    }

    #[test]
    fn statements() {
        let text = r#"fn f() {
    u32 x = 1; bool y;
    x = 2; x += 3; a[x] -= 4; x--;
    if (x) { } else if (y) { progress; } else { break; }
    while (true) { continue; }
    for (;;) { }
    for (x = 0; x < 3; x += 1) { }
    return;
    assert(x == 1);
    assert(x, "bad \"x\"");
    critical(2) { phase { { } } }
    __syncwarp(mask);
}"#;
        let file = ok(text);
        let src = Source::new("t", text);
        let stmts = &body(&file, 0).stmts;
        let snippets: Vec<&str> = stmts.iter().map(|s| src.snippet(s.span)).collect();
        assert_eq!(
            &snippets[..6],
            &[
                "u32 x = 1;",
                "bool y;",
                "x = 2;",
                "x += 3;",
                "a[x] -= 4;",
                "x--;"
            ]
        );
        assert!(snippets[6].starts_with("if (x) { }") && snippets[6].ends_with("{ break; }"));
        assert!(matches!(
            &stmts[1].kind,
            StmtKind::Let {
                ty: Type::Bool,
                init: None,
                ..
            }
        ));
        let StmtKind::Assign {
            place,
            op: AssignOp::Sub,
            value,
        } = &stmts[4].kind
        else {
            panic!()
        };
        assert_eq!(
            (
                src.snippet(place.span),
                place.index.as_deref().map(sx),
                sx(value)
            ),
            ("a[x]", Some("x".into()), "4".into())
        );
        assert!(
            matches!(&stmts[5].kind, StmtKind::Assign { op: AssignOp::Sub, value, .. } if sx(value) == "1")
        );
        let StmtKind::If {
            else_block: Some(else_block),
            ..
        } = &stmts[6].kind
        else {
            panic!()
        };
        let StmtKind::If {
            else_block: Some(last),
            then_block,
            ..
        } = &else_block.stmts[0].kind
        else {
            panic!()
        };
        assert!(matches!(then_block.stmts[0].kind, StmtKind::Progress));
        assert!(matches!(last.stmts[0].kind, StmtKind::Break));
        assert!(
            matches!(&stmts[7].kind, StmtKind::While { body, .. } if matches!(body.stmts[0].kind, StmtKind::Continue))
        );
        assert!(matches!(
            &stmts[8].kind,
            StmtKind::For {
                init: None,
                cond: None,
                step: None,
                ..
            }
        ));
        let StmtKind::For {
            init: Some(init),
            step: Some(step),
            ..
        } = &stmts[9].kind
        else {
            panic!()
        };
        assert!(matches!(
            init.kind,
            StmtKind::Assign {
                op: AssignOp::Set,
                ..
            }
        ));
        assert_eq!(src.snippet(step.span), "x += 1");
        assert!(matches!(stmts[10].kind, StmtKind::Return(None)));
        assert!(matches!(
            &stmts[11].kind,
            StmtKind::Assert { message: None, .. }
        ));
        assert!(
            matches!(&stmts[12].kind, StmtKind::Assert { message: Some(m), .. } if m == "bad \"x\"")
        );
        let StmtKind::Critical {
            weight: Some(w),
            body,
        } = &stmts[13].kind
        else {
            panic!()
        };
        assert_eq!(sx(w), "2");
        let StmtKind::Phase { body } = &body.stmts[0].kind else {
            panic!()
        };
        assert!(matches!(body.stmts[0].kind, StmtKind::Block(_)));
        assert!(matches!(&stmts[14].kind, StmtKind::Expr(e) if sx(e) == "__syncwarp(mask)"));
        assert_eq!(stmts.len(), 15);
    }

    #[test]
    fn checks_anywhere_in_harness_top_block() {
        let file = ok(
            "harness all {\n x = 1;\n check barrier;\n phase { }\n check capacity(2);\n \
                       check invariant(lock <= 1);\n check mutual_exclusion;\n}",
        );
        let Item::Harness(h) = &file.items[0] else {
            panic!()
        };
        assert_eq!(h.body.stmts.len(), 2);
        let kinds: Vec<String> = h
            .checks
            .iter()
            .map(|c| match c {
                Check::MutualExclusion(_) => "me".to_string(),
                Check::Barrier(_) => "barrier".to_string(),
                Check::Capacity(e, _) => format!("cap {}", sx(e)),
                Check::Invariant(e, _) => format!("inv {}", sx(e)),
            })
            .collect();
        assert_eq!(kinds, ["barrier", "cap 2", "inv (<= lock 1)", "me"]);
    }

    #[test]
    fn error_missing_closing_brace() {
        assert_err(
            "fn f() {\n    x = 1;\n",
            "expected `}`, found end of file",
            (1, 8),
        );
        assert_err(
            "fn f() {\n  if (x) {\n    y = 1;\n}\nfn g() { }\n",
            "expected `}`, found `fn`",
            (1, 8),
        );
        let d = parse_file("harness master {\n").unwrap_err();
        assert_eq!(d.label, "this `{` is never closed");
    }

    #[test]
    fn error_missing_semicolon() {
        assert_err(
            "fn f() {\n    x = 1\n    y = 2;\n}",
            "expected `;`, found `y`",
            (2, 10),
        );
        assert_err(
            "param iters = 1\nglobal u32 x;",
            "expected `;`, found `global`",
            (1, 16),
        );
        assert_err(
            "fn f() {\n    return\n}",
            "expected `;`, found `}`",
            (2, 11),
        );
    }

    #[test]
    fn error_garbage_after_expression() {
        assert_err(
            "fn f() {\n    x = a b;\n}",
            "expected `;`, found `b`",
            (2, 11),
        );
        assert_err("param p = (1 + 2) 3;", "expected `;`, found `3`", (1, 19));
    }

    #[test]
    fn error_types() {
        assert_err("global foo x = 0;", "unknown type `foo`", (1, 8));
        assert_err(
            "fn f() {\n    uint x = 0;\n}",
            "unknown type `uint`",
            (2, 5),
        );
        assert_err(
            "global u64 x = 0;",
            "only types up to 32 bits exist",
            (1, 8),
        );
        assert_err("fn f(i64 a) { }", "type `i64` is not supported", (1, 6));
        assert_err("u32 x = 0;", "expected an item", (1, 1));
    }

    #[test]
    fn error_lexical() {
        assert_err(
            "param p = 1;\nglobal u32 x = 0 @ 1;",
            "unexpected character `@`",
            (2, 18),
        );
        assert_err(
            "fn f() {\n  assert(x, \"oops);\n}",
            "unterminated string",
            (2, 13),
        );
        assert_err(
            "param p = 1;\n  /* never\nclosed",
            "unterminated block comment",
            (2, 3),
        );
        assert_err(
            "param p = 99999999999999999999;",
            "integer literal `99999999999999999999` is too large",
            (1, 11),
        );
    }

    #[test]
    fn error_else_without_if() {
        assert_err(
            "fn f() {\n    x = 1;\n    else { }\n}",
            "`else` without `if`",
            (3, 5),
        );
    }

    #[test]
    fn error_missing_paren_in_call() {
        assert_err(
            "fn f() {\n    g(a, b;\n}",
            "expected `,` or `)`, found `;`",
            (2, 11),
        );
        assert_err(
            "fn f() {\n    while (atomicExch(lock, 1) != 0 {\n",
            "expected `)`, found `{`",
            (2, 37),
        );
    }

    #[test]
    fn error_harness_and_check() {
        assert_err(
            "harness every { }",
            "expected `master` or `all` after `harness`, found `every`",
            (1, 9),
        );
        assert_err(
            "harness master {\n    check deadlock_freedom;\n}",
            "unknown property `deadlock_freedom`",
            (2, 11),
        );
        assert_err(
            "harness master {\n    check;\n}",
            "expected a property after `check`, found `;`",
            (2, 10),
        );
        assert_err(
            "fn f() {\n  check barrier;\n}",
            "`check` outside the harness",
            (2, 3),
        );
        assert_err(
            "harness all {\n  if (x) { check barrier; }\n}",
            "`check` outside the harness",
            (2, 12),
        );
    }

    #[test]
    fn error_empty_array() {
        assert_err(
            "global u32 a[] = 0;",
            "expected an array size, found `]`",
            (1, 14),
        );
        assert_err(
            "fn f() {\n  x = a[];\n}",
            "expected an index, found `]`",
            (2, 9),
        );
        assert_err("global u32 a[2] = {};", "empty initializer list", (1, 19));
    }

    #[test]
    fn error_launch_dimensions() {
        let (msg, at) = err("fn f() {\n    x = blockIdx.y;\n}");
        assert!(msg.contains("only .x exists"), "{msg}");
        assert_eq!(at, (2, 18));
        assert_err(
            "param p = threadIdx.z;",
            "`threadIdx.z` does not exist",
            (1, 21),
        );
        assert_err(
            "param p = blockDim.x;",
            "expected `(` after `blockDim.x`",
            (1, 21),
        );
    }

    #[test]
    fn error_misc() {
        assert_err(
            "fn f() {\n  x + 1;\n}",
            "expression statement has no effect",
            (2, 3),
        );
        assert_err(
            "fn f() {\n  f() = 1;\n}",
            "cannot assign to this expression",
            (2, 3),
        );
        assert_err(
            "fn f() {\n  while x { }\n}",
            "expected `(` after `while`, found `x`",
            (2, 9),
        );
        assert_err(
            "fn f() {\n  if (x) y = 1;\n}",
            "expected `{`, found `y`",
            (2, 10),
        );
        assert_err(
            "fn f() {\n  global u32 x;\n}",
            "expected a statement, found `global`",
            (2, 3),
        );
        assert_err(
            "param while = 1;",
            "expected a parameter name, found `while`",
            (1, 7),
        );
        assert_err(
            "fn f() {\n  u32 a[4];\n}",
            "local arrays are not supported",
            (2, 8),
        );
        assert_err(
            "//! name: x\n//! bogus line\nparam p = 1;",
            "header line is not `key: value`",
            (2, 5),
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for open in ["(", "{", "!", "-", "a ? b : "] {
            let text = format!("fn f() {{ x = {}", open.repeat(5000));
            assert!(parse_file(&text).is_err());
        }
        let text = format!("fn f() {}", "{".repeat(5000));
        assert!(err(&text).0.contains("nested too deeply"));
    }

    // Random bytes, truncations and edits: tests/fuzz (every spec, through
    // the lowering and the checker too).

    #[test]
    fn public_entry_point() {
        let file = crate::spec::parse(&Source::new("spin_lock.gsync", EXAMPLE)).unwrap();
        assert_eq!(file.items.len(), 5);
    }
}
