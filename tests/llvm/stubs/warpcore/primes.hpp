// gsync-check test stub for warpcore's include/warpcore/primes.hpp (a
// 2.1 MB table the corpus leaves out; not warpcore's code): a few primes
// for the host-side choice of a table's capacity. base.cuh includes it as
// "primes.hpp"; it is found through this include folder.
#ifndef GSYNC_STUB_WARPCORE_PRIMES_HPP
#define GSYNC_STUB_WARPCORE_PRIMES_HPP

#include <array>
#include <cstdint>

namespace warpcore {
namespace detail {
constexpr std::array<std::uint64_t, 8> primes = {2, 3, 5, 7, 11, 13, 17, 19};
}  // namespace detail
}  // namespace warpcore

#endif  // GSYNC_STUB_WARPCORE_PRIMES_HPP
