// gsync-check test stub for stdgpu's stdgpu/config.h, which stdgpu's CMake
// generates from config.h.in (in the corpus); not stdgpu's code. The CUDA
// back end, contract checks off (a release build), 32-bit indices (the
// library's default).
#ifndef STDGPU_CONFIG_H
#define STDGPU_CONFIG_H

#define STDGPU_VERSION_MAJOR 1
#define STDGPU_VERSION_MINOR 3
#define STDGPU_VERSION_PATCH 0
#define STDGPU_VERSION_STRING "1.3.0"

#define STDGPU_BACKEND STDGPU_BACKEND_CUDA
#define STDGPU_BACKEND_DIRECTORY cuda
#define STDGPU_BACKEND_NAMESPACE cuda
#define STDGPU_BACKEND_MACRO_NAMESPACE CUDA

#define STDGPU_ENABLE_CONTRACT_CHECKS 0
#define STDGPU_USE_32_BIT_INDEX 1

#endif // STDGPU_CONFIG_H
