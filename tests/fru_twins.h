// The FRU/SRU tests' pair of one model built twice from the same seed: fused (the one-tape-entry
// recurrence) and composed (the step-by-step reference), both in float64.
#pragma once
#include <memory>
#include <utility>

#include "harmonic/core/random.h"

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

}  // namespace hm::test
