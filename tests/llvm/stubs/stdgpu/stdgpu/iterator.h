// gsync-check test stub for stdgpu's stdgpu/iterator.h (not in the corpus;
// not stdgpu's code): the iterator makers the deque's host-side
// clear and range functions name, declared only, over raw pointers (stdgpu's
// return device pointers).
#ifndef STDGPU_ITERATOR_H
#define STDGPU_ITERATOR_H

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
T*
device_begin(T* p);

template <typename T>
T*
device_end(T* p);

template <typename T>
T*
make_device(T* p);
} // namespace stdgpu

#endif // STDGPU_ITERATOR_H
