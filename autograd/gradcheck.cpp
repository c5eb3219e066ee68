#include "harmonic/autograd/gradcheck.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"

namespace hm {

bool gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
               const GradcheckOptions& opt) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    HM_CHECK(x.dtype() == DType::Float64 && x.is_leaf() && x.is_contiguous() && x.device().is_cpu(), "gradcheck",
             "input {} must be a contiguous float64 CPU leaf, got {}", i, x.desc());
  }
  EnableGradGuard grad_on;
  Tensor out = f(inputs);
  HM_CHECK(out.dtype() == DType::Float64, "gradcheck", "output must be float64, got {}", out.desc());
  const int64_t n_out = out.numel();

  // Numeric Jacobian columns: d out / d x_j by central differences.
  auto evaluate = [&]() {
    NoGradGuard no_grad;
    return f(inputs).to_vector();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    double* p = x.data<double>();
    std::vector<std::vector<double>> numeric(x.numel());
    for (int64_t j = 0; j < x.numel(); ++j) {
      double saved = p[j];
      p[j] = saved + opt.eps;
      std::vector<double> plus = evaluate();
      p[j] = saved - opt.eps;
      std::vector<double> minus = evaluate();
      p[j] = saved;
      numeric[j].resize(n_out);
      for (int64_t k = 0; k < n_out; ++k) numeric[j][k] = (plus[k] - minus[k]) / (2 * opt.eps);
    }
    // Analytic rows: one backward per output element.
    for (int64_t k = 0; k < n_out; ++k) {
      for (const Tensor& t : inputs)
        if (t.defined() && t.requires_grad()) t.zero_grad();
      std::vector<double> onehot(n_out, 0.0);
      onehot[k] = 1.0;
      if (out.requires_grad()) out.backward(from_vector(onehot, out.shape()), /*retain_graph=*/true);
      Tensor g = x.grad();
      std::vector<double> analytic = g.defined() ? g.to_vector() : std::vector<double>(x.numel(), 0.0);
      for (int64_t j = 0; j < x.numel(); ++j) {
        double a = analytic[j], n = numeric[j][k];
        if (!(std::fabs(a - n) <= opt.atol + opt.rtol * std::fabs(n)))
          throw_error("gradcheck", fmt::format("Jacobian mismatch for input {} ({}) element {} and output element "
                                               "{}: analytic {:.10g}, numeric {:.10g}",
                                               i, x.desc(), j, k, a, n));
      }
    }
  }
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) t.zero_grad();
  return true;
}

}  // namespace hm
