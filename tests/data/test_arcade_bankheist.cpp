// The BankHeist stand-in (data/arcade/bankheist_env.h): the city's streets, driving and walls,
// robbing banks, the police's pursuit, dynamite, fuel, the next city, the episode's end,
// determinism and copies, reward accounting, the observation and the frame, the scripted
// policies and the game's entry for the list of games.
#include <algorithm>
#include <cmath>
#include <set>

#include "harmonic/data/arcade/bankheist_env.h"
#include "harmonic/data/arcade/bankheist_policies.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::arcade;
using hm::test::throws_with;
using BH = BankHeistEnv;

namespace {

// A city with every street segment open (streets on every third row and column) and nothing
// appearing by itself; the car placed at (x, y).
BH full_grid_city(int x = 3, int y = 0, int heading = BH::kEast, int max_steps = 1000, int lives = 3) {
  BH env({.max_steps = max_steps, .lives = lives, .spawn = false});
  env.reset(0);
  env.use_full_grid();
  env.place_car(x, y, heading);
  return env;
}

// Uniform over the 18 actions, or a scripted policy with probability epsilon of a uniform
// action (games.h's make_policy builds these for the data sets; the tests need only this).
class BankheistTestPolicy : public Policy {
 public:
  BankheistTestPolicy(std::unique_ptr<Policy> inner, double epsilon) : inner_(std::move(inner)), epsilon_(epsilon) {}
  int act(const Game& game) override {
    const bool explore = !inner_ || rng_.uniform() < epsilon_;
    const int random_action = rng_.below(kNumActions);
    return explore ? random_action : inner_->act(game);
  }
  void reset(uint64_t seed) override {
    rng_ = ArcadeRng(seed, 1);
    if (inner_) inner_->reset(seed);
  }

 private:
  std::unique_ptr<Policy> inner_;
  double epsilon_;
  ArcadeRng rng_;
};

std::unique_ptr<Policy> bankheist_test_policy(const std::string& name, double epsilon = 0) {
  if (name == "random") return std::make_unique<BankheistTestPolicy>(nullptr, 1);
  return std::make_unique<BankheistTestPolicy>(make_bankheist_policy(name), epsilon);
}

struct BankheistRun {
  double score = 0;
  int steps = 0, lives_lost = 0;
};

BankheistRun bankheist_play(Policy& policy, uint64_t seed, const GameConfig& config = {}) {
  BH env(config);
  env.reset(seed);
  policy.reset(seed);
  BankheistRun run;
  while (!env.done()) run.lives_lost += env.advance(policy.act(env)).life_lost;
  run.score = env.score(), run.steps = env.steps();
  return run;
}

double bankheist_mean_score(const std::string& name, int episodes) {
  auto policy = bankheist_test_policy(name);
  double sum = 0;
  for (int e = 0; e < episodes; ++e) sum += bankheist_play(*policy, 100 + e).score;
  return sum / episodes;
}

}  // namespace

TEST_CASE("arcade bankheist: each city is a connected street plan with closed segments, drawn from the seed") {
  std::set<std::vector<bool>> plans;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    BH env;
    env.reset(seed);
    std::vector<bool> plan;
    int streets = 0;
    for (int y = 0; y < BH::kRows; ++y)
      for (int x = 0; x < BH::kCols; ++x) {
        plan.push_back(env.is_street(x, y));
        streets += env.is_street(x, y);
        // Blocks are the tiles off the street grid; every crossing is a street.
        if (x % BH::kBlock != 0 && y % BH::kBlock != 0) CHECK_FALSE(env.is_street(x, y));
        if (x % BH::kBlock == 0 && y % BH::kBlock == 0) CHECK(env.is_street(x, y));
      }
    // The full grid has 5 rows of 19 and 7 columns of 13 tiles, 35 of them shared: 151. Each
    // closed segment takes its 2 inner tiles.
    CHECK(streets == 151 - 2 * BH::kClosedSegments);
    for (int x = 0; x < BH::kCols; x += BH::kBlock)
      for (int y = 0; y < BH::kRows; y += BH::kBlock) CHECK(env.street_distance(0, 0, x, y) < 100);  // connected
    CHECK(env.exit_row() % BH::kBlock == 0);
    CHECK((env.entry_row() == 6 && env.car_x() == 0 && env.car_y() == 6 && env.heading() == BH::kEast));
    plans.insert(plan);
    BH again;
    again.reset(seed);
    for (int y = 0; y < BH::kRows; ++y)
      for (int x = 0; x < BH::kCols; ++x) CHECK(again.is_street(x, y) == env.is_street(x, y));
  }
  CHECK(plans.size() == 6);
  BH env = full_grid_city();
  CHECK(env.street_distance(0, 0, 18, 12) == 30);
  CHECK(env.street_distance(3, 1, 4, 0) == 2);
}

TEST_CASE("arcade bankheist: the car drives on, turns where the street allows, stops at walls") {
  BH env = full_grid_city(3, 0, BH::kEast);
  env.step(kNoop);  // drives on
  CHECK((env.car_x() == 4 && env.car_y() == 0 && env.fuel() == BH::kMaxFuel - 1));
  env.step(kDown);  // (4, 1) is a block: drives on
  CHECK((env.car_x() == 5 && env.car_y() == 0 && env.heading() == BH::kEast));
  env.step(kDown);
  env.step(kDown);  // at the crossing (6, 0) the street south is open
  CHECK((env.car_x() == 6 && env.car_y() == 1 && env.heading() == BH::kSouth));
  env.step(kUp);  // turning back is always open
  CHECK((env.car_x() == 6 && env.car_y() == 0 && env.heading() == BH::kNorth));
  env.step(kNoop);  // the city's north edge: the car stands, burning no fuel
  CHECK((env.car_x() == 6 && env.car_y() == 0 && env.fuel() == BH::kMaxFuel - 5));
  CHECK(env.direction_of(kNoop) == -1);

  // A diagonal turns across the heading first, else takes its other component.
  env.place_car(6, 3, BH::kSouth);
  env.step(kDownRight);  // heading south: east first (open at the crossing)
  CHECK((env.car_x() == 7 && env.car_y() == 3 && env.heading() == BH::kEast));
  env.step(kDownRight);  // heading east: south first, a block here, so east
  CHECK((env.car_x() == 8 && env.car_y() == 3));
  env.step(kUpLeft);  // heading east: north (a block), then west
  CHECK((env.car_x() == 7 && env.car_y() == 3 && env.heading() == BH::kWest));
  // The west edge is a wall (only the east edge's exit leads out).
  env.place_car(0, env.entry_row(), BH::kWest);
  env.step(kLeft);
  CHECK((env.car_x() == 0 && env.car_y() == env.entry_row()));
  CHECK_FALSE(env.open(0, env.entry_row(), BH::kWest));
  CHECK(env.open(BH::kCols - 1, env.exit_row(), BH::kEast));
  // In a generated city, no move ever leaves the streets.
  BH city;
  city.reset(3);
  ArcadeRng rng(3, 9);
  for (int i = 0; i < 300 && !city.done(); ++i) {
    city.advance(rng.below(kNumActions));
    CHECK(city.is_street(city.car_x(), city.car_y()));
  }
}

TEST_CASE("arcade bankheist: robbing banks scores 10, 20, 30 and each bank becomes a waiting police car") {
  BH env = full_grid_city(3, 0, BH::kEast);
  env.place_bank(0, 4, 0);
  env.place_bank(1, 5, 0);
  env.place_bank(2, 6, 0);
  double total = 0;
  for (int i = 0; i < 3; ++i) {
    CHECK(env.bank_value() == 10 * (i + 1));
    const BH::StepResult r = env.step(kNoop);
    CHECK(r.reward == 10 * (i + 1));
    CHECK(r.info.banks_robbed == 1);
    CHECK_FALSE(env.banks()[i].alive);
    REQUIRE(env.police()[i].alive);
    CHECK((env.police()[i].x == 4 + i && env.police()[i].y == 0 && env.police()[i].wake == BH::kPoliceWake));
    total += r.reward;
  }
  CHECK(env.banks_robbed() == 3);
  CHECK(env.score() == total);
  CHECK(env.lives() == 3);  // waiting police do not catch the car standing on their tile
  // The bank value rises to 90 and stays there (the police wake behind the car and cannot catch
  // up at half its speed; a fifth police car has no slot).
  BH many = full_grid_city(0, 0, BH::kEast);
  for (int i = 0; i < 12; ++i) {
    many.place_bank(0, many.car_x() + 1, 0);
    const double reward = many.step(kNoop).reward;
    CHECK(reward == std::min(90, 10 * (i + 1)));
  }
}

TEST_CASE("arcade bankheist: police chase the car along the streets and catch it") {
  // A police car waiting on the tile ahead: the car drives into it.
  BH env = full_grid_city(3, 0, BH::kEast);
  env.place_police(0, 4, 0);
  const BH::StepResult r = env.step(kNoop);
  CHECK(r.info.life_lost == BH::LifeLoss::Police);
  CHECK(env.lives() == 2);
  CHECK((env.car_x() == 0 && env.car_y() == env.entry_row() && !env.police()[0].alive));
  CHECK(bankheist_life_loss_name(r.info.life_lost) == "police");

  // Head on (police move every second step in the first city): the car never passes through
  // a police car, and at least one seed catches it by swapping tiles.
  bool swapped = false;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    BH head_on({.spawn = false});
    head_on.reset(seed);
    head_on.use_full_grid();
    head_on.place_car(2, 0, BH::kEast);
    head_on.place_police(0, 4, 0);
    CHECK(head_on.step(kNoop).info.life_lost == BH::LifeLoss::None);  // the police's half step
    const BH::LifeLoss second = head_on.step(kNoop).info.life_lost;   // the car enters (4, 0) as the police leaves it
    swapped = swapped || second == BH::LifeLoss::Police;
    if (second == BH::LifeLoss::None) CHECK(head_on.step(kNoop).info.life_lost == BH::LifeLoss::Police);
  }
  CHECK(swapped);

  // A police car across the city finds a car standing in a corner.
  BH chase = full_grid_city(0, 0, BH::kNorth);
  chase.place_police(0, 18, 12);
  int caught_at = -1;
  int start = chase.street_distance(0, 0, 18, 12);
  for (int i = 0; i < 300 && caught_at < 0; ++i) {
    const BH::StepResult s = chase.step(kNoop);
    if (s.info.life_lost == BH::LifeLoss::Police) caught_at = i;
    if (caught_at < 0) CHECK(chase.is_street(chase.police()[0].x, chase.police()[0].y));
  }
  CHECK(caught_at >= 2 * start - 1);  // at half speed it needs two steps a tile
  CHECK(caught_at < 200);
  CHECK(chase.police_speed() == 4);
}

TEST_CASE("arcade bankheist: dynamite destroys police next to it after its fuse, and the car if it lingers") {
  BH env = full_grid_city(3, 0, BH::kEast);
  env.place_police(0, 2, 0, BH::kPoliceWake);  // waiting police hold still until the blast
  env.place_police(1, 3, 1, BH::kPoliceWake);
  env.place_police(2, 3, 3, BH::kPoliceWake);  // 3 tiles from the stick: out of reach
  env.step(kFire);                             // drives on, dropping the stick on (3, 0)
  REQUIRE(env.dynamite().alive);
  CHECK((env.dynamite().x == 3 && env.dynamite().y == 0 && env.dynamite().fuse == BH::kFuse - 1));
  env.step(kRightFire);  // one stick at a time
  CHECK((env.dynamite().x == 3 && env.dynamite().fuse == BH::kFuse - 2));
  env.step(kNoop);
  const BH::StepResult boom = env.step(kNoop);
  CHECK(boom.info.police_destroyed == 2);
  CHECK(boom.reward == 2 * BH::kPoliceReward);
  CHECK((!env.police()[0].alive && !env.police()[1].alive && env.police()[2].alive));
  CHECK_FALSE(env.dynamite().alive);
  CHECK(boom.info.life_lost == BH::LifeLoss::None);  // the car is 4 tiles away

  // A car that stands still drops nothing; one that lingers next to a stick is blown up.
  BH stuck = full_grid_city(0, 0, BH::kNorth);
  stuck.step(kFire);
  CHECK_FALSE(stuck.dynamite().alive);
  stuck.place_dynamite(1, 0, 2);
  CHECK(stuck.step(kNoop).info.life_lost == BH::LifeLoss::None);
  const BH::StepResult r = stuck.step(kNoop);
  CHECK(r.info.life_lost == BH::LifeLoss::Dynamite);
  CHECK(r.reward == 0);
  CHECK(stuck.lives() == 2);
}

TEST_CASE("arcade bankheist: fuel drains a unit a tile, and an empty tank costs a life") {
  BH env = full_grid_city(3, 0, BH::kEast);
  env.set_fuel(2);
  env.place_bank(0, 12, 12);
  env.place_police(0, 18, 12, BH::kPoliceWake);
  CHECK(env.step(kNoop).info.life_lost == BH::LifeLoss::None);
  CHECK(env.fuel() == 1);
  const BH::StepResult r = env.step(kNoop);
  CHECK(r.info.life_lost == BH::LifeLoss::Fuel);
  CHECK(env.lives() == 2);
  // Back at the entrance with a full tank, the police gone, the banks still there.
  CHECK((env.car_x() == 0 && env.car_y() == env.entry_row() && env.heading() == BH::kEast));
  CHECK(env.fuel() == BH::kMaxFuel);
  CHECK_FALSE(env.police()[0].alive);
  CHECK(env.banks()[0].alive);
}

TEST_CASE("arcade bankheist: the exit leads to the next city with a full tank, a bonus per bank and faster police") {
  BH env = full_grid_city();
  const int row = env.exit_row();
  env.place_car(14, row, BH::kEast);
  env.place_bank(0, 15, row);
  env.place_bank(1, 16, row);
  CHECK(env.step(kNoop).reward == 10);
  CHECK(env.step(kNoop).reward == 20);
  env.step(kNoop);
  env.step(kNoop);  // at (18, row), the exit
  REQUIRE(env.is_exit(env.car_x(), env.car_y()));
  const int fuel_before = env.fuel();
  CHECK(fuel_before < BH::kMaxFuel);
  const BH::StepResult r = env.step(kNoop);
  CHECK(r.info.city_cleared);
  CHECK(r.reward == 2 * BH::kExitBonusPerBank);
  CHECK(env.city() == 1);
  CHECK((env.car_x() == 0 && env.car_y() == row && env.entry_row() == row && env.heading() == BH::kEast));
  CHECK(env.fuel() == BH::kMaxFuel);
  CHECK((env.banks_robbed() == 0 && env.bank_value() == 10));
  for (const BH::Police& p : env.police()) CHECK_FALSE(p.alive);
  CHECK(env.police_speed() == 5);
  CHECK(env.police_noise() < 0.25);
  CHECK(env.lives() == 3);
  // The exit is only east of its own tile.
  BH other = full_grid_city();
  const int not_exit = (other.exit_row() + BH::kBlock) % (BH::kRows + BH::kBlock - 1);
  other.place_car(BH::kCols - 1, not_exit, BH::kEast);
  CHECK_FALSE(other.step(kRight).info.city_cleared);
  CHECK((other.city() == 0 && other.car_x() == BH::kCols - 1));
}

TEST_CASE("arcade bankheist: episodes end at 0 lives or the step cap, and stepping after the end throws") {
  BH env = full_grid_city(3, 0, BH::kEast, 1000, 2);
  for (int life = 0; life < 2; ++life) {
    env.set_fuel(1);
    const BH::StepResult r = env.step(kNoop);
    CHECK(r.info.life_lost == BH::LifeLoss::Fuel);
    CHECK(r.done == (life == 1));
    CHECK_FALSE(r.info.truncated);
  }
  CHECK((env.done() && env.lives() == 0));
  CHECK(throws_with([&] { env.step(kNoop); }, {"BankHeistEnv::advance", "ended"}));

  BH capped({.max_steps = 5, .spawn = false});
  capped.reset(1);
  GameStep s;
  for (int i = 0; i < 5; ++i) s = capped.advance(kNoop);
  CHECK((s.done && s.truncated && !s.life_lost && capped.lives() == 3 && capped.steps() == 5));
  capped.reset(1);  // a new episode
  CHECK((!capped.done() && capped.steps() == 0 && capped.score() == 0));
}

TEST_CASE(
    "arcade bankheist: the same seed and actions give the same episode, another seed another, and copies continue "
    "alike") {
  auto run = [](uint64_t seed) {
    BH env;
    std::vector<float> trace = env.reset(seed);
    auto policy = bankheist_test_policy("expert", 0.3);
    policy->reset(seed);
    while (!env.done()) {
      const BH::StepResult r = env.step(policy->act(env));
      trace.insert(trace.end(), r.observation.begin(), r.observation.end());
      trace.push_back(static_cast<float>(r.reward));
    }
    return trace;
  };
  const std::vector<float> a = run(3), b = run(3), c = run(4);
  CHECK(a == b);
  CHECK(a != c);

  // clone() continues exactly like the original, spawns and police noise included.
  std::unique_ptr<Game> game = bankheist_game_info().make({});
  game->reset(5);
  auto policy = bankheist_test_policy("expert", 0.2);
  policy->reset(5);
  for (int i = 0; i < 80 && !game->done(); ++i) game->advance(policy->act(*game));
  std::unique_ptr<Game> copy = game->clone();
  ArcadeRng rng(5, 7);
  for (int i = 0; i < 150 && !game->done(); ++i) {
    const int action = rng.below(kNumActions);
    const GameStep x = game->advance(action), y = copy->advance(action);
    CHECK((x.reward == y.reward && x.done == y.done && x.life_lost == y.life_lost));
    CHECK(game->observation() == copy->observation());
  }
  CHECK(game->score() == copy->score());
}

TEST_CASE("arcade bankheist: the score is the sum of the rewards, each a sum of robberies, blasts and exit bonuses") {
  BH env;
  env.reset(7);
  auto policy = bankheist_test_policy("expert", 0.1);
  policy->reset(7);
  double sum = 0;
  int robbed = 0, destroyed = 0, cities = 0;
  while (!env.done()) {
    const int value = env.bank_value(), banks = env.banks_robbed();
    const BH::StepResult r = env.step(policy->act(env));
    const double expected = r.info.banks_robbed * value + BH::kPoliceReward * r.info.police_destroyed +
                            (r.info.city_cleared ? BH::kExitBonusPerBank * banks : 0);
    CHECK(r.reward == expected);
    CHECK(r.info.banks_robbed <= 1);  // banks stand on different tiles
    sum += r.reward;
    robbed += r.info.banks_robbed, destroyed += r.info.police_destroyed, cities += r.info.city_cleared;
  }
  CHECK(sum == env.score());
  CHECK(robbed > 0);
  CHECK(destroyed > 0);
  CHECK(cities > 0);
}

TEST_CASE("arcade bankheist: banks appear by themselves (not near the car) only with spawn on") {
  BH env;
  env.reset(2);
  env.place_car(0, 0, BH::kNorth);                  // standing in the corner
  for (int i = 0; i < 10; ++i) env.advance(kNoop);  // each slot's first pause is 1..10 steps
  for (const BH::Bank& b : env.banks()) {
    REQUIRE(b.alive);
    CHECK(env.is_street(b.x, b.y));
  }
  BH quiet({.spawn = false});
  quiet.reset(2);
  for (int i = 0; i < 50 && !quiet.done(); ++i) quiet.advance(kNoop);
  for (const BH::Bank& b : quiet.banks()) CHECK_FALSE(b.alive);
  // A fresh bank stands at least kBankMinDistance street tiles from the car.
  BH watch;
  watch.reset(11);
  std::array<bool, BH::kMaxBanks> was{};
  for (int i = 0; i < 300 && !watch.done(); ++i) {
    watch.advance(i % 7 == 0 ? kUp : kNoop);
    for (int k = 0; k < BH::kMaxBanks; ++k) {
      const BH::Bank& b = watch.banks()[k];
      if (b.alive && !was[k])
        CHECK(watch.street_distance(watch.car_x(), watch.car_y(), b.x, b.y) >= BH::kBankMinDistance);
      was[k] = b.alive;
    }
  }
}

TEST_CASE("arcade bankheist: the observation and the frame") {
  BH env = full_grid_city(3, 0, BH::kEast);
  env.place_bank(1, 9, 0);
  env.place_police(2, 3, 6, 1);
  const std::vector<float> o = env.observation();
  const std::vector<std::string>& names = env.observation_names();
  REQUIRE(o.size() == static_cast<size_t>(BH::kObservationSize));
  REQUIRE(o.size() == static_cast<size_t>(env.observation_size()));
  REQUIRE(names.size() == o.size());
  CHECK(o.size() <= 64);
  auto at = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return o[static_cast<size_t>(it - names.begin())];
  };
  CHECK(at("x") == doctest::Approx(3.0 / 18));
  CHECK((at("heading_dx") == 1 && at("heading_dy") == 0 && at("fuel") == 1 && at("lives") == 1));
  CHECK((at("open_west") == 1 && at("open_north") == 0 && at("open_east") == 1 && at("open_south") == 1));
  CHECK((at("bank0") == 0 && at("bank1") == 1));
  CHECK(at("bank1_dx") == doctest::Approx(6.0 / 18));
  CHECK(at("bank1_distance") == doctest::Approx(6.0 / 64));
  CHECK(at("police2_dy") == doctest::Approx(6.0 / 12));
  CHECK(at("police2_awake") == doctest::Approx(1 - 1.0 / 3));
  CHECK((at("dynamite") == 0 && at("bank_value") == doctest::Approx(10.0 / 90)));
  CHECK(names.back() == "police3_awake");
  // Everything lies in [-1, 1] over a played episode.
  BH played;
  std::vector<float> obs = played.reset(8);
  auto policy = bankheist_test_policy("expert", 0.2);
  policy->reset(8);
  int outside = 0;
  while (!played.done()) {
    for (float v : obs) outside += v < -1 || v > 1;
    obs = played.step(policy->act(played)).observation;
  }
  CHECK(outside == 0);

  const std::vector<uint8_t> frame = env.render();
  REQUIRE(frame.size() == static_cast<size_t>(env.frame_width() * env.frame_height()));
  CHECK((env.frame_width() == 40 && env.frame_height() == 32));
  auto pixel = [&](int row, int col) { return frame[static_cast<size_t>(row * BH::kFrameW + col)]; };
  CHECK(pixel(1, 1 + 2 * 3) == 255);          // the car at tile (3, 0)
  CHECK(pixel(1, 1 + 2 * 9) == 150);          // the bank at (9, 0)
  CHECK(pixel(1 + 2 * 6, 1 + 2 * 3) == 170);  // the waiting police at (3, 6)
  CHECK(pixel(1 + 2 * 1, 1 + 2 * 1) == 80);   // a block
  CHECK(pixel(1, 1 + 2 * 5) == 20);           // a street
  CHECK(pixel(BH::kFrameH - 3, 0) == 200);    // a full tank
}

TEST_CASE("arcade bankheist: set-ups are checked") {
  BH env = full_grid_city();
  CHECK(throws_with([&] { env.place_car(1, 1, BH::kEast); }, {"place_car", "(1, 1)"}));
  CHECK(throws_with([&] { env.place_car(3, 0, 4); }, {"place_car", "heading 4"}));
  CHECK(throws_with([&] { env.place_bank(3, 3, 0); }, {"place_bank", "slot 3"}));
  CHECK(throws_with([&] { env.place_police(0, 3, 0, 9); }, {"place_police", "wake 9"}));
  CHECK(throws_with([&] { env.place_dynamite(3, 0, 0); }, {"place_dynamite", "fuse 0"}));
  CHECK(throws_with([&] { env.set_fuel(0); }, {"set_fuel", "0"}));
  CHECK(throws_with([&] { env.street_distance(1, 1, 0, 0); }, {"street_distance", "(1, 1)"}));
  CHECK(throws_with([&] { env.advance(18); }, {"action_effect", "18"}));
  CHECK(throws_with(
      [] {
        BH bad({.max_steps = 0});
        (void)bad;
      },
      {"BankHeistEnv", "max_steps 0"}));
}

TEST_CASE("arcade bankheist policies: random < careless < expert, and the expert lasts the episode") {
  const double random = bankheist_mean_score("random", 20);
  const double careless = bankheist_mean_score("careless", 20);
  auto expert_policy = bankheist_test_policy("expert");
  double expert = 0;
  for (int e = 0; e < 20; ++e) {
    const BankheistRun run = bankheist_play(*expert_policy, 100 + e);
    expert += run.score / 20;
    CHECK(run.steps == 1000);    // truncated, not lost
    CHECK(run.lives_lost <= 1);  // its look-ahead dodges police and blasts
  }
  MESSAGE("random " << random << ", careless " << careless << ", expert " << expert);
  CHECK(random < careless);
  CHECK(careless < expert);
  CHECK(expert > 1.5 * careless);  // about 7200 against 2800 over 30 episodes
}

TEST_CASE("arcade bankheist: the game's entry in the list of games") {
  const GameInfo info = bankheist_game_info();
  CHECK((info.name == "bankheist" && info.atari_name == "BankHeist" && info.format_version == 1));
  CHECK(info.observation_size == BH::kObservationSize);
  std::unique_ptr<Game> game = info.make({.max_steps = 7});
  REQUIRE(game != nullptr);
  CHECK(game->name() == "bankheist");
  CHECK(game->reset(0).size() == static_cast<size_t>(info.observation_size));
  for (int i = 0; i < 7; ++i) game->advance(kNoop);
  CHECK(game->done());
  CHECK((info.scripted == std::vector<std::string>{"expert", "careless"}));
  for (const std::string& name : info.scripted) CHECK(info.make_scripted(name) != nullptr);
  CHECK(info.make_scripted("greedy") == nullptr);
  const std::vector<MixtureComponent> mixture = info.default_mixture();
  REQUIRE(mixture.size() >= 5);
  for (const MixtureComponent& m : mixture) {
    CHECK(m.weight > 0);
    const std::string name = m.policy.substr(0, m.policy.find(':'));
    CHECK((name == "random" || std::count(info.scripted.begin(), info.scripted.end(), name) == 1));
  }
  CHECK(mixture.front().policy == "random");
}
