// Tests of the vision transformer (models/vit.h) and the "fashion-vit" task
// (tools/tasks/fashion_vit.h): shapes, the parameter count formula (and DeiT-tiny's published
// count), DeiT's init, that the class token sees every patch, that gradients reach every
// parameter, the per-layer attention heads, tiny training runs with both attention kernels
// (skipped with a message when Fashion-MNIST is not installed), exact resume with dropout, and
// the top-k metric of tools/train/classifier_metrics.h.
#include <cmath>
#include <filesystem>
#include <numeric>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/datasets.h"
#include "harmonic/models/vit.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/tasks/fashion_vit.h"
#include "harmonic/tools/train/classifier_metrics.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/data_helpers.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::have_fashion;
using namespace hm::train;
using hm::models::ViT;
using hm::models::ViTConfig;
using namespace hm::test;

namespace {

ViTConfig small(nn::AttentionKernel kernel, int64_t patch = 7) {
  ViTConfig c;
  c.patch = patch, c.dim = 16, c.depth = 2, c.heads = 2, c.mlp_ratio = 2.0, c.attention = kernel;
  return c;
}

// fashion-vit shrunk: 256 training images, a 1-layer dim-16 model, 20 steps.
Json tiny(const std::string& attention) {
  Json c = default_config(find_task("fashion-vit"));
  c.merge_patch({{"attention", attention},
                 {"dim", 16},
                 {"depth", 1},
                 {"heads", 2},
                 {"train_subset", 256},
                 {"test_subset", 100},
                 {"val_fraction", 0.25},
                 {"batch_size", 32},
                 {"lr", 3e-3},
                 {"trainer", {{"steps", 20}, {"warmup_steps", 0}}}});
  return c;
}

struct Run {
  std::vector<double> losses, params;
  Json eval;
};

Run run_task(const Json& c, const std::string& dir = "", bool resume = false) {
  const TaskSpec& spec = find_task("fashion-vit");
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, dir);
  t.log = nullptr;
  Run run;
  t.on_step = [&](const StepRecord& r) { run.losses.push_back(r.loss); };
  if (resume) t.resume(std::filesystem::path(dir) / "checkpoint_last.safetensors");
  run.eval = t.fit().eval;
  run.params = flat_params(task->model());
  return run;
}

double mean_of(const std::vector<double>& v, size_t begin, size_t end) {
  return std::accumulate(v.begin() + static_cast<long>(begin), v.begin() + static_cast<long>(end), 0.0) /
         static_cast<double>(end - begin);
}

}  // namespace

TEST_CASE("vit: logits, features and per-layer heads have the documented shapes") {
  for (int64_t patch : {4, 7}) {
    CAPTURE(patch);
    Generator gen(0);
    ViT model(small(nn::AttentionKernel::DotProduct, patch), &gen);
    const int64_t tokens = 1 + (28 / patch) * (28 / patch);  // 50 or 17
    Tensor x = randn({3, 1, 28, 28}, {}, &gen);
    NoGradGuard no_grad;
    CHECK(model.forward(x).shape() == Shape{3, 10});
    CHECK(model.features(x).shape() == Shape{3, 16});
    std::vector<Tensor> heads = model.attention_heads(x);
    REQUIRE(heads.size() == 2);
    for (const Tensor& h : heads) CHECK(h.shape() == Shape{3, 2, tokens, 8});
    CHECK(throws_with([&] { model.forward(randn({3, 1, 32, 32})); }, {"ViT", "(3, 1, 32, 32)"}));
  }
  CHECK(throws_with([] { ViT(small(nn::AttentionKernel::DotProduct, 5)); }, {"ViT", "patch 5"}));
  ViTConfig bad = small(nn::AttentionKernel::DotProduct);
  bad.heads = 3;
  CHECK(throws_with([&] { ViT{bad}; }, {"ViT", "dim 16", "heads 3"}));
}

TEST_CASE("vit: parameter count by formula, and DeiT-tiny's published 5,717,416") {
  // timm's deit_tiny_patch16_224 has 5,717,416 parameters (DeiT paper Table 1: 5M).
  CHECK(models::vit_parameter_count(ViTConfig::deit_tiny()) == 5717416);
  for (auto kernel : {nn::AttentionKernel::DotProduct, nn::AttentionKernel::Fourier})
    for (bool per_dim : {false, true})
      for (int64_t patch : {4, 7}) {
        ViTConfig c = small(kernel, patch);
        c.fourier.r_per_dim = per_dim;
        Generator gen(1);
        CHECK(ViT(c, &gen).num_parameters() == models::vit_parameter_count(c));
      }
  // fashion-vit's defaults: E 64, F 128, 16 patches of 49 pixels, 4 layers (the task's comment).
  ViTConfig d = fashion_vit_config(default_config(find_task("fashion-vit")));
  CHECK(models::vit_parameter_count(d) == 139018);
  d.attention = nn::AttentionKernel::Fourier;
  CHECK(models::vit_parameter_count(d) == 139018 + 4);  // one R per layer
}

TEST_CASE("vit: DeiT init, zero biases and LayerNorm (1, 0), R kept at fourier.r_init") {
  ViTConfig c = small(nn::AttentionKernel::Fourier);
  c.dim = 64, c.heads = 4, c.fourier.r_init = 1.5;
  Generator gen(2);
  ViT model(c, &gen);
  for (const auto& entry : model.named_parameters()) {
    const auto& name = std::get<0>(entry);
    const auto& t = std::get<1>(entry);
    CAPTURE(name);
    std::vector<double> v = t.to(DType::Float64).to_vector();
    if (name.find(".score.") != std::string::npos) {
      CHECK(v == std::vector<double>{1.5});
    } else if (name.find("norm") != std::string::npos) {
      CHECK(v == std::vector<double>(v.size(), name.ends_with(".weight") ? 1.0 : 0.0));
    } else if (name.ends_with(".bias") && !name.starts_with("patch_embed.")) {
      CHECK(v == std::vector<double>(v.size(), 0.0));
    } else if (!name.starts_with("patch_embed.")) {  // the patch conv keeps PyTorch's default
      double ss = 0;
      for (double x : v) ss += x * x;
      CHECK(std::sqrt(ss / static_cast<double>(v.size())) == doctest::Approx(0.02).epsilon(0.15));
    }
  }
  CHECK(model.fourier_r() == std::vector<double>{1.5, 1.5});
  CHECK(ViT(small(nn::AttentionKernel::DotProduct), &gen).fourier_r().empty());
}

TEST_CASE("vit: the class token depends on every patch, and gradients reach every parameter") {
  for (auto kernel : {nn::AttentionKernel::DotProduct, nn::AttentionKernel::Fourier}) {
    CAPTURE(static_cast<int>(kernel));
    Generator gen(3);
    ViT model(small(kernel), &gen);
    Tensor x = randn({2, 1, 28, 28}, {.requires_grad = true}, &gen);  // (B, 1, 28, 28)
    Tensor loss = cross_entropy(model.forward(x), from_vector(std::vector<int64_t>{1, 7}, {2}));
    loss.backward();
    // Each 7x7 patch of each image moves the logits.
    Tensor g = abs(x.grad()).to(DType::Float64);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t r = 0; r < 4; ++r)
        for (int64_t q = 0; q < 4; ++q) {
          CAPTURE(b);
          CAPTURE(r);
          CAPTURE(q);
          Tensor patch = slice(slice(select(select(g, 0, b), 0, 0), 0, 7 * r, 7 * r + 7), 1, 7 * q, 7 * q + 7);
          CHECK(sum(patch).item<double>() > 0);
        }
    for (const auto& entry : model.named_parameters()) {
      const auto& name = std::get<0>(entry);
      const auto& t = std::get<1>(entry);
      CAPTURE(name);
      REQUIRE(t.grad().defined());
      CHECK(sum(abs(t.grad().to(DType::Float64))).item<double>() > 0);
    }
  }
}

TEST_CASE("top_k_hits and classifier_metrics' top-k accuracy") {
  // Rows: label 2 is the largest; label 0 is the 2nd largest; label 1 is the smallest of four.
  Tensor logits = from_vector(std::vector<double>{0, 1, 5, 2, 3, 9, 1, 2, 4, 0, 5, 6}, {3, 4});
  Tensor labels = from_vector(std::vector<int64_t>{2, 0, 1}, {3});
  CHECK(top_k_hits(logits, labels, 1) == 1);
  CHECK(top_k_hits(logits, labels, 2) == 2);
  CHECK(top_k_hits(logits, labels, 3) == 2);
  CHECK(top_k_hits(logits, labels, 4) == 3);
  // A tie with the k-th value counts: the label's logit 1 ties the 2nd largest.
  CHECK(top_k_hits(from_vector(std::vector<double>{3, 1, 1}, {1, 3}), from_vector(std::vector<int64_t>{2}, {1}), 2) ==
        1);
  CHECK(throws_with([&] { top_k_hits(logits, labels, 5); }, {"top_k_hits", "[1, 4]", "5"}));
  CHECK(throws_with([&] { top_k_hits(logits, slice(labels, 0, 0, 2), 1); }, {"top_k_hits", "(2,)"}));

  struct Identity : nn::UnaryModule {
    Identity() : nn::UnaryModule("Identity") {}
    Tensor forward(const Tensor& x) override { return x; }
  } model;
  for (int64_t chunk : {1, 2, 3}) {
    ClassifierMetrics m = classifier_metrics(model, logits, labels, chunk, 3);
    CHECK(m.top_k_accuracy == doctest::Approx(2.0 / 3.0));
    CHECK(m.accuracy == doctest::Approx(1.0 / 3.0));
    Json j = m.to_json("test_");
    CHECK(j.at("test_top3").get<double>() == doctest::Approx(2.0 / 3.0));
  }
  CHECK_FALSE(classifier_metrics(model, logits, labels, 3).to_json("").contains("top5"));  // not measured
  CHECK(throws_with([&] { classifier_metrics(model, logits, labels, 3, -1); }, {"classifier_metrics", "top_k"}));
}

TEST_CASE("fashion-vit: bad config values raise naming the task") {
  Json c = tiny("linear");
  CHECK(throws_with([&] { build_task(find_task("fashion-vit"), c, Device::cpu()); },
                    {"fashion-vit", "attention 'linear'"}));
  c = tiny("softmax");
  c["patch"] = 5;
  CHECK(throws_with([&] { build_task(find_task("fashion-vit"), c, Device::cpu()); }, {"ViT", "patch 5"}));
}

TEST_CASE("fashion-vit: fourier_r_lr moves R out of the decay and no-decay groups into one of its own") {
  if (!have_fashion()) return;
  Json c = tiny("fourier");
  c["fourier_r_lr"] = 0.02;
  auto task = build_task(find_task("fashion-vit"), c, Device::cpu());
  optim::Optimizer& opt = task->optimizer();
  REQUIRE(opt.num_groups() == 3);  // decay, no decay, R
  CHECK(opt.group(2).initial_lr == 0.02);
  CHECK(opt.group(2).weight_decay == 0.0);
  REQUIRE(opt.group(2).names.size() == 1);  // depth 1: one scalar R
  CHECK(opt.group(2).names[0].ends_with(".R"));
  for (int64_t g = 0; g < 2; ++g)
    for (const std::string& n : opt.group(g).names) CHECK(!n.ends_with(".R"));
  CHECK(build_task(find_task("fashion-vit"), tiny("fourier"), Device::cpu())->optimizer().num_groups() == 2);
}

TEST_CASE("fashion-vit: both kernels train a few steps with a falling loss and report every metric") {
  if (!have_fashion()) return;
  for (const std::string attention : {"softmax", "fourier"}) {
    CAPTURE(attention);
    Run run = run_task(tiny(attention));
    REQUIRE(run.losses.size() == 20);
    CHECK(mean_of(run.losses, 15, 20) < mean_of(run.losses, 0, 5));
    for (const char* key : {"test_accuracy", "test_top5", "test_loss", "test_head_l2_mean", "test_head_l2_std",
                            "val_accuracy", "val_loss"}) {
      CAPTURE(key);
      REQUIRE(run.eval.contains(key));
      CHECK(std::isfinite(run.eval.at(key).get<double>()));
    }
    CHECK(run.eval.at("test_top5").get<double>() >= run.eval.at("test_accuracy").get<double>());
    CHECK(run.eval.at("test_head_l2_mean").get<double>() > 0);
    CHECK(run.eval.contains("r_mean") == (attention == "fourier"));
  }
}

TEST_CASE("fashion-vit: a resumed run with dropout repeats the uninterrupted one") {
  if (!have_fashion()) return;
  ScratchDir whole, parts;
  Json c = tiny("fourier");
  c["dropout"] = 0.1;
  c["trainer"]["lr_schedule"] = "constant";  // cosine decays over trainer.steps, which differs between the runs
  c["trainer"]["steps"] = 6;
  Run once = run_task(c, whole.str());
  c["trainer"]["steps"] = 3;
  Run first = run_task(c, parts.str());
  c["trainer"]["steps"] = 6;
  Run second = run_task(c, parts.str(), true);
  first.losses.insert(first.losses.end(), second.losses.begin(), second.losses.end());
  CHECK(first.losses == once.losses);
  CHECK(second.params == once.params);
}

TEST_CASE("fashion-vit: the standardisation constants are Fashion-MNIST's training mean and std") {
  if (!have_fashion()) return;
  Tensor x = data::load_fashion_mnist("train").images.to(DType::Float64);  // (60000, 28, 28)
  CHECK(mean(x).item<double>() == doctest::Approx(0.2860).epsilon(2e-4));
  CHECK(hm::std(x).item<double>() == doctest::Approx(0.3530).epsilon(2e-4));
  CHECK(data::load_fashion_mnist("test", 100).images.shape() == Shape{100, 28, 28});
  CHECK(throws_with([] { data::load_fashion_mnist("test", -1); }, {"load_fashion_mnist", "-1"}));
}
