// A device assertion that fails in block 1 (it holds in block 0).
#include <cassert>

__global__ void device_assert(int *out, int limit) {
  int v = blockIdx.x * 10;
  out[blockIdx.x] = v;
  assert(v < limit);
}
