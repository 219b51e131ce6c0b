//! A kernel's synchronisation operations, each with its user source
//! location: atomics (`atomicrmw`, `cmpxchg`), volatile and atomic loads
//! and stores, fences, calls to `llvm.nvvm.*` intrinsics (all but the
//! special-register reads `llvm.nvvm.read.ptx.sreg.*`), and inline asm.
//! The functions a kernel calls that are defined in the module (those the
//! inliner left, such as `noinline` ones) are searched too.

use super::debug::{DebugInfo, Located, UserFiles};
use super::ir::{Atomic, Callee, InstrKind, Module, Ordering, RmwOp};
use std::collections::BTreeMap;

/// What kind of synchronisation an instruction is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncKind {
    /// `atomicrmw OP` with its ordering and scope.
    AtomicRmw { op: RmwOp, atomic: Atomic },
    /// `cmpxchg` with its success ordering/scope and failure ordering.
    CmpXchg { success: Atomic, failure: Ordering },
    /// A `load volatile` or `load atomic`.
    Load {
        volatile: bool,
        atomic: Option<Atomic>,
    },
    /// A `store volatile` or `store atomic`.
    Store {
        volatile: bool,
        atomic: Option<Atomic>,
    },
    /// `fence`.
    Fence(Atomic),
    /// A call to `llvm.nvvm.NAME` (the full intrinsic name).
    Intrinsic(String),
    /// Inline asm: its template.
    Asm(String),
}

/// One synchronisation operation of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncOp {
    /// The function it is in (the kernel, or a function it calls).
    pub function: String,
    /// Its block.
    pub block: String,
    /// What it is.
    pub kind: SyncKind,
    /// Its line in the `.ll` text.
    pub ir_line: usize,
    /// Its source location.
    pub location: Located,
    /// For an operation in a function the kernel calls (one the inliner
    /// left, e.g. `noinline`), the location of the first call that reaches
    /// it; `None` in the kernel itself. Where `location` has no user's
    /// line (libcu++'s out-of-line helpers), this one has it.
    pub call_site: Option<Located>,
}

impl SyncOp {
    /// The user's line to show: its own, else its call site's.
    pub fn user_location(&self) -> Option<&super::debug::SourceLoc> {
        self.location
            .user
            .as_ref()
            .or_else(|| self.call_site.as_ref()?.user.as_ref())
    }
}

impl SyncKind {
    /// A short label for counting: `atomicrmw add seq_cst`,
    /// `load volatile`, `nvvm.membar.gl`, `asm nanosleep.u32 $0;`.
    pub fn label(&self) -> String {
        fn scoped(a: &Atomic) -> String {
            match &a.scope {
                Some(s) => format!("syncscope({s}) {}", a.ordering.name()),
                None => a.ordering.name().to_string(),
            }
        }
        fn access(what: &str, volatile: bool, atomic: &Option<Atomic>) -> String {
            let mut s = what.to_string();
            if let Some(a) = atomic {
                s += &format!(" atomic {}", scoped(a));
            }
            if volatile {
                s += " volatile";
            }
            s
        }
        match self {
            SyncKind::AtomicRmw { op, atomic } => {
                format!("atomicrmw {} {}", op.name(), scoped(atomic))
            }
            SyncKind::CmpXchg { success, failure } => {
                format!("cmpxchg {} {}", scoped(success), failure.name())
            }
            SyncKind::Load { volatile, atomic } => access("load", *volatile, atomic),
            SyncKind::Store { volatile, atomic } => access("store", *volatile, atomic),
            SyncKind::Fence(a) => format!("fence {}", scoped(a)),
            SyncKind::Intrinsic(name) => name.trim_start_matches("llvm.").to_string(),
            SyncKind::Asm(t) => {
                format!("asm {}", t.split_whitespace().collect::<Vec<_>>().join(" "))
            }
        }
    }
}

/// The synchronisation operations of `kernel` and of the defined functions
/// it calls, in the order of the text; `None` if `kernel` is not defined.
pub fn sync_ops(module: &Module, kernel: &str, files: &UserFiles) -> Option<Vec<SyncOp>> {
    module.function(kernel).filter(|f| !f.is_declaration())?;
    let debug = DebugInfo::new(module);
    let mut out = Vec::new();
    let mut seen: Vec<(String, Option<Located>)> = vec![(kernel.to_string(), None)];
    let mut next = 0;
    while let Some((name, call_site)) = seen.get(next).cloned() {
        next += 1;
        let Some(f) = module.function(&name) else {
            continue;
        };
        for b in &f.blocks {
            for i in b.instrs.iter().chain(std::iter::once(&b.terminator)) {
                if let InstrKind::Call {
                    callee: Callee::Function(c),
                } = &i.kind
                {
                    if module.function(c).is_some_and(|g| !g.is_declaration())
                        && !seen.iter().any(|(n, _)| n == c)
                    {
                        let mut here = debug.locate(i.dbg, files);
                        if here.user.is_none() {
                            if let Some(outer) = &call_site {
                                here.user.clone_from(&outer.user);
                            }
                        }
                        seen.push((c.clone(), Some(here)));
                    }
                }
                if let Some(kind) = sync_kind(&i.kind) {
                    out.push(SyncOp {
                        function: f.name.clone(),
                        block: b.name.clone(),
                        kind,
                        ir_line: i.line,
                        location: debug.locate(i.dbg, files),
                        call_site: call_site.clone(),
                    });
                }
            }
        }
    }
    Some(out)
}

/// The synchronisation an instruction performs, if any.
pub fn sync_kind(kind: &InstrKind) -> Option<SyncKind> {
    Some(match kind {
        InstrKind::AtomicRmw { op, atomic, .. } => SyncKind::AtomicRmw {
            op: *op,
            atomic: atomic.clone(),
        },
        InstrKind::CmpXchg {
            success, failure, ..
        } => SyncKind::CmpXchg {
            success: success.clone(),
            failure: *failure,
        },
        InstrKind::Load {
            volatile, atomic, ..
        } if *volatile || atomic.is_some() => SyncKind::Load {
            volatile: *volatile,
            atomic: atomic.clone(),
        },
        InstrKind::Store {
            volatile, atomic, ..
        } if *volatile || atomic.is_some() => SyncKind::Store {
            volatile: *volatile,
            atomic: atomic.clone(),
        },
        InstrKind::Fence(a) => SyncKind::Fence(a.clone()),
        InstrKind::Call {
            callee: Callee::Function(name),
        } if name.starts_with("llvm.nvvm.") && !name.starts_with("llvm.nvvm.read.ptx.sreg.") => {
            SyncKind::Intrinsic(name.clone())
        }
        InstrKind::Call {
            callee: Callee::Asm { template, .. },
        } => SyncKind::Asm(template.clone()),
        _ => return None,
    })
}

/// How many operations carry each label.
pub fn census(ops: &[SyncOp]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for op in ops {
        *out.entry(op.kind.label()).or_insert(0) += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_sample_kernels_sync_operations() {
        let m = crate::llvm::parse(crate::llvm::parse::tests::SAMPLE).unwrap();
        let files = UserFiles::new([PathBuf::from("/usr/local/cuda")]);
        let ops = sync_ops(&m, "_Z6kernelPj", &files).unwrap();
        let labels: Vec<_> = ops.iter().map(|o| o.kind.label()).collect();
        assert_eq!(
            labels,
            [
                "atomicrmw add seq_cst",
                "cmpxchg syncscope(block) acquire monotonic",
                "load volatile",
                "store atomic syncscope(device) release",
                "load atomic acquire",
                "fence syncscope(block) acq_rel",
                "nvvm.membar.gl",
                "asm st.global.release.sys.b32 [$1], $0;",
                "asm mov.b64 $0, $2; mov.b64 $1, $3;",
            ]
        );
        // The atomicAdd, inlined from a CUDA header, is located at its call.
        assert_eq!(
            ops[0].location.user.as_ref().unwrap().to_string(),
            "/home/user/proj/kernel.cu:5:3"
        );
        assert_eq!(ops[0].location.chain.len(), 2);
        assert_eq!(ops[0].ir_line, 27);
        // The atomic store has no `!dbg`.
        assert_eq!(ops[3].location.user, None);
        assert_eq!(census(&ops)["load volatile"], 1);
        assert_eq!(sync_ops(&m, "__nv_ceilf", &files), None);
        assert_eq!(sync_ops(&m, "nothing", &files), None);
    }
}
