#!/usr/bin/env bash
# The distributed explorer, one process against two on this machine
# (book/src/distributed.md): states/s, peak RSS per process, and the
# partition balance (max/mean states per worker), for one spec.
#
#   scripts/bench-dist.sh heterosync_tree_barrier --blocks 3
#
# GSYNC: the binary (default target/release/gsync-check).
set -euo pipefail
bin=${GSYNC:-target/release/gsync-check}
[ $# -gt 0 ] || set -- heterosync_tree_barrier --blocks 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%-28s %10s %8s %10s %9s  %s\n' run states seconds states/s max/mean "peak RSS per process (MiB)"
for run in "single-process explorer:--threads 1" \
           "1 process x 1 worker:--processes 1 --threads 1" \
           "2 processes x 1 worker:--local-processes 2 --threads 1"; do
  name=${run%%:*}
  # shellcheck disable=SC2086
  "$bin" "$@" ${run#*:} --stats --format json > "$out" || [ $? -le 3 ]
  python3 - "$name" "$out" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
m = r["stats"]
note = m.get("reductions")
dist = note.get("distributed") if isinstance(note, dict) else None
if dist:
    per = dist["states_per_worker"]
    bal = "%.3f" % (max(per) / (sum(per) / len(per)))
    rss = ", ".join("%.1f" % (b / 2**20) for b in dist["peak_rss_bytes_per_process"])
else:
    bal, rss = "-", "%.1f" % (m["peak_rss_bytes"] / 2**20)
print("%-28s %10d %8.2f %10.0f %9s  %s" % (name, r["stats"]["states"], m["seconds"],
      m["states_per_second"], bal, rss))
PY
done
