#!/bin/bash
# Device call 4 (2026-11-25): the grouped spec as committed (one level up
# to 4 blocks/SM, polls after the arrival returns) at 2 and 4 blocks/SM
# beside grid.sync(), then the barrier family of `bench` (the table and
# plot of the book).
cd "$(dirname "$0")"
G=./gsync-check
R=/tmp/res; mkdir -p $R
exec > >(tee $OUT/run4.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; date -u
sw() { B=$1; shift; L="$1"; shift
  r=$(timeout 30 $G run sense_reversing_barrier_grouped --blocks-per-sm $B --iters 1000 --repeats 5 --timeout 4 \
      --param check_every=8 --param group_size=0 --param group_sms=2 --param flat_max=4 "$@" 2>&1 | grep -E "^time|FAIL|error" | cut -c1-40 | tr '\n' ' ')
  echo "B=$B $L: $r"; }
for B in 1 2 4 8 16; do
  timeout 60 $G bench --family barrier --only grid.sync --blocks-per-sm $B --repeats 5 --timeout 4 --out $R/gs$B 2>&1 | grep blk/SM
  for x in 0 32 64; do sw $B "bo$x" --backoff-max-ns $x; done
done
echo "== bench barrier"
time timeout 200 $G bench --family barrier --repeats 5 --timeout 4 --out $R/bench 2>&1 | grep blk/SM
tar czf $OUT/res4.tgz -C $R .
