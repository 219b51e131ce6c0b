// gsync-check test stub for stdgpu's stdgpu/functional.h (not in the corpus;
// not stdgpu's code): the addition functor bitset's host-side count names.
#ifndef STDGPU_FUNCTIONAL_H
#define STDGPU_FUNCTIONAL_H

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
struct plus
{
    constexpr STDGPU_HOST_DEVICE T
    operator()(const T& a, const T& b) const
    {
        return a + b;
    }
};
} // namespace stdgpu

#endif // STDGPU_FUNCTIONAL_H
