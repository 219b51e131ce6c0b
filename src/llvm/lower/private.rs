//! A thread's private memory: an `alloca` that SROA could not turn into
//! SSA values (its address is taken: passed by reference, indexed at run
//! time). No other thread can name it and PTX orders a thread's `.local`
//! accesses by program order alone, so its words are the thread's own
//! locals: a slot per (byte offset, width) that the code uses, and an
//! access at a run-time offset chooses among the slots of the array's
//! elements, with an assertion that the offset is inside it.

use super::memory::{Ptr, Region};
use super::{Lowerer, R};
use crate::ir::BinOp;
use crate::ir::{Expr, LocalId, Op};
use crate::llvm::ir::{Instr, Type as LType};
use std::collections::BTreeMap;

/// The most elements an array indexed at run time may have: each is a
/// local, and each access a choice among them.
const MAX_INDEXED: u64 = 64;

/// One `alloca`.
pub(crate) struct PrivateRegion {
    /// The SSA name of the `alloca`, for the locals' names.
    name: String,
    /// Its bytes, where the type has a size the model can name.
    size: Option<u64>,
    /// The slots the code uses: byte offset → (bits, local).
    slots: BTreeMap<u64, (u32, LocalId)>,
}

impl Lowerer<'_> {
    /// `%p = alloca T`: a new region of private memory.
    pub(super) fn alloca(&mut self, instr: &Instr, allocated: &LType) -> R<()> {
        let k = self.private.len() as u32;
        self.private.push(PrivateRegion {
            name: instr.result.clone().unwrap_or_default(),
            size: super::memory::size_of(self.module, allocated),
            slots: BTreeMap::new(),
        });
        let p = Ptr {
            region: Region::Private(k),
            offset: Expr::Const(0),
        };
        self.bind_ptr(instr, p)
    }

    /// The value a load of `bits` at `offset` into region `k` reads.
    pub(super) fn private_load(&mut self, k: u32, offset: &Expr, bits: u32) -> R<Expr> {
        if let Expr::Const(at) = offset {
            return Ok(match self.slot(k, *at, bits)? {
                Some(slot) => Expr::Local(slot),
                None => Expr::Const(0),
            });
        }
        let slots = self.indexed_slots(k, offset, bits)?;
        // The offset is checked in bounds first, so the last slot is the
        // one left when every other comparison fails.
        let mut value = Expr::Local(slots.last().expect("a non-empty array").1);
        for &(at, slot) in slots.iter().rev().skip(1) {
            value = Expr::Ternary(
                Box::new(equals(offset, at)),
                Box::new(Expr::Local(slot)),
                Box::new(value),
            );
        }
        Ok(value)
    }

    /// A store of `value` (`bits` wide) at `offset` into region `k`.
    pub(super) fn private_store(&mut self, k: u32, offset: &Expr, bits: u32, value: Expr) -> R<()> {
        if let Expr::Const(at) = offset {
            if let Some(dst) = self.slot(k, *at, bits)? {
                self.emit(Op::Assign { dst, value });
            }
            return Ok(());
        }
        let slots = self.indexed_slots(k, offset, bits)?;
        // The value may read a slot the stores below change: take it first.
        let v = self.new_local(&format!("%{}.stored", self.private[k as usize].name), {
            super::values::local_type(bits).expect("access bits")
        });
        self.emit(Op::Assign { dst: v, value });
        for (at, slot) in slots {
            let chosen = Expr::Ternary(
                Box::new(equals(offset, at)),
                Box::new(Expr::Local(v)),
                Box::new(Expr::Local(slot)),
            );
            self.emit(Op::Assign {
                dst: slot,
                value: chosen,
            });
        }
        Ok(())
    }

    /// The slot of `bits` at byte `at` of region `k`, made on first use;
    /// an access that overlaps another slot at another width is refused.
    /// Outside the region: a failed assertion where the access runs, and
    /// no slot.
    fn slot(&mut self, k: u32, at: i64, bits: u32) -> R<Option<LocalId>> {
        let bytes = u64::from(bits.div_ceil(8).max(1));
        let region = &self.private[k as usize];
        let inside = u64::try_from(at)
            .ok()
            .filter(|&a| region.size.is_none_or(|size| a + bytes <= size));
        let Some(at) = inside else {
            let message = format!(
                "out-of-bounds access to the local variable `%{}`",
                region.name
            );
            self.emit(Op::Assert {
                cond: Expr::Const(0),
                message,
            });
            return Ok(None);
        };
        if let Some(&(b, slot)) = region.slots.get(&at) {
            if b == bits {
                return Ok(Some(slot));
            }
        }
        let overlaps = region.slots.iter().any(|(&o, &(b, _))| {
            let end = o + u64::from(b.div_ceil(8).max(1));
            o < at + bytes && at < end
        });
        if overlaps {
            return self.refuse(format!(
                "the local variable `%{}` read or written at two widths (its bytes as parts of a wider value): the model keeps a thread's private memory as whole values",
                region.name
            ));
        }
        let name = format!("%{}+{at}", region.name);
        let ty = super::values::local_type(bits).expect("access bits");
        let slot = self.new_local(&name, ty);
        self.private[k as usize].slots.insert(at, (bits, slot));
        Ok(Some(slot))
    }

    /// Every element slot of region `k` as an array of `bits`-wide
    /// elements, after an assertion that `offset` names one of them.
    fn indexed_slots(&mut self, k: u32, offset: &Expr, bits: u32) -> R<Vec<(u64, LocalId)>> {
        let bytes = u64::from(bits.div_ceil(8).max(1));
        let region = &self.private[k as usize];
        let Some(size) = region.size else {
            return self.refuse(format!(
                "an access at a run-time offset into the local variable `%{}`, whose size the model cannot name",
                region.name
            ));
        };
        let elements = size / bytes;
        if elements == 0 || elements > MAX_INDEXED {
            return self.refuse(format!(
                "a local array of {elements} elements indexed at run time (the model keeps up to {MAX_INDEXED} in a thread's locals)"
            ));
        }
        let name = region.name.clone();
        let mut slots = Vec::new();
        for i in 0..elements {
            let at = i * bytes;
            let slot = self.slot(k, at as i64, bits)?.expect("an element inside");
            slots.push((at, slot));
        }
        let inside = Expr::Binary(
            BinOp::And,
            Box::new(Expr::Binary(
                BinOp::Ge,
                Box::new(offset.clone()),
                Box::new(Expr::Const(0)),
            )),
            Box::new(Expr::Binary(
                BinOp::Lt,
                Box::new(offset.clone()),
                Box::new(Expr::Const((elements * bytes) as i64)),
            )),
        );
        let aligned = Expr::Binary(
            BinOp::Eq,
            Box::new(Expr::Binary(
                BinOp::Rem,
                Box::new(offset.clone()),
                Box::new(Expr::Const(bytes as i64)),
            )),
            Box::new(Expr::Const(0)),
        );
        self.emit(Op::Assert {
            cond: Expr::Binary(BinOp::And, Box::new(inside), Box::new(aligned)),
            message: format!("out-of-bounds access to the local array `%{name}`"),
        });
        Ok(slots)
    }
}

fn equals(offset: &Expr, at: u64) -> Expr {
    Expr::Binary(
        BinOp::Eq,
        Box::new(offset.clone()),
        Box::new(Expr::Const(at as i64)),
    )
}
