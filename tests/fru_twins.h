// What the FRU/SRU tests share: one model built twice from the same seed, fused (the
// one-tape-entry recurrence) and composed (the step-by-step reference), both in float64; and the
// fused recurrence run in float64 and in float32 on the same inputs.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fru_recurrence.h"
#include "harmonic/ops/reduce.h"

namespace hm::test {

// M is nn::FRU or nn::SRU, O its options (gen and fused are set here).
template <class M, class O>
std::pair<std::shared_ptr<M>, std::shared_ptr<M>> twin(int64_t in, O opt) {
  Generator g1(7), g2(7);
  opt.gen = &g1;
  opt.fused = true;
  auto a = std::make_shared<M>(in, opt);
  opt.gen = &g2;
  opt.fused = false;
  auto b = std::make_shared<M>(in, opt);
  a->to(DType::Float64);
  b->to(DType::Float64);
  return {a, b};
}

// fru_recurrence (last: fru_recurrence_last) on float64 leaves in64 = (px, w_r, b_r, w_pr, coef,
// mu0) with decays dec, and on float32 copies of them, each followed by sum(mu^2).backward():
// the outputs and every input's gradient, the float32 ones converted to float64.
struct FruPrecisions {
  Tensor m64, m32;
  std::vector<Tensor> g64, g32;
};
inline FruPrecisions fru_recurrence_in_both_precisions(const std::vector<Tensor>& in64, const Tensor& dec, bool last) {
  std::vector<Tensor> in32;
  for (const Tensor& t : in64) in32.push_back(t.detach().to(DType::Float32).requires_grad_(true));
  auto run = [&](const std::vector<Tensor>& in, const Tensor& dc) {
    for (const Tensor& t : in) t.zero_grad();
    Tensor mu = last ? fru_recurrence_last(in[0], in[1], in[2], in[3], in[4], dc, in[5])
                     : fru_recurrence(in[0], in[1], in[2], in[3], in[4], dc, in[5]);
    sum(square(mu)).backward();
    return mu.detach().to(DType::Float64);
  };
  FruPrecisions out{.m64 = run(in64, dec), .m32 = run(in32, dec.to(DType::Float32))};
  for (size_t i = 0; i < in64.size(); ++i) {
    out.g64.push_back(in64[i].grad());
    out.g32.push_back(in32[i].grad().to(DType::Float64));
  }
  return out;
}

}  // namespace hm::test
