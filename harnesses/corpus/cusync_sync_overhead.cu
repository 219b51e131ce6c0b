//! name: cusync_sync_overhead
//! source: microsoft/cusync 345b60a, src/examples/sync-overhead/sync-overhead.cu (kernel1, the producer, and kernel2, the consumer, synchronized by a volatile flag per block), included unmodified from ../shared/cuda-corpus/cusync-tile-semaphore
//! description: cusync's bare synchronization-overhead example: a producer kernel writes floats and bumps a volatile flag; a consumer kernel launched beside it polls the flag, then reads the producer's floats and adds 1 to each
//! cuda-include: ../../../shared/cuda-corpus/cusync-tile-semaphore/src/src
//! note: Both kernels launched together, 2 blocks of 2 threads each, as the example's loop launches them (its `i` is 0, `cansync` true, `iter` 0; 4 words per buffer). The example measures the flag's overhead and orders nothing: under sc every run finishes (the consumer passes its flag only after the producer's block 0 bumped it). Under ptx the consumer's read of the producer's float races with its write: kernel1 bumps `sync` with a volatile access and no fence after writing `in`, and kernel2 reads `in` after a volatile poll with no fence. Also, every consumer block waits for `sync[0]` (its loop runs for `i < 1`), block 0's flag only. A synchronization the example does not claim to have, not a bug of cusync's library (harnesses/corpus/cusync_tile_semaphore.cu checks CuStage's).
//! expect --launch kernel1<<<2,2>>>(in,0,sync,1) --launch kernel2<<<2,2>>>(out,in,sync,1,0): violated heterogeneous_race
//! expect --launch kernel1<<<2,2>>>(in,0,sync,1) --launch kernel2<<<2,2>>>(out,in,sync,1,0) --memory-model sc: verified
//! note: The consumer alone waits forever for a flag only the producer bumps.
//! expect --launch kernel2<<<2,2>>>(out,in,sync,1,0): violated deadlock

// Written for gsync-check: the example's kernels, checked as launched.
#include "examples/sync-overhead/sync-overhead.cu"
