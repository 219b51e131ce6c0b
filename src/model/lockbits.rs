//! The Fermi shared-memory lock unit (seed 004, section 3).
//!
//! Each block's shared memory has `count` lock bits (Fermi: 1024). The lock
//! bit of a shared word is a hash of its word address: `address mod count`
//! (Fermi takes bits 2–11 of the byte address, so word addresses 1024 apart
//! share a bit: the stride aliasing of seed 004, 4.4.2). `--lock-bits N`
//! changes `count`. Word addresses number the block's `shared` variables in
//! declaration order, one word per element.
//!
//! `ldslk(x, v)` loads `x` into `v` and tries to take the bit of `x`: it
//! yields true when the bit was free (and takes it). `stsul(x, e)` stores
//! `e` into `x` and frees the bit. The unit does not know who holds a bit,
//! so a thread can block on a bit it holds itself through an aliased
//! address. Traces show a bit as the paper does: 1 free, 0 taken.
//!
//! Only the bits that some lock-bit instruction can reach get state: one
//! bit per (block, reachable lock bit), stored as "taken" so the initial
//! all-zero state has every bit free.

use super::state::{self, Layout};
use super::threads::Threads;
use super::{Event, Violation};
use crate::diag::Span;
use crate::ir::Storage;
use crate::ir::{Expr, Loc, LocalId, Op, Pc, Program};

/// Fermi's number of lock bits per SM.
pub(crate) const DEFAULT_LOCK_BITS: u32 = 1024;

pub(crate) struct LockBits {
    count: u32,
    /// Word address of each variable in its block's shared memory (`None`: global).
    word_base: Vec<Option<u32>>,
    /// The lock bits that lock-bit instructions can reach, sorted; a bit's
    /// position here is its slot in the state.
    bits: Vec<u32>,
    base: usize,
    words_per_block: usize,
}

/// A lock bit as seen by one thread: which bit, through which word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LockBitRef {
    pub bit: u32,
    pub word_address: u32,
    /// The location's name (`A[3]@b0`).
    pub location: String,
    word: usize,
    mask: u32,
}

impl LockBits {
    pub(crate) fn new(prog: &Program, layout: &mut Layout, count: u32) -> LockBits {
        let mut next = 0;
        let word_base: Vec<Option<u32>> = prog
            .vars
            .iter()
            .map(|v| {
                (v.storage == Storage::Shared).then(|| {
                    let base = next;
                    next += v.len;
                    base
                })
            })
            .collect();
        let mut bits: Vec<u32> = lock_bit_vars(prog)
            .filter_map(|(var, _)| {
                let base = word_base[var as usize]?;
                Some((base..base + prog.vars[var as usize].len).map(|a| a % count.max(1)))
            })
            .flatten()
            .collect();
        bits.sort_unstable();
        bits.dedup();
        let words_per_block = bits.len().div_ceil(32);
        let base = layout.reserve(words_per_block * prog.launch.blocks as usize);
        LockBits {
            count: count.max(1),
            word_base,
            bits,
            base,
            words_per_block,
        }
    }

    /// Whether some lock bit has state (the program uses the lock unit).
    pub(crate) fn has_state(&self) -> bool {
        self.words_per_block > 0
    }
}

/// Every lock-bit instruction's variable and source span.
fn lock_bit_vars(prog: &Program) -> impl Iterator<Item = (u32, Span)> + '_ {
    prog.code.iter().filter_map(|i| match &i.op {
        Op::LockBitTry { loc, .. } | Op::LockBitRelease { loc, .. } => Some((loc.var, i.span)),
        _ => None,
    })
}

/// Whether the program uses the lock unit at all.
pub(crate) fn uses_lock_bits(prog: &Program) -> bool {
    lock_bit_vars(prog).next().is_some()
}

/// The first lock-bit instruction on a variable that is not `shared` (the
/// lock unit belongs to shared memory), with the variable's name.
pub(crate) fn misplaced_lock_bit(prog: &Program) -> Option<(String, Span)> {
    lock_bit_vars(prog)
        .find(|(var, _)| prog.vars[*var as usize].storage != Storage::Shared)
        .map(|(var, span)| (prog.vars[var as usize].name.clone(), span))
}

impl LockBits {
    /// The lock bit of location `loc` for thread `t`.
    fn bit_of(
        &self,
        th: &Threads,
        s: &[u32],
        t: usize,
        loc: &Loc,
    ) -> Result<LockBitRef, Violation> {
        let (_, index) = th.address(s, t, loc)?;
        let word_address =
            self.word_base[loc.var as usize].expect("checked: lock bits are shared") + index;
        let bit = word_address % self.count;
        let slot = self
            .bits
            .binary_search(&bit)
            .expect("every reachable bit has a slot");
        let block = th.layout.block_of(t);
        Ok(LockBitRef {
            bit,
            word_address,
            location: th.prog.location_name(loc.var, index, block as u32),
            word: self.base + block * self.words_per_block + slot / 32,
            mask: 1 << (slot % 32),
        })
    }

    /// Number of lock bits (the modulus of the address hash).
    pub(crate) fn count(&self) -> u32 {
        self.count
    }

    /// Whether a lock bit is free.
    pub(crate) fn is_free(&self, s: &[u32], r: &LockBitRef) -> bool {
        s[r.word] & r.mask == 0
    }

    /// The name a trace gives the lock bit `r` of thread `t`'s block.
    pub(crate) fn bit_name(&self, th: &Threads, t: usize, r: &LockBitRef) -> String {
        format!("lock bit {}@b{}", r.bit, th.layout.block_of(t))
    }

    /// `pred = ldslk(loc, value)`.
    pub(super) fn try_take(
        &self,
        th: &Threads,
        s: &mut [u32],
        t: usize,
        (pred, value, loc): (LocalId, Option<LocalId>, &Loc),
        event: Option<&mut Event>,
    ) -> Result<(), Violation> {
        let r = self.bit_of(th, s, t, loc)?;
        let (w, _) = th.address(s, t, loc)?;
        let ty = th.prog.vars[loc.var as usize].ty;
        let v = state::load(s, w, ty);
        let free = self.is_free(s, &r);
        s[r.word] |= r.mask;
        th.write_local(s, t, pred, free as i64);
        if let Some(d) = value {
            th.write_local(s, t, d, v);
        }
        if let Some(e) = event {
            let name = self.bit_name(th, t, &r);
            e.reads.push((r.location.clone(), v));
            e.reads.push((name.clone(), free as i64));
            if free {
                e.writes.push((name, 0));
            }
        }
        Ok(())
    }

    /// `stsul(loc, value)`.
    pub(super) fn release(
        &self,
        th: &Threads,
        s: &mut [u32],
        t: usize,
        loc: &Loc,
        value: &Expr,
        event: Option<&mut Event>,
    ) -> Result<(), Violation> {
        let v = th.eval(value, s, t)?;
        let r = self.bit_of(th, s, t, loc)?;
        let (w, _) = th.address(s, t, loc)?;
        let ty = th.prog.vars[loc.var as usize].ty;
        state::store(s, w, ty, v);
        let was_free = self.is_free(s, &r);
        s[r.word] &= !r.mask;
        if let Some(e) = event {
            let name = self.bit_name(th, t, &r);
            e.writes.push((r.location.clone(), state::load(s, w, ty)));
            e.reads.push((name.clone(), was_free as i64));
            e.writes.push((name, 1));
        }
        Ok(())
    }

    /// When thread `t` is at an `ldslk` whose bit is taken: the bit it waits for.
    pub(crate) fn waiting(&self, th: &Threads, s: &[u32], t: usize) -> Option<(Pc, LockBitRef)> {
        if th.is_finished(s, t) {
            return None;
        }
        let pc = th.pc(s, t);
        let Op::LockBitTry { loc, .. } = &th.prog.code[pc as usize].op else {
            return None;
        };
        let r = self.bit_of(th, s, t, loc).ok()?;
        (!self.is_free(s, &r)).then_some((pc, r))
    }
}

/// The error for a lock-bit instruction outside shared memory.
pub(crate) fn misplaced_message(var: &str) -> String {
    format!("`{var}` is not `shared`: the lock unit (ldslk/stsul) exists only for shared memory")
}
