// LoRA: starts equal to the base, trains only A/B, merge/unmerge equivalence, counts, gradcheck,
// replace_module and apply_lora on a GPT (LoRA freezing).
#include <cmath>

#include "harmonic/models/gpt.h"
#include "harmonic/nn/activation.h"
#include "harmonic/nn/attention.h"
#include "harmonic/nn/lora.h"
#include "harmonic/optim/adam.h"
#include "harmonic/nn/sequential.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

namespace {

void randomize(const Tensor& p, Generator* gen, double scale = 0.1) {
  NoGradGuard g;
  Tensor(p).copy_(randn(p.shape(), {.dtype = p.dtype()}, gen) * scale);
}

}  // namespace

TEST_CASE("nn LoRA: initial output equals the base, names, counts, init") {
  Generator gen(1);
  auto base = std::make_shared<nn::Linear>(64, 32, true, &gen);
  Tensor x = randn({4, 64}, {}, &gen);
  Tensor before = base->forward(x);
  nn::LoRALinear lora(base, 8, 16.0, 0.0, &gen);
  CHECK(lora.scaling() == 2.0);
  CHECK(allclose(lora(x), before, 0, 0));  // B = 0: bit-identical
  CHECK(names_of(lora.named_parameters()) == std::vector<std::string>{"weight", "bias", "lora_A", "lora_B"});
  CHECK(lora.lora_A.shape() == Shape{8, 64});
  CHECK(lora.lora_B.shape() == Shape{32, 8});
  // Base 64*32 + 32; LoRA r (in + out) = 8 * 96.
  CHECK(lora.num_parameters() == 64 * 32 + 32 + 8 * 96);
  int64_t trainable = 0;
  for (const Tensor& p : lora.parameters()) trainable += p.requires_grad() ? p.numel() : 0;
  CHECK(trainable == 8 * 96);
  CHECK_FALSE(base->weight.requires_grad());
  CHECK_FALSE(base->bias.requires_grad());
  // A ~ kaiming_uniform(a = sqrt(5)) = U(+-1/sqrt(in)).
  double m = amax(abs(lora.lora_A.detach())).item<double>();
  CHECK(m <= 1.0 / 8.0);
  CHECK(m > 0.9 / 8.0);
  CHECK(allclose(lora.lora_B, std::vector<double>(32 * 8, 0.0)));
  CHECK(throws_with([&] { nn::LoRALinear(base, 0, 1.0); }, {"[LoRALinear]", "rank", "got 0"}));
  CHECK(throws_with([&] { nn::LoRALinear(base, 33, 1.0); }, {"[LoRALinear]", "[1, 32]"}));
  CHECK(throws_with([] { nn::LoRALinear(nullptr, 1, 1.0); }, {"[LoRALinear]", "null"}));
}

TEST_CASE("nn LoRA: only A and B receive gradients") {
  Generator gen(2);
  auto base = std::make_shared<nn::Linear>(6, 5, true, &gen);
  nn::LoRALinear lora(base, 2, 4.0, 0.0, &gen);
  Tensor x = randn({3, 6}, {}, &gen);
  sum(lora(x) * lora(x)).backward();
  CHECK_FALSE(base->weight.grad().defined());
  CHECK_FALSE(base->bias.grad().defined());
  CHECK(lora.lora_A.grad().defined());
  CHECK(allclose(lora.lora_A.grad(), std::vector<double>(12, 0.0)));  // B = 0 blocks A's gradient at first
  CHECK(amax(abs(lora.lora_B.grad())).item<double>() > 0);

  // Gradcheck of the LoRA path in float64 (B made nonzero so both factors matter).
  lora.to(DType::Float64);
  randomize(lora.lora_B, &gen, 0.5);
  Tensor x64 = leaf64({3, 6}, 3);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return lora(in[0]); }, {x64, lora.lora_A, lora.lora_B}));
}

TEST_CASE("nn LoRA: merge and unmerge are equivalent to the unmerged forward") {
  Generator gen(3);
  auto base = std::make_shared<nn::Linear>(16, 12, true, &gen);
  Tensor w0 = base->weight.detach().clone();
  nn::LoRALinear lora(base, 4, 8.0, 0.0, &gen);
  randomize(lora.lora_B, &gen);
  Tensor x = randn({2, 3, 16}, {}, &gen);
  Tensor y = lora(x);
  CHECK(amax(abs(y - base->forward(x))).item<double>() > 1e-3);  // the update matters
  lora.merge();
  CHECK(lora.merged());
  // W' = W + (alpha / r) B A
  CHECK(allclose(base->weight, w0 + matmul(lora.lora_B, lora.lora_A).detach() * 2.0, 1e-5, 1e-6));
  CHECK(allclose(lora(x), y, 1e-5, 1e-5));
  CHECK(allclose(base->forward(x), y, 1e-5, 1e-5));
  CHECK(throws_with([&] { lora.merge(); }, {"[LoRALinear::merge]", "already merged"}));
  lora.unmerge();
  CHECK(allclose(base->weight, w0, 1e-5, 1e-6));
  CHECK(allclose(lora(x), y, 1e-5, 1e-5));
  CHECK(throws_with([&] { lora.unmerge(); }, {"[LoRALinear::unmerge]", "not merged"}));
}

TEST_CASE("nn LoRA: dropout on the LoRA path, inside a Sequential, mark_only_lora_as_trainable") {
  Generator gen(4);
  auto lora = std::make_shared<nn::LoRALinear>(std::make_shared<nn::Linear>(8, 8, true, &gen), 2, 2.0, 0.5, &gen);
  randomize(lora->lora_B, &gen, 1.0);
  nn::Sequential seq{lora, std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(8, 3, true, &gen)};
  CHECK(names_of(seq.named_parameters()) ==
        std::vector<std::string>{"0.weight", "0.bias", "0.lora_A", "0.lora_B", "2.weight", "2.bias"});
  Tensor x = randn({4, 8}, {}, &gen);
  Tensor train_out = lora->forward(x);
  seq.eval();
  Tensor eval_out = lora->forward(x);
  CHECK(amax(abs(train_out - eval_out)).item<double>() > 1e-4);  // dropout acted in training
  CHECK(allclose(lora->forward(x), eval_out, 0, 0));             // and not in eval
  // Only the lora_ parameters stay trainable: 2 * (8 + 8).
  CHECK(nn::mark_only_lora_as_trainable(seq) == 32);
  CHECK_FALSE(seq.at(2)->named_parameters()[0].second.requires_grad());
  CHECK(lora->lora_A.requires_grad());
}

TEST_CASE("nn LoRA: replace_module swaps a child and the parent's typed field, with clear errors") {
  Generator gen(5);
  nn::MultiheadAttention attn(8, 2, {}, &gen);
  Tensor x = randn({1, 3, 8}, {}, &gen);
  Tensor before = attn.forward(x, x, x);
  auto old_q = attn.q_proj;
  auto wrapped = std::make_shared<nn::LoRALinear>(old_q, 2, 4.0, 0.0, &gen);
  attn.replace_module("q_proj", wrapped);
  CHECK(attn.q_proj == wrapped);  // the typed field follows
  CHECK(attn.named_children()[0].second == wrapped);
  CHECK(names_of(attn.named_parameters())[0] == "q_proj.weight");  // same name, same place
  CHECK(allclose(attn.forward(x, x, x), before, 0, 0));
  randomize(wrapped->lora_B, &gen, 1.0);
  CHECK(amax(abs(attn.forward(x, x, x) - before)).item<double>() > 1e-4);  // forward goes through the LoRA path
  CHECK(throws_with([&] { attn.replace_module("nope", wrapped); }, {"[Module::replace_module]", "no child 'nope'"}));
  CHECK(throws_with([&] { attn.replace_module("k_proj", nullptr); }, {"[Module::replace_module]", "null"}));
  CHECK(throws_with([&] { attn.replace_module("k_proj", std::make_shared<nn::ReLU>()); },
                    {"[Module::replace_module]", "does not fit", "k_proj"}));
  CHECK(throws_with([&] { attn.replace_module("score", std::make_shared<nn::ReLU>()); },
                    {"[Module::replace_module]", "'score'", "without its field"}));
}

TEST_CASE("nn LoRA: apply_lora on a GPT starts equal to the base and trains only lora_* and the head") {
  Generator gen(6);
  models::GPTConfig c{.vocab_size = 11, .block_size = 8, .n_layer = 2, .n_head = 2, .n_embd = 16, .dropout = 0.0};
  models::GPT gpt(c, &gen);
  Tensor tokens = randint(0, 11, {3, 8}, &gen);
  Tensor targets = randint(0, 11, {3, 8}, &gen);
  Tensor before = gpt.forward(tokens).detach();

  auto attention_or_ff = [](const std::string& name) {
    return name.find("self_attn.") != std::string::npos || name.find(".ff.") != std::string::npos;
  };
  // Per layer: q, k, v, out and the feed-forward's wi, wo; lm_head is left alone.
  CHECK(nn::apply_lora(gpt, attention_or_ff, 4, 8.0, 0.0, &gen) == 2 * 6);
  CHECK(nn::apply_lora(gpt, attention_or_ff, 4, 8.0, 0.0, &gen) == 0);  // already wrapped
  CHECK(std::dynamic_pointer_cast<nn::LoRALinear>((*gpt.transformer->layers)[1]->ff->wo) != nullptr);
  CHECK(allclose(gpt.forward(tokens), before, 0, 0));  // B = 0: exactly the base model

  nn::mark_only_lora_as_trainable(gpt);
  gpt.lm_head->weight.requires_grad_(true);  // a head trained beside the adapters
  std::vector<Tensor> trainable;
  nn::NamedTensors start;
  for (auto& [name, p] : gpt.named_parameters()) {
    if (p.requires_grad()) trainable.push_back(p);
    start.emplace_back(name, p.detach().clone());
  }
  optim::AdamW opt(trainable, {.lr = 1e-2});
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    models::GPT::loss(gpt.forward(tokens), targets).backward();
    opt.step();
  }
  auto params = gpt.named_parameters();
  int64_t changed_lora = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = params[i].first;
    bool changed = amax(abs(params[i].second.detach() - start[i].second)).item<double>() > 0;
    bool may_change = name.find("lora_") != std::string::npos || name == "lm_head.weight";
    CAPTURE(name);
    if (!may_change) CHECK_FALSE(changed);
    if (name.find("lora_") != std::string::npos) changed_lora += changed;
  }
  CHECK(changed_lora == 2 * 6 * 2);  // every A and B moved (B first, then A through B)
  CHECK(amax(abs(gpt.forward(tokens) - before)).item<double>() > 1e-4);
}
