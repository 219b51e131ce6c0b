//! Inline PTX (`asm volatile(...)`): the memory instructions `ld`, `st`,
//! `atom`, `red`, `fence` and `membar`, with their orders and scopes, on
//! 32-bit values, and the named barriers `bar.sync a{, b}` and
//! `bar.arrive a, b` (the spec's `bar.sync(a, b)`); operands are `%N`
//! (outputs first, then inputs), literals for a barrier, and `[%N]` for an
//! address. PTX spells orders and scopes as the spec does.

use super::ast::{AsmStmt, CExpr};
use super::lower::syntax::{call, expr_stmt};
use super::lower::FnLower;
use crate::spec::ast::{self as s, Span};
use crate::spec::diag::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// One instruction, split into its opcode parts and operands.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Instruction {
    /// `atom.add.release.gpu.u32` → `["atom", "add", "release", "gpu", "u32"]`.
    pub parts: Vec<String>,
    pub operands: Vec<String>,
}

/// Splits an asm template into instructions (`;`-separated; braces and
/// blank pieces ignored).
pub(super) fn instructions(template: &str) -> Vec<Instruction> {
    template
        .split(';')
        .map(|i| i.replace(['{', '}'], " "))
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
        .map(|i| {
            let (op, rest) = i.split_once(char::is_whitespace).unwrap_or((&i, ""));
            Instruction {
                parts: op.split('.').map(str::to_string).collect(),
                operands: rest
                    .split(',')
                    .map(|o| o.trim().to_string())
                    .filter(|o| !o.is_empty())
                    .collect(),
            }
        })
        .collect()
}

/// What an instruction's qualifiers say.
#[derive(Debug, Default, PartialEq, Eq)]
struct Qualifiers {
    order: Option<&'static str>,
    scope: Option<&'static str>,
    op: Option<String>,
}

fn qualifiers(parts: &[String], span: Span) -> R<Qualifiers> {
    let mut q = Qualifiers::default();
    for p in &parts[1..] {
        match p.as_str() {
            "weak" => q.order = Some("weak"),
            "volatile" => q.order = Some("volatile"),
            "relaxed" => q.order = Some("relaxed"),
            "acquire" => q.order = Some("acquire"),
            "release" => q.order = Some("release"),
            "acq_rel" => q.order = Some("acq_rel"),
            "sc" => q.order = Some("sc"),
            "cta" => q.scope = Some("cta"),
            "gpu" | "gl" => q.scope = Some("gpu"),
            "sys" => q.scope = Some("sys"),
            "global" | "shared" | "generic" | "u32" | "s32" | "b32" => {}
            "u64" | "s64" | "b64" => {
                return Err(Diagnostic::new(span, "64-bit PTX operations are not modelled yet (issue 20)")
                    .label("64-bit"))
            }
            "add" | "exch" | "cas" | "inc" | "dec" | "and" | "or" | "xor" | "min" | "max" => {
                q.op = Some(p.clone())
            }
            other => {
                return Err(Diagnostic::new(span, format!("the PTX qualifier `.{other}` is outside the subset"))
                    .label("inline PTX")
                    .hint("ld, st, atom, red on 32-bit values with .relaxed/.acquire/.release/.acq_rel/.volatile and .cta/.gpu/.sys; fence.sc/acq_rel; membar"))
            }
        }
    }
    Ok(q)
}

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
            if matches!(ins.parts[0].as_str(), "bar" | "barrier") {
                self.ptx_barrier(&ins, &operands, span, out)?;
                continue;
            }
            let q = qualifiers(&ins.parts, span)?;
            let scope = q.scope.unwrap_or("gpu");
            match ins.parts[0].as_str() {
                "fence" => {
                    let o = match q.order {
                        Some("sc") => "sc",
                        Some("acq_rel" | "acquire" | "release") => "acq_rel",
                        _ => return Err(operands.refuse("this fence".into())),
                    };
                    out.push(expr_stmt(call("fence", &[o, scope], vec![], span)));
                }
                "membar" => out.push(expr_stmt(call("fence", &["sc", scope], vec![], span))),
                "ld" => {
                    let [dst, addr] = ins.operands.as_slice() else {
                        return Err(operands.refuse("this `ld`".into()));
                    };
                    let loc = self.ptx_location(operands.address(addr)?, span, out)?;
                    let order = q.order.unwrap_or("weak");
                    let value = call("load", &[order, scope], vec![loc], span);
                    self.store_output(operands.value(dst)?, value, out)?;
                }
                "st" => {
                    let [addr, src] = ins.operands.as_slice() else {
                        return Err(operands.refuse("this `st`".into()));
                    };
                    let loc = self.ptx_location(operands.address(addr)?, span, out)?;
                    let v = self.rvalue(operands.value(src)?, out)?;
                    let order = q.order.unwrap_or("weak");
                    out.push(expr_stmt(call(
                        "store",
                        &[order, scope],
                        vec![loc, v],
                        span,
                    )));
                }
                kind @ ("atom" | "red") => self.ptx_atomic(kind, &ins, &q, &operands, out)?,
                other => return Err(operands.refuse(format!("the instruction `{other}`"))),
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
        kind: &str,
        ins: &Instruction,
        q: &Qualifiers,
        operands: &Operands<'p>,
        out: &mut Vec<s::Stmt>,
    ) -> R<()> {
        let span = operands.span;
        let refuse = |what: String| operands.refuse(what);
        let op =
            q.op.clone()
                .ok_or_else(|| refuse(format!("this `{kind}`")))?;
        let name = PTX_ATOMICS
            .iter()
            .find(|(o, _)| *o == op)
            .map_or("atomicMax", |(_, n)| n);
        let ops = ins.operands.as_slice();
        let (dst, rest) = if kind == "atom" {
            let (d, r) = ops
                .split_first()
                .ok_or_else(|| refuse("this `atom`".into()))?;
            (Some(d), r)
        } else {
            (None, ops)
        };
        let (addr, values) = rest
            .split_first()
            .ok_or_else(|| refuse(format!("this `{kind}`")))?;
        if values.len() != if op == "cas" { 2 } else { 1 } {
            return Err(refuse(format!("this `{kind}.{op}`")));
        }
        let mut args = vec![self.ptx_location(operands.address(addr)?, span, out)?];
        for v in values {
            args.push(self.rvalue(operands.value(v)?, out)?);
        }
        let order = match q.order {
            None => "relaxed",
            Some(o @ ("relaxed" | "acquire" | "release" | "acq_rel")) => o,
            Some(o) => return Err(refuse(format!("the order `.{o}` on `{kind}`"))),
        };
        let scope = q.scope.unwrap_or("gpu");
        let c = call(name, &[order, scope], args, span);
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

/// PTX's atomic operations and the spec's atomics for them (`max`, the
/// last, stands for any other the qualifiers let through).
const PTX_ATOMICS: &[(&str, &str)] = &[
    ("add", "atomicAdd"),
    ("exch", "atomicExch"),
    ("cas", "atomicCAS"),
    ("inc", "atomicInc"),
    ("dec", "atomicDec"),
    ("and", "atomicAnd"),
    ("or", "atomicOr"),
    ("xor", "atomicXor"),
    ("min", "atomicMin"),
    ("max", "atomicMax"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_instructions_and_operands() {
        let i = instructions("atom.add.release.gpu.u32 %0,[%1],%2;");
        assert_eq!(i.len(), 1);
        assert_eq!(i[0].parts, ["atom", "add", "release", "gpu", "u32"]);
        assert_eq!(i[0].operands, ["%0", "[%1]", "%2"]);
        let two = instructions("{ fence.acq_rel.gpu;\n ld.relaxed.gpu.u32 %0, [%1]; }");
        assert_eq!(two.len(), 2);
        assert_eq!(two[0].parts, ["fence", "acq_rel", "gpu"]);
        assert_eq!(two[1].operands, ["%0", "[%1]"]);
    }

    #[test]
    fn reads_orders_scopes_and_refuses_the_rest() {
        let sp = Span::default();
        let q = qualifiers(
            &instructions("ld.acquire.sys.global.u32 %0, [%1];")[0].parts,
            sp,
        )
        .unwrap();
        assert_eq!((q.order, q.scope), (Some("acquire"), Some("sys")));
        assert!(qualifiers(&instructions("ld.global.u64 %0, [%1];")[0].parts, sp).is_err());
        assert!(qualifiers(&instructions("ld.global.nc.u32 %0, [%1];")[0].parts, sp).is_err());
    }
}
