// A spin lock around a plain read-modify-write of a buffer. The lock is
// taken with atomicCAS and released with atomicExch (relaxed at device
// scope, as CUDA defines its legacy atomics); the __threadfence() after
// taking it and before releasing it orders the plain accesses of the
// critical section with the lock's atomics. Verified under ptx.
// gsync-check check spin_lock.cu --kernel spin_lock --grid 2 --block 1 --arg iters=1

__global__ void spin_lock(int *lock, int *data, int iters) {
  for (int i = 0; i < iters; i++) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    data[0] = data[0] + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}

// The same lock without the fences: the relaxed atomics order nothing, so
// the next holder's plain read of data[0] races with the last holder's
// plain write (a data race under ptx: mutual exclusion is broken).
__global__ void spin_lock_no_fence(int *lock, int *data, int iters) {
  for (int i = 0; i < iters; i++) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    data[0] = data[0] + 1;
    atomicExch(lock, 0);
  }
}
