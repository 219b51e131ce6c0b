#!/bin/bash
cd "$(dirname "$0")"
exec > >(tee $OUT/tune.txt) 2>&1
export PATH=/usr/local/cuda/bin:$PATH
date -u
A="-cubin -arch=sm_90 -O3"
P=""; nvcc $A gs.cu -o gs.cubin & P="$P $!"
for f in e_*.cu; do nvcc $A $f -o ${f%.cu}.cubin 2>/dev/null & P="$P $!"; done
nvcc -O2 host.cpp -o host -lcuda -I/usr/local/cuda/include || exit 1
wait $P; ls *.cubin | wc -l
for B in 2 4 8 16; do
  L="grid.sync=gs.cubin:grid_sync_kernel:coop"
  for f in e_*_$B.cu; do v=${f%_$B.cu}; L="$L $v=${f%.cu}.cubin:gsync_kernel:gen"; done
  timeout 100 stdbuf -oL ./host $B 1000 7 132 $L
done
