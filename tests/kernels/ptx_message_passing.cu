// Message passing through inline PTX, as flashinfer's and cusync's
// barriers write it: block 0 writes the data, then raises the flag with
// st.release.gpu; block 1 waits for the flag with ld.acquire.gpu and reads
// the data. The release/acquire pair orders the data: verified under ptx.
// gsync-check check ptx_message_passing.cu --kernel message_passing --grid 2 --block 1
#include <cassert>

template <bool Release>
__device__ __forceinline__ void store_flag(unsigned *p, unsigned v) {
  if (Release)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <bool Acquire>
__device__ __forceinline__ unsigned load_flag(unsigned *p) {
  unsigned v;
  if (Acquire)
    asm volatile("ld.global.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <bool Ordered>
__device__ void message_passing_as(unsigned *flag, unsigned *data) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    store_flag<Ordered>(flag, 1);
  } else {
    while (load_flag<Ordered>(flag) == 0) {
    }
    assert(data[0] == 42);
  }
}

__global__ void message_passing(unsigned *flag, unsigned *data) {
  message_passing_as<true>(flag, data);
}

// The same with .relaxed: the flag is seen, but the data is not ordered
// with it, so block 1's plain read of data[0] races with block 0's write.
__global__ void message_passing_relaxed(unsigned *flag, unsigned *data) {
  message_passing_as<false>(flag, data);
}

// Relaxed accesses and fence.acq_rel on both sides (ginkgo's pattern):
// the fences order the data, verified. A 64-bit flag, polled through a
// cache operator on the data (a hint, not an order).
__global__ void message_passing_fenced(unsigned long long *flag, unsigned *data) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(flag), "l"(1ull) : "memory");
  } else {
    unsigned long long f;
    do {
      asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(f) : "l"(flag) : "memory");
    } while (f == 0);
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    unsigned d;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(d) : "l"(data));
    assert(d == 42);
  }
}

// Polling the flag with a cache operator instead of an acquire: ld.cv is
// a weak load in PTX's memory model (cache operators are hints), so the
// poll races with the release store.
__global__ void message_passing_cv(unsigned *flag, unsigned *data) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    store_flag<true>(flag, 1);
  } else {
    unsigned f;
    do {
      asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(f) : "l"(flag));
    } while (f == 0);
    assert(data[0] == 42);
  }
}

// Outside the model: a non-coherent load of data another block writes.
__global__ void message_passing_nc(unsigned *flag, unsigned *data) {
  unsigned v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(data));
  flag[0] = v;
}
