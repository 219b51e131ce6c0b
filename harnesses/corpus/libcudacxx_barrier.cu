//! name: libcudacxx_barrier
//! source: libcu++ (NVIDIA/cccl), cuda/std/__barrier/barrier.h (the `__empty_completion` barrier: phase, arrived and expected counts in one 64-bit atomic) with its polling back-off, included unmodified from ../shared/cuda-corpus/libcudacxx-barrier (the rest of libcu++ from the cccl wheel)
//! description: cuda::barrier at device scope, used across blocks for three phases: each block publishes its slot with a plain store before arriving, and reads every slot after the wait
//! cuda-include: ../../../shared/cuda-corpus/libcudacxx-barrier/src/libcudacxx/include
//! note: The barrier is a kernel argument whose word the host set, as `cuda::barrier(count)` does: `((2^31 - count) << 32) | (2^31 - count)`, 9223372030412324862 for a count of 2 and 9223372034707292159 for 1. Its wait polls with a back-off that reads `%globaltimer`; time stands still in the model, so the back-off only spins.
//! note: With the count at the number of blocks, every phase's writes are visible after its wait, and the barrier is reused across phases without an early arrival counting in the phase before. With a count of 1 for 2 blocks, the first block passes alone and reads a slot not yet written.
//! expect --kernel barrier_publish --grid 2 --block 1 --arg bar[0]=9223372030412324862: verified
//! expect --kernel barrier_publish --grid 1 --block 2 --arg bar[0]=9223372030412324862: verified
//! expect --kernel barrier_publish --grid 2 --block 1 --arg bar[0]=9223372034707292159: violated assertion
//! note: The block-scope barrier (`cuda::barrier<cuda::thread_scope_block>` in shared memory) is not checked: it lives in a byte array read as 64-bit words and uses the hardware `mbarrier` (see the book's corpus table).

// Written for gsync-check: a kernel that uses libcu++'s device-scope
// barrier as a CUDA program does.
#include <cuda/barrier>

__device__ void expect_all(const int *slot, int value) {
  for (unsigned int b = 0; b < gridDim.x * blockDim.x; b++) {
    if (slot[b] != value) {
      __trap();
    }
  }
}

__global__ void barrier_publish(cuda::barrier<cuda::thread_scope_device> *bar, int *slot) {
  unsigned int me = blockIdx.x * blockDim.x + threadIdx.x;
  slot[me] = 1;
  bar->arrive_and_wait();
  expect_all(slot, 1);
  bar->arrive_and_wait();
  slot[me] = 2;
  bar->arrive_and_wait();
  expect_all(slot, 2);
}
