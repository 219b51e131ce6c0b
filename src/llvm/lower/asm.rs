//! Inline PTX: `call T asm sideeffect "template", "constraints"(args)`.
//! The template is read by the shared PTX parser (`ir::ptx`); here its
//! operands are bound: `$N` counts the outputs first (`=r`, `=l`: the
//! call's result, a struct of them when there are several, read by
//! `extractvalue`), then the inputs (the call's arguments; a digit
//! constraint ties an input to that output, as `"+r"` compiles); `~{...}`
//! clobbers name no operand. An address is `[$N]` or `[$N+k]` with `$N` a
//! pointer the lowering follows. PTX registers declared with `.reg` are
//! locals of this one asm statement; `%laneid`, `%tid.x` and the other
//! launch registers read as the intrinsics do. Each instruction is a step
//! of its own, as on the hardware: a template is not atomic.
//!
//! `cvta.to.shared` turns a pointer into `__shared__` memory into an
//! integer, its address in the CTA's shared window (as Ginkgo's and
//! CUTLASS's helpers do before a `.shared` access). The integer keeps the
//! pointer it came from (through `cvt` between integer types, and across
//! asm calls by its SSA name), and an address operand that is such an
//! integer is followed as that pointer, by `.shared` accesses only: any
//! other use of the window address is undefined in PTX, and refused.

use super::memory::Ptr;
use super::{Lowerer, R};
use crate::ir::ptx::{self, Access, Instruction, Ptx, Space};
use crate::ir::{BinOp, Storage};
use crate::ir::{Builtin, Expr, LocalId, Op};
use crate::llvm::ir::{Callee, Instr, InstrKind, Type as LType, Value};
use std::collections::HashMap;

/// The operands of one asm call, as its constraints lay them out.
struct Frame {
    /// Each output's local and bits, and whether it holds a value yet.
    outputs: Vec<(LocalId, u32, bool)>,
    /// The number of inputs (the call's arguments).
    inputs: usize,
    /// `.reg` registers: name → local and bits.
    regs: HashMap<String, (LocalId, u32)>,
    /// Registers and outputs (`$N`) holding a shared window address: the
    /// pointer each stands for.
    windows: HashMap<String, Ptr>,
}

/// Variable `k`'s shared window address is `(k + 1) << WINDOW_SHIFT`: a
/// window of 1 MiB per variable, beyond any CTA's shared memory, within
/// the 32 bits PTX's shared addresses take.
const WINDOW_SHIFT: u32 = 20;

/// What an operand token names.
enum Token {
    Output(usize),
    Input(usize),
    Other,
}

/// `$N` as an output or input of a call with `outputs` outputs.
fn token(t: &str, outputs: usize) -> Token {
    match t
        .trim()
        .strip_prefix('$')
        .and_then(|n| n.parse::<usize>().ok())
    {
        Some(n) if n < outputs => Token::Output(n),
        Some(n) => Token::Input(n - outputs),
        None => Token::Other,
    }
}

/// `[X]` or `[X+k]` → (X, k).
fn address(t: &str) -> Option<(&str, i64)> {
    let inner = t.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    match inner.split_once('+') {
        Some((x, k)) => Some((x.trim(), literal(k.trim())?)),
        None => Some((inner, 0)),
    }
}

/// A decimal or `0x` hexadecimal literal, maybe negative.
fn literal(t: &str) -> Option<i64> {
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h.trim_end_matches(['U', 'u']), 16).ok()? as i64,
        None => t.trim_end_matches(['U', 'u']).parse::<i64>().ok()?,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `v` cut to its low `bits`.
fn mask(v: Expr, bits: u32) -> Expr {
    match bits {
        64.. => v,
        _ => Expr::Binary(
            BinOp::BitAnd,
            Box::new(v),
            Box::new(Expr::Const((1i64 << bits) - 1)),
        ),
    }
}

/// The number of outputs the constraints name.
fn outputs_of(constraints: &str) -> usize {
    constraints
        .split(',')
        .filter(|c| c.starts_with('='))
        .count()
}

/// The memory accesses of an asm call, for the variables' widths:
/// (argument index of the address, bits, signed compare).
pub(super) fn accesses(instr: &Instr) -> Vec<(usize, u32, Option<bool>)> {
    let InstrKind::Call {
        callee:
            Callee::Asm {
                template,
                constraints,
                ..
            },
    } = &instr.kind
    else {
        return vec![];
    };
    let outputs = outputs_of(constraints);
    let mut out = vec![];
    for ins in ptx::instructions(template) {
        let (at, a) = match ptx::parse(&ins) {
            Ok(Ptx::Ld(a)) => (1, a),
            Ok(Ptx::St(a)) => (0, a),
            Ok(Ptx::Atom {
                access, returns, ..
            }) => (usize::from(returns), access),
            _ => continue,
        };
        let base = ins.operands.get(at).and_then(|o| address(o));
        if let Some(Token::Input(i)) = base.map(|(x, _)| token(x, outputs)) {
            out.push((i, a.bits, a.signed));
        }
    }
    out
}

/// `%lanemask_lt` and its kin, from the lane id.
fn lanemask(name: &str) -> Option<Expr> {
    let bin = |op, a, b| Expr::Binary(op, Box::new(a), Box::new(b));
    let lane = Expr::Builtin(Builtin::LaneId);
    let bit = bin(BinOp::Shl, Expr::Const(1), lane);
    let below = bin(BinOp::Sub, bit.clone(), Expr::Const(1));
    let through = bin(BinOp::BitOr, below.clone(), bit.clone());
    let not32 = |e| bin(BinOp::BitXor, e, Expr::Const(0xffff_ffff));
    Some(match name {
        "lanemask_eq" => bit,
        "lanemask_lt" => below,
        "lanemask_le" => through,
        "lanemask_ge" => not32(below),
        "lanemask_gt" => not32(through),
        _ => return None,
    })
}

impl Lowerer<'_> {
    /// Lowers one inline asm call, instruction by instruction.
    pub(super) fn asm(
        &mut self,
        instr: &Instr,
        template: &str,
        constraints: &str,
        sideeffect: bool,
    ) -> R<()> {
        if !sideeffect && self.dead_register_asm(instr, template, constraints) {
            return Ok(());
        }
        let mut f = self.asm_frame(instr, constraints)?;
        for ins in ptx::instructions(template) {
            let what = match ptx::parse(&ins) {
                Ok(w) => w,
                Err(why) => return self.refuse(format!("inline PTX {why} is not modelled")),
            };
            self.asm_instruction(instr, &mut f, &ins, what)?;
        }
        if let (Some(r), [_]) = (&instr.result, f.outputs.as_slice()) {
            if let Some(p) = f.windows.remove("$0") {
                self.windows.insert(r.clone(), p);
            }
        }
        Ok(())
    }

    /// A pure asm (no side effect, no memory clobber) of register moves and
    /// conversions only, whose result no instruction reads, does nothing
    /// the model sees (as cooperative groups' unused read of its reserved
    /// shared memory's offset): it is left out.
    fn dead_register_asm(&self, instr: &Instr, template: &str, constraints: &str) -> bool {
        let pure = ptx::instructions(template).iter().all(|i| {
            matches!(
                ptx::parse(i),
                Ok(Ptx::Mov { .. }
                    | Ptx::Cvt { .. }
                    | Ptx::Cvta { .. }
                    | Ptx::Reg { .. }
                    | Ptx::Selp { .. })
            )
        });
        let read = |r: &String| {
            self.func.instructions().any(|i| {
                i.operands
                    .iter()
                    .any(|o| matches!(&o.value, Value::Local(n) if n == r))
            })
        };
        pure && !constraints.contains("~{memory}") && !instr.result.as_ref().is_some_and(read)
    }

    /// The outputs' locals (tied inputs copied in) and the inputs' count.
    fn asm_frame(&mut self, instr: &Instr, constraints: &str) -> R<Frame> {
        let mut kinds = vec![];
        for c in constraints
            .split(',')
            .filter(|c| !c.is_empty() && !c.starts_with('~'))
        {
            if c.contains('*') || c.contains('m') {
                return self.refuse(format!(
                    "the inline asm constraint `{c}`: memory operands are not modelled"
                ));
            }
            kinds.push(c);
        }
        let n_out = kinds.iter().filter(|c| c.starts_with('=')).count();
        let types: Vec<LType> = match (&instr.ty, n_out) {
            (_, 0) => vec![],
            (LType::Struct { fields, .. }, n) if fields.len() == n => fields.clone(),
            (t, 1) => vec![t.clone()],
            (t, n) => return self.refuse(format!("an asm with {n} outputs returning {t:?}")),
        };
        let mut outputs = vec![];
        for (k, t) in types.iter().enumerate() {
            let Some(bits) = super::values::width(t) else {
                return self.refuse(format!("an asm output of LLVM type {t:?}"));
            };
            let earlier = instr
                .result
                .as_ref()
                .and_then(|r| self.asm_outputs.get(r))
                .and_then(|outs| outs.get(k).copied());
            let local = match (earlier, &instr.result, n_out) {
                (_, Some(r), 1) => self.local(r, bits)?,
                // One local however many times the asm is lowered (once
                // per variable a pointer read from memory may name).
                (Some(l), _, _) => l,
                (None, r, _) => {
                    let ty = super::values::local_type(bits)
                        .ok_or(())
                        .or_else(|()| self.refuse(format!("an asm output of {bits} bits")))?;
                    let name = format!("%{}.asm{k}", r.as_deref().unwrap_or("_"));
                    self.new_local(&name, ty)
                }
            };
            outputs.push((local, bits, false));
        }
        if let (Some(r), true) = (&instr.result, n_out > 1) {
            self.asm_outputs
                .insert(r.clone(), outputs.iter().map(|o| o.0).collect());
        }
        let mut f = Frame {
            outputs,
            inputs: kinds.len() - n_out,
            regs: HashMap::new(),
            windows: HashMap::new(),
        };
        for (i, c) in kinds[n_out..].iter().enumerate() {
            if let Ok(k) = c.parse::<usize>() {
                let (Some(op), Some(&(dst, _, _))) = (instr.operands.get(i), f.outputs.get(k))
                else {
                    return self.refuse(format!("the tied asm constraint `{c}`"));
                };
                let value = self.int(op)?;
                self.emit(Op::Assign { dst, value });
                f.outputs[k].2 = true;
            }
        }
        if instr.operands.len() != f.inputs {
            return self.refuse("an asm call whose arguments do not match its constraints");
        }
        Ok(f)
    }

    fn asm_instruction(
        &mut self,
        instr: &Instr,
        f: &mut Frame,
        ins: &Instruction,
        what: Ptx,
    ) -> R<()> {
        let ops = &ins.operands;
        match what {
            Ptx::Ld(a) => {
                self.asm_arity(ins, 2)?;
                let access = self.asm_access(instr, f, &ops[1], a)?;
                let (dst, bits) = self.asm_dest(f, &ops[0])?;
                if bits == a.bits {
                    self.emit(Op::Load { dst, access });
                    return Ok(());
                }
                if bits < a.bits {
                    return self.refuse(format!("`{}` into a {bits}-bit register", ins.opcode()));
                }
                // A narrower load into a wider register: extended by its type.
                let ty = super::values::local_type(a.bits).expect("a PTX width");
                let tmp = self.new_local("%ptx.ld", ty);
                self.emit(Op::Load { dst: tmp, access });
                let v = Expr::Local(tmp);
                let value = match a.signed {
                    Some(true) => super::values::sext(v, a.bits),
                    _ => v,
                };
                self.emit(Op::Assign { dst, value });
            }
            Ptx::St(a) => {
                self.asm_arity(ins, 2)?;
                let access = self.asm_access(instr, f, &ops[0], a)?;
                let value = self.asm_value(instr, f, &ops[1], a.bits)?;
                self.emit(Op::Store { access, value });
            }
            Ptx::Atom {
                op,
                access: a,
                returns,
            } => {
                let at = usize::from(returns);
                self.asm_arity(ins, at + 1 + op.operands())?;
                let access = self.asm_access(instr, f, &ops[at], a)?;
                let mut operands = vec![];
                for o in &ops[at + 1..] {
                    operands.push(self.asm_value(instr, f, o, a.bits)?);
                }
                let dst = match returns {
                    true => {
                        let (d, bits) = self.asm_dest(f, &ops[0])?;
                        if bits != a.bits {
                            return self
                                .refuse(format!("`{}` into a {bits}-bit register", ins.opcode()));
                        }
                        Some(d)
                    }
                    false => None,
                };
                self.emit(Op::Atomic {
                    dst,
                    op,
                    access,
                    operands,
                });
            }
            Ptx::Fence(o) => self.emit(Op::Fence(o)),
            Ptx::Barrier { arrive } => self.asm_barrier(instr, f, ins, arrive)?,
            Ptx::Nanosleep => self.emit(Op::Backoff),
            Ptx::Mov { bits } => {
                self.asm_arity(ins, 2)?;
                let value = self.asm_value(instr, f, &ops[1], bits)?;
                let (dst, _) = self.asm_dest(f, &ops[0])?;
                self.emit(Op::Assign { dst, value });
            }
            Ptx::Selp { bits } => {
                self.asm_arity(ins, 4)?;
                let a = self.asm_value(instr, f, &ops[1], bits)?;
                let b = self.asm_value(instr, f, &ops[2], bits)?;
                let p = self.asm_value(instr, f, &ops[3], 1)?;
                let (dst, _) = self.asm_dest(f, &ops[0])?;
                let value = Expr::Ternary(Box::new(p), Box::new(a), Box::new(b));
                self.emit(Op::Assign { dst, value });
            }
            Ptx::Reg { bits } => {
                let ty = super::values::local_type(bits).expect("a PTX width");
                for (k, o) in ops.iter().enumerate() {
                    let name = if k == 0 {
                        o.split_whitespace().nth(1).unwrap_or("")
                    } else {
                        o.as_str()
                    };
                    if name.is_empty() || name.contains('<') {
                        return self.refuse(format!("the PTX register declaration `.reg {o}`"));
                    }
                    let l = self.new_local(&format!("%ptx.{name}"), ty);
                    f.regs.insert(name.to_string(), (l, bits));
                }
            }
            Ptx::Cvta { to_shared, bits } => self.asm_cvta(instr, f, ins, to_shared, bits)?,
            Ptx::Cvt { bits, from, signed } => {
                self.asm_arity(ins, 2)?;
                let v = self.asm_value(instr, f, &ops[1], from)?;
                let v = match signed && bits > from {
                    true => super::values::sext(v, from),
                    false => v,
                };
                let (dst, _) = self.asm_dest(f, &ops[0])?;
                self.emit(Op::Assign {
                    dst,
                    value: mask(v, bits),
                });
                // A window address is below 2^32: it survives any cvt of
                // 32 bits or more.
                if let (Some(p), true) = (self.asm_window(instr, f, &ops[1]), bits >= 32) {
                    f.windows.insert(ops[0].trim().to_string(), p);
                }
            }
            Ptx::Trap => return self.failure("__trap() was called"),
            Ptx::Exit => self.emit(Op::Exit),
        }
        Ok(())
    }

    fn asm_arity(&self, ins: &Instruction, n: usize) -> R<()> {
        if ins.operands.len() == n {
            return Ok(());
        }
        self.refuse(format!(
            "inline PTX `{}` with {} operands",
            ins.opcode(),
            ins.operands.len()
        ))
    }

    /// `bar.sync id{, count}` / `bar.arrive id, count`: `id` a constant.
    /// `bar.sync 0` for the whole block is `__syncthreads()`.
    fn asm_barrier(&mut self, instr: &Instr, f: &Frame, ins: &Instruction, arrive: bool) -> R<()> {
        let ops = &ins.operands;
        if ops.is_empty() || ops.len() > 2 || (arrive && ops.len() != 2) {
            return self.refuse(format!("`{}` with {} operands", ins.opcode(), ops.len()));
        }
        let id = match self.asm_value(instr, f, &ops[0], 32)? {
            Expr::Const(c) if (0..16).contains(&c) => c as u32,
            _ => {
                return self.refuse(format!(
                    "`{}` of a barrier id not known before running (0 to 15)",
                    ins.opcode()
                ))
            }
        };
        let count = match ops.get(1) {
            Some(o) => Some(self.asm_value(instr, f, o, 32)?),
            None => None,
        };
        if id == 0 && count.is_none() && !arrive {
            self.emit(Op::SyncThreads);
        } else {
            self.emit(Op::NamedBarrier { id, count, arrive });
        }
        Ok(())
    }

    /// The local an output operand or register is written to, and its bits.
    fn asm_dest(&mut self, f: &mut Frame, t: &str) -> R<(LocalId, u32)> {
        match token(t, f.outputs.len()) {
            Token::Output(k) => {
                f.outputs[k].2 = true;
                Ok((f.outputs[k].0, f.outputs[k].1))
            }
            Token::Input(_) => self.refuse(format!("inline PTX writing its input `{t}`")),
            Token::Other => match f.regs.get(t.trim()) {
                Some(r) => Ok(*r),
                None => self.refuse(format!("inline PTX writing `{t}`, not an output")),
            },
        }
    }

    /// The value an operand token reads, at most `bits` wide.
    fn asm_value(&mut self, instr: &Instr, f: &Frame, t: &str, bits: u32) -> R<Expr> {
        let t = t.trim();
        let (v, from) = match token(t, f.outputs.len()) {
            Token::Output(k) if f.outputs[k].2 => (Expr::Local(f.outputs[k].0), f.outputs[k].1),
            Token::Output(_) => {
                return self.refuse(format!(
                    "inline PTX reading its output `{t}` before writing it"
                ))
            }
            Token::Input(i) => {
                let op = &instr.operands[i];
                let w = super::values::width(&op.ty).unwrap_or(64);
                (self.int(op)?, w)
            }
            Token::Other => {
                if let Some(c) = literal(t) {
                    return Ok(Expr::Const(c));
                }
                if let Some(&(l, w)) = f.regs.get(t) {
                    (Expr::Local(l), w)
                } else {
                    (self.ptx_special(t)?, 32)
                }
            }
        };
        Ok(if from > bits { mask(v, bits) } else { v })
    }

    /// `cvta.to.shared d, p`: `d` is the shared window address of the
    /// pointer `p` into a `__shared__` variable, and stands for it.
    /// `cvta.shared` (back to a generic address) is refused.
    fn asm_cvta(
        &mut self,
        instr: &Instr,
        f: &mut Frame,
        ins: &Instruction,
        to_shared: bool,
        bits: u32,
    ) -> R<()> {
        self.asm_arity(ins, 2)?;
        let ops = &ins.operands;
        if !to_shared {
            return self.refuse(format!(
                "`{}`: a shared window address made generic again (the model follows pointers, not addresses as integers)",
                ins.opcode()
            ));
        }
        let src = ops[1].trim();
        let op = match token(src, f.outputs.len()) {
            Token::Input(i) if matches!(instr.operands[i].ty, LType::Ptr(_)) => &instr.operands[i],
            _ => {
                return self.refuse(format!(
                    "`{}` of `{src}`, not a pointer given as an asm input",
                    ins.opcode()
                ))
            }
        };
        let p = self.ptr(op)?;
        let var = match p.var() {
            Some(v) if self.vars[v as usize].storage == Storage::Shared => v,
            _ => {
                return self.refuse(format!(
                    "`{}` of a pointer that is not into a __shared__ variable (undefined in PTX)",
                    ins.opcode()
                ))
            }
        };
        let base = Expr::Const(i64::from(var + 1) << WINDOW_SHIFT);
        let value = mask(super::memory::add(base, p.offset.clone()), bits);
        let (dst, _) = self.asm_dest(f, &ops[0])?;
        self.emit(Op::Assign { dst, value });
        f.windows.insert(ops[0].trim().to_string(), p);
        Ok(())
    }

    /// The pointer a window-address operand stands for: a register or
    /// output of this asm, or an input made by an earlier one.
    fn asm_window(&self, instr: &Instr, f: &Frame, t: &str) -> Option<Ptr> {
        let t = t.trim();
        match token(t, f.outputs.len()) {
            Token::Input(i) => match &instr.operands.get(i)?.value {
                Value::Local(n) => self.windows.get(n).cloned(),
                _ => None,
            },
            _ => f.windows.get(t).cloned(),
        }
    }

    /// A special register read in inline PTX (`%laneid`, `%tid.x`...).
    fn ptx_special(&self, t: &str) -> R<Expr> {
        let Some(name) = t.strip_prefix('%') else {
            return self.refuse(format!("the inline PTX operand `{t}`"));
        };
        if let Some(e) = lanemask(name).or_else(|| self.special_register(name)) {
            return Ok(e);
        }
        let why = match name {
            "warpid" | "smid" | "nwarpid" | "nsmid" => {
                ": where the hardware runs a thread is not modelled"
            }
            _ => "",
        };
        self.refuse(format!("the PTX special register `{t}`{why}"))
    }

    /// The access an address operand makes: its location, order, scope,
    /// with the state space checked against the variable.
    fn asm_access(
        &mut self,
        instr: &Instr,
        f: &Frame,
        t: &str,
        a: Access,
    ) -> R<crate::ir::MemAccess> {
        let Some((base, k)) = address(t) else {
            return self.refuse(format!("the inline PTX address `{t}`"));
        };
        if let Some(p) = self.asm_window(instr, f, base) {
            return self.window_access(t, p, k, a);
        }
        let Token::Input(i) = token(base, f.outputs.len()) else {
            return self.refuse(format!(
                "the inline PTX address `{t}`: only an address given as an asm input is followed"
            ));
        };
        let op = &instr.operands[i];
        if !matches!(op.ty, LType::Ptr(_)) {
            return self.refuse(format!(
                "the inline PTX address `{t}` given as an integer ({:?}): the model follows pointers, not addresses as integers",
                op.ty
            ));
        }
        let p = self.ptr(op)?;
        let p = Ptr {
            region: p.region,
            offset: super::memory::add(p.offset, Expr::Const(k)),
        };
        let loc = self.loc(&p, a.bits)?;
        let storage = self.vars[loc.var as usize].storage;
        match (a.space, storage, &op.ty) {
            (Space::Global, Storage::Shared, _) => {
                return self.refuse(format!(
                    "`.global` access `{t}` to the __shared__ variable `{}` (undefined in PTX)",
                    self.vars[loc.var as usize].name
                ))
            }
            (Space::Shared, Storage::Shared, LType::Ptr(3)) | (Space::Generic | Space::Global, ..) => {}
            (Space::Shared, ..) => {
                return self.refuse(format!(
                    "a `.shared` access through `{t}`, not a shared-window address (PTX needs cvta.to.shared; a generic pointer there is undefined)"
                ))
            }
        }
        Ok(a.order.at(loc))
    }

    /// An access through a shared window address: `.shared` only.
    fn window_access(&mut self, t: &str, p: Ptr, k: i64, a: Access) -> R<crate::ir::MemAccess> {
        if a.space != Space::Shared {
            return self.refuse(format!(
                "a {} access through `{t}`, a shared window address (made by cvta.to.shared; undefined outside .shared)",
                match a.space {
                    Space::Global => "`.global`",
                    _ => "generic",
                }
            ));
        }
        let p = Ptr {
            region: p.region,
            offset: super::memory::add(p.offset, Expr::Const(k)),
        };
        let loc = self.loc(&p, a.bits)?;
        self.note_width(loc.var, a.bits, a.signed)?;
        Ok(a.order.at(loc))
    }
}
