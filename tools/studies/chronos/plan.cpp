#include "harmonic/tools/studies/chronos/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/run_config.h"

namespace hm::studies {
namespace {

constexpr const char* kChronosPlan = "study chronos";
constexpr double kGamma = 1e-6;  // the paper's Fourier regulariser weight

// t5-efficient layouts: Figure 19's sizes that train here, and t5-efficient-mini (Chronos-mini,
// about 20M parameters with the 4096-token embedding and head), the paper's.
const std::vector<ChronosSize>& known_sizes() {
  static const std::vector<ChronosSize> sizes = {
      {"d32", 32, 1, 2, 16, 128},
      {"d64", 64, 2, 4, 16, 256},
      {"d128", 128, 3, 4, 32, 512},
      {"mini", 384, 4, 8, 64, 1536},
  };
  return sizes;
}

[[noreturn]] void bad_head(const std::string& name) {
  throw_error(kChronosPlan, fmt::format("head '{}' is neither 'linear' nor 'fourier-N[-noreg|-uniform]' with N >= 1", name));
}

int64_t parse_count(const std::string& text, const std::string& whole) {
  try {
    size_t used = 0;
    const int64_t n = std::stoll(text, &used);
    if (used == text.size() && n >= 1) return n;
  } catch (const std::exception&) {
  }
  bad_head(whole);
}

}  // namespace

std::string ChronosHeadSpec::name() const {
  if (!fourier()) return "linear";
  std::string s = fmt::format("fourier-{}", frequencies);
  if (!regularized) s += "-noreg";
  if (!mixed_binning) s += "-uniform";
  return s;
}

Json ChronosHeadSpec::task_keys() const {
  if (!fourier()) return {{"head", "linear"}, {"binning", "uniform"}};
  return {{"head", "fourier"},
          {"fourier_frequencies", frequencies},
          {"fourier_gamma", regularized ? kGamma : 0.0},
          {"binning", mixed_binning ? "mixed" : "uniform"}};
}

ChronosHeadSpec ChronosHeadSpec::parse(const std::string& name) {
  if (name == "linear") return {};
  if (name.rfind("fourier-", 0) != 0) bad_head(name);
  std::string rest = name.substr(8);
  ChronosHeadSpec h;
  for (const char* suffix : {"-uniform", "-noreg"}) {
    const std::string s = suffix;
    if (rest.size() > s.size() && rest.compare(rest.size() - s.size(), s.size(), s) == 0) {
      (s == "-noreg" ? h.regularized : h.mixed_binning) = false;
      rest.resize(rest.size() - s.size());
    }
  }
  h.frequencies = parse_count(rest, name);
  return h;
}

Json ChronosSize::task_keys() const {
  return {{"d_model", d_model}, {"num_layers", num_layers}, {"num_heads", num_heads}, {"d_kv", d_kv}, {"d_ff", d_ff}};
}

ChronosSize ChronosSize::parse(const std::string& name) {
  std::string names;
  for (const ChronosSize& s : known_sizes()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw_error(kChronosPlan, fmt::format("unknown size '{}' (known: {})", name, names));
}

ChronosSize chronos_main_size(const ChronosStudyPlan& plan) {
  return ChronosSize::parse(plan.common.paper_scale ? "mini" : plan.common.quick ? "d32" : "d64");
}

Json chronos_scale(const ChronosStudyPlan& plan) {
  // Section 6 / D.2: context 512, horizon 64, Chronos' 200k steps of batch 256, lr 1e-3. The
  // series are generated on the CPU when a run starts (about 90 ms per 1024-point KernelSynth
  // series on one core), so 20k + 20k series (about 30 min) with 64 windows each stand in for
  // Chronos' 1M KernelSynth + 10M TSMixup.
  if (plan.common.paper_scale)
    return {{"context_length", 512},
            {"horizon", 64},
            {"series_length", 1024},
            {"series", 20000},
            {"mixup_series", 20000},
            {"held_out_series", 512},
            {"windows_per_series", 64},
            {"batch_size", 256},
            {"dropout", 0.1},
            {"feed_forward", "relu"},
            {"trainer", {{"steps", 200000}, {"eval_every", 20000}, {"log_every", 100}, {"checkpoint_every", 5000}}}};
  if (plan.common.quick)  // a 1 + 1 layer d 32 model on 32 points of context: a few minutes per run on one core
    return {{"context_length", 32},    {"horizon", 8},
            {"series_length", 96},     {"series", 2048},
            {"mixup_series", 512},     {"held_out_series", 64},
            {"windows_per_series", 8}, {"dropout", 0.0},
            {"batch_size", 32},        {"trainer", {{"steps", 3000}, {"eval_every", 0}, {"log_every", 100}}}};
  // Full: the task's d 64 model on 64 points of context, 40k generated series, 1024 tokens. Measured
  // here (README, "A checkpoint that beats seasonal naive"): with 4096 tokens this model stalled at
  // a relative MASE of 1.6 (16k + 4k series, 6000 steps); with 1024 tokens and 32k + 8k series it
  // passed 1 by step 8000: each bin's embedding row and head column gets 4x the examples.
  return {{"context_length", 64},    {"horizon", 8},
          {"series_length", 160},    {"series", 32768},
          {"mixup_series", 8192},    {"held_out_series", 128},
          {"windows_per_series", 4}, {"dropout", 0.0},
          {"n_tokens", 1024},        {"batch_size", 32},
          {"trainer", {{"steps", 12000}, {"eval_every", 3000}, {"log_every", 100}}}};
}

std::vector<ChronosRunSpec> chronos_study_grid(const ChronosStudyPlan& plan) {
  std::vector<std::string> head_names = plan.heads;
  // Table 8's rows; N < bins / 2, so the full mode's 1024 tokens stop at 256 and take the
  // ablations there (the paper's are at 550 of 4096).
  if (head_names.empty() && plan.common.paper_scale)
    head_names = {"linear",      "fourier-64",        "fourier-128",        "fourier-256",
                  "fourier-550", "fourier-550-noreg", "fourier-550-uniform"};
  else if (head_names.empty() && plan.common.quick)
    head_names = {"linear", "fourier-64"};
  else if (head_names.empty())
    head_names = {"linear", "fourier-64", "fourier-128", "fourier-256", "fourier-256-noreg", "fourier-256-uniform"};
  std::vector<ChronosHeadSpec> heads;
  for (const std::string& n : head_names) heads.push_back(ChronosHeadSpec::parse(n));
  std::vector<std::string> size_names = plan.sizes;
  if (size_names.empty() && !plan.common.quick && !plan.common.paper_scale) size_names = {"d32", "d128"};
  const std::vector<uint64_t> seeds = plan.common.seeds.empty() ? std::vector<uint64_t>{1, 2, 3} : plan.common.seeds;
  const std::vector<uint64_t> sweep_seeds = plan.sweep_seeds.empty() ? seeds : plan.sweep_seeds;
  const ChronosSize main_size = chronos_main_size(plan);

  std::vector<double> fractions = plan.data_fractions;
  if (fractions.empty() && !plan.common.quick && !plan.common.paper_scale) fractions = {0.01, 0.1};
  for (double f : fractions) check(f > 0 && f <= 1, kChronosPlan, "data fractions must be in (0, 1], got {}", f);
  const std::vector<uint64_t> data_seeds =
      plan.data_seeds.empty() ? std::vector<uint64_t>{1, 2, 3, 4} : plan.data_seeds;

  std::vector<ChronosRunSpec> grid;
  auto add = [&](const ChronosHeadSpec& head, const ChronosSize& size, uint64_t seed, double fraction = 1.0) {
    for (const ChronosRunSpec& r : grid)
      if (r.head.name() == head.name() && r.size.name == size.name && r.seed == seed && r.data_fraction == fraction)
        return;
    // N < bins / 2 (the Nyquist rate of the bins); the task checks it against its n_tokens.
    ChronosRunSpec run{
        .head = head, .size = size, .seed = seed, .device = plan.common.device, .data_fraction = fraction};
    run.task_config = chronos_scale(plan);
    run.task_config.merge_patch(size.task_keys());
    run.task_config.merge_patch(plan.task);
    run.task_config.merge_patch(head.task_keys());
    run.task_config["seed"] = seed;
    if (fraction != 1.0)  // a prefix of the same KernelSynth stream, TSMixup over it; the held-out set stays
      for (const char* key : {"series", "mixup_series"})
        if (run.task_config.contains(key))
          run.task_config[key] = std::max<int64_t>(
              1, std::llround(fraction * static_cast<double>(run.task_config.at(key).get<int64_t>())));
    grid.push_back(std::move(run));
  };
  for (uint64_t seed : seeds)
    for (const ChronosHeadSpec& h : heads) add(h, main_size, seed);
  // Figure 19 compares linear with the (largest) plain Fourier head at every size.
  ChronosHeadSpec sweep_fourier{.frequencies = 0};
  for (const ChronosHeadSpec& h : heads)
    if (h.fourier() && !h.ablation()) sweep_fourier.frequencies = std::max(sweep_fourier.frequencies, h.frequencies);
  for (const std::string& name : size_names) {
    const ChronosSize size = ChronosSize::parse(name);
    for (uint64_t seed : sweep_seeds) {
      add(ChronosHeadSpec{}, size, seed);
      if (sweep_fourier.fourier()) add(sweep_fourier, size, seed);
    }
  }
  for (double f : fractions)  // Figure 18, at the main size
    for (uint64_t seed : data_seeds) {
      add(ChronosHeadSpec{}, main_size, seed, f);
      if (sweep_fourier.fourier()) add(sweep_fourier, main_size, seed, f);
    }
  return grid;
}

std::string chronos_run_label(const ChronosRunSpec& run) {
  if (run.data_fraction != 1.0)
    return fmt::format("{} {} data={:g} seed={}", run.head.name(), run.size.name, run.data_fraction, run.seed);
  return fmt::format("{} {} seed={}", run.head.name(), run.size.name, run.seed);
}

double chronos_run_cost(const ChronosRunSpec& run) {
  const Json& c = run.task_config;
  auto get = [&](const char* k, double fallback) { return c.contains(k) ? c.at(k).get<double>() : fallback; };
  const Json& t = c.contains("trainer") ? c.at("trainer") : Json::object();
  const double steps = t.contains("steps") ? t.at("steps").get<double>() : 2000.0;
  const double tokens = get("context_length", 128) + get("horizon", 16);
  // The Fourier head's (2N + 2) x bins table costs about as much as the body's width at N ~ d_model.
  const double width =
      static_cast<double>(run.size.d_model * run.size.num_layers) + static_cast<double>(run.head.frequencies) * 0.1;
  return std::max(1.0, steps) * get("batch_size", 32) * tokens * width * 1e-8;
}

Json chronos_run_json(const ChronosRunSpec& run) {
  Json j = {{"head", run.head.name()},
            {"size", run.size.name},
            {"seed", run.seed},
            {"device", run.device},
            {"task_config", run.task_config}};
  if (run.data_fraction != 1.0) j["data_fraction"] = run.data_fraction;  // only where set: older records stay
  return j;
}

ChronosRunSpec chronos_run_from_json(const Json& j) {
  return read_run_config(j, kChronosPlan, [&] {
    ChronosRunSpec r;
    r.head = ChronosHeadSpec::parse(j.at("head").get<std::string>());
    r.size = ChronosSize::parse(j.at("size").get<std::string>());
    r.seed = j.at("seed").get<uint64_t>();
    r.device = j.at("device").get<std::string>();
    r.task_config = j.at("task_config");
    r.data_fraction = j.value("data_fraction", 1.0);
    return r;
  });
}

}  // namespace hm::studies
