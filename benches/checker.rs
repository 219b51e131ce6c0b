//! The checker benchmark of issue 7, in one run: every family at growing
//! `--blocks` with and without the reductions (symmetry and ample sets;
//! local steps are fused in both) (states, search seconds,
//! states/s, memory, how far each scales within 60 s), then the SPIN
//! comparison on the spin-lock and ticket mutexes for 3..6 processes when
//! `spin` is installed. Not part of `cargo test`.
//!
//! `cargo bench --bench checker` (optionally `-- FAMILY`); the same as
//! `gsync-check bench-checker --spin`.

use gsync_check::bench_checker::{self, spin, BenchOptions};

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut opts = BenchOptions::default();
    if let Some(f) = filter {
        opts.families.retain(|x| x.contains(f.as_str()));
    }
    let mut print = |line: &str| println!("{line}");
    bench_checker::run(&opts, &mut print);
    if spin::available() {
        println!("\nSPIN comparison:");
        spin::compare(&[3, 4, 5, 6], &mut print);
    } else {
        println!("\nSPIN comparison skipped: `spin` is not installed (apt-get install spin)");
    }
}
