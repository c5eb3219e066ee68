// A pool of independent training runs: each of `count` runs on one of `jobs` threads, the most
// expensive first, every worker with one inner compute thread (parallel runs must not
// oversubscribe the cores). Studies use it to sweep their grids.
//
//   train::run_pool(configs.size(), [&](size_t i) { results[i] = run(configs[i]); }, jobs,
//                   {.cost = [&](size_t i) { return cost(configs[i]); },
//                    .label = [&](size_t i) { return label(configs[i]); },
//                    .on_done = [&](size_t i, const PoolProgress& p) { print(i, p); }});
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace hm::train {

struct PoolProgress {
  size_t done = 0, total = 0;  // finished runs (including this one) of all
  double elapsed = 0;          // seconds since the pool started
  double eta = 0;              // estimated seconds left, from the costs of the runs left
};

struct PoolOptions {
  std::function<double(size_t)> cost;        // relative cost of run i (default 1): order and ETA
  std::function<std::string(size_t)> label;  // names run i in errors (default "run i")
  // After run i finished, under the pool's lock (so it may print and write files in order).
  std::function<void(size_t, const PoolProgress&)> on_done;
  // Polled before each run starts: true stops the pool from starting more (Ctrl-C).
  std::function<bool()> stop_starting;
  int inner_threads = 1;  // hm::set_num_threads for each worker
};

// Thrown by a run that was asked to stop before it finished (Ctrl-C): it is neither done nor a
// failure, and the pool just starts no more runs.
struct RunInterrupted {};

// Runs run(i) for every i in [0, count) exactly once (unless stopped). When a run throws, no
// new run starts, the running ones finish, and an hm::Error naming the failed run's label and
// message is thrown. Returns the number of runs that finished.
size_t run_pool(size_t count, const std::function<void(size_t)>& run, int jobs, const PoolOptions& options = {});

}  // namespace hm::train
