// The profiler (core/profiler.h) times the thread that started it: kernels and phases on other
// threads (a data loader's prefetch thread) run beside its own and would push the shares of
// the wall time past 100%.
#include <thread>

#include "harmonic/core/profiler.h"
#include "tests/helpers.h"

using namespace hm;

TEST_CASE("profiler: kernels and phases of other threads are left out, shares stay within the wall time") {
  Tensor a = randn({64, 64});
  Profiler p;
  std::thread loader([&] {
    ProfilePhase phase("loader");
    for (int i = 0; i < 20; ++i) (void)matmul(a, a);
  });
  {
    ProfilePhase phase("forward");
    (void)matmul(a, a);
  }
  loader.join();
  const ProfileReport r = p.report();
  int64_t gemms = 0;
  double kernel_ms = 0;
  for (const ProfileRow& row : r.kernels) {
    kernel_ms += row.total_ms;
    if (row.name == "gemm") gemms += row.calls;
  }
  CHECK(gemms == 1);
  CHECK(kernel_ms <= r.wall_ms);
  REQUIRE(r.phases.size() == 1);
  CHECK(r.phases[0].name == "forward");
}
