// data::split_dataset: sizes, disjointness, determinism, errors.
#include <algorithm>
#include <numeric>

#include "harmonic/data/split.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::throws_with;

TEST_CASE("split_dataset: a deterministic disjoint hold-out split in base order") {
  auto base = std::make_shared<data::TensorDataset>(hm::test::iota({50, 2}));
  data::DatasetSplit s = data::split_dataset(base, 0.1, 7);
  CHECK(s.train->size() == 45);
  CHECK(s.held_out->size() == 5);  // round(0.1 * 50)
  std::vector<int64_t> all = s.train->indices();
  all.insert(all.end(), s.held_out->indices().begin(), s.held_out->indices().end());
  CHECK(std::is_sorted(s.train->indices().begin(), s.train->indices().end()));
  CHECK(std::is_sorted(s.held_out->indices().begin(), s.held_out->indices().end()));
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(50);
  std::iota(expected.begin(), expected.end(), int64_t{0});
  CHECK(all == expected);
  CHECK(data::split_dataset(base, 0.1, 7).held_out->indices() == s.held_out->indices());
  CHECK(data::split_dataset(base, 0.1, 8).held_out->indices() != s.held_out->indices());
  CHECK(s.held_out->get(0).input.to_vector() == base->get(s.held_out->indices()[0]).input.to_vector());
  CHECK(data::split_dataset(base, 0.0, 7).held_out->size() == 0);
  CHECK(throws_with([&] { data::split_dataset(base, 1.0, 7); }, {"fraction must be in [0, 1)"}));
  CHECK(throws_with([&] { data::split_dataset(base, 0.001, 7); }, {"leaves 0 held out"}));
}
