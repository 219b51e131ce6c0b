// gsync-check test stub for stdgpu's stdgpu/algorithm.h (not in the corpus;
// not stdgpu's code): min and max, which the float atomics call.
#ifndef STDGPU_ALGORITHM_H
#define STDGPU_ALGORITHM_H

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
constexpr STDGPU_HOST_DEVICE const T&
min(const T& a, const T& b)
{
    return (b < a) ? b : a;
}

template <typename T>
constexpr STDGPU_HOST_DEVICE const T&
max(const T& a, const T& b)
{
    return (a < b) ? b : a;
}
} // namespace stdgpu

#endif // STDGPU_ALGORITHM_H
