#!/bin/bash
# The HeteroSync table of book/src/relax.md: `gsync-check relax` on every
# HeteroSync harness (harnesses/heterosync) that has a `verified`
# expectation under ptx, its points in the CUDA it imports from
# shared/heterosync. Writes the record tests/relax_cuda.rs checks the
# table against (book/src/results/relax-cuda.jsonl) and prints the rows.
# Minutes long: not part of the tests; run it after a change to relax, to
# the front end or to a harness, and paste its rows into the page.
#   scripts/relax-cuda-table.sh [path/to/gsync-check] > rows.md
set -u
B=${1:-target/release/gsync-check}
RECORD=book/src/results/relax-cuda.jsonl
OUT=$(mktemp -d)
: > "$RECORD"
for f in harnesses/heterosync/*.gsync; do
  # Only harnesses a ptx check expects to verify (the others are repair's).
  grep '^//! expect' "$f" | grep -v 'memory-model sc' | grep -q ': verified' || continue
  n=$(basename "$f" .gsync)
  "$B" relax "$f" -q --max-seconds 900 --scale-seconds 60 --format json \
      -o "$OUT/${n}_relaxed.gsync" |
    python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))' >> "$RECORD"
done
echo "| harness | points | fences removed | fences sc→acq_rel | scopes narrowed | result | checks | seconds |"
echo "|---|---|---|---|---|---|---|---|"
python3 - "$RECORD" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    c = d["counts"]
    done = d["maximal"] and d["status"]["status"] == "done"
    result = "maximal" if done else "local"
    row = [d["spec"], d["points"], c["fences_removed"], c["fences_changed"],
           c["scopes_narrowed"], result, d["checks"], "%.1f" % d["seconds"]]
    print("| " + " | ".join(str(x) for x in row) + " |")
PY
rm -rf "$OUT"
