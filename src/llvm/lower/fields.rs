//! A struct passed by value whose fields are read at different widths
//! (warpcore's table: `bool` flags beside 64-bit sizes and a 32-bit seed,
//! issue #39) is laid out by its declared fields, not as one buffer of one
//! element width. Each thread's copy is read only (a store into it is
//! refused, `access::writable`), so a field holds the launch's value all
//! along: a load at a constant byte offset reads the scalar field declared
//! there, at its own width, as a constant, `--arg NAME.FIELD=V` or 0 (the
//! zero-initialised struct's). Its pointer fields stay buffers of their own
//! (`params::pointer_field`). A read that spans fields, falls in padding,
//! reads a field at another width than declared or at a run-time offset,
//! and any other access (a copy, inline PTX), is refused where it is.
//!
//! A struct read at one width keeps the older layout, one buffer of that
//! width whose elements `--arg NAME[i]=V` sets.

use super::{Lowerer, R};
use crate::ir::{Expr, VarId};
use crate::llvm::ir::{Instr, Type as LType};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The struct arguments passed by value, and the fields of those laid
/// out by their fields.
#[derive(Default)]
pub(crate) struct StructArgs {
    /// Each by-value parameter's buffer and its LLVM type.
    pub(crate) types: HashMap<VarId, LType>,
    /// Those whose fields are read at different widths.
    by_fields: BTreeSet<VarId>,
    /// The fields read so far: (buffer, byte offset) → `NAME.FIELD`.
    names: BTreeMap<(VarId, u64), String>,
    /// `--arg NAME.FIELD=V`, as given.
    pub(crate) given: Vec<(String, i64)>,
}

/// An access of a struct argument at `bits`, at the instruction `at`
/// (for its location), found before lowering.
pub(crate) type Seen<'m> = BTreeMap<VarId, Vec<(u32, Option<bool>, &'m Instr)>>;

impl Lowerer<'_> {
    /// Decides the layout of each struct argument from the widths it is
    /// accessed at: one width is one buffer of it (noted as for any
    /// variable), several are its fields.
    pub(super) fn struct_widths(&mut self, seen: Seen<'_>) -> R<()> {
        for (v, accesses) in seen {
            let widths: BTreeSet<u32> = accesses.iter().map(|a| a.0).collect();
            if widths.len() > 1 {
                self.struct_args.by_fields.insert(v);
                continue;
            }
            for (bits, signed, instr) in accesses {
                self.locate(instr);
                self.note_width(v, bits, signed)?;
            }
        }
        Ok(())
    }

    /// Refuses an access other than a field's load to a struct laid out
    /// by its fields.
    pub(super) fn not_by_fields(&self, v: VarId) -> R<()> {
        if !self.struct_args.by_fields.contains(&v) {
            return Ok(());
        }
        self.refuse(format!(
            "an access to `{}`, a struct passed by value whose fields are read at different widths, other than a load of one field at a constant offset (a copy, inline PTX, a pointer read at a run-time offset)",
            self.vars[v as usize].name
        ))
    }

    /// `instr`, a load of `bits` at byte `offset` of `v`: the field's
    /// value, when `v` is laid out by its fields; `None` otherwise.
    pub(super) fn field_load(
        &mut self,
        instr: &Instr,
        v: VarId,
        offset: &Expr,
        bits: u32,
    ) -> R<Option<()>> {
        if !self.struct_args.by_fields.contains(&v) {
            return Ok(None);
        }
        let name = self.vars[v as usize].name.clone();
        let Expr::Const(k) = *offset else {
            return self.refuse(format!(
                "a read at a run-time offset into `{name}`, a struct passed by value whose fields are read at different widths (the model reads its fields at constant offsets)"
            ));
        };
        let ty = &self.struct_args.types[&v];
        let leaf = u64::try_from(k)
            .ok()
            .and_then(|k| super::memory::leaf_at(self.module, ty, k));
        let Some((at, leaf)) = leaf else {
            return self.refuse(format!(
                "a read at byte {k} of `{name}`, padding of the struct or past its end"
            ));
        };
        let declared = match leaf {
            LType::Ptr(_) => None,
            ref t => super::values::width(t),
        };
        let field = self.field_name(v, at);
        let Some(declared) = declared else {
            return self.refuse(format!(
                "`{field}` (byte {at} of `{name}`) is a pointer read as a {bits}-bit integer"
            ));
        };
        let (start, end) = (k as u64 * 8, k as u64 * 8 + u64::from(bits));
        if end > at * 8 + u64::from(declared) {
            return self.refuse(format!(
                "a {bits}-bit read at byte {k} of `{name}` spans its field `{field}` ({declared} bits at byte {at}) and what follows it"
            ));
        }
        if start != at * 8 || bits != declared {
            return self.refuse(format!(
                "`{field}` (byte {at} of `{name}`) is declared {declared} bits wide and read as {bits} bits at byte {k}: the model reads a field at its own width"
            ));
        }
        let value = self.field_value(&field, declared);
        self.assign(instr, Expr::Const(value))?;
        Ok(Some(()))
    }

    /// The name of the field at byte `at` of `v`: `NAME.FIELD` as the
    /// source spells it at its first read (`NAME.@BYTE` where nothing
    /// names it, `NAME.FIELD@BYTE` when another field is spelled alike).
    fn field_name(&mut self, v: VarId, at: u64) -> String {
        if let Some(n) = self.struct_args.names.get(&(v, at)) {
            return n.clone();
        }
        let base = &self.vars[v as usize].name;
        let mut name = match self.spelled_field() {
            Some(f) => format!("{base}.{f}"),
            None => format!("{base}.@{at}"),
        };
        if self.struct_args.names.values().any(|n| *n == name) {
            name = format!("{name}@{at}");
        }
        self.struct_args.names.insert((v, at), name.clone());
        name
    }

    /// The value `--arg` gives field `name` (0 if none), at its width;
    /// recorded with the launch's parameters on first use.
    fn field_value(&mut self, name: &str, bits: u32) -> i64 {
        let given = self
            .struct_args
            .given
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, v)| *v);
        let value = super::values::zext(i128::from(given), bits);
        if !self.params.iter().any(|(n, _)| n == name) {
            self.params.push((name.to_string(), value));
        }
        value
    }

    /// The struct fields this kernel reads, as `NAME.FIELD`.
    pub(super) fn fields_read(&self) -> impl Iterator<Item = &String> {
        self.struct_args.names.values()
    }

    /// Every `--arg NAME.FIELD=V` named a field that some kernel of the
    /// launch reads (`read`: those of every kernel launched together).
    pub(super) fn check_struct_field_args(&self, read: &BTreeSet<String>) -> R<()> {
        for (name, _) in &self.struct_args.given {
            if read.contains(name) {
                continue;
            }
            let base = name.split_once('.').map_or(name.as_str(), |(b, _)| b);
            let known: Vec<&str> = read
                .iter()
                .filter(|n| n.split_once('.').is_some_and(|(b, _)| b == base))
                .map(String::as_str)
                .collect();
            let also = if known.is_empty() {
                format!("`{base}` is not a struct passed by value whose fields are read at different widths (a struct read at one width is one buffer: --arg '{base}[i]=V' sets its elements)")
            } else {
                format!("the fields read: {}", known.join(", "))
            };
            return self.refuse_at_kernel(format!(
                "--arg {name}=...: no launched kernel reads such a field; {also}"
            ));
        }
        Ok(())
    }

    /// `--arg NAME[i]=V` of a struct laid out by its fields is refused:
    /// its fields are set by name.
    pub(super) fn check_field_init(&self, v: VarId) -> R<()> {
        if !self.struct_args.by_fields.contains(&v) {
            return Ok(());
        }
        let name = &self.vars[v as usize].name;
        let known: Vec<&str> = self
            .struct_args
            .names
            .iter()
            .filter(|((w, _), _)| *w == v)
            .map(|(_, n)| n.as_str())
            .collect();
        self.refuse_at_kernel(format!(
            "--arg {name}[i]=...: `{name}`'s fields are read at different widths, so it has no elements; set a field with --arg {name}.FIELD=V (it reads: {})",
            known.join(", ")
        ))
    }
}
