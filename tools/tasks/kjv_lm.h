// Task "kjv-lm": a word-level (or character-level) GPT language model on the KJV corpus (data/kjv_corpus.h), the
// WikiText-103 experiment of FourierFormer (NOTES section 2) at this machine's scale, with
// softmax or Fourier attention.
//
//   build/harmonic train kjv-lm --out runs/lm --set attention=fourier
//   build/harmonic sample --checkpoint runs/lm --prompt "In the beginning" --tokens 50
//
// Config keys (flat): seed, n_layer, n_head, n_embd, n_inner, block_size, dropout, attention
// ("softmax" | "fourier"), fourier_p, fourier_r_init, fourier_r_per_dim, fourier_eps, fourier_log_r,
// fourier_r_lr (0: R at lr; > 0: R in its own Adam group at that initial lr, no decay),
// positions ("sinusoidal", the paper's, | "learned"), vocab_size (the tokenizer's max_vocab; the
// GPT's vocabulary is the tokenizer's size), lowercase, tokenizer ("word" | "char"), references
// (verses prefixed "chapter:verse "; both data/kjv_corpus.h, absent in older configs = "word"
// and false), val_fraction, test_fraction, split_seed,
// batch_size, lr, weight_decay (Adam's L2), eval_tokens, and the trainer section.
//
// Training: Adam (the paper's), batches of random windows of block_size + 1 tokens of the
// training stream: every start position is an example (make_lm_dataset with stride 1), and
// an epoch is a seeded permutation of them (seed, epoch), so resume is exact. Initial weights
// and dropout masks come from one generator seeded by `seed`, checkpointed as "dropout".
//
// Metrics: validate() -> {"loss", "ppl"} on the validation stream; evaluate() -> {"test_loss",
// "test_ppl", "test_head_l2_mean", "test_head_l2_std", "train_head_l2_mean",
// "train_head_l2_std", "r_mean" (Fourier only)}. Perplexity = exp(mean token NLL) over
// non-overlapping block_size windows (tools/tasks/lm_eval.h), eval_tokens of them evenly
// spaced over the split (0: the whole split, each token predicted once). Head redundancy
// (FourierFormer Table 3): nn::head_redundancy of each layer's per-head outputs
// (GPT::head_outputs, eval mode) on a fixed batch of batch_size windows spread evenly over the
// test (train) stream, mean and population std over layers. r_mean: the mean of each layer's
// Fourier bandwidth R (its elements when per dim), averaged over layers.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "harmonic/core/device.h"
#include "harmonic/core/random.h"
#include "harmonic/data/kjv_corpus.h"
#include "harmonic/models/gpt.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {

inline constexpr const char* kKjvLmTask = "kjv-lm";

// The task's default config (its keys, "seed" and the trainer overrides).
Json kjv_lm_defaults();
// The corpus options of a config (vocab_size, lowercase, tokenizer, references, val_fraction,
// test_fraction, split_seed).
data::KjvCorpusOptions kjv_lm_corpus_options(const Json& config);
// The GPT of a config for a tokenizer of `vocab` ids (keys checked, errors name them).
models::GPTConfig kjv_lm_gpt_config(const Json& config, int64_t vocab);

// Per-layer head redundancy of gpt on windows (B, T) int64: {mean, population std} over layers
// of nn::head_redundancy(gpt.head_outputs(windows)[l]); runs in the module's current mode.
std::pair<double, double> gpt_head_redundancy(models::GPT& gpt, const Tensor& windows);
// The mean Fourier bandwidth R over layers, or nullopt when the attention is softmax.
std::optional<double> gpt_mean_bandwidth(models::GPT& gpt);
// Each layer's R (its mean over head dimensions where R is a vector); empty for softmax.
std::vector<double> gpt_layer_bandwidths(models::GPT& gpt);

class KjvLmTask : public Task {
 public:
  KjvLmTask(const Json& config, Device device);
  // Builds on an existing corpus (tests; the corpus options must match the config's).
  KjvLmTask(const Json& config, Device device, std::shared_ptr<const data::KjvCorpus> corpus);

  nn::Module& model() override { return *gpt_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& batch) override;  // input, target (B, block_size) int64
  Json validate() override;                        // {"loss", "ppl"}
  Json evaluate() override;                        // test perplexity, head redundancy, r_mean
  optim::NamedGenerators generators() override { return {{"dropout", &gen_}}; }
  Throughput throughput() const override { return {"tokens", config_.at("block_size").get<int64_t>()}; }

  models::GPT& gpt() { return *gpt_; }
  std::shared_ptr<models::GPT> gpt_ptr() { return gpt_; }
  const data::Tokenizer& tokenizer() const { return *corpus_->tokenizer; }
  const data::KjvCorpus& corpus() const { return *corpus_; }
  const Json& config() const { return config_; }

 private:
  Json config_;
  Generator gen_;  // initial weights, then dropout masks
  std::shared_ptr<const data::KjvCorpus> corpus_;
  std::shared_ptr<models::GPT> gpt_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
  int64_t eval_tokens_ = 0, batch_size_ = 0;
  Tensor test_windows_, train_windows_;  // (batch_size, block_size) int64 on the device: the head batches
};

}  // namespace hm::train
