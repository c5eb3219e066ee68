// results.json of the toy study: every run's configuration, metrics, time, per-epoch losses
// and sample pmfs, and back (so reports and figures can be rebuilt without training).
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/factories.h"
#include "tools/studies/fourier_toy/report.h"

namespace hm::studies {


namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Json number_or_null(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

const Json& at(const Json& j, const char* key, const char* where) {
  check(j.is_object() && j.contains(key), "toy_results_from_json", "{} has no key '{}'", where, key);
  return j.at(key);
}

double number_at(const Json& j, const char* key, const char* where) {
  const Json& v = at(j, key, where);
  return v.is_null() ? kNaN : v.get<double>();
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

Tensor rows_tensor(const Json& rows) {
  check(rows.is_array(), "toy_results_from_json", "sample rows must be an array");
  if (rows.empty()) return Tensor();
  std::vector<double> flat;
  const size_t k = rows.at(0).size();
  for (const Json& row : rows) {
    check(row.size() == k, "toy_results_from_json", "sample rows have {} and {} values", k, row.size());
    for (const Json& v : row) flat.push_back(v.is_null() ? kNaN : v.get<double>());
  }
  return from_vector(flat, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(k)}, {.dtype = DType::Float64});
}

}  // namespace

Json toy_config_json(const ToyRunConfig& c) {
  return {{"dataset", data::toy_distribution_name(c.dataset)},
          {"head", models::toy_head_name(c.head)},
          {"frequencies", c.frequencies},
          {"gamma", c.gamma},
          {"seed", c.seed},
          {"epochs", c.epochs},
          {"batch_size", c.batch_size},
          {"lr", c.lr},
          {"clip_norm", c.clip_norm},
          {"sample_points", c.sample_points}};
}

ToyRunConfig toy_config_from_json(const Json& j) {
  const char* w = "run config";
  ToyRunConfig c;
  c.dataset = data::parse_toy_distribution(at(j, "dataset", w).get<std::string>());
  c.head = models::parse_toy_head(at(j, "head", w).get<std::string>());
  c.frequencies = at(j, "frequencies", w).get<int64_t>();
  c.gamma = at(j, "gamma", w).get<double>();
  c.seed = at(j, "seed", w).get<uint64_t>();
  c.epochs = at(j, "epochs", w).get<int64_t>();
  c.batch_size = at(j, "batch_size", w).get<int64_t>();
  c.lr = at(j, "lr", w).get<double>();
  c.clip_norm = at(j, "clip_norm", w).get<double>();
  c.sample_points = at(j, "sample_points", w).get<int64_t>();
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
  for (const auto& [epoch, l] : r.test_losses) test.push_back({epoch, number_or_null(l)});
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
  for (const Json& l : at(run, "epoch_losses", "run")) r.epoch_losses.push_back(l.is_null() ? kNaN : l.get<double>());
  if (run.contains("test_losses"))  // absent in results written before the held-out curve
    for (const Json& p : run.at("test_losses"))
      r.test_losses.emplace_back(p.at(0).get<int64_t>(), p.at(1).is_null() ? kNaN : p.at(1).get<double>());
  if (run.contains("samples")) {
    const Json& s = run.at("samples");
    r.sample_xy = rows_tensor(at(s, "xy", "samples"));
    r.sample_true_pmf = rows_tensor(at(s, "true_pmf", "samples"));
    r.sample_pred_pmf = rows_tensor(at(s, "pred_pmf", "samples"));
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
    info->mode = at(j, "mode", "results").get<std::string>();
    info->jobs = at(j, "jobs", "results").get<int>();
    info->wall_seconds = at(j, "wall_seconds", "results").get<double>();
  }
  std::vector<ToyRunResult> out;
  for (const Json& run : at(j, "runs", "results")) out.push_back(toy_run_from_json(run));
  return out;
}

}  // namespace hm::studies
