// gsync-check test stub for Ginkgo's common/cuda_hip/base/types.hpp (not in
// the corpus, and not Ginkgo's code): the value types the generated memory
// helpers are written for (half, bfloat16, complex).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/complex.h>
#include <ginkgo/core/base/array.hpp>
