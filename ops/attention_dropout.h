// The dropout stream of the fused attention ops (scaled_dot_product_attention and
// fourier_attention): one Philox counter per attention weight, element index = flattened
// (b, h, i, j), reserved from the caller's generator, so a fused op draws the same mask as the
// composed nn::attention from the same generator state.
#pragma once
#include <cstdint>

#include "harmonic/core/philox_draw.h"

namespace hm {

// Sets args.dropout_p, args.seed, args.offset and args.offset_base (an op's kernel arguments)
// when training with p > 0, reserving `weights` = B * H * Nq * Nk counters of gen (null: the
// default generator) for a kernel on `device`; otherwise leaves them at "no dropout". Inside a
// CUDA graph capture the returned draw's base (kept by the graph) is read by the kernel.
template <class Args>
void reserve_attention_dropout(Args& args, double p, bool training, Generator* gen, int64_t weights, Device device) {
  if (!training || p <= 0.0) return;
  Generator& g = gen ? *gen : default_generator();
  const PhiloxDraw draw = reserve_philox(g, static_cast<uint64_t>(weights), device);
  args.dropout_p = p;
  args.seed = draw.seed;
  args.offset = draw.offset;
  args.offset_base = draw.base.defined() ? static_cast<const int64_t*>(draw.base.raw_data()) : nullptr;
}

}  // namespace hm
