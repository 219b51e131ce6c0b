// gsync-check test stub for stdgpu's stdgpu/limits.h (not in the corpus;
// not stdgpu's code): the numeric limits the CUDA atomics name, as the standard's.
#ifndef STDGPU_LIMITS_H
#define STDGPU_LIMITS_H

#include <limits>

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
struct numeric_limits : std::numeric_limits<T>
{
};
} // namespace stdgpu

#endif // STDGPU_LIMITS_H
