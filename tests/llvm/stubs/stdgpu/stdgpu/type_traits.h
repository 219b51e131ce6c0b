// gsync-check test stub for stdgpu's stdgpu/type_traits.h (not in the
// corpus; not stdgpu's code): the trait and the overload-selection macros
// the copied headers name.
#ifndef STDGPU_TYPE_TRAITS_H
#define STDGPU_TYPE_TRAITS_H

#include <type_traits>

namespace stdgpu
{
template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;
} // namespace stdgpu

// Template parameters that keep an overload only where the condition holds:
// the declaration's form (with defaults) and the definition's. The extra
// type parameter makes the condition depend on the member template itself,
// so that a class template's member may test the class's parameters.
#define STDGPU_DETAIL_OVERLOAD_IF(...)                                                                               \
    typename stdgpu_overload_dummy = void,                                                                           \
             std::enable_if_t<(__VA_ARGS__) && std::is_void_v<stdgpu_overload_dummy>, int> = 0
#define STDGPU_DETAIL_OVERLOAD_DEFINITION_IF(...)                                                                    \
    typename stdgpu_overload_dummy, std::enable_if_t<(__VA_ARGS__) && std::is_void_v<stdgpu_overload_dummy>, int>

#endif // STDGPU_TYPE_TRAITS_H
