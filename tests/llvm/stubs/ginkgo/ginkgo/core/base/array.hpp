// gsync-check test stub for Ginkgo's public ginkgo/core/base/array.hpp (not
// in the corpus, and not Ginkgo's code): the names syncfree.hpp's host-side
// syncfree_storage constructor uses, declared only; the device code never
// calls them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gko {
using size_type = std::size_t;
using int32 = std::int32_t;
using int64 = std::int64_t;
using uint32 = std::uint32_t;
using uint64 = std::uint64_t;

class CudaExecutor;

template <typename T>
class array {
public:
    void resize_and_reset(size_type n);
    T* get_data() noexcept;
};
}  // namespace gko
