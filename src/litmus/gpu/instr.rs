//! One litmus instruction as CUDA: memory accesses, atomics, fences and
//! barriers as inline PTX with their orders and scopes as written (a type
//! is added: every location is a 32-bit word), register arithmetic and
//! branches as C. Two forms PTX does not have are rewritten to the closest
//! one that means the same: `atom.sub`/`red.sub` (PTX has no `sub`) as an
//! `add` of the negated value, and `red` with an acquiring order (PTX's
//! `red` is relaxed or release only) as an `atom` of that order whose result
//! is dropped.

use super::super::parse::{Instr, Operand};
use super::super::translate::Unsupported;
use crate::spec::ast::Span;
use std::collections::BTreeMap;

/// What an instruction needs from its thread's code.
pub struct Scope<'a> {
    /// C name of the pointer to each location of the instance.
    pub locations: &'a BTreeMap<String, String>,
    /// Statement index of each label of the thread.
    pub labels: &'a BTreeMap<String, usize>,
    /// Statement index of this instruction.
    pub at: usize,
}

fn unsupported<T>(span: Span, reason: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported {
        reason: reason.into(),
        span,
    })
}

/// C name of a litmus register.
pub fn reg_name(r: &str) -> String {
    format!("reg_{r}")
}

/// C name of a label.
pub fn label_name(l: &str) -> String {
    format!("L_{l}")
}

/// A value operand as a C expression of type `u32`.
fn value(op: &Operand, instr: &Instr) -> Result<String, Unsupported> {
    match op {
        Operand::Imm(v) => Ok(format!("(u32)({v}LL)")),
        Operand::Reg(r) => Ok(reg_name(r)),
        Operand::Name(n) => unsupported(instr.span, format!("`{n}` used as a value")),
    }
}

fn register(op: Option<&Operand>, instr: &Instr) -> Result<String, Unsupported> {
    match op {
        Some(Operand::Reg(r)) => Ok(reg_name(r)),
        _ => unsupported(instr.span, "expected a register operand"),
    }
}

fn location(op: Option<&Operand>, instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    match op {
        Some(Operand::Name(n)) => Ok(s.locations[n].clone()),
        _ => unsupported(instr.span, "expected a memory location operand"),
    }
}

fn arity(instr: &Instr, n: usize) -> Result<(), Unsupported> {
    if instr.operands.len() == n {
        Ok(())
    } else {
        unsupported(
            instr.span,
            format!(
                "`{}` expects {n} operands, found {}",
                instr.opcode.join("."),
                instr.operands.len()
            ),
        )
    }
}

/// The qualifiers of a memory instruction, sorted into PTX's order.
#[derive(Default)]
struct Quals {
    sem: Option<String>,
    scope: Option<String>,
    space: Option<String>,
    op: Option<String>,
    ty: Option<String>,
}

impl Quals {
    fn read(instr: &Instr, sems: &[&str], ops: &[&str]) -> Result<Quals, Unsupported> {
        let mut q = Quals::default();
        for s in &instr.opcode[1..] {
            let slot = match s.as_str() {
                x if sems.contains(&x) => &mut q.sem,
                "cta" | "gpu" | "sys" => &mut q.scope,
                "global" => &mut q.space,
                x if ops.contains(&x) => &mut q.op,
                "u32" | "s32" | "b32" => &mut q.ty,
                x if x.ends_with("64") => {
                    return unsupported(instr.span, format!("64-bit access `.{x}`"))
                }
                x => {
                    return unsupported(
                        instr.span,
                        format!("qualifier `.{x}` of `{}`", instr.opcode.join(".")),
                    )
                }
            };
            if slot.replace(s.clone()).is_some() {
                return unsupported(instr.span, format!("`.{s}` twice"));
            }
        }
        let scoped = matches!(
            q.sem.as_deref(),
            Some("relaxed" | "acquire" | "release" | "acq_rel" | "sc")
        );
        if scoped && q.scope.is_none() && instr.opcode[0] != "atom" && instr.opcode[0] != "red" {
            return unsupported(
                instr.span,
                "a relaxed, acquire or release access needs a scope",
            );
        }
        Ok(q)
    }

    /// `head.sem.scope.space.op.type`, the type defaulting to `ty`.
    fn ptx(&self, head: &str, op: Option<&str>, ty: &str) -> String {
        let mut parts = vec![head];
        parts.extend(self.sem.as_deref());
        parts.extend(self.scope.as_deref());
        parts.extend(self.space.as_deref());
        parts.extend(op);
        parts.push(self.ty.as_deref().unwrap_or(ty));
        parts.join(".")
    }
}

const ATOMIC_OPS: &[&str] = &[
    "add", "sub", "exch", "cas", "inc", "dec", "and", "or", "xor", "max", "min",
];

/// The CUDA statement(s) for one instruction.
pub fn lower(instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    match instr.opcode[0].as_str() {
        "ld" => load(instr, s),
        "st" => store(instr, s),
        "atom" | "red" => atomic(instr, s),
        "fence" | "membar" => fence(instr),
        "bar" | "barrier" => barrier(instr),
        "goto" | "bra" => jump(instr, s),
        "beq" | "bne" => branch(instr, s),
        "mov" | "add" | "sub" | "mul" | "and" | "or" | "xor" => arith(instr),
        _ => unsupported(
            instr.span,
            format!("instruction `{}`", instr.opcode.join(".")),
        ),
    }
}

fn load(instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    arity(instr, 2)?;
    let dst = register(instr.operands.first(), instr)?;
    if instr.opcode.len() == 1 && !matches!(instr.operands[1], Operand::Name(_)) {
        // herd's `ld r0, 1`: a register move.
        return Ok(format!("{dst} = {};", value(&instr.operands[1], instr)?));
    }
    let q = Quals::read(instr, &["weak", "relaxed", "acquire", "volatile"], &[])?;
    let loc = location(instr.operands.get(1), instr, s)?;
    Ok(format!(
        "asm volatile(\"{} %0, [%1];\" : \"=r\"({dst}) : \"l\"({loc}) : \"memory\");",
        q.ptx("ld", None, "u32")
    ))
}

fn store(instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    arity(instr, 2)?;
    let q = Quals::read(instr, &["weak", "relaxed", "release", "volatile"], &[])?;
    let loc = location(instr.operands.first(), instr, s)?;
    let v = value(&instr.operands[1], instr)?;
    Ok(format!(
        "asm volatile(\"{} [%0], %1;\" :: \"l\"({loc}), \"r\"({v}) : \"memory\");",
        q.ptx("st", None, "u32")
    ))
}

fn atomic(instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    let head = instr.opcode[0].as_str();
    let mut q = Quals::read(
        instr,
        &["relaxed", "acquire", "release", "acq_rel"],
        ATOMIC_OPS,
    )?;
    let Some(op) = q.op.take() else {
        return unsupported(instr.span, "an atomic without an operation");
    };
    let inputs = match op.as_str() {
        "cas" => 2,
        _ => 1,
    };
    let (dst, rest) = if head == "atom" {
        arity(instr, 2 + inputs)?;
        (
            Some(register(instr.operands.first(), instr)?),
            &instr.operands[1..],
        )
    } else {
        arity(instr, 1 + inputs)?;
        (None, &instr.operands[..])
    };
    let loc = location(rest.first(), instr, s)?;
    let mut args: Vec<String> = rest[1..]
        .iter()
        .map(|o| value(o, instr))
        .collect::<Result<_, _>>()?;
    let op = if op == "sub" {
        args[0] = format!("(0u - {})", args[0]);
        "add".to_string()
    } else {
        op
    };
    let ty = match op.as_str() {
        "add" | "inc" | "dec" => "u32",
        "max" | "min" => "s32",
        _ => "b32",
    };
    // PTX's red is relaxed or release: an acquiring one is an atom whose
    // result nobody reads.
    let acquiring = matches!(q.sem.as_deref(), Some("acquire" | "acq_rel"));
    let as_atom = head == "atom" || acquiring;
    let text = q.ptx(if as_atom { "atom" } else { "red" }, Some(&op), ty);
    let n = args.len();
    let ins: Vec<String> = (0..n)
        .map(|k| format!("%{}", k + 1 + usize::from(as_atom)))
        .collect();
    let consts = args
        .iter()
        .map(|a| format!("\"r\"({a})"))
        .collect::<Vec<_>>()
        .join(", ");
    if as_atom {
        let dst = dst.unwrap_or_else(|| "lt_dropped".to_string());
        let decl = if head == "red" {
            "u32 lt_dropped; "
        } else {
            ""
        };
        Ok(format!(
            "{{ {decl}asm volatile(\"{text} %0, [%1], {};\" : \"=r\"({dst}) : \"l\"({loc}), {consts} : \"memory\"); }}",
            ins.join(", ")
        ))
    } else {
        Ok(format!(
            "asm volatile(\"{text} [%0], {};\" :: \"l\"({loc}), {consts} : \"memory\");",
            ins.join(", ")
        ))
    }
}

fn fence(instr: &Instr) -> Result<String, Unsupported> {
    arity(instr, 0)?;
    let text = instr.opcode.join(".");
    let ok = match instr.opcode.as_slice() {
        [m, s] if m == "membar" => matches!(s.as_str(), "cta" | "gl" | "sys"),
        [f, sem, scope] if f == "fence" => {
            matches!(sem.as_str(), "sc" | "acq_rel")
                && matches!(scope.as_str(), "cta" | "gpu" | "sys")
        }
        _ => false,
    };
    if !ok {
        return unsupported(instr.span, format!("fence `{text}`"));
    }
    Ok(format!("asm volatile(\"{text};\" ::: \"memory\");"))
}

/// A whole-CTA barrier (the translation's `check_barriers` accepted it):
/// over the testing threads of this CTA role in the block.
fn barrier(instr: &Instr) -> Result<String, Unsupported> {
    let id = match instr.operands.first() {
        Some(Operand::Imm(v)) if (0..16).contains(v) => *v,
        None => 0,
        _ => return unsupported(instr.span, "barrier id must be a constant 0-15"),
    };
    Ok(format!("lt_bar({id}u, c);"))
}

/// `goto L`: a jump back to an earlier label is a spin loop's back edge,
/// which stops being taken once the thread runs out of time.
fn goto(label: &str, s: &Scope, cond: &str) -> Result<String, String> {
    let Some(&target) = s.labels.get(label) else {
        return Err(format!("no label `{label}`"));
    };
    let back = target <= s.at;
    let mut guard = cond.to_string();
    if back {
        guard = if guard.is_empty() {
            "lt_spin(c)".into()
        } else {
            format!("({guard}) && lt_spin(c)")
        };
    }
    let l = label_name(label);
    Ok(if guard.is_empty() {
        format!("goto {l};")
    } else {
        format!("if ({guard}) goto {l};")
    })
}

fn jump(instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    arity(instr, 1)?;
    let Operand::Name(l) = &instr.operands[0] else {
        return unsupported(instr.span, "expected a label");
    };
    goto(l, s, "").or_else(|e| unsupported(instr.span, e))
}

fn branch(instr: &Instr, s: &Scope) -> Result<String, Unsupported> {
    arity(instr, 3)?;
    let a = value(&instr.operands[0], instr)?;
    let b = value(&instr.operands[1], instr)?;
    let Operand::Name(l) = &instr.operands[2] else {
        return unsupported(instr.span, "expected a label as the last operand");
    };
    let cmp = if instr.opcode[0] == "beq" { "==" } else { "!=" };
    goto(l, s, &format!("{a} {cmp} {b}")).or_else(|e| unsupported(instr.span, e))
}

fn arith(instr: &Instr) -> Result<String, Unsupported> {
    let head = instr.opcode[0].as_str();
    let dst = register(instr.operands.first(), instr)?;
    if head == "mov" {
        arity(instr, 2)?;
        return Ok(format!("{dst} = {};", value(&instr.operands[1], instr)?));
    }
    arity(instr, 3)?;
    let a = value(&instr.operands[1], instr)?;
    let b = value(&instr.operands[2], instr)?;
    let op = match head {
        "add" => "+",
        "sub" => "-",
        "mul" => "*",
        "and" => "&",
        "or" => "|",
        _ => "^",
    };
    Ok(format!("{dst} = {a} {op} {b};"))
}

#[cfg(test)]
mod tests {
    use super::super::super::parse::{parse, Stmt};
    use super::*;

    fn lowered(code: &str) -> Vec<String> {
        let text = format!("PTX T\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n{code}\nexists (x == 0)\n");
        let t = parse(&text).unwrap();
        let locations = BTreeMap::from([("x".to_string(), "loc_x".to_string())]);
        let mut labels = BTreeMap::new();
        for (i, st) in t.threads[0].code.iter().enumerate() {
            if let Stmt::Label(l, _) = st {
                labels.insert(l.clone(), i);
            }
        }
        let mut out = vec![];
        for (at, st) in t.threads[0].code.iter().enumerate() {
            if let Stmt::Instr(i) = st {
                let s = Scope {
                    locations: &locations,
                    labels: &labels,
                    at,
                };
                out.push(lower(i, &s).unwrap_or_else(|u| format!("unsupported: {}", u.reason)));
            }
        }
        out
    }

    #[test]
    fn orders_and_scopes_are_kept_and_a_type_added() {
        let l = lowered(" ld.acquire.gpu r1, x ;\n st.release.sys x, 2 ;\n ld.weak r2, x ;\n st.volatile x, r2 ;\n fence.sc.cta ;\n membar.gl ;");
        assert!(l[0].contains("\"ld.acquire.gpu.u32 %0, [%1];\" : \"=r\"(reg_r1) : \"l\"(loc_x)"));
        assert!(l[1].contains("\"st.release.sys.u32 [%0], %1;\""));
        assert!(l[1].contains("\"r\"((u32)(2LL))"));
        assert!(l[2].contains("\"ld.weak.u32 "));
        assert!(l[3].contains("\"st.volatile.u32 "));
        assert_eq!(l[4], "asm volatile(\"fence.sc.cta;\" ::: \"memory\");");
        assert!(l[5].contains("\"membar.gl;\""));
    }

    #[test]
    fn atomics_sub_and_acquiring_red_have_their_ptx_forms() {
        let l = lowered(" atom.acq_rel.gpu.add r1, x, 1 ;\n atom.relaxed.gpu.cas r2, x, 0, 1 ;\n red.acq_rel.sys.sub x, 1 ;\n red.release.gpu.add x, r1 ;\n atom.gpu.exch r3, x, 5 ;");
        assert!(l[0].contains("\"atom.acq_rel.gpu.add.u32 %0, [%1], %2;\" : \"=r\"(reg_r1)"));
        assert!(l[1].contains("\"atom.relaxed.gpu.cas.b32 %0, [%1], %2, %3;\""));
        assert!(l[2].contains("\"atom.acq_rel.sys.add.u32 %0, [%1], %2;\" : \"=r\"(lt_dropped)"));
        assert!(l[2].contains("(0u - (u32)(1LL))"));
        assert!(
            l[3].contains("\"red.release.gpu.add.u32 [%0], %1;\" :: \"l\"(loc_x), \"r\"(reg_r1)")
        );
        assert!(l[4].contains("\"atom.gpu.exch.b32 "));
    }

    #[test]
    fn backward_jumps_spin_within_the_deadline_and_forward_ones_do_not() {
        let l = lowered(" LC00: ;\n ld.relaxed.gpu r1, x ;\n beq r1, 0, LC00 ;\n bne r1, 1, LC01 ;\n goto LC00 ;\n LC01: ;\n mov r2, 3 ;\n add r3, r2, r1 ;\n ld r4, 7 ;");
        assert_eq!(
            l[1],
            "if ((reg_r1 == (u32)(0LL)) && lt_spin(c)) goto L_LC00;"
        );
        assert_eq!(l[2], "if (reg_r1 != (u32)(1LL)) goto L_LC01;");
        assert_eq!(l[3], "if (lt_spin(c)) goto L_LC00;");
        assert_eq!(l[4], "reg_r2 = (u32)(3LL);");
        assert_eq!(l[5], "reg_r3 = reg_r2 + reg_r1;");
        assert_eq!(l[6], "reg_r4 = (u32)(7LL);");
    }

    #[test]
    fn what_ptx_cannot_say_is_refused() {
        let l = lowered(
            " ld.relaxed r1, x ;\n st.acquire.gpu x, 1 ;\n ld.weak.u64 r1, x ;\n fence.gpu ;",
        );
        assert!(l.iter().all(|s| s.starts_with("unsupported")), "{l:?}");
    }
}
