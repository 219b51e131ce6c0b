//! name: broker_queue
//! source: Broker Queue (Kerbl et al., ICS'18; AnyDSL/anyq), src/queues/BQ/bwd_orig.h, included unmodified from ../shared/cuda-corpus/broker-queue
//! description: The Broker Queue's ticketed ring buffer: even blocks enqueue one item each, odd blocks dequeue one; a consumer checks that the item it got is one that was produced and that no other consumer got it
//! cuda-include: ../../../shared/cuda-corpus/broker-queue/src/src
//! cuda-include: ../../tests/llvm/stubs/broker-queue
//! note: The queue is the `__device__` object `bwd_queue<2, unsigned>` (two slots), zero-initialised as its init() leaves it; the model holds it as the 32-bit words of its layout (tickets, ring, the two halves of head_tail, count).
//! note: Under sc the queue delivers each item once, at 2 to 4 blocks.
//! expect --kernel produce_consume --grid 2 --block 1 --memory-model sc: verified
//! expect --kernel produce_consume --grid 3 --block 1 --memory-model sc: verified
//! expect --kernel produce_consume --grid 4 --block 1 --memory-model sc: verified
//! note: Under ptx, the first report is a race: `atomicLoad(&count)` is a plain load on sm_70 and later (bwd_orig.h line 55) while other blocks atomicAdd the counter (line 103). Its value is only a hint the atomics re-check, so this race is benign on hardware that does not tear a 32-bit load, but it is a data race in CUDA's memory model.
//! expect --kernel produce_consume --grid 2 --block 1: violated heterogeneous_race
//! note: With race reports off the bug that matters shows: readData waits for the slot's ticket with a volatile load (line 71) and then reads the slot with a plain load (line 121), with no fence or acquire between them; the __threadfence() comes after the read. The consumer can read the slot from a stale L1 line: it gets an item that was never produced (the initial 0). A __threadfence() (or ld.acquire.gpu of the ticket) before `val = ring_buffer[P]` would order it, as the producer's fence orders its side.
//! expect --kernel produce_consume --grid 2 --block 1 --no-races: violated assertion

// Written for gsync-check: producers and consumers of one Broker Queue.
#include "bwd_indirect_decl.h"
#include "queues/BQ/bwd_orig.h"

__device__ unsigned int taken[4];

__global__ void produce_consume() {
  if (blockIdx.x % 2 == 0) {
    bwd_queue<2, unsigned>.enqueue(blockIdx.x + 7);
  } else {
    bool has;
    unsigned v;
    bwd_queue<2, unsigned>.dequeue(has, v);
    if (has) {
      // Produced by an even block below the grid's size, and taken once.
      unsigned producer = v - 7;
      if (v < 7 || producer % 2 != 0 || producer >= gridDim.x || atomicExch(&taken[producer], 1) != 0) {
        __trap();
      }
    }
  }
}
