// The GPT training-step cases of `harmonic bench --gpt` (tools/bench/cases.h): minGPT-style
// models::GPT, forward, cross-entropy, backward and an AdamW step, with the step's GEMM FLOPs
// and its GEMM-bound floor (each GEMM of the step timed alone as a plain row-major sgemm).
#include <algorithm>
#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/core/parallel.h"
#include "harmonic/models/gpt.h"
#include "harmonic/ops/cpu/gemm_rows.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {
namespace {

// One GEMM shape of the step, C (m, n) += A (m, k) B (k, n), `count` times (fractional:
// causal attention does about half of its square products). Per-head products (`per_head`)
// run one per thread in the fused attention.
struct GemmShape {
  int64_t m, n, k;
  double count;
  bool per_head = false;
};

// Every GEMM of one training step (forward, and backward's dX and dW) of the config at
// batch B; attention's q k^T, P v and their backward only for the dot-product kernel.
std::vector<GemmShape> step_gemms(const models::GPTConfig& c, int64_t B) {
  const int64_t T = c.block_size, E = c.n_embd, F = c.n_inner > 0 ? c.n_inner : 4 * E, V = c.vocab_size;
  const int64_t BT = B * T, L = c.n_layer, H = c.n_head, D = E / H;
  std::vector<GemmShape> g;
  auto linear = [&](int64_t in, int64_t out, double times) {  // forward, dX, dW
    g.push_back({BT, out, in, times});
    g.push_back({BT, in, out, times});
    g.push_back({out, in, BT, times});
  };
  linear(E, E, 4.0 * L);  // q, k, v and out projections
  linear(E, F, 1.0 * L);  // feed-forward in
  linear(F, E, 1.0 * L);  // feed-forward out
  linear(E, V, 1.0);      // lm head
  if (c.attention == nn::AttentionKernel::DotProduct) {
    const double causal = static_cast<double>(T + 1) / (2.0 * T), heads = static_cast<double>(B * H * L) * causal;
    g.push_back({T, T, D, heads, true});      // S = q k^T
    g.push_back({T, D, T, heads, true});      // O = P v
    g.push_back({T, T, D, heads, true});      // dP = dO v^T
    g.push_back({T, D, T, 3 * heads, true});  // dV = P^T dO, dQ = dS k, dK = dS^T q
  }
  return g;
}

double gemm_flops(const std::vector<GemmShape>& g) {
  double f = 0;
  for (const GemmShape& s : g) f += 2.0 * static_cast<double>(s.m * s.n * s.k) * s.count;
  return f;
}

// Sum over the step's GEMMs of count x (the time of that GEMM alone, row-major A B). With n
// threads each GEMM counts at the better of its n-thread time and its one-thread time / n (a
// GEMM split over threads can lose to that when timed alone on a shared machine); per-head
// GEMMs, which the fused attention runs one per thread, only at the latter.
double gemm_floor_ms(const std::vector<GemmShape>& g, const TimingOptions& opt) {
  double total = 0;
  const int threads = get_num_threads();
  for (const GemmShape& s : g) {
    Tensor a = full({s.m, s.k}, 0.5), b = full({s.k, s.n}, 0.25), c = zeros({s.m, s.n});  // values do not matter
    auto once = [&] {
      gemm_rows<float>(s.m, s.n, s.k, a.data<float>(), false, b.data<float>(), false, c.data<float>(), 0.0);
    };
    set_num_threads(1);
    double ms = time_ms(once, opt) / threads;
    set_num_threads(threads);
    if (threads > 1 && !s.per_head) ms = std::min(ms, time_ms(once, opt));
    total += ms * s.count;
  }
  return total;
}

models::GPTConfig bench_config(const std::string& name) {
  models::GPTConfig c;
  c.vocab_size = 8192, c.block_size = 256, c.n_layer = 4, c.n_head = 8, c.n_embd = 128;
  if (name == "gpt2" || name == "gpt2_124m") c.block_size = 1024, c.n_layer = 12, c.n_head = 12, c.n_embd = 768;
  c.dropout = 0.1;
  c.learned_positions = false;  // sinusoidal, as the FourierFormer language models
  if (name == "gpt2_124m") {  // GPT-2 small itself, as llm.c trains it: its vocabulary, learned positions, tied head, no dropout
    c.vocab_size = 50257;
    c.learned_positions = true;
    c.tie_weights = true;
    c.dropout = 0.0;
  }
  c.attention = name == "fourier" ? nn::AttentionKernel::Fourier : nn::AttentionKernel::DotProduct;
  return c;
}

}  // namespace

std::vector<std::string> gpt_case_names() { return {"softmax", "fourier", "gpt2", "gpt2_124m"}; }

void run_gpt_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                   const GptReport& report) {
  constexpr int64_t kBatch = 8;
  for (const std::string& name : only)
    check(name == "softmax" || name == "fourier" || name == "gpt2" || name == "gpt2_124m", "bench",
          "--gpt: unknown case '{}' (expected softmax, fourier, gpt2, gpt2_124m)", name);
  for (const std::string& name : gpt_case_names()) {
    // gpt2 and gpt2_124m (GPU sizes: about 5 TFLOP a step) only when named.
    if (only.empty() ? name.starts_with("gpt2") : std::find(only.begin(), only.end(), name) == only.end()) continue;
    const models::GPTConfig c = bench_config(name);
    Generator gen(1234);
    const std::vector<GemmShape> gemms = step_gemms(c, kBatch);
    // The CPU's GEMM-bound floor, timed first (a profile can skip it); none on a GPU.
    const double floor_ms = device.is_cpu() ? gemm_floor_ms(gemms, {.repeat = 5, .warmup = 1}) : NAN;
    models::GPT model(c, &gen);
    model.to(device);
    model.train();
    optim::AdamW opt_w(model.named_parameters(), {.lr = 3e-4});
    Tensor tokens = randint(0, c.vocab_size, {kBatch, c.block_size}, &gen).to(device);   // (B, T)
    Tensor targets = randint(0, c.vocab_size, {kBatch, c.block_size}, &gen).to(device);  // (B, T)
    const double ms = time_ms(
        [&] {
          Tensor loss = models::GPT::loss(model.forward(tokens), targets);
          opt_w.zero_grad();
          loss.backward();
          opt_w.step();
        },
        opt, device);
    GptTiming t;
    t.label = fmt::format("gpt {:<8} L={} E={} H={} T={} B={} V={}", name, c.n_layer, c.n_embd, c.n_head, c.block_size,
                          kBatch, c.vocab_size);
    t.ms = ms;
    t.tokens_per_s = static_cast<double>(kBatch * c.block_size) / (ms * 1e-3);
    t.gemm_gflop = gemm_flops(gemms) * 1e-9;
    t.floor_ms = floor_ms;
    report(t);
  }
}

}  // namespace hm::bench
