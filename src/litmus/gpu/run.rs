//! One test on the GPU: compile its program, then for every environment
//! launch it again and again (reset, test, collect on one stream), read the
//! output rows back and count the final outcomes. A program NVRTC or the
//! driver refuses is a [`GpuError::Program`] (a harness bug for this test);
//! a launch that never ends, [`GpuError::Wedged`] (the run must stop).

use super::super::parse::{Litmus, Term};
use super::super::{eval, render_outcome};
use super::compare::{EnvRun, OutcomeCount};
use super::emit::LitmusKernel;
use super::layout::{Geometry, Roles};
use super::stress::{draw, Environment, LaunchParams, Rng};
use crate::cuda::device::{Gpu, GpuError, Module, Stream};
use crate::cuda::nvrtc;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// How much to run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RunOptions {
    /// Launches per environment.
    pub launches: u32,
    /// Blocks per SM launched (at most what the kernel's occupancy allows:
    /// every block must be resident, spin loops wait across blocks).
    pub blocks_per_sm: u32,
    pub threads_per_block: u32,
    /// Most instances a block serves for one CTA role.
    pub max_slots: u32,
    /// A spin loop gives up this long after its thread started, µs.
    pub budget_us: u32,
    pub seed: u64,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            launches: 200,
            blocks_per_sm: 4,
            threads_per_block: 256,
            max_slots: 64,
            budget_us: 20_000,
            seed: 1,
        }
    }
}

/// Up to this many terms make an outcome key.
const MAX_TERMS: usize = 16;

type Key = [u32; MAX_TERMS];

/// Counts of one environment's outcomes while its launches run (a test
/// has a few distinct outcomes: a linear search over them beats hashing
/// every row).
struct Tally {
    counts: Vec<(Key, u64, u64)>,
    instances: u64,
    unfinished: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            counts: Vec::new(),
            instances: 0,
            unfinished: 0,
        }
    }

    /// Adds the rows of one launch: `terms` values, then per litmus thread
    /// its status and its SM; `cta_of` says which threads share a CTA.
    fn add(&mut self, rows: &[u32], terms: usize, cta_of: &[u32]) {
        let threads = cta_of.len();
        let width = terms + 2 * threads;
        for row in rows.chunks_exact(width) {
            self.instances += 1;
            if row[terms..terms + threads].iter().any(|&s| s != 1) {
                self.unfinished += 1;
                continue;
            }
            let sms = &row[terms + threads..];
            let spread = sms.iter().any(|&s| s != sms[0]);
            let at = match self
                .counts
                .iter()
                .position(|(k, ..)| k[..terms] == row[..terms])
            {
                Some(i) => i,
                None => {
                    let mut key = [0u32; MAX_TERMS];
                    key[..terms].copy_from_slice(&row[..terms]);
                    self.counts.push((key, 0, 0));
                    self.counts.len() - 1
                }
            };
            let e = &mut self.counts[at];
            if spread {
                e.2 += 1;
            } else {
                e.1 += 1;
            }
        }
    }

    fn outcomes(&self, test: &Litmus, terms: &[Term]) -> Vec<OutcomeCount> {
        let mut out: Vec<OutcomeCount> = self
            .counts
            .iter()
            .map(|&(key, one, several)| {
                let values: BTreeMap<Term, i64> = terms
                    .iter()
                    .zip(key.iter())
                    .map(|(t, &v)| (t.clone(), i64::from(v as i32)))
                    .collect();
                OutcomeCount {
                    outcome: render_outcome(&values),
                    condition: eval(&test.condition, &values),
                    one_sm: one,
                    several_sms: several,
                }
            })
            .collect();
        out.sort_by(|a, b| a.outcome.cmp(&b.outcome));
        out
    }
}

/// A compiled test, ready to launch.
struct Loaded {
    module: Module,
    blocks: u32,
}

fn load(gpu: &Gpu, kernel: &LitmusKernel, name: &str, o: &RunOptions) -> Result<Loaded, GpuError> {
    let ptx = nvrtc::compile(&kernel.source, &format!("{name}.cu"), &gpu.arch())
        .map_err(GpuError::Program)?;
    let module = gpu
        .load(&ptx)
        .map_err(|e| GpuError::Program(e.to_string()))?;
    let per_sm = {
        let f = module.function("litmus_test")?;
        gpu.max_blocks_per_sm(&f, o.threads_per_block)?
    };
    let blocks = gpu.sms * o.blocks_per_sm.min(per_sm);
    if blocks == 0 {
        return Err(GpuError::Program(format!(
            "no block of {} threads fits on an SM",
            o.threads_per_block
        )));
    }
    Ok(Loaded { module, blocks })
}

/// One launch: reset, test, collect; then the output rows.
fn launch(
    l: &Loaded,
    stream: &Stream,
    p: &LaunchParams,
    g: &Geometry,
    words: usize,
    timeout: Duration,
) -> Result<Vec<u32>, GpuError> {
    let init = l.module.function("litmus_init")?;
    let test = l.module.function("litmus_test")?;
    let collect = l.module.function("litmus_collect")?;
    let mut params = *p;
    let mut args = [&mut params as *mut LaunchParams as *mut c_void];
    let n = g.instances();
    stream.launch(&init, n.div_ceil(256), 256, &mut args)?;
    stream.launch(&test, g.blocks, g.threads_per_block, &mut args)?;
    stream.launch(&collect, n.div_ceil(256), 256, &mut args)?;
    if !stream.wait(timeout)? {
        return Err(GpuError::Wedged(format!(
            "a launch was still running {:.1} s after it started, long after every spin loop's deadline: the GPU context is unusable",
            timeout.as_secs_f64()
        )));
    }
    l.module.read_words("lt_out", n as usize * words)
}

/// Runs `test` (placed on one GPU, `kernel` its program) in every
/// environment; `name` names the compiled file.
pub fn run_test(
    gpu: &Gpu,
    test: &Litmus,
    roles: &Roles,
    kernel: &LitmusKernel,
    environments: &[Environment],
    o: &RunOptions,
) -> Result<Vec<EnvRun>, GpuError> {
    if kernel.terms.len() > MAX_TERMS {
        return Err(GpuError::Program(format!(
            "{} terms in the final condition (at most {MAX_TERMS})",
            kernel.terms.len()
        )));
    }
    let loaded = load(gpu, kernel, &test.name, o)?;
    let stream = Stream::new()?;
    let timeout = Duration::from_micros(u64::from(o.budget_us)) * 4 + Duration::from_secs(5);
    let mut rng = Rng::new(o.seed ^ fnv(&test.name));
    let mut runs = vec![];
    for env in environments {
        let Some(g) = Geometry::new(
            roles,
            loaded.blocks,
            o.threads_per_block,
            env.testing_share,
            o.max_slots,
        ) else {
            return Err(GpuError::Program(format!(
                "{} threads per block leave no room for a warp of instances of a CTA of {}",
                o.threads_per_block,
                roles.largest_cta()
            )));
        };
        let start = Instant::now();
        let mut tally = Tally::new();
        for _ in 0..o.launches {
            let p = draw(env, &g, kernel.locations.len(), o.budget_us, &mut rng);
            let rows = launch(&loaded, &stream, &p, &g, kernel.out_words(), timeout)?;
            tally.add(&rows, kernel.terms.len(), &roles.cta_of);
        }
        runs.push(EnvRun {
            environment: env.name.to_string(),
            launches: o.launches,
            instances: tally.instances,
            unfinished: tally.unfinished,
            seconds: start.elapsed().as_secs_f64(),
            outcomes: tally.outcomes(test, &kernel.terms),
        });
    }
    Ok(runs)
}

/// FNV-1a: a test's own random stream, whatever order tests run in.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::parse::parse;
    use super::*;

    #[test]
    fn rows_are_counted_by_outcome_and_placement() {
        let t = parse("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r1, x ;\nexists (P1:r1 == 1)\n").unwrap();
        let terms = vec![Term::Reg(1, "r1".into())];
        let mut tally = Tally::new();
        // r1, status P0, status P1, sm P0, sm P1
        let rows = [
            1,
            1,
            1,
            3,
            3, // one SM
            1,
            1,
            1,
            3,
            4, // two SMs
            0,
            1,
            1,
            5,
            6, //
            0,
            1,
            2,
            5,
            6, // P1 gave up
            u32::MAX,
            1,
            1,
            0,
            0, // -1
        ];
        tally.add(&rows, 1, &[0, 1]);
        assert_eq!((tally.instances, tally.unfinished), (5, 1));
        let o = tally.outcomes(&t, &terms);
        let shown: Vec<(&str, bool, u64, u64)> = o
            .iter()
            .map(|c| (c.outcome.as_str(), c.condition, c.one_sm, c.several_sms))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("P1:r1=-1", false, 1, 0),
                ("P1:r1=0", false, 0, 1),
                ("P1:r1=1", true, 1, 1)
            ]
        );
    }
}
