// The default generator is per thread (core/random.h): runs trained side by side on a study's
// run pool each seed and draw their own stream, so what one run draws does not depend on the
// runs beside it (and .ci/tsan sees no race on it).
#include <thread>
#include <vector>

#include "tests/helpers.h"

using namespace hm;

namespace {

// What a run does: seed, then draw several tensors (as module inits do) from the default generator.
std::vector<double> seeded_draws(uint64_t seed) {
  manual_seed(seed);
  std::vector<double> out;
  for (int i = 0; i < 200; ++i)
    for (double v : randn({16}, {.dtype = DType::Float64}).to_vector()) out.push_back(v);
  return out;
}

}  // namespace

TEST_CASE("default generator: threads seeded alike draw alike, side by side, without touching each other") {
  const std::vector<double> alone1 = seeded_draws(1), alone2 = seeded_draws(2);
  CHECK(alone1 != alone2);
  manual_seed(99);
  const std::vector<double> before = randn({4}, {.dtype = DType::Float64}).to_vector();
  manual_seed(99);
  std::vector<double> side1, side2;
  std::thread a([&] { side1 = seeded_draws(1); });
  std::thread b([&] { side2 = seeded_draws(2); });
  a.join();
  b.join();
  CHECK(side1 == alone1);  // with one process-wide generator the two streams would interleave
  CHECK(side2 == alone2);
  CHECK(randn({4}, {.dtype = DType::Float64}).to_vector() == before);  // this thread's stream untouched
  std::vector<double> fresh;
  std::thread c([&] { fresh = randn({4}, {.dtype = DType::Float64}).to_vector(); });
  c.join();
  manual_seed(0);
  CHECK(fresh == randn({4}, {.dtype = DType::Float64}).to_vector());  // a new thread starts at seed 0
}
