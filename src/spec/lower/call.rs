//! Calls. A procedure's is inlined ([`super::inline`]); any other is a
//! built-in: a memory operation with its order and scope, a fence, a
//! barrier, a warp vote or mask, a Fermi lock-bit operation or
//! `backoff()`. [`classify_call`] says which one a name denotes; this
//! module checks the arguments and emits its instruction.

use super::builtins::{classify_call, CallKind};
use super::resolve::Sym;
use super::Lowerer;
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, ExprKind};

impl<'a> Lowerer<'a> {
    /// Lowers a call; returns its value when it has one (an atomic's only
    /// when `want_value`).
    pub(super) fn call(
        &mut self,
        e: &'a ast::Expr,
        name: &'a ast::Ident,
        qualifiers: &'a [ast::Ident],
        args: &'a [ast::Expr],
        want_value: bool,
    ) -> SpecResult<Option<Expr>> {
        if qualifiers.is_empty() {
            if let Some(Sym::Fn(index)) = self.scopes.lookup(&name.name, &self.launch) {
                return self.inline_call(index, name, args, e.span);
            }
        }
        let kind = classify_call(name, qualifiers)?;
        check_arity(kind, name, args, e.span)?;
        let span = e.span;
        Ok(match kind {
            CallKind::Atomic(op, mo) => self.atomic(op, mo, name, args, want_value, span)?,
            CallKind::Load(mo) => {
                let access = mo.at(self.mem_arg(&args[0], name)?);
                Some(Expr::Local(self.load_into_temp(access, span)))
            }
            CallKind::Store(mo) => {
                let access = mo.at(self.mem_arg(&args[0], name)?);
                let value = self.expr(&args[1])?;
                self.no_value(span, Op::Store { access, value })
            }
            CallKind::Fence(mo) => self.no_value(span, Op::Fence(mo)),
            CallKind::SyncThreads => self.no_value(span, Op::SyncThreads),
            CallKind::NamedBarrier { arrive } => {
                let op = self.named_barrier(args, arrive)?;
                self.no_value(span, op)
            }
            CallKind::KernelBoundary => self.no_value(span, Op::KernelBoundary),
            CallKind::Backoff => self.no_value(span, Op::Backoff),
            CallKind::SyncWarp => {
                let mask = match args.first() {
                    Some(m) => self.expr(m)?,
                    None => Expr::Const(0xFFFF_FFFF),
                };
                self.no_value(span, Op::SyncWarp { mask })
            }
            CallKind::Vote(kind) => {
                let mask = self.expr(&args[0])?;
                let pred = self.expr(&args[1])?;
                let ty = if kind == VoteKind::Ballot {
                    Type::U32
                } else {
                    Type::Bool
                };
                self.result_in_temp(ty, span, |dst| Op::Vote {
                    dst,
                    kind,
                    mask,
                    pred,
                })
            }
            CallKind::ActiveMask => {
                self.result_in_temp(Type::U32, span, |dst| Op::ActiveMask { dst })
            }
            CallKind::LockBitTry => {
                let loc = self.mem_arg(&args[0], name)?;
                self.refuse_wide(&loc, name, "the lock unit loads and stores 32-bit words")?;
                let value = Some(self.local_arg(&args[1])?);
                self.result_in_temp(Type::Bool, span, |pred| Op::LockBitTry { pred, value, loc })
            }
            CallKind::LockBitRelease => {
                let loc = self.mem_arg(&args[0], name)?;
                self.refuse_wide(&loc, name, "the lock unit loads and stores 32-bit words")?;
                let value = self.expr(&args[1])?;
                self.no_value(span, Op::LockBitRelease { loc, value })
            }
        })
    }

    /// Emits `op`, which has no value.
    fn no_value(&mut self, span: Span, op: Op) -> Option<Expr> {
        self.emit(op, span);
        None
    }

    /// Emits `op`, whose result goes to a fresh temporary of type `ty`;
    /// returns the temporary.
    fn result_in_temp(
        &mut self,
        ty: Type,
        span: Span,
        op: impl FnOnce(LocalId) -> Op,
    ) -> Option<Expr> {
        let dst = self.temp(ty);
        self.emit(op(dst), span);
        Some(Expr::Local(dst))
    }

    fn atomic(
        &mut self,
        op: AtomicOp,
        mo: MemOrder,
        name: &ast::Ident,
        args: &'a [ast::Expr],
        want_value: bool,
        span: Span,
    ) -> SpecResult<Option<Expr>> {
        let access = mo.at(self.mem_arg(&args[0], name)?);
        if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
            self.refuse_wide(
                &access.loc,
                name,
                "CUDA's atomicInc and atomicDec are 32-bit only",
            )?;
        }
        let mut operands = Vec::with_capacity(op.operands());
        for a in &args[1..] {
            operands.push(self.expr(a)?);
        }
        let dst = want_value.then(|| self.temp(self.vars[access.loc.var as usize].ty));
        let atomic = Op::Atomic {
            dst,
            op,
            access,
            operands,
        };
        self.emit(atomic, span);
        Ok(dst.map(Expr::Local))
    }

    /// `bar.sync(id[, count])` or `bar.arrive(id, count)`: the id is a
    /// constant of PTX's range; `bar.sync(0)` is `__syncthreads()`.
    fn named_barrier(&mut self, args: &'a [ast::Expr], arrive: bool) -> SpecResult<Op> {
        let id = self.const_env(None, "a barrier id").eval(&args[0])?;
        if !(0..16).contains(&id) {
            return Err(
                Diagnostic::new(args[0].span, format!("barrier id {id} is out of range"))
                    .label("id")
                    .hint("a block has 16 named barriers, 0 to 15 (0 is __syncthreads())"),
            );
        }
        let count = args.get(1).map(|c| self.expr(c)).transpose()?;
        if id == 0 && count.is_none() {
            return Ok(Op::SyncThreads);
        }
        Ok(Op::NamedBarrier {
            id: id as u32,
            count,
            arrive,
        })
    }

    /// An error at `name` when `loc` is a 64-bit variable, which `why`.
    fn refuse_wide(&self, loc: &Loc, name: &ast::Ident, why: &str) -> SpecResult<()> {
        let v = &self.vars[loc.var as usize];
        if v.ty.words() == 1 {
            return Ok(());
        }
        Err(Diagnostic::new(
            name.span,
            format!("`{}` has no 64-bit form: {why}", name.name),
        )
        .label(format!("`{}` is {}", v.name, v.ty.name()))
        .hint("use a 32-bit variable, or another atomic (atomicCAS, atomicAdd)"))
    }

    /// The local that receives the value `ldslk` loads.
    fn local_arg(&self, arg: &ast::Expr) -> SpecResult<LocalId> {
        if let ExprKind::Name(id) = &arg.kind {
            if let Sym::Local(l) = self.lookup(id)? {
                return Ok(l);
            }
        }
        Err(Diagnostic::new(
            arg.span,
            "the second argument of `ldslk` must be a local variable",
        )
        .label("receives the loaded value"))
    }
}

fn check_arity(
    kind: CallKind,
    name: &ast::Ident,
    args: &[ast::Expr],
    span: Span,
) -> SpecResult<()> {
    let arity = kind.arity();
    // `__syncwarp()` defaults its mask to the full warp, as in CUDA.
    let defaulted = (matches!(kind, CallKind::SyncWarp) && args.is_empty())
        || (kind == CallKind::NamedBarrier { arrive: false } && args.len() == 1);
    if args.len() == arity || defaulted {
        return Ok(());
    }
    Err(Diagnostic::new(
        span,
        format!(
            "`{}` takes {arity} argument{}, found {}",
            name.name,
            if arity == 1 { "" } else { "s" },
            args.len()
        ),
    )
    .label("wrong number of arguments")
    .hint(kind.usage().to_string()))
}
