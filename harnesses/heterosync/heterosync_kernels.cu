//! name: heterosync_kernels
//! source: HeteroSync cuda/syncPrims/uvm/main.cu, its kernels as the benchmark launches them (unmodified, included below)
//! description: HeteroSync's synchronization kernels checked as launched, at 2 blocks of 1 thread, ITERATIONS=1, NUM_LDST=1, NUM_SM=1, beside the harnesses of this folder that call the same lock functions
//! cuda-include: ../../../shared/heterosync/cuda/syncPrims/uvm
//! note: `storage` gets 32 floats (accessData writes word 16 from word 0; a float is copied as its bits); `gpuLockData`'s pointer fields are a zero-initialised buffer each, and `--arg NAME[i]=V` gives the values the host's cudaLocksInit writes.
//! note: The spin, ticket (fetch-and-add) and back-off mutexes fence both sides of the critical section: verified.
//! expect --kernel kernelSpinLockMutex --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32: verified
//! expect --kernel kernelFetchAndAddMutex --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32: verified
//! expect --kernel kernelEBOMutex --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32: verified
//! note: The per-SM ("Uniq") locks fence with __threadfence_block(): with NUM_SM=1 both blocks take one lock, and a block-scope fence orders nothing for another block (PTX's cta scope is one block, not one SM), so the critical sections race (main.cu line 70).
//! expect --kernel kernelSpinLockMutexUniq --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32: violated heterogeneous_race
//! note: The sleeping mutex with the host's initial values (maxBufferSize = 2, first slot 1, the others -1) hands the lock over with atomicExch before the releasing block's __threadfence(): the race the harness heterosync_sleep_mutex finds. Under sc it verifies; with every buffer left at zero no slot ever turns (a deadlock of that initial state, not of the algorithm).
//! expect --kernel kernelSleepingMutex --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32 --arg gpuLockData[0]=2 --arg gpuLockData->mutexBuffers[0]=1 --arg gpuLockData->mutexBuffers[1]=-1 --arg gpuLockData->mutexBuffers[2]=-1 --arg gpuLockData->mutexBuffers[3]=-1: violated heterogeneous_race
//! expect --kernel kernelSleepingMutex --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32 --arg gpuLockData[0]=2 --arg gpuLockData->mutexBuffers[0]=1 --arg gpuLockData->mutexBuffers[1]=-1 --arg gpuLockData->mutexBuffers[2]=-1 --arg gpuLockData->mutexBuffers[3]=-1 --memory-model sc: verified
//! expect --kernel kernelSleepingMutex --arg mutex=0 --arg NUM_SM=1 --arg ITERATIONS=1 --arg NUM_LDST=1 --arg storage=32: violated deadlock
//! note: The tree barriers compute ceil((float)gridDim.x / numBlocksAtBarr), launch constants folded exactly. Launched with one thread per block they race where the harnesses verify: a thread's data window is (tid / 16) * (NUM_LDST + 1), so blocks 0 and 1, each of one thread, write the same words in the same iteration. The benchmark launches at least 16 threads per block, where the windows are disjoint; 2 blocks of 16 threads is beyond this launch's budget (427,666 states in 60 s, inconclusive, on a 2-core VM), which is why the harnesses abstract the data accesses.
//! expect --kernel kernelAtomicTreeBarrierUniq --arg ITERATIONS=1 --arg NUM_LDST=1 --arg NUM_SM=1 --arg storage=32 --arg MAX_BLOCKS=2 --arg perSMBarrierBuffers=8: violated heterogeneous_race
//! expect --kernel kernelFBSTreeBarrierUniq --arg ITERATIONS=1 --arg NUM_LDST=1 --arg NUM_SM=1 --arg storage=32 --arg MAX_BLOCKS=2 --arg perSMBarrierBuffers=8: violated heterogeneous_race
//! note: The semaphore kernels (kernelSpinLockSemaphore, kernelEBOSemaphore and their Uniq forms) are refused: their readers add floats (`dummyArray[threadIdx.x] += ...`, main.cu line 95), floating-point arithmetic on run-time values.

#include "main.cu"
