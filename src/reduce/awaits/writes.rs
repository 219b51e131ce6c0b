//! The values a location may still be given: what the outcome test of
//! `awaits` (a poll whose outcome no value changes) must try besides the
//! writes already made.

use crate::ir::{Expr, Op, Pc, Program};
use crate::model::facts::{pure_locals, RefinedFlow};
use crate::model::state::{FINISHED, PC};
use crate::model::threads::Threads;
use crate::model::Model;

/// Every instruction that writes each variable, with the value it writes
/// where that is the same every time a given thread runs it, and which of
/// them each thread may still reach.
pub(super) struct FutureWrites {
    /// Per variable: the writing instructions, each with its value
    /// (`None`: a read-modify-write, or a value computed from locals).
    writers: Vec<Vec<(Pc, Option<Expr>)>>,
    /// Per thread that runs: its refined control flow, and per node of it
    /// the writing instructions reachable from there (itself included), a
    /// bit set of `words` words by pc.
    threads: Vec<Option<(RefinedFlow, Vec<u64>)>>,
    words: usize,
}

impl FutureWrites {
    pub(super) fn of(model: &Model) -> FutureWrites {
        let prog = model.prog;
        let mut writers = vec![Vec::new(); prog.vars.len()];
        for (pc, instr) in prog.code.iter().enumerate() {
            let value = match &instr.op {
                Op::Store { value, .. } => thread_constant(value).then(|| value.clone()),
                Op::Atomic { .. } => None,
                _ => continue,
            };
            let access = instr.op.access().expect("stores and atomics access memory");
            writers[access.loc.var as usize].push((pc as Pc, value));
        }
        let words = prog.code.len().div_ceil(64);
        let layout = &model.threads.layout;
        let mut init = vec![0u32; layout.words()];
        layout.initial(prog, &mut init);
        let pure = pure_locals(prog);
        let threads = (0..layout.threads)
            .map(|t| {
                (init[layout.thread(t, PC)] != FINISHED).then(|| {
                    let flow = RefinedFlow::for_thread(model, &init, t, &pure);
                    let reach = reachable_writes(prog, &flow, words);
                    (flow, reach)
                })
            })
            .collect();
        FutureWrites {
            writers,
            threads,
            words,
        }
    }

    /// Whether every write of variable `var` writes a value known per
    /// thread (no load of it can be blind otherwise).
    pub(super) fn all_known(&self, var: usize) -> bool {
        self.writers[var].iter().all(|(_, value)| value.is_some())
    }

    /// Pushes onto `out` every value (as the language's number) that some
    /// thread may still write to variable `var`, as seen from thread `t`
    /// in `s`: `t`'s own writes still reachable on its refined control
    /// flow, and every write of the other threads wherever they are (so
    /// the answer does not change with their steps, which the ample sets
    /// may take as independent of this one). `false` where a value is not
    /// known (a read-modify-write, or a value computed from locals).
    pub(super) fn values(
        &self,
        th: &Threads,
        s: &[u32],
        t: usize,
        var: usize,
        out: &mut Vec<i64>,
    ) -> bool {
        let own = self.threads[t].as_ref().and_then(|(flow, reach)| {
            let n = flow.node(th, s)?;
            Some(&reach[n * self.words..(n + 1) * self.words])
        });
        for (pc, value) in &self.writers[var] {
            let Some(value) = value else {
                return false;
            };
            let own_reaches = own.is_none_or(|row| row[*pc as usize / 64] & 1 << (pc % 64) != 0);
            for u in 0..th.layout.threads {
                if u == t && !own_reaches {
                    continue;
                }
                match th.eval(value, s, u) {
                    Ok(v) => out.push(v),
                    Err(_) => return false,
                }
            }
        }
        true
    }
}

/// Per node of `flow`, the writing instructions reachable from it.
fn reachable_writes(prog: &Program, flow: &RefinedFlow, words: usize) -> Vec<u64> {
    flow.solve_backward(
        words,
        0,
        |a, b| a | b,
        |pc, row| {
            if matches!(
                prog.code[pc as usize].op,
                Op::Store { .. } | Op::Atomic { .. }
            ) {
                row[pc as usize / 64] |= 1 << (pc % 64);
            }
        },
    )
}

/// Whether `e` has the same value whenever one thread evaluates it: built
/// from constants and the thread's ids only.
fn thread_constant(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Builtin(_) => true,
        Expr::Local(_) | Expr::Global(..) => false,
        Expr::Unary(_, a) => thread_constant(a),
        Expr::Binary(_, a, b) => thread_constant(a) && thread_constant(b),
        Expr::Ternary(c, a, b) => thread_constant(c) && thread_constant(a) && thread_constant(b),
        Expr::Fma(_, abc) => abc.iter().all(thread_constant),
    }
}
