// gsync-check test stub for stdgpu's stdgpu/numeric.h (not in the corpus;
// not stdgpu's code): the fill with increasing values the deque's
// host-side range function names, declared only.
#ifndef STDGPU_NUMERIC_H
#define STDGPU_NUMERIC_H

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename ExecutionPolicy, typename Iterator, typename T>
void
iota(ExecutionPolicy&& policy, Iterator begin, Iterator end, T value);
} // namespace stdgpu

#endif // STDGPU_NUMERIC_H
