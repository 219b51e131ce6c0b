//! Exploration statistics.

/// Figures of one exploration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Distinct states stored.
    pub states: u64,
    /// States whose successors were all generated.
    pub expanded: u64,
    /// Steps taken (successful `step` calls, duplicates and self-loops included).
    pub transitions: u64,
    /// Expanded states that kept a proper ample subset of their steps
    /// (those the proviso expanded fully later not counted): where
    /// partial-order reduction saved work. 0 when the system does not reduce.
    pub ample_reduced: u64,
    /// Final states among the stored ones.
    pub final_states: u64,
    /// Deepest BFS level reached (the initial state is level 0).
    pub max_depth: u32,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `states / seconds`.
    pub states_per_second: f64,
    /// Peak bytes by the explorer's own accounting (state store, per-state
    /// metadata, edges; reallocation overlap included).
    pub peak_bytes: u64,
    /// Bytes that the analyses run on the explored graph afterwards
    /// (deadlock, liveness) allocate on top of it, as the memory limit
    /// counts them; 0 when none ran. Set by the checker.
    pub analysis_bytes: u64,
    /// Peak resident set size of the process (`VmHWM`), when available.
    pub peak_rss_bytes: Option<u64>,
    /// Where the search's wall-clock time went, phase by phase.
    pub phases: Phases,
}

/// Wall-clock seconds of each phase of the batched search (`bfs.rs`):
/// what thread scaling measurements need to see which phase does not
/// scale. The parallel phases run on every worker; the others on one.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Phases {
    /// Successor generation (parallel), with the visited table's growth
    /// when the batch was foreseen to need one (`growth.rs`).
    pub expand: f64,
    /// Claiming successors in the visited set (parallel).
    pub claim: f64,
    /// Copying the new states into the store (parallel).
    pub commit: f64,
    /// Parents, actions and edges of the batch (parallel).
    pub record: f64,
    /// Everything else between batches on one thread: memory
    /// reservations, ordering the batch's results, placing the new
    /// states' codes in the store, limits and progress.
    pub serial: f64,
    /// The proviso's searches for terminal components (one thread).
    pub proviso: f64,
    /// Worker seconds the parallel phases' workers spent waiting inside
    /// them (`waits.rs`): a phase's seconds times the workers, less its
    /// waits, is their work.
    #[serde(default)]
    pub waits: PhaseWaits,
    /// Batches expanded: each is one round of the parallel phases.
    #[serde(default)]
    pub batches: u64,
}

/// Worker seconds each parallel phase's workers waited (see [`Phases`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhaseWaits {
    pub expand: Wait,
    pub claim: Wait,
    pub commit: Wait,
    pub record: Wait,
}

/// Worker seconds the workers of a parallel phase waited in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Wait {
    /// Before a worker joined (a helper that was late, or never came).
    pub join: f64,
    /// After a worker found no item left, until the last one was done.
    pub tail: f64,
}

/// A phase of the search, as [`Phases`] times it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Expand,
    Claim,
    Commit,
    Record,
    Serial,
    Proviso,
}

impl Phases {
    /// Ends the phase now running: the time since `*since` goes to
    /// `phase` (and the clock restarts), and so do the workers' `waits`
    /// when it is a parallel phase (those of parallel work between the
    /// phases, such as a table growth or the proviso's sweeps, are not
    /// kept).
    pub(crate) fn lap(&mut self, since: &mut crate::clock::Instant, phase: Phase, waits: Wait) {
        let now = crate::clock::Instant::now();
        let seconds = now.duration_since(*since).as_secs_f64();
        *since = now;
        let (time, wait) = match phase {
            Phase::Expand => (&mut self.expand, Some(&mut self.waits.expand)),
            Phase::Claim => (&mut self.claim, Some(&mut self.waits.claim)),
            Phase::Commit => (&mut self.commit, Some(&mut self.waits.commit)),
            Phase::Record => (&mut self.record, Some(&mut self.waits.record)),
            Phase::Serial => (&mut self.serial, None),
            Phase::Proviso => (&mut self.proviso, None),
        };
        *time += seconds;
        if let Some(w) = wait {
            w.join += waits.join;
            w.tail += waits.tail;
        }
    }
}

/// Peak resident set size of this process, read from `/proc/self/status`
/// (`VmHWM`); `None` where that is unavailable.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

/// Resident set size of this process now (`VmRSS`), as
/// [`peak_rss_bytes`].
pub fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status_bytes(&status, "VmRSS:")
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    parse_status_bytes(status, "VmHWM:")
}

/// The size on the line of `/proc/self/status` that starts with `key`.
fn parse_status_bytes(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    let mut parts = line[key.len()..].split_whitespace();
    let value: u64 = parts.next()?.parse().ok()?;
    let unit = match parts.next() {
        Some("kB") | Some("KB") => 1024,
        Some("mB") | Some("MB") => 1024 * 1024,
        None | Some("B") => 1,
        Some(_) => return None,
    };
    Some(value * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vm_hwm() {
        let s = "Name:\tx\nVmPeak:\t  100 kB\nVmHWM:\t    2048 kB\nVmRSS:\t 1 kB\n";
        assert_eq!(parse_vm_hwm(s), Some(2048 * 1024));
        assert_eq!(parse_vm_hwm("Name: x\n"), None);
        assert_eq!(parse_status_bytes(s, "VmRSS:"), Some(1024));
        if cfg!(target_os = "linux") {
            assert!(peak_rss_bytes().unwrap() > 0);
        }
    }
}
