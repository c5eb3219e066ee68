// The Decision Transformer training-step cases of `harmonic bench --dt` (tools/bench/cases.h):
// models::DecisionTransformer at the paper's size (6 layers, 8 heads, d 128, 30 timesteps =
// 90 tokens, dropout 0.1) with a linear or a Fourier-8 head on 40-float states and 18
// actions, batch 64: forward, cross-entropy (+ the Fourier regulariser), backward, AdamW.
#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/models/decision_transformer.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {

std::vector<std::string> dt_case_names() { return {"linear", "fourier"}; }

void run_dt_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                  const StepReport& report) {
  constexpr int64_t kBatch = 64;
  for (const std::string& name : only)
    check(name == "linear" || name == "fourier", "bench", "--dt: unknown case '{}' (expected linear, fourier)", name);
  for (const std::string& name : dt_case_names()) {
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    models::DecisionTransformerConfig c;
    c.state_dim = 40, c.num_actions = 18, c.context_length = 30, c.max_timestep = 1000;
    c.head = name, c.fourier_frequencies = 8, c.fourier_gamma = name == "fourier" ? 1e-6 : 0.0;
    Generator gen(1234);
    models::DecisionTransformer model(c, &gen);
    model.to(device);
    model.train();
    optim::AdamW opt_w(model.named_parameters(), {.lr = 6e-4, .beta1 = 0.9, .beta2 = 0.95, .weight_decay = 0.1});
    const int64_t B = kBatch, K = c.context_length;
    Tensor rtgs = rand({B, K, 1}, {}, &gen).to(device), states = randn({B, K, c.state_dim}, {}, &gen).to(device);
    Tensor actions = randint(0, c.num_actions, {B, K}, &gen).to(device);
    Tensor timesteps = randint(0, 900, {B}, &gen).to(device);
    const double ms = time_ms(
        [&] {
          Tensor loss = model.loss(model.forward(rtgs, states, actions, timesteps), actions);
          opt_w.zero_grad();
          loss.backward();
          opt_w.step();
        },
        opt, device);
    report(fmt::format("dt {:<8} L=6 E=128 H=8 K=30 B={}", name, B), ms, static_cast<double>(B) / (ms * 1e-3));
  }
}

}  // namespace hm::bench
