//! Back-off that only passes time, abstracted: the model explores every
//! interleaving, so how long a thread waits cannot change what it may do.
//!
//! - A *delay loop* (`for (int i = 0; i < n; ++i) { }`, or a loop on
//!   `clock()` with an empty body) becomes one `backoff()` step.
//! - A *timing-only variable* (a `__shared__`/`static` variable of a device
//!   function that is written only from itself and constants and read only
//!   to size a delay: HeteroSync's `backoff` counters) is dropped with its
//!   assignments.
//!
//! Both are sound over-approximations: what is removed never decides a
//! branch, a value another thread reads, or an address; removing its reads
//! can only remove constraints on the memory model. `//! cuda-timing:
//! model` keeps both as written (the tests compare verdicts both ways).

use super::ast::*;
use std::collections::HashSet;

#[derive(Debug, Default)]
pub(super) struct Timing {
    enabled: bool,
    dropped: HashSet<DeclId>,
}

impl Timing {
    /// The abstraction for `program` (`enabled`: on).
    pub(super) fn analyse(program: &CProgram, enabled: bool) -> Timing {
        let mut t = Timing {
            enabled,
            dropped: HashSet::new(),
        };
        if !enabled {
            return t;
        }
        for f in program
            .functions
            .iter()
            .filter_map(|(_, f)| f.as_ref().ok())
        {
            let mut candidates = HashSet::new();
            for st in &f.body {
                declared_memory(st, &mut candidates);
            }
            // Greatest fixed point: start from every candidate and remove
            // those with a use that is not timing-only.
            loop {
                t.dropped.extend(candidates.iter().copied());
                let mut bad = HashSet::new();
                for st in &f.body {
                    t.uses_in_stmt(st, &candidates, &mut bad);
                }
                for id in &bad {
                    t.dropped.remove(id);
                }
                if bad.is_empty() {
                    break;
                }
                candidates.retain(|c| !bad.contains(c));
            }
        }
        t
    }

    pub(super) fn drops_variable(&self, id: DeclId) -> bool {
        self.dropped.contains(&id)
    }

    /// `e` reads the clock (a value only a delay may use).
    pub(super) fn reads_clock(&self, e: &CExpr) -> bool {
        self.enabled && e.mentions_clock()
    }

    /// Whether `st` is a loop that only passes time.
    pub(super) fn is_delay_loop(&self, st: &CStmt, _f: &CFunction) -> bool {
        self.enabled && self.delay_loop(st)
    }

    fn delay_loop(&self, st: &CStmt) -> bool {
        match &st.kind {
            CStmtKind::For {
                init: Some(init),
                cond: Some(cond),
                step: Some(step),
                body,
            } => {
                let Some(counter) = declared_counter(init) else {
                    return false;
                };
                counts_up(step, counter) && bounds(cond, counter) && self.inert(body)
            }
            CStmtKind::While { cond, body } | CStmtKind::DoWhile { body, cond } => {
                cond.mentions_clock() && !cond.has_effects() && self.inert(body)
            }
            _ => false,
        }
    }

    /// A body that does nothing but update dropped variables.
    fn inert(&self, st: &CStmt) -> bool {
        match &st.kind {
            CStmtKind::Empty => true,
            CStmtKind::Block(v) => v.iter().all(|s| self.inert(s)),
            CStmtKind::Expr(e) => self.updates_dropped(e),
            _ => false,
        }
    }

    /// `v = ...`, `v += ...`, `v++` on a dropped variable, with a
    /// right-hand side free of other effects.
    fn updates_dropped(&self, e: &CExpr) -> bool {
        update_of(e).is_some_and(|(id, rhs)| {
            self.dropped.contains(&id) && !rhs.is_some_and(CExpr::has_effects)
        })
    }

    /// Marks as `bad` every candidate used other than for timing in `st`.
    fn uses_in_stmt(&self, st: &CStmt, cand: &HashSet<DeclId>, bad: &mut HashSet<DeclId>) {
        if self.delay_loop(st) {
            return; // everything a delay loop reads only sizes the delay
        }
        match &st.kind {
            CStmtKind::Decl(vars) => {
                for i in vars.iter().filter_map(|v| v.init.as_ref()) {
                    reads(i, cand, bad);
                }
            }
            CStmtKind::Expr(e) => self.uses_in_effect(e, cand, bad),
            CStmtKind::If { cond, .. }
            | CStmtKind::While { cond, .. }
            | CStmtKind::DoWhile { cond, .. } => reads(cond, cand, bad),
            CStmtKind::For { cond, step, .. } => {
                if let Some(c) = cond {
                    reads(c, cand, bad);
                }
                if let Some(s) = step {
                    self.uses_in_effect(s, cand, bad);
                }
            }
            CStmtKind::Return(Some(e)) => reads(e, cand, bad),
            CStmtKind::Asm(a) => {
                for (_, e) in a.outputs.iter().chain(&a.inputs) {
                    reads(e, cand, bad);
                }
            }
            CStmtKind::Block(_)
            | CStmtKind::Return(None)
            | CStmtKind::Break
            | CStmtKind::Continue
            | CStmtKind::Empty => {}
        }
        for s in st.sub_stmts() {
            self.uses_in_stmt(s, cand, bad);
        }
    }

    /// A statement expression: an update of a candidate from itself is a
    /// timing use; `__nanosleep(v)` is one too.
    fn uses_in_effect(&self, e: &CExpr, cand: &HashSet<DeclId>, bad: &mut HashSet<DeclId>) {
        match update_of(e) {
            Some((target, rhs)) if cand.contains(&target) => {
                let Some(rhs) = rhs else {
                    return; // `v++`
                };
                let mut others = HashSet::new();
                reads(rhs, cand, &mut others);
                // Reading another candidate into this one ties them together.
                others.remove(&target);
                bad.extend(others);
                if rhs.has_effects() {
                    bad.insert(target);
                }
            }
            _ if matches!(&e.kind, CExprKind::Call(n, _) if n == "__nanosleep") => {}
            _ => reads(e, cand, bad),
        }
    }
}

/// The variable `e` assigns (`v = rhs`, `v op= rhs`) or steps (`v++`),
/// with the right-hand side.
fn update_of(e: &CExpr) -> Option<(DeclId, Option<&CExpr>)> {
    match &e.kind {
        CExprKind::Assign(_, lhs, rhs) => Some((var_of(lhs)?, Some(rhs))),
        CExprKind::Unary(op, a) if op.is_step() => Some((var_of(a)?, None)),
        _ => None,
    }
}

/// Every read of a candidate in `e` is a non-timing use.
fn reads(e: &CExpr, cand: &HashSet<DeclId>, bad: &mut HashSet<DeclId>) {
    if let CExprKind::Var(id, _) = &e.kind {
        if cand.contains(id) {
            bad.insert(*id);
        }
    }
    for c in e.children() {
        reads(c, cand, bad);
    }
}

/// Scalar integer `__shared__`/`static` variables declared in `st`.
fn declared_memory(st: &CStmt, out: &mut HashSet<DeclId>) {
    match &st.kind {
        CStmtKind::Decl(vars) => {
            for v in vars {
                if v.storage != Storage::Auto && v.ty.is_integer() {
                    out.insert(v.id);
                }
            }
        }
        // A `for`'s init declares the loop's own variables.
        CStmtKind::For { body, .. } => declared_memory(body, out),
        _ => st.sub_stmts().for_each(|s| declared_memory(s, out)),
    }
}

fn var_of(e: &CExpr) -> Option<DeclId> {
    match &e.kind {
        CExprKind::Var(id, _) => Some(*id),
        CExprKind::Cast(a) => var_of(a),
        _ => None,
    }
}

/// `int i = <constant or effect-free>` declaring one counter.
fn declared_counter(init: &CStmt) -> Option<DeclId> {
    match &init.kind {
        CStmtKind::Decl(vars) if vars.len() == 1 && vars[0].ty.is_integer() => {
            let v = &vars[0];
            (v.storage == Storage::Auto && !v.init.as_ref().is_some_and(CExpr::has_effects))
                .then_some(v.id)
        }
        _ => None,
    }
}

/// `++i`, `i++`, `i += k` with k a positive constant.
fn counts_up(step: &CExpr, counter: DeclId) -> bool {
    match &step.kind {
        CExprKind::Unary(CUnOp::PreInc | CUnOp::PostInc, a) => var_of(a) == Some(counter),
        CExprKind::Assign(Some(CBinOp::Add), a, k) => {
            var_of(a) == Some(counter) && matches!(strip(k).kind, CExprKind::Int(v) if v > 0)
        }
        _ => false,
    }
}

/// `i < E`, `i <= E`, `E > i`, `E >= i` with E free of effects and of `i`.
fn bounds(cond: &CExpr, counter: DeclId) -> bool {
    let CExprKind::Binary(op, a, b) = &strip(cond).kind else {
        return false;
    };
    let (i, bound) = match op {
        CBinOp::Lt | CBinOp::Le => (a, b),
        CBinOp::Gt | CBinOp::Ge => (b, a),
        _ => return false,
    };
    var_of(i) == Some(counter) && !bound.has_effects() && !mentions(bound, counter)
}

fn strip(e: &CExpr) -> &CExpr {
    match &e.kind {
        CExprKind::Cast(a) => strip(a),
        _ => e,
    }
}

fn mentions(e: &CExpr, id: DeclId) -> bool {
    let mut found = HashSet::new();
    reads(e, &HashSet::from([id]), &mut found);
    !found.is_empty()
}
