#include "harmonic/models/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"

namespace hm::models {
namespace {

// Zeroes the weights w (>= 0, unnormalised) outside the nucleus of mass top_p.
void keep_nucleus(std::vector<double>& w, double top_p, std::vector<int64_t>& order) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  order.resize(w.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return w[a] > w[b]; });
  double acc = 0;
  size_t kept = 0;
  while (kept < order.size() && w[order[kept]] > 0) {
    acc += w[order[kept++]];
    if (acc >= top_p * total) break;
  }
  for (size_t i = std::max<size_t>(kept, 1); i < order.size(); ++i) w[order[i]] = 0.0;
}

}  // namespace

Tensor sample_next_token(const Tensor& logits, const SamplingOptions& o, Generator* gen) {
  HM_CHECK(logits.defined() && logits.dim() == 2 && is_floating(logits.dtype()), "sample_next_token",
           "logits must be float (B, V), got {}", logits.desc());
  check(o.temperature >= 0 && std::isfinite(o.temperature), "sample_next_token", "temperature {} must be >= 0",
        o.temperature);
  check(o.top_p > 0 && o.top_p <= 1, "sample_next_token", "top_p {} must be in (0, 1]", o.top_p);
  NoGradGuard no_grad;
  const int64_t B = logits.size(0), V = logits.size(1);
  // Without a nucleus, on the logits' device: nothing read back per token.
  if (o.temperature == 0) return reshape(argmax(logits.detach(), 1), {B, 1});  // the first maximum
  if (o.top_p == 1) {
    const Tensor x = logits.detach().to(DType::Float64);
    const Tensor w = exp(div(sub(x, amax(x, Dims{1}, true)), o.temperature));
    const Tensor u = rand({B}, {.dtype = DType::Float64, .device = logits.device()}, gen);
    return reshape(draw_categorical(w, u, o.top_k).index, {B, 1});
  }
  // The nucleus sorts each row: chosen on the host.
  std::vector<double> l = logits.detach().to(Device::cpu()).to_vector();
  const std::vector<double> u = rand({B}, {.dtype = DType::Float64}, gen).to_vector();
  std::vector<int64_t> out(static_cast<size_t>(B)), order;
  std::vector<double> row(static_cast<size_t>(V)), sorted;
  for (int64_t b = 0; b < B; ++b) {
    std::copy(l.begin() + b * V, l.begin() + (b + 1) * V, row.begin());
    const int64_t best = std::max_element(row.begin(), row.end()) - row.begin();
    double cutoff = -std::numeric_limits<double>::infinity();
    if (o.top_k > 0 && o.top_k < V) {
      sorted = row;
      std::nth_element(sorted.begin(), sorted.begin() + (o.top_k - 1), sorted.end(), std::greater<>());
      cutoff = sorted[static_cast<size_t>(o.top_k - 1)];
    }
    // Inverse-CDF draw from the (unnormalised) tempered probabilities of the kept logits.
    const double m = row[best];
    for (double& x : row) x = x >= cutoff ? std::exp((x - m) / o.temperature) : 0.0;
    if (o.top_p < 1) keep_nucleus(row, o.top_p, order);
    const double total = std::accumulate(row.begin(), row.end(), 0.0);
    double target = u[b] * total, acc = 0;
    int64_t pick = best;
    for (int64_t v = 0; v < V; ++v) {
      if (row[v] == 0) continue;
      acc += row[v];
      pick = v;
      if (acc > target) break;
    }
    out[b] = pick;
  }
  return from_vector(out, {B, 1}).to(logits.device());
}

Tensor sample_next_token(const Tensor& logits, double temperature, int64_t top_k, Generator* gen) {
  return sample_next_token(logits, SamplingOptions{.temperature = temperature, .top_k = top_k}, gen);
}

}  // namespace hm::models
