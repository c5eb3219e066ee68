// All-reduce bandwidth of the job's process group (`harmonic bench --allreduce`, run under
// mpirun): float32 buffers of 1..64 MiB, summed over the ranks. Reports the median time and
// the bus bandwidth as osu_allreduce and nccl-tests define it, 2 (n - 1) / n * bytes / time:
// what each rank's link carries in a ring all-reduce, comparable across rank counts.
#pragma once
#include <functional>
#include <vector>

#include "harmonic/nn/distributed/process_group.h"

namespace hm::bench {

struct AllReduceTiming {
  int64_t bytes = 0;
  double ms = 0;         // median over the repeats (the slowest rank's, max-reduced)
  double algo_gb_s = 0;  // bytes / time
  double bus_gb_s = 0;   // 2 (n - 1) / n * bytes / time
};

// sizes_mib: buffer sizes in MiB; report gets each size as soon as it is timed (on every rank).
void run_allreduce_cases(dist::ProcessGroup& group, const std::vector<double>& sizes_mib, int repeat, int warmup,
                         const std::function<void(const AllReduceTiming&)>& report);

}  // namespace hm::bench
