// Tile geometry of the tiled (flash-attention 2) CUDA kernels of scaled_dot_product_attention
// (cuda/scaled_dot_product_attention_flash.cu): which (query tile, key tile) pairs hold a
// visible (query, key) pair under the bottom-right aligned causal mask, so that the forward,
// the dQ pass and the dK/dV pass visit exactly those and skip the rest. Plain host-device
// functions, shared by the kernels, their host emulation and the CPU tests.
#pragma once
#include <cstdint>

#include "harmonic/core/host_device.h"

namespace hm {

struct SdpaTiles {
  static constexpr int64_t kRows = 64;  // query rows per tile (one block's rows)
  static constexpr int64_t kCols = 64;  // keys per tile
  int64_t Nq = 0, Nk = 0;
  bool causal = false;

  HM_HD int64_t query_tiles() const { return (Nq + kRows - 1) / kRows; }
  HM_HD int64_t key_tiles() const { return (Nk + kCols - 1) / kCols; }
  // Query i sees key j (both in range): j <= i + Nk - Nq when causal.
  HM_HD bool visible(int64_t i, int64_t j) const {
    return i >= 0 && i < Nq && j >= 0 && j < Nk && (!causal || j <= i + (Nk - Nq));
  }
  // One past the last key tile query tile qt visits: the tile of the last key its last row sees
  // (0: none, e.g. rows i < Nq - Nk under the causal mask).
  HM_HD int64_t key_tile_end(int64_t qt) const {
    if (!causal) return key_tiles();
    const int64_t i1 = (qt + 1) * kRows < Nq ? (qt + 1) * kRows : Nq;  // one past the tile's last row
    int64_t last = i1 - 1 + (Nk - Nq);
    if (last > Nk - 1) last = Nk - 1;
    return last < 0 ? 0 : last / kCols + 1;
  }
  // The first query tile that visits key tile kt: the tile of the first row that sees its first
  // key (query_tiles(): none).
  HM_HD int64_t query_tile_begin(int64_t kt) const {
    if (!causal) return 0;
    int64_t first = kt * kCols - (Nk - Nq);
    if (first < 0) first = 0;
    return first >= Nq ? query_tiles() : first / kRows;
  }
};

}  // namespace hm
