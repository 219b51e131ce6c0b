//! name: warp_shuffle
//! description: Warp shuffles as CUDA defines them: a butterfly sum that gives every lane the total, a shift down whose last lanes keep their own value, a broadcast from lane 0, and a shuffle that reads a lane outside its mask
//! note: Each kernel asserts the values CUDA's `shfl.sync` gives (PTX ISA, "shfl.sync"), so a wrong source lane or a wrong clamp fails. Under lockstep every lane runs the shuffle together; under independent thread scheduling the lanes its mask names meet at it, in either order.
//! expect --kernel butterfly_sum --grid 1 --block 4: verified
//! expect --kernel butterfly_sum --grid 1 --block 4 --simt lockstep --memory-model sc: verified
//! expect --kernel shift_down --grid 1 --block 4: verified
//! expect --kernel broadcast_flag --grid 2 --block 2: verified
//! note: The broadcast is no fence: lane 0 reads a flag another block set and hands the value to lane 1, which then reads the data without ordering of its own. Under ptx that read races with the other block's write.
//! expect --kernel broadcast_unordered --grid 2 --block 2: violated race
//! note: A mask that leaves out a lane the code still waits for: the lane named in the shuffle's mask never arrives.
//! expect --kernel half_mask --grid 1 --block 2: violated barrier_divergence

// Written for gsync-check's tests.
__global__ void butterfly_sum() {
  unsigned int lane = threadIdx.x;
  unsigned int v = lane + 1;
  for (int offset = 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xf, v, offset, 4);
  }
  // 1 + 2 + 3 + 4 in every lane.
  if (v != 10) {
    __trap();
  }
}

__global__ void shift_down() {
  unsigned int lane = threadIdx.x;
  unsigned int v = __shfl_down_sync(0xf, lane * 10, 1, 4);
  // Lane i reads lane i + 1; the last lane of the segment keeps its own.
  unsigned int want = lane == 3 ? 30 : (lane + 1) * 10;
  if (v != want) {
    __trap();
  }
}

// Lane 0 of each block waits for the other block's flag (acquire) and
// hands what it read to lane 1, which reads the data after a fence.
__global__ void broadcast_flag(int *data, int *flag) {
  unsigned int other = 1 - blockIdx.x;
  if (threadIdx.x == 0) {
    data[blockIdx.x] = 7;
    __threadfence();
    atomicExch(&flag[blockIdx.x], 1);
  }
  int seen = 0;
  if (threadIdx.x == 0) {
    while (atomicAdd(&flag[other], 0) == 0) {
    }
    seen = 1;
  }
  seen = __shfl_sync(0x3, seen, 0);
  if (seen && threadIdx.x == 1) {
    __threadfence();
    if (data[other] != 7) {
      __trap();
    }
  }
}

__global__ void broadcast_unordered(int *data, int *flag) {
  unsigned int other = 1 - blockIdx.x;
  if (threadIdx.x == 0) {
    data[blockIdx.x] = 7;
    atomicExch(&flag[blockIdx.x], 1);
  }
  int seen = 0;
  if (threadIdx.x == 0) {
    while (atomicAdd(&flag[other], 0) == 0) {
    }
    seen = 1;
  }
  seen = __shfl_sync(0x3, seen, 0);
  if (seen && threadIdx.x == 1) {
    if (data[other] != 7) {
      __trap();
    }
  }
}

__global__ void half_mask() {
  if (threadIdx.x == 0) {
    __shfl_sync(0x3, 1, 1);
  }
}
