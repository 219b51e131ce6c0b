// A loop whose two variables trade places each iteration: clang writes
// it as two phis that read each other (the swap problem of leaving SSA).
// After an odd number of swaps a and b are exchanged.
#include <cassert>

__global__ void swap(int *out, int n) {
  int a = 1, b = 2;
  for (int i = 0; i < n; i++) {
    int t = a;
    a = b;
    b = t;
  }
  out[0] = a;
  assert(a == (n % 2 == 1 ? 2 : 1));
  assert(b == (n % 2 == 1 ? 1 : 2));
}
