//! The subset's typed tree → spec procedures, so the spec lowering does
//! the rest (inlining, control flow, every check).
//!
//! Pointers: every pointer the device code dereferences points into a
//! memory variable the front end knows statically (a harness buffer, a
//! `__shared__` or `__device__` variable); its run-time value is an element
//! offset, a thread-local `i32`. A device function is instantiated once per
//! assignment of buffers to its pointer parameters, as C++ would inline it.
//!
//! C arithmetic: the spec computes on 64-bit integers and wraps on stores;
//! C wraps every operation at the width of its type, so each result that
//! can leave its type's range is wrapped explicitly, and every conversion
//! clang made implicit is applied.

use super::ast::*;
use super::ptx;
use super::timing::Timing;
use crate::ir::Scope;
use crate::spec::ast::{self as s, BinOp, Ident, Span, Type, UnOp};
use crate::spec::diag::Diagnostic;
use std::collections::HashMap;

type R<T> = Result<T, Diagnostic>;

/// The offset a NULL pointer holds: far outside every variable, so a
/// dereference is an out-of-bounds access.
const NULL_OFFSET: i64 = -(1 << 30);

/// A memory variable a pointer points into.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub var: String,
    pub ty: Type,
    pub is_array: bool,
    pub shared: bool,
    pub volatile: bool,
}

/// A pointer value: its variable (`None`: NULL) and element offset.
struct Ptr {
    target: Option<Target>,
    offset: s::Expr,
    pointee: Pointee,
}

/// An assignable location.
enum Place {
    Local(String, Type),
    Mem {
        target: Target,
        offset: s::Expr,
        /// The access is volatile (the variable or the pointer says so).
        volatile: bool,
    },
}

/// What a pointer is set to: an expression, or itself plus a constant (`p++`).
enum PtrRhs<'p> {
    Expr(&'p CExpr),
    Delta(i64),
}

/// What a C declaration is in the generated spec.
#[derive(Clone, Debug)]
enum Binding {
    Value(String, Type),
    /// A pointer: its offset local and the variable it points into (once known).
    Pointer(String, Option<Target>, Pointee),
    /// A `__shared__`, `static` or `__device__` variable.
    Memory(Target),
    /// A `cuda::atomic_ref`: its object's variable and offset local.
    AtomicRef(Target, String, Scope),
    /// A local holding `clock()` time: only a back-off delay may read it.
    Clock,
}

/// One instantiation of a device function.
#[derive(Clone, PartialEq, Eq, Hash)]
struct InstanceKey {
    function: String,
    /// The variable each pointer parameter points into (`None`: not a pointer, or NULL).
    targets: Vec<Option<Target>>,
}

/// Builds the spec procedures for the device functions a harness calls.
pub struct Lowering<'p> {
    program: &'p CProgram,
    timing: Timing,
    /// Memory variables by spec name (harness buffers and hoisted ones).
    memory: HashMap<String, Target>,
    /// Declared spec variables for hoisted C variables, by declaration.
    hoisted: HashMap<DeclId, Target>,
    instances: HashMap<InstanceKey, String>,
    /// Instances still to generate.
    queue: Vec<(InstanceKey, String)>,
    /// Generated items: hoisted variables and procedures.
    pub items: Vec<s::Item>,
    /// Names used at the top level (spec items and generated ones).
    taken: std::collections::HashSet<String>,
}

impl<'p> Lowering<'p> {
    pub fn new(program: &'p CProgram, spec: &s::SpecFile, timing: Timing) -> Lowering<'p> {
        let mut memory = HashMap::new();
        let mut taken = std::collections::HashSet::new();
        for item in &spec.items {
            match item {
                s::Item::Var(v) => {
                    taken.insert(v.name.name.clone());
                    if v.storage != s::Storage::Local {
                        memory.insert(
                            v.name.name.clone(),
                            Target {
                                var: v.name.name.clone(),
                                ty: v.ty,
                                is_array: v.size.is_some(),
                                shared: v.storage == s::Storage::Shared,
                                volatile: v.volatile,
                            },
                        );
                    }
                }
                s::Item::Fn(f) => {
                    taken.insert(f.name.name.clone());
                }
                s::Item::Param(p) => {
                    taken.insert(p.name.name.clone());
                }
                s::Item::Harness(_) => {}
            }
        }
        Lowering {
            program,
            timing,
            memory,
            hoisted: HashMap::new(),
            instances: HashMap::new(),
            queue: Vec::new(),
            items: Vec::new(),
            taken,
        }
    }

    /// Declares the file-scope `__device__`/`__shared__` variables that
    /// convert, so the harness may name them (in invariants, say).
    pub fn declare_globals(&mut self) -> R<()> {
        for g in self.program.globals.iter().flatten() {
            // A variable of a type outside the subset is refused only if
            // device code the harness calls uses it.
            if self.taken.contains(&g.name) || spec_type(element_type(&g.ty), g.span).is_err() {
                continue;
            }
            self.hoist(g, &g.name.clone())?;
        }
        Ok(())
    }

    /// Rewrites a call the harness makes to a device function: the
    /// instance's name and the arguments (a pointer parameter takes a
    /// memory variable `buf` or `buf + offset`). `None`: not a device
    /// function.
    pub fn harness_call(&mut self, name: &Ident, args: &mut [s::Expr]) -> R<Option<String>> {
        let Some(f) = self.program.function(&name.name) else {
            return Ok(None);
        };
        let f = f.as_ref().map_err(Clone::clone)?;
        if args.len() != f.params.len() {
            return Err(Diagnostic::new(
                name.span,
                format!(
                    "`{}` takes {} argument(s), found {}",
                    f.name,
                    f.params.len(),
                    args.len()
                ),
            )
            .label("wrong number of arguments"));
        }
        let mut targets = Vec::new();
        for (p, a) in f.params.iter().zip(args.iter_mut()) {
            if p.ty.pointee().is_none() {
                targets.push(None);
                continue;
            }
            let (buffer, offset) = match &a.kind {
                s::ExprKind::Name(id) => (
                    id.clone(),
                    s::Expr {
                        kind: s::ExprKind::Int(0),
                        span: a.span,
                    },
                ),
                s::ExprKind::Binary(BinOp::Add, l, r) => match &l.kind {
                    s::ExprKind::Name(id) => (id.clone(), (**r).clone()),
                    _ => return Err(pointer_arg(a.span, &p.name)),
                },
                _ => return Err(pointer_arg(a.span, &p.name)),
            };
            let target = self.memory.get(&buffer.name).cloned().ok_or_else(|| {
                Diagnostic::new(
                    buffer.span,
                    format!(
                        "`{}` is not a global or shared variable of the harness",
                        buffer.name
                    ),
                )
                .label("not a buffer")
                .hint(format!(
                    "declare it, e.g. `global u32 {}[4] = 0;`",
                    buffer.name
                ))
            })?;
            *a = offset;
            targets.push(Some(target));
        }
        Ok(Some(self.instance(f, targets)))
    }

    /// The name of the instance, queueing it the first time.
    fn instance(&mut self, f: &CFunction, targets: Vec<Option<Target>>) -> String {
        let key = InstanceKey {
            function: f.name.clone(),
            targets,
        };
        if let Some(n) = self.instances.get(&key) {
            return n.clone();
        }
        let name = if self.instances.keys().any(|k| k.function == f.name) {
            let vars: Vec<&str> = key
                .targets
                .iter()
                .map(|t| t.as_ref().map_or("_", |t| t.var.as_str()))
                .collect();
            format!("{}<{}>", f.name, vars.join(","))
        } else {
            f.name.clone()
        };
        self.instances.insert(key.clone(), name.clone());
        self.queue.push((key, name.clone()));
        name
    }

    /// Generates every queued instance (and those they call).
    pub fn finish(&mut self) -> R<()> {
        while let Some((key, name)) = self.queue.pop() {
            let f = match self.program.function(&key.function) {
                Some(Ok(f)) => f,
                Some(Err(d)) => return Err(d.clone()),
                None => unreachable!("instances are made of defined functions"),
            };
            let decl = FnLower::new(self, f, &key).function(&name)?;
            self.items.push(s::Item::Fn(decl));
        }
        Ok(())
    }

    /// Declares a spec variable for a C memory variable.
    fn hoist(&mut self, v: &CVar, name: &str) -> R<Target> {
        if let Some(t) = self.hoisted.get(&v.id) {
            return Ok(t.clone());
        }
        let len = match &v.ty {
            CType::Array(_, n) => Some(*n),
            _ => None,
        };
        let ty = spec_type(element_type(&v.ty), v.span)?;
        let storage = match v.storage {
            Storage::Shared => s::Storage::Shared,
            _ => s::Storage::Global,
        };
        let init = match &v.init {
            None => s::Init::Zero,
            Some(e) => match &e.kind {
                CExprKind::Int(n) => s::Init::Expr(int(*n, e.span)),
                _ => {
                    return Err(Diagnostic::new(
                        e.span,
                        "the initial value of a device variable must be a constant",
                    )
                    .label("not a constant"))
                }
            },
        };
        let target = Target {
            var: name.to_string(),
            ty,
            is_array: len.is_some(),
            shared: storage == s::Storage::Shared,
            volatile: v.volatile,
        };
        self.items.push(s::Item::Var(s::VarDecl {
            storage,
            volatile: v.volatile,
            ty,
            name: ident(name, v.span),
            size: len.map(|n| int(i64::from(n), v.span)),
            init,
            span: v.span,
        }));
        self.taken.insert(name.to_string());
        self.memory.insert(name.to_string(), target.clone());
        self.hoisted.insert(v.id, target.clone());
        Ok(target)
    }
}

/// The type of one element of a memory variable (a `cuda::atomic<T>` holds a `T`).
fn element_type(t: &CType) -> &CType {
    match t {
        CType::Array(e, _) => element_type(e),
        CType::Atomic {
            value,
            by_ref: false,
            ..
        } => value,
        other => other,
    }
}

fn pointer_arg(span: Span, param: &str) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("the pointer parameter `{param}` needs a buffer"),
    )
    .label("not a buffer")
    .hint("pass a global or shared variable of the harness, `buf` or `buf + offset`")
}

// ----- small constructors ------------------------------------------------

fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

fn int(v: i64, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Int(v),
        span,
    }
}

fn name(n: &str, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Name(ident(n, span)),
        span,
    }
}

fn bin(op: BinOp, a: s::Expr, b: s::Expr, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

fn un(op: UnOp, a: s::Expr, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Unary(op, Box::new(a)),
        span,
    }
}

pub(super) fn call(n: &str, qualifiers: &[&str], args: Vec<s::Expr>, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Call {
            name: ident(n, span),
            qualifiers: qualifiers.iter().map(|q| ident(q, span)).collect(),
            args,
        },
        span,
    }
}

/// `local = value;`
fn set(local: &str, value: s::Expr, span: Span) -> s::Stmt {
    stmt(
        s::StmtKind::Assign {
            place: s::Place {
                name: ident(local, span),
                index: None,
                span,
            },
            op: s::AssignOp::Set,
            value,
        },
        span,
    )
}

fn stmt(kind: s::StmtKind, span: Span) -> s::Stmt {
    s::Stmt { kind, span }
}

fn block(stmts: Vec<s::Stmt>, span: Span) -> s::Block {
    s::Block { stmts, span }
}

/// The spec type of a C value type.
pub fn spec_type(t: &CType, span: Span) -> R<Type> {
    Ok(match t {
        CType::Bool => Type::Bool,
        CType::Int { bits: 8, signed } => {
            if *signed {
                Type::I8
            } else {
                Type::U8
            }
        }
        CType::Int { bits: 16, signed } => {
            if *signed {
                Type::I16
            } else {
                Type::U16
            }
        }
        CType::Int { bits: 32, signed } => {
            if *signed {
                Type::I32
            } else {
                Type::U32
            }
        }
        CType::Enum => Type::I32,
        CType::Int { bits: 64, .. } => {
            return Err(Diagnostic::new(
                span,
                "64-bit integers are not modelled yet (state words are 32 bits; issue 20)",
            )
            .label("64-bit")
            .hint("use a 32-bit type, or check a harness that avoids this function"))
        }
        CType::Float { .. } => {
            return Err(Diagnostic::new(
                span,
                "floating-point values are outside the CUDA subset gsync-check reads",
            )
            .label("floating point")
            .hint("a harness can call the functions that only use integers"))
        }
        other => {
            return Err(Diagnostic::new(
                span,
                format!(
                    "values of type `{}` are outside the CUDA subset gsync-check reads",
                    other.describe()
                ),
            )
            .label("unsupported type"))
        }
    })
}

/// Wraps `e` to the range of `t`, as C does after an operation that may
/// overflow (constants are folded at once).
pub fn wrap(e: s::Expr, t: &CType) -> s::Expr {
    let span = e.span;
    if let s::ExprKind::Int(v) = e.kind {
        if let Ok(ty) = spec_type(t, span) {
            return int(crate::ir::wrap(ty, v), span);
        }
    }
    match t {
        CType::Bool => bin(BinOp::Ne, e, int(0, span), span),
        CType::Int { bits, signed } if *bits < 64 => {
            let mask = (1i64 << bits) - 1;
            if *signed {
                let half = 1i64 << (bits - 1);
                let shifted = bin(BinOp::Add, e, int(half, span), span);
                bin(
                    BinOp::Sub,
                    bin(BinOp::BitAnd, shifted, int(mask, span), span),
                    int(half, span),
                    span,
                )
            } else {
                bin(BinOp::BitAnd, e, int(mask, span), span)
            }
        }
        _ => e,
    }
}

/// The width of one element of a variable of type `t` in device memory.
fn storage_bits(t: Type) -> u32 {
    match t {
        Type::Bool | Type::U8 | Type::I8 => 8,
        Type::U16 | Type::I16 => 16,
        Type::U32 | Type::I32 => 32,
    }
}

/// Whether every value of `from` is a value of `to`.
fn fits(from: &CType, to: &CType) -> bool {
    match (from, to) {
        (CType::Bool, CType::Int { .. }) => true,
        (
            CType::Int {
                bits: a,
                signed: sa,
            },
            CType::Int {
                bits: b,
                signed: sb,
            },
        ) => (sa == sb && a <= b) || (!sa && *sb && a < b),
        (
            CType::Enum,
            CType::Int {
                bits: 32,
                signed: true,
            },
        ) => true,
        _ => from == to,
    }
}

// ----- one function instance ---------------------------------------------

pub(super) struct FnLower<'l, 'p> {
    l: &'l mut Lowering<'p>,
    f: &'p CFunction,
    key: InstanceKey,
    bindings: HashMap<DeclId, Binding>,
    temps: u32,
}

impl<'l, 'p> FnLower<'l, 'p> {
    fn new(l: &'l mut Lowering<'p>, f: &'p CFunction, key: &InstanceKey) -> FnLower<'l, 'p> {
        FnLower {
            l,
            f,
            key: key.clone(),
            bindings: HashMap::new(),
            temps: 0,
        }
    }

    fn function(mut self, inst: &str) -> R<s::FnDecl> {
        let f = self.f;
        let mut params = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            match &p.ty {
                CType::Pointer(pointee) => {
                    let target = self.key.targets[i].clone();
                    let n = self.local_name(&p.name);
                    self.bindings.insert(
                        p.id,
                        Binding::Pointer(n.clone(), target, (**pointee).clone()),
                    );
                    params.push(s::FnParam {
                        ty: Type::I32,
                        name: ident(&n, p.span),
                    });
                }
                other => {
                    let ty = spec_type(other, p.span)?;
                    let n = self.local_name(&p.name);
                    self.bindings.insert(p.id, Binding::Value(n.clone(), ty));
                    params.push(s::FnParam {
                        ty,
                        name: ident(&n, p.span),
                    });
                }
            }
        }
        let ret = match &f.ret {
            CType::Void => None,
            other => Some(spec_type(other, f.span)?),
        };
        let mut body = Vec::new();
        for st in &f.body {
            self.stmt(st, &mut body)?;
        }
        if ret.is_some() && !matches!(f.body.last().map(|s| &s.kind), Some(CStmtKind::Return(_))) {
            // C leaves falling off a value-returning function undefined.
            let end = f.end;
            body.push(stmt(
                s::StmtKind::Assert {
                    cond: int(0, end),
                    message: Some(format!(
                        "control reaches the end of `{}` without `return`",
                        f.name
                    )),
                },
                end,
            ));
            body.push(stmt(s::StmtKind::Return(Some(int(0, end))), end));
        }
        Ok(s::FnDecl {
            name: ident(inst, f.span),
            params,
            ret,
            body: block(body, f.span),
            span: f.span,
        })
    }

    /// The spec name of a C local: its own, unless a top-level name (a
    /// harness buffer, say) would be hidden by it.
    fn local_name(&self, c_name: &str) -> String {
        if self.l.taken.contains(c_name) || crate::ir::RESERVED.contains(&c_name) {
            format!("{c_name}%")
        } else {
            c_name.to_string()
        }
    }

    fn temp_name(&mut self) -> String {
        self.temps += 1;
        format!("tmp%{}", self.temps)
    }

    /// `T tmp = value;` appended to `pre`; returns `tmp`.
    fn temp(&mut self, ty: Type, value: s::Expr, pre: &mut Vec<s::Stmt>) -> s::Expr {
        let span = value.span;
        let n = self.fresh_let(ty, value, pre);
        name(&n, span)
    }

    // ----- statements ----------------------------------------------------

    fn stmt(&mut self, st: &'p CStmt, out: &mut Vec<s::Stmt>) -> R<()> {
        let span = st.span;
        if self.l.timing.is_delay_loop(st, self.f) {
            out.push(self.delay(span));
            return Ok(());
        }
        match &st.kind {
            CStmtKind::Block(stmts) => {
                let mut inner = Vec::new();
                for x in stmts {
                    self.stmt(x, &mut inner)?;
                }
                out.push(stmt(s::StmtKind::Block(block(inner, span)), span));
            }
            CStmtKind::Decl(vars) => {
                for v in vars {
                    self.decl(v, out)?;
                }
            }
            CStmtKind::Expr(e) => self.effect(e, out)?,
            CStmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.cond(cond, out)?;
                let then_block = self.sub_block(then)?;
                let else_block = otherwise
                    .as_deref()
                    .map(|o| self.sub_block(o))
                    .transpose()?;
                out.push(stmt(
                    s::StmtKind::If {
                        cond: c,
                        then_block,
                        else_block,
                    },
                    span,
                ));
            }
            CStmtKind::While { cond, body } => {
                let mut pre = Vec::new();
                let c = self.cond(cond, &mut pre)?;
                let body = self.sub_block(body)?;
                out.push(self.loop_with(pre, c, body, span));
            }
            CStmtKind::DoWhile { body, cond } => {
                self.do_while(body, cond, span, out)?;
            }
            CStmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let mut init_stmts = Vec::new();
                if let Some(i) = init {
                    self.stmt(i, &mut init_stmts)?;
                }
                let mut pre = Vec::new();
                let c = cond.as_ref().map(|c| self.cond(c, &mut pre)).transpose()?;
                let mut step_stmts = Vec::new();
                if let Some(e) = step {
                    self.effect(e, &mut step_stmts)?;
                }
                let step = match step_stmts.len() {
                    0 => None,
                    1 => step_stmts.pop().map(Box::new),
                    _ => Some(Box::new(stmt(
                        s::StmtKind::Block(block(step_stmts, span)),
                        span,
                    ))),
                };
                let mut body = self.sub_block(body)?;
                let cond = match c {
                    Some(c) if !pre.is_empty() => {
                        pre.push(break_unless(c, span));
                        pre.append(&mut body.stmts);
                        body.stmts = pre;
                        None
                    }
                    c => c,
                };
                // `for (init; ...)`: the init's names belong to the loop.
                let init_stmt = match init_stmts.len() {
                    0 => None,
                    1 => init_stmts.pop().map(Box::new),
                    _ => {
                        let outer = std::mem::take(&mut init_stmts);
                        let f = stmt(
                            s::StmtKind::For {
                                init: None,
                                cond,
                                step,
                                body,
                            },
                            span,
                        );
                        let mut all = outer;
                        all.push(f);
                        out.push(stmt(s::StmtKind::Block(block(all, span)), span));
                        return Ok(());
                    }
                };
                out.push(stmt(
                    s::StmtKind::For {
                        init: init_stmt,
                        cond,
                        step,
                        body,
                    },
                    span,
                ));
            }
            CStmtKind::Break => out.push(stmt(s::StmtKind::Break, span)),
            CStmtKind::Continue => out.push(stmt(s::StmtKind::Continue, span)),
            CStmtKind::Return(v) => {
                let value = match v {
                    Some(e) if self.f.ret != CType::Void => {
                        Some(self.rvalue_as(e, &self.f.ret.clone(), out)?)
                    }
                    Some(e) => {
                        self.effect(e, out)?;
                        None
                    }
                    None => None,
                };
                out.push(stmt(s::StmtKind::Return(value), span));
            }
            CStmtKind::Empty => {}
            CStmtKind::Asm(a) => ptx::lower_asm(self, a, span, out)?,
        }
        Ok(())
    }

    fn sub_block(&mut self, st: &'p CStmt) -> R<s::Block> {
        let mut stmts = Vec::new();
        match &st.kind {
            CStmtKind::Block(inner) => {
                for x in inner {
                    self.stmt(x, &mut stmts)?;
                }
            }
            _ => self.stmt(st, &mut stmts)?,
        }
        Ok(block(stmts, st.span))
    }

    fn delay(&mut self, span: Span) -> s::Stmt {
        stmt(s::StmtKind::Expr(call("backoff", &[], vec![], span)), span)
    }

    /// `while (c) body`, or `while (true) { pre; if (!c) break; body }`
    /// when evaluating the condition takes statements.
    fn loop_with(
        &mut self,
        mut pre: Vec<s::Stmt>,
        c: s::Expr,
        mut body: s::Block,
        span: Span,
    ) -> s::Stmt {
        if pre.is_empty() {
            return stmt(s::StmtKind::While { cond: c, body }, span);
        }
        pre.push(break_unless(c, span));
        pre.append(&mut body.stmts);
        body.stmts = pre;
        stmt(
            s::StmtKind::While {
                cond: s::Expr {
                    kind: s::ExprKind::Bool(true),
                    span,
                },
                body,
            },
            span,
        )
    }

    /// `do body while (c)`: `while (true) { body; pre; if (!c) break; }`; a
    /// `continue` in the body must reach the condition, so then a flag
    /// skips the test on the first round instead.
    fn do_while(
        &mut self,
        body: &'p CStmt,
        cond: &'p CExpr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let mut pre = Vec::new();
        let c = self.cond(cond, &mut pre)?;
        let mut b = self.sub_block(body)?;
        let yes = s::Expr {
            kind: s::ExprKind::Bool(true),
            span,
        };
        if !continues(body) {
            b.stmts.append(&mut pre);
            b.stmts.push(break_unless(c, span));
            out.push(stmt(s::StmtKind::While { cond: yes, body: b }, span));
            return Ok(());
        }
        let first = self.temp_name();
        out.push(stmt(
            s::StmtKind::Let {
                ty: Type::Bool,
                name: ident(&first, span),
                init: Some(yes.clone()),
            },
            span,
        ));
        pre.push(break_unless(c, span));
        let test = stmt(
            s::StmtKind::If {
                cond: un(UnOp::Not, name(&first, span), span),
                then_block: block(pre, span),
                else_block: None,
            },
            span,
        );
        let clear = stmt(
            s::StmtKind::Assign {
                place: s::Place {
                    name: ident(&first, span),
                    index: None,
                    span,
                },
                op: s::AssignOp::Set,
                value: s::Expr {
                    kind: s::ExprKind::Bool(false),
                    span,
                },
            },
            span,
        );
        let mut stmts = vec![test, clear];
        stmts.append(&mut b.stmts);
        out.push(stmt(
            s::StmtKind::While {
                cond: yes,
                body: block(stmts, span),
            },
            span,
        ));
        Ok(())
    }

    fn decl(&mut self, v: &'p CVar, out: &mut Vec<s::Stmt>) -> R<()> {
        let span = v.span;
        if v.storage != Storage::Auto {
            if self.l.timing.drops_variable(v.id) {
                return Ok(());
            }
            let hoisted = format!("{}::{}", self.f.name, v.name);
            let t = self.l.hoist(v, &hoisted)?;
            self.bindings.insert(v.id, Binding::Memory(t));
            return Ok(());
        }
        match &v.ty {
            CType::Pointer(pointee) => {
                let (target, offset) = match &v.init {
                    Some(e) => {
                        let p = self.pointer(e, out)?;
                        (p.target, p.offset)
                    }
                    None => (None, int(NULL_OFFSET, span)),
                };
                let n = self.local_name(&v.name);
                out.push(stmt(s::StmtKind::Let { ty: Type::I32, name: ident(&n, span), init: Some(offset) }, span));
                self.bindings.insert(v.id, Binding::Pointer(n, target, (**pointee).clone()));
            }
            CType::Atomic { by_ref: true, scope, .. } => {
                let object = match v.init.as_ref().map(|e| &e.kind) {
                    Some(CExprKind::Construct(args)) if args.len() == 1 => &args[0],
                    _ => return Err(Diagnostic::new(span, "a `cuda::atomic_ref` must be made from one object")
                        .label("expected `cuda::atomic_ref<T, S> r(object);`")),
                };
                let Place::Mem { target, offset, .. } = self.place(object, out)? else {
                    return Err(Diagnostic::new(object.span, "a `cuda::atomic_ref` to a thread-local variable is outside the subset")
                        .label("not in memory"));
                };
                let holder = format!("{}%offset", v.name);
                out.push(stmt(s::StmtKind::Let { ty: Type::I32, name: ident(&holder, span), init: Some(offset) }, span));
                self.bindings.insert(v.id, Binding::AtomicRef(target, holder, *scope));
            }
            CType::Array(..) => {
                return Err(Diagnostic::new(span, format!("the thread-local array `{}` is outside the subset", v.name))
                    .label("local array")
                    .hint("declare it `__shared__` and index it by threadIdx.x, or pass a buffer from the harness"))
            }
            other => {
                // A clock reading needs no value: only a delay may use it.
                if v.init.as_ref().is_some_and(|e| self.l.timing.reads_clock(e)) {
                    self.bindings.insert(v.id, Binding::Clock);
                    return Ok(());
                }
                let ty = spec_type(other, span)?;
                let init = v.init.as_ref().map(|e| self.rvalue_as(e, other, out)).transpose()?;
                let n = self.local_name(&v.name);
                out.push(stmt(s::StmtKind::Let { ty, name: ident(&n, span), init }, span));
                self.bindings.insert(v.id, Binding::Value(n, ty));
            }
        }
        Ok(())
    }

    /// An expression evaluated for its effects (a statement).
    fn effect(&mut self, e: &'p CExpr, out: &mut Vec<s::Stmt>) -> R<()> {
        let span = e.span;
        match &e.kind {
            CExprKind::Assign(op, lhs, rhs) => {
                self.assign(*op, lhs, rhs, out)?;
            }
            CExprKind::Unary(
                op @ (CUnOp::PreInc | CUnOp::PostInc | CUnOp::PreDec | CUnOp::PostDec),
                a,
            ) => {
                let delta = if matches!(op, CUnOp::PreInc | CUnOp::PostInc) {
                    1
                } else {
                    -1
                };
                self.step(a, delta, out)?;
            }
            CExprKind::Binary(CBinOp::Comma, a, b) => {
                self.effect(a, out)?;
                self.effect(b, out)?;
            }
            CExprKind::Cast(inner) if e.ty == CType::Void => self.effect(inner, out)?,
            CExprKind::Call(..) | CExprKind::Method(..) => {
                let v = self.call_expr(e, out, false)?;
                if let Some(v) = v {
                    out.push(stmt(s::StmtKind::Expr(v), span));
                }
            }
            // A value nobody uses: only its loads happen, which the model
            // needs not see (reading a location and dropping the value).
            _ => {
                let mut pre = Vec::new();
                self.rvalue(e, &mut pre)?;
                out.append(&mut pre);
            }
        }
        Ok(())
    }

    /// `lhs op= rhs` as statements; returns the value assigned.
    fn assign(
        &mut self,
        op: Option<CBinOp>,
        lhs: &'p CExpr,
        rhs: &'p CExpr,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let span = lhs.span.to(rhs.span);
        if let Some(id) = var_id(lhs) {
            if self.l.timing.drops_variable(id) {
                return Ok(int(0, span));
            }
            if lhs.ty.pointee().is_some() {
                return self.assign_pointer(id, op, PtrRhs::Expr(rhs), span, out);
            }
            if self.l.timing.reads_clock(rhs) {
                self.bindings.insert(id, Binding::Clock);
                return Ok(int(0, span));
            }
        }
        let place = self.place(lhs, out)?;
        let value = match op {
            None => self.rvalue_as(rhs, &lhs.ty, out)?,
            Some(bop) => {
                let old = self.read_place(&place, span, out)?;
                // `a op= b` computes in the operands' common type; clang
                // leaves `a`'s own conversion implicit, so use the wider
                // of the two types.
                let r = self.rvalue(rhs, out)?;
                let ty = if fits(&lhs.ty, &rhs.ty) {
                    rhs.ty.clone()
                } else {
                    lhs.ty.clone()
                };
                wrap(arith(bop, old, r, &ty, span), &lhs.ty)
            }
        };
        self.write_place(place, value, span, out)
    }

    fn assign_pointer(
        &mut self,
        id: DeclId,
        op: Option<CBinOp>,
        rhs: PtrRhs<'p>,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let Some(Binding::Pointer(local, target, pointee)) = self.bindings.get(&id).cloned() else {
            return Err(
                Diagnostic::new(span, "assigning to this pointer is outside the subset")
                    .label("not a local pointer"),
            );
        };
        let (new_target, value) = match (op, rhs) {
            (_, PtrRhs::Delta(d)) => (
                target.clone(),
                bin(BinOp::Add, name(&local, span), int(d, span), span),
            ),
            (None, PtrRhs::Expr(rhs)) => {
                let p = self.pointer(rhs, out)?;
                (p.target, p.offset)
            }
            (Some(op @ (CBinOp::Add | CBinOp::Sub)), PtrRhs::Expr(rhs)) => {
                let d = self.rvalue(rhs, out)?;
                let b = if op == CBinOp::Add {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                (target.clone(), bin(b, name(&local, span), d, span))
            }
            (Some(_), _) => {
                return Err(
                    Diagnostic::new(span, "this pointer arithmetic is outside the subset")
                        .label("pointer"),
                )
            }
        };
        let merged = match (&target, new_target) {
            (Some(a), Some(b)) if *a != b => return Err(Diagnostic::new(
                span,
                format!(
                    "`{local}` would point into both `{}` and `{}`",
                    a.var, b.var
                ),
            )
            .label("second buffer")
            .hint(
                "the front end follows each pointer into one variable; use one pointer per buffer",
            )),
            (Some(a), _) => Some(a.clone()),
            (None, b) => b,
        };
        self.bindings
            .insert(id, Binding::Pointer(local.clone(), merged, pointee));
        out.push(stmt(
            s::StmtKind::Assign {
                place: s::Place {
                    name: ident(&local, span),
                    index: None,
                    span,
                },
                op: s::AssignOp::Set,
                value,
            },
            span,
        ));
        Ok(name(&local, span))
    }

    /// `x++`, `--x` as a statement.
    fn step(&mut self, a: &'p CExpr, delta: i64, out: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let span = a.span;
        if let Some(id) = var_id(a) {
            if self.l.timing.drops_variable(id) {
                return Ok(int(0, span));
            }
            if a.ty.pointee().is_some() {
                return self.assign_pointer(id, None, PtrRhs::Delta(delta), span, out);
            }
        }
        let place = self.place(a, out)?;
        let old = self.read_place(&place, span, out)?;
        let value = wrap(bin(BinOp::Add, old, int(delta, span), span), &a.ty);
        self.write_place(place, value, span, out)
    }

    fn read_place(&mut self, place: &Place, span: Span, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        Ok(match place {
            Place::Local(n, _) => name(n, span),
            Place::Mem {
                target,
                offset,
                volatile,
            } => {
                let e = self.load(target, offset.clone(), *volatile, span, pre)?;
                self.temp(target.ty, e, pre)
            }
        })
    }

    /// Stores `value`; returns an expression for the value stored.
    fn write_place(
        &mut self,
        place: Place,
        value: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        match place {
            Place::Local(n, _) => {
                out.push(stmt(
                    s::StmtKind::Assign {
                        place: s::Place {
                            name: ident(&n, span),
                            index: None,
                            span,
                        },
                        op: s::AssignOp::Set,
                        value,
                    },
                    span,
                ));
                Ok(name(&n, span))
            }
            Place::Mem {
                target,
                offset,
                volatile,
            } => {
                let kept = match value.kind {
                    s::ExprKind::Int(_) => value,
                    _ => self.temp(target.ty, value, out),
                };
                if volatile && !target.volatile {
                    let scope = if target.shared { "cta" } else { "gpu" };
                    let loc = self.location(&target, offset, span, out)?;
                    out.push(stmt(
                        s::StmtKind::Expr(call(
                            "store",
                            &["volatile", scope],
                            vec![loc, kept.clone()],
                            span,
                        )),
                        span,
                    ));
                } else {
                    let place = self.spec_place(&target, offset, span, out)?;
                    out.push(stmt(
                        s::StmtKind::Assign {
                            place,
                            op: s::AssignOp::Set,
                            value: kept.clone(),
                        },
                        span,
                    ));
                }
                Ok(kept)
            }
        }
    }

    /// The spec place of a memory location.
    fn spec_place(
        &mut self,
        t: &Target,
        offset: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Place> {
        let index = self.index_of(t, offset, span, out)?;
        Ok(s::Place {
            name: ident(&t.var, span),
            index: index.map(Box::new),
            span,
        })
    }

    /// The spec expression naming a memory location (an operation's argument).
    pub(super) fn location(
        &mut self,
        t: &Target,
        offset: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        Ok(match self.index_of(t, offset, span, out)? {
            Some(i) => s::Expr {
                kind: s::ExprKind::Index(ident(&t.var, span), Box::new(i)),
                span,
            },
            None => name(&t.var, span),
        })
    }

    /// The index into an array; a scalar takes offset 0 only.
    fn index_of(
        &mut self,
        t: &Target,
        offset: s::Expr,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<Option<s::Expr>> {
        if t.is_array {
            return Ok(Some(offset));
        }
        if !matches!(offset.kind, s::ExprKind::Int(0)) {
            out.push(stmt(
                s::StmtKind::Assert {
                    cond: bin(BinOp::Eq, offset, int(0, span), span),
                    message: Some(format!(
                        "a pointer to the scalar `{}` is used past it",
                        t.var
                    )),
                },
                span,
            ));
        }
        Ok(None)
    }

    fn load(
        &mut self,
        t: &Target,
        offset: s::Expr,
        volatile: bool,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let loc = self.location(t, offset, span, out)?;
        if volatile && !t.volatile {
            let scope = if t.shared { "cta" } else { "gpu" };
            return Ok(call("load", &["volatile", scope], vec![loc], span));
        }
        Ok(loc)
    }

    // ----- expressions ---------------------------------------------------

    /// A condition: the value of `e` (C converts it to bool already).
    fn cond(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        self.rvalue(e, pre)
    }

    /// The value of `e` converted to `ty`.
    fn rvalue_as(&mut self, e: &'p CExpr, ty: &CType, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let v = self.rvalue(e, pre)?;
        Ok(convert(v, &e.ty, ty))
    }

    /// The value of `e`, in the range of its type; statements its
    /// evaluation needs first go to `pre`.
    pub(super) fn rvalue(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let span = e.span;
        Ok(match &e.kind {
            CExprKind::Int(v) => int(*v, span),
            CExprKind::Null => int(NULL_OFFSET, span),
            CExprKind::Enumerator(n) => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{n}` is only meaningful as the order or scope of an atomic"),
                )
                .label("used as a value"))
            }
            CExprKind::Var(id, n) => match self.binding(*id, n, span)? {
                Binding::Value(local, _) => name(&local, span),
                Binding::Pointer(local, ..) => name(&local, span),
                Binding::Memory(t) => {
                    if t.is_array {
                        int(0, span) // the array decays to a pointer: offset 0
                    } else {
                        let vol = t.volatile;
                        self.load(&t, int(0, span), vol, span, pre)?
                    }
                }
                Binding::AtomicRef(..) => {
                    return Err(Diagnostic::new(
                        span,
                        "a `cuda::atomic_ref` used as a value is outside the subset",
                    )
                    .label("call a member: load(), store(), ..."))
                }
                Binding::Clock => return Err(clock_error(span)),
            },
            CExprKind::Dim(d, axis) => dim(*d, *axis, span),
            CExprKind::WarpSize => name("warp_size", span),
            CExprKind::Unary(op, a) => match op {
                CUnOp::LNot => un(UnOp::Not, self.rvalue(a, pre)?, span),
                CUnOp::BitNot => wrap(un(UnOp::BitNot, self.rvalue(a, pre)?, span), &e.ty),
                CUnOp::Neg => wrap(un(UnOp::Neg, self.rvalue(a, pre)?, span), &e.ty),
                CUnOp::Plus => self.rvalue(a, pre)?,
                CUnOp::Deref => {
                    let place = self.place(e, pre)?;
                    self.read_value(place, span, pre)?
                }
                CUnOp::AddrOf => self.pointer(e, pre)?.offset,
                CUnOp::PreInc | CUnOp::PreDec => {
                    let d = if *op == CUnOp::PreInc { 1 } else { -1 };
                    let v = self.step(a, d, pre)?;
                    self.snapshot(v, &a.ty, pre)?
                }
                CUnOp::PostInc | CUnOp::PostDec => {
                    let old = self.rvalue(a, pre)?;
                    let old = self.snapshot(old, &a.ty, pre)?;
                    let d = if *op == CUnOp::PostInc { 1 } else { -1 };
                    self.step(a, d, pre)?;
                    old
                }
            },
            CExprKind::Binary(op, a, b) => {
                if e.ty.pointee().is_some() {
                    return Ok(self.pointer(e, pre)?.offset);
                }
                match op {
                    CBinOp::Comma => {
                        self.effect(a, pre)?;
                        self.rvalue(b, pre)?
                    }
                    CBinOp::LAnd | CBinOp::LOr => {
                        let x = self.rvalue(a, pre)?;
                        let mut inner = Vec::new();
                        let y = self.rvalue(b, &mut inner)?;
                        let o = if *op == CBinOp::LAnd {
                            BinOp::And
                        } else {
                            BinOp::Or
                        };
                        if inner.is_empty() {
                            bin(o, x, y, span)
                        } else {
                            // The right side's statements run only when it is evaluated.
                            let t = self.fresh_let(Type::Bool, x, pre);
                            inner.push(set(&t, y, span));
                            let test = if *op == CBinOp::LAnd {
                                name(&t, span)
                            } else {
                                un(UnOp::Not, name(&t, span), span)
                            };
                            pre.push(stmt(
                                s::StmtKind::If {
                                    cond: test,
                                    then_block: block(inner, span),
                                    else_block: None,
                                },
                                span,
                            ));
                            name(&t, span)
                        }
                    }
                    _ => {
                        let x = self.rvalue(a, pre)?;
                        let y = self.rvalue(b, pre)?;
                        let operand_ty = a.ty.clone();
                        let v = arith(*op, x, y, &operand_ty, span);
                        if matches!(op, CBinOp::Add | CBinOp::Sub | CBinOp::Mul | CBinOp::Shl) {
                            wrap(v, &e.ty)
                        } else {
                            v
                        }
                    }
                }
            }
            CExprKind::Assign(op, lhs, rhs) => {
                let v = self.assign(*op, lhs, rhs, pre)?;
                self.snapshot(v, &lhs.ty, pre)?
            }
            CExprKind::Cond(c, a, b) => {
                let c = self.rvalue(c, pre)?;
                let (mut then_pre, mut else_pre) = (Vec::new(), Vec::new());
                let x = self.rvalue_as(a, &e.ty, &mut then_pre)?;
                let y = self.rvalue_as(b, &e.ty, &mut else_pre)?;
                if then_pre.is_empty() && else_pre.is_empty() {
                    s::Expr {
                        kind: s::ExprKind::Ternary(Box::new(c), Box::new(x), Box::new(y)),
                        span,
                    }
                } else {
                    // Each branch's statements run only on its side.
                    let t = self.fresh_let(spec_type(&e.ty, span)?, int(0, span), pre);
                    then_pre.push(set(&t, x, span));
                    else_pre.push(set(&t, y, span));
                    pre.push(stmt(
                        s::StmtKind::If {
                            cond: c,
                            then_block: block(then_pre, span),
                            else_block: Some(block(else_pre, span)),
                        },
                        span,
                    ));
                    name(&t, span)
                }
            }
            CExprKind::Index(..) => {
                let place = self.place(e, pre)?;
                self.read_value(place, span, pre)?
            }
            CExprKind::Cast(inner) => {
                if e.ty.pointee().is_some() {
                    return Ok(self.pointer(e, pre)?.offset);
                }
                if let (
                    CType::Atomic {
                        by_ref: false,
                        value,
                        ..
                    },
                    true,
                ) = (&inner.ty, e.ty.is_integer())
                {
                    // `cuda::atomic<T>` read as a `T`: a seq_cst load.
                    let _ = value;
                    return self
                        .atomic_member(inner, "load", &[], e, pre)
                        .map(|v| v.expect("load returns"));
                }
                let v = self.rvalue(inner, pre)?;
                if e.ty == CType::Void {
                    return Ok(int(0, span));
                }
                if !inner.ty.is_integer() && inner.ty.pointee().is_some() && e.ty == CType::Bool {
                    return Ok(bin(BinOp::Ne, v, int(NULL_OFFSET, span), span));
                }
                convert(v, &inner.ty, &e.ty)
            }
            CExprKind::Call(..) | CExprKind::Method(..) => match self.call_expr(e, pre, true)? {
                Some(v) => v,
                None => {
                    return Err(Diagnostic::new(span, "this call returns no value")
                        .label("used as a value"))
                }
            },
            CExprKind::Construct(_) => {
                return Err(Diagnostic::new(
                    span,
                    "constructing an object here is outside the subset",
                )
                .label("constructor"))
            }
        })
    }

    /// Copies a value that a later statement may change into a temporary.
    fn snapshot(&mut self, v: s::Expr, ty: &CType, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        Ok(match v.kind {
            s::ExprKind::Int(_) => v,
            _ => {
                let t = spec_type(ty, v.span)?;
                self.temp(t, v, pre)
            }
        })
    }

    /// Reads a place, converting a memory word to the C type of the access.
    fn read_value(&mut self, place: Place, span: Span, pre: &mut Vec<s::Stmt>) -> R<s::Expr> {
        Ok(match place {
            Place::Local(n, _) => name(&n, span),
            Place::Mem {
                target,
                offset,
                volatile,
            } => self.load(&target, offset, volatile, span, pre)?,
        })
    }

    fn binding(&self, id: DeclId, n: &str, span: Span) -> R<Binding> {
        if let Some(b) = self.bindings.get(&id) {
            return Ok(b.clone());
        }
        if let Some(t) = self.l.hoisted.get(&id) {
            return Ok(Binding::Memory(t.clone()));
        }
        Err(Diagnostic::new(span, format!("`{n}` is not a variable the front end can place"))
            .label("unknown variable")
            .hint("device code may use its own locals and parameters, `__shared__`, `static` and `__device__` variables"))
    }

    /// The location an lvalue names.
    fn place(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<Place> {
        let span = e.span;
        match &e.kind {
            CExprKind::Var(id, n) => Ok(match self.binding(*id, n, span)? {
                Binding::Value(local, ty) => Place::Local(local, ty),
                Binding::Pointer(local, ..) => Place::Local(local, Type::I32),
                Binding::Memory(t) => {
                    let volatile = t.volatile;
                    Place::Mem {
                        target: t,
                        offset: int(0, span),
                        volatile,
                    }
                }
                Binding::AtomicRef(..) => {
                    return Err(Diagnostic::new(
                        span,
                        "assigning a `cuda::atomic_ref` is outside the subset",
                    )
                    .label("atomic_ref"))
                }
                Binding::Clock => return Err(clock_error(span)),
            }),
            CExprKind::Unary(CUnOp::Deref, p) => {
                let p = self.pointer(p, pre)?;
                self.mem_place(p, span)
            }
            CExprKind::Index(base, i) => {
                let p = self.pointer(base, pre)?;
                let i = self.rvalue(i, pre)?;
                let offset = add_offset(p.offset, i, span);
                self.mem_place(Ptr { offset, ..p }, span)
            }
            CExprKind::Cast(inner) => self.place(inner, pre),
            _ => Err(Diagnostic::new(
                span,
                "this expression is not a location the subset can write",
            )
            .label("not assignable")),
        }
    }

    fn mem_place(&self, p: Ptr, span: Span) -> R<Place> {
        let target = p.target.ok_or_else(|| {
            Diagnostic::new(span, "this pointer is NULL or points to no variable the front end knows")
                .label("unknown target")
                .hint("a pointer must be set from a harness buffer, a `__shared__`/`__device__` variable or another such pointer before it is used")
        })?;
        let volatile = p.pointee.volatile || target.volatile;
        Ok(Place::Mem {
            target,
            offset: p.offset,
            volatile,
        })
    }

    /// The value of a pointer expression.
    fn pointer(&mut self, e: &'p CExpr, pre: &mut Vec<s::Stmt>) -> R<Ptr> {
        let span = e.span;
        let pointee = match &e.ty {
            CType::Pointer(p) => (**p).clone(),
            CType::Array(t, _) => Pointee {
                ty: (**t).clone(),
                volatile: false,
            },
            _ => Pointee {
                ty: e.ty.clone(),
                volatile: false,
            },
        };
        match &e.kind {
            CExprKind::Null => Ok(Ptr { target: None, offset: int(NULL_OFFSET, span), pointee }),
            CExprKind::Int(0) => Ok(Ptr { target: None, offset: int(NULL_OFFSET, span), pointee }),
            CExprKind::Var(id, n) => match self.binding(*id, n, span)? {
                Binding::Pointer(local, target, declared) => Ok(Ptr {
                    target,
                    offset: name(&local, span),
                    pointee: if matches!(e.ty, CType::Pointer(_)) { pointee } else { declared },
                }),
                Binding::Memory(t) if t.is_array => {
                    let volatile = t.volatile;
                    Ok(Ptr { target: Some(t), offset: int(0, span), pointee: Pointee { volatile: volatile || pointee.volatile, ..pointee } })
                }
                _ => Err(Diagnostic::new(span, format!("`{n}` is not a pointer or array")).label("not a pointer")),
            },
            CExprKind::Cast(inner) => {
                if matches!(inner.kind, CExprKind::Null | CExprKind::Int(0)) {
                    return Ok(Ptr { target: None, offset: int(NULL_OFFSET, span), pointee });
                }
                let p = self.pointer(inner, pre)?;
                if let (Some(t), CType::Int { bits, .. }) = (&p.target, &pointee.ty) {
                    if u32::from(*bits) != storage_bits(t.ty) {
                        return Err(Diagnostic::new(span, format!("a cast to a pointer to {}-bit values of the {}-bit variable `{}` is outside the subset", bits, t.ty.bits(), t.var))
                            .label("reinterprets the width"));
                    }
                }
                Ok(Ptr { pointee, ..p })
            }
            CExprKind::Unary(CUnOp::AddrOf, lv) => match self.place(lv, pre)? {
                Place::Mem { target, offset, volatile } => Ok(Ptr {
                    target: Some(target),
                    offset,
                    pointee: Pointee { volatile: volatile || pointee.volatile, ..pointee },
                }),
                Place::Local(n, _) => Err(Diagnostic::new(span, format!("taking the address of the thread-local `{n}` is outside the subset"))
                    .label("address of a local")),
            },
            CExprKind::Binary(op @ (CBinOp::Add | CBinOp::Sub), a, b) => {
                let (p, i, neg) = if a.ty.pointee().is_some() || matches!(a.ty, CType::Array(..)) {
                    (a, b, *op == CBinOp::Sub)
                } else {
                    (b, a, false)
                };
                if i.ty.pointee().is_some() {
                    return Err(Diagnostic::new(span, "the difference of two pointers is outside the subset").label("pointer - pointer"));
                }
                let p = self.pointer(p, pre)?;
                let i = self.rvalue(i, pre)?;
                let offset = if neg { bin(BinOp::Sub, p.offset, i, span) } else { add_offset(p.offset, i, span) };
                Ok(Ptr { offset, ..p })
            }
            CExprKind::Assign(op, lhs, rhs) => {
                let id = var_id(lhs).ok_or_else(|| Diagnostic::new(span, "this pointer assignment is outside the subset").label("pointer"))?;
                self.assign_pointer(id, *op, PtrRhs::Expr(rhs), span, pre)?;
                self.pointer(lhs, pre)
            }
            CExprKind::Cond(c, a, b) => {
                let c = self.rvalue(c, pre)?;
                let x = self.pointer(a, pre)?;
                let y = self.pointer(b, pre)?;
                let target = match (x.target, y.target) {
                    (Some(t), Some(u)) if t != u => {
                        return Err(Diagnostic::new(span, format!("this pointer points into `{}` or `{}`", t.var, u.var))
                            .label("two buffers")
                            .hint("the front end follows each pointer into one variable"))
                    }
                    (t, u) => t.or(u),
                };
                Ok(Ptr {
                    target,
                    offset: s::Expr { kind: s::ExprKind::Ternary(Box::new(c), Box::new(x.offset), Box::new(y.offset)), span },
                    pointee,
                })
            }
            _ => Err(Diagnostic::new(span, "this pointer expression is outside the subset")
                .label("pointer")
                .hint("pointers may be parameters, locals, `&x`, `&a[i]`, `p + i`, casts of those, or NULL")),
        }
    }

    // ----- helpers for built-ins -----------------------------------------

    /// The memory location a pointer argument points to.
    pub(super) fn pointer_arg(
        &mut self,
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<(Target, s::Expr)> {
        let p = self.pointer(e, pre)?;
        match self.mem_place(p, e.span)? {
            Place::Mem { target, offset, .. } => Ok((target, offset)),
            Place::Local(..) => unreachable!("mem_place makes memory places"),
        }
    }

    /// Stores an instruction's result into an `asm` output operand.
    pub(super) fn store_output(
        &mut self,
        e: &'p CExpr,
        value: s::Expr,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let place = self.place(e, out)?;
        self.write_place(place, value, e.span, out)?;
        Ok(())
    }

    /// A thread-local variable passed by reference (`compare_exchange`'s
    /// `expected`).
    pub(super) fn local_place(&mut self, e: &'p CExpr) -> R<(String, Type)> {
        let mut scratch = Vec::new();
        match self.place(e, &mut scratch)? {
            Place::Local(n, t) if scratch.is_empty() => Ok((n, t)),
            _ => Err(
                Diagnostic::new(e.span, "`expected` must be a thread-local variable")
                    .label("not a local"),
            ),
        }
    }

    /// `T tmp = value;` appended to `pre`; returns the temporary's name.
    pub(super) fn fresh_let(&mut self, ty: Type, value: s::Expr, pre: &mut Vec<s::Stmt>) -> String {
        let n = self.temp_name();
        let span = value.span;
        pre.push(stmt(
            s::StmtKind::Let {
                ty,
                name: ident(&n, span),
                init: Some(value),
            },
            span,
        ));
        n
    }

    // ----- calls ---------------------------------------------------------

    /// A call; `Some(value)` when it has one (or when `want` and it must).
    fn call_expr(
        &mut self,
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
        want: bool,
    ) -> R<Option<s::Expr>> {
        let span = e.span;
        match &e.kind {
            CExprKind::Method(object, member, args) => {
                self.atomic_member(object, member, args, e, pre)
            }
            CExprKind::Call(fname, args) => {
                if let Some(v) = super::builtins::lower_builtin(self, fname, args, e, pre)? {
                    if v.is_none() && want {
                        return Err(Diagnostic::new(span, "this call returns no value")
                            .label("used as a value"));
                    }
                    return Ok(v);
                }
                let Some(f) = self.l.program.function(fname) else {
                    let what = if self
                        .l
                        .program
                        .declared
                        .iter()
                        .any(|(n, sp)| n == fname && *sp == FnSpace::Host)
                    {
                        "a host function"
                    } else {
                        "a function without a definition in the CUDA files"
                    };
                    return Err(Diagnostic::new(span, format!("device code calls `{fname}`, {what}"))
                        .label("no device definition")
                        .hint("the harness's `cuda:` lines name the files whose device functions are checked"));
                };
                let f: &'p CFunction = f.as_ref().map_err(Clone::clone)?;
                let mut targets = Vec::new();
                let mut values = Vec::new();
                for (p, a) in f.params.iter().zip(args) {
                    if p.ty.pointee().is_some() {
                        let ptr = self.pointer(a, pre)?;
                        targets.push(ptr.target);
                        values.push(ptr.offset);
                    } else {
                        targets.push(None);
                        values.push(self.rvalue_as(a, &p.ty, pre)?);
                    }
                }
                let inst = self.l.instance(f, targets);
                let c = call(&inst, &[], values, span);
                if f.ret == CType::Void {
                    if want {
                        return Ok(None);
                    }
                    pre.push(stmt(s::StmtKind::Expr(c), span));
                    return Ok(None);
                }
                Ok(Some(c))
            }
            _ => unreachable!("only calls reach call_expr"),
        }
    }

    /// `ref.load(order)`, `flag.fetch_add(1, order)`, ... on a
    /// `cuda::atomic_ref` or `cuda::atomic`.
    fn atomic_member(
        &mut self,
        object: &'p CExpr,
        member: &str,
        args: &'p [CExpr],
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<Option<s::Expr>> {
        let span = e.span;
        let (target, offset, scope) = match (
            &object.ty,
            var_id(object).and_then(|id| self.bindings.get(&id).cloned()),
        ) {
            (_, Some(Binding::AtomicRef(t, holder, scope))) => (t, name(&holder, span), scope),
            (
                CType::Atomic {
                    scope,
                    by_ref: false,
                    ..
                },
                _,
            ) => {
                let scope = *scope;
                match self.place(object, pre)? {
                    Place::Mem { target, offset, .. } => (target, offset, scope),
                    Place::Local(..) => {
                        return Err(Diagnostic::new(
                            object.span,
                            "a thread-local `cuda::atomic` is outside the subset",
                        )
                        .label("not in memory"))
                    }
                }
            }
            _ => {
                return Err(Diagnostic::new(
                    span,
                    format!("the member call `.{member}()` is outside the subset"),
                )
                .label("not an atomic")
                .hint("members of cuda::atomic_ref and cuda::atomic are supported"))
            }
        };
        super::builtins::lower_atomic_member(self, &target, offset, scope, member, args, e, pre)
    }
}

/// The id of a plain variable reference (through casts clang added).
fn var_id(e: &CExpr) -> Option<DeclId> {
    match &e.kind {
        CExprKind::Var(id, _) => Some(*id),
        CExprKind::Cast(inner) if same_shape(&inner.ty, &e.ty) => var_id(inner),
        _ => None,
    }
}

/// A conversion that keeps the object (a qualifier or reference added).
fn same_shape(a: &CType, b: &CType) -> bool {
    match (a, b) {
        (CType::Reference(x), y) | (y, CType::Reference(x)) => **x == *y,
        _ => a == b,
    }
}

fn add_offset(a: s::Expr, b: s::Expr, span: Span) -> s::Expr {
    match (&a.kind, &b.kind) {
        (s::ExprKind::Int(0), _) => b,
        (_, s::ExprKind::Int(0)) => a,
        _ => bin(BinOp::Add, a, b, span),
    }
}

fn break_unless(c: s::Expr, span: Span) -> s::Stmt {
    stmt(
        s::StmtKind::If {
            cond: un(UnOp::Not, c, span),
            then_block: block(vec![stmt(s::StmtKind::Break, span)], span),
            else_block: None,
        },
        span,
    )
}

/// Whether a `continue` in `body` belongs to the loop around it.
fn continues(body: &CStmt) -> bool {
    match &body.kind {
        CStmtKind::Continue => true,
        CStmtKind::Block(v) => v.iter().any(continues),
        CStmtKind::If {
            then, otherwise, ..
        } => continues(then) || otherwise.as_deref().is_some_and(continues),
        _ => false,
    }
}

fn clock_error(span: Span) -> Diagnostic {
    Diagnostic::new(span, "time read by clock() is used for more than a back-off delay")
        .label("time is not modelled")
        .hint("the model explores every interleaving instead of timing; clock() may only bound a delay loop")
}

/// `threadIdx.x` and friends: a launch is one-dimensional.
fn dim(d: Dim, axis: u8, span: Span) -> s::Expr {
    match (d, axis) {
        (Dim::ThreadIdx, 0) => name("threadIdx", span),
        (Dim::BlockIdx, 0) => name("blockIdx", span),
        (Dim::BlockDim, 0) => name("threads_per_block", span),
        (Dim::GridDim, 0) => name("nblocks", span),
        (Dim::ThreadIdx | Dim::BlockIdx, _) => int(0, span),
        (Dim::BlockDim | Dim::GridDim, _) => int(1, span),
    }
}

/// A C binary operator on two values of type `ty` (before wrapping).
fn arith(op: CBinOp, a: s::Expr, b: s::Expr, ty: &CType, span: Span) -> s::Expr {
    let o = match op {
        CBinOp::Mul => BinOp::Mul,
        CBinOp::Div => BinOp::Div,
        CBinOp::Rem => BinOp::Rem,
        CBinOp::Add => BinOp::Add,
        CBinOp::Sub => BinOp::Sub,
        CBinOp::Shl => BinOp::Shl,
        CBinOp::Shr => BinOp::Shr,
        CBinOp::Lt => BinOp::Lt,
        CBinOp::Gt => BinOp::Gt,
        CBinOp::Le => BinOp::Le,
        CBinOp::Ge => BinOp::Ge,
        CBinOp::Eq => BinOp::Eq,
        CBinOp::Ne => BinOp::Ne,
        CBinOp::BitAnd => BinOp::BitAnd,
        CBinOp::BitXor => BinOp::BitXor,
        CBinOp::BitOr => BinOp::BitOr,
        CBinOp::LAnd => BinOp::And,
        CBinOp::LOr => BinOp::Or,
        CBinOp::Comma => unreachable!("comma is sequenced, not computed"),
    };
    let _ = ty;
    bin(o, a, b, span)
}

/// Converts a value of type `from` to `to` as C does.
pub fn convert(v: s::Expr, from: &CType, to: &CType) -> s::Expr {
    let span = v.span;
    if from == to || !to.is_integer() || fits(from, to) {
        return v;
    }
    if *to == CType::Bool {
        return bin(BinOp::Ne, v, int(0, span), span);
    }
    wrap(v, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the constant expressions `wrap` and `convert` build.
    fn eval(e: &s::Expr) -> i64 {
        match &e.kind {
            s::ExprKind::Int(v) => *v,
            s::ExprKind::Name(n) if n.name == "BIG" => 1 << 40,
            s::ExprKind::Unary(op, a) => crate::ir::eval_unary(*op, eval(a)),
            s::ExprKind::Binary(op, a, b) => crate::ir::eval_binary(*op, eval(a), eval(b)).unwrap(),
            other => panic!("not a constant: {other:?}"),
        }
    }

    #[test]
    fn wraps_like_c() {
        let u32t = CType::Int {
            bits: 32,
            signed: false,
        };
        let i32t = CType::Int {
            bits: 32,
            signed: true,
        };
        let sp = Span::default();
        // A value the constant folding in `wrap` cannot see: BIG = 2^40.
        let big = || name("BIG", sp);
        assert_eq!(
            eval(&wrap(bin(BinOp::Sub, big(), int(1, sp), sp), &u32t)),
            0xFFFF_FFFF
        );
        assert_eq!(
            eval(&wrap(
                bin(BinOp::Add, big(), int(0x8000_0000, sp), sp),
                &i32t
            )),
            i32::MIN as i64
        );
        assert_eq!(
            eval(&wrap(bin(BinOp::Sub, int(0, sp), big(), sp), &i32t)),
            0
        );
        assert_eq!(eval(&wrap(int(-1, sp), &u32t)), 0xFFFF_FFFF);
        assert_eq!(eval(&convert(int(-1, sp), &i32t, &u32t)), 4294967295);
        assert_eq!(eval(&convert(int(0xFFFF_FFFF, sp), &u32t, &i32t)), -1);
        assert_eq!(eval(&convert(int(7, sp), &i32t, &CType::Bool)), 1);
        assert!(
            fits(&CType::Bool, &i32t)
                && fits(
                    &CType::Int {
                        bits: 16,
                        signed: false
                    },
                    &i32t
                )
        );
        assert!(!fits(&u32t, &i32t) && !fits(&i32t, &u32t));
    }
}
