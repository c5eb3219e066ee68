// The multi-tensor optimizer kernels (optim/optim_kernels.h): equal bit for bit to the
// kernel applied one tensor at a time, capturable mode equal to the plain mode,
// its state round trip, the norm-2 clipping reduction, and bad lists.
#include <doctest/doctest.h>

#include "harmonic/core/parallel.h"
#include "harmonic/optim/optim.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::optim;
using namespace hm::test;

namespace {

// Odd sizes, some above the parallel grain (2^17 element operations / 16 per Adam element), so
// a thread's share crosses tensor boundaries at 2 threads.
const std::vector<int64_t> kMultiSizes = {1, 7, 33, 0, 1000, 9001, 70001, 3, 40000};

std::vector<Tensor> multi_randoms(DType dt, uint64_t seed, bool positive = false) {
  std::vector<Tensor> out;
  Generator gen(seed);
  for (int64_t n : kMultiSizes) {
    Tensor t = randn({n}, {.dtype = dt}, &gen);
    out.push_back(positive ? mul(t, t) : t);
  }
  return out;
}

std::vector<Tensor> clones(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.clone());
  return out;
}

// The per-parameter path: the kernel over one tensor at a time, on one thread. (A scalar loop
// of the functor is not a bit-exact reference: the compiler may contract a*b+c into an fma in
// one loop and not in another.)
void per_parameter_adam(const AdamLists& l, const AdamStep& s) {
  const int threads = get_num_threads();
  set_num_threads(1);
  for (size_t k = 0; k < l.params.size(); ++k)
    adam_kernel(Device::cpu(),
                AdamLists{{l.params[k]}, {l.grads[k]}, {l.exp_avg[k]}, {l.exp_avg_sq[k]},
                          s.amsgrad ? std::vector<Tensor>{l.max_exp_avg_sq[k]} : std::vector<Tensor>{}},
                s, {});
  set_num_threads(threads);
}

void per_parameter_sgd(const SgdLists& l, const SgdStep& s) {
  const int threads = get_num_threads();
  set_num_threads(1);
  for (size_t k = 0; k < l.params.size(); ++k)
    sgd_kernel(Device::cpu(),
               SgdLists{{l.params[k]}, {l.grads[k]},
                        l.momentum_buffers.empty() ? std::vector<Tensor>{} : std::vector<Tensor>{l.momentum_buffers[k]}},
               s, {});
  set_num_threads(threads);
}

bool all_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!same_values(a[k], b[k])) return false;
  return true;
}

// A group's parameters of the sizes above, with gradients; every third has none.
std::vector<Tensor> multi_params(DType dt, uint64_t seed) {
  std::vector<Tensor> ps;
  const std::vector<Tensor> values = multi_randoms(dt, seed);
  for (const Tensor& v : values) ps.push_back(v.clone().requires_grad_(true));
  return ps;
}

void set_multi_grads(const std::vector<Tensor>& ps, uint64_t seed, int skip) {
  Generator gen(seed);
  for (size_t k = 0; k < ps.size(); ++k) {
    if (static_cast<int>(k % 3) == skip) {
      ps[k].zero_grad();
      continue;
    }
    ps[k].set_grad(randn(ps[k].shape(), {.dtype = ps[k].dtype()}, &gen));
  }
}

std::vector<Tensor> detached(const std::vector<Tensor>& ps) {
  std::vector<Tensor> out;
  for (const Tensor& p : ps) out.push_back(p.detach().clone());
  return out;
}

// Steps `opt` 4 times with gradients missing on a different third each step and the lr changed
// in between; returns the parameters.
template <class Opt, class Options>
std::vector<Tensor> run_groups(Options o, bool capturable, bool save_and_reload = false) {
  std::vector<Tensor> a = multi_params(DType::Float32, 1), b = multi_params(DType::Float64, 2);
  std::vector<ParamGroup> groups(2);
  groups[0].params = a;
  groups[1].params = b;
  groups[1].weight_decay = 0.0;
  auto opt = std::make_unique<Opt>(groups, o);
  opt->set_capturable(capturable);
  for (int step = 0; step < 4; ++step) {
    set_multi_grads(a, 10 + step, step % 3);
    set_multi_grads(b, 20 + step, (step + 1) % 3);
    opt->set_lr(0, 0.01 / (1 + step));
    opt->set_lr(1, 0.02 / (1 + step));
    opt->step();
    if (save_and_reload && step == 1) {
      const NamedTensors tensors = opt->state_tensors();
      const nlohmann::json json = opt->state_json();
      opt = std::make_unique<Opt>(groups, o);
      opt->set_capturable(capturable);
      opt->load_state(tensors, json);
    }
  }
  std::vector<Tensor> out = detached(a);
  for (const Tensor& t : detached(b)) out.push_back(t);
  const nlohmann::json json = opt->state_json();
  out.push_back(from_vector(json["groups"][0]["steps"].get<std::vector<int64_t>>(), {9}));
  return out;
}

}  // namespace

TEST_CASE("optim: multi-tensor adam over many tensors at 2 threads equals one tensor at a time bit for bit") {
  const int threads = get_num_threads();
  set_num_threads(2);
  for (DType dt : {DType::Float32, DType::Float64})
    for (bool amsgrad : {false, true})
      for (bool decoupled : {false, true})
        for (bool maximize : {false, true}) {
          CAPTURE(dtype_name(dt));
          CAPTURE(amsgrad);
          CAPTURE(decoupled);
          CAPTURE(maximize);
          AdamLists l{multi_randoms(dt, 1), multi_randoms(dt, 2), multi_randoms(dt, 3), multi_randoms(dt, 4, true),
                      amsgrad ? multi_randoms(dt, 5, true) : std::vector<Tensor>{}};
          AdamLists r{clones(l.params), l.grads, clones(l.exp_avg), clones(l.exp_avg_sq), clones(l.max_exp_avg_sq)};
          const AdamStep s{.lr = 0.01, .weight_decay = 0.1, .step = 3, .decoupled = decoupled, .amsgrad = amsgrad,
                           .maximize = maximize};
          adam_kernel(Device::cpu(), l, s, {});
          per_parameter_adam(r, s);
          CHECK(all_same(l.params, r.params));
          CHECK(all_same(l.exp_avg_sq, r.exp_avg_sq));
          CHECK(all_same(l.max_exp_avg_sq, r.max_exp_avg_sq));
          CHECK(!same_values(l.params[2], multi_randoms(dt, 1)[2]));  // it did update
        }
  set_num_threads(threads);
}

TEST_CASE("optim: multi-tensor sgd over many tensors at 2 threads equals one tensor at a time bit for bit") {
  const int threads = get_num_threads();
  set_num_threads(2);
  for (DType dt : {DType::Float32, DType::Float64})
    for (int variant = 0; variant < 4; ++variant) {  // no momentum, first step, momentum, Nesterov
      CAPTURE(dtype_name(dt));
      CAPTURE(variant);
      SgdLists l{multi_randoms(dt, 1), multi_randoms(dt, 2), variant ? multi_randoms(dt, 3) : std::vector<Tensor>{}};
      SgdLists r{clones(l.params), l.grads, clones(l.momentum_buffers)};
      const SgdStep s{.lr = 0.1, .momentum = variant ? 0.9 : 0.0, .dampening = variant == 2 ? 0.1 : 0.0,
                      .weight_decay = 0.01, .nesterov = variant == 3, .maximize = variant == 2, .first = variant == 1};
      sgd_kernel(Device::cpu(), l, s, {});
      per_parameter_sgd(r, s);
      CHECK(all_same(l.params, r.params));
      CHECK(all_same(l.momentum_buffers, r.momentum_buffers));
    }
  set_num_threads(threads);
}

TEST_CASE("optim: capturable mode equals the plain mode bit for bit, state round trip included") {
  const int threads = get_num_threads();
  set_num_threads(2);
  const AdamOptions adam{.lr = 0.01, .weight_decay = 0.05};
  const AdamOptions ams{.lr = 0.01, .weight_decay = 0.05, .amsgrad = true, .maximize = true};
  const SGDOptions sgd{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true};
  const std::vector<Tensor> plain_adam = run_groups<Adam>(adam, false), plain_adamw = run_groups<AdamW>(ams, false),
                            plain_sgd = run_groups<SGD>(sgd, false);
  CHECK(all_same(plain_adam, run_groups<Adam>(adam, true)));
  CHECK(all_same(plain_adamw, run_groups<AdamW>(ams, true)));
  CHECK(all_same(plain_sgd, run_groups<SGD>(sgd, true)));
  CHECK(all_same(plain_adam, run_groups<Adam>(adam, true, true)));
  CHECK(all_same(plain_adamw, run_groups<AdamW>(ams, false, true)));
  CHECK(all_same(plain_sgd, run_groups<SGD>(sgd, true, true)));
  // Parameters without a gradient at some step have fewer steps (index 0 skipped at step 0 and 3).
  CHECK(plain_adam.back().to_vector() == std::vector<double>{2, 3, 3, 2, 3, 3, 2, 3, 3});
  set_num_threads(threads);
}

TEST_CASE("optim: capturable mode keeps lr and steps on the parameters' device") {
  Tensor p = ones({5}, {.requires_grad = true});
  Adam opt({p}, {.lr = 0.1});
  p.set_grad(ones({5}));
  opt.step();
  opt.set_capturable(true);
  CHECK(opt.capturable());
  opt.set_lr(0.5);
  CHECK(opt.lr() == 0.5);
  opt.step();
  opt.step();
  CHECK(opt.state_json()["groups"][0]["steps"].get<std::vector<int64_t>>() == std::vector<int64_t>{3});
  opt.set_capturable(false);
  CHECK(opt.state_json()["groups"][0]["steps"].get<std::vector<int64_t>>() == std::vector<int64_t>{3});
  // The same three steps without capturable mode.
  Tensor q = ones({5}, {.requires_grad = true});
  Adam ref({q}, {.lr = 0.1});
  q.set_grad(ones({5}));
  ref.step();
  ref.set_lr(0.5);
  ref.step();
  ref.step();
  CHECK(same_values(p.detach(), q.detach()));
}

TEST_CASE("optim: multi-tensor kernels refuse mixed lists, naming the function and the entry") {
  const Tensor a = zeros({3}), b = zeros({3}, {.dtype = DType::Float64}), c = zeros({4});
  AdamLists mixed{{a, b}, {a, b}, {a, b}, {a, b}, {}};
  CHECK(throws_with([&] { adam_kernel(Device::cpu(), mixed, AdamStep{}, {}); },
                    {"[adam]", "parameter 1", "float64"}));
  AdamLists shape{{a}, {c}, {a}, {a}, {}};
  CHECK(throws_with([&] { adam_kernel(Device::cpu(), shape, AdamStep{}, {}); }, {"[adam]", "list 1 entry 0", "(4,)"}));
  SgdLists short_list{{a, a.clone()}, {a}, {}};
  CHECK(throws_with([&] { sgd_kernel(Device::cpu(), short_list, SgdStep{}, {}); }, {"[sgd]", "list 1 has 1"}));
  CHECK(throws_with([&] { clip_norm_sq_kernel(Device::cpu(), {a, b}, zeros({1}, {.dtype = DType::Float64})); },
                    {"[clip_norm_sq]", "parameter 1"}));
  const DeviceSchedule bad{zeros({2}), {0}};
  CHECK(throws_with([&] { adam_kernel(Device::cpu(), AdamLists{{a}, {a}, {a}, {a}, {}}, AdamStep{}, bad); },
                    {"[adam]", "schedule table", "float64"}));
}

TEST_CASE("optim: clip_grad_norm_ of norm 2 as one reduction agrees with the float64 norms") {
  // The fused total sums float64 lane partials (optim_functors.h) and rounds each tensor's norm to
  // its dtype; against the norms of the gradients converted to float64 it is off by that rounding
  // only. (A float32 sum of each tensor, the composed form, drifts further with the build's
  // vectorisation, so it is no reference.)
  for (DType dt : {DType::Float32, DType::Float64}) {
    std::vector<Tensor> ps = multi_params(dt, 7), qs;
    set_multi_grads(ps, 8, 0);
    for (const Tensor& p : ps) {
      qs.push_back(p.detach().clone().requires_grad_(true));
      if (p.grad().defined()) qs.back().set_grad(p.grad().clone());
    }
    std::vector<Tensor> norms;
    for (const Tensor& q : qs)
      if (q.grad().defined()) norms.push_back(norm(q.grad().to(DType::Float64), 2.0));
    const double composed = norm(stack(norms), 2.0).item<double>();
    const double total = clip_grad_norm_(ps, 1.0);
    CHECK(total == doctest::Approx(composed).epsilon(dt == DType::Float32 ? 1e-6 : 1e-13));
    const double coef = std::min(1.0, 1.0 / (total + 1e-6));
    for (size_t k = 0; k < ps.size(); ++k)
      if (ps[k].grad().defined()) CHECK(same_values(ps[k].grad(), mul(qs[k].grad(), scalar_tensor(coef, {.dtype = dt}))));
  }
}
