//! libclang's syntax tree → the subset's typed tree ([`super::ast`]).
//! Every construct outside the subset is refused here, located and named.

#![allow(non_upper_case_globals)] // libclang's constants keep their C names

use super::ast::*;
use super::libclang::{Cursor, Location, Ty, Unit};
use crate::ir::Scope;
use crate::spec::ast::Span;
use crate::spec::diag::{Diagnostic, Source};
use clang_sys::*;
use std::collections::HashMap;

/// Path of the force-included stand-in for the CUDA headers.
pub const PRELUDE_PATH: &str = "/gsync-check/cuda_prelude.cuh";
pub const PRELUDE: &str = include_str!("prelude.cuh");
/// Path of the generated file that includes the harness's CUDA files.
pub const MAIN_PATH: &str = "/gsync-check/translation_unit.cu";

/// Places libclang locations in the combined source, appending each file
/// the first time one of its locations is needed.
pub struct Files<'s> {
    source: &'s mut Source,
    starts: HashMap<String, Option<u32>>,
}

impl<'s> Files<'s> {
    pub fn new(source: &'s mut Source) -> Files<'s> {
        Files {
            source,
            starts: HashMap::new(),
        }
    }

    fn start_of(&mut self, file: &str) -> Option<u32> {
        if let Some(s) = self.starts.get(file) {
            return *s;
        }
        let text = match file {
            PRELUDE_PATH => Some(PRELUDE.to_string()),
            MAIN_PATH => None,
            _ => std::fs::read_to_string(file).ok(),
        };
        let start = text.map(|t| self.source.append_file(file, &t));
        self.starts.insert(file.to_string(), start);
        start
    }

    /// A location as an offset in the combined source (the end of the
    /// spec's text when the file cannot be placed).
    pub fn offset(&mut self, at: &Location) -> u32 {
        match self.start_of(&at.file) {
            Some(start) => start + at.offset,
            None => self.source.files.first().map_or(0, |f| f.start),
        }
    }

    pub fn span_of(&mut self, c: &Cursor) -> Span {
        match c.extent() {
            Some((a, b)) => {
                let (s, e) = (self.offset(&a), self.offset(&b));
                Span::new(s as usize, e.max(s) as usize)
            }
            None => Span::default(),
        }
    }

    pub fn in_prelude(c: &Cursor) -> bool {
        c.location().is_some_and(|l| l.file == PRELUDE_PATH)
    }
}

/// Converts every device function and file-scope device variable of `unit`.
pub fn program(unit: &Unit, files: &mut Files) -> CProgram {
    let mut p = CProgram::default();
    let mut seen = std::collections::HashSet::new();
    collect(unit.root(), files, &mut p, &mut seen);
    p
}

fn collect(
    parent: Cursor,
    files: &mut Files,
    p: &mut CProgram,
    seen: &mut std::collections::HashSet<DeclId>,
) {
    for c in parent.children() {
        if Files::in_prelude(&c) {
            continue;
        }
        match c.kind() {
            CXCursor_Namespace | CXCursor_UnexposedDecl => collect(c, files, p, seen),
            CXCursor_FunctionDecl => {
                let space = fn_space(&c);
                p.declared.push((c.spelling(), space));
                if space != FnSpace::Host && c.is_definition() {
                    let f = Lower { files: &mut *files }.function(&c, space);
                    p.functions.push((c.spelling(), f));
                }
            }
            CXCursor_VarDecl => {
                // At file scope only the CUDA attributes make device memory
                // (`static` there is a host variable).
                let space = match var_space(&c) {
                    Storage::Device
                        if !has_child(&c, CXCursor_CUDADeviceAttr)
                            && !has_child(&c, CXCursor_CUDAConstantAttr) =>
                    {
                        Storage::Auto
                    }
                    other => other,
                };
                if space != Storage::Auto {
                    let id = decl_id(&c, files);
                    if seen.insert(id) {
                        p.globals.push(Lower { files: &mut *files }.var(&c, space));
                    }
                }
            }
            _ => {}
        }
    }
}

fn has_child(c: &Cursor, kind: CXCursorKind) -> bool {
    c.children().iter().any(|k| k.kind() == kind)
}

fn fn_space(c: &Cursor) -> FnSpace {
    if has_child(c, CXCursor_CUDAGlobalAttr) {
        FnSpace::Global
    } else if has_child(c, CXCursor_CUDADeviceAttr) {
        FnSpace::Device
    } else {
        FnSpace::Host
    }
}

fn var_space(c: &Cursor) -> Storage {
    if has_child(c, CXCursor_CUDASharedAttr) {
        Storage::Shared
    } else if has_child(c, CXCursor_CUDADeviceAttr)
        || has_child(c, CXCursor_CUDAConstantAttr)
        || c.storage_class() == CX_SC_Static
    {
        Storage::Device
    } else {
        Storage::Auto
    }
}

/// A declaration's identity: where its first declaration's name is.
pub fn decl_id(c: &Cursor, files: &mut Files) -> DeclId {
    c.canonical().location().map_or(0, |l| files.offset(&l))
}

struct Lower<'f, 's> {
    files: &'f mut Files<'s>,
}

type R<T> = Result<T, Diagnostic>;

/// A refusal: the construct, where it is, and how to stay in the subset.
fn outside(span: Span, what: impl Into<String>) -> Diagnostic {
    Diagnostic::new(span, format!("{} is outside the CUDA subset gsync-check reads", what.into()))
        .label("not supported")
        .hint("see the book's chapter `Checking CUDA` for the subset; a harness can call the functions that stay inside it")
}

fn is_expr_kind(k: CXCursorKind) -> bool {
    (CXCursor_UnexposedExpr..=CXCursor_PackIndexingExpr).contains(&k)
        || k == CXCursor_BuiltinBitCastExpr
}

impl Lower<'_, '_> {
    fn span(&mut self, c: &Cursor) -> Span {
        self.files.span_of(c)
    }

    fn function(&mut self, c: &Cursor, space: FnSpace) -> R<CFunction> {
        let span = self.span(c);
        let mut params = Vec::new();
        let mut body = None;
        for k in c.children() {
            match k.kind() {
                CXCursor_ParmDecl => params.push(self.var(&k, Storage::Auto)?),
                CXCursor_CompoundStmt => body = Some(k),
                _ => {}
            }
        }
        let body_cursor = body.ok_or_else(|| outside(span, "a function without a body"))?;
        let end = {
            let s = self.span(&body_cursor);
            Span::new(s.end.saturating_sub(1) as usize, s.end as usize)
        };
        let stmts = match self.stmt(&body_cursor)?.kind {
            CStmtKind::Block(s) => s,
            _ => unreachable!("a compound statement lowers to a block"),
        };
        let ret = self.ctype(c.result_type());
        Ok(CFunction {
            name: c.spelling(),
            id: decl_id(c, self.files),
            space,
            params,
            ret,
            body: stmts,
            span,
            end,
        })
    }

    fn var(&mut self, c: &Cursor, storage: Storage) -> R<CVar> {
        let span = self.span(c);
        let raw = c.ty();
        let ty = self.ctype(raw);
        let init = c
            .children()
            .into_iter()
            .rfind(|k| is_expr_kind(k.kind()))
            .map(|k| self.expr(&k))
            .transpose()?;
        Ok(CVar {
            id: decl_id(c, self.files),
            name: c.spelling(),
            volatile: raw.is_volatile() || raw.canonical().is_volatile(),
            ty,
            storage,
            init,
            span,
        })
    }

    fn ctype(&mut self, t: Ty) -> CType {
        let c = t.canonical();
        match c.kind() {
            CXType_Void => CType::Void,
            CXType_Bool => CType::Bool,
            CXType_Char_S | CXType_SChar => CType::Int {
                bits: 8,
                signed: true,
            },
            CXType_Char_U | CXType_UChar => CType::Int {
                bits: 8,
                signed: false,
            },
            CXType_Short => CType::Int {
                bits: 16,
                signed: true,
            },
            CXType_UShort => CType::Int {
                bits: 16,
                signed: false,
            },
            CXType_Int => CType::Int {
                bits: 32,
                signed: true,
            },
            CXType_UInt => CType::Int {
                bits: 32,
                signed: false,
            },
            CXType_Long | CXType_LongLong => CType::Int {
                bits: 64,
                signed: true,
            },
            CXType_ULong | CXType_ULongLong => CType::Int {
                bits: 64,
                signed: false,
            },
            CXType_Float => CType::Float { bits: 32 },
            CXType_Double => CType::Float { bits: 64 },
            CXType_Enum => CType::Enum,
            CXType_Pointer => {
                let p = c.pointee();
                CType::Pointer(Box::new(Pointee {
                    volatile: p.is_volatile(),
                    ty: self.ctype(p),
                }))
            }
            CXType_LValueReference => CType::Reference(Box::new(self.ctype(c.pointee()))),
            CXType_ConstantArray => CType::Array(
                Box::new(self.ctype(c.element())),
                c.array_len().max(0) as u32,
            ),
            CXType_Record => {
                let full = c.spelling();
                let spelling = full
                    .trim_start_matches("volatile ")
                    .trim_start_matches("const ")
                    .trim_start_matches("volatile ")
                    .to_string();
                let by_ref = spelling.starts_with("cuda::atomic_ref<");
                if by_ref || spelling.starts_with("cuda::atomic<") {
                    let value = match c.template_arg_types().first() {
                        Some(v) => self.ctype(*v),
                        None => CType::Other(spelling.clone()),
                    };
                    CType::Atomic {
                        value: Box::new(value),
                        scope: atomic_scope(&spelling),
                        by_ref,
                    }
                } else {
                    CType::Other(spelling)
                }
            }
            _ => CType::Other(t.spelling()),
        }
    }

    // ----- statements ---------------------------------------------------

    fn stmt(&mut self, c: &Cursor) -> R<CStmt> {
        let span = self.span(c);
        let kids = c.children();
        let kind = match c.kind() {
            CXCursor_CompoundStmt => {
                CStmtKind::Block(kids.iter().map(|k| self.stmt(k)).collect::<R<_>>()?)
            }
            CXCursor_DeclStmt => {
                let mut vars = Vec::new();
                for k in &kids {
                    match k.kind() {
                        CXCursor_VarDecl => {
                            vars.push(self.var(k, var_space(k))?);
                        }
                        _ => {
                            return Err(outside(
                                self.span(k),
                                format!("the declaration `{}`", k.spelling()),
                            ))
                        }
                    }
                }
                CStmtKind::Decl(vars)
            }
            CXCursor_IfStmt => {
                self.plain_condition(&kids, span, "if")?;
                let cond = self.expr(&kids[0])?;
                let then = Box::new(self.stmt(&kids[1])?);
                let otherwise = kids.get(2).map(|k| self.stmt(k)).transpose()?.map(Box::new);
                CStmtKind::If {
                    cond,
                    then,
                    otherwise,
                }
            }
            CXCursor_WhileStmt => {
                self.plain_condition(&kids, span, "while")?;
                CStmtKind::While {
                    cond: self.expr(&kids[0])?,
                    body: Box::new(self.stmt(&kids[1])?),
                }
            }
            CXCursor_DoStmt => CStmtKind::DoWhile {
                body: Box::new(self.stmt(&kids[0])?),
                cond: self.expr(&kids[1])?,
            },
            CXCursor_ForStmt => self.for_stmt(c, &kids, span)?,
            CXCursor_BreakStmt => CStmtKind::Break,
            CXCursor_ContinueStmt => CStmtKind::Continue,
            CXCursor_ReturnStmt => {
                CStmtKind::Return(kids.first().map(|k| self.expr(k)).transpose()?)
            }
            CXCursor_NullStmt => CStmtKind::Empty,
            CXCursor_AsmStmt => CStmtKind::Asm(self.asm(c, &kids, span)?),
            k if is_expr_kind(k) => CStmtKind::Expr(self.expr(c)?),
            CXCursor_SwitchStmt => return Err(outside(span, "`switch`")),
            CXCursor_GotoStmt | CXCursor_IndirectGotoStmt => return Err(outside(span, "`goto`")),
            CXCursor_LabelStmt => return Err(outside(span, "a label")),
            CXCursor_CXXTryStmt => return Err(outside(span, "`try`")),
            CXCursor_CXXForRangeStmt => return Err(outside(span, "a range-based `for`")),
            _ => return Err(outside(span, format!("the statement `{}`", c.kind_name()))),
        };
        Ok(CStmt { kind, span })
    }

    /// `if`/`while` with a declaration in the condition are refused.
    fn plain_condition(&mut self, kids: &[Cursor], span: Span, word: &str) -> R<()> {
        match kids.first() {
            Some(k) if is_expr_kind(k.kind()) && kids.len() >= 2 => Ok(()),
            _ => Err(outside(
                span,
                format!("a declaration in the condition of `{word}`"),
            )),
        }
    }

    /// libclang leaves empty parts of `for (init; cond; step)` out of the
    /// children, so each child is placed by where it starts relative to the
    /// header's two semicolons.
    fn for_stmt(&mut self, c: &Cursor, kids: &[Cursor], span: Span) -> R<CStmtKind> {
        let tokens = c.tokens();
        let mut depth = 0;
        let mut semis = Vec::new();
        let mut close = None;
        for t in &tokens {
            match t.text.as_str() {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        close = t.at.clone();
                        break;
                    }
                }
                ";" if depth == 1 => semis.push(t.at.clone()),
                _ => {}
            }
        }
        let (Some(Some(s1)), Some(Some(s2)), Some(close)) = (semis.first(), semis.get(1), close)
        else {
            return Err(outside(span, "this `for` header (it comes from a macro)"));
        };
        let (s1, s2, close) = (
            self.files.offset(s1),
            self.files.offset(s2),
            self.files.offset(&close),
        );
        let (body, header) = kids
            .split_last()
            .ok_or_else(|| outside(span, "a `for` without a body"))?;
        let (mut init, mut cond, mut step) = (None, None, None);
        for k in header {
            let start = self.span(k).start;
            if start < s1 {
                init = Some(Box::new(self.stmt(k)?));
            } else if start < s2 {
                cond = Some(self.expr(k)?);
            } else if start < close {
                step = Some(self.expr(k)?);
            }
        }
        Ok(CStmtKind::For {
            init,
            cond,
            step,
            body: Box::new(self.stmt(body)?),
        })
    }

    /// `asm volatile("tmpl" : "=r"(out) : "r"(in), "l"(ptr) : "memory")`:
    /// the template and constraints come from the tokens, the operand
    /// expressions from the children (outputs first).
    fn asm(&mut self, c: &Cursor, kids: &[Cursor], span: Span) -> R<AsmStmt> {
        let tokens: Vec<String> = c.tokens().into_iter().map(|t| t.text).collect();
        let open = tokens
            .iter()
            .position(|t| t == "(")
            .ok_or_else(|| outside(span, "this `asm` statement"))?;
        let mut template = String::new();
        let mut i = open + 1;
        while let Some(t) = tokens.get(i).filter(|t| t.starts_with('"')) {
            template.push_str(&unquote(t));
            i += 1;
        }
        // Constraints per section, in order: `"=r"`, `"l"`, ...
        let mut sections: Vec<Vec<String>> = vec![Vec::new()];
        let mut depth = 0;
        for t in &tokens[i..] {
            match t.as_str() {
                "(" => depth += 1,
                ")" if depth == 0 => break,
                ")" => depth -= 1,
                ":" if depth == 0 => sections.push(Vec::new()),
                // C++ lexes `::` (no outputs) as one token.
                "::" if depth == 0 => {
                    sections.push(Vec::new());
                    sections.push(Vec::new());
                }
                s if depth == 0 && s.starts_with('"') => {
                    sections.last_mut().expect("one section").push(unquote(s))
                }
                _ => {}
            }
        }
        let outs = sections.get(1).cloned().unwrap_or_default();
        let ins = sections.get(2).cloned().unwrap_or_default();
        let exprs: Vec<&Cursor> = kids.iter().filter(|k| is_expr_kind(k.kind())).collect();
        if exprs.len() != outs.len() + ins.len() {
            return Err(outside(span, "this `asm` statement's operands"));
        }
        let mut operands = Vec::new();
        for (constraint, e) in outs.iter().chain(&ins).zip(exprs) {
            operands.push((constraint.clone(), self.expr(e)?));
        }
        let inputs = operands.split_off(outs.len());
        Ok(AsmStmt {
            template,
            outputs: operands,
            inputs,
        })
    }

    // ----- expressions --------------------------------------------------

    fn expr(&mut self, c: &Cursor) -> R<CExpr> {
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
            CXCursor_FloatingLiteral => return Err(outside(span, "a floating-point value")),
            CXCursor_StringLiteral => return Err(outside(span, "a string")),
            CXCursor_DeclRefExpr => self.decl_ref(c, ty, span)?,
            CXCursor_MemberRefExpr => self.member(c, &kids, ty, span)?,
            CXCursor_UnaryOperator => {
                let op = match c.unary_op() {
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
                    _ => return Err(outside(span, "this unary operator")),
                };
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
            CXCursor_UnexposedExpr => match kids.as_slice() {
                // An implicit conversion (or a wrapper clang does not expose).
                [inner] if is_expr_kind(inner.kind()) => {
                    let inner = self.expr(inner)?;
                    if same_value_type(&inner.ty, &ty) {
                        CExpr { span, ..inner }
                    } else {
                        node(CExprKind::Cast(Box::new(inner)), ty)
                    }
                }
                // A default argument, or another constant clang folds.
                [] => match c.evaluate_int() {
                    Some(v) => node(CExprKind::Int(v), ty),
                    None => {
                        return Err(outside(span, format!("the expression `{}`", token_text(c))))
                    }
                },
                _ => return Err(outside(span, format!("the expression `{}`", token_text(c)))),
            },
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

/// The scope argument of `cuda::atomic_ref<T, S>` as clang spells the type.
fn atomic_scope(spelling: &str) -> Scope {
    let last = spelling
        .rsplit(',')
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('>')
        .trim();
    match last {
        s if s.ends_with("thread_scope_block") || s.ends_with("thread_scope_thread") => Scope::Cta,
        s if s.ends_with("thread_scope_device") => Scope::Gpu,
        "2" | "3" => Scope::Cta,
        "1" => Scope::Gpu,
        _ => Scope::Sys,
    }
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

/// The text of a C string literal token (escapes `\n`, `\t`, `\"`, `\\`).
fn unquote(token: &str) -> String {
    let inner = token.trim_start_matches('"').trim_end_matches('"');
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(ch) = chars.next() {
        if ch == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_scopes_from_type_spellings() {
        assert_eq!(
            atomic_scope("cuda::atomic_ref<unsigned int, cuda::thread_scope_device>"),
            Scope::Gpu
        );
        assert_eq!(
            atomic_scope("cuda::atomic_ref<int, cuda::thread_scope_block>"),
            Scope::Cta
        );
        assert_eq!(atomic_scope("cuda::atomic<int, 1>"), Scope::Gpu);
        assert_eq!(
            atomic_scope("cuda::atomic<int, cuda::thread_scope_system>"),
            Scope::Sys
        );
    }

    #[test]
    fn unquotes_string_tokens() {
        assert_eq!(
            unquote("\"ld.acquire.gpu.u32 %0, [%1];\""),
            "ld.acquire.gpu.u32 %0, [%1];"
        );
        assert_eq!(unquote("\"a\\n\\tb\""), "a\n\tb");
    }
}
