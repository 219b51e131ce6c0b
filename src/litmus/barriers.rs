//! A litmus test's barriers on the model. When every thread of each CTA
//! passes the same whole-CTA `bar.sync` sequence (`check_barriers`), each
//! is the IR's `__syncthreads()`, as before named barriers existed (and as
//! the GPU runner needs). Otherwise every barrier is a named barrier of the
//! model (`model::bars`), read as in Dat3M's PTX litmus tests:
//!
//! - `bar.cta.sync a` is barrier `a`; `bar.cta.sync a, b` is barrier
//!   `(a, b)` (Dat3M's logical id `b`: threads naming `1, 1` and `1, 2`
//!   do not meet); `bar.cta.sync a, b, q` is barrier `(a, b)` with quorum
//!   `q`: an instance completes once `q` threads have arrived;
//! - without a quorum, an instance waits for every thread of the CTA that
//!   names the barrier anywhere in its code;
//! - `bar.cta.arrive` takes the same operands and does not wait.

use super::decode::{unsupported, Unsupported};
use super::parse::{Instr, Litmus, Operand, Stmt, Thread};
use crate::ir::{Expr, Op};
use std::collections::BTreeMap;

/// A barrier as the test names it: its id and Dat3M's logical id.
type Identity = (i64, Option<i64>);

/// How the test's barriers become instructions.
pub(crate) enum Plan {
    /// Every barrier is block-wide: `__syncthreads()`.
    Whole,
    /// Named barriers: the model id of each identity, and per CTA
    /// (gpu, cta) and identity how many of its threads name it.
    Named {
        ids: BTreeMap<Identity, u32>,
        users: BTreeMap<((u32, u32), Identity), i64>,
    },
}

/// The plan for `test`'s barriers.
pub(crate) fn plan(test: &Litmus) -> Result<Plan, Unsupported> {
    if check_barriers(test).is_ok() {
        return Ok(Plan::Whole);
    }
    let mut ids = BTreeMap::new();
    let mut users = BTreeMap::new();
    for t in &test.threads {
        let mut named = Vec::new();
        for s in &t.code {
            if let Stmt::Instr(i) = s {
                if is_barrier(i) {
                    let (identity, _, _) = operands(i)?;
                    named.push(identity);
                }
            }
        }
        named.sort_unstable();
        named.dedup();
        for identity in named {
            let next = ids.len() as u32 + 1;
            ids.entry(identity).or_insert(next);
            *users.entry(((t.gpu, t.cta), identity)).or_insert(0) += 1;
        }
    }
    Ok(Plan::Named { ids, users })
}

/// Whether `instr` is a barrier (`bar` or `barrier`).
pub(crate) fn is_barrier(instr: &Instr) -> bool {
    matches!(
        instr.opcode.first().map(String::as_str),
        Some("bar" | "barrier")
    )
}

/// The identity, quorum and `arrive` of a barrier instruction.
fn operands(instr: &Instr) -> Result<(Identity, Option<i64>, bool), Unsupported> {
    let words: Vec<&str> = instr.opcode[1..].iter().map(String::as_str).collect();
    let arrive = match words.as_slice() {
        ["sync"] | ["cta", "sync"] => false,
        ["arrive"] | ["cta", "arrive"] => true,
        _ => {
            return instr.refuse(format!(
                "`{}`: only bar.sync and bar.arrive are modelled",
                instr.text()
            ))
        }
    };
    let mut values = Vec::new();
    for o in &instr.operands {
        match o {
            Operand::Imm(v) => values.push(*v),
            _ => return instr.refuse("barrier operands in registers are not modelled"),
        }
    }
    match values.as_slice() {
        [a] => Ok(((*a, None), None, arrive)),
        [a, b] => Ok(((*a, Some(*b)), None, arrive)),
        [a, b, q] if *q >= 1 => Ok(((*a, Some(*b)), Some(*q), arrive)),
        [_, _, q] => instr.refuse(format!("a barrier quorum of {q}: at least 1 thread")),
        _ => instr.refuse("a barrier takes 1 to 3 operands (id, logical id, quorum)"),
    }
}

impl Plan {
    /// The instruction for barrier `instr` of a thread of CTA `cta` (gpu, cta).
    pub(crate) fn op(&self, cta: (u32, u32), instr: &Instr) -> Result<Op, Unsupported> {
        match self {
            Plan::Whole => Ok(Op::SyncThreads),
            Plan::Named { ids, users } => {
                let (identity, quorum, arrive) = operands(instr)?;
                let count = quorum.unwrap_or(users[&(cta, identity)]);
                Ok(Op::NamedBarrier {
                    id: ids[&identity],
                    count: Some(Expr::Const(count)),
                    arrive,
                })
            }
        }
    }
}

/// Checks that every `bar.sync` can be the IR's block-wide `__syncthreads()`:
/// a constant barrier id, no thread count other than the whole CTA, not
/// inside a loop or skipped by a branch, and every thread of the CTA passes
/// the same sequence of barrier ids (so no barrier synchronises a subset of
/// the block).
pub(crate) fn check_barriers(test: &Litmus) -> Result<(), Unsupported> {
    let mut by_cta: BTreeMap<u32, Vec<(usize, Vec<i64>)>> = BTreeMap::new();
    for t in &test.threads {
        let cta_size = test.threads.iter().filter(|o| o.cta == t.cta).count() as i64;
        let ids = barrier_ids(t, cta_size)?;
        by_cta.entry(t.cta).or_default().push((t.id, ids));
    }
    for members in by_cta.values() {
        let first = &members[0].1;
        if let Some((t, _)) = members.iter().find(|(_, ids)| ids != first) {
            return unsupported(
                test.threads[*t].span,
                "the threads of this CTA pass different barrier sequences: a named barrier for part of a block has no IR counterpart",
            );
        }
    }
    Ok(())
}

/// The ids of the barriers thread `t` (of a CTA of `cta_size` threads)
/// passes, in order, each one checked to be a whole-CTA `bar.sync`.
fn barrier_ids(t: &Thread, cta_size: i64) -> Result<Vec<i64>, Unsupported> {
    let instrs: Vec<&Instr> = t
        .code
        .iter()
        .filter_map(|s| match s {
            Stmt::Instr(i) => Some(i),
            Stmt::Label(..) => None,
        })
        .collect();
    // The index (among the instructions) each label stands before.
    let mut labels = BTreeMap::new();
    let mut n = 0;
    for s in &t.code {
        match s {
            Stmt::Label(l, _) => {
                labels.insert(l.as_str(), n);
            }
            Stmt::Instr(_) => n += 1,
        }
    }
    let mut ids = vec![];
    for (i, instr) in instrs.iter().enumerate() {
        if !is_barrier(instr) {
            continue;
        }
        let id = block_wide_barrier(instr, cta_size)?;
        if jumps_across(&instrs, &labels, i) {
            return instr.refuse("barrier inside a loop or behind a branch: its instances cannot be matched statically");
        }
        ids.push(id);
    }
    Ok(ids)
}

/// The id of a `bar.sync` over the whole CTA; any other barrier is refused.
fn block_wide_barrier(instr: &Instr, cta_size: i64) -> Result<i64, Unsupported> {
    let kind = instr.opcode.get(1).map(String::as_str);
    let kind = if kind == Some("cta") {
        instr.opcode.get(2).map(String::as_str)
    } else {
        kind
    };
    if kind != Some("sync") {
        return instr.refuse(format!(
            "`{}`: only bar.sync has an IR counterpart (__syncthreads)",
            instr.text()
        ));
    }
    let id = match instr.operands.first() {
        Some(Operand::Imm(v)) => *v,
        Some(_) => {
            return instr
                .refuse("barrier id in a register: the IR has only the block-wide __syncthreads")
        }
        None => 0,
    };
    match &instr.operands[1.min(instr.operands.len())..] {
        [] => Ok(id),
        [Operand::Imm(c)] if *c == cta_size => Ok(id),
        [Operand::Imm(c)] => instr.refuse(format!(
            "named barrier for {c} of the CTA's {cta_size} threads: the IR has only the block-wide __syncthreads"
        )),
        _ => instr.refuse("barrier with a register thread count or extra operands (quorum form)"),
    }
}

/// Whether some jump of `instrs` crosses instruction `i` (a backward jump
/// over it: a loop; a forward one: a branch around it).
fn jumps_across(instrs: &[&Instr], labels: &BTreeMap<&str, usize>, i: usize) -> bool {
    instrs.iter().enumerate().any(|(j, other)| {
        let target = match (other.opcode[0].as_str(), other.operands.last()) {
            ("goto" | "bra" | "beq" | "bne", Some(Operand::Name(l))) => {
                labels.get(l.as_str()).copied()
            }
            _ => None,
        };
        target.is_some_and(|k| {
            if k <= j {
                k <= i && i < j
            } else {
                j < i && i < k
            }
        })
    })
}
