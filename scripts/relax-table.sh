#!/bin/bash
# The table of book/src/relax.md: `gsync-check relax` on every correct
# built-in spec (one that has a `verified` expectation under ptx and is not
# known-buggy), one row each. Slow specs make this minutes long, so it is
# not part of the test command; run it after a change to relax or to a
# spec, and paste its output into the page.
#   scripts/relax-table.sh [path/to/gsync-check] > rows.md
set -u
B=${1:-target/release/gsync-check}
SPECS="mp_flag spin_lock spin_lock_backoff ticket_mutex ring_buffer_mutex
shared_spin_lock simd_critical_in_loop validation_atomic_lock
sleeping_semaphore spin_lock_semaphore heterosync_semaphore
heterosync_semaphore_backoff priority_semaphore atomic_counter_barrier
xiao_feng_barrier ccg_grid_barrier heterosync_tree_barrier
sense_barrier_central sense_reversing_barrier_fast sense_reversing_barrier_hier
sense_reversing_barrier_hier_ra sense_reversing_barrier_grouped
decoupled_lookback nw_dataflow_grid named_barrier_producer_consumer
syncthreads_fixed progress_fair progress_hsa progress_obe progress_obe_hsa
progress_unfair"
echo "| spec | points | orders weakened | volatile dropped | fences removed | fences sc→acq_rel | scopes narrowed | result | checks | seconds |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for s in $SPECS; do
  "$B" relax "$s" -q --max-seconds 600 --scale-seconds 60 --format json |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["counts"]
st = d["status"]["status"]
result = ("maximal" if d["maximal"] else "local") + ("" if st == "done" else " (" + st + ")")
if d.get("notes"): result += ", re-searched at one block more"
row = [d["spec"], d["points"], c["orders"], c["volatile"], c["fences_removed"],
       c["fences_changed"], c["scopes_narrowed"], result, d["checks"], "%.1f" % d["seconds"]]
print("| " + " | ".join(str(x) for x in row) + " |")
'
done
