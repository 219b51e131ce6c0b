//! A kernel's parameters as the launch gives them: a pointer is a
//! zero-initialised buffer of its own (`--arg NAME=N` elements), an
//! integer the value `--arg NAME=VALUE` says; a pointer field of a struct
//! argument is a buffer per field (`--arg param->field=N`); and
//! `--arg NAME[i]=V` gives an element of a global variable its initial
//! value.

use super::memory::{Ptr, Region};
use super::{source, KernelRequest, Lowerer, DEFAULT_BUFFER_LEN, R};
use crate::diag::Span;
use crate::ir::{Expr, MemVar, VarId};
use crate::ir::{Storage, Type};
use crate::llvm::debug::SourceLoc;
use crate::llvm::ir::Type as LType;

impl Lowerer<'_> {
    /// Kernel parameters: pointers become buffers, integers the values
    /// the request gives them.
    pub(super) fn bind_params(
        &mut self,
        request: &KernelRequest,
        kernel_loc: Option<&SourceLoc>,
        kernel_span: Span,
    ) -> R<()> {
        let func = self.func;
        let params = self.param_names(kernel_loc);
        self.point = kernel_span;
        self.span = kernel_span;
        self.field_args = request
            .args
            .iter()
            .filter(|(n, _)| n.contains("->") && !n.contains('['))
            .cloned()
            .collect();
        // Each parameter's name for `--arg` and its buffer: the host's
        // variable for a launch's call, else the parameter's own.
        let (names, literals) = match request.call {
            Some(call) => self.call_names(request.kernel, call, &params)?,
            None => (params.clone(), vec![None; params.len()]),
        };
        // The names `--arg` may give: a call's host variables, or the
        // parameters.
        let known: Vec<String> = match request.call {
            Some(call) => call
                .iter()
                .filter_map(|a| match a {
                    crate::ir::CallArg::Name(n) => Some(n.clone()),
                    crate::ir::CallArg::Int(_) => None,
                })
                .collect(),
            None => params.clone(),
        };
        self.read_args(request, &known)?;
        for (i, ((p, name), literal)) in func.params.iter().zip(&names).zip(literals).enumerate() {
            let given = literal.or_else(|| {
                request
                    .args
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| *v)
            });
            let Some(ssa) = p.name.clone() else {
                continue;
            };
            if literal.is_some() && !matches!(p.ty, LType::Int(_)) {
                return self.refuse_at_kernel(format!(
                    "`{}<<<...>>>(...)` passes the integer {} for `{name}`, a pointer: name a buffer (as `data`), whose length --arg data=N gives",
                    request.kernel,
                    literal.unwrap_or_default()
                ));
            }
            match &p.ty {
                LType::Ptr(0 | 1) if p.byval.is_none() => {
                    let len = match given {
                        None => DEFAULT_BUFFER_LEN,
                        Some(n) if (1..=4096).contains(&n) => n as u32,
                        Some(n) => {
                            return self.refuse_at_kernel(format!(
                                "--arg {name}={n}: a pointer parameter's value is the number of elements of its buffer, 1 to 4096"
                            ))
                        }
                    };
                    self.param_buffer(&ssa, name, len);
                }
                LType::Ptr(_) if p.byval.is_some() => {
                    if given.is_some() {
                        return self.refuse_at_kernel(format!(
                            "--arg {name}=...: `{name}` is a struct passed by value; give its words with --arg '{name}[i]=V' and its pointer fields' lengths with --arg {name}->FIELD=N"
                        ));
                    }
                    let bytes = p
                        .byval
                        .as_ref()
                        .and_then(|t| super::memory::size_of(self.module, t));
                    let Some(bytes) = bytes.filter(|b| (1..=4096 * 4).contains(b)) else {
                        return self.refuse_at_kernel(format!(
                            "kernel parameter `{name}` is a struct passed by value whose size the model cannot name"
                        ));
                    };
                    // A copy per thread that no thread writes (a store into
                    // it is refused): one read-only buffer of its words.
                    let var = self.param_buffer(&ssa, name, bytes.div_ceil(4) as u32);
                    self.by_value.push(var);
                    if let Some(t) = &p.byval {
                        self.struct_args.types.insert(var, t.clone());
                    }
                }
                LType::Int(w) => {
                    let Some(v) = given else {
                        let param = &params[i];
                        return self.refuse_at_kernel(if param == name {
                            format!("kernel parameter `{name}` (a {w}-bit integer) needs a value: --arg {name}=VALUE")
                        } else {
                            format!("`{}<<<...>>>` passes `{name}` for `{param}` (a {w}-bit integer): give its value with --arg {name}=VALUE", request.kernel)
                        });
                    };
                    self.consts.insert(ssa, super::values::zext(i128::from(v), *w));
                    // A literal in a launch's call is that kernel's alone.
                    let recorded = match literal {
                        Some(_) if request.call.is_some() => format!("{}.{name}", request.kernel),
                        _ => name.clone(),
                    };
                    self.params.push((recorded, v));
                }
                other => {
                    return self.refuse_at_kernel(format!(
                        "kernel parameter `{name}` of LLVM type {other:?}: only integers and pointers to global memory are modelled"
                    ))
                }
            }
        }
        Ok(())
    }

    /// A global buffer of `len` elements, zero-initialised, whose element
    /// width its accesses will tell.
    fn new_buffer(&mut self, name: String, len: u32, span: Span) -> VarId {
        let var = self.vars.len() as VarId;
        self.vars.push(MemVar {
            name,
            storage: Storage::Global,
            ty: Type::U32,
            volatile: false,
            len,
            is_array: true,
            init: vec![0; len as usize],
            span,
        });
        self.widths.push(None);
        self.signed.push(None);
        var
    }

    /// A pointer parameter's buffer of `len` elements, zero-initialised;
    /// the one earlier launches made, when a host variable names it.
    fn param_buffer(&mut self, ssa: &str, name: &str, len: u32) -> VarId {
        let earlier = self.host_buffers.get(name).copied();
        let var = earlier.unwrap_or_else(|| self.new_buffer(name.to_string(), len, self.point));
        self.ptrs.insert(
            ssa.to_string(),
            Ptr {
                region: Region::Var(var),
                offset: Expr::Const(0),
            },
        );
        self.param_vars.push(var);
        if earlier.is_none() {
            self.host_buffers.insert(name.to_string(), var);
            self.pointers.host_set.insert(var);
            // Recorded with the integers: the report's header shows the launch.
            self.params.push((name.to_string(), i64::from(len)));
        }
        var
    }

    /// The kernel's parameter names, read from its declaration in the
    /// source (debug info has line tables only); `argN` where unknown.
    fn param_names(&mut self, kernel_loc: Option<&SourceLoc>) -> Vec<String> {
        let func = self.func;
        let count = func.params.len();
        let dbg_name = func
            .dbg
            .and_then(|d| match self.module.metadata.get(&d)?.field("name") {
                Some(crate::llvm::ir::MdField::Str(s)) => Some(s.clone()),
                _ => None,
            });
        kernel_loc
            .zip(dbg_name.as_deref())
            .and_then(|(loc, n)| {
                let text = self.lines.text_from(&loc.file, loc.line)?;
                source::param_names(&text, n, count)
            })
            .unwrap_or_else(|| (0..count).map(|i| format!("arg{i}")).collect())
    }

    /// Checks the `--arg` words against the parameters and records the
    /// initial values (`NAME[i]=V`) for later.
    /// A launch's call bound to the kernel's parameters: the host name
    /// each is passed (a literal's parameter keeps its own name) and the
    /// literals.
    fn call_names(
        &self,
        kernel: &str,
        call: &[crate::ir::CallArg],
        params: &[String],
    ) -> R<(Vec<String>, Vec<Option<i64>>)> {
        if call.len() != params.len() {
            return self.refuse_at_kernel(format!(
                "`{kernel}<<<...>>>(...)` passes {} argument{}; kernel `{kernel}` takes {} ({})",
                call.len(),
                if call.len() == 1 { "" } else { "s" },
                params.len(),
                listed(params)
            ));
        }
        Ok(call
            .iter()
            .zip(params)
            .map(|(a, p)| match a {
                crate::ir::CallArg::Int(v) => (p.clone(), Some(*v)),
                crate::ir::CallArg::Name(n) => (n.clone(), None),
            })
            .unzip())
    }

    fn read_args(&mut self, request: &KernelRequest, names: &[String]) -> R<()> {
        for (name, value) in request.args {
            if name.contains('[') {
                // `NAME[i]=V`: an initial value, checked once every
                // variable is known (`check_inits`).
                let parsed = name
                    .strip_suffix(']')
                    .and_then(|n| n.split_once('['))
                    .and_then(|(b, i)| Some((b.trim().to_string(), i.trim().parse::<u32>().ok()?)));
                let Some((base, index)) = parsed else {
                    return self.refuse_at_kernel(format!(
                        "--arg {name}=...: an initial value is written NAME[INDEX]=VALUE"
                    ));
                };
                self.inits.push((base, index, *value));
                continue;
            }
            // `param.FIELD=V`: a field of a struct passed by value
            // (`fields.rs`), checked once the fields are known.
            if let Some((base, _)) = name.split_once('.') {
                if names.iter().any(|n| n == base) {
                    self.struct_args.given.push((name.clone(), *value));
                    continue;
                }
            }
            // `param->field=N`: the length of a struct argument's buffer,
            // checked once the fields are known (`check_field_args`).
            let field_of = name.split_once("->").map(|(p, _)| p);
            if names
                .iter()
                .any(|n| Some(n.as_str()) == field_of || n == name)
            {
                continue;
            }
            // `VARIABLE=N`: the length of the buffer a `__device__` or
            // `__constant__` pointer variable points to.
            if !(1..=4096).contains(value) || !self.pointer_variable_names().any(|v| v == *name) {
                let variables: Vec<String> = self.pointer_variable_names().collect();
                let also = if variables.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; pointer variables, whose buffers take a length of 1 to 4096: {}",
                        listed(&variables)
                    )
                };
                return self.refuse_at_kernel(match request.call {
                    // The launches that pass a name get its `--arg`s, the
                    // others every `--arg` no launch passes.
                    Some(_) => format!(
                        "--arg {name}=...: no launch passes a host variable `{name}` (`{}<<<...>>>` passes: {}){also}",
                        request.kernel,
                        listed(names)
                    ),
                    None => format!(
                        "--arg {name}=...: kernel `{}` has no parameter `{name}` (it has: {}){also}",
                        request.kernel,
                        listed(names)
                    ),
                });
            }
            self.variable_lengths.push((name.clone(), *value as u32));
        }
        Ok(())
    }

    /// Every `--arg param->field=N` named a pointer field the kernel reads.
    pub(super) fn check_field_args(&self) -> R<()> {
        let known: Vec<&str> = self
            .fields
            .values()
            .map(|v| self.vars[*v as usize].name.as_str())
            .collect();
        for (name, _) in &self.field_args {
            if !known.contains(&name.as_str()) {
                return self.refuse_at_kernel(format!(
                    "--arg {name}=...: the kernel reads no such pointer field (it reads: {})",
                    listed(&known)
                ));
            }
        }
        Ok(())
    }

    /// Every `--arg NAME[i]=V` names an element of a global variable
    /// (a buffer, a struct argument's field, a `__device__` variable).
    pub(super) fn check_inits(&self) -> R<()> {
        for (base, index, _) in &self.inits {
            let id = self
                .vars
                .iter()
                .position(|v| v.name == *base && v.storage == Storage::Global);
            if let Some(id) = id {
                self.check_field_init(id as VarId)?;
            }
            match id.map(|i| &self.vars[i]) {
                Some(v) if *index < v.len => {}
                Some(v) => {
                    return self.refuse_at_kernel(format!(
                        "--arg {base}[{index}]=...: `{base}` has {} elements",
                        v.len
                    ))
                }
                None => {
                    let known: Vec<&str> = self
                        .vars
                        .iter()
                        .filter(|v| v.storage == Storage::Global)
                        .map(|v| v.name.as_str())
                        .collect();
                    return self.refuse_at_kernel(format!(
                        "--arg {base}[{index}]=...: no global variable or buffer `{base}` (the kernel's: {})",
                        known.join(", ")
                    ));
                }
            }
        }
        Ok(())
    }

    pub(super) fn refuse_at_kernel<T>(&self, message: String) -> R<T> {
        Err(crate::diag::Diagnostic::new(self.point, message).label("this kernel"))
    }

    /// The buffer a pointer field of a kernel's struct argument points to
    /// (`gpuLockData->mutexBufferHeads`): a buffer of its own per field
    /// (offset `k` into the parameter `v`'s buffer), zero-initialised, of
    /// the default length; named by the member the source spells at the
    /// load (and its offset, `->field@k`, when another field is spelled
    /// alike). `None` for a variable that is not a kernel parameter.
    pub(super) fn pointer_field(&mut self, v: VarId, k: i64) -> Option<VarId> {
        if let Some(d) = self.fields.get(&(v, k)) {
            return Some(*d);
        }
        if !self.param_vars.contains(&v) {
            return None;
        }
        let field = self
            .spelled_field()
            .filter(|f| self.names_a_field(f))
            .unwrap_or_else(|| format!("@{k}"));
        Some(self.field_buffer(v, k, &field))
    }

    /// Whether the identifier `name` at the point being lowered names the
    /// field read there: a member access (`p->f`, `s.f`) or, inside a
    /// member function, the field indexed (`pairs_[i]`); not the variable
    /// a copy goes to (`auto dp = *_dp;`) or an argument passed on.
    fn names_a_field(&self, name: &str) -> bool {
        let text = &self.lines.source.text;
        let start = self.point.start as usize;
        let before = text.get(..start).unwrap_or("");
        let after = text.get(start + name.len()..).unwrap_or("");
        before.ends_with("->") || before.ends_with('.') || after.starts_with('[')
    }

    /// The identifier the source spells at the point being lowered (a
    /// field's name at its read), if one starts there.
    pub(super) fn spelled_field(&self) -> Option<String> {
        let at = self.lines.source.text.get(self.point.start as usize..)?;
        let field: String = at
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        (!field.is_empty() && !field.starts_with(|c: char| c.is_ascii_digit())).then_some(field)
    }

    /// The buffer the pointer word at byte `k` of host-set memory `v`
    /// points to (`pointers.rs`): a field's, named `NAME->@k` unless a
    /// read at a constant offset named it first.
    pub(super) fn word_buffer(&mut self, v: VarId, k: i64) -> VarId {
        match self.fields.get(&(v, k)) {
            Some(d) => *d,
            None => self.field_buffer(v, k, &format!("@{k}")),
        }
    }

    /// A new buffer for the pointer field at byte `k` of `v`.
    fn field_buffer(&mut self, v: VarId, k: i64, field: &str) -> VarId {
        let mut name = format!("{}->{field}", self.vars[v as usize].name);
        // Two fields spelled alike (stdgpu's deque holds three atomics,
        // each with its `_value`): the later ones by their byte offset.
        if self.vars.iter().any(|x| x.name == name) {
            name = format!("{name}@{k}");
        }
        let len = self
            .field_args
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map_or(DEFAULT_BUFFER_LEN, |(_, n)| (*n).clamp(1, 4096) as u32);
        self.params.push((name.clone(), i64::from(len)));
        let d = self.new_buffer(name, len, self.span);
        self.fields.insert((v, k), d);
        d
    }
}

impl Lowerer<'_> {
    /// The names of the module's `__device__`/`__constant__` pointer
    /// variables, as the source spells them.
    fn pointer_variable_names(&self) -> impl Iterator<Item = String> + '_ {
        self.module
            .globals
            .iter()
            .filter(|g| matches!(g.ty, LType::Ptr(_)) && matches!(g.addrspace, 1 | 4))
            .map(|g| super::memory::display_name(&g.name))
    }

    /// The buffer a `__device__` or `__constant__` pointer variable points
    /// to (`desul::Impl::CUDA_SPACE_ATOMIC_LOCKS_DEVICE`, set by the host
    /// with cudaMemcpyToSymbol): a zero-initialised buffer of its own,
    /// named as the variable, of the default length (`--arg NAME=N` sets
    /// it). The device never
    /// changes where it points: a store into the variable is refused (a
    /// pointer-typed scalar is no variable the model holds).
    /// `None` for a value that is not such a variable.
    pub(super) fn pointer_global(&mut self, v: &crate::llvm::ir::Value) -> Option<VarId> {
        use crate::llvm::ir::{InstrKind, Value};
        let name = match v {
            Value::Global(g) => g,
            Value::Expr(ce) if matches!(ce.kind, InstrKind::Cast(_)) => {
                return self.pointer_global(&ce.operands.first()?.value)
            }
            _ => return None,
        };
        let g = self.module.global(name)?;
        if !matches!(g.ty, LType::Ptr(_)) || !matches!(g.addrspace, 1 | 4) {
            return None;
        }
        if let Some(d) = self.global_vars.get(name) {
            return Some(*d);
        }
        let display = super::memory::display_name(name);
        let len = self
            .variable_lengths
            .iter()
            .rev()
            .find(|(n, _)| *n == display)
            .map_or(DEFAULT_BUFFER_LEN, |(_, n)| *n);
        // Recorded with the integers: the report's header shows the launch.
        self.params.push((display.clone(), i64::from(len)));
        let d = self.new_buffer(display, len, self.span);
        self.pointers.host_set.insert(d);
        self.global_vars.insert(name.to_string(), d);
        Some(d)
    }
}

/// Names for an error message: `a, b, c`, or `none`.
fn listed(names: &[impl AsRef<str>]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    names.join(", ")
}
