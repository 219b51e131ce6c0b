//! The subset's typed tree → spec procedures, so the spec lowering does
//! the rest (inlining, control flow, every check).
//!
//! Pointers: every pointer the device code dereferences points into a
//! memory variable the front end knows statically (a harness buffer, a
//! `__shared__` or `__device__` variable); its run-time value is an element
//! offset, a thread-local `i32`. A device function is instantiated once per
//! assignment of buffers to its pointer parameters, as C++ would inline it.
//!
//! This file holds what the whole translation shares: the memory
//! variables, the instances and the harness's calls of them. One instance
//! is made by [`func`] (its parameters, locals and temporaries), with
//! [`stmt`] (statements and loops), [`expr`] (values), [`place`]
//! (locations, reads and writes), [`pointer`] (pointer values) and
//! [`call`] (calls); [`types`] has C's integer types and arithmetic,
//! [`float`] what the subset does with `float` (its bits, IEEE comparisons),
//! [`syntax`] the spec AST builders.

mod call;
mod expr;
mod float;
mod func;
mod place;
mod pointer;
mod stmt;
pub(crate) mod syntax;
pub(crate) mod types;

use super::ast::*;
use super::timing::Timing;
use crate::diag::Diagnostic;
use crate::ir::Scope;
use crate::spec::ast::{self as s, BinOp, Ident, Span, Type};
use std::collections::HashMap;
use syntax::{ident, int};
use types::{element_type, spec_type};

pub(super) use func::FnLower;

pub(super) type R<T> = Result<T, Diagnostic>;

/// The offset a NULL pointer holds: far outside every variable, so a
/// dereference is an out-of-bounds access.
const NULL_OFFSET: i64 = -(1 << 30);

/// A memory variable a pointer points into.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Target {
    pub var: String,
    pub ty: Type,
    pub is_array: bool,
    pub shared: bool,
    pub volatile: bool,
}

impl Target {
    /// The scope of a plain access: the block for `__shared__`, else the GPU.
    fn scope(&self) -> Scope {
        if self.shared {
            Scope::Cta
        } else {
            Scope::Gpu
        }
    }
}

/// A `cuda::atomic_ref` or `cuda::atomic` object: where it is, and the
/// scope of its operations.
pub(super) struct AtomicObject {
    pub target: Target,
    pub offset: s::Expr,
    pub scope: Scope,
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
pub(super) struct Lowering<'p> {
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
    pub(super) fn new(program: &'p CProgram, spec: &s::SpecFile, timing: Timing) -> Lowering<'p> {
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
    pub(super) fn declare_globals(&mut self) -> R<()> {
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
    pub(super) fn harness_call(&mut self, name: &Ident, args: &mut [s::Expr]) -> R<Option<String>> {
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
                    _ => return Err(needs_buffer(a.span, &p.name)),
                },
                _ => return Err(needs_buffer(a.span, &p.name)),
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
    pub(super) fn finish(&mut self) -> R<()> {
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

    /// The device functions instantiated so far, each once, sorted.
    pub(super) fn lowered_functions(&self) -> Vec<String> {
        let mut names: Vec<String> = self.instances.keys().map(|k| k.function.clone()).collect();
        names.sort();
        names.dedup();
        names
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

/// A harness call passes no buffer for a pointer parameter.
fn needs_buffer(span: Span, param: &str) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("the pointer parameter `{param}` needs a buffer"),
    )
    .label("not a buffer")
    .hint("pass a global or shared variable of the harness, `buf` or `buf + offset`")
}
