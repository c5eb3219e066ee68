// The offline data set of the Decision Transformer study (data/arcade/offline_dataset.h,
// dt_windows.h): returns-to-go on a hand-made trajectory, the generated episodes' bookkeeping,
// reproducibility, the safetensors cache, and the K-step windows (shapes, padding, never
// crossing an episode boundary).
#include <set>

#include "harmonic/core/safetensors.h"
#include "harmonic/data/arcade/dt_windows.h"
#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/offline_dataset.h"
#include "harmonic/data/arcade/seaquest_env.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::arcade;
using namespace hm::test;

namespace {

Tensor bools(const std::vector<int>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, {.dtype = DType::Bool});
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i] != 0;
  return t;
}

OfflineDatasetOptions small(uint64_t seed, const std::string& cache_dir = "") {
  return {.seed = seed, .steps = 4000, .game = {.max_steps = 300}, .cache_dir = cache_dir};
}

// FNV-1a over a contiguous tensor's bytes.
uint64_t fnv_bytes(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const unsigned char*>(c.raw_data());
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < static_cast<size_t>(c.numel()) * dtype_size(c.dtype()); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> out;
  for (double v : t.to_vector()) out.push_back(static_cast<int64_t>(v));
  return out;
}

}  // namespace

TEST_CASE("arcade data: returns-to-go of a hand-made trajectory") {
  // Two episodes: rewards 1 2 3 | 10 0 5 -> suffix sums 6 5 3 | 15 5 5.
  const Tensor rewards = from_vector(std::vector<float>{1, 2, 3, 10, 0, 5}, {6});
  const Tensor rtg = compute_returns_to_go(rewards, bools({0, 0, 1, 0, 0, 1}));
  CHECK(rtg.to_vector() == std::vector<double>{6, 5, 3, 15, 5, 5});
  // One-step episodes are their own reward.
  CHECK(compute_returns_to_go(rewards, bools({1, 1, 1, 1, 1, 1})).to_vector() == rewards.to_vector());
  CHECK(throws_with(
      [&] {
        compute_returns_to_go(rewards, bools({0, 0, 1, 0, 0, 0}));
      },
      {"compute_returns_to_go", "dones[5]"}));
  CHECK(throws_with([&] { compute_returns_to_go(rewards, bools({1, 1})); }, {"compute_returns_to_go", "bool (2,)"}));
}

TEST_CASE("arcade data: generated episodes are whole, consistent and follow the mixture") {
  const OfflineDataset d = generate_offline_dataset(small(1));
  const int64_t n = d.size(), e = d.episodes();
  REQUIRE(n >= 4000);
  CHECK(d.observations.shape() == Shape{n, SeaquestEnv::kObservationSize});
  CHECK(d.policies.size() == game_info("seaquest").default_mixture().size());
  CHECK(d.game == "seaquest");
  const std::vector<int64_t> starts = ints(d.episode_starts), steps = ints(d.timesteps), acts = ints(d.actions);
  const std::vector<double> rtg = d.returns_to_go.to_vector(), rewards = d.rewards.to_vector(),
                            returns = d.episode_returns.to_vector(), dones = d.dones.to_vector();
  CHECK(starts[0] == 0);
  for (int64_t k = 0; k < e; ++k) {
    const int64_t begin = starts[k], end = k + 1 < e ? starts[k + 1] : n;
    double sum = 0;
    for (int64_t t = begin; t < end; ++t) {
      CHECK(steps[t] == t - begin);
      CHECK(dones[t] == (t == end - 1 ? 1 : 0));
      sum += rewards[t];
    }
    CHECK(rtg[begin] == doctest::Approx(sum));
    CHECK(returns[k] == doctest::Approx(sum));
    CHECK(rtg[end - 1] == rewards[end - 1]);
    CHECK(end - begin <= 300);  // the step cap
  }
  for (int64_t a : acts) CHECK((a >= 0 && a < kNumActions));
  std::set<int64_t> used;
  for (int64_t p : ints(d.episode_policies)) used.insert(p);
  CHECK(used.size() >= 3);  // a mixture, not one behaviour
  CHECK(*used.rbegin() < static_cast<int64_t>(d.policies.size()));
  // The stored rtg is the suffix sum of the stored rewards.
  CHECK(compute_returns_to_go(d.rewards, d.dones).to_vector() == rtg);
}

TEST_CASE("arcade data: the same seed gives the same data set, another seed another") {
  const OfflineDataset a = generate_offline_dataset(small(3)), b = generate_offline_dataset(small(3));
  const OfflineDataset c = generate_offline_dataset(small(4));
  CHECK(a.actions.to_vector() == b.actions.to_vector());
  CHECK(a.observations.to_vector() == b.observations.to_vector());
  CHECK(a.actions.to_vector() != c.actions.to_vector());
}

TEST_CASE("arcade data: load_or_generate writes the cache once and reads it back") {
  ScratchDir dir;
  const OfflineDatasetOptions opt = small(5, dir.str());
  const std::string path = offline_dataset_path(opt);
  CHECK(path.find("seaquest_offline_s5_n4000_") != std::string::npos);
  OfflineDatasetOptions other = opt;
  other.mixture = {{"expert", 1}};
  CHECK(offline_dataset_path(other) != path);  // the mixture is part of the key
  const OfflineDataset made = load_or_generate_offline_dataset(opt);
  REQUIRE(std::filesystem::exists(path));
  const auto written = std::filesystem::last_write_time(path);
  const OfflineDataset read = load_or_generate_offline_dataset(opt);
  CHECK(std::filesystem::last_write_time(path) == written);  // read, not rewritten
  CHECK(read.policies == made.policies);
  for (auto [x, y] : {std::pair{&made.observations, &read.observations},
                      {&made.actions, &read.actions},
                      {&made.returns_to_go, &read.returns_to_go},
                      {&made.timesteps, &read.timesteps},
                      {&made.dones, &read.dones},
                      {&made.episode_returns, &read.episode_returns}})
    CHECK(x->to_vector() == y->to_vector());

  // A file under the right name with other metadata is refused, naming the field.
  save_offline_dataset(made, path, {{"format", "harmonic-arcade-offline"}, {"seed", "99"}});
  CHECK(throws_with([&] { load_or_generate_offline_dataset(opt); }, {path, "format_version"}));
  // A file without the data set's tensors is refused naming the file.
  save_safetensors(dir / "bad.safetensors", {{"actions", made.actions}}, {{"policies", "random"}});
  CHECK(throws_with([&] { load_offline_dataset(dir / "bad.safetensors"); }, {"bad.safetensors", "observations"}));
  save_offline_dataset({.observations = made.observations,
                        .actions = narrow(made.actions, 0, 0, 5),
                        .rewards = made.rewards,
                        .returns_to_go = made.returns_to_go,
                        .timesteps = made.timesteps,
                        .dones = made.dones,
                        .episode_starts = made.episode_starts,
                        .episode_returns = made.episode_returns,
                        .episode_policies = made.episode_policies},
                       dir / "short.safetensors");
  CHECK(throws_with([&] { load_offline_dataset(dir / "short.safetensors"); },
                    {"load_offline_dataset", "short.safetensors", "actions int64 (5,)"}));
}

TEST_CASE("arcade data: K-step windows are padded at episode starts and never cross episodes") {
  auto data = std::make_shared<OfflineDataset>(generate_offline_dataset(small(6)));
  const int64_t k = 30, f = SeaquestEnv::kObservationSize;
  DecisionTransformerWindows windows(data, k);
  CHECK(windows.size() == data->size());
  const std::vector<int64_t> starts = ints(data->episode_starts), steps = ints(data->timesteps);
  const std::vector<int64_t> acts = ints(data->actions);
  const std::vector<double> rtg = data->returns_to_go.to_vector(), obs = data->observations.to_vector();

  // The first step of the second episode, 5 steps in, and far in.
  const int64_t s1 = starts[1];
  const std::vector<int64_t> picks = {s1, s1 + 5, s1 + 40, 0, data->size() - 1};
  const data::Batch batch = windows.get_batch(picks);
  CHECK(batch.input.shape() == Shape{5, k, 3 + f});
  CHECK(batch.target.shape() == Shape{5, k});
  const DecisionTransformerBatch dt = unpack_dt_batch(batch);
  CHECK(dt.returns_to_go.shape() == Shape{5, k, 1});
  CHECK(dt.states.shape() == Shape{5, k, f});
  CHECK(dt.timesteps.dtype() == DType::Int64);
  const std::vector<double> mask = dt.mask.to_vector(), ts = dt.timesteps.to_vector(), r = dt.returns_to_go.to_vector();
  const std::vector<double> st = dt.states.to_vector();
  const std::vector<int64_t> targets = ints(dt.targets), inputs = ints(dt.actions);
  for (size_t row = 0; row < picks.size(); ++row) {
    const int64_t i = picks[row];
    const int64_t real = std::min<int64_t>(k, steps[i] + 1);
    for (int64_t pos = 0; pos < k; ++pos) {
      const size_t cell = row * k + pos;
      if (pos < k - real) {  // padding: masked, ignored by the loss, zero inputs
        CHECK(mask[cell] == 0);
        CHECK(targets[cell] == kIgnoreAction);
        CHECK(inputs[cell] == 0);
        CHECK((r[cell] == 0 && ts[cell] == 0));
        continue;
      }
      const int64_t src = i - (k - 1 - pos);
      CHECK(mask[cell] == 1);
      CHECK(steps[src] == steps[i] - (k - 1 - pos));  // the same episode: consecutive timesteps
      CHECK(ts[cell] == steps[src]);
      CHECK(targets[cell] == acts[src]);
      CHECK(inputs[cell] == acts[src]);
      CHECK(r[cell] == rtg[src]);
      CHECK(st[cell * f + 7] == obs[src * f + 7]);
    }
  }
  CHECK(mask[0 * k + k - 1] == 1);
  CHECK(mask[0 * k + k - 2] == 0);  // an episode's first step: one real position
  CHECK(mask[2 * k] == 1);          // 40 steps in: no padding
  // Every window's real positions lie inside one episode (timesteps count up by one to the end).
  for (int64_t i = 0; i < data->size(); i += 37) {
    const data::Example ex = windows.get(i);
    CHECK(ex.input.shape() == Shape{k, 3 + f});
    const std::vector<double> in = ex.input.to_vector();
    double prev = -1;
    for (int64_t pos = 0; pos < k; ++pos) {
      if (in[pos * (3 + f) + 2] == 0) continue;
      if (prev >= 0) CHECK(in[pos * (3 + f) + 1] == prev + 1);
      prev = in[pos * (3 + f) + 1];
    }
    CHECK(prev == steps[i]);
  }
  CHECK(throws_with([&] { windows.get_batch({data->size()}); }, {"get_batch", "outside"}));
  CHECK(throws_with([&] { DecisionTransformerWindows(data, 0); }, {"DecisionTransformerWindows", "context 0"}));
}

TEST_CASE("arcade data: a cached file with impossible values is refused naming the file and the value") {
  ScratchDir dir;
  const OfflineDataset made = generate_offline_dataset({.seed = 2, .steps = 400, .game = {.max_steps = 100}});
  REQUIRE(made.episodes() >= 2);
  auto saved_with = [&](const std::string& name, auto change) {
    OfflineDataset d = made;
    d.actions = made.actions.clone(), d.episode_starts = made.episode_starts.clone();
    d.episode_policies = made.episode_policies.clone();
    change(d);
    const std::string path = dir / name;
    save_offline_dataset(d, path);
    return path;
  };
  load_offline_dataset(saved_with("good.safetensors", [](OfflineDataset&) {}));  // unchanged: accepted
  const std::string action =
      saved_with("action.safetensors", [](OfflineDataset& d) { d.actions.data<int64_t>()[3] = 18; });
  CHECK(throws_with([&] { load_offline_dataset(action); }, {"action.safetensors", "actions[3] is 18, outside 0..17"}));
  const std::string start =
      saved_with("start.safetensors", [](OfflineDataset& d) { d.episode_starts.data<int64_t>()[1] += 1; });
  CHECK(throws_with([&] { load_offline_dataset(start); }, {"start.safetensors", "episode 1 starts at step"}));
  const std::string policy =
      saved_with("policy.safetensors", [](OfflineDataset& d) { d.episode_policies.data<int64_t>()[0] = -1; });
  CHECK(throws_with([&] { load_offline_dataset(policy); }, {"policy.safetensors", "episode 0 has policy -1"}));
}

TEST_CASE("arcade data: Seaquest's data set is the one the committed study records were trained on") {
  // FNV-1a of the tensors' bytes, as generated before the arcade layer served several games;
  // a change here changes every Seaquest data set (bump its format_version if it is meant).
  const OfflineDataset d = generate_offline_dataset(small(1));
  CHECK(d.size() == 4165);
  CHECK(d.episodes() == 18);
  CHECK(fnv_bytes(d.observations) == 0xe0f19e57b1e06277ull);
  CHECK(fnv_bytes(d.actions) == 0xe14e7f20812ed1b3ull);
  CHECK(fnv_bytes(d.rewards) == 0x8ee6d0e221c82402ull);
  CHECK(fnv_bytes(d.returns_to_go) == 0x3f137446f33377e7ull);
  CHECK(fnv_bytes(d.timesteps) == 0x8321e025bf2e8f56ull);
  CHECK(fnv_bytes(d.dones) == 0x26d209d05bcee881ull);
  CHECK(fnv_bytes(d.episode_returns) == 0x8ab807401a44cd02ull);
  CHECK(fnv_bytes(d.episode_policies) == 0x6c510d2b945279e7ull);
}

TEST_CASE("arcade data: the file name and the metadata carry the game") {
  ScratchDir dir;
  const OfflineDatasetOptions opt = small(5, dir.str());
  const std::string path = offline_dataset_path(opt);
  CHECK(std::filesystem::path(path).filename().string().rfind("seaquest_offline_s5_n4000_", 0) == 0);
  const auto meta = offline_dataset_metadata(opt);
  CHECK(meta.at("game") == "seaquest");
  CHECK(meta.at("format_version") == std::to_string(game_info("seaquest").format_version));
  // The default mixture written out is the same key as the empty (default) one.
  OfflineDatasetOptions spelled = opt;
  spelled.mixture = game_info("seaquest").default_mixture();
  CHECK(offline_dataset_path(spelled) == path);
  CHECK(offline_dataset_mixture(opt).size() == spelled.mixture.size());

  OfflineDatasetOptions unknown = opt;
  unknown.game_name = "pong";
  CHECK(throws_with([&] { offline_dataset_path(unknown); }, {"pong", "seaquest"}));
  CHECK(throws_with([&] { generate_offline_dataset(unknown); }, {"pong", "seaquest"}));

  const OfflineDataset made = load_or_generate_offline_dataset(opt);
  CHECK(made.game == "seaquest");
  CHECK(load_safetensors(path).metadata.at("game") == "seaquest");
  CHECK(load_offline_dataset(path).game == "seaquest");

  // A file without a game (written before the games had names) is Seaquest's; one naming an
  // unknown game, or with observations of another width than its game's, is refused.
  const OfflineDataset tiny = generate_offline_dataset({.seed = 2, .steps = 50, .game = {.max_steps = 50}});
  auto tensors = [](const OfflineDataset& d) {
    return std::vector<std::pair<std::string, Tensor>>{{"observations", d.observations},
                                                       {"actions", d.actions},
                                                       {"rewards", d.rewards},
                                                       {"returns_to_go", d.returns_to_go},
                                                       {"timesteps", d.timesteps},
                                                       {"dones", d.dones},
                                                       {"episode_starts", d.episode_starts},
                                                       {"episode_returns", d.episode_returns},
                                                       {"episode_policies", d.episode_policies}};
  };
  std::string names;
  for (const auto& p : tiny.policies) names += (names.empty() ? "" : ",") + p;
  save_safetensors(dir / "old.safetensors", tensors(tiny), {{"policies", names}});
  CHECK(load_offline_dataset(dir / "old.safetensors").game == "seaquest");
  save_safetensors(dir / "pong.safetensors", tensors(tiny), {{"policies", names}, {"game", "pong"}});
  CHECK(throws_with([&] { load_offline_dataset(dir / "pong.safetensors"); },
                    {"load_offline_dataset", "pong.safetensors", "game 'pong'"}));
  OfflineDataset narrow_obs = tiny;
  narrow_obs.observations = narrow(tiny.observations, 1, 0, 39).contiguous();
  save_offline_dataset(narrow_obs, dir / "narrow.safetensors");
  CHECK(throws_with([&] { load_offline_dataset(dir / "narrow.safetensors"); },
                    {"narrow.safetensors", "of seaquest (40 observation values)"}));
}
