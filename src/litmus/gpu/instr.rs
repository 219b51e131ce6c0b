//! One litmus instruction as CUDA: memory accesses, atomics, fences and
//! barriers as inline PTX with their orders and scopes as written (a type
//! is added: every location is a 32-bit word), register arithmetic and
//! branches as C. Two forms PTX does not have are rewritten to the closest
//! one that means the same: `atom.sub`/`red.sub` (PTX has no `sub`) as an
//! `add` of the negated value, and `red` with an acquiring order (PTX's
//! `red` is relaxed or release only) as an `atom` of that order whose result
//! is dropped.

use super::super::decode::{
    arith_op, atomic_name, atomic_op, branch_cmp, membar_scope, Unsupported,
};
use super::super::parse::{Instr, Operand};
use crate::cuda::spell::scope_name;
use crate::ir::{order_name, order_named, scope_named};
use crate::ir::{AtomicOp, Order, Scope};
use std::collections::BTreeMap;

/// What an instruction needs from its thread's code.
pub(crate) struct Context<'a> {
    /// C name of the pointer to each location of the instance.
    pub locations: &'a BTreeMap<String, String>,
    /// Statement index of each label of the thread.
    pub labels: &'a BTreeMap<String, usize>,
    /// Statement index of this instruction.
    pub at: usize,
}

/// C name of a litmus register.
pub(crate) fn reg_name(r: &str) -> String {
    format!("reg_{r}")
}

/// C name of a label.
pub(crate) fn label_name(l: &str) -> String {
    format!("L_{l}")
}

/// A value operand as a C expression of type `u32`.
fn value(op: &Operand, instr: &Instr) -> Result<String, Unsupported> {
    match op {
        Operand::Imm(v) => Ok(format!("(u32)({v}LL)")),
        Operand::Reg(r) => Ok(reg_name(r)),
        Operand::Name(n) => instr.refuse(format!("`{n}` used as a value")),
    }
}

/// The C register of operand `i`.
fn register(instr: &Instr, i: usize) -> Result<String, Unsupported> {
    instr.register(i).map(reg_name)
}

/// The C pointer to the location operand `i` names.
fn location(instr: &Instr, i: usize, c: &Context) -> Result<String, Unsupported> {
    Ok(c.locations[instr.location(i)?].clone())
}

/// The qualifiers of a memory instruction, sorted into PTX's order.
#[derive(Default)]
struct Quals<'i> {
    order: Option<Order>,
    scope: Option<Scope>,
    global: bool,
    op: Option<AtomicOp>,
    ty: Option<&'i str>,
}

impl<'i> Quals<'i> {
    /// Reads the qualifiers of `instr`: orders among `orders`, a scope,
    /// `.global`, an atomic operation where `atomic`, a 32-bit type;
    /// anything else, or anything twice, is refused.
    fn read(instr: &'i Instr, orders: &[Order], atomic: bool) -> Result<Quals<'i>, Unsupported> {
        let mut q = Quals::default();
        for s in &instr.opcode[1..] {
            let x = s.as_str();
            let twice = if let Some(o) = order_named(x).filter(|o| orders.contains(o)) {
                q.order.replace(o).is_some()
            } else if let Some(scope) = scope_named(x) {
                q.scope.replace(scope).is_some()
            } else if x == "global" {
                std::mem::replace(&mut q.global, true)
            } else if let Some(op) = atomic_op(x).filter(|_| atomic) {
                q.op.replace(op).is_some()
            } else if matches!(x, "u32" | "s32" | "b32") {
                q.ty.replace(x).is_some()
            } else if x.ends_with("64") {
                return instr.refuse(format!("64-bit access `.{x}`"));
            } else {
                return instr.refuse(format!("qualifier `.{x}` of `{}`", instr.text()));
            };
            if twice {
                return instr.refuse(format!("`.{s}` twice"));
            }
        }
        let scoped = matches!(
            q.order,
            Some(Order::Relaxed | Order::Acquire | Order::Release | Order::AcqRel | Order::Sc)
        );
        if scoped && q.scope.is_none() && !atomic {
            return instr.refuse("a relaxed, acquire or release access needs a scope");
        }
        Ok(q)
    }

    /// `head.sem.scope.space.op.type`, the type defaulting to `ty`.
    fn ptx(&self, head: &str, op: Option<AtomicOp>, ty: &str) -> String {
        let mut parts = vec![head];
        parts.extend(self.order.map(order_name));
        parts.extend(self.scope.map(scope_name));
        if self.global {
            parts.push("global");
        }
        parts.extend(op.map(atomic_name));
        parts.push(self.ty.unwrap_or(ty));
        parts.join(".")
    }
}

/// The CUDA statement(s) for one instruction.
pub(crate) fn lower(instr: &Instr, c: &Context) -> Result<String, Unsupported> {
    let head = instr.opcode[0].as_str();
    match head {
        "ld" => load(instr, c),
        "st" => store(instr, c),
        "atom" | "red" => atomic(instr, c),
        "fence" | "membar" => fence(instr),
        "bar" | "barrier" => barrier(instr),
        "goto" | "bra" => jump(instr, c),
        "mov" => arith(instr),
        _ if branch_cmp(head).is_some() => branch(instr, c),
        _ if arith_op(head).is_some() => arith(instr),
        _ => instr.refuse(format!("instruction `{}`", instr.text())),
    }
}

fn load(instr: &Instr, c: &Context) -> Result<String, Unsupported> {
    instr.arity(2)?;
    let dst = register(instr, 0)?;
    if instr.opcode.len() == 1 && !matches!(instr.operands[1], Operand::Name(_)) {
        // herd's `ld r0, 1`: a register move.
        return Ok(format!("{dst} = {};", value(&instr.operands[1], instr)?));
    }
    let orders = [Order::Weak, Order::Relaxed, Order::Acquire, Order::Volatile];
    let q = Quals::read(instr, &orders, false)?;
    let loc = location(instr, 1, c)?;
    Ok(format!(
        "asm volatile(\"{} %0, [%1];\" : \"=r\"({dst}) : \"l\"({loc}) : \"memory\");",
        q.ptx("ld", None, "u32")
    ))
}

fn store(instr: &Instr, c: &Context) -> Result<String, Unsupported> {
    instr.arity(2)?;
    let orders = [Order::Weak, Order::Relaxed, Order::Release, Order::Volatile];
    let q = Quals::read(instr, &orders, false)?;
    let loc = location(instr, 0, c)?;
    let v = value(&instr.operands[1], instr)?;
    Ok(format!(
        "asm volatile(\"{} [%0], %1;\" :: \"l\"({loc}), \"r\"({v}) : \"memory\");",
        q.ptx("st", None, "u32")
    ))
}

fn atomic(instr: &Instr, c: &Context) -> Result<String, Unsupported> {
    let red = instr.opcode[0] == "red";
    let orders = [
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
    ];
    let mut q = Quals::read(instr, &orders, true)?;
    let Some(op) = q.op.take() else {
        return instr.refuse("an atomic without an operation");
    };
    // The location follows the destination register of an `atom`.
    let at = usize::from(!red);
    instr.arity(at + 1 + op.operands())?;
    let dst = if red { None } else { Some(register(instr, 0)?) };
    let loc = location(instr, at, c)?;
    let mut args: Vec<String> = instr.operands[at + 1..]
        .iter()
        .map(|o| value(o, instr))
        .collect::<Result<_, _>>()?;
    // PTX has no atomic `sub`: an `add` of the negated value.
    let op = if op == AtomicOp::Sub {
        args[0] = format!("(0u - {})", args[0]);
        AtomicOp::Add
    } else {
        op
    };
    let ty = match op {
        AtomicOp::Add | AtomicOp::Inc | AtomicOp::Dec => "u32",
        AtomicOp::Max | AtomicOp::Min => "s32",
        _ => "b32",
    };
    // PTX's red is relaxed or release: an acquiring one is an atom whose
    // result nobody reads.
    let acquiring = matches!(q.order, Some(Order::Acquire | Order::AcqRel));
    let as_atom = !red || acquiring;
    let text = q.ptx(if as_atom { "atom" } else { "red" }, Some(op), ty);
    let ins: Vec<String> = (0..args.len())
        .map(|k| format!("%{}", k + 1 + usize::from(as_atom)))
        .collect();
    let consts = args
        .iter()
        .map(|a| format!("\"r\"({a})"))
        .collect::<Vec<_>>()
        .join(", ");
    if as_atom {
        let dst = dst.unwrap_or_else(|| "lt_dropped".to_string());
        let decl = if red { "u32 lt_dropped; " } else { "" };
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
    instr.arity(0)?;
    let text = instr.text();
    let ok = match instr.opcode.as_slice() {
        [m, s] if m == "membar" => membar_scope(s).is_some(),
        [f, sem, scope] if f == "fence" => {
            matches!(order_named(sem), Some(Order::Sc | Order::AcqRel))
                && scope_named(scope).is_some()
        }
        _ => false,
    };
    if !ok {
        return instr.refuse(format!("fence `{text}`"));
    }
    Ok(format!("asm volatile(\"{text};\" ::: \"memory\");"))
}

/// A whole-CTA barrier (`emit` checked with `check_barriers`):
/// over the testing threads of this CTA role in the block.
fn barrier(instr: &Instr) -> Result<String, Unsupported> {
    let id = match instr.operands.first() {
        Some(Operand::Imm(v)) if (0..16).contains(v) => *v,
        None => 0,
        _ => return instr.refuse("barrier id must be a constant 0-15"),
    };
    Ok(format!("lt_bar({id}u, c);"))
}

/// `goto L`: a jump back to an earlier label is a spin loop's back edge,
/// which stops being taken once the thread runs out of time.
fn goto(instr: &Instr, label: &str, c: &Context, cond: &str) -> Result<String, Unsupported> {
    let Some(&target) = c.labels.get(label) else {
        return instr.refuse(format!("no label `{label}`"));
    };
    let back = target <= c.at;
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

fn jump(instr: &Instr, c: &Context) -> Result<String, Unsupported> {
    instr.arity(1)?;
    goto(instr, instr.label(0, "expected a label")?, c, "")
}

fn branch(instr: &Instr, c: &Context) -> Result<String, Unsupported> {
    instr.arity(3)?;
    let a = value(&instr.operands[0], instr)?;
    let b = value(&instr.operands[1], instr)?;
    let label = instr.label(2, "expected a label as the last operand")?;
    let cmp = branch_cmp(&instr.opcode[0]).expect("a branch").symbol();
    goto(instr, label, c, &format!("{a} {cmp} {b}"))
}

fn arith(instr: &Instr) -> Result<String, Unsupported> {
    let dst = register(instr, 0)?;
    let Some(op) = arith_op(&instr.opcode[0]) else {
        // `mov r, v`
        instr.arity(2)?;
        return Ok(format!("{dst} = {};", value(&instr.operands[1], instr)?));
    };
    instr.arity(3)?;
    let a = value(&instr.operands[1], instr)?;
    let b = value(&instr.operands[2], instr)?;
    Ok(format!("{dst} = {a} {} {b};", op.symbol()))
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
                let s = Context {
                    locations: &locations,
                    labels: &labels,
                    at,
                };
                out.push(lower(i, &s).unwrap_or_else(|u| format!("unsupported: {}", u.reason)));
            }
        }
        out
    }

    /// Lowers `code`; the CUDA of its `i`th instruction must contain every
    /// text of `expected[i]`.
    fn assert_lowered(code: &str, expected: &[&[&str]]) -> Vec<String> {
        let l = lowered(code);
        for (i, texts) in expected.iter().enumerate() {
            for text in *texts {
                assert!(
                    l[i].contains(text),
                    "instruction {i}: {text} not in {}",
                    l[i]
                );
            }
        }
        l
    }

    #[test]
    fn orders_and_scopes_are_kept_and_a_type_added() {
        let l = assert_lowered(
            " ld.acquire.gpu r1, x ;\n st.release.sys x, 2 ;\n ld.weak r2, x ;\n st.volatile x, r2 ;\n fence.sc.cta ;\n membar.gl ;",
            &[
                &["\"ld.acquire.gpu.u32 %0, [%1];\" : \"=r\"(reg_r1) : \"l\"(loc_x)"],
                &["\"st.release.sys.u32 [%0], %1;\"", "\"r\"((u32)(2LL))"],
                &["\"ld.weak.u32 "],
                &["\"st.volatile.u32 "],
                &[],
                &["\"membar.gl;\""],
            ],
        );
        assert_eq!(l[4], "asm volatile(\"fence.sc.cta;\" ::: \"memory\");");
    }

    #[test]
    fn atomics_sub_and_acquiring_red_have_their_ptx_forms() {
        assert_lowered(
            " atom.acq_rel.gpu.add r1, x, 1 ;\n atom.relaxed.gpu.cas r2, x, 0, 1 ;\n red.acq_rel.sys.sub x, 1 ;\n red.release.gpu.add x, r1 ;\n atom.gpu.exch r3, x, 5 ;",
            &[
                &["\"atom.acq_rel.gpu.add.u32 %0, [%1], %2;\" : \"=r\"(reg_r1)"],
                &["\"atom.relaxed.gpu.cas.b32 %0, [%1], %2, %3;\""],
                &[
                    "\"atom.acq_rel.sys.add.u32 %0, [%1], %2;\" : \"=r\"(lt_dropped)",
                    "(0u - (u32)(1LL))",
                ],
                &["\"red.release.gpu.add.u32 [%0], %1;\" :: \"l\"(loc_x), \"r\"(reg_r1)"],
                &["\"atom.gpu.exch.b32 "],
            ],
        );
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
