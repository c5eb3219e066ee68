// The decoding loop of Chronos forecasts (models/chronos.h) on the model's device, and its CUDA
// graphs: one batch of series encoded once, then H steps of one token per sample path, with
// nothing read back to the host until the batch's bins are drawn.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "harmonic/models/chronos.h"

namespace hm::models {

// A batch's draws: the bins (B S, H) int64, path s of series b in row b * S + s, and with
// pmf_quantiles the sum over each series' paths of their kept, normalised pmfs at each step
// (H, B, bins) float64.
struct BatchDraws {
  Tensor bins;
  Tensor pmf_sums;
};

// The batch decoded eagerly. A step draws one uniform per path (the generator's next B S
// numbers) and a bin by inverse CDF (draw_categorical), so cached and recomputed decoding, the
// CPU and a CUDA device draw the same bins.
BatchDraws draw_batch(Chronos& model, const Tensor& context, const ForecastOptions& options, Generator& gen);

// ForecastOptions::cuda_graph: the decoding of a batch captured as one CUDA graph per batch
// shape and options (cuda/runtime/graph.h) and replayed for later batches and later calls on the
// same model: the second batch of a shape captures (the first ran eagerly and copied the
// decoder's host-built constants to the device), every later one replays. The graph reads the
// context from its static input and the uniforms from a generator of its own, set to the
// caller's before each replay and handed back after, so a replayed batch draws what the eager
// one would. A graph is dropped when the model's parameters move to other memory.
class ForecastGraphs {
 public:
  BatchDraws draw(Chronos& model, const Tensor& context, const ForecastOptions& options, Generator& gen);
  size_t captured() const;  // graphs held
  int64_t replays() const { return replays_; }
  const std::string& fallback() const { return fallback_; }  // why `auto` decodes eagerly ("" when it does not)

 private:
  struct Captured;
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool, uint64_t, int>;
  std::map<Key, std::shared_ptr<Captured>> graphs_;  // nullptr: seen once, captures next time
  std::vector<const void*> parameters_;              // the memory the graphs read
  std::string fallback_;
  int64_t replays_ = 0;
};

}  // namespace hm::models
