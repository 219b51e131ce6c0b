// gsync-check test driver: desul's lock-based fetch-add on a 16-byte type,
// which goes through the hashed global lock array.
#include "cuda-corpus/desul-lock-array/src/atomics/include/desul/atomics/Lock_Based_Fetch_Op_CUDA.hpp"

struct alignas(16) pair16 {
  long long lo, hi;
  __device__ pair16 operator+(const pair16 &o) const { return {lo + o.lo, hi + o.hi}; }
};

__global__ void desul_fetch_add_kernel(pair16 *p, pair16 v) {
  desul::Impl::device_atomic_fetch_oper(desul::Impl::_add_fetch_operator<pair16, const pair16>(), p, v,
                                        desul::MemoryOrderRelaxed(), desul::MemoryScopeDevice());
}
