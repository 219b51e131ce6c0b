// gsync-check test stub for nccl.h (not in the corpus): the host types the
// device headers name.
#pragma once
typedef enum { ncclSuccess = 0, ncclTimeout = 7 } ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef struct ncclWindow_vidmem *ncclWindow_t;
