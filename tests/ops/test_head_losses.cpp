// The head losses (ops/head_losses.h) and fourier_regularizer (ops/fourier_head.h): the fused
// CPU kernels against the composed forms in value and gradient, gradchecks, input checks, the
// composed fallback on a device whose kernel slot is unbound, and the CUDA kernels against the CPU.
#include <algorithm>
#include <functional>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/head_losses.h"
#include "harmonic/ops/fourier_head_kernels.h"
#include "harmonic/ops/head_losses_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// Value and gradients of f (a scalar after weighting by random w when not 0-d) for both forms.
void check_same(const Fn& fused, const Fn& composed, const std::vector<Tensor>& inputs) {
  auto run = [&](const Fn& f) {
    std::vector<Tensor> xs;
    for (const Tensor& x : inputs) xs.push_back(x.detach().clone().requires_grad_(true));
    Tensor out = f(xs);
    REQUIRE(out.defined());
    Generator gen(11);
    Tensor loss = out.dim() == 0 ? out : sum(mul(out, randn(out.shape(), {.dtype = out.dtype()}, &gen)));
    loss.backward();
    std::vector<Tensor> res{out.detach()};
    for (const Tensor& x : xs) res.push_back(x.grad());
    return res;
  };
  std::vector<Tensor> a = run(fused), b = run(composed);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("output/gradient ", i);
    CHECK(allclose(a[i], b[i], 1e-9, 1e-11));
  }
}

// Unbinds a kernel slot's CPU kernel for the scope: the CPU then looks like a device without
// the kernel.
template <class K>
struct Unbound {
  K& kernel;
  typename K::Fn saved;
  explicit Unbound(K& k) : kernel(k), saved(k.cpu) { k.cpu = nullptr; }
  ~Unbound() { kernel.cpu = saved; }
};

// Coefficients (7, 2(N+1)), targets (7) in (-0.9, 0.9); means (2, 3, K) in (-1, 1), stds (K)
// in (0.03, 0.23), targets (2, 3) in (-0.8, 0.8). Float64. Unpacked into variables, not
// structured bindings: clang 14 cannot capture bindings in the lambdas below.
struct FourierCase {
  Tensor coeffs, t;
};
FourierCase fourier_case(int64_t n) {
  Generator gen(n);
  return {leaf64({7, 2 * (n + 1)}, 1 + n), sub(mul(rand({7}, {.dtype = DType::Float64}, &gen), 1.8), 0.9)};
}
struct GmmCase {
  Tensor mu, sd, t;
};
GmmCase gmm_case(int64_t k) {
  Generator gen(2);
  Tensor mu = tanh(leaf64({2, 3, k}, 5)).detach();
  Tensor sd = add(mul(rand({k}, {.dtype = DType::Float64}, &gen), 0.2), 0.03);
  return {mu, sd, sub(mul(rand({2, 3}, {.dtype = DType::Float64}, &gen), 1.6), 0.8)};
}

}  // namespace

TEST_CASE("head losses: the fused CPU kernels equal the composed ops in value and gradient (float64)") {
  for (int64_t n : {0, 1, 5, 12}) {
    INFO("N = ", n);
    const FourierCase fc = fourier_case(n);
    Tensor coeffs = fc.coeffs, t = fc.t;
    for (bool code : {false, true})
      check_same(
          [&](const std::vector<Tensor>& x) { return fourier_regularizer(x[0], 1e-3, 50, code); },
          [&](const std::vector<Tensor>& x) { return detail::fourier_regularizer_composed(x[0], 1e-3, 50, code); },
          {coeffs});
    check_same([&](const std::vector<Tensor>& x) { return fourier_nll(x[0], t); },
               [&](const std::vector<Tensor>& x) { return detail::fourier_nll_composed(x[0], t); }, {coeffs});
  }
  for (int64_t k : {1, 2, 3}) {
    INFO("K = ", k);
    const GmmCase gc = gmm_case(k);
    Tensor mu = gc.mu, sd = gc.sd, t = gc.t;  // leading dims (2, 3) are flattened
    check_same([&](const std::vector<Tensor>& x) { return gmm_log_pmf(x[0], x[1], 50); },
               [&](const std::vector<Tensor>& x) { return detail::gmm_log_pmf_composed(x[0], x[1], 50); }, {mu, sd});
    check_same([&](const std::vector<Tensor>& x) { return gmm_nll(x[0], x[1], t); },
               [&](const std::vector<Tensor>& x) { return detail::gmm_nll_composed(x[0], x[1], t); }, {mu, sd});
    // A negative std: the NLL uses |std|.
    check_same([&](const std::vector<Tensor>& x) { return gmm_nll(x[0], x[1], t); },
               [&](const std::vector<Tensor>& x) { return detail::gmm_nll_composed(x[0], x[1], t); }, {mu, neg(sd)});
  }
}

TEST_CASE("head losses: gradcheck of the fused ops (float64)") {
  const FourierCase fc = fourier_case(3);
  Tensor coeffs = fc.coeffs, t = fc.t;
  CHECK(gradcheck([&](const std::vector<Tensor>& x) { return fourier_nll(x[0], t); }, {coeffs}));
  CHECK(gradcheck([&](const std::vector<Tensor>& x) { return fourier_regularizer(x[0], 0.1, 20, true); }, {coeffs}));
  const GmmCase gc = gmm_case(2);
  Tensor mu = gc.mu, sd = gc.sd, tg = gc.t;
  CHECK(gradcheck([&](const std::vector<Tensor>& x) { return gmm_log_pmf(x[0], x[1], 9); }, {mu, sd}));
  CHECK(gradcheck([&](const std::vector<Tensor>& x) { return gmm_nll(x[0], x[1], tg); }, {mu, sd}));
  CHECK(gradcheck([&](const std::vector<Tensor>& x) { return gmm_nll(x[0], x[1], tg); }, {mu, neg(sd)}));
}

TEST_CASE("head losses: float32 fused results match float64 closely") {
  const FourierCase fc = fourier_case(5);
  Tensor coeffs = fc.coeffs, t = fc.t;
  const GmmCase gc = gmm_case(3);
  Tensor mu = gc.mu, sd = gc.sd, tg = gc.t;
  auto f32 = [](const Tensor& x) { return x.to(DType::Float32); };
  auto close = [](const Tensor& a, const Tensor& b) { return allclose(a.to(DType::Float64), b, 1e-4, 1e-5); };
  CHECK(close(fourier_nll(f32(coeffs), f32(t)), fourier_nll(coeffs, t)));
  CHECK(close(fourier_regularizer(f32(coeffs), 1e-3, 50), fourier_regularizer(coeffs, 1e-3, 50)));
  CHECK(close(gmm_log_pmf(f32(mu), f32(sd), 50), gmm_log_pmf(mu, sd, 50)));
  CHECK(close(gmm_nll(f32(mu), f32(sd), f32(tg)), gmm_nll(mu, sd, tg)));
}

TEST_CASE("head losses: a device without the kernel uses the composed form, not an error") {
  const FourierCase fc = fourier_case(4);
  Tensor coeffs = fc.coeffs, t = fc.t;
  const GmmCase gc = gmm_case(2);
  Tensor mu = gc.mu, sd = gc.sd, tg = gc.t;
  // The fused op is one tape node; the composed form is many (their last is a mean or a log).
  auto grad_fn_name = [](const Tensor& out) { return out.grad_fn()->name; };
  Tensor c = coeffs.detach().clone().requires_grad_(true);
  Tensor m = mu.detach().clone().requires_grad_(true);
  CHECK(grad_fn_name(fourier_nll(c, t)) == "fourier_nll");
  CHECK(grad_fn_name(gmm_nll(m, sd, tg)) == "gmm_nll");
  Tensor fused_nll = fourier_nll(c, t), fused_reg = fourier_regularizer(c, 1e-3, 50);
  Tensor fused_pmf = gmm_log_pmf(m, sd, 50), fused_gnll = gmm_nll(m, sd, tg);
  {
    Unbound a(fourier_nll_kernel);
    Unbound b(fourier_regularizer_kernel);
    Unbound d(gmm_log_pmf_kernel);
    Unbound e(gmm_nll_kernel);
    Tensor nll = fourier_nll(c, t), reg = fourier_regularizer(c, 1e-3, 50);
    Tensor pmf = gmm_log_pmf(m, sd, 50), gnll = gmm_nll(m, sd, tg);
    CHECK(grad_fn_name(nll) != "fourier_nll");
    CHECK(grad_fn_name(reg) != "fourier_regularizer");
    CHECK(grad_fn_name(pmf) != "gmm_log_pmf");
    CHECK(grad_fn_name(gnll) != "gmm_nll");
    CHECK(allclose(nll, fused_nll, 1e-9, 1e-11));
    CHECK(allclose(reg, fused_reg, 1e-9, 1e-11));
    CHECK(allclose(pmf, fused_pmf, 1e-9, 1e-11));
    CHECK(allclose(gnll, fused_gnll, 1e-9, 1e-11));
  }
  const bool restored = fourier_nll_kernel.cpu != nullptr;
  CHECK(restored);
}

TEST_CASE("head losses: bad inputs name the op and the shapes") {
  Tensor c = zeros({4, 6}, {.dtype = DType::Float64}), t = zeros({4}, {.dtype = DType::Float64});
  CHECK(throws_with([&] { fourier_nll(zeros({4, 6}, {.dtype = DType::Int64}), t); }, {"fourier_nll", "float32"}));
  CHECK(throws_with([&] { fourier_nll(zeros({4, 5}, {.dtype = DType::Float64}), t); }, {"fourier_nll", "even"}));
  CHECK(throws_with([&] { fourier_nll(c, zeros({5}, {.dtype = DType::Float64})); },
                    {"fourier_nll", "targets", "(4, 6)", "(5,)"}));
  CHECK(throws_with([&] { fourier_nll(c, zeros({4})); }, {"fourier_nll", "dtype", "float32"}));
  CHECK(throws_with(
      [&] {
        fourier_regularizer(zeros({2, 4}, {.dtype = DType::Int64}), 1e-6, 50);
      },
      {"fourier_regularizer", "int64"}));
  CHECK(throws_with([&] { fourier_regularizer(c, 1e-6, 0); }, {"fourier_regularizer", "bins", "0"}));
  Tensor mu = zeros({4, 3}, {.dtype = DType::Float64}), sd = ones({3}, {.dtype = DType::Float64});
  CHECK(throws_with([&] { gmm_log_pmf(mu, ones({2}, {.dtype = DType::Float64}), 10); },
                    {"gmm_log_pmf", "(K) = (3)", "(4, 3)", "(2,)"}));
  CHECK(throws_with([&] { gmm_log_pmf(mu, sd, 0); }, {"gmm_log_pmf", "bins", "0"}));
  CHECK(throws_with([&] { gmm_log_pmf(mu, ones({3}), 10); }, {"gmm_log_pmf", "stds", "dtype"}));
  CHECK(throws_with(
      [&] {
        gmm_nll(mu, sd, zeros({4, 1}, {.dtype = DType::Float64}));
      },
      {"gmm_nll", "targets", "(4, 3)", "(4, 1)"}));
  CHECK(throws_with([&] { detail::gmm_nll_composed(mu, sd, zeros({3}, {.dtype = DType::Float64})); },
                    {"gmm_nll", "targets"}));
}

TEST_CASE("[cuda] the head losses' CUDA kernels match the CPU (float64 and float32, negative stds)") {
  test::announce_targets();
  for (DType dt : {DType::Float64, DType::Float32}) {
    INFO(dtype_name(dt));
    const double tol = dt == DType::Float64 ? 1e-20 : 1e-10;
    for (int64_t n : {0, 3, 12}) {
      const FourierCase fc = fourier_case(n);
      const Tensor t = fc.t.to(dt);
      test::check_against_cpu("fourier_nll", [&](const std::vector<Tensor>& x) { return fourier_nll(x[0], t.to(x[0].device())); },
                              {fc.coeffs.to(dt)}, tol);
    }
    for (int64_t k : {1, 3}) {
      const GmmCase gc = gmm_case(k);
      const Tensor t = gc.t.to(dt);
      test::check_against_cpu("gmm_log_pmf", [&](const std::vector<Tensor>& x) { return gmm_log_pmf(x[0], x[1], 50); },
                              {gc.mu.to(dt), gc.sd.to(dt)}, tol);
      for (const Tensor& sd : {gc.sd, neg(gc.sd)})
        test::check_against_cpu("gmm_nll",
                                [&](const std::vector<Tensor>& x) { return gmm_nll(x[0], x[1], t.to(x[0].device())); },
                                {gc.mu.to(dt), sd.to(dt)}, tol);
    }
  }
#ifdef HARMONIC_WITH_CUDA
  const auto twins = cuda::HostEmulation::emulated_kernels();
  for (std::string_view k : {"fourier_nll", "fourier_nll_backward", "gmm_log_pmf", "gmm_log_pmf_backward", "gmm_nll",
                             "gmm_nll_backward"})
    CHECK_MESSAGE(std::find(twins.begin(), twins.end(), k) != twins.end(), k);
#endif
  // One tape node each on the device too: the kernels, not the composed forms, ran.
  test::for_each_device([&](const test::Target& target) {
    const FourierCase fc = fourier_case(2);
    Tensor c = fc.coeffs.to(target.device).detach().requires_grad_(true);
    CHECK(fourier_nll(c, fc.t.to(target.device)).grad_fn()->name == "fourier_nll");
  });
}
