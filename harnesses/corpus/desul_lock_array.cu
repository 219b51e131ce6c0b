//! name: desul_lock_array
//! source: desul (Kokkos' atomics), atomics/include/desul/atomics/Lock_Based_Fetch_Op_CUDA.hpp and Lock_Array_CUDA.hpp, included unmodified from ../shared/cuda-corpus/desul-lock-array
//! description: desul's lock-based atomic fetch-add on a 16-byte type: a hashed global lock table, taken and released with atomicExch inside a warp-aware ballot loop, with device-scope acquire and release fences around the critical section
//! cuda-include: ../../../shared/cuda-corpus/desul-lock-array/src/atomics/include
//! cuda-include: ../../tests/llvm/stubs/desul
//! note: The lock table `CUDA_SPACE_ATOMIC_LOCKS_DEVICE` is a __constant__ pointer the host sets: a zero-initialised buffer of its own. desul hashes the address, `(ptr >> 2) & 0x1FFFF`; the model gives every variable an address aligned far beyond the mask, so element 0 of every buffer hashes to lock 0: the layout in which two buffers share one lock.
//! note: Every thread adds {1, 1}; the thread that finishes last (a ticket, fenced) asserts both halves equal the number of threads: mutual exclusion and the visibility of each holder's update to the next.
//! expect --kernel fetch_add --grid 2 --block 1: verified
//! expect --kernel fetch_add --grid 3 --block 1: verified
//! note: Several lanes of one warp are checked in lockstep (pre-Volta SIMT, under sc): the ballot loop lets the lane that holds the lock finish, also when two lanes' buffers hash to one lock, where a plain spin on the lock deadlocks the warp (`naive_spin`: the loop desul avoids). Under independent thread scheduling a plain spin is fine.
//! expect --kernel fetch_add --grid 1 --block 2 --simt lockstep --memory-model sc: verified
//! expect --kernel fetch_add --grid 2 --block 2 --simt lockstep --memory-model sc: verified
//! expect --kernel two_buffers --grid 1 --block 2 --simt lockstep --memory-model sc: verified
//! expect --kernel naive_spin --grid 1 --block 2 --simt lockstep --memory-model sc: violated simd_deadlock
//! expect --kernel naive_spin --grid 1 --block 2: verified
//! note: Under independent thread scheduling the lanes of the loop may call `__activemask()` together or apart; either way the ballot meets every lane its mask names. (This harness found a modelling bug, since fixed: the model gave a lane the mask of every lane at the instruction without moving them with it, so a later lane got a smaller mask and the first waited for it forever, a barrier divergence no GPU produces.)
//! expect --kernel fetch_add --grid 1 --block 2: verified
//! expect --kernel two_buffers --grid 1 --block 2: verified

// Written for gsync-check: kernels that call desul's lock-based fetch-add
// as Kokkos does for a type wider than 8 bytes.
#include <desul/atomics/Lock_Based_Fetch_Op_CUDA.hpp>

struct alignas(16) pair16 {
  long long lo, hi;
  __device__ pair16 operator+(const pair16 &o) const { return {lo + o.lo, hi + o.hi}; }
};

__device__ unsigned int finished;

__device__ void add_one(pair16 *p) {
  pair16 one = {1, 1};
  desul::Impl::device_atomic_fetch_oper(desul::Impl::_add_fetch_operator<pair16, const pair16>(), p, one,
                                        desul::MemoryOrderRelaxed(), desul::MemoryScopeDevice());
}

__device__ void check_last(pair16 *p, long long n) {
  __threadfence();
  if (atomicAdd(&finished, 1) == n - 1) {
    __threadfence();
    if (p->lo != n || p->hi != n) {
      __trap();
    }
  }
}

__global__ void fetch_add(pair16 *p) {
  add_one(p);
  check_last(p, (long long)gridDim.x * blockDim.x);
}

// Each lane names its buffer in its own branch: the model gives every
// access one variable.
__global__ void two_buffers(pair16 *a, pair16 *b) {
  if (threadIdx.x % 2 == 0) {
    add_one(a);
  } else {
    add_one(b);
  }
}

__device__ void naive_add(pair16 *p) {
  while (!desul::Impl::lock_address_cuda((void *)p, desul::MemoryScopeDevice())) {
  }
  __threadfence();
  p->lo += 1;
  __threadfence();
  desul::Impl::unlock_address_cuda((void *)p, desul::MemoryScopeDevice());
}

__global__ void naive_spin(pair16 *p) {
  naive_add(p);
}
