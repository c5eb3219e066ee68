// The dropout stream of the fused attention ops (scaled_dot_product_attention and
// fourier_attention): one Philox counter per attention weight, element index = flattened
// (b, h, i, j), reserved from the caller's generator, so a fused op draws the same mask as the
// composed nn::attention from the same generator state.
#pragma once
#include <cstdint>

#include "harmonic/core/random.h"

namespace hm {

// Sets args.dropout_p, args.seed and args.offset (an op's kernel arguments) when training
// with p > 0, reserving `weights` = B * H * Nq * Nk counters of gen (null: the default
// generator); otherwise leaves them at "no dropout".
template <class Args>
void reserve_attention_dropout(Args& args, double p, bool training, Generator* gen, int64_t weights) {
  if (!training || p <= 0.0) return;
  Generator& g = gen ? *gen : default_generator();
  args.dropout_p = p;
  args.seed = g.seed();
  args.offset = g.reserve(static_cast<uint64_t>(weights));
}

}  // namespace hm
