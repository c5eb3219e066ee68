// `harmonic bench --attention`: scaled_dot_product_attention (causal, float32) on each path of
// cuda::SdpaPath (the flash path's backward in one pass, or in two under HARMONIC_DETERMINISTIC=1),
// and fourier_attention (causal, p = 4) with its reference kernel and, on a device, its tiled
// kernels up to N = 8192, forward and forward+backward of a sum.
// tools/bench/torch/bench_attention_torch.py times F.scaled_dot_product_attention and the
// materialised softmax(q k^T) v at the same shapes.
#include <algorithm>
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/deterministic.h"
#include "harmonic/cuda/scaled_dot_product_attention_route.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {
namespace {

struct AttentionShape {
  int64_t B, H, N, D;
  bool gpu_only = false;  // a size for a GPU only (minutes a call on a CPU)
};

// The reference kernels take ~0.4 s per call at N = 1024 on an H200 (one thread per query row):
// they are timed at N <= 1024 only.
constexpr int64_t kReferenceMaxN = 1024;

const std::vector<AttentionShape>& sdpa_shapes() {
  static const std::vector<AttentionShape> shapes{
      {8, 16, 1024, 64}, {8, 12, 1024, 64}, {8, 12, 256, 64}, {8, 12, 4096, 64}, {4, 16, 1024, 128},
      {8, 16, 1024, 128, true}, {8, 16, 4096, 128, true}};
  return shapes;
}
constexpr AttentionShape kFourierShape{8, 8, 512, 16};
// The tiled kernels keep O(N) memory, so they run where the (B, H, N, N) weights of the
// reference kernels and the (B, H, N, N, D) differences of the materialised form do not fit.
const std::vector<AttentionShape>& fourier_tiled_shapes() {
  static const std::vector<AttentionShape> shapes{
      {8, 8, 512, 16}, {8, 8, 1024, 16}, {8, 8, 4096, 16}, {8, 8, 8192, 16}};
  return shapes;
}

std::string dims(const AttentionShape& s) { return fmt::format("{}x{}x{}x{}", s.B, s.H, s.N, s.D); }

// Paths timed on `device`: the CPU has one kernel (and the composed form).
std::vector<std::string> paths(Device device) {
  if (device.is_cpu()) return {"kernel", "composed"};
  return {"reference", "composed", "flash"};
}

bool picked(const std::vector<std::string>& only, const std::string& name) {
  if (only.empty()) return true;
  return std::any_of(only.begin(), only.end(), [&](const std::string& o) { return name.rfind(o, 0) == 0; });
}

}  // namespace

std::vector<std::string> attention_case_names(Device device) {
  std::vector<std::string> names;
  for (const std::string& path : paths(device))
    for (const AttentionShape& s : sdpa_shapes())
      if ((path != "reference" || s.N <= kReferenceMaxN) && (!s.gpu_only || device.is_cuda()))
        names.push_back("sdpa_" + path + "_" + dims(s));
  names.push_back("fourier_attention_kernel_" + dims(kFourierShape));
  if (device.is_cuda())
    for (const AttentionShape& s : fourier_tiled_shapes()) names.push_back("fourier_attention_tiled_" + dims(s));
  return names;
}

void run_attention_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                         const AttentionReport& report) {
  auto time_pair = [&](const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& leaves) {
    double fwd = NAN, fwd_bwd = NAN;
    {
      NoGradGuard no_grad;
      fwd = time_ms([&] { f(leaves); }, opt, device);
    }
    fwd_bwd = time_ms(
        [&] {
          sum(f(leaves)).backward();
          for (const Tensor& x : leaves) x.zero_grad();
        },
        opt, device);
    return std::pair{fwd, fwd_bwd};
  };
  auto leaves = [&](const AttentionShape& s, double qk_scale) {
    Generator gen(1234);
    std::vector<Tensor> x;
    for (double sc : {qk_scale, qk_scale, 1.0}) {
      Tensor t = randn({s.B, s.H, s.N, s.D}, {.dtype = DType::Float32}, &gen);
      x.push_back(mul(t, sc).to(device).detach().requires_grad_(true));
    }
    return x;
  };
  for (const std::string& path : paths(device))
    for (const AttentionShape& s : sdpa_shapes()) {
      // Outside deterministic mode the tiled backward is the single pass (dQ by atomics).
      const bool one_pass = path == "flash" && !deterministic();
      const std::string name = "sdpa_" + path + (one_pass ? "_1pass_" : "_") + dims(s);
      if (!picked(only, name) || (path == "reference" && s.N > kReferenceMaxN) || (s.gpu_only && !device.is_cuda()))
        continue;
      const std::vector<Tensor> x = leaves(s, 1.0);
      using cuda::SdpaPath;
      const SdpaPath p = path == "reference" ? SdpaPath::Reference : path == "flash" ? SdpaPath::Flash : SdpaPath::Auto;
      cuda::ScopedSdpaPath scope(p);
      auto [fwd, fwd_bwd] = time_pair(
          [&](const std::vector<Tensor>& in) {
            if (path == "composed")
              return detail::scaled_dot_product_attention_composed(in[0], in[1], in[2], {.causal = true});
            return scaled_dot_product_attention(in[0], in[1], in[2], {.causal = true});
          },
          x);
      report(name, fwd, fwd_bwd);
    }
  const std::string name = "fourier_attention_kernel_" + dims(kFourierShape);
  if (picked(only, name)) {
    const std::vector<Tensor> x = leaves(kFourierShape, 0.5);
    const Tensor R = full({}, 2.0, {.dtype = DType::Float32}).to(device).detach().requires_grad_(true);
    auto [fwd, fwd_bwd] = time_pair(
        [&](const std::vector<Tensor>& in) { return fourier_attention(in[0], in[1], in[2], R, 4, {.causal = true}); },
        x);
    report(name, fwd, fwd_bwd);
  }
  if (!device.is_cuda()) return;
  for (const AttentionShape& s : fourier_tiled_shapes()) {
    const std::string tiled_name = "fourier_attention_tiled_" + dims(s);
    if (!picked(only, tiled_name)) continue;
    const std::vector<Tensor> x = leaves(s, 0.5);
    const Tensor R = full({}, 2.0, {.dtype = DType::Float32}).to(device).detach().requires_grad_(true);
    auto [fwd, fwd_bwd] = time_pair(
        [&](const std::vector<Tensor>& in) { return fourier_attention(in[0], in[1], in[2], R, 4, {.causal = true}); },
        x);
    report(tiled_name, fwd, fwd_bwd);
  }
}

}  // namespace hm::bench
