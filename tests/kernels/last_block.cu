// The last block to finish sums every block's partial result (CUDA's
// threadFenceReduction sample, one thread per block): each block writes
// its partial sum, fences, and takes a ticket with atomicInc; the block
// with the last ticket reads all partials. The writer's fence orders its
// partial before its ticket; the reader needs one too, between the ticket
// it read and the partials it reads (the sample as published has none:
// `last_block_reader_unfenced` is that, a data race under ptx).
#include <cassert>

__device__ unsigned int tickets;

__global__ void last_block(int *partial, int *total) {
  partial[blockIdx.x] = blockIdx.x + 1;
  __threadfence();
  unsigned int ticket = atomicInc(&tickets, gridDim.x);
  if (ticket == gridDim.x - 1) {
    __threadfence();
    int sum = 0;
    for (unsigned int b = 0; b < gridDim.x; b++) {
      sum += partial[b];
    }
    assert(sum == (int)(gridDim.x * (gridDim.x + 1) / 2));
    total[0] = sum;
  }
}

__global__ void last_block_reader_unfenced(int *partial, int *total) {
  partial[blockIdx.x] = blockIdx.x + 1;
  __threadfence();
  unsigned int ticket = atomicInc(&tickets, gridDim.x);
  if (ticket == gridDim.x - 1) {
    int sum = 0;
    for (unsigned int b = 0; b < gridDim.x; b++) {
      sum += partial[b];
    }
    total[0] = sum;
  }
}
