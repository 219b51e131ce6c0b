//! Integer values: an `iN` SSA value lives in a local of N bits holding
//! it zero-extended (`i1` as 0/1, `i64` as the 64 bits); the model's
//! expressions compute on 64-bit integers, so operations that read the
//! sign (`sdiv`, `srem`, `ashr`, `icmp s..`, `sext`) sign-extend their
//! operands first, and every result is wrapped to its width by the local
//! it is stored in.

use super::{Lowerer, R};
use crate::ir::{BinOp, Type, UnOp};
use crate::ir::{Builtin, Expr, Op};
use crate::llvm::ir::{BinOp as LBin, CastOp, Instr, InstrKind, Operand, Type as LType, Value};

/// Variable `k`'s address is `(k + 1) << ADDRESS_SHIFT` (see `address`).
pub(crate) const ADDRESS_SHIFT: u32 = 32;

/// The local type of an `iN` value.
pub(crate) fn local_type(bits: u32) -> Option<Type> {
    Some(match bits {
        1 => Type::Bool,
        8 => Type::U8,
        16 => Type::U16,
        32 => Type::U32,
        64 => Type::I64,
        _ => return None,
    })
}

/// `v` as an `iN` value is held: zero-extended (64 bits: as they are).
pub(crate) fn zext(v: i128, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        (v & ((1i128 << bits) - 1)) as i64
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// The value of an expression over constants only.
fn fold(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(c) => Some(*c),
        Expr::Unary(op, a) => Some(crate::ir::eval_unary(*op, fold(a)?)),
        Expr::Binary(op, a, b) => crate::ir::eval_binary(*op, fold(a)?, fold(b)?).ok(),
        Expr::Ternary(c, a, b) => {
            if fold(c)? != 0 {
                fold(a)
            } else {
                fold(b)
            }
        }
        Expr::Fma(f, abc) => {
            let [a, b, c] = &**abc;
            Some(crate::ir::float::fma(*f, fold(a)?, fold(b)?, fold(c)?))
        }
        _ => None,
    }
}

/// The signed value of a held `iN` value.
pub(crate) fn sext(e: Expr, bits: u32) -> Expr {
    if bits >= 64 {
        return e;
    }
    if let Expr::Const(c) = e {
        let shift = 64 - bits;
        return Expr::Const((c << shift) >> shift);
    }
    let half = Expr::Const(1i64 << (bits - 1));
    bin(BinOp::Sub, bin(BinOp::BitXor, e, half.clone()), half)
}

/// A 64-bit value made comparable as unsigned by signed comparison.
fn flip(e: Expr) -> Expr {
    bin(BinOp::BitXor, e, Expr::Const(i64::MIN))
}

/// The bits of a value of `ty`: an integer's width, or a floating-point
/// type's, whose values are carried as their bits (`float.rs` computes
/// with `float` and `double` ones).
pub(crate) fn width(ty: &LType) -> Option<u32> {
    match ty {
        LType::Int(w) => Some(*w),
        LType::Half | LType::BFloat => Some(16),
        LType::Float => Some(32),
        LType::Double => Some(64),
        _ => None,
    }
}

/// The bits of a floating-point constant as LLVM writes it (decimal, or
/// hexadecimal in double's format for `float` and `double`).
fn float_bits(ty: &LType, text: &str) -> Option<i64> {
    let as_f64 = match text.strip_prefix("0x") {
        Some(hex) if hex.len() == 16 => f64::from_bits(u64::from_str_radix(hex, 16).ok()?),
        Some(_) => return None,
        None => text.parse::<f64>().ok()?,
    };
    match ty {
        LType::Float => Some(i64::from((as_f64 as f32).to_bits())),
        LType::Double => Some(as_f64.to_bits() as i64),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// An integer operand's value.
    pub(super) fn int(&mut self, op: &Operand) -> R<Expr> {
        let Some(bits) = width(&op.ty) else {
            return self.refuse(format!(
                "a value of LLVM type {:?} (floating point or vector arithmetic is not modelled)",
                op.ty
            ));
        };
        Ok(match &op.value {
            Value::Int(i) => Expr::Const(zext(*i, bits)),
            Value::Undef | Value::Poison | Value::Zero => Expr::Const(0),
            Value::Float(f) => match float_bits(&op.ty, f) {
                Some(b) => Expr::Const(b),
                None => return self.refuse(format!("the floating-point constant `{f}`")),
            },
            Value::Local(n) => match self.consts.get(n) {
                Some(c) => Expr::Const(*c),
                None => Expr::Local(self.local(n, bits)?),
            },
            // `ptrtoint` of a constant address (`ptrtoint (ptr addrspacecast
            // (ptr addrspace(3) @s to ptr) to i64)`): its address, as `cast`.
            Value::Expr(ce)
                if ce.kind == InstrKind::Cast(CastOp::PtrToInt) && !ce.operands.is_empty() =>
            {
                self.address(&ce.operands[0])?
            }
            _ => return self.refuse(
                "an integer computed from a pointer (ptrtoint) or a constant the model cannot name",
            ),
        })
    }

    /// `dst = value` for the instruction's result, wrapped to its width.
    pub(super) fn assign(&mut self, instr: &Instr, value: Expr) -> R<()> {
        let (Some(res), Some(bits)) = (&instr.result, width(&instr.ty)) else {
            return self.refuse(format!("a value of LLVM type {:?}", instr.ty));
        };
        let dst = self.local(res, bits)?;
        let value = if bits == 1 {
            bin(BinOp::BitAnd, value, Expr::Const(1))
        } else {
            value
        };
        // An SSA value computed from constants is that constant wherever
        // it is used: its uses read it as one (a float conversion of a
        // launch constant is then computed when the kernel is lowered).
        let value = match fold(&value) {
            Some(c) => {
                let c = zext(i128::from(c), bits);
                self.consts.insert(res.clone(), c);
                Expr::Const(c)
            }
            None => value,
        };
        self.emit(Op::Assign { dst, value });
        Ok(())
    }

    /// An integer `add`, `sub`, ... `ashr`.
    pub(super) fn binary(&mut self, instr: &Instr, op: LBin) -> R<()> {
        if matches!(
            op,
            LBin::FAdd | LBin::FSub | LBin::FMul | LBin::FDiv | LBin::FRem
        ) {
            let value = self.float_binary(instr, op)?;
            return self.assign(instr, value);
        }
        let Some(bits) = width(&instr.ty) else {
            return self.refuse("vector arithmetic is not modelled");
        };
        let a = self.int(&instr.operands[0])?;
        let b = self.int(&instr.operands[1])?;
        let value = match op {
            LBin::Add => bin(BinOp::Add, a, b),
            LBin::Sub => bin(BinOp::Sub, a, b),
            LBin::Mul => bin(BinOp::Mul, a, b),
            LBin::And => bin(BinOp::BitAnd, a, b),
            LBin::Or => bin(BinOp::BitOr, a, b),
            LBin::Xor => bin(BinOp::BitXor, a, b),
            LBin::Shl => bin(BinOp::Shl, a, b),
            LBin::LShr if bits < 64 => bin(BinOp::Shr, a, b),
            // A logical shift of 64 bits held as i64: mask off the sign's copies.
            LBin::LShr => bin(
                BinOp::BitAnd,
                bin(BinOp::Shr, a, b.clone()),
                Expr::Unary(
                    UnOp::BitNot,
                    Box::new(bin(
                        BinOp::Shl,
                        Expr::Const(-1),
                        bin(BinOp::Sub, Expr::Const(64), b),
                    )),
                ),
            ),
            LBin::AShr => bin(BinOp::Shr, sext(a, bits), b),
            // The model's integers are i64: a 64-bit operand's bits
            // divided as unsigned.
            LBin::UDiv if bits >= 64 => bin(BinOp::UDiv, a, b),
            LBin::URem if bits >= 64 => bin(BinOp::URem, a, b),
            LBin::UDiv => bin(BinOp::Div, a, b),
            LBin::URem => bin(BinOp::Rem, a, b),
            LBin::SDiv => bin(BinOp::Div, sext(a, bits), sext(b, bits)),
            LBin::SRem => bin(BinOp::Rem, sext(a, bits), sext(b, bits)),
            _ => unreachable!("floating-point operations are float_binary's"),
        };
        self.assign(instr, value)
    }

    /// `icmp PRED a, b`.
    pub(super) fn icmp(&mut self, instr: &Instr, pred: &str) -> R<()> {
        let Some(bits) = width(&instr.operands[0].ty) else {
            return self.pointer_null_test(instr, pred);
        };
        let a = self.int(&instr.operands[0])?;
        let b = self.int(&instr.operands[1])?;
        let (op, signed) = match pred {
            "eq" => (BinOp::Eq, None),
            "ne" => (BinOp::Ne, None),
            "ult" => (BinOp::Lt, Some(false)),
            "ule" => (BinOp::Le, Some(false)),
            "ugt" => (BinOp::Gt, Some(false)),
            "uge" => (BinOp::Ge, Some(false)),
            "slt" => (BinOp::Lt, Some(true)),
            "sle" => (BinOp::Le, Some(true)),
            "sgt" => (BinOp::Gt, Some(true)),
            "sge" => (BinOp::Ge, Some(true)),
            other => return self.refuse(format!("icmp {other}")),
        };
        let (a, b) = match signed {
            Some(true) => (sext(a, bits), sext(b, bits)),
            Some(false) if bits >= 64 => (flip(a), flip(b)),
            _ => (a, b),
        };
        self.assign(instr, bin(op, a, b))
    }

    /// `zext`, `sext`, `trunc` (pointer casts are `memory`'s).
    pub(super) fn cast(&mut self, instr: &Instr, op: CastOp) -> R<()> {
        let from = width(&instr.operands[0].ty);
        let v = match (op, from) {
            (CastOp::ZExt | CastOp::Trunc, Some(_)) => self.int(&instr.operands[0])?,
            (CastOp::SExt, Some(bits)) => sext(self.int(&instr.operands[0])?, bits),
            (CastOp::PtrToInt, _) => self.address(&instr.operands[0])?,
            (CastOp::IntToPtr, _) => {
                return self.refuse("an integer converted to a pointer: the model cannot follow it")
            }
            // Same bits, another type (float <-> int of its width).
            (CastOp::BitCast, Some(_)) if width(&instr.ty) == from => {
                self.int(&instr.operands[0])?
            }
            (
                CastOp::SIToFP
                | CastOp::UIToFP
                | CastOp::FPToSI
                | CastOp::FPToUI
                | CastOp::FPExt
                | CastOp::FPTrunc,
                Some(_),
            ) => self.float_cast(instr, op)?,
            _ => return self.refuse(format!("the conversion `{}`", op.name())),
        };
        self.assign(instr, v)
    }

    /// A pointer's address (`ptrtoint`, for code that hashes addresses,
    /// as desul's lock table does): one fixed layout, in which the k-th
    /// variable starts at `(k + 1) << ADDRESS_SHIFT`. Every variable is
    /// thus aligned far beyond any hash mask, so the element at byte
    /// offset `o` of any variable hashes as `o` does: the layout in which
    /// equal offsets of different buffers share a lock. A real allocator
    /// gives other layouts; the check holds for this one.
    fn address(&mut self, op: &Operand) -> R<Expr> {
        let p = self.ptr(op)?;
        self.address_of(&p)
    }

    /// `select c, a, b` of integers.
    pub(super) fn select(&mut self, instr: &Instr) -> R<()> {
        let c = self.int(&instr.operands[0])?;
        let a = self.int(&instr.operands[1])?;
        let b = self.int(&instr.operands[2])?;
        self.assign(instr, Expr::Ternary(Box::new(c), Box::new(a), Box::new(b)))
    }

    /// The value of `llvm.nvvm.read.ptx.sreg.NAME` for a 1-D launch.
    pub(super) fn special_register(&self, name: &str) -> Option<Expr> {
        let l = self.launch;
        Some(match name {
            "tid.x" => Expr::Builtin(Builtin::ThreadIdx),
            // A kernel launched after others numbers its blocks from 0.
            "ctaid.x" if self.first_block > 0 => Expr::Binary(
                crate::ir::BinOp::Sub,
                Box::new(Expr::Builtin(Builtin::BlockIdx)),
                Box::new(Expr::Const(i64::from(self.first_block))),
            ),
            "ctaid.x" => Expr::Builtin(Builtin::BlockIdx),
            "ntid.x" => Expr::Const(i64::from(l.threads_per_block)),
            "nctaid.x" => Expr::Const(i64::from(l.blocks)),
            "tid.y" | "tid.z" | "ctaid.y" | "ctaid.z" => Expr::Const(0),
            "ntid.y" | "ntid.z" | "nctaid.y" | "nctaid.z" => Expr::Const(1),
            "laneid" => Expr::Builtin(Builtin::LaneId),
            "warpsize" => Expr::Const(i64::from(l.warp_size)),
            // Time stands still in the model: every read of a clock gives
            // the same value. A back-off's length then has no effect (it
            // only delays, which the interleavings already cover); a loop
            // that waits for time itself to pass never ends, and a
            // time-out never fires (book: "Time").
            "clock" | "clock64" | "globaltimer" | "globaltimer_lo" | "globaltimer_hi" => {
                Expr::Const(0)
            }
            _ => return None,
        })
    }
}
