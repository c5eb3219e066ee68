#include "harmonic/data/split.h"

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"

namespace hm::data {

DatasetSplit split_dataset(std::shared_ptr<const Dataset> dataset, double fraction, uint64_t seed) {
  check(dataset != nullptr, "split_dataset", "null dataset");
  check(fraction >= 0 && fraction < 1, "split_dataset", "fraction must be in [0, 1), got {}", fraction);
  const int64_t n = dataset->size();
  const auto held = static_cast<int64_t>(std::llround(fraction * static_cast<double>(n)));
  check(fraction == 0 || (held >= 1 && held < n), "split_dataset",
        "fraction {} of {} examples leaves {} held out and {} for training (both must be >= 1)", fraction, n, held,
        n - held);
  // A stream of its own, so the split is not the loader's epoch-0 shuffle of the same seed.
  constexpr uint64_t kSplitStream = 0x5917;  // "split"
  std::vector<int64_t> perm = seeded_permutation(n, seed, kSplitStream);
  std::vector<int64_t> out(perm.begin(), perm.begin() + held), in(perm.begin() + held, perm.end());
  std::sort(out.begin(), out.end());
  std::sort(in.begin(), in.end());
  return {std::make_shared<Subset>(dataset, std::move(in)), std::make_shared<Subset>(dataset, std::move(out))};
}

}  // namespace hm::data
