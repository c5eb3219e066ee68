#include "harmonic/data/arcade/offline_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/data/arcade/actions.h"
#include "harmonic/data/arcade/policy.h"
#include "harmonic/data/datasets.h"

namespace hm::arcade {
namespace {

constexpr uint64_t kMixtureStream = 3;  // the data set seed's stream that picks episode policies

int pick_component(ArcadeRng& rng, const std::vector<MixtureComponent>& mixture, double total) {
  double u = rng.uniform() * total;
  for (size_t i = 0; i < mixture.size(); ++i) {
    if (u < mixture[i].weight) return static_cast<int>(i);
    u -= mixture[i].weight;
  }
  return static_cast<int>(mixture.size()) - 1;  // rounding at the top end
}

// FNV-1a, 64 bits: names the cache file after everything that shapes its contents.
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string mixture_text(const std::vector<MixtureComponent>& mixture) {
  std::string s;
  for (const auto& m : mixture) s += fmt::format("{}{}={}", s.empty() ? "" : ",", m.policy, m.weight);
  return s;
}

}  // namespace

std::vector<MixtureComponent> offline_dataset_mixture(const OfflineDatasetOptions& options) {
  if (!options.mixture.empty()) return options.mixture;
  const GameInfo& info = game_info(options.game_name);
  return info.default_mixture ? info.default_mixture() : std::vector<MixtureComponent>{};
}

Tensor compute_returns_to_go(const Tensor& rewards, const Tensor& dones) {
  HM_CHECK(rewards.dim() == 1 && dones.dim() == 1 && rewards.numel() == dones.numel() &&
               rewards.dtype() == DType::Float32 && dones.dtype() == DType::Bool && rewards.numel() > 0,
           "compute_returns_to_go", "rewards {} and dones {}: need float32 (N,) and bool (N,), N >= 1", rewards.desc(),
           dones.desc());
  const Tensor r = rewards.contiguous(), d = dones.contiguous();
  const float* rp = r.data<float>();
  const bool* dp = d.data<bool>();
  const int64_t n = r.numel();
  check(dp[n - 1], "compute_returns_to_go", "the last of {} steps is not an episode end (dones[{}] is false)", n,
        n - 1);
  Tensor out = empty({n}, {.dtype = DType::Float32});
  float* op = out.data<float>();
  double running = 0;
  for (int64_t t = n - 1; t >= 0; --t) {
    if (dp[t]) running = 0;
    running += rp[t];
    op[t] = static_cast<float>(running);
  }
  return out;
}

OfflineDataset generate_offline_dataset(const OfflineDatasetOptions& options) {
  const GameInfo& info = game_info(options.game_name);
  const std::vector<MixtureComponent> mixture = offline_dataset_mixture(options);
  check(options.steps >= 1 && !mixture.empty(), "generate_offline_dataset",
        "steps {} must be >= 1 and the mixture non-empty ({} components)", options.steps, mixture.size());
  double total = 0;
  for (const auto& m : mixture) {
    check(m.weight >= 0, "generate_offline_dataset", "mixture weight {} of '{}' is negative", m.weight, m.policy);
    total += m.weight;
  }
  check(total > 0, "generate_offline_dataset", "the mixture's weights sum to 0 ({})", mixture_text(mixture));
  std::vector<std::unique_ptr<Policy>> policies;
  for (const auto& m : mixture) policies.push_back(make_policy(info.name, m.policy));

  const int64_t f = info.observation_size;
  std::vector<float> obs, rewards, episode_returns;
  std::vector<int64_t> actions, timesteps, episode_starts, episode_policies;
  std::vector<uint8_t> dones;
  obs.reserve(static_cast<size_t>(options.steps + options.game.max_steps) * f);
  std::unique_ptr<Game> game = info.make(options.game);
  ArcadeRng mixture_rng(options.seed, kMixtureStream);
  for (int64_t e = 0; static_cast<int64_t>(actions.size()) < options.steps; ++e) {
    const int which = pick_component(mixture_rng, mixture, total);
    const uint64_t seed = episode_seed(options.seed, e);
    Policy& policy = *policies[static_cast<size_t>(which)];
    std::vector<float> o = game->reset(seed);
    check(static_cast<int64_t>(o.size()) == f, "generate_offline_dataset",
          "{}'s observation has {} values; its GameInfo says {}", info.name, o.size(), f);
    policy.reset(seed);
    episode_starts.push_back(static_cast<int64_t>(actions.size()));
    episode_policies.push_back(which);
    while (!game->done()) {
      const int a = policy.act(*game);
      obs.insert(obs.end(), o.begin(), o.end());
      actions.push_back(a);
      timesteps.push_back(game->steps());
      const GameStep r = game->advance(a);
      rewards.push_back(static_cast<float>(r.reward));
      dones.push_back(r.done ? 1 : 0);
      if (!r.done) o = game->observation();
    }
    episode_returns.push_back(static_cast<float>(game->score()));
  }

  const int64_t n = static_cast<int64_t>(actions.size()), episodes = static_cast<int64_t>(episode_starts.size());
  OfflineDataset d;
  d.observations = from_vector(obs, {n, f});
  d.actions = from_vector(actions, {n});
  d.rewards = from_vector(rewards, {n});
  d.timesteps = from_vector(timesteps, {n});
  d.dones = empty({n}, {.dtype = DType::Bool});
  std::copy(dones.begin(), dones.end(), d.dones.data<bool>());
  d.returns_to_go = compute_returns_to_go(d.rewards, d.dones);
  d.episode_starts = from_vector(episode_starts, {episodes});
  d.episode_returns = from_vector(episode_returns, {episodes});
  d.episode_policies = from_vector(episode_policies, {episodes});
  for (const auto& m : mixture) d.policies.push_back(m.policy);
  d.game = info.name;
  return d;
}

std::map<std::string, std::string> offline_dataset_metadata(const OfflineDatasetOptions& options) {
  const GameInfo& info = game_info(options.game_name);
  return {{"format", "harmonic-arcade-offline"},
          {"game", info.name},
          {"format_version", std::to_string(info.format_version)},
          {"seed", std::to_string(options.seed)},
          {"steps", std::to_string(options.steps)},
          {"mixture", mixture_text(offline_dataset_mixture(options))},
          {"max_steps", std::to_string(options.game.max_steps)},
          {"lives", std::to_string(options.game.lives)},
          {"spawn", options.game.spawn ? "1" : "0"}};
}

std::string offline_dataset_path(const OfflineDatasetOptions& options) {
  std::string key;
  for (const auto& [k, v] : offline_dataset_metadata(options)) key += k + "=" + v + ";";
  const std::string dir = options.cache_dir.empty() ? data::data_cache_dir() + "/arcade" : options.cache_dir;
  return fmt::format("{}/{}_offline_s{}_n{}_{:08x}.safetensors", dir, game_info(options.game_name).name, options.seed,
                     options.steps, static_cast<uint32_t>(fnv1a(key)));
}

void save_offline_dataset(const OfflineDataset& d, const std::string& path,
                          const std::map<std::string, std::string>& metadata) {
  std::map<std::string, std::string> meta = metadata;
  std::string names;
  for (const auto& p : d.policies) names += (names.empty() ? "" : ",") + p;
  meta["policies"] = names;
  meta["game"] = d.game;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  save_safetensors(path,
                   {{"observations", d.observations},
                    {"actions", d.actions},
                    {"rewards", d.rewards},
                    {"returns_to_go", d.returns_to_go},
                    {"timesteps", d.timesteps},
                    {"dones", d.dones},
                    {"episode_starts", d.episode_starts},
                    {"episode_returns", d.episode_returns},
                    {"episode_policies", d.episode_policies}},
                   meta);
}

namespace {

// The values a file could get wrong that the shapes do not catch: actions outside the 18,
// episodes that do not start where the previous one ended, policies outside the mixture.
void check_values(const OfflineDataset& d, const std::string& path) {
  constexpr const char* kFn = "load_offline_dataset";
  const int64_t n = d.size(), e = d.episodes();
  const int64_t* actions = d.actions.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    check(actions[i] >= 0 && actions[i] < kNumActions, kFn, "'{}': actions[{}] is {}, outside 0..{}", path, i,
          actions[i], kNumActions - 1);
  const int64_t* starts = d.episode_starts.data<int64_t>();
  const int64_t* policies = d.episode_policies.data<int64_t>();
  const bool* done = d.dones.data<bool>();
  const auto policy_count = static_cast<int64_t>(d.policies.size());
  for (int64_t j = 0; j < e; ++j) {
    check(policies[j] >= 0 && policies[j] < policy_count, kFn, "'{}': episode {} has policy {}, outside 0..{}", path, j,
          policies[j], policy_count - 1);
    const bool follows = j == 0 ? starts[j] == 0 : starts[j] > starts[j - 1] && starts[j] < n && done[starts[j] - 1];
    check(follows, kFn, "'{}': episode {} starts at step {}, not right after the previous episode's last step", path, j,
          starts[j]);
  }
  const int64_t ends = std::count(done, done + n, true);
  check(ends == e, kFn, "'{}': {} episode starts but {} steps end an episode", path, e, ends);
}

OfflineDataset dataset_of(const SafetensorsFile& file, const std::string& path) {
  for (const char* name : {"observations", "actions", "rewards", "returns_to_go", "timesteps", "dones",
                           "episode_starts", "episode_returns", "episode_policies"})
    check(file.contains(name), "load_offline_dataset", "'{}' has no tensor '{}'", path, name);
  OfflineDataset d;
  d.observations = file.at("observations");
  d.actions = file.at("actions");
  d.rewards = file.at("rewards");
  d.returns_to_go = file.at("returns_to_go");
  d.timesteps = file.at("timesteps");
  d.dones = file.at("dones");
  d.episode_starts = file.at("episode_starts");
  d.episode_returns = file.at("episode_returns");
  d.episode_policies = file.at("episode_policies");
  const int64_t n = d.actions.numel(), e = d.episode_starts.numel();
  // Files written before the games had names are Seaquest's.
  const auto game = file.metadata.find("game");
  d.game = game == file.metadata.end() ? "seaquest" : game->second;
  const GameInfo* info = nullptr;
  for (const GameInfo& g : games())
    if (g.name == d.game) info = &g;
  check(info != nullptr, "load_offline_dataset", "'{}': metadata game '{}' is not a known game", path, d.game);
  const int64_t f = info->observation_size;
  auto is = [](const Tensor& t, DType dtype, Shape shape) { return t.dtype() == dtype && t.shape() == shape; };
  HM_CHECK(
      n > 0 && e > 0 && is(d.observations, DType::Float32, {n, f}) && is(d.actions, DType::Int64, {n}) &&
          is(d.rewards, DType::Float32, {n}) && is(d.returns_to_go, DType::Float32, {n}) &&
          is(d.timesteps, DType::Int64, {n}) && is(d.dones, DType::Bool, {n}) &&
          is(d.episode_starts, DType::Int64, {e}) && is(d.episode_returns, DType::Float32, {e}) &&
          is(d.episode_policies, DType::Int64, {e}),
      "load_offline_dataset",
      "'{}': tensors do not form a data set of N steps and E episodes of {} ({} observation values): observations {}, "
      "actions {}, rewards {}, returns_to_go {}, timesteps {}, dones {}, episode_starts {}, episode_returns {}, "
      "episode_policies {}",
      path, d.game, f, d.observations.desc(), d.actions.desc(), d.rewards.desc(), d.returns_to_go.desc(),
      d.timesteps.desc(), d.dones.desc(), d.episode_starts.desc(), d.episode_returns.desc(), d.episode_policies.desc());
  const auto it = file.metadata.find("policies");
  check(it != file.metadata.end(), "load_offline_dataset", "'{}' has no 'policies' metadata", path);
  for (size_t b = 0; b <= it->second.size();) {
    const size_t comma = std::min(it->second.find(',', b), it->second.size());
    d.policies.push_back(it->second.substr(b, comma - b));
    b = comma + 1;
  }
  check_values(d, path);
  return d;
}

}  // namespace

OfflineDataset load_offline_dataset(const std::string& path) { return dataset_of(load_safetensors(path), path); }

OfflineDataset load_or_generate_offline_dataset(const OfflineDatasetOptions& options) {
  const std::string path = offline_dataset_path(options);
  const auto expected = offline_dataset_metadata(options);
  if (std::filesystem::exists(path)) {
    const SafetensorsFile file = load_safetensors(path);
    for (const auto& [k, v] : expected) {
      const auto it = file.metadata.find(k);
      check(it != file.metadata.end() && it->second == v, "load_or_generate_offline_dataset",
            "'{}': metadata {} is '{}', expected '{}' (delete the file to regenerate it)", path, k,
            it == file.metadata.end() ? "<missing>" : it->second, v);
    }
    return dataset_of(file, path);
  }
  OfflineDataset d = generate_offline_dataset(options);
  save_offline_dataset(d, path, expected);
  return d;
}

}  // namespace hm::arcade
