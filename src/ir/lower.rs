//! Lowering: AST → flat per-thread program, with name resolution, arity and
//! kind checks, procedure inlining and control-flow lowering.

use super::consteval::{ConstEnv, ThreadCoords};
use super::memop::{classify_call, CallKind};
use super::resolve::{suggest, Scopes, Sym, RESERVED};
use super::*;
use crate::spec::ast::{self, AssignOp, ExprKind, Init, Item, SpecFile, StmtKind};
use crate::spec::diag::{Diagnostic, SpecResult};

/// Procedures are inlined, recursively: deeper call chains than this are an
/// error rather than a stack overflow. Written specs nest a few levels.
pub const MAX_CALL_DEPTH: usize = 64;

/// Statements, expressions and inlined bodies nested inside one another,
/// counted together: the bound on the lowering's recursion (each level is a
/// few stack frames), whatever mix of them a spec nests.
const MAX_NESTING: u32 = 1024;

/// Inlining can double the code at each level (`f` calling `g` twice,
/// `g` calling `h` twice, ...): the most instructions a program may have.
/// The built-in specs have fewer than 300.
pub const MAX_INSTRUCTIONS: usize = 1 << 16;

/// Lowers `file` for one launch, with parameter `overrides` (already checked
/// to name declared parameters).
pub fn lower<'a>(
    file: &'a SpecFile,
    source: &'a Source,
    launch: Launch,
    overrides: &[(String, i64)],
) -> SpecResult<Program> {
    let mut l = Lowerer {
        source,
        launch,
        scopes: Scopes::default(),
        params: Vec::new(),
        fns: Vec::new(),
        vars: Vec::new(),
        locals: Vec::new(),
        code: Vec::new(),
        loops: Vec::new(),
        frames: Vec::new(),
        in_critical: false,
        in_phase: false,
        region_at: None,
        unsupported: Vec::new(),
        inlined: Vec::new(),
        nesting: 0,
    };
    l.declare_items(file, overrides)?;
    let harness = find_harness(file)?;
    let checks = l.lower_harness(harness)?;
    Ok(Program {
        source: source.clone(),
        header: file.header.clone(),
        launch,
        params: l.params,
        vars: l.vars,
        locals: l.locals,
        code: l.code,
        participants: harness.participants,
        checks,
        unsupported: l.unsupported,
        devices: vec![],
        inlined: l.inlined,
        spec_locals: super::init::spec_locals(file),
    })
}

fn find_harness(file: &SpecFile) -> SpecResult<&ast::Harness> {
    let mut harnesses = file.items.iter().filter_map(|i| match i {
        Item::Harness(h) => Some(h),
        _ => None,
    });
    let first = harnesses.next().ok_or_else(|| {
        let end = file.items.last().map_or(Span::default(), item_span);
        Diagnostic::new(end, "the spec has no harness")
            .label("expected a harness after this")
            .hint("add `harness master { ... }` saying what each block runs")
    })?;
    if let Some(second) = harnesses.next() {
        return Err(
            Diagnostic::new(second.span, "a spec has exactly one harness")
                .label("second harness")
                .hint("merge the two harness blocks"),
        );
    }
    Ok(first)
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Param(p) => p.span,
        Item::Var(v) => v.span,
        Item::Fn(f) => f.span,
        Item::Harness(h) => h.span,
    }
}

struct LoopCtx {
    /// Jumps to patch to the loop exit.
    breaks: Vec<usize>,
    /// Jumps to patch to the continue target.
    continues: Vec<usize>,
}

/// One inlined procedure activation.
struct Frame {
    name: String,
    ret: Option<(LocalId, Type)>,
    /// Jumps to patch to the end of the inlined body.
    returns: Vec<usize>,
    /// Loops open when the procedure was entered: `break` may not cross it.
    loop_depth: usize,
}

struct Lowerer<'a> {
    source: &'a Source,
    launch: Launch,
    scopes: Scopes,
    params: Vec<(String, i64)>,
    fns: Vec<&'a ast::FnDecl>,
    vars: Vec<MemVar>,
    locals: Vec<LocalVar>,
    code: Vec<Instr>,
    loops: Vec<LoopCtx>,
    frames: Vec<Frame>,
    in_critical: bool,
    in_phase: bool,
    /// Open loops and procedure activations when the innermost critical
    /// section or phase was entered: a `break`, `continue` or `return` may
    /// not jump out of it, but may leave loops and procedures inside it.
    region_at: Option<(usize, usize)>,
    unsupported: Vec<(String, Span)>,
    inlined: Vec<InlinedCall>,
    /// How deep the lowering's recursion is (see [`MAX_NESTING`]).
    nesting: u32,
}

/// A redefinition error; `first` is where the name was defined before.
fn already_defined(source: &Source, name: &ast::Ident, first: Span, hint: &str) -> Diagnostic {
    let (line, col) = source.line_col(first.start);
    Diagnostic::new(
        name.span,
        format!(
            "`{}` is already defined at line {line}, column {col}",
            name.name
        ),
    )
    .label("defined again here")
    .hint(hint.to_string())
}

impl<'a> Lowerer<'a> {
    // ----- declarations -------------------------------------------------

    fn declare_items(&mut self, file: &'a SpecFile, overrides: &[(String, i64)]) -> SpecResult<()> {
        for item in &file.items {
            match item {
                Item::Param(p) => {
                    self.check_not_reserved(&p.name)?;
                    let value = match overrides.iter().rev().find(|(n, _)| *n == p.name.name) {
                        Some((_, v)) => *v,
                        None => self
                            .const_env(None, "a parameter default")
                            .eval(&p.default)?,
                    };
                    self.scopes
                        .define_top(&p.name.name, Sym::Param(value), p.name.span)
                        .map_err(|f| {
                            already_defined(self.source, &p.name, f, "rename one of them")
                        })?;
                    self.params.push((p.name.name.clone(), value));
                }
                Item::Var(v) => self.declare_var(v)?,
                Item::Fn(f) => {
                    self.check_not_reserved(&f.name)?;
                    self.scopes
                        .define_top(&f.name.name, Sym::Fn(self.fns.len()), f.name.span)
                        .map_err(|s| {
                            already_defined(
                                self.source,
                                &f.name,
                                s,
                                "procedures cannot be overloaded",
                            )
                        })?;
                    self.fns.push(f);
                }
                Item::Harness(_) => {}
            }
        }
        Ok(())
    }

    fn check_not_reserved(&self, name: &ast::Ident) -> SpecResult<()> {
        if RESERVED.contains(&name.name.as_str()) {
            return Err(
                Diagnostic::new(name.span, format!("`{}` is a built-in name", name.name))
                    .label("reserved")
                    .hint("choose another name"),
            );
        }
        Ok(())
    }

    fn const_env(&self, coords: Option<ThreadCoords>, context: &'static str) -> ConstEnv<'_> {
        ConstEnv {
            params: &self.params,
            launch: self.launch,
            coords: coords.unwrap_or(ThreadCoords {
                block: None,
                thread: None,
            }),
            context,
        }
    }

    fn declare_var(&mut self, v: &ast::VarDecl) -> SpecResult<()> {
        self.check_not_reserved(&v.name)?;
        let len = match &v.size {
            None => 1,
            Some(size) => {
                let n = self.const_env(None, "an array size").eval(size)?;
                if !(1..=4096).contains(&n) {
                    return Err(Diagnostic::new(
                        size.span,
                        format!("array size {n} is out of range"),
                    )
                    .label("size")
                    .hint("arrays have 1 to 4096 elements"));
                }
                n as u32
            }
        };
        let sym = if v.storage == Storage::Local {
            if v.size.is_some() {
                return Err(Diagnostic::new(v.span, "`local` arrays are not supported")
                    .label("array")
                    .hint("use a `shared` or `global` array indexed by threadIdx"));
            }
            let init = self.per_thread_init(v)?;
            let id = self.new_local(&v.name.name, v.ty, init);
            Sym::Local(id)
        } else {
            let init = self.mem_init(v, len)?;
            self.vars.push(MemVar {
                name: v.name.name.clone(),
                storage: v.storage,
                ty: v.ty,
                volatile: v.volatile,
                len,
                is_array: v.size.is_some(),
                init,
                span: v.span,
            });
            Sym::Mem(self.vars.len() as VarId - 1)
        };
        self.scopes
            .define_top(&v.name.name, sym, v.name.span)
            .map_err(|f| already_defined(self.source, &v.name, f, "rename one of them"))
    }

    /// Initial raw values of a memory variable; shared ones per block.
    fn mem_init(&self, v: &ast::VarDecl, len: u32) -> SpecResult<Vec<u32>> {
        let copies = if v.storage == Storage::Shared {
            self.launch.blocks
        } else {
            1
        };
        let mut out = Vec::with_capacity((len * copies) as usize);
        for block in 0..copies {
            let coords = (v.storage == Storage::Shared).then_some(ThreadCoords {
                block: Some(block),
                thread: None,
            });
            let env = self.const_env(coords, "an initial value");
            match &v.init {
                Init::Zero => out.extend(std::iter::repeat_n(0, len as usize)),
                Init::Expr(e) => {
                    let raw = to_raw(v.ty, env.eval(e)?);
                    out.extend(std::iter::repeat_n(raw, len as usize));
                }
                Init::List(items, span) => {
                    if items.len() != len as usize {
                        return Err(Diagnostic::new(
                            *span,
                            format!("{} initial values for an array of {len}", items.len()),
                        )
                        .label("wrong number of values")
                        .hint("give one value per element, or a single `= value` for all"));
                    }
                    for e in items {
                        out.push(to_raw(v.ty, env.eval(e)?));
                    }
                }
            }
        }
        Ok(out)
    }

    fn per_thread_init(&self, v: &ast::VarDecl) -> SpecResult<LocalInit> {
        let e = match &v.init {
            Init::Zero => return Ok(LocalInit::Zero),
            Init::Expr(e) => e,
            Init::List(_, span) => {
                return Err(Diagnostic::new(*span, "a scalar takes one initial value").label("list"))
            }
        };
        let mut values = Vec::with_capacity(self.launch.threads() as usize);
        for t in 0..self.launch.threads() {
            let coords = ThreadCoords {
                block: Some(t / self.launch.threads_per_block),
                thread: Some(t % self.launch.threads_per_block),
            };
            values.push(to_raw(
                v.ty,
                self.const_env(Some(coords), "an initial value").eval(e)?,
            ));
        }
        Ok(LocalInit::PerThread(values))
    }

    fn new_local(&mut self, name: &str, ty: Type, init: LocalInit) -> LocalId {
        self.locals.push(LocalVar {
            name: name.to_string(),
            ty,
            init,
        });
        self.locals.len() as LocalId - 1
    }

    fn temp(&mut self, ty: Type) -> LocalId {
        let name = format!("%t{}", self.locals.len());
        self.new_local(&name, ty, LocalInit::Zero)
    }

    // ----- harness and statements --------------------------------------

    fn lower_harness(&mut self, h: &'a ast::Harness) -> SpecResult<Checks> {
        let mut checks = Checks::default();
        for c in &h.checks {
            match c {
                ast::Check::MutualExclusion(_) => {
                    checks.mutual_exclusion = true;
                    checks.capacity = Some(checks.capacity.map_or(1, |c: i64| c.min(1)));
                }
                ast::Check::Capacity(e, _) => {
                    let cap = self.const_env(None, "a capacity").eval(e)?;
                    checks.capacity = Some(checks.capacity.map_or(cap, |c| c.min(cap)));
                }
                ast::Check::Barrier(_) => checks.barrier = true,
                ast::Check::Invariant(e, span) => {
                    let inv = self.invariant_expr(e)?;
                    checks.invariants.push((inv, *span));
                }
            }
        }
        self.scopes.push();
        self.block(&h.body)?;
        self.scopes.pop();
        self.emit(Op::Exit, h.body.span);
        Ok(checks)
    }

    fn emit(&mut self, op: Op, span: Span) -> usize {
        self.code.push(Instr { op, span });
        self.code.len() - 1
    }

    /// Loads `loc` into a fresh temporary of its variable's type.
    fn load_into_temp(&mut self, access: MemAccess, span: Span) -> LocalId {
        let dst = self.temp(self.vars[access.loc.var as usize].ty);
        self.emit(Op::Load { dst, access }, span);
        dst
    }

    fn pc(&self) -> Pc {
        self.code.len() as Pc
    }

    /// Points the jump or branch at `at` to `target`.
    fn patch(&mut self, at: usize, target: Pc) {
        match &mut self.code[at].op {
            Op::Jump { target: t } => *t = target,
            Op::Branch { else_pc, .. } => *else_pc = target,
            _ => unreachable!("only jumps and branches are patched"),
        }
    }

    fn block(&mut self, b: &'a ast::Block) -> SpecResult<()> {
        self.scopes.push();
        let result = b.stmts.iter().try_for_each(|s| self.stmt(s));
        self.scopes.pop();
        result
    }

    fn stmt(&mut self, s: &'a ast::Stmt) -> SpecResult<()> {
        self.descend(s.span)?;
        let result = self.stmt_kind(s);
        self.nesting -= 1;
        result
    }

    /// One level deeper in the lowering's recursion, or a located error.
    fn descend(&mut self, at: Span) -> SpecResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(Diagnostic::new(
                at,
                format!(
                    "blocks, expressions and inlined calls nest deeper than {MAX_NESTING} levels"
                ),
            )
            .label("the limit is reached here")
            .hint(format!(
                "inlining {} nests each body inside its caller's; flatten the blocks or calls",
                self.call_chain()
            )));
        }
        Ok(())
    }

    /// `` `f` → `g` → `h` `` for the procedures being inlined (the first and last few).
    fn call_chain(&self) -> String {
        let names: Vec<String> = self
            .frames
            .iter()
            .map(|f| format!("`{}`", f.name))
            .collect();
        match names.len() {
            0 => "the harness".to_string(),
            n if n <= 6 => names.join(" → "),
            n => format!(
                "{} → ... → {}",
                names[..3].join(" → "),
                names[n - 3..].join(" → ")
            ),
        }
    }

    fn stmt_kind(&mut self, s: &'a ast::Stmt) -> SpecResult<()> {
        match &s.kind {
            StmtKind::Let { ty, name, init } => {
                self.check_not_reserved(name)?;
                let value = match init {
                    Some(e) => self.expr(e)?,
                    None => Expr::Const(0),
                };
                let id = self.new_local(&name.name, *ty, LocalInit::Zero);
                self.scopes
                    .define(&name.name, Sym::Local(id), name.span)
                    .map_err(|f| {
                        already_defined(
                            self.source,
                            name,
                            f,
                            "use another name or assign without the type",
                        )
                    })?;
                self.emit(Op::Assign { dst: id, value }, s.span);
            }
            StmtKind::Assign { place, op, value } => self.assign(place, *op, value, s.span)?,
            StmtKind::Expr(e) => self.expr_stmt(e)?,
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let c = self.expr(cond)?;
                let branch = self.emit(
                    Op::Branch {
                        cond: c,
                        then_pc: self.pc() + 1,
                        else_pc: 0,
                    },
                    cond.span,
                );
                self.block(then_block)?;
                match else_block {
                    None => self.patch(branch, self.pc()),
                    Some(e) => {
                        let skip = self.emit(Op::Jump { target: 0 }, s.span);
                        self.patch(branch, self.pc());
                        self.block(e)?;
                        self.patch(skip, self.pc());
                    }
                }
            }
            StmtKind::While { cond, body } => {
                let head = self.pc();
                self.lower_loop(Some(cond), body, None, head, s.span)?;
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push();
                let result = (|| {
                    if let Some(init) = init {
                        self.stmt(init)?;
                    }
                    let head = self.pc();
                    self.lower_loop(cond.as_ref(), body, step.as_deref(), head, s.span)
                })();
                self.scopes.pop();
                result?;
            }
            StmtKind::Break | StmtKind::Continue => self.break_continue(s)?,
            StmtKind::Return(value) => self.ret(value.as_ref(), s.span)?,
            StmtKind::Assert { cond, message } => {
                let c = self.expr(cond)?;
                let message = message.clone().unwrap_or_else(|| {
                    format!("assertion `{}` failed", self.source.snippet(cond.span))
                });
                self.emit(Op::Assert { cond: c, message }, s.span);
            }
            StmtKind::Critical { weight, body } => {
                if self.in_critical {
                    return Err(Diagnostic::new(s.span, "critical sections cannot nest")
                        .label("inside another critical section"));
                }
                let w = match weight {
                    Some(w) => self.expr(w)?,
                    None => Expr::Const(1),
                };
                self.emit(Op::CriticalEnter { weight: w }, s.span);
                self.in_critical = true;
                let outer = self
                    .region_at
                    .replace((self.loops.len(), self.frames.len()));
                let result = self.block(body);
                self.region_at = outer;
                self.in_critical = false;
                result?;
                self.emit(Op::CriticalExit, body.span);
            }
            StmtKind::Phase { body } => {
                if self.in_phase {
                    return Err(
                        Diagnostic::new(s.span, "phases cannot nest").label("inside another phase")
                    );
                }
                self.emit(Op::PhaseEnter, s.span);
                self.in_phase = true;
                let outer = self
                    .region_at
                    .replace((self.loops.len(), self.frames.len()));
                let result = self.block(body);
                self.region_at = outer;
                self.in_phase = false;
                result?;
                self.emit(Op::PhaseExit, body.span);
            }
            StmtKind::Progress => {
                self.emit(Op::Progress, s.span);
            }
            StmtKind::Block(b) => self.block(b)?,
        }
        Ok(())
    }

    /// `head: cond? body step? jump head`, with break/continue patched.
    fn lower_loop(
        &mut self,
        cond: Option<&'a ast::Expr>,
        body: &'a ast::Block,
        step: Option<&'a ast::Stmt>,
        head: Pc,
        span: Span,
    ) -> SpecResult<()> {
        let exit_branch = match cond {
            Some(cond) => {
                let c = self.expr(cond)?;
                Some(self.emit(
                    Op::Branch {
                        cond: c,
                        then_pc: self.pc() + 1,
                        else_pc: 0,
                    },
                    cond.span,
                ))
            }
            None => None,
        };
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        let result = self.block(body);
        let ctx = self.loops.pop().expect("pushed above");
        result?;
        let continue_target = self.pc();
        if let Some(step) = step {
            self.stmt(step)?;
        }
        self.emit(Op::Jump { target: head }, span);
        let exit = self.pc();
        if let Some(b) = exit_branch {
            self.patch(b, exit);
        }
        for b in ctx.breaks {
            self.patch(b, exit);
        }
        for c in ctx.continues {
            self.patch(c, continue_target);
        }
        Ok(())
    }

    fn break_continue(&mut self, s: &ast::Stmt) -> SpecResult<()> {
        let word = if matches!(s.kind, StmtKind::Break) {
            "break"
        } else {
            "continue"
        };
        let floor = self.frames.last().map_or(0, |f| f.loop_depth);
        if self.loops.len() <= floor {
            return Err(
                Diagnostic::new(s.span, format!("`{word}` outside of a loop"))
                    .label("no loop to leave"),
            );
        }
        if self
            .region_at
            .is_some_and(|(loops, _)| self.loops.len() <= loops)
        {
            return Err(Diagnostic::new(
                s.span,
                format!("`{word}` may not leave a critical section or phase"),
            )
            .label("jumps out")
            .hint("restructure the loop so the critical section or phase closes normally"));
        }
        let j = self.emit(Op::Jump { target: 0 }, s.span);
        let ctx = self.loops.last_mut().expect("checked above");
        if word == "break" {
            ctx.breaks.push(j);
        } else {
            ctx.continues.push(j);
        }
        Ok(())
    }

    fn ret(&mut self, value: Option<&'a ast::Expr>, span: Span) -> SpecResult<()> {
        if self
            .region_at
            .is_some_and(|(_, frames)| self.frames.len() <= frames)
        {
            return Err(Diagnostic::new(
                span,
                "`return` may not leave a critical section or phase",
            )
            .label("returns from inside"));
        }
        let Some(frame) = self.frames.last() else {
            if value.is_some() {
                return Err(
                    Diagnostic::new(span, "the harness returns no value").label("value given")
                );
            }
            self.emit(Op::Exit, span);
            return Ok(());
        };
        let ret = frame.ret;
        let name = frame.name.clone();
        match (value, ret) {
            (Some(v), Some((dst, _))) => {
                let e = self.expr(v)?;
                self.emit(Op::Assign { dst, value: e }, span);
            }
            (None, None) => {}
            (Some(v), None) => {
                return Err(Diagnostic::new(v.span, format!("`{name}` returns nothing"))
                    .label("unexpected value")
                    .hint(format!(
                        "declare `fn {name}(...) -> TYPE` to return a value"
                    )))
            }
            (None, Some((_, ty))) => {
                return Err(
                    Diagnostic::new(span, format!("`{name}` must return a {}", ty.name()))
                        .label("missing value"),
                )
            }
        }
        let j = self.emit(Op::Jump { target: 0 }, span);
        self.frames
            .last_mut()
            .expect("checked above")
            .returns
            .push(j);
        Ok(())
    }

    fn assign(
        &mut self,
        place: &'a ast::Place,
        op: AssignOp,
        value: &'a ast::Expr,
        span: Span,
    ) -> SpecResult<()> {
        let target = self.place(place)?;
        let rhs = self.expr(value)?;
        match target {
            Target::Local(dst) => {
                let value = match compound_op(op) {
                    None => rhs,
                    Some(bop) => Expr::Binary(bop, Box::new(Expr::Local(dst)), Box::new(rhs)),
                };
                self.emit(Op::Assign { dst, value }, span);
            }
            Target::Mem(loc) => {
                let access = self.plain_access(loc.var).at(loc);
                let value = match compound_op(op) {
                    None => rhs,
                    Some(bop) => {
                        // A plain read-modify-write: two steps, not atomic.
                        let old = self.load_into_temp(access.clone(), span);
                        Expr::Binary(bop, Box::new(Expr::Local(old)), Box::new(rhs))
                    }
                };
                self.emit(Op::Store { access, value }, span);
            }
        }
        Ok(())
    }

    /// The order and scope of a plain access to a variable.
    fn plain_access(&self, var: VarId) -> MemOrder {
        let v = &self.vars[var as usize];
        let order = if v.volatile {
            Order::Volatile
        } else {
            Order::Weak
        };
        let scope = if v.storage == Storage::Shared {
            Scope::Cta
        } else {
            Scope::Gpu
        };
        MemOrder::new(order, scope)
    }

    fn place(&mut self, place: &'a ast::Place) -> SpecResult<Target> {
        let sym = self.lookup(&place.name)?;
        match sym {
            Sym::Local(id) => {
                if let Some(index) = &place.index {
                    return Err(Diagnostic::new(
                        index.span,
                        format!("`{}` is not an array", place.name.name),
                    )
                    .label("indexed here"));
                }
                Ok(Target::Local(id))
            }
            Sym::Mem(var) => Ok(Target::Mem(self.location(
                var,
                &place.name,
                place.index.as_deref(),
                place.span,
            )?)),
            other => Err(Diagnostic::new(
                place.name.span,
                format!("cannot assign to {} `{}`", sym_kind(other), place.name.name),
            )
            .label("not assignable")),
        }
    }

    fn location(
        &mut self,
        var: VarId,
        name: &ast::Ident,
        index: Option<&'a ast::Expr>,
        span: Span,
    ) -> SpecResult<Loc> {
        let is_array = self.vars[var as usize].is_array;
        match (is_array, index) {
            (true, Some(i)) => Ok(Loc {
                var,
                index: Some(self.expr(i)?),
            }),
            (false, None) => Ok(Loc { var, index: None }),
            (true, None) => Err(
                Diagnostic::new(span, format!("`{}` is an array", name.name))
                    .label("needs an index")
                    .hint(format!("write `{}[i]`", name.name)),
            ),
            (false, Some(i)) => Err(Diagnostic::new(
                i.span,
                format!("`{}` is not an array", name.name),
            )
            .label("indexed here")),
        }
    }

    fn lookup(&self, name: &ast::Ident) -> SpecResult<Sym> {
        self.scopes.lookup(&name.name, &self.launch).ok_or_else(|| {
            let mut d = Diagnostic::new(name.span, format!("unknown name `{}`", name.name)).label("not declared");
            let candidates = self.scopes.block_names().chain(self.scopes.top_names()).chain(RESERVED.iter().copied());
            if let Some(s) = suggest(&name.name, candidates) {
                d = d.hint(format!("did you mean `{s}`?"));
            } else {
                d = d.hint("declare it: `u32 x = 0;` (thread-local) or `global u32 x = 0;` at the top level");
            }
            d
        })
    }

    // ----- expressions ---------------------------------------------------

    fn expr_stmt(&mut self, e: &'a ast::Expr) -> SpecResult<()> {
        match &e.kind {
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => {
                self.call(e, name, qualifiers, args, false)?;
                Ok(())
            }
            _ => Err(Diagnostic::new(e.span, "this expression has no effect")
                .label("value unused")
                .hint("assign it (`x = ...;`) or call a procedure")),
        }
    }

    /// Lowers an expression; loads and calls inside it become instructions
    /// before it, in left-to-right order.
    fn expr(&mut self, e: &'a ast::Expr) -> SpecResult<Expr> {
        self.descend(e.span)?;
        let result = self.expr_kind(e);
        self.nesting -= 1;
        result
    }

    fn expr_kind(&mut self, e: &'a ast::Expr) -> SpecResult<Expr> {
        Ok(match &e.kind {
            ExprKind::Int(v) => Expr::Const(*v),
            ExprKind::Bool(b) => Expr::Const(*b as i64),
            ExprKind::Name(id) => match self.lookup(id)? {
                Sym::Param(v) | Sym::Const(v) => Expr::Const(v),
                Sym::Builtin(b) => Expr::Builtin(b),
                Sym::Local(l) => Expr::Local(l),
                Sym::Mem(var) => self.load(var, id, None, e.span)?,
                Sym::Fn(_) => {
                    return Err(
                        Diagnostic::new(id.span, format!("`{}` is a procedure", id.name))
                            .label("not a value")
                            .hint(format!("call it: `{}()`", id.name)),
                    )
                }
            },
            ExprKind::Index(id, index) => match self.lookup(id)? {
                Sym::Mem(var) => self.load(var, id, Some(index), e.span)?,
                other => {
                    return Err(Diagnostic::new(
                        id.span,
                        format!("{} `{}` is not an array", sym_kind(other), id.name),
                    )
                    .label("indexed here"))
                }
            },
            ExprKind::Unary(op, a) => fold(Expr::Unary(*op, Box::new(self.expr(a)?))),
            ExprKind::Binary(op @ (ast::BinOp::And | ast::BinOp::Or), a, b)
                if self.has_effects(b) =>
            {
                self.short_circuit(*op, a, b)?
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                fold(Expr::Binary(*op, Box::new(a), Box::new(b)))
            }
            ExprKind::Ternary(c, a, b) if self.has_effects(a) || self.has_effects(b) => {
                self.ternary_effects(c, a, b)?
            }
            ExprKind::Ternary(c, a, b) => {
                let c = self.expr(c)?;
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                fold(Expr::Ternary(Box::new(c), Box::new(a), Box::new(b)))
            }
            ExprKind::Call {
                name,
                qualifiers,
                args,
            } => self.call(e, name, qualifiers, args, true)?.ok_or_else(|| {
                Diagnostic::new(e.span, format!("`{}` returns no value", name.name))
                    .label("used as a value")
            })?,
        })
    }

    fn load(
        &mut self,
        var: VarId,
        id: &ast::Ident,
        index: Option<&'a ast::Expr>,
        span: Span,
    ) -> SpecResult<Expr> {
        let loc = self.location(var, id, index, span)?;
        let access = self.plain_access(var).at(loc);
        Ok(Expr::Local(self.load_into_temp(access, span)))
    }

    /// `a && b` / `a || b` where `b` reads memory: `b` runs only if needed.
    fn short_circuit(
        &mut self,
        op: ast::BinOp,
        a: &'a ast::Expr,
        b: &'a ast::Expr,
    ) -> SpecResult<Expr> {
        let result = self.temp(Type::Bool);
        let a_val = self.expr(a)?;
        self.emit(
            Op::Assign {
                dst: result,
                value: a_val,
            },
            a.span,
        );
        let test = match op {
            ast::BinOp::And => Expr::Local(result),
            _ => Expr::Unary(ast::UnOp::Not, Box::new(Expr::Local(result))),
        };
        let branch = self.emit(
            Op::Branch {
                cond: test,
                then_pc: self.pc() + 1,
                else_pc: 0,
            },
            a.span,
        );
        let b_val = self.expr(b)?;
        self.emit(
            Op::Assign {
                dst: result,
                value: Expr::Binary(ast::BinOp::Ne, Box::new(b_val), Box::new(Expr::Const(0))),
            },
            b.span,
        );
        self.patch(branch, self.pc());
        Ok(Expr::Local(result))
    }

    fn ternary_effects(
        &mut self,
        c: &'a ast::Expr,
        a: &'a ast::Expr,
        b: &'a ast::Expr,
    ) -> SpecResult<Expr> {
        let result = self.temp(Type::I32);
        let cond = self.expr(c)?;
        let branch = self.emit(
            Op::Branch {
                cond,
                then_pc: self.pc() + 1,
                else_pc: 0,
            },
            c.span,
        );
        let a_val = self.expr(a)?;
        self.emit(
            Op::Assign {
                dst: result,
                value: a_val,
            },
            a.span,
        );
        let skip = self.emit(Op::Jump { target: 0 }, a.span);
        self.patch(branch, self.pc());
        let b_val = self.expr(b)?;
        self.emit(
            Op::Assign {
                dst: result,
                value: b_val,
            },
            b.span,
        );
        self.patch(skip, self.pc());
        Ok(Expr::Local(result))
    }

    fn invariant_expr(&mut self, e: &'a ast::Expr) -> SpecResult<Expr> {
        let not_here = |span: Span, what: &str| {
            Err(
                Diagnostic::new(span, format!("{what} cannot appear in an invariant"))
                    .label("not a global value")
                    .hint("invariants read global variables, parameters and constants"),
            )
        };
        Ok(match &e.kind {
            ExprKind::Int(v) => Expr::Const(*v),
            ExprKind::Bool(b) => Expr::Const(*b as i64),
            ExprKind::Name(id) | ExprKind::Index(id, _) => {
                let index = match &e.kind {
                    ExprKind::Index(_, i) => Some(i),
                    _ => None,
                };
                match self.lookup(id)? {
                    Sym::Param(v) | Sym::Const(v) if index.is_none() => Expr::Const(v),
                    Sym::Mem(var) if self.vars[var as usize].storage == Storage::Global => {
                        let is_array = self.vars[var as usize].is_array;
                        if is_array != index.is_some() {
                            return Err(Diagnostic::new(
                                e.span,
                                format!(
                                    "`{}` needs {} index",
                                    id.name,
                                    if is_array { "an" } else { "no" }
                                ),
                            )
                            .label("here"));
                        }
                        let idx = match index {
                            Some(i) => Some(Box::new(self.invariant_expr(i)?)),
                            None => None,
                        };
                        Expr::Global(var, idx)
                    }
                    _ => return not_here(id.span, &format!("`{}`", id.name)),
                }
            }
            ExprKind::Unary(op, a) => Expr::Unary(*op, Box::new(self.invariant_expr(a)?)),
            ExprKind::Binary(op, a, b) => Expr::Binary(
                *op,
                Box::new(self.invariant_expr(a)?),
                Box::new(self.invariant_expr(b)?),
            ),
            ExprKind::Ternary(c, a, b) => Expr::Ternary(
                Box::new(self.invariant_expr(c)?),
                Box::new(self.invariant_expr(a)?),
                Box::new(self.invariant_expr(b)?),
            ),
            ExprKind::Call { name, .. } => return not_here(name.span, "a call"),
        })
    }

    // ----- calls ---------------------------------------------------------

    /// Lowers a call; returns its value when it has one.
    fn call(
        &mut self,
        e: &'a ast::Expr,
        name: &'a ast::Ident,
        qualifiers: &'a [ast::Ident],
        args: &'a [ast::Expr],
        want_value: bool,
    ) -> SpecResult<Option<Expr>> {
        if qualifiers.is_empty() {
            if let Some(Sym::Fn(index)) = self.scopes.lookup(&name.name, &self.launch) {
                return self.inline_call(index, name, args, e.span);
            }
        }
        let kind = classify_call(name, qualifiers)?;
        let arity = kind.arity();
        // `__syncwarp()` defaults its mask to the full warp, as in CUDA.
        let defaulted = matches!(kind, CallKind::SyncWarp) && args.is_empty();
        if args.len() != arity && !defaulted {
            return Err(Diagnostic::new(
                e.span,
                format!(
                    "`{}` takes {arity} argument{}, found {}",
                    name.name,
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .label("wrong number of arguments")
            .hint(kind.usage().to_string()));
        }
        let span = e.span;
        Ok(match kind {
            CallKind::Atomic(op, mo) => {
                let access = mo.at(self.mem_arg(&args[0], name)?);
                let mut operands = Vec::with_capacity(op.operands());
                for a in &args[1..] {
                    operands.push(self.expr(a)?);
                }
                let dst = want_value.then(|| self.temp(self.vars[access.loc.var as usize].ty));
                let atomic = Op::Atomic {
                    dst,
                    op,
                    access,
                    operands,
                };
                self.emit(atomic, span);
                dst.map(Expr::Local)
            }
            CallKind::Load(mo) => {
                let access = mo.at(self.mem_arg(&args[0], name)?);
                Some(Expr::Local(self.load_into_temp(access, span)))
            }
            CallKind::Store(mo) => {
                let access = mo.at(self.mem_arg(&args[0], name)?);
                let value = self.expr(&args[1])?;
                self.emit(Op::Store { access, value }, span);
                None
            }
            CallKind::Fence(mo) => {
                self.emit(Op::Fence(mo), span);
                None
            }
            CallKind::SyncThreads => {
                self.emit(Op::SyncThreads, span);
                None
            }
            CallKind::KernelBoundary => {
                self.emit(Op::KernelBoundary, span);
                None
            }
            CallKind::SyncWarp => {
                let mask = match args.first() {
                    Some(m) => self.expr(m)?,
                    None => Expr::Const(0xFFFF_FFFF),
                };
                self.emit(Op::SyncWarp { mask }, span);
                None
            }
            CallKind::Vote(kind) => {
                let mask = self.expr(&args[0])?;
                let pred = self.expr(&args[1])?;
                let dst = self.temp(if kind == VoteKind::Ballot {
                    Type::U32
                } else {
                    Type::Bool
                });
                self.emit(
                    Op::Vote {
                        dst,
                        kind,
                        mask,
                        pred,
                    },
                    span,
                );
                Some(Expr::Local(dst))
            }
            CallKind::ActiveMask => {
                let dst = self.temp(Type::U32);
                self.emit(Op::ActiveMask { dst }, span);
                Some(Expr::Local(dst))
            }
            CallKind::LockBitTry => {
                let loc = self.mem_arg(&args[0], name)?;
                let value = match &args.get(1).map(|a| &a.kind) {
                    Some(ExprKind::Name(id)) => match self.lookup(id)? {
                        Sym::Local(l) => Some(l),
                        _ => None,
                    },
                    _ => None,
                };
                if value.is_none() {
                    return Err(Diagnostic::new(
                        args[1].span,
                        "the second argument of `ldslk` must be a local variable",
                    )
                    .label("receives the loaded value"));
                }
                let pred = self.temp(Type::Bool);
                self.emit(Op::LockBitTry { pred, value, loc }, span);
                Some(Expr::Local(pred))
            }
            CallKind::LockBitRelease => {
                let loc = self.mem_arg(&args[0], name)?;
                let value = self.expr(&args[1])?;
                self.emit(Op::LockBitRelease { loc, value }, span);
                None
            }
            CallKind::Backoff => {
                self.emit(Op::Backoff, span);
                None
            }
        })
    }

    /// The location argument of a memory operation.
    fn mem_arg(&mut self, arg: &'a ast::Expr, op: &ast::Ident) -> SpecResult<Loc> {
        let (id, index) = match &arg.kind {
            ExprKind::Name(id) => (id, None),
            ExprKind::Index(id, i) => (id, Some(&**i)),
            _ => {
                return Err(Diagnostic::new(
                    arg.span,
                    format!(
                        "the first argument of `{}` must be a memory location",
                        op.name
                    ),
                )
                .label("not a variable")
                .hint("name a global or shared variable, e.g. `lock` or `flags[i]`"))
            }
        };
        match self.lookup(id)? {
            Sym::Mem(var) => self.location(var, id, index, arg.span),
            other => Err(Diagnostic::new(
                id.span,
                format!(
                    "`{}` operates on global or shared memory, but `{}` is {}",
                    op.name,
                    id.name,
                    sym_kind(other)
                ),
            )
            .label("not in memory")
            .hint("declare it `global` or `shared` at the top level")),
        }
    }

    fn inline_call(
        &mut self,
        index: usize,
        name: &ast::Ident,
        args: &'a [ast::Expr],
        span: Span,
    ) -> SpecResult<Option<Expr>> {
        let f: &'a ast::FnDecl = self.fns[index];
        if self.frames.iter().any(|fr| fr.name == f.name.name) {
            return Err(
                Diagnostic::new(span, format!("recursive call of `{}`", f.name.name))
                    .label("calls itself")
                    .hint("procedures are inlined; write the recursion as a loop"),
            );
        }
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                span,
                format!("calls nest deeper than {MAX_CALL_DEPTH} levels"),
            )
            .label("one call too many")
            .hint(format!(
                "procedures are inlined: {} → `{}`; call some of them one after another instead",
                self.call_chain(),
                f.name.name
            )));
        }
        if args.len() != f.params.len() {
            return Err(Diagnostic::new(
                span,
                format!(
                    "`{}` takes {} argument(s), found {}",
                    name.name,
                    f.params.len(),
                    args.len()
                ),
            )
            .label("wrong number of arguments")
            .hint(format!("declared at {}", describe_params(f))));
        }
        if self.in_critical && contains_critical(&f.body) {
            return Err(Diagnostic::new(span, "critical sections cannot nest")
                .label("this procedure has one"));
        }
        // Arguments are evaluated in the caller's scope, then bound.
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.expr(a)?);
        }
        let ret = f.ret.map(|ty| (self.temp(ty), ty));
        let (call, first_local, args) = (self.pc(), self.locals.len() as LocalId, values.clone());
        let (depth, first_inner) = (self.frames.len(), self.inlined.len());
        self.frames.push(Frame {
            name: f.name.name.clone(),
            ret,
            returns: Vec::new(),
            loop_depth: self.loops.len(),
        });
        let caller_scopes = self.scopes.enter_procedure();
        let result = self.inline_body(f, values, span);
        self.scopes.leave_procedure(caller_scopes);
        let frame = self.frames.pop().expect("pushed above");
        result?;
        if self.code.len() > MAX_INSTRUCTIONS {
            return Err(Diagnostic::new(
                span,
                format!("inlining makes the program longer than {MAX_INSTRUCTIONS} instructions"),
            )
            .label("this call's body is inlined once per call")
            .hint(format!(
                "procedures are inlined at each call, so a procedure that calls another twice, \
                 which calls another twice, ... doubles the code at each level (here {} → `{}`)",
                self.call_chain(),
                f.name.name
            )));
        }
        let end = self.pc();
        for j in frame.returns {
            self.patch(j, end);
        }
        let n = args.len() as u32;
        self.inlined.push(InlinedCall {
            proc: f.name.name.clone(),
            span,
            call,
            body: call + n,
            end,
            params: (first_local..first_local + n).collect(),
            args,
            ret: ret.map(|(id, _)| id),
            locals: first_local..self.locals.len() as LocalId,
            depth,
            calls: (first_inner..self.inlined.len())
                .filter(|&i| self.inlined[i].depth == depth + 1)
                .collect(),
        });
        Ok(ret.map(|(id, _)| Expr::Local(id)))
    }

    fn inline_body(&mut self, f: &'a ast::FnDecl, values: Vec<Expr>, span: Span) -> SpecResult<()> {
        self.scopes.push();
        for (p, v) in f.params.iter().zip(values) {
            self.check_not_reserved(&p.name)?;
            let id = self.new_local(&p.name.name, p.ty, LocalInit::Zero);
            self.scopes
                .define(&p.name.name, Sym::Local(id), p.name.span)
                .map_err(|first| {
                    already_defined(
                        self.source,
                        &p.name,
                        first,
                        "parameters need distinct names",
                    )
                })?;
            self.emit(Op::Assign { dst: id, value: v }, span);
        }
        self.block(&f.body)?;
        if let Some(ty) = f.ret {
            if !ends_in_return(&f.body) {
                return Err(Diagnostic::new(
                    f.body.span,
                    format!("`{}` must return a {}", f.name.name, ty.name()),
                )
                .label("can reach the end without `return`")
                .hint("end the procedure with `return value;`"));
            }
        }
        Ok(())
    }

    /// Whether evaluating `e` reads memory or calls something.
    fn has_effects(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) => false,
            ExprKind::Name(id) => matches!(
                self.scopes.lookup(&id.name, &self.launch),
                Some(Sym::Mem(_))
            ),
            ExprKind::Index(..) | ExprKind::Call { .. } => true,
            ExprKind::Unary(_, a) => self.has_effects(a),
            ExprKind::Binary(_, a, b) => self.has_effects(a) || self.has_effects(b),
            ExprKind::Ternary(c, a, b) => {
                self.has_effects(c) || self.has_effects(a) || self.has_effects(b)
            }
        }
    }
}

/// Whether every path through `b` ends in `return` (conservatively: the last
/// statement returns, or is an if/else whose branches both do, or a loop
/// without a condition).
fn ends_in_return(b: &ast::Block) -> bool {
    match b.stmts.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => true,
        Some(StmtKind::If {
            then_block,
            else_block: Some(e),
            ..
        }) => ends_in_return(then_block) && ends_in_return(e),
        Some(StmtKind::Block(inner)) => ends_in_return(inner),
        Some(StmtKind::While { cond, .. }) => matches!(cond.kind, ExprKind::Bool(true)),
        Some(StmtKind::For { cond: None, .. }) => true,
        _ => false,
    }
}

/// Folds an operator applied to constants (parameters are constants), so
/// e.g. `iters == 0 || i < iters` with `iters = 0` no longer reads `i`, and
/// `i` becomes dead instead of counting forever. `||`/`&&` fold when the
/// left side decides.
fn fold(e: Expr) -> Expr {
    use ast::BinOp::{And, Or};
    match e {
        Expr::Unary(op, a) => match *a {
            Expr::Const(x) => Expr::Const(eval_unary(op, x)),
            a => Expr::Unary(op, Box::new(a)),
        },
        Expr::Binary(op, a, b) => match (op, &*a, &*b) {
            (Or, Expr::Const(x), _) if *x != 0 => Expr::Const(1),
            (And, Expr::Const(0), _) => Expr::Const(0),
            (_, Expr::Const(x), Expr::Const(y)) => match eval_binary(op, *x, *y) {
                Ok(v) => Expr::Const(v),
                Err(_) => Expr::Binary(op, a, b), // no value: reported when run
            },
            _ => Expr::Binary(op, a, b),
        },
        Expr::Ternary(c, a, b) => match *c {
            Expr::Const(x) => {
                if x != 0 {
                    *a
                } else {
                    *b
                }
            }
            c => Expr::Ternary(Box::new(c), a, b),
        },
        other => other,
    }
}

/// The operator of a compound assignment (`+=` → `+`); `None` for `=`.
fn compound_op(op: AssignOp) -> Option<ast::BinOp> {
    match op {
        AssignOp::Set => None,
        AssignOp::Add => Some(ast::BinOp::Add),
        AssignOp::Sub => Some(ast::BinOp::Sub),
    }
}

enum Target {
    Local(LocalId),
    Mem(Loc),
}

fn sym_kind(sym: Sym) -> &'static str {
    match sym {
        Sym::Param(_) => "parameter",
        Sym::Const(_) | Sym::Builtin(_) => "launch constant",
        Sym::Mem(_) => "memory variable",
        Sym::Local(..) => "local variable",
        Sym::Fn(_) => "procedure",
    }
}

fn describe_params(f: &ast::FnDecl) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{} {}", p.ty.name(), p.name.name))
        .collect();
    format!("`fn {}({})`", f.name.name, params.join(", "))
}

fn contains_critical(b: &ast::Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Critical { .. } => true,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => contains_critical(then_block) || else_block.as_ref().is_some_and(contains_critical),
        StmtKind::While { body, .. }
        | StmtKind::For { body, .. }
        | StmtKind::Phase { body }
        | StmtKind::Block(body) => contains_critical(body),
        _ => false,
    })
}
