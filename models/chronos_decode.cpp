// Chronos' decoding loop on the device and its CUDA graphs (models/chronos_decode.h).
#include "harmonic/models/chronos_decode.h"

#include <fmt/format.h>

#include <optional>

#include "harmonic/core/factories.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/ops/ops.h"

namespace hm::models {

BatchDraws draw_batch(Chronos& model, const Tensor& context, const ForecastOptions& o, Generator& gen) {
  const int64_t B = context.size(0), S = o.samples, H = o.horizon, n_bins = model.bins();
  const Device device = context.device();
  Tensor memory = model.encode(context);  // (B, C + 1, E), once for all paths
  auto repeat_rows = [&](const Tensor& t) {
    Shape big = t.shape();
    big.insert(big.begin() + 1, S);
    Shape flat = t.shape();
    flat[0] = B * S;
    return reshape(expand(unsqueeze(t, 1), big), flat);
  };
  Tensor mem = repeat_rows(memory), ctx = repeat_rows(context);
  std::vector<nn::DecoderLayerCache> caches;
  Tensor next = full({B * S, 1}, static_cast<double>(data::SeriesTokenizer::kPad), {.dtype = DType::Int64, .device = device});
  Tensor prefix = next;  // without the cache: every token so far (B S, t + 1)
  std::vector<Tensor> picks, pmf_sums;
  for (int64_t t = 0; t < H; ++t) {
    Tensor logits = o.use_cache ? select(model.decode(next, mem, ctx, &caches), 1, 0)  // (B S, bins)
                                : select(model.decode(prefix, mem, ctx), 1, t);
    Tensor u = rand({B * S}, {.dtype = DType::Float64, .device = device}, &gen);
    CategoricalDraw d = draw_categorical(softmax(logits, -1), u, o.top_k, o.pmf_quantiles);
    picks.push_back(d.index);
    if (o.pmf_quantiles) pmf_sums.push_back(sum(reshape(d.pmf, {B, S, n_bins}), Dims{1}));
    next = reshape(add(d.index, Scalar(data::SeriesTokenizer::kSpecialTokens)), {B * S, 1});
    if (!o.use_cache) prefix = cat({prefix, next}, 1);
  }
  return {stack(picks, 1), o.pmf_quantiles ? stack(pmf_sums, 0) : Tensor()};
}

struct ForecastGraphs::Captured {
  cuda::Graph graph;
  Tensor context;           // the static input
  BatchDraws out;           // what each replay writes
  Generator gen;            // the graph's draws (core/philox_draw.h)
  int64_t encoder_calls = 0, decoder_tokens = 0;  // the model's work counters per batch
};

size_t ForecastGraphs::captured() const {
  size_t n = 0;
  for (const auto& [key, graph] : graphs_) n += graph != nullptr;
  return n;
}

BatchDraws ForecastGraphs::draw(Chronos& model, const Tensor& context, const ForecastOptions& o, Generator& gen) {
  const Device device = context.device();
  std::optional<cuda::DeferredChecks> deferred;  // the decoder's index checks: read with the bins, not per step
  if (device.is_cuda()) deferred.emplace("forecast (a batch of series)");
  if (o.cuda_graph == "off" || (o.cuda_graph == "auto" && !fallback_.empty())) return draw_batch(model, context, o, gen);
  auto eager = [&](const std::string& why) {
    if (o.cuda_graph == "on")
      throw_error("forecast", fmt::format("cuda_graph=on: the decoding cannot run as a CUDA graph: {} (cuda_graph=auto "
                                          "decodes eagerly instead)",
                                          why));
    fallback_ = why;
    return draw_batch(model, context, o, gen);
  };
  if (!device.is_cuda()) return eager(fmt::format("the model is on {}, not a CUDA device", device.str()));
  std::vector<const void*> parameters;
  for (const Tensor& p : model.parameters()) parameters.push_back(p.raw_data());
  if (parameters != parameters_) graphs_.clear(), parameters_ = std::move(parameters);
  const Key key{context.size(0), context.size(1), o.samples,   o.horizon, o.top_k,
                o.pmf_quantiles, o.use_cache,      gen.seed(), device.index};
  auto it = graphs_.find(key);
  if (it == graphs_.end()) {  // the first batch of its kind warms up eagerly
    graphs_.emplace(key, nullptr);
    return draw_batch(model, context, o, gen);
  }
  if (!it->second) {
    auto c = std::make_shared<Captured>();
    c->context = context.clone();
    c->gen.set_state(gen.seed(), 0);
    const int64_t encoder_calls = model.encoder_calls, decoder_tokens = model.decoder_tokens;
    try {
      c->graph.begin_capture(device.index);
      c->out = draw_batch(model, c->context, o, c->gen);
      c->graph.end_capture();
    } catch (const Error& e) {
      c->graph.abort_capture();
      model.encoder_calls = encoder_calls, model.decoder_tokens = decoder_tokens;
      graphs_.erase(it);
      return eager(fmt::format("capturing it failed: {}", e.what()));
    }
    c->encoder_calls = model.encoder_calls - encoder_calls, c->decoder_tokens = model.decoder_tokens - decoder_tokens;
    model.encoder_calls = encoder_calls, model.decoder_tokens = decoder_tokens;  // the replay below counts them
    it->second = c;
  } else {
    it->second->context.copy_(context);
  }
  Captured& c = *it->second;
  c.gen.set_state(gen.seed(), gen.offset());
  c.graph.replay();
  gen.set_state(gen.seed(), c.gen.offset());
  model.encoder_calls += c.encoder_calls, model.decoder_tokens += c.decoder_tokens;
  ++replays_;
  return {c.out.bins.clone(), c.out.pmf_sums.defined() ? c.out.pmf_sums.clone() : Tensor()};
}

}  // namespace hm::models
