//! One kernel of an LLVM module lowered to the checker's program for a
//! launch (issue #39: kernels checked as launched), or several kernels
//! launched together lowered into one program (`lower_kernels`: each
//! block branches to its kernel's code first). Each job has a file:
//! `source` (the user's text and spans), `params` (the launch's
//! arguments: buffers, integers, struct fields, initial values), `memory`
//! (globals, pointers and `getelementptr`), `values` (integer arithmetic, compares,
//! casts), `float` (IEEE floating point), `access` (loads, stores, atomics and fences, with CUDA's
//! orders and scopes), `calls` (intrinsics, `__assertfail`, `vprintf`),
//! `asm` (inline PTX, read by `ir::ptx`), `private` (a thread's private
//! memory), `pointers` (pointers held in memory), `copy` (`memcpy`),
//! `flow` (blocks, branches, and phis as copies on edges).
//!
//! What it cannot name is refused with an error located at the user's
//! line and column, never guessed.

mod access;
mod asm;
mod calls;
mod copy;
mod fields;
mod float;
mod flow;
mod memory;
mod params;
mod pointers;
mod private;
mod source;
mod values;

#[cfg(test)]
mod tests;

use super::debug::{DebugInfo, SourceLoc, UserFiles};
use super::ir::{Function, Instr as LInstr, InstrKind, MdField, Module};
use crate::diag::Span;
use crate::diag::{Diagnostic, Source};
use crate::ir::{
    About, Checks, Expr, Instr, Launch, LocalId, LocalInit, LocalVar, MemVar, Op, Pc, Program,
    VarId,
};
use crate::ir::{Participants, Type};
use memory::Ptr;
use source::Lines;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// The elements a kernel's pointer parameter points to when no
/// `--arg NAME=N` says.
pub(crate) const DEFAULT_BUFFER_LEN: u32 = 4;

/// What to lower: which kernel, for which launch, with which arguments
/// (`NAME=VALUE` for an integer parameter, `NAME=N` elements for a
/// pointer one).
pub(crate) struct KernelRequest<'a> {
    pub(crate) kernel: &'a str,
    /// Its own grid and block.
    pub(crate) launch: Launch,
    pub(crate) args: &'a [(String, i64)],
    /// The call's arguments in order, as `kernel<<<G, B>>>(data, 3)`
    /// passes them: a name is a host variable (a buffer of that name, or
    /// an integer `--arg NAME=V` gives), and `args` are keyed by those
    /// names. `None`: `--kernel`, whose `--arg`s name the parameters.
    pub(crate) call: Option<&'a [crate::ir::CallArg]>,
}

/// Why a kernel cannot be lowered.
pub(crate) enum Refusal {
    /// No such kernel: a usage error.
    Usage(String),
    /// A construct the model cannot name, located in the user's source.
    Located(Box<Diagnostic>, Box<Source>),
}

type R<T> = Result<T, Diagnostic>;

/// Lowers `request.kernel` of `module` (compiled from `tu`, whose text is
/// `text`) to a program.
#[cfg(test)]
pub(crate) fn lower_kernel(
    module: &Module,
    tu: &Path,
    text: &str,
    files: &UserFiles,
    request: &KernelRequest,
) -> Result<Program, Refusal> {
    lower_kernels(module, tu, text, files, std::slice::from_ref(request))
}

/// What every launch of one program shares, handed from one kernel's
/// lowering to the next: memory (the variables by global and host name,
/// the pointers host-set memory holds), the threads' locals and code, and
/// the launch's recorded arguments.
#[derive(Default)]
struct Shared {
    vars: Vec<MemVar>,
    widths: Vec<Option<u32>>,
    signed: Vec<Option<bool>>,
    global_vars: HashMap<String, VarId>,
    host_buffers: HashMap<String, VarId>,
    fields: HashMap<(VarId, i64), VarId>,
    pointers: pointers::PointerFacts,
    locals: Vec<LocalVar>,
    code: Vec<Instr>,
    params: Vec<(String, i64)>,
    inits: Vec<(String, u32, i64)>,
}

/// Lowers the kernels of `requests`, launched together (their blocks run
/// concurrently), into one program: block `b` runs the kernel whose
/// blocks, counted in launch order, include `b`, and numbers itself from
/// the first of them. Memory with one name (a `__device__` variable, a
/// host buffer passed to several launches) is one variable.
pub(crate) fn lower_kernels(
    module: &Module,
    tu: &Path,
    text: &str,
    files: &UserFiles,
    requests: &[KernelRequest],
) -> Result<Program, Refusal> {
    let funcs = requests
        .iter()
        .map(|r| find_kernel(module, r.kernel))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Refusal::Usage)?;
    let Some(first) = requests.first() else {
        return Err(Refusal::Usage("no kernel to launch".into()));
    };
    let tpb = first.launch.threads_per_block;
    if let Some(r) = requests.iter().find(|r| r.launch.threads_per_block != tpb) {
        return Err(Refusal::Usage(format!(
            "`{}` is launched with blocks of {} threads and `{}` with blocks of {tpb}: kernels launched together must have blocks of one size (the model's blocks all have one)",
            r.kernel, r.launch.threads_per_block, first.kernel
        )));
    }
    let total = requests
        .iter()
        .try_fold(0u32, |n, r| n.checked_add(r.launch.blocks))
        .ok_or_else(|| Refusal::Usage("too many blocks".into()))?;
    let dbg = DebugInfo::new(module);
    let mut lines = Lines::new(tu, text);
    let mut shared = Shared::default();
    // Several launches: each block first branches to its kernel's code.
    let dispatch = requests.len() - 1;
    shared.code = (0..dispatch)
        .map(|_| Instr {
            op: Op::Jump { target: 0 },
            span: Span::default(),
        })
        .collect();
    let mut parts = Vec::new();
    // The struct fields the launches read: a field set by `--arg
    // NAME.FIELD=V` must be one of them (any launch's).
    let mut fields_read = BTreeSet::new();
    let mut first_block = 0;
    let last = requests.len() - 1;
    for (k, (request, func)) in requests.iter().zip(funcs).enumerate() {
        let kernel_loc = kernel_location(module, func, &dbg);
        let kernel_span = kernel_loc
            .as_ref()
            .and_then(|l| lines.line_span(l))
            .unwrap_or_default();
        let start = shared.code.len() as Pc;
        let mut l = Lowerer::new(
            (module, func, files),
            lines,
            (request.launch, first_block, total),
            shared,
            kernel_span,
        );
        let mut lowered = l
            .run(request, kernel_loc.as_ref(), kernel_span)
            .and_then(|()| l.alone_or_pointer_free(requests.len()));
        fields_read.extend(l.fields_read().cloned());
        if k == last {
            // Initial values and fields, once every launch's are known.
            lowered = lowered
                .and_then(|()| l.check_inits())
                .and_then(|()| l.check_struct_field_args(&fields_read));
        }
        if let Err(d) = lowered {
            return Err(Refusal::Located(Box::new(d), Box::new(l.lines.source)));
        }
        parts.push((request.kernel.to_string(), first_block, start, kernel_span));
        first_block += request.launch.blocks;
        if k == last {
            let mut program = l.program(Launch {
                blocks: total,
                ..first.launch
            });
            if requests.len() > 1 || request.call.is_some() {
                program.launches = dispatch_code(&mut program.code, &parts, requests);
            }
            return Ok(program);
        }
        (lines, shared) = l.into_shared();
    }
    unreachable!("the last launch returns")
}

/// Fills the dispatch at the program's start (one slot per launch but the
/// last): `if (blockIdx.x < end of launch k) goto its code`, the last
/// launch's blocks falling through to its code. Returns the launches'
/// blocks.
fn dispatch_code(
    code: &mut [Instr],
    parts: &[(String, u32, Pc, Span)],
    requests: &[KernelRequest],
) -> Vec<crate::ir::LaunchPart> {
    let dispatch = parts.len() - 1;
    for (k, ((_, first, start, span), r)) in parts.iter().zip(requests).enumerate() {
        if k == dispatch {
            break;
        }
        let next = if k + 1 == dispatch {
            parts[k + 1].2
        } else {
            k as Pc + 1
        };
        code[k] = Instr {
            op: Op::Branch {
                cond: Expr::Binary(
                    crate::ir::BinOp::Lt,
                    Box::new(Expr::Builtin(crate::ir::Builtin::BlockIdx)),
                    Box::new(Expr::Const(i64::from(first + r.launch.blocks))),
                ),
                then_pc: *start,
                else_pc: next,
            },
            span: *span,
        };
    }
    // A kernel launched more than once is named by its launch's number.
    let launches_of = |k: &str| requests.iter().filter(|r| r.kernel == k).count();
    parts
        .iter()
        .zip(requests)
        .enumerate()
        .map(|(i, ((kernel, first, _, _), r))| crate::ir::LaunchPart {
            kernel: if launches_of(kernel) > 1 {
                format!("{kernel}#{}", i + 1)
            } else {
                kernel.clone()
            },
            first_block: *first,
            blocks: r.launch.blocks,
        })
        .collect()
}

/// The kernel called `name` (its source name, or its mangled one).
fn find_kernel<'m>(module: &'m Module, name: &str) -> Result<&'m Function, String> {
    let source_name = |f: &Function| {
        f.dbg
            .and_then(|d| match module.metadata.get(&d)?.field("name") {
                Some(MdField::Str(s)) => Some(s.clone()),
                _ => None,
            })
    };
    let kernels: Vec<&Function> = module.kernel_functions().collect();
    let found: Vec<&&Function> = kernels
        .iter()
        .filter(|f| f.name == name || source_name(f).as_deref() == Some(name))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => {
            let names: Vec<String> = kernels
                .iter()
                .map(|f| source_name(f).unwrap_or_else(|| f.name.clone()))
                .collect();
            Err(if names.is_empty() {
                format!("no kernel `{name}`: the file defines no __global__ function")
            } else {
                format!("no kernel `{name}`; the file's kernels: {}", names.join(", "))
            })
        }
        many => Err(format!(
            "`{name}` names {} kernels (overloads or template instances): give the mangled name, one of {}",
            many.len(),
            many.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Where the kernel is declared: its DISubprogram's file and line.
fn kernel_location(module: &Module, func: &Function, dbg: &DebugInfo) -> Option<SourceLoc> {
    let sp = func.dbg?;
    let line = match module.metadata.get(&sp)?.field("line") {
        Some(MdField::Int(n)) => u32::try_from(*n).ok()?,
        _ => return None,
    };
    Some(SourceLoc {
        file: dbg.scope_file(sp)?,
        line,
        column: 0,
    })
}

/// The lowering of one function.
pub(crate) struct Lowerer<'m> {
    module: &'m Module,
    func: &'m Function,
    /// This kernel's own launch (its grid, its blocks' size).
    launch: Launch,
    /// Where its blocks start among the program's, and how many blocks
    /// the program has (several kernels launched together).
    first_block: u32,
    total_blocks: u32,
    dbg: DebugInfo<'m>,
    files: &'m UserFiles,
    lines: Lines,
    /// The span of the instruction being lowered (its user line), and the
    /// point its errors name (its column onward).
    span: Span,
    point: Span,
    vars: Vec<MemVar>,
    /// Per variable: the bit width its accesses use (`None`: none yet).
    widths: Vec<Option<u32>>,
    /// Per variable: compared signed (`atomicMax` on `int`) or unsigned.
    signed: Vec<Option<bool>>,
    /// The variable of each global (`@name`) used.
    global_vars: HashMap<String, VarId>,
    locals: Vec<LocalVar>,
    /// The local of each SSA value (`%name`) that lives in one.
    local_of: HashMap<String, LocalId>,
    /// Integer parameters: their values.
    consts: HashMap<String, i64>,
    /// Pointer SSA values: variable and byte offset.
    ptrs: HashMap<String, Ptr>,
    /// The variable each pointer SSA value points into (see `memory::bases`).
    bases: HashMap<String, memory::Base>,
    /// The buffers of kernel pointer parameters.
    param_vars: Vec<VarId>,
    /// The buffers host variables name (a launch's `kernel<<<..>>>(data)`),
    /// shared by every launch that passes them.
    host_buffers: HashMap<String, VarId>,
    /// Those of structs passed by value: read only.
    by_value: Vec<VarId>,
    /// Their types, and the fields of those laid out by their fields.
    struct_args: fields::StructArgs,
    /// The buffer of each pointer field of a struct argument: (the
    /// parameter's buffer, byte offset) → buffer.
    fields: HashMap<(VarId, i64), VarId>,
    /// `--arg NAME[i]=V`: initial values of global elements.
    inits: Vec<(String, u32, i64)>,
    /// `--arg param->field=N`: lengths of struct arguments' buffers.
    field_args: Vec<(String, i64)>,
    /// `--arg VARIABLE=N`: lengths of pointer variables' buffers.
    variable_lengths: Vec<(String, u32)>,
    /// `cmpxchg` results: the old value's local and the expected value.
    cas: HashMap<String, (LocalId, Expr)>,
    /// Inline asm calls with several outputs: each output's local.
    asm_outputs: HashMap<String, Vec<LocalId>>,
    /// Integer SSA values that are shared window addresses (made by
    /// `cvta.to.shared`): the pointer each stands for (`asm`).
    windows: HashMap<String, Ptr>,
    /// The thread's private memory: each `alloca`'s slots.
    private: Vec<private::PrivateRegion>,
    /// What memory holds pointers to (`pointers.rs`).
    pointers: pointers::PointerFacts,
    /// Blocks no run reaches (`flow::dead_blocks`), left out.
    dead: HashSet<String>,
    code: Vec<Instr>,
    /// The integer parameters in force, in order (the report's params).
    params: Vec<(String, i64)>,
}

impl<'m> Lowerer<'m> {
    fn run(
        &mut self,
        request: &KernelRequest,
        kernel_loc: Option<&SourceLoc>,
        kernel_span: Span,
    ) -> R<()> {
        self.bind_params(request, kernel_loc, kernel_span)?;
        self.check_operands()?;
        self.bases = self.pointer_bases()?;
        self.dead = self.dead_blocks();
        self.point = kernel_span;
        self.check_field_args()?;
        self.access_widths()?;
        self.lower_blocks()?;
        self.point = kernel_span;
        Ok(())
    }

    /// Kernels launched together share memory, but each kernel's
    /// points-to facts are its own: a pointer one of them stores in memory
    /// could be loaded by another, so that is refused.
    fn alone_or_pointer_free(&mut self, launches: usize) -> R<()> {
        let Some(line) = self.pointer_stored_in_memory().filter(|_| launches > 1) else {
            return Ok(());
        };
        if let Some(instr) = self.func.instructions().find(|i| i.line == line) {
            self.locate(instr);
        }
        self.refuse("a pointer stored in memory by one of several kernels launched together (each kernel's pointer facts are its own)")
    }

    /// Every instruction has the operands its kind reads (the parser
    /// takes what the text gives; the lowering indexes them).
    fn check_operands(&mut self) -> R<()> {
        for instr in self.func.instructions() {
            let n = instr.operands.len();
            let enough = match &instr.kind {
                InstrKind::Binary(_) | InstrKind::ICmp(_) | InstrKind::FCmp(_) => n >= 2,
                InstrKind::Store { .. } | InstrKind::AtomicRmw { .. } => n >= 2,
                InstrKind::CmpXchg { .. } | InstrKind::Select => n >= 3,
                InstrKind::Phi { blocks } => n == blocks.len(),
                InstrKind::Cast(_)
                | InstrKind::FNeg
                | InstrKind::Freeze
                | InstrKind::Load { .. }
                | InstrKind::ExtractValue { .. }
                | InstrKind::GetElementPtr { .. }
                | InstrKind::CondBr { .. }
                | InstrKind::Switch { .. } => n >= 1,
                _ => true,
            };
            if !enough {
                self.locate(instr);
                return self.refuse(format!(
                    "a malformed `{}` (line {} of the LLVM IR): {n} operands",
                    instr.kind.opcode(),
                    instr.line
                ));
            }
        }
        Ok(())
    }

    /// A lowering of `func` for `launch` (its blocks `first_block..` of
    /// `total_blocks`) that starts from what earlier launches left.
    fn new(
        (module, func, files): (&'m Module, &'m Function, &'m UserFiles),
        lines: Lines,
        (launch, first_block, total_blocks): (Launch, u32, u32),
        shared: Shared,
        kernel_span: Span,
    ) -> Lowerer<'m> {
        Lowerer {
            module,
            func,
            launch,
            first_block,
            total_blocks,
            dbg: DebugInfo::new(module),
            files,
            lines,
            span: kernel_span,
            point: kernel_span,
            vars: shared.vars,
            widths: shared.widths,
            signed: shared.signed,
            global_vars: shared.global_vars,
            host_buffers: shared.host_buffers,
            locals: shared.locals,
            local_of: HashMap::new(),
            consts: HashMap::new(),
            ptrs: HashMap::new(),
            bases: HashMap::new(),
            cas: HashMap::new(),
            asm_outputs: HashMap::new(),
            windows: HashMap::new(),
            dead: HashSet::new(),
            private: Vec::new(),
            pointers: shared.pointers,
            param_vars: Vec::new(),
            by_value: Vec::new(),
            struct_args: fields::StructArgs::default(),
            fields: shared.fields,
            field_args: Vec::new(),
            variable_lengths: Vec::new(),
            inits: shared.inits,
            code: shared.code,
            params: shared.params,
        }
    }

    /// What the next launch's lowering starts from.
    fn into_shared(self) -> (Lines, Shared) {
        let shared = Shared {
            vars: self.vars,
            widths: self.widths,
            signed: self.signed,
            global_vars: self.global_vars,
            host_buffers: self.host_buffers,
            fields: self.fields,
            pointers: self.pointers,
            locals: self.locals,
            code: self.code,
            params: self.params,
            inits: self.inits,
        };
        (self.lines, shared)
    }

    fn program(self, launch: Launch) -> Program {
        let mut vars = self.vars;
        for (i, v) in vars.iter_mut().enumerate() {
            v.ty = memory::var_type(self.widths[i], self.signed[i]);
        }
        // Host-set pointer words: the addresses of their buffers.
        for &(var, index, target) in &self.pointers.inits {
            if let Some(word) = vars[var as usize].init.get_mut(index as usize) {
                *word = (u64::from(target) + 1) << values::ADDRESS_SHIFT;
            }
        }
        let mut params = self.params;
        for (base, index, value) in &self.inits {
            if let Some(v) = vars
                .iter_mut()
                .find(|v| v.name == *base && v.storage == crate::ir::Storage::Global)
            {
                v.init[*index as usize] = crate::ir::to_raw(v.ty, *value);
                params.push((format!("{base}[{index}]"), *value));
            }
        }
        // A value passed to several launches is recorded once.
        let mut seen = HashSet::new();
        params.retain(|(name, _)| seen.insert(name.clone()));
        Program {
            source: self.lines.source,
            about: About::default(),
            launch,
            params,
            vars,
            locals: self.locals,
            code: self.code,
            participants: Participants::All,
            checks: Checks::default(),
            unsupported: vec![],
            devices: vec![],
            inlined: vec![],
            spec_locals: vec![],
            launches: vec![],
        }
    }

    /// The instructions of the blocks that run, terminators included.
    fn live_instructions(&self) -> Vec<&'m LInstr> {
        let func = self.func;
        func.blocks
            .iter()
            .filter(|b| !self.dead.contains(&b.name))
            .flat_map(|b| b.instrs.iter().chain(std::iter::once(&b.terminator)))
            .collect()
    }

    /// Sets the span of `instr` as the one code is emitted with.
    fn locate(&mut self, instr: &LInstr) {
        let loc = self.dbg.locate(instr.dbg, self.files).user;
        if let Some(loc) = loc {
            if let Some(s) = self.lines.line_span(&loc) {
                self.span = s;
                self.point = self.lines.point_span(&loc).unwrap_or(s);
            }
        }
    }

    fn emit(&mut self, op: Op) {
        self.code.push(Instr {
            op,
            span: self.span,
        });
    }

    /// An error at the instruction being lowered.
    fn refuse<T>(&self, message: impl Into<String>) -> R<T> {
        Err(Diagnostic::new(self.point, message.into())
            .label("not modelled")
            .hint("gsync-check models integer and IEEE floating-point code over kernel buffers, __shared__ and __device__ variables, CUDA's atomics, fences and __syncthreads (book: \"Checking a kernel as it is launched\")"))
    }

    /// A new local of `ty`.
    fn new_local(&mut self, name: &str, ty: Type) -> LocalId {
        let id = self.locals.len() as LocalId;
        self.locals.push(LocalVar {
            name: name.to_string(),
            ty,
            init: LocalInit::Zero,
        });
        id
    }

    /// The local of the SSA value `name` (made on first use), of `bits`.
    fn local(&mut self, name: &str, bits: u32) -> R<LocalId> {
        if let Some(l) = self.local_of.get(name) {
            return Ok(*l);
        }
        let ty = values::local_type(bits).ok_or(()).or_else(|()| {
            self.refuse(format!(
                "a {bits}-bit integer: the model has integers of 1, 8, 16, 32 and 64 bits"
            ))
        })?;
        let id = self.new_local(&format!("%{name}"), ty);
        self.local_of.insert(name.to_string(), id);
        Ok(id)
    }
}
