//! libclang's syntax tree → the subset's typed tree ([`super::ast`]).
//! Every construct outside the subset is refused here, located and named.
//!
//! This file places libclang's locations in the combined source, finds the
//! device functions and variables, and reads declarations and types;
//! [`stmt`] reads statements (inline PTX among them), [`expr`]
//! expressions.

#![allow(non_upper_case_globals)] // libclang's constants keep their C names

use super::ast::*;
use super::libclang::{Cursor, Location, Ty, Unit};
use crate::diag::{Diagnostic, Source};
use crate::ir::Scope;
use crate::spec::ast::Span;
use clang_sys::*;
use std::collections::HashMap;

mod expr;
mod stmt;

/// Path of the force-included stand-in for the CUDA headers.
pub(super) const PRELUDE_PATH: &str = "/gsync-check/cuda_prelude.cuh";
pub(super) const PRELUDE: &str = include_str!("../prelude.cuh");
/// Path of the generated file that includes the harness's CUDA files.
/// The stand-in for `<nv/target>`, in a folder on the include path.
pub(super) const TARGET_DIR: &str = "/gsync-check/include";
pub(super) const TARGET_PATH: &str = "/gsync-check/include/nv/target";
pub(super) const TARGET: &str = include_str!("../nv_target.h");
pub(super) const MAIN_PATH: &str = "/gsync-check/translation_unit.cu";

/// Places libclang locations in the combined source, appending each file
/// the first time one of its locations is needed.
pub(super) struct Files<'s> {
    source: &'s mut Source,
    starts: HashMap<String, Option<u32>>,
    /// Texts that stand in for files on disk (an edited `.cu`).
    overlay: &'s [(std::path::PathBuf, String)],
}

impl<'s> Files<'s> {
    pub(super) fn new(
        source: &'s mut Source,
        overlay: &'s [(std::path::PathBuf, String)],
    ) -> Files<'s> {
        Files {
            source,
            starts: HashMap::new(),
            overlay,
        }
    }

    fn start_of(&mut self, file: &str) -> Option<u32> {
        if let Some(s) = self.starts.get(file) {
            return *s;
        }
        let text = match file {
            PRELUDE_PATH => Some(PRELUDE.to_string()),
            TARGET_PATH => Some(TARGET.to_string()),
            MAIN_PATH => None,
            _ => match self.overlay.iter().find(|(p, _)| p.as_os_str() == file) {
                Some((_, text)) => Some(text.clone()),
                None => std::fs::read_to_string(file).ok(),
            },
        };
        let start = text.map(|t| self.source.append_file(file, &t));
        self.starts.insert(file.to_string(), start);
        start
    }

    /// A location as an offset in the combined source (the end of the
    /// spec's text when the file cannot be placed).
    pub(super) fn offset(&mut self, at: &Location) -> u32 {
        match self.start_of(&at.file) {
            Some(start) => start + at.offset,
            None => self.source.files.first().map_or(0, |f| f.start),
        }
    }

    pub(super) fn span_of(&mut self, c: &Cursor) -> Span {
        match c.extent() {
            Some((a, b)) => {
                let (s, e) = (self.offset(&a), self.offset(&b));
                Span::new(s as usize, e.max(s) as usize)
            }
            None => Span::default(),
        }
    }

    pub(super) fn in_prelude(c: &Cursor) -> bool {
        c.location().is_some_and(|l| l.file == PRELUDE_PATH)
    }
}

/// Converts every device function and file-scope device variable of `unit`.
pub(super) fn program(unit: &Unit, files: &mut Files) -> CProgram {
    let mut p = CProgram::default();
    let mut seen = std::collections::HashSet::new();
    collect(unit.root(), files, &mut p, &mut seen);
    p
}

fn collect(
    parent: Cursor,
    files: &mut Files,
    p: &mut CProgram,
    seen: &mut std::collections::HashSet<DeclId>,
) {
    for c in parent.children() {
        if Files::in_prelude(&c) {
            continue;
        }
        match c.kind() {
            CXCursor_Namespace | CXCursor_UnexposedDecl => collect(c, files, p, seen),
            CXCursor_FunctionDecl => {
                let space = fn_space(&c);
                p.declared.push((c.spelling(), space));
                if space != FnSpace::Host && c.is_definition() {
                    let f = Lower { files: &mut *files }.function(&c);
                    p.functions.push((c.spelling(), f));
                }
            }
            CXCursor_VarDecl => {
                // At file scope only the CUDA attributes make device memory
                // (`static` there is a host variable).
                let space = match var_space(&c) {
                    Storage::Device
                        if !has_child(&c, CXCursor_CUDADeviceAttr)
                            && !has_child(&c, CXCursor_CUDAConstantAttr) =>
                    {
                        Storage::Auto
                    }
                    other => other,
                };
                if space != Storage::Auto {
                    let id = decl_id(&c, files);
                    if seen.insert(id) {
                        p.globals.push(Lower { files: &mut *files }.var(&c, space));
                    }
                }
            }
            _ => {}
        }
    }
}

fn has_child(c: &Cursor, kind: CXCursorKind) -> bool {
    c.children().iter().any(|k| k.kind() == kind)
}

fn fn_space(c: &Cursor) -> FnSpace {
    if has_child(c, CXCursor_CUDAGlobalAttr) {
        FnSpace::Global
    } else if has_child(c, CXCursor_CUDADeviceAttr) {
        FnSpace::Device
    } else {
        FnSpace::Host
    }
}

fn var_space(c: &Cursor) -> Storage {
    if has_child(c, CXCursor_CUDASharedAttr) {
        Storage::Shared
    } else if has_child(c, CXCursor_CUDADeviceAttr)
        || has_child(c, CXCursor_CUDAConstantAttr)
        || c.storage_class() == CX_SC_Static
    {
        Storage::Device
    } else {
        Storage::Auto
    }
}

/// A declaration's identity: where its first declaration's name is.
pub(super) fn decl_id(c: &Cursor, files: &mut Files) -> DeclId {
    c.canonical().location().map_or(0, |l| files.offset(&l))
}

struct Lower<'f, 's> {
    files: &'f mut Files<'s>,
}

type R<T> = Result<T, Diagnostic>;

/// A refusal: the construct, where it is, and how to stay in the subset.
fn outside(span: Span, what: impl Into<String>) -> Diagnostic {
    Diagnostic::new(span, format!("{} is outside the CUDA subset gsync-check reads", what.into()))
        .label("not supported")
        .hint("see the book's chapter `Checking CUDA` for the subset; a harness can call the functions that stay inside it")
}

fn is_expr_kind(k: CXCursorKind) -> bool {
    (CXCursor_UnexposedExpr..=CXCursor_PackIndexingExpr).contains(&k)
        || k == CXCursor_BuiltinBitCastExpr
}

impl Lower<'_, '_> {
    fn span(&mut self, c: &Cursor) -> Span {
        self.files.span_of(c)
    }

    fn function(&mut self, c: &Cursor) -> R<CFunction> {
        let span = self.span(c);
        let mut params = Vec::new();
        let mut body = None;
        for k in c.children() {
            match k.kind() {
                CXCursor_ParmDecl => params.push(self.var(&k, Storage::Auto)?),
                CXCursor_CompoundStmt => body = Some(k),
                _ => {}
            }
        }
        let body_cursor = body.ok_or_else(|| outside(span, "a function without a body"))?;
        let end = {
            let s = self.span(&body_cursor);
            Span::new(s.end.saturating_sub(1) as usize, s.end as usize)
        };
        let stmts = match self.stmt(&body_cursor)?.kind {
            CStmtKind::Block(s) => s,
            _ => unreachable!("a compound statement lowers to a block"),
        };
        let ret = self.ctype(c.result_type());
        Ok(CFunction {
            name: c.spelling(),
            params,
            ret,
            body: stmts,
            span,
            end,
        })
    }

    fn var(&mut self, c: &Cursor, storage: Storage) -> R<CVar> {
        let span = self.span(c);
        let raw = c.ty();
        let ty = self.ctype(raw);
        let init = c
            .children()
            .into_iter()
            .rfind(|k| is_expr_kind(k.kind()))
            .map(|k| self.expr(&k))
            .transpose()?;
        Ok(CVar {
            id: decl_id(c, self.files),
            name: c.spelling(),
            volatile: raw.is_volatile() || raw.canonical().is_volatile(),
            ty,
            storage,
            init,
            span,
        })
    }

    fn ctype(&mut self, t: Ty) -> CType {
        let c = t.canonical();
        match c.kind() {
            CXType_Void => CType::Void,
            CXType_Bool => CType::Bool,
            CXType_Char_S | CXType_SChar => CType::int(8, true),
            CXType_Char_U | CXType_UChar => CType::int(8, false),
            CXType_Short => CType::int(16, true),
            CXType_UShort => CType::int(16, false),
            CXType_Int => CType::int(32, true),
            CXType_UInt => CType::int(32, false),
            CXType_Long | CXType_LongLong => CType::int(64, true),
            CXType_ULong | CXType_ULongLong => CType::int(64, false),
            CXType_Float => CType::Float { bits: 32 },
            CXType_Double => CType::Float { bits: 64 },
            CXType_Enum => CType::Enum,
            CXType_Pointer => {
                let p = c.pointee();
                CType::Pointer(Box::new(Pointee {
                    volatile: p.is_volatile(),
                    ty: self.ctype(p),
                }))
            }
            CXType_LValueReference => CType::Reference(Box::new(self.ctype(c.pointee()))),
            CXType_ConstantArray => CType::Array(
                Box::new(self.ctype(c.element())),
                c.array_len().max(0) as u32,
            ),
            CXType_Record => {
                let full = c.spelling();
                let spelling = full
                    .trim_start_matches("volatile ")
                    .trim_start_matches("const ")
                    .trim_start_matches("volatile ")
                    .to_string();
                let by_ref = spelling.starts_with("cuda::atomic_ref<");
                if by_ref || spelling.starts_with("cuda::atomic<") {
                    let value = match c.template_arg_types().first() {
                        Some(v) => self.ctype(*v),
                        None => CType::Other(spelling.clone()),
                    };
                    CType::Atomic {
                        value: Box::new(value),
                        scope: atomic_scope(&spelling),
                        by_ref,
                    }
                } else {
                    CType::Other(spelling)
                }
            }
            _ => CType::Other(t.spelling()),
        }
    }
}

/// The scope argument of `cuda::atomic_ref<T, S>` as clang spells the type.
fn atomic_scope(spelling: &str) -> Scope {
    let last = spelling
        .rsplit(',')
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('>')
        .trim();
    match last {
        s if s.ends_with("thread_scope_block") || s.ends_with("thread_scope_thread") => Scope::Cta,
        s if s.ends_with("thread_scope_device") => Scope::Gpu,
        "2" | "3" => Scope::Cta,
        "1" => Scope::Gpu,
        _ => Scope::Sys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_scopes_from_type_spellings() {
        assert_eq!(
            atomic_scope("cuda::atomic_ref<unsigned int, cuda::thread_scope_device>"),
            Scope::Gpu
        );
        assert_eq!(
            atomic_scope("cuda::atomic_ref<int, cuda::thread_scope_block>"),
            Scope::Cta
        );
        assert_eq!(atomic_scope("cuda::atomic<int, 1>"), Scope::Gpu);
        assert_eq!(
            atomic_scope("cuda::atomic<int, cuda::thread_scope_system>"),
            Scope::Sys
        );
    }
}
