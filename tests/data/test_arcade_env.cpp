// The Seaquest stand-in (data/arcade): the action order and its ALE mapping, each action's
// movement and fire, the field's boundaries, reward accounting (kills, divers, surfacing),
// the three ways to lose a life, termination, determinism, the observation and the frame, and
// the scripted policies.
#include <cmath>
#include <numeric>
#include <set>

#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/policy.h"
#include "harmonic/data/arcade/seaquest_env.h"
#include "harmonic/tools/demos/arcade_demo.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::arcade;
using hm::test::throws_with;
using Env = SeaquestEnv;

namespace {

// A game with nothing spawning by itself, the submarine placed underwater between lanes 1 and 2.
Env quiet_game(int x = 36, int y = 32, int facing = 1) {
  Env env({.spawn = false});
  env.reset(0);
  env.place_submarine(x, y, facing);
  return env;
}

}  // namespace

TEST_CASE("arcade actions: the paper's order, and ALE's order through to_ale / from_ale") {
  // Gillman et al., section 5: NOOP, LEFT, UPLEFT, UP, UPRIGHT, RIGHT, DOWNRIGHT, DOWN, DOWNLEFT, the
  // same eight with FIRE, then FIRE.
  const std::vector<std::string> paper = {"NOOP",       "LEFT",         "UPLEFT",      "UP",        "UPRIGHT",
                                          "RIGHT",      "DOWNRIGHT",    "DOWN",        "DOWNLEFT",  "LEFTFIRE",
                                          "UPLEFTFIRE", "UPFIRE",       "UPRIGHTFIRE", "RIGHTFIRE", "DOWNRIGHTFIRE",
                                          "DOWNFIRE",   "DOWNLEFTFIRE", "FIRE"};
  // ALE's action enum (ale_interface's Action), in its numbering.
  const std::vector<std::string> ale = {"NOOP",       "FIRE",          "UP",          "RIGHT",     "LEFT",
                                        "DOWN",       "UPRIGHT",       "UPLEFT",      "DOWNRIGHT", "DOWNLEFT",
                                        "UPFIRE",     "RIGHTFIRE",     "LEFTFIRE",    "DOWNFIRE",  "UPRIGHTFIRE",
                                        "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE"};
  std::set<int> seen;
  for (int a = 0; a < kNumActions; ++a) {
    CHECK(action_name(a) == paper[a]);
    CHECK(ale[to_ale(a)] == paper[a]);
    CHECK(from_ale(to_ale(a)) == a);
    seen.insert(to_ale(a));
  }
  CHECK(seen.size() == kNumActions);  // a permutation
  CHECK(to_ale(kFire) == 1);
  CHECK(from_ale(12) == kLeftFire);
  CHECK(throws_with([] { to_ale(18); }, {"to_ale", "18"}));
  CHECK(throws_with([] { from_ale(-1); }, {"from_ale", "-1"}));
  CHECK(throws_with([] { action_effect(-3); }, {"action_effect", "-3"}));
}

TEST_CASE("arcade actions: neighbouring indices are neighbouring moves, fire variants are +8") {
  for (int group : {1, 9}) {
    for (int i = 0; i < 8; ++i) {
      const ActionEffect a = action_effect(group + i), b = action_effect(group + (i + 1) % 8);
      // Consecutive moves (and the wrap from DOWNLEFT back to LEFT) are 45 degrees apart.
      const double angle = std::atan2(a.dy, a.dx) - std::atan2(b.dy, b.dx);
      CHECK(std::fabs(std::remainder(angle, 2 * M_PI)) == doctest::Approx(M_PI / 4));
      CHECK(a.fire == (group == 9));
    }
  }
  for (int a = 1; a <= 8; ++a) {
    const ActionEffect move = action_effect(a), fire = action_effect(a + 8);
    CHECK((move.dx == fire.dx && move.dy == fire.dy && fire.fire && !move.fire));
    CHECK(action_of(move.dx, move.dy, false) == a);
    CHECK(action_of(move.dx, move.dy, true) == a + 8);
  }
  CHECK(action_of(0, 0, false) == kNoop);
  CHECK(action_of(0, 0, true) == kFire);
  CHECK(throws_with([] { action_of(2, 0, false); }, {"action_of", "(2, 0)"}));
}

TEST_CASE("arcade game: every action moves the submarine 2 units its way and turns it") {
  for (int a = 0; a < kNumActions; ++a) {
    Env env = quiet_game(36, 32, -1);
    const ActionEffect e = action_effect(a);
    env.step(a);
    CHECK(env.sub_x() == 36 + 2 * e.dx);
    CHECK(env.sub_y() == 32 + 2 * e.dy);  // y grows downwards: UP is -2
    CHECK(env.facing() == (e.dx != 0 ? e.dx : -1));
    CHECK(env.torpedo().alive == e.fire);
  }
}

TEST_CASE("arcade game: the field's edges stop the submarine") {
  Env env = quiet_game(0, Env::kBottomY);
  env.step(kDownLeft);
  CHECK((env.sub_x() == 0 && env.sub_y() == Env::kBottomY));
  env.place_submarine(Env::kWidth - Env::kSubW, Env::kSurfaceY, 1);
  env.step(kUpRight);
  CHECK((env.sub_x() == Env::kWidth - Env::kSubW && env.sub_y() == Env::kSurfaceY));
  CHECK(throws_with([&] { env.place_submarine(-2, 20, 1); }, {"place_submarine", "(-2, 20)"}));
}

TEST_CASE("arcade game: a torpedo flies the facing way, one at a time, and leaves the field") {
  Env env = quiet_game(36, 32, 1);
  env.step(kLeftFire);  // turns left, then fires left from the submarine's left edge
  REQUIRE(env.torpedo().alive);
  CHECK(env.torpedo().dir == -1);
  CHECK(env.torpedo().x == 34 - Env::kTorpedoW - Env::kTorpedoSpeed);  // launched at x 30, flew 6
  CHECK(env.torpedo().y == 32 + 1);
  const int x = env.torpedo().x;
  env.step(kRightFire);  // the first torpedo is still flying: no second one, no turn of the torpedo
  CHECK(env.torpedo().dir == -1);
  CHECK(env.torpedo().x == x - Env::kTorpedoSpeed);
  for (int i = 0; i < 10; ++i) env.step(kNoop);
  CHECK_FALSE(env.torpedo().alive);  // gone past the left edge
  env.step(kFire);
  CHECK(env.torpedo().dir == 1);
}

TEST_CASE("arcade game: a torpedo kill scores 20 for a shark and 30 for a sub") {
  for (int kind : {0, 1}) {
    Env env = quiet_game(20, Env::lane_top(1), 1);
    env.place_enemy(1, 60, -1, 2, kind);
    double total = 0;
    int kills = 0;
    StepResult r = env.step(kFire);
    for (int i = 0; i < 10 && env.enemies()[1].alive; ++i) {
      total += r.reward;
      kills += r.info.kills;
      r = env.step(kNoop);
    }
    total += r.reward;
    kills += r.info.kills;
    CHECK_FALSE(env.enemies()[1].alive);
    CHECK(kills == 1);
    CHECK(total == (kind == 0 ? 20 : 30));
    CHECK(env.score() == total);
    CHECK_FALSE(env.torpedo().alive);
  }
}

TEST_CASE("arcade game: divers are picked up and score 50 each at the surface, 6 add 200") {
  Env env = quiet_game(30, Env::lane_top(0), 1);
  env.place_diver(0, 31, -1);  // swims onto the submarine
  StepResult r = env.step(kNoop);
  CHECK(r.info.divers_picked == 1);
  CHECK(env.divers_held() == 1);
  CHECK_FALSE(env.divers()[0].alive);
  double total = 0;
  while (env.submerged()) {
    r = env.step(kUp);
    total += r.reward;
  }
  CHECK(total == 50);
  CHECK(r.info.divers_rescued == 1);
  CHECK(env.divers_held() == 0);
  CHECK(env.lives() == 3);

  Env full = quiet_game(30, Env::kSurfaceY + 2, 1);
  full.set_divers_held(6);
  r = full.step(kUp);
  CHECK(r.reward == 6 * 50 + 200);
  CHECK(full.wave() == 1);
  // A seventh diver is not picked up.
  Env crowded = quiet_game(30, Env::lane_top(2), 1);
  crowded.set_divers_held(6);
  crowded.place_diver(2, 31, -1);
  CHECK(crowded.step(kNoop).info.divers_picked == 0);
  CHECK(crowded.divers()[2].alive);
}

TEST_CASE("arcade game: oxygen drains underwater, refills at the surface, and running out costs a life") {
  Env env = quiet_game(30, 32, 1);
  env.set_oxygen(3);
  CHECK(env.step(kNoop).info.life_lost == LifeLoss::None);
  CHECK(env.oxygen() == 2);
  CHECK(env.step(kNoop).info.life_lost == LifeLoss::None);
  StepResult r = env.step(kNoop);
  CHECK(r.info.life_lost == LifeLoss::Oxygen);
  CHECK(r.reward == 0);
  CHECK(env.lives() == 2);
  CHECK((env.sub_y() == Env::kSurfaceY && env.oxygen() == Env::kMaxOxygen && !env.submerged()));
  // At the surface (not coming up from below) oxygen refills by 8 a step.
  Env surface({.spawn = false});
  surface.reset(0);
  surface.set_oxygen(100);
  surface.step(kNoop);
  CHECK(surface.oxygen() == 108);
}

TEST_CASE("arcade game: surfacing without divers or touching an enemy costs a life") {
  Env env({.spawn = false});
  env.reset(0);
  env.step(kDown);
  CHECK(env.submerged());
  StepResult r = env.step(kUp);
  CHECK(r.info.life_lost == LifeLoss::EmptySurface);
  CHECK(env.lives() == 2);

  Env hit = quiet_game(30, Env::lane_top(3), 1);
  hit.set_divers_held(2);
  hit.place_enemy(3, 40, -1, 3, 0);
  r = hit.step(kNoop);  // the shark moves from 40 to 37 < 30 + 8
  CHECK(r.info.life_lost == LifeLoss::Collision);
  CHECK((hit.lives() == 2 && hit.divers_held() == 0 && !hit.enemies()[3].alive));
  CHECK(life_loss_name(LifeLoss::Collision) == "collision");
}

TEST_CASE("arcade game: episodes end at 0 lives or the step cap, and stepping after the end throws") {
  Env env({.max_steps = 1000, .spawn = false});
  env.reset(0);
  for (int life = 0; life < 3; ++life) {
    env.step(kDown);
    StepResult r = env.step(kUp);
    CHECK(r.done == (life == 2));
    CHECK_FALSE(r.info.truncated);
  }
  CHECK((env.done() && env.lives() == 0));
  CHECK(throws_with([&] { env.step(kNoop); }, {"SeaquestEnv::step", "ended"}));

  Env capped({.max_steps = 5});
  capped.reset(1);
  StepResult r;
  for (int i = 0; i < 5; ++i) r = capped.step(kNoop);  // waits at the surface: safe
  CHECK((r.done && r.info.truncated && capped.lives() == 3 && capped.steps() == 5));
}

TEST_CASE("arcade game: the score is the sum of the step rewards, each a sum of kills and surfacing bonuses") {
  Env env;
  env.reset(7);
  auto policy = make_policy("seaquest", "expert:0.2");
  policy->reset(7);
  double sum = 0;
  int kills = 0, rescued = 0;
  while (!env.done()) {
    const StepResult r = env.step(policy->act(env));
    sum += r.reward;
    kills += r.info.kills;
    rescued += r.info.divers_rescued;
    const double bonus = 50.0 * r.info.divers_rescued + (r.info.divers_rescued == 6 ? 200 : 0);
    const double kill = r.reward - bonus;
    CHECK((r.info.kills == 0 ? kill == 0 : (kill == 20 || kill == 30)));
  }
  CHECK(sum == env.score());
  CHECK(kills > 0);
  CHECK(rescued > 0);
}

TEST_CASE("arcade game: the same seed gives the same episode, another seed another") {
  auto run = [](uint64_t seed) {
    Env env;
    std::vector<float> trace = env.reset(seed);
    auto policy = make_policy("seaquest", "expert:0.3");
    policy->reset(seed);
    while (!env.done()) {
      const StepResult r = env.step(policy->act(env));
      trace.insert(trace.end(), r.observation.begin(), r.observation.end());
      trace.push_back(static_cast<float>(r.reward));
    }
    return trace;
  };
  const std::vector<float> a = run(3), b = run(3), c = run(4);
  CHECK(a == b);
  CHECK(a != c);
  // The random policy too (its own Philox stream per seed).
  CHECK(play_episodes("seaquest", "random", 3, 11)[2].score == play_episodes("seaquest", "random", 3, 11)[2].score);
  // A copy of a game continues exactly like the original (the expert relies on it).
  Env env;
  env.reset(5);
  for (int i = 0; i < 40; ++i) env.step(i % kNumActions == 3 ? kDown : kNoop);
  Env copy = env;
  for (int i = 0; i < 60 && !env.done(); ++i)
    CHECK(env.step(kRightFire).observation == copy.step(kRightFire).observation);
}

TEST_CASE("arcade game: the observation and the frame") {
  Env env;
  const std::vector<float> o = env.reset(0);
  REQUIRE(o.size() == static_cast<size_t>(Env::kObservationSize));
  REQUIRE(env.observation_names().size() == o.size());
  CHECK(env.observation_names()[3] == "oxygen");
  CHECK(env.observation_names().back() == "lane3_diver_dir");
  CHECK(o[0] == doctest::Approx(36.0 / 80));  // centred at the surface, full oxygen and lives
  CHECK((o[1] == 0 && o[2] == 1 && o[3] == 1 && o[4] == 0 && o[5] == 1 && o[6] == 0 && o[7] == 0));
  Env quiet = quiet_game(20, Env::lane_top(2), 1);
  quiet.place_enemy(2, 60, -1, 3, 1);
  const std::vector<float> q = quiet.observation();
  const int lane2 = 8 + 2 * 8;
  CHECK(q[lane2 + 0] == 0);                           // the submarine is level with lane 2
  CHECK(q[lane2 + 1] == 1);                           // an enemy
  CHECK(q[lane2 + 2] == doctest::Approx(40.0 / 80));  // 40 units to the right
  CHECK(q[lane2 + 3] == doctest::Approx(-3.0 / 4));   // moving left at 3
  CHECK(q[lane2 + 4] == 1);                           // a sub
  CHECK(q[8 + 1] == 0);                               // lane 0 is empty
  const std::vector<uint8_t> frame = quiet.render();
  REQUIRE(frame.size() == static_cast<size_t>(Env::kFrameW * Env::kFrameH));
  CHECK(frame[static_cast<size_t>(Env::lane_top(2) / 2) * Env::kFrameW + 20 / 2] == 255);  // the submarine
  CHECK(frame[static_cast<size_t>(Env::lane_top(2) / 2) * Env::kFrameW + 60 / 2] == 210);  // the enemy sub
  CHECK(frame[0] == 0);                                                                    // the sky
}

TEST_CASE("arcade policies: the expert far outscores random and careless, noise degrades it") {
  auto mean = [](const std::vector<EpisodeSummary>& v) {
    double s = 0;
    for (const auto& e : v) s += e.score;
    return s / static_cast<double>(v.size());
  };
  const double random = mean(play_episodes("seaquest", "random", 20, 1));
  const double expert = mean(play_episodes("seaquest", "expert", 5, 1));
  const double noisy = mean(play_episodes("seaquest", "expert:0.5", 5, 1));
  const double careless = mean(play_episodes("seaquest", "careless", 5, 1));
  MESSAGE("random " << random << ", expert " << expert << ", expert:0.5 " << noisy << ", careless " << careless);
  CHECK(expert > 50 * std::max(random, 1.0));
  for (const EpisodeSummary& e : play_episodes("seaquest", "expert", 5, 1))
    CHECK(e.lives_lost == 0);  // its look-ahead works
  const ReferenceReturns ref = reference_returns("seaquest", 5, 1);
  CHECK(ref.expert == doctest::Approx(expert));
  CHECK(normalized_return(ref.random, ref) == doctest::Approx(0));
  CHECK(normalized_return(ref.expert, ref) == doctest::Approx(100));
  CHECK(normalized_return((ref.random + ref.expert) / 2, ref) == doctest::Approx(50));
  CHECK(throws_with([] { normalized_return(1, {.random = 5, .expert = 5}); }, {"normalized_return", "exceed"}));
  CHECK(noisy < expert);
  CHECK(careless < expert);
  CHECK(noisy > random);
  CHECK(throws_with([] { make_policy("seaquest", "greedy"); },
                    {"make_policy", "greedy", "seaquest", "random, expert, careless"}));
  CHECK(throws_with([] { make_policy("seaquest", "expert:1.5"); }, {"make_policy", "1.5"}));
  CHECK(throws_with([] { make_policy("seaquest", "expert:"); }, {"make_policy", "epsilon"}));
}

TEST_CASE("arcade policies: epsilon 0 is the inner policy, epsilon 1 is uniformly random") {
  Env env;
  env.reset(2);
  auto expert = make_policy("seaquest", "expert");
  auto noiseless = make_policy("seaquest", "expert:0");
  auto noisy = make_policy("seaquest", "expert:1");
  expert->reset(2), noiseless->reset(2), noisy->reset(2);
  int same = 0, steps = 0;
  while (!env.done() && steps < 300) {
    const int a = expert->act(env);
    CHECK(noiseless->act(env) == a);
    same += noisy->act(env) == a;
    env.step(a), ++steps;
  }
  // epsilon 1 draws uniformly: it matches the expert on about 1/18 of the steps.
  CHECK(same < steps / 4);
}

TEST_CASE("arcade demo: returns as play_episodes gives them, and a PNG strip of frames") {
  test::ScratchDir dir;
  demos::ArcadeDemoConfig config{
      .policy = "expert:0.2", .episodes = 3, .seed = 4, .max_steps = 200, .frames_png = dir / "strip.png", .frames = 5};
  const demos::ArcadeDemoResult r = demos::run_arcade_demo(config);
  const auto direct = play_episodes("seaquest", "expert:0.2", 3, 4, {.max_steps = 200});
  REQUIRE(r.episodes.size() == 3);
  CHECK(r.mean == doctest::Approx((direct[0].score + direct[1].score + direct[2].score) / 3));
  // PNG signature, then the IHDR chunk's big-endian width and height: 5 frames of 40 x 32 at
  // scale 4 with 1-pixel gaps.
  std::ifstream png(dir / "strip.png", std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 24);
  CHECK((bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G'));
  auto be32 = [&](size_t at) {
    return (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
  };
  CHECK(be32(16) == 5 * (40 * 4 + 1) - 1);
  CHECK(be32(20) == 32 * 4);
  CHECK(throws_with(
      [] {
        demos::save_frame_strip({{1, 2, 3}}, {.width = 40, .height = 32, .scale = 2}, "x.png");
      },
      {"save_frame_strip", "3 pixels", "40x32"}));
}

TEST_CASE("arcade game: swimmers leave at the far side, and every lane fills from the seeded timers") {
  Env env = quiet_game(36, Env::kSurfaceY, 1);
  env.place_enemy(0, 70, 1, 4, 0);
  env.place_diver(1, -7, -1);
  env.step(kNoop);
  CHECK(env.enemies()[0].alive);       // x 74: partly on the field
  CHECK_FALSE(env.divers()[1].alive);  // x -8: wholly past the left edge
  env.step(kNoop);
  CHECK(env.enemies()[0].alive);  // x 78
  env.step(kNoop);
  CHECK_FALSE(env.enemies()[0].alive);  // x 82
  for (int i = 0; i < 100; ++i) env.step(kNoop);
  for (int lane = 0; lane < Env::kLanes; ++lane) CHECK_FALSE(env.enemies()[lane].alive);  // spawning is off

  // With spawning on, each lane's first enemy enters within 40 steps (its pause is 5..40).
  Env live;
  live.reset(9);
  std::vector<bool> seen(Env::kLanes, false);
  for (int i = 0; i < 41; ++i) {
    live.step(kNoop);  // waiting at the surface is safe
    for (int lane = 0; lane < Env::kLanes; ++lane) seen[lane] = seen[lane] || live.enemies()[lane].alive;
  }
  CHECK(std::count(seen.begin(), seen.end(), true) == Env::kLanes);
}
