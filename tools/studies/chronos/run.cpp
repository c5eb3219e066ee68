#include "harmonic/tools/studies/chronos/run.h"

#include <algorithm>
#include <filesystem>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/data/generated_series.h"
#include "harmonic/data/series_windows.h"
#include "harmonic/models/chronos.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace {

constexpr int64_t kExamples = 2;       // held-out series drawn in the figures
constexpr int64_t kMaxCropBins = 600;  // bins kept of an example pmf

// The first kExamples held-out series of the run's config: generate_series keeps the held-out
// stream apart from the training counts, so one training series is enough to reproduce them.
data::GeneratedSeries example_series(const Json& c) {
  data::GeneratedSeriesOptions g;
  g.kernel_synth_series = 1;
  g.mixup_series = 0;
  g.held_out_series = std::min<int64_t>(kExamples, c.at("held_out_series").get<int64_t>());
  g.synth.length = c.at("series_length").get<int64_t>();
  g.synth.max_kernels = c.at("max_kernels").get<int64_t>();
  g.seed = c.at("seed").get<uint64_t>();
  return data::generate_series(g);
}

// Next-value pmfs at the first forecast step of each example's held-out tail, and the first
// example's 20-path forecast fan.
void record_examples(models::Chronos& model, const Json& c, Json& result) {
  NoGradGuard no_grad;
  model.eval();
  const int64_t C = c.at("context_length").get<int64_t>(), H = c.at("horizon").get<int64_t>();
  const data::GeneratedSeries ex = example_series(c);
  const data::SeriesTokenizer tok = model.tokenizer();
  const data::SeriesWindows w = data::tail_windows(ex.held_out, tok, C, H);
  const Device device = model.bin_centres.device();
  Tensor probs =
      softmax(model.forward(w.context.to(device), w.labels.to(device)), -1).to(Device::cpu());  // (n, H, bins)
  const int64_t n = probs.size(0), bins = probs.size(2);
  const std::vector<double> all = probs.to_vector();
  const std::vector<int64_t> labels = w.labels.to_vector_as<int64_t>();
  Json pmfs = Json::array();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> pmf(all.begin() + i * H * bins, all.begin() + i * H * bins + bins);
    Json p = crop_pmf(pmf, tok.centres());
    const int64_t label = labels[static_cast<size_t>(i * H)];
    p["truth"] = label >= 0 ? tok.centres()[static_cast<size_t>(label)] : 0.0;
    pmfs.push_back(p);
  }
  result["example_pmfs"] = pmfs;

  const std::vector<double>& series = ex.held_out.front();
  std::vector<double> history(series.begin(), series.end() - H);
  const models::SeriesForecast f =
      models::forecast(model, {history}, {.horizon = H, .samples = c.at("eval_samples").get<int64_t>(), .seed = 1234})
          .front();
  const auto tail = static_cast<int64_t>(std::min<size_t>(history.size(), static_cast<size_t>(C)));
  result["example_forecast"] = {{"history", std::vector<double>(history.end() - tail, history.end())},
                                {"truth", std::vector<double>(series.end() - H, series.end())},
                                {"median", f.median},
                                {"q10", f.quantiles.front()},
                                {"q90", f.quantiles.back()},
                                {"season", ex.held_out_kernels.front().season_length(C / 2)},
                                {"kernel", ex.held_out_kernels.front().describe()}};
}

std::string model_dir_name(const std::string& label) {
  std::string s = label;
  for (char& ch : s)
    if (ch == ' ' || ch == '=') ch = '_';
  return "models/" + s;
}

}  // namespace

Json crop_pmf(const std::vector<double>& pmf, const std::vector<double>& centres) {
  const auto bins = static_cast<int64_t>(pmf.size());
  double total = 0;
  for (double p : pmf) total += p;
  int64_t lo = 0, hi = bins - 1, mid = 0;
  double acc = 0;
  for (int64_t i = 0; i < bins; ++i) {
    acc += pmf[static_cast<size_t>(i)];
    if (acc < 0.05 * total) lo = i + 1;
    if (acc < 0.5 * total) mid = i + 1;
    if (acc < 0.95 * total) hi = i + 1;
  }
  hi = std::min(hi, bins - 1), lo = std::min(lo, hi), mid = std::clamp(mid, lo, hi);
  // A linear head's flat floor spreads the tails over every bin: keep the bulk and its
  // surroundings, at most kMaxCropBins around the median bin (results.jsonl stays small).
  const int64_t pad = std::max<int64_t>(2, hi - lo);
  lo = std::max({int64_t{0}, lo - pad, mid - kMaxCropBins / 2});
  hi = std::min({bins - 1, hi + pad, mid + kMaxCropBins / 2});
  Json value = Json::array(), density = Json::array();
  for (int64_t i = lo; i <= hi; ++i) {
    const auto u = static_cast<size_t>(i);
    const double left = i > 0 ? 0.5 * (centres[u - 1] + centres[u]) : centres[u] - 0.5 * (centres[u + 1] - centres[u]);
    const double right =
        i + 1 < bins ? 0.5 * (centres[u] + centres[u + 1]) : centres[u] + 0.5 * (centres[u] - centres[u - 1]);
    value.push_back(centres[u]);
    density.push_back(pmf[u] / (right - left));
  }
  return {{"value", value}, {"density", density}};
}

Json run_chronos(const ChronosRunSpec& run, const std::string& study_dir, const std::string& work_dir) {
  auto [config, task] = make_study_task(train::kChronosTask, run.task_config, run.device, work_dir, "study chronos");
  const int64_t horizon = config.at("horizon").get<int64_t>();

  Json result = {{"params", task->model().num_parameters()}, {"curve", Json::array()}, {"final", nullptr}};
  auto record = [&](int64_t step, const Json& m) {
    record_eval(result, step, m, {"test_loss", "test_mase", "test_wql", "test_smoothness", "test_mase_period"});
  };
  train::Trainer trainer(*task, train::kChronosTask, config, work_dir);
  quiet_study_trainer(trainer);
  trainer.on_eval = record;
  StudyFit fit(trainer, result);
  fit.fit("tokens_per_second", static_cast<double>(horizon));
  if (result["final"].is_null()) record(trainer.step(), trainer.evaluate());

  auto& model = dynamic_cast<models::Chronos&>(task->model());
  record_examples(model, config, result);
  result["model_dir"] = "";
  if (!study_dir.empty()) {
    const std::string rel = model_dir_name(chronos_run_label(run));
    std::filesystem::remove_all(std::filesystem::path(study_dir) / rel);  // a run cut short before
    train::save_chronos((std::filesystem::path(study_dir) / rel).string(), model, config);
    result["model_dir"] = rel;
  }
  return result;
}

}  // namespace hm::studies
