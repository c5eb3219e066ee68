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

// A parallel region hands work to OpenMP threads that `harmonic` runs with passive waiting
// (tools/train/README.md, "Threads on a busy machine"), so each one costs a worker's wake-up,
// tens of microseconds on this project's 2-core VM: PyTorch's grain of 32768 element operations
// assumes spinning workers. At 32768 operations and 2^18 multiply-adds a second thread made the
// toy study's steps 1.06-1.57x slower; at these values every small paper-model step gains from it
// (tools/bench/cpu_runs/vm-2026-12-07-threads/, compare_threads.sh).
int64_t parallel_grain() { return int64_t{1} << 17; }
int64_t gemm_split_work() { return int64_t{1} << 20; }

int get_num_threads() {
  int n = g_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

}  // namespace hm
