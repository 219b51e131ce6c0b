//! Floating point: an `f32` or `f64` SSA value lives in a local as its
//! bits, and its arithmetic, comparisons, conversions and the exactly
//! specified math functions are the IR's IEEE operations
//! (`ir::float`, rounded to nearest even as `add.rn`... `fma.rn` are).
//! Operands that are constants are folded by `assign` through the same
//! operations, so a launch constant and a value known at run time round
//! alike.
//!
//! Contraction: clang decides which `a * b + c` become one `fma` in the IR
//! we check (`llvm.fmuladd`, or an `fmul` and an `fadd`/`fsub` both
//! flagged `contract` in one block, which LLVM's NVPTX back end fuses), and
//! nvcc's `-fmad` may decide otherwise, so a verdict that depends on the
//! rounding of `a * b + c` holds for clang's choice. Division and `sqrt`
//! are IEEE's (nvcc's defaults `-prec-div=true`, `-prec-sqrt=true`; not
//! `-use_fast_math`). Half precision and approximate functions (`__expf`,
//! `__fdividef`) are refused by name.

use super::values::{sext, width};
use super::{Lowerer, R};
use crate::ir::{BinOp, Expr, FCmp, Float, FloatBin, FloatUn, Num, UnOp};
use crate::llvm::ir::{BinOp as LBin, CastOp, Instr, InstrKind, Operand, Type as LType, Value};

/// A function of floats that `float_call` models.
#[derive(Clone, Copy)]
enum Function {
    Unary(FloatUn),
    Binary(FloatBin),
    Fma,
}

/// The function a callee names: LLVM's intrinsics (`llvm.fabs.f32`) and
/// libdevice's (`__nv_fabsf`, `__nv_fmul_rn`), whatever the format.
fn function(name: &str) -> Option<Function> {
    let base = match name.strip_prefix("__nv_") {
        Some(n) => {
            let n = n.strip_suffix("_rn").unwrap_or(n);
            match n {
                // `__nv_fadd_rn`, `__nv_dadd_rn`, ...: the operation itself.
                "fadd" | "dadd" => "add",
                "fsub" | "dsub" => "sub",
                "fmul" | "dmul" => "mul",
                "fdiv" | "ddiv" => "div",
                "fsqrt" | "dsqrt" => "sqrt",
                _ => n.strip_suffix('f').unwrap_or(n),
            }
        }
        None => name.strip_prefix("llvm.")?.split('.').next()?,
    };
    use Function::{Binary as B, Unary as U};
    Some(match base {
        "fabs" => U(FloatUn::Abs),
        "ceil" => U(FloatUn::Ceil),
        "floor" => U(FloatUn::Floor),
        "trunc" => U(FloatUn::Trunc),
        "rint" | "nearbyint" | "roundeven" => U(FloatUn::RoundEven),
        "round" => U(FloatUn::Round),
        "sqrt" => U(FloatUn::Sqrt),
        "add" => B(FloatBin::Add),
        "sub" => B(FloatBin::Sub),
        "mul" => B(FloatBin::Mul),
        "div" => B(FloatBin::Div),
        "fmod" => B(FloatBin::Rem),
        "fmin" | "minnum" => B(FloatBin::Min),
        "fmax" | "maxnum" => B(FloatBin::Max),
        "copysign" => B(FloatBin::CopySign),
        "fma" | "fmuladd" => Function::Fma,
        _ => return None,
    })
}

fn bin(op: FloatBin, f: Float, a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Float(op, f), Box::new(a), Box::new(b))
}

fn neg(f: Float, a: Expr) -> Expr {
    Expr::Unary(UnOp::Float(FloatUn::Neg, f), Box::new(a))
}

fn fma(f: Float, a: Expr, b: Expr, c: Expr) -> Expr {
    Expr::Fma(f, Box::new([a, b, c]))
}

impl Lowerer<'_> {
    /// The format of a value of `ty`; half precision and vectors refused.
    fn format(&self, ty: &LType) -> R<Float> {
        match ty {
            LType::Float => Ok(Float::F32),
            LType::Double => Ok(Float::F64),
            LType::Half | LType::BFloat => {
                self.refuse("half-precision arithmetic (`half`, `__nv_bfloat16`)")
            }
            other => self.refuse(format!(
                "floating-point arithmetic on LLVM type {other:?} (vectors are not modelled)"
            )),
        }
    }

    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem` (C's `fmod`).
    pub(super) fn float_binary(&mut self, instr: &Instr, op: LBin) -> R<Expr> {
        let f = self.format(&instr.ty)?;
        if let Some(fused) = self.contracted(instr, op, f)? {
            return Ok(fused);
        }
        let op = match op {
            LBin::FAdd => FloatBin::Add,
            LBin::FSub => FloatBin::Sub,
            LBin::FMul => FloatBin::Mul,
            LBin::FDiv => FloatBin::Div,
            _ => FloatBin::Rem,
        };
        let a = self.int(&instr.operands[0])?;
        let b = self.int(&instr.operands[1])?;
        Ok(bin(op, f, a, b))
    }

    /// `fadd`/`fsub contract` of an `fmul contract` of the same block: one
    /// `fma`, as LLVM's DAG combiner fuses them for NVPTX (which asks for
    /// aggressive fusion: whatever other uses the product has). Of two
    /// products it fuses the one with fewer uses, the first on a tie.
    fn contracted(&mut self, instr: &Instr, op: LBin, f: Float) -> R<Option<Expr>> {
        if !instr.contract || !matches!(op, LBin::FAdd | LBin::FSub) {
            return Ok(None);
        }
        let func = self.func;
        let Some(block) = func
            .blocks
            .iter()
            .find(|b| b.instrs.iter().any(|i| std::ptr::eq(i, instr)))
        else {
            return Ok(None);
        };
        let product = |o: &Operand| match &o.value {
            Value::Local(n) => block.instrs.iter().find(|i| {
                i.result.as_ref() == Some(n)
                    && i.kind == InstrKind::Binary(LBin::FMul)
                    && i.contract
            }),
            _ => None,
        };
        let uses = |p: &Instr| {
            let name = p.result.as_ref();
            func.instructions()
                .flat_map(|i| &i.operands)
                .filter(|o| matches!(&o.value, Value::Local(n) if Some(n) == name))
                .count()
        };
        let (p0, p1) = (product(&instr.operands[0]), product(&instr.operands[1]));
        let (first, m) = match (p0, p1) {
            (Some(a), Some(b)) if uses(a) > uses(b) => (false, b),
            (Some(a), _) => (true, a),
            (None, Some(b)) => (false, b),
            (None, None) => return Ok(None),
        };
        let x = self.int(&m.operands[0])?;
        let y = self.int(&m.operands[1])?;
        let other = self.int(&instr.operands[usize::from(first)])?;
        Ok(Some(match (op, first) {
            // (x*y) + z, z + (x*y)
            (LBin::FAdd, _) => fma(f, x, y, other),
            // (x*y) - z = fma(x, y, -z)
            (_, true) => fma(f, x, y, neg(f, other)),
            // z - (x*y) = fma(-x, y, z)
            (_, false) => fma(f, neg(f, x), y, other),
        }))
    }

    /// `fneg`: the sign bit flipped.
    pub(super) fn fneg(&mut self, instr: &Instr) -> R<()> {
        let f = self.format(&instr.ty)?;
        let a = self.int(&instr.operands[0])?;
        self.assign(instr, neg(f, a))
    }

    /// `fcmp PRED a, b`: IEEE's comparison, NaN unordered.
    pub(super) fn fcmp(&mut self, instr: &Instr, pred: &str) -> R<()> {
        let f = self.format(&instr.operands[0].ty)?;
        let Some(p) = FCmp::from_name(pred) else {
            return self.refuse(format!("fcmp {pred}"));
        };
        let a = self.int(&instr.operands[0])?;
        let b = self.int(&instr.operands[1])?;
        self.assign(instr, bin(FloatBin::Cmp(p), f, a, b))
    }

    /// A conversion to, from or between floating-point types.
    pub(super) fn float_cast(&mut self, instr: &Instr, op: CastOp) -> R<Expr> {
        let (from_ty, to_ty) = (&instr.operands[0].ty, &instr.ty);
        let x = self.int(&instr.operands[0])?;
        let int = |ty: &LType, signed| width(ty).map(|bits| Num::Int { bits, signed });
        let (from, to, x) = match op {
            CastOp::SIToFP | CastOp::UIToFP => {
                let signed = op == CastOp::SIToFP;
                let Some(from) = int(from_ty, signed) else {
                    return self.refuse(format!("the conversion `{}`", op.name()));
                };
                let bits = width(from_ty).unwrap_or(64);
                let x = if signed { sext(x, bits) } else { x };
                (from, Num::Float(self.format(to_ty)?), x)
            }
            CastOp::FPToSI | CastOp::FPToUI => {
                let to = int(to_ty, op == CastOp::FPToSI).filter(|_| width(to_ty) != Some(1));
                let Some(to) = to else {
                    return self.refuse(format!("the conversion `{}` to a bool", op.name()));
                };
                (Num::Float(self.format(from_ty)?), to, x)
            }
            _ => (
                Num::Float(self.format(from_ty)?),
                Num::Float(self.format(to_ty)?),
                x,
            ),
        };
        Ok(Expr::Unary(UnOp::Convert(from, to), Box::new(x)))
    }

    /// A call of a function of floats that IEEE specifies exactly (`fabs`,
    /// `sqrt`, `fminf`, `fma`, `__fmul_rn`...); `None` for another callee.
    pub(super) fn float_call(&mut self, name: &str, instr: &Instr) -> R<Option<Expr>> {
        let Some(fun) = function(name) else {
            return Ok(None);
        };
        let arity = match fun {
            Function::Unary(_) => 1,
            Function::Binary(_) => 2,
            Function::Fma => 3,
        };
        if instr.operands.len() != arity {
            return self.refuse(format!("`{name}` with {} operands", instr.operands.len()));
        }
        let f = self.format(&instr.ty)?;
        let mut x = Vec::with_capacity(arity);
        for o in &instr.operands {
            x.push(self.int(o)?);
        }
        let mut x = x.into_iter();
        let mut next = || x.next().expect("arity checked");
        Ok(Some(match fun {
            Function::Unary(op) => Expr::Unary(UnOp::Float(op, f), Box::new(next())),
            Function::Binary(op) => bin(op, f, next(), next()),
            Function::Fma => fma(f, next(), next(), next()),
        }))
    }
}
