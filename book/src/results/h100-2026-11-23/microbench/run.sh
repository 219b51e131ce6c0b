#!/bin/bash
# One device call: compile every variant, dump SASS, time all side by side, ncu a few.
cd "$(dirname "$0")"
exec > >(tee $OUT/mb.txt) 2>&1
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u
A="-cubin -arch=sm_90 -O3"
P=""; nvcc $A hand.cu -o hand.cubin & P="$P $!"; nvcc $A gs.cu -o gs.cubin & P="$P $!"
for f in e_*.cu; do nvcc $A $f -o ${f%.cu}.cubin 2>/dev/null & P="$P $!"; done
nvcc -O2 host.cpp -o host -lcuda -I/usr/local/cuda/include || exit 1
wait $P; ls *.cubin | wc -l
H=/usr/local/cuda/include/cooperative_groups/details
grep -n -A40 "sync_grids" $H/sync.h > $OUT/cg_sync.txt 2>&1; grep -rn "sync_grids" $H | head >> $OUT/cg_sync.txt
{ cuobjdump -sass -fun grid_sync_nophase gs.cubin; cuobjdump -sass -fun k_cg_t0 hand.cubin; cuobjdump -sass -fun k_fence_t0 hand.cubin; cuobjdump -sass -fun k_acqrel_fences_t0 hand.cubin; cuobjdump -sass e_one_16.cubin; } > $OUT/sass.txt 2>&1
HK="cg_all k_cg_all hand|cg_all_coop k_cg_all coop|cg_all_phase k_cg_all_phase hand|cg_t0 k_cg_t0 hand|cg_t0_sense k_cg_t0_sense hand|cg_t0_phase k_cg_t0_phase hand|cg_t0_poll k_cg_t0_poll hand|cg_t0_phase_poll k_cg_t0_phase_poll hand|fence_t0 k_fence_t0 hand|fence_t0_phase_poll k_fence_t0_phase_poll hand|fence_all k_fence_all hand|acqrel_fences_t0 k_acqrel_fences_t0 hand|acqrel_atom_t0 k_acqrel_atom_t0 hand|two k_two hand|two_hier k_two_hier hand|smid k_smid smid"
for B in 1 4 8 16; do
  L="grid.sync=gs.cubin:grid_sync_kernel:coop grid.sync_nophase=gs.cubin:grid_sync_nophase:coop"
  IFS='|'; for h in $HK; do IFS=' ' read a k t <<< "$h"; L="$L $a=hand.cubin:$k:$t"; done; unset IFS
  for v in one one_nophase one_nopoll one_acqrel one_bare fast fast_nophase hra; do L="$L e_$v=e_${v}_$B.cubin:gsync_kernel:gen"; done
  timeout 120 ./host $B 1000 7 132 $L
done
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_atom.sum,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum
timeout 200 ncu --metrics $M ./host 16 100 1 132 grid.sync=gs.cubin:grid_sync_nophase:coop cg_t0=hand.cubin:k_cg_t0:hand fence_t0=hand.cubin:k_fence_t0:hand e_one_bare=e_one_bare_16.cubin:gsync_kernel:gen e_one=e_one_16.cubin:gsync_kernel:gen 2>&1 | grep -v "^==PROF==" > $OUT/ncu.txt
tail -60 $OUT/ncu.txt
