// The toy study's grid and thread pool (see toy_study.h).
#include "tools/studies/fourier_toy/study.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "core/error.h"
#include "core/parallel.h"

namespace hm::studies {

using models::ToyHead;
using models::ToyRunConfig;
using models::ToyRunResult;

namespace {

bool is_fourier(ToyHead head) { return head == ToyHead::Fourier || head == ToyHead::FourierMLE; }

std::vector<int64_t> frequency_sweep() {
  std::vector<int64_t> n;
  for (int64_t f = 2; f <= 20; f += 2) n.push_back(f);
  return n;
}

}  // namespace

std::vector<ToyRunConfig> toy_study_grid(const ToyStudyPlan& plan) {
  using data::ToyDistribution;
  std::vector<ToyDistribution> datasets = plan.datasets;
  if (datasets.empty()) datasets = {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta};
  std::vector<uint64_t> seeds = plan.seeds;
  if (seeds.empty()) seeds = plan.quick ? std::vector<uint64_t>{1} : std::vector<uint64_t>{1, 2, 3, 42};
  const int64_t epochs = plan.epochs > 0 ? plan.epochs : (plan.quick ? kToyQuickEpochs : kToyFullEpochs);
  check(plan.epochs >= 0, "toy_study_grid", "epochs must be >= 0 (0: the mode's default), got {}", plan.epochs);
  check(plan.sample_points >= 0, "toy_study_grid", "sample_points must be >= 0, got {}", plan.sample_points);
  for (size_t i = 0; i < datasets.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      check(datasets[i] != datasets[j], "toy_study_grid", "dataset '{}' is listed twice",
            data::toy_distribution_name(datasets[i]));
  for (size_t i = 0; i < seeds.size(); ++i)
    for (size_t j = 0; j < i; ++j) check(seeds[i] != seeds[j], "toy_study_grid", "seed {} is listed twice", seeds[i]);

  // (head, frequencies, gamma) of one dataset and seed.
  struct Head {
    ToyHead head;
    int64_t frequencies;
    double gamma;
  };
  std::vector<Head> heads;
  heads.push_back({ToyHead::Linear, 0, 0.0});
  heads.push_back({ToyHead::GMM, 0, 0.0});
  heads.push_back({ToyHead::Regression, 0, 0.0});
  if (plan.quick) {
    for (int64_t n : frequency_sweep()) heads.push_back({ToyHead::Fourier, n, 0.0});
    heads.push_back({ToyHead::Fourier, 12, 1e-6});
    heads.push_back({ToyHead::GMMMLE, 0, 0.0});
    for (int64_t n : {4, 8, 12, 16, 20}) heads.push_back({ToyHead::FourierMLE, n, 0.0});
  } else {
    for (int64_t n : frequency_sweep())
      for (double g : {0.0, 1e-6}) heads.push_back({ToyHead::Fourier, n, g});
    heads.push_back({ToyHead::GMMMLE, 0, 0.0});
    for (int64_t n : frequency_sweep())
      for (double g : {0.0, 1e-6}) heads.push_back({ToyHead::FourierMLE, n, g});
  }

  std::vector<ToyRunConfig> grid;
  for (ToyDistribution d : datasets)
    for (uint64_t seed : seeds)
      for (const Head& h : heads) {
        ToyRunConfig c;
        c.dataset = d;
        c.head = h.head;
        c.frequencies = h.frequencies;
        c.gamma = h.gamma;
        c.seed = seed;
        c.epochs = epochs;
        c.sample_points = is_figure_config(c) ? plan.sample_points : 0;
        grid.push_back(c);
      }
  return grid;
}

bool is_figure_config(const ToyRunConfig& c) {
  if (is_fourier(c.head)) return c.frequencies == 12 && c.gamma == 0.0;
  return true;
}

std::string toy_run_label(const ToyRunConfig& c) {
  std::string label = fmt::format("{} {}", data::toy_distribution_name(c.dataset), models::toy_head_name(c.head));
  if (is_fourier(c.head)) label += fmt::format(" N={} gamma={:g}", c.frequencies, c.gamma);
  return label + fmt::format(" seed={}", c.seed);
}

double toy_run_cost(const ToyRunConfig& c) {
  // Per-epoch cost relative to the linear head: the Fourier heads pay for their cos/sin table
  // GEMM (growing with N), the MLE heads also for the continuous density at the bin centres.
  double per_epoch = 1.0;
  const double n = static_cast<double>(c.frequencies);
  switch (c.head) {  // measured with 2 jobs at 500 epochs: linear 1.5 s, regression 1.1 s, ...
    case ToyHead::Linear:
      per_epoch = 1.0;
      break;
    case ToyHead::Regression:
      per_epoch = 0.75;
      break;
    case ToyHead::GMM:
      per_epoch = 1.2;
      break;
    case ToyHead::GMMMLE:
      per_epoch = 1.3;
      break;
    case ToyHead::Fourier:
      per_epoch = 1.0 + 0.03 * n;
      break;  // N 4: 1.6 s, N 20: 2.2 s
    case ToyHead::FourierMLE:
      per_epoch = 1.2 + 0.03 * n;
      break;  // N 4: 1.9 s, N 20: 2.5 s
  }
  if (c.gamma > 0) per_epoch += 0.3;  // the regulariser's autocorrelation
  return per_epoch * static_cast<double>(c.epochs);
}

std::vector<ToyRunResult> run_toy_configs(const std::vector<ToyRunConfig>& configs, const ToyRunFn& run, int jobs,
                                          const ToyProgressFn& progress) {
  check(jobs >= 1, "run_toy_configs", "jobs must be >= 1, got {}", jobs);
  check(static_cast<bool>(run), "run_toy_configs", "no run function given");
  const size_t total = configs.size();
  std::vector<ToyRunResult> results(total);
  if (total == 0) return results;

  // The queue: indices by decreasing cost (ties in grid order), so the longest runs start first
  // and the pool does not end with one slow run on one core.
  std::vector<size_t> order(total);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return toy_run_cost(configs[a]) > toy_run_cost(configs[b]); });
  double total_cost = 0;
  for (const auto& c : configs) total_cost += toy_run_cost(c);

  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards the fields below and the progress callback
  size_t done = 0;
  double done_cost = 0;
  std::optional<std::string> error;
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    set_num_threads(1);
    while (!failed.load()) {
      const size_t slot = next.fetch_add(1);
      if (slot >= total) return;
      const size_t i = order[slot];
      try {
        ToyRunResult r = run(configs[i]);
        std::lock_guard<std::mutex> lock(mutex);
        results[i] = std::move(r);
        ++done;
        done_cost += toy_run_cost(configs[i]);
        if (progress && !failed.load()) {
          ToyProgress p;
          p.done = done;
          p.total = total;
          p.result = &results[i];
          p.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          p.eta = done_cost > 0 ? p.elapsed * (total_cost - done_cost) / done_cost : 0.0;
          progress(p);
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = fmt::format("run '{}' failed: {}", toy_run_label(configs[i]), e.what());
        failed = true;
      }
    }
  };

  const int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), total));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  check(!error, "run_toy_configs", "{} ({} of {} runs had finished)", error.value_or(""), done, total);
  return results;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  const auto s = static_cast<int64_t>(std::llround(seconds));
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
}

std::string format_progress(const ToyProgress& p) {
  const ToyRunResult& r = *p.result;
  std::string metrics;
  auto add = [&](const char* name, double v) {
    if (!std::isnan(v)) metrics += fmt::format(" {} {:.4f}", name, v);
  };
  add("kl", r.kl);
  add("smooth", r.smoothness);
  add("mse", r.mse);
  add("ppl", r.perplexity);
  const int width = static_cast<int>(fmt::format("{}", p.total).size());
  return fmt::format("[{:>{}}/{}] {} |{} | {} | elapsed {}, ETA {}", p.done, width, p.total, toy_run_label(r.config),
                     metrics, format_duration(r.seconds), format_duration(p.elapsed), format_duration(p.eta));
}

}  // namespace hm::studies
