// A message passed with libcu++ atomics, written stronger than it needs
// (gsync-check's own, for tests/relax_cuda.rs): the flag's store is
// seq_cst and a system-scope fence stands before it; the poll is an
// acquire load; each block counts itself on its own words, with a
// device-scope atomicAdd and a seq_cst fetch_add. Relax should leave a
// release store, the acquire load, no fence, a block-scope add and a
// relaxed fetch_add; `unused` is not called by the harness, so it is not
// searched and stays as written.

__device__ void publish(unsigned int *data, unsigned int *flag) {
  *data = 42;
  __threadfence_system();
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);
  f.store(1, cuda::memory_order_seq_cst);
}

__device__ unsigned int consume(unsigned int *data, unsigned int *flag) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_acquire) == 0) {
  }
  return *data;
}

__device__ void count(unsigned int *counters) {
  atomicAdd(counters + 2 * blockIdx.x, 1);
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> c(counters[2 * blockIdx.x + 1]);
  c.fetch_add(1, cuda::memory_order_seq_cst);
}

__device__ void unused(unsigned int *p) {
  __threadfence_system();
  atomicAdd_system(p, 1);
}
