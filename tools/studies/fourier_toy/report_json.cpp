// results.json of the toy study: every run's configuration, metrics, time, per-epoch training
// losses, test losses at the evaluation points and sample pmfs, and back (so reports and figures can be rebuilt without
// training).
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/tools/studies/fourier_toy/plan.h"
#include "harmonic/tools/studies/fourier_toy/report.h"

namespace hm::studies {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Json number_or_null(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

const Json& at(const Json& j, const char* key, const char* where) {
  check(j.is_object() && j.contains(key), "toy_results_from_json", "{} has no key '{}'", where, key);
  return j.at(key);
}

// at(j, key, where) read as T; a value of another JSON type is named with its field (the JSON
// library's "type must be number, but is string" says neither which field nor which file part).
template <class T>
T get_at(const Json& j, const char* key, const char* where) {
  const Json& v = at(j, key, where);
  try {
    return v.get<T>();
  } catch (const Json::exception&) {
    throw_error("toy_results_from_json",
                fmt::format("{}: key '{}' has the wrong type ({} {})", where, key, v.type_name(), v.dump()));
  }
}

double number_at(const Json& j, const char* key, const char* where) {
  const Json& v = at(j, key, where);
  return v.is_null() ? kNaN : get_at<double>(j, key, where);
}

// (S, k) float64 tensor <-> [[...], ...] (an undefined or empty tensor is []).
Json rows_json(const Tensor& t) {
  Json rows = Json::array();
  if (!t.defined() || t.numel() == 0) return rows;
  HM_CHECK(t.dim() == 2, "toy_results_json", "sample tensors must be (S, k), got {}", str(t.shape()));
  const std::vector<double> v = t.to_vector();
  const int64_t n = t.size(0), k = t.size(1);
  for (int64_t i = 0; i < n; ++i) rows.push_back(std::vector<double>(v.begin() + i * k, v.begin() + (i + 1) * k));
  return rows;
}

// rows of exactly `width` numbers (null is NaN) -> (S, width) float64 tensor; [] is undefined.
// `run` and `field` name the offender in errors (a short row would overrun the figures).
Tensor rows_tensor(const Json& rows, int64_t width, const std::string& run, const char* field) {
  check(rows.is_array(), "toy_results_from_json", "run '{}': samples.{} must be an array of rows", run, field);
  if (rows.empty()) return Tensor();
  std::vector<double> flat;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    check(row.is_array() && static_cast<int64_t>(row.size()) == width, "toy_results_from_json",
          "run '{}': samples.{} row {} has {} values, expected {}", run, field, i,
          row.is_array() ? std::to_string(row.size()) : std::string("no array of"), width);
    for (const Json& v : row) {
      check(v.is_null() || v.is_number(), "toy_results_from_json", "run '{}': samples.{} row {} holds a non-number",
            run, field, i);
      flat.push_back(v.is_null() ? kNaN : v.get<double>());
    }
  }
  return from_vector(flat, {static_cast<int64_t>(rows.size()), width}, {.dtype = DType::Float64});
}

}  // namespace

Json toy_config_json(const ToyRunConfig& c) {
  Json j = {{"dataset", data::toy_distribution_name(c.dataset)},
          {"head", models::toy_head_name(c.head)},
          {"frequencies", c.frequencies},
          {"gamma", c.gamma},
          {"seed", c.seed},
          {"epochs", c.epochs},
          {"batch_size", c.batch_size},
          {"lr", c.lr},
          {"clip_norm", c.clip_norm},
          {"sample_points", c.sample_points},
          {"bins", c.data_options.bins}};
  if (c.device != "cpu") j["device"] = c.device;  // absent on the CPU: recorded CPU studies keep their configs
  return j;
}

ToyRunConfig toy_config_from_json(const Json& j) {
  const char* w = "run config";
  ToyRunConfig c;
  c.dataset = data::parse_toy_distribution(get_at<std::string>(j, "dataset", w));
  c.head = models::parse_toy_head(get_at<std::string>(j, "head", w));
  c.frequencies = get_at<int64_t>(j, "frequencies", w);
  c.gamma = get_at<double>(j, "gamma", w);
  c.seed = get_at<uint64_t>(j, "seed", w);
  c.epochs = get_at<int64_t>(j, "epochs", w);
  c.batch_size = get_at<int64_t>(j, "batch_size", w);
  c.lr = get_at<double>(j, "lr", w);
  c.clip_norm = get_at<double>(j, "clip_norm", w);
  c.sample_points = get_at<int64_t>(j, "sample_points", w);
  if (j.contains("device")) c.device = get_at<std::string>(j, "device", w);
  if (j.contains("bins")) c.data_options.bins = get_at<int64_t>(j, "bins", w);  // older files: the default 50
  check(c.data_options.bins >= 1, "toy_results_from_json", "run config: bins must be >= 1, got {}",
        c.data_options.bins);
  return c;
}

Json toy_run_json(const ToyRunResult& r) {
  Json run = {{"config", toy_config_json(r.config)},
              {"metrics",
               {{"kl", number_or_null(r.kl)},
                {"smoothness", number_or_null(r.smoothness)},
                {"mse", number_or_null(r.mse)},
                {"perplexity", number_or_null(r.perplexity)}}},
              {"seconds", r.seconds}};
  Json losses = Json::array();
  for (double l : r.epoch_losses) losses.push_back(number_or_null(l));
  run["epoch_losses"] = std::move(losses);
  Json test = Json::array();
  for (const auto& [epoch, loss] : r.test_losses) test.push_back({epoch, number_or_null(loss)});
  run["test_losses"] = std::move(test);
  if (r.sample_xy.defined() && r.sample_xy.numel() > 0)
    run["samples"] = {{"xy", rows_json(r.sample_xy)},
                      {"true_pmf", rows_json(r.sample_true_pmf)},
                      {"pred_pmf", rows_json(r.sample_pred_pmf)}};
  return run;
}

ToyRunResult toy_run_from_json(const Json& run) {
  ToyRunResult r;
  r.config = toy_config_from_json(at(run, "config", "run"));
  const Json& m = at(run, "metrics", "run");
  r.kl = number_at(m, "kl", "metrics");
  r.smoothness = number_at(m, "smoothness", "metrics");
  r.mse = number_at(m, "mse", "metrics");
  r.perplexity = number_at(m, "perplexity", "metrics");
  r.seconds = number_at(run, "seconds", "run");
  for (const Json& l : at(run, "epoch_losses", "run")) {
    check(l.is_null() || l.is_number(), "toy_results_from_json", "run: epoch_losses holds {} (numbers or null)",
          l.dump());
    r.epoch_losses.push_back(l.is_null() ? kNaN : l.get<double>());
  }
  const std::string label = toy_run_label(r.config);
  if (run.contains("test_losses"))  // optional: older files have none
    for (const Json& p : run.at("test_losses")) {
      check(p.is_array() && p.size() == 2 && p[0].is_number_integer() && (p[1].is_null() || p[1].is_number()),
            "toy_results_from_json", "run '{}': test_losses entries must be [epoch, loss], got {}", label, p.dump());
      r.test_losses.emplace_back(p[0].get<int64_t>(), p[1].is_null() ? kNaN : p[1].get<double>());
    }
  if (run.contains("samples")) {
    const Json& s = run.at("samples");
    const int64_t bins = r.config.data_options.bins;
    r.sample_xy = rows_tensor(at(s, "xy", "samples"), 2, label, "xy");
    r.sample_true_pmf = rows_tensor(at(s, "true_pmf", "samples"), bins, label, "true_pmf");
    r.sample_pred_pmf = rows_tensor(at(s, "pred_pmf", "samples"), bins, label, "pred_pmf");
    const auto count = [](const Tensor& t) { return t.defined() ? t.size(0) : int64_t{0}; };
    check(count(r.sample_xy) == count(r.sample_true_pmf) && count(r.sample_xy) == count(r.sample_pred_pmf),
          "toy_results_from_json", "run '{}': samples have {} xy, {} true_pmf and {} pred_pmf rows (must match)", label,
          count(r.sample_xy), count(r.sample_true_pmf), count(r.sample_pred_pmf));
  }
  return r;
}

Json toy_results_json(const std::vector<ToyRunResult>& results, const ToyStudyInfo& info) {
  Json runs = Json::array();
  for (const ToyRunResult& r : results) runs.push_back(toy_run_json(r));
  return {{"study", "fourier-toy"},
          {"mode", info.mode},
          {"jobs", info.jobs},
          {"wall_seconds", info.wall_seconds},
          {"runs", std::move(runs)}};
}

std::vector<ToyRunResult> toy_results_from_json(const Json& j, ToyStudyInfo* info) {
  check(j.is_object() && j.value("study", "") == "fourier-toy", "toy_results_from_json",
        "not a fourier-toy results file (no \"study\": \"fourier-toy\")");
  if (info) {
    info->mode = get_at<std::string>(j, "mode", "results");
    info->jobs = get_at<int>(j, "jobs", "results");
    info->wall_seconds = get_at<double>(j, "wall_seconds", "results");
  }
  std::vector<ToyRunResult> out;
  for (const Json& run : at(j, "runs", "results")) out.push_back(toy_run_from_json(run));
  return out;
}

}  // namespace hm::studies
