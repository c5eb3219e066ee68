// Scores (..., C, ...) viewed as (outer, C, inner) around the class dim: the index layout that
// the softmax and class-loss kernels of both backends share.
#pragma once
#include <cstdint>

#include "harmonic/core/host_device.h"
#include "harmonic/core/shape.h"

namespace hm {

struct ClassLayout {
  int64_t outer = 1, classes = 1, inner = 1;
  HM_HD int64_t positions() const { return outer * inner; }
  HM_HD int64_t base(int64_t p) const { return (p / inner) * classes * inner + p % inner; }  // class 0 of p
};

// shape (..., C at dim, ...); a 0-d shape is one position of one class.
inline ClassLayout class_layout(const Shape& shape, int64_t dim) {
  ClassLayout l{1, shape.empty() ? 1 : shape[dim], 1};
  for (int64_t d = 0; d < dim; ++d) l.outer *= shape[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d) l.inner *= shape[d];
  return l;
}

}  // namespace hm
