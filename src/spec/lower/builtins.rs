//! Classification of built-in calls: which memory operation, intrinsic or
//! fence a name with its scope/order suffixes denotes.

use crate::diag::{Diagnostic, SpecResult};
use crate::ir::{order_name, order_named, scope_named, AtomicOp, MemOrder, Order, Scope, VoteKind};
use crate::spec::ast::Ident;

/// A built-in call, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallKind {
    Atomic(AtomicOp, MemOrder),
    Load(MemOrder),
    Store(MemOrder),
    Fence(MemOrder),
    SyncThreads,
    /// `bar.sync` (`arrive: false`) or `bar.arrive`.
    NamedBarrier {
        arrive: bool,
    },
    KernelBoundary,
    SyncWarp,
    Vote(VoteKind),
    ActiveMask,
    LockBitTry,
    LockBitRelease,
    Backoff,
}

impl CallKind {
    pub(crate) fn arity(self) -> usize {
        match self {
            CallKind::Atomic(op, _) => 1 + op.operands(),
            CallKind::Load(_) => 1,
            CallKind::Store(_) | CallKind::LockBitTry | CallKind::LockBitRelease => 2,
            CallKind::Vote(_) | CallKind::NamedBarrier { .. } => 2,
            CallKind::SyncWarp => 1,
            CallKind::Fence(_)
            | CallKind::SyncThreads
            | CallKind::KernelBoundary
            | CallKind::ActiveMask
            | CallKind::Backoff => 0,
        }
    }

    /// How to call it, for error hints.
    pub(crate) fn usage(self) -> &'static str {
        match self {
            CallKind::Atomic(AtomicOp::Cas, _) => "usage: atomicCAS(location, expected, desired)",
            CallKind::Atomic(..) => "usage: atomicOp(location, value)",
            CallKind::Load(_) => "usage: load(location)",
            CallKind::Store(_) => "usage: store(location, value)",
            CallKind::Fence(_) => "usage: __threadfence()",
            CallKind::SyncThreads => "usage: __syncthreads()",
            CallKind::NamedBarrier { arrive: false } => {
                "usage: bar.sync(id) or bar.sync(id, thread_count), id a constant 0 to 15"
            }
            CallKind::NamedBarrier { arrive: true } => {
                "usage: bar.arrive(id, thread_count), id a constant 0 to 15"
            }
            CallKind::KernelBoundary => "usage: __kernel_boundary()",
            CallKind::SyncWarp => "usage: __syncwarp() or __syncwarp(mask)",
            CallKind::Vote(_) => "usage: __any_sync(mask, predicate)",
            CallKind::ActiveMask => "usage: __activemask()",
            CallKind::LockBitTry => "usage: ldslk(location, local_receiving_the_value)",
            CallKind::LockBitRelease => "usage: stsul(location, value)",
            CallKind::Backoff => "usage: backoff()",
        }
    }
}

const ATOMICS: &[(&str, AtomicOp)] = &[
    ("atomicCAS", AtomicOp::Cas),
    ("atomicExch", AtomicOp::Exch),
    ("atomicAdd", AtomicOp::Add),
    ("atomicSub", AtomicOp::Sub),
    ("atomicInc", AtomicOp::Inc),
    ("atomicDec", AtomicOp::Dec),
    ("atomicOr", AtomicOp::Or),
    ("atomicAnd", AtomicOp::And),
    ("atomicXor", AtomicOp::Xor),
    ("atomicMax", AtomicOp::Max),
    ("atomicMin", AtomicOp::Min),
];

/// Resolves a built-in call name with its `_block`/`_system` spelling and
/// dotted qualifiers; an unknown name or qualifier is an error.
pub(crate) fn classify_call(name: &Ident, qualifiers: &[Ident]) -> SpecResult<CallKind> {
    let (base, underscore_scope) = split_scope_suffix(&name.name);
    let memop = |default_order: Order, allowed: &'static [Order]| {
        qualified(name, qualifiers, underscore_scope, default_order, allowed)
    };
    if let Some((_, op)) = ATOMICS.iter().find(|(n, _)| *n == base) {
        let mo = memop(
            Order::Relaxed,
            &[
                Order::Relaxed,
                Order::Acquire,
                Order::Release,
                Order::AcqRel,
            ],
        )?;
        return Ok(CallKind::Atomic(*op, mo));
    }
    let plain = |kind: CallKind| -> SpecResult<CallKind> {
        if let Some(q) = qualifiers.first() {
            return Err(
                Diagnostic::new(q.span, format!("`{}` takes no qualifiers", name.name))
                    .label("unexpected"),
            );
        }
        if underscore_scope.is_some() {
            return Err(unknown(name));
        }
        Ok(kind)
    };
    match base {
        "load" => Ok(CallKind::Load(memop(
            Order::Weak,
            &[Order::Weak, Order::Volatile, Order::Relaxed, Order::Acquire],
        )?)),
        "store" => Ok(CallKind::Store(memop(
            Order::Weak,
            &[Order::Weak, Order::Volatile, Order::Relaxed, Order::Release],
        )?)),
        "fence" => Ok(CallKind::Fence(memop(
            Order::Sc,
            &[Order::Sc, Order::AcqRel],
        )?)),
        "__threadfence" => plain(CallKind::Fence(MemOrder::new(Order::Sc, Scope::Gpu))),
        "__threadfence_block" => plain(CallKind::Fence(MemOrder::new(Order::Sc, Scope::Cta))),
        "__threadfence_system" => plain(CallKind::Fence(MemOrder::new(Order::Sc, Scope::Sys))),
        "__syncthreads" => plain(CallKind::SyncThreads),
        "bar" | "barrier" => named_barrier(name, qualifiers),
        "__kernel_boundary" => plain(CallKind::KernelBoundary),
        "__syncwarp" => plain(CallKind::SyncWarp),
        "__any_sync" => plain(CallKind::Vote(VoteKind::Any)),
        "__all_sync" => plain(CallKind::Vote(VoteKind::All)),
        "__ballot_sync" => plain(CallKind::Vote(VoteKind::Ballot)),
        "__activemask" => plain(CallKind::ActiveMask),
        "ldslk" => plain(CallKind::LockBitTry),
        "stsul" => plain(CallKind::LockBitRelease),
        "backoff" => plain(CallKind::Backoff),
        _ => Err(unknown(name)),
    }
}

/// `bar.sync` / `bar.arrive` (also spelt `barrier.`, with an optional
/// `.cta`, the only scope a named barrier has).
fn named_barrier(name: &Ident, qualifiers: &[Ident]) -> SpecResult<CallKind> {
    let words: Vec<&str> = qualifiers.iter().map(|q| q.name.as_str()).collect();
    match words.as_slice() {
        ["sync"] | ["cta", "sync"] => Ok(CallKind::NamedBarrier { arrive: false }),
        ["arrive"] | ["cta", "arrive"] => Ok(CallKind::NamedBarrier { arrive: true }),
        _ => Err(Diagnostic::new(
            qualifiers.first().map_or(name.span, |q| q.span),
            format!("`{}` needs `.sync` or `.arrive`", name.name),
        )
        .label("a named barrier")
        .hint("bar.sync(id), bar.sync(id, thread_count) or bar.arrive(id, thread_count)")),
    }
}

fn unknown(name: &Ident) -> Diagnostic {
    let known: Vec<&str> = ATOMICS
        .iter()
        .map(|(n, _)| *n)
        .chain([
            "load",
            "store",
            "fence",
            "__threadfence",
            "__threadfence_block",
            "__syncthreads",
            "__kernel_boundary",
            "__syncwarp",
            "__any_sync",
            "__all_sync",
            "__ballot_sync",
            "ldslk",
            "stsul",
            "backoff",
        ])
        .collect();
    let mut d = Diagnostic::new(name.span, format!("unknown procedure `{}`", name.name))
        .label("not defined");
    d = match crate::diag::suggest(&name.name, known.iter().copied()) {
        Some(s) => d.hint(format!("did you mean `{s}`?")),
        None => d.hint("define it with `fn name(...) { ... }` or use a built-in such as atomicCAS"),
    };
    d
}

/// `atomicCAS_block` → (`atomicCAS`, Some(cta)).
fn split_scope_suffix(name: &str) -> (&str, Option<Scope>) {
    if let Some(base) = name.strip_suffix("_block") {
        if base != "__threadfence" {
            return (base, Some(Scope::Cta));
        }
    }
    if let Some(base) = name.strip_suffix("_system") {
        if base != "__threadfence" {
            return (base, Some(Scope::Sys));
        }
    }
    (name, None)
}

/// Parses `.order` and `.scope` qualifiers.
fn qualified(
    name: &Ident,
    qualifiers: &[Ident],
    underscore_scope: Option<Scope>,
    default_order: Order,
    allowed: &[Order],
) -> SpecResult<MemOrder> {
    let mut order = None;
    let mut scope = underscore_scope;
    for q in qualifiers {
        // CUDA's spellings of the scopes stand beside PTX's.
        let as_scope = scope_named(match q.name.as_str() {
            "block" => "cta",
            "device" => "gpu",
            "system" => "sys",
            other => other,
        });
        let as_order = order_named(&q.name);
        match (as_scope, as_order) {
            (Some(s), _) => {
                if scope.is_some() {
                    return Err(Diagnostic::new(q.span, "the scope is given twice").label("second scope"));
                }
                scope = Some(s);
            }
            (None, Some(o)) => {
                if !allowed.contains(&o) {
                    let names: Vec<&str> = allowed.iter().map(|o| order_name(*o)).collect();
                    return Err(Diagnostic::new(q.span, format!("`{}` cannot be `.{}`", name.name, q.name))
                        .label("order not allowed here")
                        .hint(format!("allowed orders: {}", names.join(", "))));
                }
                if order.is_some() {
                    return Err(Diagnostic::new(q.span, "the order is given twice").label("second order"));
                }
                order = Some(o);
            }
            (None, None) => {
                return Err(Diagnostic::new(q.span, format!("unknown qualifier `.{}`", q.name))
                    .label("not a scope or order")
                    .hint("scopes: .cta .gpu .sys; orders: .relaxed .acquire .release .acq_rel .volatile .weak .sc"))
            }
        }
    }
    Ok(MemOrder::new(
        order.unwrap_or(default_order),
        scope.unwrap_or(Scope::Gpu),
    ))
}
