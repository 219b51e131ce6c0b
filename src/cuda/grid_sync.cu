// The external baseline: CUDA cooperative groups' grid.sync(), launched
// cooperatively, with the same phase check as the generated harness
// (thread 0 of each block records the phase it entered and, after the
// barrier, reads one other block's record; phases 1, 1 + GS_PHASE_SAMPLE,
// ... as the harness does).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef GS_PHASE_SAMPLE
#define GS_PHASE_SAMPLE 8u
#endif

__device__ unsigned int gs_arrived[65536];
__device__ unsigned int gs_phase_errors;

extern "C" __global__ void grid_sync_kernel(unsigned int iters)
{
    cg::grid_group grid = cg::this_grid();
    unsigned int n = gridDim.x, me = blockIdx.x;
    for (unsigned int k = 1; k <= iters; k++) {
        bool checked = (k - 1) % GS_PHASE_SAMPLE == 0;
        if (threadIdx.x == 0 && checked) *(volatile unsigned int*)&gs_arrived[me] = k;
        grid.sync();
        if (threadIdx.x == 0 && n > 1 && checked) {
            unsigned int other = (me + 1 + (k - 1) / GS_PHASE_SAMPLE % (n - 1)) % n;
            if (*(volatile unsigned int*)&gs_arrived[other] < k) atomicAdd(&gs_phase_errors, 1u);
        }
    }
}
