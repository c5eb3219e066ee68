#include "harmonic/tools/tasks/arcade_dt.h"

#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/arcade/policy.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/tasks/dt_rollout.h"

namespace hm::train {
namespace {

constexpr uint64_t kReferenceSeed = 1000003;

arcade::GameConfig game_config(const Json& c) {
  arcade::GameConfig g;
  g.max_steps = c.at("max_episode_steps").get<int>();
  check(g.max_steps >= 1, kArcadeDtTask, "max_episode_steps must be >= 1, got {}", g.max_steps);
  return g;
}

// Windows evenly spread over a data set (at most `count`), in a fixed order.
std::vector<int64_t> spread_indices(int64_t size, int64_t count) {
  std::vector<int64_t> idx;
  const int64_t n = std::min(size, count);
  for (int64_t i = 0; i < n; ++i) idx.push_back(i * size / n);
  return idx;
}

}  // namespace

Json arcade_dt_defaults() {
  return {{"seed", 0},
          {"game", "seaquest"},
          {"dataset_steps", arcade::kFullSteps},
          {"dataset_seed", 0},
          {"val_steps", 10000},
          {"max_episode_steps", 1000},
          {"context_length", 30},
          {"n_layer", 6},
          {"n_head", 8},
          {"n_embd", 128},
          {"dropout", 0.1},
          {"head", "linear"},
          {"fourier_frequencies", 8},
          {"fourier_gamma", 1e-6},  // the paper: "Fourier regularization gamma = 1e-6"
          // "scaled": the head's own near-uniform init; "trunk": the released code's N(0, 0.02)
          {"fourier_head_init", "scaled"},
          {"lr", 6e-4},
          {"beta1", 0.9},
          {"beta2", 0.95},
          {"weight_decay", 0.1},
          {"batch_size", 128},
          {"rtg_scale", 1000.0},  // returns reach ~6000: tanh(Linear(rtg)) sees <= ~6
          {"eval_episodes", 10},
          {"eval_seed", 12345},
          {"target_return", 0.0},
          {"reference_episodes", 100},
          {"val_windows", 4096},
          {"trainer",
           {{"steps", 4000},
            {"warmup_steps", 200},
            {"lr_schedule", "cosine"},
            {"end_lr_factor", 0.1},
            {"clip_grad_norm", 1.0},
            {"eval_every", 0}}}};
}

models::DecisionTransformerConfig arcade_dt_model_config(const Json& c) {
  models::DecisionTransformerConfig m;
  m.state_dim = arcade_dt_game(c).observation_size;
  m.num_actions = arcade::kNumActions;
  m.context_length = c.at("context_length").get<int64_t>();
  m.max_timestep = c.at("max_episode_steps").get<int64_t>();
  m.n_layer = c.at("n_layer").get<int64_t>();
  m.n_head = c.at("n_head").get<int64_t>();
  m.n_embd = c.at("n_embd").get<int64_t>();
  m.dropout = c.at("dropout").get<double>();
  m.head = c.at("head").get<std::string>();
  m.fourier_frequencies = c.at("fourier_frequencies").get<int64_t>();
  m.fourier_gamma = c.at("fourier_gamma").get<double>();
  const std::string head_init = c.value("fourier_head_init", std::string("scaled"));  // absent in older configs
  check(head_init == "scaled" || head_init == "trunk", kArcadeDtTask,
        "fourier_head_init must be \"scaled\" or \"trunk\", got \"{}\"", head_init);
  m.head_trunk_init = head_init == "trunk";
  check(m.dropout >= 0 && m.dropout < 1, kArcadeDtTask, "dropout must be in [0, 1), got {}", m.dropout);
  check(m.fourier_gamma >= 0, kArcadeDtTask, "fourier_gamma must be >= 0, got {}", m.fourier_gamma);
  return m;  // the model's constructor checks the rest, naming them
}

const arcade::GameInfo& arcade_dt_game(const Json& c) {
  return arcade::game_info(c.value("game", std::string("seaquest")));  // absent in older configs
}

arcade::ReferenceReturns arcade_reference_returns(const std::string& game, int64_t episodes,
                                                  const arcade::GameConfig& config) {
  check(episodes >= 1, "arcade_reference_returns", "episodes must be >= 1, got {}", episodes);
  static std::mutex mutex;
  static std::map<std::tuple<std::string, int64_t, int, int, bool>, arcade::ReferenceReturns> memo;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(game, episodes, config.max_steps, config.lives, config.spawn);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  return memo[key] = arcade::reference_returns(game, static_cast<int>(episodes), kReferenceSeed, config);
}

ArcadeDtTask::ArcadeDtTask(const Json& c, Device device)
    : config_(c), device_(device), gen_(c.at("seed").get<uint64_t>()) {
  const uint64_t seed = c.at("seed").get<uint64_t>();
  batch_size_ = c.at("batch_size").get<int64_t>();
  rtg_scale_ = c.at("rtg_scale").get<double>();
  check(batch_size_ >= 1, kArcadeDtTask, "batch_size must be >= 1, got {}", batch_size_);
  check(rtg_scale_ > 0, kArcadeDtTask, "rtg_scale must be > 0, got {}", rtg_scale_);
  const models::DecisionTransformerConfig m = arcade_dt_model_config(c);
  const arcade::GameConfig game = game_config(c);

  arcade::OfflineDatasetOptions data;
  data.game_name = arcade_dt_game(c).name;
  data.seed = c.at("dataset_seed").get<uint64_t>();
  data.steps = c.at("dataset_steps").get<int64_t>();
  data.game = game;
  arcade::OfflineDatasetOptions val = data;
  val.seed = data.seed + 7919;  // another stream of games: no episode in both
  val.steps = c.at("val_steps").get<int64_t>();
  check(data.steps >= 1 && val.steps >= 1, kArcadeDtTask, "dataset_steps and val_steps must be >= 1, got {} and {}",
        data.steps, val.steps);
  train_data_ = std::make_shared<const arcade::OfflineDataset>(arcade::load_or_generate_offline_dataset(data));
  val_data_ = std::make_shared<const arcade::OfflineDataset>(arcade::load_or_generate_offline_dataset(val));
  train_windows_ = std::make_shared<arcade::DecisionTransformerWindows>(train_data_, m.context_length);
  val_windows_ = std::make_shared<arcade::DecisionTransformerWindows>(val_data_, m.context_length);

  dt_ = std::make_shared<models::DecisionTransformer>(m, &gen_);
  dt_->to(device);
  loader_ = std::make_unique<data::DataLoader>(
      train_windows_, data::LoaderOptions{.batch_size = batch_size_, .shuffle = true, .seed = seed});
  optim::AdamOptions o;
  o.lr = c.at("lr").get<double>();
  o.beta1 = c.at("beta1").get<double>();
  o.beta2 = c.at("beta2").get<double>();
  const double wd = c.at("weight_decay").get<double>();
  check(o.lr > 0 && wd >= 0, kArcadeDtTask, "need lr > 0 and weight_decay >= 0, got {} and {}", o.lr, wd);
  o.weight_decay = wd;
  optimizer_ = std::make_unique<optim::AdamW>(optim::param_groups_no_decay(*dt_, wd), o);
}

Tensor ArcadeDtTask::scores(const arcade::DecisionTransformerBatch& b) {
  // Each window's first real timestep: the last step's timestep minus K - 1, or 0 for a window
  // left-padded at its episode's start.
  // On the device (float64 holds these small integers exactly), so a CUDA graph can capture it.
  const int64_t K = b.timesteps.size(1);
  Tensor last = select(b.timesteps, 1, K - 1).to(DType::Float64);
  Tensor start = clamp(add(last, -static_cast<double>(K - 1)), 0.0, static_cast<double>(dt_->config.max_timestep))
                     .to(DType::Int64);
  return dt_->forward(mul(b.returns_to_go, 1.0 / rtg_scale_), b.states, b.actions, start, b.mask);
}

Tensor ArcadeDtTask::loss(const data::Batch& batch) {
  arcade::DecisionTransformerBatch b = arcade::unpack_dt_batch(batch);
  return dt_->loss(scores(b), b.targets);
}

Json ArcadeDtTask::validate() {
  NoGradGuard no_grad;
  const std::vector<int64_t> all = spread_indices(val_windows_->size(), config_.at("val_windows").get<int64_t>());
  double nll = 0, correct = 0, count = 0, smooth = 0;
  for (size_t i = 0; i < all.size(); i += static_cast<size_t>(batch_size_)) {
    std::vector<int64_t> idx(all.begin() + static_cast<int64_t>(i),
                             all.begin() + static_cast<int64_t>(std::min(all.size(), i + batch_size_)));
    data::Batch batch = val_windows_->get_batch(idx);
    batch.input = batch.input.to(device_), batch.target = batch.target.to(device_);
    arcade::DecisionTransformerBatch b = arcade::unpack_dt_batch(batch);
    Tensor s = scores(b);  // (B, K, A)
    const double real = sum(b.mask).item<double>();
    nll += cross_entropy(s, b.targets, {.class_dim = -1}).item<double>() * real;
    correct += sum(mul(eq(argmax(s, -1), b.targets).to(DType::Float32), b.mask)).item<double>();
    count += real;
    Tensor last = models::DecisionTransformer::probabilities(select(s, 1, s.size(1) - 1));  // (B, A)
    smooth += sum(nn::smoothness(last)).item<double>();
  }
  return {{"loss", nll / count}, {"accuracy", correct / count}, {"smoothness", smooth / static_cast<double>(all.size())}};
}

Json ArcadeDtTask::evaluate() {
  const arcade::GameConfig game = game_config(config_);
  const std::string& name = arcade_dt_game(config_).name;
  const arcade::ReferenceReturns ref =
      arcade_reference_returns(name, config_.at("reference_episodes").get<int64_t>(), game);
  double target = config_.at("target_return").get<double>();
  if (target == 0) target = amax(train_data_->episode_returns).item<double>();

  DtRolloutOptions r;
  r.episodes = config_.at("eval_episodes").get<int64_t>();
  r.seed = config_.at("eval_seed").get<uint64_t>();
  r.target_return = target;
  r.rtg_scale = rtg_scale_;
  r.game = name;
  r.env = game;
  DtRolloutResult played = rollout_decision_transformer(*dt_, r);
  std::vector<double> normalized;
  for (double R : played.returns) normalized.push_back(arcade::normalized_return(R, ref));

  const report::MetricStats returns = report::mean_std(played.returns), norm = report::mean_std(normalized);
  Json result = {{"return_mean", returns.mean},
                 {"return_std", returns.std},
                 {"returns", played.returns},
                 {"normalized_return_mean", norm.mean},
                 {"normalized_return_std", norm.std},
                 {"random_return", ref.random},
                 {"expert_return", ref.expert},
                 {"target_return", target},
                 {"action_histogram", played.action_counts}};
  // The pmfs of four fixed held-out windows (Figure 13's plots).
  NoGradGuard no_grad;
  data::Batch probe = val_windows_->get_batch(spread_indices(val_windows_->size(), 4));
  probe.input = probe.input.to(device_), probe.target = probe.target.to(device_);
  arcade::DecisionTransformerBatch b = arcade::unpack_dt_batch(probe);
  Tensor s = scores(b);
  Tensor pmf = models::DecisionTransformer::probabilities(select(s, 1, s.size(1) - 1)).to(DType::Float64);
  Json pmfs = Json::array();
  for (int64_t i = 0; i < pmf.size(0); ++i) pmfs.push_back(select(pmf, 0, i).to_vector());
  result["example_pmfs"] = pmfs;
  result["example_actions"] = select(b.targets, 1, b.targets.size(1) - 1).to_vector_as<int64_t>();
  return result;
}

namespace {

const TaskRegistration arcade_dt_registration{with_smoke(
    {kArcadeDtTask,
     "Fourier head section 5 (Decision Transformer, Atari games) on a built-in arcade stand-in (game=seaquest by "
     "default): offline training on a behaviour mixture, linear or Fourier action head, online returns and pmf "
     "smoothness",
     arcade_dt_defaults(),
     [](const Json& config, Device device) { return std::make_unique<ArcadeDtTask>(config, device); }},
    {{"dataset_steps", 3000}, {"val_steps", 600}, {"max_episode_steps", 200}, {"n_layer", 1}, {"n_head", 2}, {"n_embd", 16}, {"context_length", 5}, {"batch_size", 16}, {"eval_episodes", 2}, {"reference_episodes", 3}, {"val_windows", 64}, {"head", "fourier"}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 1}}}})};

}  // namespace
}  // namespace hm::train
