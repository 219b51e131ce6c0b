// gsync-check test driver: flashinfer's TensorRT-LLM barriers and its vLLM
// (v0.8.2) multi-GPU barrier, each called from a kernel.
#include "cuda-corpus/flashinfer-allreduce-barriers/src/include/flashinfer/comm/trtllm_allreduce.cuh"
#include "cuda-corpus/flashinfer-allreduce-barriers/src/include/flashinfer/comm/vllm_custom_all_reduce.cuh"

__global__ void trtllm_barriers_kernel(uint32_t **signals, uint32_t flag, size_t rank, size_t world) {
  flashinfer::trtllm_allreduce::multi_gpu_barrier(signals, flag, rank, world, threadIdx.x, blockIdx.x);
  flashinfer::trtllm_allreduce::block_barrier(signals, flag, rank, world, threadIdx.x, blockIdx.x, gridDim.x);
}

__global__ void vllm_barriers_kernel(vllm::RankSignals sg, vllm::Signal *self_sg, int rank) {
  vllm::multi_gpu_barrier<2, true>(sg, self_sg, rank);
  vllm::multi_gpu_barrier<2, false, true>(sg, self_sg, rank);
}
