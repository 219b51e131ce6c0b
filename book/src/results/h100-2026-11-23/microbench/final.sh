#!/bin/bash
cd "$(dirname "$0")"
exec > >(tee $OUT/final.txt) 2>&1
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; nvcc --version | tail -1; date -u
G=../gsync-check
time timeout 420 $G bench --out $OUT/h100 --repeats 5 --timeout 4 2>&1 | tail -80
A="-cubin -arch=sm_90 -O3"
P=""; nvcc $A hand.cu -o hand.cubin & P="$P $!"; nvcc $A gs.cu -o gs.cubin & P="$P $!"
for f in e_*.cu; do nvcc $A $f -o ${f%.cu}.cubin 2>/dev/null & P="$P $!"; done
nvcc -O2 host.cpp -o host -lcuda -I/usr/local/cuda/include || exit 1
wait $P; ls *.cubin | wc -l
for B in 1 2 4 8 16; do
  L="grid.sync=gs.cubin:grid_sync_kernel:coop grid.sync_nophase=gs.cubin:grid_sync_nophase:coop cg_t0=hand.cubin:k_cg_t0:hand two=hand.cubin:k_two:hand two_hier=hand.cubin:k_two_hier:hand"
  for v in grouped hra fast; do L="$L e_$v=e_${v}_$B.cubin:gsync_kernel:gen"; done
  timeout 60 stdbuf -oL ./host $B 1000 9 132 $L
done
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_atom.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
for B in 8 16; do
timeout 100 ncu --metrics $M ./host $B 1000 1 132 grid.sync=gs.cubin:grid_sync_kernel:coop e_grouped=e_grouped_$B.cubin:gsync_kernel:gen 2>&1 | grep -v "^==PROF==" | grep -E "^  [a-z_]+ \(|duration|sectors" > $OUT/ncu_$B.txt
cat $OUT/ncu_$B.txt
done
