// gsync-check test driver: one NCCL LSA barrier session per CTA, synced
// with acquire and then with release, as in NCCL's device-API example.
#include "cuda-corpus/nccl-lsa-barrier/src/src/include/nccl_device/lsa_barrier.h"
#include "cuda-corpus/nccl-lsa-barrier/src/src/include/nccl_device/impl/lsa_barrier__funcs.h"

__global__ void lsa_barrier_kernel(ncclDevComm comm) {
  ncclLsaBarrierSession<ncclCoopCta> bar{ncclCoopCta(), comm, ncclTeamLsa(comm), comm.lsaBarrier, blockIdx.x};
  bar.sync(ncclCoopCta(), cuda::memory_order_acquire);
  bar.sync(ncclCoopCta(), cuda::memory_order_release);
}
