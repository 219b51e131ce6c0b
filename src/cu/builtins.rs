//! CUDA's built-in device functions and libcu++'s atomics → the spec's
//! memory operations, fences and barriers.
//!
//! libcu++ orders follow NVIDIA's PTX ABI for C++ atomics (the "Atomics
//! Application Binary Interface" chapter of the PTX writer's guide): a
//! seq_cst load is `fence.sc; ld.relaxed`, a seq_cst store `fence.sc;
//! st.relaxed`, a seq_cst read-modify-write `fence.sc; atom.acquire`.

use super::ast::*;
use super::lower::{call, convert, FnLower, Target};
use crate::ir::Scope;
use crate::spec::ast::{self as s, Span, Type};
use crate::spec::diag::Diagnostic;

type R<T> = Result<T, Diagnostic>;

const ATOMICS: &[(&str, &str)] = &[
    ("atomicCAS", "atomicCAS"),
    ("atomicExch", "atomicExch"),
    ("atomicAdd", "atomicAdd"),
    ("atomicSub", "atomicSub"),
    ("atomicInc", "atomicInc"),
    ("atomicDec", "atomicDec"),
    ("atomicMin", "atomicMin"),
    ("atomicMax", "atomicMax"),
    ("atomicAnd", "atomicAnd"),
    ("atomicOr", "atomicOr"),
    ("atomicXor", "atomicXor"),
];

fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

/// The C type of a variable's stored values.
pub fn ctype_of(t: Type) -> CType {
    match t {
        Type::Bool => CType::Bool,
        Type::U8 => CType::Int {
            bits: 8,
            signed: false,
        },
        Type::U16 => CType::Int {
            bits: 16,
            signed: false,
        },
        Type::U32 => CType::Int {
            bits: 32,
            signed: false,
        },
        Type::I8 => CType::Int {
            bits: 8,
            signed: true,
        },
        Type::I16 => CType::Int {
            bits: 16,
            signed: true,
        },
        Type::I32 => CType::Int {
            bits: 32,
            signed: true,
        },
    }
}

/// A call of a built-in: `Some(Some(call))`, `Some(None)` when it lowers
/// to nothing (a relaxed fence), `None` if `fname` is not a built-in.
pub fn lower_builtin<'p>(
    fl: &mut FnLower<'_, 'p>,
    fname: &str,
    args: &'p [CExpr],
    e: &'p CExpr,
    pre: &mut Vec<s::Stmt>,
) -> R<Option<Option<s::Expr>>> {
    let span = e.span;
    let (base, suffix) = split_scope(fname);
    if let Some((_, spec_name)) = ATOMICS.iter().find(|(n, _)| *n == base) {
        let p = fl.pointer_arg(&args[0], pre)?;
        let (target, offset) = p;
        let loc = fl.location(&target, offset, span, pre)?;
        let value_ty = ctype_of(target.ty);
        let mut spec_args = vec![loc];
        for a in &args[1..] {
            let v = fl.rvalue(a, pre)?;
            spec_args.push(convert(v, &a.ty, &value_ty));
        }
        let name = format!("{spec_name}{suffix}");
        let c = call(&name, &[], spec_args, span);
        return Ok(Some(Some(convert(c, &value_ty, &e.ty))));
    }
    let plain = |n: &str, a: Vec<s::Expr>| Ok(Some(Some(call(n, &[], a, span))));
    match fname {
        "__threadfence" | "__threadfence_block" | "__threadfence_system" | "__syncthreads"
        | "__activemask" => plain(fname, vec![]),
        "__syncwarp" | "__any_sync" | "__all_sync" | "__ballot_sync" => {
            let mut v = Vec::new();
            for a in args {
                v.push(fl.rvalue(a, pre)?);
            }
            plain(fname, v)
        }
        "__nanosleep" => {
            // Time is not modelled: a sleep is a back-off step; the
            // duration is dropped (reading it has no effect on others).
            if let Some(a) = args.iter().find(|a| has_effects(a)) {
                return Err(Diagnostic::new(a.span, "an assignment or call inside `__nanosleep(...)` is outside the subset")
                    .label("side effect"));
            }
            plain("backoff", vec![])
        }
        "clock" | "clock64" => Err(Diagnostic::new(span, format!("`{fname}()` is used for more than a back-off delay"))
            .label("time is not modelled")
            .hint("the model explores every interleaving instead of timing; clock() may only bound a delay loop")),
        "atomic_thread_fence" => {
            let order = order_arg(args.first(), span)?;
            let scope = match args.get(1) {
                Some(a) => scope_arg(a)?,
                None => Scope::Sys,
            };
            let o = match order {
                // A relaxed fence orders nothing.
                MemOrder::Relaxed => return Ok(Some(None)),
                MemOrder::SeqCst => "sc",
                _ => "acq_rel",
            };
            Ok(Some(Some(call("fence", &[o, scope_name(scope)], vec![], span))))
        }
        _ => Ok(None),
    }
}

/// `atomicCAS_block` → (`atomicCAS`, `_block`).
fn split_scope(name: &str) -> (&str, &str) {
    for suffix in ["_block", "_system"] {
        if let Some(base) = name.strip_suffix(suffix) {
            return (base, suffix);
        }
    }
    (name, "")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

fn enumerator(e: &CExpr) -> Option<&str> {
    match &e.kind {
        CExprKind::Enumerator(n) => Some(n),
        CExprKind::Cast(inner) => enumerator(inner),
        _ => None,
    }
}

fn order_arg(e: Option<&CExpr>, span: Span) -> R<MemOrder> {
    let Some(e) = e else {
        return Ok(MemOrder::SeqCst);
    };
    Ok(match enumerator(e) {
        Some("memory_order_relaxed") => MemOrder::Relaxed,
        Some("memory_order_acquire" | "memory_order_consume") => MemOrder::Acquire,
        Some("memory_order_release") => MemOrder::Release,
        Some("memory_order_acq_rel") => MemOrder::AcqRel,
        Some("memory_order_seq_cst") => MemOrder::SeqCst,
        _ => {
            return Err(Diagnostic::new(
                if e.span == Span::default() {
                    span
                } else {
                    e.span
                },
                "the memory order must be written as a `cuda::memory_order_*` constant",
            )
            .label("not a memory order"))
        }
    })
}

fn scope_arg(e: &CExpr) -> R<Scope> {
    Ok(match enumerator(e) {
        Some("thread_scope_block" | "thread_scope_thread") => Scope::Cta,
        Some("thread_scope_device") => Scope::Gpu,
        Some("thread_scope_system") => Scope::Sys,
        _ => {
            return Err(Diagnostic::new(
                e.span,
                "the scope must be written as a `cuda::thread_scope_*` constant",
            )
            .label("not a scope"))
        }
    })
}

/// A member of `cuda::atomic_ref<T, S>` / `cuda::atomic<T, S>` on the
/// location `target[offset]`.
#[allow(clippy::too_many_arguments)]
pub fn lower_atomic_member<'p>(
    fl: &mut FnLower<'_, 'p>,
    target: &Target,
    offset: s::Expr,
    scope: Scope,
    member: &str,
    args: &'p [CExpr],
    e: &'p CExpr,
    pre: &mut Vec<s::Stmt>,
) -> R<Option<s::Expr>> {
    let span = e.span;
    let sc = scope_name(scope);
    let value_ty = ctype_of(target.ty);
    let fence_sc = |pre: &mut Vec<s::Stmt>| {
        pre.push(s::Stmt {
            kind: s::StmtKind::Expr(call("fence", &["sc", sc], vec![], span)),
            span,
        })
    };
    let loc = fl.location(target, offset, span, pre)?;
    let rmw = |order: MemOrder| match order {
        MemOrder::Relaxed => "relaxed",
        MemOrder::Acquire => "acquire",
        MemOrder::Release => "release",
        MemOrder::AcqRel => "acq_rel",
        MemOrder::SeqCst => "acquire",
    };
    let value = |fl: &mut FnLower<'_, 'p>, a: &'p CExpr, pre: &mut Vec<s::Stmt>| -> R<s::Expr> {
        let v = fl.rvalue(a, pre)?;
        Ok(convert(v, &a.ty, &value_ty))
    };
    match member {
        "load" => {
            let order = order_arg(args.first(), span)?;
            let o = match order {
                MemOrder::Relaxed => "relaxed",
                MemOrder::Acquire => "acquire",
                MemOrder::SeqCst => {
                    fence_sc(pre);
                    "relaxed"
                }
                _ => return Err(Diagnostic::new(span, "a load cannot be `release` or `acq_rel`").label("order")),
            };
            Ok(Some(convert(call("load", &[o, sc], vec![loc], span), &value_ty, &e.ty)))
        }
        "store" => {
            let v = value(fl, &args[0], pre)?;
            let o = match order_arg(args.get(1), span)? {
                MemOrder::Relaxed => "relaxed",
                MemOrder::Release => "release",
                MemOrder::SeqCst => {
                    fence_sc(pre);
                    "relaxed"
                }
                _ => return Err(Diagnostic::new(span, "a store cannot be `acquire` or `acq_rel`").label("order")),
            };
            pre.push(s::Stmt {
                kind: s::StmtKind::Expr(call("store", &[o, sc], vec![loc, v], span)),
                span,
            });
            Ok(None)
        }
        "exchange" | "fetch_add" | "fetch_sub" | "fetch_and" | "fetch_or" | "fetch_xor" | "fetch_min" | "fetch_max" => {
            let op = match member {
                "exchange" => "atomicExch",
                "fetch_add" => "atomicAdd",
                "fetch_sub" => "atomicSub",
                "fetch_and" => "atomicAnd",
                "fetch_or" => "atomicOr",
                "fetch_xor" => "atomicXor",
                "fetch_min" => "atomicMin",
                _ => "atomicMax",
            };
            let v = value(fl, &args[0], pre)?;
            let order = order_arg(args.get(1), span)?;
            if order == MemOrder::SeqCst {
                fence_sc(pre);
            }
            Ok(Some(convert(call(op, &[rmw(order), sc], vec![loc, v], span), &value_ty, &e.ty)))
        }
        "compare_exchange_strong" | "compare_exchange_weak" => {
            // expected is a thread-local lvalue: old = CAS(loc, expected,
            // desired); ok = old == expected; expected = old. A weak
            // exchange is modelled as a strong one (no spurious failure).
            let expected = fl.local_place(&args[0])?;
            let desired = value(fl, &args[1], pre)?;
            let order = order_arg(args.get(2), span)?;
            if order == MemOrder::SeqCst {
                fence_sc(pre);
            }
            let (exp_name, exp_ty) = expected;
            let cas = call(
                "atomicCAS",
                &[rmw(order), sc],
                vec![loc, convert(name_expr(&exp_name, span), &ctype_of(exp_ty), &value_ty), desired],
                span,
            );
            let old = fl.fresh_let(target.ty, cas, pre);
            let ok = fl.fresh_let(
                Type::Bool,
                s::Expr {
                    kind: s::ExprKind::Binary(
                        s::BinOp::Eq,
                        Box::new(name_expr(&old, span)),
                        Box::new(convert(name_expr(&exp_name, span), &ctype_of(exp_ty), &value_ty)),
                    ),
                    span,
                },
                pre,
            );
            pre.push(s::Stmt {
                kind: s::StmtKind::Assign {
                    place: s::Place { name: s::Ident { name: exp_name, span }, index: None, span },
                    op: s::AssignOp::Set,
                    value: name_expr(&old, span),
                },
                span,
            });
            Ok(Some(name_expr(&ok, span)))
        }
        other => Err(Diagnostic::new(span, format!("`{other}` of a CUDA atomic is outside the subset"))
            .label("unsupported member")
            .hint("load, store, exchange, compare_exchange_strong/weak and fetch_add/sub/and/or/xor/min/max are supported")),
    }
}

fn name_expr(n: &str, span: Span) -> s::Expr {
    s::Expr {
        kind: s::ExprKind::Name(s::Ident {
            name: n.to_string(),
            span,
        }),
        span,
    }
}

/// Whether evaluating `e` assigns or calls something.
pub fn has_effects(e: &CExpr) -> bool {
    match &e.kind {
        CExprKind::Assign(..) | CExprKind::Method(..) | CExprKind::Construct(_) => true,
        CExprKind::Call(n, args) => {
            !matches!(n.as_str(), "clock" | "clock64") || args.iter().any(has_effects)
        }
        CExprKind::Unary(op, a) => {
            matches!(
                op,
                CUnOp::PreInc | CUnOp::PreDec | CUnOp::PostInc | CUnOp::PostDec
            ) || has_effects(a)
        }
        CExprKind::Binary(_, a, b) | CExprKind::Index(a, b) => has_effects(a) || has_effects(b),
        CExprKind::Cond(c, a, b) => has_effects(c) || has_effects(a) || has_effects(b),
        CExprKind::Cast(a) => has_effects(a),
        CExprKind::Int(_)
        | CExprKind::Null
        | CExprKind::Var(..)
        | CExprKind::Dim(..)
        | CExprKind::WarpSize
        | CExprKind::Enumerator(_) => false,
    }
}
