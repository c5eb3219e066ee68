// A small spectrogram transformer for the audio tempo toy (Fourier head paper, Appendix C.1:
// the Audio Spectrogram Transformer with a linear or a Fourier classification head), sized for
// minutes of CPU training and without AudioSet pretraining:
//
//   spectrogram (B, frames, bands) -> tokens of patch_frames frames (B, N, patch_frames bands)
//   -> Linear -> + positions (B, N, dim) -> pre-norm encoder blocks -> norm -> mean over tokens
//   -> head: Linear(dim, classes) logits, or FourierHead(dim, classes, N) log-pmf (B, classes)
//
// Tokens are time slices over every band (not AST's 16 x 16 patches of frequency and time):
// tempo lives on the time axis, and a clip has 126 frames of 16 bands. Positions are learned
// (as AST's) and start as the sinusoids of "Attention is all you need" (sin/cos of t / 10000^(2i/dim)):
// attention that gathers the click frames then sums sinusoids of their times, a comb whose
// response already depends on the click period.
#pragma once
#include <memory>
#include <string>

#include "harmonic/core/random.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/transformer.h"

namespace hm::models {

struct SpectrogramTransformerConfig {
  int64_t frames = 126, bands = 16;  // the input (data/metronome_spectrogram.h defaults)
  int64_t patch_frames = 1;          // frames per token; frames % patch_frames are dropped
  int64_t num_classes = 32;
  int64_t dim = 64, depth = 2, heads = 4;
  double mlp_ratio = 2.0;
  double dropout = 0.0;
  std::string head = "linear";      // "linear" | "fourier"
  int64_t fourier_frequencies = 2;  // the paper's 1-2 for this task
  double fourier_gamma = 0.0;       // 0 for N < 10 (Gillman et al., section 2.3)

  int64_t tokens() const { return frames / patch_frames; }
};

class SpectrogramTransformer : public nn::UnaryModule {
 public:
  // Throws naming "SpectrogramTransformer" for a config that does not fit.
  explicit SpectrogramTransformer(const SpectrogramTransformerConfig& config, Generator* gen = nullptr);

  // (B, frames, bands) -> scores (B, classes): logits (linear) or log(pmf + 1e-5) (Fourier),
  // either one the logits of cross_entropy.
  Tensor forward(const Tensor& spectrogram) override;
  // (B, frames, bands) -> the pooled features the head reads (B, dim).
  Tensor features(const Tensor& spectrogram);
  // Cross-entropy of scores (B, classes) against labels (B), plus the Fourier regulariser of
  // the last forward when gamma > 0. 0-d.
  Tensor loss(const Tensor& scores, const Tensor& labels) const;
  // Scores (B, classes) -> pmfs (B, classes): softmax (for the Fourier head, renormalising
  // pmf + 1e-5, which is how cross-entropy reads it).
  static Tensor probabilities(const Tensor& scores);

  SpectrogramTransformerConfig config;
  std::shared_ptr<nn::Linear> proj;                 // (patch_frames bands) -> dim
  Tensor positions;                                 // (1, N, dim) learned
  std::shared_ptr<nn::TransformerEncoder> encoder;  // pre-norm, with its final norm
  std::shared_ptr<nn::Linear> linear_head;          // head == "linear"
  std::shared_ptr<nn::FourierHead> fourier_head;    // head == "fourier"
};

}  // namespace hm::models
