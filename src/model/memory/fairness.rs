//! What a step does to the newest write of the location it accesses: the
//! facts the liveness check needs for *memory fairness* (a write nobody
//! overwrites eventually becomes visible; book/src/ptx-model.md, "Memory
//! fairness"). Read-only: computed from the state before the step.

use super::{PtxMemory, BELOW, EARLY_CHOICE};
use crate::ir::atomic_result;
use crate::ir::Op;
use crate::model::thread_of;
use crate::model::threads::Threads;

/// Whether an access touched the newest write of its location (coherence
/// order's last write: what the L2 holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recency {
    /// A read of the newest write; a write that becomes the newest.
    Newest,
    /// A read of an older write (stale L1 line, racing write); a write
    /// that lands before the newest (still in a store buffer, as it were).
    Older,
}

/// The memory access of one step under `ptx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEffect {
    /// The location (its word in the state: one per variable element).
    pub location: u32,
    pub read: Option<Recency>,
    pub write: Option<Recency>,
}

impl PtxMemory {
    /// The access action `a` makes in state `s`, if it is a load, store or
    /// atomic (the first instruction of a step is the only memory access in
    /// it: fused instructions are thread-local).
    pub fn effect(&self, th: &Threads, s: &[u32], a: u32) -> Option<MemoryEffect> {
        let t = thread_of(a);
        let mut choice = a >> 16;
        let mut pc = th.pc(s, t);
        if choice & EARLY_CHOICE != 0 {
            pc = self.early_op(th, s, t, pc)?.0;
            choice &= !EARLY_CHOICE;
        }
        let op = &th.prog.code.get(pc as usize)?.op;
        let loc = &op.access()?.loc;
        let x = th.address(s, t, loc).ok()?.0;
        // A write first makes room in a full history (the oldest goes; the
        // newest stays the newest): positions are counted after that.
        let roomy = match op {
            Op::Load { .. } => None,
            _ => self.roomy(s, x),
        };
        let s = roomy.as_deref().unwrap_or(s);
        let (cur, newest) = (self.cur(s, t, x), self.len(s, x) - 1);
        let recency = |p: usize| match p == newest {
            true => Recency::Newest,
            false => Recency::Older,
        };
        let (read, write) = match op {
            Op::Load { .. } if choice & BELOW != 0 => (Some(Recency::Older), None),
            Op::Load { .. } => (Some(recency(cur + choice as usize)), None),
            // A store lands at cur + 1 + choice; the newest is then at newest + 1.
            Op::Store { .. } => (None, Some(recency(cur + choice as usize))),
            Op::Atomic { op, operands, .. } => {
                let p = cur + choice as usize;
                let mut args = [0i64; 2];
                for (v, e) in args.iter_mut().zip(operands) {
                    *v = th.eval(e, s, t).ok()?;
                }
                let ty = th.prog.vars[loc.var as usize].ty;
                let old = crate::ir::from_raw(ty, self.sec.value(s, self.sec.msg(x, p), ty));
                // It lands right after what it read.
                let writes = atomic_result(*op, ty, old, args).is_some();
                (Some(recency(p)), writes.then(|| recency(p)))
            }
            _ => return None,
        };
        Some(MemoryEffect {
            location: x as u32,
            read,
            write,
        })
    }
}
