// gsync-check test stub for Ginkgo's core/components/fill_array_kernels.hpp
// (not in the corpus, and not Ginkgo's code): the host-side fill that
// syncfree_storage's constructor calls, declared only.
#pragma once
#include "common/cuda_hip/base/config.hpp"

namespace gko {
namespace kernels {
namespace cuda {
namespace components {
template <typename T>
void fill_array(std::shared_ptr<const DefaultExecutor> exec, T* data, size_type n, T value);
}  // namespace components
}  // namespace cuda
}  // namespace kernels
}  // namespace gko
