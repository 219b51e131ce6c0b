// gsync-check test driver: cuda::barrier at block scope (in shared memory;
// clang refuses a __shared__ object with a constructor, so it lives in raw
// storage) and at device scope. libcu++ comes from the cccl wheel.
#include <cuda/barrier>
#include <cuda/std/utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void block_barrier_kernel() {
  alignas(block_barrier) __shared__ unsigned char storage[sizeof(block_barrier)];
  block_barrier &bar = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  auto token = bar.arrive();
  bar.wait(cuda::std::move(token));
  bar.arrive_and_drop();
}

__global__ void device_barrier_kernel(cuda::barrier<cuda::thread_scope_device> *bar) {
  bar->arrive_and_wait();
}
