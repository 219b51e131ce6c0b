// Message passing with libcu++'s cuda::atomic_ref, whose loads and stores
// are inline PTX (ld.acquire.gpu, st.release.gpu): verified under ptx;
// with memory_order_relaxed the plain data read races.
// gsync-check check atomic_ref.cu --kernel atomic_ref_mp --grid 2 --block 1
#include <cassert>
#include <cuda/atomic>

template <cuda::std::memory_order Store, cuda::std::memory_order Load>
__device__ void message_passing(unsigned *flag, unsigned *data) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x == 0) {
    data[0] = 42;
    f.store(1, Store);
  } else {
    while (f.load(Load) == 0) {
    }
    assert(data[0] == 42);
  }
}

__global__ void atomic_ref_mp(unsigned *flag, unsigned *data) {
  message_passing<cuda::std::memory_order_release, cuda::std::memory_order_acquire>(flag, data);
}

__global__ void atomic_ref_mp_relaxed(unsigned *flag, unsigned *data) {
  message_passing<cuda::std::memory_order_relaxed, cuda::std::memory_order_relaxed>(flag, data);
}

// A ticket counter: fetch_add with acq_rel at device scope.
__global__ void atomic_ref_ticket(unsigned *count, unsigned *out) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*count);
  out[blockIdx.x] = c.fetch_add(1, cuda::std::memory_order_acq_rel);
}
