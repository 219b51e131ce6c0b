//! Expressions to CUDA C++.
//!
//! The model evaluates every expression in 64-bit integers and wraps only
//! when a value is stored; C++ would wrap `unsigned` arithmetic at 32 bits
//! and compare signed against unsigned as unsigned. So each emitted
//! expression carries a class saying what C++ type it has, and an operator
//! widens its operands to `i64` exactly where 32-bit C++ arithmetic could
//! give a different answer. Comparisons of two small non-negative values
//! (the common case in spin loops) stay as written. Where C++ would leave
//! the result undefined (signed 64-bit overflow, a shift by a negative count
//! or by 64 or more, `INT64_MIN / -1`, a zero divisor) the operation is a
//! call of a helper of `arith.h`, which computes what the model does.

use crate::ir::{BinOp, Type, UnOp};
use crate::ir::{Builtin, Expr, InitExpr};

/// What C++ type an emitted expression has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Non-negative and below 2^32 (`unsigned`, `bool`, a small literal).
    Nat,
    /// A 32-bit `int` that may be negative.
    Signed,
    /// `long long` (`i64` in the generated code).
    Wide,
}

/// An emitted expression: its text (parenthesized unless atomic) and class.
#[derive(Clone, Debug)]
pub struct Code {
    pub text: String,
    pub class: Class,
}

impl Code {
    pub fn new(text: String, class: Class) -> Code {
        Code { text, class }
    }

    /// The value of a literal from 0 to `i32::MAX`, as [`literal`] writes it.
    fn small_literal(&self) -> Option<i64> {
        match self.text.bytes().all(|b| b.is_ascii_digit()) {
            true => self.text.parse().ok(),
            false => None,
        }
    }

    /// The text as an `i64` operand.
    pub fn wide(&self) -> String {
        match self.class {
            Class::Wide => self.text.clone(),
            _ => format!("(i64){}", self.text),
        }
    }

    /// The text without one pair of outer parentheses (for `if (...)`).
    pub fn bare(&self) -> &str {
        strip_parens(&self.text)
    }
}

fn strip_parens(s: &str) -> &str {
    if !(s.starts_with('(') && s.ends_with(')')) {
        return s;
    }
    // Only when the first '(' closes at the very end.
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i != s.len() - 1 {
                    return s;
                }
            }
            _ => {}
        }
    }
    &s[1..s.len() - 1]
}

/// The class of a value of `ty` as C++ holds it.
pub fn class_of(ty: Type) -> Class {
    if ty.signed() {
        Class::Signed
    } else {
        Class::Nat
    }
}

/// A literal.
pub fn literal(v: i64) -> Code {
    if (0..=i64::from(i32::MAX)).contains(&v) {
        Code::new(v.to_string(), Class::Nat)
    } else if (0..=i64::from(u32::MAX)).contains(&v) {
        Code::new(format!("{v}u"), Class::Nat)
    } else if (i64::from(i32::MIN)..0).contains(&v) {
        Code::new(format!("({v})"), Class::Signed)
    } else if v == i64::MIN {
        // `9223372036854775808LL` does not fit a `long long`.
        Code::new(format!("({}LL - 1)", v + 1), Class::Wide)
    } else {
        Code::new(format!("({v}LL)"), Class::Wide)
    }
}

/// The CUDA spelling of a launch builtin.
pub fn builtin(b: Builtin) -> &'static str {
    match b {
        Builtin::BlockIdx => "BLOCK_IDX",
        Builtin::ThreadIdx => "threadIdx.x",
        Builtin::LaneId => "(threadIdx.x % 32)",
        Builtin::WarpId => "(threadIdx.x / 32)",
    }
}

/// Emits a unary operator on an emitted operand (see [`binary`]).
pub fn unary(op: UnOp, a: Code) -> Code {
    match op {
        UnOp::Not => Code::new(format!("!{}", a.text), Class::Nat),
        // -INT64_MIN overflows; a 32-bit operand cannot.
        UnOp::Neg if a.class == Class::Wide => helper("gs_neg", &[&a]),
        UnOp::Neg => Code::new(format!("(-{})", a.wide()), Class::Wide),
        UnOp::BitNot => Code::new(format!("(~{})", a.wide()), Class::Wide),
        UnOp::Float(..) | UnOp::Convert(..) => float_arithmetic(&[&a]),
    }
}

/// Floating-point arithmetic: only a CUDA kernel's own program (the LLVM
/// front end's) has it, and that program is checked, never emitted. A
/// spec cannot write it, so this names a function the prelude leaves
/// undefined: a compile error, never a value unlike the model's.
fn float_arithmetic(operands: &[&Code]) -> Code {
    helper("gs_float_arithmetic_is_not_emitted", operands)
}

/// A call of an `arith.h` helper on `i64` operands.
fn helper(name: &str, operands: &[&Code]) -> Code {
    let args: Vec<String> = operands.iter().map(|c| c.wide()).collect();
    Code::new(format!("{name}({})", args.join(", ")), Class::Wide)
}

/// Emits a binary operator on emitted operands, defined in C++ for every
/// value the operands' classes allow and equal to the model's value.
pub fn binary(op: BinOp, a: Code, b: Code) -> Code {
    let sym = op.symbol();
    let plain = |class| Code::new(format!("({} {sym} {})", a.text, b.text), class);
    // One `i64` operand makes C++ do the whole operation in 64 bits.
    let widened = |class| {
        let left = if a.class == Class::Wide || b.class == Class::Wide {
            a.text.clone()
        } else {
            a.wide()
        };
        Code::new(format!("({left} {sym} {})", b.text), class)
    };
    let both_nat = a.class == Class::Nat && b.class == Class::Nat;
    let any_wide = a.class == Class::Wide || b.class == Class::Wide;
    // A literal divisor from 1 up can neither be zero nor -1.
    let safe_divisor = b.small_literal().is_some_and(|d| d > 0);
    // A count below 32 keeps a 32-bit operand's shift inside 64 bits.
    let small_count = b.small_literal().is_some_and(|s| s < 32);
    match op {
        BinOp::Or | BinOp::And => plain(Class::Nat),
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            if a.class == b.class {
                plain(Class::Nat)
            } else {
                widened(Class::Nat)
            }
        }
        // Cannot leave [0, 2^32) when both operands are in it.
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => match both_nat {
            true => plain(Class::Nat),
            false => widened(Class::Wide),
        },
        BinOp::Div | BinOp::Rem if safe_divisor && both_nat => plain(Class::Nat),
        BinOp::Div | BinOp::Rem if safe_divisor => widened(Class::Wide),
        BinOp::Div => helper("gs_div", &[&a, &b]),
        BinOp::Rem => helper("gs_rem", &[&a, &b]),
        BinOp::Shr if small_count && a.class == Class::Nat => plain(Class::Nat),
        BinOp::Shl if small_count && a.class == Class::Nat => widened(Class::Wide),
        BinOp::Shl => helper("gs_shl", &[&a, &b]),
        BinOp::Shr => helper("gs_shr", &[&a, &b]),
        // Two 32-bit operands cannot overflow 64 bits, except a product of
        // two unsigned ones.
        BinOp::Add if any_wide => helper("gs_add", &[&a, &b]),
        BinOp::Sub if any_wide => helper("gs_sub", &[&a, &b]),
        BinOp::Mul if any_wide || both_nat => helper("gs_mul", &[&a, &b]),
        BinOp::Add | BinOp::Sub | BinOp::Mul => widened(Class::Wide),
        BinOp::Float(..) => float_arithmetic(&[&a, &b]),
    }
}

fn ternary(c: Code, a: Code, b: Code) -> Code {
    if a.class == b.class {
        Code::new(format!("({} ? {} : {})", c.text, a.text, b.text), a.class)
    } else {
        Code::new(
            format!("({} ? {} : {})", c.text, a.wide(), b.wide()),
            Class::Wide,
        )
    }
}

/// Emits an IR expression; `local` names a thread-local slot and gives its type.
pub fn emit(e: &Expr, local: &dyn Fn(u32) -> (String, Type)) -> Code {
    match e {
        Expr::Const(v) => literal(*v),
        Expr::Local(l) => {
            let (name, ty) = local(*l);
            Code::new(name, class_of(ty))
        }
        Expr::Builtin(b) => Code::new(builtin(*b).to_string(), Class::Nat),
        Expr::Unary(op, a) => unary(*op, emit(a, local)),
        Expr::Binary(op, a, b) => binary(*op, emit(a, local), emit(b, local)),
        Expr::Ternary(c, a, b) => ternary(emit(c, local), emit(a, local), emit(b, local)),
        Expr::Fma(_, abc) => {
            let [a, b, c] = abc.each_ref().map(|x| emit(x, local));
            float_arithmetic(&[&a, &b, &c])
        }
        // Invariants over memory are checked by the host, never emitted.
        Expr::Global(..) => Code::new("0 /* memory read in an invariant */".into(), Class::Nat),
    }
}

/// Emits a constant expression of the spec (an initial value): parameters
/// and launch constants by name (the generated file defines them), the
/// thread's coordinates as builtins.
pub fn emit_const(e: &InitExpr) -> Code {
    match e {
        InitExpr::Const(v) => literal(*v),
        // Parameters and launch constants are `constexpr i64` in the file.
        InitExpr::Named(name) => Code::new(name.clone(), Class::Wide),
        InitExpr::Builtin(b) => Code::new(builtin(*b).to_string(), Class::Nat),
        InitExpr::Unary(op, a) => unary(*op, emit_const(a)),
        InitExpr::Binary(op, a, b) => binary(*op, emit_const(a), emit_const(b)),
        InitExpr::Ternary(c, a, b) => ternary(emit_const(c), emit_const(a), emit_const(b)),
    }
}

/// `value` converted to a variable of `ty`, wrapping as a store does.
pub fn wrap_to(ty: Type, value: &Code) -> String {
    match (ty, value.class) {
        (Type::Bool, _) if value.text == "0" => "false".to_string(),
        (Type::Bool, _) if value.text == "1" => "true".to_string(),
        (Type::Bool, _) => format!("({} != 0)", value.bare()),
        (Type::U32, Class::Nat) | (Type::I32, Class::Signed) => value.bare().to_string(),
        _ => format!("({}){}", cuda_type(ty), value.text),
    }
}

/// The C++ type of a thread-local of `ty`.
pub fn cuda_type(ty: Type) -> &'static str {
    match ty {
        Type::Bool => "bool",
        Type::U8 => "unsigned char",
        Type::U16 => "unsigned short",
        Type::U32 => "unsigned int",
        Type::I8 => "signed char",
        Type::I16 => "short",
        Type::I32 => "int",
        Type::U64 => "unsigned long long",
        Type::I64 => "long long",
    }
}

/// The word type a memory variable of `ty` is kept in: 32 bits, or 64 for
/// `u64` and `i64`.
pub fn word_type(ty: Type) -> &'static str {
    match (ty.words(), ty.signed()) {
        (2, true) => "long long",
        (2, false) => "unsigned long long",
        (_, true) => "int",
        (_, false) => "unsigned int",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    fn local(l: u32) -> (String, Type) {
        match l {
            0 => ("a".into(), Type::U32),
            _ => ("b".into(), Type::I32),
        }
    }

    #[test]
    fn unsigned_comparisons_stay_plain_and_mixed_ones_widen() {
        let e = binary(BinOp::Ne, Expr::Local(0), Expr::Const(3));
        assert_eq!(emit(&e, &local).bare(), "a != 3");
        let e = binary(BinOp::Lt, Expr::Local(0), Expr::Local(1));
        assert_eq!(emit(&e, &local).bare(), "(i64)a < b");
    }

    #[test]
    fn subtraction_is_done_in_64_bits() {
        let e = binary(BinOp::Sub, Expr::Const(1), Expr::Local(0));
        let c = emit(&e, &local);
        assert_eq!(c.text, "((i64)1 - a)");
        assert_eq!(c.class, Class::Wide);
        assert_eq!(wrap_to(Type::U8, &c), "(unsigned char)((i64)1 - a)");
    }

    #[test]
    fn literals_get_suffixes_outside_int() {
        assert_eq!(literal(7).text, "7");
        assert_eq!(literal(0xFFFF_FFFF).text, "4294967295u");
        assert_eq!(literal(-1).class, Class::Signed);
        assert_eq!(literal(1 << 40).class, Class::Wide);
    }
}
