//! name: vllm_custom_allreduce
//! source: vLLM, csrc/custom_all_reduce.cuh (start_sync and end_sync: flags reset and set in the peers' Signal buffers through the RankSignals array of pointers), included unmodified from ../shared/cuda-corpus/vllm-custom-allreduce
//! description: vLLM's start and end barriers of its custom all-reduce, two GPUs: each GPU's block resets its own flag, sets its slot in every peer's Signal buffer through `sg.signals[threadIdx.x]`, and waits for the peers' flags in its own; data published before the end barrier is read from the peer after it
//! cuda-include: ../../../shared/cuda-corpus/vllm-custom-allreduce/src
//! cuda-define: __restrict__=
//! note: The launch stands for `cross_device_reduce_2stage<<<1, 2>>>` on each of two GPUs (world size 2, one block of 2 threads per GPU): the harness's block b plays GPU b, whose rank is b, and the barrier's `blockIdx.x` (its block's index in its own GPU's grid) is 0 on both, by a macro before the include. Every flag access is volatile (system scope) and `__syncthreads` is per block, so placing the two GPUs' blocks in one launch gives them no ordering they lack across GPUs. 
//! note: `sg` is the RankSignals argument the host sets: each of its pointer words points to a buffer of its own (`sg->@0`, `sg->@8`, ...); a GPU's `self_sg` is `sg.signals[rank]`, as CustomAllreduce sets it. A Signal is 4096 bytes (1024 words), so the checks run under sc: under ptx a state that large takes many minutes.
//! expect --kernel start_end --grid 2 --block 2 --arg sg->@0=1026 --arg sg->@8=1026 --memory-model sc: verified
//! expect --kernel exchange --grid 2 --block 2 --arg sg->@0=1026 --arg sg->@8=1026 --memory-model sc: verified
//! note: start_sync, as its comment says, makes no guarantee for what comes before it (no __syncthreads before its signal): data published before it may be read by the peer before it is written.
//! expect --kernel exchange_at_start --grid 2 --block 2 --arg sg->@0=1026 --arg sg->@8=1026 --memory-model sc: violated assertion
//! note: Two launches in a row, each GPU entering its second once its block is done with the first: under sc the flags' reset and set never lose a signal (`sg->@0` and `sg->@8` need only the flags, 514 words).
//! expect --kernel two_launches --grid 2 --block 2 --arg sg->@0=514 --arg sg->@8=514 --memory-model sc: verified
//! note: Under ptx the same launch ends in a deadlock (34810 states, 1329 s on a 2-core VM, so not an expectation here) that is not yet triaged: GPU 1's thread 0 keeps waiting in its first start_sync for a flag GPU 0 had set. Its flags are reset and set by volatile (relaxed) stores with no fence between the final end_sync and the next start_sync, which PTX does not order for another GPU (vLLM later replaced these flags with counters); whether that is what the trace shows, or a gap of the model, is open.
//! note: The all-reduce itself: `allreduce_1stage` and `allreduce_2stage` run vLLM's `cross_device_reduce_1stage<float, 2>` and `cross_device_reduce_2stage<float, 2>` (their template, made a device function by a macro around the include) as each GPU launches them, with its rank, its own Signal and its own result buffer (`out->@0`, `out->@8`); `dp` holds the GPUs' inputs (`dp->@0`, `dp->@8`), 2 packs of 4 floats each (`size=2`), given as their bits: 0.1 + 0.2, 1e8 + 1 (rounded back to 1e8), -0 + -0, 3 + -3, 1.5 + 2.25, the least subnormal twice, 2^24 + 1 (rounded to even), -2.5 + 2.5. After its kernel each GPU's thread 0 checks that every result element is the single-precision sum of the two inputs: the floats are added at run time, as IEEE rounds them, and the barriers make each peer's input (1stage) or partial sums (2stage, which gathers from the peers' temporary buffers after `get_tmp_buf`, past each Signal: 1024 + 8 words) visible before they are read.
//! expect --kernel allreduce_1stage --grid 2 --block 2 --arg size=2 --arg dp=8 --arg out=2 --arg dp->@0=8 --arg dp->@8=8 --arg out->@0=8 --arg out->@8=8 --arg sg->@0=1026 --arg sg->@8=1026 --arg dp->@0[0]=1036831949 --arg dp->@0[1]=1287568416 --arg dp->@0[2]=-2147483648 --arg dp->@0[3]=1077936128 --arg dp->@0[4]=1069547520 --arg dp->@0[5]=1 --arg dp->@0[6]=1266679808 --arg dp->@0[7]=-1071644672 --arg dp->@8[0]=1045220557 --arg dp->@8[1]=1065353216 --arg dp->@8[2]=-2147483648 --arg dp->@8[3]=-1069547520 --arg dp->@8[4]=1074790400 --arg dp->@8[5]=1 --arg dp->@8[6]=1065353216 --arg dp->@8[7]=1075838976 --memory-model sc: verified
//! expect --kernel allreduce_2stage --grid 2 --block 2 --arg size=2 --arg dp=8 --arg out=2 --arg dp->@0=8 --arg dp->@8=8 --arg out->@0=8 --arg out->@8=8 --arg sg->@0=1032 --arg sg->@8=1032 --arg dp->@0[0]=1036831949 --arg dp->@0[1]=1287568416 --arg dp->@0[2]=-2147483648 --arg dp->@0[3]=1077936128 --arg dp->@0[4]=1069547520 --arg dp->@0[5]=1 --arg dp->@0[6]=1266679808 --arg dp->@0[7]=-1071644672 --arg dp->@8[0]=1045220557 --arg dp->@8[1]=1065353216 --arg dp->@8[2]=-2147483648 --arg dp->@8[3]=-1069547520 --arg dp->@8[4]=1074790400 --arg dp->@8[5]=1 --arg dp->@8[6]=1065353216 --arg dp->@8[7]=1075838976 --memory-model sc: verified

// Written for gsync-check: kernels that call vLLM's barriers as its
// all-reduce kernels do.
#include <array>  // the header uses std::array without including it
#include <cuda_runtime.h>

// The GPU a block plays: its index in the launch.
__device__ __forceinline__ int gpu_of_block() { return blockIdx.x; }

// Each GPU runs one block: in vLLM's code, the block's index in its
// GPU's grid is 0 and the grid is one block.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define blockIdx (uint3{0, 0, 0})
#define gridDim (uint3{1, 1, 1})
// vLLM's all-reduce kernels become device functions, which the kernels
// below call as the GPU of their block (a kernel cannot call a kernel).
#pragma push_macro("__global__")
#pragma push_macro("__launch_bounds__")
#undef __global__
#undef __launch_bounds__
#define __global__ __device__
#define __launch_bounds__(...)
#include "csrc/custom_all_reduce.cuh"
#pragma pop_macro("__launch_bounds__")
#pragma pop_macro("__global__")
#undef gridDim
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

// What the host finds in a GPU's result after its kernel: element i is
// input 0's plus input 1's, as IEEE single precision rounds the sum (vLLM
// adds in rank order on every GPU, so both GPUs' results are these bits).
__device__ void check_sums(const float *in0, const float *in1, const float *result, int n) {
  __syncthreads();  // the kernel's end on this GPU
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; i++) {
      if (result[i] != in0[i] + in1[i]) {
        __trap();
      }
    }
  }
}

// vLLM's all-reduce kernels for float at two GPUs, as GPU `rank` launches
// them: `dp` holds both GPUs' inputs, each GPU has its own Signal
// (`sg.signals[rank]`) and result buffer (`out->ptrs[rank]`); `size`
// counts 16-byte packs of 4 floats.
template <bool two_stage>
__device__ void allreduce(vllm::RankData *dp, vllm::RankSignals sg, vllm::RankData *out, int size) {
  const float *in0 = (const float *)dp->ptrs[0];
  const float *in1 = (const float *)dp->ptrs[1];
  int rank = gpu_of_block();
  float *result = (float *)out->ptrs[rank];
  if (two_stage) {
    vllm::cross_device_reduce_2stage<float, 2>(dp, sg, sg.signals[rank], result, rank, size);
  } else {
    vllm::cross_device_reduce_1stage<float, 2>(dp, sg, sg.signals[rank], result, rank, size);
  }
  check_sums(in0, in1, result, size * 4);
}

__global__ void allreduce_1stage(vllm::RankData *dp, vllm::RankSignals sg, vllm::RankData *out, int size) {
  allreduce<false>(dp, sg, out, size);
}

__global__ void allreduce_2stage(vllm::RankData *dp, vllm::RankSignals sg, vllm::RankData *out, int size) {
  allreduce<true>(dp, sg, out, size);
}
