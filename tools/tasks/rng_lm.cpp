// Task "rng-lm" (see rng_lm.h). Defaults from the paper's Appendix C.4: LoRA for 16 epochs,
// lr 3e-4 with a linear decay, batch 64; LoRA rank 8, alpha 16 (loralib's usual pair).
#include "harmonic/tools/tasks/rng_lm.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/lora.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/tasks/language_model.h"

namespace hm::train {
namespace {

constexpr int64_t kIgnore = -100;

// (B, T, E) hidden states -> (B, E) at each row's position.
Tensor rows_at(const Tensor& hidden, const std::vector<int64_t>& positions) {
  const int64_t B = hidden.size(0), T = hidden.size(1), E = hidden.size(2);
  std::vector<int64_t> flat(positions.size());
  for (size_t b = 0; b < positions.size(); ++b) flat[b] = static_cast<int64_t>(b) * T + positions[b];
  Tensor index = from_vector(flat, {B}).to(hidden.device());
  return index_select(reshape(hidden, {B * T, E}), 0, index);
}

std::vector<int64_t> repeat_ids(const std::vector<int64_t>& ids, int64_t rows) {
  std::vector<int64_t> out;
  out.reserve(ids.size() * static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

}  // namespace

Json rng_lm_defaults() {
  return {{"seed", 0},
          {"base_model", ""},
          {"head", "token"},
          {"pairs", 256},
          {"data_seed", 0},
          {"lora_rank", 8},
          {"lora_alpha", 16.0},
          {"lora_dropout", 0.0},
          {"frequencies", 12},
          {"lr", 3e-4},
          {"batch_size", 64},
          {"trainer",
           {{"epochs", 16}, {"lr_schedule", "linear"}, {"warmup_steps", 0}, {"eval_every", 0}, {"log_every", 1000}}}};
}

bool rng_lm_lora_target(const std::string& name) {
  return name.find("self_attn.") != std::string::npos || name.find(".ff.") != std::string::npos;
}

double rng_lm_gamma(int64_t frequencies) { return frequencies < 10 ? 0.0 : 1e-6; }

RngLmModel::RngLmModel(std::shared_ptr<models::GPT> gpt_, std::shared_ptr<nn::FourierHead> head_)
    : nn::Module("RngLmModel") {
  gpt = register_module("gpt", std::move(gpt_));
  if (head_) head = register_module("fourier_head", std::move(head_));
}

RngLmTask::RngLmTask(const Json& c, Device device) : gen_(c.at("seed").get<uint64_t>()) {
  const std::string head = c.at("head").get<std::string>();
  const std::string base = c.at("base_model").get<std::string>();
  check(head == "token" || head == "fourier", kRngLmTask, "head must be \"token\" or \"fourier\", got \"{}\"", head);
  check(!base.empty(), kRngLmTask, "base_model must name a saved character-level language model");
  LanguageModel lm = load_language_model(base, device);
  check(lm.tokenizer->kind() == "char", kRngLmTask, "base_model '{}' has a {} tokenizer; the study needs \"char\"",
        base, lm.tokenizer->kind());
  tokenizer_ = lm.tokenizer;
  auto gpt = lm.gpt;

  const int64_t wrapped = nn::apply_lora(*gpt, rng_lm_lora_target, c.at("lora_rank").get<int64_t>(),
                                         c.at("lora_alpha").get<double>(), c.at("lora_dropout").get<double>(), &gen_);
  check(wrapped == 6 * gpt->config.n_layer, kRngLmTask, "expected 6 linears per layer to wrap, wrapped {}", wrapped);
  trainable_ = nn::mark_only_lora_as_trainable(*gpt);
  std::shared_ptr<nn::FourierHead> fourier;
  if (head == "fourier") {
    const int64_t n = c.at("frequencies").get<int64_t>();
    fourier = std::make_shared<nn::FourierHead>(gpt->config.n_embd, kRngBins, n, rng_lm_gamma(n), 100.0, 100.0, &gen_);
    fourier->to(device);
    trainable_ += fourier->num_parameters();
  }
  model_ = std::make_shared<RngLmModel>(gpt, fourier);
  model_->train();

  // The pairs as padded character sequences.
  const std::vector<RngPair> pairs = make_rng_pairs(c.at("pairs").get<int64_t>(), c.at("data_seed").get<uint64_t>());
  const int64_t pad = tokenizer_->id(" ");
  std::vector<std::vector<int64_t>> inputs, targets;
  size_t T = 0;
  for (const RngPair& p : pairs) {
    std::vector<int64_t> prompt = tokenizer_->encode(p.prompt);
    std::vector<int64_t> in, tg;
    if (fourier) {
      in = prompt;
      tg.assign(in.size(), kIgnore);
      tg.back() = rng_value_to_bin(p.value);
    } else {
      std::vector<int64_t> seq = prompt;
      std::vector<int64_t> response = tokenizer_->encode(p.response + ",");
      seq.insert(seq.end(), response.begin(), response.end());
      in.assign(seq.begin(), seq.end() - 1);
      tg.assign(seq.begin() + 1, seq.end());
      std::fill(tg.begin(), tg.begin() + static_cast<int64_t>(prompt.size()) - 1, kIgnore);  // no loss on the prompt
    }
    T = std::max(T, in.size());
    inputs.push_back(std::move(in));
    targets.push_back(std::move(tg));
  }
  check(static_cast<int64_t>(T) <= gpt->config.block_size, kRngLmTask,
        "sequences of {} characters exceed the base model's block_size {}", T, gpt->config.block_size);
  std::vector<int64_t> flat_in, flat_tg;
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].resize(T, pad);
    targets[i].resize(T, kIgnore);
    flat_in.insert(flat_in.end(), inputs[i].begin(), inputs[i].end());
    flat_tg.insert(flat_tg.end(), targets[i].begin(), targets[i].end());
  }
  const auto N = static_cast<int64_t>(inputs.size());
  data_ = std::make_shared<data::TensorDataset>(from_vector(flat_in, {N, static_cast<int64_t>(T)}),
                                                from_vector(flat_tg, {N, static_cast<int64_t>(T)}));
  const int64_t batch = c.at("batch_size").get<int64_t>();
  check(batch >= 1, kRngLmTask, "batch_size must be >= 1, got {}", batch);
  loader_ = std::make_unique<data::DataLoader>(
      data_, data::LoaderOptions{.batch_size = batch, .shuffle = true, .seed = c.at("seed").get<uint64_t>()});
  std::vector<Tensor> params;
  for (const Tensor& p : model_->parameters())
    if (p.requires_grad()) params.push_back(p);
  optim::AdamOptions o;
  o.lr = c.at("lr").get<double>();
  o.weight_decay = 0.0;
  check(o.lr > 0, kRngLmTask, "lr must be > 0, got {}", o.lr);
  optimizer_ = std::make_unique<optim::Adam>(params, o);
}

Tensor RngLmTask::loss(const data::Batch& b) {
  if (!fourier()) return models::GPT::loss(gpt().forward(b.input), b.target);
  // The target bin sits at the prompt's last position; elsewhere -100. Found on the device (a
  // row's last valid position is the argmax of (t + 1) over its valid targets), so a CUDA graph
  // can capture the step; a row without one reads position 0 and bin 0.
  const int64_t B = b.target.size(0), T = b.target.size(1);
  const Device dev = b.target.device();
  const TensorOptions f64{.dtype = DType::Float64, .device = dev};
  Tensor valid = ne(b.target, Scalar(kIgnore));                                              // (B, T)
  Tensor pos = argmax(where(valid, add(arange(T, f64), 1.0), zeros({1}, f64)), 1, true);    // (B, 1)
  Tensor bins = gather(b.target, 1, pos);
  bins = reshape(where(eq(bins, Scalar(kIgnore)), zeros_like(bins), bins), {B});
  Tensor flat = add(mul(arange(B, f64), static_cast<double>(T)), reshape(pos.to(DType::Float64), {B})).to(DType::Int64);
  Tensor hidden = gpt().hidden_states(b.input);
  Tensor h = index_select(reshape(hidden, {B * T, hidden.size(2)}), 0, flat);  // (B, E)
  Tensor log_pmf = head().forward(h);                                          // (B, 200)
  return cross_entropy(log_pmf, bins) + head().regularization_loss();
}

Json RngLmTask::evaluate() {
  NoGradGuard no_grad;
  double sum = 0;
  const int64_t n = data_->size();
  for (int64_t start = 0; start < n; start += 64) {
    std::vector<int64_t> idx;
    for (int64_t i = start; i < std::min(n, start + 64); ++i) idx.push_back(i);
    data::Batch b = data_->get_batch(idx);
    b.input = b.input.to(gpt().wte->weight.device());
    b.target = b.target.to(gpt().wte->weight.device());
    sum += loss(b).item<double>() * static_cast<double>(idx.size());
  }
  return {{"train_loss", sum / static_cast<double>(n)}};
}

std::vector<std::string> sample_continuations(models::GPT& gpt, const data::Tokenizer& tokenizer,
                                              const std::string& prompt, int64_t count, int64_t max_chars,
                                              uint64_t seed) {
  check(count >= 1 && max_chars >= 1, "sample_continuations", "need count >= 1 and max_chars >= 1, got {} and {}",
        count, max_chars);
  const std::vector<int64_t> ids = tokenizer.encode(prompt);
  const auto T0 = static_cast<int64_t>(ids.size());
  check(T0 + max_chars <= gpt.config.block_size, "sample_continuations",
        "prompt of {} characters + {} exceeds block_size {}", T0, max_chars, gpt.config.block_size);
  gpt.eval();
  NoGradGuard no_grad;
  Generator gen(seed);
  Tensor x = from_vector(repeat_ids(ids, count), {count, T0}).to(gpt.wte->weight.device());
  const std::vector<int64_t> out = gpt.generate(x, max_chars, 1.0, 0, &gen).to(Device::cpu()).to_vector_as<int64_t>();
  std::vector<std::string> texts;
  for (int64_t r = 0; r < count; ++r) {
    const auto row = out.begin() + r * (T0 + max_chars);
    texts.push_back(tokenizer.decode(std::vector<int64_t>(row + T0, row + T0 + max_chars)));
  }
  return texts;
}

std::vector<double> fourier_pmf(models::GPT& gpt, nn::FourierHead& head, const data::Tokenizer& tokenizer,
                                const std::string& prompt) {
  gpt.eval();
  head.eval();
  NoGradGuard no_grad;
  const std::vector<int64_t> ids = tokenizer.encode(prompt);
  const auto T0 = static_cast<int64_t>(ids.size());
  Tensor h = gpt.hidden_states(from_vector(ids, {1, T0}).to(gpt.wte->weight.device()));  // (1, T0, E)
  const std::vector<double> log_pmf = head.forward(rows_at(h, {T0 - 1})).to(Device::cpu()).to_vector();
  std::vector<double> pmf;
  for (double l : log_pmf) pmf.push_back(std::max(0.0, std::exp(l) - 1e-5));  // forward gives log(pmf + 1e-5)
  return pmf;
}

std::vector<double> sample_fourier_values(models::GPT& gpt, nn::FourierHead& head, const data::Tokenizer& tokenizer,
                                          const std::string& prompt, int64_t count, uint64_t seed) {
  const std::vector<double> pmf = fourier_pmf(gpt, head, tokenizer, prompt);
  std::mt19937_64 rng(seed);
  std::discrete_distribution<int64_t> bins(pmf.begin(), pmf.end());
  std::vector<double> values;
  for (int64_t i = 0; i < count; ++i) values.push_back(rng_bin_to_value(bins(rng)));
  return values;
}

namespace {

// The smoke run's base model: an untrained 1-layer char GPT over the prompts' characters,
// saved in scratch (a pretrained one takes minutes).
Json rng_lm_smoke(const std::string& scratch) {
  auto tok = std::make_shared<data::CharTokenizer>(data::CharTokenizer::fit(rng_prompt({}, 0.0, 0.0) + "0123456789.,- "));
  Generator gen(3);
  models::GPT gpt({.vocab_size = tok->vocab_size(), .block_size = 160, .n_layer = 1, .n_head = 2, .n_embd = 32, .dropout = 0.0},
                  &gen);
  const std::string dir = scratch + "/rng_lm_base";
  save_language_model(dir, gpt, *tok);
  return {{"base_model", dir}, {"head", "fourier"}, {"pairs", 16}, {"batch_size", 8}, {"frequencies", 4},
          {"lora_rank", 4}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}};
}

TaskSpec rng_lm_task() {
  TaskSpec spec{kRngLmTask,
                "Fourier head paper 4.2 / C.4: LoRA fine-tuning of a saved char-level KJV GPT to sample N(mu, sigma) "
                "numbers, token head or Fourier head (needs base_model)",
                rng_lm_defaults(),
                [](const Json& config, Device device) { return std::make_unique<RngLmTask>(config, device); }};
  spec.smoke = rng_lm_smoke;
  return spec;
}

const TaskRegistration rng_lm_registration{rng_lm_task()};

}  // namespace
}  // namespace hm::train
