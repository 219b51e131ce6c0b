//! IR → a self-contained CUDA C++ file: the spec's memory, one device
//! function that is the thread's program, and the harness kernel.
//!
//! The IR has procedures inlined, so each thread's program is one flat
//! instruction list; it is emitted as one `__device__` function with a label
//! per jump target, and a `// line N:` comment with the spec text wherever
//! the source line changes, so the code reads against the spec. Each memory
//! operation is emitted as the CUDA operation the spec names (scoped
//! atomics, fences, volatile accesses), in the same order.

use super::expr::{self, cuda_type, word_type, Class, Code};
use crate::ir::{AtomicOp, Expr, Instr, Loc, LocalInit, Op, Order, Program, Scope, VoteKind};
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
];

/// Unique C++ names for the spec's parameters, memory and locals.
struct Names {
    used: BTreeSet<String>,
    vars: Vec<String>,
    locals: Vec<String>,
}

impl Names {
    fn fresh(&mut self, name: &str) -> String {
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
        if base.starts_with("gs_") || base == "BLOCK_IDX" || base == "SPIN_BACK" {
            base = format!("spec_{base}");
        }
        let mut candidate = base.clone();
        let mut n = 1;
        while RESERVED.contains(&candidate.as_str()) || self.used.contains(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }

    fn new(program: &Program) -> Names {
        let mut names = Names {
            used: BTreeSet::new(),
            vars: Vec::new(),
            locals: Vec::new(),
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
    let mut e = Emitter {
        program,
        names: &names,
        out: String::new(),
        asserts: Vec::new(),
        last_line: 0,
        labels: jump_targets(&program.code),
    };
    let body = e.thread_function(file)?;
    let asserts = e.asserts.clone();
    let mut out = String::new();
    header(&mut out, program, spec_name, options);
    defines(&mut out, program, participants, options);
    out.push_str(PRELUDE);
    memory(&mut out, program, &names)?;
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
        "// The checker inlines procedures, so gsync_thread() below is each thread's whole\n\
         // program, one statement per model step; `// line N:` comments quote the spec.\n\
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

/// A stored raw value as a literal of the variable's word type.
fn raw_literal(ty: Type, raw: u32) -> String {
    let v = crate::ir::from_raw(ty, raw);
    expr::literal(v).text
}

/// The instructions some emitted `goto` names (fall-through needs no label).
fn jump_targets(code: &[Instr]) -> BTreeSet<u32> {
    let mut t = BTreeSet::new();
    for (pc, i) in code.iter().enumerate() {
        let next = pc as u32 + 1;
        match i.op {
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
}

impl Emitter<'_> {
    fn local(&self, l: u32) -> (String, Type) {
        (
            self.names.locals[l as usize].clone(),
            self.program.locals[l as usize].ty,
        )
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

    fn thread_function(&mut self, file: &SpecFile) -> Result<String, Diagnostic> {
        let _ = writeln!(
            self.out,
            "// ---------------------------------------------------------------------------\n\
             // The thread's program. Returns false if the host aborted it.\n\
             // ---------------------------------------------------------------------------\n\
             __device__ bool gsync_thread(volatile unsigned int* abort_flag, unsigned int gs_me)\n{{"
        );
        self.line(
            "unsigned int gs_spins = 0;                     // loop iterations, for abort polling",
        );
        self.line(
            "unsigned long long gs_next_poll = 0;           // when to read the abort flag next",
        );
        self.line("unsigned int gs_backoff_ns = GS_BACKOFF_MIN_NS; // backoff(): next sleep");
        self.line("unsigned int gs_phase = 0;                     // phases entered");
        self.line(
            "int gs_weight = 0;                             // weight of the critical section",
        );
        self.line("(void)gs_me; (void)gs_phase; (void)gs_weight; (void)gs_backoff_ns; (void)gs_next_poll;");
        self.declare_locals(file);
        let code = &self.program.code;
        for (pc, instr) in code.iter().enumerate() {
            let pc = pc as u32;
            if self.labels.contains(&pc) {
                let _ = writeln!(self.out, "L{pc}:;");
            }
            self.source_comment(instr);
            self.instr(pc, instr)?;
        }
        if self.labels.contains(&(code.len() as u32)) {
            let _ = writeln!(self.out, "L{}:;", code.len());
        }
        if !matches!(code.last().map(|i| &i.op), Some(Op::Exit)) {
            self.line("return true;");
        }
        let _ = writeln!(self.out, "}}\n");
        Ok(std::mem::take(&mut self.out))
    }

    fn declare_locals(&mut self, file: &SpecFile) {
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
        for (i, l) in self.program.locals.iter().enumerate() {
            let name = &self.names.locals[i];
            let init = match (&l.init, inits.get(l.name.as_str())) {
                (LocalInit::PerThread(_), Some(e)) => expr::wrap_to(l.ty, &expr::emit_const(e)),
                _ => "0".to_string(),
            };
            let what = if l.name.starts_with('%') {
                " // temporary"
            } else {
                ""
            };
            self.line(&format!("{} {name} = {init};{what}", cuda_type(l.ty)));
        }
    }

    fn source_comment(&mut self, instr: &Instr) {
        if instr.span.end <= instr.span.start {
            return;
        }
        let (line, _) = self.program.source.line_col(instr.span.start);
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
                let stmt = match order {
                    Order::Weak => format!("{place} = {v};"),
                    _ => format!("gs_st_volatile(&{place}, {v});"),
                };
                self.fenced(*order, *scope, |e| e.line(&stmt));
            }
            Op::Atomic {
                dst,
                op,
                loc,
                operands,
                order,
                scope,
            } => {
                let call = self.atomic(*op, loc, operands, *scope);
                let class = expr::class_of(self.program.vars[loc.var as usize].ty);
                self.fenced(*order, *scope, |e| e.assign_result(*dst, call, class));
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
            Op::Backoff => self.line("gs_backoff(gs_backoff_ns);"),
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
                self.line(&format!("gs_weight = (int){};", paren(&w)));
                self.line("gs_critical_enter(gs_weight); gs_backoff_ns = GS_BACKOFF_MIN_NS;");
            }
            Op::CriticalExit => self.line("gs_critical_exit(gs_weight);"),
            Op::PhaseEnter => self.line("gs_phase_enter(gs_me, gs_phase);"),
            Op::PhaseExit => {
                self.line("gs_phase_exit(gs_me, gs_phase); gs_backoff_ns = GS_BACKOFF_MIN_NS;");
            }
            Op::Progress => self.line("gs_backoff_ns = GS_BACKOFF_MIN_NS; // progress"),
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
            Op::Exit => self.line("return true;"),
        }
        Ok(())
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
                AtomicOp::Add => format!("old + {a}"),
                AtomicOp::Sub => format!("old - {a}"),
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
    let _ = writeln!(
        out,
        "// ---------------------------------------------------------------------------\n\
         // The harness kernel.\n\
         // ---------------------------------------------------------------------------\n\
         extern \"C\" __global__ void {KERNEL_NAME}(volatile unsigned int* abort_flag, volatile unsigned int* finished)\n{{"
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
