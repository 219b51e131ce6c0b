//! `memcpy` of a constant size (a struct copy: `auto dp = *_dp;`) as the
//! word copies it is: each word a plain load then a plain store (CUDA's
//! struct copy is plain accesses; a volatile `memcpy`'s are volatile), in
//! address order. The word is the element width of the variables it
//! copies between where their other accesses fix one, 64 bits where the
//! memory holds pointers, the width a thread's private memory is accessed
//! at, else the widest of 8, 4, 2 and 1 bytes that divides the size. A
//! size known only at run time is refused.

use super::memory::{add, Ptr, Region};
use super::pointers::Cell;
use super::{Lowerer, R};
use crate::ir::{Expr, LocalId, Op};
use crate::llvm::ir::{Instr, Value};
use std::collections::BTreeSet;

/// The most words one `memcpy` is lowered to.
const MAX_WORDS: i64 = 4096;

/// The byte count of a `memcpy` call, if it is a constant.
fn size_of_copy(instr: &Instr) -> Option<i64> {
    match instr.operands.get(2).map(|o| &o.value) {
        Some(Value::Int(n)) => i64::try_from(*n).ok().filter(|n| *n >= 0),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// Chooses the word `instr` (a `memcpy`) copies in and notes it as the
    /// width of the variables it copies between. `private` holds the
    /// widths the thread's private memory is accessed at elsewhere.
    pub(super) fn copy_width(&mut self, instr: &Instr, private: &BTreeSet<u32>) -> R<()> {
        let Some(n) = size_of_copy(instr) else {
            return Ok(());
        };
        let bases = self.bases.clone();
        let mut cells = Vec::new();
        for op in instr.operands.iter().take(2) {
            cells.extend(self.cells(&op.value, &bases)?);
        }
        let known = cells.iter().find_map(|c| match c {
            Cell::Var(v) => self.widths[*v as usize],
            Cell::Private => None,
        });
        let private_width = match (cells.contains(&Cell::Private), private.len()) {
            (true, 1) => private.first().copied(),
            _ => None,
        };
        let holds_pointers = cells.iter().any(|c| self.pointers.is_holding(*c));
        let widest = [64u32, 32, 16, 8]
            .into_iter()
            .find(|b| n % i64::from(b / 8) == 0)
            .unwrap_or(8);
        let bits = known
            .or(holds_pointers.then_some(64))
            .or(private_width.filter(|b| n % i64::from(b / 8) == 0))
            .unwrap_or(widest);
        for c in cells {
            if let Cell::Var(v) = c {
                self.note_width(v, bits, None)?;
            }
        }
        self.pointers.copy_widths.insert(instr.line, bits);
        Ok(())
    }

    /// `llvm.memcpy(dst, src, size, volatile)` as word copies.
    pub(super) fn memcpy(&mut self, instr: &Instr) -> R<()> {
        let Some(n) = size_of_copy(instr) else {
            return self.refuse("a memcpy whose size is known only at run time: the model copies a constant number of words");
        };
        let volatile = matches!(instr.operands.get(3).map(|o| &o.value), Some(Value::Int(1)));
        let bits = self
            .pointers
            .copy_widths
            .get(&instr.line)
            .copied()
            .unwrap_or(8);
        let bytes = i64::from(bits / 8);
        if n % bytes != 0 || n / bytes > MAX_WORDS {
            return self.refuse(format!(
                "a memcpy of {n} bytes as {bits}-bit words (the word its variables are accessed at; up to {MAX_WORDS} words)"
            ));
        }
        let dst = self.ptr(&instr.operands[0])?;
        let src = self.ptr(&instr.operands[1])?;
        self.writable(&dst)?;
        let ty = super::values::local_type(bits).expect("a word's bits");
        let word = self.new_local("%memcpy.word", ty);
        for i in 0..n / bytes {
            let at = |p: &Ptr| Ptr {
                region: p.region,
                offset: add(p.offset.clone(), Expr::Const(i * bytes)),
            };
            let value = self.read_word(&at(&src), bits, volatile, word)?;
            self.write_word(&at(&dst), bits, value, volatile)?;
        }
        Ok(())
    }

    /// The word at `p`: a private slot's value, or a load into `temp`.
    fn read_word(&mut self, p: &Ptr, bits: u32, volatile: bool, temp: LocalId) -> R<Expr> {
        if let Region::Private(k) = p.region {
            return self.private_load(k, &p.offset, bits);
        }
        let loc = self.loc(p, bits)?;
        let order = self.load_order(volatile, None)?;
        self.emit(Op::Load {
            dst: temp,
            access: order.at(loc),
        });
        Ok(Expr::Local(temp))
    }

    fn write_word(&mut self, p: &Ptr, bits: u32, value: Expr, volatile: bool) -> R<()> {
        if let Region::Private(k) = p.region {
            return self.private_store(k, &p.offset, bits, value);
        }
        let loc = self.loc(p, bits)?;
        let order = self.store_order(volatile, None)?;
        self.emit(Op::Store {
            access: order.at(loc),
            value,
        });
        Ok(())
    }
}
