//! Where a litmus test's threads run on the GPU.
//!
//! One launch runs many *instances* of the test at once, each on its own
//! copy of the locations. A test's CTAs become *CTA roles*; a testing block
//! plays one CTA role for `slots` instances: litmus thread `j` of that CTA,
//! for slot `s`, is thread `j * slots + s` of the block (so the threads of
//! one instance are in different warps, and the block's testing threads
//! are whole warps: a litmus `bar.sync` becomes a barrier over exactly
//! them). Which block plays which role of which group of instances, which
//! slot a thread serves, and where each instance's copy of a location lies
//! are permuted at every launch by affine maps (`a * x + b mod n` with `a`
//! prime to `n`), as GPU litmus testing does (Kirkham et al., OOPSLA 2020;
//! GPUHarbor, ISSTA 2023): the pairing of threads and of memory varies.
//!
//! The device computes the same maps (`harness_prelude.cu`): a block `b`
//! below `testing_blocks` plays `w = block_mul * b + block_add mod W`, CTA
//! role `w / groups` of instance group `w % groups`.

use super::super::parse::Litmus;

/// A test's threads grouped by CTA, on one GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roles {
    /// CTA role of each litmus thread (in the order of `Litmus::threads`).
    pub cta_of: Vec<u32>,
    /// Rank of each litmus thread within its CTA role.
    pub rank: Vec<u32>,
    /// Litmus threads per CTA role.
    pub cta_sizes: Vec<u32>,
}

impl Roles {
    /// CTA roles ordered by (gpu, cta), threads in column order.
    pub fn of(test: &Litmus) -> Roles {
        let ctas = test.ctas();
        let mut cta_sizes = vec![0u32; ctas.len()];
        let (mut cta_of, mut rank) = (vec![], vec![]);
        for t in &test.threads {
            let c = ctas.binary_search(&(t.gpu, t.cta)).expect("listed") as u32;
            cta_of.push(c);
            rank.push(cta_sizes[c as usize]);
            cta_sizes[c as usize] += 1;
        }
        Roles {
            cta_of,
            rank,
            cta_sizes,
        }
    }

    pub fn ctas(&self) -> u32 {
        self.cta_sizes.len() as u32
    }

    pub fn largest_cta(&self) -> u32 {
        self.cta_sizes.iter().copied().max().unwrap_or(1)
    }

    /// The litmus thread of rank `j` in CTA role `cta`.
    pub fn thread_at(&self, cta: u32, j: u32) -> Option<usize> {
        (0..self.cta_of.len()).find(|&p| self.cta_of[p] == cta && self.rank[p] == j)
    }
}

/// Places every thread of `test` on GPU 0, keeping threads that were on
/// different GPUs in different CTAs (this machine has one GPU). Returns
/// whether anything moved.
pub(crate) fn on_one_gpu(test: &mut Litmus) -> bool {
    if test.threads.iter().all(|t| t.gpu == 0) {
        return false;
    }
    let ctas = test.ctas();
    for t in &mut test.threads {
        t.cta = ctas.binary_search(&(t.gpu, t.cta)).expect("listed") as u32;
        t.gpu = 0;
    }
    true
}

/// The shape of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Blocks launched (testing blocks first, then stressing ones).
    pub blocks: u32,
    pub threads_per_block: u32,
    /// `ctas * groups`: the blocks that play a CTA role.
    pub testing_blocks: u32,
    /// Instance groups: each CTA role is played by `groups` blocks.
    pub groups: u32,
    /// Instances per group (a power of two, at least a warp).
    pub slots: u32,
}

/// The most instances one launch may have (the size of the device arrays).
pub(crate) const MAX_INSTANCES: u32 = 1 << 16;

impl Geometry {
    /// `blocks` resident blocks of `threads_per_block`, of which at most
    /// `testing_share` (a fraction) play roles; slots as many as the
    /// largest CTA leaves room for, at most `max_slots`.
    pub fn new(
        roles: &Roles,
        blocks: u32,
        threads_per_block: u32,
        testing_share: f64,
        max_slots: u32,
    ) -> Option<Geometry> {
        let per_thread = threads_per_block / roles.largest_cta();
        let slots = prev_power_of_two(per_thread.min(max_slots));
        if slots < 32 {
            return None;
        }
        let wanted = ((f64::from(blocks) * testing_share) as u32).clamp(1, blocks);
        let mut groups = wanted / roles.ctas();
        groups = groups.min(MAX_INSTANCES / slots);
        if groups == 0 {
            return None;
        }
        Some(Geometry {
            blocks,
            threads_per_block,
            testing_blocks: groups * roles.ctas(),
            groups,
            slots,
        })
    }

    pub fn instances(&self) -> u32 {
        self.groups * self.slots
    }
}

fn prev_power_of_two(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 << (31 - n.leading_zeros())
    }
}

/// The permutations of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shuffle {
    pub block_mul: u32,
    pub block_add: u32,
    pub slot_mul: u32,
    pub slot_add: u32,
}

impl Shuffle {
    pub(crate) const IDENTITY: Shuffle = Shuffle {
        block_mul: 1,
        block_add: 0,
        slot_mul: 1,
        slot_add: 0,
    };
}

/// The role and instance block `b`, thread `t` plays, if any (the device's
/// computation, for the tests).
#[cfg(test)]
fn role_of(g: &Geometry, roles: &Roles, sh: &Shuffle, b: u32, t: u32) -> Option<(usize, u32)> {
    if b >= g.testing_blocks {
        return None;
    }
    let w = ((u64::from(sh.block_mul) * u64::from(b) + u64::from(sh.block_add))
        % u64::from(g.testing_blocks)) as u32;
    let (cta, group) = (w / g.groups, w % g.groups);
    let j = t / g.slots;
    let p = roles.thread_at(cta, j)?;
    let s = sh
        .slot_mul
        .wrapping_mul(t % g.slots)
        .wrapping_add(sh.slot_add)
        & (g.slots - 1);
    Some((p, group * g.slots + s))
}

/// `a * x + b mod n` is a permutation of `0..n` when `a` is prime to `n`.
pub(crate) fn coprime(a: u32, n: u32) -> bool {
    let (mut x, mut y) = (a, n);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    x == 1
}

#[cfg(test)]
mod tests {
    use super::super::super::parse::parse;
    use super::*;
    use std::collections::BTreeMap;

    const IRIW: &str = "PTX T\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 1,gpu 0 | P3@cta 2,gpu 1 ;\n st.weak x, 1 | ld.weak r0, x | ld.weak r0, y | st.weak y, 1 ;\nexists (P1:r0 == 1)\n";

    #[test]
    fn threads_on_other_gpus_become_other_ctas() {
        let mut t = parse(IRIW).unwrap();
        assert!(on_one_gpu(&mut t));
        let r = Roles::of(&t);
        assert_eq!(r.cta_of, vec![0, 1, 1, 2]);
        assert_eq!(r.rank, vec![0, 0, 1, 0]);
        assert_eq!(r.cta_sizes, vec![1, 2, 1]);
        assert!(!on_one_gpu(&mut t));
    }

    /// Every instance gets each litmus thread exactly once, the threads of
    /// a CTA in one block, of different CTAs in different blocks, never
    /// two on one GPU thread; for random shuffles.
    #[test]
    fn every_instance_gets_each_role_once_with_the_tests_placement() {
        let mut t = parse(IRIW).unwrap();
        on_one_gpu(&mut t);
        let roles = Roles::of(&t);
        let g = Geometry::new(&roles, 40, 128, 0.8, 64).unwrap();
        assert_eq!((g.slots, g.groups, g.testing_blocks), (64, 10, 30));
        let mut seed = 7u64;
        for _ in 0..20 {
            let mut next = || {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 33) as u32
            };
            let mut block_mul = next() % g.testing_blocks;
            while !coprime(block_mul, g.testing_blocks) {
                block_mul = (block_mul + 1) % g.testing_blocks;
            }
            let sh = Shuffle {
                block_mul,
                block_add: next(),
                slot_mul: next() | 1,
                slot_add: next(),
            };
            let mut seen: BTreeMap<(u32, usize), (u32, u32)> = BTreeMap::new();
            for b in 0..g.blocks {
                for th in 0..g.threads_per_block {
                    if let Some((p, inst)) = role_of(&g, &roles, &sh, b, th) {
                        assert!(seen.insert((inst, p), (b, th)).is_none(), "role twice");
                    }
                }
            }
            assert_eq!(seen.len() as u32, g.instances() * 4);
            for inst in 0..g.instances() {
                let at = |p: usize| seen[&(inst, p)];
                assert_eq!(at(1).0, at(2).0, "one CTA, one block");
                assert_ne!(at(1).1, at(2).1);
                assert_ne!(at(0).0, at(1).0, "CTAs apart");
                assert_ne!(at(0).0, at(3).0);
                assert_ne!(at(1).0, at(3).0);
            }
        }
    }

    #[test]
    fn geometry_needs_a_warp_of_slots() {
        let t = parse(IRIW).unwrap();
        let roles = Roles::of(&t);
        assert!(Geometry::new(&roles, 10, 32, 1.0, 64).is_none());
        let g = Geometry::new(&roles, 528, 256, 0.5, 64).unwrap();
        assert_eq!(g.slots, 64);
        assert!(g.testing_blocks <= 264 && g.testing_blocks.is_multiple_of(3));
        assert!(coprime(5, 12) && !coprime(4, 12));
    }
}
