//! Pointers held in memory (issue #39): an array of pointers to other
//! buffers that the host set (vLLM's `RankSignals`, the peers' `Signal*`),
//! a struct field that holds a pointer, a pointer a thread stores.
//!
//! The design, the smallest sound one the IR allows: a pointer word in
//! memory holds an *address*, in the one layout `ptrtoint` already uses
//! (`values::address`: variable `k` starts at `(k + 1) << 32`, plus the
//! byte offset; NULL is 0). It is a 64-bit element of its variable, read
//! and written by plain (or volatile, or atomic) 64-bit accesses like any
//! other word. A pointer read from memory is a `Region::Address` whose
//! offset is that address. The IR names one variable per access, so an
//! access through such a pointer is a choice, made where it runs, among
//! the variables the pointer may point into (`dispatched`): a branch per
//! variable on the address's upper half, the access into that variable at
//! the lower half, and, when no variable matches (NULL, or a word never
//! set), a failed assertion.
//!
//! Which variables a pointer read from memory may point into is a
//! flow-insensitive points-to fact computed before lowering
//! (`pointer_bases`): what each memory cell may hold (every variable's
//! words are one cell, a thread's private memory another) grows with the
//! pointers stored into it and the cells copied into it (`memcpy`), and a
//! load from a cell gives the union. A kernel argument (or a
//! `__device__`/`__constant__` pointer variable) that a pointer is loaded
//! from is host-set memory: each of its 8-byte words points, as the host
//! set it, to a buffer of its own (`NAME->@BYTE`, zero-initialised, of
//! `--arg NAME->@BYTE=N` elements). A word read at a constant offset of an
//! argument the kernel never stores a pointer into is still bound to that
//! buffer directly, with no access (`params::pointer_field`).

use super::memory::{Base, Ptr, Region, NULL_OFFSET};
use super::values::ADDRESS_SHIFT;
use super::{Lowerer, R};
use crate::ir::{AtomicAccess, BinOp, Expr, MemOrder, Op, Order, Scope, VarId};
use crate::llvm::ir::{Atomic, Callee, Instr, InstrKind, Operand, Type as LType, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A cell of memory for the points-to facts: every variable's words, or
/// a thread's private memory (all its `alloca`s together).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cell {
    Var(VarId),
    Private,
}

/// What memory holds pointers to, computed before lowering.
#[derive(Default)]
pub(crate) struct PointerFacts {
    /// The target sets `Base::Loaded` names, each once.
    sets: Vec<BTreeSet<VarId>>,
    /// The variables each cell may hold pointers into.
    holds: BTreeMap<Cell, BTreeSet<VarId>>,
    /// The cells a pointer is loaded from.
    holding: BTreeSet<Cell>,
    /// The cells a pointer is stored or copied into, with the LLVM
    /// instruction that first does.
    written: BTreeMap<Cell, usize>,
    /// Variables whose pointer words are bound at a constant offset.
    bound: BTreeSet<VarId>,
    /// Memory the host set: kernel arguments and the buffers of
    /// `__device__`/`__constant__` pointer variables.
    pub(crate) host_set: BTreeSet<VarId>,
    /// The initial address words of host-set memory: (variable, element,
    /// the buffer it points to).
    pub(crate) inits: Vec<(VarId, u32, VarId)>,
    /// The word width each `memcpy` copies in (by LLVM line).
    pub(crate) copy_widths: HashMap<usize, u32>,
}

impl PointerFacts {
    /// The index of target set `set`, added on first use.
    fn intern(&mut self, set: BTreeSet<VarId>) -> u32 {
        match self.sets.iter().position(|s| *s == set) {
            Some(k) => k as u32,
            None => {
                self.sets.push(set);
                (self.sets.len() - 1) as u32
            }
        }
    }

    /// The variables of target set `k`.
    pub(crate) fn set(&self, k: u32) -> &BTreeSet<VarId> {
        &self.sets[k as usize]
    }

    /// Adds `vars` to what `cell` holds; whether it grew.
    fn hold(&mut self, cell: Cell, vars: &BTreeSet<VarId>) -> bool {
        let held = self.holds.entry(cell).or_default();
        let before = held.len();
        held.extend(vars);
        held.len() != before
    }

    fn held(&self, cell: Cell) -> BTreeSet<VarId> {
        self.holds.get(&cell).cloned().unwrap_or_default()
    }

    /// Whether a pointer is loaded from `cell`.
    pub(crate) fn is_holding(&self, cell: Cell) -> bool {
        self.holding.contains(&cell)
    }
}

impl Lowerer<'_> {
    /// The base of each pointer SSA value (what it points into) and the
    /// points-to facts of memory, to a fixpoint over the function (phis
    /// may name values defined later, and a store may come after the load
    /// that reads it).
    pub(super) fn pointer_bases(&mut self) -> R<HashMap<String, Base>> {
        let mut bases: HashMap<String, Base> = HashMap::new();
        let defs: HashMap<&str, &Instr> = self
            .func
            .instructions()
            .filter_map(|i| Some((i.result.as_deref()?, i)))
            .collect();
        for (name, p) in &self.ptrs {
            if let Some(v) = p.var() {
                bases.insert(name.clone(), Base::Var(v));
            }
        }
        loop {
            let mut changed = false;
            for instr in self.func.instructions() {
                changed |= self.pointer_writes(instr, &bases)?;
                let (Some(res), LType::Ptr(_)) = (&instr.result, &instr.ty) else {
                    continue;
                };
                let base = match &instr.kind {
                    InstrKind::GetElementPtr { .. } | InstrKind::Cast(_) | InstrKind::Freeze => {
                        self.merged(instr.operands.iter().take(1), &bases)?
                    }
                    InstrKind::Phi { .. } => self.merged(instr.operands.iter(), &bases)?,
                    InstrKind::Select => self.merged(instr.operands.iter().skip(1), &bases)?,
                    InstrKind::Load { .. } => {
                        self.locate(instr);
                        let (b, grew) = self.loaded_base(instr, &defs, &bases)?;
                        changed |= grew;
                        Some(b)
                    }
                    InstrKind::Alloca { .. } => Some(Base::Private),
                    _ => None,
                };
                if let Some(b) = base {
                    if bases.insert(res.clone(), b) != Some(b) {
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        self.check_bound_unwritten()?;
        Ok(bases)
    }

    /// The base of the pointers `ops` may be: one variable, private
    /// memory, the union of loaded targets, or more than one variable.
    fn merged<'a>(
        &mut self,
        ops: impl Iterator<Item = &'a crate::llvm::ir::Operand>,
        bases: &HashMap<String, Base>,
    ) -> R<Option<Base>> {
        let mut b: Option<Base> = None;
        for op in ops {
            let next = self.base_of(&op.value, bases)?;
            b = match (b, next) {
                (None, x) | (x, None) => x,
                (Some(x), Some(y)) if x == y => Some(x),
                (Some(Base::Loaded(x)), Some(Base::Loaded(y))) => {
                    let mut set = self.pointers.set(x).clone();
                    set.extend(self.pointers.set(y));
                    Some(Base::Loaded(self.pointers.intern(set)))
                }
                _ => Some(Base::Mixed),
            };
        }
        Ok(b)
    }

    /// The base of a loaded pointer: a buffer bound statically (a
    /// `__device__` pointer variable, a kernel argument's field at a
    /// constant offset), else the targets the cells it is read from hold
    /// (which are then holding, and host-set memory gets its buffers).
    fn loaded_base(
        &mut self,
        instr: &Instr,
        defs: &HashMap<&str, &Instr>,
        bases: &HashMap<String, Base>,
    ) -> R<(Base, bool)> {
        let from = &instr.operands[0].value;
        if let Some(v) = self.pointer_global(from) {
            return Ok((Base::Var(v), false));
        }
        if let Some((v, k)) = self.static_ptr(from, defs)? {
            if let Some(d) = self.pointer_field(v, k) {
                self.pointers.bound.insert(v);
                return Ok((Base::Var(d), false));
            }
        }
        let mut grew = false;
        let mut targets = BTreeSet::new();
        for cell in self.cells(from, bases)? {
            grew |= self.mark_holding(cell);
            targets.extend(self.pointers.held(cell));
        }
        Ok((Base::Loaded(self.pointers.intern(targets)), grew))
    }

    /// What a store of a pointer, or a `memcpy`, adds to the cells it
    /// writes; whether anything grew.
    fn pointer_writes(&mut self, instr: &Instr, bases: &HashMap<String, Base>) -> R<bool> {
        let mut grew = false;
        let is_pointer_store = matches!(instr.kind, InstrKind::Store { .. })
            && instr.operands.len() >= 2
            && matches!(instr.operands[0].ty, LType::Ptr(_));
        if is_pointer_store {
            let vars = self.pointees(&instr.operands[0].value, bases)?;
            for cell in self.cells(&instr.operands[1].value, bases)? {
                grew |= self.pointers.hold(cell, &vars);
                self.pointers.written.entry(cell).or_insert(instr.line);
            }
        }
        if instr.is_memcpy() && instr.operands.len() >= 2 {
            let to = self.cells(&instr.operands[0].value, bases)?;
            let from = self.cells(&instr.operands[1].value, bases)?;
            for &d in &to {
                self.pointers.written.entry(d).or_insert(instr.line);
                for &s in &from {
                    let held = self.pointers.held(s);
                    grew |= self.pointers.hold(d, &held);
                    if self.pointers.is_holding(d) {
                        grew |= self.mark_holding(s);
                    }
                }
            }
        }
        Ok(grew)
    }

    /// The cells a pointer value may point into.
    pub(super) fn cells(&mut self, v: &Value, bases: &HashMap<String, Base>) -> R<Vec<Cell>> {
        Ok(match self.base_of(v, bases)? {
            Some(Base::Var(v)) => vec![Cell::Var(v)],
            Some(Base::Private) => vec![Cell::Private],
            Some(Base::Loaded(k)) => self.pointers.set(k).iter().map(|v| Cell::Var(*v)).collect(),
            Some(Base::Mixed) | None => vec![],
        })
    }

    /// The variables a pointer value stored to memory may point into.
    fn pointees(&mut self, v: &Value, bases: &HashMap<String, Base>) -> R<BTreeSet<VarId>> {
        Ok(match self.base_of(v, bases)? {
            Some(Base::Var(v)) => BTreeSet::from([v]),
            Some(Base::Loaded(k)) => self.pointers.set(k).clone(),
            _ => BTreeSet::new(),
        })
    }

    /// Marks `cell` as one pointers are loaded from; host-set memory then
    /// holds a buffer per 8-byte word. Whether anything changed.
    fn mark_holding(&mut self, cell: Cell) -> bool {
        if !self.pointers.holding.insert(cell) {
            return false;
        }
        let Cell::Var(v) = cell else {
            return true;
        };
        if !self.pointers.host_set.contains(&v) {
            return true;
        }
        // A struct by value is held as 32-bit words; a buffer's elements
        // are its pointers.
        let var = &self.vars[v as usize];
        let words = match self.by_value.contains(&v) {
            true => var.len.div_ceil(2),
            false => var.len,
        };
        let mut buffers = BTreeSet::new();
        for j in 0..words {
            let d = self.word_buffer(v, i64::from(j) * 8);
            buffers.insert(d);
            self.pointers.inits.push((v, j, d));
        }
        self.pointers.hold(cell, &buffers);
        true
    }

    /// A pointer word read at a constant offset is bound to its buffer
    /// once, as the host set it: sound only where the kernel never stores
    /// a pointer there.
    fn check_bound_unwritten(&mut self) -> R<()> {
        let clash = self
            .pointers
            .written
            .iter()
            .find_map(|(cell, line)| match cell {
                Cell::Var(v) if self.pointers.bound.contains(v) => Some((*v, *line)),
                _ => None,
            });
        let Some((v, line)) = clash else {
            return Ok(());
        };
        if let Some(instr) = self.func.instructions().find(|i| i.line == line) {
            self.locate(instr);
        }
        self.refuse(format!(
            "a pointer stored into `{}`, whose pointer words are also read at constant offsets (the model binds those once, as the host set them)",
            self.vars[v as usize].name
        ))
    }

    /// The first instruction (its LLVM IR line) that stores a pointer into
    /// global or shared memory, if any: another kernel launched alongside
    /// could load it, and each kernel's points-to facts are its own.
    pub(super) fn pointer_stored_in_memory(&self) -> Option<usize> {
        self.pointers
            .written
            .iter()
            .find_map(|(cell, line)| matches!(cell, Cell::Var(_)).then_some(*line))
    }

    /// A pointer's address, in `values::address`'s layout.
    pub(super) fn address_of(&self, p: &Ptr) -> R<Expr> {
        match p.region {
            Region::Var(v) => Ok(super::memory::add(
                Expr::Const(i64::from(v + 1) << ADDRESS_SHIFT),
                p.offset.clone(),
            )),
            Region::Address => Ok(p.offset.clone()),
            Region::Private(_) => self.refuse("the address of a thread's private memory (a local variable whose address is taken has no address in the model)"),
        }
    }

    /// `load ptr`: a pointer word bound statically (see `loaded_base`),
    /// or read from memory as a 64-bit address.
    pub(super) fn load_pointer(
        &mut self,
        instr: &Instr,
        volatile: bool,
        atomic: Option<&Atomic>,
    ) -> R<()> {
        let Some(res) = instr.result.clone() else {
            return Ok(());
        };
        match self.bases.get(&res) {
            Some(Base::Var(d)) => {
                let p = Ptr {
                    region: Region::Var(*d),
                    offset: Expr::Const(0),
                };
                self.bind_ptr(instr, p)
            }
            Some(Base::Loaded(_)) => {
                let dst = self.new_local(&format!("%{res}.address"), crate::ir::Type::I64);
                let p = self.ptr(&instr.operands[0])?;
                if let Region::Private(k) = p.region {
                    if atomic.is_some() {
                        return self.refuse("an atomic load of a thread's local variable");
                    }
                    let value = self.private_load(k, &p.offset, 64)?;
                    self.emit(Op::Assign { dst, value });
                } else {
                    let loc = self.loc(&p, 64)?;
                    let order = self.load_order(volatile, atomic)?;
                    self.emit(Op::Load {
                        dst,
                        access: order.at(loc),
                    });
                }
                let p = Ptr {
                    region: Region::Address,
                    offset: Expr::Local(dst),
                };
                self.bind_ptr(instr, p)
            }
            _ => self.refuse("a pointer loaded from memory the model cannot name"),
        }
    }

    /// `store ptr %p, ptr %q`: `%p`'s address, a 64-bit word.
    pub(super) fn store_pointer(
        &mut self,
        instr: &Instr,
        volatile: bool,
        atomic: Option<&Atomic>,
    ) -> R<()> {
        let value = match instr.operands[0].value {
            Value::Null => Expr::Const(0),
            _ => {
                let p = self.ptr(&instr.operands[0])?;
                self.address_of(&p)?
            }
        };
        self.store_value(instr, 64, value, volatile, atomic)
    }

    /// The order of a load (and the fence PTX puts before a `seq_cst`
    /// one, emitted).
    pub(super) fn load_order(&mut self, volatile: bool, atomic: Option<&Atomic>) -> R<MemOrder> {
        self.access_order(volatile, atomic, AtomicAccess::Load)
    }

    /// The order of a store (its fence emitted).
    pub(super) fn store_order(&mut self, volatile: bool, atomic: Option<&Atomic>) -> R<MemOrder> {
        self.access_order(volatile, atomic, AtomicAccess::Store)
    }

    fn access_order(
        &mut self,
        volatile: bool,
        atomic: Option<&Atomic>,
        access: AtomicAccess,
    ) -> R<MemOrder> {
        Ok(match atomic {
            Some(a) => {
                let m = self.mapped(a, access)?;
                if let Some(f) = m.fence {
                    self.emit(Op::Fence(f));
                }
                m.order
            }
            None if volatile => MemOrder::new(Order::Volatile, Scope::Sys),
            None => MemOrder::new(Order::Weak, Scope::Cta),
        })
    }

    /// The operands an instruction accesses memory through (not a stored
    /// value, not a pointer it only computes with).
    fn address_operands(instr: &Instr) -> Vec<usize> {
        match &instr.kind {
            InstrKind::Load { .. } | InstrKind::AtomicRmw { .. } | InstrKind::CmpXchg { .. } => {
                vec![0]
            }
            InstrKind::Store { .. } => vec![1],
            InstrKind::Call {
                callee: Callee::Asm { .. },
            } => (0..instr.operands.len()).collect(),
            InstrKind::Call {
                callee: Callee::Function(f),
            } if f.starts_with("llvm.memcpy.") => vec![0, 1],
            InstrKind::Call {
                callee: Callee::Function(f),
            } if super::access::atomic_intrinsic(f).is_some() => vec![0],
            _ => vec![],
        }
    }

    /// Lowers `instr`, once per variable each pointer read from memory
    /// that it accesses through may point into (see the module's comment).
    pub(super) fn dispatched(&mut self, instr: &Instr) -> R<()> {
        let mut names: Vec<String> = Vec::new();
        for i in Self::address_operands(instr) {
            let Some(op) = instr.operands.get(i) else {
                continue;
            };
            if let Value::Local(n) = &op.value {
                let dynamic = matches!(
                    self.ptrs.get(n),
                    Some(Ptr {
                        region: Region::Address,
                        ..
                    })
                );
                if dynamic && !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        self.dispatch(instr, &names)?;
        // A result computed differently in each case is no constant.
        if !names.is_empty() {
            if let Some(r) = &instr.result {
                self.consts.remove(r);
            }
        }
        Ok(())
    }

    fn dispatch(&mut self, instr: &Instr, names: &[String]) -> R<()> {
        let Some((name, rest)) = names.split_first() else {
            return self.instr(instr);
        };
        let p = self.ptrs[name].clone();
        let targets: Vec<VarId> = match self.bases.get(name) {
            Some(Base::Loaded(k)) => self.pointers.set(*k).iter().copied().collect(),
            _ => vec![],
        };
        let mut ends = Vec::new();
        for v in targets {
            let tag = i64::from(v + 1);
            let cond = Expr::Binary(
                BinOp::Eq,
                Box::new(Expr::Binary(
                    BinOp::Shr,
                    Box::new(p.offset.clone()),
                    Box::new(Expr::Const(i64::from(ADDRESS_SHIFT))),
                )),
                Box::new(Expr::Const(tag)),
            );
            let at = self.code.len();
            self.emit(Op::Branch {
                cond,
                then_pc: at as u32 + 1,
                else_pc: 0,
            });
            let inside = Ptr {
                region: Region::Var(v),
                offset: Expr::Binary(
                    BinOp::Sub,
                    Box::new(p.offset.clone()),
                    Box::new(Expr::Const(tag << ADDRESS_SHIFT)),
                ),
            };
            self.ptrs.insert(name.clone(), inside);
            let lowered = self.dispatch(instr, rest);
            self.ptrs.insert(name.clone(), p.clone());
            lowered?;
            ends.push(self.code.len());
            self.emit(Op::Jump { target: 0 });
            let next = self.code.len() as u32;
            if let Op::Branch { else_pc, .. } = &mut self.code[at].op {
                *else_pc = next;
            }
        }
        self.failure("a pointer read from memory that points into no variable of the launch (NULL, or never set) is dereferenced")?;
        let end = self.code.len() as u32;
        for at in ends {
            if let Op::Jump { target } = &mut self.code[at].op {
                *target = end;
            }
        }
        Ok(())
    }

    /// `icmp eq/ne p, null` (stdgpu's `_value == nullptr`): a pointer the
    /// model follows points into a variable, so it is never null. Other
    /// comparisons of pointers are refused.
    pub(super) fn pointer_null_test(&mut self, instr: &Instr, pred: &str) -> R<()> {
        let (a, b) = (&instr.operands[0].value, &instr.operands[1].value);
        let other = match (a, b) {
            (Value::Null, v) | (v, Value::Null) => v,
            _ => return self.refuse("a comparison of pointers: the model has no addresses"),
        };
        match pred {
            // A buffer or a field is never null; a pointer phi is where it
            // holds NULL's offset (`memory::NULL_OFFSET`), and a pointer read
            // from memory where its address is 0.
            "eq" | "ne" if self.followed(other) => {
                let p = self.ptr(&Operand {
                    ty: instr.operands[0].ty.clone(),
                    value: other.clone(),
                })?;
                let null = match p.region {
                    Region::Address => 0,
                    _ => NULL_OFFSET,
                };
                let op = if pred == "eq" { BinOp::Eq } else { BinOp::Ne };
                self.assign(
                    instr,
                    Expr::Binary(op, Box::new(p.offset), Box::new(Expr::Const(null))),
                )
            }
            _ => self.refuse("a comparison of a pointer the model cannot follow with null"),
        }
    }
}
