#include "models/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/factories.h"

namespace hm::models {

Tensor sample_next_token(const Tensor& logits, double temperature, int64_t top_k, Generator* gen) {
  HM_CHECK(logits.defined() && logits.dim() == 2 && is_floating(logits.dtype()), "sample_next_token",
           "logits must be float (B, V), got {}", logits.desc());
  check(temperature >= 0 && std::isfinite(temperature), "sample_next_token", "temperature {} must be >= 0",
        temperature);
  NoGradGuard no_grad;
  const int64_t B = logits.size(0), V = logits.size(1);
  // Small (B, V) rows: chosen on the host, where sorting and sampling are trivial.
  std::vector<double> l = logits.detach().to(Device::cpu()).to_vector();
  std::vector<double> u;
  if (temperature > 0) u = rand({B}, {.dtype = DType::Float64}, gen).to_vector();
  std::vector<int64_t> out(static_cast<size_t>(B));
  std::vector<double> row(static_cast<size_t>(V)), sorted;
  for (int64_t b = 0; b < B; ++b) {
    std::copy(l.begin() + b * V, l.begin() + (b + 1) * V, row.begin());
    int64_t best = std::max_element(row.begin(), row.end()) - row.begin();
    if (temperature == 0) {
      out[b] = best;
      continue;
    }
    double cutoff = -std::numeric_limits<double>::infinity();
    if (top_k > 0 && top_k < V) {
      sorted = row;
      std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(), std::greater<>());
      cutoff = sorted[static_cast<size_t>(top_k - 1)];
    }
    // Inverse-CDF draw from the (unnormalised) tempered probabilities of the kept logits.
    const double m = row[best];
    double total = 0;
    for (double& x : row) total += (x = x >= cutoff ? std::exp((x - m) / temperature) : 0.0);
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

}  // namespace hm::models
