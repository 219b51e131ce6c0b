//! Procedure calls, inlined: the body is lowered in place, its parameters
//! bound to the argument values and each `return` a jump to its end; the
//! activation is recorded as an [`InlinedCall`].

use super::region::contains_critical;
use super::{Lowerer, MAX_CALL_DEPTH, MAX_INSTRUCTIONS};
use crate::diag::{Diagnostic, Span, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, ExprKind, StmtKind};

/// One inlined procedure activation.
pub(super) struct Frame {
    pub(super) name: String,
    pub(super) ret: Option<(LocalId, Type)>,
    /// Jumps to patch to the end of the inlined body.
    pub(super) returns: Vec<usize>,
    /// Loops open when the procedure was entered: `break` may not cross it.
    pub(super) loop_depth: usize,
}

impl<'a> Lowerer<'a> {
    pub(super) fn inline_call(
        &mut self,
        index: usize,
        name: &ast::Ident,
        args: &'a [ast::Expr],
        span: Span,
    ) -> SpecResult<Option<Expr>> {
        let f: &'a ast::FnDecl = self.fns[index];
        self.check_call(f, name, args, span)?;
        // Arguments are evaluated in the caller's scope, then bound.
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.expr(a)?);
        }
        let ret = f.ret.map(|ty| (self.temp(ty), ty));
        let (call, first_local, args) = (self.pc(), self.locals.len() as LocalId, values.clone());
        let (depth, first_inner) = (self.frames.len(), self.inlined.len());
        self.frames.push(Frame {
            name: f.name.name.clone(),
            ret,
            returns: Vec::new(),
            loop_depth: self.loops.len(),
        });
        let caller_scopes = self.scopes.enter_procedure();
        let result = self.inline_body(f, values, span);
        self.scopes.leave_procedure(caller_scopes);
        let frame = self.frames.pop().expect("pushed above");
        result?;
        self.check_size(f, span)?;
        let end = self.pc();
        for j in frame.returns {
            self.patch(j, end);
        }
        let n = args.len() as u32;
        self.inlined.push(InlinedCall {
            proc: f.name.name.clone(),
            span,
            call,
            body: call + n,
            end,
            params: (first_local..first_local + n).collect(),
            args,
            ret: ret.map(|(id, _)| id),
            locals: first_local..self.locals.len() as LocalId,
            depth,
            calls: (first_inner..self.inlined.len())
                .filter(|&i| self.inlined[i].depth == depth + 1)
                .collect(),
        });
        Ok(ret.map(|(id, _)| Expr::Local(id)))
    }

    /// A call of `f` that can be inlined here: not recursive, not too
    /// deep, with the right number of arguments, and no critical section
    /// inside another.
    fn check_call(
        &self,
        f: &ast::FnDecl,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> SpecResult<()> {
        if self.frames.iter().any(|fr| fr.name == f.name.name) {
            return Err(
                Diagnostic::new(span, format!("recursive call of `{}`", f.name.name))
                    .label("calls itself")
                    .hint("procedures are inlined; write the recursion as a loop"),
            );
        }
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                span,
                format!("calls nest deeper than {MAX_CALL_DEPTH} levels"),
            )
            .label("one call too many")
            .hint(format!(
                "procedures are inlined: {} → `{}`; call some of them one after another instead",
                self.call_chain(),
                f.name.name
            )));
        }
        if args.len() != f.params.len() {
            return Err(Diagnostic::new(
                span,
                format!(
                    "`{}` takes {} argument(s), found {}",
                    name.name,
                    f.params.len(),
                    args.len()
                ),
            )
            .label("wrong number of arguments")
            .hint(format!("declared at {}", describe_params(f))));
        }
        if self.in_critical && contains_critical(&f.body) {
            return Err(Diagnostic::new(span, "critical sections cannot nest")
                .label("this procedure has one"));
        }
        Ok(())
    }

    /// The program is still within [`MAX_INSTRUCTIONS`] after inlining `f`.
    fn check_size(&self, f: &ast::FnDecl, span: Span) -> SpecResult<()> {
        if self.code.len() <= MAX_INSTRUCTIONS {
            return Ok(());
        }
        Err(Diagnostic::new(
            span,
            format!("inlining makes the program longer than {MAX_INSTRUCTIONS} instructions"),
        )
        .label("this call's body is inlined once per call")
        .hint(format!(
            "procedures are inlined at each call, so a procedure that calls another twice, \
             which calls another twice, ... doubles the code at each level (here {} → `{}`)",
            self.call_chain(),
            f.name.name
        )))
    }

    fn inline_body(&mut self, f: &'a ast::FnDecl, values: Vec<Expr>, span: Span) -> SpecResult<()> {
        self.scopes.push();
        for (p, v) in f.params.iter().zip(values) {
            self.check_not_reserved(&p.name)?;
            self.bind_local(&p.name, p.ty, v, "parameters need distinct names", span)?;
        }
        self.block(&f.body)?;
        if let Some(ty) = f.ret {
            if !ends_in_return(&f.body) {
                return Err(Diagnostic::new(
                    f.body.span,
                    format!("`{}` must return a {}", f.name.name, ty.name()),
                )
                .label("can reach the end without `return`")
                .hint("end the procedure with `return value;`"));
            }
        }
        Ok(())
    }
}

/// Whether every path through `b` ends in `return` (conservatively: the last
/// statement returns, or is an if/else whose branches both do, or a loop
/// without a condition).
fn ends_in_return(b: &ast::Block) -> bool {
    match b.stmts.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => true,
        Some(StmtKind::If {
            then_block,
            else_block: Some(e),
            ..
        }) => ends_in_return(then_block) && ends_in_return(e),
        Some(StmtKind::Block(inner)) => ends_in_return(inner),
        Some(StmtKind::While { cond, .. }) => matches!(cond.kind, ExprKind::Bool(true)),
        Some(StmtKind::For { cond: None, .. }) => true,
        _ => false,
    }
}

fn describe_params(f: &ast::FnDecl) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{} {}", p.ty.name(), p.name.name))
        .collect();
    format!("`fn {}({})`", f.name.name, params.join(", "))
}
