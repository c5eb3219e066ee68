// The optimizer cases of `harmonic bench --optimizer` (tools/bench/cases.h): one Adam step
// over the parameter list of a real model with fixed gradients: the fashion-mlp task's
// 784-256-10 MLP, the small GPT of kjv-lm (4 layers, n_embd 128, 8 heads, block 256, vocab
// 8192) and the Decision Transformer of the arcade study (6 layers, d 128, linear head).
// Each case first prints the parameter shapes ("optimizer-shapes NAME [[256,784],...]") so
// tools/bench/torch/bench_optimizer_torch.py times torch.optim.Adam over the same list.
#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/models/decision_transformer.h"
#include "harmonic/models/gpt.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/module.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {

std::vector<std::string> optimizer_case_names() { return {"fashion_mlp", "gpt", "dt"}; }

namespace {
std::vector<Tensor> optimizer_case_params(const std::string& name, Generator& gen) {
  if (name == "fashion_mlp") {
    nn::Linear a(784, 256, true, &gen), b(256, 10, true, &gen);
    std::vector<Tensor> ps = a.parameters();
    for (const Tensor& t : b.parameters()) ps.push_back(t);
    return ps;
  }
  if (name == "gpt") {
    models::GPTConfig c;
    c.vocab_size = 8192, c.block_size = 256, c.n_layer = 4, c.n_head = 8, c.n_embd = 128;
    c.learned_positions = false;
    return models::GPT(c, &gen).parameters();
  }
  models::DecisionTransformerConfig c;
  c.state_dim = 40, c.num_actions = 18, c.context_length = 30, c.max_timestep = 1000, c.head = "linear";
  return models::DecisionTransformer(c, &gen).parameters();
}
}  // namespace

void run_optimizer_cases(const std::vector<std::string>& only, const TimingOptions& opt, const Report& report) {
  for (const std::string& name : only)
    check(std::find(optimizer_case_names().begin(), optimizer_case_names().end(), name) !=
              optimizer_case_names().end(),
          "bench", "--optimizer: unknown case '{}' (expected fashion_mlp, gpt, dt)", name);
  for (const std::string& name : optimizer_case_names()) {
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    Generator gen(1234);
    std::vector<Tensor> params = optimizer_case_params(name, gen);
    std::vector<std::vector<int64_t>> shapes;
    int64_t numel = 0;
    for (Tensor& p : params) {
      p.set_grad(mul(randn(p.shape(), {}, &gen), 1e-3));
      shapes.push_back(p.shape());
      numel += p.numel();
    }
    fmt::print("optimizer-shapes {} {}\n", name, nlohmann::json(shapes).dump());
    optim::Adam adam(params, {.lr = 1e-4});
    report(fmt::format("optimizer {:<12} adam tensors={} params={}", name, params.size(), numel),
           time_ms([&] { adam.step(); }, opt));
  }
}

}  // namespace hm::bench
