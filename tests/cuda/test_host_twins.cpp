// Every kernel slot bound on CUDA has a host twin (what the emulated device and the CPU-only
// checks of the CUDA kernels run).
#include <algorithm>
#include <doctest/doctest.h>
#include <limits>

#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "tests/device_harness.h"

namespace part0_cases {

using namespace hm;
using namespace hm::test;
using Inputs = std::vector<Tensor>;

#ifdef HARMONIC_WITH_CUDA
TEST_CASE("cuda ops: every kernel of these families has a host twin") {
  auto names = cuda::HostEmulation::emulated_kernels();
  for (std::string_view k :
       {"unary", "unary_backward", "binary_backward", "where", "add_", "mul_", "reduce_extrema", "moments", "logsumexp",
        "norm", "reduce_grad", "cumsum", "flip", "triangle", "gather", "scatter_add", "index_add", "one_hot"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), k) != names.end(), k);
}
#endif

}  // namespace part0_cases

namespace part1_cases {

using namespace hm;
using namespace hm::test;

#ifdef HARMONIC_WITH_CUDA
TEST_CASE("cuda nn kernels are bound with host twins") {
  auto names = cuda::HostEmulation::emulated_kernels();
  for (std::string_view k :
       {"gemm", "softmax", "softmax_backward", "cross_entropy", "cross_entropy_backward", "nll_loss",
        "nll_loss_backward", "mse_loss", "mse_loss_backward", "layer_norm", "layer_norm_backward", "rms_norm",
        "rms_norm_backward", "embedding", "embedding_backward", "dropout", "sgd", "adam"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), k) != names.end(), k);
}
#endif

}  // namespace part1_cases
