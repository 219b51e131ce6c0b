//! Expression evaluation against a packed state.

use super::{Model, Violation, ViolationKind};
use crate::ir::{from_raw, Builtin, Expr};

impl Model<'_> {
    /// Evaluates a pure expression for thread `t`.
    pub(super) fn eval(&self, e: &Expr, s: &[u32], t: usize) -> Result<i64, Violation> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Local(l) => {
                let ty = self.prog.locals[*l as usize].ty;
                from_raw(ty, s[self.layout.local(t, *l)])
            }
            Expr::Builtin(b) => {
                let launch = self.prog.launch;
                let in_block = (t as u32) % launch.threads_per_block;
                i64::from(match b {
                    Builtin::BlockIdx => t as u32 / launch.threads_per_block,
                    Builtin::ThreadIdx => in_block,
                    Builtin::LaneId => in_block % launch.warp_size,
                    Builtin::WarpId => in_block / launch.warp_size,
                })
            }
            Expr::Unary(op, a) => crate::ir::eval_unary(*op, self.eval(a, s, t)?),
            Expr::Binary(op, a, b) => {
                let x = self.eval(a, s, t)?;
                let y = self.eval(b, s, t)?;
                crate::ir::eval_binary(*op, x, y)
                    .map_err(|fault| runtime_error(&fault.to_string()))?
            }
            Expr::Ternary(c, a, b) => {
                if self.eval(c, s, t)? != 0 {
                    self.eval(a, s, t)?
                } else {
                    self.eval(b, s, t)?
                }
            }
            Expr::Global(var, index) => {
                let i = match index {
                    Some(i) => self.index(*var, self.eval(i, s, t)?)?,
                    None => 0,
                };
                let ty = self.prog.vars[*var as usize].ty;
                from_raw(ty, s[self.layout.mem(self.prog, *var, i, 0)])
            }
        })
    }

    /// Checks an array index against the variable's length.
    pub(super) fn index(&self, var: u32, i: i64) -> Result<u32, Violation> {
        let v = &self.prog.vars[var as usize];
        if i < 0 || i >= v.len as i64 {
            return Err(runtime_error(&format!(
                "index {i} is out of bounds for `{}` of length {}",
                v.name, v.len
            )));
        }
        Ok(i as u32)
    }
}

/// An error of the spec at run time (division by zero, a negative shift
/// count, an index out of bounds).
pub(super) fn runtime_error(message: &str) -> Violation {
    Violation {
        kind: ViolationKind::Assertion,
        property: "runtime",
        message: message.to_string(),
        pc: None,
    }
}
