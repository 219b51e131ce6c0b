//! The words of `--stats` for what the reductions did (`ReductionLog`),
//! as one line of `;`-separated parts.

use crate::explore::{collision_probability, FINGERPRINT_BITS};
use crate::report::{AmpleSets, DistributedRun, Off, ReductionLog, SearchNote};

/// `part` of `whole` in whole percent, rounded down, but "<1%" for a part
/// that is not zero: 100% and 0% only where it is all or nothing.
pub(crate) fn percent(part: u64, whole: u64) -> String {
    match (part * 100).checked_div(whole) {
        Some(0) if part > 0 => "<1%".to_string(),
        Some(p) => format!("{p}%"),
        None => "0%".to_string(),
    }
}

/// Why a reduction is off, in parentheses; `fairness`: how this reduction
/// words a progress model's need for every thread's steps.
fn off(why: &Off, fairness: &str) -> String {
    match why {
        Off::Option(flag) => format!(" ({flag})"),
        Off::Fairness => format!(" ({fairness})"),
        Off::NotApplicable(why) => format!(" ({why})"),
    }
}

fn ample(a: &Result<AmpleSets, Off>) -> String {
    match a {
        Err(why) => format!(
            "ample sets off{}",
            off(why, "fairness reads every thread's enabled steps")
        ),
        Ok(a) => {
            let mut text = "ample sets of independent steps".to_string();
            if a.spinners_sleep {
                text += ", spinning threads asleep on their lassos";
            }
            if let Some((at, of)) = a.proper_subset_at {
                text += &format!(
                    " (a proper subset at {at} of {of} expanded states, {})",
                    percent(at, of)
                );
            }
            text
        }
    }
}

/// The note `--stats` prints about how the states were searched.
pub fn describe(note: &SearchNote) -> String {
    match note {
        SearchNote::Reductions(log) => reductions(log),
        SearchNote::Distributed(run) => distributed(run),
    }
}

/// A distributed run: workers, balance, memory.
fn distributed(run: &DistributedRun) -> String {
    let per = &run.states_per_worker;
    let max = per.iter().copied().max().unwrap_or(0) as f64;
    let mean = per.iter().sum::<u64>() as f64 / per.len().max(1) as f64;
    let rss: Vec<String> = run
        .peak_rss_bytes_per_process
        .iter()
        .map(|b| format!("{:.1}", *b as f64 / (1 << 20) as f64))
        .collect();
    format!(
        "distributed: {} processes x {} workers; states per worker {:?} (max/mean {:.3}); peak RSS per process (MiB) {}; ample sets off (their proviso needs the whole graph)",
        run.processes,
        run.workers,
        per,
        if mean > 0.0 { max / mean } else { 1.0 },
        rss.join(", ")
    )
}

/// Which reductions ran, and why each other was off.
fn reductions(log: &ReductionLog) -> String {
    let mut text = match &log.full_graph {
        Some(why) => format!(
            "symmetry and ample sets off ({why}: per-thread progress is checked on the full graph)"
        ),
        None => {
            let symmetry = match &log.symmetry {
                Ok(classes) => format!("symmetry: {classes}"),
                Err(why) => format!(
                    "symmetry off{}",
                    off(why, "fairness is checked per thread on the full graph")
                ),
            };
            format!("{symmetry}; {}", ample(&log.ample_sets))
        }
    };
    let full = log.full_graph.is_some();
    // After a switch to the full graph, only what that graph keeps of the
    // reductions is said: forgotten writers, and that stale polls the
    // reduced search left out are explored again.
    match log.forget {
        Some(true) => text += "; writers no step reads forgotten",
        Some(false) if !full => text += "; writers kept (--no-forget)",
        _ => {}
    }
    match &log.awaits {
        Some(Ok(())) if full => text += "; stale failed polls and blind reads explored",
        Some(Ok(())) => text += "; failed polls of a stale write and blind reads left out",
        Some(Err(why)) if !full => {
            text += "; stale failed polls and blind reads explored";
            text += &off(why, "fairness reads every thread's steps");
        }
        _ => {}
    }
    match &log.view_refresh {
        Some(Ok(())) => text += "; views the next SC fence refreshes raised to it",
        Some(Err(why)) => text += &format!("; old views kept{}", off(why, "")),
        None => {}
    }
    match log.dead_writes {
        Some(true) => text += "; writes no step can read any more dropped",
        Some(false) => text += "; dead writes kept (--no-drop-dead-writes)",
        None => {}
    }
    if log.reduced_trace {
        text += "; counterexample from the reduced graph (not necessarily shortest: the full graph is too large to retrace it)";
    }
    match log.hash_compaction {
        Some(Some(states)) => {
            text += &format!(
                "; hash compaction: {FINGERPRINT_BITS}-bit fingerprints, P(two states merged) <= {:.1e}",
                collision_probability(states)
            )
        }
        Some(None) => text += "; hash compaction off (the per-thread analyses read every state)",
        None => {}
    }
    text
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn percent_says_all_or_nothing_only_when_it_is() {
        assert_eq!(percent(0, 0), "0%");
        assert_eq!(percent(0, 7), "0%");
        assert_eq!(percent(1, 1000), "<1%");
        assert_eq!(percent(70_929, 399_477), "17%");
        assert_eq!(percent(55_597, 55_783), "99%");
        assert_eq!(percent(9, 9), "100%");
    }
}
