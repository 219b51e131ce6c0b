//! name: vllm_custom_allreduce
//! source: vLLM, csrc/custom_all_reduce.cuh (start_sync and end_sync: flags reset and set in the peers' Signal buffers through the RankSignals array of pointers), included unmodified from ../shared/cuda-corpus/vllm-custom-allreduce
//! description: vLLM's start and end barriers of its custom all-reduce, two GPUs: each GPU's block resets its own flag, sets its slot in every peer's Signal buffer through `sg.signals[threadIdx.x]`, and waits for the peers' flags in its own; data published before the end barrier is read from the peer after it
//! cuda-include: ../../../shared/cuda-corpus/vllm-custom-allreduce/src
//! cuda-define: __restrict__=
//! note: The launch stands for `cross_device_reduce_2stage<<<1, 2>>>` on each of two GPUs (world size 2, one block of 2 threads per GPU): the harness's block b plays GPU b, whose rank is b, and the barrier's `blockIdx.x` (its block's index in its own GPU's grid) is 0 on both, by a macro before the include. Every flag access is volatile (system scope) and `__syncthreads` is per block, so placing the two GPUs' blocks in one launch gives them no ordering they lack across GPUs. The kernels themselves add floats at run time (refused: the book's corpus table).
//! note: `sg` is the RankSignals argument the host sets: each of its pointer words points to a buffer of its own (`sg->@0`, `sg->@8`, ...); a GPU's `self_sg` is `sg.signals[rank]`, as CustomAllreduce sets it. A Signal is 4096 bytes (1024 words), so the checks run under sc: under ptx a state that large takes many minutes.
//! expect --kernel start_end --grid 2 --block 2 --arg sg->@0=1026 --arg sg->@8=1026 --memory-model sc: verified
//! expect --kernel exchange --grid 2 --block 2 --arg sg->@0=1026 --arg sg->@8=1026 --memory-model sc: verified
//! note: start_sync, as its comment says, makes no guarantee for what comes before it (no __syncthreads before its signal): data published before it may be read by the peer before it is written.
//! expect --kernel exchange_at_start --grid 2 --block 2 --arg sg->@0=1026 --arg sg->@8=1026 --memory-model sc: violated assertion
//! note: Two launches in a row, each GPU entering its second once its block is done with the first: under sc the flags' reset and set never lose a signal (`sg->@0` and `sg->@8` need only the flags, 514 words).
//! expect --kernel two_launches --grid 2 --block 2 --arg sg->@0=514 --arg sg->@8=514 --memory-model sc: verified
//! note: Under ptx the barriers deadlock, already in one launch: a real ordering bug (triaged in the book's corpus table). start_sync resets its own `end` flag (custom_all_reduce.cuh line 135) and then sets its start flag in the peer (line 138) with two volatile stores, relaxed at system scope, and no fence between them. The peer sees the start flag, passes, and sets this GPU's `end` flag (line 163); nothing orders that set after the reset, so the reset may land last and erase it, and this GPU waits at line 165 forever. PTX allows it (the S litmus shape: the reset and the start flag are not ordered for another thread without a fence or a release). vLLM users reported hangs of this barrier (vllm-project/vllm#8410) and vLLM replaced the flags by counters (vllm-project/vllm#8558). An exhaustive ptx search of a 514-word Signal takes many minutes (two launches: 34810 states, 1329 s on the 2-core VM), so the check is a hunt, which finds it after a few hundred steps.
//! expect --kernel start_end --grid 2 --block 2 --arg sg->@0=514 --arg sg->@8=514 --memory-model ptx --hunt: violated deadlock

// Written for gsync-check: kernels that call vLLM's barriers as its
// all-reduce kernels do.
#include <array>  // the header uses std::array without including it
#include <cuda_runtime.h>

// The GPU a block plays: its index in the launch.
__device__ __forceinline__ int gpu_of_block() { return blockIdx.x; }

// Each GPU runs one block: in the barriers, the block's index in its
// GPU's grid is 0.
#define blockIdx (uint3{0, 0, 0})
#include "csrc/custom_all_reduce.cuh"
#undef blockIdx

// The barriers of cross_device_reduce_1stage.
__global__ void start_end(vllm::RankSignals sg) {
  int rank = gpu_of_block();
  volatile vllm::Signal *self_sg = sg.signals[rank];
  vllm::start_sync<2>(sg, self_sg, rank);
  vllm::end_sync<2, true>(sg, self_sg, rank);
}

// As cross_device_reduce_2stage: each thread publishes a word after its
// Signal (vLLM's temporary buffer), the end barrier with its fence, then
// each reads the word of the same thread on every GPU (stage 2).
template <bool at_start>
__device__ void publish_then_read(vllm::RankSignals sg) {
  int rank = gpu_of_block();
  volatile vllm::Signal *self_sg = sg.signals[rank];
  if (at_start) {
    vllm::get_tmp_buf<int>(self_sg)[threadIdx.x] = rank + 1;
    vllm::start_sync<2>(sg, self_sg, rank);
  } else {
    vllm::start_sync<2>(sg, self_sg, rank);
    vllm::get_tmp_buf<int>(self_sg)[threadIdx.x] = rank + 1;
    vllm::end_sync<2>(sg, self_sg, rank);
  }
  for (int r = 0; r < 2; r++) {
    if (vllm::get_tmp_buf<int>(sg.signals[r])[threadIdx.x] != r + 1) {
      __trap();
    }
  }
}

__global__ void exchange(vllm::RankSignals sg) { publish_then_read<false>(sg); }

// The same words published before start_sync instead.
__global__ void exchange_at_start(vllm::RankSignals sg) { publish_then_read<true>(sg); }

// Two all-reduce launches in a row on each GPU (1stage's barriers): a
// GPU's second launch starts once its own block is done with the first
// (a __syncthreads and a system fence stand for the kernel boundary),
// while its peer may still be in the first.
__global__ void two_launches(vllm::RankSignals sg) {
  int rank = gpu_of_block();
  volatile vllm::Signal *self_sg = sg.signals[rank];
  for (int launch = 0; launch < 2; launch++) {
    vllm::start_sync<2>(sg, self_sg, rank);
    vllm::end_sync<2, true>(sg, self_sg, rank);
    __syncthreads();
    __threadfence_system();
  }
}
