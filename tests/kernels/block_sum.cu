// A block's tree reduction in shared memory: each step reads what other
// threads wrote in the step before, so a __syncthreads() ends each step.
// Without the one in the loop, a thread reads its partner's slot while
// the partner may still be adding into it: a data race (under ptx).
#include <cassert>

__global__ void block_sum(int *out) {
  __shared__ int s[4];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      s[threadIdx.x] += s[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    assert(s[0] == (int)(blockDim.x * (blockDim.x + 1) / 2));
    out[blockIdx.x] = s[0];
  }
}

__global__ void block_sum_unsynchronized(int *out) {
  __shared__ int s[4];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      s[threadIdx.x] += s[threadIdx.x + stride];
    }
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = s[0];
  }
}
