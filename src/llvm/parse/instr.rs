//! Function bodies: blocks, and the instructions clang-19 and opt-19 emit
//! for CUDA device code (the spike's census). Others are refused by name.

use super::Parser;
use crate::llvm::ir::{
    Atomic, BinOp, Block, Callee, CastOp, Function, Instr, InstrKind, Operand, Ordering, RmwOp,
    Type,
};
use crate::llvm::lexer::{ParseError, Tok};

/// Fast-math flags (skipped, but for `contract`: `Instr::contract`).
const FMF: &[&str] = &[
    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
];

impl Parser {
    /// `{ blocks }`; the entry block may be unlabelled.
    pub(super) fn body(&mut self, f: &mut Function) -> Result<(), ParseError> {
        self.expect_punct('{')?;
        let numbered_params = f
            .params
            .iter()
            .filter(|p| p.name.as_deref().is_some_and(is_number) || p.name.is_none())
            .count();
        loop {
            if self.eat_punct('}') {
                return Ok(());
            }
            let name = match self.peek().clone() {
                Tok::Label(l) => {
                    self.bump();
                    l
                }
                _ if f.blocks.is_empty() => numbered_params.to_string(),
                t => return self.err(format!("expected a block label, found {t}")),
            };
            let mut instrs = Vec::new();
            let terminator = loop {
                let i = self.instruction()?;
                if i.kind.is_terminator() {
                    break i;
                }
                instrs.push(i);
            };
            f.blocks.push(Block {
                name,
                instrs,
                terminator,
            });
        }
    }

    /// One instruction with its attachments.
    fn instruction(&mut self) -> Result<Instr, ParseError> {
        // Debug records (`#dbg_declare(...)`) describe variables: skipped.
        while let Tok::DbgRecord(_) = self.peek() {
            self.bump();
            if !self.is_punct('(') {
                return self.expected("`(` after a debug record");
            }
            self.skip_parens()?;
        }
        let line = self.line();
        let result = match self.peek().clone() {
            Tok::Local(n) if *self.peek_at(1) == Tok::Punct('=') => {
                self.bump();
                self.bump();
                Some(n)
            }
            _ => None,
        };
        let op = match self.peek().clone() {
            Tok::Ident(w) => {
                self.bump();
                w
            }
            Tok::Punct('}') => return self.err("the block ends without a terminator"),
            t => return self.err(format!("expected an instruction, found {t}")),
        };
        // Fast-math flags come right after the opcode.
        let mut contract = false;
        while let Tok::Ident(w) = self.peek() {
            if !FMF.contains(&w.as_str()) {
                break;
            }
            contract |= w == "contract" || w == "fast";
            self.bump();
        }
        let (kind, ty, operands) = self.instruction_body(&op)?;
        let mut dbg = None;
        while self.is_punct(',') && matches!(self.peek_at(1), Tok::MetaName(_)) {
            self.bump();
            let Tok::MetaName(name) = self.bump() else {
                unreachable!("checked above")
            };
            let id = self.metadata_attachment_value()?;
            if name == "dbg" {
                dbg = id;
            }
        }
        Ok(Instr {
            result,
            kind,
            ty,
            operands,
            dbg,
            contract,
            line,
        })
    }

    fn instruction_body(
        &mut self,
        op: &str,
    ) -> Result<(InstrKind, Type, Vec<Operand>), ParseError> {
        if let Some(b) = BinOp::from_name(op) {
            while self.eat_any(&["nuw", "nsw", "exact", "disjoint"]) || self.eat_any(FMF) {}
            let a = self.operand()?;
            self.expect_punct(',')?;
            let bv = self.value(&a.ty)?;
            let b_op = Operand {
                ty: a.ty.clone(),
                value: bv,
            };
            return Ok((InstrKind::Binary(b), a.ty.clone(), vec![a, b_op]));
        }
        if let Some(c) = CastOp::from_name(op) {
            while self.eat_any(&["nneg", "nuw", "nsw"]) {}
            let v = self.operand()?;
            self.expect_ident("to")?;
            let to = self.ty()?;
            return Ok((InstrKind::Cast(c), to, vec![v]));
        }
        Ok(match op {
            "ret" | "br" | "switch" | "unreachable" => return self.terminator(op),
            "alloca" | "getelementptr" => return self.address(op),
            "load" | "store" | "atomicrmw" | "cmpxchg" | "fence" => return self.access(op),
            "extractvalue" | "insertvalue" | "extractelement" | "insertelement"
            | "shufflevector" => return self.element_access(op),
            "fneg" => {
                while self.eat_any(FMF) {}
                let v = self.operand()?;
                (InstrKind::FNeg, v.ty.clone(), vec![v])
            }
            "icmp" | "fcmp" => {
                while self.eat_any(FMF) || self.eat_ident("samesign") {}
                let pred = self.ident()?;
                let a = self.operand()?;
                self.expect_punct(',')?;
                let bv = self.value(&a.ty)?;
                let ty = match &a.ty {
                    Type::Vector(n, _) => Type::Vector(*n, Box::new(Type::Int(1))),
                    _ => Type::Int(1),
                };
                let b = Operand {
                    ty: a.ty.clone(),
                    value: bv,
                };
                let kind = if op == "icmp" {
                    InstrKind::ICmp(pred)
                } else {
                    InstrKind::FCmp(pred)
                };
                (kind, ty, vec![a, b])
            }
            "phi" => {
                while self.eat_any(FMF) {}
                let ty = self.ty()?;
                let mut blocks = Vec::new();
                let mut operands = Vec::new();
                loop {
                    self.expect_punct('[')?;
                    let value = self.value(&ty)?;
                    self.expect_punct(',')?;
                    match self.bump() {
                        Tok::Local(b) => blocks.push(b),
                        t => return self.err(format!("expected a `%block` in a phi, found {t}")),
                    }
                    self.expect_punct(']')?;
                    operands.push(Operand {
                        ty: ty.clone(),
                        value,
                    });
                    if !(self.is_punct(',') && *self.peek_at(1) == Tok::Punct('[')) {
                        break;
                    }
                    self.bump();
                }
                (InstrKind::Phi { blocks }, ty, operands)
            }
            "select" => {
                while self.eat_any(FMF) {}
                let c = self.operand()?;
                self.expect_punct(',')?;
                let a = self.operand()?;
                self.expect_punct(',')?;
                let b = self.operand()?;
                (InstrKind::Select, a.ty.clone(), vec![c, a, b])
            }
            "freeze" => {
                let v = self.operand()?;
                (InstrKind::Freeze, v.ty.clone(), vec![v])
            }
            "tail" | "musttail" | "notail" => {
                self.expect_ident("call")?;
                return self.call();
            }
            "call" => return self.call(),
            other => return self.unsupported(other),
        })
    }

    /// `ret`, `br`, `switch`, `unreachable`.
    fn terminator(&mut self, op: &str) -> Result<(InstrKind, Type, Vec<Operand>), ParseError> {
        Ok(match op {
            "ret" => {
                if self.eat_ident("void") {
                    (InstrKind::Ret, Type::Void, vec![])
                } else {
                    let v = self.operand()?;
                    (InstrKind::Ret, Type::Void, vec![v])
                }
            }
            "br" => {
                if self.is_ident("label") {
                    let dest = self.label()?;
                    (InstrKind::Br { dest }, Type::Void, vec![])
                } else {
                    let c = self.operand()?;
                    self.expect_punct(',')?;
                    let then = self.label()?;
                    self.expect_punct(',')?;
                    let els = self.label()?;
                    (InstrKind::CondBr { then, els }, Type::Void, vec![c])
                }
            }
            "switch" => {
                let v = self.operand()?;
                self.expect_punct(',')?;
                let default = self.label()?;
                self.expect_punct('[')?;
                let mut cases = Vec::new();
                while !self.eat_punct(']') {
                    self.ty()?;
                    let c = self.int_constant()?;
                    self.expect_punct(',')?;
                    cases.push((c, self.label()?));
                }
                (InstrKind::Switch { default, cases }, Type::Void, vec![v])
            }
            "unreachable" => (InstrKind::Unreachable, Type::Void, vec![]),
            other => return self.unsupported(other),
        })
    }

    /// Where memory is: `alloca`, `getelementptr`.
    fn address(&mut self, op: &str) -> Result<(InstrKind, Type, Vec<Operand>), ParseError> {
        Ok(match op {
            "alloca" => {
                self.eat_ident("inalloca");
                let allocated = self.ty()?;
                let mut operands = Vec::new();
                let mut align = None;
                let mut addrspace = 0;
                while self.is_punct(',') && !matches!(self.peek_at(1), Tok::MetaName(_)) {
                    self.bump();
                    if self.eat_ident("align") {
                        align = Some(self.u64()?);
                    } else if self.eat_ident("addrspace") {
                        addrspace = self.addrspace_parens()?;
                    } else {
                        operands.push(self.operand()?);
                    }
                }
                (
                    InstrKind::Alloca { allocated, align },
                    Type::Ptr(addrspace),
                    operands,
                )
            }
            "getelementptr" => {
                let mut inbounds = false;
                loop {
                    if self.eat_ident("inbounds") {
                        inbounds = true;
                    } else if !self.eat_any(&["nuw", "nusw"]) {
                        break;
                    }
                }
                let source = self.ty()?;
                let mut operands = Vec::new();
                while self.is_punct(',') && !matches!(self.peek_at(1), Tok::MetaName(_)) {
                    self.bump();
                    operands.push(self.operand()?);
                }
                let Some(base) = operands.first() else {
                    return self.err("getelementptr without a base pointer");
                };
                let ty = base.ty.clone();
                (InstrKind::GetElementPtr { source, inbounds }, ty, operands)
            }
            other => return self.unsupported(other),
        })
    }

    /// Accesses to memory: `load`, `store`, `atomicrmw`, `cmpxchg`, `fence`.
    fn access(&mut self, op: &str) -> Result<(InstrKind, Type, Vec<Operand>), ParseError> {
        Ok(match op {
            "load" => {
                let atomic = self.eat_ident("atomic");
                let volatile = self.eat_ident("volatile");
                let ty = self.ty()?;
                self.expect_punct(',')?;
                let addr = self.operand()?;
                let atomic = self.ordering_if(atomic)?;
                let align = self.align_tail()?;
                (
                    InstrKind::Load {
                        volatile,
                        atomic,
                        align,
                    },
                    ty,
                    vec![addr],
                )
            }
            "store" => {
                let atomic = self.eat_ident("atomic");
                let volatile = self.eat_ident("volatile");
                let v = self.operand()?;
                self.expect_punct(',')?;
                let addr = self.operand()?;
                let atomic = self.ordering_if(atomic)?;
                let align = self.align_tail()?;
                (
                    InstrKind::Store {
                        volatile,
                        atomic,
                        align,
                    },
                    Type::Void,
                    vec![v, addr],
                )
            }
            "atomicrmw" => {
                let volatile = self.eat_ident("volatile");
                let name = self.ident()?;
                let Some(rmw) = RmwOp::from_name(&name) else {
                    self.pos -= 1;
                    return self.err(format!("unsupported atomicrmw operation `{name}`"));
                };
                let addr = self.operand()?;
                self.expect_punct(',')?;
                let v = self.operand()?;
                let atomic = self.atomic_ordering()?;
                let align = self.align_tail()?;
                let ty = v.ty.clone();
                (
                    InstrKind::AtomicRmw {
                        op: rmw,
                        volatile,
                        atomic,
                        align,
                    },
                    ty,
                    vec![addr, v],
                )
            }
            "cmpxchg" => {
                let weak = self.eat_ident("weak");
                let volatile = self.eat_ident("volatile");
                let addr = self.operand()?;
                self.expect_punct(',')?;
                let cmp = self.operand()?;
                self.expect_punct(',')?;
                let new = self.operand()?;
                let success = self.atomic_ordering()?;
                let failure = self.ordering()?;
                let align = self.align_tail()?;
                let ty = Type::Struct {
                    fields: vec![cmp.ty.clone(), Type::Int(1)],
                    packed: false,
                };
                (
                    InstrKind::CmpXchg {
                        weak,
                        volatile,
                        success,
                        failure,
                        align,
                    },
                    ty,
                    vec![addr, cmp, new],
                )
            }
            "fence" => {
                let a = self.atomic_ordering()?;
                (InstrKind::Fence(a), Type::Void, vec![])
            }
            other => return self.unsupported(other),
        })
    }

    /// Struct and vector element access: `extractvalue`, `insertvalue`,
    /// `extractelement`, `insertelement`, `shufflevector`.
    fn element_access(&mut self, op: &str) -> Result<(InstrKind, Type, Vec<Operand>), ParseError> {
        Ok(match op {
            "extractvalue" => {
                let agg = self.operand()?;
                let indices = self.indices()?;
                let ty = self.member_type(&agg.ty, &indices)?;
                (InstrKind::ExtractValue { indices }, ty, vec![agg])
            }
            "insertvalue" => {
                let agg = self.operand()?;
                self.expect_punct(',')?;
                let v = self.operand()?;
                let indices = self.indices()?;
                let ty = agg.ty.clone();
                (InstrKind::InsertValue { indices }, ty, vec![agg, v])
            }
            "extractelement" => {
                let vec = self.operand()?;
                self.expect_punct(',')?;
                let idx = self.operand()?;
                let ty = match &vec.ty {
                    Type::Vector(_, e) => (**e).clone(),
                    t => return self.err(format!("extractelement on a non-vector {t:?}")),
                };
                (InstrKind::ExtractElement, ty, vec![vec, idx])
            }
            "insertelement" => {
                let vec = self.operand()?;
                self.expect_punct(',')?;
                let e = self.operand()?;
                self.expect_punct(',')?;
                let idx = self.operand()?;
                let ty = vec.ty.clone();
                (InstrKind::InsertElement, ty, vec![vec, e, idx])
            }
            "shufflevector" => {
                let a = self.operand()?;
                self.expect_punct(',')?;
                let b = self.operand()?;
                self.expect_punct(',')?;
                let mask = self.operand()?;
                let ty = match (&a.ty, &mask.ty) {
                    (Type::Vector(_, e), Type::Vector(n, _)) => Type::Vector(*n, e.clone()),
                    _ => return self.err("shufflevector needs vector operands"),
                };
                (InstrKind::ShuffleVector, ty, vec![a, b, mask])
            }
            other => return self.unsupported(other),
        })
    }

    fn unsupported<T>(&mut self, op: &str) -> Result<T, ParseError> {
        self.pos -= 1;
        self.err(format!("unsupported instruction `{op}`"))
    }

    /// After `call`: `[flags] [cc] [ret attrs] T callee(args) [#N] [bundles]`.
    fn call(&mut self) -> Result<(InstrKind, Type, Vec<Operand>), ParseError> {
        while self.eat_any(FMF) {}
        while !self.at_type_start() {
            match self.peek() {
                Tok::Ident(_) => {
                    self.bump();
                    self.skip_parens()?;
                }
                Tok::Int(_) => {
                    self.bump();
                }
                t => return self.err(format!("expected the call's type, found {t}")),
            }
        }
        let fty = self.ty()?;
        let ret = match &fty {
            Type::Function { ret, .. } => (**ret).clone(),
            t => t.clone(),
        };
        let callee = match self.peek().clone() {
            Tok::Ident(w) if w == "asm" => {
                self.bump();
                let mut sideeffect = false;
                loop {
                    if self.eat_ident("sideeffect") {
                        sideeffect = true;
                    } else if !self.eat_any(&["alignstack", "inteldialect", "unwind"]) {
                        break;
                    }
                }
                let template = self.string()?;
                self.expect_punct(',')?;
                let constraints = self.string()?;
                Callee::Asm {
                    template,
                    constraints,
                    sideeffect,
                }
            }
            Tok::Global(g) => {
                self.bump();
                Callee::Function(g)
            }
            _ => Callee::Indirect(self.value(&Type::Ptr(0))?),
        };
        self.expect_punct('(')?;
        let mut args = Vec::new();
        if !self.eat_punct(')') {
            loop {
                args.push(self.operand()?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        loop {
            match self.peek() {
                Tok::AttrGroup(_) => {
                    self.bump();
                }
                Tok::Punct('[') => {
                    // Operand bundles: `[ "name"(T v, ...), ... ]`.
                    self.bump();
                    while !self.eat_punct(']') {
                        self.string()?;
                        self.expect_punct('(')?;
                        if !self.eat_punct(')') {
                            loop {
                                self.operand()?;
                                if self.eat_punct(')') {
                                    break;
                                }
                                self.expect_punct(',')?;
                            }
                        }
                        self.eat_punct(',');
                    }
                }
                _ => break,
            }
        }
        Ok((InstrKind::Call { callee }, ret, args))
    }

    /// `label %name`.
    fn label(&mut self) -> Result<String, ParseError> {
        self.expect_ident("label")?;
        match self.bump() {
            Tok::Local(n) => Ok(n),
            t => self.err(format!("expected a `%label`, found {t}")),
        }
    }

    /// An integer constant (`true`/`false` too) for a switch case.
    fn int_constant(&mut self) -> Result<i128, ParseError> {
        if self.eat_ident("true") {
            return Ok(1);
        }
        if self.eat_ident("false") {
            return Ok(0);
        }
        self.int()
    }

    /// `[syncscope("s")] ORDERING`.
    /// The ordering of a `load atomic` / `store atomic`, after its operands.
    fn ordering_if(&mut self, atomic: bool) -> Result<Option<Atomic>, ParseError> {
        if atomic {
            self.atomic_ordering().map(Some)
        } else {
            Ok(None)
        }
    }

    fn atomic_ordering(&mut self) -> Result<Atomic, ParseError> {
        let scope = if self.eat_ident("syncscope") {
            self.expect_punct('(')?;
            let s = self.string()?;
            self.expect_punct(')')?;
            Some(s)
        } else {
            None
        };
        let ordering = self.ordering()?;
        Ok(Atomic { ordering, scope })
    }

    fn ordering(&mut self) -> Result<Ordering, ParseError> {
        match self.peek() {
            Tok::Ident(w) => match Ordering::from_name(w) {
                Some(o) => {
                    self.bump();
                    Ok(o)
                }
                None => self.err(format!("unsupported memory ordering `{w}`")),
            },
            _ => self.expected("a memory ordering"),
        }
    }

    /// `, align N` if next.
    fn align_tail(&mut self) -> Result<Option<u64>, ParseError> {
        if self.is_punct(',') && *self.peek_at(1) == Tok::Ident("align".into()) {
            self.bump();
            self.bump();
            return Ok(Some(self.u64()?));
        }
        Ok(None)
    }

    /// `, i, j, ...` of extractvalue/insertvalue.
    fn indices(&mut self) -> Result<Vec<u32>, ParseError> {
        let mut out = Vec::new();
        while self.is_punct(',') && matches!(self.peek_at(1), Tok::Int(_)) {
            self.bump();
            out.push(self.u32()?);
        }
        if out.is_empty() {
            return self.expected("an index");
        }
        Ok(out)
    }

    /// The type at `indices` inside the aggregate type `ty`.
    fn member_type(&self, ty: &Type, indices: &[u32]) -> Result<Type, ParseError> {
        let mut t = ty.clone();
        for &i in indices {
            let mut guard = 0;
            while let Type::Named(n) = &t {
                guard += 1;
                match self.types.get(n) {
                    Some(Some(d)) if guard < 100 => t = d.clone(),
                    _ => return self.err(format!("cannot index into the type `%{n}`")),
                }
            }
            t = match t {
                Type::Struct { fields, .. } => match fields.get(i as usize) {
                    Some(f) => f.clone(),
                    None => return self.err(format!("index {i} out of range")),
                },
                Type::Array(n, e) if u64::from(i) < n => *e,
                _ => return self.err(format!("index {i} into a non-aggregate type")),
            };
        }
        Ok(t)
    }

    /// Consumes one of `words`, if next.
    fn eat_any(&mut self, words: &[&str]) -> bool {
        match self.peek() {
            Tok::Ident(w) if words.contains(&w.as_str()) => {
                self.bump();
                true
            }
            _ => false,
        }
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}
