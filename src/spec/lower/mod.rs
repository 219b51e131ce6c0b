//! Lowering: the spec's AST → the IR's flat per-thread program for one
//! launch, with name resolution, arity and kind checks, procedure inlining
//! and control-flow lowering. The last step of the spec front end (and so
//! of `clang_front/`, which builds the spec AST); the IR knows nothing of it.
//!
//! One [`Lowerer`] walks the spec once; its jobs live in one module each:
//! [`decls`] (parameters, memory variables and their initial values),
//! [`checks`] (the harness's `check` lines and invariants), [`stmt`]
//! (statements and control flow), [`region`] (critical sections and
//! phases), [`expr`] (expressions, with their loads hoisted before them),
//! [`place`] (names and memory locations), [`call`] (calls; built-ins:
//! memory operations, fences, barriers, votes, lock bits; [`builtins`] says
//! which one a name denotes) and [`inline`] (procedure calls, inlined);
//! [`resolve`] is the scopes of names, [`consteval`] the constant
//! expressions, [`init`] the `local` initializers kept as written. This
//! file holds the state they share and the code buffer they append to.

pub(crate) mod builtins;
mod call;
mod checks;
mod consteval;
mod decls;
mod expr;
mod init;
mod inline;
mod place;
mod region;
mod resolve;
mod stmt;

use crate::diag::{Diagnostic, Source, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, Item, SpecFile};
use inline::Frame;
#[cfg(feature = "cuda-frontend")]
pub(crate) use resolve::RESERVED;
use resolve::{Scopes, Sym};
use stmt::LoopCtx;

/// Procedures are inlined, recursively: deeper call chains than this are an
/// error rather than a stack overflow. Written specs nest a few levels.
pub(super) const MAX_CALL_DEPTH: usize = 64;

/// Statements, expressions and inlined bodies nested inside one another,
/// counted together: the bound on the lowering's recursion (each level is a
/// few stack frames), whatever mix of them a spec nests.
const MAX_NESTING: u32 = 1024;

/// Inlining can double the code at each level (`f` calling `g` twice,
/// `g` calling `h` twice, ...): the most instructions a program may have.
/// The built-in specs have fewer than 300.
pub(super) const MAX_INSTRUCTIONS: usize = 1 << 16;

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
        about: About {
            source: file.header.source.clone(),
            description: file.header.description.clone(),
        },
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
        spec_locals: init::spec_locals(file),
        launches: vec![],
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

/// What a name is, for messages.
fn sym_kind(sym: Sym) -> &'static str {
    match sym {
        Sym::Param(_) => "parameter",
        Sym::Const(_) | Sym::Builtin(_) => "launch constant",
        Sym::Mem(_) => "memory variable",
        Sym::Local(..) => "local variable",
        Sym::Fn(_) => "procedure",
    }
}

// The code buffer and the locals every job appends to.
impl Lowerer<'_> {
    fn emit(&mut self, op: Op, span: Span) -> usize {
        self.code.push(Instr { op, span });
        self.code.len() - 1
    }

    fn pc(&self) -> Pc {
        self.code.len() as Pc
    }

    /// A branch on `cond` whose else target is patched later; its then
    /// target is the next instruction.
    fn branch_forward(&mut self, cond: Expr, span: Span) -> usize {
        let then_pc = self.pc() + 1;
        self.emit(
            Op::Branch {
                cond,
                then_pc,
                else_pc: 0,
            },
            span,
        )
    }

    /// A jump whose target is patched later.
    fn jump_forward(&mut self, span: Span) -> usize {
        self.emit(Op::Jump { target: 0 }, span)
    }

    /// Points the jump or branch at `at` to `target`.
    fn patch(&mut self, at: usize, target: Pc) {
        match &mut self.code[at].op {
            Op::Jump { target: t } => *t = target,
            Op::Branch { else_pc, .. } => *else_pc = target,
            _ => unreachable!("only jumps and branches are patched"),
        }
    }

    /// Points the jump or branch at `at` to the next instruction.
    fn patch_here(&mut self, at: usize) {
        self.patch(at, self.pc());
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

    /// Runs `lower` one level deeper in the lowering's recursion, or
    /// returns a located error once it nests deeper than [`MAX_NESTING`].
    fn nested<T>(
        &mut self,
        at: Span,
        lower: impl FnOnce(&mut Self) -> SpecResult<T>,
    ) -> SpecResult<T> {
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
        let result = lower(self);
        self.nesting -= 1;
        result
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
}
