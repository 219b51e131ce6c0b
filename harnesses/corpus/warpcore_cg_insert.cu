//! name: warpcore_cg_insert
//! source: warpcore, include/warpcore/single_value_hash_table.cuh, storage.cuh, probing_schemes.cuh, hashers.cuh, status.cuh and the headers they include, included unmodified from ../shared/cuda-corpus/warpcore-cg-insert
//! description: warpcore's SingleValueHashTable inserting keys with cooperative-group tiles: the tile probes a window of slots (double hashing of Murmur hashes), finds a matching or empty key with group.ballot, its leader lane claims the slot with atomicCAS on the key, group.any and group.shfl broadcast the outcome, and lane 0 then writes the value; retrieve probes the same way and reads the value of the slot whose key it sees
//! cuda-include: ../../../shared/cuda-corpus/warpcore-cg-insert/src/include
//! cuda-include: ../../tests/llvm/stubs/warpcore
//! note: hpc_helpers (cuda_helpers.cuh, packed_types.cuh, which warpcore includes) and primes.hpp are stubs of ours under tests/llvm/stubs/warpcore, declaring only what the copied code names.
//! note: The table is the kernel's argument, passed by value as warpcore's kernels take it. Its fields are read at their own widths (`bool is_initialized_` beside the 64-bit capacity and the 32-bit seed) and set with --arg: an initialised table of 4 slots (`table.capacity_=4`, the probing's step is then 2 slots), warpcore's default seed, its slots the buffer `table->pairs_` (8 words: each slot a key and a value, 0 the empty key). A tile is 2 lanes (the library's default is 8).
//! note: Two tiles insert distinct keys (keys 1 and 2, values 7 and 8); the last thread to finish (a fenced ticket) scans the slots: each key is stored once, with its value. The first report is a data race in CUDA's memory model, and a real one: insert_impl reads a slot's key with a plain load (`key_type table_key = table_[i].key;`, single_value_hash_table.cuh line 766) while a tile of another block may be claiming that slot with atomicCAS (line 793). The read only picks the slot to try and the CAS settles it, so the table comes out right on today's GPUs, but the load is neither atomic nor volatile, and the compiler may keep or reuse it.
//! expect --kernel insert_distinct --grid 2 --block 2 --arg table.is_initialized_=1 --arg table.capacity_=4 --arg table.seed_=95227373 --arg table->pairs_=8: violated race
//! note: Under sequential consistency no insert is lost and no key is stored twice, and every tile finishes (weak fairness: the probing ends), with tiles in two blocks; with two tiles of one warp in lockstep too, whose ballots and `group.any` run in the same step, each over its own tile's lanes. (That run found a bug of ours, since fixed: the model counted a vote over every lane of the warp that ran it, whatever its mask, so one tile saw the other's CAS succeed and wrote its value into the other's slot.) Under `ptx` with race reports off the distinct inserts verify as well, 233438 states in about 30 s on the 2-core VM, too slow for the test.
//! expect --kernel insert_distinct --grid 2 --block 2 --arg table.is_initialized_=1 --arg table.capacity_=4 --arg table.seed_=95227373 --arg table->pairs_=8 --memory-model sc --scheduler fair: verified
//! expect --kernel insert_distinct --grid 1 --block 4 --arg table.is_initialized_=1 --arg table.capacity_=4 --arg table.seed_=95227373 --arg table->pairs_=8 --memory-model sc --simt lockstep: verified
//! note: Two tiles insert the same key (5, with values 7 and 8): it is stored once, the loser's CAS returning the key (duplicate_key), and the slot keeps one of the two values.
//! expect --kernel insert_same --grid 2 --block 2 --arg table.is_initialized_=1 --arg table.capacity_=4 --arg table.seed_=95227373 --arg table->pairs_=8 --memory-model sc: verified
//! note: A retrieve concurrent with the insert of its key: insert writes the value only after the CAS has published the key (lane 0's `*value_ptr = value_in` once insert_impl returns, single_value_hash_table.cuh line 224), with no fence between, so a retrieve can see the key and read the empty value 0, even under sequential consistency. That is warpcore's design (inserts and retrieves run as separate kernels, ordered by the launches), not a bug, but it answers the question: a retrieve that observes a key does not always observe its value.
//! expect --kernel insert_retrieve --grid 2 --block 2 --arg table.is_initialized_=1 --arg table.capacity_=4 --arg table.seed_=95227373 --arg table->pairs_=8 --memory-model sc: violated assertion

// Written for gsync-check: kernels that insert into and retrieve from
// warpcore's table with a tile per key, as its kernels::insert does.
#include <warpcore/single_value_hash_table.cuh>

#include "check_last.cuh"

namespace cg = cooperative_groups;
using key_type = std::uint32_t;
using probing_t = warpcore::defaults::probing_scheme_t<key_type, 2>;
using storage_t = warpcore::defaults::table_storage_t<key_type, key_type>;
using table_t = warpcore::SingleValueHashTable<key_type, key_type, warpcore::defaults::empty_key<key_type>(),
                                               warpcore::defaults::tombstone_key<key_type>(), probing_t>;
constexpr unsigned tile = table_t::cg_size();

// The table's slots are private: an explicit instantiation may name a
// private member, which gives the check a pointer to `table_`.
template <class Tag, typename Tag::type Member> struct expose {
  friend constexpr typename Tag::type member(Tag) { return Member; }
};
struct storage_of {
  using type = storage_t table_t::*;
  friend constexpr type member(storage_of);
};
template struct expose<storage_of, &table_t::table_>;

// How many slots hold `key`; `*value` is the last one's value.
__device__ unsigned count_key(const table_t &table, key_type key, key_type *value) {
  const storage_t &slots = table.*member(storage_of{});
  unsigned n = 0;
  for (std::uint64_t i = 0; i < slots.capacity(); ++i) {
    if (slots[i].key == key) {
      ++n;
      *value = slots[i].value;
    }
  }
  return n;
}

// Whether this thread finishes last (a fenced ticket): it then sees every
// other thread's writes.
__device__ bool last_to_finish() {
  __threadfence();
  const bool last = atomicAdd(&finished, 1) == gridDim.x * blockDim.x - 1;
  __threadfence();
  return last;
}

// Tile t inserts key t + 1 with value t + 7; each key ends up stored once.
__global__ void insert_distinct(table_t table) {
  const auto group = cg::tiled_partition<tile>(cg::this_thread_block());
  const key_type t = helpers::global_thread_id() / tile;
  table.insert(t + 1, t + 7, group);
  if (last_to_finish()) {
    const key_type tiles = gridDim.x * blockDim.x / tile;
    for (key_type k = 0; k < tiles; ++k) {
      key_type value = 0;
      if (count_key(table, k + 1, &value) != 1 || value != k + 7) {
        __trap();
      }
    }
  }
}

// Every tile inserts key 5, tile t with value t + 7: it is stored once.
__global__ void insert_same(table_t table) {
  const auto group = cg::tiled_partition<tile>(cg::this_thread_block());
  const key_type t = helpers::global_thread_id() / tile;
  table.insert(5, t + 7, group);
  if (last_to_finish()) {
    const key_type tiles = gridDim.x * blockDim.x / tile;
    key_type value = 0;
    if (count_key(table, 5, &value) != 1 || value < 7 || value >= 7 + tiles) {
      __trap();
    }
  }
}

// Tile 0 inserts key 1 with value 7 while tile 1 retrieves key 1: a
// retrieve that finds the key reads 7.
__global__ void insert_retrieve(table_t table) {
  const auto group = cg::tiled_partition<tile>(cg::this_thread_block());
  const key_type t = helpers::global_thread_id() / tile;
  if (t == 0) {
    table.insert(1, 7, group);
  } else {
    key_type value = 0;
    if (!table.retrieve(1, value, group).has_any() && value != 7) {
      __trap();
    }
  }
}
