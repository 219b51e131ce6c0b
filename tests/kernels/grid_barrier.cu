// A one-shot grid barrier: each block publishes a value, counts itself
// in, waits until every block has, then reads its neighbour's value.
// With __threadfence() between the publication and the arrival the
// neighbour's value is visible after the barrier; without it, the plain
// write and the plain read race under ptx.

__device__ unsigned int arrived;

__global__ void grid_barrier(int *value, int *seen) {
  value[blockIdx.x] = blockIdx.x + 1;
  __threadfence();
  atomicAdd(&arrived, 1);
  while (atomicAdd(&arrived, 0) < gridDim.x) {
  }
  __threadfence();
  seen[blockIdx.x] = value[(blockIdx.x + 1) % gridDim.x];
}

__global__ void grid_barrier_no_fence(int *value, int *seen) {
  value[blockIdx.x] = blockIdx.x + 1;
  atomicAdd(&arrived, 1);
  while (atomicAdd(&arrived, 0) < gridDim.x) {
  }
  seen[blockIdx.x] = value[(blockIdx.x + 1) % gridDim.x];
}
