//! How orders and scopes are written in generated code: PTX's `.sem` and
//! `.scope` qualifiers, the prelude's helper names built from them, CUDA's
//! atomic-function suffixes and fences. The CUDA emitter and the litmus
//! harness both print from here, so each spelling exists once (orders are
//! spelled by [`order_name`], which the spec language shares with PTX).

use crate::ir::order_name;
use crate::ir::{MemOrder, Order, Scope};

/// PTX's `.scope` qualifier (the inverse of `ir::scope_named`).
pub(crate) fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "cta",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

/// `order_scope` as the prelude's helpers are named (`gs_ld_acquire_gpu`).
pub(crate) fn helper_suffix(mo: MemOrder) -> String {
    format!("{}_{}", order_name(mo.order), scope_name(mo.scope))
}

/// The suffix CUDA gives an atomic function of a scope (`atomicAdd_block`).
pub(crate) fn atomic_suffix(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "_block",
        Scope::Gpu => "",
        Scope::Sys => "_system",
    }
}

/// A fence statement: `__threadfence*()` is PTX `fence.sc`; any other order
/// is the lighter `fence.acq_rel` (also what release/acquire accesses use).
pub(crate) fn fence(mo: MemOrder) -> String {
    match (mo.order, mo.scope) {
        (Order::Sc, Scope::Cta) => "__threadfence_block();".into(),
        (Order::Sc, Scope::Gpu) => "__threadfence();".into(),
        (Order::Sc, Scope::Sys) => "__threadfence_system();".into(),
        (_, scope) => format!("gs_fence_acq_rel_{}();", scope_name(scope)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::scope_named;

    #[test]
    fn scope_names_read_back() {
        for s in [Scope::Cta, Scope::Gpu, Scope::Sys] {
            assert_eq!(scope_named(scope_name(s)), Some(s));
        }
        let mo = MemOrder::new(Order::AcqRel, Scope::Sys);
        assert_eq!(helper_suffix(mo), "acq_rel_sys");
        assert_eq!(fence(mo), "gs_fence_acq_rel_sys();");
    }
}
