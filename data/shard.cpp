#include "harmonic/data/shard.h"

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm::data {

ShardRange shard_range(int64_t n, int rank, int world) {
  check(world >= 1 && rank >= 0 && rank < world, "shard_range", "rank {} is not in a world of {}", rank, world);
  check(n >= 0, "shard_range", "negative batch size {}", n);
  const int64_t base = n / world, extra = n % world;
  const int64_t begin = rank * base + std::min<int64_t>(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

std::vector<std::vector<int64_t>> shard_batches(const std::vector<int64_t>& order, int64_t batch_size,
                                                int64_t num_batches, int rank, int world) {
  check(batch_size >= 1, "shard_batches", "batch_size must be >= 1, got {}", batch_size);
  const int64_t n = std::ssize(order);
  check(num_batches >= 0 && num_batches <= (n + batch_size - 1) / batch_size, "shard_batches",
        "{} batches of {} do not fit an order of {} examples", num_batches, batch_size, n);
  std::vector<std::vector<int64_t>> batches(static_cast<size_t>(num_batches));
  for (int64_t k = 0; k < num_batches; ++k) {
    const int64_t begin = k * batch_size, size = std::min(batch_size, n - begin);
    const ShardRange part = shard_range(size, rank, world);
    batches[static_cast<size_t>(k)].assign(order.begin() + begin + part.begin, order.begin() + begin + part.end);
  }
  return batches;
}

}  // namespace hm::data
