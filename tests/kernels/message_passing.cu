//! name: message_passing
//! description: Message passing between two blocks through a flag, with and without the fences that order the data before the flag
//! note: The writer stores the data, fences, and sets the flag with a relaxed atomic; the reader waits for the flag, fences, and reads the data. The fences order the plain accesses: verified under ptx. Without them the read of the data races with its write.
//! expect --kernel message_passing --grid 2 --block 1: verified
//! expect --kernel message_passing --grid 2 --block 1 --memory-model sc: verified
//! expect --kernel message_passing_relaxed --grid 2 --block 1: violated heterogeneous_race

// Written for gsync-check's tests.
__global__ void message_passing(int *data, int *flag) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    atomicExch(flag, 1);
  } else {
    while (atomicAdd(flag, 0) == 0) {
    }
    __threadfence();
    if (data[0] != 42) {
      __trap();
    }
  }
}

__global__ void message_passing_relaxed(int *data, int *flag) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    atomicExch(flag, 1);
  } else {
    while (atomicAdd(flag, 0) == 0) {
    }
    if (data[0] != 42) {
      __trap();
    }
  }
}
