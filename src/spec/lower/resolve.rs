//! Name resolution: what a name means at a point of the program.

use crate::diag::Span;
use crate::ir::{Builtin, Launch, LocalId, VarId};
use rustc_hash::FxHashMap;

/// What a name refers to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Sym {
    Param(i64),
    /// A launch constant with one value for the whole launch.
    Const(i64),
    Builtin(Builtin),
    Mem(VarId),
    Local(LocalId),
    Fn(usize),
}

/// Names the language defines; a declaration may not reuse them.
pub(crate) const RESERVED: &[&str] = &[
    "nblocks",
    "threads_per_block",
    "warp_size",
    "blockIdx",
    "threadIdx",
    "laneId",
    "warpId",
    "INT_MAX",
    "UINT_MAX",
];

/// Lexical scopes: the top level (parameters, variables, procedures) and a
/// stack of block scopes for procedure and harness locals.
#[derive(Default)]
pub(super) struct Scopes {
    top: FxHashMap<String, (Sym, Span)>,
    blocks: Vec<FxHashMap<String, (Sym, Span)>>,
}

impl Scopes {
    /// Defines a top-level name; on a clash returns the span of the first definition.
    pub(super) fn define_top(&mut self, name: &str, sym: Sym, span: Span) -> Result<(), Span> {
        if let Some((_, first)) = self.top.get(name) {
            return Err(*first);
        }
        self.top.insert(name.to_string(), (sym, span));
        Ok(())
    }

    /// Defines a name in the innermost block scope (or the top level).
    pub(super) fn define(&mut self, name: &str, sym: Sym, span: Span) -> Result<(), Span> {
        match self.blocks.last_mut() {
            Some(scope) => {
                if let Some((_, first)) = scope.get(name) {
                    return Err(*first);
                }
                scope.insert(name.to_string(), (sym, span));
                Ok(())
            }
            None => self.define_top(name, sym, span),
        }
    }

    pub(super) fn push(&mut self) {
        self.blocks.push(FxHashMap::default());
    }

    pub(super) fn pop(&mut self) {
        self.blocks.pop();
    }

    /// Hides the caller's block scopes: an inlined procedure body sees only
    /// the top level and its own locals. Returns what to restore.
    pub(super) fn enter_procedure(&mut self) -> Vec<FxHashMap<String, (Sym, Span)>> {
        std::mem::take(&mut self.blocks)
    }

    pub(super) fn leave_procedure(&mut self, caller: Vec<FxHashMap<String, (Sym, Span)>>) {
        self.blocks = caller;
    }

    pub(super) fn lookup(&self, name: &str, launch: &Launch) -> Option<Sym> {
        for scope in self.blocks.iter().rev() {
            if let Some((sym, _)) = scope.get(name) {
                return Some(*sym);
            }
        }
        if let Some((sym, _)) = self.top.get(name) {
            return Some(*sym);
        }
        Some(match name {
            "nblocks" => Sym::Const(launch.blocks as i64),
            "threads_per_block" => Sym::Const(launch.threads_per_block as i64),
            "warp_size" => Sym::Const(launch.warp_size as i64),
            "INT_MAX" => Sym::Const(i32::MAX as i64),
            "UINT_MAX" => Sym::Const(u32::MAX as i64),
            "blockIdx" => Sym::Builtin(Builtin::BlockIdx),
            "threadIdx" => Sym::Builtin(Builtin::ThreadIdx),
            "laneId" => Sym::Builtin(Builtin::LaneId),
            "warpId" => Sym::Builtin(Builtin::WarpId),
            _ => return None,
        })
    }

    /// Names visible at the top level, for "did you mean" hints.
    pub(super) fn top_names(&self) -> impl Iterator<Item = &str> {
        self.top.keys().map(String::as_str)
    }

    pub(super) fn block_names(&self) -> impl Iterator<Item = &str> {
        self.blocks
            .iter()
            .flat_map(|s| s.keys().map(String::as_str))
    }
}
