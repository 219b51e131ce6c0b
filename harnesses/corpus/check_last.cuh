// Written for gsync-check: the corpus harnesses' end-of-kernel check.
#pragma once

__device__ unsigned int finished;

// The last thread to finish (a fenced ticket) sees every thread's
// increment of `*counter`; otherwise the kernel traps.
__device__ void check_last(int *counter) {
  __threadfence();
  unsigned int n = gridDim.x * blockDim.x;
  if (atomicAdd(&finished, 1) == n - 1) {
    __threadfence();
    if (*counter != (int)n) {
      __trap();
    }
  }
}
