// Tests of the "fru-synthetic" task (tools/tasks/fru_synthetic.h): parameter counts against
// the FRU paper's structure, a few training steps of every model through the Trainer,
// determinism, config errors, the trainer's staircase lr schedule, and the task's recurrent
// probe (d loss_t / d h0, `grads --over-time`): its losses against the training loss, an RNN
// against a closed form, the LSTM's [h ; c] against nn::lstm_cell, the CLI.
#include <cmath>
#include <fstream>

#include "harmonic/nn/recurrent.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/tasks/fru_synthetic.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/grad_over_time.h"
#include "harmonic/tools/train/train_cli.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;

namespace {

// The task's defaults shrunk to run in well under a second per model.
Json tiny_config(const std::string& model) {
  Json c = default_config(find_task("fru-synthetic"));
  c.merge_patch({{"model", model},
                 {"size", 40},  // 32 train, 8 test
                 {"length", 24},
                 {"units", 24},
                 {"fru_freqs", 6},
                 {"fru_dims", 4},
                 {"r_size", 8},
                 {"sru_phi", 12},
                 {"lr", 0.01},
                 {"batch_size", 8},
                 {"trainer", {{"steps", 30}, {"eval_every", 0}}}});
  return c;
}

struct Run {
  std::vector<double> losses, params;
  double test_mse = 0;
};

Run train_tiny(const Json& c) {
  const TaskSpec& spec = find_task("fru-synthetic");
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, "");
  t.log = nullptr;
  Run run;
  t.on_step = [&](const StepRecord& r) { run.losses.push_back(r.loss); };
  FitResult result = t.fit();
  run.test_mse = result.eval.at("test_mse").get<double>();
  run.params = flat_params(task->model());
  return run;
}

double mean_of(const std::vector<double>& v, size_t begin, size_t end) {
  double s = 0;
  for (size_t i = begin; i < end; ++i) s += v[i];
  return s / static_cast<double>(end - begin);
}

// Parameter counts for input size 1 and an output layer Linear(units, out), from the cell
// equations in nn/fru.h and Zhang et al. section 6 (one bias per gate for RNN/LSTM, as
// TensorFlow's BasicRNNCell/BasicLSTMCell which the paper used):
//   FRU_{K,d}: W_r (R, K d) + b_r (R) + W_phi (d, 1 + R) + b_phi (d) + W_o (U, K d) + b_o (U)
//              + theta (K)
//   SRU (A alphas, phi P): the same with K d -> A P, and no theta
//   LSTM-H: 4 H (1 + H + 1);  RNN-H: H (1 + H + 1)
int64_t head(int64_t units, int64_t out) { return units * out + out; }
int64_t fru_count(int64_t K, int64_t d, int64_t R, int64_t U, int64_t out) {
  return R * K * d + R + d * (1 + R) + d + U * K * d + U + K + head(U, out);
}
int64_t sru_count(int64_t A, int64_t P, int64_t R, int64_t U, int64_t out) {
  return R * A * P + R + P * (1 + R) + P + U * A * P + U + head(U, out);
}
int64_t lstm_count(int64_t H, int64_t out) { return 4 * H * (1 + H + 1) + head(H, out); }
int64_t rnn_count(int64_t H, int64_t out) { return H * (1 + H + 1) + head(H, out); }

}  // namespace

TEST_CASE("fru task: parameter counts of the paper's synthetic models") {
  // The paper states counts only for its pixel-MNIST classifiers (Zhang et al., section 6.2,
  // Table 1); the same formulas with 10 outputs reproduce them, which pins the structure.
  CHECK(fru_count(60, 10, 60, 200, 10) == 158950);
  CHECK(fru_count(40, 10, 60, 200, 10) == 106930);
  CHECK(lstm_count(200, 10) == 163610);
  CHECK(sru_count(5, 200, 60, 200, 10) == 274670);

  // The synthetic models (section 6.1: FRU_{120,5}; 200 units; SRU phi 200, r 60, 5 alphas)
  // with one output. By hand: FRU 36000 + 60 + 305 + 5 + 120000 + 200 + 120 + 201.
  Json c = default_config(find_task("fru-synthetic"));
  CHECK(fru_count(120, 5, 60, 200, 1) == 156891);
  CHECK(sru_count(5, 200, 60, 200, 1) == 272861);
  CHECK(lstm_count(200, 1) == 161801);
  CHECK(rnn_count(200, 1) == 40601);
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"fru", 156891}, {"sru", 272861}, {"lstm", 161801}, {"rnn", 40601}};
  for (const auto& entry : expected) {
    const auto& model = std::get<0>(entry);
    const auto& count = std::get<1>(entry);
    c["model"] = model;
    CHECK_MESSAGE(fru_synthetic_parameter_count(c) == count, model);
  }
  // "using about half the number of parameters of SRU" (section 6.1): 156891 / 272861 = 0.575.
  CHECK(156891.0 / 272861.0 == doctest::Approx(0.575).epsilon(0.001));
}

TEST_CASE("fru task: every model trains a few steps with a decreasing loss") {
  for (const std::string model : {"rnn", "lstm", "sru", "fru"}) {
    CAPTURE(model);
    Run run = train_tiny(tiny_config(model));
    REQUIRE(run.losses.size() == 30);
    CHECK(mean_of(run.losses, 25, 30) < mean_of(run.losses, 0, 5));
    CHECK(std::isfinite(run.test_mse));
    CHECK(run.test_mse > 0);
  }
}

TEST_CASE("fru task: target sequence, the released code's whole-sequence regression from the last step") {
  for (const std::string model : {"lstm", "fru"}) {
    CAPTURE(model);
    Json c = tiny_config(model);
    c["target"] = "sequence";
    const TaskSpec& spec = find_task("fru-synthetic");
    auto task = build_task(spec, c, Device::cpu());
    const data::Batch b = task->train_loader().dataset().head(4);
    CHECK(b.input.shape() == Shape{4, 24, 1});   // all 24 steps read
    CHECK(b.target.shape() == Shape{4, 23, 1});  // steps 1..23 regressed at once
    CHECK(allclose(b.target, narrow(b.input, 1, 1, 23), 0, 0));
    CHECK(dynamic_cast<nn::UnaryModule&>(task->model()).forward(b.input).shape() == Shape{4, 23, 1});
    // The head is Linear(units, 23); the count matches the next-step model's but for it.
    Json next = tiny_config(model);
    CHECK(task->model().num_parameters() - build_task(spec, next, Device::cpu())->model().num_parameters() ==
          head(24, 23) - head(24, 1));
    // It trains, and the Figure 5 probe gives one loss per step (the head applied at each).
    Run run = train_tiny(c);
    CHECK(mean_of(run.losses, 25, 30) < mean_of(run.losses, 0, 5));
    RecurrentProbe* probe = task->recurrent_probe();
    REQUIRE(probe);
    CHECK(probe->step_losses(b, probe->initial_state(b)).size() == 24);
  }
  Json bad = tiny_config("fru");
  bad["target"] = "future";
  CHECK(throws_with([&] { build_task(find_task("fru-synthetic"), bad, Device::cpu()); },
                    {"fru-synthetic", "target must be \"next\" or \"sequence\", got \"future\""}));
}

TEST_CASE("fru task: deterministic given the seed, on mix-poly too") {
  Json c = tiny_config("fru");
  c["data"] = "mix-poly";
  c["degree"] = 5;
  c["trainer"]["steps"] = 6;
  Run a = train_tiny(c), b = train_tiny(c);
  CHECK(a.losses == b.losses);
  CHECK(a.params == b.params);
  CHECK(a.test_mse == b.test_mse);
  c["seed"] = 1;
  Run other = train_tiny(c);
  CHECK(other.losses != a.losses);
}

TEST_CASE("fru task: bad config values raise naming the key") {
  const TaskSpec& spec = find_task("fru-synthetic");
  Json c = tiny_config("gru2");
  CHECK(throws_with([&] { build_task(spec, c, Device::cpu()); }, {"fru-synthetic", "model 'gru2'"}));
  c = tiny_config("fru");
  c["data"] = "mix-poly";
  c["degree"] = 7;
  CHECK(throws_with([&] { build_task(spec, c, Device::cpu()); }, {"fru-synthetic", "degree", "7"}));
  c = tiny_config("fru");
  c["data"] = "mix-cos";
  CHECK(throws_with([&] { build_task(spec, c, Device::cpu()); }, {"fru-synthetic", "data 'mix-cos'"}));
}

TEST_CASE("fru task: the trainer's staircase schedule, lr0 * decay^(step // every)") {
  Json c = tiny_config("rnn");
  c["trainer"]["steps"] = 5;
  c["trainer"]["lr_decay"] = 0.5;
  c["trainer"]["lr_decay_every"] = 2;
  const TaskSpec& spec = find_task("fru-synthetic");
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, "");
  t.log = nullptr;
  std::vector<double> lrs;
  t.on_step = [&](const StepRecord& r) { lrs.push_back(r.lr); };
  t.fit();
  // 0-based steps 0..4: 0.01 * 0.5^{0, 0, 1, 1, 2}
  const std::vector<double> expected = {0.01, 0.01, 0.005, 0.005, 0.0025};
  REQUIRE(lrs.size() == expected.size());
  for (size_t i = 0; i < lrs.size(); ++i) CHECK(lrs[i] == doctest::Approx(expected[i]).epsilon(1e-12));
  c["trainer"]["lr_decay_every"] = 0;
  CHECK(throws_with([&] { Trainer(*task, spec.name, c, ""); }, {"trainer.lr_decay_every"}));
}

TEST_CASE("fru task: the recurrent probe measures the training loss per step, for every model") {
  // State sizes of tiny_config: RNN H = 24, LSTM [h ; c] = 2 * 24, SRU 5 alphas * phi 12,
  // FRU 6 freqs * 4 dims.
  const std::vector<std::pair<std::string, int64_t>> models = {{"rnn", 24}, {"lstm", 48}, {"sru", 60}, {"fru", 24}};
  for (const auto& entry : models) {
    const auto& model = std::get<0>(entry);
    const auto& state = std::get<1>(entry);
    CAPTURE(model);
    const Json c = tiny_config(model);
    auto task = build_task(find_task("fru-synthetic"), c, Device::cpu());
    RecurrentProbe* probe = task->recurrent_probe();
    REQUIRE(probe != nullptr);
    const data::Batch b = task->train_loader().dataset().get_batch({0, 1, 2, 3, 4, 5});
    Tensor h0 = probe->initial_state(b);
    REQUIRE(h0.shape() == Shape{6, state});
    CHECK(sum(abs(h0)).item<double>() == 0.0);
    // At h0 = 0 the probe's losses are the task's: per step, MSE of that step's prediction,
    // and their mean is the training loss (mse_loss over B * T equal-sized steps).
    std::vector<Tensor> losses = probe->step_losses(b, h0);
    REQUIRE(losses.size() == 23);                                                  // length 24 -> 23 next-step pairs
    Tensor yhat = dynamic_cast<nn::UnaryModule&>(task->model()).forward(b.input);  // (B, T, 1)
    double total = 0;
    for (int64_t t = 0; t < 23; ++t) {
      const double expected = mse_loss(slice(yhat, 1, t, t + 1), slice(b.target, 1, t, t + 1)).item<double>();
      CHECK(losses[t].item<double>() == doctest::Approx(expected).epsilon(1e-5));
      total += losses[t].item<double>();
    }
    CHECK(total / 23 == doctest::Approx(task->loss(b).item<double>()).epsilon(1e-5));

    GradOverTime g = gradient_over_time(*task, b, 10);
    CHECK(g.state_size == state);
    CHECK(g.batch == 6);
    REQUIRE(g.steps.size() == 23);
    CHECK(g.windows.size() == 3);
    for (const GradNorms& n : g.steps) CHECK((std::isfinite(n.l1) && std::isfinite(n.l2) && std::isfinite(n.linf)));
    CHECK(g.steps[0].l2 > 0);  // the first prediction depends on h0
    for (const Tensor& p : task->model().parameters()) CHECK(!p.grad().defined());
  }
}

TEST_CASE("fru task: grads --over-time on a trained tiny run writes the JSON") {
  ScratchDir dir;
  auto cli = [](std::vector<std::string> words) {
    words.insert(words.begin(), "harmonic");
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    return train_main(static_cast<int>(argv.size()), argv.data());
  };
  REQUIRE(cli({"train", "fru-synthetic", "--out", dir.str(), "--set", "model=lstm", "--set", "size=40", "--set",
               "length=24", "--set", "units=8", "--set", "batch_size=4", "--set", "trainer.steps=2", "--set",
               "trainer.eval_every=0"}) == 0);
  REQUIRE(cli({"grads", "fru-synthetic", "--out", dir.str(), "--over-time", "--window", "5"}) == 0);
  std::ifstream in(dir.file("grads_step2_over_time.json"));
  REQUIRE(in.good());
  Json j = Json::parse(in);
  CHECK(j["task"] == "fru-synthetic");
  CHECK(j["num_steps"] == 23);
  CHECK(j["batch_size"] == 4);
  CHECK(j["state_size"] == 16);  // LSTM-8: h and c
  CHECK(j["windows"].size() == 5);
  for (const Json& v : j["steps"]["l2"]) CHECK(std::isfinite(v.get<double>()));
}

TEST_CASE("fru task: the RNN probe against the closed form of a linear-at-zero recurrence") {
  // weight_ih = 0, weight_hh = a I, head bias 0: from h0 = 0 every h_t = tanh(a h_{t-1}) = 0
  // and tanh'(0) = 1, so d h_t / d h0 = a^(t+1) I. loss_t = mean_b (w . h_t - y_bt)^2 gives
  // d loss_t / d h0_b = (2 / B)(0 - y_bt) a^(t+1) w; summed over b the L2 norm is
  // 2 |mean_b y_bt| a^(t+1) |w|_2.
  const double a = 0.9;
  Json c = tiny_config("rnn");
  auto task = build_task(find_task("fru-synthetic"), c, Device::cpu());
  Tensor w;
  {
    NoGradGuard no_grad;  // in-place writes to parameters
    for (auto& [name, p] : task->model().named_parameters()) {
      if (name == "rnn.weight_ih_l0" || name == "head.bias") p.zero_();
      if (name == "rnn.weight_hh_l0") p.copy_(mul(eye(24), a));
      if (name == "head.weight") w = p;
    }
  }
  REQUIRE(w.defined());
  const double w_norm = std::sqrt(sum(square(w)).item<double>());
  const data::Batch b = task->train_loader().dataset().get_batch({0, 1, 2, 3});
  GradOverTime g = gradient_over_time(*task, b, 5);
  REQUIRE(g.steps.size() == 23);
  for (int64_t t = 0; t < 23; ++t) {
    const double mean_y = mean(select(b.target, 1, t)).item<double>();
    const double expected = 2 * std::abs(mean_y) * std::pow(a, t + 1) * w_norm;
    CHECK(g.steps[t].l2 == doctest::Approx(expected).epsilon(1e-4));
  }
}

TEST_CASE("fru task: the LSTM probe's h0 packs h then c") {
  // Reference: nn::lstm_cell step by step on [x_t ; 1] (SingleBiasLSTM's bias column) from
  // h = h0[:, :H], c = h0[:, H:], then the Linear head; loss_t = mean_b (yhat_t - y_t)^2.
  Json c = tiny_config("lstm");
  auto task = build_task(find_task("fru-synthetic"), c, Device::cpu());
  Tensor w_ih, w_hh, head_w, head_b;
  for (auto& [name, p] : task->model().named_parameters()) {
    if (name == "lstm.lstm.weight_ih_l0") w_ih = p;
    if (name == "lstm.lstm.weight_hh_l0") w_hh = p;
    if (name == "head.weight") head_w = p;
    if (name == "head.bias") head_b = p;
  }
  REQUIRE((w_ih.defined() && w_hh.defined() && head_w.defined() && head_b.defined()));
  const data::Batch b = task->train_loader().dataset().get_batch({0, 1, 2});
  Generator gen(3);
  Tensor h0 = randn({3, 48}, {}, &gen);  // (B, 2H)
  std::vector<Tensor> losses = task->recurrent_probe()->step_losses(b, h0);
  REQUIRE(losses.size() == 23);
  nn::LSTMState s{slice(h0, 1, 0, 24), slice(h0, 1, 24, 48)};
  for (int64_t t = 0; t < 23; ++t) {
    Tensor xt = select(b.input, 1, t);  // (B, 1)
    s = nn::lstm_cell(cat({xt, ones({3, 1})}, 1), s, w_ih, w_hh);
    Tensor yhat = linear(s.h, head_w, head_b);  // (B, 1)
    const double expected = mean(square(sub(yhat, select(b.target, 1, t)))).item<double>();
    CHECK(losses[t].item<double>() == doctest::Approx(expected).epsilon(1e-5));
  }
}
