// The pool of independent runs behind every study (tools/train/run_pool.h).
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "tests/helpers.h"
#include "harmonic/tools/train/run_pool.h"

using namespace hm;
using hm::test::throws_with;

TEST_CASE("run pool: every run exactly once on 2 jobs, most expensive first, progress counted in order") {
  constexpr size_t n = 23;
  std::mutex mutex;
  std::map<size_t, int> calls;
  std::vector<size_t> started;
  std::atomic<int> running{0}, max_running{0};
  std::vector<size_t> done_counts;
  const size_t finished = train::run_pool(
      n,
      [&](size_t i) {
        int now = ++running;
        int seen = max_running.load();
        while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
        }
        {
          std::lock_guard<std::mutex> lock(mutex);
          calls[i]++;
          started.push_back(i);
        }
        --running;
      },
      2,
      {.cost = [](size_t i) { return static_cast<double>(i % 5); },
       .on_done =
           [&](size_t, const train::PoolProgress& p) {
             done_counts.push_back(p.done);
             CHECK(p.total == n);
             CHECK(p.eta >= 0);
           }});
  CHECK(finished == n);
  CHECK(calls.size() == n);
  for (const auto& call : calls) CHECK_MESSAGE(call.second == 1, call.first);
  CHECK(max_running.load() <= 2);
  // The first runs started are the cost-4 ones (4, 9, 14, 19 in index order).
  REQUIRE(started.size() == n);
  for (size_t k = 0; k < 2; ++k) CHECK(started[k] % 5 == 4);
  REQUIRE(done_counts.size() == n);
  for (size_t i = 0; i < n; ++i) CHECK(done_counts[i] == i + 1);
}

TEST_CASE("run pool: a failing run stops the pool with an error naming it, bad arguments are refused") {
  std::atomic<int> calls{0};
  auto run = [&](size_t i) {
    ++calls;
    if (i == 3) throw std::runtime_error("loss is nan");
  };
  auto label = [](size_t i) { return fmt::format("cfg{}", i); };
  CHECK(throws_with([&] { train::run_pool(40, run, 2, {.label = label}); },
                    {"run_pool", "cfg3", "loss is nan", "runs had finished"}));
  // On one job (equal costs run in index order) nothing starts after the failure.
  calls = 0;
  CHECK(throws_with([&] { train::run_pool(40, run, 1, {.label = label}); }, {"cfg3", "3 of 40 runs had finished"}));
  CHECK(calls.load() == 4);
  CHECK(throws_with([&] { train::run_pool(4, run, 0); }, {"jobs must be >= 1, got 0"}));
  CHECK(train::run_pool(0, run, 2) == 0);
}

TEST_CASE("run pool: an interrupted run or a stop request ends the pool without an error") {
  std::atomic<int> calls{0};
  const size_t done = train::run_pool(
      50,
      [&](size_t i) {
        ++calls;
        if (i == 5) throw train::RunInterrupted{};
      },
      1);
  CHECK(done == 5);  // runs 0..4 (equal costs run in index order on one job)
  CHECK(calls.load() == 6);
  int polled = 0;
  CHECK(train::run_pool(50, [](size_t) {}, 1, {.stop_starting = [&] { return ++polled > 7; }}) == 7);
}
