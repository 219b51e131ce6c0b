// gsync-check test stub for flashinfer's vec_dtypes.cuh (not in the
// corpus): declared only; the barriers do not use it.
#pragma once
#include <cstddef>
#include <cstdint>
namespace flashinfer {
template <typename T, size_t N> struct vec_t;
}
