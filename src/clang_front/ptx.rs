//! Inline PTX (`asm volatile(...)`): the memory instructions `ld`, `st`,
//! `atom`, `red`, `fence` and `membar`, with their orders and scopes, on
//! 32-bit values, and the named barriers `bar.sync a{, b}` and
//! `bar.arrive a, b` (the spec's `bar.sync(a, b)`); operands are `%N`
//! (outputs first, then inputs), literals for a barrier, and `[%N]` for an
//! address. The instruction text is read by `ir::ptx` (shared with the
//! LLVM route); this module binds the operands and writes the spec's calls
//! (PTX spells orders and scopes as the spec does).

use super::ast::{AsmStmt, CExpr};
use super::lower::syntax::{call, expr_stmt};
use super::lower::FnLower;
use crate::diag::Diagnostic;
use crate::ir::ptx::{self, instructions, Instruction, Ptx};
use crate::ir::{order_name, scope_name};
use crate::ir::{AtomicOp, MemOrder};
use crate::spec::ast::{self as s, Span};

type R<T> = Result<T, Diagnostic>;

/// An `asm` statement's operands: `%N` (outputs first, then inputs) and
/// `[%N]` for an address.
struct Operands<'p> {
    exprs: Vec<&'p CExpr>,
    span: Span,
}

impl<'p> Operands<'p> {
    fn refuse(&self, what: String) -> Diagnostic {
        Diagnostic::new(
            self.span,
            format!("{what} in inline PTX is outside the subset"),
        )
        .label("inline PTX")
        .hint("ld, st, atom, red, fence and membar on 32-bit values, and bar.sync/bar.arrive, are supported")
    }

    /// The expression `%N` names.
    fn value(&self, text: &str) -> R<&'p CExpr> {
        let n = text
            .trim()
            .strip_prefix('%')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < self.exprs.len());
        n.map(|n| self.exprs[n])
            .ok_or_else(|| self.refuse(format!("the operand `{text}`")))
    }

    /// The pointer `[%N]` names.
    fn address(&self, text: &str) -> R<&'p CExpr> {
        let inner = text
            .trim()
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'));
        self.value(inner.ok_or_else(|| self.refuse(format!("the address `{text}`")))?)
    }
}

impl<'p> FnLower<'_, 'p> {
    /// Lowers an `asm` statement to memory operations.
    pub(super) fn asm(&mut self, a: &'p AsmStmt, span: Span, out: &mut Vec<s::Stmt>) -> R<()> {
        let operands = Operands {
            exprs: a.outputs.iter().chain(&a.inputs).map(|(_, e)| e).collect(),
            span,
        };
        for ins in instructions(&a.template) {
            let what = ptx::parse(&ins).map_err(|why| {
                Diagnostic::new(span, format!("{why} in inline PTX is outside the subset"))
                    .label("inline PTX")
                    .hint(HINT)
            })?;
            match what {
                Ptx::Fence(m) => {
                    let (o, s) = names(m);
                    out.push(expr_stmt(call("fence", &[o, s], vec![], span)));
                }
                Ptx::Barrier { .. } => self.ptx_barrier(&ins, &operands, span, out)?,
                Ptx::Ld(acc) => {
                    let [dst, addr] = ins.operands.as_slice() else {
                        return Err(operands.refuse("this `ld`".into()));
                    };
                    thirty_two(acc.bits, span)?;
                    let loc = self.ptx_location(operands.address(addr)?, span, out)?;
                    let (o, s) = names(acc.order);
                    let value = call("load", &[o, s], vec![loc], span);
                    self.store_output(operands.value(dst)?, value, out)?;
                }
                Ptx::St(acc) => {
                    let [addr, src] = ins.operands.as_slice() else {
                        return Err(operands.refuse("this `st`".into()));
                    };
                    thirty_two(acc.bits, span)?;
                    let loc = self.ptx_location(operands.address(addr)?, span, out)?;
                    let v = self.rvalue(operands.value(src)?, out)?;
                    let (o, s) = names(acc.order);
                    out.push(expr_stmt(call("store", &[o, s], vec![loc, v], span)));
                }
                Ptx::Atom {
                    op,
                    access,
                    returns,
                } => {
                    thirty_two(access.bits, span)?;
                    self.ptx_atomic(op, access.order, returns, &ins, &operands, out)?;
                }
                _ => return Err(operands.refuse(format!("the instruction `{}`", ins.opcode()))),
            }
        }
        Ok(())
    }

    /// `bar{.cta}.sync a{, b}` or `bar{.cta}.arrive a, b`: the barrier id
    /// and thread count as literals or `%N` operands.
    fn ptx_barrier(
        &mut self,
        ins: &Instruction,
        operands: &Operands<'p>,
        span: Span,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let words: Vec<&str> = ins.parts[1..].iter().map(String::as_str).collect();
        let kind = match words.as_slice() {
            ["sync"] | ["cta", "sync"] | ["sync", "aligned"] | ["cta", "sync", "aligned"] => "sync",
            ["arrive"]
            | ["cta", "arrive"]
            | ["arrive", "aligned"]
            | ["cta", "arrive", "aligned"] => "arrive",
            _ => return Err(operands.refuse(format!("the barrier `{}`", ins.parts.join(".")))),
        };
        if !(1..=2).contains(&ins.operands.len()) {
            return Err(
                operands.refuse(format!("`bar.{kind}` with {} operands", ins.operands.len()))
            );
        }
        let mut args = Vec::new();
        for o in &ins.operands {
            args.push(match o.parse::<i64>() {
                Ok(v) => super::lower::syntax::int(v, span),
                Err(_) => self.rvalue(operands.value(o)?, out)?,
            });
        }
        out.push(expr_stmt(call("bar", &[kind], args, span)));
        Ok(())
    }

    /// `atom` (with a destination) or `red` (without).
    fn ptx_atomic(
        &mut self,
        op: AtomicOp,
        order: MemOrder,
        returns: bool,
        ins: &Instruction,
        operands: &Operands<'p>,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let span = operands.span;
        let this = || operands.refuse(format!("this `{}`", ins.opcode()));
        let ops = ins.operands.as_slice();
        let (dst, rest) = if returns {
            let (d, r) = ops.split_first().ok_or_else(this)?;
            (Some(d), r)
        } else {
            (None, ops)
        };
        let (addr, values) = rest.split_first().ok_or_else(this)?;
        if values.len() != op.operands() {
            return Err(this());
        }
        let mut args = vec![self.ptx_location(operands.address(addr)?, span, out)?];
        for v in values {
            args.push(self.rvalue(operands.value(v)?, out)?);
        }
        let (o, s) = names(order);
        let c = call(op.cuda_name(), &[o, s], args, span);
        match dst {
            Some(d) => self.store_output(operands.value(d)?, c, out),
            None => {
                out.push(expr_stmt(c));
                Ok(())
            }
        }
    }

    /// The location an address operand points to.
    fn ptx_location(&mut self, p: &'p CExpr, span: Span, out: &mut Vec<s::Stmt>) -> R<s::Expr> {
        let (target, offset) = self.pointer_arg(p, out)?;
        self.location(&target, offset, span, out)
    }
}

const HINT: &str = "ld, st, atom, red on 32-bit values with .relaxed/.acquire/.release/.acq_rel/.volatile and .cta/.gpu/.sys; fence.sc/acq_rel; membar; bar.sync/bar.arrive";

/// The spec's spelling of an order and scope.
fn names(m: MemOrder) -> (&'static str, &'static str) {
    (order_name(m.order), scope_name(m.scope))
}

/// This route's PTX accesses are 32-bit.
fn thirty_two(bits: u32, span: Span) -> R<()> {
    if bits == 32 {
        return Ok(());
    }
    Err(Diagnostic::new(
        span,
        format!("{bits}-bit PTX operations are not modelled on this route yet (issue 20)"),
    )
    .label(format!("{bits}-bit"))
    .hint(HINT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_orders_scopes_and_refuses_the_rest() {
        let ins = &instructions("ld.acquire.sys.global.u32 %0, [%1];")[0];
        let Ok(Ptx::Ld(a)) = ptx::parse(ins) else {
            panic!("ld")
        };
        assert_eq!(names(a.order), ("acquire", "sys"));
        assert!(thirty_two(64, Span::default()).is_err());
        assert!(ptx::parse(&instructions("ld.global.nc.u32 %0, [%1];")[0]).is_err());
    }
}
