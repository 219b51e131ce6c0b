//! With `GSYNC_DIST_MEMORY`, where a process's memory goes (#43: a
//! distributed run's processes held more together than one process): at
//! the end of each phase of the search and of the analyses (and where the
//! search starts, `setup`: timely's buffers), the first worker of each
//! process prints the process's heap at its peak during the phase and
//! now (all its workers together, as `explore::heap` counts it), its peak
//! and present resident set (`VmHWM`, `VmRSS`: the heap counts room never
//! written, which is not resident), and the bytes of the structures that
//! worker holds.

use super::rounds::Rounds;
use crate::explore::{heap, peak_rss_bytes, rss_bytes};

/// Prints the memory at phases' ends, on the first worker of each
/// process, when asked.
pub(super) struct Memory {
    /// This worker's index, where it prints.
    worker: Option<usize>,
}

impl Memory {
    pub(super) fn new(rounds: &Rounds<'_>) -> Memory {
        let me = rounds.index();
        let first = me == 0 || rounds.is_remote(me as u32 - 1);
        let asked = std::env::var_os("GSYNC_DIST_MEMORY").is_some();
        if first && asked {
            // The peak from here on.
            heap::take_peak();
        }
        Memory {
            worker: (first && asked).then_some(me),
        }
    }

    /// Prints the phase that ends here and the bytes of `held`, each named.
    pub(super) fn end(&self, phase: &str, held: &[(&str, usize)]) {
        let Some(worker) = self.worker else {
            return;
        };
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        let peak = heap::take_peak().unwrap_or(0);
        let now = heap::live_bytes().unwrap_or(0);
        let mut line = format!(
            "memory, worker {worker}, {phase}: heap peak {:.1} MiB, now {:.1} MiB, VmHWM {:.1} MiB, VmRSS {:.1} MiB;",
            mib(peak),
            mib(now),
            mib(peak_rss_bytes().unwrap_or(0)),
            mib(rss_bytes().unwrap_or(0)),
        );
        for (name, bytes) in held {
            line += &format!(" {name} {:.1}", mib(*bytes as u64));
        }
        line += "\n";
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    }
}

/// Bytes a vector holds.
pub(super) fn held<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}
