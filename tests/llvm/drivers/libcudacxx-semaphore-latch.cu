// gsync-check test driver: libcu++'s counting and binary semaphores and its
// latch at device scope. libcu++ comes from the cccl wheel.
#include <cuda/latch>
#include <cuda/semaphore>

__global__ void semaphore_kernel(cuda::counting_semaphore<cuda::thread_scope_device, 4> *sem,
                                 cuda::binary_semaphore<cuda::thread_scope_device> *mutex, int *data) {
  sem->acquire();
  data[blockIdx.x] += 1;
  sem->release();
  mutex->acquire();
  data[0] += 1;
  mutex->release();
}

__global__ void latch_kernel(cuda::latch<cuda::thread_scope_device> *l) {
  l->count_down();
  l->wait();
}
