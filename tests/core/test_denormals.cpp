// hm::set_flush_denormal: subnormal operands and results read and write as zero on the calling
// thread and on every thread of the OpenMP pool, and the mode switches back.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <vector>

#include "harmonic/core/denormals.h"
#include "harmonic/core/parallel.h"

namespace {

// Restores the mode the test found.
struct RestoreMode {
  bool was = hm::flush_denormal();
  ~RestoreMode() { hm::set_flush_denormal(was); }
};

// The bits of a float: compared as floats on a thread that flushes, a subnormal equals zero.
uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The factors, read at run time: the compiler cannot fold a product of these (it folds volatile
// locals of an OpenMP region).
volatile float g_factors[2];

// The bits of x * 1 on each thread of a parallel loop.
std::vector<uint32_t> products_on_threads(float x, int threads) {
  g_factors[0] = x, g_factors[1] = 1.0f;
  std::vector<uint32_t> out(threads, 1);
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const float a = g_factors[0], one = g_factors[1];
    out[t] = bits(a * one);
  }
  return out;
}

}  // namespace

TEST_CASE("set_flush_denormal flushes subnormals on the pool's threads and switches back") {
  RestoreMode restore;
  const float tiny = FLT_MIN / 4;  // subnormal
  REQUIRE(tiny > 0.0f);
  const int threads = hm::pool_width();
  products_on_threads(1.0f, threads);  // the pool exists before the switch
  if (!hm::set_flush_denormal(true)) {
    MESSAGE("this CPU has no flush-to-zero mode");
    return;
  }
  CHECK(hm::flush_denormal());
  for (uint32_t v : products_on_threads(tiny, threads)) CHECK(v == 0u);
  g_factors[0] = FLT_MIN, g_factors[1] = 2.0f;
  CHECK(bits(g_factors[0] / g_factors[1]) == 0u);  // a normal operand whose result is subnormal
  CHECK(hm::set_flush_denormal(false));
  CHECK_FALSE(hm::flush_denormal());
  for (uint32_t v : products_on_threads(tiny, threads)) CHECK(v == bits(tiny));
  g_factors[0] = FLT_MIN, g_factors[1] = 2.0f;
  CHECK(bits(g_factors[0] / g_factors[1]) == bits(FLT_MIN / 2));
}
