//! name: stdgpu_mutex_deque
//! source: stdgpu, src/stdgpu/mutex.cuh, bitset.cuh, deque.cuh, atomic.cuh and their impl/ and cuda/ files, included unmodified from ../shared/cuda-corpus/stdgpu-mutex-deque
//! description: stdgpu's mutex_array (try-locks, one bit each, 32 to a word of a bitset, set with fetch_or and cleared with fetch_and between __threadfence()s) used as a mutex, and its deque, whose push_back and pop_back take a slot's lock in a spin and publish the element with the slot's occupied bit
//! cuda-include: ../../../shared/cuda-corpus/stdgpu-mutex-deque/src/src
//! cuda-include: ../../tests/llvm/stubs/stdgpu
//! note: stdgpu's CMake-generated config.h and the headers the corpus does not carry (memory.h, utility.h, type_traits.h and others) are stubs of ours under tests/llvm/stubs/stdgpu, declaring only what the copied code names (the allocator's in-place construct and destroy, pair, forward, min and max, bit_mod).
//! note: The containers are kernel arguments, as a stdgpu program passes them: each pointer field is a zero-initialised buffer of its own (the state createDeviceObject leaves), and the deque's capacity is the size of its occupied bitset, the word at byte 40 (`--arg d[10]=2`).
//! note: The mutex: each thread takes lock 0 in the deque's loop (spin on try_lock and work in the branch that got it), adds one to a counter and unlocks; the last thread to finish asserts the counter saw every increment. Mutual exclusion holds and the lock's fences publish the increments, across blocks and between lanes of one warp, also in lockstep (pre-Volta SIMT): the lane that got the lock finishes inside the loop.
//! expect --kernel mutex_counter --grid 2 --block 1: verified
//! expect --kernel mutex_counter --grid 1 --block 2 --simt lockstep --memory-model sc: verified
//! note: A plain spin on try_lock (the loop stdgpu's deque avoids) deadlocks a warp in lockstep (under independent thread scheduling it is fine).
//! expect --kernel naive_spin --grid 1 --block 2 --simt lockstep --memory-model sc: violated simd_deadlock
//! note: Two threads hold locks 0 and 1, two bits of one word, at once: fetch_or and fetch_and of one bit leave the other's alone, and each count is exact.
//! expect --kernel neighbour_bits --grid 2 --block 1: verified
//! note: The deque: even blocks push one element, odd blocks pop one; a pop that succeeds must return a pushed element. The first report is a real race: pop_back starts with `pair<T, bool> popped(_data[0], false)` (deque_detail.cuh line 265, and pop_front at line 393), a plain read of slot 0 outside any lock, while a push may be constructing that slot under its lock. The value is dropped when nothing is popped and overwritten when something is, so an int comes out right, but it is a data race in CUDA's memory model (and a copy of a half-built element for other types).
//! expect --kernel push_pop --grid 2 --block 1 --arg d[10]=2: violated race
//! note: With race reports off, the element and its occupied bit are published through the slot's lock: a pop returns the pushed element, at 2 and 3 blocks.
//! expect --kernel push_pop --grid 2 --block 1 --arg d[10]=2 --no-races: verified
//! expect --kernel push_pop --grid 3 --block 1 --arg d[10]=2 --no-races: verified
//! note: Lanes 0 and 1 of one warp push and pop, under independent thread scheduling and in lockstep with either side of the branch first: the deque's loop (work in the branch that got the lock) never makes a lane wait for another lane of its warp, and a pop that runs before the push finds the deque empty.
//! expect --kernel push_pop --grid 1 --block 2 --arg d[10]=2 --no-races: verified
//! expect --kernel push_pop --grid 1 --block 2 --arg d[10]=2 --simt lockstep --memory-model sc: verified
//! expect --kernel push_pop --grid 1 --block 2 --arg d[10]=2 --simt lockstep --memory-model sc --branch-order else-first: verified
//! note: Progress: the mutex's lock is always handed on under weak fairness (a holder does finite work). The deque's is not: a pop that reserved a slot before the push wrote it spins by taking the slot's lock, finding it unoccupied and releasing it, again and again, and the push needs that lock to write the slot. Nothing makes the push's try_lock land in the short moments the lock is free, so under weak (and strong) fairness the two can run forever: a livelock the scheduler allows, with no back-off in the loop to break it. Whether a GPU's arbitration of atomics ever starves the push that long is outside the model.
//! expect --kernel mutex_counter --grid 2 --block 1 --scheduler fair: verified
//! expect --kernel push_pop --grid 2 --block 1 --arg d[10]=2 --no-races --scheduler fair: violated livelock

// Written for gsync-check: kernels that use stdgpu's mutex_array and deque
// as a stdgpu program does.
#include <stdgpu/deque.cuh>
#include <stdgpu/mutex.cuh>

#include "check_last.cuh"

// One increment under lock `i`, taken as the deque takes its slot locks.
__device__ void locked_add(stdgpu::mutex_array<> &locks, int i, int *counter) {
  bool done = false;
  while (!done) {
    if (locks[i].try_lock()) {
      *counter += 1;
      locks[i].unlock();
      done = true;
    }
  }
}

__global__ void mutex_counter(stdgpu::mutex_array<> locks, int *counter) {
  locked_add(locks, 0, counter);
  check_last(counter);
}

__global__ void naive_spin(stdgpu::mutex_array<> locks, int *counter) {
  while (!locks[0].try_lock()) {
  }
  *counter += 1;
  locks[0].unlock();
}

// Block b counts under lock b; each counter is its own buffer (the model
// names one variable per access).
__global__ void neighbour_bits(stdgpu::mutex_array<> locks, int *c0, int *c1) {
  if (blockIdx.x == 0) {
    locked_add(locks, 0, c0);
    locked_add(locks, 0, c0);
  } else {
    locked_add(locks, 1, c1);
    locked_add(locks, 1, c1);
  }
  __threadfence();
  if (atomicAdd(&finished, 1) == 1) {
    __threadfence();
    if (*c0 != 2 || *c1 != 2) {
      __trap();
    }
  }
}

// Even threads push 7, odd ones pop; a popped element is 7.
__global__ void push_pop(stdgpu::deque<int> d) {
  unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 2 == 0) {
    d.push_back(7);
  } else {
    stdgpu::pair<int, bool> p = d.pop_back();
    if (p.second && p.first != 7) {
      __trap();
    }
  }
}
