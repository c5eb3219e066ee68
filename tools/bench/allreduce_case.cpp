#include "harmonic/tools/bench/allreduce_case.h"

#include <algorithm>
#include <chrono>

#include "harmonic/core/factories.h"

namespace hm::bench {

void run_allreduce_cases(dist::ProcessGroup& group, const std::vector<double>& sizes_mib, int repeat, int warmup,
                         const std::function<void(const AllReduceTiming&)>& report) {
  check(repeat >= 1 && warmup >= 0, "bench --allreduce", "repeat must be >= 1 and warmup >= 0");
  const double n = group.world_size();
  for (double mib : sizes_mib) {
    const auto elements = static_cast<int64_t>(mib * 1024 * 1024 / 4);
    check(elements >= 1, "bench --allreduce", "size {} MiB holds no float32", mib);
    Tensor buffer = full({elements}, 1.0);
    for (int i = 0; i < warmup; ++i) group.all_reduce(buffer, dist::ReduceOp::Sum);
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
      group.barrier();  // every rank starts together
      const auto t0 = std::chrono::steady_clock::now();
      group.all_reduce(buffer, dist::ReduceOp::Sum);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    // The slowest rank's median: the collective is done when the last rank is.
    Tensor median = full({1}, ms[ms.size() / 2], {.dtype = DType::Float64});
    Tensor all = group.all_gather(median);
    double slowest = 0;
    for (double v : all.to_vector()) slowest = std::max(slowest, v);
    AllReduceTiming t;
    t.bytes = elements * 4;
    t.ms = slowest;
    t.algo_gb_s = static_cast<double>(t.bytes) / (slowest * 1e-3) / 1e9;
    t.bus_gb_s = 2 * (n - 1) / n * t.algo_gb_s;
    report(t);
  }
}

}  // namespace hm::bench
