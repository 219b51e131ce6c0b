// gsync-check test stub for stdgpu's stdgpu/utility.h (not in the corpus;
// not stdgpu's code): forward and move, as the standard's, and the pair
// the deque's pops return.
#ifndef STDGPU_UTILITY_H
#define STDGPU_UTILITY_H

#include <type_traits>
#include <utility>

#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
constexpr STDGPU_HOST_DEVICE T&&
forward(std::remove_reference_t<T>& t) noexcept
{
    return static_cast<T&&>(t);
}

template <typename T>
constexpr STDGPU_HOST_DEVICE std::remove_reference_t<T>&&
move(T&& t) noexcept
{
    return static_cast<std::remove_reference_t<T>&&>(t);
}

template <typename T1, typename T2>
struct pair
{
    T1 first;
    T2 second;

    STDGPU_HOST_DEVICE
    pair(const T1& x, const T2& y)
      : first(x)
      , second(y)
    {
    }
};
} // namespace stdgpu

#endif // STDGPU_UTILITY_H
