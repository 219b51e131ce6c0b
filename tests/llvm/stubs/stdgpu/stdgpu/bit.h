// gsync-check test stub for stdgpu's stdgpu/bit.h (not in the corpus;
// not stdgpu's code): the remainder by a power of two that bitset uses to find a bit in its block.
#ifndef STDGPU_BIT_H
#define STDGPU_BIT_H

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
STDGPU_HOST_DEVICE T
bit_mod(const T number, const T divider) noexcept
{
    return number & (divider - 1);
}
} // namespace stdgpu

#endif // STDGPU_BIT_H
