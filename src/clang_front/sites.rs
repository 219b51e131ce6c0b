//! The places of a harness's imported CUDA that carry an order or a
//! scope, found from the front end's own parse (its typed tree and the
//! source ranges libclang gave it), for `relax` and `repair`: every
//! `atomicXxx[_block|_system]` call, `__threadfence[_block|_system]()`
//! and written libcu++ `memory_order_*` argument of the device functions
//! the harness reaches, and (for `repair`) the
//! places a fence statement may be inserted. Each is located in its file
//! by byte range, so an edit of the file's text can respell it.

use super::ast::{CExpr, CExprKind, CStmt, CStmtKind};
use super::builtins::split_scope;
use super::{attach_program, Request};
use crate::diag::{Diagnostic, Source};
use crate::ir::Scope;
use crate::spec::ast::{Span, SpecFile};
use std::ops::Range;
use std::path::PathBuf;

/// What a site is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SiteKind {
    /// An atomic function: its name without the scope suffix, and the
    /// scope the suffix gives. The range is the callee's name.
    Atomic { base: String, scope: Scope },
    /// A `__threadfence*()` call (an SC fence at the scope its name
    /// gives). The range is the whole call; `stmt` is the statement with
    /// its `;` where the call is a statement of its own (it can be removed
    /// or replaced by an `asm` statement only then).
    Fence {
        scope: Scope,
        stmt: Option<Range<usize>>,
    },
    /// Where a fence statement may go: before a statement of a block
    /// (`closing`: before a block's closing brace).
    Insert { closing: bool },
    /// A written `memory_order_*` argument of a libcu++ atomic member (or
    /// of `cuda::atomic_thread_fence`): what it orders and its order as
    /// written. The range is the enumerator's name, its qualifier aside.
    Order { access: Access, order: CppOrder },
}

/// What a libcu++ order argument orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Load,
    Store,
    ReadModifyWrite,
    Fence,
}

/// A C++ `memory_order`, as written (`consume` reads as `acquire`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CppOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl CppOrder {
    fn of(enumerator: &str) -> Option<CppOrder> {
        Some(match enumerator {
            "memory_order_relaxed" => CppOrder::Relaxed,
            "memory_order_acquire" | "memory_order_consume" => CppOrder::Acquire,
            "memory_order_release" => CppOrder::Release,
            "memory_order_acq_rel" => CppOrder::AcqRel,
            "memory_order_seq_cst" => CppOrder::SeqCst,
            _ => return None,
        })
    }
}

/// One site, in `file` (an index into [`Sites::files`]).
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub file: usize,
    pub range: Range<usize>,
    pub kind: SiteKind,
}

/// The sites of a harness's CUDA, and the files they are in (the files
/// its `//! cuda:` lines name, with the text the front end read).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sites {
    pub files: Vec<(PathBuf, String)>,
    pub sites: Vec<Site>,
}

/// The sites of the CUDA `file`'s header imports (the spec parsed from
/// `source`, read at `origin`), in the device functions the harness
/// reaches. `insertions`: also every place a fence may be inserted.
/// `source` becomes the combined source errors are located in.
pub(crate) fn find(
    file: &SpecFile,
    source: &mut Source,
    request: &Request,
    insertions: bool,
) -> Result<Sites, Diagnostic> {
    let mut file = file.clone();
    let attached = attach_program(&mut file, source, request, &[])?;
    let combined = &*source;
    let mut files = Vec::new();
    for (path, span) in &request.files {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Diagnostic::new(*span, format!("cannot read {}: {e}", path.display()))
                .label("CUDA file")
        })?;
        files.push((path.clone(), text));
    }
    let mut walk = Walk {
        places: places(combined, request),
        files: &files,
        wanted: insertions,
        insertions,
        braced: true,
        out: Vec::new(),
    };
    for name in &attached.lowered {
        if let Some(Ok(f)) = attached.program.function(name) {
            walk.block(&f.body, Some(f.end));
        }
    }
    let mut sites = walk.out;
    sites.sort_by_key(|s| (s.file, s.range.start, s.range.end));
    sites.dedup_by(|a, b| a.file == b.file && a.range == b.range && a.kind == b.kind);
    Ok(Sites { files, sites })
}

/// Each file of the combined source: its range there and which of the
/// request's files it is (none for the harness, the prelude, headers).
fn places(source: &Source, request: &Request) -> Vec<(Range<usize>, Option<usize>)> {
    let starts: Vec<usize> = source.files.iter().map(|f| f.start as usize).collect();
    source
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let end = starts.get(i + 1).copied().unwrap_or(source.text.len());
            let canonical = std::fs::canonicalize(&f.name).ok();
            let which = request
                .files
                .iter()
                .position(|(p, _)| Some(p) == canonical.as_ref());
            (f.start as usize..end, which)
        })
        .collect()
}

struct Walk<'a> {
    places: Vec<(Range<usize>, Option<usize>)>,
    files: &'a [(PathBuf, String)],
    /// Insertion sites are asked for.
    wanted: bool,
    /// Insertion sites are collected here (not in an unbraced body).
    insertions: bool,
    /// The statement walked is one of a block's (not the unbraced body
    /// of a branch or loop, which cannot lose its only statement).
    braced: bool,
    out: Vec<Site>,
}

impl Walk<'_> {
    /// A span of the combined source as (file, range in that file), when
    /// it lies in one of the request's files and its text is `expect`
    /// there (a macro's expansion is not: its text is elsewhere).
    fn locate(&self, span: Span, expect: impl Fn(&str) -> bool) -> Option<(usize, Range<usize>)> {
        let (start, end) = (span.start as usize, span.end as usize);
        let (place, file) = self
            .places
            .iter()
            .find(|(r, _)| r.contains(&start) && end <= r.end)?;
        let file = (*file)?;
        let range = start - place.start..end - place.start;
        let text = self.files[file].1.get(range.clone())?;
        expect(text).then_some((file, range))
    }

    /// The statements of a block (and, when given, its closing brace).
    fn block(&mut self, stmts: &[CStmt], closing: Option<Span>) {
        let saved = (self.insertions, self.braced);
        (self.insertions, self.braced) = (self.wanted, true);
        for s in stmts {
            if self.insertions && !is_fence_stmt(s) {
                self.insert(s.span, false);
            }
            self.stmt(s);
        }
        if let Some(c) = closing.filter(|_| self.insertions) {
            self.insert(c, true);
        }
        (self.insertions, self.braced) = saved;
    }

    fn insert(&mut self, span: Span, closing: bool) {
        let at = Span::new(span.start as usize, span.start as usize + 1);
        let first = |t: &str| !t.is_empty() && !t.starts_with('#');
        if let Some((file, range)) = self.locate(at, first) {
            self.out.push(Site {
                file,
                range: range.start..range.start,
                kind: SiteKind::Insert { closing },
            });
        }
    }

    fn stmt(&mut self, s: &CStmt) {
        match &s.kind {
            CStmtKind::Block(v) => {
                let end = s.span.end as usize;
                let closing = Span::new(end.saturating_sub(1), end);
                self.block(v, Some(closing));
                return;
            }
            CStmtKind::Expr(e) => {
                if let Some(call) = fence_call(e) {
                    self.fence(call, Some(s.span).filter(|_| self.braced));
                    call.children().for_each(|c| self.expr(c));
                    return;
                }
                self.expr(e);
            }
            CStmtKind::Decl(vars) => vars
                .iter()
                .filter_map(|v| v.init.as_ref())
                .for_each(|e| self.expr(e)),
            CStmtKind::If { cond, .. }
            | CStmtKind::While { cond, .. }
            | CStmtKind::DoWhile { cond, .. } => self.expr(cond),
            CStmtKind::For { cond, step, .. } => {
                cond.iter().chain(step).for_each(|e| self.expr(e));
            }
            CStmtKind::Return(e) => e.iter().for_each(|e| self.expr(e)),
            CStmtKind::Break | CStmtKind::Continue | CStmtKind::Empty | CStmtKind::Asm(_) => {}
        }
        // A branch or loop body that is not a block is one statement:
        // nothing may be inserted before it without braces.
        let (insertions, braced) = (self.insertions, self.braced);
        for sub in s.sub_stmts() {
            if matches!(sub.kind, CStmtKind::Block(_)) {
                self.stmt(sub);
            } else {
                (self.insertions, self.braced) = (false, false);
                self.stmt(sub);
                (self.insertions, self.braced) = (insertions, braced);
            }
        }
    }

    fn expr(&mut self, e: &CExpr) {
        let order_arg = match &e.kind {
            // Every member call is one of a libcu++ atomic (the subset has no other).
            CExprKind::Method(_, member, args) => {
                member_order(member).and_then(|(at, access)| Some((args.get(at)?, access)))
            }
            CExprKind::Call(name, args) if name == "atomic_thread_fence" => {
                args.first().map(|a| (a, Access::Fence))
            }
            _ => None,
        };
        if let Some((arg, access)) = order_arg {
            self.order(arg, access);
        }
        if let CExprKind::Call(name, _) = &e.kind {
            if fence_scope(name).is_some() {
                self.fence(e, None);
            } else if let Some(scope) = atomic_scope(name) {
                let callee = Span::new(e.span.start as usize, e.span.start as usize + name.len());
                if let Some((file, range)) = self.locate(callee, |t| t == name) {
                    self.out.push(Site {
                        file,
                        range,
                        kind: SiteKind::Atomic {
                            base: split_scope(name).to_string(),
                            scope,
                        },
                    });
                }
            }
        }
        e.children().for_each(|c| self.expr(c));
    }

    /// A written order argument: its enumerator's name, located.
    fn order(&mut self, arg: &CExpr, access: Access) {
        let mut e = arg;
        while let CExprKind::Cast(inner) = &e.kind {
            e = inner;
        }
        let CExprKind::Enumerator(name) = &e.kind else {
            return;
        };
        let Some(order) = CppOrder::of(name) else {
            return;
        };
        if let Some((file, range)) = self.locate(e.span, |t| t.ends_with(name.as_str())) {
            self.out.push(Site {
                file,
                range: range.end - name.len()..range.end,
                kind: SiteKind::Order { access, order },
            });
        }
    }

    /// A fence call, with its statement when it is one.
    fn fence(&mut self, call: &CExpr, stmt: Option<Span>) {
        let CExprKind::Call(name, _) = &call.kind else {
            return;
        };
        let Some(scope) = fence_scope(name) else {
            return;
        };
        let whole = |t: &str| t.starts_with(name.as_str()) && t.ends_with(')');
        let Some((file, range)) = self.locate(call.span, whole) else {
            return;
        };
        let text = &self.files[file].1;
        // The statement's extent stops before its `;`: take it too.
        let stmt = stmt.and_then(|_| {
            let rest = &text[range.end..];
            let gap = rest.len() - rest.trim_start().len();
            rest[gap..]
                .starts_with(';')
                .then_some(range.start..range.end + gap + 1)
        });
        self.out.push(Site {
            file,
            range,
            kind: SiteKind::Fence { scope, stmt },
        });
    }
}

/// The fence call a statement is, if it is one (through conversions).
fn fence_call(e: &CExpr) -> Option<&CExpr> {
    match &e.kind {
        CExprKind::Cast(inner) => fence_call(inner),
        CExprKind::Call(name, _) if fence_scope(name).is_some() => Some(e),
        _ => None,
    }
}

fn is_fence_stmt(s: &CStmt) -> bool {
    matches!(&s.kind, CStmtKind::Expr(e) if fence_call(e).is_some())
}

/// The scope of `__threadfence`, `__threadfence_block`, `__threadfence_system`.
pub(crate) fn fence_scope(name: &str) -> Option<Scope> {
    match name {
        "__threadfence_block" => Some(Scope::Cta),
        "__threadfence" => Some(Scope::Gpu),
        "__threadfence_system" => Some(Scope::Sys),
        _ => None,
    }
}

/// The scope of an atomic function by its suffix (`atomicAdd_block`: the
/// block); `None` for a name that is not one.
fn atomic_scope(name: &str) -> Option<Scope> {
    let base = split_scope(name);
    super::builtins::is_atomic(base).then(|| match &name[base.len()..] {
        "_block" => Scope::Cta,
        "_system" => Scope::Sys,
        _ => Scope::Gpu,
    })
}

/// Which argument of a libcu++ atomic member is its order, and what the
/// member does (as `builtins::atomic_member` reads them).
fn member_order(member: &str) -> Option<(usize, Access)> {
    Some(match member {
        "load" => (0, Access::Load),
        "store" => (1, Access::Store),
        "compare_exchange_strong" | "compare_exchange_weak" => (2, Access::ReadModifyWrite),
        "exchange" | "fetch_add" | "fetch_sub" | "fetch_and" | "fetch_or" | "fetch_xor"
        | "fetch_min" | "fetch_max" => (1, Access::ReadModifyWrite),
        _ => return None,
    })
}
