#!/bin/bash
# Device call 3 (2026-11-25): the barrier sweep of the grouped spec with
# its arrivals spread over lanes (one level at 1-4 blocks/SM, two levels
# above), beside grid.sync(); then the litmus corpus on the GPU (the start
# barrier of the stress environment no longer counts as the test's time).
cd "$(dirname "$0")"
G=./gsync-check
R=/tmp/res; mkdir -p $R
exec > >(tee $OUT/run3.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; date -u
sw() { B=$1; shift; L="$1"; shift
  r=$(timeout 30 $G run sense_reversing_barrier_grouped --blocks-per-sm $B --iters 1000 --repeats 5 --timeout 4 \
      --param check_every=8 --param group_size=0 --param group_sms=2 "$@" 2>&1 | grep -E "^time|FAIL|error" | cut -c1-40 | tr '\n' ' ')
  echo "B=$B $L: $r"; }
for B in 1 2 4 8 16; do
  timeout 60 $G bench --family barrier --only grid.sync --blocks-per-sm $B --repeats 5 --timeout 4 --out $R/gs$B 2>&1 | grep blk/SM
  case $B in
  1|2|4) for l in 1 2 4; do for x in 0 32 64; do sw $B "flat lanes$l bo$x" --param flat_max=4 --param lanes=$l --backoff-max-ns $x; done; done;;
  8) for l in 1 2 4; do for x in 32 64; do sw 8 "grouped lanes$l bo$x" --param lanes=$l --backoff-max-ns $x; done; done
     for x in 64 128; do sw 8 "flat lanes4 bo$x" --param flat_max=8 --param lanes=4 --backoff-max-ns $x; done;;
  16) for l in 1 2 4; do for x in 64 128; do sw 16 "grouped lanes$l bo$x" --param lanes=$l --backoff-max-ns $x; done; done;;
  esac
done
echo "== litmus corpus"
time timeout 330 $G litmus PTX --on-gpu --expect PTX/expected-safety.csv --liveness PTX/expected-liveness.csv \
  --launches 200 --out $R/litmus > $R/litmus.txt 2> $R/litmus.err; echo "rc=$?"; tail -8 $R/litmus.txt
tar czf $OUT/res3.tgz -C $R .
ls -la $OUT
