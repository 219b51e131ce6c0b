//! Loads, stores, atomics and fences as CUDA: each [`MemAccess`] as the
//! operation its order and scope name. Relaxed and acquire loads, release
//! stores and acquire/release atomics on a word are one PTX instruction
//! each (the prelude's `gs_ld_*`, `gs_st_*`, `gs_atom_*`); the other orders
//! are CUDA's volatile accesses and scoped atomics between the fences the
//! order needs.

use super::emit::Emitter;
use super::expr::{self, cuda_type, word_type, Code};
use super::spell::{atomic_suffix, fence, helper_suffix};
use crate::ir::Type;
use crate::ir::{AtomicOp, Expr, LocalId, MemAccess, MemOrder, Order, Scope};

/// How an acquire, release or acq_rel atomic on a word is one PTX `atom`:
/// its operation, operand type, and whether it takes the word as signed
/// (`int`, `long long`); by atomic and by the type of the word.
fn ptx_atom(op: AtomicOp, ty: Type) -> (&'static str, &'static str, bool) {
    let wide = ty.words() == 2;
    let signed = ty.signed();
    let arith = if signed {
        Class::Signed
    } else {
        Class::Unsigned
    };
    let (name, class) = match op {
        // PTX has no 64-bit `atom.inc`/`dec` (lowering refuses them) nor a
        // signed 64-bit add or cas: two's complement addition is the
        // unsigned one, and a cas compares bits.
        AtomicOp::Inc | AtomicOp::Dec if wide => ("add", Class::Unsigned),
        AtomicOp::Add | AtomicOp::Sub if wide => ("add", Class::Unsigned),
        AtomicOp::Cas if wide => ("cas", Class::Bits),
        AtomicOp::Add | AtomicOp::Sub => ("add", arith),
        AtomicOp::Cas => ("cas", if signed { Class::Signed } else { Class::Bits }),
        AtomicOp::Min => ("min", arith),
        AtomicOp::Max => ("max", arith),
        AtomicOp::Exch => ("exch", Class::Bits),
        AtomicOp::Inc => ("inc", Class::Unsigned),
        AtomicOp::Dec => ("dec", Class::Unsigned),
        AtomicOp::And => ("and", Class::Bits),
        AtomicOp::Or => ("or", Class::Bits),
        AtomicOp::Xor => ("xor", Class::Bits),
    };
    let ptx_ty = match (class, wide) {
        (Class::Unsigned, false) => "u32",
        (Class::Signed, false) => "s32",
        (Class::Bits, false) => "b32",
        (Class::Unsigned, true) => "u64",
        (Class::Signed, true) => "s64",
        (Class::Bits, true) => "b64",
    };
    (name, ptx_ty, class == Class::Signed)
}

/// How a PTX `atom` takes its operands.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Unsigned,
    Signed,
    Bits,
}

/// An atomic on a variable narrower than its 32-bit word that is not a
/// plain exchange: a CAS loop on the word (`gs_atomic_narrow`).
fn is_narrow(op: AtomicOp, ty: Type) -> bool {
    ty.bits() < 32 && !matches!(op, AtomicOp::Cas | AtomicOp::Exch)
}

impl Emitter<'_> {
    /// The type of the variable an access reads or writes.
    fn var_type(&self, access: &MemAccess) -> Type {
        self.program.vars[access.loc.var as usize].ty
    }

    pub(super) fn load(&mut self, dst: LocalId, access: &MemAccess) {
        let ty = self.var_type(access);
        let place = self.loc(&access.loc);
        let class = expr::class_of(ty);
        match access.order {
            Order::Relaxed | Order::Acquire => {
                // ld.relaxed / ld.acquire at the spec's scope: no fences.
                let cast = if ty.signed() {
                    format!("({})", word_type(ty))
                } else {
                    String::new()
                };
                let raw = format!(
                    "{cast}gs_ld{}_{}(&{place})",
                    width(ty),
                    helper_suffix(access.mem_order())
                );
                self.assign_result(Some(dst), raw, class);
            }
            order => {
                let raw = match order {
                    Order::Weak => place,
                    _ => format!("gs_ld_volatile(&{place})"),
                };
                self.fenced(access.mem_order(), |e| {
                    e.assign_result(Some(dst), raw, class)
                });
            }
        }
    }

    pub(super) fn store(&mut self, access: &MemAccess, value: &Expr) {
        let ty = self.var_type(access);
        let place = self.loc(&access.loc);
        let v = expr::wrap_to(ty, &self.expr(value));
        match access.order {
            // st.release at the spec's scope: no fence.
            Order::Release => self.line(&format!(
                "gs_st{}_{}(&{place}, ({})({v}));",
                width(ty),
                helper_suffix(access.mem_order()),
                word_type(unsigned(ty))
            )),
            Order::Weak => self.line(&format!("{place} = {v};")),
            _ => {
                let stmt = format!("gs_st_volatile(&{place}, {v});");
                self.fenced(access.mem_order(), |e| e.line(&stmt));
            }
        }
    }

    pub(super) fn atomic(
        &mut self,
        dst: Option<LocalId>,
        op: AtomicOp,
        access: &MemAccess,
        operands: &[Expr],
    ) {
        let class = expr::class_of(self.var_type(access));
        match self.ordered_atomic(op, access, operands) {
            Some(call) => self.assign_result(dst, call, class),
            None => {
                let call = self.atomic_call(op, access, operands);
                self.fenced(access.mem_order(), |e| e.assign_result(dst, call, class));
            }
        }
    }

    /// An acquire, release or acq_rel atomic on a 32-bit word as one PTX
    /// `atom.<order>.<scope>` (prelude's gs_atom_*); None for the other
    /// orders and for narrow arithmetic (a CAS loop between fences).
    fn ordered_atomic(
        &self,
        op: AtomicOp,
        access: &MemAccess,
        operands: &[Expr],
    ) -> Option<String> {
        let ty = self.var_type(access);
        if !matches!(
            access.order,
            Order::Acquire | Order::Release | Order::AcqRel
        ) || is_narrow(op, ty)
        {
            return None;
        }
        let signed = ty.signed();
        let (name, ptx_ty, as_int) = ptx_atom(op, ty);
        let word = if as_int {
            word_type(ty)
        } else {
            word_type(unsigned(ty))
        };
        let place = self.loc(&access.loc);
        let ptr = if as_int == signed {
            format!("&{place}")
        } else {
            format!("({word}*)&{place}")
        };
        let mut args = vec![ptr];
        for a in operands {
            let v = expr::wrap_to(ty, &self.expr(a));
            let v = if op == AtomicOp::Sub {
                format!("-({v})")
            } else {
                v
            };
            args.push(format!("({word})({v})"));
        }
        let call = format!(
            "gs_atom_{}_{name}_{ptx_ty}({})",
            helper_suffix(access.mem_order()),
            args.join(", ")
        );
        Some(if as_int == signed {
            call
        } else {
            format!("({})({call})", word_type(ty))
        })
    }

    /// The CUDA call of an atomic read-modify-write.
    fn atomic_call(&self, op: AtomicOp, access: &MemAccess, operands: &[Expr]) -> String {
        let ty = self.var_type(access);
        let place = self.loc(&access.loc);
        let args: Vec<Code> = operands.iter().map(|e| self.expr(e)).collect();
        if is_narrow(op, ty) {
            return narrow_atomic(op, ty, &place, &args[0], access.scope);
        }
        if ty.words() == 2 {
            return wide_atomic(op, ty, &place, &args, access.scope);
        }
        let word = word_type(ty);
        let unsigned_only = matches!(op, AtomicOp::Inc | AtomicOp::Dec);
        let ptr = if unsigned_only && ty.signed() {
            format!("(unsigned int*)&{place}")
        } else {
            format!("&{place}")
        };
        let cast = if unsigned_only { "unsigned int" } else { word };
        let vals: Vec<String> = args
            .iter()
            .map(|a| {
                let v = expr::wrap_to(ty, a);
                if expr::class_of(ty) == a.class && ty.bits() == 32 {
                    v
                } else {
                    format!("({cast})({v})")
                }
            })
            .collect();
        format!(
            "{}{}({ptr}, {})",
            op.cuda_name(),
            atomic_suffix(access.scope),
            vals.join(", ")
        )
    }

    /// Emits an access with the fences its order needs around it: a scoped
    /// fence before a release and after an acquire (at least as strong as
    /// the PTX `.release`/`.acquire` forms, and plain CUDA).
    fn fenced(&mut self, mo: MemOrder, access: impl FnOnce(&mut Self)) {
        let MemOrder { order, scope } = mo;
        let strength = if order == Order::Sc {
            Order::Sc
        } else {
            Order::AcqRel
        };
        let f = fence(MemOrder::new(strength, scope));
        let (before, after) = match order {
            Order::Release => (true, false),
            Order::Acquire => (false, true),
            Order::AcqRel | Order::Sc => (true, true),
            Order::Weak | Order::Volatile | Order::Relaxed => (false, false),
        };
        if before {
            self.line(&f);
        }
        access(self);
        if after {
            self.line(&f);
        }
    }
}

/// `64` for the prelude's helpers on 64-bit words (`gs_ld64_acquire_gpu`).
fn width(ty: Type) -> &'static str {
    if ty.words() == 2 {
        "64"
    } else {
        ""
    }
}

/// The unsigned type of the same width.
fn unsigned(ty: Type) -> Type {
    if ty.words() == 2 {
        Type::U64
    } else {
        Type::U32
    }
}

/// A relaxed atomic on a 64-bit word: CUDA's `unsigned long long` forms,
/// the signed ones only for `atomicMax`/`atomicMin` (where the sign
/// matters); `atomicSub` is an `atomicAdd` of the negation (CUDA has no
/// 64-bit `atomicSub`).
fn wide_atomic(op: AtomicOp, ty: Type, place: &str, args: &[Code], scope: Scope) -> String {
    let word = match op {
        AtomicOp::Max | AtomicOp::Min => word_type(ty),
        _ => "unsigned long long",
    };
    let vals: Vec<String> = args
        .iter()
        .map(|a| {
            let v = expr::wrap_to(ty, a);
            if op == AtomicOp::Sub {
                format!("({word})(-({v}))")
            } else {
                format!("({word})({v})")
            }
        })
        .collect();
    let name = if op == AtomicOp::Sub {
        AtomicOp::Add.cuda_name()
    } else {
        op.cuda_name()
    };
    format!(
        "{name}{}(({word}*)&{place}, {})",
        atomic_suffix(scope),
        vals.join(", ")
    )
}

/// A narrow atomic as a CAS loop on its word; the next value computed as
/// the model does (the operand may be any `i64`: the helpers wrap).
fn narrow_atomic(op: AtomicOp, ty: Type, place: &str, operand: &Code, scope: Scope) -> String {
    let a = operand.wide();
    let mask = (1u64 << ty.bits()) - 1;
    let next = match op {
        AtomicOp::Add => format!("gs_add(old, {a})"),
        AtomicOp::Sub => format!("gs_sub(old, {a})"),
        AtomicOp::Or => format!("old | {a}"),
        AtomicOp::And => format!("old & {a}"),
        AtomicOp::Xor => format!("old ^ {a}"),
        AtomicOp::Max => format!("old > {a} ? old : {a}"),
        AtomicOp::Min => format!("old < {a} ? old : {a}"),
        AtomicOp::Inc => format!("(old & {mask}) >= ({a} & {mask}) ? 0 : old + 1"),
        AtomicOp::Dec => {
            format!("(old & {mask}) == 0 || (old & {mask}) > ({a} & {mask}) ? {a} : old - 1")
        }
        AtomicOp::Cas | AtomicOp::Exch => unreachable!("exchanges are never narrow"),
    };
    format!(
        "gs_atomic_narrow<{}>((unsigned int*)&{place}, {}, [&](i64 old) {{ return {next}; }})",
        cuda_type(ty),
        scope == Scope::Cta
    )
}
