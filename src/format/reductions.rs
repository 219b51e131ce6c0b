//! The words of `--stats` for what the reductions did (`ReductionLog`),
//! as one line of `;`-separated parts: which ran (symmetry's classes), why
//! each other was off (`Off`, down to the reason a reduction does not
//! apply), and why the search switched to the full graph. `check` and
//! `reduce` hand these over as data and word none of them.

use crate::explore::{collision_probability, FINGERPRINT_BITS};
use crate::reduce::{Asymmetry, Classes, Holds, IdUse, Inapplicable, Indexed, NoFutures};
use crate::report::{AmpleSets, DistributedRun, FullGraph, Off, ReductionLog, SearchNote};

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
        Off::NotApplicable(why) => format!(" ({})", inapplicable(why)),
        Off::FuturesUnknown => {
            " (each thread's future accesses are not known: lockstep warps or warp collectives)"
                .to_string()
        }
    }
}

/// Why a reduction does not apply to the model.
fn inapplicable(why: &Inapplicable) -> String {
    let text = match why {
        Inapplicable::Resident => "blocks start in order under --resident",
        Inapplicable::LockstepOrLockBits => {
            "lockstep warp stacks and lock bits are not described to it yet"
        }
        Inapplicable::NamedBarriers => "named barriers are not described to it yet",
        Inapplicable::DifferentGpus => "blocks run on different GPUs",
        Inapplicable::Asymmetric(why) => return asymmetry(why),
        Inapplicable::NoFutures(NoFutures::WarpCollectives) => {
            "warp-collective instructions read the other lanes' positions"
        }
        Inapplicable::NoFutures(NoFutures::TooLarge { mib }) => {
            return format!("its table of future accesses would take {mib} MiB")
        }
        Inapplicable::UnderSc => "under sc a failed poll is a self-loop already",
        Inapplicable::LockstepPoll => "a lockstep warp's step is not one thread's poll",
    };
    text.to_string()
}

/// Why the blocks are not interchangeable.
fn asymmetry(why: &Asymmetry) -> String {
    let text = match why {
        Asymmetry::WideVariables => {
            "the spec has 64-bit variables, which the symmetry reduction does not describe"
        }
        Asymmetry::UndescribedWords => {
            "the state has words the symmetry reduction does not describe"
        }
        Asymmetry::RingSingledOut => {
            "blocks form a ring (a ring neighbour is named) and some are singled out: only the identity rotation"
        }
        Asymmetry::NoneInterchangeable => "no two blocks are interchangeable",
        Asymmetry::InvariantPerThread => "an invariant depends on the thread evaluating it",
        Asymmetry::At { line, what } => return format!("{line}: {}", id_use(what)),
        Asymmetry::Invariant(what) => return id_use(what),
        Asymmetry::SmSizes(sizes) => {
            return format!("blocks are grouped into SMs of sizes {sizes:?}")
        }
        Asymmetry::RingInSms => {
            "blocks form a ring (a ring neighbour is named) and are grouped into SMs"
        }
        Asymmetry::Holds { name, what } => return format!("`{name}` {}", holds(*what)),
        Asymmetry::Indexed { name, how } => return format!("`{name}` {}", indexed(*how)),
    };
    text.to_string()
}

/// A use of a block id other than as a name.
fn id_use(what: &IdUse) -> String {
    match what {
        IdUse::BlockIdAsNumber => "a block id is used as a number or condition".to_string(),
        IdUse::SmIdAsNumber => "an SM id is used as a number or condition".to_string(),
        IdUse::RankAsNumber => "a block's rank in its SM is used as a number".to_string(),
        IdUse::Combined => "block ids are combined with other data".to_string(),
        IdUse::AtomicOnId { op } => format!("{} on a block id", op.cuda_name()),
        IdUse::AtomicMixes { op } => format!("{} mixes a block id with data", op.cuda_name()),
        IdUse::Unhandled { op } => format!("symmetry reduction does not handle `{op}` yet"),
    }
}

/// What a variable or local holds, after its name.
fn holds(what: Holds) -> &'static str {
    match what {
        Holds::IdsAndData => "holds block ids and other data",
        Holds::SmIdsOrRanks => "holds SM ids or ranks",
        Holds::Rank => "holds a block's rank in its SM",
        Holds::BlockIdsTooWide => "holds block ids that do not fit its type",
        Holds::IdsTooWide => "holds ids that do not fit its type",
    }
}

/// How an array is indexed, after its name.
fn indexed(how: Indexed) -> &'static str {
    match how {
        Indexed::Mixed => "is indexed both by block ids and by other data",
        Indexed::InterleavedUneven => {
            "is indexed by `q * nblocks + blockIdx` but not a multiple of nblocks long"
        }
        Indexed::Overlapping => "has indices that may reach another block's or SM's words",
        Indexed::OtherSmSize => "is indexed by SMs of another size",
    }
}

/// The classes of interchangeable blocks (`interchangeable blocks
/// {1,2,3}`; a run of eight or more consecutive ids is written `a-b`: a
/// wide launch has a thousand).
pub fn classes(found: &Classes) -> String {
    let list = |classes: &[Vec<u32>]| -> String {
        let names: Vec<String> = classes.iter().map(|c| format!("{{{}}}", runs(c))).collect();
        names.join(" ")
    };
    if found.ring {
        return format!("blocks {} rotated as a ring", list(&found.sms));
    }
    if found.blocks_per_sm == 1 {
        return format!("interchangeable blocks {}", list(&found.sms));
    }
    let mut parts = Vec::new();
    if !found.sms.is_empty() {
        parts.push(format!(
            "interchangeable SMs of {} blocks {}",
            found.blocks_per_sm,
            list(&found.sms)
        ));
    }
    if !found.within_sm.is_empty() {
        parts.push(format!(
            "interchangeable blocks within an SM {}",
            list(&found.within_sm)
        ));
    }
    parts.join(", ")
}

/// `ids` (ascending) written with runs of eight or more as `a-b`.
fn runs(ids: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        if j - i >= 7 {
            parts.push(format!("{}-{}", ids[i], ids[j]));
        } else {
            parts.extend(ids[i..=j].iter().map(u32::to_string));
        }
        i = j + 1;
    }
    parts.join(",")
}

/// Why the search switched to the full graph.
fn full_graph(why: FullGraph) -> &'static str {
    match why {
        FullGraph::NeverFinishes => "the harness never finishes",
        FullGraph::ProgressWhileStuck => "threads keep progressing where the harness cannot finish",
        FullGraph::ProgressModel => "a progress model is checked",
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
        "distributed: {} processes x {} workers; states per worker {:?} (max/mean {:.3}); peak RSS per process (MiB) {}",
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
            "symmetry and ample sets off ({}: per-thread progress is checked on the full graph)",
            full_graph(*why)
        ),
        None => {
            let symmetry = match &log.symmetry {
                Ok(found) => format!("symmetry: {}", classes(found)),
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
    match log.canonical_fixpoint {
        Some(true) => text += "; repeated writes merged until nothing merges",
        Some(false) => text += "; repeated writes merged once per step (--no-canonical-fixpoint)",
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
    use super::{inapplicable, off, percent, runs};
    use crate::ir::AtomicOp;
    use crate::reduce::{Asymmetry, Holds, IdUse, Inapplicable, Indexed, NoFutures};
    use crate::report::Off;

    /// The reasons read as they did when reduce/ built them as text.
    #[test]
    fn reasons_keep_their_words() {
        let asym = |a: Asymmetry| inapplicable(&Inapplicable::Asymmetric(a));
        let at = |what: IdUse| {
            asym(Asymmetry::At {
                line: "t.gsync:3".into(),
                what,
            })
        };
        assert_eq!(
            at(IdUse::AtomicOnId { op: AtomicOp::Add }),
            "t.gsync:3: atomicAdd on a block id"
        );
        assert_eq!(
            at(IdUse::Unhandled { op: "Vote".into() }),
            "t.gsync:3: symmetry reduction does not handle `Vote` yet"
        );
        assert_eq!(
            asym(Asymmetry::Invariant(IdUse::BlockIdAsNumber)),
            "a block id is used as a number or condition"
        );
        assert_eq!(
            asym(Asymmetry::SmSizes(vec![2, 4])),
            "blocks are grouped into SMs of sizes [2, 4]"
        );
        let holds = Asymmetry::Holds {
            name: "owner".into(),
            what: Holds::BlockIdsTooWide,
        };
        assert_eq!(
            asym(holds),
            "`owner` holds block ids that do not fit its type"
        );
        let indexed = Asymmetry::Indexed {
            name: "flags".into(),
            how: Indexed::Overlapping,
        };
        assert_eq!(
            asym(indexed),
            "`flags` has indices that may reach another block's or SM's words"
        );
        let table = Inapplicable::NoFutures(NoFutures::TooLarge { mib: 80 });
        assert_eq!(
            off(&Off::NotApplicable(table), ""),
            " (its table of future accesses would take 80 MiB)"
        );
    }

    #[test]
    fn long_runs_of_ids_are_written_as_ranges() {
        assert_eq!(runs(&[0, 1, 2, 3]), "0,1,2,3");
        assert_eq!(runs(&[0, 1, 2, 3, 4, 5, 6, 7]), "0-7");
        assert_eq!(runs(&[1, 3, 4, 5, 6, 7, 8, 9, 10, 12]), "1,3-10,12");
        let wide: Vec<u32> = (0..1024).collect();
        assert_eq!(runs(&wide), "0-1023");
    }

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
