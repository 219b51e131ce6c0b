//! Types: `iN`, `half`/`bfloat`/`float`/`double`, `ptr [addrspace(N)]`,
//! `[N x T]`, `<N x T>`, `{...}`, `<{...}>`, `%named`, and function types
//! `RET (ARGS)` where a call spells them.

use super::Parser;
use crate::llvm::ir::Type;
use crate::llvm::lexer::{ParseError, Tok};

/// Widest integer type accepted.
const MAX_INT_BITS: u32 = 1 << 16;

impl Parser {
    /// Whether a type starts at the next token.
    pub(super) fn at_type_start(&self) -> bool {
        match self.peek() {
            Tok::Ident(w) => is_type_word(w),
            Tok::Punct('[' | '{' | '<') | Tok::Local(_) => true,
            _ => false,
        }
    }

    /// A type, with a function type's parameter list if one follows.
    pub(super) fn ty(&mut self) -> Result<Type, ParseError> {
        self.enter()?;
        let t = self.ty_inner();
        self.leave();
        let t = t?;
        if self.is_punct('(') {
            return self.function_type(t);
        }
        if self.is_punct('*') {
            return self.err("typed pointers (`T*`) are not supported: LLVM 17+ writes `ptr`");
        }
        Ok(t)
    }

    /// A type without a function type's parameter list.
    pub(super) fn ty_inner(&mut self) -> Result<Type, ParseError> {
        match self.bump() {
            Tok::Ident(w) => match w.as_str() {
                "void" => Ok(Type::Void),
                "half" => Ok(Type::Half),
                "bfloat" => Ok(Type::BFloat),
                "float" => Ok(Type::Float),
                "double" => Ok(Type::Double),
                "label" => Ok(Type::Label),
                "metadata" => Ok(Type::Metadata),
                "token" => Ok(Type::Token),
                "ptr" => {
                    if self.eat_ident("addrspace") {
                        Ok(Type::Ptr(self.addrspace_parens()?))
                    } else {
                        Ok(Type::Ptr(0))
                    }
                }
                _ => match int_width(&w) {
                    Some(n) if (1..=MAX_INT_BITS).contains(&n) => Ok(Type::Int(n)),
                    _ => {
                        self.pos -= 1;
                        self.err(format!("unsupported type `{w}`"))
                    }
                },
            },
            Tok::Local(name) => Ok(Type::Named(name)),
            Tok::Punct('[') => {
                let n = self.u64()?;
                self.expect_ident("x")?;
                let elem = self.ty()?;
                self.expect_punct(']')?;
                Ok(Type::Array(n, Box::new(elem)))
            }
            Tok::Punct('{') => self.struct_body(false),
            Tok::Punct('<') => {
                if self.eat_punct('{') {
                    let t = self.struct_body(true)?;
                    self.expect_punct('>')?;
                    return Ok(t);
                }
                if self.eat_ident("vscale") {
                    return self.err("scalable vectors are not supported");
                }
                let n = self.u64()?;
                self.expect_ident("x")?;
                let elem = self.ty()?;
                self.expect_punct('>')?;
                Ok(Type::Vector(n, Box::new(elem)))
            }
            t => {
                self.pos -= 1;
                self.err(format!("expected a type, found {t}"))
            }
        }
    }

    /// After `{`: the fields and `}`.
    fn struct_body(&mut self, packed: bool) -> Result<Type, ParseError> {
        let mut fields = Vec::new();
        if !self.eat_punct('}') {
            loop {
                fields.push(self.ty()?);
                if self.eat_punct('}') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(Type::Struct { fields, packed })
    }

    /// After a return type: `(T, T, ...)`.
    fn function_type(&mut self, ret: Type) -> Result<Type, ParseError> {
        let (params, varargs) = self.parameter_list(Self::ty)?;
        Ok(Type::Function {
            ret: Box::new(ret),
            params,
            varargs,
        })
    }

    /// `(P, P, ...)` with each `P` read by `item`, and whether it ends in
    /// `...` (a function type's, or a definition's, parameters).
    pub(super) fn parameter_list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<(Vec<T>, bool), ParseError> {
        self.expect_punct('(')?;
        let mut params = Vec::new();
        if self.eat_punct(')') {
            return Ok((params, false));
        }
        loop {
            if *self.peek() == Tok::Ellipsis {
                self.bump();
                self.expect_punct(')')?;
                return Ok((params, true));
            }
            params.push(item(self)?);
            if self.eat_punct(')') {
                return Ok((params, false));
            }
            self.expect_punct(',')?;
        }
    }
}

fn int_width(w: &str) -> Option<u32> {
    let digits = w.strip_prefix('i')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "half"
            | "bfloat"
            | "float"
            | "double"
            | "ptr"
            | "label"
            | "metadata"
            | "token"
            | "x86_fp80"
            | "fp128"
            | "ppc_fp128"
            | "x86_amx"
            | "target"
    ) || int_width(w).is_some()
}
