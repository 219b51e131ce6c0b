//! Loads, stores, atomics and fences, with the orders and scopes CUDA
//! gives them. A plain access is weak; a `volatile` one is relaxed at
//! system scope (PTX's `ld.volatile`/`st.volatile`, the IR's
//! `Order::Volatile`). CUDA's legacy atomics (`atomicAdd`, `atomicCAS`,
//! `atomicExch`, ...) come out of clang as `seq_cst` without a
//! `syncscope`, but CUDA defines them as relaxed at device scope: that
//! is what they are here. An explicit order or `syncscope` is honoured
//! (`seq_cst` as NVIDIA's PTX ABI maps it: `fence.sc`, then the access of
//! `ir::seq_cst_access_order`, as the libclang route does).

use super::memory::{Base, Region};
use super::{Lowerer, R};
use crate::ir::BinOp;
use crate::ir::{seq_cst_access_order, AtomicAccess, AtomicOp, Expr, MemOrder, Op, Order, Scope};
use crate::llvm::ir::{Atomic, Callee, Instr, InstrKind, Ordering, RmwOp, Type as LType, Value};

/// The access order of an atomic, and the fence PTX puts before a
/// `seq_cst` one.
pub(crate) struct Mapped {
    pub(crate) fence: Option<MemOrder>,
    pub(crate) order: MemOrder,
}

/// A `syncscope` as the PTX model's scope.
pub(crate) fn scope_of(scope: Option<&str>) -> Option<Scope> {
    match scope {
        None | Some("" | "system") => Some(Scope::Sys),
        Some("device" | "agent" | "gpu") => Some(Scope::Gpu),
        Some("block" | "cta" | "workgroup") => Some(Scope::Cta),
        Some(_) => None,
    }
}

/// How an `access` with `atomic`'s ordering is modelled; `None`: a scope
/// the model has no name for.
pub(crate) fn map_atomic(atomic: &Atomic, access: AtomicAccess) -> Option<Mapped> {
    if access == AtomicAccess::ReadModifyWrite
        && atomic.ordering == Ordering::SeqCst
        && atomic.scope.is_none()
    {
        // clang's spelling of CUDA's legacy atomics: relaxed, device scope.
        return Some(Mapped {
            fence: None,
            order: MemOrder::new(Order::Relaxed, Scope::Gpu),
        });
    }
    let scope = scope_of(atomic.scope.as_deref())?;
    let (fence, order) = match atomic.ordering {
        Ordering::Unordered | Ordering::Monotonic => (None, Order::Relaxed),
        Ordering::Acquire => (None, Order::Acquire),
        Ordering::Release => (None, Order::Release),
        Ordering::AcqRel => (None, Order::AcqRel),
        Ordering::SeqCst => (
            Some(MemOrder::new(Order::Sc, scope)),
            seq_cst_access_order(access),
        ),
    };
    Some(Mapped {
        fence,
        order: MemOrder::new(order, scope),
    })
}

/// An `atomicrmw` operation as the IR's, with whether it compares signed.
pub(crate) fn rmw_op(op: RmwOp) -> Option<(AtomicOp, Option<bool>)> {
    Some(match op {
        RmwOp::Xchg => (AtomicOp::Exch, None),
        RmwOp::Add => (AtomicOp::Add, None),
        RmwOp::Sub => (AtomicOp::Sub, None),
        RmwOp::And => (AtomicOp::And, None),
        RmwOp::Or => (AtomicOp::Or, None),
        RmwOp::Xor => (AtomicOp::Xor, None),
        RmwOp::Max => (AtomicOp::Max, Some(true)),
        RmwOp::Min => (AtomicOp::Min, Some(true)),
        RmwOp::UMax => (AtomicOp::Max, Some(false)),
        RmwOp::UMin => (AtomicOp::Min, Some(false)),
        RmwOp::UIncWrap => (AtomicOp::Inc, None),
        RmwOp::UDecWrap => (AtomicOp::Dec, None),
        _ => return None,
    })
}

/// `llvm.nvvm.atomic.OP.gen.{i,ui}.{cta,sys}.TYPE...` (the `_block` and
/// `_system` atomics) and `llvm.nvvm.atomic.load.{inc,dec}.32` (atomicInc,
/// atomicDec): operation, scope, signedness.
pub(crate) fn atomic_intrinsic(name: &str) -> Option<(AtomicOp, Scope, Option<bool>)> {
    let rest = name.strip_prefix("llvm.nvvm.atomic.")?;
    if let Some(r) = rest.strip_prefix("load.") {
        let op = match r.split('.').next()? {
            "inc" => AtomicOp::Inc,
            "dec" => AtomicOp::Dec,
            "add" => AtomicOp::Add,
            _ => return None,
        };
        return Some((op, Scope::Gpu, None));
    }
    let parts: Vec<&str> = rest.split('.').collect();
    let [op, "gen", kind, scope, ..] = parts.as_slice() else {
        return None;
    };
    // clang spells the scoped atomics of `int` and `unsigned` alike
    // (`atomicMax_block(unsigned *, ...)` is `max.gen.i.cta`): max and min
    // are taken as signed, which differs from unsigned only at or above
    // 2^31.
    let signed = match *kind {
        "i" => true,
        "ui" => false,
        _ => return None,
    };
    let (op, cmp) = match *op {
        "add" => (AtomicOp::Add, None),
        "exch" => (AtomicOp::Exch, None),
        "max" => (AtomicOp::Max, Some(signed)),
        "min" => (AtomicOp::Min, Some(signed)),
        "inc" => (AtomicOp::Inc, None),
        "dec" => (AtomicOp::Dec, None),
        "and" => (AtomicOp::And, None),
        "or" => (AtomicOp::Or, None),
        "xor" => (AtomicOp::Xor, None),
        "cas" => (AtomicOp::Cas, None),
        _ => return None,
    };
    let scope = match *scope {
        "cta" => Scope::Cta,
        "sys" => Scope::Sys,
        _ => return None,
    };
    Some((op, scope, cmp))
}

fn bits_of(ty: &LType) -> Option<u32> {
    super::values::width(ty)
}

impl Lowerer<'_> {
    /// The address operand of a memory instruction, the bits it accesses
    /// and its signedness (atomic max/min).
    fn access_of(instr: &Instr) -> Option<(usize, LType, Option<bool>)> {
        match &instr.kind {
            InstrKind::Load { .. } => Some((0, instr.ty.clone(), None)),
            InstrKind::Store { .. } => Some((1, instr.operands[0].ty.clone(), None)),
            InstrKind::AtomicRmw { op, .. } => Some((
                0,
                instr.operands[1].ty.clone(),
                rmw_op(*op).and_then(|o| o.1),
            )),
            InstrKind::CmpXchg { .. } => Some((0, instr.operands[1].ty.clone(), None)),
            InstrKind::Call {
                callee: Callee::Function(f),
            } => {
                let (_, _, signed) = atomic_intrinsic(f)?;
                Some((0, instr.operands.get(1)?.ty.clone(), signed))
            }
            _ => None,
        }
    }

    /// The element width of every variable, from its accesses (inline
    /// PTX's included: an address's element index depends on it; a
    /// pointer word read or written in memory is 64 bits; an access
    /// through a pointer read from memory, into each variable it may
    /// point into), then the word each `memcpy` copies in.
    pub(super) fn access_widths(&mut self) -> R<()> {
        let mut private_widths = std::collections::BTreeSet::new();
        let mut structs = super::fields::Seen::new();
        for instr in self.live_instructions() {
            let mut found: Vec<(usize, u32, Option<bool>)> = super::asm::accesses(instr);
            if let Some((at, ty, signed)) = Self::access_of(instr) {
                found.extend(bits_of(&ty).map(|b| (at, b, signed)));
            }
            if let Some(at) = self.pointer_word(instr) {
                found.push((at, 64, None));
            }
            for (at, bits, signed) in found {
                let Some(op) = instr.operands.get(at) else {
                    continue;
                };
                let base = match &op.value {
                    Value::Local(n) => self.bases.get(n).copied(),
                    v => self.const_base(v)?,
                };
                self.locate(instr);
                match base {
                    // A struct argument's layout depends on all its widths.
                    Some(Base::Var(v)) if self.struct_args.types.contains_key(&v) => {
                        structs.entry(v).or_default().push((bits, signed, instr));
                    }
                    Some(Base::Var(v)) => self.note_width(v, bits, signed)?,
                    Some(Base::Loaded(k)) => {
                        let targets: Vec<_> = self.pointers.set(k).iter().copied().collect();
                        for v in targets {
                            self.note_width(v, bits, signed)?;
                        }
                    }
                    Some(Base::Private) => {
                        private_widths.insert(bits);
                    }
                    _ => {}
                }
            }
        }
        self.struct_widths(structs)?;
        let copies: Vec<&Instr> = self
            .live_instructions()
            .into_iter()
            .filter(|i| i.is_memcpy())
            .collect();
        for instr in copies {
            self.locate(instr);
            self.copy_width(instr, &private_widths)?;
        }
        Ok(())
    }

    /// The address operand of a load or store of a pointer word that is
    /// an access to memory (not one bound statically).
    fn pointer_word(&self, instr: &Instr) -> Option<usize> {
        match &instr.kind {
            InstrKind::Load { .. } if matches!(instr.ty, LType::Ptr(_)) => {
                let res = instr.result.as_ref()?;
                matches!(self.bases.get(res), Some(Base::Loaded(_))).then_some(0)
            }
            InstrKind::Store { .. } if matches!(instr.operands[0].ty, LType::Ptr(_)) => Some(1),
            _ => None,
        }
    }

    fn const_base(&mut self, v: &Value) -> R<Option<Base>> {
        match v {
            Value::Global(_) | Value::Expr(_) => {
                let op = crate::llvm::ir::Operand {
                    ty: LType::Ptr(0),
                    value: v.clone(),
                };
                Ok(self.ptr(&op)?.var().map(Base::Var))
            }
            _ => Ok(None),
        }
    }

    fn access_bits(&self, ty: &LType) -> R<u32> {
        match bits_of(ty) {
            Some(b @ (1 | 8 | 16 | 32 | 64)) => Ok(b),
            _ => self.refuse(format!("a memory access of LLVM type {ty:?}: only integers and floating-point values (as their bits) are modelled, no vectors")),
        }
    }

    pub(super) fn mapped(&self, atomic: &Atomic, access: AtomicAccess) -> R<Mapped> {
        match map_atomic(atomic, access) {
            Some(m) => Ok(m),
            None => self.refuse(format!(
                "the scope `syncscope(\"{}\")`",
                atomic.scope.as_deref().unwrap_or("")
            )),
        }
    }

    pub(super) fn load(&mut self, instr: &Instr, volatile: bool, atomic: Option<&Atomic>) -> R<()> {
        let bits = self.access_bits(&instr.ty)?;
        let p = self.ptr(&instr.operands[0])?;
        if let Region::Private(k) = p.region {
            if atomic.is_some() {
                return self.refuse("an atomic load of a thread's local variable");
            }
            let value = self.private_load(k, &p.offset, bits)?;
            return self.assign(instr, value);
        }
        if let Some(v) = p.var().filter(|_| atomic.is_none()) {
            if self.field_load(instr, v, &p.offset, bits)?.is_some() {
                return Ok(());
            }
        }
        let loc = self.loc(&p, bits)?;
        let order = self.load_order(volatile, atomic)?;
        let Some(res) = &instr.result else {
            return Ok(());
        };
        let dst = self.local(res, bits)?;
        self.emit(Op::Load {
            dst,
            access: order.at(loc),
        });
        Ok(())
    }

    /// A struct passed by value is each thread's own copy: the model has
    /// one, so a write into it is refused.
    pub(super) fn writable(&self, p: &super::memory::Ptr) -> R<()> {
        match p.var().filter(|v| self.by_value.contains(v)) {
            Some(v) => self.refuse(format!(
                "a write into `{}`, a struct passed by value (each thread's copy is its own; the model holds one)",
                self.vars[v as usize].name
            )),
            None => Ok(()),
        }
    }

    pub(super) fn store(
        &mut self,
        instr: &Instr,
        volatile: bool,
        atomic: Option<&Atomic>,
    ) -> R<()> {
        let bits = self.access_bits(&instr.operands[0].ty)?;
        let value = self.int(&instr.operands[0])?;
        self.store_value(instr, bits, value, volatile, atomic)
    }

    /// A store of `value`, `bits` wide, through `operands[1]`.
    pub(super) fn store_value(
        &mut self,
        instr: &Instr,
        bits: u32,
        value: Expr,
        volatile: bool,
        atomic: Option<&Atomic>,
    ) -> R<()> {
        let p = self.ptr(&instr.operands[1])?;
        self.writable(&p)?;
        if let Region::Private(k) = p.region {
            if atomic.is_some() {
                return self.refuse("an atomic store to a thread's local variable");
            }
            return self.private_store(k, &p.offset, bits, value);
        }
        let loc = self.loc(&p, bits)?;
        let order = self.store_order(volatile, atomic)?;
        self.emit(Op::Store {
            access: order.at(loc),
            value,
        });
        Ok(())
    }

    /// An atomic on `operands[0]` with value operands `values`, its old
    /// value into the instruction's result.
    pub(super) fn atomic(
        &mut self,
        instr: &Instr,
        op: AtomicOp,
        order: Mapped,
        values: &[Expr],
    ) -> R<()> {
        let bits = self.access_bits(&instr.operands[1].ty)?;
        let p = self.ptr(&instr.operands[0])?;
        self.writable(&p)?;
        let loc = self.loc(&p, bits)?;
        if let Some(f) = order.fence {
            self.emit(Op::Fence(f));
        }
        let dst = match (&instr.result, &instr.kind) {
            (Some(r), InstrKind::CmpXchg { .. }) => {
                // One local however many times the instruction is lowered
                // (once per variable a pointer read from memory may name).
                let old = match self.cas.get(r) {
                    Some((old, _)) => *old,
                    None => self.new_local(
                        &format!("%{r}.old"),
                        super::values::local_type(bits).expect("access bits"),
                    ),
                };
                self.cas.insert(r.clone(), (old, values[0].clone()));
                Some(old)
            }
            (Some(r), _) => Some(self.local(r, bits)?),
            (None, _) => None,
        };
        self.emit(Op::Atomic {
            dst,
            op,
            access: order.order.at(loc),
            operands: values.to_vec(),
        });
        Ok(())
    }

    pub(super) fn atomicrmw(&mut self, instr: &Instr, op: RmwOp, atomic: &Atomic) -> R<()> {
        let Some((aop, _)) = rmw_op(op) else {
            return self.refuse(format!(
                "`atomicrmw {}` (floating-point or nand atomics are not modelled)",
                op.name()
            ));
        };
        let m = self.mapped(atomic, AtomicAccess::ReadModifyWrite)?;
        let v = self.int(&instr.operands[1])?;
        self.atomic(instr, aop, m, &[v])
    }

    pub(super) fn cmpxchg(&mut self, instr: &Instr, weak: bool, atomic: &Atomic) -> R<()> {
        if weak {
            return self.refuse("`cmpxchg weak` (a compare-and-swap that may fail spuriously)");
        }
        let m = self.mapped(atomic, AtomicAccess::ReadModifyWrite)?;
        let expected = self.int(&instr.operands[1])?;
        let new = self.int(&instr.operands[2])?;
        self.atomic(instr, AtomicOp::Cas, m, &[expected, new])
    }

    /// `extractvalue` of a `cmpxchg`'s `{old, success}`, or of an inline
    /// asm's outputs.
    pub(super) fn extract(&mut self, instr: &Instr, indices: &[u32]) -> R<()> {
        if let Value::Local(n) = &instr.operands[0].value {
            if let (Some(outs), [k]) = (self.asm_outputs.get(n), indices) {
                if let Some(l) = outs.get(*k as usize) {
                    return self.assign(instr, Expr::Local(*l));
                }
            }
        }
        let pair = match &instr.operands[0].value {
            Value::Local(n) => self.cas.get(n).cloned(),
            _ => None,
        };
        let Some((old, expected)) = pair else {
            return self
                .refuse("`extractvalue` of an aggregate other than a compare-and-swap's result");
        };
        let value = match indices {
            [0] => Expr::Local(old),
            [1] => Expr::Binary(BinOp::Eq, Box::new(Expr::Local(old)), Box::new(expected)),
            _ => return self.refuse("`extractvalue` with these indices"),
        };
        self.assign(instr, value)
    }

    /// An LLVM `fence` (`__atomic_thread_fence`).
    pub(super) fn fence(&mut self, atomic: &Atomic) -> R<()> {
        let Some(scope) = scope_of(atomic.scope.as_deref()) else {
            return self.refuse(format!(
                "the scope `syncscope(\"{}\")`",
                atomic.scope.as_deref().unwrap_or("")
            ));
        };
        let order = match atomic.ordering {
            Ordering::SeqCst => Order::Sc,
            _ => Order::AcqRel,
        };
        self.emit(Op::Fence(MemOrder::new(order, scope)));
        Ok(())
    }
}
