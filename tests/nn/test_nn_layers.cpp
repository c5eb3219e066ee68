// Basic nn layers: init statistics, Linear/Embedding/norms/Dropout/activations/Sequential,
// parameter counts vs PyTorch, gradchecks, state_dict names, save/load, to(dtype).
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "harmonic/nn/activation.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/embedding.h"
#include "harmonic/nn/init.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/normalization.h"
#include "harmonic/nn/sequential.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

namespace {

double max_abs(const Tensor& t) { return amax(abs(t.detach())).item<double>(); }
double std_of(const Tensor& t) { return hm::std(t.detach().to(DType::Float64)).item<double>(); }
double mean_of(const Tensor& t) { return mean(t.detach().to(DType::Float64)).item<double>(); }

// A module holding a Sequential under "layers" plus a final norm: for nested names.
struct Net : nn::Module {
  Net(Generator* gen) : nn::Module("Net") {
    layers = register_module("layers", nn::make_mlp({3, 5, 2}, "tanh", 0.0, gen));
    norm = register_module("norm", std::make_shared<nn::LayerNorm>(Shape{2}));
  }
  Tensor forward(const Tensor& x) { return norm->forward(layers->forward(x)); }
  std::shared_ptr<nn::Sequential> layers;
  std::shared_ptr<nn::LayerNorm> norm;
};

// Registers a frozen parameter from a tensor that already requires grad.
struct Frozen : nn::Module {
  Frozen() : nn::Module("Frozen") { w = register_parameter("w", ones({2}).requires_grad_(true), false); }
  Tensor w;
};

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("harmonic_nn_" + name + ".safetensors")).string();
}

}  // namespace

TEST_CASE("nn init: fans, gains, bounds and moments") {
  CHECK(nn::init::fan_in_and_fan_out({64, 32}) == std::pair<int64_t, int64_t>{32, 64});
  CHECK(nn::init::fan_in_and_fan_out({8, 3, 5, 5}) == std::pair<int64_t, int64_t>{75, 200});
  CHECK(throws_with([] { nn::init::kaiming_uniform_(zeros({5})); }, {"[kaiming_uniform_]", "(5,)"}));
  CHECK(throws_with([] { nn::init::calculate_gain("swoosh"); }, {"[calculate_gain]", "swoosh"}));
  CHECK(throws_with([] { nn::init::uniform_(zeros({2}, {.dtype = DType::Int64}), 0, 1); }, {"[uniform_]", "int64"}));
  // torch.nn.init.calculate_gain('leaky_relu', 5**0.5) = sqrt(1/3)
  CHECK(nn::init::calculate_gain("leaky_relu", std::sqrt(5.0)) == doctest::Approx(std::sqrt(1.0 / 3.0)));
  CHECK(nn::init::calculate_gain("tanh") == doctest::Approx(5.0 / 3.0));

  Generator gen(3);
  // kaiming_uniform (relu, fan_in 400): bound sqrt(2) sqrt(3/400), std = bound / sqrt(3).
  Tensor w = nn::kaiming_uniform_(empty({300, 400}), 0.0, &gen, nn::FanMode::FanIn, "relu");
  double bound = std::sqrt(2.0) * std::sqrt(3.0 / 400);
  CHECK(max_abs(w) <= bound);
  CHECK(max_abs(w) > 0.99 * bound);
  CHECK(std_of(w) == doctest::Approx(bound / std::sqrt(3.0)).epsilon(0.01));
  // kaiming_normal fan_out: std = sqrt(2) / sqrt(300).
  Tensor k = nn::kaiming_normal_(empty({300, 400}, {.dtype = DType::Float64}), 0.0, &gen, nn::FanMode::FanOut, "relu");
  CHECK(std_of(k) == doctest::Approx(std::sqrt(2.0 / 300)).epsilon(0.01));
  // xavier: bound sqrt(6 / (fan_in + fan_out)), normal std sqrt(2 / (fan_in + fan_out)).
  Tensor x = nn::xavier_uniform_(empty({200, 300}), 1.0, &gen);
  CHECK(max_abs(x) <= std::sqrt(6.0 / 500));
  Tensor xn = nn::xavier_normal_(empty({200, 300}), 2.0, &gen);
  CHECK(std_of(xn) == doctest::Approx(2.0 * std::sqrt(2.0 / 500)).epsilon(0.01));
  // trunc_normal on [-2, 2]: std of the truncated standard normal is
  // sqrt(1 - 4 phi(2) / (Phi(2) - Phi(-2))) = 0.87962.
  Tensor t = nn::trunc_normal_(empty({100000}), 0.0, 1.0, -2.0, 2.0, &gen);
  CHECK(max_abs(t) <= 2.0);
  CHECK(std::fabs(mean_of(t)) < 0.01);
  CHECK(std_of(t) == doctest::Approx(0.87962).epsilon(0.005));
  // Tail bounds far from the mean still work (inverse CDF, no rejection loop).
  Tensor tail = nn::trunc_normal_(empty({1000}, {.dtype = DType::Float64}), 0.0, 0.02, 0.1, 0.2, &gen);
  CHECK(amin(tail).item<double>() >= 0.1);
  CHECK(amax(tail).item<double>() <= 0.2);
  Tensor n = nn::normal_(empty({100000}), 1.5, 0.5, &gen);
  CHECK(mean_of(n) == doctest::Approx(1.5).epsilon(0.01));
  CHECK(std_of(n) == doctest::Approx(0.5).epsilon(0.01));
  CHECK(allclose(nn::ones_(empty({2})), {1, 1}));
  CHECK(allclose(nn::constant_(empty({2}), 0.25), {0.25, 0.25}));
  // The same seed gives the same draws; bfloat16 targets are filled through a conversion.
  Generator g1(5), g2(5);
  CHECK(allclose(nn::uniform_(empty({10}), -1, 1, &g1), nn::uniform_(empty({10}), -1, 1, &g2), 0, 0));
  Tensor bf = nn::uniform_(empty({100}, {.dtype = DType::BFloat16}), -1, 1, &g1);
  CHECK(max_abs(bf.to(DType::Float32)) <= 1.0);
  // A parameter (requires grad) is filled without tripping the in-place check.
  Tensor p = zeros({4, 4}).requires_grad_(true);
  nn::xavier_uniform_(p, 1.0, &gen);
  CHECK(max_abs(p) > 0);
  CHECK(p.requires_grad());
}

TEST_CASE("nn Linear: shapes, PyTorch init bounds, no bias, errors") {
  Generator gen(1);
  nn::Linear lin(400, 300, true, &gen);
  CHECK(lin.weight.shape() == Shape{300, 400});
  CHECK(lin.bias.shape() == Shape{300});
  CHECK(lin.num_parameters() == 400 * 300 + 300);
  CHECK(names_of(lin.named_parameters()) == std::vector<std::string>{"weight", "bias"});
  CHECK(lin.weight.requires_grad());
  CHECK(lin.weight.is_leaf());
  // kaiming_uniform(a = sqrt(5)) is U(+-1/sqrt(in)); std = 1/sqrt(3 in).
  double bound = 1.0 / std::sqrt(400.0);
  CHECK(max_abs(lin.weight) <= bound);
  CHECK(max_abs(lin.weight) > 0.99 * bound);
  CHECK(std_of(lin.weight) == doctest::Approx(bound / std::sqrt(3.0)).epsilon(0.01));
  CHECK(max_abs(lin.bias) <= bound);
  Tensor y = lin(randn({2, 7, 400}, {}, &gen));
  CHECK(y.shape() == Shape{2, 7, 300});
  CHECK(throws_with([&] { lin(randn({2, 399})); }, {"[Linear]", "(..., 400)", "(2, 399)"}));
  nn::Linear nob(3, 2, false, &gen);
  CHECK_FALSE(nob.bias.defined());
  CHECK(nob.num_parameters() == 6);
  CHECK(names_of(nob.named_parameters()) == std::vector<std::string>{"weight"});
  // Values: y = x W^T + b with literal weights.
  {
    NoGradGuard g;
    nob.weight.copy_(tensor({1.0, 2.0, 3.0, -1.0, 0.0, 1.0}, {2, 3}));
  }
  CHECK(allclose(nob(tensor({1.0, 1.0, 2.0}, {1, 3})), {9, 1}));
  // Same seed, same layer.
  Generator ga(9), gb(9);
  CHECK(allclose(nn::Linear(5, 4, true, &ga).weight, nn::Linear(5, 4, true, &gb).weight, 0, 0));
}

TEST_CASE("nn Linear and norms: float64 gradcheck through the module") {
  Generator gen(2);
  nn::Linear lin(3, 4, true, &gen);
  lin.to(DType::Float64);
  CHECK(lin.weight.dtype() == DType::Float64);
  CHECK(lin.weight.is_leaf());
  Tensor x = leaf64({2, 3}, 5);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return lin(in[0]); }, {x, lin.weight, lin.bias}));
  Tensor x3 = leaf64({2, 2, 3}, 6);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return lin(in[0]); }, {x3, lin.weight, lin.bias}));

  nn::LayerNorm ln(Shape{4});
  ln.to(DType::Float64);
  {
    NoGradGuard g;
    ln.weight.copy_(tensor({1, 2, 0.5, -1}));
    ln.bias.copy_(tensor({0, 0.1, 0.2, 0.3}));
  }
  Tensor z = leaf64({3, 4}, 7);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return ln(in[0]); }, {z, ln.weight, ln.bias}));
  nn::RMSNorm rms(4);
  rms.to(DType::Float64);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return rms(in[0]); }, {z, rms.weight}));
}

TEST_CASE("nn LayerNorm / RMSNorm: values vs PyTorch, shapes, non-affine") {
  nn::LayerNorm ln(Shape{4});
  CHECK(names_of(ln.named_parameters()) == std::vector<std::string>{"weight", "bias"});
  CHECK(allclose(ln.weight, {1, 1, 1, 1}));
  {
    NoGradGuard g;
    ln.weight.copy_(tensor({1, 2, 0.5, -1}));
    ln.bias.copy_(tensor({0, 0.1, 0.2, 0.3}));
  }
  Tensor x = tensor({1, 2, 4, 7, -1, 0.5, 0, 3}, {2, 4});
  // torch.nn.LayerNorm(4) with weight [1,2,.5,-1], bias [0,.1,.2,.3] applied to x:
  CHECK(allclose(
      ln(x), {-1.09108841, -1.20930600, 0.30910885, -1.22752380, -1.10264301, -0.06963738, -0.01204674, -1.31155539},
      1e-5, 1e-5));
  nn::RMSNorm rms(4);
  {
    NoGradGuard g;
    rms.weight.copy_(tensor({1, 2, 0.5, -1}));
  }
  // x * torch.rsqrt((x*x).mean(-1, keepdim=True) + 1e-6) * w
  CHECK(allclose(rms(x), {0.23904569, 0.95618278, 0.47809139, -1.67331982, -0.62469494, 0.62469494, 0, -1.87408483},
                 1e-5, 1e-5));
  nn::LayerNorm plain(Shape{2, 4}, 1e-5, false);
  CHECK(plain.num_parameters() == 0);
  CHECK(plain(reshape(x, {1, 2, 4})).shape() == Shape{1, 2, 4});
  CHECK(throws_with([] { nn::RMSNorm(0); }, {"[RMSNorm]"}));
  CHECK(throws_with([&] { rms(zeros({2, 3})); }, {"[RMSNorm]", "(2, 3)"}));
}

TEST_CASE("nn Embedding: lookup, N(0,1) init, padding row") {
  Generator gen(4);
  nn::Embedding emb(1000, 64, 0, &gen);
  CHECK(emb.weight.shape() == Shape{1000, 64});
  CHECK(emb.num_parameters() == 64000);
  CHECK(std_of(emb.weight) == doctest::Approx(1.0).epsilon(0.02));
  CHECK(allclose(select(emb.weight.detach(), 0, 0), std::vector<double>(64, 0.0)));
  Tensor idx = from_vector<int64_t>({0, 3, 3, 999}, {2, 2});
  Tensor y = emb(idx);
  CHECK(y.shape() == Shape{2, 2, 64});
  CHECK(allclose(select(select(y, 0, 1), 0, 0), select(emb.weight, 0, 3)));
  sum(y).backward();
  CHECK(allclose(select(emb.weight.grad(), 0, 0), std::vector<double>(64, 0.0)));  // padding: no gradient
  CHECK(allclose(select(emb.weight.grad(), 0, 3), std::vector<double>(64, 2.0)));
  CHECK(throws_with([] { nn::Embedding(10, 4, 10); }, {"[Embedding]", "padding_idx 10"}));
  nn::Embedding small(5, 3, -1, &gen);  // no padding row: its zero gradient is by design, not the Jacobian
  small.to(DType::Float64);
  Tensor ids = from_vector<int64_t>({4, 1, 4, 0}, {2, 2});
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return small(in[1]); }, {small.weight, ids}));
}

TEST_CASE("nn Dropout: train vs eval, scaling, p bounds") {
  Generator gen(8);
  nn::Dropout drop(0.25, &gen);
  CHECK(drop.is_training());
  Tensor x = ones({10000});
  Tensor y = drop(x);
  std::vector<double> v = y.to_vector();
  int64_t zeros_count = 0;
  bool kept_scaled = true;  // survivors are scaled by 1/(1-p)
  for (double e : v) {
    kept_scaled &= e == 0.0 || std::fabs(e - 1.0 / 0.75) < 1e-6;
    zeros_count += e == 0.0;
  }
  CHECK(kept_scaled);
  CHECK(std::fabs(zeros_count / 10000.0 - 0.25) < 0.02);
  drop.eval();
  CHECK(drop(x).same(x));  // identity in eval
  CHECK(throws_with([] { nn::Dropout(1.5); }, {"[Dropout]", "1.5"}));
  // Sequential propagates eval() to children.
  auto mlp = nn::make_mlp({4, 8, 2}, "relu", 0.5, &gen);
  mlp->eval();
  CHECK_FALSE(mlp->at(2)->is_training());
  Tensor in = randn({3, 4}, {}, &gen);
  CHECK(allclose(mlp->forward(in), mlp->forward(in), 0, 0));
}

TEST_CASE("nn activations and Sequential") {
  Tensor x = tensor({-1.0, 0.0, 2.0});
  CHECK(allclose(nn::ReLU()(x), {0, 0, 2}));
  CHECK(allclose(nn::Tanh()(x), tanh(x)));
  CHECK(allclose(nn::Sigmoid()(x), sigmoid(x)));
  CHECK(allclose(nn::SiLU()(x), silu(x)));
  CHECK(allclose(nn::GELU(GeluApprox::Tanh)(x), gelu(x, GeluApprox::Tanh)));
  CHECK(nn::Identity()(x).same(x));
  CHECK(nn::make_activation("gelu")->type_name() == "GELU");
  CHECK(throws_with([] { nn::make_activation("swoosh"); }, {"[make_activation]", "swoosh"}));

  Generator gen(11);
  // PyTorch: Sequential(Linear(784,256), ReLU(), Dropout(0.1), Linear(256,10)) has 203530
  // parameters and state_dict keys ['0.weight', '0.bias', '3.weight', '3.bias'].
  auto mlp = nn::make_mlp({784, 256, 10}, "relu", 0.1, &gen);
  CHECK(mlp->size() == 4);
  CHECK(mlp->num_parameters() == 203530);
  CHECK(names_of(mlp->state_dict()) == std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"});
  CHECK(mlp->at(-1)->type_name() == "Linear(256, 10)");
  CHECK(throws_with([&] { mlp->at(4); }, {"[Sequential::at]", "index 4"}));
  CHECK(throws_with([] { nn::make_mlp({3}); }, {"[make_mlp]"}));

  nn::Sequential seq{std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(6, 2, true, &gen)};
  auto act = seq.emplace<nn::Tanh>();
  CHECK(seq.size() == 3);
  CHECK(seq.at(2).get() == act.get());
  CHECK(seq(randn({5, 2, 3}, {}, &gen)).shape() == Shape{5, 2});
  CHECK(seq.summary().find("Linear(6, 2) (14 parameters)") != std::string::npos);

  // Gradcheck through a small float64 MLP.
  auto small = nn::make_mlp({3, 4, 2}, "tanh", 0.0, &gen);
  small->to(DType::Float64);
  Tensor in = leaf64({2, 3}, 12);
  std::vector<Tensor> inputs = {in};
  for (const Tensor& p : small->parameters()) inputs.push_back(p);
  CHECK(gradcheck([&](const std::vector<Tensor>& v) { return small->forward(v[0]); }, inputs));
}

TEST_CASE("nn state: nested names, save/load round trip, load errors, to(dtype)") {
  Generator gen(13);
  Net net(&gen);
  CHECK(names_of(net.state_dict()) == std::vector<std::string>{"layers.0.weight", "layers.0.bias", "layers.2.weight",
                                                               "layers.2.bias", "norm.weight", "norm.bias"});
  CHECK(net.num_parameters() == 3 * 5 + 5 + 5 * 2 + 2 + 2 + 2);
  Tensor x = randn({4, 3}, {}, &gen);
  Tensor y = net.forward(x);

  std::string path = temp_path("roundtrip");
  net.save(path);
  Generator other(99);
  Net copy(&other);
  CHECK(max_abs(copy.forward(x) - y) > 1e-3);                      // a different init
  Tensor held = copy.layers->at(0)->named_parameters()[0].second;  // the layer's own handle
  copy.load(path);
  CHECK(allclose(copy.forward(x), y, 0, 0));
  CHECK(allclose(held, net.layers->at(0)->named_parameters()[0].second, 0, 0));  // updated in place
  CHECK(held.requires_grad());
  std::filesystem::remove(path);

  // Errors list every offending name.
  nn::NamedTensors state = net.state_dict();
  nn::NamedTensors bad;
  for (auto& [n, t] : state) {
    if (n == "norm.bias") continue;  // missing
    if (n == "layers.2.weight")
      bad.emplace_back(n, zeros({3, 5}));  // mis-shaped
    else
      bad.emplace_back(n, t);
  }
  bad.emplace_back("layers.9.weight", zeros({1}));  // unexpected
  CHECK(throws_with([&] { copy.load_state_dict(bad); },
                    {"[load_state_dict]", "missing: [norm.bias]", "unexpected: [layers.9.weight]",
                     "layers.2.weight (expected (2, 5), got (3, 5))"}));
  // Non-strict: missing and unexpected are tolerated, a shape mismatch is not.
  nn::NamedTensors partial = {state[0]};
  copy.load_state_dict(partial, false);
  CHECK(throws_with(
      [&] {
        copy.load_state_dict({{"norm.weight", zeros({3})}}, false);
      },
      {"[load_state_dict]", "norm.weight (expected (2,), got (3,))"}));
  CHECK(throws_with([&] { copy.load("/nonexistent/dir/x.safetensors"); }, {"x.safetensors"}));

  // to(Float64) converts in place; the layers' handles follow; a float64 checkpoint loads
  // into a float32 model by conversion.
  net.to(DType::Float64);
  CHECK(net.layers->at(0)->named_parameters()[0].second.dtype() == DType::Float64);
  CHECK(net.norm->weight.dtype() == DType::Float64);
  CHECK(allclose(net.forward(x.to(DType::Float64)), y.to(DType::Float64), 1e-5, 1e-6));
  std::string path64 = temp_path("f64");
  net.save(path64);
  Net back(&other);
  back.load(path64);
  CHECK(back.norm->weight.dtype() == DType::Float32);
  CHECK(allclose(back.forward(x), y, 1e-5, 1e-6));
  std::filesystem::remove(path64);

  // register_parameter(..., requires_grad = false) freezes even a leaf that required grad.
  CHECK_FALSE(Frozen().w.requires_grad());

  // zero_grad drops every gradient.
  sum(back.forward(x)).backward();
  CHECK(back.norm->weight.grad().defined());
  back.zero_grad();
  CHECK_FALSE(back.norm->weight.grad().defined());
}
