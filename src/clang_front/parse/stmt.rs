//! Statements: blocks, declarations, `if`, the loops, `return` and inline
//! PTX; `switch`, `goto` and the like are refused.

#![allow(non_upper_case_globals)] // libclang's constants keep their C names

use super::{is_expr_kind, outside, var_space, Lower, R};
use crate::clang_front::ast::*;
use crate::clang_front::libclang::Cursor;
use crate::spec::ast::Span;
use clang_sys::*;

impl Lower<'_, '_> {
    pub(super) fn stmt(&mut self, c: &Cursor) -> R<CStmt> {
        let span = self.span(c);
        let kids = c.children();
        let kind = match c.kind() {
            CXCursor_CompoundStmt => {
                CStmtKind::Block(kids.iter().map(|k| self.stmt(k)).collect::<R<_>>()?)
            }
            CXCursor_DeclStmt => {
                let mut vars = Vec::new();
                for k in &kids {
                    match k.kind() {
                        CXCursor_VarDecl => {
                            vars.push(self.var(k, var_space(k))?);
                        }
                        _ => {
                            return Err(outside(
                                self.span(k),
                                format!("the declaration `{}`", k.spelling()),
                            ))
                        }
                    }
                }
                CStmtKind::Decl(vars)
            }
            CXCursor_IfStmt => {
                self.plain_condition(&kids, span, "if")?;
                let cond = self.expr(&kids[0])?;
                let then = Box::new(self.stmt(&kids[1])?);
                let otherwise = kids.get(2).map(|k| self.stmt(k)).transpose()?.map(Box::new);
                CStmtKind::If {
                    cond,
                    then,
                    otherwise,
                }
            }
            CXCursor_WhileStmt => {
                self.plain_condition(&kids, span, "while")?;
                CStmtKind::While {
                    cond: self.expr(&kids[0])?,
                    body: Box::new(self.stmt(&kids[1])?),
                }
            }
            CXCursor_DoStmt => CStmtKind::DoWhile {
                body: Box::new(self.stmt(&kids[0])?),
                cond: self.expr(&kids[1])?,
            },
            CXCursor_ForStmt => self.for_stmt(c, &kids, span)?,
            CXCursor_BreakStmt => CStmtKind::Break,
            CXCursor_ContinueStmt => CStmtKind::Continue,
            CXCursor_ReturnStmt => {
                CStmtKind::Return(kids.first().map(|k| self.expr(k)).transpose()?)
            }
            CXCursor_NullStmt => CStmtKind::Empty,
            CXCursor_AsmStmt => CStmtKind::Asm(self.asm(c, &kids, span)?),
            k if is_expr_kind(k) => CStmtKind::Expr(self.expr(c)?),
            CXCursor_SwitchStmt => return Err(outside(span, "`switch`")),
            CXCursor_GotoStmt | CXCursor_IndirectGotoStmt => return Err(outside(span, "`goto`")),
            CXCursor_LabelStmt => return Err(outside(span, "a label")),
            CXCursor_CXXTryStmt => return Err(outside(span, "`try`")),
            CXCursor_CXXForRangeStmt => return Err(outside(span, "a range-based `for`")),
            _ => return Err(outside(span, format!("the statement `{}`", c.kind_name()))),
        };
        Ok(CStmt { kind, span })
    }

    /// `if`/`while` with a declaration in the condition are refused.
    fn plain_condition(&mut self, kids: &[Cursor], span: Span, word: &str) -> R<()> {
        match kids.first() {
            Some(k) if is_expr_kind(k.kind()) && kids.len() >= 2 => Ok(()),
            _ => Err(outside(
                span,
                format!("a declaration in the condition of `{word}`"),
            )),
        }
    }

    /// libclang leaves empty parts of `for (init; cond; step)` out of the
    /// children, so each child is placed by where it starts relative to the
    /// header's two semicolons.
    fn for_stmt(&mut self, c: &Cursor, kids: &[Cursor], span: Span) -> R<CStmtKind> {
        let tokens = c.tokens();
        let mut depth = 0;
        let mut semis = Vec::new();
        let mut close = None;
        for t in &tokens {
            match t.text.as_str() {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        close = t.at.clone();
                        break;
                    }
                }
                ";" if depth == 1 => semis.push(t.at.clone()),
                _ => {}
            }
        }
        let (Some(Some(s1)), Some(Some(s2)), Some(close)) = (semis.first(), semis.get(1), close)
        else {
            return Err(outside(span, "this `for` header (it comes from a macro)"));
        };
        let (s1, s2, close) = (
            self.files.offset(s1),
            self.files.offset(s2),
            self.files.offset(&close),
        );
        let (body, header) = kids
            .split_last()
            .ok_or_else(|| outside(span, "a `for` without a body"))?;
        let (mut init, mut cond, mut step) = (None, None, None);
        for k in header {
            let start = self.span(k).start;
            if start < s1 {
                init = Some(Box::new(self.stmt(k)?));
            } else if start < s2 {
                cond = Some(self.expr(k)?);
            } else if start < close {
                step = Some(self.expr(k)?);
            }
        }
        Ok(CStmtKind::For {
            init,
            cond,
            step,
            body: Box::new(self.stmt(body)?),
        })
    }

    /// `asm volatile("tmpl" : "=r"(out) : "r"(in), "l"(ptr) : "memory")`:
    /// the template and constraints come from the tokens, the operand
    /// expressions from the children (outputs first).
    fn asm(&mut self, c: &Cursor, kids: &[Cursor], span: Span) -> R<AsmStmt> {
        let tokens: Vec<String> = c.tokens().into_iter().map(|t| t.text).collect();
        let open = tokens
            .iter()
            .position(|t| t == "(")
            .ok_or_else(|| outside(span, "this `asm` statement"))?;
        let mut template = String::new();
        let mut i = open + 1;
        while let Some(t) = tokens.get(i).filter(|t| t.starts_with('"')) {
            template.push_str(&unquote(t));
            i += 1;
        }
        // Constraints per section, in order: `"=r"`, `"l"`, ... A constraint
        // may be a macro (the cooperative groups header writes its pointer
        // constraint so): a name before an operand's `(`, kept as the name.
        let mut sections: Vec<Vec<String>> = vec![Vec::new()];
        let mut depth = 0;
        for (k, t) in tokens[i..].iter().enumerate() {
            let before_paren = tokens.get(i + k + 1).is_some_and(|n| n == "(");
            match t.as_str() {
                s if depth == 0
                    && before_paren
                    && s.starts_with(|ch: char| ch == '_' || ch.is_ascii_alphabetic()) =>
                {
                    sections
                        .last_mut()
                        .expect("one section")
                        .push(s.to_string())
                }
                "(" => depth += 1,
                ")" if depth == 0 => break,
                ")" => depth -= 1,
                ":" if depth == 0 => sections.push(Vec::new()),
                // C++ lexes `::` (no outputs) as one token.
                "::" if depth == 0 => {
                    sections.push(Vec::new());
                    sections.push(Vec::new());
                }
                s if depth == 0 && s.starts_with('"') => {
                    sections.last_mut().expect("one section").push(unquote(s))
                }
                _ => {}
            }
        }
        let outs = sections.get(1).cloned().unwrap_or_default();
        let ins = sections.get(2).cloned().unwrap_or_default();
        let exprs: Vec<&Cursor> = kids.iter().filter(|k| is_expr_kind(k.kind())).collect();
        if exprs.len() != outs.len() + ins.len() {
            return Err(outside(span, "this `asm` statement's operands"));
        }
        let mut operands = Vec::new();
        for (constraint, e) in outs.iter().chain(&ins).zip(exprs) {
            operands.push((constraint.clone(), self.expr(e)?));
        }
        let inputs = operands.split_off(outs.len());
        Ok(AsmStmt {
            template,
            outputs: operands,
            inputs,
        })
    }
}

/// The text of a C string literal token (escapes `\n`, `\t`, `\"`, `\\`).
fn unquote(token: &str) -> String {
    let inner = token.trim_start_matches('"').trim_end_matches('"');
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(ch) = chars.next() {
        if ch == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_string_tokens() {
        assert_eq!(
            unquote("\"ld.acquire.gpu.u32 %0, [%1];\""),
            "ld.acquire.gpu.u32 %0, [%1];"
        );
        assert_eq!(unquote("\"a\\n\\tb\""), "a\n\tb");
    }
}
