//! The threads' part of a state: each thread's pc, flags and locals
//! (`state::Layout` says where), read and written for the program they
//! run, and the expressions they evaluate. Every other part of the model
//! (memory, warps, the lock unit, occupancy, the properties) reads the
//! threads through this, never through the whole model.

use super::state::{self, Layout, FINISHED, FLAGS, PC, STARTED, WAITING_BARRIER, WAITING_WARP};
use super::{Violation, ViolationKind};
use crate::ir::cfg::Liveness;
use crate::ir::Participants;
use crate::ir::{ArithFault, Builtin, Expr, Loc, Op, Pc, Program};

/// The program, the state's layout, and which locals are live where.
pub struct Threads<'p> {
    pub prog: &'p Program,
    pub layout: Layout,
    liveness: Liveness,
    /// Per pc: the words of the locals dead there, counted from the first
    /// word of a thread's locals (`clear_dead_locals`, on every step).
    dead_words: Vec<Vec<u32>>,
}

impl<'p> Threads<'p> {
    /// The threads of `prog` in a state laid out as `layout` says.
    pub fn new(prog: &'p Program, layout: Layout) -> Threads<'p> {
        let liveness = Liveness::compute(&prog.code, prog.locals.len());
        let first = layout.locals_range(0).start;
        let dead_words = (0..prog.code.len() as Pc)
            .map(|pc| {
                let dead = prog
                    .locals
                    .iter()
                    .enumerate()
                    .filter(|&(l, _)| !liveness.is_live(pc, l as u32));
                dead.flat_map(|(l, local)| {
                    let w = (layout.local(0, l as u32) - first) as u32;
                    w..w + local.ty.words() as u32
                })
                .collect()
            })
            .collect();
        Threads {
            prog,
            layout,
            liveness,
            dead_words,
        }
    }

    /// Number of threads of the launch.
    pub fn count(&self) -> usize {
        self.layout.threads
    }

    pub fn pc(&self, s: &[u32], t: usize) -> Pc {
        s[self.layout.thread(t, PC)]
    }

    pub fn set_pc(&self, s: &mut [u32], t: usize, pc: Pc) {
        s[self.layout.thread(t, PC)] = pc;
    }

    pub fn is_finished(&self, s: &[u32], t: usize) -> bool {
        self.pc(s, t) == FINISHED
    }

    pub fn is_waiting_at_barrier(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & WAITING_BARRIER != 0
    }

    pub fn is_waiting_in_warp(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & WAITING_WARP != 0
    }

    /// Whether thread `t` has taken a step (recorded only under
    /// `ModelOptions::track_started`).
    pub fn has_run(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & STARTED != 0
    }

    /// Records that thread `t` has taken a step.
    pub fn mark_run(&self, s: &mut [u32], t: usize) {
        s[self.layout.thread(t, FLAGS)] |= STARTED;
    }

    /// Waiting at `__syncthreads()`, the kernel boundary or a warp collective.
    pub fn is_blocked(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & (WAITING_BARRIER | WAITING_WARP) != 0
    }

    /// Whether thread `t` runs the harness body.
    pub fn takes_part(&self, t: usize) -> bool {
        self.prog.participants == Participants::All
            || t.is_multiple_of(self.layout.threads_per_block)
    }

    /// `block 1` when one thread per block takes part, else `block 1 thread 3`
    /// (`consumer block 1 ...` for a block of one of several kernels).
    pub fn thread_name(&self, t: usize) -> String {
        let tpb = self.layout.threads_per_block;
        let block = crate::ir::block_label(&self.prog.launches, (t / tpb) as u32);
        if self.prog.participants == Participants::Master || tpb == 1 {
            block
        } else {
            format!("{block} thread {}", t % tpb)
        }
    }

    /// `line 12: `text`` for the instruction at `pc`.
    pub fn line_text(&self, pc: Pc) -> String {
        let instr = &self.prog.code[pc as usize];
        let line = self.prog.source.line_label(instr.span.start);
        if matches!(instr.op, Op::Exit) {
            return format!("the end of the harness ({line})");
        }
        let text = self.prog.source.snippet(instr.span);
        format!("{line} `{}`", text.lines().next().unwrap_or("").trim())
    }

    pub fn write_local(&self, s: &mut [u32], t: usize, l: u32, value: i64) {
        let ty = self.prog.locals[l as usize].ty;
        state::store(s, self.layout.local(t, l), ty, value);
    }

    /// Resolves a location to its word in the state, and its index.
    pub fn address(&self, s: &[u32], t: usize, loc: &Loc) -> Result<(usize, u32), Violation> {
        let index = match &loc.index {
            Some(i) => self.index(loc.var, self.eval(i, s, t)?)?,
            None => 0,
        };
        let word = self
            .layout
            .mem(self.prog, loc.var, index, self.layout.block_of(t));
        Ok((word, index))
    }

    /// `flags[1]` or `A@b0`: element `index` of `loc` as thread `t` names it.
    pub fn location_name(&self, t: usize, loc: &Loc, index: u32) -> String {
        self.prog
            .location_name(loc.var, index, self.layout.block_of(t) as u32)
    }

    /// Whether `local` may still be read at `pc`.
    pub fn is_live(&self, pc: Pc, local: u32) -> bool {
        (pc as usize) < self.prog.code.len() && self.liveness.is_live(pc, local)
    }

    /// Zeroes the locals of `t` that are dead at its pc, so states that differ
    /// only in values nobody will read again are the same state.
    pub fn clear_dead_locals(&self, s: &mut [u32], t: usize) {
        let pc = self.pc(s, t);
        let range = self.layout.locals_range(t);
        if pc == FINISHED {
            s[range].fill(0);
            return;
        }
        let first = range.start;
        for &w in &self.dead_words[pc as usize] {
            s[first + w as usize] = 0;
        }
    }

    /// Evaluates a pure expression for thread `t`.
    ///
    /// Expressions are evaluated at nearly every step (array indices,
    /// conditions, assignments), so the walk runs first with an error that
    /// carries nothing, whose result fits two registers (a `Violation` is a
    /// large value every level of the walk would copy); only an expression
    /// that fails is walked again, to say why.
    pub fn eval(&self, e: &Expr, s: &[u32], t: usize) -> Result<i64, Violation> {
        self.walk::<()>(e, s, t)
            .or_else(|()| self.walk::<Violation>(e, s, t))
    }

    /// The walk of [`eval`](Self::eval), failing with an `F`.
    fn walk<F: EvalFault>(&self, e: &Expr, s: &[u32], t: usize) -> Result<i64, F> {
        Ok(match e {
            Expr::Const(_) | Expr::Local(_) | Expr::Builtin(_) => self.operand(e, s, t)?,
            Expr::Unary(op, a) => crate::ir::eval_unary(*op, self.operand(a, s, t)?),
            Expr::Binary(op, a, b) => {
                let x = self.operand(a, s, t)?;
                let y = self.operand(b, s, t)?;
                crate::ir::eval_binary(*op, x, y).map_err(F::arith)?
            }
            Expr::Fma(f, abc) => {
                let [a, b, c] = &**abc;
                let (a, b) = (self.operand(a, s, t)?, self.operand(b, s, t)?);
                crate::ir::float::fma(*f, a, b, self.operand(c, s, t)?)
            }
            Expr::Ternary(c, a, b) => {
                if self.operand(c, s, t)? != 0 {
                    self.operand(a, s, t)?
                } else {
                    self.operand(b, s, t)?
                }
            }
            Expr::Global(var, index) => {
                let i = match index {
                    Some(i) => {
                        let v = self.operand(i, s, t)?;
                        self.checked_index(*var, v)
                            .map_err(|()| F::index(self, *var, v))?
                    }
                    None => 0,
                };
                let ty = self.prog.vars[*var as usize].ty;
                state::load(s, self.layout.mem(self.prog, *var, i, 0), ty)
            }
        })
    }

    /// An operand of `walk` (every sub-expression is read through this):
    /// a leaf (a constant, a local, a built-in) read in place, anything
    /// else walked. Most operands are leaves (`r * nblocks + blockIdx`),
    /// and a call of the walk costs more than reading one.
    #[inline(always)]
    fn operand<F: EvalFault>(&self, e: &Expr, s: &[u32], t: usize) -> Result<i64, F> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Local(l) => {
                let ty = self.prog.locals[*l as usize].ty;
                state::load(s, self.layout.local(t, *l), ty)
            }
            Expr::Builtin(b) => {
                let launch = self.prog.launch;
                let block = self.layout.block_of(t);
                let in_block = (t - block * self.layout.threads_per_block) as u32;
                i64::from(match b {
                    Builtin::BlockIdx => block as u32,
                    Builtin::ThreadIdx => in_block,
                    Builtin::LaneId => in_block % launch.warp_size,
                    Builtin::WarpId => in_block / launch.warp_size,
                })
            }
            _ => self.walk(e, s, t)?,
        })
    }

    /// Checks an array index against the variable's length.
    pub fn index(&self, var: u32, i: i64) -> Result<u32, Violation> {
        self.checked_index(var, i)
            .map_err(|()| <Violation as EvalFault>::index(self, var, i))
    }

    /// `i` as an index of `var`, if it is one.
    fn checked_index(&self, var: u32, i: i64) -> Result<u32, ()> {
        let len = self.prog.vars[var as usize].len;
        if (0..i64::from(len)).contains(&i) {
            Ok(i as u32)
        } else {
            Err(())
        }
    }
}

/// How an expression's walk fails: `()` where only success matters (the
/// first walk), a [`Violation`] that says why (the second).
trait EvalFault {
    /// A binary operator's arithmetic fault.
    fn arith(fault: ArithFault) -> Self;
    /// Index `i` is out of the bounds of `var`.
    fn index(threads: &Threads, var: u32, i: i64) -> Self;
}

impl EvalFault for () {
    fn arith(_: ArithFault) -> Self {}

    fn index(_: &Threads, _: u32, _: i64) -> Self {}
}

impl EvalFault for Violation {
    fn arith(fault: ArithFault) -> Self {
        runtime_error(&fault.to_string())
    }

    fn index(threads: &Threads, var: u32, i: i64) -> Self {
        let v = &threads.prog.vars[var as usize];
        runtime_error(&format!(
            "index {i} is out of bounds for `{}` of length {}",
            v.name, v.len
        ))
    }
}

/// An error of the spec at run time (division by zero, a negative shift
/// count, an index out of bounds).
pub(crate) fn runtime_error(message: &str) -> Violation {
    Violation {
        kind: ViolationKind::Assertion,
        property: "runtime",
        message: message.to_string(),
        pc: None,
    }
}
