#!/bin/bash
# Device call 1 (2026-11-25): the litmus corpus on the GPU, the barrier
# sweep (grouped spec: one level vs groups, backoff) beside grid.sync(),
# and the barrier family of `bench`. Run from gpu-bin/ (binary, corpus).
cd "$(dirname "$0")"
G=./gsync-check
R=/tmp/res; mkdir -p $R
exec > >(tee $OUT/run1.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; date -u
echo "== litmus smoke"
timeout 60 $G litmus PTX/Manual/MP-relaxed.litmus --on-gpu --launches 20
timeout 60 $G litmus PTX/Manual/XF-Barrier-rlx.litmus --on-gpu --launches 20 --liveness PTX/expected-liveness.csv
echo "== litmus corpus"
time timeout 280 $G litmus PTX --on-gpu --expect PTX/expected-safety.csv --liveness PTX/expected-liveness.csv \
  --launches 300 --out $R/litmus > $R/litmus.txt 2> $R/litmus.err; echo "rc=$?"; tail -3 $R/litmus.txt
echo "== barrier sweep"
sw() { B=$1; shift; L="$1"; shift
  r=$(timeout 30 $G run sense_reversing_barrier_grouped --blocks-per-sm $B --iters 1000 --repeats 5 --timeout 4 \
      --param check_every=8 "$@" 2>&1 | grep -E "^time|^outcome|FAIL" | tr '\n' ' ')
  echo "B=$B $L: $r"; }
for B in 1 2 4 8 16; do
  timeout 60 $G bench --family barrier --only grid.sync --blocks-per-sm $B --repeats 5 --timeout 4 --out $R/gs$B 2>&1 | grep blk/SM
  case $B in
  1) for x in 0 64 256; do sw 1 "flat bo$x" --backoff-max-ns $x; done;;
  2|4) for x in 0 32 64 128 256; do sw $B "flat bo$x" --param flat_max=$B --backoff-max-ns $x; done
       for g in 8 16 32 64; do sw $B "g$g bo64" --param group_size=$g --backoff-max-ns 64; done;;
  8) for x in 32 64 128; do sw 8 "g16 bo$x" --param group_size=16 --backoff-max-ns $x; done
     sw 8 "g32 bo64" --param group_size=32 --backoff-max-ns 64; sw 8 "flat bo128" --param flat_max=8 --backoff-max-ns 128;;
  16) for g in 16 32; do for x in 64 128; do sw 16 "g$g bo$x" --param group_size=$g --backoff-max-ns $x; done; done;;
  esac
done
echo "== bench barrier"
time timeout 220 $G bench --family barrier --repeats 5 --timeout 4 --out $R/bench 2>&1 | grep blk/SM
tar czf $OUT/res1.tgz -C $R .
ls -la $OUT
