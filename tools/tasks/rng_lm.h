// Task "rng-lm": LoRA fine-tuning of a saved character-level KJV GPT (a kjv-lm model with
// tokenizer=char) on the random-number prompts of the Fourier head paper (Appendix C.4;
// tools/tasks/rng_lm_data.h), with the usual token head or a Fourier head.
//
//   harmonic train rng-lm --set base_model=runs/rng-lm-quick/base_model --set head=fourier
//
// Config keys: seed, base_model (a saved language model directory), head ("token" |
// "fourier"), pairs (256), data_seed, lora_rank, lora_alpha, lora_dropout, frequencies (the
// Fourier head's N), lr, batch_size, and the trainer section (the paper's: 16 epochs, linear
// decay, no warmup).
//
// Both heads: LoRA (nn::apply_lora) on every attention projection (q, k, v, out) and both
// feed-forward linears of every block; everything else of the GPT is frozen. Adam on the
// trainable parameters.
//   - token: the GPT's own lm head (frozen, as in plain LoRA); the loss is the next-character
//     cross-entropy on the response " X3" and a closing "," (our char model has no
//     end-of-sequence token; the comma is where the sampler stops), nothing on the prompt.
//   - fourier: nn::FourierHead(n_embd, 200 bins on [-1, 1], frequencies, gamma per NOTES:
//     0 below 10 frequencies, 1e-6 from 10) reads GPT::hidden_states at the prompt's last
//     position; cross-entropy on the target bin (bin j <-> -1.00 + 0.01 j) plus the head's
//     regulariser.
// The KJV has no '[' or ']': the base model reads them as <unk> (the tokenizer's id 0), here
// and when sampling. Sequences are right-padded with spaces (causal attention: padding never reaches an earlier
// position) and padded positions carry no loss. evaluate() -> {"train_loss"}: the mean loss
// over the training pairs.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/data/text.h"
#include "harmonic/models/gpt.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/tasks/rng_lm_data.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {

inline constexpr const char* kRngLmTask = "rng-lm";

Json rng_lm_defaults();
// The LoRA targets of the study: attention projections and feed-forward linears.
bool rng_lm_lora_target(const std::string& linear_name);
// gamma for a Fourier head of n frequencies (NOTES section 1): 0 for n < 10, else 1e-6.
double rng_lm_gamma(int64_t frequencies);

// The fine-tuned model as one module (for the trainer and checkpoints): children gpt and,
// with the Fourier head, fourier_head.
class RngLmModel : public nn::Module {
 public:
  RngLmModel(std::shared_ptr<models::GPT> gpt, std::shared_ptr<nn::FourierHead> head);
  std::shared_ptr<models::GPT> gpt;
  std::shared_ptr<nn::FourierHead> head;  // null for the token head
};

// Draws `count` continuations of prompt from gpt's token head: each row samples up to
// max_chars characters (temperature 1), returned as decoded text. Runs in eval mode, no grad.
std::vector<std::string> sample_continuations(models::GPT& gpt, const data::Tokenizer& tokenizer,
                                              const std::string& prompt, int64_t count, int64_t max_chars,
                                              uint64_t seed);
// Draws `count` values from the Fourier head's pmf at the prompt's last position.
std::vector<double> sample_fourier_values(models::GPT& gpt, nn::FourierHead& head, const data::Tokenizer& tokenizer,
                                          const std::string& prompt, int64_t count, uint64_t seed);
// The Fourier head's pmf (200) at the prompt's last position.
std::vector<double> fourier_pmf(models::GPT& gpt, nn::FourierHead& head, const data::Tokenizer& tokenizer,
                                const std::string& prompt);

class RngLmTask : public Task {
 public:
  RngLmTask(const Json& config, Device device);

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& batch) override;  // input (B, T) int64, target (B, T) int64 (-100: no loss)
  Json evaluate() override;                        // {"train_loss"}
  optim::NamedGenerators generators() override { return {{"lora", &gen_}}; }

  bool fourier() const { return model_->head != nullptr; }
  models::GPT& gpt() { return *model_->gpt; }
  nn::FourierHead& head() { return *model_->head; }
  const data::Tokenizer& tokenizer() const { return *tokenizer_; }
  int64_t trainable_parameters() const { return trainable_; }

 private:
  Generator gen_;  // LoRA A init, LoRA dropout
  std::shared_ptr<data::Tokenizer> tokenizer_;
  std::shared_ptr<RngLmModel> model_;
  std::shared_ptr<data::TensorDataset> data_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
  int64_t trainable_ = 0;
};

}  // namespace hm::train
