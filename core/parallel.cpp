#include "harmonic/core/parallel.h"

#include <atomic>

#include "harmonic/core/error.h"

namespace hm {
namespace {
std::atomic<int> g_threads{0};  // 0: OpenMP's default
}

void set_num_threads(int n) {
  check(n >= 1, "set_num_threads", "thread count must be >= 1, got {}", n);
  g_threads = n;
  omp_set_num_threads(n);
}

int get_num_threads() {
  int n = g_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

}  // namespace hm
