// gsync-check test driver: the Broker Queue (AnyDSL/anyq, bwd_orig.h)
// enqueued and dequeued by the odd and even threads of one kernel.
#include <cuda_runtime.h>
#include "broker-queue/bwd_indirect_decl.h"
#include "cuda-corpus/broker-queue/src/src/queues/BQ/bwd_orig.h"

__global__ void broker_queue_kernel(unsigned *out) {
  if (threadIdx.x % 2 == 1) {
    bwd_queue<1024, unsigned>.enqueue(threadIdx.x);
  } else {
    bool has;
    unsigned v;
    bwd_queue<1024, unsigned>.dequeue(has, v);
    if (has) out[threadIdx.x] = v;
  }
}
