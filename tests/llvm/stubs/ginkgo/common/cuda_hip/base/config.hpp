// gsync-check test stub for Ginkgo's common/cuda_hip/base/config.hpp (not in
// the corpus, and not Ginkgo's code): the CUDA warp constants the
// cooperative-group wrappers name, and the executor the kernels take.
#pragma once
#include <ginkgo/core/base/array.hpp>

namespace gko {
namespace kernels {
namespace cuda {
using DefaultExecutor = CudaExecutor;
struct config {
    using lane_mask_type = std::uint32_t;
    static constexpr std::uint32_t warp_size = 32;
};
}  // namespace cuda
}  // namespace kernels
}  // namespace gko
