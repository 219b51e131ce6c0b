#!/bin/bash
# Device call 2 (2026-11-25): the litmus corpus on the GPU (200 launches per
# environment), the one-level barrier at 2 and 4 blocks/SM beside
# grid.sync() (backoff sweep), and the barrier family of `bench`.
cd "$(dirname "$0")"
G=./gsync-check
R=/tmp/res; mkdir -p $R
exec > >(tee $OUT/run2.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; date -u
echo "== litmus corpus"
time timeout 330 $G litmus PTX --on-gpu --expect PTX/expected-safety.csv --liveness PTX/expected-liveness.csv \
  --launches 200 --out $R/litmus > $R/litmus.txt 2> $R/litmus.err; echo "rc=$?"; tail -3 $R/litmus.txt
cp $R/litmus.err $OUT/litmus.err
echo "== one level at 2 and 4 blocks/SM"
sw() { B=$1; shift; L="$1"; shift
  r=$(timeout 30 $G run sense_reversing_barrier_grouped --blocks-per-sm $B --iters 1000 --repeats 5 --timeout 4 \
      --param check_every=8 "$@" 2>&1 | grep -E "^time|^outcome|FAIL|error" | tr '\n' ' ')
  echo "B=$B $L: $r"; }
for B in 2 4; do
  timeout 60 $G bench --family barrier --only grid.sync --blocks-per-sm $B --repeats 5 --timeout 4 --out $R/gs$B 2>&1 | grep blk/SM
  for x in 0 32 64 128; do sw $B "flat bo$x" --param flat_max=$B --backoff-max-ns $x; done
done
echo "== bench barrier"
time timeout 200 $G bench --family barrier --repeats 5 --timeout 4 --out $R/bench 2>&1 | grep blk/SM
tar czf $OUT/res2.tgz -C $R .
ls -la $OUT
