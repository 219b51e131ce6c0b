//! Lockstep warps (before Volta): the reconvergence stack of each warp
//! (see the module above for the layout and the branch rules).

use super::{divergence, lane_list, BranchOrder, Warps, NO_RPC};
use crate::ir::{Op, Pc};
use crate::model::exec::StepCtx;
use crate::model::threads::{runtime_error, Threads};
use crate::model::{Event, Violation};

impl Warps {
    fn depth(&self, s: &[u32], w: usize) -> usize {
        s[self.stack_word(w)] as usize
    }

    fn entry(&self, s: &[u32], w: usize, i: usize) -> (u64, u32) {
        let at = self.stack_word(w) + 1 + 2 * i;
        (u64::from(s[at]), s[at + 1])
    }

    fn set_entry(&self, s: &mut [u32], w: usize, i: usize, (mask, rpc): (u64, u32)) {
        let at = self.stack_word(w) + 1 + 2 * i;
        s[at] = mask as u32;
        s[at + 1] = rpc;
    }

    fn push(&self, s: &mut [u32], w: usize, entry: (u64, u32)) -> Result<(), Violation> {
        let d = self.depth(s, w);
        if d >= self.depth {
            return Err(runtime_error(&format!(
                "the reconvergence stack of {} overflowed ({} entries)",
                self.name(w),
                self.depth
            )));
        }
        self.set_entry(s, w, d, entry);
        s[self.stack_word(w)] = d as u32 + 1;
        Ok(())
    }

    fn pop(&self, s: &mut [u32], w: usize) {
        let d = self.depth(s, w);
        self.set_entry(s, w, d - 1, (0, 0));
        s[self.stack_word(w)] = d as u32 - 1;
    }

    /// The active lanes of warp `w` and where they reconverge (`None`: the
    /// warp has finished).
    pub fn top_entry(&self, s: &[u32], w: usize) -> Option<(u64, Option<Pc>)> {
        let d = self.depth(s, w);
        (d > 0).then(|| {
            let (mask, rpc) = self.entry(s, w, d - 1);
            (mask, (rpc != NO_RPC).then_some(rpc))
        })
    }

    pub(crate) fn lanes_of(&self, w: usize, mask: u64) -> impl Iterator<Item = usize> + '_ {
        self.threads(w)
            .filter(move |u| mask >> self.lane_of(*u) & 1 == 1)
    }

    pub(crate) fn leader(&self, s: &[u32], w: usize) -> Option<usize> {
        let (mask, _) = self.top_entry(s, w)?;
        self.lanes_of(w, mask).next()
    }

    /// Under lockstep: the live lanes of `t`'s warp that are masked off,
    /// and the active mask (empty when not lockstep or nobody is masked off).
    pub fn masked_off(&self, th: &Threads, s: &[u32], w: usize) -> (u64, u64) {
        if !self.is_lockstep() {
            return (0, 0);
        }
        let Some((active, _)) = self.top_entry(s, w) else {
            return (0, 0);
        };
        let live = self
            .threads(w)
            .filter(|u| !th.is_finished(s, *u))
            .fold(0u64, |m, u| m | 1 << self.lane_of(u));
        (live & !active, active)
    }

    /// Under lockstep: `t` is live but not among its warp's active lanes.
    pub fn is_masked_off(&self, th: &Threads, s: &[u32], t: usize) -> bool {
        let (off, _) = self.masked_off(th, s, self.warp_of(t));
        off >> self.lane_of(t) & 1 == 1
    }

    /// The initial stacks: every taking-part lane active, never reconverging.
    pub(crate) fn init_stacks(&self, th: &Threads, s: &mut [u32]) {
        for w in 0..self.count(th.layout.threads) {
            let mask = self
                .threads(w)
                .filter(|u| !th.is_finished(s, *u))
                .fold(0u64, |m, u| m | 1 << self.lane_of(u));
            if mask != 0 {
                self.push(s, w, (mask, NO_RPC))
                    .expect("an empty stack has room");
            }
        }
    }

    /// A collective under lockstep: every live lane it names must be active.
    pub(crate) fn lockstep_collective(
        &self,
        th: &Threads,
        s: &mut [u32],
        (w, active): (usize, u64),
        (lanes, pc): (&[usize], Pc),
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        if let Op::ActiveMask { dst } = th.prog.code[pc as usize].op {
            for &u in lanes {
                th.write_local(s, u, dst, active as i64);
            }
        } else {
            let (masked_off, _) = self.masked_off(th, s, w);
            for &u in lanes {
                let named = self.named_lanes(th, s, u)?;
                if named & masked_off != 0 {
                    return Err(divergence(format!(
                        "{} executes {} naming lanes {} of {}, which are masked off by a divergent branch: they cannot take part",
                        th.thread_name(u),
                        th.line_text(pc),
                        lane_list(named & masked_off),
                        self.name(w)
                    )));
                }
            }
            self.finish_collective(th, s, lanes, active)?;
        }
        for &u in lanes {
            th.set_pc(s, u, pc + 1);
            let event = ctx.events.as_ref().map(|_| Event {
                thread: u as u32,
                pc,
                ..Event::default()
            });
            ctx.push(event);
        }
        Ok(())
    }

    /// After the active lanes (`mask`) ran the instruction at `pc`: a
    /// branch they disagreed on splits them, lanes that exited leave every
    /// entry, and entries whose lanes reached their reconvergence point
    /// are popped.
    pub(crate) fn after_instruction(
        &self,
        th: &Threads,
        s: &mut [u32],
        w: usize,
        (mask, pc): (u64, Pc),
    ) -> Result<(), Violation> {
        match th.prog.code[pc as usize].op {
            Op::Branch {
                then_pc, else_pc, ..
            } => self.diverge(th, s, w, mask, (pc, then_pc, else_pc))?,
            Op::Exit => self.drop_finished(th, s, w),
            _ => {}
        }
        self.reconverge(th, s, w);
        Ok(())
    }

    /// Splits the active lanes `mask` after the branch at `pc` (to
    /// `then_pc` or `else_pc`) if they disagreed on it.
    fn diverge(
        &self,
        th: &Threads,
        s: &mut [u32],
        w: usize,
        mask: u64,
        (pc, then_pc, else_pc): (Pc, Pc, Pc),
    ) -> Result<(), Violation> {
        let side = |target: Pc| {
            self.lanes_of(w, mask)
                .filter(|u| th.pc(s, *u) == target)
                .fold(0u64, |m, u| m | 1 << self.lane_of(u))
        };
        let (taken, fallen) = (side(then_pc), side(else_pc));
        if then_pc == else_pc || taken == 0 || fallen == 0 {
            return Ok(());
        }
        let r = self.ipdom[pc as usize].unwrap_or(NO_RPC);
        let (_, rpc) = self.entry(s, w, self.depth(s, w) - 1);
        if r == rpc {
            self.pop(s, w);
        }
        let (first, second) = match self.order {
            BranchOrder::ThenFirst => ((taken, then_pc), (fallen, else_pc)),
            BranchOrder::ElseFirst => ((fallen, else_pc), (taken, then_pc)),
        };
        for (lanes, at) in [second, first] {
            if at != r {
                self.push(s, w, (lanes, r))?;
            }
        }
        Ok(())
    }

    /// Pops the entries whose lanes reached their reconvergence point.
    pub(crate) fn reconverge(&self, th: &Threads, s: &mut [u32], w: usize) {
        while let Some((mask, Some(rpc))) = self.top_entry(s, w) {
            let lead = self.lanes_of(w, mask).next();
            match lead {
                Some(u) if th.pc(s, u) != rpc => break,
                _ => self.pop(s, w),
            }
        }
    }

    /// Removes finished lanes from every entry, and entries left empty.
    fn drop_finished(&self, th: &Threads, s: &mut [u32], w: usize) {
        let live = self
            .threads(w)
            .filter(|u| !th.is_finished(s, *u))
            .fold(0u64, |m, u| m | 1 << self.lane_of(u));
        let entries: Vec<(u64, u32)> = (0..self.depth(s, w))
            .map(|i| self.entry(s, w, i))
            .filter_map(|(m, r)| (m & live != 0).then_some((m & live, r)))
            .collect();
        while self.depth(s, w) > 0 {
            self.pop(s, w);
        }
        for e in entries {
            self.push(s, w, e).expect("no deeper than before");
        }
    }
}
