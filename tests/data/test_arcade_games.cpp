// The arcade games by name (data/arcade/games.h): the registry and its errors, policy specs
// with ":<epsilon>", what every registered game promises through the Game interface (clone()
// continues like the original, advance() is step()'s reward, observations match their names),
// and Seaquest through that interface.
#include <algorithm>
#include <set>

#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/policy.h"
#include "harmonic/data/arcade/seaquest_env.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::arcade;
using hm::test::throws_with;

namespace {

// One step's outcome and the state after it, for comparing two games step by step.
struct Trace {
  std::vector<float> observations;
  std::vector<double> rewards;
  std::vector<int> flags;  // done, truncated, life_lost per step
};

Trace play(Game& game, Policy& policy, int steps) {
  Trace t;
  for (int i = 0; i < steps && !game.done(); ++i) {
    const GameStep s = game.advance(policy.act(game));
    const std::vector<float> o = game.observation();
    t.observations.insert(t.observations.end(), o.begin(), o.end());
    t.rewards.push_back(s.reward);
    t.flags.push_back(s.done * 4 + s.truncated * 2 + s.life_lost);
  }
  return t;
}

// A game that is not Seaquest, for the scripted policies' check.
struct NotSeaquest final : Game {
  std::string_view name() const override { return "not-seaquest"; }
  std::vector<float> reset(uint64_t) override { return {}; }
  GameStep advance(int) override { return {}; }
  std::vector<float> observation() const override { return {}; }
  int observation_size() const override { return 0; }
  const std::vector<std::string>& observation_names() const override {
    static const std::vector<std::string> none;
    return none;
  }
  std::vector<uint8_t> render() const override { return {}; }
  int frame_width() const override { return 0; }
  int frame_height() const override { return 0; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<NotSeaquest>(*this); }
  bool done() const override { return false; }
  double score() const override { return 0; }
  int steps() const override { return 0; }
  int lives() const override { return 0; }
};

}  // namespace

TEST_CASE("arcade games: the registry lists Seaquest first and refuses unknown names, naming the games") {
  REQUIRE(!games().empty());
  CHECK(games().front().name == "seaquest");
  CHECK(games().front().atari_name == "Seaquest");
  std::set<std::string> names;
  for (const GameInfo& g : games()) names.insert(g.name);
  CHECK(names.size() == games().size());  // no name twice
  CHECK(&game_info("seaquest") == &games().front());
  CHECK(throws_with([] { game_info("pong"); }, {"game_info", "unknown game 'pong'", "seaquest"}));
  CHECK(throws_with([] { make_game("Seaquest"); }, {"unknown game 'Seaquest'", "seaquest"}));
  CHECK(throws_with([] { make_policy("pong", "random"); }, {"unknown game 'pong'"}));
  CHECK(throws_with([] { play_episodes("pong", "random", 1, 0); }, {"unknown game 'pong'"}));
}

TEST_CASE("arcade games: policy specs, ':<epsilon>' and the errors naming the game's specs") {
  CHECK(throws_with([] { make_policy("seaquest", "greedy"); },
                    {"make_policy", "'greedy'", "seaquest", "random, expert, careless", "expert:0.1"}));
  CHECK(throws_with([] { make_policy("seaquest", ":0.1"); }, {"make_policy", "':0.1'"}));
  CHECK(throws_with([] { make_policy("seaquest", "greedy:0.1"); }, {"make_policy", "'greedy:0.1'"}));
  for (const char* bad : {"expert:", "expert:1.5", "expert:-0.1", "expert:0.1x", "expert:abc", "random:2"})
    CHECK_MESSAGE(throws_with([&] { make_policy("seaquest", bad); }, {"make_policy", "epsilon", "[0, 1]"}), bad);
  // ":<epsilon>" wraps the policy: 0 acts as the inner policy, 1 uniformly at random.
  std::unique_ptr<Game> game = make_game("seaquest");
  game->reset(3);
  auto expert = make_policy("seaquest", "expert"), plain = make_policy("seaquest", "expert:0");
  auto noisy = make_policy("seaquest", "expert:1"), random = make_policy("seaquest", "random:1");
  CHECK(dynamic_cast<NoisyPolicy*>(plain.get()) != nullptr);
  CHECK(dynamic_cast<NoisyPolicy*>(expert.get()) == nullptr);
  CHECK(dynamic_cast<RandomPolicy*>(make_policy("seaquest", "random").get()) != nullptr);
  for (Policy* p : {expert.get(), plain.get(), noisy.get(), random.get()}) p->reset(3);
  int same = 0, steps = 0;
  std::set<int> seen;
  while (!game->done() && steps < 200) {
    const int a = expert->act(*game);
    CHECK(plain->act(*game) == a);
    const int r = noisy->act(*game);
    same += r == a;
    seen.insert(r);
    random->act(*game);
    game->advance(a), ++steps;
  }
  CHECK(same < steps / 4);   // about 1/18 of the steps
  CHECK(seen.size() >= 15);  // the 18 actions, nearly all drawn in 200 steps
  // Every scripted name of every game makes a policy, "expert" among them.
  for (const GameInfo& g : games()) {
    CHECK_MESSAGE(std::count(g.scripted.begin(), g.scripted.end(), "expert") == 1, g.name);
    for (const std::string& name : g.scripted) CHECK(make_policy(g.name, name + ":0.25") != nullptr);
  }
}

TEST_CASE("arcade games: every game keeps the Game interface's promises") {
  for (const GameInfo& info : games()) {
    INFO(info.name);
    std::unique_ptr<Game> game = make_game(info.name, {.max_steps = 300});
    CHECK(game->name() == info.name);
    const std::vector<float> first = game->reset(11);
    CHECK(first.size() == static_cast<size_t>(info.observation_size));
    CHECK(game->observation_size() == info.observation_size);
    CHECK(game->observation_names().size() == first.size());
    CHECK(std::set<std::string>(game->observation_names().begin(), game->observation_names().end()).size() ==
          first.size());  // each feature named once
    CHECK(game->observation() == first);
    CHECK((game->steps() == 0 && game->score() == 0 && !game->done()));
    CHECK(game->render().size() == static_cast<size_t>(game->frame_width()) * game->frame_height());
    CHECK((game->frame_width() >= 8 && game->frame_height() >= 8));

    // A clone made mid-episode continues exactly like the original, and playing it leaves the
    // original where it was.
    auto policy = make_policy(info.name, "expert:0.3");
    policy->reset(11);
    for (int i = 0; i < 40 && !game->done(); ++i) game->advance(policy->act(*game));
    std::unique_ptr<Game> copy = game->clone();
    CHECK(copy->name() == info.name);
    CHECK(copy->observation() == game->observation());
    const std::vector<float> before = game->observation();
    const int steps_before = game->steps();
    auto policy_a = make_policy(info.name, "random"), policy_b = make_policy(info.name, "random");
    policy_a->reset(5), policy_b->reset(5);
    const Trace on_copy = play(*copy, *policy_a, 100);
    CHECK(game->observation() == before);
    CHECK(game->steps() == steps_before);
    const Trace on_game = play(*game, *policy_b, 100);
    CHECK(on_copy.observations == on_game.observations);
    CHECK(on_copy.rewards == on_game.rewards);
    CHECK(on_copy.flags == on_game.flags);
    CHECK(copy->score() == game->score());

    // The score is the sum of the step rewards; the episode ends by the step cap at the latest,
    // flagged truncated when it ends there with lives left; advancing after the end throws.
    std::unique_ptr<Game> g = make_game(info.name, {.max_steps = 300});
    g->reset(2);
    auto expert = make_policy(info.name, "expert");
    expert->reset(2);
    double sum = 0;
    GameStep last;
    while (!g->done()) sum += (last = g->advance(expert->act(*g))).reward;
    CHECK(sum == g->score());
    CHECK(last.done);
    CHECK(g->steps() <= 300);
    CHECK((!last.truncated || g->steps() == 300));
    CHECK_THROWS_AS(g->advance(kNoop), hm::Error);
    g->reset(2);
    CHECK_THROWS_AS(g->advance(kNumActions), hm::Error);
    CHECK_THROWS_AS(g->advance(-1), hm::Error);
  }
}

TEST_CASE("arcade games: Seaquest through the Game interface is SeaquestEnv") {
  std::unique_ptr<Game> game = make_game("seaquest", {.max_steps = 400});
  SeaquestEnv env({.max_steps = 400});
  CHECK(game->reset(7) == env.reset(7));
  CHECK(game->observation_names() == env.observation_names());
  CHECK((game->frame_width() == SeaquestEnv::kFrameW && game->frame_height() == SeaquestEnv::kFrameH));
  CHECK(game->lives() == 3);
  auto policy = make_policy("seaquest", "careless:0.2");
  policy->reset(7);
  int lives_lost = 0;
  while (!env.done()) {
    const int a = policy->act(env);
    const StepResult r = env.step(a);
    const GameStep s = game->advance(a);
    CHECK(s.reward == r.reward);  // advance() is step() without the observation
    CHECK(s.done == r.done);
    CHECK(s.truncated == r.info.truncated);
    CHECK(s.life_lost == (r.info.life_lost != LifeLoss::None));
    CHECK(game->observation() == r.observation);
    lives_lost += s.life_lost;
  }
  CHECK(game->done());
  CHECK(game->score() == env.score());
  CHECK(lives_lost > 0);  // careless: the episode saw the life_lost flag
  const std::vector<GameTally> tallies = game->tallies();
  REQUIRE(tallies.size() == 2);
  CHECK((tallies[0].name == "kills" && tallies[0].value == env.kills() && env.kills() > 0));
  CHECK((tallies[1].name == "divers rescued" && tallies[1].value == env.divers_rescued()));
  // The summary play_episodes gives carries the tallies.
  const EpisodeSummary summary = play_episodes("seaquest", "expert", 1, 0, {.max_steps = 200}).front();
  REQUIRE(summary.tallies.size() == 2);
  CHECK(summary.tallies[0].value > 0);
  // Seaquest's scripted policies refuse another game.
  auto expert = make_policy("seaquest", "expert");
  CHECK(throws_with([&] { expert->act(NotSeaquest()); }, {"SeaquestExpertPolicy::act", "not-seaquest"}));
}
