// The audio tempo toy's model and task: macro F1 on hand-made predictions (values worked out
// by hand from F1 = 2 TP / (2 TP + FP + FN)), the task's metrics on hand-made scores, the
// spectrogram transformer's shapes and heads, and a tiny audio-bpm run whose loss falls.
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/models/spectrogram_transformer.h"
#include "harmonic/nn/classification_metrics.h"
#include "harmonic/ops/ops.h"
#include "tests/helpers.h"
#include "harmonic/tools/tasks/audio_bpm.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"

using namespace hm;
using namespace hm::test;
using train::Json;

namespace {

Tensor ints(const std::vector<int64_t>& v) { return from_vector(v, {static_cast<int64_t>(v.size())}); }

}  // namespace

TEST_CASE("macro F1: hand-made predictions") {
  // target 0 0 1 1 2, predicted 0 1 1 1 0:
  //   class 0: TP 1, FP 1 (item 4), FN 1 (item 1) -> 2 / 4 = 0.5
  //   class 1: TP 2, FP 1 (item 1), FN 0          -> 4 / 5 = 0.8
  //   class 2: TP 0, FP 0, FN 1 (item 4)          -> 0
  //   class 3: absent from both                   -> NaN, not averaged
  const Tensor target = ints({0, 0, 1, 1, 2}), predicted = ints({0, 1, 1, 1, 0});
  const std::vector<double> f1 = nn::per_class_f1(predicted, target, 4);
  REQUIRE(f1.size() == 4);
  CHECK(f1[0] == doctest::Approx(0.5));
  CHECK(f1[1] == doctest::Approx(0.8));
  CHECK(f1[2] == 0.0);
  CHECK(std::isnan(f1[3]));
  CHECK(nn::macro_f1(predicted, target, 4) == doctest::Approx((0.5 + 0.8 + 0.0) / 3));
  // All correct: 1; a class only predicted (never true) counts with F1 0.
  CHECK(nn::macro_f1(target, target, 4) == doctest::Approx(1.0));
  CHECK(nn::macro_f1(ints({0, 0, 1, 1, 3}), target, 4) == doctest::Approx((1.0 + 1.0 + 0.0 + 0.0) / 4));
  // Macro F1 weighs rare classes like common ones, unlike accuracy: always predicting the
  // majority class of 9 x class 0 + 1 x class 1 is 90% accurate, macro F1 (18/19 + 0) / 2.
  std::vector<int64_t> skewed(10, 0);
  skewed[9] = 1;
  CHECK(nn::macro_f1(ints(std::vector<int64_t>(10, 0)), ints(skewed), 2) == doctest::Approx(18.0 / 19 / 2));
  CHECK(throws_with([&] { nn::macro_f1(ints({0, 5}), ints({0, 1}), 4); }, {"per_class_f1", "5"}));
  CHECK(throws_with([&] { nn::macro_f1(ints({0}), ints({0, 1}), 4); }, {"per_class_f1", "(1,)", "(2,)"}));
}

TEST_CASE("audio-bpm metrics: accuracy, within one bin, bin error, smoothness on hand-made scores") {
  // Three items over 4 classes; scores put almost all mass on one class each.
  std::vector<double> s(12, -20.0);
  s[0 * 4 + 1] = 0, s[1 * 4 + 3] = 0, s[2 * 4 + 2] = 0;  // predicted 1, 3, 2
  const Tensor scores = from_vector(s, {3, 4});
  const Json m = train::audio_bpm_metrics(scores, ints({1, 1, 3}));  // errors 0, 2, 1
  CHECK(m.at("accuracy").get<double>() == doctest::Approx(1.0 / 3));
  CHECK(m.at("within_one_accuracy").get<double>() == doctest::Approx(2.0 / 3));
  CHECK(m.at("mean_abs_bin_error").get<double>() == doctest::Approx(1.0));
  CHECK(m.at("predicted_classes") == 3);
  // class 1: TP 1, FN 1 -> 2/3; class 2: FP 1 -> 0; class 3: FP 1, FN 1 -> 0.
  CHECK(m.at("macro_f1").get<double>() == doctest::Approx(2.0 / 3 / 3));
  CHECK(m.at("smoothness").get<double>() > 0);
  // A uniform pmf is perfectly smooth, and its loss is log(classes).
  const Json u = train::audio_bpm_metrics(zeros({2, 4}), ints({0, 3}));
  CHECK(u.at("smoothness").get<double>() == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(u.at("loss").get<double>() == doctest::Approx(std::log(4.0)));
}

TEST_CASE("spectrogram transformer: shapes, both heads, bad input") {
  Generator gen(3);
  models::SpectrogramTransformerConfig c;
  c.frames = 21, c.bands = 4, c.patch_frames = 2, c.num_classes = 32, c.dim = 16, c.depth = 1, c.heads = 2;
  models::SpectrogramTransformer linear(c, &gen);
  CHECK(c.tokens() == 10);  // frame 21 dropped
  CHECK(linear.positions.shape() == Shape{1, 10, 16});
  Tensor x = randn({3, 21, 4}, {}, &gen);
  Tensor scores = linear.forward(x);
  CHECK(scores.shape() == Shape{3, 32});
  c.head = "fourier", c.fourier_frequencies = 2;
  models::SpectrogramTransformer fourier(c, &gen);
  CHECK(fourier.fourier_head);
  CHECK(fourier.fourier_head->frequencies == 2);
  Tensor pmf = models::SpectrogramTransformer::probabilities(fourier.forward(x));  // (3, 32)
  const std::vector<double> row_sums = sum(pmf.to(DType::Float64), {1}).to_vector();
  for (double r : row_sums) CHECK(r == doctest::Approx(1.0));
  CHECK(linear.loss(scores, ints({0, 5, 31})).item<double>() > 0);
  CHECK(throws_with([&] { linear.forward(randn({3, 20, 4}, {}, &gen)); }, {"SpectrogramTransformer", "(B, 21, 4)"}));
  c.head = "softmax";
  CHECK(throws_with([&] { models::SpectrogramTransformer bad(c, &gen); }, {"SpectrogramTransformer", "softmax"}));
  c.head = "linear", c.patch_frames = 22;
  CHECK(throws_with([&] { models::SpectrogramTransformer bad(c, &gen); }, {"SpectrogramTransformer", "22"}));
}

TEST_CASE("Fourier head with N frequencies puts at most about (N + 1) / m on one of m bins") {
  // p(z) = |sum_l a_l e^{i pi l z}|^2 / (2 sum_l |a_l|^2) <= (N + 1) / 2 by Cauchy-Schwarz, and
  // p averages 1/2 over [-1, 1], so a bin's share is at most ~(N + 1) / m: with 32 tempo bins a
  // 1-frequency head cannot say more than ~6% for any bin, 2 frequencies ~9% (README, audio
  // tempo study). Checked on inputs pushed hard towards a peak.
  Generator gen(5);
  for (int64_t n : {1, 2, 4}) {
    nn::FourierHead head(8, 32, n, 0.0, 1.0, 1.0, &gen);
    Tensor pmf = softmax(head.forward(mul(randn({256, 8}, {}, &gen), 50.0)), -1);
    const double top = amax(pmf).item<double>();
    CAPTURE(n);
    CHECK(top <= static_cast<double>(n + 1) / 32 * 1.02);
    CHECK(top > static_cast<double>(n + 1) / 32 * 0.7);  // and the bound is nearly reached
  }
}

TEST_CASE("audio-bpm: a tiny run trains through the Trainer (loss falls) with either head") {
  for (const char* head : {"linear", "fourier"}) {
    CAPTURE(head);
    ScratchDir dir;
    const train::TaskSpec& spec = train::find_task(train::kAudioBpmTask);
    Json c = train::default_config(spec);
    c["train_clips"] = 256, c["test_clips"] = 64, c["seconds"] = 2.0, c["dim"] = 32, c["depth"] = 1;
    c["head"] = head, c["batch_size"] = 32, c["lr"] = 3e-3;
    c["trainer"]["steps"] = 100, c["trainer"]["warmup_steps"] = 5;
    std::unique_ptr<train::Task> task = train::build_task(spec, c, Device::cpu());
    auto& bpm = dynamic_cast<train::AudioBpmTask&>(*task);
    CHECK(bpm.data().train.features.shape() == Shape{256, 63, 16});  // 2 s: 1 + 8000 / 128 frames
    // The training loss over the whole training set, before and after.
    auto train_loss = [&] {
      NoGradGuard no_grad;
      const auto& d = bpm.data().train;
      return bpm.transformer().loss(bpm.transformer().forward(d.features), d.labels).item<double>();
    };
    const double before = train_loss();
    train::Trainer trainer(*task, spec.name, c, dir.str());
    trainer.log = nullptr;
    const train::FitResult fit = trainer.fit();
    CHECK(fit.step == 100);
    const double after = train_loss();
    INFO("train loss before ", before, " after ", after);
    CHECK(after < before - 0.2);
    CHECK(after < std::log(32.0));  // below a uniform guess
    const Json& m = fit.eval;
    for (const char* k : {"loss", "accuracy", "macro_f1", "within_one_accuracy", "smoothness", "example_pmfs",
                          "example_labels", "example_bpm"})
      CHECK_MESSAGE(m.contains(k), k);
    CHECK(m.at("example_pmfs").size() == 4);
    CHECK(m.at("example_pmfs")[0].size() == 32);
  }
  // Bad keys are named (the model's before any clip is made).
  const train::TaskSpec& spec = train::find_task(train::kAudioBpmTask);
  Json c = train::default_config(spec);
  c["head"] = "softmax";
  CHECK(throws_with([&] { train::build_task(spec, c, Device::cpu()); }, {"SpectrogramTransformer", "softmax"}));
  c["head"] = "linear", c["train_clips"] = 0;
  CHECK(throws_with([&] { train::build_task(spec, c, Device::cpu()); }, {"audio-bpm", "train_clips"}));
}
