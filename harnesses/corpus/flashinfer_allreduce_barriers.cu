//! name: flashinfer_allreduce_barriers
//! source: flashinfer, include/flashinfer/comm/vllm_custom_all_reduce.cuh (vLLM v0.8.2's multi_gpu_barrier: per-block counters written into the peers' Signal buffers through the RankSignals array of pointers) and include/flashinfer/comm/trtllm_allreduce.cuh (TensorRT-LLM's multi_gpu_barrier and block_barrier over `uint32_t **signals`), included unmodified from ../shared/cuda-corpus/flashinfer-allreduce-barriers
//! description: flashinfer's multi-GPU barriers, two GPUs: each GPU's block signals its peers through a host-set array of pointers to the GPUs' buffers and waits for their signals in its own; data published before a barrier is read from the peer's buffer after it
//! cuda-include: ../../../shared/cuda-corpus/flashinfer-allreduce-barriers/src/include
//! cuda-include: ../../tests/llvm/stubs/flashinfer/comm
//! cuda-define: _CG_CLUSTER_INTRINSICS_AVAILABLE
//! note: Each launch stands for the all-reduce kernel launched with one block of 2 threads on each of two GPUs (world size 2; the threads below the world size signal): the harness's block b plays GPU b, whose rank is b. vLLM's barrier reads `blockIdx.x` as the block's index in its own GPU's grid, 0 on both (a macro before the include); TensorRT-LLM's takes the block index as an argument (0). Every access of the barriers is volatile or `.sys`-scoped and `__syncthreads` is per block, so placing the two GPUs' blocks in one launch gives them no ordering they lack across GPUs.
//! note: The arrays of pointers are arguments the host sets: each pointer word points to a buffer of its own (`sg->@0`, `sg->@8`, ...: `--arg NAME->@BYTE=N` gives its length). A GPU's `self_sg` is `sg.signals[rank]`, as vLLM's CustomAllreduce sets it. A vLLM Signal is 3456 bytes and its temporary buffer (`get_tmp_buf`) follows it, so `sg->@0` and `sg->@8` get 866 words; under ptx a state that large makes the search take many minutes, so vLLM's barrier is checked under sc here, TensorRT-LLM's (8-word flag buffers) under ptx.
//! expect --kernel barrier_pair --grid 2 --block 2 --arg sg->@0=866 --arg sg->@8=866 --memory-model sc: verified
//! expect --kernel exchange_fenced --grid 2 --block 2 --arg sg->@0=866 --arg sg->@8=866 --memory-model sc: verified
//! note: With `need_fence` false the barrier ends without a __syncthreads: a thread leaves once its own peer has signalled, and reads another GPU's word before that GPU wrote it (vLLM uses this form only as the last barrier of a kernel, where no data crosses it).
//! expect --kernel exchange_unfenced --grid 2 --block 2 --arg sg->@0=866 --arg sg->@8=866 --memory-model sc: violated assertion
//! note: The corpus driver's kernel (`vllm_barriers_kernel`: one GPU, rank 0, whose `self_sg` is an argument of its own) deadlocks: its thread 1 waits for a signal only the peer GPU writes, and the peer is not part of that launch. That is the launch's gap, not the barrier's; `one_gpu` shows it.
//! expect --kernel one_gpu --grid 1 --block 2 --arg rank=0 --arg self_sg=866 --arg sg->@0=866 --arg sg->@8=866: violated deadlock
//! expect --kernel trtllm_barriers --grid 2 --block 2 --arg flag=1 --arg signals=2 --arg signals->@0=8 --arg signals->@8=8: verified
//! expect --kernel trtllm_exchange_synced --grid 2 --block 2 --arg flag=1 --arg signals=2 --arg signals->@0=8 --arg signals->@8=8 --arg data=2 --arg data->@0=2 --arg data->@8=2: verified
//! note: TensorRT-LLM's barriers signal from the threads below the world size only, with no __syncthreads before: a peer that passes the barrier knows that thread's writes, not the block's. The one-shot all-reduce's copy path (trtllm_allreduce.cuh:1229, then block_barrier at :1236, then the reads of the peers' buffers) has exactly that shape, and the model finds the peer reading a word another thread has not yet copied: a real bug in that path (the copy needs a __syncthreads before the barrier), not a gap of the model. `trtllm_exchange_synced` is the same code with the __syncthreads.
//! expect --kernel trtllm_exchange_unsynced --grid 2 --block 2 --arg flag=1 --arg signals=2 --arg signals->@0=8 --arg signals->@8=8 --arg data=2 --arg data->@0=2 --arg data->@8=2: violated assertion

// Written for gsync-check: kernels that call flashinfer's copy of vLLM's
// multi-GPU barrier as its all-reduce kernels do.
#include "flashinfer/comm/trtllm_allreduce.cuh"

// The GPU a block plays: its index in the launch.
__device__ __forceinline__ int gpu_of_block() { return blockIdx.x; }

// Each GPU runs one block: in the barrier, the block's index in its
// GPU's grid is 0.
#define blockIdx (uint3{0, 0, 0})
#include "flashinfer/comm/vllm_custom_all_reduce.cuh"
#undef blockIdx

// The start barrier, then the fenced one, as cross_device_reduce_2stage
// passes them.
__global__ void barrier_pair(vllm::RankSignals sg) {
  int rank = gpu_of_block();
  vllm::Signal *self_sg = sg.signals[rank];
  vllm::multi_gpu_barrier<2, true>(sg, self_sg, rank);
  vllm::multi_gpu_barrier<2, false, true>(sg, self_sg, rank);
}

// Each thread publishes a word in its GPU's temporary buffer, crosses the
// barrier, then reads the word of the same thread on every GPU.
template <bool need_fence>
__device__ void exchange(vllm::RankSignals sg) {
  int rank = gpu_of_block();
  vllm::Signal *self_sg = sg.signals[rank];
  vllm::multi_gpu_barrier<2, true>(sg, self_sg, rank);
  vllm::get_tmp_buf<int>(self_sg)[threadIdx.x] = rank + 1;
  vllm::multi_gpu_barrier<2, false, need_fence>(sg, self_sg, rank);
  for (int r = 0; r < 2; r++) {
    if (vllm::get_tmp_buf<int>(sg.signals[r])[threadIdx.x] != r + 1) {
      __trap();
    }
  }
}

__global__ void exchange_fenced(vllm::RankSignals sg) { exchange<true>(sg); }

__global__ void exchange_unfenced(vllm::RankSignals sg) { exchange<false>(sg); }

// The corpus driver's kernel: one GPU alone.
__global__ void one_gpu(vllm::RankSignals sg, vllm::Signal *self_sg, int rank) {
  vllm::multi_gpu_barrier<2, true>(sg, self_sg, rank);
  vllm::multi_gpu_barrier<2, false, true>(sg, self_sg, rank);
}

// TensorRT-LLM's barriers through `uint32_t **signals`, a host-set array
// of the GPUs' flag buffers: the whole-GPU barrier, then the per-block
// one, each GPU's block 0 (the barriers take the block index as an
// argument).
__global__ void trtllm_barriers(uint32_t **signals, uint32_t flag) {
  size_t rank = gpu_of_block();
  flashinfer::trtllm_allreduce::multi_gpu_barrier(signals, flag, rank, 2, threadIdx.x, 0);
  flashinfer::trtllm_allreduce::block_barrier(signals, flag, rank, 2, threadIdx.x, 0, 1);
}

// The copy path of the one-shot all-reduce (trtllm_allreduce.cuh, lines
// 1221-1237): each thread copies its word into its GPU's shareable buffer
// (`data`), the block barrier, then each thread reads the word of the
// same thread on the peer. With `sync_first`, a __syncthreads comes
// before the barrier.
template <bool sync_first>
__device__ void trtllm_exchange(uint32_t **signals, uint32_t **data, uint32_t flag) {
  size_t rank = gpu_of_block();
  data[rank][threadIdx.x] = rank + 1;
  if (sync_first) {
    __syncthreads();
  }
  flashinfer::trtllm_allreduce::block_barrier(signals, flag, rank, 2, threadIdx.x, 0, 1);
  size_t peer = 1 - rank;
  if (data[peer][threadIdx.x] != peer + 1) {
    __trap();
  }
}

__global__ void trtllm_exchange_synced(uint32_t **signals, uint32_t **data, uint32_t flag) {
  trtllm_exchange<true>(signals, data, flag);
}

__global__ void trtllm_exchange_unsynced(uint32_t **signals, uint32_t **data, uint32_t flag) {
  trtllm_exchange<false>(signals, data, flag);
}
