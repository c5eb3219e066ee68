// How a loss reduces its per-element values (PyTorch's `reduction`).
#pragma once

namespace hm {

enum class Reduction { Mean, Sum, None };

}  // namespace hm
