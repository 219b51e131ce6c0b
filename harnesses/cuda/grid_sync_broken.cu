// gsync-check's own grid barrier in the manner of cooperative groups'
// grid.sync() for GPUs before Volta (the protocol the book describes), with
// switches that break it on purpose, so that the grid-sync harness shows
// it can fail. Written for gsync-check; not NVIDIA's code.
//
// Each block's thread 0 adds to one arrival word: block 0 adds
// 0x80000000 - (blocks - 1), the others 1, so the top bit flips when the
// last block has added; each waits for the flip.

__device__ bool flipped_since(unsigned int before, unsigned int now) {
  return ((before ^ now) & 0x80000000u) != 0;
}

// drop_fence: no __threadfence() before the addition, so the block's
// earlier writes are not ordered before its arrival.
// drop_flip: block 0 adds 1 like everyone else, so the top bit never flips.
__device__ void grid_barrier(volatile unsigned int *word, bool drop_fence,
                             bool drop_flip) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned int add = 1;
    if (blockIdx.x == 0 && !drop_flip) {
      add = 0x80000000u - (gridDim.x - 1);
    }
    if (!drop_fence) {
      __threadfence();
    }
    const unsigned int before = atomicAdd((unsigned int *)word, add);
    while (!flipped_since(before, *word)) {
    }
    __threadfence();
  }
  __syncthreads();
}
