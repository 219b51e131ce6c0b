#!/usr/bin/env bash
# The distributed explorer's scaling table on one host (book/src/distributed.md,
# issue #43): the single-process explorer on T threads against
# --local-processes P x --threads W for every P and W asked, the same
# reductions (ample sets included) everywhere. One row per run: states,
# seconds, states/s (compare a row with the single process on as many
# cores), and the peak RSS per process.
#
#   scripts/dist-scaling.sh heterosync_tree_barrier --blocks 4
#   PROCS="1 2 4 8" WORKERS="1 2" THREADS="1 2 4 8 16" scripts/dist-scaling.sh priority_semaphore --blocks 5
#
# GSYNC: the binary (default target/release/gsync-check).
set -euo pipefail
bin=${GSYNC:-target/release/gsync-check}
procs=${PROCS:-"1 2 4 8"}
workers=${WORKERS:-"1 2"}
threads=${THREADS:-"1 2 4 8 16"}
[ $# -gt 0 ] || set -- heterosync_tree_barrier --blocks 4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
row() { # name cores args...
  local name=$1 cores=$2
  shift 2
  "$bin" "$@" --stats --format json > "$out" || [ $? -le 3 ]
  python3 - "$name" "$cores" "$out" <<'PY'
import json, sys
name, cores, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = json.load(open(path))
m = r["stats"]
seconds = m["seconds"]
states = m["states"]
dist = (m.get("reductions") or {}).get("distributed") if isinstance(m.get("reductions"), dict) else None
per = dist["peak_rss_bytes_per_process"] if dist else [m["peak_rss_bytes"]]
rss = ", ".join("%.0f" % (b / 2**20) for b in per)
print("%-26s %5d %10d %8.2f %10.0f  %s" % (name, cores, states, seconds, states / max(seconds, 1e-9), rss))
PY
}
printf '%-26s %5s %10s %8s %10s  %s\n' run cores states seconds states/s "peak RSS per process (MiB)"
for t in $threads; do
  row "single process, $t threads" "$t" "$@" --threads "$t"
done
for p in $procs; do
  for w in $workers; do
    row "$p processes x $w workers" $((p * w)) "$@" --local-processes "$p" --threads "$w"
  done
done
