//! How each launch is run: the testing environments (no shuffling or
//! stress, shuffled threads and memory, shuffled plus memory stress) and the
//! random draw of one launch's parameters within an environment. The draws
//! come from a seeded generator, so a run can be repeated exactly.

use super::emit::MAX_LOCATIONS;
use super::layout::{coprime, Geometry, Shuffle};
use crate::rng::SplitMix64;
use serde::Serialize;

/// One launch's parameters, word for word the harness's `LtParams`
/// (`harness_prelude.cu`; a test reads that struct's field list and
/// checks it against [`PARAM_FIELDS`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchParams {
    pub testing_blocks: u32,
    pub groups: u32,
    pub slots: u32,
    pub stride: u32,
    pub block_mul: u32,
    pub block_add: u32,
    pub slot_mul: u32,
    pub slot_add: u32,
    pub loc_mul: [u32; MAX_LOCATIONS],
    pub loc_add: [u32; MAX_LOCATIONS],
    pub start_barrier: u32,
    pub pre_stress: u32,
    pub stress: u32,
    pub stress_pattern: u32,
    pub stress_lines: u32,
    pub stress_offset: u32,
    pub jitter: u32,
    pub seed: u32,
    pub budget_us: u32,
}

/// The fields of [`LaunchParams`] in order, as the CUDA struct names them.
pub const PARAM_FIELDS: &[&str] = &[
    "testing_blocks",
    "groups",
    "slots",
    "stride",
    "block_mul",
    "block_add",
    "slot_mul",
    "slot_add",
    "loc_mul",
    "loc_add",
    "start_barrier",
    "pre_stress",
    "stress",
    "stress_pattern",
    "stress_lines",
    "stress_offset",
    "jitter",
    "seed",
    "budget_us",
];

/// A testing environment: what is shuffled and stressed in its launches.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Environment {
    pub name: &'static str,
    pub description: &'static str,
    /// Shuffle blocks, slots and memory at every launch.
    pub shuffle: bool,
    /// Testing threads wait for each other before the test.
    pub start_barrier: bool,
    /// Stress threads and blocks (a share of the blocks) hammer scratch memory.
    pub stress: bool,
    /// Share of the launched blocks that play the test.
    pub testing_share: f64,
}

impl Environment {
    /// The environment of [`environments`] called `name`.
    pub fn named(name: &str) -> Result<Environment, String> {
        environments()
            .into_iter()
            .find(|e| e.name == name)
            .ok_or_else(|| format!("no environment `{name}` (there are: plain, shuffle, stress)"))
    }
}

/// The environments of a run, from the plainest to the most stressed.
pub fn environments() -> Vec<Environment> {
    vec![
        Environment {
            name: "plain",
            description: "instances side by side, no shuffling, no stress; each copy of a location on its own 128-byte line",
            shuffle: false,
            start_barrier: false,
            stress: false,
            testing_share: 1.0,
        },
        Environment {
            name: "shuffle",
            description: "blocks, threads and memory shuffled at every launch, copies of a location packed (one word apart: neighbouring instances share lines), testing threads start together",
            shuffle: true,
            start_barrier: true,
            stress: false,
            testing_share: 1.0,
        },
        Environment {
            name: "stress",
            description: "shuffled as above (packed or line-apart copies at random) while half of the blocks and the testing blocks' spare threads hammer a few scratch lines (store/load pattern at random); testing threads first stress too",
            shuffle: true,
            start_barrier: true,
            stress: true,
            testing_share: 0.5,
        },
    ]
}

/// The stress parameters' draws: a seeded SplitMix64, so a run's seed
/// alone repeats them.
#[derive(Clone, Debug)]
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        self.0.below(u64::from(n)) as u32
    }

    /// A multiplier prime to `n`, so that `a * x + b mod n` permutes `0..n`.
    pub fn unit(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 1;
        }
        loop {
            let a = 1 + self.below(n - 1);
            if coprime(a, n) {
                return a;
            }
        }
    }
}

/// The parameters of one launch of `geometry` in `env`.
pub fn draw(
    env: &Environment,
    geometry: &Geometry,
    locations: usize,
    budget_us: u32,
    rng: &mut Rng,
) -> LaunchParams {
    let n = geometry.instances();
    let mut p = LaunchParams {
        testing_blocks: geometry.testing_blocks,
        groups: geometry.groups,
        slots: geometry.slots,
        stride: 32,
        budget_us,
        seed: rng.next_u64() as u32,
        ..LaunchParams::default()
    };
    let sh = if env.shuffle {
        Shuffle {
            block_mul: rng.unit(geometry.testing_blocks),
            block_add: rng.below(geometry.testing_blocks),
            slot_mul: rng.below(geometry.slots) | 1,
            slot_add: rng.below(geometry.slots),
        }
    } else {
        Shuffle::IDENTITY
    };
    (p.block_mul, p.block_add, p.slot_mul, p.slot_add) =
        (sh.block_mul, sh.block_add, sh.slot_mul, sh.slot_add);
    for l in 0..MAX_LOCATIONS {
        (p.loc_mul[l], p.loc_add[l]) = if env.shuffle && l < locations {
            (rng.unit(n), rng.below(n))
        } else {
            (1, 0)
        };
    }
    if env.shuffle {
        p.stride = if env.stress && rng.below(2) == 0 {
            32
        } else {
            1
        };
    }
    p.start_barrier = u32::from(env.start_barrier);
    p.stress_lines = 1;
    if env.stress {
        p.stress = 1 << (8 + rng.below(3));
        p.pre_stress = [0, 16, 64, 256][rng.below(4) as usize];
        p.stress_pattern = rng.below(4);
        p.stress_lines = 1 << rng.below(4);
        p.stress_offset = rng.below(1 << 10) * 32;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cuda_struct_has_the_hosts_fields_in_order() {
        let cu = super::super::emit::PRELUDE;
        let body = cu
            .split("struct LtParams {")
            .nth(1)
            .and_then(|r| r.split("};").next())
            .expect("struct LtParams in the prelude");
        let mut fields = vec![];
        for line in body.lines() {
            let code = line.split("//").next().unwrap_or("").trim();
            let Some(decl) = code.strip_prefix("u32 ") else {
                continue;
            };
            for part in decl.trim_end_matches(';').split(',') {
                let name = part.trim().split('[').next().unwrap_or("");
                fields.push(name.to_string());
            }
        }
        assert_eq!(fields, PARAM_FIELDS);
        let words = PARAM_FIELDS.len() + 2 * (MAX_LOCATIONS - 1);
        assert_eq!(std::mem::size_of::<LaunchParams>(), 4 * words);
        assert!(cu.contains(&format!("#define LT_MAX_LOCS {MAX_LOCATIONS}")));
    }

    #[test]
    fn draws_are_reproducible_and_permute() {
        let g = Geometry {
            blocks: 528,
            threads_per_block: 256,
            testing_blocks: 262,
            groups: 131,
            slots: 64,
        };
        let env = &environments()[2];
        let a = draw(env, &g, 2, 1000, &mut Rng::new(5));
        let b = draw(env, &g, 2, 1000, &mut Rng::new(5));
        assert_eq!(a, b);
        assert!(coprime(a.block_mul, 262) && coprime(a.loc_mul[0], 131 * 64));
        assert_eq!(a.slot_mul % 2, 1);
        assert!(a.stress >= 256 && a.stress_lines >= 1);
        let plain = draw(&environments()[0], &g, 2, 1000, &mut Rng::new(5));
        assert_eq!((plain.block_mul, plain.stride, plain.stress), (1, 32, 0));
    }
}
