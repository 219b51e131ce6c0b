//! name: ginkgo_syncfree_scheduler
//! source: Ginkgo, common/cuda_hip/components/syncfree.hpp with the memory and cooperative-group helpers it includes (memory.nvidia.hpp.inc, cooperative_groups.cuh, atomic.hpp), included unmodified from ../shared/cuda-corpus/ginkgo-syncfree-scheduler
//! description: Ginkgo's sync-free scheduler as its LU factorization uses it: blocks number themselves in start order, each subwarp is one work item, and an item waits for the item before it through a `.cta` shared-memory flag (same block) or a `.gpu` global flag (another block), then publishes its own value and marks itself ready
//! cuda-include: ../../../shared/cuda-corpus/ginkgo-syncfree-scheduler/src
//! cuda-include: ../../tests/llvm/stubs/ginkgo
//! cuda-define: GKO_COMPILING_CUDA
//! cuda-define: GKO_DEVICE_NAMESPACE=cuda
//! note: Ginkgo's headers that the corpus does not carry (its public array, config and type headers) are stubs of ours under tests/llvm/stubs/ginkgo, declaring only the names the scheduler's code uses; GKO_COMPILING_CUDA and GKO_DEVICE_NAMESPACE are what Ginkgo's CMake defines for its CUDA sources. The shared-memory flags are read and written by inline PTX at a shared window address made by `cvta.to.shared`, which the model follows back to the flag.
//! note: `syncfree_storage` is the kernel argument `deps`: its status array and block counter are buffers of their own (Ginkgo puts the counter one past the statuses; they never overlap).
//! note: Work item w reads item w-1's value after wait(w-1) and asserts it is w; lane 0 writes its own value before mark_ready(). Same-block dependencies go through the shared `.cta` flag, the others through the global `.gpu` one: every value is seen, with subwarps of 2 lanes (the lanes read after the tile's sync that follows lane 0's acquire) and with 1 or 2 items per block.
//! expect --kernel chain_2x2 --grid 2 --block 2: verified
//! expect --kernel chain_2x2 --grid 3 --block 2: verified
//! expect --kernel chain_4x2 --grid 1 --block 4: verified
//! note: With one block resident at a time (the others start as it finishes), the chain still ends: blocks number themselves in the order they start (an atomic ticket, not blockIdx), so an item only waits for items of blocks that started before it.
//! expect --kernel chain_2x2 --grid 3 --block 2 --resident 1: verified
//! note: The value written by the subwarp's last lane instead of lane 0 is published too: mark_ready() syncs the tile before lane 0's release.
//! expect --kernel chain_4x2_last_lane --grid 1 --block 4: verified
//! note: Reading the dependency's value before waiting races with its write, as it should.
//! expect --kernel early_read --grid 1 --block 4: violated race
//! note: A latent race in the constructor: it clears the shared flags with `for (i = threadIdx.x; i < local_dependency_count; i += subwarp_size)` (syncfree.hpp lines 63 and 64), a stride of subwarp_size where each thread should take its own flags. When a block holds more work items than a subwarp has lanes (block_size > subwarp_size²), two threads store to one flag: a data race (both store 0, so harmless on hardware). Ginkgo instantiates it with warps of 32 and blocks of 512 (16 items per block), where it does not arise; with subwarps of one lane and blocks of two it does.
//! expect --kernel chain_2x1 --grid 1 --block 2: violated race

// Written for gsync-check: kernels that use Ginkgo's syncfree_scheduler
// as its LU factorization does, one work item per subwarp.
#include "common/cuda_hip/components/syncfree.hpp"

using gko::kernels::cuda::syncfree_scheduler;
using gko::kernels::cuda::syncfree_storage;

// Work item w reads item w-1's value after waiting for it (or before, when
// `early`), and lane `writer` publishes its own (one more) before marking
// the item ready.
template <int block_size, int subwarp_size, int writer = 0, bool early = false>
__device__ void chain(syncfree_storage deps, int *value) {
  using scheduler_t = syncfree_scheduler<block_size, subwarp_size, int>;
  __shared__ typename scheduler_t::shared_storage sh;
  scheduler_t scheduler(deps, sh);
  const int w = scheduler.get_work_id();
  int prev = 0;
  if (w > 0) {
    if (early) {
      prev = value[w - 1];
    }
    scheduler.wait(w - 1);
    if (!early) {
      prev = value[w - 1];
    }
  }
  if (prev != w) {
    __trap();
  }
  if (scheduler.get_lane() == writer) {
    value[w] = prev + 1;
  }
  scheduler.mark_ready();
}

__global__ void chain_2x2(syncfree_storage deps, int *value) { chain<2, 2>(deps, value); }
__global__ void chain_4x2(syncfree_storage deps, int *value) { chain<4, 2>(deps, value); }
__global__ void chain_4x2_last_lane(syncfree_storage deps, int *value) { chain<4, 2, 1>(deps, value); }
__global__ void early_read(syncfree_storage deps, int *value) { chain<4, 2, 0, true>(deps, value); }
__global__ void chain_2x1(syncfree_storage deps, int *value) { chain<2, 1>(deps, value); }
