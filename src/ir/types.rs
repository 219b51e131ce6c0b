//! The vocabulary the IR shares with the front ends: value types, storage
//! classes, who runs a harness and the operators. Defined here, below the
//! front ends, so that the IR and every layer under it (the model, the
//! reductions, the backends) read them without knowing any front end's
//! syntax tree; `spec::ast` names them for the parser.

use serde::{Deserialize, Serialize};

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Storage {
    /// `global`: device memory, one copy.
    Global,
    /// `shared`: block memory, one copy per block.
    Shared,
    /// `local` at top level: a thread-private variable that persists across calls.
    Local,
}

/// The value types of the language. All but the 64-bit ones fit in one
/// 32-bit word of the state; `u64` and `i64` take two (see `model::state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    Bool,
    U8,
    U16,
    U32,
    I8,
    I16,
    I32,
    U64,
    I64,
}

impl Type {
    pub fn bits(self) -> u32 {
        match self {
            Type::Bool => 1,
            Type::U8 | Type::I8 => 8,
            Type::U16 | Type::I16 => 16,
            Type::U32 | Type::I32 => 32,
            Type::U64 | Type::I64 => 64,
        }
    }

    /// The 32-bit words of the state one value takes: 2 for `u64`/`i64`.
    pub fn words(self) -> usize {
        if self.bits() > 32 {
            2
        } else {
            1
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Type::I8 | Type::I16 | Type::I32 | Type::I64)
    }

    /// The integer type of `bits` bits, signed or not, if there is one.
    pub fn int(bits: u32, signed: bool) -> Option<Type> {
        use Type::*;
        [U8, U16, U32, U64, I8, I16, I32, I64]
            .into_iter()
            .find(|t| t.bits() == bits && t.signed() == signed)
    }

    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "bool",
            Type::U8 => "u8",
            Type::U16 => "u16",
            Type::U32 => "u32",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::U64 => "u64",
            Type::I64 => "i64",
        }
    }
}

/// Which threads run a harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Participants {
    /// Thread 0 of every block runs the body; the others exit at once.
    Master,
    /// Every thread runs the body.
    All,
}

/// A binary operator (C's, on `i64`: see `ir::eval_binary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Or,
    And,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// An IEEE-754 operation on two floats held as their bits (`ir::float`).
    Float(FloatBin, Float),
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Float(op, _) => op.symbol(),
        }
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnOp {
    Not,
    Neg,
    BitNot,
    /// An IEEE-754 operation on a float held as its bits (`ir::float`).
    Float(FloatUn, Float),
    /// A conversion between integers and floats, or between float formats.
    Convert(Num, Num),
}

/// A floating-point format. A value is held as its bits: an `f32`
/// zero-extended in a `u32` local, an `f64` as the 64 bits of an `i64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Float {
    F32,
    F64,
}

impl Float {
    pub fn bits(self) -> u32 {
        match self {
            Float::F32 => 32,
            Float::F64 => 64,
        }
    }
}

/// A number type, one side of a conversion (`UnOp::Convert`). An integer
/// is read as its held value: sign-extended when `signed`, otherwise
/// zero-extended (a 64-bit unsigned one as the `i64`'s bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Num {
    Int { bits: u32, signed: bool },
    Float(Float),
}

/// An IEEE-754 binary operation, rounded to nearest even where it rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FloatBin {
    Add,
    Sub,
    Mul,
    Div,
    /// C's `fmod` (LLVM's `frem`): exact.
    Rem,
    /// LLVM's `minnum`/`maxnum` (`fminf`/`fmaxf`): a NaN operand gives the
    /// other one, and -0 is below +0.
    Min,
    Max,
    /// The first operand's magnitude with the second's sign.
    CopySign,
    /// A comparison (LLVM's `fcmp`): 1 or 0.
    Cmp(FCmp),
}

impl FloatBin {
    pub fn symbol(self) -> &'static str {
        match self {
            FloatBin::Add => "+.f",
            FloatBin::Sub => "-.f",
            FloatBin::Mul => "*.f",
            FloatBin::Div => "/.f",
            FloatBin::Rem => "fmod",
            FloatBin::Min => "fmin",
            FloatBin::Max => "fmax",
            FloatBin::CopySign => "copysign",
            FloatBin::Cmp(c) => c.name(),
        }
    }
}

/// An `fcmp` predicate as LLVM encodes it: the outcomes it holds for, one
/// bit each (`EQ`, `GT`, `LT`, `UNORDERED`: an operand is NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FCmp(pub u8);

impl FCmp {
    pub const EQ: u8 = 1;
    pub const GT: u8 = 2;
    pub const LT: u8 = 4;
    pub const UNORDERED: u8 = 8;
    /// LLVM's names, in the order of their encodings.
    const NAMES: [&'static str; 16] = [
        "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge",
        "ult", "ule", "une", "true",
    ];

    /// The predicate LLVM names `name` (`olt`, `une`, ...).
    pub fn from_name(name: &str) -> Option<FCmp> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        u8::try_from(i).ok().map(FCmp)
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[usize::from(self.0 & 15)]
    }
}

/// An IEEE-754 unary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FloatUn {
    /// The sign bit flipped (`fneg`), NaN included.
    Neg,
    /// The sign bit cleared.
    Abs,
    /// Correctly rounded, as IEEE defines it.
    Sqrt,
    Ceil,
    Floor,
    Trunc,
    /// To the nearest integer, ties to even (`rint`, `nearbyint`).
    RoundEven,
    /// To the nearest integer, ties away from zero (`round`).
    Round,
}
