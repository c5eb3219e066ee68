#include "harmonic/tools/studies/fru/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/run_config.h"

namespace hm::studies {
namespace {

constexpr const char* kFruStudy = "study fru";

// The per-step cost factor of each model (seconds per example-step relative to the RNN,
// measured with `harmonic train` at the study's shapes on this machine).
double model_factor(const std::string& key) {
  if (key == "rnn") return 1;
  if (key == "lstm") return 4;
  if (key == "sru") return 10;
  return 2;  // FRU variants
}

// Steps of an image sequence: pixels (side^2) or rows (side) of the pooled image.
int64_t image_steps(const FruRunSpec& r) {
  const int64_t pool = r.task_config.value("pool", 1);
  const int64_t side = 28 / std::max<int64_t>(1, pool);
  return r.dataset == "row" ? side : side * side;
}

// The scales. Quick must still show every claim in a few minutes on 2 cores; full is what
// this machine can finish in a few hours; paper_scale is the paper's configuration (a GPU's):
// 4000 synthetic series, all 60000 training and 10000 test images at 28 x 28 (784 pixel
// steps), 100 epochs.
FruScale base_scale(const FruStudyPlan& plan, FruPart part) {
  FruScale s;
  auto epochs = [](int64_t e) { return Json{{"epochs", e}}; };
  switch (part) {
    case FruPart::Synthetic:
      if (plan.common.paper_scale) {
        s.task_keys = {{"size", 4000}, {"trainer", epochs(100)}};
        s.grad_epochs = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
      } else if (plan.common.quick) {
        s.task_keys = {{"size", 1000}, {"trainer", epochs(10)}};
        s.grad_epochs = {0, 5, 10};
      } else {
        s.task_keys = {{"size", 4000}, {"trainer", epochs(10)}};
        s.grad_epochs = {0, 2, 5, 10};
      }
      // Figure 5's batch (the paper does not say): one measurement costs T backward passes.
      s.grad_batch = plan.common.quick ? 8 : 32;
      break;
    case FruPart::Image:
      if (plan.common.paper_scale) {
        s.task_keys = {{"pool", 1}, {"train_subset", 0}, {"test_subset", 0}, {"trainer", epochs(100)}};
      } else if (plan.common.quick) {
        s.task_keys = {{"pool", 2}, {"train_subset", 4096}, {"test_subset", 1000}, {"trainer", epochs(5)}};
      } else {
        s.task_keys = {{"pool", 2}, {"train_subset", 10000}, {"test_subset", 4000}, {"trainer", epochs(10)}};
      }
      break;
    case FruPart::Text:
      if (plan.common.paper_scale) {
        s.task_keys = {{"trainer", epochs(20)}};
      } else if (plan.common.quick) {
        s.task_keys = {{"trainer", epochs(6)}};
      } else {
        s.task_keys = {{"trainer", epochs(10)}};
      }
      break;
    case FruPart::Freq:  // the image part's scale (the paper's Appendix D stops at 50 epochs of 100)
      return base_scale(plan, FruPart::Image);
  }
  return s;
}

}  // namespace

namespace {

// Everything the study knows about a part, in one table.
struct PartInfo {
  const char* name;
  const char* task;
  std::vector<FruModel> models;        // the paper's table order
  std::vector<std::string> datasets;
};

const PartInfo& part_info(FruPart part) {
  auto fru = [](int64_t k, int64_t d) {
    return FruModel{fmt::format("fru{}_{}", k, d), fmt::format("FRU_{{{},{}}}", k, d),
                    {{"model", "fru"}, {"fru_freqs", k}, {"fru_dims", d}}};
  };
  const std::vector<FruModel> baselines{
      {"rnn", "RNN", {{"model", "rnn"}}}, {"lstm", "LSTM", {{"model", "lstm"}}}, {"sru", "SRU", {{"model", "sru"}}}};
  auto with = [&](std::vector<FruModel> extra) {
    std::vector<FruModel> m = baselines;
    m.insert(m.end(), extra.begin(), extra.end());
    return m;
  };
  static const PartInfo parts[] = {
      // indexed by FruPart
      {"synthetic", "fru-synthetic", with({fru(120, 5)}), {"mix-sin", "mix-poly-5", "mix-poly-10", "mix-poly-15"}},
      {"image", "fru-image", with({fru(40, 10), fru(60, 10)}), {"pixel", "permuted", "row"}},
      {"text", "fru-text", with({fru(5, 10), fru(1, 10)}), {"kjv-genre"}},
      {"freq", "fru-image", {fru(5, 10), fru(10, 10), fru(20, 10), fru(60, 10)}, {"row", "pixel"}}};
  return parts[static_cast<int>(part)];
}

}  // namespace

const char* fru_part_name(FruPart part) { return part_info(part).name; }

FruPart parse_fru_part(const std::string& name) {
  for (FruPart p : kFruParts)
    if (name == fru_part_name(p)) return p;
  throw_error(kFruStudy, fmt::format("part '{}' is not one of synthetic, image, text, freq", name));
}

const std::vector<FruModel>& fru_models(FruPart part) { return part_info(part).models; }

const FruModel& find_fru_model(FruPart part, const std::string& key) {
  for (const FruModel& m : fru_models(part))
    if (m.key == key) return m;
  throw_error(kFruStudy, fmt::format("model '{}' is not a model of the {} part", key, fru_part_name(part)));
}

const std::vector<std::string>& fru_datasets(FruPart part) { return part_info(part).datasets; }

std::string fru_task_name(FruPart part) { return part_info(part).task; }

std::string fru_metric(FruPart part) { return part == FruPart::Synthetic ? "test_mse" : "test_accuracy"; }

FruScale fru_scale(const FruStudyPlan& plan, FruPart part) {
  FruScale s = base_scale(plan, part);
  s.task_keys.merge_patch(plan.overrides[static_cast<int>(part)]);
  return s;
}

Json released_settings(FruPart part, const std::string& dataset, const std::string& model) {
  // github.com/limbo018/FRU test/mnist*/*.json and test/imdb/*.json (tools/tasks/fru_image.cpp
  // and fru_text.cpp list them): {lr0, lr_decay, clip at global norm 1}.
  struct Setting {
    double lr, decay;
    bool clip;
  };
  auto keys = [](Setting s) {
    Json trainer = {{"lr_decay", s.decay}};
    if (s.clip) trainer["clip_grad_norm"] = 1.0;
    return Json{{"lr", s.lr}, {"trainer", trainer}};
  };
  const bool fru = model.starts_with("fru");
  switch (part) {
    case FruPart::Synthetic:
      return Json::object();
    case FruPart::Image:
      if (dataset == "permuted") {  // every model clipped; FRU_{40,10} (not in Table 2) as FRU_{60,10}
        if (fru) return keys({0.005, 0.9, true});
        if (model == "sru") return keys({0.001, 0.8, true});
        return keys({0.001, 0.9, true});  // RNN, LSTM
      }
      // pixel (and row, for which the code lists no settings)
      if (model == "fru60_10") return keys({0.005, 0.9, false});
      if (model == "fru40_10") return keys({0.001, 1.0, false});
      if (model == "lstm") return keys({0.01, 0.8, true});
      if (model == "sru") return keys({0.001, 0.8, false});
      return keys({0.001, 0.9, false});  // RNN
    case FruPart::Freq:                  // FRU_{60,10}'s pixel setting for every point (the code lists none for rows)
      return keys({0.005, 0.9, false});
    case FruPart::Text: {
      // The code decays every 1000 steps on IMDB too; the task's default period (100 steps,
      // scaled to KJV's 63 steps per epoch) would stop FRU_{5,10} (decay 0.2) before it learns:
      // IMDB gave it 1000 steps at lr0, and so do we.
      Json k = fru ? keys({0.001, 0.2, false}) : model == "sru" ? keys({0.001, 0.5, false})
                                                               : keys({0.01, 0.8, false});  // RNN, LSTM
      k["trainer"]["lr_decay_every"] = 1000;
      return k;
    }
  }
  return Json::object();
}

std::vector<FruRunSpec> fru_study_grid(const FruStudyPlan& plan) {
  check(plan.common.device == "cpu" || plan.common.device.starts_with("cuda"), kFruStudy,
        "device must be cpu or cuda[:N], got '{}'", plan.common.device);
  std::vector<FruPart> parts = plan.parts;
  if (parts.empty()) parts = {FruPart::Synthetic, FruPart::Image, FruPart::Text};
  if (plan.parts.empty() && !plan.common.quick) parts.push_back(FruPart::Freq);
  std::vector<uint64_t> seeds = plan.common.seeds;
  if (seeds.empty()) seeds = plan.common.quick ? std::vector<uint64_t>{1} : std::vector<uint64_t>{1, 2, 3};
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const std::string& d : plan.datasets) {
    bool known = false;
    for (FruPart p : parts) {
      const auto& sets = fru_datasets(p);
      known = known || std::find(sets.begin(), sets.end(), d) != sets.end();
    }
    check(known, kFruStudy, "data set '{}' is not one of the parts' data sets", d);
  }
  for (const std::string& m : plan.models) {
    bool known = false;
    for (FruPart p : parts)
      for (const FruModel& fm : fru_models(p)) known = known || fm.key == m;
    check(known, kFruStudy,
          "model '{}' is not a model of the parts (rnn, lstm, sru, fru120_5, fru40_10, fru60_10, "
          "fru5_10, fru1_10, fru10_10, fru20_10)",
          m);
  }
  std::vector<FruRunSpec> runs;
  for (FruPart part : parts) {
    const FruScale scale = fru_scale(plan, part);
    if (part == FruPart::Freq) {
      for (const FruFreqPoint& p : fru_freq_points()) {
        const FruModel& model = find_fru_model(part, fmt::format("fru{}_10", p.freqs));
        if (!listed(plan.datasets, p.dataset) || !listed(plan.models, model.key)) continue;
        for (uint64_t seed : seeds) {
          FruRunSpec r;
          r.part = part, r.dataset = p.dataset, r.model = model.key, r.seed = seed, r.device = plan.common.device;
          r.freq_range = p.range;
          r.task_config = plan.released_settings ? released_settings(part, p.dataset, model.key) : Json::object();
          r.task_config.merge_patch(scale.task_keys);
          r.task_config.merge_patch(model.task_keys);
          r.task_config["seed"] = seed;
          r.task_config["data"] = p.dataset;
          const auto [f_min, f_max] = fru_freq_bounds(p.range, image_steps(r));
          r.task_config["f_min"] = f_min;
          r.task_config["f_max"] = f_max;
          runs.push_back(std::move(r));
        }
      }
      continue;
    }
    for (const std::string& dataset : fru_datasets(part)) {
      // Quick keeps the two synthetic sets that Figures 3 and 5 need.
      if (plan.datasets.empty() && plan.common.quick && part == FruPart::Synthetic && dataset != "mix-sin" &&
          dataset != kFruGradDataset)
        continue;
      if (!listed(plan.datasets, dataset)) continue;
      for (const FruModel& model : fru_models(part)) {
        if (!listed(plan.models, model.key)) continue;
        for (uint64_t seed : seeds) {
          FruRunSpec r;
          r.part = part, r.dataset = dataset, r.model = model.key, r.seed = seed, r.device = plan.common.device;
          r.task_config = plan.released_settings ? released_settings(part, dataset, model.key) : Json::object();
          r.task_config.merge_patch(scale.task_keys);
          r.task_config.merge_patch(model.task_keys);
          r.task_config["seed"] = seed;
          if (part == FruPart::Synthetic) {
            const bool sin = dataset == "mix-sin";
            r.task_config["data"] = sin ? "mix-sin" : "mix-poly";
            if (!sin) r.task_config["degree"] = std::stoll(dataset.substr(std::string("mix-poly-").size()));
            if (dataset == kFruGradDataset) r.grad_epochs = scale.grad_epochs, r.grad_batch = scale.grad_batch;
          } else if (part == FruPart::Image) {
            r.task_config["data"] = dataset;
          }
          runs.push_back(std::move(r));
        }
      }
    }
  }
  return runs;
}

std::string fru_run_label(const FruRunSpec& run) {
  if (!run.freq_range.empty()) return fmt::format("{} {} {} seed={}", run.dataset, run.model, run.freq_range, run.seed);
  return fmt::format("{} {} seed={}", run.dataset, run.model, run.seed);
}

const std::vector<FruFreqPoint>& fru_freq_points() {
  static const std::vector<FruFreqPoint> points = [] {
    std::vector<FruFreqPoint> p;
    for (int64_t k : {5, 10, 20})
      for (const char* range : {"0.25~T", "0.25~T/10", "T/10~T"}) p.push_back({"row", k, range});
    for (int64_t k : {10, 60})
      for (const char* range : {"0.25~T", "0.25~T/32"}) p.push_back({"pixel", k, range});
    return p;
  }();
  return points;
}

std::pair<double, double> fru_freq_bounds(const std::string& range, int64_t T) {
  const double t = static_cast<double>(T);
  if (range == "0.25~T") return {0.25, t};
  if (range == "0.25~T/10") return {0.25, t / 10};
  if (range == "T/10~T") return {t / 10, t};
  if (range == "0.25~T/32") return {0.25, t / 32};
  throw_error(kFruStudy, fmt::format("frequency range '{}' is not one of 0.25~T, 0.25~T/10, T/10~T, 0.25~T/32", range));
}

double fru_run_cost(const FruRunSpec& run) {
  const Json& trainer = run.task_config.contains("trainer") ? run.task_config.at("trainer") : Json::object();
  const double epochs = static_cast<double>(trainer.value("epochs", 1));
  double examples = 0, steps = 0;
  switch (run.part) {
    case FruPart::Synthetic:
      examples = 0.8 * static_cast<double>(run.task_config.value("size", 4000)), steps = 175;
      break;
    case FruPart::Image:
    case FruPart::Freq: {
      const int64_t subset = run.task_config.value("train_subset", 0);
      examples = static_cast<double>(subset > 0 ? subset : 60000), steps = static_cast<double>(image_steps(run));
      break;
    }
    case FruPart::Text:
      examples = 2015, steps = 300;
      break;
  }
  return epochs * examples * steps * model_factor(run.model) * 1e-6;
}

Json fru_run_json(const FruRunSpec& run) {
  Json j = {{"part", fru_part_name(run.part)},
            {"dataset", run.dataset},
            {"model", run.model},
            {"seed", run.seed},
            {"device", run.device},
            {"task_config", run.task_config},
            {"grad_epochs", run.grad_epochs},
            {"grad_batch", run.grad_batch}};
  if (!run.freq_range.empty()) j["freq_range"] = run.freq_range;  // only where set: older records stay
  return j;
}

FruRunSpec fru_run_from_json(const Json& j) {
  return read_run_config(j, kFruStudy, [&] {
    FruRunSpec r;
    r.part = parse_fru_part(j.at("part").get<std::string>());
    r.dataset = j.at("dataset").get<std::string>();
    r.model = find_fru_model(r.part, j.at("model").get<std::string>()).key;
    r.seed = j.at("seed").get<uint64_t>();
    r.device = j.at("device").get<std::string>();
    r.task_config = j.at("task_config");
    r.grad_epochs = j.at("grad_epochs").get<std::vector<int64_t>>();
    r.grad_batch = j.at("grad_batch").get<int64_t>();
    r.freq_range = j.value("freq_range", std::string());
    if (r.part == FruPart::Freq) fru_freq_bounds(r.freq_range, 28);  // a known range
    const auto& sets = fru_datasets(r.part);
    check(std::find(sets.begin(), sets.end(), r.dataset) != sets.end(), kFruStudy, "dataset '{}' is not a {} data set",
          r.dataset, fru_part_name(r.part));
    check(r.task_config.is_object(), kFruStudy, "task_config must be an object");
    return r;
  });
}

}  // namespace hm::studies
