// Floats added at run time: each thread adds its value into a sum that
// a lock (atomicCAS, fenced) protects, and the last thread to finish
// checks the total, exactly as IEEE single precision rounds it. Without
// the lock, two read-add-writes interleave and one addition is lost.

__device__ int lock;
__device__ unsigned int finished;

// The last thread to finish (a fenced ticket) checks the sum of all.
__device__ void check_total(float *sum, const float *in) {
  __threadfence();
  unsigned int n = gridDim.x * blockDim.x;
  if (atomicAdd(&finished, 1) == n - 1) {
    __threadfence();
    float expected = 0.0f;
    for (unsigned int i = 0; i < n; i++) {
      expected += in[i];
    }
    if (*sum != expected) {
      __trap();
    }
  }
}

__global__ void float_sum(float *sum, const float *in) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (atomicCAS(&lock, 0, 1) != 0) {
  }
  __threadfence();
  *sum += in[i];
  __threadfence();
  atomicExch(&lock, 0);
  check_total(sum, in);
}

__global__ void float_sum_racy(float *sum, const float *in) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  *sum += in[i];
  check_total(sum, in);
}

// a * b + c with `contract` (clang's default for CUDA): one fma, whose
// single rounding keeps the 2^-24 that a separate product rounds away.
__global__ void fused_multiply_add(float *out, const float *in) {
  float a = in[0], c = in[1];
  out[0] = a * a + c;
  if (out[0] != 0x1p-24f) {
    __trap();
  }
}

// `__fmul_rn` is never contracted: the product is rounded on its own,
// and the sum is 0.
__global__ void separate_multiply_add(float *out, const float *in) {
  float a = in[0], c = in[1];
  out[0] = __fmul_rn(a, a) + c;
  if (out[0] != 0.0f) {
    __trap();
  }
}
