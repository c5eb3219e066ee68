#include "harmonic/tools/tasks/dt_rollout.h"

#include <algorithm>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/arcade/arcade_rng.h"
#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/policy.h"
#include "harmonic/ops/ops.h"

namespace hm::train {

DtRolloutResult rollout_decision_transformer(models::DecisionTransformer& dt, const DtRolloutOptions& o) {
  constexpr const char* fn = "rollout_decision_transformer";
  check(o.episodes >= 1, fn, "episodes must be >= 1, got {}", o.episodes);
  check(o.rtg_scale > 0, fn, "rtg_scale must be > 0, got {}", o.rtg_scale);
  check(o.temperature >= 0, fn, "temperature must be >= 0, got {}", o.temperature);
  const models::DecisionTransformerConfig& c = dt.config;
  const arcade::GameInfo& info = arcade::game_info(o.game);
  check(c.state_dim == info.observation_size && c.num_actions == arcade::kNumActions, fn,
        "the model reads {} state features and {} actions; {} has {} and {}", c.state_dim, c.num_actions, info.name,
        info.observation_size, arcade::kNumActions);
  NoGradGuard no_grad;
  dt.eval();

  const int64_t E = o.episodes, S = c.state_dim, K = c.context_length;
  struct Episode {
    std::unique_ptr<arcade::Game> env;
    arcade::ArcadeRng rng;
    std::vector<float> states;  // (t + 1) * S
    std::vector<float> rtgs;    // t + 1
    std::vector<int64_t> actions;
    double score = 0;
  };
  std::vector<Episode> games;
  games.reserve(static_cast<size_t>(E));
  for (int64_t e = 0; e < E; ++e) {
    const uint64_t seed = arcade::episode_seed(o.seed, e);
    Episode g{info.make(o.env), arcade::ArcadeRng(seed, /*stream=*/7), {}, {}, {}, 0};
    g.states = g.env->reset(seed);
    g.rtgs.push_back(static_cast<float>(o.target_return / o.rtg_scale));
    games.push_back(std::move(g));
  }
  DtRolloutResult out;
  out.returns.assign(static_cast<size_t>(E), 0.0);
  out.steps.assign(static_cast<size_t>(E), 0);
  out.action_counts.assign(static_cast<size_t>(c.num_actions), 0);

  std::vector<int64_t> running(static_cast<size_t>(E));
  for (int64_t e = 0; e < E; ++e) running[static_cast<size_t>(e)] = e;
  for (int64_t t = 0; !running.empty(); ++t) {
    // The last K timesteps of every running game, left-padded while t + 1 < K, as the
    // training windows are (data/arcade/dt_windows.h): (B, K, .) with a mask of real steps.
    const int64_t B = static_cast<int64_t>(running.size()), real = std::min(t + 1, K), pad = K - real;
    const int64_t first = t + 1 - real;  // the first real step's timestep
    std::vector<float> rtg(static_cast<size_t>(B * K), 0.f), st(static_cast<size_t>(B * K * S), 0.f),
        mask(static_cast<size_t>(B * K), 0.f);
    std::vector<int64_t> act(static_cast<size_t>(B * K), 0), ts(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) {
      const Episode& g = games[static_cast<size_t>(running[static_cast<size_t>(b)])];
      for (int64_t i = 0; i < real; ++i) {
        const int64_t k = b * K + pad + i;
        rtg[k] = g.rtgs[first + i];
        std::copy_n(g.states.begin() + (first + i) * S, S, st.begin() + k * S);
        if (first + i < t) act[k] = g.actions[first + i];  // the current action is not known yet
        mask[k] = 1.f;
      }
      ts[b] = std::min<int64_t>(first, c.max_timestep);
    }
    const Device d = dt.device();  // the games run on the host, the model where it lives
    Tensor scores =
        dt.forward(from_vector(rtg, {B, K, 1}).to(d), from_vector(st, {B, K, S}).to(d), from_vector(act, {B, K}).to(d),
                   from_vector(ts, {B}).to(d), from_vector(mask, {B, K}).to(d));  // (B, K, A)
    const int64_t T = K;
    Tensor last = select(scores, 1, T - 1);  // (B, A) at each game's latest state
    if (o.temperature > 0 && o.temperature != 1.0) last = mul(last, 1.0 / o.temperature);
    Tensor probs = models::DecisionTransformer::probabilities(last).to(Device::cpu()).to(DType::Float64).contiguous();
    const double* p = probs.data<double>();

    std::vector<int64_t> still;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t e = running[static_cast<size_t>(b)];
      Episode& g = games[static_cast<size_t>(e)];
      int action = 0;
      const double* row = p + b * c.num_actions;
      if (o.temperature == 0) {
        action = static_cast<int>(std::max_element(row, row + c.num_actions) - row);
      } else {
        double u = g.rng.uniform(), acc = 0;
        action = static_cast<int>(c.num_actions - 1);
        for (int64_t a = 0; a < c.num_actions; ++a)
          if ((acc += row[a]) > u) {
            action = static_cast<int>(a);
            break;
          }
      }
      const arcade::GameStep r = g.env->advance(action);
      ++out.action_counts[static_cast<size_t>(action)];
      g.actions.push_back(action);
      g.score += r.reward;
      if (r.done) {
        out.returns[static_cast<size_t>(e)] = g.score;
        out.steps[static_cast<size_t>(e)] = t + 1;
        continue;
      }
      const std::vector<float> observation = g.env->observation();
      g.states.insert(g.states.end(), observation.begin(), observation.end());
      g.rtgs.push_back(g.rtgs.back() - static_cast<float>(r.reward / o.rtg_scale));
      still.push_back(e);
    }
    running = std::move(still);
  }
  return out;
}

}  // namespace hm::train
