#include "harmonic/models/chronos.h"

#include "harmonic/models/chronos_decode.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/forecast_metrics.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/ops.h"

namespace hm::models {
namespace {

constexpr double kPad = static_cast<double>(data::SeriesTokenizer::kPad);

Tensor context_mask(const Tensor& context_ids) { return ne(context_ids, full_like(context_ids, kPad)); }

}  // namespace

Chronos::Chronos(const ChronosConfig& c, const data::SeriesTokenizer& tok, Generator* gen)
    : nn::Module("Chronos"), config(c), low(tok.low()), high(tok.high()) {
  check(c.t5.vocab_size == tok.n_tokens(), "Chronos", "T5 vocab_size {} must equal the tokenizer's {} tokens",
        c.t5.vocab_size, tok.n_tokens());
  check(c.context_length >= 1 && c.prediction_length >= 1, "Chronos",
        "context_length and prediction_length must be >= 1, got {} and {}", c.context_length, c.prediction_length);
  T5Config t5c = c.t5;
  t5c.pad_token_id = t5c.decoder_start_token_id = data::SeriesTokenizer::kPad;
  t5c.eos_token_id = data::SeriesTokenizer::kEos;
  config.t5 = t5c;
  t5 = register_module("t5", std::make_shared<T5>(t5c, gen));
  if (t5->lm_head) {
    // Hugging Face's N(0, 1) untied lm head makes logits of std sqrt(d_model) at init (a
    // starting cross-entropy near 20 at d_model 64, against ln 4094 = 8.3 for uniform);
    // N(0, d_model^-1/2) gives unit-scale logits, as the tied head's rescale does.
    NoGradGuard no_grad;
    nn::init::normal_(t5->lm_head->weight, 0.0, 1.0 / std::sqrt(static_cast<double>(t5c.d_model)), gen);
  }
  if (c.head == ChronosHead::Fourier) {
    check(c.fourier_frequencies >= 1 && 2 * c.fourier_frequencies < tok.bins(), "Chronos",
          "fourier_frequencies must be in [1, bins / 2) = [1, {}), got {}", tok.bins() / 2, c.fourier_frequencies);
    // Weight / bias denominators 1000 / 10: the authors' time-series code (the paper, section 2.3, says 1000).
    fourier_head = register_module("fourier_head", std::make_shared<nn::FourierHead>(
                                                       t5c.d_model, tok.bins(), c.fourier_frequencies,
                                                       c.fourier_gamma, 1000.0, 10.0, gen));
  }
  bin_centres = register_buffer("bin_centres", from_vector(tok.centres(), {tok.bins()}));
}

data::SeriesTokenizer Chronos::tokenizer() const {
  return data::SeriesTokenizer(bin_centres.to(Device::cpu()).to_vector(), low, high);
}

Tensor Chronos::encode(const Tensor& context_ids) {
  ++encoder_calls;
  return t5->encode(context_ids, context_mask(context_ids));
}

Tensor Chronos::decode(const Tensor& decoder_ids, const Tensor& memory, const Tensor& context_ids,
                       std::vector<nn::DecoderLayerCache>* caches) {
  decoder_tokens += decoder_ids.numel();
  Tensor h = t5->decode_hidden(decoder_ids, memory, context_mask(context_ids), caches);  // (B, T, E)
  if (fourier_head) return fourier_head->forward(h);
  return narrow(t5->lm_logits(h), -1, data::SeriesTokenizer::kSpecialTokens, bins());  // (B, T, bins)
}

Tensor Chronos::decoder_inputs(const Tensor& labels) {
  HM_CHECK(labels.defined() && labels.dtype() == DType::Int64 && labels.dim() == 2, "Chronos",
           "labels must be int64 (B, T), got {}", labels.desc());
  NoGradGuard no_grad;
  Tensor tokens = add(labels, data::SeriesTokenizer::kSpecialTokens);
  tokens = where(lt(labels, 0.0), full_like(labels, kPad), tokens);
  Tensor start = full({labels.size(0), 1}, kPad, {.dtype = DType::Int64, .device = labels.device()});
  return cat({start, narrow(tokens, 1, 0, labels.size(1) - 1)}, 1);
}

Tensor Chronos::forward(const Tensor& context_ids, const Tensor& labels) {
  HM_CHECK(context_ids.defined() && context_ids.dtype() == DType::Int64 && context_ids.dim() == 2, "Chronos",
           "context ids must be int64 (B, C + 1), got {}", context_ids.desc());
  return decode(decoder_inputs(labels), encode(context_ids), context_ids);
}

Tensor Chronos::loss(const Tensor& context_ids, const Tensor& labels) {
  Tensor logits = forward(context_ids, labels);  // (B, T, bins)
  Tensor ce = cross_entropy(reshape(logits, {-1, bins()}), reshape(labels, {-1}),
                            {.ignore_index = data::SeriesTokenizer::kIgnoreLabel});
  if (fourier_head && fourier_head->gamma > 0) ce = add(ce, fourier_head->regularization_loss().to(ce.dtype()));
  return ce;
}

SeriesForecast summarize_paths(std::vector<std::vector<double>> paths, double scale) {
  SeriesForecast f;
  f.scale = scale;
  const size_t horizon = paths.empty() ? 0 : paths[0].size();
  const std::vector<double> levels = nn::forecast_quantile_levels();
  f.quantiles.assign(levels.size(), std::vector<double>(horizon));
  f.median.resize(horizon);
  std::vector<double> column(paths.size());
  for (size_t h = 0; h < horizon; ++h) {
    for (size_t s = 0; s < paths.size(); ++s) column[s] = paths[s][h];
    f.median[h] = nn::sample_quantile(column, 0.5);
    for (size_t q = 0; q < levels.size(); ++q) f.quantiles[q][h] = nn::sample_quantile(column, levels[q]);
  }
  f.paths = std::move(paths);
  return f;
}

double pmf_quantile(const std::vector<double>& c, const std::vector<double>& pmf, double q) {
  check(c.size() >= 2 && pmf.size() == c.size() && q >= 0 && q <= 1, "pmf_quantile",
        "need >= 2 centres, a pmf as long ({} and {}) and q in [0, 1], got q = {}", c.size(), pmf.size(), q);
  const size_t n = c.size();
  auto lower = [&](size_t j) { return j == 0 ? c[0] - (c[1] - c[0]) / 2 : (c[j - 1] + c[j]) / 2; };
  auto upper = [&](size_t j) { return j == n - 1 ? c[j] + (c[j] - c[j - 1]) / 2 : (c[j] + c[j + 1]) / 2; };
  double total = 0;
  for (double p : pmf) total += p;
  const double target = q * total;
  double acc = 0;
  for (size_t j = 0; j < n; ++j) {
    if (pmf[j] > 0 && acc + pmf[j] >= target)
      return lower(j) + std::clamp((target - acc) / pmf[j], 0.0, 1.0) * (upper(j) - lower(j));
    acc += pmf[j];
  }
  return upper(n - 1);
}

std::vector<SeriesForecast> forecast(Chronos& model, const std::vector<std::vector<double>>& histories,
                                     const ForecastOptions& o) {
  check(o.horizon >= 1 && o.samples >= 1 && o.batch_series >= 1, "forecast",
        "need horizon, samples and batch_series >= 1, got {}, {}, {}", o.horizon, o.samples, o.batch_series);
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const data::SeriesTokenizer tok = model.tokenizer();
  const Device device = model.bin_centres.device();
  check(o.context_length >= 0, "forecast", "context_length must be >= 0 (0: the model's), got {}", o.context_length);
  check(o.top_k >= 0, "forecast", "top_k must be >= 0 (0: the whole pmf), got {}", o.top_k);
  check(o.cuda_graph == "off" || o.cuda_graph == "on" || o.cuda_graph == "auto", "forecast",
        "cuda_graph '{}' is not off, on or auto", o.cuda_graph);
  const int64_t C = o.context_length > 0 ? o.context_length : model.config.context_length;
  const int64_t S = o.samples, H = o.horizon;
  const std::vector<double> levels = nn::forecast_quantile_levels();
  Generator gen(o.seed);
  std::vector<SeriesForecast> out;
  for (size_t first = 0; first < histories.size(); first += static_cast<size_t>(o.batch_series)) {
    const size_t last = std::min(histories.size(), first + static_cast<size_t>(o.batch_series));
    const auto B = static_cast<int64_t>(last - first);
    std::vector<int64_t> ids;
    std::vector<double> scales;
    for (size_t i = first; i < last; ++i) {
      data::SeriesTokenizer::Context c = tok.encode_context(histories[i], C);
      ids.insert(ids.end(), c.ids.begin(), c.ids.end());
      scales.push_back(c.scale);
    }
    const Tensor context = from_vector(ids, {B, C + 1}).to(device);
    if (!model.forecast_graphs) model.forecast_graphs = std::make_shared<ForecastGraphs>();
    const BatchDraws draws = model.forecast_graphs->draw(model, context, o, gen);
    const std::vector<int64_t> bins = draws.bins.to_vector_as<int64_t>();  // the batch's one read back
    const std::vector<double> pmf_sums = o.pmf_quantiles ? draws.pmf_sums.to_vector() : std::vector<double>();
    const int64_t n_bins = model.bins();
    for (int64_t b = 0; b < B; ++b) {
      std::vector<std::vector<double>> paths(static_cast<size_t>(S), std::vector<double>(static_cast<size_t>(H)));
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < H; ++h) paths[s][h] = tok.value_of_bin(bins[(b * S + s) * H + h], scales[b]);
      out.push_back(summarize_paths(std::move(paths), scales[b]));
      if (!o.pmf_quantiles) continue;
      for (int64_t h = 0; h < H; ++h) {
        const auto first_bin = pmf_sums.begin() + (h * B + b) * n_bins;
        const std::vector<double> mean(first_bin, first_bin + n_bins);  // unnormalised: quantiles read ratios
        out.back().median[h] = pmf_quantile(tok.centres(), mean, 0.5) * scales[b];
        for (size_t q = 0; q < levels.size(); ++q)
          out.back().quantiles[q][h] = pmf_quantile(tok.centres(), mean, levels[q]) * scales[b];
      }
    }
  }
  model.train(was_training);
  return out;
}

}  // namespace hm::models
