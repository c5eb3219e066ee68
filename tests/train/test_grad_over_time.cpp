// Gradient flow over time (tools/train/grad_over_time.h): the norms of d loss_t / d h0 of a
// linear recurrence against their closed form, window averages, an FRU probe against
// nn::grads_wrt_initial_state, bad inputs, and `grads --over-time` through the CLI library.
#include <cmath>
#include <filesystem>
#include <fstream>

#include "harmonic/nn/fru.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/sgd.h"
#include "tests/helpers.h"
#include "harmonic/tools/train/grad_over_time.h"
#include "harmonic/tools/train/train_cli.h"
#include "harmonic/tools/train/train_cli_args.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;

namespace {

// h_{t+1} = a h_t + x_t (x: (B, T, S)), loss_t = sum(h_{t+1}) over batch and state. Every
// element of d loss_t / d h0 is a^(t+1); summed over the batch it is B a^(t+1), so the (S)
// gradient has L1 = S B a^(t+1), L2 = sqrt(S) B a^(t+1), Linf = B a^(t+1).
struct LinearProbe : RecurrentProbe {
  Tensor a;  // (1): a constant, or a model's trainable decay
  explicit LinearProbe(double a_) : a(full({1}, a_, {.dtype = DType::Float64})) {}
  explicit LinearProbe(Tensor a_) : a(std::move(a_)) {}
  Tensor initial_state(const data::Batch& b) override {
    return zeros({b.input.size(0), b.input.size(2)}, {.dtype = b.input.dtype()});
  }
  std::vector<Tensor> step_losses(const data::Batch& b, const Tensor& h0) override {
    std::vector<Tensor> out;
    Tensor h = h0;
    for (int64_t t = 0; t < b.input.size(1); ++t) {
      h = add(mul(h, a), select(b.input, 1, t));
      out.push_back(sum(h));
    }
    return out;
  }
};

data::Batch linear_batch(int64_t B, int64_t T, int64_t S) { return {leaf64({B, T, S}, 7).detach(), Tensor()}; }

}  // namespace

TEST_CASE("gradient over time: a linear recurrence matches a^(t+1) per step, flat at a = 1") {
  const int64_t B = 3, T = 45, S = 4;
  for (double a : {0.9, 1.0}) {
    CAPTURE(a);
    LinearProbe probe(a);
    GradOverTime g = gradient_over_time(probe, linear_batch(B, T, S), 20);
    CHECK(g.batch == B);
    CHECK(g.state_size == S);
    REQUIRE(g.steps.size() == size_t(T));
    for (int64_t t = 0; t < T; ++t) {
      const double e = B * std::pow(a, double(t + 1));
      CHECK(std::abs(g.steps[t].l1 - S * e) <= 1e-10 * S * B);
      CHECK(std::abs(g.steps[t].l2 - std::sqrt(double(S)) * e) <= 1e-10 * S * B);
      CHECK(std::abs(g.steps[t].linf - e) <= 1e-10 * B);
    }
    // Windows [0, 20), [20, 40), [40, 45): the mean of B a^(t+1) over the window, the geometric
    // sum B a^(b+1) (1 - a^n) / (1 - a) / n for a != 1, and B for a = 1.
    REQUIRE(g.windows.size() == 3);
    for (int k = 0; k < 3; ++k) {
      const int64_t begin = 20 * k, end = std::min<int64_t>(begin + 20, T), n = end - begin;
      CHECK(g.windows[k].begin == begin);
      CHECK(g.windows[k].end == end);
      const double mean = a == 1.0
                              ? double(B)
                              : B * std::pow(a, double(begin + 1)) * (1 - std::pow(a, double(n))) / (1 - a) / double(n);
      CHECK(std::abs(g.windows[k].mean.linf - mean) <= 1e-10 * B);
      CHECK(std::abs(g.windows[k].mean.l1 - S * mean) <= 1e-10 * S * B);
      CHECK(std::abs(g.windows[k].mean.l2 - std::sqrt(double(S)) * mean) <= 1e-10 * S * B);
    }
  }
}

TEST_CASE("gradient over time: JSON, table and plot") {
  LinearProbe probe(0.5);
  GradOverTime g = gradient_over_time(probe, linear_batch(2, 5, 3), 2);
  Json j = to_json(g);
  CHECK(j["num_steps"] == 5);
  CHECK(j["batch_size"] == 2);
  CHECK(j["state_size"] == 3);
  CHECK(j["window"] == 2);
  CHECK(j["steps"]["linf"].size() == 5);
  CHECK(std::abs(j["steps"]["linf"][0].get<double>() - 1.0) < 1e-12);  // B a = 2 * 0.5
  REQUIRE(j["windows"].size() == 3);
  CHECK(j["windows"][2]["begin"] == 4);
  CHECK(j["windows"][2]["end"] == 5);
  CHECK(format_table(g).find("[4, 5)") != std::string::npos);
  report::LinePlot p = plot_over_time(g);
  CHECK(p.log_y);
  REQUIRE(p.series.size() == 3);
  CHECK(p.series[2].label == "Linf");
  CHECK(p.series[0].x == std::vector<double>{0.5, 2.5, 4.0});
  CHECK(report::to_svg(p).find("<svg") != std::string::npos);
}

TEST_CASE("gradient over time: an FRU probe agrees with nn::grads_wrt_initial_state") {
  Generator gen(4);
  nn::FRU m(
      1, {.num_freqs = 3, .dims_per_freq = 2, .r_size = 4, .output_units = 3, .f_max = 5, .seq_len = 8, .gen = &gen});
  m.to(DType::Float64);
  auto loss = [](const Tensor& o, int64_t t) { return sum(square(select(o, 1, t))); };
  struct FRUProbe : RecurrentProbe {
    nn::FRU* m;
    std::function<Tensor(const Tensor&, int64_t)> loss;
    Tensor initial_state(const data::Batch& b) override {
      return zeros({b.input.size(0), m->state_size()}, {.dtype = b.input.dtype()});
    }
    std::vector<Tensor> step_losses(const data::Batch& b, const Tensor& h0) override {
      Tensor o = m->forward(b.input, h0).output;  // (B, T, units)
      std::vector<Tensor> out;
      for (int64_t t = 0; t < o.size(1); ++t) out.push_back(loss(o, t));
      return out;
    }
  } probe;
  probe.m = &m;
  probe.loss = loss;
  Tensor x = leaf64({2, 8, 1}, 6).detach();
  GradOverTime g = gradient_over_time(probe, {x, Tensor()}, 3);
  CHECK(g.state_size == 6);
  REQUIRE(g.steps.size() == 8);
  CHECK(g.windows.size() == 3);
  auto ref = nn::grad_norms_per_step(nn::grads_wrt_initial_state(m, x, loss)).to_vector();  // (T, 3)
  for (int64_t t = 0; t < 8; ++t) {
    CHECK(std::abs(g.steps[t].l1 - ref[t * 3 + 0]) <= 1e-12 * (1 + ref[t * 3 + 0]));
    CHECK(std::abs(g.steps[t].l2 - ref[t * 3 + 1]) <= 1e-12 * (1 + ref[t * 3 + 1]));
    CHECK(std::abs(g.steps[t].linf - ref[t * 3 + 2]) <= 1e-12 * (1 + ref[t * 3 + 2]));
  }
}

TEST_CASE("gradient over time: bad inputs name the function") {
  LinearProbe probe(0.9);
  data::Batch b = linear_batch(2, 4, 3);
  CHECK(throws_with([&] { gradient_over_time(probe, b, 0); }, {"[gradient_over_time]", "window", "0"}));
  CHECK(throws_with([&] { gradient_over_time(probe, b, -3); }, {"[gradient_over_time]", "-3"}));
  struct VectorLoss : LinearProbe {
    VectorLoss() : LinearProbe(0.9) {}
    std::vector<Tensor> step_losses(const data::Batch& b, const Tensor& h0) override {
      std::vector<Tensor> out = LinearProbe::step_losses(b, h0);
      out[2] = mul(h0, 2.0);  // (B, S), not a scalar
      return out;
    }
  } vector_loss;
  CHECK(throws_with([&] { gradient_over_time(vector_loss, b); }, {"[gradient_over_time]", "step loss 2", "scalar"}));
  struct FlatState : LinearProbe {
    FlatState() : LinearProbe(0.9) {}
    Tensor initial_state(const data::Batch&) override { return zeros({3}, {.dtype = DType::Float64}); }
  } flat_state;
  CHECK(throws_with([&] { gradient_over_time(flat_state, b); }, {"[gradient_over_time]", "(B, S)"}));
  struct NoLosses : LinearProbe {
    NoLosses() : LinearProbe(0.9) {}
    std::vector<Tensor> step_losses(const data::Batch&, const Tensor&) override { return {}; }
  } no_losses;
  CHECK(throws_with([&] { gradient_over_time(no_losses, b); }, {"[gradient_over_time]", "no losses"}));
  CHECK(throws_with([&] { window_means({}, 0); }, {"[window_means]"}));
}

// -- `grads --over-time` ----------------------------------------------------------------------
namespace {

// A test-only task: h_{t+1} = a h_t + x_t with a learned scalar a, trained to follow targets;
// its probe is LinearProbe's recurrence with the model's a.
struct Decay : nn::Module {
  Tensor a;
  Decay() : Module("Decay") { a = register_parameter("a", full({1}, 0.8)); }
};

class RecurrenceTask : public Task {
 public:
  RecurrenceTask() {
    model_ = std::make_shared<Decay>();
    probe_ = std::make_unique<LinearProbe>(model_->a);
    Generator gen(5);
    Tensor x = mul(randn({8, 30, 2}, {}, &gen), 0.1);  // (N, T, S)
    loader_ = std::make_unique<data::DataLoader>(std::make_shared<data::TensorDataset>(x, zeros({8, 30, 2})),
                                                 data::LoaderOptions{.batch_size = 4, .prefetch = false});
    optimizer_ = std::make_unique<optim::SGD>(model_->named_parameters(), optim::SGDOptions{.lr = 0.01});
  }
  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override {
    std::vector<Tensor> l = probe_->step_losses(b, probe_->initial_state(b));
    return mean(square(stack(l, 0)));
  }
  Json evaluate() override { return Json::object(); }
  RecurrentProbe* recurrent_probe() override { return probe_.get(); }

 private:
  std::unique_ptr<LinearProbe> probe_;  // LinearProbe's recurrence with the model's a
  std::shared_ptr<Decay> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::SGD> optimizer_;
};

const TaskRegistration registration{{"test-recurrence",
                                     "(test only) a linear recurrence with a recurrent probe",
                                     {{"seed", 0}, {"trainer", {{"steps", 2}, {"log_every", 100}}}},
                                     [](const Json&, Device) { return std::make_unique<RecurrenceTask>(); }}};

int cli(std::vector<std::string> words) {
  words.insert(words.begin(), "harmonic");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return train_main(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("gradient over time: grads --over-time writes JSON and a plot, and a task without a probe is named") {
  ScratchDir dir;
  REQUIRE(cli({"train", "test-recurrence", "--out", dir.str()}) == 0);
  REQUIRE(cli({"grads", "--out", dir.str(), "--over-time", "--window", "10", "--plot", dir.file("g.svg")}) == 0);
  std::ifstream in(dir.file("grads_step2_over_time.json"));
  REQUIRE(in.good());
  Json j = Json::parse(in);
  CHECK(j["task"] == "test-recurrence");
  CHECK(j["num_steps"] == 30);
  CHECK(j["batch_size"] == 4);
  CHECK(j["windows"].size() == 3);
  CHECK(std::filesystem::exists(dir.file("g.svg")));
  // d loss_t / d h0 = a^(t+1) per element, so with a < 1 the first window beats the last.
  CHECK(j["windows"][0]["l2"].get<double>() > j["windows"][2]["l2"].get<double>());

  ScratchDir other;
  REQUIRE(cli({"train", "mlp-spirals", "--out", other.str(), "--set", "trainer.steps=1", "--set", "points_per_class=10",
               "--set", "hidden=4"}) == 0);
  GradsArgs a;
  a.out = other.str();
  a.over_time = true;
  CHECK(throws_with([&] { run_grads(a); }, {"[grads]", "task 'mlp-spirals'", "no recurrent probe"}));
  CHECK(cli({"grads", "--out", other.str(), "--over-time"}) == 1);  // the same error, printed
}
