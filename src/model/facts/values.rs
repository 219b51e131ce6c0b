//! The values each local of one thread can ever hold, as small finite sets
//! (flow-insensitive: the union over every assignment to it, plus its
//! initial value; the 0 a dead local is cleared to is never read, since a
//! local is dead only where no read comes before the next write). The
//! partial-order
//! reduction evaluates array indices over them, so that `perSMBarr[2 *
//! my_sm + k]` with `k` in {0, 1} names two words of the thread's own SM
//! instead of the whole array.

use crate::ir::{cfg, wrap, Expr, LocalId, Op};
use crate::model::{state, Model};

/// A local with more possible values than this may hold anything.
const MAX_VALUES: usize = 16;
/// Expressions over more combinations of local values than this may be anything.
const MAX_COMBINATIONS: usize = 256;

/// Possible values per local (`None`: any value).
pub(crate) struct LocalValues {
    sets: Vec<Option<Vec<i64>>>,
    /// A state to evaluate in: the thread's initial state, whose words of
    /// the locals an expression reads are overwritten for each
    /// combination. Kept, since copying a large program's whole state for
    /// every evaluation made this analysis quadratic.
    scratch: std::cell::RefCell<Vec<u32>>,
}

impl LocalValues {
    /// The value sets of thread `t`'s locals, from its initial state `init`.
    pub(crate) fn compute(model: &Model, init: &[u32], t: usize) -> LocalValues {
        let prog = model.prog;
        let mut sets: Vec<Option<Vec<i64>>> = prog
            .locals
            .iter()
            .enumerate()
            .map(|(l, local)| {
                Some(vec![state::load(
                    init,
                    model.threads.layout.local(t, l as LocalId),
                    local.ty,
                )])
            })
            .collect();
        let mut used = Vec::new();
        let mut scratch = std::cell::RefCell::new(init.to_vec());
        let mut changed = true;
        while changed {
            changed = false;
            for instr in &prog.code {
                let (dst, value) = match &instr.op {
                    Op::Assign { dst, value } => (*dst, Some(value)),
                    Op::LockBitTry { pred, value, .. } => {
                        for l in [Some(*pred), *value].into_iter().flatten() {
                            changed |= sets[l as usize].take().is_some();
                        }
                        continue;
                    }
                    op => match cfg::op_reads_writes(op, &mut used) {
                        Some(dst) => (dst, None),
                        None => continue,
                    },
                };
                let this = LocalValues { sets, scratch };
                let new = value.and_then(|e| this.eval(model, t, e));
                (sets, scratch) = (this.sets, this.scratch);
                let ty = prog.locals[dst as usize].ty;
                let slot = &mut sets[dst as usize];
                let Some(old) = slot else { continue };
                let merged = new.map(|vals| {
                    let mut m = old.clone();
                    m.extend(vals.into_iter().map(|v| wrap(ty, v)));
                    m.sort_unstable();
                    m.dedup();
                    m
                });
                match merged {
                    Some(m) if m.len() == old.len() => {}
                    Some(m) if m.len() <= MAX_VALUES => {
                        *slot = Some(m);
                        changed = true;
                    }
                    _ => {
                        *slot = None;
                        changed = true;
                    }
                }
            }
        }
        LocalValues { sets, scratch }
    }

    /// Whether local `l` holds one of finitely many values, computed only
    /// from constants, builtins and other such locals (never from memory).
    pub(crate) fn is_finite(&self, l: LocalId) -> bool {
        self.sets[l as usize].is_some()
    }

    /// Every value `e` can take in thread `t` (`None`: any), evaluated over
    /// the combinations of its locals' values; combinations that fault
    /// (division by zero) give no value.
    pub(crate) fn eval(&self, model: &Model, t: usize, e: &Expr) -> Option<Vec<i64>> {
        let mut locals = Vec::new();
        cfg::expr_locals(e, &mut locals);
        locals.sort_unstable();
        locals.dedup();
        let mut combos = 1usize;
        for l in &locals {
            combos = combos.saturating_mul(self.sets[*l as usize].as_ref()?.len());
        }
        if combos > MAX_COMBINATIONS || matches!(e, Expr::Global(..)) {
            return None;
        }
        let mut scratch = self.scratch.borrow_mut();
        let mut out = Vec::with_capacity(combos);
        for mut k in 0..combos {
            for l in &locals {
                let vals = self.sets[*l as usize].as_ref()?;
                let ty = model.prog.locals[*l as usize].ty;
                let w = model.threads.layout.local(t, *l);
                state::store(&mut scratch, w, ty, vals[k % vals.len()]);
                k /= vals.len();
            }
            if let Ok(v) = model.threads.eval(e, &scratch, t) {
                out.push(v);
            }
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}
