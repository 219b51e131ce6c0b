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
    /// Unsigned 64-bit division and remainder of the operands' bits
    /// (PTX `div.u64`/`rem.u64`): what LLVM's `udiv`/`urem` of `i64` are.
    UDiv,
    URem,
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
            BinOp::UDiv => "/u",
            BinOp::URem => "%u",
        }
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnOp {
    Not,
    Neg,
    BitNot,
}
