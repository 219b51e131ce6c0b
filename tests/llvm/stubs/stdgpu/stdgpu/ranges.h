// gsync-check test stub for stdgpu's stdgpu/ranges.h (not in the corpus;
// not stdgpu's code): the range types the deque's host-side range
// functions return, declared only.
#ifndef STDGPU_RANGES_H
#define STDGPU_RANGES_H

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
class device_range;

template <typename T>
class device_indexed_range;
} // namespace stdgpu

#endif // STDGPU_RANGES_H
