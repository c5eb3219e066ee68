// Task "chronos": the Fourier head paper's Chronos study (Gillman et al., section 6, Appendix
// D.2) at this machine's scale. A T5 encoder-decoder (models/chronos.h) learns next-value
// distributions over 4096 - 2 bins of mean-scaled series, with a linear or a Fourier head and
// uniform or mixed-precision binning, trained on generated series, KernelSynth plus TSMixup
// (data/generated_series.h), and optionally on real series (real_series: a directory of CSVs,
// with real_mixup_series TSMixup mixtures of them), as random (context, horizon) windows. With
// min_past < context_length a window's context may start before its series (PAD tokens), as
// Chronos trains on short series.
//
// validate(), with validation_generated > 0: evaluate()'s scores (without the test_ prefix) on
// that many KernelSynth series of a stream of their own; or when validation_series names a
// directory of CSVs: `harmonic forecast --eval`'s
// protocol on each series (its last validation_horizon points held out, the season from its
// dates): mase, wql (relative to seasonal naive, geometric mean over series) and series; and
// mase_sets, wql_sets, sets with each data set weighing the same (a file <set>_<name>.csv or
// <set>.csv is one of set's series; the geometric mean over sets of each set's). The trainer
// records them as val_mase, ...; trainer.monitor may pick on them.
//
// evaluate(), on held-out KernelSynth series (their last `horizon` points):
//   test_loss        cross-entropy of the teacher-forced next-bin distributions
//   test_smoothness  mean smoothness (Definition 3.2) of those next-bin pmfs
//   test_mase / test_wql  relative to seasonal naive (season_length), geometric mean over
//                    series of model / naive, from eval_samples sampled paths (from the
//                    eval_top_k most likely bins of each step when > 0; median for
//                    MASE, quantiles 0.1..0.9 for WQL); < 1 beats seasonal naive
//   test_mase_mean / test_wql_mean  the plain means; test_series the series counted
//   test_mase_period / test_wql_period  the same relative scores with each series' own season:
//                    the shortest period of its KernelSynth kernel that fits twice in the
//                    context (1 without one); test_period_series the series with a season > 1
// Chronos' defaults where they fit: AdamW lr 1e-3 with linear decay, weight decay 0.01,
// context 512 / horizon 64 in the paper (128 / 16 here), 20 sample paths.
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/generated_series.h"
#include "harmonic/data/series_rng.h"
#include "harmonic/data/series_windows.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/nn/forecast_metrics.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/tasks/chronos_real_series.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {
namespace {

data::SeriesTokenizer make_tokenizer(const Json& c, const std::vector<std::vector<double>>& train) {
  const auto binning = c.at("binning").get<std::string>();
  const int64_t n_tokens = c.at("n_tokens").get<int64_t>();
  check(binning == "uniform" || binning == "mixed", kChronosTask, "binning must be \"uniform\" or \"mixed\", got \"{}\"",
        binning);
  if (binning == "uniform") return data::SeriesTokenizer::uniform(n_tokens);
  auto [dense_low, dense_high] =
      data::estimate_dense_interval(train, c.at("context_length").get<int64_t>(),
                                    c.at("mixed_lower_quantile").get<double>(), c.at("mixed_upper_quantile").get<double>());
  return data::SeriesTokenizer::mixed(n_tokens, dense_low, dense_high, c.at("mixed_sparse_fraction").get<double>());
}

// The real training series (real_series) and real_mixup_series TSMixup mixtures of them, each
// left-padded for min_past; series too short for kMinObserved context points and a horizon are
// left out. Empty without real_series.
std::vector<std::vector<double>> real_training_series(const Json& c, int64_t min_past) {
  const std::string dir = c.value("real_series", std::string());
  const int64_t mixups = c.value("real_mixup_series", int64_t{0});
  check(mixups >= 0, kChronosTask, "real_mixup_series must be >= 0, got {}", mixups);
  if (dir.empty()) {
    check(mixups == 0, kChronosTask, "real_mixup_series {} needs real_series (a directory of CSVs)", mixups);
    return {};
  }
  const int64_t C = c.at("context_length").get<int64_t>(), H = c.at("horizon").get<int64_t>();
  std::vector<std::vector<double>> pool;
  for (auto& x : read_real_series(dir).values)
    if (std::ssize(x) >= kMinObserved + H) pool.push_back(std::move(x));
  check(!pool.empty(), kChronosTask, "real_series '{}': no series has the {} points a window needs", dir,
        kMinObserved + H);
  data::TSMixupOptions mix;
  mix.min_length = std::min<int64_t>(min_past + H, C + H);
  mix.max_length = 4 * (C + H);
  const uint64_t seed = c.at("seed").get<uint64_t>();
  std::vector<std::vector<double>> out;
  for (const auto& x : pool) out.push_back(left_padded(x, C, H, min_past));
  for (int64_t i = 0; i < mixups; ++i) {
    std::vector<double> x = data::ts_mixup(pool, mix, data::mix_seed(seed, 12, static_cast<uint64_t>(i)));
    if (std::ssize(x) >= kMinObserved + H) out.push_back(left_padded(x, C, H, min_past));
  }
  return out;
}

class ChronosTask : public Task {
 public:
  ChronosTask(const Json& c, Device device) : config_(c), gen_(c.at("seed").get<uint64_t>()) {
    const uint64_t seed = c.at("seed").get<uint64_t>();
    const models::ChronosConfig mc = chronos_model_config(c);
    C_ = mc.context_length, H_ = mc.prediction_length;
    batch_ = c.at("batch_size").get<int64_t>();
    samples_ = c.at("eval_samples").get<int64_t>();
    season_ = c.at("season_length").get<int64_t>();
    top_k_ = c.value("eval_top_k", int64_t{0});  // absent in older configs
    check(batch_ >= 1 && samples_ >= 1 && season_ >= 1, kChronosTask,
          "batch_size, eval_samples and season_length must be >= 1, got {}, {}, {}", batch_, samples_, season_);
    check(top_k_ >= 0, kChronosTask, "eval_top_k must be >= 0 (0: the whole pmf), got {}", top_k_);
    data::GeneratedSeriesOptions g;
    g.kernel_synth_series = c.at("series").get<int64_t>();
    g.mixup_series = c.at("mixup_series").get<int64_t>();
    g.held_out_series = c.at("held_out_series").get<int64_t>();
    g.validation_series = c.value("validation_generated", int64_t{0});
    check(g.validation_series >= 0, kChronosTask, "validation_generated must be >= 0, got {}", g.validation_series);
    g.synth.length = c.at("series_length").get<int64_t>();
    g.synth.max_kernels = c.at("max_kernels").get<int64_t>();
    g.mixup.min_length = C_ + H_;
    g.seed = seed;
    check(g.synth.length >= C_ + H_, kChronosTask, "series_length {} must be >= context_length + horizon = {}",
          g.synth.length, C_ + H_);
    check(g.held_out_series >= 1, kChronosTask, "held_out_series must be >= 1, got {}", g.held_out_series);
    data::GeneratedSeries series = data::generate_series(g);
    const int64_t min_past_key = c.value("min_past", int64_t{0});  // absent in older configs
    const int64_t min_past = min_past_key == 0 ? C_ : min_past_key;
    check(min_past >= 1 && min_past <= C_, kChronosTask, "min_past must be in [1, context_length = {}] (0: {}), got {}",
          C_, C_, min_past);
    std::vector<std::vector<double>> real = real_training_series(c, min_past);
    const data::SeriesTokenizer tok = make_tokenizer(c, series.train);
    if (min_past < C_)
      for (auto& x : series.train) x = left_padded(x, C_, H_, min_past);

    model_ = std::make_shared<models::Chronos>(mc, tok, &gen_);
    model_->to(device);
    data::SeriesWindows train =
        data::random_windows(series.train, tok, C_, H_, c.at("windows_per_series").get<int64_t>(), seed);
    if (!real.empty()) {
      const int64_t per = c.value("real_windows_per_series", int64_t{16});
      check(per >= 1, kChronosTask, "real_windows_per_series must be >= 1, got {}", per);
      data::SeriesWindows r = data::random_windows(real, tok, C_, H_, per, data::mix_seed(seed, 31, 0));
      train.context = cat({train.context, r.context}), train.labels = cat({train.labels, r.labels});
    }
    loader_ = std::make_unique<data::DataLoader>(std::make_shared<data::TensorDataset>(train.context, train.labels),
                                                 data::LoaderOptions{.batch_size = batch_, .shuffle = true, .seed = seed});
    validation_dir_ = c.value("validation_series", std::string());
    check(validation_dir_.empty() || g.validation_series == 0, kChronosTask,
          "validate on real series (validation_series '{}') or on generated ones (validation_generated {}), not both",
          validation_dir_, g.validation_series);
    validation_horizon_ = c.value("validation_horizon", int64_t{12});
    check(validation_horizon_ >= 1, kChronosTask, "validation_horizon must be >= 1, got {}", validation_horizon_);
    test_ = generated_split(std::move(series.held_out), series.held_out_kernels, tok, device);
    if (!series.validation.empty())
      validation_ = generated_split(std::move(series.validation), series.validation_kernels, tok, device);
    optim::AdamOptions o;
    o.lr = c.at("lr").get<double>();
    o.weight_decay = c.at("weight_decay").get<double>();
    check(o.lr > 0 && o.weight_decay >= 0, kChronosTask, "need lr > 0 and weight_decay >= 0, got {} and {}", o.lr,
          o.weight_decay);
    optimizer_ = std::make_unique<optim::AdamW>(model_->named_parameters(), o);
  }

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return model_->loss(b.input, b.target); }
  optim::NamedGenerators generators() override { return {{"model", &gen_}}; }

  Json validate() override {
    if (!validation_.series.empty()) return score(validation_);
    if (validation_dir_.empty()) return Json::object();
    ForecastCsvOptions o;
    o.csv = validation_dir_;
    o.horizon = validation_horizon_;
    o.samples = samples_;
    o.seed = 1234;  // a fixed seed of its own, as evaluate()
    o.top_k = top_k_;
    o.pmf_quantiles = true;
    o.eval = true;
    const ForecastCsvResult r = forecast_csv(*model_, o);
    std::vector<std::string> sets;  // a file <set>_<series>.csv, or <set>.csv, or <set>.csv's columns
    for (const std::string& name : r.names) sets.push_back(name.substr(0, name.find_first_of("_/")));
    const nn::RelativeScores by_set = nn::relative_scores_by_group(r.scores, sets);
    return {{"mase", r.relative->relative_mase}, {"wql", r.relative->relative_wql}, {"series", r.relative->series},
            {"mase_sets", by_set.relative_mase}, {"wql_sets", by_set.relative_wql}, {"sets", by_set.series}};
  }

  Json evaluate() override {
    const Json scores = score(test_);
    Json out;
    for (const auto& [k, v] : scores.items()) out["test_" + k] = v;
    return out;
  }

 private:
  // Generated series scored on their last H points (evaluate(): the held-out ones; validate():
  // the validation ones).
  struct GeneratedSplit {
    std::vector<std::vector<double>> series;
    std::vector<int64_t> seasons;  // each series' season (its kernel's period, or 1)
    Tensor context, labels;        // (N, C + 1), (N, H) on the device
  };
  GeneratedSplit generated_split(std::vector<std::vector<double>> series, const std::vector<data::KernelComposition>& kernels,
                                 const data::SeriesTokenizer& tok, Device device) const {
    GeneratedSplit g;
    g.series = std::move(series);
    for (const data::KernelComposition& k : kernels) g.seasons.push_back(k.season_length(C_ / 2));
    data::SeriesWindows w = data::tail_windows(g.series, tok, C_, H_);
    g.context = w.context.to(device), g.labels = w.labels.to(device);
    return g;
  }

  Json score(const GeneratedSplit& split) {
    double ce_sum = 0, smooth_sum = 0;
    int64_t pmfs = 0;
    const int64_t n = split.context.size(0);
    for (int64_t i = 0; i < n; i += batch_) {
      const int64_t e = std::min(n, i + batch_);
      Tensor ctx = slice(split.context, 0, i, e), lab = slice(split.labels, 0, i, e);
      Tensor logits = model_->forward(ctx, lab);  // (b, H, bins)
      ce_sum += cross_entropy(reshape(logits, {-1, model_->bins()}), reshape(lab, {-1})).item<double>() *
                static_cast<double>(e - i);
      Tensor s = nn::smoothness(reshape(softmax(logits, -1), {-1, model_->bins()}));  // (b H)
      smooth_sum += sum(s).item<double>();
      pmfs += s.numel();
    }
    std::vector<std::vector<double>> histories;
    for (const auto& x : split.series) histories.emplace_back(x.begin(), x.end() - H_);
    // A fixed seed of its own: evaluation draws nothing from a checkpointed generator.
    std::vector<models::SeriesForecast> fc =
        models::forecast(*model_, histories, {.horizon = H_, .samples = samples_, .seed = 1234, .top_k = top_k_});
    std::vector<nn::SeriesScores> scores, period_scores;
    int64_t seasonal = 0;
    for (size_t i = 0; i < split.series.size(); ++i) {
      std::vector<double> truth(split.series[i].end() - H_, split.series[i].end());
      scores.push_back(nn::score_series(histories[i], truth, fc[i].median, fc[i].quantiles, season_));
      period_scores.push_back(nn::score_series(histories[i], truth, fc[i].median, fc[i].quantiles, split.seasons[i]));
      seasonal += split.seasons[i] > 1;
    }
    nn::RelativeScores r = nn::relative_scores(scores), rp = nn::relative_scores(period_scores);
    return {{"loss", ce_sum / static_cast<double>(n)},
            {"smoothness", smooth_sum / static_cast<double>(pmfs)},
            {"mase", r.relative_mase},
            {"wql", r.relative_wql},
            {"mase_mean", r.mean_mase},
            {"wql_mean", r.mean_wql},
            {"series", r.series},
            {"mase_period", rp.relative_mase},
            {"wql_period", rp.relative_wql},
            {"period_series", seasonal}};
  }

  Json config_;
  Generator gen_;  // init and dropout
  int64_t C_ = 0, H_ = 0, batch_ = 0, samples_ = 0, season_ = 1, top_k_ = 0;
  std::shared_ptr<models::Chronos> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::AdamW> optimizer_;
  GeneratedSplit test_, validation_;  // validation_: empty without validation_generated
  std::string validation_dir_;
  int64_t validation_horizon_ = 12;
};

const TaskRegistration chronos_task_registration{with_smoke(
    {kChronosTask,
     "Fourier head paper section 6 (Chronos): a T5 forecaster with a linear or Fourier head over 4094 value bins, "
     "trained on generated KernelSynth + TSMixup series; held-out MASE / WQL relative to seasonal naive and pmf "
     "smoothness",
     chronos_defaults(), [](const Json& config, Device device) { return std::make_unique<ChronosTask>(config, device); }},
    {{"series", 24}, {"mixup_series", 8}, {"held_out_series", 6}, {"series_length", 48}, {"context_length", 24}, {"horizon", 4}, {"d_model", 16}, {"d_ff", 32}, {"num_layers", 1}, {"num_heads", 2}, {"d_kv", 8}, {"windows_per_series", 4}, {"batch_size", 8}, {"eval_samples", 4}, {"dropout", 0.0}, {"head", "fourier"}, {"fourier_frequencies", 16}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}})};

}  // namespace
}  // namespace hm::train
