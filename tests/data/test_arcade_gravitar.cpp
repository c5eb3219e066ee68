// The Gravitar stand-in (data/arcade/gravitar_*): gravity, rotation and thrust, fuel, the shield
// and the tractor beam, shots and bunkers, the three ways to lose a life, clearing a planet,
// termination, determinism, copies, the observation and the frame, and the scripted policies.
#include <cmath>
#include <memory>
#include <numeric>

#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/gravitar_env.h"
#include "harmonic/data/arcade/gravitar_policies.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::arcade;
using hm::test::throws_with;
using Env = GravitarEnv;

namespace {

constexpr int U = Env::kSub;  // one unit in sub-units

// Nothing spawns, the ground is flat at row 56, the ship at rest at (40, 20) pointing up.
Env gravitar_quiet(int heading = 0) {
  Env env({.spawn = false});
  env.reset(0);
  env.flatten_terrain(56);
  env.place_ship(40 * U, 20 * U, heading);
  return env;
}

// A uniform random action, or the expert's with probability 1 - epsilon (the registry's noisy
// policies live in games.cpp; this keeps the test to this game's files).
class GravitarTestPolicy : public Policy {
 public:
  GravitarTestPolicy(std::unique_ptr<Policy> inner, double epsilon) : inner_(std::move(inner)), epsilon_(epsilon) {}
  int act(const Game& game) override {
    const bool explore = rng_.uniform() < epsilon_;
    const int random_action = rng_.below(kNumActions);
    const int inner_action = inner_ ? inner_->act(game) : kNoop;
    return explore || !inner_ ? random_action : inner_action;
  }
  void reset(uint64_t seed) override { rng_ = ArcadeRng(seed, /*stream=*/2); }

 private:
  std::unique_ptr<Policy> inner_;
  double epsilon_;
  ArcadeRng rng_;
};

std::unique_ptr<Policy> gravitar_policy(const char* name, double epsilon = 0) {
  if (std::string_view(name) == "random") return std::make_unique<GravitarTestPolicy>(nullptr, 1.0);
  return std::make_unique<GravitarTestPolicy>(make_gravitar_policy(name), epsilon);
}

double gravitar_mean_return(const char* name, int episodes) {
  double sum = 0;
  for (int e = 0; e < episodes; ++e) {
    Env env;
    env.reset(100 + e);
    auto policy = gravitar_policy(name);
    policy->reset(100 + e);
    while (!env.done()) env.advance(policy->act(env));
    sum += env.score();
  }
  return sum / episodes;
}

}  // namespace

TEST_CASE("gravitar: gravity pulls the idle ship down, faster each step") {
  Env env = gravitar_quiet();
  const int g = env.gravity();
  CHECK(g == Env::kGravity0);
  int y = 20 * U;
  for (int k = 1; k <= 10; ++k) {
    const GameStep s = env.advance(kNoop);
    y += g * k;  // velocity g k after k steps
    CHECK(env.ship_vy() == g * k);
    CHECK(env.ship_y() == y);
    CHECK(env.ship_x() == 40 * U);
    CHECK((s.reward == 0 && !s.life_lost && !s.done));
  }
  CHECK(env.fuel() == Env::kStartFuel);  // drifting costs nothing
}

TEST_CASE("gravitar: each action rotates, thrusts, shields and fires as its joystick direction says") {
  for (int a = 0; a < kNumActions; ++a) {
    CAPTURE(action_name(a));
    Env env = gravitar_quiet(2);
    const ActionEffect e = action_effect(a);
    const GravitarStepResult r = env.step(a);
    const int heading = (2 + e.dx + Env::kHeadings) % Env::kHeadings;  // RIGHT turns clockwise
    CHECK(env.heading() == heading);
    const int thrust_x = e.dy < 0 ? Env::heading_dx(heading) : 0, thrust_y = e.dy < 0 ? Env::heading_dy(heading) : 0;
    CHECK(env.ship_vx() == thrust_x);
    CHECK(env.ship_vy() == thrust_y + env.gravity());
    CHECK(env.shield() == (e.dy > 0));
    CHECK(env.fuel() == Env::kStartFuel - (e.dy < 0 ? Env::kThrustFuel : 0) - (e.dy > 0 ? Env::kShieldFuel : 0));
    CHECK(r.info.shots_fired == (e.fire ? 1 : 0));
  }
  // Sixteen turns bring the ship round; thrust follows the heading (4 is right, 12 left).
  Env env = gravitar_quiet();
  for (int i = 0; i < Env::kHeadings; ++i) env.advance(kLeft);
  CHECK(env.heading() == 0);
  CHECK((Env::heading_dx(4) == 16 && Env::heading_dy(4) == 0 && Env::heading_dx(12) == -16));
  CHECK((Env::heading_dx(0) == 0 && Env::heading_dy(0) == -16 && Env::heading_dy(8) == 16));
  env.place_ship(40 * U, 20 * U, 4);
  env.advance(kUp);
  CHECK(env.ship_vx() == 16);
  CHECK(env.ship_x() == 40 * U + 16);
}

TEST_CASE("gravitar: thrust and the shield drain fuel, and running out costs a life") {
  Env env = gravitar_quiet();
  env.advance(kUp);
  env.advance(kDown);
  env.advance(kNoop);
  CHECK(env.fuel() == Env::kStartFuel - Env::kThrustFuel - Env::kShieldFuel);
  env.set_fuel(3);
  GravitarStepResult r = env.step(kUp);
  CHECK(r.info.life_lost == GravitarLifeLoss::None);
  CHECK(env.fuel() == 1);
  r = env.step(kDown);
  CHECK(r.info.life_lost == GravitarLifeLoss::Fuel);
  CHECK(env.lives() == 2);
  CHECK((env.fuel() == Env::kStartFuel && env.ship_x() == Env::kStartX && env.ship_y() == Env::kStartY));
  CHECK(gravitar_life_loss_name(GravitarLifeLoss::Fuel) == "fuel");
}

TEST_CASE("gravitar: the shield blocks a bunker shot that kills the bare ship") {
  for (int action : {kDown, kNoop, kDownFire}) {
    Env env = gravitar_quiet();
    env.place_enemy_shot(40 * U, 22 * U, 0, -Env::kEnemyShotSpeed);  // two units below, rising
    const GravitarStepResult r = env.step(action);
    const bool shielded = action_effect(action).dy > 0;
    CHECK(r.info.shots_blocked == (shielded ? 1 : 0));
    CHECK(r.info.life_lost == (shielded ? GravitarLifeLoss::None : GravitarLifeLoss::Shot));
    CHECK(env.lives() == (shielded ? 3 : 2));
    CHECK_FALSE(env.enemy_shots()[0].alive);
  }
}

TEST_CASE("gravitar: the tractor beam takes a tank below the shielded ship and refuels it") {
  Env env = gravitar_quiet();
  const int slot = env.place_tank(38);  // columns 38..41 on row 56: top row 53, centred under the ship
  CHECK(env.tanks()[slot].y == 53);
  env.place_ship(40 * U, 45 * U, 0);
  env.set_fuel(100);
  CHECK(env.step(kNoop).info.tanks_collected == 0);  // no beam without the shield
  GravitarStepResult r = env.step(kDown);
  CHECK(r.info.tanks_collected == 1);
  CHECK(r.reward == 0);
  CHECK_FALSE(env.tanks()[slot].alive);
  CHECK(env.fuel() == 100 - Env::kShieldFuel + Env::kTankFuel);
  // Out of the beam's reach (more than 14 units below), nothing happens.
  Env far = gravitar_quiet();
  far.place_tank(38);
  far.place_ship(40 * U, 30 * U, 0);
  CHECK(far.step(kDown).info.tanks_collected == 0);
  CHECK(far.tanks()[0].alive);
}

TEST_CASE("gravitar: shots fly along the heading, two at most, one every kReload steps") {
  Env env = gravitar_quiet(4);  // pointing right, over flat ground
  int fired = 0;
  for (int i = 0; i < 12; ++i) fired += env.step(kFire).info.shots_fired;
  CHECK(fired == 2);  // at steps 0 and 4; at step 8 both are still flying
  for (const GravitarShot& s : env.shots()) CHECK((s.alive && s.vx == 2 * U && s.vy == 0));
  for (int i = 0; i < Env::kShotLife; ++i) env.advance(kNoop);
  for (const GravitarShot& s : env.shots()) CHECK_FALSE(s.alive);
}

TEST_CASE("gravitar: a shot destroys a bunker (+250), the last one clears the planet (+1000)") {
  Env env = gravitar_quiet(8);  // pointing down
  env.place_bunker(38);         // under the ship
  env.place_bunker(10);
  REQUIRE(env.bunkers_left() == 2);
  double total = 0;
  int destroyed = 0;
  total += env.step(kFire).reward;
  for (int i = 0; i < 20 && env.bunkers_left() == 2; ++i) {
    const GravitarStepResult r = env.step(kNoop);
    total += r.reward;
    destroyed += r.info.bunkers_destroyed;
  }
  CHECK(destroyed == 1);
  CHECK(total == Env::kBunkerReward);
  CHECK(env.score() == total);
  CHECK(env.lives() == 3);
  CHECK_FALSE(env.bunkers()[0].alive);

  env.place_ship(12 * U, 30 * U, 8);  // over the second bunker
  GravitarStepResult r = env.step(kDownFire);
  while (!r.info.planet_cleared && env.steps() < 60) r = env.step(kNoop);
  CHECK(r.info.planet_cleared);
  CHECK(r.reward == Env::kBunkerReward + Env::kPlanetBonus);
  CHECK(env.score() == 2 * Env::kBunkerReward + Env::kPlanetBonus);
  CHECK(env.planet() == 1);
  CHECK(env.gravity() == Env::kGravity0 + 1);
  CHECK((env.ship_x() == Env::kStartX && env.ship_y() == Env::kStartY && env.ship_vy() == 0));
}

TEST_CASE("gravitar: a cleared planet gives way to one with another bunker and stronger gravity") {
  Env env;
  env.reset(3);
  CHECK(env.bunkers_left() == Env::kFirstBunkers);
  int tanks = 0;
  for (const GravitarTank& t : env.tanks()) tanks += t.alive;
  CHECK(tanks == Env::kTanks);
  for (const GravitarBunker& b : env.bunkers())
    if (b.alive) CHECK(env.ground(b.x) == b.y + Env::kBoxH);  // sitting on the ground
  auto expert = make_gravitar_policy("expert");
  while (!env.done() && env.planet() == 0) env.advance(expert->act(env));
  REQUIRE(env.planet() == 1);
  CHECK(env.bunkers_left() == Env::kFirstBunkers + 1);
  CHECK(env.gravity() == Env::kGravity0 + 1);
}

TEST_CASE("gravitar: crashing into the ground or a bunker costs a life and restarts the ship at the top") {
  Env env = gravitar_quiet();
  env.place_ship(40 * U, 55 * U, 5, 30, 100);  // its box's bottom touches row 56
  GravitarStepResult r = env.step(kNoop);
  CHECK(r.info.life_lost == GravitarLifeLoss::Crash);
  CHECK(env.lives() == 2);
  CHECK((env.ship_x() == Env::kStartX && env.ship_y() == Env::kStartY && env.heading() == 0));
  CHECK((env.ship_vx() == 0 && env.ship_vy() == 0));

  Env bunker = gravitar_quiet();
  bunker.place_bunker(38);  // rows 53..55 under the ship
  bunker.place_ship(40 * U, 52 * U, 0);
  CHECK(bunker.step(kNoop).info.life_lost == GravitarLifeLoss::Crash);
  CHECK(bunker.bunkers()[0].alive);  // touching is not destroying
  CHECK(bunker.score() == 0);
}

TEST_CASE("gravitar: bunkers shoot at a ship above them") {
  Env env;
  env.reset(5);
  const GravitarBunker b = env.bunkers()[0];
  bool seen = false;
  for (int i = 0; i < 120 && !seen; ++i) {
    env.place_ship((b.x + 2) * U, (b.y - 15) * U, 0);  // hold it 15 units above the bunker
    env.advance(kDown);                                // shielded
    env.set_fuel(Env::kMaxFuel);
    for (const GravitarShot& s : env.enemy_shots())
      if (s.alive && s.vy < 0 && std::abs(s.vx) < std::abs(s.vy)) seen = true;
  }
  CHECK(seen);
  CHECK(env.lives() == 3);
}

TEST_CASE("gravitar: episodes end at 0 lives or the step cap, and stepping after the end throws") {
  Env env({.max_steps = 1000, .spawn = false});
  env.reset(0);
  env.flatten_terrain(56);
  for (int life = 0; life < 3; ++life) {
    env.place_ship(40 * U, 55 * U, 0, 0, 60);
    const GameStep s = env.advance(kNoop);
    CHECK(s.life_lost);
    CHECK(s.done == (life == 2));
    CHECK_FALSE(s.truncated);
  }
  CHECK((env.done() && env.lives() == 0));
  CHECK(throws_with([&] { env.advance(kNoop); }, {"GravitarEnv::step", "ended"}));

  Env capped({.max_steps = 5});
  capped.reset(1);
  GameStep s;
  for (int i = 0; i < 5; ++i) s = capped.advance(kNoop);  // falls from the top: safe for 5 steps
  CHECK((s.done && s.truncated && capped.lives() == 3 && capped.steps() == 5));
  CHECK(throws_with([&] { capped.advance(kNoop); }, {"GravitarEnv::step"}));
  Env fresh;
  fresh.reset(1);
  CHECK(throws_with([&] { fresh.advance(18); }, {"action_effect", "18"}));
}

TEST_CASE("gravitar: the set-ups check their arguments") {
  Env env = gravitar_quiet();
  CHECK(throws_with([&] { env.place_ship(-1, 20 * U, 0); }, {"place_ship", "-1"}));
  CHECK(throws_with([&] { env.place_ship(40 * U, 20 * U, 16); }, {"place_ship", "heading 16"}));
  CHECK(throws_with([&] { env.place_ship(40 * U, 20 * U, 0, 500, 0); }, {"place_ship", "500"}));
  CHECK(throws_with([&] { env.flatten_terrain(70); }, {"flatten_terrain", "70"}));
  CHECK(throws_with([&] { env.place_bunker(80); }, {"place_bunker", "80"}));
  CHECK(throws_with([&] { env.place_tank(-2); }, {"place_tank", "-2"}));
  CHECK(throws_with([&] { env.set_fuel(0); }, {"set_fuel", "0"}));
  for (int i = 0; i < Env::kMaxEnemyShots; ++i) env.place_enemy_shot(10 * U, 10 * U, 0, 0);
  CHECK(throws_with([&] { env.place_enemy_shot(10 * U, 10 * U, 0, 0); }, {"place_enemy_shot", "free slot"}));
  CHECK(throws_with([] { Env bad({.max_steps = 0}); }, {"GravitarEnv", "max_steps 0"}));
}

TEST_CASE("gravitar: the same seed and actions give the same episode, another seed another, and copies continue alike") {
  auto run = [](uint64_t seed) {
    Env env;
    std::vector<float> trace = env.reset(seed);
    auto policy = gravitar_policy("expert", 0.3);
    policy->reset(seed);
    while (!env.done()) {
      const GravitarStepResult r = env.step(policy->act(env));
      trace.insert(trace.end(), r.observation.begin(), r.observation.end());
      trace.push_back(static_cast<float>(r.reward));
    }
    return trace;
  };
  const std::vector<float> a = run(3), b = run(3), c = run(4);
  CHECK(a == b);
  CHECK(a != c);

  Env env;
  env.reset(5);
  auto policy = gravitar_policy("expert", 0.2);
  policy->reset(5);
  for (int i = 0; i < 60; ++i) env.advance(policy->act(env));
  std::unique_ptr<Game> copy = env.clone();
  CHECK(copy->name() == "gravitar");
  CHECK(copy->observation() == env.observation());
  for (int i = 0; i < 200 && !env.done(); ++i) {
    const int action = policy->act(env);
    const GameStep s = env.advance(action), t = copy->advance(action);
    CHECK((s.reward == t.reward && s.done == t.done && s.life_lost == t.life_lost));
    CHECK(env.observation() == copy->observation());
  }
  CHECK(env.score() == copy->score());
}

TEST_CASE("gravitar: the score is the sum of the step rewards, each a sum of bunkers and planet bonuses") {
  Env env;
  env.reset(7);
  auto policy = gravitar_policy("expert", 0.1);
  policy->reset(7);
  double sum = 0;
  int bunkers = 0;
  while (!env.done()) {
    const GravitarStepResult r = env.step(policy->act(env));
    sum += r.reward;
    bunkers += r.info.bunkers_destroyed;
    CHECK(r.reward == Env::kBunkerReward * r.info.bunkers_destroyed + (r.info.planet_cleared ? Env::kPlanetBonus : 0));
  }
  CHECK(sum == env.score());
  CHECK(bunkers > 0);
}

TEST_CASE("gravitar: the observation and the frame") {
  Env env = gravitar_quiet();
  env.place_bunker(48);  // centre column 50, top row 53
  const std::vector<float> o = env.observation();
  const std::vector<std::string>& names = env.observation_names();
  REQUIRE(o.size() == static_cast<size_t>(Env::kObservationSize));
  REQUIRE(static_cast<int>(o.size()) == env.observation_size());
  REQUIRE(names.size() == o.size());
  CHECK(o.size() <= 64);
  auto at = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return o[static_cast<size_t>(it - names.begin())];
  };
  CHECK(at("x") == doctest::Approx(0.5));
  CHECK(at("heading_y") == 1);  // pointing up
  CHECK(at("fuel") == doctest::Approx(500.0 / 800));
  CHECK(at("lives") == 1);
  CHECK(at("clearance") == doctest::Approx(36.0 / 64));  // ground row 56, ship at row 20
  CHECK(at("bunker0") == 1);
  CHECK(at("bunker0_dx") == doctest::Approx(10.0 / 40));
  CHECK(at("bunker0_dy") == doctest::Approx(33.0 / 64));
  CHECK(at("bunker1") == 0);
  CHECK(at("bunkers_left") == doctest::Approx(1.0 / 6));
  CHECK(at("tank0") == 0);
  for (float v : o) CHECK(std::fabs(v) <= 1.0f);
  Env busy;
  busy.reset(0);
  auto expert = make_gravitar_policy("expert");
  for (int i = 0; i < 300; ++i) {
    busy.advance(expert->act(busy));
    for (float v : busy.observation()) CHECK(std::fabs(v) <= 1.5f);
  }

  const std::vector<uint8_t> frame = env.render();
  REQUIRE(frame.size() == static_cast<size_t>(env.frame_width() * env.frame_height()));
  CHECK((env.frame_width() == 40 && env.frame_height() == 32));
  auto pixel = [&](int r, int c) { return frame[static_cast<size_t>(r) * Env::kFrameW + c]; };
  CHECK(pixel(10, 20) == 255);                       // the ship (units 39..40, 19..20)
  CHECK(pixel(27, 25) == 200);                       // the bunker (units 48..51, 53..55)
  CHECK(pixel(30, 5) == 90);                         // the ground
  CHECK(pixel(5, 5) == 0);                           // the sky
  CHECK((pixel(0, 0) == 120 && pixel(0, 30) == 0));  // the fuel gauge: 5/8 full
}

TEST_CASE("gravitar policies: random < careless < expert in mean return") {
  const double random = gravitar_mean_return("random", 20);
  const double careless = gravitar_mean_return("careless", 20);
  const double expert = gravitar_mean_return("expert", 20);
  MESSAGE("gravitar mean returns over 20 episodes: random " << random << ", careless " << careless << ", expert "
                                                            << expert);
  CHECK(random < careless);
  CHECK(careless < expert);
  CHECK(expert > 5 * careless / 2);
}

TEST_CASE("gravitar: the game's entry for the registry") {
  const GameInfo info = gravitar_game_info();
  CHECK((info.name == "gravitar" && info.atari_name == "Gravitar" && info.format_version == 1));
  CHECK(info.observation_size == Env::kObservationSize);
  std::unique_ptr<Game> game = info.make({.max_steps = 7});
  REQUIRE(game != nullptr);
  CHECK(game->name() == "gravitar");
  CHECK(game->reset(0).size() == static_cast<size_t>(info.observation_size));
  for (const std::string& name : info.scripted) CHECK(info.make_scripted(name) != nullptr);
  CHECK(info.make_scripted("random") == nullptr);  // the registry's own
  CHECK(info.make_scripted("pilot") == nullptr);
  const std::vector<MixtureComponent> mixture = info.default_mixture();
  CHECK(mixture.size() >= 5);
  CHECK(mixture.front().policy == "random");
  const int a = info.make_scripted("expert")->act(*game);
  CHECK((a >= 0 && a < kNumActions));
}
