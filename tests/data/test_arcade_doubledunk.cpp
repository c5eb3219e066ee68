// The DoubleDunk stand-in (data/arcade/doubledunk_*): movement and the court's edges, FIRE's
// meaning by possession and direction, 2 and 3 points by distance, the shot chance falling with
// distance and a close defender, steals, swipes and interceptions, the shot clock, the change of
// possession, the opponents' baskets, the end at the target score and at the step cap,
// determinism, copies, the observation and the frame, the policies and the game's entry.
#include <cmath>
#include <set>

#include "harmonic/data/arcade/doubledunk_env.h"
#include "harmonic/data/arcade/doubledunk_policies.h"
#include "harmonic/data/arcade/games.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::arcade;
using hm::test::throws_with;
using DD = DoubleDunkEnv;

namespace {

// A quiet court (the scripted players stand still): you hold the ball at (x, y), your teammate
// on the right wing, the opponents in the far corners, out of everyone's reach.
DD doubledunk_court(int x = 40, int y = 30, uint64_t seed = 0) {
  DD env({.spawn = false});
  env.reset(seed);
  env.place_player(DD::kYou, x, y);
  env.place_player(DD::kMate, 70, 20);
  env.place_player(DD::kOpp1, 4, 60);
  env.place_player(DD::kOpp2, 76, 60);
  env.give_ball(DD::kYou);
  return env;
}

// Steps with NOOP until the ball in the air lands (a basket, a rebound, a catch or a loss).
DoubleDunkStepInfo doubledunk_until_landed(DD& env) {
  DoubleDunkStepInfo info;
  for (int i = 0; i < 20 && env.holder() < 0 && !env.done(); ++i) env.advance(kNoop, &info);
  return info;
}

// Uniform random actions from their own stream (the registry's "random" lives in games.cpp).
class DoubleDunkRandom : public Policy {
 public:
  int act(const Game&) override { return rng_.below(kNumActions); }
  void reset(uint64_t seed) override { rng_ = ArcadeRng(seed, 1); }

 private:
  ArcadeRng rng_;
};

double doubledunk_mean_return(Policy& policy, int episodes) {
  double sum = 0;
  for (int e = 0; e < episodes; ++e) {
    DD env;
    env.reset(100 + e);
    policy.reset(100 + e);
    while (!env.done()) env.advance(policy.act(env));
    sum += env.score();
  }
  return sum / episodes;
}

}  // namespace

TEST_CASE("arcade doubledunk: every action moves you 2 units a step its way, and the court's edges stop you") {
  for (int a = 0; a < kNumActions; ++a) {
    DD env = doubledunk_court();
    env.give_ball(DD::kOpp2);  // in the far corner: FIRE does nothing here
    const ActionEffect e = action_effect(a);
    const DoubleDunkStepResult r = env.step(a);
    CHECK(env.player(DD::kYou).x == 40 + 2 * e.dx);
    CHECK(env.player(DD::kYou).y == 30 + 2 * e.dy);
    CHECK((r.reward == 0 && !r.done && env.holder() == DD::kOpp2));
  }
  DD env = doubledunk_court(DD::kMinX + 1, DD::kMinY);
  env.advance(kUpLeft);
  CHECK((env.player(DD::kYou).x == DD::kMinX && env.player(DD::kYou).y == DD::kMinY));
  env.place_player(DD::kYou, DD::kMaxX, DD::kMaxY - 1);
  env.advance(kDownRight);
  CHECK((env.player(DD::kYou).x == DD::kMaxX && env.player(DD::kYou).y == DD::kMaxY));
  // The scripted players stand still on a quiet court.
  CHECK((env.player(DD::kMate).x == 70 && env.player(DD::kOpp1).y == 60));

  CHECK(throws_with([&] { env.place_player(0, 1, 30); }, {"place_player", "(1, 30)"}));
  CHECK(throws_with([&] { env.place_player(4, 40, 30); }, {"place_player", "player 4"}));
  CHECK(throws_with([&] { env.give_ball(-1); }, {"give_ball", "-1"}));
  CHECK(throws_with([&] { env.set_shot_clock(0); }, {"set_shot_clock", "0"}));
  CHECK(throws_with([&] { env.set_points(21, 0); }, {"set_points", "21-0"}));
  CHECK(throws_with([&] { env.advance(18); }, {"action_effect", "18"}));
  CHECK(throws_with([] { DD bad({.max_steps = 0}); }, {"DoubleDunkEnv", "max_steps 0"}));
}

TEST_CASE("arcade doubledunk: FIRE towards the basket or standing shoots, sideways or away passes") {
  for (int a = kLeftFire; a <= kFire; ++a) {
    DD env = doubledunk_court();
    DoubleDunkStepInfo info;
    env.advance(a, &info);
    const ActionEffect e = action_effect(a);
    if (e.dy < 0 || (e.dx == 0 && e.dy == 0)) {
      CHECK(info.shooter == DD::kYou);
      CHECK(env.ball().state == DoubleDunkBallState::Shot);
      CHECK(info.passer == -1);
    } else {
      CHECK((info.passer == DD::kYou && info.receiver == DD::kMate));
      CHECK(env.ball().state == DoubleDunkBallState::Pass);
      CHECK(doubledunk_until_landed(env).caught_by == DD::kMate);  // nobody in the way
      CHECK((env.holder() == DD::kMate && env.offense() == 0));
    }
  }
  // The teammate holds the ball: FIRE calls for it (passed at once when the scripts play).
  DD env = doubledunk_court();
  env.give_ball(DD::kMate);
  env.advance(kFire);
  CHECK((env.ball_called() && env.holder() == DD::kMate));
  DD live;
  live.reset(0);
  live.give_ball(DD::kMate);
  DoubleDunkStepInfo info;
  live.advance(kFire, &info);
  CHECK((info.passer == DD::kMate && info.receiver == DD::kYou));
}

TEST_CASE("arcade doubledunk: a basket inside the arc scores 2, beyond it 3, and the other team gets the ball") {
  CHECK(DD::shot_value({40, 30}) == 2);  // 24 units: on the arc
  CHECK(DD::shot_value({40, 31}) == 3);
  CHECK(DD::shot_value({20, 10}) == 2);
  CHECK(DD::shot_value({4, 6}) == 3);  // the corner
  for (const auto& [y, points] : std::vector<std::pair<int, int>>{{12, 2}, {36, 3}}) {
    int made = 0;
    for (uint64_t seed = 0; seed < 40 && made < 3; ++seed) {
      DD env = doubledunk_court(40, y, seed);
      env.advance(kFire);
      const DoubleDunkStepInfo info = doubledunk_until_landed(env);
      if (info.points_for == 0) {
        CHECK(info.rebound_by >= 0);  // a miss is rebounded
        continue;
      }
      made += 1;
      CHECK(info.points_for == points);
      CHECK(env.score() == points);
      CHECK(env.points(0) == points);
      // Possession changes; the ball is cleared back beyond the arc with a full shot clock.
      CHECK((info.possession_changed && env.offense() == 1 && env.holder() == DD::kOpp1));
      CHECK(DD::basket_distance(env.player(DD::kOpp1)) > DD::kArcRadius);
      CHECK(env.shot_clock() == DD::kShotClock);
    }
    CHECK(made == 3);
  }
}

TEST_CASE("arcade doubledunk: the shot chance falls with distance and with a close defender") {
  for (double d = 4; d <= 40; d += 4) CHECK(DD::shot_chance(d + 4, 20) < DD::shot_chance(d, 20));
  CHECK(DD::shot_chance(60, 20) == doctest::Approx(0.03));  // the floor: a heave from the far corner
  for (double g = 2; g < 12; g += 2) CHECK(DD::shot_chance(10, g) < DD::shot_chance(10, g + 2));
  CHECK(DD::shot_chance(10, 3) == doctest::Approx(0.35 * DD::shot_chance(10, 12)));
  // Measured over seeds: a close shot goes in far more often than a long one.
  auto rate = [](int y, int defender_y) {
    int made = 0;
    const int n = 300;
    for (int seed = 0; seed < n; ++seed) {
      DD env = doubledunk_court(40, y, seed);
      if (defender_y > 0) env.place_player(DD::kOpp1, 40, defender_y);
      env.advance(kFire);
      made += doubledunk_until_landed(env).points_for > 0;
    }
    return static_cast<double>(made) / n;
  };
  const double near = rate(12, 0), far = rate(40, 0), guarded = rate(12, 10);
  CHECK(near == doctest::Approx(DD::shot_chance(6, 40)).epsilon(0.12));  // 0.83
  CHECK(far == doctest::Approx(DD::shot_chance(34, 40)).epsilon(0.35));  // 0.27
  CHECK(near > far + 0.4);
  CHECK(guarded < near - 0.3);  // the defender 2 units away: 0.35 of the open chance
}

TEST_CASE("arcade doubledunk: defenders within reach steal the ball, you swipe at it with FIRE") {
  // One opponent 2 units from you: a 6% steal chance a step.
  int stolen = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    DD env = doubledunk_court(40, 30, seed);
    env.place_player(DD::kOpp1, 42, 30);
    DoubleDunkStepInfo info;
    env.advance(kNoop, &info);
    if (info.stolen_by < 0) continue;
    stolen += 1;
    CHECK((info.stolen_by == DD::kOpp1 && info.possession_changed && env.offense() == 1));
    CHECK(env.holder() == DD::kOpp1);
  }
  CHECK(stolen >= 10);
  CHECK(stolen <= 40);
  // 5 units away: out of reach for 20 steps.
  DD safe = doubledunk_court();
  safe.place_player(DD::kOpp1, 45, 30);
  for (int i = 0; i < 20; ++i) safe.advance(kNoop);
  CHECK(safe.holder() == DD::kYou);

  // Your swipe: FIRE within 4 units of an opponent holding the ball, 15% a step.
  int swiped = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    DD env = doubledunk_court(40, 30, seed);
    env.place_player(DD::kOpp1, 44, 30);
    env.give_ball(DD::kOpp1);
    DoubleDunkStepInfo info;
    env.advance(kFire, &info);
    swiped += info.stolen_by == DD::kYou;
    if (info.stolen_by == DD::kYou) CHECK((env.offense() == 0 && env.holder() == DD::kYou));
  }
  CHECK(swiped >= 35);
  CHECK(swiped <= 90);
  DD far = doubledunk_court();
  far.place_player(DD::kOpp1, 46, 30);
  far.give_ball(DD::kOpp1);
  for (int i = 0; i < 30; ++i) far.advance(kFire);
  CHECK(far.holder() == DD::kOpp1);

  // A pass past a defender is sometimes intercepted; the same pass with nobody near never is.
  int intercepted = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    DD env = doubledunk_court(40, 30, seed);
    env.place_player(DD::kOpp2, 52, 26);  // on the line to the teammate at (70, 20)
    env.advance(kRightFire);
    intercepted += doubledunk_until_landed(env).intercepted_by == DD::kOpp2;
  }
  CHECK(intercepted >= 10);
  CHECK(intercepted < 100);
}

TEST_CASE("arcade doubledunk: the shot clock turns the ball over, and stops while a shot flies") {
  DD env = doubledunk_court();
  env.set_shot_clock(3);
  DoubleDunkStepInfo info;
  env.advance(kNoop, &info);
  env.advance(kNoop, &info);
  CHECK((env.shot_clock() == 1 && env.offense() == 0 && !info.shot_clock_turnover));
  env.advance(kNoop, &info);
  CHECK((info.shot_clock_turnover && info.possession_changed));
  CHECK((env.offense() == 1 && env.holder() == DD::kOpp1 && env.shot_clock() == DD::kShotClock));

  DD shot = doubledunk_court(40, 44);  // 38 units: 8 steps in the air
  shot.set_shot_clock(1);
  shot.advance(kFire, &info);
  for (int i = 0; i < 5; ++i) {
    shot.advance(kNoop, &info);
    CHECK((!info.shot_clock_turnover && shot.ball().state == DoubleDunkBallState::Shot));
  }
}

TEST_CASE("arcade doubledunk: the opponents' baskets cost their points") {
  int made = 0;
  for (uint64_t seed = 0; seed < 30 && made < 2; ++seed) {
    DD env;
    env.reset(seed);
    env.place_player(DD::kOpp1, 40, 10);  // open under the basket: the script shoots
    env.place_player(DD::kOpp2, 70, 30);
    env.place_player(DD::kYou, 4, 60);
    env.place_player(DD::kMate, 76, 60);
    env.give_ball(DD::kOpp1);
    double reward = 0;
    DoubleDunkStepInfo info;
    for (int i = 0; i < 10 && info.points_against == 0 && info.rebound_by < 0; ++i)
      reward = env.advance(kNoop, &info).reward;
    if (info.points_against == 0) continue;
    made += 1;
    CHECK(reward == -2);
    CHECK((env.points(1) == 2 && env.score() == -2));
    CHECK((env.offense() == 0 && env.holder() == DD::kYou));
  }
  CHECK(made == 2);
}

TEST_CASE("arcade doubledunk: the match ends at the target score or at the step cap") {
  bool ended = false;
  for (uint64_t seed = 0; seed < 20 && !ended; ++seed) {
    DD env = doubledunk_court(40, 12, seed);
    env.set_points(19, 3);
    env.advance(kFire);
    const DoubleDunkStepInfo info = doubledunk_until_landed(env);
    if (info.points_for == 0) continue;
    ended = true;
    CHECK((env.done() && info.target_reached && !info.truncated && env.points(0) == 21));
    CHECK(throws_with([&] { env.advance(kNoop); }, {"DoubleDunkEnv::step", "ended", "21-3"}));
  }
  CHECK(ended);

  DD capped({.max_steps = 5, .spawn = false});
  capped.reset(1);
  GameStep s;
  for (int i = 0; i < 5; ++i) {
    CHECK_FALSE(s.done);
    s = capped.advance(kNoop);
  }
  CHECK((s.done && s.truncated && !s.life_lost && capped.steps() == 5 && capped.lives() == 0));
}

TEST_CASE("arcade doubledunk: the same seed and actions give the same episode, copies continue alike") {
  auto run = [](uint64_t seed) {
    DD env;
    std::vector<float> trace = env.reset(seed);
    ArcadeRng actions(seed, 9);
    while (!env.done()) {
      const DoubleDunkStepResult r = env.step(actions.below(kNumActions));
      trace.insert(trace.end(), r.observation.begin(), r.observation.end());
      trace.push_back(static_cast<float>(r.reward));
    }
    return trace;
  };
  const std::vector<float> a = run(3), b = run(3), c = run(4);
  CHECK(a == b);
  CHECK(a != c);

  DD env;
  env.reset(5);
  DoubleDunkExpert expert;
  for (int i = 0; i < 150; ++i) env.advance(expert.act(env));
  std::unique_ptr<Game> copy = env.clone();
  CHECK(copy->name() == "doubledunk");
  for (int i = 0; i < 200 && !env.done(); ++i) {
    const int action = expert.act(env);
    const GameStep x = env.advance(action), y = copy->advance(action);
    CHECK((x.reward == y.reward && x.done == y.done));
  }
  CHECK(env.observation() == copy->observation());
  CHECK(env.score() == copy->score());
}

TEST_CASE("arcade doubledunk: the score is the sum of the rewards, each the basket's points for or against") {
  DD env;
  env.reset(7);
  DoubleDunkExpert expert;
  ArcadeRng noise(7, 3);
  double sum = 0;
  int baskets = 0, against = 0;
  while (!env.done()) {
    const int random_action = noise.below(kNumActions);
    const int action = noise.uniform() < 0.3 ? random_action : expert.act(env);
    const DoubleDunkStepResult r = env.step(action);
    sum += r.reward;
    CHECK(r.reward == r.info.points_for - r.info.points_against);
    baskets += r.info.points_for > 0;
    against += r.info.points_against > 0;
  }
  CHECK(sum == env.score());
  CHECK(env.score() == env.points(0) - env.points(1));
  CHECK(baskets > 0);
  CHECK(against > 0);
}

TEST_CASE("arcade doubledunk: the observation names its features, stays in range, and the frame") {
  DD env;
  CHECK(env.observation_size() == DD::kObservationSize);
  CHECK(static_cast<int>(env.observation_names().size()) == DD::kObservationSize);
  CHECK(std::set<std::string>(env.observation_names().begin(), env.observation_names().end()).size() ==
        env.observation_names().size());
  CHECK(env.reset(2).size() == static_cast<size_t>(DD::kObservationSize));
  DoubleDunkExpert expert;
  ArcadeRng noise(2, 3);
  std::set<int> holders;
  while (!env.done()) {
    const int random_action = noise.below(kNumActions);
    env.advance(noise.uniform() < 0.3 ? random_action : expert.act(env));
    holders.insert(env.holder());
    for (float v : env.observation()) CHECK(std::fabs(v) <= 1.0f);
  }
  CHECK(holders.size() == 5);  // each player and the ball in the air

  DD quiet = doubledunk_court(40, 30);
  const std::vector<float> o = quiet.observation();
  CHECK(o[0] == doctest::Approx(0.0));  // you_x at the centre
  CHECK(o[14] == 1.f);                  // ball_you
  CHECK(o[30] == 1.f);                  // offense: yours
  CHECK(o[31] == 1.f);                  // a full shot clock
  CHECK(o[39] == 0.f);                  // 24 units from the basket: inside the arc
  CHECK(o[40] == doctest::Approx(DD::shot_chance(24, quiet.nearest_defender(DD::kYou))));

  const std::vector<uint8_t> frame = quiet.render();
  CHECK((quiet.frame_width() == 40 && quiet.frame_height() == 32));
  CHECK(frame.size() == 40u * 32u);
  CHECK(frame[static_cast<size_t>(14) * 40 + 19] == 240);  // you at (40, 30): pixel (19..20, 14..15)
  CHECK(frame[static_cast<size_t>(3) * 40 + 20] == 255);   // the basket
}

TEST_CASE("arcade doubledunk policies: random loses, careless does better, the expert wins clearly") {
  DoubleDunkRandom random;
  DoubleDunkExpert careless({.careful = false}), expert;
  const double r = doubledunk_mean_return(random, 20), c = doubledunk_mean_return(careless, 20),
               e = doubledunk_mean_return(expert, 20);
  MESSAGE("random " << r << ", careless " << c << ", expert " << e);
  CHECK(r < -5);
  CHECK(r < c);
  CHECK(c < e);
  CHECK(e > 10);

  struct NotDoubleDunk : Game {
    std::string_view name() const override { return "pong"; }
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
    std::unique_ptr<Game> clone() const override { return nullptr; }
    bool done() const override { return false; }
    double score() const override { return 0; }
    int steps() const override { return 0; }
    int lives() const override { return 0; }
  };
  CHECK(throws_with([&] { expert.act(NotDoubleDunk{}); }, {"DoubleDunkExpert::act", "pong"}));
}

TEST_CASE("arcade doubledunk: the game's entry names it, builds it and its policies") {
  const GameInfo info = doubledunk_game_info();
  CHECK((info.name == "doubledunk" && info.atari_name == "DoubleDunk"));
  CHECK(info.observation_size == DD::kObservationSize);
  CHECK(info.format_version == 1);
  std::unique_ptr<Game> game = info.make({.max_steps = 50, .lives = 3, .spawn = true});
  CHECK(game->name() == "doubledunk");
  CHECK(game->lives() == 0);  // no lives: GameConfig::lives is ignored
  game->reset(1);
  while (!game->done()) game->advance(kNoop);
  CHECK(game->steps() <= 50);
  CHECK(info.scripted == std::vector<std::string>{"expert", "careless"});
  for (const std::string& name : info.scripted) CHECK(info.make_scripted(name) != nullptr);
  CHECK(info.make_scripted("random") == nullptr);  // the registry's, not the game's
  CHECK(info.make_scripted("greedy") == nullptr);
  const std::vector<MixtureComponent> mix = info.default_mixture();
  std::set<std::string> specs;
  for (const MixtureComponent& m : mix) {
    CHECK(m.weight > 0);
    specs.insert(m.policy);
  }
  CHECK((specs.count("random") == 1 && specs.count("expert:0.03") == 1 && specs.size() == mix.size()));
}
