//! Floating-point values known when the kernel is lowered: a conversion,
//! division or rounding of launch constants (HeteroSync's
//! `ceil((float)gridDim.x / n)`) is computed here, exactly as IEEE-754
//! single or double precision rounds it, and becomes an integer constant
//! (the value's bits). Arithmetic on values known only at run time is
//! refused: the model computes on integers.
//!
//! Only operations whose result does not depend on how nvcc compiles them
//! are folded: conversions, `fdiv` (IEEE division is nvcc's default,
//! `-prec-div=true`; `-use_fast_math` would make it approximate) and
//! `ceil`/`floor`/`trunc`/`fabs`. `fadd`, `fsub` and `fmul` stay refused
//! even on constants: nvcc may contract a multiply and an add into one
//! fused multiply-add (`--fmad=true`, its default), which rounds once, so
//! the value on the GPU is not fixed by the source.

use super::values::{width, zext};
use super::{Lowerer, R};
use crate::ir::Expr;
use crate::llvm::ir::{BinOp as LBin, CastOp, Instr, Type as LType};

/// A float of `ty` from its bits.
fn value(ty: &LType, bits: i64) -> Option<f64> {
    match ty {
        LType::Float => Some(f64::from(f32::from_bits(bits as u32))),
        LType::Double => Some(f64::from_bits(bits as u64)),
        _ => None,
    }
}

/// The bits of `v` rounded to `ty` (to nearest, ties to even).
fn bits(ty: &LType, v: f64) -> Option<i64> {
    match ty {
        LType::Float => Some(i64::from((v as f32).to_bits())),
        LType::Double => Some(v.to_bits() as i64),
        _ => None,
    }
}

/// A float to an `N`-bit integer as `fptosi`/`fptoui` define it: toward
/// zero; out of range (or NaN) is poison in LLVM, so refused.
fn to_int(v: f64, int_bits: u32, signed: bool) -> Option<i64> {
    let t = v.trunc();
    let (lo, hi) = match (signed, int_bits) {
        (true, 64) => (i64::MIN as f64, -(i64::MIN as f64)),
        (true, n) => (-(2f64.powi(n as i32 - 1)), 2f64.powi(n as i32 - 1)),
        (false, n) => (0.0, 2f64.powi(n.min(63) as i32)),
    };
    (t >= lo && t < hi).then(|| zext(t as i128, int_bits))
}

impl Lowerer<'_> {
    /// The constant bits of a float or integer operand, if it has them.
    fn const_operand(&mut self, instr: &Instr, i: usize) -> R<Option<i64>> {
        Ok(match self.int(&instr.operands[i])? {
            Expr::Const(c) => Some(c),
            _ => None,
        })
    }

    fn run_time_float(&self, what: &str) -> R<Expr> {
        self.refuse(format!(
            "{what} on a value known only at run time: floating-point arithmetic is modelled only on launch constants"
        ))
    }

    /// `fadd` ... `frem`: `fdiv` of constants is computed; the rest refused.
    pub(super) fn float_binary(&mut self, instr: &Instr, op: LBin) -> R<Expr> {
        if op != LBin::FDiv {
            return self.refuse(
                "floating-point addition, subtraction, multiplication or remainder (nvcc may fuse a multiply and an add, so the value is not fixed by the source)",
            );
        }
        let (a, b) = (self.const_operand(instr, 0)?, self.const_operand(instr, 1)?);
        let ty = &instr.ty;
        match (a.and_then(|a| value(ty, a)), b.and_then(|b| value(ty, b))) {
            (Some(a), Some(b)) => {
                let q = match ty {
                    // Rounded once, in single precision, as `div.rn.f32`.
                    LType::Float => f64::from(a as f32 / b as f32),
                    _ => a / b,
                };
                Ok(Expr::Const(bits(ty, q).expect("float type")))
            }
            _ => self.run_time_float("a floating-point division"),
        }
    }

    /// A conversion to, from or between floating-point types, of a constant.
    pub(super) fn float_cast(&mut self, instr: &Instr, op: CastOp) -> R<Expr> {
        let from = &instr.operands[0].ty;
        let Some(c) = self.const_operand(instr, 0)? else {
            return self.run_time_float(&format!("the conversion `{}`", op.name()));
        };
        let to = &instr.ty;
        let folded = match op {
            CastOp::SIToFP | CastOp::UIToFP => {
                let n = width(from).unwrap_or(64);
                let v = if op == CastOp::SIToFP {
                    let shift = 64 - n;
                    ((c << shift) >> shift) as f64
                } else {
                    c as u64 as f64
                };
                // An integer above 2^53 is rounded twice through f64: refused.
                (v.abs() < 2f64.powi(53)).then(|| bits(to, v)).flatten()
            }
            CastOp::FPToSI | CastOp::FPToUI => value(from, c)
                .and_then(|v| to_int(v, width(to).unwrap_or(64), op == CastOp::FPToSI)),
            CastOp::FPExt | CastOp::FPTrunc => value(from, c).and_then(|v| bits(to, v)),
            _ => None,
        };
        match folded {
            Some(b) => Ok(Expr::Const(b)),
            None => self.refuse(format!(
                "the conversion `{}` of this value (out of range, or a type the model does not name)",
                op.name()
            )),
        }
    }

    /// `ceil`, `floor`, `trunc`, `fabs` (libdevice's `__nv_ceilf`... or
    /// LLVM's intrinsics) of a constant; `None` for another callee.
    pub(super) fn float_call(&mut self, name: &str, instr: &Instr) -> R<Option<Expr>> {
        let base = name
            .strip_prefix("__nv_")
            .map(|n| n.strip_suffix('f').unwrap_or(n))
            .or_else(|| name.strip_prefix("llvm.").and_then(|n| n.split('.').next()));
        let Some(f) = base.filter(|b| matches!(*b, "ceil" | "floor" | "trunc" | "fabs")) else {
            return Ok(None);
        };
        if value(&instr.ty, 0).is_none() || instr.operands.is_empty() {
            return Ok(None);
        }
        let Some(c) = self.const_operand(instr, 0)? else {
            return self.run_time_float(&format!("`{f}`")).map(Some);
        };
        let v = value(&instr.ty, c).expect("float type");
        let r = match f {
            "ceil" => v.ceil(),
            "floor" => v.floor(),
            "trunc" => v.trunc(),
            _ => v.abs(),
        };
        Ok(bits(&instr.ty, r).map(Expr::Const))
    }
}
