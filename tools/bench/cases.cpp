// The benchmark cases of `harmonic bench` (tools/bench/cases.h).
#include "harmonic/tools/bench/cases.h"

#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/nn/fru.h"
#include "harmonic/nn/recurrent.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/registry/registry.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/optim/clip.h"
#include "harmonic/optim/schedule.h"
#include "harmonic/tools/tasks/fourier_toy.h"

namespace hm::bench {

std::vector<OpCase> standard_cases() {
  return {
      {"matmul 512x512x512", "matmul", {{512, 512}, {512, 512}}},
      {"softmax 256x1024", "softmax", {{256, 1024}}},
      {"log_softmax 256x1024", "log_softmax", {{256, 1024}}},
      {"layer_norm 256x1024", "layer_norm", {{256, 1024}, {1024}, {1024}}},
      {"gelu 1024x1024", "gelu", {{1024, 1024}}},
      {"add 1024x1024+1024", "add", {{1024, 1024}, {1024}}},
      {"cross_entropy 256x1000", "cross_entropy", {{256, 1000}, {256}}},
  };
}

OpCase example_case(const std::string& op, const nlohmann::json& attrs, bool backward) {
  const ops::OpSpec& spec = ops::find_op(op);
  nlohmann::json merged = spec.example_attrs;
  if (attrs.is_object()) merged.update(attrs);
  return {op + " " + spec.example + " (example)", op, ops::parse_shapes(spec.example), merged, backward};
}

namespace {

bool wanted(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

void check_names(const std::vector<std::string>& only, const std::vector<std::string>& names, const char* what) {
  for (const std::string& c : only)
    check(std::find(names.begin(), names.end(), c) != names.end(), "bench",
          "{}: unknown case '{}' (expected one of {})", what, c, fmt::join(names, ", "));
}

}  // namespace

std::vector<std::string> fourier_case_names() {
  return {"fourier_head_log_pmf", "fourier_attention", "fru", "fru_all_steps"};
}

void run_fourier_cases(const std::vector<std::string>& only, const TimingOptions& opt, const Report& report) {
  check_names(only, fourier_case_names(), "--fourier");
  Generator gen(1234);
  if (wanted(only, "fourier_head_log_pmf")) {
    Tensor coeffs = randn({256, 130}, {}, &gen).requires_grad_(true);  // (B, 2(N+1)), N = 64
    auto step = [&] {
      sum(fourier_head_log_pmf(coeffs, 4096)).backward();
      coeffs.zero_grad();
    };
    report("fourier_head_log_pmf B=256 N=64 m=4096", time_ms(step, opt));
  }
  if (wanted(only, "fourier_attention")) {
    Tensor q = mul(randn({8, 8, 256, 16}, {}, &gen), 0.5).requires_grad_(true);  // (B, H, N, D)
    Tensor k = mul(randn({8, 8, 256, 16}, {}, &gen), 0.5).requires_grad_(true);
    Tensor v = randn({8, 8, 256, 16}, {}, &gen).requires_grad_(true);
    Tensor R = scalar_tensor(2.0).requires_grad_(true);
    auto step = [&] {
      sum(fourier_attention(q, k, v, R, 4)).backward();
      for (Tensor* t : {&q, &k, &v, &R}) t->zero_grad();
    };
    report("fourier_attention B=8 H=8 N=256 D=16 p=4", time_ms(step, opt));
  }
  // Like tools/bench/torch/bench_fru_torch.py: the loss is the last step's output summed; "fru" is the
  // classifier form (output layer at the last step only, NOTES section 3), "fru_all_steps"
  // computes it at every step (bench_fru_torch.py --all-steps). K = 60, d = 10, R = 60,
  // units = 200, T = 784.
  for (bool all_steps : {false, true}) {
    if (!wanted(only, all_steps ? "fru_all_steps" : "fru")) continue;
    nn::FRUOptions fo;
    fo.gen = &gen;
    nn::FRU fru(1, fo);
    Tensor x = rand({256, 784, 1}, {}, &gen);
    auto step = [&] {
      sum(all_steps ? fru.forward(x).last : fru.forward_last(x).last).backward();
      for (auto& [name, p] : fru.named_parameters()) p.zero_grad();
    };
    report(all_steps ? "fru_all_steps (output layer at every step)" : "fru B=256 T=784 K=60 d=10 (last-step output)",
           time_ms(step, opt));
  }
}

namespace {

struct RecurrentCase {
  const char* kind;   // lstm, gru, rnn
  const char* shape;  // pixel, text
  int64_t T, B, in, H;
};

std::vector<RecurrentCase> recurrent_cases() {
  std::vector<RecurrentCase> cases;
  for (const char* kind : {"lstm", "gru", "rnn"}) {
    cases.push_back({kind, "pixel", 784, 256, 1, 200});
    cases.push_back({kind, "text", 300, 32, 128, 128});
  }
  return cases;
}

nn::RecurrentKind recurrent_kind(const std::string& kind) {
  return kind == "lstm" ? nn::RecurrentKind::LSTM : kind == "gru" ? nn::RecurrentKind::GRU : nn::RecurrentKind::RNN;
}

}  // namespace

std::vector<std::string> recurrent_case_names() {
  std::vector<std::string> names;
  for (const RecurrentCase& c : recurrent_cases()) names.push_back(fmt::format("{}_{}", c.kind, c.shape));
  for (const RecurrentCase& c : recurrent_cases()) names.push_back(fmt::format("{}_{}_composed", c.kind, c.shape));
  return names;
}

void run_recurrent_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                         const Report& report) {
  check_names(only, recurrent_case_names(), "--recurrent");
  for (bool fused : {true, false})
    for (const RecurrentCase& c : recurrent_cases()) {
      const std::string name = fmt::format("{}_{}{}", c.kind, c.shape, fused ? "" : "_composed");
      if (only.empty() ? !fused : !wanted(only, name)) continue;
      Generator gen(1234);
      nn::Recurrent layer(recurrent_kind(c.kind), c.in, c.H, {.fused = fused}, &gen);
      layer.to(device);
      Tensor x = rand({c.T, c.B, c.in}, {}, &gen).to(device);  // (T, B, in), like torch.nn's default layout
      auto step = [&] {
        sum(layer.run(x).output).backward();
        for (auto& [pname, p] : layer.named_parameters()) p.zero_grad();
      };
      report(fmt::format("{:<20} T={} B={} in={} H={}", name, c.T, c.B, c.in, c.H), time_ms(step, opt, device));
    }
}

std::vector<std::string> toy_case_names() { return {"linear", "gmm", "fourier", "fourier_reg", "fourier_mle"}; }

// The model is MLP 2 -> 64 -> 32 -> head on GMM-2 data, bins = 50, batch 32: loss, zero_grad,
// backward, Adam step; the MLE head also sets the cosine lr and clips the gradient norm. The
// same batch every step (a contiguous slice, as the trainer's per-epoch gather gives).
void run_toy_cases(const std::vector<std::string>& only, const TimingOptions& opt, const Report& report) {
  using models::ToyHead;
  struct ToyCase {
    const char* name;
    ToyHead head;
    double gamma;
  };
  const ToyCase cases[] = {{"linear", ToyHead::Linear, 0.0},
                           {"gmm", ToyHead::GMM, 0.0},
                           {"fourier", ToyHead::Fourier, 0.0},
                           {"fourier_reg", ToyHead::Fourier, 1e-6},
                           {"fourier_mle", ToyHead::FourierMLE, 0.0}};
  check_names(only, toy_case_names(), "--toy");
  constexpr int64_t kFrequencies = 12, kBatch = 32;
  const auto dataset = data::ToyDistribution::GMM2;
  data::ToyDensityDataset ds = data::make_toy_density(dataset, 1);
  const int64_t bins = ds.train.true_pmf.size(-1);
  for (const ToyCase& c : cases) {
    if (!wanted(only, c.name)) continue;
    studies::ToyTensors t = studies::toy_tensors(ds.train, c.head);
    Tensor inputs = slice(t.inputs, 0, 0, kBatch).contiguous(), targets = slice(t.targets, 0, 0, kBatch).contiguous();
    Generator gen(studies::toy_init_seed(1));
    models::ToyDensityModel model(c.head, bins, dataset, kFrequencies, c.gamma, &gen);
    std::vector<Tensor> params = model.parameters();
    optim::Adam adam(params, {.lr = 1e-3});
    optim::LRScheduler scheduler(adam, optim::cosine_decay(1e-3, 500 * 125, 1e-6));  // 500 epochs of 125 batches
    const bool mle = models::is_mle(c.head);
    int64_t step = 0;
    double ms = time_ms(
        [&] {
          Tensor loss = model.loss(inputs, targets);
          adam.zero_grad();
          loss.backward();
          if (mle) {
            scheduler.apply(step++);
            optim::clip_grad_norm_(params, 1.0);
          }
          adam.step();
        },
        opt);
    std::string label = c.head == ToyHead::Linear ? "linear"
                        : c.head == ToyHead::GMM
                            ? "gmm K=2"
                            : fmt::format("{} N={} gamma={:g}", models::toy_head_name(c.head), kFrequencies, c.gamma);
    report(fmt::format("toy {:<12} {}", c.name, label), ms);
  }
}

}  // namespace hm::bench
