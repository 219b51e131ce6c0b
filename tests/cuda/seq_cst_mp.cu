// Message passing through a cuda::atomic_ref flag with the default order
// (seq_cst): tests/cuda/seq_cst_mp.gsync.
__device__ void publish(unsigned int *data, unsigned int *flag) {
  *data = 42;
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);
  f.store(1);
}

__device__ unsigned int consume(unsigned int *data, unsigned int *flag) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);
  while (f.load() == 0) {
  }
  return *data;
}
