//! CUDA's built-in device functions and libcu++'s atomics → the spec's
//! memory operations, fences and barriers.
//!
//! libcu++ orders follow NVIDIA's PTX ABI for C++ atomics, as libcu++
//! itself emits them: a seq_cst access is `fence.sc` then the access of
//! `ir::seq_cst_access_order` (`ld.acquire`, `st.relaxed`, `atom.acquire`).

use super::ast::*;
use super::lower::syntax::{bin, call, expr_stmt, mem_call, name, set};
use super::lower::types::{convert, ctype_of};
use super::lower::{AtomicObject, FnLower};
use crate::diag::Diagnostic;
use crate::ir::{seq_cst_access_order, AtomicAccess as Access, MemOrder, Order, Scope};
use crate::spec::ast::{self as s, BinOp, Span, Type};

type R<T> = Result<T, Diagnostic>;

/// CUDA's atomic functions, each with `_block` and `_system` forms; the
/// spec spells them alike.
const ATOMICS: &[&str] = &[
    "atomicCAS",
    "atomicExch",
    "atomicAdd",
    "atomicSub",
    "atomicInc",
    "atomicDec",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
];

/// libcu++'s read-modify-write members and the spec's atomics for them.
const RMW_MEMBERS: &[(&str, &str)] = &[
    ("exchange", "atomicExch"),
    ("fetch_add", "atomicAdd"),
    ("fetch_sub", "atomicSub"),
    ("fetch_and", "atomicAnd"),
    ("fetch_or", "atomicOr"),
    ("fetch_xor", "atomicXor"),
    ("fetch_min", "atomicMin"),
    ("fetch_max", "atomicMax"),
];

/// A C++ `memory_order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CppOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl<'p> FnLower<'_, 'p> {
    /// A call of a built-in: `Some(Some(call))`, `Some(None)` when it lowers
    /// to nothing (a relaxed fence), `None` if `fname` is not a built-in.
    pub(super) fn builtin(
        &mut self,
        fname: &str,
        args: &'p [CExpr],
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<Option<Option<s::Expr>>> {
        let span = e.span;
        if ATOMICS.contains(&split_scope(fname)) {
            let (target, offset) = self.pointer_arg(&args[0], pre)?;
            let value_ty = ctype_of(target.ty);
            let mut spec_args = vec![self.location(&target, offset, span, pre)?];
            for a in &args[1..] {
                spec_args.push(self.rvalue_as(a, &value_ty, pre)?);
            }
            let c = call(fname, &[], spec_args, span);
            return Ok(Some(Some(convert(c, &value_ty, &e.ty))));
        }
        let plain = |n: &str, a: Vec<s::Expr>| Ok(Some(Some(call(n, &[], a, span))));
        match fname {
            "__threadfence" | "__threadfence_block" | "__threadfence_system" | "__syncthreads"
            | "__activemask" => plain(fname, vec![]),
            "__barrier_sync" => {
                // `bar.sync id`: barrier 0 is `__syncthreads()`; a named
                // barrier (another id) is outside the subset.
                let mut id = args.first().map(|a| &a.kind);
                while let Some(CExprKind::Cast(inner)) = id {
                    id = Some(&inner.kind);
                }
                match id {
                    Some(CExprKind::Int(0)) => plain("__syncthreads", vec![]),
                    _ => Err(Diagnostic::new(span, "`__barrier_sync` of a barrier other than 0 is outside the subset")
                        .label("named barrier")
                        .hint("barrier 0 (`__barrier_sync(0)`) is `__syncthreads()`; other ids are not modelled from CUDA")),
                }
            }
            "__syncwarp" | "__any_sync" | "__all_sync" | "__ballot_sync" => {
                let mut v = Vec::new();
                for a in args {
                    v.push(self.rvalue(a, pre)?);
                }
                plain(fname, v)
            }
            "__nanosleep" => {
                // Time is not modelled: a sleep is a back-off step; the
                // duration is dropped (reading it has no effect on others).
                if let Some(a) = args.iter().find(|a| a.has_effects()) {
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
                let order = match order {
                    // A relaxed fence orders nothing.
                    CppOrder::Relaxed => return Ok(Some(None)),
                    CppOrder::SeqCst => Order::Sc,
                    _ => Order::AcqRel,
                };
                let fence = mem_call("fence", MemOrder::new(order, scope), vec![], span);
                Ok(Some(Some(fence)))
            }
            _ => Ok(None),
        }
    }

    /// A member of `cuda::atomic_ref<T, S>` / `cuda::atomic<T, S>` on the
    /// atomic object `a`.
    pub(super) fn atomic_member(
        &mut self,
        a: AtomicObject,
        member: &str,
        args: &'p [CExpr],
        e: &'p CExpr,
        pre: &mut Vec<s::Stmt>,
    ) -> R<Option<s::Expr>> {
        let span = e.span;
        let value_ty = ctype_of(a.target.ty);
        let loc = self.location(&a.target, a.offset.clone(), span, pre)?;
        match member {
            "load" => {
                let mo = self.access_order(args.first(), Access::Load, a.scope, span, pre)?;
                let load = mem_call("load", mo, vec![loc], span);
                Ok(Some(convert(load, &value_ty, &e.ty)))
            }
            "store" => {
                let v = self.rvalue_as(&args[0], &value_ty, pre)?;
                let mo = self.access_order(args.get(1), Access::Store, a.scope, span, pre)?;
                pre.push(expr_stmt(mem_call("store", mo, vec![loc, v], span)));
                Ok(None)
            }
            "compare_exchange_strong" | "compare_exchange_weak" => {
                let exchange = self.compare_exchange(&a, loc, args, span, pre)?;
                Ok(Some(exchange))
            }
            _ => {
                let Some((_, op)) = RMW_MEMBERS.iter().find(|(m, _)| *m == member) else {
                    return Err(Diagnostic::new(span, format!("`{member}` of a CUDA atomic is outside the subset"))
                        .label("unsupported member")
                        .hint("load, store, exchange, compare_exchange_strong/weak and fetch_add/sub/and/or/xor/min/max are supported"));
                };
                let v = self.rvalue_as(&args[0], &value_ty, pre)?;
                let mo =
                    self.access_order(args.get(1), Access::ReadModifyWrite, a.scope, span, pre)?;
                let rmw = mem_call(op, mo, vec![loc, v], span);
                Ok(Some(convert(rmw, &value_ty, &e.ty)))
            }
        }
    }

    /// `compare_exchange(expected, desired, order)`, where `expected` is a
    /// thread-local lvalue: `old = CAS(loc, expected, desired); ok = old ==
    /// expected; expected = old`. A weak exchange is modelled as a strong
    /// one (no spurious failure).
    fn compare_exchange(
        &mut self,
        a: &AtomicObject,
        loc: s::Expr,
        args: &'p [CExpr],
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<s::Expr> {
        let value_ty = ctype_of(a.target.ty);
        let (exp_name, exp_ty) = self.local_place(&args[0])?;
        let desired = self.rvalue_as(&args[1], &value_ty, pre)?;
        let mo = self.access_order(args.get(2), Access::ReadModifyWrite, a.scope, span, pre)?;
        let expected = || convert(name(&exp_name, span), &ctype_of(exp_ty), &value_ty);
        let cas = mem_call("atomicCAS", mo, vec![loc, expected(), desired], span);
        let old = self.fresh_let(a.target.ty, cas, pre);
        let same = bin(BinOp::Eq, name(&old, span), expected(), span);
        let ok = self.fresh_let(Type::Bool, same, pre);
        pre.push(set(&exp_name, name(&old, span), span));
        Ok(name(&ok, span))
    }

    /// The PTX order of an atomic access made with the C++ order `arg`;
    /// a seq_cst access is preceded by `fence.sc`, pushed to `pre`.
    fn access_order(
        &mut self,
        arg: Option<&CExpr>,
        access: Access,
        scope: Scope,
        span: Span,
        pre: &mut Vec<s::Stmt>,
    ) -> R<MemOrder> {
        let (fence, order) = match (order_arg(arg, span)?, access) {
            (CppOrder::SeqCst, access) => (true, seq_cst_access_order(access)),
            (CppOrder::Relaxed, _) => (false, Order::Relaxed),
            (CppOrder::Acquire, Access::Load | Access::ReadModifyWrite) => (false, Order::Acquire),
            (CppOrder::Release, Access::Store | Access::ReadModifyWrite) => (false, Order::Release),
            (CppOrder::AcqRel, Access::ReadModifyWrite) => (false, Order::AcqRel),
            (_, Access::Load) => {
                return Err(
                    Diagnostic::new(span, "a load cannot be `release` or `acq_rel`").label("order"),
                )
            }
            (_, Access::Store) => {
                return Err(
                    Diagnostic::new(span, "a store cannot be `acquire` or `acq_rel`")
                        .label("order"),
                )
            }
        };
        if fence {
            let sc = MemOrder::new(Order::Sc, scope);
            pre.push(expr_stmt(mem_call("fence", sc, vec![], span)));
        }
        Ok(MemOrder::new(order, scope))
    }
}

/// Whether `base` (without a scope suffix) is one of CUDA's atomic functions.
pub(super) fn is_atomic(base: &str) -> bool {
    ATOMICS.contains(&base)
}

/// `atomicCAS_block` → `atomicCAS`.
pub(super) fn split_scope(name: &str) -> &str {
    ["_block", "_system"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name)
}

fn enumerator(e: &CExpr) -> Option<&str> {
    match &e.kind {
        CExprKind::Enumerator(n) => Some(n),
        CExprKind::Cast(inner) => enumerator(inner),
        _ => None,
    }
}

/// The enumerators of the prelude's `cuda::memory_order`, in its order.
const MEMORY_ORDERS: [&str; 6] = [
    "memory_order_relaxed",
    "memory_order_consume",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];

fn order_arg(e: Option<&CExpr>, span: Span) -> R<CppOrder> {
    let Some(e) = e else {
        return Ok(CppOrder::SeqCst);
    };
    // A default argument (`r.load()`) has no source text: libclang hands
    // over its value, a position in the prelude's `cuda::memory_order`.
    let name = match e.kind {
        CExprKind::Int(v) if e.span == Span::default() => usize::try_from(v)
            .ok()
            .and_then(|i| MEMORY_ORDERS.get(i))
            .copied(),
        _ => enumerator(e),
    };
    Ok(match name {
        Some("memory_order_relaxed") => CppOrder::Relaxed,
        Some("memory_order_acquire" | "memory_order_consume") => CppOrder::Acquire,
        Some("memory_order_release") => CppOrder::Release,
        Some("memory_order_acq_rel") => CppOrder::AcqRel,
        Some("memory_order_seq_cst") => CppOrder::SeqCst,
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
