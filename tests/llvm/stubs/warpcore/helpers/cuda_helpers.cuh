// gsync-check test stub for hpc_helpers' cuda_helpers.cuh (a separate
// repository that warpcore includes; not in the corpus, and not its code):
// the function qualifiers, ceiling division, copy directions and the few
// device helpers warpcore's headers name.
#ifndef GSYNC_STUB_CUDA_HELPERS_CUH
#define GSYNC_STUB_CUDA_HELPERS_CUH

// The standard headers the library includes and warpcore relies on.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define HOSTQUALIFIER __host__
#define DEVICEQUALIFIER __device__
#define HOSTDEVICEQUALIFIER __host__ __device__
#define INLINEQUALIFIER inline
#define GLOBALQUALIFIER __global__

#define MAXBLOCKSIZE 1024

// The ceiling of x / y.
#define SDIV(x, y) (((x) + (y) - 1) / (y))

#define H2D (cudaMemcpyHostToDevice)
#define D2H (cudaMemcpyDeviceToHost)
#define D2D (cudaMemcpyDeviceToDevice)

// atomicAdd on std::uint64_t (unsigned long here), which the library
// provides for the <cstdint> types: CUDA declares it for unsigned long long.
DEVICEQUALIFIER INLINEQUALIFIER std::uint64_t atomicAdd(std::uint64_t *address, std::uint64_t val) {
    return atomicAdd(reinterpret_cast<unsigned long long *>(address), static_cast<unsigned long long>(val));
}

namespace helpers {

// This thread's index in a 1-D grid.
DEVICEQUALIFIER INLINEQUALIFIER std::uint64_t global_thread_id() noexcept {
    return std::uint64_t(blockDim.x) * blockIdx.x + threadIdx.x;
}

// A ticket from *counter: one atomic add per call (the library's version
// aggregates the active lanes of a warp into one add).
template <class T>
DEVICEQUALIFIER INLINEQUALIFIER T atomicAggInc(T *counter) {
    return atomicAdd(counter, T(1));
}

// A kernel that runs a device lambda (host-side launches only).
template <class Func>
GLOBALQUALIFIER void lambda_kernel(Func f) {
    f();
}

// Free device memory in bytes (host side, declared only).
HOSTQUALIFIER std::size_t available_gpu_memory(float security_factor = 1.0);

}  // namespace helpers

// The first set bit of a ballot, counted from 1 (0 for none): warpcore
// calls `ffs` unqualified in device code, as nvcc builds accept; clang's
// CUDA headers declare only __ffs.
DEVICEQUALIFIER INLINEQUALIFIER int ffs(unsigned int x) noexcept { return __ffs(x); }

#endif  // GSYNC_STUB_CUDA_HELPERS_CUH
