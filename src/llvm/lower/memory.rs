//! Memory: `__shared__` and `__device__` globals become variables of
//! their own (a kernel's parameters are `params`'s); a
//! pointer SSA value is a variable and a byte offset, `getelementptr`
//! adds to the offset, and an access of `bits` divides it by the
//! element's size into the location's index.

use super::{Lowerer, R};
use crate::ir::{BinOp, Storage, Type};
use crate::ir::{Expr, Loc, MemVar, VarId};
use crate::llvm::ir::{CastOp, ConstExpr, InstrKind, Operand, Type as LType, Value};
use std::collections::HashMap;

/// The byte offset a NULL pointer phi holds: far below any variable.
pub(super) const NULL_OFFSET: i64 = -(1 << 40);

/// What a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    /// A memory variable: a buffer, a `__shared__` or `__device__` variable.
    Var(VarId),
    /// The k-th `alloca`: the thread's private memory (`private.rs`).
    Private(u32),
    /// A pointer read from memory (`pointers.rs`): the offset is its
    /// whole address, and an access through it is a choice among the
    /// variables it may point into.
    Address,
}

/// A pointer: a region and a byte offset into it.
#[derive(Clone, Debug)]
pub(crate) struct Ptr {
    pub(crate) region: Region,
    pub(crate) offset: Expr,
}

impl Ptr {
    /// The memory variable it points into, if it is not private memory.
    pub(crate) fn var(&self) -> Option<VarId> {
        match self.region {
            Region::Var(v) => Some(v),
            Region::Private(_) | Region::Address => None,
        }
    }
}

/// What a pointer SSA value may point into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    Var(VarId),
    Private,
    /// Into more than one variable (a phi or select of two buffers).
    Mixed,
    /// Read from memory: into one of the variables of target set `k`
    /// (`pointers::PointerFacts::set`).
    Loaded(u32),
}

/// The type of a memory variable whose accesses are `bits` wide, compared
/// signed or not (`atomicMax` on an `int` is signed).
pub(crate) fn var_type(bits: Option<u32>, signed: Option<bool>) -> Type {
    let s = signed.unwrap_or(false);
    match bits.unwrap_or(32) {
        0..=8 if s => Type::I8,
        0..=8 => Type::U8,
        9..=16 if s => Type::I16,
        9..=16 => Type::U16,
        17..=32 if s => Type::I32,
        17..=32 => Type::U32,
        _ if s => Type::I64,
        _ => Type::U64,
    }
}

/// The bytes `(size, alignment)` of a type, where the model can name it.
fn layout(module: &crate::llvm::ir::Module, ty: &LType) -> Option<(u64, u64)> {
    Some(match ty {
        LType::Int(w) => {
            let b = u64::from(w.div_ceil(8)).next_power_of_two();
            (b, b)
        }
        LType::Half | LType::BFloat => (2, 2),
        LType::Float => (4, 4),
        LType::Double | LType::Ptr(_) => (8, 8),
        LType::Array(n, t) | LType::Vector(n, t) => {
            let (s, a) = layout(module, t)?;
            (n.checked_mul(s)?, a)
        }
        LType::Struct { fields, packed } => {
            let (mut size, mut align) = (0u64, 1u64);
            for f in fields {
                let (s, a) = layout(module, f)?;
                let a = if *packed { 1 } else { a };
                size = size.div_ceil(a) * a + s;
                align = align.max(a);
            }
            (size.div_ceil(align) * align, align)
        }
        LType::Named(n) => layout(module, module.struct_types.get(n)?.as_ref()?)?,
        _ => return None,
    })
}

/// The bytes of a type, where the model can name it.
pub(crate) fn size_of(module: &crate::llvm::ir::Module, ty: &LType) -> Option<u64> {
    layout(module, ty).map(|(size, _)| size)
}

/// The byte offset of field `i` of a struct type.
fn field_offset(module: &crate::llvm::ir::Module, ty: &LType, i: usize) -> Option<(u64, LType)> {
    let (fields, packed) = match ty {
        LType::Struct { fields, packed } => (fields, *packed),
        LType::Named(n) => return field_offset(module, module.struct_types.get(n)?.as_ref()?, i),
        _ => return None,
    };
    let mut at = 0u64;
    for (k, f) in fields.iter().enumerate() {
        let (s, a) = layout(module, f)?;
        let a = if packed { 1 } else { a };
        at = at.div_ceil(a) * a;
        if k == i {
            return Some((at, f.clone()));
        }
        at += s;
    }
    None
}

/// The scalar field of `ty` (an integer, a floating-point value or a
/// pointer, in a struct or an array, at any depth) that holds byte `k`:
/// its byte offset and type; `None` in padding or past the end.
pub(crate) fn leaf_at(
    module: &crate::llvm::ir::Module,
    ty: &LType,
    k: u64,
) -> Option<(u64, LType)> {
    match ty {
        LType::Struct { .. } | LType::Named(_) => {
            let mut i = 0;
            loop {
                let (at, field) = field_offset(module, ty, i)?;
                let (size, _) = layout(module, &field)?;
                if (at..at + size).contains(&k) {
                    let (o, leaf) = leaf_at(module, &field, k - at)?;
                    return Some((at + o, leaf));
                }
                i += 1;
            }
        }
        LType::Array(n, elem) | LType::Vector(n, elem) => {
            let (size, _) = layout(module, elem)?;
            let i = k.checked_div(size)?;
            if i >= *n {
                return None;
            }
            let (o, leaf) = leaf_at(module, elem, k - i * size)?;
            Some((i * size + o, leaf))
        }
        _ => {
            let (size, _) = layout(module, ty)?;
            (k < size).then(|| (0, ty.clone()))
        }
    }
}

pub(super) fn add(a: Expr, b: Expr) -> Expr {
    match (a, b) {
        (Expr::Const(0), e) | (e, Expr::Const(0)) => e,
        (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_add(y)),
        (a, b) => Expr::Binary(BinOp::Add, Box::new(a), Box::new(b)),
    }
}

fn scale(e: Expr, k: u64) -> Expr {
    match (e, k) {
        (_, 0) => Expr::Const(0),
        (e, 1) => e,
        (Expr::Const(x), k) => Expr::Const(x.wrapping_mul(k as i64)),
        (e, k) => Expr::Binary(BinOp::Mul, Box::new(e), Box::new(Expr::Const(k as i64))),
    }
}

/// `offset / size` where the offset is known to be a multiple of `size`
/// (`None`: a constant offset that is not).
fn divide(offset: &Expr, size: i64) -> Option<Expr> {
    if size == 1 {
        return Some(offset.clone());
    }
    match offset {
        Expr::Const(c) => (c % size == 0).then(|| Expr::Const(c / size)),
        Expr::Binary(BinOp::Mul, x, k) => match **k {
            Expr::Const(k) if k % size == 0 => Some(scale((**x).clone(), (k / size) as u64)),
            _ => Some(Expr::Binary(
                BinOp::Div,
                Box::new(offset.clone()),
                Box::new(Expr::Const(size)),
            )),
        },
        Expr::Binary(BinOp::Add, a, b) => match (divide(a, size), divide(b, size)) {
            (Some(a), Some(b)) if exact(&a, size) && exact(&b, size) => Some(add(a, b)),
            _ => Some(Expr::Binary(
                BinOp::Div,
                Box::new(offset.clone()),
                Box::new(Expr::Const(size)),
            )),
        },
        _ => Some(Expr::Binary(
            BinOp::Div,
            Box::new(offset.clone()),
            Box::new(Expr::Const(size)),
        )),
    }
}

/// Whether `divide` produced `e` without a division of its own (so that
/// a sum of such halves is the sum's quotient).
fn exact(e: &Expr, size: i64) -> bool {
    !matches!(e, Expr::Binary(BinOp::Div, _, k) if matches!(**k, Expr::Const(s) if s == size))
}

impl Lowerer<'_> {
    /// The variable of global `@name`, made on first use.
    pub(super) fn global_var(&mut self, name: &str) -> R<VarId> {
        if let Some(v) = self.global_vars.get(name) {
            return Ok(*v);
        }
        let Some(g) = self.module.global(name) else {
            return self.refuse(format!(
                "`@{name}` is a function or an unknown global: a pointer the model cannot follow"
            ));
        };
        let storage = match g.addrspace {
            3 => Storage::Shared,
            1 | 4 => Storage::Global,
            _ => {
                return self.refuse(format!(
                    "the global `{}` in address space {}: only __shared__, __device__ and __constant__ variables are modelled",
                    display_name(name),
                    g.addrspace
                ))
            }
        };
        let (len, bits, is_array) = match flatten(&g.ty).or_else(|| words_of(self.module, &g.ty)) {
            Some((len, bits)) => (len, bits, !matches!(g.ty, LType::Int(_) | LType::Float | LType::Double | LType::Half | LType::BFloat)),
            None => {
                return self.refuse(format!(
                    "the variable `{}` of LLVM type {:?}: only integers, floating-point values (as their bits), arrays of them and structs of those are modelled",
                    display_name(name),
                    g.ty
                ))
            }
        };
        let mut init = vec![0u64; len as usize];
        match &g.init {
            None | Some(Value::Zero | Value::Undef | Value::Poison) => {}
            Some(Value::Int(i)) if len == 1 => init[0] = zero_extend(*i, bits),
            Some(Value::Aggregate(items)) if items.len() == len as usize => {
                for (slot, it) in init.iter_mut().zip(items) {
                    match it.value {
                        Value::Int(i) => *slot = zero_extend(i, bits),
                        Value::Zero | Value::Undef | Value::Poison | Value::Null => {}
                        _ => {
                            return self
                                .refuse(format!("the initial value of `{}`", display_name(name)))
                        }
                    }
                }
            }
            Some(_) => {
                return self.refuse(format!(
                    "the initial value of `{}`: only integers are modelled",
                    display_name(name)
                ))
            }
        }
        if storage == Storage::Shared {
            init = (0..self.total_blocks).flat_map(|_| init.clone()).collect();
        }
        let var = self.vars.len() as VarId;
        self.vars.push(MemVar {
            name: display_name(name),
            storage,
            ty: Type::U32,
            volatile: false,
            len,
            is_array,
            init,
            span: self.span,
        });
        self.widths.push(Some(bits));
        self.signed.push(None);
        self.global_vars.insert(name.to_string(), var);
        Ok(var)
    }

    /// A pointer known before running: a variable at a constant offset
    /// (a parameter, or a constant `getelementptr` of one).
    pub(super) fn static_ptr(
        &mut self,
        v: &Value,
        defs: &HashMap<&str, &crate::llvm::ir::Instr>,
    ) -> R<Option<(VarId, i64)>> {
        let p = match v {
            Value::Local(n) => match (self.ptrs.get(n), defs.get(n.as_str())) {
                (Some(p), _) => p.clone(),
                (None, Some(def)) => match &def.kind {
                    InstrKind::Cast(CastOp::AddrSpaceCast | CastOp::BitCast) => {
                        return self.static_ptr(&def.operands[0].value, defs)
                    }
                    InstrKind::GetElementPtr { source, .. }
                        if def.operands[1..]
                            .iter()
                            .all(|o| matches!(o.value, Value::Int(_))) =>
                    {
                        let Some((var, k)) = self.static_ptr(&def.operands[0].value, defs)? else {
                            return Ok(None);
                        };
                        let base = Ptr {
                            region: Region::Var(var),
                            offset: Expr::Const(k),
                        };
                        self.gep(source, base, &def.operands[1..])?
                    }
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            },
            Value::Expr(ce) => self.const_ptr(ce)?,
            _ => return Ok(None),
        };
        Ok(match (p.var(), p.offset) {
            (Some(v), Expr::Const(k)) => Some((v, k)),
            _ => None,
        })
    }

    pub(super) fn base_of(&mut self, v: &Value, bases: &HashMap<String, Base>) -> R<Option<Base>> {
        Ok(match v {
            Value::Local(n) => bases.get(n).copied(),
            Value::Global(g) => match self.module.global(g) {
                Some(_) => Some(Base::Var(self.global_var(g)?)),
                None => None,
            },
            Value::Expr(ce) => match ce.operands.first() {
                Some(op)
                    if matches!(
                        ce.kind,
                        InstrKind::GetElementPtr { .. } | InstrKind::Cast(_)
                    ) =>
                {
                    self.base_of(&op.value, bases)?
                }
                _ => None,
            },
            _ => None,
        })
    }

    /// The pointer an operand is.
    pub(super) fn ptr(&mut self, op: &Operand) -> R<Ptr> {
        match &op.value {
            Value::Local(n) => match self.ptrs.get(n) {
                Some(p) => Ok(p.clone()),
                None => match self.bases.get(n) {
                    Some(Base::Mixed) => self.refuse("a pointer that may point into more than one buffer or variable (a phi or select of two pointers): the model names one variable per access"),
                    _ => self.refuse("a pointer the model cannot follow (computed from an integer, or from a value the model does not keep)"),
                },
            },
            Value::Global(g) => Ok(Ptr { region: Region::Var(self.global_var(g)?), offset: Expr::Const(0) }),
            Value::Expr(ce) => self.const_ptr(ce),
            Value::Null => self.refuse("a null pointer"),
            _ => self.refuse("a pointer the model cannot follow"),
        }
    }

    fn const_ptr(&mut self, ce: &ConstExpr) -> R<Ptr> {
        if ce.operands.is_empty() {
            return self.refuse("a constant expression without operands");
        }
        match &ce.kind {
            InstrKind::Cast(CastOp::AddrSpaceCast | CastOp::BitCast) => self.ptr(&ce.operands[0]),
            InstrKind::GetElementPtr { source, .. } => {
                let base = self.ptr(&ce.operands[0])?;
                self.gep(source, base, &ce.operands[1..])
            }
            _ => self.refuse("pointer arithmetic the model cannot name"),
        }
    }

    /// `getelementptr source, base, indices...`: the base moved by the
    /// indices' bytes (indices are signed).
    pub(super) fn gep(&mut self, source: &LType, base: Ptr, indices: &[Operand]) -> R<Ptr> {
        let mut offset = base.offset;
        let mut ty = source.clone();
        for (i, idx) in indices.iter().enumerate() {
            if i == 0 {
                let Some((size, _)) = layout(self.module, &ty) else {
                    return self.refuse(format!("an address computed over LLVM type {ty:?}"));
                };
                let e = self.signed_index(idx)?;
                offset = add(offset, scale(e, size));
                continue;
            }
            match ty.clone() {
                LType::Array(_, elem) | LType::Vector(_, elem) => {
                    let Some((size, _)) = layout(self.module, &elem) else {
                        return self.refuse(format!("an address computed over LLVM type {elem:?}"));
                    };
                    let e = self.signed_index(idx)?;
                    offset = add(offset, scale(e, size));
                    ty = *elem;
                }
                st @ (LType::Struct { .. } | LType::Named(_)) => {
                    let Value::Int(k) = idx.value else {
                        return self.refuse("a struct field chosen at run time");
                    };
                    let Some((at, field)) = field_offset(self.module, &st, k as usize) else {
                        return self.refuse(format!("a field of LLVM type {st:?}"));
                    };
                    offset = add(offset, Expr::Const(at as i64));
                    ty = field;
                }
                other => return self.refuse(format!("an index into LLVM type {other:?}")),
            }
        }
        Ok(Ptr {
            region: base.region,
            offset,
        })
    }

    fn signed_index(&mut self, idx: &Operand) -> R<Expr> {
        let LType::Int(w) = idx.ty else {
            return self.refuse("a vector index in an address");
        };
        let e = self.int(idx)?;
        Ok(super::values::sext(e, w))
    }

    /// The location an access of `bits` at `p` names.
    pub(super) fn loc(&mut self, p: &Ptr, bits: u32) -> R<Loc> {
        let Some(var) = p.var() else {
            return self.refuse("an access to a thread's local array or variable whose address is taken (private memory is not modelled)");
        };
        self.not_by_fields(var)?;
        let size = i64::from(bits.div_ceil(8).max(1));
        let Some(index) = divide(&p.offset, size) else {
            return self.refuse(format!(
                "an access of {bits} bits across elements of `{}`",
                self.vars[var as usize].name
            ));
        };
        if self.vars[var as usize].is_array {
            return Ok(Loc {
                var,
                index: Some(index),
            });
        }
        match index {
            Expr::Const(0) => Ok(Loc { var, index: None }),
            _ => self.refuse(format!(
                "an access at an offset into the scalar `{}`",
                self.vars[var as usize].name
            )),
        }
    }

    /// Records that `var` is accessed `bits` wide (and compared signed or
    /// not); a second width is refused.
    pub(super) fn note_width(&mut self, var: VarId, bits: u32, signed: Option<bool>) -> R<()> {
        let v = var as usize;
        match self.widths[v] {
            Some(w) if w != bits => {
                return self.refuse(format!(
                    "`{}` is accessed as {w}-bit and {bits}-bit elements: the model gives a variable one element type",
                    self.vars[v].name
                ))
            }
            _ => self.widths[v] = Some(bits),
        }
        if let Some(s) = signed {
            match self.signed[v] {
                Some(t) if t != s => {
                    return self.refuse(format!(
                        "`{}` is compared both signed and unsigned by atomic max/min",
                        self.vars[v].name
                    ))
                }
                _ => self.signed[v] = Some(s),
            }
        }
        Ok(())
    }
}

/// `(elements, bits)` of an integer or a (nested) array of integers.
fn flatten(ty: &LType) -> Option<(u32, u32)> {
    match ty {
        LType::Int(w) if matches!(w, 1 | 8 | 16 | 32 | 64) => Some((1, *w)),
        // Floating-point elements are held as their bits.
        LType::Half | LType::BFloat => Some((1, 16)),
        LType::Float => Some((1, 32)),
        LType::Double => Some((1, 64)),
        LType::Array(n, t) => {
            // An array of pointers holds their addresses (`pointers.rs`).
            let (k, b) = match **t {
                LType::Ptr(_) => (1, 64),
                _ => flatten(t)?,
            };
            let len = u32::try_from(*n).ok()?.checked_mul(k)?;
            (len > 0 && len <= 1 << 16).then_some((len, b))
        }
        _ => None,
    }
}

/// A `__device__` object of struct type (a queue's tickets, ring and
/// counters) as the 32-bit words it is made of, when it holds no pointer
/// and its size is a whole number of words: its fields are the words at
/// their byte offsets. A field accessed at another width (a 64-bit
/// head and tail) is refused where it is accessed, as for any variable.
fn words_of(module: &crate::llvm::ir::Module, ty: &LType) -> Option<(u32, u32)> {
    fn pointer_free(module: &crate::llvm::ir::Module, ty: &LType) -> bool {
        match ty {
            LType::Ptr(_) => false,
            LType::Array(_, t) | LType::Vector(_, t) => pointer_free(module, t),
            LType::Struct { fields, .. } => fields.iter().all(|f| pointer_free(module, f)),
            LType::Named(n) => module
                .struct_types
                .get(n)
                .and_then(|t| t.as_ref())
                .is_some_and(|t| pointer_free(module, t)),
            _ => true,
        }
    }
    if !matches!(ty, LType::Struct { .. } | LType::Named(_)) || !pointer_free(module, ty) {
        return None;
    }
    let (size, _) = layout(module, ty)?;
    let len = u32::try_from(size / 4).ok()?;
    (size % 4 == 0 && len > 0 && len <= 1 << 16).then_some((len, 32))
}

fn zero_extend(i: i128, bits: u32) -> u64 {
    super::values::zext(i, bits) as u64
}

/// A global's name as the user wrote it: the last name of a local
/// static's mangling (`_ZZ4kernE5flags` → `flags`), else as is.
pub(crate) fn display_name(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("_ZZ") {
        if let Some(e) = rest.rfind('E') {
            let tail = &rest[e + 1..];
            let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<usize>() {
                let id = &tail[digits.len()..];
                if let Some(name) = id.get(..n).filter(|s| !s.is_empty()) {
                    return name.to_string();
                }
            }
        }
    }
    if let Some(shown) = name.strip_prefix("_Z").and_then(template_instance) {
        return shown;
    }
    if let Some(nested) = name.strip_prefix("_ZN").and_then(|r| r.strip_suffix('E')) {
        if let Some(parts) = source_names(nested) {
            return parts.join("::");
        }
    }
    name.to_string()
}

/// `9bwd_queueILi2EjE` → `bwd_queue<2, unsigned int>`: a variable
/// template's instance whose arguments are integers and builtin types.
fn template_instance(rest: &str) -> Option<String> {
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let n: usize = rest[..digits].parse().ok()?;
    let id = rest.get(digits..digits + n)?;
    let mut args = rest[digits + n..].strip_prefix('I')?.strip_suffix('E')?;
    let mut shown = Vec::new();
    while !args.is_empty() {
        if let Some(lit) = args.strip_prefix('L') {
            let end = lit.find('E')?;
            let value = lit[..end].strip_prefix(['i', 'j', 'l', 'm'])?;
            shown.push(value.replacen('n', "-", 1));
            args = &lit[end + 1..];
            continue;
        }
        let ty = match args.as_bytes()[0] {
            b'i' => "int",
            b'j' => "unsigned int",
            b'l' => "long",
            b'm' => "unsigned long",
            b'x' => "long long",
            b'y' => "unsigned long long",
            b'c' => "char",
            b'h' => "unsigned char",
            b'b' => "bool",
            b'f' => "float",
            b'd' => "double",
            _ => return None,
        };
        shown.push(ty.to_string());
        args = &args[1..];
    }
    Some(format!("{id}<{}>", shown.join(", ")))
}

/// `5desul4Impl` → `["desul", "Impl"]`: a mangled nested name made only
/// of identifiers (anything else, such as template arguments, is `None`).
fn source_names(mut rest: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let n: usize = rest[..digits].parse().ok()?;
        parts.push(rest.get(digits..digits + n)?);
        rest = &rest[digits + n..];
    }
    (!parts.is_empty()).then_some(parts)
}
