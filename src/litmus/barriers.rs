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

use super::decode::Unsupported;
use super::parse::{Instr, Litmus, Operand, Stmt};
use super::translate::check_barriers;
use crate::ir::{Expr, Op};
use std::collections::BTreeMap;

/// A barrier as the test names it: its id and Dat3M's logical id.
type Identity = (i64, Option<i64>);

/// How the test's barriers become instructions.
pub enum Plan {
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
pub fn plan(test: &Litmus) -> Result<Plan, Unsupported> {
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
pub fn is_barrier(instr: &Instr) -> bool {
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
    pub fn op(&self, cta: (u32, u32), instr: &Instr) -> Result<Op, Unsupported> {
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
