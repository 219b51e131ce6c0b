// gsync-check test stub: bwd_orig.h ends with explicit instantiations of
// BWDIndexQueueIndirect, declared in bwd_indirect.h, which it does not
// include; an empty template stands in for it.
#pragma once
template <int N> struct BWDIndexQueueIndirect {};
