// gsync-check test stub for stdgpu's stdgpu/memory.h (not in the corpus;
// not stdgpu's code): the device allocator type the containers hold, its
// traits, and the copies the host-side functions name (declared only: no
// device code calls them).
#ifndef STDGPU_MEMORY_H
#define STDGPU_MEMORY_H

#include <new>
#include <type_traits>

#include <stdgpu/cstddef.h>
#include <stdgpu/platform.h>

namespace stdgpu
{
template <typename T>
struct safe_device_allocator
{
    using value_type = T;
};

// The traits the containers use: allocation (host side, declared only),
// and constructing and destroying an element in place, which the deque's
// device code does under a slot lock.
template <typename Allocator>
struct allocator_traits
{
    using value_type = typename Allocator::value_type;

    template <typename U>
    using rebind_alloc = safe_device_allocator<U>;

    static value_type*
    allocate(Allocator& a, index64_t n);

    static void
    deallocate(Allocator& a, value_type* p, index64_t n);

    template <typename ExecutionPolicy>
    static value_type*
    allocate_filled(ExecutionPolicy&& policy, Allocator& a, index64_t n, const value_type& default_value);

    template <typename ExecutionPolicy>
    static void
    deallocate_filled(ExecutionPolicy&& policy, Allocator& a, value_type* p, index64_t n);

    template <typename U, typename... Args>
    static STDGPU_HOST_DEVICE void
    construct([[maybe_unused]] Allocator& a, U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(static_cast<Args&&>(args)...);
    }

    template <typename U>
    static STDGPU_HOST_DEVICE void
    destroy([[maybe_unused]] Allocator& a, U* p)
    {
        p->~U();
    }
};

enum class dynamic_memory_type
{
    host,
    device,
    managed,
    invalid
};

namespace detail
{
// Whether destroying a T may be skipped (its destructor does nothing).
template <typename T>
constexpr bool
is_destroy_optimizable()
{
    return std::is_trivially_destructible_v<T>;
}

template <typename ExecutionPolicy, typename Iterator>
void
unoptimized_destroy(ExecutionPolicy&& policy, Iterator first, Iterator last);

template <typename ExecutionPolicy>
void
memcpy(ExecutionPolicy&& policy,
       void* destination,
       const void* source,
       index64_t bytes,
       dynamic_memory_type destination_type,
       dynamic_memory_type source_type);
} // namespace detail
} // namespace stdgpu

#endif // STDGPU_MEMORY_H
