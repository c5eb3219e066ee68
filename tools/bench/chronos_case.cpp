// The Chronos T5 cases of `harmonic bench --chronos` (tools/bench/cases.h): a training step
// (forward, cross-entropy, backward, AdamW) of the chronos task's default model, of the study's
// quick size and (only when named) of the paper's t5-efficient-mini (d 384, 4 + 4 layers, 8 heads of
// 64, d_ff 1536, context 512, horizon 64: Chronos-mini, 20M parameters), and the forecast of 20 sample paths x 16 steps
// for 8 series (encoder once, decoder KV cache: models::forecast), eagerly or (forecast_graph, cuda only, when named)
// replayed as a CUDA graph. tools/bench/torch/bench_chronos_torch.py times the same T5.
#include <algorithm>
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/bench/cases.h"
#include "harmonic/tools/tasks/chronos_model.h"

namespace hm::bench {
namespace {

using Json = nlohmann::json;

// The task's default config, with the quick study's model and scale for "train_quick"
// (tools/studies/chronos/plan.cpp: size d32, context 32, horizon 8, no dropout) and the paper's
// for "train_mini" (the study's paper_scale model and windows).
Json case_config(const std::string& name) {
  Json c = train::chronos_defaults();
  if (name == "train_mini")
    c.merge_patch({{"d_model", 384},
                   {"num_layers", 4},
                   {"num_heads", 8},
                   {"d_kv", 64},
                   {"d_ff", 1536},
                   {"context_length", 512},
                   {"horizon", 64}});
  if (name == "train_quick")
    c.merge_patch({{"d_model", 32},
                   {"num_layers", 1},
                   {"num_heads", 2},
                   {"d_kv", 16},
                   {"d_ff", 128},
                   {"context_length", 32},
                   {"horizon", 8},
                   {"dropout", 0.0}});
  return c;
}

std::shared_ptr<models::Chronos> make_model(const Json& config, Generator* gen) {
  const models::ChronosConfig mc = train::chronos_model_config(config);
  return std::make_shared<models::Chronos>(mc, data::SeriesTokenizer::uniform(mc.t5.vocab_size), gen);
}

std::string model_label(const std::string& name, const models::ChronosConfig& c, int64_t B) {
  return fmt::format("chronos {:<11} E={} L={}+{} H={} C={} T={} B={}", name, c.t5.d_model, c.t5.num_layers,
                     c.t5.num_layers, c.t5.num_heads, c.context_length, c.prediction_length, B);
}

ChronosTiming time_train(const std::string& name, const TimingOptions& opt, Device device) {
  const Json config = case_config(name);
  const int64_t B = config.at("batch_size").get<int64_t>();
  Generator gen(1234);
  std::shared_ptr<models::Chronos> model = make_model(config, &gen);
  model->to(device);
  const models::ChronosConfig& c = model->config;
  const int64_t C = c.context_length, T = c.prediction_length, V = c.t5.vocab_size;
  // Context tokens (B, C + 1): value tokens, then EOS; labels (B, T): bins.
  Tensor context = cat({randint(data::SeriesTokenizer::kSpecialTokens, V, {B, C}, &gen),
                        full({B, 1}, static_cast<double>(data::SeriesTokenizer::kEos), {.dtype = DType::Int64})},
                       1)
                       .to(device);
  Tensor labels = randint(0, model->bins(), {B, T}, &gen).to(device);
  model->train();
  optim::AdamW adamw(model->named_parameters(),
                     {.lr = config.at("lr").get<double>(), .weight_decay = config.at("weight_decay").get<double>()});
  ChronosTiming t;
  t.parameters = model->num_parameters();
  t.initial_loss = model->loss(context, labels).item<double>();  // before any update (dropout on, as the step)
  t.ms = time_ms(
      [&] {
        Tensor loss = model->loss(context, labels);
        adamw.zero_grad();
        loss.backward();
        adamw.step();
      },
      opt, device);
  t.label = model_label(name, c, B);
  t.tokens_per_s = static_cast<double>(B * (C + 1 + T)) / (t.ms * 1e-3);  // encoder + decoder positions
  return t;
}

// graph: the decoding replayed as a CUDA graph (ForecastOptions::cuda_graph = on; the timing's
// warm-up calls run the eager warm-up and the capture).
ChronosTiming time_forecast(const TimingOptions& opt, Device device, bool graph) {
  check(!graph || device.is_cuda(), "bench", "--chronos --case forecast_graph needs --device cuda, got {}", device.str());
  constexpr int64_t kSeries = 8, kPaths = 20, kHorizon = 16;
  const Json config = case_config("forecast");
  Generator gen(1234);
  std::shared_ptr<models::Chronos> model = make_model(config, &gen);
  model->to(device);
  const int64_t C = model->config.context_length;
  // Noisy sines of different periods and levels (the values only pick the tokens).
  std::vector<std::vector<double>> histories(kSeries, std::vector<double>(static_cast<size_t>(C)));
  std::vector<double> noise = randn({kSeries * C}, {.dtype = DType::Float64}, &gen).to_vector();
  for (int64_t s = 0; s < kSeries; ++s)
    for (int64_t i = 0; i < C; ++i)
      histories[s][i] = 10.0 + s + std::sin(2.0 * M_PI * i / (8.0 + 3.0 * s)) * 3.0 + 0.3 * noise[s * C + i];
  const models::ForecastOptions fo{
      .horizon = kHorizon, .samples = kPaths, .seed = 0, .batch_series = kSeries, .cuda_graph = graph ? "on" : "off"};
  ChronosTiming t;
  t.parameters = model->num_parameters();
  t.ms = time_ms([&] { models::forecast(*model, histories, fo); }, opt, device);
  t.label = fmt::format("chronos {:<11} E={} L={}+{} C={} series={} paths={} horizon={}", graph ? "fcst graph" : "forecast",
                        model->config.t5.d_model, model->config.t5.num_layers, model->config.t5.num_layers, C, kSeries,
                        kPaths, kHorizon);
  // Decoder positions produced per second (one per path per step).
  t.tokens_per_s = static_cast<double>(kSeries * kPaths * kHorizon) / (t.ms * 1e-3);
  return t;
}

}  // namespace

std::vector<std::string> chronos_case_names() {
  return {"train", "train_quick", "forecast", "train_mini", "forecast_graph"};
}

void run_chronos_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                       const ChronosReport& report) {
  const std::vector<std::string> names = chronos_case_names();
  for (const std::string& name : only)
    check(std::find(names.begin(), names.end(), name) != names.end(), "bench",
          "--chronos: unknown case '{}' (expected train, train_quick, forecast, train_mini, forecast_graph)", name);
  for (const std::string& name : names) {
    const bool picked = only.empty() ? name != "train_mini" && name != "forecast_graph"
                                     : std::find(only.begin(), only.end(), name) != only.end();
    if (!picked) continue;
    report(name.starts_with("forecast") ? time_forecast(opt, device, name == "forecast_graph")
                                        : time_train(name, opt, device));
  }
}

}  // namespace hm::bench
