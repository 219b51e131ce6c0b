//! A litmus test as a CUDA program: the fixed harness
//! (`harness_prelude.cu`, `harness_kernels.cu`) around the test's own part,
//! one `__device__` function per litmus thread plus the tables the harness
//! asks for (CTA sizes, which litmus thread has which rank, the locations'
//! initial values, where the final condition's terms are written).
//!
//! Each instance writes one row of `LT_OUT_WORDS` words: the condition's
//! terms (registers written by their thread when it ends, locations copied
//! by `litmus_collect` after the launch), then per litmus thread its status
//! (0 did not run, 1 finished, 2 gave up at the deadline) and its SM.

use super::super::decode::{is_jump, Unsupported};
use super::super::parse::{Litmus, Operand, Stmt, Term};
use super::instr::{self, label_name, reg_name};
use super::layout::Roles;
use crate::diag::Span;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

pub(crate) const PRELUDE: &str = include_str!("harness_prelude.cu");
pub(crate) const KERNELS: &str = include_str!("harness_kernels.cu");

/// The most locations a test may use (the harness's parameter block has
/// one permutation per location).
pub(crate) const MAX_LOCATIONS: usize = 8;

/// A test's CUDA program and how to read its results.
#[derive(Clone, Debug)]
pub struct LitmusKernel {
    pub source: String,
    /// Locations with their initial values, in declaration order then use.
    pub locations: Vec<(String, i64)>,
    /// The final condition's terms, in the order of the output row.
    pub terms: Vec<Term>,
    /// Litmus threads.
    pub threads: usize,
}

impl LitmusKernel {
    /// Words per instance in `lt_out`.
    pub fn out_words(&self) -> usize {
        self.terms.len() + 2 * self.threads
    }
}

fn locations_of(test: &Litmus) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = test
        .mem_init
        .iter()
        .map(|(n, v, _)| (n.clone(), *v))
        .collect();
    let mut add = |n: &str| {
        if !out.iter().any(|(m, _)| m == n) {
            out.push((n.to_string(), 0));
        }
    };
    for t in &test.threads {
        for s in &t.code {
            if let Stmt::Instr(i) = s {
                for o in &i.operands {
                    if let (false, Operand::Name(n)) = (is_jump(i), o) {
                        add(n);
                    }
                }
            }
        }
    }
    let mut terms = vec![];
    test.condition.terms(&mut terms);
    for t in &terms {
        if let Term::Mem(m) = t {
            add(m);
        }
    }
    out
}

/// Generates the CUDA program of `test` (already placed on one GPU);
/// `text` is its source, quoted in comments.
pub(crate) fn emit(test: &Litmus, roles: &Roles, text: &str) -> Result<LitmusKernel, Unsupported> {
    let whole = Span::new(0, 1);
    // The harness's barrier is the whole CTA's; the model's named barriers
    // (part of a CTA, quorums, `bar.arrive`) have no GPU counterpart here.
    crate::litmus::barriers::check_barriers(test).map_err(|u| Unsupported {
        reason: format!("{} (the GPU runner has only whole-CTA barriers)", u.reason),
        span: u.span,
    })?;
    let locations = locations_of(test);
    if locations.len() > MAX_LOCATIONS {
        return Err(Unsupported {
            reason: format!(
                "{} locations (the harness has room for {MAX_LOCATIONS})",
                locations.len()
            ),
            span: whole,
        });
    }
    let mut terms = vec![];
    test.condition.terms(&mut terms);
    let mut k = LitmusKernel {
        source: String::new(),
        locations,
        terms,
        threads: test.threads.len(),
    };
    let mut defines = String::new();
    let _ = writeln!(defines, "// gsync-check litmus --on-gpu: {}", test.name);
    let _ = writeln!(
        defines,
        "#define LT_LOCS {}\n#define LT_TERMS {}\n#define LT_THREADS {}\n#define LT_OUT_WORDS {}",
        k.locations.len().max(1),
        k.terms.len(),
        k.threads,
        k.out_words()
    );
    let mut gen = format!("// ---- the test: {} ----\n", test.name);
    gen.push_str(&tables(roles));
    for (p, _) in test.threads.iter().enumerate() {
        gen.push_str(&thread_function(test, roles, &k, p, text)?);
    }
    gen.push_str(&dispatch(k.threads));
    gen.push_str(&init_and_collect(&k));
    k.source = format!("{defines}{PRELUDE}\n{gen}\n{KERNELS}");
    Ok(k)
}

/// `lt_cta_size(cta)` and `lt_thread_at(cta, rank)` as switches.
fn tables(roles: &Roles) -> String {
    let mut s =
        String::from("__device__ __forceinline__ u32 lt_cta_size(u32 cta) {\n    switch (cta) {\n");
    for (c, n) in roles.cta_sizes.iter().enumerate() {
        let _ = writeln!(s, "    case {c}: return {n}u;");
    }
    s.push_str("    default: return 0u;\n    }\n}\n");
    s.push_str("__device__ __forceinline__ u32 lt_thread_at(u32 cta, u32 rank) {\n");
    for p in 0..roles.cta_of.len() {
        let _ = writeln!(
            s,
            "    if (cta == {}u && rank == {}u) return {p}u;",
            roles.cta_of[p], roles.rank[p]
        );
    }
    s.push_str("    return 0xFFFFFFFFu;\n}\n");
    s
}

/// Registers a thread uses, with their initial values.
fn registers(test: &Litmus, p: usize) -> BTreeMap<String, i64> {
    let mut regs = BTreeMap::new();
    for s in &test.threads[p].code {
        if let Stmt::Instr(i) = s {
            for o in &i.operands {
                if let Operand::Reg(r) = o {
                    regs.insert(r.clone(), 0);
                }
            }
        }
    }
    let mut terms = vec![];
    test.condition.terms(&mut terms);
    for t in terms {
        if let Term::Reg(th, r) = t {
            if th == test.threads[p].id {
                regs.insert(r, 0);
            }
        }
    }
    for (th, r, v, _) in &test.reg_init {
        if *th == test.threads[p].id {
            regs.insert(r.clone(), *v);
        }
    }
    regs
}

fn thread_function(
    test: &Litmus,
    roles: &Roles,
    k: &LitmusKernel,
    p: usize,
    text: &str,
) -> Result<String, Unsupported> {
    let t = &test.threads[p];
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// P{} (CTA role {}, rank {})\n__device__ __noinline__ void lt_thread_{p}(LtCtx& c, const LtParams& p) {{",
        t.id, roles.cta_of[p], roles.rank[p]
    );
    let names: BTreeMap<String, String> = k
        .locations
        .iter()
        .map(|(n, _)| (n.clone(), format!("loc_{n}")))
        .collect();
    for (l, (n, _)) in k.locations.iter().enumerate() {
        let _ = writeln!(
            s,
            "    u32* const loc_{n} = lt_loc(p, {l}u, c.inst); (void)loc_{n};"
        );
    }
    for (r, v) in registers(test, p) {
        let _ = writeln!(s, "    u32 {} = (u32)({v}LL);", reg_name(&r));
    }
    let mut labels = BTreeMap::new();
    for (i, st) in t.code.iter().enumerate() {
        if let Stmt::Label(l, span) = st {
            if labels.insert(l.clone(), i).is_some() {
                return Err(Unsupported {
                    reason: format!("label `{l}` defined twice in P{}", t.id),
                    span: *span,
                });
            }
        }
    }
    let mut used_labels = BTreeSet::new();
    for (at, st) in t.code.iter().enumerate() {
        match st {
            Stmt::Label(l, _) => {
                used_labels.insert(l.clone());
                let _ = writeln!(s, "{}: ;", label_name(l));
            }
            Stmt::Instr(i) => {
                let context = instr::Context {
                    locations: &names,
                    labels: &labels,
                    at,
                };
                let written = text
                    .get(i.span.start as usize..i.span.end as usize)
                    .unwrap_or("")
                    .trim();
                let _ = writeln!(s, "    // {written}\n    {}", instr::lower(i, &context)?);
            }
        }
    }
    for (slot, term) in k.terms.iter().enumerate() {
        if let Term::Reg(th, r) = term {
            if *th == t.id {
                let _ = writeln!(s, "    lt_out_word(c, {slot}u) = {};", reg_name(r));
            }
        }
    }
    s.push_str("}\n");
    Ok(s)
}

fn dispatch(threads: usize) -> String {
    let mut s = String::from(
        "__device__ __forceinline__ void lt_run_thread(LtCtx& c, const LtParams& p, u32 thread) {\n    switch (thread) {\n",
    );
    for p in 0..threads {
        let _ = writeln!(s, "    case {p}: lt_thread_{p}(c, p); break;");
    }
    s.push_str("    default: break;\n    }\n}\n");
    s
}

/// `lt_init_instance` (each location's initial value) and
/// `lt_collect_instance` (the locations the condition reads).
fn init_and_collect(k: &LitmusKernel) -> String {
    let mut s = String::from(
        "__device__ __forceinline__ void lt_init_instance(const LtParams& p, u32 i) {\n",
    );
    for (l, (_, v)) in k.locations.iter().enumerate() {
        let _ = writeln!(s, "    *lt_loc(p, {l}u, i) = (u32)({v}LL);");
    }
    s.push_str(
        "}\n__device__ __forceinline__ void lt_collect_instance(const LtParams& p, u32 i) {\n",
    );
    for (slot, term) in k.terms.iter().enumerate() {
        if let Term::Mem(m) = term {
            let l = k
                .locations
                .iter()
                .position(|(n, _)| n == m)
                .expect("listed");
            let _ = writeln!(
                s,
                "    lt_out[(u64)i * LT_OUT_WORDS + {slot}u] = *lt_loc(p, {l}u, i);"
            );
        }
    }
    s.push_str("}\n");
    s
}
