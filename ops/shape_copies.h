// Shape ops that build new tensors (cat, stack, flip, pad, tril/triu) and the splits into
// views (split, chunk).
#pragma once
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm {

Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& xs, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
Tensor flip(const Tensor& x, const std::vector<int64_t>& dims);
// Constant padding; pads lists (before, after) pairs starting from the LAST dim, like torch.nn.functional.pad.
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, double value = 0.0);
Tensor tril(const Tensor& x, int64_t diagonal = 0);  // last two dims
Tensor triu(const Tensor& x, int64_t diagonal = 0);

}  // namespace hm
