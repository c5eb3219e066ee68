#include "harmonic/tools/train/run_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/core/parallel.h"

namespace hm::train {

size_t run_pool(size_t count, const std::function<void(size_t)>& run, int jobs, const PoolOptions& options) {
  check(jobs >= 1, "run_pool", "jobs must be >= 1, got {}", jobs);
  check(options.inner_threads >= 1, "run_pool", "inner_threads must be >= 1, got {}", options.inner_threads);
  check(static_cast<bool>(run), "run_pool", "no run function given");
  if (count == 0) return 0;
  auto cost = [&](size_t i) { return options.cost ? options.cost(i) : 1.0; };
  auto label = [&](size_t i) { return options.label ? options.label(i) : fmt::format("run {}", i); };

  // The queue: indices by decreasing cost (ties in index order), so the longest runs start first
  // and the pool does not end with one slow run on one core.
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  std::vector<double> costs(count);
  double total_cost = 0;
  for (size_t i = 0; i < count; ++i) total_cost += costs[i] = cost(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });

  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false}, stopped{false};
  std::mutex mutex;  // guards the fields below and on_done
  size_t done = 0;
  double done_cost = 0;
  std::optional<std::string> error;
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    set_num_threads(options.inner_threads);
    while (!failed.load() && !stopped.load()) {
      if (options.stop_starting && options.stop_starting()) {
        stopped = true;
        return;
      }
      const size_t slot = next.fetch_add(1);
      if (slot >= count) return;
      const size_t i = order[slot];
      try {
        run(i);
        std::lock_guard<std::mutex> lock(mutex);
        ++done;
        done_cost += costs[i];
        if (options.on_done && !failed.load()) {
          PoolProgress p;
          p.done = done;
          p.total = count;
          p.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          p.eta = done_cost > 0 ? p.elapsed * (total_cost - done_cost) / done_cost : 0.0;
          options.on_done(i, p);
        }
      } catch (const RunInterrupted&) {
        stopped = true;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = fmt::format("run '{}' failed: {}", label(i), e.what());
        failed = true;
      }
    }
  };

  const int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), count));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  check(!error, "run_pool", "{} ({} of {} runs had finished)", error.value_or(""), done, count);
  return done;
}

}  // namespace hm::train
