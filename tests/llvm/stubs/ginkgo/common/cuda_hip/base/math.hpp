// gsync-check test stub for Ginkgo's common/cuda_hip/base/math.hpp (not in
// the corpus, and not Ginkgo's code): atomic.hpp uses none of its math.
#pragma once
#include "common/cuda_hip/base/types.hpp"
