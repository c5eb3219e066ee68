#include "harmonic/tools/tasks/chronos_model.h"

#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/optim/checkpoint.h"

namespace hm::train {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
constexpr const char* kFormat = "harmonic.chronos";

template <class T>
T key(const Json& c, const char* name) {
  try {
    return c.at(name).get<T>();
  } catch (const Json::exception& e) {
    throw_error(kChronosTask, fmt::format("config key \"{}\": {}", name, e.what()));
  }
}

std::shared_ptr<models::Chronos> build(const Json& config, Generator* gen) {
  const models::ChronosConfig mc = chronos_model_config(config);
  // The real bin centres (uniform or mixed) come with the weights (the bin_centres buffer).
  return std::make_shared<models::Chronos>(mc, data::SeriesTokenizer::uniform(mc.t5.vocab_size), gen);
}

ChronosForecaster from_weights(const Json& config, const nn::NamedTensors& state, const std::string& source) {
  ChronosForecaster f;
  f.generator = std::make_shared<Generator>(0);
  f.model = build(config, f.generator.get());
  f.model->load_state_dict(state);
  f.task_config = config;
  f.source = source;
  return f;
}

ChronosForecaster load_checkpoint_file(const std::string& path) {
  constexpr std::string_view fn = "load_chronos";
  optim::CheckpointInfo info = optim::read_checkpoint_info(path);
  const std::string task = info.extra.is_object() ? info.extra.value("task", "") : "";
  check(task == kChronosTask, fn, "'{}' is a checkpoint of task '{}', not of '{}'", path, task, kChronosTask);
  nn::NamedTensors state;
  for (auto& [name, t] : load_safetensors(path).tensors)
    if (name.starts_with("model.")) state.emplace_back(name.substr(6), t);
  ChronosForecaster f = from_weights(info.config, state, path);
  f.step = info.step;
  return f;
}

Json read_json(const std::string& path) {
  check_readable_file(path, "load_chronos");
  std::ifstream in(path);
  try {
    return parse_json(in, "load_chronos", fmt::format("'{}'", path));
  } catch (const Json::exception& e) {
    throw_error("load_chronos", fmt::format("'{}': not JSON: {}", path, e.what()));
  }
}

bool is_saved_dir(const std::string& dir) {
  if (!fs::is_directory(dir) || !fs::exists(fs::path(dir) / "model.safetensors") ||
      !fs::exists(fs::path(dir) / "config.json"))
    return false;
  return read_json(dir + "/config.json").value("format", "") == kFormat;
}

}  // namespace

Json chronos_defaults() {
  return {{"seed", 0},
          // model (t5-efficient layout, scaled to this machine; the paper: d_model 384, 4 + 4 layers)
          {"n_tokens", 4096},
          {"d_model", 64},
          {"d_kv", 16},
          {"num_layers", 2},
          {"num_heads", 4},
          {"d_ff", 256},
          {"feed_forward", "relu"},
          {"dropout", 0.1},
          {"tie_embeddings", false},
          // a relative position bias in cross-attention (not in Chronos' T5; models/t5.h)
          {"cross_attention_bias", false},
          {"head", "linear"},
          {"fourier_frequencies", 64},
          {"fourier_gamma", 1e-6},
          // tokenizer
          {"binning", "uniform"},
          {"mixed_sparse_fraction", 0.2},
          {"mixed_lower_quantile", 0.005},
          {"mixed_upper_quantile", 0.995},
          // generated data
          {"context_length", 128},
          {"horizon", 16},
          {"series", 512},
          {"mixup_series", 256},
          {"held_out_series", 64},
          {"series_length", 256},
          {"max_kernels", 5},
          {"windows_per_series", 16},
          // real series (a directory of CSVs, "" for none), TSMixup mixtures of them, and the
          // fewest observed context points a window needs (0: context_length, no padding)
          {"real_series", ""},
          {"real_mixup_series", 0},
          {"real_windows_per_series", 16},
          {"min_past", 0},
          // validation on generated series (a count; 0 for none) or on real series (a directory
          // of CSVs, "" for none): the last horizon or validation_horizon points of each
          {"validation_generated", 0},
          {"validation_series", ""},
          {"validation_horizon", 12},
          // optimisation (Chronos: AdamW lr 1e-3, weight decay 0.01, linear decay)
          {"lr", 1e-3},
          {"weight_decay", 0.01},
          {"batch_size", 32},
          // evaluation
          {"eval_samples", 20},
          // sample paths from the top-k bins (0: the whole pmf; Chronos' released evaluation: 50)
          {"eval_top_k", 0},
          {"season_length", 1},
          {"trainer",
           {{"steps", 2000},
            {"log_every", 50},
            {"eval_every", 500},
            {"lr_schedule", "linear"},
            {"end_lr_factor", 0.0},
            {"clip_grad_norm", 1.0}}}};
}

models::ChronosConfig chronos_model_config(const Json& c) {
  models::ChronosConfig m;
  m.t5.vocab_size = key<int64_t>(c, "n_tokens");
  m.t5.d_model = key<int64_t>(c, "d_model");
  m.t5.d_kv = key<int64_t>(c, "d_kv");
  m.t5.num_layers = key<int64_t>(c, "num_layers");
  m.t5.num_decoder_layers = m.t5.num_layers;
  m.t5.num_heads = key<int64_t>(c, "num_heads");
  m.t5.d_ff = key<int64_t>(c, "d_ff");
  m.t5.dropout_rate = key<double>(c, "dropout");
  m.t5.tie_word_embeddings = key<bool>(c, "tie_embeddings");
  m.t5.cross_attention_bias = c.value("cross_attention_bias", false);  // absent in older configs
  const auto ff = key<std::string>(c, "feed_forward");
  check(ff == "relu" || ff == "gated-gelu", kChronosTask, "feed_forward must be \"relu\" or \"gated-gelu\", got \"{}\"",
        ff);
  m.t5.feed_forward = ff == "relu" ? nn::FFActivation::ReLU : nn::FFActivation::GatedGELU;
  const auto head = key<std::string>(c, "head");
  check(head == "linear" || head == "fourier", kChronosTask, "head must be \"linear\" or \"fourier\", got \"{}\"", head);
  m.head = head == "linear" ? models::ChronosHead::Linear : models::ChronosHead::Fourier;
  m.fourier_frequencies = key<int64_t>(c, "fourier_frequencies");
  m.fourier_gamma = key<double>(c, "fourier_gamma");
  m.context_length = key<int64_t>(c, "context_length");
  m.prediction_length = key<int64_t>(c, "horizon");
  check(m.t5.vocab_size >= 8 && m.t5.d_model >= 1 && m.t5.d_kv >= 1 && m.t5.num_layers >= 1 && m.t5.num_heads >= 1 &&
            m.t5.d_ff >= 1,
        kChronosTask, "need n_tokens >= 8 and d_model, d_kv, num_layers, num_heads, d_ff >= 1; got {}, {}, {}, {}, {}, {}",
        m.t5.vocab_size, m.t5.d_model, m.t5.d_kv, m.t5.num_layers, m.t5.num_heads, m.t5.d_ff);
  check(m.t5.dropout_rate >= 0 && m.t5.dropout_rate < 1 && m.fourier_gamma >= 0, kChronosTask,
        "need dropout in [0, 1) and fourier_gamma >= 0, got {} and {}", m.t5.dropout_rate, m.fourier_gamma);
  return m;
}

int64_t chronos_parameter_count(const Json& config) {
  Generator gen(0);
  return build(config, &gen)->num_parameters();
}

ChronosForecaster load_chronos(const std::string& path, Device device, const std::string& which) {
  constexpr std::string_view fn = "load_chronos";
  check(fs::exists(path), fn, "'{}' does not exist (a chronos run directory, checkpoint file or saved model)", path);
  ChronosForecaster f;
  if (is_saved_dir(path)) {
    const Json config = read_json(path + "/config.json");
    f = from_weights(config.at("task"), load_safetensors(path + "/model.safetensors").tensors,
                     path + "/model.safetensors");
  } else if (fs::is_directory(path)) {
    check(which == "last" || which == "best", fn, "which must be \"last\" or \"best\", got \"{}\"", which);
    const std::string ckpt = path + "/checkpoint_" + which + ".safetensors";
    check(fs::exists(ckpt), fn, "'{}' is neither a saved chronos model (model.safetensors + config.json) nor a run "
                                "directory with {}", path, fs::path(ckpt).filename().string());
    f = load_checkpoint_file(ckpt);
  } else {
    f = load_checkpoint_file(path);
  }
  f.model->to(device);
  f.model->eval();
  return f;
}

void save_chronos(const std::string& dir, const models::Chronos& model, const Json& task_config) {
  constexpr std::string_view fn = "save_chronos";
  check(!dir.empty(), fn, "empty directory name");
  if (fs::exists(dir)) {
    check(fs::is_directory(dir), fn, "'{}' exists and is not a directory", dir);
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      check(name == "model.safetensors" || name == "config.json", fn,
            "'{}' holds '{}', which is not part of a saved chronos model: refusing to write there", dir, name);
    }
  }
  fs::create_directories(dir);
  model.save(dir + "/model.safetensors");
  const Json config = {{"format", kFormat}, {"version", 1}, {"task", task_config}};
  write_file_atomic(dir + "/config.json", config.dump(2) + "\n");
}

std::string shipped_forecaster_dir() {
  std::vector<fs::path> places;
  if (const char* env = std::getenv("HARMONIC_PRETRAINED"); env && *env) {
    places.emplace_back(env);  // set: the only place
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) places.push_back(exe.parent_path().parent_path() / "share" / "harmonic" / "pretrained");
    places.emplace_back(HARMONIC_SOURCE_PRETRAINED);
  }
  std::vector<std::string> searched;
  for (const fs::path& p : places) {
    const std::string dir = (p / kShippedForecaster).string();
    if (is_saved_dir(dir)) return dir;
    searched.push_back(dir);
  }
  throw_error("harmonic forecast",
              fmt::format("the shipped forecaster '{}' is in none of {} (set HARMONIC_PRETRAINED to the folder "
                          "holding it, or pass --checkpoint)",
                          kShippedForecaster, fmt::join(searched, ", ")));
}

}  // namespace hm::train
