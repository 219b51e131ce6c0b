//! The layout of a global state as a fixed-length string of `u32` words:
//!
//! ```text
//! [ global memory | shared memory, block-major | thread 0 | thread 1 | ... ]
//! thread = [ pc | flags | critical weight + 1 | phases entered | locals... ]
//! ```
//!
//! followed by the words other concerns reserve (`Layout::reserve`): the
//! warps' reconvergence stacks (`simt`) and the lock bits (`lockbits`).
//!
//! Raw values are stored wrapped to their declared width, so two states are
//! equal exactly when every variable holds the same value. A value of a
//! 64-bit type (`u64`, `i64`) takes two consecutive words, low half first:
//! each memory element and each local of such a type, and (under `ptx`)
//! each message of a history has a high word. Every read and write of a
//! value goes through [`load`] and [`store`], so the two halves are always
//! read and written together, in one step: a 64-bit access is single-copy
//! atomic, as PTX promises for aligned 64-bit accesses. A program without
//! 64-bit types has the same layout as before they existed.

use crate::ir::{from_raw, to_raw, LocalInit, Program, VarId};
use crate::ir::{Participants, Storage, Type};

/// The raw bits of the value of type `ty` at word `w` (and `w + 1`).
#[inline]
pub(crate) fn load_raw(s: &[u32], w: usize, ty: Type) -> u64 {
    let lo = u64::from(s[w]);
    if ty.words() == 2 {
        lo | u64::from(s[w + 1]) << 32
    } else {
        lo
    }
}

/// Writes the raw bits of a value of type `ty` at word `w` (and `w + 1`).
#[inline]
pub(crate) fn store_raw(s: &mut [u32], w: usize, ty: Type, raw: u64) {
    s[w] = raw as u32;
    if ty.words() == 2 {
        s[w + 1] = (raw >> 32) as u32;
    }
}

/// The value of type `ty` at word `w`.
#[inline]
pub(crate) fn load(s: &[u32], w: usize, ty: Type) -> i64 {
    from_raw(ty, load_raw(s, w, ty))
}

/// Stores `value`, wrapped to `ty`, at word `w`.
#[inline]
pub(crate) fn store(s: &mut [u32], w: usize, ty: Type, value: i64) {
    store_raw(s, w, ty, to_raw(ty, value));
}

/// The block of thread `t` with `threads_per_block` threads a block. No
/// division where each block runs one thread (the master harnesses): it
/// costs tens of cycles, on the hot path of every access and scope check.
#[inline]
pub(crate) fn block_of(t: usize, threads_per_block: usize) -> usize {
    match threads_per_block {
        1 => t,
        n => t / n,
    }
}

/// `pc` of a thread that finished the harness.
pub(crate) const FINISHED: u32 = u32::MAX;
/// Thread flag: arrived at `__syncthreads()`, waiting for the block.
pub(crate) const WAITING_BARRIER: u32 = 1;
/// Thread flag: arrived at a warp-collective instruction (`__syncwarp`, a
/// vote) under independent thread scheduling, waiting for the named lanes.
pub(crate) const WAITING_WARP: u32 = 2;
/// Thread flag: has taken a step (kept only when the model tracks it, for
/// the OBE progress models: `ModelOptions::track_started`).
pub(crate) const STARTED: u32 = 4;

pub(crate) const PC: usize = 0;
pub(crate) const FLAGS: usize = 1;
pub(crate) const CRITICAL: usize = 2;
pub(crate) const PHASES: usize = 3;
const HEADER: usize = 4;

#[derive(Clone, Debug)]
pub struct Layout {
    /// First word of each memory variable (for shared: of block 0's copy).
    pub var_base: Vec<usize>,
    pub mem_words: usize,
    pub thread_words: usize,
    pub threads: usize,
    pub threads_per_block: usize,
    /// Words after the threads, reserved by other concerns.
    pub tail_words: usize,
    /// Words after the threads owned by the memory model (`ptx`: histories
    /// and views, see `memory.rs`); 0 under sequential consistency.
    pub model_words: usize,
    /// The first word of each local in a thread's locals (a 64-bit local
    /// takes two).
    local_word: Vec<usize>,
    /// Whether some variable or local has a 64-bit type.
    pub wide: bool,
}

impl Layout {
    pub fn new(prog: &Program) -> Layout {
        let mut var_base = Vec::with_capacity(prog.vars.len());
        let mut next = 0;
        for v in &prog.vars {
            var_base.push(next);
            let copies = if v.storage == Storage::Shared {
                prog.launch.blocks
            } else {
                1
            };
            next += (v.len * copies) as usize * v.ty.words();
        }
        let mut local_word = Vec::with_capacity(prog.locals.len());
        let mut words = 0;
        for l in &prog.locals {
            local_word.push(words);
            words += l.ty.words();
        }
        Layout {
            var_base,
            mem_words: next,
            thread_words: HEADER + words,
            threads: prog.launch.threads() as usize,
            threads_per_block: prog.launch.threads_per_block as usize,
            tail_words: 0,
            model_words: 0,
            local_word,
            wide: prog
                .vars
                .iter()
                .map(|v| v.ty)
                .chain(prog.locals.iter().map(|l| l.ty))
                .any(|t| t.words() == 2),
        }
    }

    pub fn words(&self) -> usize {
        self.mem_words + self.threads * self.thread_words + self.model_words + self.tail_words
    }

    /// First word after the threads (the memory model's section).
    pub fn model_base(&self) -> usize {
        self.mem_words + self.threads * self.thread_words
    }

    /// Reserves `n` words at the end (initially zero); returns the first.
    /// Call after the memory model has sized its section.
    pub fn reserve(&mut self, n: usize) -> usize {
        let base = self.words();
        self.tail_words += n;
        base
    }

    /// Index of word `field` of thread `t`.
    pub fn thread(&self, t: usize, field: usize) -> usize {
        self.mem_words + t * self.thread_words + field
    }

    /// The (first) word of local `local` of thread `t`.
    pub fn local(&self, t: usize, local: u32) -> usize {
        self.thread(t, HEADER + self.local_word[local as usize])
    }

    pub fn locals_range(&self, t: usize) -> std::ops::Range<usize> {
        self.thread(t, HEADER)..self.thread(t, self.thread_words)
    }

    /// Word of element `index` of `var` as seen from `block`.
    pub fn mem(&self, prog: &Program, var: VarId, index: u32, block: usize) -> usize {
        let v = &prog.vars[var as usize];
        let copy = if v.storage == Storage::Shared {
            block * v.len as usize
        } else {
            0
        };
        self.var_base[var as usize] + (copy + index as usize) * v.ty.words()
    }

    pub fn block_of(&self, t: usize) -> usize {
        block_of(t, self.threads_per_block)
    }

    /// Threads of the block of `t`.
    pub fn block_threads(&self, t: usize) -> std::ops::Range<usize> {
        let b = self.block_of(t);
        b * self.threads_per_block..(b + 1) * self.threads_per_block
    }

    /// Writes the initial state.
    pub fn initial(&self, prog: &Program, out: &mut [u32]) {
        out.fill(0);
        for (i, v) in prog.vars.iter().enumerate() {
            let base = self.var_base[i];
            for (k, raw) in v.init.iter().enumerate() {
                store_raw(out, base + k * v.ty.words(), v.ty, *raw);
            }
        }
        for t in 0..self.threads {
            let takes_part =
                prog.participants == Participants::All || t.is_multiple_of(self.threads_per_block);
            out[self.thread(t, PC)] = if takes_part { 0 } else { FINISHED };
            if !takes_part {
                continue;
            }
            for (l, local) in prog.locals.iter().enumerate() {
                if let LocalInit::PerThread(values) = &local.init {
                    store_raw(out, self.local(t, l as u32), local.ty, values[t]);
                }
            }
        }
    }
}
