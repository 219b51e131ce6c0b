// __syncthreads() under a condition only some threads of the block meet:
// thread 0 waits at the barrier that thread 1 never reaches.

__global__ void divergent_barrier(int *data) {
  data[threadIdx.x] = threadIdx.x;
  if (threadIdx.x == 0) {
    __syncthreads();
  }
  data[threadIdx.x] += 1;
}
