//! Values: names, constants, aggregates and the constant expressions
//! clang and opt leave in operands (`getelementptr (...)`, casts, a few
//! binary operators).

use super::Parser;
use crate::llvm::ir::{BinOp, CastOp, ConstExpr, InstrKind, Operand, Type, Value};
use crate::llvm::lexer::{ParseError, Tok};

impl Parser {
    /// `T v`: a typed value (argument attributes between them skipped).
    pub(super) fn operand(&mut self) -> Result<Operand, ParseError> {
        let ty = self.ty()?;
        self.param_attributes()?;
        let value = self.value(&ty)?;
        Ok(Operand { ty, value })
    }

    /// A value of type `ty`.
    pub(super) fn value(&mut self, ty: &Type) -> Result<Value, ParseError> {
        self.enter()?;
        let v = self.value_inner(ty);
        self.leave();
        v
    }

    fn value_inner(&mut self, ty: &Type) -> Result<Value, ParseError> {
        if *ty == Type::Metadata {
            return self.metadata_value();
        }
        match self.peek().clone() {
            Tok::Local(n) => {
                self.bump();
                Ok(Value::Local(n))
            }
            Tok::Global(n) => {
                self.bump();
                Ok(Value::Global(n))
            }
            Tok::Int(n) => {
                self.bump();
                Ok(Value::Int(n))
            }
            Tok::Float(s) => {
                self.bump();
                Ok(Value::Float(s))
            }
            Tok::CStr(b) => {
                self.bump();
                Ok(Value::Bytes(b))
            }
            Tok::Punct('{') => {
                self.bump();
                self.aggregate('}')
            }
            Tok::Punct('[') => {
                self.bump();
                self.aggregate(']')
            }
            Tok::Punct('<') => {
                self.bump();
                if self.eat_punct('{') {
                    let v = self.aggregate('}')?;
                    self.expect_punct('>')?;
                    return Ok(v);
                }
                self.aggregate('>')
            }
            Tok::Ident(w) => {
                self.bump();
                match w.as_str() {
                    "true" => Ok(Value::Int(1)),
                    "false" => Ok(Value::Int(0)),
                    "null" => Ok(Value::Null),
                    "undef" => Ok(Value::Undef),
                    "poison" => Ok(Value::Poison),
                    "zeroinitializer" => Ok(Value::Zero),
                    "none" => Ok(Value::NoneToken),
                    "blockaddress" => {
                        self.expect_punct('(')?;
                        let f = match self.bump() {
                            Tok::Global(f) => f,
                            _ => return self.expected("`@function`"),
                        };
                        self.expect_punct(',')?;
                        let b = match self.bump() {
                            Tok::Local(b) => b,
                            _ => return self.expected("`%block`"),
                        };
                        self.expect_punct(')')?;
                        Ok(Value::BlockAddress(f, b))
                    }
                    "dso_local_equivalent" | "no_cfi" => self.value(ty),
                    _ => self.const_expr(&w),
                }
            }
            t => self.err(format!("expected a value, found {t}")),
        }
    }

    /// After the opening bracket: `T v, ...` and `close`.
    fn aggregate(&mut self, close: char) -> Result<Value, ParseError> {
        let mut elems = Vec::new();
        if !self.eat_punct(close) {
            loop {
                elems.push(self.operand()?);
                if self.eat_punct(close) {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(Value::Aggregate(elems))
    }

    /// After the keyword `w`: `getelementptr [inbounds] (T, T v, ...)`,
    /// `CAST (T v to T)`, `BINOP (T a, T b)`.
    fn const_expr(&mut self, w: &str) -> Result<Value, ParseError> {
        let expr = if w == "getelementptr" {
            let mut inbounds = false;
            loop {
                match self.peek().clone() {
                    Tok::Ident(f) if f == "inbounds" || f == "nuw" || f == "nusw" => {
                        inbounds |= f == "inbounds";
                        self.bump();
                    }
                    Tok::Ident(f) if f == "inrange" => {
                        self.bump();
                        self.skip_parens()?;
                    }
                    _ => break,
                }
            }
            self.expect_punct('(')?;
            let source = self.ty()?;
            let mut operands = Vec::new();
            while self.eat_punct(',') {
                if self.eat_ident("inrange") {
                    self.skip_parens()?;
                }
                operands.push(self.operand()?);
            }
            self.expect_punct(')')?;
            let ty = operands
                .first()
                .map(|o| o.ty.clone())
                .unwrap_or(Type::Ptr(0));
            ConstExpr {
                kind: InstrKind::GetElementPtr { source, inbounds },
                ty,
                operands,
            }
        } else if let Some(op) = CastOp::from_name(w) {
            self.expect_punct('(')?;
            let from = self.operand()?;
            self.expect_ident("to")?;
            let ty = self.ty()?;
            self.expect_punct(')')?;
            ConstExpr {
                kind: InstrKind::Cast(op),
                ty,
                operands: vec![from],
            }
        } else if let Some(op) = BinOp::from_name(w) {
            while self.eat_ident("nuw") || self.eat_ident("nsw") {}
            self.expect_punct('(')?;
            let a = self.operand()?;
            self.expect_punct(',')?;
            let b = self.operand()?;
            self.expect_punct(')')?;
            ConstExpr {
                kind: InstrKind::Binary(op),
                ty: a.ty.clone(),
                operands: vec![a, b],
            }
        } else {
            self.pos -= 1;
            return self.err(format!("unsupported constant `{w}`"));
        };
        Ok(Value::Expr(Box::new(expr)))
    }
}
