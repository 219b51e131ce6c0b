//! Expressions, with their C types; clang's implicit conversions become
//! explicit casts where they change the value type.

#![allow(non_upper_case_globals)] // libclang's constants keep their C names

use super::{decl_id, is_expr_kind, outside, Files, Lower, R};
use crate::clang_front::ast::*;
use crate::clang_front::libclang::Cursor;
use crate::spec::ast::Span;
use clang_sys::*;

impl Lower<'_, '_> {
    pub(super) fn expr(&mut self, c: &Cursor) -> R<CExpr> {
        let span = self.span(c);
        let ty = self.ctype(c.ty());
        let kids = c.children();
        let node = |kind: CExprKind, ty: CType| CExpr { kind, ty, span };
        Ok(match c.kind() {
            CXCursor_ParenExpr => {
                let inner = self.expr(&kids[0])?;
                CExpr { span, ..inner }
            }
            CXCursor_IntegerLiteral
            | CXCursor_CharacterLiteral
            | CXCursor_CXXBoolLiteralExpr
            | CXCursor_UnaryExpr => {
                let v = c
                    .evaluate_int()
                    .ok_or_else(|| outside(span, "this constant"))?;
                node(CExprKind::Int(v), ty)
            }
            CXCursor_CXXNullPtrLiteralExpr | CXCursor_GNUNullExpr => node(CExprKind::Null, ty),
            // A `float` literal is its bits (clang evaluates it as the
            // double it equals exactly); a `double` one is refused by type.
            CXCursor_FloatingLiteral if ty == (CType::Float { bits: 32 }) => {
                let v = c
                    .evaluate_float()
                    .ok_or_else(|| outside(span, "this constant"))?;
                node(CExprKind::Int(i64::from((v as f32).to_bits())), ty)
            }
            CXCursor_FloatingLiteral => return Err(outside(span, "a `double` constant")),
            CXCursor_StringLiteral => return Err(outside(span, "a string")),
            CXCursor_DeclRefExpr => self.decl_ref(c, ty, span)?,
            CXCursor_MemberRefExpr => self.member(c, &kids, ty, span)?,
            CXCursor_UnaryOperator => {
                let op = unop(c.unary_op()).ok_or_else(|| outside(span, "this unary operator"))?;
                node(CExprKind::Unary(op, Box::new(self.expr(&kids[0])?)), ty)
            }
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator => {
                let (a, b) = (self.expr(&kids[0])?, self.expr(&kids[1])?);
                let kind = match binop(c.binary_op()) {
                    Some(Ok(op)) => CExprKind::Binary(op, Box::new(a), Box::new(b)),
                    Some(Err(op)) => CExprKind::Assign(op, Box::new(a), Box::new(b)),
                    None => return Err(outside(span, "this binary operator")),
                };
                node(kind, ty)
            }
            CXCursor_ConditionalOperator => node(
                CExprKind::Cond(
                    Box::new(self.expr(&kids[0])?),
                    Box::new(self.expr(&kids[1])?),
                    Box::new(self.expr(&kids[2])?),
                ),
                ty,
            ),
            CXCursor_ArraySubscriptExpr => node(
                CExprKind::Index(
                    Box::new(self.expr(&kids[0])?),
                    Box::new(self.expr(&kids[1])?),
                ),
                ty,
            ),
            CXCursor_CStyleCastExpr
            | CXCursor_CXXStaticCastExpr
            | CXCursor_CXXReinterpretCastExpr
            | CXCursor_CXXConstCastExpr
            | CXCursor_CXXFunctionalCastExpr => {
                let inner = kids
                    .iter()
                    .rfind(|k| is_expr_kind(k.kind()))
                    .ok_or_else(|| outside(span, "this cast"))?;
                node(CExprKind::Cast(Box::new(self.expr(inner)?)), ty)
            }
            CXCursor_CXXDynamicCastExpr => return Err(outside(span, "`dynamic_cast`")),
            CXCursor_CallExpr => self.call(c, &kids, ty, span)?,
            CXCursor_UnexposedExpr => self.unexposed(c, &kids, ty, span)?,
            CXCursor_InitListExpr => return Err(outside(span, "a brace initializer")),
            CXCursor_LambdaExpr => return Err(outside(span, "a lambda")),
            CXCursor_CXXThisExpr => return Err(outside(span, "`this`")),
            CXCursor_CXXNewExpr | CXCursor_CXXDeleteExpr => {
                return Err(outside(span, "`new`/`delete`"))
            }
            _ => {
                return Err(outside(
                    span,
                    format!("the expression `{}` ({})", token_text(c), c.kind_name()),
                ))
            }
        })
    }

    /// An implicit conversion (or a wrapper clang does not expose), or a
    /// default argument or another constant clang folds.
    fn unexposed(&mut self, c: &Cursor, kids: &[Cursor], ty: CType, span: Span) -> R<CExpr> {
        let kind = match kids {
            [inner] if is_expr_kind(inner.kind()) => {
                let inner = self.expr(inner)?;
                if same_value_type(&inner.ty, &ty) {
                    return Ok(CExpr { span, ..inner });
                }
                CExprKind::Cast(Box::new(inner))
            }
            [] => match c.evaluate_int() {
                Some(v) => CExprKind::Int(v),
                None => return Err(outside(span, format!("the expression `{}`", token_text(c)))),
            },
            _ => return Err(outside(span, format!("the expression `{}`", token_text(c)))),
        };
        Ok(CExpr { kind, ty, span })
    }

    fn decl_ref(&mut self, c: &Cursor, ty: CType, span: Span) -> R<CExpr> {
        let d = c.referenced().ok_or_else(|| outside(span, "this name"))?;
        let kind = match d.kind() {
            CXCursor_VarDecl | CXCursor_ParmDecl => {
                if Files::in_prelude(&d) {
                    match d.spelling().as_str() {
                        "warpSize" => CExprKind::WarpSize,
                        other => return Err(outside(span, format!("`{other}` used on its own"))),
                    }
                } else {
                    CExprKind::Var(decl_id(&d, self.files), d.spelling())
                }
            }
            CXCursor_EnumConstantDecl => {
                if Files::in_prelude(&d) {
                    CExprKind::Enumerator(d.spelling())
                } else {
                    CExprKind::Int(
                        c.evaluate_int()
                            .ok_or_else(|| outside(span, "this enumerator"))?,
                    )
                }
            }
            CXCursor_FunctionDecl => return Err(outside(span, "a function used as a value")),
            _ => return Err(outside(span, format!("the name `{}`", d.spelling()))),
        };
        Ok(CExpr { kind, ty, span })
    }

    /// `threadIdx.x` and friends; any other member access is a struct field.
    fn member(&mut self, c: &Cursor, kids: &[Cursor], ty: CType, span: Span) -> R<CExpr> {
        let field = c.spelling();
        let object = kids
            .first()
            .ok_or_else(|| outside(span, "this member access"))?;
        let base = strip_implicit(object);
        if base.kind() == CXCursor_DeclRefExpr {
            if let Some(d) = base.referenced().filter(Files::in_prelude) {
                let dim = match d.spelling().as_str() {
                    "threadIdx" => Some(Dim::ThreadIdx),
                    "blockIdx" => Some(Dim::BlockIdx),
                    "blockDim" => Some(Dim::BlockDim),
                    "gridDim" => Some(Dim::GridDim),
                    _ => None,
                };
                let axis = match field.as_str() {
                    "x" => Some(0),
                    "y" => Some(1),
                    "z" => Some(2),
                    _ => None,
                };
                if let (Some(dim), Some(axis)) = (dim, axis) {
                    return Ok(CExpr {
                        kind: CExprKind::Dim(dim, axis),
                        ty,
                        span,
                    });
                }
            }
        }
        Err(outside(
            span,
            format!("the member access `.{field}` (structs and classes are not modelled)"),
        ))
    }

    fn call(&mut self, c: &Cursor, kids: &[Cursor], ty: CType, span: Span) -> R<CExpr> {
        let decl = c.referenced();
        let name = c.spelling();
        let args = c
            .call_arguments()
            .iter()
            .map(|a| self.expr(a))
            .collect::<R<Vec<_>>>()?;
        let kind = match decl.as_ref().map(|d| d.kind()) {
            Some(CXCursor_Constructor) => CExprKind::Construct(args),
            Some(CXCursor_CXXMethod) => {
                let callee = kids.first().map(strip_implicit);
                let object = match callee {
                    Some(m) if m.kind() == CXCursor_MemberRefExpr => m.children().first().copied(),
                    _ => None,
                };
                match object {
                    Some(o) => CExprKind::Method(Box::new(self.expr(&o)?), name, args),
                    None => return Err(outside(span, format!("the operator call `{name}`"))),
                }
            }
            Some(CXCursor_FunctionDecl) => CExprKind::Call(name, args),
            _ => return Err(outside(span, format!("the call `{}`", token_text(c)))),
        };
        Ok(CExpr { kind, ty, span })
    }
}

/// Looks through implicit conversions and parentheses.
fn strip_implicit<'u>(c: &Cursor<'u>) -> Cursor<'u> {
    let mut c = *c;
    while matches!(c.kind(), CXCursor_UnexposedExpr | CXCursor_ParenExpr) {
        match c.children().as_slice() {
            [only] => c = *only,
            _ => break,
        }
    }
    c
}

/// Two types hold the same values (a conversion between them is a no-op).
fn same_value_type(a: &CType, b: &CType) -> bool {
    match (a, b) {
        (CType::Array(e, _), CType::Pointer(p)) => **e == p.ty,
        (CType::Reference(t), other) | (other, CType::Reference(t)) => **t == *other,
        _ => a == b,
    }
}

fn unop(k: CXUnaryOperatorKind) -> Option<CUnOp> {
    Some(match k {
        CXUnaryOperator_LNot => CUnOp::LNot,
        CXUnaryOperator_Not => CUnOp::BitNot,
        CXUnaryOperator_Minus => CUnOp::Neg,
        CXUnaryOperator_Plus => CUnOp::Plus,
        CXUnaryOperator_Deref => CUnOp::Deref,
        CXUnaryOperator_AddrOf => CUnOp::AddrOf,
        CXUnaryOperator_PreInc => CUnOp::PreInc,
        CXUnaryOperator_PreDec => CUnOp::PreDec,
        CXUnaryOperator_PostInc => CUnOp::PostInc,
        CXUnaryOperator_PostDec => CUnOp::PostDec,
        _ => return None,
    })
}

/// `Ok(op)` for an operator, `Err(compound)` for an assignment.
fn binop(k: CXBinaryOperatorKind) -> Option<Result<CBinOp, Option<CBinOp>>> {
    use CBinOp::*;
    Some(match k {
        CXBinaryOperator_Mul => Ok(Mul),
        CXBinaryOperator_Div => Ok(Div),
        CXBinaryOperator_Rem => Ok(Rem),
        CXBinaryOperator_Add => Ok(Add),
        CXBinaryOperator_Sub => Ok(Sub),
        CXBinaryOperator_Shl => Ok(Shl),
        CXBinaryOperator_Shr => Ok(Shr),
        CXBinaryOperator_LT => Ok(Lt),
        CXBinaryOperator_GT => Ok(Gt),
        CXBinaryOperator_LE => Ok(Le),
        CXBinaryOperator_GE => Ok(Ge),
        CXBinaryOperator_EQ => Ok(Eq),
        CXBinaryOperator_NE => Ok(Ne),
        CXBinaryOperator_And => Ok(BitAnd),
        CXBinaryOperator_Xor => Ok(BitXor),
        CXBinaryOperator_Or => Ok(BitOr),
        CXBinaryOperator_LAnd => Ok(LAnd),
        CXBinaryOperator_LOr => Ok(LOr),
        CXBinaryOperator_Comma => Ok(Comma),
        CXBinaryOperator_Assign => Err(None),
        CXBinaryOperator_MulAssign => Err(Some(Mul)),
        CXBinaryOperator_DivAssign => Err(Some(Div)),
        CXBinaryOperator_RemAssign => Err(Some(Rem)),
        CXBinaryOperator_AddAssign => Err(Some(Add)),
        CXBinaryOperator_SubAssign => Err(Some(Sub)),
        CXBinaryOperator_ShlAssign => Err(Some(Shl)),
        CXBinaryOperator_ShrAssign => Err(Some(Shr)),
        CXBinaryOperator_AndAssign => Err(Some(BitAnd)),
        CXBinaryOperator_XorAssign => Err(Some(BitXor)),
        CXBinaryOperator_OrAssign => Err(Some(BitOr)),
        _ => return None,
    })
}

fn token_text(c: &Cursor) -> String {
    let text: Vec<String> = c.tokens().into_iter().map(|t| t.text).collect();
    let joined = text.join(" ");
    if joined.len() > 60 {
        format!(
            "{}…",
            &joined[..joined
                .char_indices()
                .nth(57)
                .map_or(joined.len(), |(i, _)| i)]
        )
    } else {
        joined
    }
}
