// gsync-check's stand-in for the CUDA runtime headers, force-included
// before the user's CUDA when libclang parses it (device side, sm_70, no
// CUDA installation needed). It declares what device code may call; the
// front end gives each declaration its meaning by name. Host API
// declarations are here only so that host code beside the device code
// compiles; host code is never checked.
#pragma once
#include <stddef.h>

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif

// Launch coordinates (a launch is one-dimensional: y and z are 0, their
// dimensions 1).
struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

// <stdint.h>'s fixed-width types (a redefinition to the same type is
// allowed, so a file that includes the real header still compiles).
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;

// Atomics, each with its block- and system-scope forms.
#define GSYNC_ATOMIC2(NAME, T) \
  __device__ T NAME(T *address, T value); \
  __device__ T NAME##_block(T *address, T value); \
  __device__ T NAME##_system(T *address, T value);
#define GSYNC_ATOMIC2_INT(NAME) \
  GSYNC_ATOMIC2(NAME, int) GSYNC_ATOMIC2(NAME, unsigned int) \
  GSYNC_ATOMIC2(NAME, unsigned long long int)
GSYNC_ATOMIC2_INT(atomicAdd)
GSYNC_ATOMIC2(atomicAdd, float)
GSYNC_ATOMIC2_INT(atomicSub)
GSYNC_ATOMIC2_INT(atomicExch)
GSYNC_ATOMIC2(atomicExch, float)
GSYNC_ATOMIC2_INT(atomicMin)
GSYNC_ATOMIC2_INT(atomicMax)
GSYNC_ATOMIC2(atomicMin, long long int)
GSYNC_ATOMIC2(atomicMax, long long int)
GSYNC_ATOMIC2_INT(atomicAnd)
GSYNC_ATOMIC2_INT(atomicOr)
GSYNC_ATOMIC2_INT(atomicXor)
GSYNC_ATOMIC2(atomicInc, unsigned int)
GSYNC_ATOMIC2(atomicDec, unsigned int)
#define GSYNC_ATOMIC_CAS(T) \
  __device__ T atomicCAS(T *address, T compare, T value); \
  __device__ T atomicCAS_block(T *address, T compare, T value); \
  __device__ T atomicCAS_system(T *address, T compare, T value);
GSYNC_ATOMIC_CAS(int)
GSYNC_ATOMIC_CAS(unsigned int)
GSYNC_ATOMIC_CAS(unsigned long long int)
GSYNC_ATOMIC_CAS(unsigned short int)
#undef GSYNC_ATOMIC2
#undef GSYNC_ATOMIC2_INT
#undef GSYNC_ATOMIC_CAS

// Fences, barriers, warp operations, time.
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __syncthreads(void);
// clang's and NVCC's `bar.sync id` intrinsic (the cooperative groups header
// calls it); only barrier 0, `__syncthreads()`, is in the subset.
__device__ void __barrier_sync(unsigned int id);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ unsigned int __activemask(void);
// Warp shuffles: declared so that headers using them compile; a call is
// outside the subset (the front end names it).
__device__ int __shfl_sync(unsigned int mask, int var, int src_lane, int width = 32);
__device__ unsigned int __shfl_sync(unsigned int mask, unsigned int var, int src_lane, int width = 32);
__device__ void __nanosleep(unsigned int ns);
__device__ long clock(void);
__device__ long long int clock64(void);

// libcu++: cuda::atomic_ref and cuda::atomic with their orders and scopes.
namespace cuda {
enum memory_order {
  memory_order_relaxed, memory_order_consume, memory_order_acquire,
  memory_order_release, memory_order_acq_rel, memory_order_seq_cst
};
enum thread_scope {
  thread_scope_system, thread_scope_device, thread_scope_block,
  thread_scope_thread
};
namespace std {
using cuda::memory_order;
using cuda::memory_order_relaxed;
using cuda::memory_order_consume;
using cuda::memory_order_acquire;
using cuda::memory_order_release;
using cuda::memory_order_acq_rel;
using cuda::memory_order_seq_cst;
}
#define GSYNC_ATOMIC_MEMBERS(CLASS) \
  __device__ T load(memory_order order = memory_order_seq_cst) const; \
  __device__ void store(T desired, memory_order order = memory_order_seq_cst) const; \
  __device__ T exchange(T desired, memory_order order = memory_order_seq_cst) const; \
  __device__ bool compare_exchange_strong(T &expected, T desired, memory_order order = memory_order_seq_cst) const; \
  __device__ bool compare_exchange_strong(T &expected, T desired, memory_order success, memory_order failure) const; \
  __device__ bool compare_exchange_weak(T &expected, T desired, memory_order order = memory_order_seq_cst) const; \
  __device__ bool compare_exchange_weak(T &expected, T desired, memory_order success, memory_order failure) const; \
  __device__ T fetch_add(T arg, memory_order order = memory_order_seq_cst) const; \
  __device__ T fetch_sub(T arg, memory_order order = memory_order_seq_cst) const; \
  __device__ T fetch_and(T arg, memory_order order = memory_order_seq_cst) const; \
  __device__ T fetch_or(T arg, memory_order order = memory_order_seq_cst) const; \
  __device__ T fetch_xor(T arg, memory_order order = memory_order_seq_cst) const; \
  __device__ T fetch_min(T arg, memory_order order = memory_order_seq_cst) const; \
  __device__ T fetch_max(T arg, memory_order order = memory_order_seq_cst) const;
template <class T, thread_scope S = thread_scope_system> struct atomic_ref {
  __device__ explicit atomic_ref(T &object);
  GSYNC_ATOMIC_MEMBERS(atomic_ref)
};
template <class T, thread_scope S = thread_scope_system> struct atomic {
  T gsync_value;
  GSYNC_ATOMIC_MEMBERS(atomic)
};
#undef GSYNC_ATOMIC_MEMBERS
__device__ void atomic_thread_fence(memory_order order, thread_scope scope = thread_scope_system);
}

// Host runtime API, enough for host code beside device code to compile.
// The C library's error reporting that host helpers call (HeteroSync's
// cuda_error.h), declared as glibc declares them.
typedef struct _IO_FILE FILE;
extern FILE *stderr;
extern FILE *stdout;
int fprintf(FILE *stream, const char *format, ...);
int printf(const char *format, ...);
void exit(int status);
enum cudaError { cudaSuccess = 0, cudaErrorInitializationError = 3 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
typedef struct gsync_event *cudaEvent_t;
typedef struct gsync_stream *cudaStream_t;
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaMalloc(void *pointer, size_t size);
cudaError_t cudaMallocHost(void *pointer, size_t size);
cudaError_t cudaMallocManaged(void *pointer, size_t size);
cudaError_t cudaFree(void *pointer);
cudaError_t cudaFreeHost(void *pointer);
cudaError_t cudaMemset(void *pointer, int value, size_t count);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
