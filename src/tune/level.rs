//! The strengths a point of a spec can take (an order at a scope, or no
//! fence at all) and the one-step moves between them: the lattice that
//! `relax` walks down and `repair` walks up.

use crate::ir::{Order, Scope};
use serde::Serialize;

/// What kind of text a point is: which orders it may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// An `atomicXxx` call: relaxed, acquire, release or acq_rel.
    Atomic,
    /// `load(x)`: weak, relaxed or acquire.
    Load,
    /// `store(x, v)`: weak, relaxed or release.
    Store,
    /// A fence statement: sc, acq_rel, or none (removed or not inserted).
    Fence,
    /// The `volatile` of a variable's declaration: every plain access of
    /// the variable is a volatile one (PTX: relaxed at system scope).
    Volatile,
    /// The written `memory_order` of a libcu++ atomic load (CUDA):
    /// seq_cst, acquire or relaxed; its scope is its type's, not searched.
    CppLoad,
    /// ... of a store: seq_cst, release or relaxed.
    CppStore,
    /// ... of a read-modify-write: seq_cst, acq_rel, acquire or release,
    /// relaxed.
    CppRmw,
    /// ... of `cuda::atomic_thread_fence`: seq_cst, acq_rel, relaxed (a
    /// fence that orders nothing).
    CppFence,
}

impl Class {
    /// Every class, for code that must treat each.
    #[cfg(test)]
    pub(crate) const ALL: [Class; 9] = [
        Class::Atomic,
        Class::Load,
        Class::Store,
        Class::Fence,
        Class::Volatile,
        Class::CppLoad,
        Class::CppStore,
        Class::CppRmw,
        Class::CppFence,
    ];
}

/// A point's strength: its order (`None`: no fence, or a declaration
/// without `volatile`) and its scope (`None` where the order has none: a
/// weak access, a `volatile` declaration, an absent fence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Level {
    pub order: Option<Order>,
    pub scope: Option<Scope>,
}

impl Level {
    pub(super) const ABSENT: Level = Level {
        order: None,
        scope: None,
    };

    pub(super) fn new(order: Order, scope: Scope) -> Level {
        let scope = (order != Order::Weak).then_some(scope);
        Level {
            order: Some(order),
            scope,
        }
    }
}

fn scope_rank(s: Scope) -> u8 {
    match s {
        Scope::Cta => 0,
        Scope::Gpu => 1,
        Scope::Sys => 2,
    }
}

const SCOPES: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];

/// The orders one step weaker than `o` for a point of `class`.
fn weaker_orders(class: Class, o: Option<Order>) -> &'static [Option<Order>] {
    use Order::*;
    match (class, o) {
        (Class::Atomic, Some(AcqRel)) => &[Some(Release), Some(Acquire)],
        (Class::Atomic, Some(Acquire | Release)) => &[Some(Relaxed)],
        (Class::Load, Some(Acquire)) | (Class::Store, Some(Release)) => &[Some(Relaxed)],
        (Class::Load | Class::Store, Some(Relaxed)) => &[Some(Weak)],
        (Class::Fence, Some(Sc)) => &[Some(AcqRel)],
        (Class::Fence, Some(AcqRel)) | (Class::Volatile, Some(Volatile)) => &[None],
        (Class::CppLoad, Some(Sc)) => &[Some(Acquire)],
        (Class::CppStore, Some(Sc)) => &[Some(Release)],
        (Class::CppRmw | Class::CppFence, Some(Sc)) => &[Some(AcqRel)],
        (Class::CppRmw, Some(AcqRel)) => &[Some(Acquire), Some(Release)],
        (Class::CppFence, Some(AcqRel))
        | (Class::CppLoad, Some(Acquire))
        | (Class::CppStore, Some(Release))
        | (Class::CppRmw, Some(Acquire | Release)) => &[Some(Relaxed)],
        _ => &[],
    }
}

/// Whether an order carries a scope.
fn scoped(class: Class, o: Option<Order>) -> bool {
    class != Class::Volatile && !matches!(o, None | Some(Order::Weak))
}

/// The levels one step weaker than `l`: the order one step down at the
/// same scope, or the scope one step narrower at the same order.
pub(super) fn weaker(class: Class, l: Level) -> Vec<Level> {
    let mut out: Vec<Level> = weaker_orders(class, l.order)
        .iter()
        .map(|&order| Level {
            order,
            scope: l.scope.filter(|_| scoped(class, order)),
        })
        .collect();
    if let Some(s) = l.scope.filter(|s| *s != Scope::Cta) {
        let narrower = SCOPES[usize::from(scope_rank(s)) - 1];
        out.push(Level {
            scope: Some(narrower),
            ..l
        });
    }
    out
}

/// The strongest level of a class: where `repair` starts.
pub(super) fn top(class: Class) -> Level {
    let order = match class {
        Class::Atomic => Order::AcqRel,
        Class::Load => Order::Acquire,
        Class::Store => Order::Release,
        Class::Fence => Order::Sc,
        Class::Volatile => {
            return Level {
                order: Some(Order::Volatile),
                scope: None,
            }
        }
        Class::CppLoad | Class::CppStore | Class::CppRmw | Class::CppFence => {
            return Level {
                order: Some(Order::Sc),
                scope: None,
            }
        }
    };
    Level::new(order, Scope::Sys)
}

/// Whether `l` is at least as strong as `floor` (`floor` is reached from
/// `l` by weakening steps).
pub(super) fn at_least(class: Class, l: Level, floor: Level) -> bool {
    let mut stack = vec![l];
    let mut seen = Vec::new();
    while let Some(x) = stack.pop() {
        if x == floor {
            return true;
        }
        if !seen.contains(&x) {
            seen.push(x);
            stack.extend(weaker(class, x));
        }
    }
    false
}

/// Whether the scope of `now` is narrower than that of `was` (both scoped).
pub(super) fn scope_narrowed(was: Level, now: Level) -> bool {
    matches!((was.scope, now.scope), (Some(a), Some(b)) if scope_rank(b) < scope_rank(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_go_down() {
        for class in Class::ALL {
            let mut stack = vec![top(class)];
            let mut seen = Vec::new();
            while let Some(l) = stack.pop() {
                if seen.contains(&l) {
                    continue;
                }
                seen.push(l);
                for w in weaker(class, l) {
                    assert!(at_least(class, l, w), "{class:?} {l:?} {w:?}");
                    assert!(!at_least(class, w, l), "{class:?} {l:?} {w:?}");
                    stack.push(w);
                }
            }
            assert!(seen.len() > 1);
        }
    }

    #[test]
    fn fence_chain() {
        let sc = Level::new(Order::Sc, Scope::Gpu);
        let w = weaker(Class::Fence, sc);
        assert!(w.contains(&Level::new(Order::AcqRel, Scope::Gpu)));
        assert!(w.contains(&Level::new(Order::Sc, Scope::Cta)));
        let acq_rel = Level::new(Order::AcqRel, Scope::Cta);
        assert_eq!(weaker(Class::Fence, acq_rel), vec![Level::ABSENT]);
        assert!(at_least(Class::Fence, sc, Level::ABSENT));
    }
}
