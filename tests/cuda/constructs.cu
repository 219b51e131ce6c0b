// The CUDA subset's constructs, each with a result tests/cuda/constructs.gsync
// asserts: C's unsigned wrap-around, do-while with continue, pointer
// arithmetic and volatile casts, inline PTX, cuda::atomic_ref, macros,
// clock()-bounded and counting delay loops.
#define SHIFT(x) ((x) << 1)

__device__ unsigned int wrap_sub(unsigned int a) { return a - 1u; }

__device__ int sum_do(int n) {
  int s = 0, i = 0;
  do {
    i++;
    if (i == 2) continue;
    s += i;
  } while (i < n);
  return s;
}

__device__ void ptrs(unsigned int *buf) {
  unsigned int *p = buf + 1;
  p[1] = 7;
  *(p - 1) = 5;
  volatile unsigned int *v = (volatile unsigned int *)buf;
  v[3] = v[2] + 1;
}

__device__ unsigned int ptx_load(unsigned int *p) {
  unsigned int v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ void ptx_add(unsigned int *p) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(p), "r"(2u) : "memory");
}

__device__ unsigned int ref_ops(unsigned int *p) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> r(*p);
  r.store(3, cuda::memory_order_release);
  unsigned int e = 3;
  bool ok = r.compare_exchange_strong(e, 9, cuda::memory_order_acq_rel);
  return ok ? r.fetch_add(1, cuda::memory_order_relaxed) : 0;
}

__device__ int shifted(int x) { return SHIFT(x) + (int)((-1 >> 1) < 0); }

__device__ void delay() {
  long long start = clock64();
  while (clock64() - start < 100) { }
  for (int i = 0; i < 1000; ++i) { ; }
}

// A 64-bit word (issue 20): a flag in the high half, a value in the low.
__device__ unsigned long long packed(unsigned long long *w) {
    unsigned long long old = atomicCAS(w, 0ull, (1ull << 32) | 5ull);
    atomicAdd(w, 2ull);
    return atomicExch(w, old) + old;
}

// Named barriers in inline PTX (issue 20); one thread makes every count of 1.
__device__ void named_bars() {
    asm volatile("bar.sync 1, 1;");
    asm volatile("bar.arrive %0, %1;" :: "r"(2), "r"(1));
}

// The CUDA headers' idioms (issue 21, the cooperative groups header):
// <nv/target>'s branch on the target (sm_70: the first branch; either
// branch may be parenthesised), an asm constraint written as a macro,
// `__barrier_sync(0)` (`__syncthreads()`), a namespace and a typedef'd
// volatile pointer, static inline functions and the barrier's bit test.
#include <nv/target>
#define PTR_CONSTRAINT "l"
namespace outer { namespace inner {
typedef unsigned int word_t;
static __forceinline__ __device__ bool flipped(unsigned int a, unsigned int b) {
    return (((a ^ b) & 0x80000000) != 0);
}
static __forceinline__ __device__ unsigned int header_idioms(volatile word_t *p) {
    unsigned int old = 0;
    __barrier_sync(0);
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_70,
        asm volatile("atom.add.release.gpu.u32 %0,[%1],%2;" : "=r"(old) : PTR_CONSTRAINT((unsigned int *)p), "r"(0x80000000u) : "memory");
        ,
        old = 100;
        );
    NV_IF_TARGET(NV_PROVIDES_SM_90, (old = 200;));
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (old += 1;), (old = 300;));
    return flipped(old, *p) ? old : 400;
}
} }

// float: its bits, IEEE comparisons (NaN unordered, -0 == +0), negation
// as a sign flip, `float` literals as the f32 they denote.
__device__ unsigned int float_ops(float *f, unsigned int i, unsigned int j) {
  const float a = f[i], b = f[j];
  float c = -a;
  f[0] = c;
  return (a < b) | ((a <= b) << 1) | ((a == b) << 2) | ((a != b) << 3) |
         ((a >= b) << 4) | ((a > b) << 5) | ((!a) << 6) | ((a < 0.5f) << 7) |
         ((a ? 1 : 0) << 8);
}
