// Data-parallel sharding of an epoch's order: every global batch is split across the ranks, so
// N ranks training on their shards see, together, exactly the batches one process would (the
// same seeded order, the same batch boundaries). Resharding a run for a different N therefore
// changes nothing but who computes which examples.
//
//   std::vector<int64_t> order = loader.order(epoch);          // the same on every rank
//   auto mine = data::shard_batches(order, 64, loader.num_batches(), rank, world);
//   // mine[k]: this rank's examples of global batch k (64 / world of them, or one more)
#pragma once
#include <cstdint>
#include <vector>

namespace hm::data {

// [begin, end) of rank's part of a batch of n examples: contiguous parts, the first n % world
// parts one example longer. A part may be empty when n < world.
struct ShardRange {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};
ShardRange shard_range(int64_t n, int rank, int world);

// Rank's indices of each of the first num_batches batches of `order` (batches of batch_size,
// the last one possibly shorter).
std::vector<std::vector<int64_t>> shard_batches(const std::vector<int64_t>& order, int64_t batch_size,
                                                int64_t num_batches, int rank, int world);

}  // namespace hm::data
