//! Control flow: each block's code in file order, `br`/`switch` as
//! Branch and Jump, `ret` (and `unreachable`, after a failed assertion)
//! as Exit. A phi is a local assigned on each edge into its block: every
//! edge that carries copies gets code of its own (the edge is split), and
//! when one copy reads what another writes (the swap problem) all are
//! made through temporaries first, as a parallel copy.

use super::memory::{Base, Ptr, Region, NULL_OFFSET};
use super::{Lowerer, R};
use crate::ir::{BinOp, Type};
use crate::ir::{Expr, LocalId, Op, Pc};
use crate::llvm::ir::{Block, Callee, CastOp, Instr, InstrKind, Type as LType, Value};
use std::collections::{HashMap, HashSet};

/// Which target of an emitted instruction an edge fills.
#[derive(Clone, Copy)]
enum Slot {
    Then,
    Else,
    Jump,
}

/// Whether `e` reads local `l`.
pub(crate) fn reads(e: &Expr, l: LocalId) -> bool {
    match e {
        Expr::Local(x) => *x == l,
        Expr::Const(_) | Expr::Builtin(_) => false,
        Expr::Unary(_, a) => reads(a, l),
        Expr::Binary(_, a, b) => reads(a, l) || reads(b, l),
        Expr::Ternary(a, b, c) => reads(a, l) || reads(b, l) || reads(c, l),
        Expr::Fma(_, abc) => abc.iter().any(|x| reads(x, l)),
        Expr::Global(_, i) => i.as_deref().is_some_and(|i| reads(i, l)),
    }
}

/// The copies of an edge as code: sequential where no copy reads a local
/// another one writes, else through a temporary each (`temp(dst)` makes
/// one of `dst`'s type).
pub(crate) fn parallel_copy(
    copies: Vec<(LocalId, Expr)>,
    mut temp: impl FnMut(LocalId) -> LocalId,
) -> Vec<(LocalId, Expr)> {
    let clash = copies.iter().enumerate().any(|(i, (_, e))| {
        copies
            .iter()
            .enumerate()
            .any(|(j, (d, _))| i != j && reads(e, *d))
    });
    if !clash {
        return copies;
    }
    let mut out = Vec::new();
    let mut then = Vec::new();
    for (d, e) in copies {
        let t = temp(d);
        out.push((t, e));
        then.push((d, Expr::Local(t)));
    }
    out.extend(then);
    out
}

impl Lowerer<'_> {
    pub(super) fn lower_blocks(&mut self) -> R<()> {
        let func = self.func;
        self.make_phi_locals()?;
        let mut starts: HashMap<&str, Pc> = HashMap::new();
        let mut fixups: Vec<(usize, Slot, String)> = Vec::new();
        for b in &func.blocks {
            starts.insert(b.name.as_str(), self.code.len() as Pc);
            if self.dead.contains(&b.name) {
                // Only a branch whose condition is always false leads here.
                self.emit(Op::Assert {
                    cond: Expr::Const(0),
                    message: format!("unreachable block `%{}` reached", b.name),
                });
                continue;
            }
            for instr in &b.instrs {
                if matches!(instr.kind, InstrKind::Phi { .. }) {
                    continue;
                }
                self.locate(instr);
                self.dispatched(instr)?;
            }
            self.locate(&b.terminator);
            self.terminator(b, &mut fixups)?;
        }
        for (at, slot, label) in fixups {
            let Some(&pc) = starts.get(label.as_str()) else {
                return self.refuse(format!("a branch to the unknown block `%{label}`"));
            };
            patch(&mut self.code[at].op, slot, pc);
        }
        Ok(())
    }

    /// The blocks no run reaches: the targets of a branch on `__isLocal`
    /// (`llvm.nvvm.isspacep.local`) of a pointer the lowering follows into
    /// a variable, which is never thread-local memory (libcu++'s fallback
    /// for atomics on local memory), and what only they lead to.
    pub(super) fn dead_blocks(&self) -> HashSet<String> {
        let func = self.func;
        let never_local: HashSet<&str> = func
            .instructions()
            .filter_map(|i| match (&i.kind, i.operands.first()) {
                (
                    InstrKind::Call {
                        callee: Callee::Function(f),
                    },
                    Some(op),
                ) if f == "llvm.nvvm.isspacep.local" && self.followed(&op.value) => {
                    i.result.as_deref()
                }
                _ => None,
            })
            .collect();
        let mut live: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = func
            .blocks
            .first()
            .map(|b| b.name.as_str())
            .into_iter()
            .collect();
        while let Some(name) = stack.pop() {
            if !live.insert(name) {
                continue;
            }
            let Some(t) = func.block(name).map(|b| &b.terminator) else {
                continue;
            };
            match &t.kind {
                InstrKind::CondBr { then, els } => {
                    let cond = t.operands.first().map(|o| &o.value);
                    if !matches!(cond, Some(Value::Local(c)) if never_local.contains(c.as_str())) {
                        stack.push(then);
                    }
                    stack.push(els);
                }
                InstrKind::Br { dest } => stack.push(dest),
                InstrKind::Switch { default, cases } => {
                    stack.push(default);
                    stack.extend(cases.iter().map(|(_, l)| l.as_str()));
                }
                _ => {}
            }
        }
        func.blocks
            .iter()
            .filter(|b| !live.contains(b.name.as_str()))
            .map(|b| b.name.clone())
            .collect()
    }

    /// Whether a pointer value is followed into a variable (so it is not
    /// thread-local memory).
    pub(super) fn followed(&self, v: &Value) -> bool {
        match v {
            Value::Local(n) => matches!(self.bases.get(n), Some(Base::Var(_) | Base::Loaded(_))),
            Value::Global(_) | Value::Expr(_) => true,
            _ => false,
        }
    }

    /// A local for every phi (a pointer phi: one for its byte offset).
    fn make_phi_locals(&mut self) -> R<()> {
        for b in &self.func.blocks {
            if self.dead.contains(&b.name) {
                continue;
            }
            for instr in &b.instrs {
                let (InstrKind::Phi { .. }, Some(res)) = (&instr.kind, &instr.result) else {
                    continue;
                };
                match &instr.ty {
                    ty if super::values::width(ty).is_some() => {
                        let w = super::values::width(ty).expect("checked");
                        self.locate(instr);
                        self.local(res, w)?;
                    }
                    LType::Ptr(_) => {
                        self.locate(instr);
                        match self.bases.get(res).copied() {
                            Some(Base::Var(v)) => {
                                let l = self.new_local(&format!("%{res}.offset"), Type::I64);
                                self.ptrs.insert(
                                    res.clone(),
                                    Ptr {
                                        region: Region::Var(v),
                                        offset: Expr::Local(l),
                                    },
                                );
                            }
                            // Pointers read from memory: their address.
                            Some(Base::Loaded(_)) => {
                                let l = self.new_local(&format!("%{res}.address"), Type::I64);
                                self.ptrs.insert(
                                    res.clone(),
                                    Ptr {
                                        region: Region::Address,
                                        offset: Expr::Local(l),
                                    },
                                );
                            }
                            _ => return self.refuse("a pointer that may point into more than one buffer or variable (a phi of two pointers): the model names one variable per access"),
                        }
                    }
                    other => {
                        self.locate(instr);
                        return self.refuse(format!("a phi of LLVM type {other:?}"));
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn instr(&mut self, instr: &Instr) -> R<()> {
        match &instr.kind {
            InstrKind::Binary(op) => self.binary(instr, *op),
            InstrKind::ICmp(pred) => self.icmp(instr, pred),
            InstrKind::Cast(CastOp::AddrSpaceCast | CastOp::BitCast)
                if matches!(instr.ty, LType::Ptr(_)) =>
            {
                let p = self.ptr(&instr.operands[0])?;
                self.bind_ptr(instr, p)
            }
            InstrKind::Cast(op) => self.cast(instr, *op),
            InstrKind::Select if matches!(instr.ty, LType::Ptr(_)) => {
                let c = self.int(&instr.operands[0])?;
                let a = self.ptr(&instr.operands[1])?;
                let b = self.ptr(&instr.operands[2])?;
                if a.region != b.region {
                    return self.refuse("a select between pointers into two buffers or variables: the model names one variable per access");
                }
                let offset = Expr::Ternary(Box::new(c), Box::new(a.offset), Box::new(b.offset));
                self.bind_ptr(
                    instr,
                    Ptr {
                        region: a.region,
                        offset,
                    },
                )
            }
            InstrKind::Select => self.select(instr),
            InstrKind::Freeze if matches!(instr.ty, LType::Ptr(_)) => {
                let p = self.ptr(&instr.operands[0])?;
                self.bind_ptr(instr, p)
            }
            InstrKind::Freeze => {
                let v = self.int(&instr.operands[0])?;
                self.assign(instr, v)
            }
            InstrKind::Alloca { allocated, .. } => self.alloca(instr, allocated),
            InstrKind::GetElementPtr { source, .. } => {
                let base = self.ptr(&instr.operands[0])?;
                let p = self.gep(source, base, &instr.operands[1..])?;
                // The offset reads locals that a loop may assign again
                // before a use of the pointer: keep it in a local of its own.
                let p = match p.offset {
                    Expr::Const(_) => p,
                    offset => {
                        let name = instr.result.clone().unwrap_or_default();
                        let l = self.new_local(&format!("%{name}.offset"), Type::I64);
                        self.emit(Op::Assign {
                            dst: l,
                            value: offset,
                        });
                        Ptr {
                            region: p.region,
                            offset: Expr::Local(l),
                        }
                    }
                };
                self.bind_ptr(instr, p)
            }
            InstrKind::Load {
                volatile, atomic, ..
            } => {
                if matches!(instr.ty, LType::Ptr(_)) {
                    return self.load_pointer(instr, *volatile, atomic.as_ref());
                }
                self.load(instr, *volatile, atomic.as_ref())
            }
            InstrKind::Store {
                volatile, atomic, ..
            } => {
                if matches!(instr.operands[0].ty, LType::Ptr(_)) {
                    return self.store_pointer(instr, *volatile, atomic.as_ref());
                }
                self.store(instr, *volatile, atomic.as_ref())
            }
            InstrKind::AtomicRmw { op, atomic, .. } => self.atomicrmw(instr, *op, atomic),
            InstrKind::CmpXchg { weak, success, .. } => self.cmpxchg(instr, *weak, success),
            InstrKind::Fence(a) => self.fence(a),
            InstrKind::ExtractValue { indices } => self.extract(instr, indices),
            InstrKind::Call { callee } => self.call(instr, callee),
            InstrKind::FNeg => self.fneg(instr),
            InstrKind::FCmp(pred) => self.fcmp(instr, pred),
            other => self.refuse(format!("the LLVM instruction `{}`", other.opcode())),
        }
    }

    pub(super) fn bind_ptr(&mut self, instr: &Instr, p: Ptr) -> R<()> {
        if let Some(r) = &instr.result {
            self.ptrs.insert(r.clone(), p);
        }
        Ok(())
    }

    fn terminator(&mut self, b: &Block, fixups: &mut Vec<(usize, Slot, String)>) -> R<()> {
        let t = &b.terminator;
        // (instruction, slot, successor) of each edge.
        let mut edges: Vec<(usize, Slot, String)> = Vec::new();
        match &t.kind {
            InstrKind::Ret | InstrKind::Unreachable => self.emit(Op::Exit),
            InstrKind::Br { dest } => {
                edges.push((self.code.len(), Slot::Jump, dest.clone()));
                self.emit(Op::Jump { target: 0 });
            }
            InstrKind::CondBr { then, els } => {
                let cond = self.int(&t.operands[0])?;
                let at = self.code.len();
                edges.push((at, Slot::Then, then.clone()));
                edges.push((at, Slot::Else, els.clone()));
                self.emit(Op::Branch {
                    cond,
                    then_pc: 0,
                    else_pc: 0,
                });
            }
            InstrKind::Switch { default, cases } => {
                let v = self.int(&t.operands[0])?;
                let LType::Int(bits) = t.operands[0].ty else {
                    return self.refuse("a switch over a non-integer");
                };
                for (c, label) in cases {
                    let at = self.code.len();
                    edges.push((at, Slot::Then, label.clone()));
                    let cond = Expr::Binary(
                        BinOp::Eq,
                        Box::new(v.clone()),
                        Box::new(Expr::Const(super::values::zext(*c, bits))),
                    );
                    self.emit(Op::Branch {
                        cond,
                        then_pc: 0,
                        else_pc: at as Pc + 1,
                    });
                }
                edges.push((self.code.len(), Slot::Jump, default.clone()));
                self.emit(Op::Jump { target: 0 });
            }
            other => return self.refuse(format!("the terminator `{}`", other.opcode())),
        }
        for (at, slot, succ) in edges {
            let copies = match self.dead.contains(&succ) {
                true => vec![],
                false => self.edge_copies(&b.name, &succ)?,
            };
            if copies.is_empty() {
                fixups.push((at, slot, succ));
                continue;
            }
            let pc = self.code.len() as Pc;
            patch(&mut self.code[at].op, slot, pc);
            for (dst, value) in copies {
                self.emit(Op::Assign { dst, value });
            }
            fixups.push((self.code.len(), Slot::Jump, succ));
            self.emit(Op::Jump { target: 0 });
        }
        Ok(())
    }

    /// The phi copies of the edge `from` → `to`, ready to emit in order.
    fn edge_copies(&mut self, from: &str, to: &str) -> R<Vec<(LocalId, Expr)>> {
        let Some(block) = self.func.block(to) else {
            return self.refuse(format!("a branch to the unknown block `%{to}`"));
        };
        let mut copies = Vec::new();
        for instr in &block.instrs {
            let (InstrKind::Phi { blocks }, Some(res)) = (&instr.kind, &instr.result) else {
                continue;
            };
            let Some(i) = blocks.iter().position(|p| p == from) else {
                return self.refuse(format!("a phi without a value for the edge from `%{from}`"));
            };
            let op = &instr.operands[i];
            match &instr.ty {
                LType::Ptr(_) => {
                    let dst = self.ptrs[res].clone();
                    if dst.region == Region::Address {
                        let address = match op.value {
                            Value::Null | Value::Undef | Value::Poison => Expr::Const(0),
                            _ => {
                                let p = self.ptr(op)?;
                                self.address_of(&p)?
                            }
                        };
                        let Expr::Local(l) = dst.offset else {
                            unreachable!("a pointer phi's address is a local");
                        };
                        copies.push((l, address));
                        continue;
                    }
                    let src = match op.value {
                        // NULL into a pointer phi (`T *p = NULL; if (...) p = buf;`):
                        // an offset no access can reach, so that a use is
                        // an out-of-bounds error rather than a guess. An
                        // undefined pointer (warpcore's value slot before
                        // its first probe) is one too: using it is undefined.
                        Value::Null | Value::Undef | Value::Poison => Ptr {
                            region: dst.region,
                            offset: Expr::Const(NULL_OFFSET),
                        },
                        _ => self.ptr(op)?,
                    };
                    if src.region != dst.region {
                        return self.refuse("a phi of pointers into two buffers or variables: the model names one variable per access");
                    }
                    let Expr::Local(l) = dst.offset else {
                        unreachable!("a pointer phi's offset is a local");
                    };
                    copies.push((l, src.offset));
                }
                _ => {
                    let dst = self.local_of[res.as_str()];
                    copies.push((dst, self.int(op)?));
                }
            }
        }
        let mut temps = Vec::new();
        let out = parallel_copy(copies, |d| {
            temps.push(d);
            u32::MAX - (temps.len() as u32 - 1)
        });
        // Make the temporaries now (the closure cannot borrow self).
        let mut made = HashMap::new();
        for (k, d) in temps.iter().enumerate() {
            let ty = self.locals[*d as usize].ty;
            let name = format!("{}.tmp", self.locals[*d as usize].name);
            made.insert(u32::MAX - k as u32, self.new_local(&name, ty));
        }
        Ok(out
            .into_iter()
            .map(|(d, e)| {
                let d = made.get(&d).copied().unwrap_or(d);
                (d, rename(e, &made))
            })
            .collect())
    }
}

/// `e` with the placeholder locals of `made` replaced.
fn rename(e: Expr, made: &HashMap<LocalId, LocalId>) -> Expr {
    match e {
        Expr::Local(l) => Expr::Local(made.get(&l).copied().unwrap_or(l)),
        e => e,
    }
}

fn patch(op: &mut Op, slot: Slot, pc: Pc) {
    match (op, slot) {
        (Op::Branch { then_pc, .. }, Slot::Then) => *then_pc = pc,
        (Op::Branch { else_pc, .. }, Slot::Else) => *else_pc = pc,
        (Op::Jump { target }, Slot::Jump) => *target = pc,
        _ => unreachable!("an edge fills a target its instruction has"),
    }
}
