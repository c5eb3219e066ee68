#include "harmonic/tools/tasks/audio_bpm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/error.h"
#include "harmonic/data/dataset.h"
#include "harmonic/nn/classification_metrics.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/ops/ops.h"

namespace hm::train {
namespace {

constexpr int64_t kEvalBatch = 250;
constexpr int64_t kExamples = 4;

data::MetronomeOptions clip_options(const Json& c) {
  data::MetronomeOptions o;
  o.seconds = c.at("seconds").get<double>();
  o.sample_rate = c.at("sample_rate").get<double>();
  o.min_snr_db = c.at("min_snr_db").get<double>();
  o.max_snr_db = c.at("max_snr_db").get<double>();
  return o;  // metronome_batch checks them, naming them
}

data::SpectrogramOptions spectrogram_options(const Json& c) {
  return {
      .n_fft = c.at("n_fft").get<int64_t>(), .hop = c.at("hop").get<int64_t>(), .bands = c.at("bands").get<int64_t>()};
}

}  // namespace

Json audio_bpm_defaults() {
  return {{"seed", 0},
          {"data_seed", 0},
          {"train_clips", 8000},
          {"test_clips", 1000},
          {"seconds", 4.0},
          {"sample_rate", 4000.0},
          {"min_snr_db", data::MetronomeOptions{}.min_snr_db},
          {"max_snr_db", data::MetronomeOptions{}.max_snr_db},
          {"n_fft", 256},
          {"hop", 128},
          {"bands", 16},
          {"patch_frames", 2},
          {"dim", 64},
          {"depth", 2},
          {"heads", 4},
          {"mlp_ratio", 2.0},
          {"dropout", 0.0},
          {"head", "linear"},
          {"fourier_frequencies", 2},
          {"fourier_gamma", 0.0},  // 0 for N < 10 (Gillman et al., section 2.3)
          {"lr", 3e-3},
          {"weight_decay", 0.01},
          {"batch_size", 32},
          {"trainer",
           {{"steps", 800},
            {"warmup_steps", 100},
            {"lr_schedule", "cosine"},
            {"end_lr_factor", 0.05},
            {"clip_grad_norm", 1.0},
            {"eval_every", 0}}}};
}

models::SpectrogramTransformerConfig audio_bpm_model_config(const Json& c, int64_t frames, int64_t bands) {
  models::SpectrogramTransformerConfig m;
  m.frames = frames, m.bands = bands;
  m.num_classes = data::kMetronomeBins;
  m.patch_frames = c.at("patch_frames").get<int64_t>();
  m.dim = c.at("dim").get<int64_t>();
  m.depth = c.at("depth").get<int64_t>();
  m.heads = c.at("heads").get<int64_t>();
  m.mlp_ratio = c.at("mlp_ratio").get<double>();
  m.dropout = c.at("dropout").get<double>();
  m.head = c.at("head").get<std::string>();
  m.fourier_frequencies = c.at("fourier_frequencies").get<int64_t>();
  m.fourier_gamma = c.at("fourier_gamma").get<double>();
  return m;  // the model's constructor checks them, naming them
}

std::shared_ptr<const AudioBpmData> audio_bpm_data(const Json& c) {
  const int64_t train = c.at("train_clips").get<int64_t>(), test = c.at("test_clips").get<int64_t>();
  check(train >= 1 && test >= 1, kAudioBpmTask, "train_clips and test_clips must be >= 1, got {} and {}", train, test);
  Json key = Json::object();
  for (const char* k : {"data_seed", "train_clips", "test_clips", "seconds", "sample_rate", "min_snr_db", "max_snr_db",
                        "n_fft", "hop", "bands"})
    key[k] = c.at(k);
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const AudioBpmData>> memo;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = memo[key.dump()];
  if (!slot) {
    const data::MetronomeOptions clips = clip_options(c);
    const data::SpectrogramOptions spec = spectrogram_options(c);
    const uint64_t seed = c.at("data_seed").get<uint64_t>();
    auto d = std::make_shared<AudioBpmData>();
    d->train = data::metronome_features(clips, spec, seed, 0, train);
    d->test = data::metronome_features(clips, spec, seed, train, test);
    slot = d;
  }
  return slot;
}

Json audio_bpm_metrics(const Tensor& scores, const Tensor& labels) {
  check(scores.dim() == 2 && labels.dim() == 1 && scores.size(0) == labels.size(0), "audio_bpm_metrics",
        "scores (n, classes) and labels (n) disagree: {} and {}", scores.desc(), labels.desc());
  NoGradGuard no_grad;
  const int64_t n = labels.size(0), classes = scores.size(1);
  Tensor pmf = models::SpectrogramTransformer::probabilities(scores.to(DType::Float64));
  Tensor predicted = argmax(scores, -1);
  const std::vector<int64_t> p = predicted.to_vector_as<int64_t>(), t = labels.to_vector_as<int64_t>();
  double correct = 0, within_one = 0, abs_error = 0;
  std::vector<bool> predicted_class(static_cast<size_t>(classes), false);
  for (size_t i = 0; i < p.size(); ++i) {
    predicted_class[static_cast<size_t>(p[i])] = true;
    const double e = std::abs(static_cast<double>(p[i] - t[i]));
    correct += e == 0, within_one += e <= 1, abs_error += e;
  }
  const double count = static_cast<double>(n);
  return {{"loss", cross_entropy(scores.to(DType::Float64), labels).item<double>()},
          {"accuracy", correct / count},
          {"macro_f1", nn::macro_f1(predicted, labels, classes)},
          {"within_one_accuracy", within_one / count},
          {"mean_abs_bin_error", abs_error / count},
          {"predicted_classes", std::count(predicted_class.begin(), predicted_class.end(), true)},
          {"smoothness", mean(nn::smoothness(pmf)).item<double>()}};
}

AudioBpmTask::AudioBpmTask(const Json& c, Device device)
    : config_(c), device_(device), gen_(c.at("seed").get<uint64_t>()) {
  const uint64_t seed = c.at("seed").get<uint64_t>();
  const int64_t batch = c.at("batch_size").get<int64_t>();
  check(batch >= 1, kAudioBpmTask, "batch_size must be >= 1, got {}", batch);
  // The model first: a bad model key fails before the clips are made.
  const data::SpectrogramOptions spec = spectrogram_options(c);
  const data::MetronomeOptions clips = clip_options(c);
  const int64_t frames = data::spectrogram_frames(std::llround(clips.seconds * clips.sample_rate), spec);
  model_ = std::make_shared<models::SpectrogramTransformer>(audio_bpm_model_config(c, frames, spec.bands), &gen_);
  model_->to(device);
  data_ = audio_bpm_data(c);
  const Tensor& x = data_->train.features;  // (N, frames, bands)
  loader_ = std::make_unique<data::DataLoader>(std::make_shared<data::TensorDataset>(x, data_->train.labels),
                                               data::LoaderOptions{.batch_size = batch, .shuffle = true, .seed = seed});
  optim::AdamOptions o;
  o.lr = c.at("lr").get<double>();
  const double wd = c.at("weight_decay").get<double>();
  check(o.lr > 0 && wd >= 0, kAudioBpmTask, "need lr > 0 and weight_decay >= 0, got {} and {}", o.lr, wd);
  o.weight_decay = wd;
  // The learned positions are an embedding table of one row per token: not decayed (as AST's).
  auto no_decay = [](const std::string& name, const Tensor& p) {
    return name == "positions" || optim::default_no_decay(name, p);
  };
  optimizer_ = std::make_unique<optim::AdamW>(optim::param_groups_no_decay(*model_, wd, no_decay), o);
}

Tensor AudioBpmTask::loss(const data::Batch& batch) { return model_->loss(model_->forward(batch.input), batch.target); }

Tensor AudioBpmTask::test_scores() {
  NoGradGuard no_grad;
  const Tensor& x = data_->test.features;
  std::vector<Tensor> out;
  for (int64_t i = 0; i < x.size(0); i += kEvalBatch)
    out.push_back(model_->forward(narrow(x, 0, i, std::min(kEvalBatch, x.size(0) - i)).to(device_)).to(Device::cpu()));
  return cat(out, 0);
}

Json AudioBpmTask::evaluate() {
  Tensor scores = test_scores();
  Json result = audio_bpm_metrics(scores, data_->test.labels);
  // Four fixed test clips spread over the test set (Figure 7's single example, four times).
  Tensor pmf = models::SpectrogramTransformer::probabilities(scores.to(DType::Float64));
  const std::vector<int64_t> labels = data_->test.labels.to_vector_as<int64_t>(),
                             bpm = data_->test.bpm.to_vector_as<int64_t>();
  Json pmfs = Json::array(), ex_labels = Json::array(), ex_bpm = Json::array();
  const int64_t n = scores.size(0), count = std::min(kExamples, n);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = k * n / count;
    pmfs.push_back(select(pmf, 0, i).to_vector());
    ex_labels.push_back(labels[static_cast<size_t>(i)]);
    ex_bpm.push_back(bpm[static_cast<size_t>(i)]);
  }
  result["example_pmfs"] = pmfs;
  result["example_labels"] = ex_labels;
  result["example_bpm"] = ex_bpm;
  return result;
}

namespace {

const TaskRegistration audio_bpm_registration{with_smoke(
    {kAudioBpmTask,
     "Fourier head Appendix C.1 (audio tempo, Figure 7) on generated metronome clips: a spectrogram transformer "
     "classifies 50..210 BPM into 32 bins of 5 BPM with a linear or Fourier head",
     audio_bpm_defaults(),
     [](const Json& config, Device device) { return std::make_unique<AudioBpmTask>(config, device); }},
    {{"train_clips", 64}, {"test_clips", 32}, {"seconds", 2.0}, {"dim", 32}, {"depth", 1}, {"head", "fourier"}, {"batch_size", 16}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 1}}}})};

}  // namespace
}  // namespace hm::train
