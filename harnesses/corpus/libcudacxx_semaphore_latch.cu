//! name: libcudacxx_semaphore_latch
//! source: libcu++ (NVIDIA/cccl), cuda/std/__semaphore/atomic_semaphore.h, cuda/std/__latch/latch.h and the scoped atomics and polling they use, included unmodified from ../shared/cuda-corpus/libcudacxx-semaphore-latch (the rest of libcu++ from the cccl wheel)
//! description: libcu++'s counting and binary semaphores and its latch at device scope, used across blocks as a CUDA program would; the objects are kernel arguments whose words the host set (`--arg NAME[0]=V`)
//! cuda-include: ../../../shared/cuda-corpus/libcudacxx-semaphore-latch/src/libcudacxx/include
//! note: libcu++'s waits poll with a back-off that reads `%globaltimer`. Time stands still in the model, so the back-off only spins: its length changes no outcome. Its `__atomic_semaphore` keeps the count in a 64-bit atomic and takes a unit with a compare-exchange through a local `expected` variable (private memory, kept as the thread's own values).
//! note: A binary semaphore as a mutex: the last block to finish (a fenced ticket) asserts that the counter saw every increment. Holding its count at 1 as the host would, mutual exclusion and the release/acquire of the count order the plain increments; at block scope (`thread_scope_block`) the same code races between blocks, as the scope says it may.
//! expect --kernel mutex_counter --grid 2 --block 1 --arg mutex[0]=1: verified
//! expect --kernel mutex_counter --grid 3 --block 1 --arg mutex[0]=1: verified
//! expect --kernel mutex_counter_block_scope --grid 2 --block 1 --arg mutex[0]=1: violated race
//! note: A counting semaphore whose count is 2 admits at most 2 blocks at once (each asserts on an atomic occupancy counter); at a count of 3 a third block gets in.
//! expect --kernel capacity --grid 3 --block 1 --arg sem[0]=2: verified
//! expect --kernel capacity --grid 3 --block 1 --arg sem[0]=3: violated assertion
//! note: The latch: each block writes its slot with a plain store, counts down (release) and waits (acquire), then reads the other blocks' slots. With the latch's count at the number of blocks every slot is visible; at one less, a block passes before the last one has written.
//! expect --kernel latch_publish --grid 2 --block 1 --arg latch[0]=2: verified
//! expect --kernel latch_publish --grid 3 --block 1 --arg latch[0]=3: verified
//! expect --kernel latch_publish --grid 2 --block 1 --arg latch[0]=1: violated

// Written for gsync-check: kernels that use libcu++'s semaphores and latch
// as a CUDA program does.
#include <cuda/latch>
#include <cuda/semaphore>

#include "check_last.cuh"

__global__ void mutex_counter(cuda::binary_semaphore<cuda::thread_scope_device> *mutex, int *counter) {
  mutex->acquire();
  *counter += 1;
  mutex->release();
  check_last(counter);
}

__global__ void mutex_counter_block_scope(cuda::binary_semaphore<cuda::thread_scope_block> *mutex,
                                          int *counter) {
  mutex->acquire();
  *counter += 1;
  mutex->release();
  check_last(counter);
}

__global__ void capacity(cuda::counting_semaphore<cuda::thread_scope_device, 4> *sem, int *inside) {
  sem->acquire();
  if (atomicAdd(inside, 1) >= 2) {
    __trap();
  }
  atomicSub(inside, 1);
  sem->release();
}

__global__ void latch_publish(cuda::latch<cuda::thread_scope_device> *latch, int *slot) {
  slot[blockIdx.x] = 1;
  latch->count_down();
  latch->wait();
  for (unsigned int b = 0; b < gridDim.x; b++) {
    if (slot[b] != 1) {
      __trap();
    }
  }
}
