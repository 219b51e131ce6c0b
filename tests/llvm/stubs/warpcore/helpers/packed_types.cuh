// gsync-check test stub for hpc_helpers' packed_types.cuh (a separate
// repository; not in the corpus, and not its code): the bit-packed types
// warpcore's multi-value storage names, declared only (the single-value
// table does not use them).
#ifndef GSYNC_STUB_PACKED_TYPES_CUH
#define GSYNC_STUB_PACKED_TYPES_CUH

namespace packed_types {

template <int FirstBits, int SecondBits>
class PackedPair;

template <int FirstBits, int SecondBits, int ThirdBits, int FourthBits>
class PackedQuadruple;

}  // namespace packed_types

#endif  // GSYNC_STUB_PACKED_TYPES_CUH
