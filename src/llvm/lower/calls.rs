//! Calls: the NVVM intrinsics CUDA's synchronisation compiles to, inline
//! PTX (`asm.rs`), device
//! `assert` (`__assertfail`), `__trap`, `printf` (`vprintf`: ignored, its
//! arguments are pure), and the intrinsics that do nothing the model sees.

use super::access::{atomic_intrinsic, Mapped};
use super::{Lowerer, R};
use crate::ir::{AtomicOp, Expr, MemOrder, Op, Order, Scope, VoteKind};
use crate::llvm::ir::{Callee, Instr, Value};

/// Intrinsics with no effect the model can see.
const NO_OPS: &[&str] = &[
    "llvm.lifetime.",
    "llvm.dbg.",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
    "llvm.invariant.",
    "llvm.sideeffect",
    "llvm.donothing",
    "llvm.var.annotation",
];

/// What a CUDA programmer calls an intrinsic the model refuses.
fn cuda_words(name: &str) -> Option<&'static str> {
    let table: &[(&str, &str)] = &[
        (
            "llvm.nvvm.shfl.",
            "this warp shuffle (the deprecated form without a mask, or one that also returns a predicate)",
        ),
        ("llvm.nvvm.match.", "__match_any_sync / __match_all_sync"),
        ("llvm.nvvm.barrier.sync", "named barriers (bar.sync)"),
        ("llvm.nvvm.barrier0.", "__syncthreads_count / _and / _or"),
        (
            "llvm.nvvm.ld",
            "a cached or non-coherent load (__ldg, __ldcg...)",
        ),
        ("llvm.nvvm.cp.async", "asynchronous copies (cp.async)"),
        ("llvm.nvvm.mbarrier", "mbarrier (cuda::barrier)"),
        ("llvm.memset", "memset / a zeroed local array"),
        (
            "llvm.nvvm.atomic",
            "this atomic (floating point or 64-bit CAS variant)",
        ),
        ("malloc", "device malloc"),
        ("free", "device free"),
    ];
    table
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map(|(_, w)| *w)
}

impl Lowerer<'_> {
    pub(super) fn call(&mut self, instr: &Instr, callee: &Callee) -> R<()> {
        let name = match callee {
            Callee::Function(f) => f.as_str(),
            Callee::Asm {
                template,
                constraints,
                sideeffect,
            } => return self.asm(instr, template, constraints, *sideeffect),
            Callee::Indirect(_) => {
                return self.refuse("an indirect call (a function pointer or virtual function)")
            }
        };
        if NO_OPS.iter().any(|p| name.starts_with(p)) {
            return Ok(());
        }
        if let Some(reg) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.") {
            let Some(v) = self.special_register(reg) else {
                return self.refuse(format!("the special register `%{reg}`"));
            };
            return self.assign(instr, v);
        }
        if name == "llvm.nvvm.isspacep.local" {
            // `__isLocal`: a pointer followed into a variable never is; one
            // into an `alloca` always is.
            return match instr.operands.first() {
                Some(op) if self.followed(&op.value) => self.assign(instr, Expr::Const(0)),
                Some(crate::llvm::ir::Operand {
                    value: Value::Local(n),
                    ..
                }) if self.bases.get(n) == Some(&super::memory::Base::Private) => {
                    self.assign(instr, Expr::Const(1))
                }
                _ => self.refuse("`__isLocal` of a pointer the model cannot follow"),
            };
        }
        if let Some(v) = self.integer_intrinsic(name, instr)? {
            return self.assign(instr, v);
        }
        if let Some(v) = self.float_call(name, instr)? {
            return self.assign(instr, v);
        }
        if name.starts_with("llvm.memcpy.") {
            return self.memcpy(instr);
        }
        self.check_arity(name, instr)?;
        if let Some((op, scope, _)) = atomic_intrinsic(name) {
            return self.atomic_intrinsic(instr, name, op, scope);
        }
        self.builtin(instr, name)
    }

    /// A call to one of CUDA's intrinsics or runtime functions, by name.
    fn builtin(&mut self, instr: &Instr, name: &str) -> R<()> {
        let fence = |s| Op::Fence(MemOrder::new(Order::Sc, s));
        match name {
            "llvm.nvvm.barrier0" => self.emit(Op::SyncThreads),
            "llvm.nvvm.membar.cta" => self.emit(fence(Scope::Cta)),
            "llvm.nvvm.membar.gl" => self.emit(fence(Scope::Gpu)),
            "llvm.nvvm.membar.sys" => self.emit(fence(Scope::Sys)),
            "llvm.nvvm.fence.sc.cta" => self.emit(fence(Scope::Cta)),
            "llvm.nvvm.nanosleep" => self.emit(Op::Backoff),
            "llvm.nvvm.bar.warp.sync" => {
                let mask = self.int(&instr.operands[0])?;
                self.emit(Op::SyncWarp { mask });
            }
            "llvm.nvvm.activemask" => {
                let Some(res) = &instr.result else {
                    return Ok(());
                };
                let dst = self.local(res, 32)?;
                self.emit(Op::ActiveMask { dst });
            }
            "llvm.nvvm.vote.any.sync"
            | "llvm.nvvm.vote.all.sync"
            | "llvm.nvvm.vote.ballot.sync" => {
                let kind = match name {
                    "llvm.nvvm.vote.any.sync" => VoteKind::Any,
                    "llvm.nvvm.vote.all.sync" => VoteKind::All,
                    _ => VoteKind::Ballot,
                };
                let mask = self.int(&instr.operands[0])?;
                let pred = self.int(&instr.operands[1])?;
                let bits = if kind == VoteKind::Ballot { 32 } else { 1 };
                let Some(res) = &instr.result else {
                    return Ok(());
                };
                let dst = self.local(res, bits)?;
                self.emit(Op::Vote {
                    dst,
                    kind,
                    mask,
                    pred,
                });
            }
            _ if shuffle_kind(name).is_some() => {
                let kind = shuffle_kind(name).expect("matched");
                let [mask, value, b, c] = [0, 1, 2, 3].map(|i| instr.operands.get(i));
                let (Some(mask), Some(value), Some(b), Some(c)) = (mask, value, b, c) else {
                    return self.refuse(format!("`{name}` with fewer than four operands"));
                };
                let (mask, value) = (self.int(mask)?, self.int(value)?);
                let src = shuffle_source(kind, self.int(b)?, self.int(c)?);
                let Some(res) = &instr.result else {
                    return Ok(());
                };
                let dst = self.local(res, 32)?;
                self.emit(Op::Shuffle {
                    dst,
                    mask,
                    value,
                    src,
                });
            }
            "__assertfail" => {
                let text = instr
                    .operands
                    .first()
                    .and_then(|o| self.c_string(&o.value))
                    .unwrap_or_else(|| "assert".into());
                return self.failure(&format!("device assertion `{text}` failed"));
            }
            "llvm.trap" | "__trap" => return self.failure("__trap() was called"),
            "vprintf" => {
                if let Some(res) = &instr.result {
                    if !instr.ty.eq(&crate::llvm::ir::Type::Void) {
                        let dst = self.local(res, 32)?;
                        self.emit(Op::Assign {
                            dst,
                            value: Expr::Const(0),
                        });
                    }
                }
            }
            _ => {
                if self
                    .module
                    .function(name)
                    .is_some_and(|f| !f.is_declaration())
                {
                    return self.refuse(format!(
                        "a call to the device function `{name}`, which the inliner left (recursion, or __noinline__)"
                    ));
                }
                return match cuda_words(name) {
                    Some(w) => self.refuse(format!("{w} (`{name}`)")),
                    None => self.refuse(format!("a call to `{name}`")),
                };
            }
        }
        Ok(())
    }

    /// Refuses a call to `name` with fewer arguments than it takes.
    fn check_arity(&mut self, name: &str, instr: &Instr) -> R<()> {
        let arity = match name {
            "llvm.nvvm.bar.warp.sync" => 1,
            n if n.starts_with("llvm.nvvm.vote.") => 2,
            n if n.starts_with("llvm.nvvm.atomic.")
                || ["llvm.umin.", "llvm.umax.", "llvm.smin.", "llvm.smax."]
                    .iter()
                    .any(|p| n.starts_with(p)) =>
            {
                2
            }
            n if n.starts_with("__nv_") || n.starts_with("llvm.abs.") => 1,
            _ => 0,
        };
        if instr.operands.len() < arity {
            return self.refuse(format!(
                "a call to `{name}` with {} arguments",
                instr.operands.len()
            ));
        }
        Ok(())
    }

    /// `llvm.nvvm.atomic.*`: a scoped atomic, relaxed.
    fn atomic_intrinsic(&mut self, instr: &Instr, name: &str, op: AtomicOp, scope: Scope) -> R<()> {
        if instr.operands.len() != 1 + op.operands() {
            return self.refuse(format!("`{name}` with {} operands", instr.operands.len()));
        }
        let mut values = vec![];
        for o in &instr.operands[1..] {
            values.push(self.int(o)?);
        }
        let order = Mapped {
            fence: None,
            order: MemOrder::new(Order::Relaxed, scope),
        };
        if op == AtomicOp::Cas {
            // No `{old, success}` pair here: the result is the old value.
            return self.atomic_call(instr, order, &values);
        }
        self.atomic(instr, op, order, &values)
    }

    /// `llvm.{u,s}{min,max}.iN` and `llvm.abs.iN` (`min`, `max`, `abs`,
    /// and what instcombine makes of `a < b ? a : b`).
    fn integer_intrinsic(&mut self, name: &str, instr: &Instr) -> R<Option<Expr>> {
        use crate::ir::{BinOp, UnOp};
        // libdevice's `max`, `min`, `abs` (declared only: -nocudalib).
        let libdevice = match name {
            "__nv_max" | "__nv_llmax" => Some("smax"),
            "__nv_min" | "__nv_llmin" => Some("smin"),
            "__nv_umax" | "__nv_ullmax" => Some("umax"),
            "__nv_umin" | "__nv_ullmin" => Some("umin"),
            "__nv_abs" | "__nv_llabs" => Some("abs"),
            _ => None,
        };
        if let Some((count, bits)) = bit_count(name) {
            let a = self.int(&instr.operands[0])?;
            // Each form reads its operand several times: compute it once.
            let x = self.new_local(&format!("{name}.x"), crate::ir::Type::I64);
            self.emit(Op::Assign {
                dst: x,
                value: count.operand(a, bits),
            });
            return Ok(Some(count.of(Expr::Local(x), bits)));
        }
        let op = match (libdevice, name.strip_prefix("llvm.")) {
            (Some(op), _) => op,
            (None, Some(base)) => base.split('.').next().unwrap_or(""),
            (None, None) => return Ok(None),
        };
        if !matches!(op, "umin" | "umax" | "smin" | "smax" | "abs") {
            return Ok(None);
        }
        let crate::llvm::ir::Type::Int(bits) = instr.ty else {
            return Ok(None);
        };
        let a = self.int(&instr.operands[0])?;
        let signed = op.starts_with('s') || op == "abs";
        let a = if signed {
            super::values::sext(a, bits)
        } else {
            a
        };
        if op == "abs" {
            let neg = Expr::Unary(UnOp::Neg, Box::new(a.clone()));
            let is_neg = Expr::Binary(BinOp::Lt, Box::new(a.clone()), Box::new(Expr::Const(0)));
            return Ok(Some(Expr::Ternary(
                Box::new(is_neg),
                Box::new(neg),
                Box::new(a),
            )));
        }
        if bits >= 64 && !signed {
            return self.refuse(format!("`{name}`: unsigned 64-bit comparison"));
        }
        let Some(b) = instr.operands.get(1) else {
            return self.refuse(format!("`{name}` with one operand"));
        };
        let b = self.int(b)?;
        let b = if signed {
            super::values::sext(b, bits)
        } else {
            b
        };
        let cmp = if op.ends_with("min") {
            BinOp::Lt
        } else {
            BinOp::Gt
        };
        let pick_a = Expr::Binary(cmp, Box::new(a.clone()), Box::new(b.clone()));
        Ok(Some(Expr::Ternary(
            Box::new(pick_a),
            Box::new(a),
            Box::new(b),
        )))
    }

    /// `atomicCAS_block`/`_system`: the intrinsic returns the old value.
    fn atomic_call(&mut self, instr: &Instr, order: Mapped, values: &[Expr]) -> R<()> {
        let bits = match &instr.operands[1].ty {
            crate::llvm::ir::Type::Int(w) => *w,
            _ => return self.refuse("a compare-and-swap of a non-integer"),
        };
        let p = self.ptr(&instr.operands[0])?;
        let loc = self.loc(&p, bits)?;
        let dst = match &instr.result {
            Some(r) => Some(self.local(r, bits)?),
            None => None,
        };
        self.emit(Op::Atomic {
            dst,
            op: AtomicOp::Cas,
            access: order.order.at(loc),
            operands: values.to_vec(),
        });
        Ok(())
    }

    /// A failure of the kernel: an assertion that does not hold.
    pub(super) fn failure(&mut self, message: &str) -> R<()> {
        self.emit(Op::Assert {
            cond: Expr::Const(0),
            message: message.to_string(),
        });
        Ok(())
    }

    /// The text of a global `c"...\00"` string.
    fn c_string(&self, v: &Value) -> Option<String> {
        let name = match v {
            Value::Global(g) => g.clone(),
            Value::Expr(ce) => match &ce.operands.first()?.value {
                Value::Global(g) => g.clone(),
                _ => return None,
            },
            _ => return None,
        };
        match &self.module.global(&name)?.init {
            Some(Value::Bytes(b)) => {
                let end = b.iter().position(|c| *c == 0).unwrap_or(b.len());
                Some(String::from_utf8_lossy(&b[..end]).into_owned())
            }
            _ => None,
        }
    }
}

/// A count over an integer's bits.
#[derive(Clone, Copy)]
enum BitCount {
    /// Set bits (`__popc`).
    Ones,
    /// 1 + the index of the lowest set bit, 0 for none (`__ffs`).
    FirstSet,
    /// Zeros below the lowest set bit (`llvm.cttz`).
    TrailingZeros,
    /// Zeros above the highest set bit (`__clz`, `llvm.ctlz`).
    LeadingZeros,
}

/// The bit count a call makes, and its operand's width: libdevice's
/// `__popc`, `__ffs`, `__clz` and their `ll` forms (declared only under
/// -nocudalib) and LLVM's `ctpop`, `cttz`, `ctlz`.
fn bit_count(name: &str) -> Option<(BitCount, u32)> {
    use BitCount::*;
    let libdevice = match name {
        "__nv_popc" => Some((Ones, 32)),
        "__nv_popcll" => Some((Ones, 64)),
        "__nv_ffs" => Some((FirstSet, 32)),
        "__nv_ffsll" => Some((FirstSet, 64)),
        "__nv_clz" => Some((LeadingZeros, 32)),
        "__nv_clzll" => Some((LeadingZeros, 64)),
        _ => None,
    };
    libdevice.or_else(|| {
        let (op, width) = name.strip_prefix("llvm.")?.split_once(".i")?;
        let bits: u32 = width
            .parse()
            .ok()
            .filter(|b| matches!(b, 8 | 16 | 32 | 64))?;
        let count = match op {
            "ctpop" => Ones,
            "cttz" => TrailingZeros,
            "ctlz" => LeadingZeros,
            _ => return None,
        };
        Some((count, bits))
    })
}

impl BitCount {
    /// What the count reads: the low `bits` of `a`; for leading zeros,
    /// with every bit below the highest set one set too.
    fn operand(self, a: Expr, bits: u32) -> Expr {
        use crate::ir::BinOp;
        let bin = |op, a: Expr, b: Expr| Expr::Binary(op, Box::new(a), Box::new(b));
        let mut x = bin(BinOp::BitAnd, a, Expr::Const(low_mask(bits)));
        if let BitCount::LeadingZeros = self {
            let mut shift = 1;
            while shift < bits {
                let s = bin(BinOp::Shr, x.clone(), Expr::Const(i64::from(shift)));
                x = bin(BinOp::BitOr, x, s);
                shift *= 2;
            }
        }
        x
    }

    /// The count, from `x` (a local holding `operand`).
    fn of(self, x: Expr, bits: u32) -> Expr {
        use crate::ir::{BinOp, UnOp};
        let bin = |op, a: Expr, b: Expr| Expr::Binary(op, Box::new(a), Box::new(b));
        let k = |v: i64| Expr::Const(v);
        let low = x;
        let is_zero = bin(BinOp::Eq, low.clone(), k(0));
        // The bits below the lowest set one: (x & -x) - 1.
        let lowest = bin(
            BinOp::BitAnd,
            low.clone(),
            Expr::Unary(UnOp::Neg, Box::new(low.clone())),
        );
        let below = bin(BinOp::Sub, lowest, k(1));
        let when_zero = |zero: i64, other: Expr| {
            Expr::Ternary(
                Box::new(is_zero.clone()),
                Box::new(k(zero)),
                Box::new(other),
            )
        };
        match self {
            BitCount::Ones => popcount(low, bits),
            BitCount::FirstSet => when_zero(0, bin(BinOp::Add, popcount(below, bits), k(1))),
            BitCount::TrailingZeros => when_zero(i64::from(bits), popcount(below, bits)),
            BitCount::LeadingZeros => bin(BinOp::Sub, k(i64::from(bits)), popcount(low, bits)),
        }
    }
}

fn low_mask(bits: u32) -> i64 {
    if bits >= 64 {
        -1
    } else {
        (1i64 << bits) - 1
    }
}

/// The number of set bits among the low `bits` of `x`: the sum of each
/// bit, as the model's expressions have no population count of their own.
fn popcount(x: Expr, bits: u32) -> Expr {
    use crate::ir::BinOp;
    let bit = |i: u32| {
        let shifted = Expr::Binary(
            BinOp::Shr,
            Box::new(x.clone()),
            Box::new(Expr::Const(i64::from(i))),
        );
        Expr::Binary(BinOp::BitAnd, Box::new(shifted), Box::new(Expr::Const(1)))
    };
    (1..bits).fold(bit(0), |sum, i| {
        Expr::Binary(BinOp::Add, Box::new(sum), Box::new(bit(i)))
    })
}

/// The kinds of PTX's `shfl.sync`.
#[derive(Clone, Copy)]
enum Shuffle {
    Up,
    Down,
    Butterfly,
    Index,
}

/// `llvm.nvvm.shfl.sync.MODE.{i32,f32}` (what `__shfl_sync`,
/// `__shfl_up_sync`, `__shfl_down_sync` and `__shfl_xor_sync` become, a
/// 64-bit value as two of them); the forms that also return a predicate
/// are not among them.
fn shuffle_kind(name: &str) -> Option<Shuffle> {
    let rest = name.strip_prefix("llvm.nvvm.shfl.sync.")?;
    let (mode, ty) = rest.split_once('.')?;
    if !matches!(ty, "i32" | "f32") {
        return None;
    }
    Some(match mode {
        "up" => Shuffle::Up,
        "down" => Shuffle::Down,
        "bfly" => Shuffle::Butterfly,
        "idx" => Shuffle::Index,
        _ => return None,
    })
}

/// The lane a shuffle reads, as PTX's `shfl.sync` defines it from `b`
/// (the lane or offset) and `c` (the clamp in bits 0-4, the segment mask
/// in bits 8-12, which `width` sets): the lane itself where the source
/// falls outside its segment.
fn shuffle_source(kind: Shuffle, b: Expr, c: Expr) -> Expr {
    use crate::ir::{BinOp::*, Builtin};
    let bin = |op, a: Expr, b: Expr| Expr::Binary(op, Box::new(a), Box::new(b));
    let k = Expr::Const;
    let lane = Expr::Builtin(Builtin::LaneId);
    let bval = bin(BitAnd, b, k(31));
    let cval = bin(BitAnd, c.clone(), k(31));
    let segmask = bin(BitAnd, bin(Shr, c, k(8)), k(31));
    let not_seg = bin(BitXor, segmask.clone(), k(31));
    let min_lane = bin(BitAnd, lane.clone(), segmask);
    let max_lane = bin(BitOr, min_lane.clone(), bin(BitAnd, cval, not_seg.clone()));
    let (j, inside) = match kind {
        Shuffle::Up => {
            let j = bin(Sub, lane.clone(), bval);
            (j.clone(), bin(Ge, j, max_lane))
        }
        Shuffle::Down => {
            let j = bin(Add, lane.clone(), bval);
            (j.clone(), bin(Le, j, max_lane))
        }
        Shuffle::Butterfly => {
            let j = bin(BitXor, lane.clone(), bval);
            (j.clone(), bin(Le, j, max_lane))
        }
        Shuffle::Index => {
            let j = bin(BitOr, min_lane, bin(BitAnd, bval, not_seg));
            (j.clone(), bin(Le, j, max_lane))
        }
    };
    Expr::Ternary(Box::new(inside), Box::new(j), Box::new(lane))
}
