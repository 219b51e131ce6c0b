//! Top-level items: parameters, variables with their initializers,
//! procedures, the harness and its `check` lines.

use super::{misspelt_keyword, type_of, Parser};
use crate::diag::{Diagnostic, SpecResult};
use crate::spec::ast::*;
use crate::spec::lexer::{Kw, Sym, Tok};

const ITEMS: &str = "an item (`param`, `global`, `shared`, `local`, `fn` or `harness`)";
const ITEM_KEYWORDS: &[Kw] = &[
    Kw::Param,
    Kw::Global,
    Kw::Shared,
    Kw::Local,
    Kw::Fn,
    Kw::Harness,
];

impl Parser<'_> {
    pub(super) fn item(&mut self) -> SpecResult<Item> {
        let item = match self.peek().tok.clone() {
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
            Tok::Ident(word) => {
                let d = self.expected(ITEMS);
                return Err(match misspelt_keyword(&word, ITEM_KEYWORDS) {
                    Some(kw) => d.hint(format!("did you mean `{kw}`?")),
                    None => d,
                });
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
        self.expect_semi()?;
        Ok(ParamDecl {
            name,
            default,
            span: self.since(start),
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
        self.expect_semi()?;
        Ok(VarDecl {
            storage,
            volatile,
            ty,
            name,
            size,
            init,
            span: self.since(start),
        })
    }

    /// `{a, b, c}` or `{[i] = a, [j] = b}`, a trailing comma allowed; the
    /// two forms do not mix.
    fn init_list(&mut self) -> SpecResult<Init> {
        let open = self.bump().span;
        let mut values = Vec::new();
        let mut designated = Vec::new();
        loop {
            if let Some(close) = self.eat(Sym::RBrace) {
                let span = open.to(close);
                return match (values.is_empty(), designated.is_empty()) {
                    (true, true) => Err(Diagnostic::new(span, "empty initializer list")
                        .label("no values")
                        .hint("give one value per element, or `= 0` for all")),
                    (false, _) => Ok(Init::List(values, span)),
                    (true, false) => Ok(Init::Designated(designated, span)),
                };
            }
            let entry = self.peek().span;
            if self.eat(Sym::LBracket).is_some() {
                let index = self.expr()?;
                self.expect(Sym::RBracket)?;
                self.expect(Sym::Assign)?;
                designated.push(Designator {
                    index,
                    value: self.expr()?,
                });
            } else {
                values.push(self.expr()?);
            }
            if !values.is_empty() && !designated.is_empty() {
                return Err(Diagnostic::new(
                    self.since(entry),
                    "an initializer list is either one value per element or `[index] = value` entries",
                )
                .label("mixes the two forms")
                .hint("write every entry as `[index] = value` (the elements not named are 0)"));
            }
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
            body,
            span: self.since(start),
        })
    }

    pub(super) fn check(&mut self) -> SpecResult<Check> {
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
