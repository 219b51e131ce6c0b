// gsync-check test driver: warpcore's SingleValueHashTable inserting one
// key-value pair per tile of 2 lanes, as its kernels::insert does with a
// tile per key (the default probing scheme, double hashing with Murmur
// hashes, at a cooperative-group size of 2 instead of 8).
#include <warpcore/single_value_hash_table.cuh>

using key_type = std::uint32_t;
using probing_t = warpcore::defaults::probing_scheme_t<key_type, 2>;
using table_t = warpcore::SingleValueHashTable<key_type, key_type, warpcore::defaults::empty_key<key_type>(),
                                               warpcore::defaults::tombstone_key<key_type>(), probing_t>;

__global__ void insert_kernel(table_t table) {
  const auto group = cooperative_groups::tiled_partition<table_t::cg_size()>(cooperative_groups::this_thread_block());
  const std::uint64_t gid = helpers::global_thread_id() / table_t::cg_size();
  table.insert(key_type(gid + 1), key_type(gid + 7), group);
}
