#!/bin/bash
# Times each spec against the weakest version `relax` found of it, on the
# GPU, at 1 to 16 blocks per SM (`run --compare`), with the device checks
# on. Not part of the test command (it needs a GPU).
#   scripts/gpu-relax-compare.sh BINARY RELAXED_DIR OUT_FILE.jsonl [SPEC...]
# RELAXED_DIR holds SPEC_relaxed.gsync for each SPEC, as written by
#   gsync-check relax SPEC -o RELAXED_DIR/SPEC_relaxed.gsync
# Each line of OUT_FILE is one spec's `run --compare --format json` report.
# LEVELS (default 1,2,4,8,16) and RUN_ARGS (e.g. "--iters 10") pass on to
# `run`; the lines are appended, so several calls can share one file.
set -u
B=$1 DIR=$2 OUT=$3
shift 3
SPECS=${*:-$(ls "$DIR" | sed -n 's/_relaxed\.gsync$//p')}
for s in $SPECS; do
  start=$(date +%s%N)
  # shellcheck disable=SC2086 # RUN_ARGS is a list of words
  "$B" run "$s" --compare "$DIR/${s}_relaxed.gsync" --blocks-per-sm "${LEVELS:-1,2,4,8,16}" \
    --timeout 10 ${RUN_ARGS:-} --format json | tr -d '\n' >> "$OUT"
  code=${PIPESTATUS[0]}
  echo >> "$OUT"
  echo "$s: exit $code, $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
done
