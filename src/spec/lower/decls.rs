//! Top-level declarations: parameters (with their overrides), procedures,
//! and the memory layout: `global`/`shared` variables with their sizes and
//! initial values (per block for `shared`), `local` ones per thread.

use super::consteval::{ConstEnv, ThreadCoords};
use super::resolve::{Sym, RESERVED};
use super::{already_defined, Lowerer};
use crate::diag::{Diagnostic, SpecResult};
use crate::ir::*;
use crate::spec::ast::{self, Init, Item, SpecFile};

impl<'a> Lowerer<'a> {
    pub(super) fn declare_items(
        &mut self,
        file: &'a SpecFile,
        overrides: &[(String, i64)],
    ) -> SpecResult<()> {
        for item in &file.items {
            match item {
                Item::Param(p) => self.declare_param(p, overrides)?,
                Item::Var(v) => self.declare_var(v)?,
                Item::Fn(f) => {
                    self.check_not_reserved(&f.name)?;
                    self.scopes
                        .define_top(&f.name.name, Sym::Fn(self.fns.len()), f.name.span)
                        .map_err(|s| {
                            already_defined(
                                self.source,
                                &f.name,
                                s,
                                "procedures cannot be overloaded",
                            )
                        })?;
                    self.fns.push(f);
                }
                Item::Harness(_) => {}
            }
        }
        Ok(())
    }

    fn declare_param(&mut self, p: &ast::ParamDecl, overrides: &[(String, i64)]) -> SpecResult<()> {
        self.check_not_reserved(&p.name)?;
        let value = match overrides.iter().rev().find(|(n, _)| *n == p.name.name) {
            Some((_, v)) => *v,
            None => self
                .const_env(None, "a parameter default")
                .eval(&p.default)?,
        };
        self.scopes
            .define_top(&p.name.name, Sym::Param(value), p.name.span)
            .map_err(|f| already_defined(self.source, &p.name, f, "rename one of them"))?;
        self.params.push((p.name.name.clone(), value));
        Ok(())
    }

    pub(super) fn check_not_reserved(&self, name: &ast::Ident) -> SpecResult<()> {
        if RESERVED.contains(&name.name.as_str()) {
            return Err(
                Diagnostic::new(name.span, format!("`{}` is a built-in name", name.name))
                    .label("reserved")
                    .hint("choose another name"),
            );
        }
        Ok(())
    }

    pub(super) fn const_env(
        &self,
        coords: Option<ThreadCoords>,
        context: &'static str,
    ) -> ConstEnv<'_> {
        ConstEnv {
            params: &self.params,
            launch: self.launch,
            coords: coords.unwrap_or(ThreadCoords {
                block: None,
                thread: None,
            }),
            context,
        }
    }

    fn declare_var(&mut self, v: &ast::VarDecl) -> SpecResult<()> {
        self.check_not_reserved(&v.name)?;
        let len = self.array_len(v)?;
        let sym = if v.storage == Storage::Local {
            if v.size.is_some() {
                return Err(Diagnostic::new(v.span, "`local` arrays are not supported")
                    .label("array")
                    .hint("use a `shared` or `global` array indexed by threadIdx"));
            }
            let init = self.per_thread_init(v)?;
            let id = self.new_local(&v.name.name, v.ty, init);
            Sym::Local(id)
        } else {
            let init = self.mem_init(v, len)?;
            self.vars.push(MemVar {
                name: v.name.name.clone(),
                storage: v.storage,
                ty: v.ty,
                volatile: v.volatile,
                len,
                is_array: v.size.is_some(),
                init,
                span: v.span,
            });
            Sym::Mem(self.vars.len() as VarId - 1)
        };
        self.scopes
            .define_top(&v.name.name, sym, v.name.span)
            .map_err(|f| already_defined(self.source, &v.name, f, "rename one of them"))
    }

    /// The number of elements of a variable (1 for a scalar).
    fn array_len(&self, v: &ast::VarDecl) -> SpecResult<u32> {
        let Some(size) = &v.size else {
            return Ok(1);
        };
        let n = self.const_env(None, "an array size").eval(size)?;
        if !(1..=4096).contains(&n) {
            return Err(
                Diagnostic::new(size.span, format!("array size {n} is out of range"))
                    .label("size")
                    .hint("arrays have 1 to 4096 elements"),
            );
        }
        Ok(n as u32)
    }

    /// Initial raw values of a memory variable; shared ones per block.
    fn mem_init(&self, v: &ast::VarDecl, len: u32) -> SpecResult<Vec<u64>> {
        let copies = if v.storage == Storage::Shared {
            self.launch.blocks
        } else {
            1
        };
        let mut out = Vec::with_capacity((len * copies) as usize);
        for block in 0..copies {
            let coords = (v.storage == Storage::Shared).then_some(ThreadCoords {
                block: Some(block),
                thread: None,
            });
            let env = self.const_env(coords, "an initial value");
            match &v.init {
                Init::Zero => out.extend(std::iter::repeat_n(0, len as usize)),
                Init::Expr(e) => {
                    let raw = to_raw(v.ty, env.eval(e)?);
                    out.extend(std::iter::repeat_n(raw, len as usize));
                }
                Init::List(items, span) => {
                    if items.len() != len as usize {
                        return Err(Diagnostic::new(
                            *span,
                            format!("{} initial values for an array of {len}", items.len()),
                        )
                        .label("wrong number of values")
                        .hint("give one value per element, or a single `= value` for all"));
                    }
                    for e in items {
                        out.push(to_raw(v.ty, env.eval(e)?));
                    }
                }
                Init::Designated(entries, _) => {
                    out.extend(designated_values(v, len, entries, &env)?);
                }
            }
        }
        Ok(out)
    }

    fn per_thread_init(&self, v: &ast::VarDecl) -> SpecResult<LocalInit> {
        let e = match &v.init {
            Init::Zero => return Ok(LocalInit::Zero),
            Init::Expr(e) => e,
            Init::List(_, span) | Init::Designated(_, span) => {
                return Err(Diagnostic::new(*span, "a scalar takes one initial value").label("list"))
            }
        };
        let mut values = Vec::with_capacity(self.launch.threads() as usize);
        for t in 0..self.launch.threads() {
            let coords = ThreadCoords {
                block: Some(t / self.launch.threads_per_block),
                thread: Some(t % self.launch.threads_per_block),
            };
            values.push(to_raw(
                v.ty,
                self.const_env(Some(coords), "an initial value").eval(e)?,
            ));
        }
        Ok(LocalInit::PerThread(values))
    }
}

/// The raw values of `v`'s `len` elements from `[index] = value` entries,
/// the rest zero. An index is evaluated for this launch, so one that fits
/// `flags[nblocks]` under `--blocks 4` may not under `--blocks 2`: that is
/// a located error, as is naming one element twice.
fn designated_values(
    v: &ast::VarDecl,
    len: u32,
    entries: &[ast::Designator],
    env: &ConstEnv<'_>,
) -> SpecResult<Vec<u64>> {
    let mut values = vec![0; len as usize];
    let mut named = vec![false; len as usize];
    for entry in entries {
        let index = env.eval(&entry.index)?;
        let Some(i) = usize::try_from(index).ok().filter(|&i| i < len as usize) else {
            return Err(Diagnostic::new(
                entry.index.span,
                format!(
                    "index {index} is out of range for `{}`, which has {len} element(s) in this launch",
                    v.name.name
                ),
            )
            .label("no such element")
            .hint(format!("indices run from 0 to {}", len - 1)));
        };
        if named[i] {
            return Err(Diagnostic::new(
                entry.index.span,
                format!("element {i} of `{}` is initialised twice", v.name.name),
            )
            .label("named again here")
            .hint("give each element at most one value"));
        }
        named[i] = true;
        values[i] = to_raw(v.ty, env.eval(&entry.value)?);
    }
    Ok(values)
}
