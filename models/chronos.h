// Chronos (Ansari et al., 2024) with the Fourier head option (Gillman et al., ICLR 2025,
// section 6, Appendix D.2): a T5 encoder-decoder over the tokens of
// data/series_tokenizer.h that predicts a categorical distribution over the value bins.
//
//   encoder  context tokens (B, C + 1) (PAD where missing, masked out; EOS last)
//   decoder  [PAD (the start token), label tokens ...] (B, T), teacher-forced in training
//   head     linear: the T5's lm head (tied or untied) restricted to the bin tokens 2..V-1;
//            fourier: FourierHead(d_model, bins, N) on the decoder's hidden states (the
//            latent position of bin j is its index on [-1, 1], so mixed binning re-spaces values
//            without changing the head)
//   output   (B, T, bins) logits over the bins (the Fourier head's are log(pmf + 1e-5))
// An untied lm head starts N(0, d_model^-1/2) (unit-scale logits) instead of T5's N(0, 1).
//
// The bin centres of the tokenizer the model was trained with are a buffer ("bin_centres",
// float64), so a checkpoint carries its binning (mixed binning estimated from training data).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/data/series_tokenizer.h"
#include "harmonic/models/t5.h"
#include "harmonic/nn/fourier_head.h"

namespace hm::models {

class ForecastGraphs;  // models/chronos_decode.h

enum class ChronosHead { Linear, Fourier };

struct ChronosConfig {
  T5Config t5;  // vocab_size = the tokenizer's n_tokens
  ChronosHead head = ChronosHead::Linear;
  int64_t fourier_frequencies = 64;
  double fourier_gamma = 1e-6;  // the head's regulariser weight (0: none)
  int64_t context_length = 128;
  int64_t prediction_length = 16;
};

class Chronos : public nn::Module {
 public:
  Chronos(const ChronosConfig& config, const data::SeriesTokenizer& tokenizer, Generator* gen = nullptr);

  // context_ids int64 (B, C + 1) -> memory (B, C + 1, E); counts encoder_calls.
  Tensor encode(const Tensor& context_ids);
  // decoder_ids int64 (B, T) over memory -> bin logits (B, T, bins); counts decoder_tokens (B * T).
  Tensor decode(const Tensor& decoder_ids, const Tensor& memory, const Tensor& context_ids,
                std::vector<nn::DecoderLayerCache>* caches = nullptr);
  // Teacher forcing: context (B, C + 1), labels int64 (B, T) bins (kIgnoreLabel where missing)
  // -> bin logits (B, T, bins).
  Tensor forward(const Tensor& context_ids, const Tensor& labels);
  // Mean cross-entropy over the present labels, plus the Fourier head's regulariser. 0-d.
  Tensor loss(const Tensor& context_ids, const Tensor& labels);
  // Labels (B, T) -> decoder inputs: PAD, then label + 2 (PAD where missing) shifted right.
  static Tensor decoder_inputs(const Tensor& labels);

  // The tokenizer of the bin_centres buffer.
  data::SeriesTokenizer tokenizer() const;
  int64_t bins() const { return bin_centres.size(0); }

  ChronosConfig config;
  std::shared_ptr<T5> t5;
  std::shared_ptr<nn::FourierHead> fourier_head;  // null for the linear head
  Tensor bin_centres;                             // (bins) float64 buffer
  double low = -15, high = 15;

  // Work counters (not state): encoder passes and decoder tokens processed since construction.
  int64_t encoder_calls = 0, decoder_tokens = 0;
  // forecast()'s CUDA graphs (ForecastOptions::cuda_graph), kept across calls; null until used.
  std::shared_ptr<ForecastGraphs> forecast_graphs;
};

// Probabilistic forecasts: `samples` sample paths per series, drawn autoregressively with the
// encoder run once per batch of series (its memory repeated for the paths) and the decoder's
// KV cache (one new token per path per step; use_cache = false recomputes the whole prefix
// each step, for tests and timing). Runs in eval mode under no-grad.
struct ForecastOptions {
  int64_t horizon = 16;
  int64_t samples = 20;
  uint64_t seed = 0;     // the draws: one uniform per path and step
  bool use_cache = true;
  int64_t batch_series = 16;  // series encoded together
  int64_t context_length = 0;  // points of history the encoder reads; 0: the model's context_length
  // Draw each step from the top_k most likely bins only (renormalised; ties with the k-th kept, as
  // Hugging Face's top-k filter does); 0: the whole pmf. Chronos' released evaluation uses 50.
  int64_t top_k = 0;
  // The median and quantiles per step from the mean of the paths' predictive pmfs at that step
  // (the values spread evenly within each bin), instead of from the paths' drawn values: smooth
  // and exact at step 1, where every path shares one pmf; the paths are drawn as always.
  bool pmf_quantiles = false;
  // off: each batch decodes eagerly; on: a batch whose shape and options came before replays a
  // CUDA graph of its decoding (models/chronos_decode.h), and what cannot is an hm::Error;
  // auto: as on, decoding eagerly instead of raising (ForecastGraphs::fallback() says why).
  std::string cuda_graph = "off";
};

struct SeriesForecast {
  std::vector<std::vector<double>> paths;      // (samples, horizon)
  std::vector<double> median;                  // (horizon)
  std::vector<std::vector<double>> quantiles;  // (9, horizon) at 0.1 .. 0.9
  double scale = 1;                            // the context's mean |x|
};

// histories: one series each (NaN = missing); the last context_length points are the context.
std::vector<SeriesForecast> forecast(Chronos& model, const std::vector<std::vector<double>>& histories,
                                     const ForecastOptions& options);

// Bins -> values for the paths, and their median and quantiles per step.
SeriesForecast summarize_paths(std::vector<std::vector<double>> paths, double scale);

// The q-quantile of a pmf over bins with these increasing centres, the mass of each bin spread
// evenly between the midpoints to its neighbours (the end bins as wide as their neighbour gap).
double pmf_quantile(const std::vector<double>& centres, const std::vector<double>& pmf, double q);

}  // namespace hm::models
