//! name: cusync_tile_semaphore
//! source: microsoft/cusync 345b60a, src/include/cusync (CuStage's wait and post, cusync_device_defs.h; the polls, device-functions.h; TileSync, policies.h), included unmodified from ../shared/cuda-corpus/cusync-tile-semaphore
//! description: cusync's per-tile semaphores between a producer kernel and a consumer kernel launched together (two streams, as examples/twoMatMuls launches them): the producer posts each tile after writing it, the consumer waits for the tile before reading it
//! cuda-include: ../../../shared/cuda-corpus/cusync-tile-semaphore/src/src/include
//! note: Both kernels are launched together (--launch), 2 tiles of one 2-thread block each; every consumer thread reads an element another producer thread wrote. The stages are set up on the device through CuSyncTest, the test hook cusync.h makes a friend of CuStage, as the host's constructor and CuSync::setProducerConsumerPair set them up: one semaphore buffer `sem` that the producer posts to and the consumer waits on. The stages avoid the custom tile order (AvoidCustomOrder: a block's tile is its blockIdx), because CuStage::tile compares a shared-memory pointer with nullptr, which the model refuses (cusync_device_defs.h:86); the wait kernel is left out (a launch before the consumer on the consumer's stream: launches checked together are concurrent, not ordered).
//! note: CuStage::wait polls first with globalLoad, an `ld.global.cg` (a weak load: a cache operator is only a hint), and only then with `ld.global.acquire.gpu`. Under PTX's model that first poll races with the producer's atomicAdd on the semaphore, and when it already reads the posted value the consumer goes on with no acquire at all: its reads of the tile are then ordered after the producer's writes by nothing. A real gap of the code under the PTX memory model (the acquire poll is the one that synchronizes; the first read needs to be an acquire too), not of the model; on today's GPUs an `ld.cg` read of L2 usually hides it.
//! expect --launch producer<<<2,2>>>(sem,pcount,porder,executed,C) --launch consumer<<<2,2>>>(sem,ccount,corder,C) --arg sem=2 --arg C=4: violated heterogeneous_race
//! note: With races not reported, the consequence is found: a consumer thread whose first poll saw the post reads its tile's element before the producer's write reaches it.
//! expect --launch producer<<<2,2>>>(sem,pcount,porder,executed,C) --launch consumer<<<2,2>>>(sem,ccount,corder,C) --arg sem=2 --arg C=4 --no-races: violated assertion
//! expect --launch producer<<<2,2>>>(sem,pcount,porder,executed,C) --launch consumer<<<2,2>>>(sem,ccount,corder,C) --arg sem=2 --arg C=4 --memory-model sc: verified
//! note: The consumer alone waits forever: its semaphores are posted only by the producer, which is not part of that launch. With 2 blocks resident at once and the consumer launched first, its blocks hold both slots while waiting for producer blocks that can never start (cusync's wait kernel and stream priorities are there to prevent this); launched first, the producer finishes and frees its slots.
//! expect --launch consumer<<<2,2>>>(sem,ccount,corder,C) --arg sem=2 --arg C=4: violated deadlock
//! expect --launch consumer<<<2,2>>>(sem,ccount,corder,C) --launch producer<<<2,2>>>(sem,pcount,porder,executed,C) --arg sem=2 --arg C=4 --resident 2 --memory-model sc: violated occupancy_deadlock
//! expect --launch producer<<<2,2>>>(sem,pcount,porder,executed,C) --launch consumer<<<2,2>>>(sem,ccount,corder,C) --arg sem=2 --arg C=4 --resident 2 --memory-model sc: verified

// Written for gsync-check: a producer and a consumer kernel that
// synchronize through cusync's CuStage as examples/twoMatMuls does.
#include <cusync/cusync.h>

namespace cusync {
// The test hook cusync.h declares a friend of CuStage: it sets a stage up
// on the device as CuStage's constructor and CuSync::setProducerConsumerPair
// set it up on the host (a 1-D grid of `gridDim.x` tiles, iteration 1).
class CuSyncTest {
public:
  template <typename Stage>
  static __device__ Stage stage(uint32_t *semaphores, uint32_t *tileCounter,
                                dim3 *tileOrder, int *kernelExecuted) {
    Stage s;
    s.grid_ = dim3(gridDim.x, 1, 1);
    s.prodGrid_ = dim3(gridDim.x, 1, 1);
    s.tileSize_ = dim3(1, 1, 1);
    s.iter = 1;
    s.tileOrder = tileOrder;
    s.tileCounter = tileCounter;
    s.kernelExecuted_ = kernelExecuted;
    s.tileStatusWrite_ = semaphores;
    s.tileStatusRead_ = semaphores;
    return s;
  }
};
} // namespace cusync

using namespace cusync;

// One semaphore per tile, as twoMatMuls' TileSync (tiles of one block).
using Sync = TileSync<IdentityOrder, 1, 1>;
template <int Opts>
using ProdStage = CuStage<IdentityOrder, NoSync, Sync, Opts>;
template <int Opts>
using ConsStage = CuStage<IdentityOrder, Sync, NoSync, Opts>;

// The producer's tile: every thread writes its element of the tile, then
// the stage posts it (twoMatMuls' C = A * B, one element per thread).
template <int Opts>
__device__ void produce(uint32_t *sem, uint32_t *counter, dim3 *order,
                        int *executed, int *out) {
  auto stage = CuSyncTest::stage<ProdStage<Opts>>(sem, counter, order, executed);
  __shared__ int tileSh[3];
  dim3 tile = stage.tile((dim3 *)&tileSh[0]);
  out[tile.x * blockDim.x + threadIdx.x] = tile.x + 1;
  stage.post({tile.x, 0, 0});
}

// The consumer's tile: the stage waits for the producer's tile, then each
// thread reads an element another thread of the producer's block wrote.
template <int Opts>
__device__ void consume(uint32_t *sem, uint32_t *counter, dim3 *order, int *in) {
  auto stage = CuSyncTest::stage<ConsStage<Opts>>(sem, counter, order, nullptr);
  __shared__ int tileSh[3];
  dim3 tile = stage.tile((dim3 *)&tileSh[0]);
  dim3 waited = {tile.x, 0, 1};
  stage.wait(waited);
  int v = in[tile.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
  if (v != (int)tile.x + 1) {
    __trap();
  }
}

__global__ void producer(uint32_t *sem, uint32_t *counter, dim3 *order,
                         int *executed, int *out) {
  produce<AvoidCustomOrder>(sem, counter, order, executed, out);
}

__global__ void consumer(uint32_t *sem, uint32_t *counter, dim3 *order,
                         int *in) {
  consume<AvoidCustomOrder>(sem, counter, order, in);
}
