//! The emitted harness kernel on the GPU: compiled with NVRTC, launched
//! once to warm up and then timed under a watchdog (a hung launch has its
//! spin loops told to stop through the abort flag), and what the device
//! counted (`gs_stats`) turned into the checks of the program's properties.

use super::device::{launch_and_wait, Ended, Gpu, GpuError, Mapped, Module};
use super::emit::Emitted;
use super::nvrtc;
use crate::ir::Program;
use serde::{Deserialize, Serialize};
use std::ffi::c_void;
use std::time::Duration;

/// How a run on the GPU ended (`outcome` in reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// Every launch finished by itself.
    Completed,
    /// A launch was still running at the timeout; its spin loops left on
    /// the abort flag.
    Hung,
    /// A launch was still running at the timeout and did not drain: it
    /// holds the GPU until the process exits.
    HungUndrained,
    /// Not launched: the model check found a violation.
    Refused,
}

impl Outcome {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Hung => "hung",
            Outcome::HungUndrained => "hung_undrained",
            Outcome::Refused => "refused",
        }
    }
}

/// One property checked on the device.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct DeviceCheck {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

impl DeviceCheck {
    fn new(name: &str, passed: bool, detail: String) -> DeviceCheck {
        DeviceCheck {
            name: name.into(),
            passed,
            detail,
        }
    }
}

/// The kernel times of a series of launches.
#[derive(Clone, Debug, Default)]
pub(crate) struct Timed {
    /// Kernel times of the timed launches, ms.
    pub launch_ms: Vec<f64>,
    /// `Some(drained)` when a launch hung (the series stopped there).
    pub hung: Option<bool>,
}

impl Timed {
    /// Launches once to warm up and `repeats` times timed (one timed launch
    /// when `repeats` is 0); stops at the first launch that hangs.
    pub(crate) fn run(
        repeats: u32,
        mut launch: impl FnMut() -> Result<Ended, GpuError>,
    ) -> Result<Timed, GpuError> {
        let mut timed = Timed::default();
        for launch_no in 0..=repeats {
            match launch()? {
                Ended::Completed { ms } => {
                    if launch_no > 0 || repeats == 0 {
                        timed.launch_ms.push(ms);
                    }
                }
                Ended::Hung { drained } => {
                    timed.hung = Some(drained);
                    break;
                }
            }
        }
        Ok(timed)
    }

    pub(crate) fn outcome(&self) -> Outcome {
        match self.hung {
            None => Outcome::Completed,
            Some(true) => Outcome::Hung,
            Some(false) => Outcome::HungUndrained,
        }
    }

    /// The median kernel time, ms (the upper one of an even count).
    pub(crate) fn median_ms(&self) -> f64 {
        let mut ms = self.launch_ms.clone();
        ms.sort_by(f64::total_cmp);
        ms[ms.len() / 2]
    }
}

/// What the harness counts on the device (the prelude's `GsStats`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stats {
    /// Critical sections counted with a plain load and store.
    pub cs_count: u32,
    /// Critical sections counted atomically.
    pub cs_entries: u32,
    pub max_occupancy: u32,
    pub phase_errors: u32,
    pub assert_failures: u32,
    /// 1 + the index of the first failed `assert`, or 0.
    pub first_assert: u32,
    /// Participants that entered a critical section, and the fewest and
    /// most sections one of them entered.
    pub entered: Entered,
}

/// How the critical sections spread over the participants that entered.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entered {
    pub threads: u32,
    pub min: u32,
    pub max: u32,
}

impl Entered {
    fn of(counts: &[u32]) -> Entered {
        let entered = counts.iter().copied().filter(|&n| n > 0);
        Entered {
            threads: entered.clone().count() as u32,
            min: entered.clone().min().unwrap_or(0),
            max: entered.max().unwrap_or(0),
        }
    }
}

impl Stats {
    fn read(module: &Module) -> Result<Stats, GpuError> {
        let w = module.read_words("gs_stats", 7)?;
        let participants = module.read_words("gs_participants", 1)?[0] as usize;
        let entered = Entered::of(&module.read_words("gs_entered", participants)?);
        // w[2] is the occupancy at the end, 0 once every section has left.
        Ok(Stats {
            cs_count: w[0],
            cs_entries: w[1],
            max_occupancy: w[3],
            phase_errors: w[4],
            assert_failures: w[5],
            first_assert: w[6],
            entered,
        })
    }
}

/// An emitted harness compiled for one GPU.
pub(crate) struct Harness<'g> {
    gpu: &'g Gpu,
    ptx: String,
    kernel: &'static str,
}

/// The runs of a harness: how they ended and what the last one counted.
#[derive(Clone, Debug, Default)]
pub(crate) struct HarnessRun {
    pub timed: Timed,
    /// Blocks that finished in the last launch.
    pub blocks_finished: u32,
    /// The counts of the last completed launch.
    pub stats: Stats,
}

impl<'g> Harness<'g> {
    /// Compiles `emitted` for `gpu`; `file` names it in NVRTC's messages.
    pub(crate) fn compile(
        gpu: &'g Gpu,
        emitted: &Emitted,
        file: &str,
    ) -> Result<Harness<'g>, GpuError> {
        let ptx = nvrtc::compile(&emitted.source, file, &gpu.arch()).map_err(GpuError::Program)?;
        Ok(Harness {
            gpu,
            ptx,
            kernel: emitted.kernel,
        })
    }

    /// Resident blocks per SM the compiled kernel allows at `threads`.
    pub(crate) fn max_blocks_per_sm(&self, threads: u32) -> Result<u32, GpuError> {
        let module = self.gpu.load(&self.ptx)?;
        let f = module.function(self.kernel)?;
        self.gpu.max_blocks_per_sm(&f, threads)
    }

    /// Launches `blocks` blocks of `threads` once to warm up and `repeats`
    /// times timed, each with `timeout` before its spin loops are told to
    /// stop.
    pub(crate) fn run(
        &self,
        blocks: u32,
        threads: u32,
        repeats: u32,
        timeout: Duration,
    ) -> Result<HarnessRun, GpuError> {
        let mut run = HarnessRun::default();
        run.timed = Timed::run(repeats, || {
            let (ended, finished, stats) = self.launch(blocks, threads, timeout)?;
            run.blocks_finished = finished;
            run.stats = stats.unwrap_or(run.stats);
            Ok(ended)
        })?;
        Ok(run)
    }

    /// One launch: how it ended, the blocks that finished, and the counts
    /// when it completed.
    fn launch(
        &self,
        blocks: u32,
        threads: u32,
        timeout: Duration,
    ) -> Result<(Ended, u32, Option<Stats>), GpuError> {
        let module = self.gpu.load(&self.ptx)?;
        let f = module.function(self.kernel)?;
        let abort = Mapped::new(1)?;
        let finished = Mapped::new(blocks as usize)?;
        let mut abort_ptr = abort.device;
        let mut finished_ptr = finished.device;
        let mut args = [
            &mut abort_ptr as *mut _ as *mut c_void,
            &mut finished_ptr as *mut _ as *mut c_void,
        ];
        let ended = launch_and_wait(
            &f,
            blocks,
            threads,
            &mut args,
            false,
            Some(&abort),
            timeout,
            Duration::from_secs(3),
        )?;
        let done = (0..blocks as usize)
            .filter(|&b| finished.get(b) == 1)
            .count() as u32;
        let stats = match ended {
            Ended::Completed { .. } => Some(Stats::read(&module)?),
            Ended::Hung { drained: true } => None,
            Ended::Hung { drained: false } => {
                // The kernel still holds the GPU: leave everything as is
                // and let the process exit tear the context down.
                std::mem::forget(module);
                std::mem::forget(abort);
                std::mem::forget(finished);
                None
            }
        };
        Ok((ended, done, stats))
    }
}

/// The check a hung run fails: how far it got before the timeout.
pub(crate) fn termination_failed(
    timeout: Duration,
    finished: u32,
    blocks: u32,
    drained: bool,
) -> DeviceCheck {
    DeviceCheck::new(
        "termination",
        false,
        format!(
            "no progress after {:.1} s: {finished} of {blocks} blocks finished{}",
            timeout.as_secs_f64(),
            if drained {
                "; the rest left their spin loops on the abort flag"
            } else {
                "; the kernel did not drain after the abort flag"
            }
        ),
    )
}

/// What a completed run is checked against.
pub(crate) struct Expected<'a> {
    pub program: &'a Program,
    /// Threads that run the spec.
    pub participants: u32,
    /// Operations per participant.
    pub iters: i64,
    pub blocks: u32,
    /// The message of each `assert`, by the index the device reports.
    pub asserts: &'a [String],
}

/// The device checks of a completed run: termination, then each property
/// the program asks for.
pub(crate) fn device_checks(e: &Expected, finished: u32, s: &Stats) -> Vec<DeviceCheck> {
    let blocks = e.blocks;
    let mut checks = vec![DeviceCheck::new(
        "termination",
        finished == blocks,
        format!("{finished} of {blocks} blocks finished"),
    )];
    let c = &e.program.checks;
    if let Some(cap) = c.capacity {
        checks.extend(capacity_checks(e, cap, s));
    }
    if c.barrier {
        checks.push(DeviceCheck::new(
            "barrier phases",
            s.phase_errors == 0,
            format!(
                "{} times a participant left phase k before another had entered it ({} participants x {} phases, one phase in 8 checked)",
                s.phase_errors, e.participants, e.iters
            ),
        ));
    }
    if !e.asserts.is_empty() {
        let first = (s.first_assert > 0)
            .then(|| e.asserts.get(s.first_assert as usize - 1).cloned())
            .flatten()
            .map(|m| format!("; first: {m}"))
            .unwrap_or_default();
        checks.push(DeviceCheck::new(
            "assertions",
            s.assert_failures == 0,
            format!("{} failed{first}", s.assert_failures),
        ));
    }
    if !c.invariants.is_empty() {
        checks.push(DeviceCheck::new(
            "invariants",
            true,
            "`check invariant` is checked by the model only, not on the device".into(),
        ));
    }
    checks
}

/// Mutual exclusion (capacity 1), capacity and the number of sections.
fn capacity_checks(e: &Expected, cap: i64, s: &Stats) -> Vec<DeviceCheck> {
    let mut checks = Vec::new();
    if cap == 1 {
        checks.push(DeviceCheck::new(
            "mutual exclusion",
            s.cs_count == s.cs_entries,
            format!(
                "non-atomic counter {}, atomic count {} of critical sections",
                s.cs_count, s.cs_entries
            ),
        ));
    }
    checks.push(DeviceCheck::new(
        "capacity",
        i64::from(s.max_occupancy) <= cap,
        format!(
            "at most {} inside at once (capacity {cap})",
            s.max_occupancy
        ),
    ));
    checks.push(operations_check(e.participants, e.iters, s));
    checks
}

/// Every participant entered `iters` sections; or, where the section is
/// guarded (HeteroSync's block masters run it for the whole block), every
/// participant that entered one entered `iters`.
fn operations_check(participants: u32, iters: i64, s: &Stats) -> DeviceCheck {
    let expected = i64::from(participants) * iters;
    let sections = i64::from(s.cs_entries);
    let Entered { threads, min, max } = s.entered;
    let each = i64::from(min) == iters && min == max;
    let guarded = threads < participants && threads > 0 && each;
    let (ok, detail) = if sections == expected && (threads == participants || participants == 0) {
        (
            true,
            format!("{sections} critical sections, expected {participants} x {iters} = {expected}"),
        )
    } else if guarded && sections == i64::from(threads) * iters {
        (true, format!("{sections} critical sections: {threads} of {participants} participants entered, {iters} times each; the others never reached the (guarded) section"))
    } else {
        (false, format!("{sections} critical sections, expected {iters} per participant that enters ({participants} x {iters} = {expected} if all do): {threads} entered, between {min} and {max} times each"))
    };
    DeviceCheck::new("operations", ok, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(participants: u32, iters: i64, counts: &[u32]) -> bool {
        let s = Stats {
            cs_entries: counts.iter().sum(),
            entered: Entered::of(counts),
            ..Stats::default()
        };
        operations_check(participants, iters, &s).passed
    }

    #[test]
    fn operations_count_every_participant_or_the_ones_a_guard_lets_in() {
        // Every participant, `iters` sections each.
        assert!(ops(4, 2, &[2, 2, 2, 2]));
        // HeteroSync's block masters run the section for their blocks.
        assert!(ops(4, 2, &[2, 0, 2, 0]));
        // A lost iteration, an extra one, or nobody at all fails.
        assert!(!ops(4, 2, &[2, 1, 2, 2]));
        assert!(!ops(4, 2, &[2, 0, 3, 0]));
        assert!(!ops(4, 2, &[0, 0, 0, 0]));
    }
}
