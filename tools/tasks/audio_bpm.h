// Task "audio-bpm": the Fourier head paper's audio tempo toy (Appendix C.1, Figure 7) on
// generated metronome clips (data/metronome.h): a small spectrogram transformer
// (models/spectrogram_transformer.h) classifies the tempo into 32 bins of 5 BPM with a linear
// or a Fourier head.
//
//   build/harmonic train audio-bpm --out runs/bpm --set head=fourier --set fourier_frequencies=2
//
// Config keys (flat): seed (weights, shuffling); data: data_seed, train_clips, test_clips (the
// test clips are the data set's next indices: no clip in both), seconds, sample_rate,
// min_snr_db, max_snr_db, n_fft, hop, bands (the log spectrogram of data/metronome_spectrogram.h, computed once per
// clip and shared by every task of the process with the same data keys); model: patch_frames,
// dim, depth, heads, mlp_ratio, dropout, head ("linear" | "fourier"), fourier_frequencies,
// fourier_gamma; optimiser (AdamW, decay on matrices only): lr, weight_decay, batch_size; and
// the trainer section.
//
// evaluate() on the test clips -> {"loss", "accuracy", "macro_f1" (sklearn's macro average),
// "within_one_accuracy" (predicted bin at most one away), "mean_abs_bin_error",
// "predicted_classes" (how many of the 32 classes the argmax ever picks), "smoothness"
// (mean Definition 3.2 smoothness of the predicted pmfs), "example_pmfs", "example_labels",
// "example_bpm" (4 fixed test clips, for the Figure 7-style plots)}.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>

#include "harmonic/core/device.h"
#include "harmonic/core/random.h"
#include "harmonic/data/metronome_spectrogram.h"
#include "harmonic/models/spectrogram_transformer.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {

inline constexpr const char* kAudioBpmTask = "audio-bpm";

Json audio_bpm_defaults();
models::SpectrogramTransformerConfig audio_bpm_model_config(const Json& config, int64_t frames, int64_t bands);

// The train and test features of a config's data keys, made once per process and shared
// (study runs in parallel threads need the same clips).
struct AudioBpmData {
  data::MetronomeFeatures train, test;
};
std::shared_ptr<const AudioBpmData> audio_bpm_data(const Json& config);

// The metrics of evaluate() for scores (n, classes) against labels (n) (example_* excluded).
Json audio_bpm_metrics(const Tensor& scores, const Tensor& labels);

class AudioBpmTask : public Task {
 public:
  AudioBpmTask(const Json& config, Device device);

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& batch) override;
  Json evaluate() override;
  optim::NamedGenerators generators() override { return {{"dropout", &gen_}}; }

  models::SpectrogramTransformer& transformer() { return *model_; }
  const AudioBpmData& data() const { return *data_; }
  // Scores (n, classes) of the test clips, in batches.
  Tensor test_scores();

 private:
  Json config_;
  Device device_;
  Generator gen_;
  std::shared_ptr<const AudioBpmData> data_;
  std::shared_ptr<models::SpectrogramTransformer> model_;
  std::unique_ptr<optim::AdamW> optimizer_;
  std::unique_ptr<data::DataLoader> loader_;
};

}  // namespace hm::train
