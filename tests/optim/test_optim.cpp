// Tests of optim/: SGD, Adam, AdamW against PyTorch 1.13, state save/restore exactness, param
// groups, lr schedules, gradient clipping and bad input.
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <numbers>

#include "harmonic/nn/module.h"
#include "harmonic/optim/optim.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::optim;
using namespace hm::test;

namespace {

// The tiny problem of tests/reference/optim_reference.py (which prints every number below):
//   p = torch.tensor([0.5, -1.0, 2.0, 0.25], dtype=torch.float64, requires_grad=True)
//   opt = cls([p], **kw)
//   for g in grads: p.grad = torch.tensor(g, dtype=torch.float64); opt.step(); print(p.tolist())
const std::vector<double> kP0 = {0.5, -1.0, 2.0, 0.25};
const std::vector<std::vector<double>> kGrads = {
    {0.1, -0.2, 0.3, 0.4}, {-0.5, 0.25, 0.05, 0.2}, {0.3, 0.1, -0.4, -0.1}};

Tensor leaf(const std::vector<double>& v, DType dtype = DType::Float64) {
  return from_vector(v, {int64_t(v.size())}, {.dtype = dtype, .requires_grad = true});
}

void set_grad(const Tensor& p, const std::vector<double>& g) {
  p.set_grad(from_vector(g, p.shape(), {.dtype = p.dtype()}));
}

// Runs the three reference steps and checks each against PyTorch's parameters.
template <class Opt, class Options>
void check_three_steps(Options options, const std::vector<std::vector<double>>& expected, DType dtype = DType::Float64,
                       double rtol = 1e-12) {
  Tensor p = leaf(kP0, dtype);
  Opt opt({p}, options);
  for (size_t s = 0; s < kGrads.size(); ++s) {
    set_grad(p, kGrads[s]);
    opt.step();
    CAPTURE(s);
    CHECK(allclose(p, expected[s], rtol, rtol));
  }
}

}  // namespace

// -- the updates vs torch.optim ---------------------------------------------------------------

TEST_CASE("optim: SGD matches torch.optim.SGD (plain, momentum+dampening+wd, Nesterov)") {
  // torch.optim.SGD([p], lr=0.1)
  check_three_steps<SGD>(SGDOptions{.lr = 0.1},
                         {{0.49, -0.98, 1.97, 0.21}, {0.54, -1.005, 1.965, 0.19}, {0.51, -1.015, 2.005, 0.2}});
  // torch.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)
  check_three_steps<SGD>(SGDOptions{.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.01},
                         {{0.4895, -0.979, 1.968, 0.20975},
                          {0.52460945, -0.9817189, 1.9329288, 0.15533622499999997},
                          {0.5287358064950001, -0.9922823629899999, 1.93562508408, 0.11522402489749996}});
  // torch.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05)
  check_three_steps<SGD>(SGDOptions{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.05, .nesterov = true},
                         {{0.47625, -0.9525, 1.924, 0.171625},
                          {0.556600625, -0.97070125, 1.8638219999999999, 0.0985820625},
                          {0.5237716065625, -0.978646963125, 1.8811134909999998, 0.06967920165625}});
}

TEST_CASE("optim: SGD maximize ascends") {
  Tensor p = leaf(kP0);
  SGD opt({p}, {.lr = 0.1, .maximize = true});
  set_grad(p, kGrads[0]);
  opt.step();
  CHECK(allclose(p, {0.51, -1.02, 2.03, 0.29}));  // p + lr g
}

TEST_CASE("optim: Adam matches torch.optim.Adam (default, L2 decay + amsgrad)") {
  const std::vector<std::vector<double>> adam = {
      {0.400000009999999, -0.9000000049999998, 1.9000000033333333, 0.15000000249999995},
      {0.4598354265523342, -0.9162732304481741, 1.821667272150606, 0.05678204156711296},
      {0.4672888669156339, -0.9473374626616029, 1.8359108271481974, 0.00041590604400220527}};
  // torch.optim.Adam([p], lr=0.1)
  check_three_steps<Adam>(AdamOptions{.lr = 0.1}, adam);
  // The float32 kernel against the same float64 reference.
  check_three_steps<Adam>(AdamOptions{.lr = 0.1}, adam, DType::Float32, 2e-6);
  // torch.optim.Adam([p], lr=0.1, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True)
  check_three_steps<Adam>(AdamOptions{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .weight_decay = 0.1, .amsgrad = true},
                          {{0.40000000666666624, -0.9000000033333332, 1.900000002, 0.15000000235294114},
                           {0.4540729051241873, -0.8812364250406409, 1.8078069527365175, 0.05698670973784288},
                           {0.4454248957334203, -0.8704655508097335, 1.7718859517366214, 0.005352618443278445}});
}

TEST_CASE("optim: AdamW matches torch.optim.AdamW (decoupled decay, amsgrad)") {
  // torch.optim.AdamW([p], lr=0.1, betas=(0.8, 0.9), weight_decay=0.1)
  check_three_steps<AdamW>(AdamOptions{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .weight_decay = 0.1},
                           {{0.395000009999999, -0.8900000049999998, 1.8800000033333333, 0.14750000249999995},
                            {0.45424806190827144, -0.9030598196163179, 1.784347320108652, 0.053192787347836404},
                            {0.45397854129860615, -0.9309758401107762, 1.78987776912806, 0.0017840780765781966}});
  // torch.optim.AdamW([p], lr=0.1, weight_decay=0.5, amsgrad=True, eps=1e-3)
  check_three_steps<AdamW>(AdamOptions{.lr = 0.1, .eps = 1e-3, .weight_decay = 0.5, .amsgrad = true},
                           {{0.375990099009901, -0.8504975124378109, 1.8003322259136212, 0.1377493765586035},
                            {0.4168605557705054, -0.8241742999366483, 1.6323455191837966, 0.037937839663808384},
                            {0.4034492133020744, -0.8138702066746558, 1.5649228778738444, -0.020112872611231528}});
}

TEST_CASE("optim: AdamW differs from Adam only through weight decay") {
  auto run = [](auto make) {
    Tensor p = leaf(kP0);
    auto opt = make(p);
    for (const auto& g : kGrads) {
      set_grad(p, g);
      opt->step();
    }
    return p.to_vector();
  };
  auto adam0 = run([](Tensor p) { return std::make_unique<Adam>(std::vector<Tensor>{p}, AdamOptions{.lr = 0.1}); });
  auto adamw0 = run([](Tensor p) {
    return std::make_unique<AdamW>(std::vector<Tensor>{p}, AdamOptions{.lr = 0.1, .weight_decay = 0.0});
  });
  CHECK(adam0 == adamw0);  // bit-identical without decay
  auto adam = run([](Tensor p) {
    return std::make_unique<Adam>(std::vector<Tensor>{p}, AdamOptions{.lr = 0.1, .weight_decay = 0.1});
  });
  auto adamw = run([](Tensor p) {
    return std::make_unique<AdamW>(std::vector<Tensor>{p}, AdamOptions{.lr = 0.1, .weight_decay = 0.1});
  });
  CHECK(adam != adamw);
  // Defaults follow PyTorch: AdamW decays by 1e-2 unless told otherwise, Adam not at all.
  Tensor p = leaf(kP0);
  CHECK(AdamW({p}).group(0).weight_decay == 1e-2);
  CHECK(AdamW({p}, {.lr = 3e-4}).group(0).weight_decay == 1e-2);
  CHECK(Adam({p}).group(0).weight_decay == 0.0);
}

TEST_CASE("optim: parameters without grad are skipped, non-contiguous parameters update in place") {
  Tensor a = leaf(kP0), b = leaf(kP0);
  Adam opt({a, b}, {.lr = 0.1});
  set_grad(a, kGrads[0]);
  uint64_t va = a.version(), vb = b.version();
  opt.step();
  CHECK(b.to_vector() == kP0);
  CHECK(b.version() == vb);
  CHECK(a.version() > va);
  CHECK(opt.state_tensors().size() == 2);  // only a's moments exist

  // A transposed leaf: the update goes through a contiguous copy and back.
  Tensor base = from_vector(kP0, {2, 2}, {.dtype = DType::Float64});
  Tensor t = transpose(base, 0, 1).detach().requires_grad_(true);  // (2, 2) strides (1, 2)
  REQUIRE(!t.is_contiguous());
  SGD sgd({t}, {.lr = 1.0});
  t.set_grad(ones({2, 2}, {.dtype = DType::Float64}));
  sgd.step();
  CHECK(allclose(base, {-0.5, -2.0, 1.0, -0.75}));
  opt.zero_grad();
  CHECK(!a.grad().defined());
}

TEST_CASE("optim: float32 Adam over a large tensor matches the float64 path") {
  // Exercises the parallel vectorised loop (n above the parallel grain).
  const int64_t n = 100003;
  Generator gen(7);
  Tensor p64 = randn({n}, {.dtype = DType::Float64}, &gen);
  Tensor g64 = randn({n}, {.dtype = DType::Float64}, &gen);
  Tensor p32 = p64.to(DType::Float32).requires_grad_(true);
  p64.requires_grad_(true);
  AdamW o64({p64}, {.lr = 1e-2, .weight_decay = 0.1, .amsgrad = true});
  AdamW o32({p32}, {.lr = 1e-2, .weight_decay = 0.1, .amsgrad = true});
  for (int s = 0; s < 3; ++s) {
    p64.set_grad(g64);
    p32.set_grad(g64.to(DType::Float32));
    o64.step();
    o32.step();
  }
  CHECK(allclose(p32, p64, 1e-5, 1e-5));
}

// -- state ------------------------------------------------------------------------------------

namespace {

// Five steps of a deterministic pseudo-gradient (depends on the step and the parameter).
template <class Opt>
void run_steps(Opt& opt, const std::vector<Tensor>& params, int from, int count) {
  for (int s = from; s < from + count; ++s) {
    for (size_t i = 0; i < params.size(); ++i) {
      std::vector<double> g = params[i].to_vector();
      for (size_t k = 0; k < g.size(); ++k) g[k] = std::sin(0.7 * s + 1.3 * double(k) + double(i)) + 0.1 * g[k];
      params[i].set_grad(from_vector(g, params[i].shape(), {.dtype = params[i].dtype()}));
    }
    opt.step();
  }
}

template <class Opt, class Options>
void check_resume_exact(Options options, bool via_file) {
  auto make_params = [] {
    return std::vector<Tensor>{from_vector(std::vector<double>{0.5, -1.0, 2.0, 0.25, 1.5, -0.3}, {2, 3},
                                           {.dtype = DType::Float32, .requires_grad = true}),
                               leaf({0.1, 0.2, -0.3})};
  };
  auto groups = [](const std::vector<Tensor>& p) {
    std::vector<ParamGroup> g(2);
    g[0].params = {p[0]};
    g[1].params = {p[1]};
    g[1].lr = 0.05;
    g[1].weight_decay = 0.0;
    return g;
  };
  // Uninterrupted: ten steps.
  std::vector<Tensor> a = make_params();
  Opt full(groups(a), options);
  for (int s = 0; s < 10; ++s) run_steps(full, a, s, 1);
  // Interrupted: five steps, save parameters and optimizer, restore into fresh objects, five more.
  std::vector<Tensor> b = make_params();
  Opt first(groups(b), options);
  for (int s = 0; s < 5; ++s) run_steps(first, b, s, 1);
  std::vector<Tensor> c = make_params();
  for (size_t i = 0; i < c.size(); ++i) {
    NoGradGuard g;
    c[i].copy_(b[i]);
  }
  Opt resumed(groups(c), options);
  resumed.set_lr(1, 0.5);  // overwritten by the restored state
  if (via_file) {
    auto path = std::filesystem::temp_directory_path() / "harmonic_test_optim_state.safetensors";
    first.save(path.string());
    resumed.load(path.string());
    std::filesystem::remove(path);
  } else {
    resumed.load_state(first.state_tensors(), nlohmann::json::parse(first.state_json().dump()));
  }
  CHECK(resumed.steps() == 5);
  CHECK(resumed.lr(1) == 0.05);
  for (int s = 5; s < 10; ++s) run_steps(resumed, c, s, 1);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].to_vector() == c[i].to_vector());  // bit-identical
}

}  // namespace

TEST_CASE("optim: save, restore and continue reproduces the uninterrupted run bit for bit") {
  check_resume_exact<Adam>(AdamOptions{.lr = 0.1, .weight_decay = 0.01}, false);
  check_resume_exact<AdamW>(AdamOptions{.lr = 0.1, .weight_decay = 0.1, .amsgrad = true}, true);
  check_resume_exact<SGD>(SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true}, true);
  check_resume_exact<SGD>(SGDOptions{.lr = 0.1, .momentum = 0.5, .dampening = 0.2}, false);
}

TEST_CASE("optim: state names, json contents and load errors") {
  Tensor a = leaf(kP0), b = leaf({1.0, 2.0});
  Adam opt(NamedTensors{{"fc.weight", a}, {"fc.bias", b}}, {.lr = 0.1});
  set_grad(a, kGrads[0]);
  set_grad(b, {0.5, 0.5});
  opt.step();
  NamedTensors st = opt.state_tensors();
  REQUIRE(st.size() == 4);
  CHECK(st[0].first == "group0.param0.exp_avg");
  CHECK(st[3].first == "group0.param1.exp_avg_sq");
  CHECK(allclose(st[0].second, {0.01, -0.02, 0.03, 0.04}));  // (1 - 0.9) g
  nlohmann::json j = opt.state_json();
  CHECK(j["type"] == "Adam");
  CHECK(j["groups"][0]["steps"] == std::vector<int64_t>{1, 1});
  CHECK(j["groups"][0]["names"][1] == "fc.bias");

  Tensor a2 = leaf(kP0), b2 = leaf({1.0, 2.0, 3.0});
  Adam other(NamedTensors{{"fc.weight", a2}, {"fc.bias", b2}});
  CHECK(throws_with([&] { other.load_state(st, j); }, {"[Adam.load_state]", "group0.param1.exp_avg", "(3,)"}));
  SGD sgd({leaf(kP0), leaf({1.0, 2.0})});
  CHECK(throws_with([&] { sgd.load_state(st, j); }, {"[SGD.load_state]", "Adam"}));
  Adam renamed(NamedTensors{{"fc.w", leaf(kP0)}, {"fc.bias", leaf({1.0, 2.0})}});
  CHECK(throws_with([&] { renamed.load_state(st, j); }, {"names differ", "fc.w"}));
  Adam one({leaf(kP0)});
  CHECK(throws_with([&] { one.load_state(st, j); }, {"group 0 has 2 parameters in the state, 1 here"}));
  nlohmann::json bad = j;
  bad["groups"][0].erase("steps");
  Adam fresh(NamedTensors{{"fc.weight", leaf(kP0)}, {"fc.bias", leaf({1.0, 2.0})}});
  CHECK(throws_with([&] { fresh.load_state(st, bad); }, {"[Adam.load_state]", "malformed"}));
  NamedTensors extra = st;
  extra.emplace_back("group0.param9.exp_avg", zeros({2}));
  CHECK(throws_with([&] { fresh.load_state(extra, j); }, {"unexpected state tensor group0.param9.exp_avg"}));
}

// -- parameter groups -------------------------------------------------------------------------

namespace {

struct Block : nn::Module {
  Tensor weight, bias;
  Block() : Module("Block") {
    weight = register_parameter("weight", zeros({3, 2}));
    bias = register_parameter("bias", zeros({3}));
  }
};

struct Net : nn::Module {
  std::shared_ptr<Block> fc, ln_f, final_norm;
  Tensor emb, gain, frozen;
  Net() : Module("Net") {
    emb = register_parameter("emb", zeros({5, 2}));
    fc = register_module("fc", std::make_shared<Block>());
    ln_f = register_module("ln_f", std::make_shared<Block>());
    final_norm = register_module("final_norm", std::make_shared<Block>());
    gain = register_parameter("gain", ones({2}));
    frozen = register_parameter("frozen", zeros({2, 2}), false);
  }
};

}  // namespace

TEST_CASE("optim: param_groups_no_decay splits biases, 1-d and norm parameters by name") {
  Net net;
  auto groups = param_groups_no_decay(net, 0.1);  // own parameters first, then children's
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].names == std::vector<std::string>{"emb", "fc.weight"});
  CHECK(groups[1].names == std::vector<std::string>{"gain", "fc.bias", "ln_f.weight", "ln_f.bias", "final_norm.weight",
                                                    "final_norm.bias"});
  CHECK(groups[0].weight_decay == 0.1);
  CHECK(groups[1].weight_decay == 0.0);
  CHECK(groups[0].params[1].same(net.fc->weight));
  // A custom rule: only "emb" decays.
  auto custom = param_groups_no_decay(net, 0.1, [](const std::string& n, const Tensor&) { return n != "emb"; });
  CHECK(custom[0].names == std::vector<std::string>{"emb"});

  AdamW opt(groups, {.lr = 1e-3});
  CHECK(opt.num_groups() == 2);
  CHECK(opt.group(0).weight_decay == 0.1);
  CHECK(opt.group(1).weight_decay == 0.0);
  CHECK(opt.lr(1) == 1e-3);
  // Decay only touches group 0: with a zero gradient AdamW changes only decayed parameters.
  {
    NoGradGuard g;
    net.fc->weight.fill_(1.0);
    net.fc->bias.fill_(1.0);
  }
  for (auto& [n, t] : net.named_parameters())
    if (t.requires_grad()) t.set_grad(zeros_like(t));
  opt.step();
  CHECK(allclose(net.fc->weight, std::vector<double>(6, 1.0 - 1e-3 * 0.1)));
  CHECK(allclose(net.fc->bias, std::vector<double>(3, 1.0)));
}

// -- schedules --------------------------------------------------------------------------------

TEST_CASE("optim: learning-rate schedules") {
  const double pi = std::numbers::pi;
  CHECK(constant_lr(0.1).lr_at(12345) == 0.1);
  // FRU staircase: lr0 * decay^(step // 1000).
  Schedule stair = step_decay(1e-2, 0.5, 1000);
  CHECK(stair.lr_at(0) == 1e-2);
  CHECK(stair.lr_at(999) == 1e-2);
  CHECK(stair.lr_at(1000) == 5e-3);
  CHECK(stair.lr_at(2500) == doctest::Approx(2.5e-3).epsilon(1e-15));
  CHECK(exponential_decay(1.0, 0.9).lr_at(3) == doctest::Approx(0.729).epsilon(1e-15));
  // Warmup 10 then cosine to 0.1 over 90 (total 100): lr (step + 1) / 10 during the warmup.
  Schedule wc = warmup_cosine(1.0, 10, 100, 0.1);
  CHECK(wc.lr_at(0) == doctest::Approx(0.1));
  CHECK(wc.lr_at(4) == doctest::Approx(0.5));
  CHECK(wc.lr_at(9) == 1.0);   // the last warmup step reaches the peak
  CHECK(wc.lr_at(10) == 1.0);  // cosine at its start
  CHECK(wc.lr_at(55) == doctest::Approx(0.1 + 0.5 * (1 + std::cos(pi * 45 / 90)) * 0.9));
  CHECK(wc.lr_at(55) == doctest::Approx(0.55));
  CHECK(wc.lr_at(100) == 0.1);  // cosine end
  CHECK(wc.lr_at(5000) == 0.1);
  Schedule lin = with_warmup(linear_decay(2.0, 4, 0.0), 2, 0.5);
  CHECK(lin.lr_at(0) == doctest::Approx(1.5));  // 2 (0.5 + 0.5 * 1/2)
  CHECK(lin.lr_at(1) == 2.0);
  CHECK(lin.lr_at(2) == 2.0);
  CHECK(lin.lr_at(3) == 1.5);
  CHECK(lin.lr_at(6) == 0.0);
  Schedule warm_stair = with_warmup(step_decay(1.0, 0.1, 3), 2);
  CHECK(warm_stair.lr_at(4) == 1.0);  // step 2 of the staircase
  CHECK(warm_stair.lr_at(5) == doctest::Approx(0.1));
  CHECK(wc.str() == "cosine(lr=1, steps=90, end_lr=0.1) after warmup(10, start=0)");
}

TEST_CASE("optim: LRScheduler scales each group relative to its initial lr") {
  std::vector<ParamGroup> groups(2);
  groups[0].params = {leaf(kP0)};
  groups[1].params = {leaf({1.0})};
  groups[1].lr = 0.01;
  SGD opt(groups, {.lr = 0.1});
  LRScheduler sched(opt, warmup_cosine(0.1, 10, 100));
  CHECK(sched.apply(4) == doctest::Approx(0.05));
  CHECK(opt.lr(0) == sched.schedule().lr_at(4));
  CHECK(opt.lr(1) == doctest::Approx(0.005));
  CHECK(opt.group(1).initial_lr == 0.01);
  opt.step();  // no grads: only counts
  CHECK(sched.apply() == sched.schedule().lr_at(1));
  sched.apply(100);
  CHECK(opt.lr(0) == 0.0);
}

// -- clipping ---------------------------------------------------------------------------------

TEST_CASE("optim: clip_grad_norm_ and clip_grad_value_ match torch.nn.utils") {
  // a.grad = [[3, -4], [1, 2]], b.grad = [0.5, -2, 1.5]; torch.nn.utils.clip_grad_norm_([a, b], 2.0, norm_type=nt)
  struct Case {
    double norm_type, total;
    std::vector<double> ga, gb;
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Case> cases = {{2.0,
                              6.041522986797286,
                              {0.9931269019393071, -1.3241692025857428, 0.3310423006464357, 0.6620846012928714},
                              {0.16552115032321785, -0.6620846012928714, 0.49656345096965354}},
                             {1.0,
                              14.0,
                              {0.42857139795918586, -0.5714285306122479, 0.14285713265306196, 0.2857142653061239},
                              {0.07142856632653098, -0.2857142653061239, 0.21428569897959293}},
                             {inf,
                              4.0,
                              {1.4999996250000938, -1.999999500000125, 0.49999987500003124, 0.9999997500000625},
                              {0.24999993750001562, -0.9999997500000625, 0.7499998125000469}}};
  for (const auto& c : cases) {
    CAPTURE(c.norm_type);
    Tensor a = zeros({2, 2}, {.dtype = DType::Float64, .requires_grad = true});
    Tensor b = leaf({0, 0, 0});
    Tensor none = leaf({0});
    a.set_grad(tensor({3, -4, 1, 2}, {2, 2}, {.dtype = DType::Float64}));
    set_grad(b, {0.5, -2.0, 1.5});
    CHECK(clip_grad_norm_({a, b, none}, 2.0, c.norm_type) == doctest::Approx(c.total).epsilon(1e-14));
    CHECK(allclose(a.grad(), c.ga, 1e-13, 1e-14));
    CHECK(allclose(b.grad(), c.gb, 1e-13, 1e-14));
  }
  // Below the limit nothing changes; no gradients gives 0.
  Tensor p = leaf({1.0});
  set_grad(p, {0.5});
  CHECK(clip_grad_norm_({p}, 1.0) == 0.5);
  CHECK(p.grad().to_vector() == std::vector<double>{0.5});
  CHECK(clip_grad_norm_({leaf({1.0})}, 1.0) == 0.0);
  set_grad(p, {NAN});
  CHECK(throws_with([&] { clip_grad_norm_({p}, 1.0, 2.0, true); }, {"[clip_grad_norm_]", "non-finite"}));
  // An infinite max_norm (measure only) still refuses a non-finite norm when asked to.
  CHECK(throws_with([&] { clip_grad_norm_({p}, INFINITY, 2.0, true); }, {"[clip_grad_norm_]", "non-finite"}));

  Tensor v = leaf({-3.0, 0.5, 2.0});
  set_grad(v, {-3.0, 0.5, 2.0});
  clip_grad_value_({v}, 1.0);
  CHECK(v.grad().to_vector() == std::vector<double>{-1.0, 0.5, 1.0});
  CHECK(throws_with([&] { clip_grad_value_({v}, -1.0); }, {"[clip_grad_value_]", "-1"}));
  CHECK(throws_with([&] { clip_grad_norm_({v}, -1.0); }, {"[clip_grad_norm_]", "max_norm -1"}));
}

// -- bad input --------------------------------------------------------------------------------

TEST_CASE("optim: bad hyperparameters and parameters raise errors naming the optimizer") {
  Tensor p = leaf(kP0);
  CHECK(throws_with([&] { SGD({p}, {.lr = -0.1}); }, {"[SGD]", "learning rate -0.1"}));
  CHECK(throws_with([&] { SGD({p}, {.momentum = -1}); }, {"[SGD]", "momentum -1"}));
  CHECK(throws_with([&] { SGD({p}, {.nesterov = true}); }, {"[SGD]", "Nesterov"}));
  CHECK(throws_with([&] { Adam({p}, {.lr = -1}); }, {"[Adam]", "learning rate -1"}));
  CHECK(throws_with([&] { Adam({p}, {.beta1 = 1.0}); }, {"[Adam]", "beta1 1", "[0, 1)"}));
  CHECK(throws_with([&] { AdamW({p}, {.beta2 = -0.1}); }, {"[AdamW]", "beta2 -0.1"}));
  CHECK(throws_with([&] { AdamW({p}, {.eps = -1}); }, {"[AdamW]", "eps"}));
  CHECK(throws_with([&] { Adam({p}, {.weight_decay = -1}); }, {"[Adam]", "weight_decay -1"}));
  // A non-leaf: the output of an op.
  Tensor y = mul(p, 2.0);
  CHECK(throws_with([&] { Adam(NamedTensors{{"y", y}}); }, {"[Adam]", "'y'", "not a leaf"}));
  CHECK(throws_with([&] { SGD({p, p}); }, {"[SGD]", "more than once"}));
  CHECK(throws_with([&] { SGD(std::vector<Tensor>{}); }, {"[SGD]", "empty parameter list"}));
  CHECK(throws_with([&] { SGD({Tensor()}); }, {"[SGD]", "undefined"}));
  CHECK(throws_with([&] { SGD({from_vector(std::vector<int64_t>{1}, {1})}); }, {"[SGD]", "int64"}));
  std::vector<ParamGroup> g(1);
  g[0].params = {p};
  g[0].lr = -2;
  CHECK(throws_with([&] { Adam{g}; }, {"[Adam]", "learning rate -2"}));
  SGD ok({p});
  CHECK(throws_with([&] { ok.set_lr(-1.0); }, {"[set_lr]", "-1"}));
  CHECK(throws_with([&] { ok.group(3); }, {"[SGD]", "group index 3"}));
  CHECK(throws_with([] { step_decay(1.0, 0.5, 0); }, {"[step_decay]", "period 0"}));
  CHECK(throws_with([] { cosine_decay(1.0, 0); }, {"[cosine_decay]"}));
  CHECK(throws_with([] { warmup_cosine(1.0, 10, 5); }, {"[warmup_cosine]"}));
  CHECK(throws_with([] { constant_lr(1.0).lr_at(-1); }, {"[lr_at]", "negative step"}));
}
