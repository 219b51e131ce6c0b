//! IR → a self-contained CUDA C++ file: the spec's memory, one
//! `__device__` function per spec procedure, the harness's program, and the
//! harness kernel.
//!
//! The IR has procedures inlined but records where (`Program::inlined`):
//! each procedure is emitted once, from its first activation, and every
//! activation is replaced by a call. Code is emitted with a label per jump
//! target and a `// line N:` comment with the spec text wherever the source
//! line changes, so it reads against the spec. Each memory operation is
//! emitted as the CUDA operation the spec names (scoped atomics, fences,
//! volatile accesses), in the same order.

use super::expr::{self, cuda_type, word_type, Class, Code};
use crate::ir::{
    AtomicOp, Expr, InlinedCall, Instr, Loc, LocalId, LocalInit, Op, Order, Pc, Program, Scope,
    VoteKind,
};
use crate::spec::ast::{Item, Participants, SpecFile, Storage, Type};
use crate::spec::diag::Diagnostic;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

/// Knobs of the generated harness.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Global loads and stores inside each critical section (`--cs-len`).
    pub cs_len: u32,
    /// Longest `backoff()` sleep in ns.
    pub backoff_max_ns: u32,
    /// With `Some((sms, per_sm))`, `blockIdx` as the spec sees it is
    /// renumbered so that the spec's groups of `per_sm` consecutive blocks
    /// are the blocks the GPU places on one SM (round-robin over `sms`).
    pub renumber: Option<(u32, u32)>,
    /// Header lines: how the spec was verified.
    pub verified: Vec<String>,
}

impl Default for EmitOptions {
    fn default() -> EmitOptions {
        EmitOptions {
            cs_len: 0,
            backoff_max_ns: 1024,
            renumber: None,
            verified: Vec::new(),
        }
    }
}

/// The generated source and what the host needs to read its results.
#[derive(Clone, Debug)]
pub struct Emitted {
    pub source: String,
    /// The message of each `assert`, by the index the device reports.
    pub asserts: Vec<String>,
    /// Threads that run the spec: blocks (master) or every thread (all).
    pub participants: u32,
    /// The kernel's entry point.
    pub kernel: &'static str,
}

pub const KERNEL_NAME: &str = "gsync_kernel";

const PRELUDE: &str = include_str!("prelude.cu");
/// The arithmetic helpers (before the prelude, which uses `i64`).
pub const ARITH: &str = include_str!("arith.h");

/// C++ words (and CUDA names) a spec identifier must not become.
const RESERVED: &[&str] = &[
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
    "min",
    "max",
    "abs",
    "clock",
    "gridDim",
    "blockDim",
    "blockIdx",
    "threadIdx",
    "warpSize",
    "i64",
    "abort_flag",
    "finished",
    "th",
    "result",
    "GsThread",
    "GsRuntime",
    "GS_CALL",
];

/// Unique C++ names for the spec's parameters, memory and locals.
struct Names {
    used: BTreeSet<String>,
    vars: Vec<String>,
    /// Names of the spec's `local` variables (GsThread fields) and of
    /// every other slot, unique over the whole file.
    locals: Vec<String>,
    /// Function name of each procedure.
    procs: HashMap<String, String>,
    /// What a function's own names must not be: launch constants,
    /// parameters, memory and procedures.
    globals: BTreeSet<String>,
}

impl Names {
    fn fresh(&mut self, name: &str) -> String {
        fresh_in(&mut self.used, name)
    }
}

/// A C++ name for `name` not in `used` (then added to it).
fn fresh_in(used: &mut BTreeSet<String>, name: &str) -> String {
    let mut base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    base = base.trim_start_matches('_').to_string();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base = format!("v{base}");
    }
    if base.starts_with("gs_")
        || base.starts_with("GS_")
        || base == "BLOCK_IDX"
        || base == "SPIN_BACK"
    {
        base = format!("spec_{base}");
    }
    let mut candidate = base.clone();
    let mut n = 1;
    while RESERVED.contains(&candidate.as_str()) || used.contains(&candidate) {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    used.insert(candidate.clone());
    candidate
}

impl Names {
    fn new(program: &Program) -> Names {
        let mut names = Names {
            used: BTreeSet::new(),
            vars: Vec::new(),
            locals: Vec::new(),
            procs: HashMap::new(),
            globals: BTreeSet::new(),
        };
        for constant in ["nblocks", "threads_per_block", "warp_size"] {
            names.used.insert(constant.to_string());
        }
        // Parameters keep their names: initial values refer to them as written.
        for (p, _) in &program.params {
            names.used.insert(p.clone());
        }
        for v in &program.vars {
            let n = names.fresh(&v.name);
            names.vars.push(n);
        }
        for c in &program.inlined {
            if !names.procs.contains_key(&c.proc) {
                let n = names.fresh(&c.proc);
                names.procs.insert(c.proc.clone(), n);
            }
        }
        names.globals = names.used.clone();
        for l in &program.locals {
            let base = l.name.strip_prefix('%').unwrap_or(&l.name);
            let n = names.fresh(base);
            names.locals.push(n);
        }
        names
    }
}

/// A construct that has no CUDA lowering, located in the spec.
fn refuse(instr: &Instr, message: &str, hint: &str) -> Diagnostic {
    Diagnostic::new(instr.span, message.to_string())
        .label("no CUDA lowering")
        .hint(hint.to_string())
}

/// Lowers a spec lowered for the GPU launch to CUDA C++.
pub fn emit(
    file: &SpecFile,
    program: &Program,
    spec_name: &str,
    options: &EmitOptions,
) -> Result<Emitted, Diagnostic> {
    let names = Names::new(program);
    let participants = match program.participants {
        Participants::Master => program.launch.blocks,
        Participants::All => program.launch.threads(),
    };
    let top = file
        .items
        .iter()
        .filter(|i| matches!(i, Item::Var(v) if v.storage == Storage::Local))
        .count() as LocalId;
    let mut e = Emitter {
        program,
        names: &names,
        out: String::new(),
        asserts: Vec::new(),
        last_line: 0,
        labels: BTreeSet::new(),
        top,
        renames: HashMap::new(),
    };
    let body = e.functions(file)?;
    let asserts = e.asserts.clone();
    let mut out = String::new();
    header(&mut out, program, spec_name, options);
    defines(&mut out, program, participants, options);
    out.push_str(ARITH);
    out.push_str(PRELUDE);
    memory(&mut out, program, &names)?;
    thread_state(&mut out, program, &names, top);
    out.push_str(&body);
    kernel(&mut out, program, &names);
    Ok(Emitted {
        source: out,
        asserts,
        participants,
        kernel: KERNEL_NAME,
    })
}

fn header(out: &mut String, program: &Program, spec_name: &str, options: &EmitOptions) {
    let h = &program.header;
    let l = program.launch;
    let _ = writeln!(
        out,
        "// CUDA C++ generated by gsync-check {} from the spec `{spec_name}` ({}).",
        env!("CARGO_PKG_VERSION"),
        program.source.name
    );
    if let Some(s) = &h.source {
        let _ = writeln!(out, "// source: {s}");
    }
    if let Some(d) = &h.description {
        let _ = writeln!(out, "// description: {d}");
    }
    for line in &options.verified {
        let _ = writeln!(out, "// {line}");
    }
    let params: Vec<String> = program
        .params
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let harness = match program.participants {
        Participants::Master => "master (thread 0 of each block runs the spec)",
        Participants::All => "all (every thread runs the spec)",
    };
    let _ = writeln!(
        out,
        "// This file: a launch of {} blocks x {} threads, params {}, harness {harness}.",
        l.blocks,
        l.threads_per_block,
        if params.is_empty() {
            "none".to_string()
        } else {
            params.join(" ")
        }
    );
    let _ = writeln!(
        out,
        "// One __device__ function per spec procedure, and gsync_thread(), the harness's\n\
         // program; one statement per model step, `// line N:` comments quote the spec.\n\
         // Launch gsync_kernel<<<{}, {}>>>(abort_flag, finished) with abort_flag in\n\
         // host-mapped memory (raise it to stop every spin loop) and finished[{}]\n\
         // (1 = block done, 2 = block aborted). Needs sm_70 or later (__nanosleep).\n",
        l.blocks, l.threads_per_block, l.blocks
    );
}

fn defines(out: &mut String, program: &Program, participants: u32, options: &EmitOptions) {
    let l = program.launch;
    let _ = writeln!(out, "#define GS_PARTICIPANTS {participants}u");
    let _ = writeln!(
        out,
        "#define GS_CAPACITY {}   // capacity checked on the device (0: none)",
        program.checks.capacity.unwrap_or(0)
    );
    let _ = writeln!(
        out,
        "#ifndef GS_CS_LEN\n#define GS_CS_LEN {}\n#endif",
        options.cs_len
    );
    let _ = writeln!(out, "#define GS_BACKOFF_MIN_NS 32u");
    let _ = writeln!(
        out,
        "#define GS_BACKOFF_MAX_NS {}u",
        options.backoff_max_ns.max(32)
    );
    match options.renumber {
        Some((sms, per_sm)) => {
            let _ = writeln!(
                out,
                "// blockIdx as the spec sees it: the GPU places block b on SM b % {sms} (first wave),\n\
                 // so the spec's groups of {per_sm} consecutive blocks are the blocks of one SM.\n\
                 #define BLOCK_IDX ((blockIdx.x % {sms}u) * {per_sm}u + blockIdx.x / {sms}u)"
            );
        }
        None => {
            let _ = writeln!(out, "#define BLOCK_IDX blockIdx.x");
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "// Launch constants and spec parameters.");
    let _ = writeln!(out, "constexpr long long nblocks = {};", l.blocks);
    let _ = writeln!(
        out,
        "constexpr long long threads_per_block = {};",
        l.threads_per_block
    );
    let _ = writeln!(out, "constexpr long long warp_size = {};", l.warp_size);
    for (n, v) in &program.params {
        let _ = writeln!(out, "constexpr long long {n} = {v};");
    }
    let _ = writeln!(out);
}

/// The spec's global and shared memory, every variable a 32-bit word (so
/// every atomic exists), with its initial values.
fn memory(out: &mut String, program: &Program, names: &Names) -> Result<(), Diagnostic> {
    let _ = writeln!(
        out,
        "\n// ---------------------------------------------------------------------------\n\
         // The spec's memory (every variable a 32-bit word; narrower types wrap on store).\n\
         // ---------------------------------------------------------------------------"
    );
    for (i, v) in program.vars.iter().enumerate() {
        let name = &names.vars[i];
        let ty = word_type(v.ty);
        let dims = if v.is_array {
            format!("[{}]", v.len)
        } else {
            String::new()
        };
        let note = format!(
            "// {}{} {}",
            if v.volatile { "volatile " } else { "" },
            v.ty.name(),
            program
                .source
                .snippet(v.span)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
        );
        match v.storage {
            Storage::Shared => {
                let first = &v.init[..v.len as usize];
                if v.init.chunks(v.len as usize).any(|c| c != first) {
                    return Err(Diagnostic::new(
                        v.span,
                        "shared memory whose initial value differs between blocks",
                    )
                    .label("no CUDA lowering")
                    .hint("initialize it from the harness instead"));
                }
                let _ = writeln!(out, "__shared__ {ty} {name}{dims};  {note}");
            }
            _ => {
                let init = if v.init.iter().all(|&x| x == 0) {
                    String::new()
                } else if v.is_array {
                    let vals: Vec<String> = v.init.iter().map(|x| raw_literal(v.ty, *x)).collect();
                    format!(" = {{{}}}", vals.join(", "))
                } else {
                    format!(" = {}", raw_literal(v.ty, v.init[0]))
                };
                // Each variable on its own 128-byte line: a spin loop's reads of one
                // variable must not slow down atomics on its neighbour.
                let _ = writeln!(
                    out,
                    "__device__ __align__(128) {ty} {name}{dims}{init};  {note}"
                );
            }
        }
    }
    let _ = writeln!(out);
    Ok(())
}

/// GsThread: the harness's state and the spec's `local` variables, which
/// every procedure may read and write.
fn thread_state(out: &mut String, program: &Program, names: &Names, top: LocalId) {
    let _ = writeln!(
        out,
        "// One thread's state: the harness's (GsRuntime) and the spec's `local` variables.\n\
         struct GsThread : GsRuntime {{"
    );
    for l in 0..top {
        let ty = program.locals[l as usize].ty;
        let _ = writeln!(out, "    {} {};", cuda_type(ty), names.locals[l as usize]);
    }
    let _ = writeln!(out, "}};\n");
}

/// A stored raw value as a literal of the variable's word type.
fn raw_literal(ty: Type, raw: u32) -> String {
    let v = crate::ir::from_raw(ty, raw);
    expr::literal(v).text
}

/// The instructions some `goto` in `from..to` names (fall-through needs no
/// label), leaving out the calls' ranges.
fn jump_targets(code: &[Instr], from: Pc, to: Pc, calls: &[&InlinedCall]) -> BTreeSet<u32> {
    let mut t = BTreeSet::new();
    for pc in from..to {
        if calls.iter().any(|c| c.call <= pc && pc < c.end) {
            continue;
        }
        let next = pc + 1;
        match code[pc as usize].op {
            Op::Branch {
                then_pc, else_pc, ..
            } => {
                t.extend([then_pc, else_pc].into_iter().filter(|&x| x != next));
            }
            Op::Jump { target } if target != next => {
                t.insert(target);
            }
            _ => {}
        }
    }
    t
}

struct Emitter<'a> {
    program: &'a Program,
    names: &'a Names,
    out: String,
    asserts: Vec<String>,
    last_line: u32,
    labels: BTreeSet<u32>,
    /// The first `top` slots are the spec's `local` variables: fields of GsThread.
    top: LocalId,
    /// Slots named otherwise in the function being emitted (its result).
    renames: HashMap<LocalId, String>,
}

impl Emitter<'_> {
    fn local(&self, l: u32) -> (String, Type) {
        let ty = self.program.locals[l as usize].ty;
        let name = &self.names.locals[l as usize];
        if let Some(r) = self.renames.get(&l) {
            (r.clone(), ty)
        } else if l < self.top {
            (format!("th.{name}"), ty)
        } else {
            (name.clone(), ty)
        }
    }

    fn expr(&self, e: &Expr) -> Code {
        expr::emit(e, &|l| self.local(l))
    }

    fn loc(&self, loc: &Loc) -> String {
        let name = &self.names.vars[loc.var as usize];
        match &loc.index {
            Some(i) => format!("{name}[{}]", self.expr(i).bare()),
            None => name.clone(),
        }
    }

    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "    {text}");
    }

    /// Every procedure (callees first), then the harness's program.
    fn functions(&mut self, file: &SpecFile) -> Result<String, Diagnostic> {
        let calls = &self.program.inlined;
        // Each procedure from its first activation.
        let mut first: Vec<usize> = Vec::new();
        for (i, c) in calls.iter().enumerate() {
            if !first.iter().any(|&f| calls[f].proc == c.proc) {
                first.push(i);
            }
        }
        let mut done = BTreeSet::new();
        let mut text = String::new();
        for &f in &first {
            self.procedure_and_callees(f, &first, &mut done, &mut text)?;
        }
        text.push_str(&self.harness(file)?);
        Ok(text)
    }

    fn procedure_and_callees(
        &mut self,
        at: usize,
        first: &[usize],
        done: &mut BTreeSet<String>,
        text: &mut String,
    ) -> Result<(), Diagnostic> {
        let call = &self.program.inlined[at];
        if !done.insert(call.proc.clone()) {
            return Ok(());
        }
        for &c in &call.calls {
            let proc = &self.program.inlined[c].proc;
            let f = *first
                .iter()
                .find(|&&f| &self.program.inlined[f].proc == proc)
                .expect("every called procedure has a first activation");
            self.procedure_and_callees(f, first, done, text)?;
        }
        text.push_str(&self.procedure(call)?);
        Ok(())
    }

    /// One spec procedure as a function: its parameters by value, its
    /// result through `gs_result`; false when the host aborted the launch.
    fn procedure(&mut self, call: &InlinedCall) -> Result<String, Diagnostic> {
        let program = self.program;
        let name = &self.names.procs[&call.proc];
        let children: Vec<&InlinedCall> = call.calls.iter().map(|&c| &program.inlined[c]).collect();
        let own: Vec<LocalId> = call
            .locals
            .clone()
            .filter(|l| !call.params.contains(l))
            .filter(|l| !children.iter().any(|c| c.locals.contains(l)))
            .collect();
        let slots: Vec<LocalId> = call.params.iter().chain(&own).copied().collect();
        self.enter(&slots, call.body, call.end, &children);
        let mut params: Vec<String> = vec!["GsThread& th".into()];
        for &p in &call.params {
            let (n, ty) = self.local(p);
            params.push(format!("{} {n}", cuda_type(ty)));
        }
        if let Some(r) = call.ret {
            let ty = program.locals[r as usize].ty;
            params.push(format!("{}* gs_result", cuda_type(ty)));
            self.renames.insert(r, "result".into());
        }
        // The procedure's declaration line, as the spec writes it.
        let decl = program
            .source
            .text
            .lines()
            .enumerate()
            .find(|(_, l)| {
                l.trim_start()
                    .strip_prefix("fn ")
                    .is_some_and(|r| r.trim_start().starts_with(&format!("{}(", call.proc)))
            })
            .map(|(n, l)| format!("line {}: {}", n + 1, l.trim()))
            .unwrap_or_else(|| format!("procedure {}", call.proc));
        let _ = writeln!(
            self.out,
            "// {decl}\n__device__ __forceinline__ bool {name}({})\n{{",
            params.join(", ")
        );
        self.declare(&own);
        if let Some(r) = call.ret {
            let ty = program.locals[r as usize].ty;
            self.line(&format!("{} result = 0;", cuda_type(ty)));
        }
        self.code(call.body, call.end, &children)?;
        if self.labels.contains(&call.end) {
            let _ = writeln!(self.out, "L{}:;", call.end);
        }
        if call.ret.is_some() {
            self.line("*gs_result = result;");
        }
        self.line("return true;");
        let _ = writeln!(self.out, "}}\n");
        self.renames.clear();
        Ok(std::mem::take(&mut self.out))
    }

    /// The harness's program: every participant runs it.
    fn harness(&mut self, file: &SpecFile) -> Result<String, Diagnostic> {
        let program = self.program;
        let _ = writeln!(
            self.out,
            "// ---------------------------------------------------------------------------\n\
             // The harness's program. Returns false if the host aborted it.\n\
             // ---------------------------------------------------------------------------\n\
             __device__ bool gsync_thread(volatile unsigned int* abort_flag, unsigned int gs_me)\n{{"
        );
        self.line("GsThread th;");
        self.line("gs_start(th, abort_flag, gs_me);");
        self.init_spec_locals(file);
        let children: Vec<&InlinedCall> = program.inlined.iter().filter(|c| c.depth == 0).collect();
        let own: Vec<LocalId> = (self.top..program.locals.len() as LocalId)
            .filter(|l| !children.iter().any(|c| c.locals.contains(l)))
            .collect();
        let end = program.code.len() as Pc;
        self.enter(&own, 0, end, &children);
        self.declare(&own);
        self.code(0, end, &children)?;
        if self.labels.contains(&end) {
            let _ = writeln!(self.out, "L{end}:;");
        }
        if !matches!(program.code.last().map(|i| &i.op), Some(Op::Exit)) {
            self.line("return gs_finish(th);");
        }
        let _ = writeln!(self.out, "}}\n");
        Ok(std::mem::take(&mut self.out))
    }

    /// The instructions `from..to`, each call in `calls` as one statement.
    fn code(&mut self, from: Pc, to: Pc, calls: &[&InlinedCall]) -> Result<(), Diagnostic> {
        let mut pc = from;
        while pc < to {
            if self.labels.contains(&pc) {
                let _ = writeln!(self.out, "L{pc}:;");
            }
            if let Some(call) = calls.iter().find(|c| c.call == pc) {
                self.call(call);
                pc = call.end;
                continue;
            }
            let instr = &self.program.code[pc as usize];
            self.source_comment(instr.span);
            self.instr(pc, instr)?;
            pc += 1;
        }
        Ok(())
    }

    fn call(&mut self, call: &InlinedCall) {
        self.source_comment(call.span);
        let mut args: Vec<String> = vec!["th".into()];
        for (&p, a) in call.params.iter().zip(&call.args) {
            let ty = self.program.locals[p as usize].ty;
            args.push(expr::wrap_to(ty, &self.expr(a)));
        }
        if let Some(r) = call.ret {
            args.push(format!("&{}", self.local(r).0));
        }
        let name = &self.names.procs[&call.proc];
        self.line(&format!("GS_CALL({name}({}));", args.join(", ")));
    }

    /// Enters a function: names for its slots, unique within it, and the
    /// labels its code needs.
    fn enter(&mut self, slots: &[LocalId], from: Pc, to: Pc, calls: &[&InlinedCall]) {
        let mut scope = self.names.globals.clone();
        self.renames.clear();
        for &l in slots {
            let name = &self.program.locals[l as usize].name;
            let base = name.strip_prefix('%').unwrap_or(name);
            self.renames.insert(l, fresh_in(&mut scope, base));
        }
        self.labels = jump_targets(&self.program.code, from, to, calls);
        self.last_line = 0;
    }

    /// Declarations of the function's own slots (temporaries marked).
    fn declare(&mut self, slots: &[LocalId]) {
        for &l in slots {
            let (name, ty) = self.local(l);
            let what = if self.program.locals[l as usize].name.starts_with('%') {
                " // temporary"
            } else {
                ""
            };
            self.line(&format!("{} {name} = 0;{what}", cuda_type(ty)));
        }
    }

    /// The spec's `local` variables, with their initial values.
    fn init_spec_locals(&mut self, file: &SpecFile) {
        let inits: HashMap<&str, &crate::spec::ast::Expr> = file
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Var(v) if v.storage == Storage::Local => match &v.init {
                    crate::spec::ast::Init::Expr(e) => Some((v.name.name.as_str(), e)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        for l in 0..self.top {
            let (name, ty) = self.local(l);
            let slot = &self.program.locals[l as usize];
            let init = match (&slot.init, inits.get(slot.name.as_str())) {
                (LocalInit::PerThread(_), Some(e)) => expr::wrap_to(ty, &expr::emit_const(e)),
                _ => "0".to_string(),
            };
            self.line(&format!("{name} = {init};"));
        }
    }

    fn source_comment(&mut self, span: crate::spec::ast::Span) {
        if span.end <= span.start {
            return;
        }
        let (line, _) = self.program.source.line_col(span.start);
        if line == self.last_line {
            return;
        }
        self.last_line = line;
        let text = self
            .program
            .source
            .text
            .lines()
            .nth(line as usize - 1)
            .unwrap_or("")
            .trim();
        let _ = writeln!(self.out, "    // line {line}: {text}");
    }

    /// `goto L{target}`, polling the abort flag on a backward jump.
    fn goto(pc: u32, target: u32) -> String {
        if target <= pc {
            format!("SPIN_BACK(L{target});")
        } else {
            format!("goto L{target};")
        }
    }

    /// A fence: `__threadfence*()` is PTX `fence.sc`; an acq_rel fence is
    /// the lighter `fence.acq_rel` (also what release/acquire accesses use).
    fn fence(order: Order, scope: Scope) -> &'static str {
        match (order, scope) {
            (Order::Sc, Scope::Cta) => "__threadfence_block();",
            (Order::Sc, Scope::Gpu) => "__threadfence();",
            (Order::Sc, Scope::Sys) => "__threadfence_system();",
            (_, Scope::Cta) => "gs_fence_acq_rel_cta();",
            (_, Scope::Gpu) => "gs_fence_acq_rel_gpu();",
            (_, Scope::Sys) => "gs_fence_acq_rel_sys();",
        }
    }

    /// Emits an access with the fences its order needs around it: a scoped
    /// fence before a release and after an acquire (at least as strong as
    /// the PTX `.release`/`.acquire` forms, and plain CUDA).
    fn fenced(&mut self, order: Order, scope: Scope, access: impl FnOnce(&mut Self)) {
        let f = Self::fence(
            if order == Order::Sc {
                Order::Sc
            } else {
                Order::AcqRel
            },
            scope,
        );
        let (before, after) = match order {
            Order::Release => (true, false),
            Order::Acquire => (false, true),
            Order::AcqRel | Order::Sc => (true, true),
            Order::Weak | Order::Volatile | Order::Relaxed => (false, false),
        };
        if before {
            self.line(f);
        }
        access(self);
        if after {
            self.line(f);
        }
    }

    fn assign_result(&mut self, dst: Option<u32>, value: String, class: Class) {
        match dst {
            Some(d) => {
                let (name, ty) = self.local(d);
                let v = expr::wrap_to(ty, &Code { text: value, class });
                self.line(&format!("{name} = {v};"));
            }
            None => self.line(&format!("{value};")),
        }
    }

    fn instr(&mut self, pc: u32, instr: &Instr) -> Result<(), Diagnostic> {
        match &instr.op {
            Op::Assign { dst, value } => {
                let v = self.expr(value);
                let (name, ty) = self.local(*dst);
                self.line(&format!("{name} = {};", expr::wrap_to(ty, &v)));
            }
            Op::Load {
                dst,
                loc,
                order,
                scope,
            } => {
                let var = &self.program.vars[loc.var as usize];
                let place = self.loc(loc);
                let class = expr::class_of(var.ty);
                let scoped = match order {
                    Order::Relaxed => Some("relaxed"),
                    Order::Acquire => Some("acquire"),
                    _ => None,
                };
                if let Some(sem) = scoped {
                    // ld.relaxed / ld.acquire at the spec's scope: no fences.
                    let cast = if var.ty.signed() { "(int)" } else { "" };
                    let raw = format!("{cast}gs_ld_{sem}_{}(&{place})", scope_name(*scope));
                    self.assign_result(Some(*dst), raw, class);
                } else {
                    let raw = match order {
                        Order::Weak => place,
                        _ => format!("gs_ld_volatile(&{place})"),
                    };
                    self.fenced(*order, *scope, |e| e.assign_result(Some(*dst), raw, class));
                }
            }
            Op::Store {
                loc,
                value,
                order,
                scope,
            } => {
                let ty = self.program.vars[loc.var as usize].ty;
                let place = self.loc(loc);
                let v = expr::wrap_to(ty, &self.expr(value));
                match order {
                    // st.release at the spec's scope: no fence.
                    Order::Release => self.line(&format!(
                        "gs_st_release_{}(&{place}, (unsigned int)({v}));",
                        scope_name(*scope)
                    )),
                    Order::Weak => self.line(&format!("{place} = {v};")),
                    _ => {
                        let stmt = format!("gs_st_volatile(&{place}, {v});");
                        self.fenced(*order, *scope, |e| e.line(&stmt));
                    }
                }
            }
            Op::Atomic {
                dst,
                op,
                loc,
                operands,
                order,
                scope,
            } => {
                let class = expr::class_of(self.program.vars[loc.var as usize].ty);
                match self.ordered_atomic(*op, loc, operands, *order, *scope) {
                    Some(call) => self.assign_result(*dst, call, class),
                    None => {
                        let call = self.atomic(*op, loc, operands, *scope);
                        self.fenced(*order, *scope, |e| e.assign_result(*dst, call, class));
                    }
                }
            }
            Op::Fence { order, scope } => self.line(Self::fence(*order, *scope)),
            Op::SyncThreads => match self.program.participants {
                Participants::Master => self.line(
                    "// __syncthreads(): a no-op, as in the model: only the master thread runs the spec",
                ),
                Participants::All => self.line("__syncthreads();"),
            },
            Op::KernelBoundary => {
                return Err(refuse(
                    instr,
                    "`__kernel_boundary()` ends the kernel: it has no lowering inside one kernel",
                    "run the phases as separate kernel launches; the harness kernel is one launch",
                ))
            }
            Op::SyncWarp { mask } => {
                let m = self.expr(mask);
                self.line(&format!("__syncwarp({});", m.bare()));
            }
            Op::Vote {
                dst,
                kind,
                mask,
                pred,
            } => {
                let f = match kind {
                    VoteKind::Any => "__any_sync",
                    VoteKind::All => "__all_sync",
                    VoteKind::Ballot => "__ballot_sync",
                };
                let call = format!("{f}({}, {})", self.expr(mask).bare(), self.expr(pred).bare());
                self.assign_result(Some(*dst), call, Class::Nat);
            }
            Op::ActiveMask { dst } => {
                self.assign_result(Some(*dst), "__activemask()".into(), Class::Nat)
            }
            Op::LockBitTry { .. } | Op::LockBitRelease { .. } => {
                return Err(refuse(
                    instr,
                    "lock-bit operations (ldslk/stsul) have no CUDA equivalent",
                    "the Fermi shared-memory lock unit is gone since Kepler; use atomicCAS on a shared word",
                ))
            }
            Op::Backoff => self.line("gs_backoff(th);"),
            Op::Assert { cond, message } => {
                let id = self.asserts.len();
                self.asserts.push(message.clone());
                let c = self.expr(cond);
                self.line(&format!(
                    "if (!{}) gs_assert_failed({id}); // {}",
                    paren(&c),
                    message.replace('\n', " ")
                ));
            }
            Op::CriticalEnter { weight } => {
                let w = self.expr(weight);
                self.line(&format!("gs_critical_enter(th, (int){});", paren(&w)));
            }
            Op::CriticalExit => self.line("gs_critical_exit(th);"),
            Op::PhaseEnter => self.line("gs_phase_enter(th);"),
            Op::PhaseExit => self.line("gs_phase_exit(th);"),
            Op::Progress => self.line("th.gs_backoff_ns = GS_BACKOFF_MIN_NS; // progress"),
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                let c = self.expr(cond);
                let next = pc + 1;
                match (*then_pc == next, *else_pc == next) {
                    (true, true) => {}
                    (false, true) => {
                        self.line(&format!("if ({}) {}", c.bare(), Self::goto(pc, *then_pc)))
                    }
                    (true, false) => {
                        self.line(&format!("if (!{}) {}", paren(&c), Self::goto(pc, *else_pc)))
                    }
                    (false, false) => self.line(&format!(
                        "if ({}) {} else {}",
                        c.bare(),
                        Self::goto(pc, *then_pc),
                        Self::goto(pc, *else_pc)
                    )),
                }
            }
            Op::Jump { target } => {
                if *target != pc + 1 {
                    self.line(&Self::goto(pc, *target));
                }
            }
            Op::Exit => self.line("return gs_finish(th);"),
        }
        Ok(())
    }

    /// An acquire, release or acq_rel atomic on a 32-bit word as one PTX
    /// `atom.<order>.<scope>` (prelude's gs_atom_*); None for the other
    /// orders and for narrow arithmetic (a CAS loop between fences).
    fn ordered_atomic(
        &self,
        op: AtomicOp,
        loc: &Loc,
        operands: &[Expr],
        order: Order,
        scope: Scope,
    ) -> Option<String> {
        let sem = match order {
            Order::Acquire => "acquire",
            Order::Release => "release",
            Order::AcqRel => "acq_rel",
            _ => return None,
        };
        let ty = self.program.vars[loc.var as usize].ty;
        if ty.bits() < 32 && !matches!(op, AtomicOp::Cas | AtomicOp::Exch) {
            return None;
        }
        let signed = ty.signed();
        // (PTX operation, operand type, whether it takes the word as int)
        let (name, ptx_ty, as_int) = match op {
            AtomicOp::Add | AtomicOp::Sub if signed => ("add", "s32", true),
            AtomicOp::Add | AtomicOp::Sub => ("add", "u32", false),
            AtomicOp::Min if signed => ("min", "s32", true),
            AtomicOp::Min => ("min", "u32", false),
            AtomicOp::Max if signed => ("max", "s32", true),
            AtomicOp::Max => ("max", "u32", false),
            AtomicOp::Cas if signed => ("cas", "s32", true),
            AtomicOp::Cas => ("cas", "b32", false),
            AtomicOp::Exch => ("exch", "b32", false),
            AtomicOp::Inc => ("inc", "u32", false),
            AtomicOp::Dec => ("dec", "u32", false),
            AtomicOp::And => ("and", "b32", false),
            AtomicOp::Or => ("or", "b32", false),
            AtomicOp::Xor => ("xor", "b32", false),
        };
        let word = if as_int { "int" } else { "unsigned int" };
        let place = self.loc(loc);
        let ptr = if as_int == signed {
            format!("&{place}")
        } else {
            format!("({word}*)&{place}")
        };
        let mut args = vec![ptr];
        for a in operands {
            let v = expr::wrap_to(ty, &self.expr(a));
            let v = if op == AtomicOp::Sub {
                format!("-({v})")
            } else {
                v
            };
            args.push(format!("({word})({v})"));
        }
        let call = format!(
            "gs_atom_{sem}_{}_{name}_{ptx_ty}({})",
            scope_name(scope),
            args.join(", ")
        );
        Some(if as_int == signed {
            call
        } else {
            format!("({})({call})", word_type(ty))
        })
    }

    /// The CUDA call of an atomic read-modify-write.
    fn atomic(&self, op: AtomicOp, loc: &Loc, operands: &[Expr], scope: Scope) -> String {
        let ty = self.program.vars[loc.var as usize].ty;
        let place = self.loc(loc);
        let args: Vec<Code> = operands.iter().map(|e| self.expr(e)).collect();
        let narrow = ty.bits() < 32 && !matches!(op, AtomicOp::Cas | AtomicOp::Exch);
        if narrow {
            let a = args[0].wide();
            let mask = (1u64 << ty.bits()) - 1;
            let next = match op {
                // The operand may be any i64: the helpers wrap as the model does.
                AtomicOp::Add => format!("gs_add(old, {a})"),
                AtomicOp::Sub => format!("gs_sub(old, {a})"),
                AtomicOp::Or => format!("old | {a}"),
                AtomicOp::And => format!("old & {a}"),
                AtomicOp::Xor => format!("old ^ {a}"),
                AtomicOp::Max => format!("old > {a} ? old : {a}"),
                AtomicOp::Min => format!("old < {a} ? old : {a}"),
                AtomicOp::Inc => format!("(old & {mask}) >= ({a} & {mask}) ? 0 : old + 1"),
                AtomicOp::Dec => format!(
                    "(old & {mask}) == 0 || (old & {mask}) > ({a} & {mask}) ? {a} : old - 1"
                ),
                AtomicOp::Cas | AtomicOp::Exch => unreachable!(),
            };
            return format!(
                "gs_atomic_narrow<{}>((unsigned int*)&{place}, {}, [&](i64 old) {{ return {next}; }})",
                cuda_type(ty),
                scope == Scope::Cta
            );
        }
        let suffix = match scope {
            Scope::Cta => "_block",
            Scope::Gpu => "",
            Scope::Sys => "_system",
        };
        let word = word_type(ty);
        let unsigned_only = matches!(op, AtomicOp::Inc | AtomicOp::Dec);
        let ptr = if unsigned_only && ty.signed() {
            format!("(unsigned int*)&{place}")
        } else {
            format!("&{place}")
        };
        let cast = if unsigned_only { "unsigned int" } else { word };
        let vals: Vec<String> = args
            .iter()
            .map(|a| {
                let v = expr::wrap_to(ty, a);
                if expr::class_of(ty) == a.class && ty.bits() == 32 {
                    v
                } else {
                    format!("({cast})({v})")
                }
            })
            .collect();
        format!("{}{suffix}({ptr}, {})", op.cuda_name(), vals.join(", "))
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "cta",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

fn paren(c: &Code) -> String {
    if c.text.starts_with('(') || !c.text.contains(' ') {
        c.text.clone()
    } else {
        format!("({})", c.text)
    }
}

fn kernel(out: &mut String, program: &Program, names: &Names) {
    // Registers for a full SM (2048 threads on sm_70 and later): without the
    // bound the compiler may take more than 32 per thread at 128-thread
    // blocks, and then fewer than 16 blocks fit on an SM.
    let tpb = program.launch.threads_per_block;
    let _ = writeln!(
        out,
        "// ---------------------------------------------------------------------------\n\
         // The harness kernel.\n\
         // ---------------------------------------------------------------------------\n\
         extern \"C\" __global__ void __launch_bounds__({tpb}, {}) {KERNEL_NAME}(volatile unsigned int* abort_flag, volatile unsigned int* finished)\n{{",
        (2048 / tpb).max(1)
    );
    let shared: Vec<(usize, &crate::ir::MemVar)> = program
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.storage == Storage::Shared)
        .collect();
    if !shared.is_empty() {
        out.push_str("    if (threadIdx.x == 0) { // the spec's shared memory, initial values\n");
        for (i, v) in shared {
            let name = &names.vars[i];
            for (k, raw) in v.init[..v.len as usize].iter().enumerate() {
                let place = if v.is_array {
                    format!("{name}[{k}]")
                } else {
                    name.clone()
                };
                let _ = writeln!(out, "        {place} = {};", raw_literal(v.ty, *raw));
            }
        }
        out.push_str("    }\n    __syncthreads();\n");
    }
    match program.participants {
        Participants::Master => {
            // Thread 0 runs the spec; the block's other threads wait for it
            // at one __syncthreads() that every thread reaches at the same
            // instruction (a barrier inside the master's spin loops would be
            // in divergent code, and hangs).
            out.push_str(
                "    if (threadIdx.x == 0) { // harness master: only thread 0 runs the spec\n\
                 \x20       bool done = gsync_thread(abort_flag, blockIdx.x);\n\
                 \x20       finished[blockIdx.x] = done ? 1u : 2u;\n\
                 \x20   }\n\
                 \x20   __syncthreads(); // the block's other threads wait here\n",
            );
        }
        Participants::All => {
            out.push_str(
                "    bool done = gsync_thread(abort_flag, blockIdx.x * blockDim.x + threadIdx.x);\n\
                 \x20   done = __syncthreads_and(done);\n\
                 \x20   if (threadIdx.x == 0) finished[blockIdx.x] = done ? 1u : 2u;\n",
            );
        }
    }
    out.push_str("}\n");
}
