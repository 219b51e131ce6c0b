//! name: co_launch
//! description: A producer kernel and a consumer kernel launched together (two streams) that share a flag and a data word per block
//! note: Producer block b writes data[b] and sets flag[b] with a release store; consumer block b waits for flag[b] with acquire loads and reads data[b]. The release/acquire pair orders the data: verified. With relaxed accesses the consumer's read of the data races with the producer's write. The consumer launched alone waits forever.
//! expect --launch producer<<<2,1>>>(data,flag) --launch consumer<<<2,1>>>(flag,data,42): verified
//! expect --launch producer<<<2,1>>>(data,flag) --launch consumer<<<2,1>>>(flag,data,42) --memory-model sc: verified
//! expect --launch producer_relaxed<<<2,1>>>(data,flag) --launch consumer_relaxed<<<2,1>>>(flag,data,42): violated heterogeneous_race
//! expect --launch consumer<<<2,1>>>(flag,data,42): violated deadlock

// Written for gsync-check's tests.
#include <cuda/atomic>

template <cuda::std::memory_order Store>
__device__ void produce(int *data, unsigned *flag) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flag[blockIdx.x]);
  data[blockIdx.x] = 42;
  f.store(1, Store);
}

template <cuda::std::memory_order Load>
__device__ void consume(unsigned *ready, int *in, int expected) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(ready[blockIdx.x]);
  while (f.load(Load) == 0) {
  }
  if (in[blockIdx.x] != expected) {
    __trap();
  }
}

__global__ void producer(int *data, unsigned *flag) {
  produce<cuda::std::memory_order_release>(data, flag);
}

__global__ void consumer(unsigned *ready, int *in, int expected) {
  consume<cuda::std::memory_order_acquire>(ready, in, expected);
}

__global__ void producer_relaxed(int *data, unsigned *flag) {
  produce<cuda::std::memory_order_relaxed>(data, flag);
}

__global__ void consumer_relaxed(unsigned *ready, int *in, int expected) {
  consume<cuda::std::memory_order_relaxed>(ready, in, expected);
}
