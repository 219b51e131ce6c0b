//! Unique C++ names for what the spec names: its parameters (kept as
//! written, initial values refer to them), memory, procedures and
//! thread-local slots, none of them a C++ word or a name the prelude uses.

use crate::ir::Program;
use std::collections::{BTreeSet, HashMap};

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
pub(super) struct Names {
    used: BTreeSet<String>,
    pub vars: Vec<String>,
    /// Names of the spec's `local` variables (GsThread fields) and of
    /// every other slot, unique over the whole file.
    pub locals: Vec<String>,
    /// Function name of each procedure.
    pub procs: HashMap<String, String>,
    /// What a function's own names must not be: launch constants,
    /// parameters, memory and procedures.
    pub globals: BTreeSet<String>,
}

/// A C++ name for `name` not in `used` (then added to it).
pub(super) fn fresh_in(used: &mut BTreeSet<String>, name: &str) -> String {
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
    pub(super) fn new(program: &Program) -> Names {
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

    fn fresh(&mut self, name: &str) -> String {
        fresh_in(&mut self.used, name)
    }
}
