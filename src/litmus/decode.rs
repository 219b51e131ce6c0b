//! What a litmus instruction says, read the same way by both of its
//! translations (to the IR for the model,
//! [`super::translate`](mod@super::translate); to CUDA for the GPU,
//! [`super::gpu::instr`]): its operands by position and kind, the
//! names of its atomic and arithmetic operations, and the refusal of what
//! cannot be expressed, located at the instruction.

use super::parse::{Instr, Operand};
use crate::diag::Span;
use crate::ir::BinOp;
use crate::ir::{AtomicOp, Scope};

/// Why a test cannot be expressed, with the text responsible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub reason: String,
    pub span: Span,
}

pub(crate) fn unsupported<T>(span: Span, reason: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported {
        reason: reason.into(),
        span,
    })
}

/// PTX's atomic operations as litmus tests name them.
const ATOMIC_OPS: &[(&str, AtomicOp)] = &[
    ("add", AtomicOp::Add),
    ("sub", AtomicOp::Sub),
    ("exch", AtomicOp::Exch),
    ("cas", AtomicOp::Cas),
    ("inc", AtomicOp::Inc),
    ("dec", AtomicOp::Dec),
    ("and", AtomicOp::And),
    ("or", AtomicOp::Or),
    ("xor", AtomicOp::Xor),
    ("max", AtomicOp::Max),
    ("min", AtomicOp::Min),
];

/// The value `name` has in `table`.
fn lookup<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The atomic operation a qualifier names (`atom.add`).
pub(crate) fn atomic_op(name: &str) -> Option<AtomicOp> {
    lookup(ATOMIC_OPS, name)
}

/// PTX's name of an atomic operation (the inverse of [`atomic_op`]).
#[cfg(feature = "gpu")] // only the GPU emitter spells these back
pub(crate) fn atomic_name(op: AtomicOp) -> &'static str {
    ATOMIC_OPS
        .iter()
        .find(|(_, o)| *o == op)
        .map(|(n, _)| *n)
        .expect("every atomic has a PTX name")
}

/// The operator of an arithmetic instruction's opcode (`add r1, r2, 1`).
pub(crate) fn arith_op(head: &str) -> Option<BinOp> {
    Some(match head {
        "add" => BinOp::Add,
        "sub" => BinOp::Sub,
        "mul" => BinOp::Mul,
        "and" => BinOp::BitAnd,
        "or" => BinOp::BitOr,
        "xor" => BinOp::BitXor,
        _ => return None,
    })
}

/// The comparison of a conditional branch: `beq` or `bne`.
pub(crate) fn branch_cmp(head: &str) -> Option<BinOp> {
    lookup(&[("beq", BinOp::Eq), ("bne", BinOp::Ne)], head)
}

/// The scope of the old `membar.{cta,gl,sys}`.
pub(crate) fn membar_scope(qualifier: &str) -> Option<Scope> {
    lookup(
        &[("cta", Scope::Cta), ("gl", Scope::Gpu), ("sys", Scope::Sys)],
        qualifier,
    )
}

/// Whether the instruction is a jump (its name operands are labels, not
/// locations).
#[cfg(feature = "gpu")] // only the GPU emitter spells these back
pub(crate) fn is_jump(instr: &Instr) -> bool {
    matches!(instr.opcode[0].as_str(), "goto" | "bra" | "beq" | "bne")
}

impl Instr {
    /// The opcode as written: `atom.acquire.gpu.add`.
    pub fn text(&self) -> String {
        self.opcode.join(".")
    }

    /// Refuses this instruction for `reason`.
    pub fn refuse<T>(&self, reason: impl Into<String>) -> Result<T, Unsupported> {
        unsupported(self.span, reason)
    }

    /// Refuses an instruction with other than `n` operands.
    pub fn arity(&self, n: usize) -> Result<(), Unsupported> {
        if self.operands.len() == n {
            Ok(())
        } else {
            self.refuse(format!(
                "`{}` expects {n} operands, found {}",
                self.text(),
                self.operands.len()
            ))
        }
    }

    /// The label operand `i` names (`refusal` if it is not a name).
    pub fn label(&self, i: usize, refusal: &str) -> Result<&str, Unsupported> {
        match &self.operands[i] {
            Operand::Name(label) => Ok(label),
            _ => self.refuse(refusal),
        }
    }

    /// The register of operand `i`, if there is one.
    pub fn register(&self, i: usize) -> Result<&str, Unsupported> {
        match self.operands.get(i) {
            Some(Operand::Reg(r)) => Ok(r),
            _ => self.refuse("expected a register operand"),
        }
    }

    /// The location operand `i` names, if there is one.
    pub fn location(&self, i: usize) -> Result<&str, Unsupported> {
        match self.operands.get(i) {
            Some(Operand::Name(n)) => Ok(n),
            _ => self.refuse("expected a memory location operand"),
        }
    }
}
