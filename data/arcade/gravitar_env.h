// A Gravitar-like arcade game with Atari's 18-action space: the stand-in for the Atari Gravitar
// of the Fourier head paper's Decision Transformer study (Gillman et al., section 5, Table 2),
// since no emulator or ROM exists here. Deterministic given the reset seed: positions and
// velocities are integers in 1/kSub units (no floating point in the rules) and every random
// draw comes from one Philox stream (arcade_rng.h).
//
// The planet is 80 x 64 units, y growing downwards, wrapping left to right. Its surface is a
// jagged height field (one ground height per unit column, drawn from the seed) with flat pads
// carrying bunkers and fuel tanks (4 x 3 units each). The ship (a 2 x 2 box around its centre)
// falls under the planet's constant gravity and keeps its velocity (at most 1.25 units per step
// on each axis). Actions (actions.h, the paper's order) combine like a joystick:
//   horizontal (LEFT / RIGHT)   rotate the ship one of 16 headings anticlockwise / clockwise
//   UP                          thrust along the heading (kThrustFuel fuel)
//   DOWN                        shield and tractor beam (kShieldFuel fuel): blocks bunker shots
//                               and collects fuel tanks up to 14 units below the ship
//   FIRE                        a shot along the heading (2 units per step, at most 2 in flight,
//                               one every kReload steps)
// so UPLEFT thrusts and rotates, DOWNFIRE shields and fires, and so on. A shot destroys the
// first bunker it reaches (+250, Atari's score) and dies on the ground. Bunkers above which
// the ship flies within 30 columns fire aimed shots (0.75 units per step, aimed at the ship
// plus a random offset, after random pauses; at most 3 in flight). Destroying every bunker of
// a planet scores kPlanetBonus and moves to the next planet: new terrain, one more bunker (3 on
// the first, at most 6), stronger gravity, shorter pauses between bunker shots. Crashing into
// the ground, a bunker or a tank, being hit without the shield, or running out of fuel costs a
// life (3 at the start): the ship restarts at the top, at rest, pointing up, with at least
// kStartFuel fuel, and the shots in flight vanish. The episode ends at 0 lives or after
// max_steps steps (truncation). The score is the sum of the rewards.
//
// Observation (gravitar_view.cpp): 64 floats: own state, the terrain around the ship, the
// nearest bunkers, tanks and shots relative to it (observation_names() says what each is).
// render() draws a 40 x 32 grayscale frame for pictures.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/data/arcade/arcade_rng.h"
#include "harmonic/data/arcade/game.h"

namespace hm::arcade {

enum class GravitarLifeLoss { None, Crash, Shot, Fuel };

struct GravitarBunker {
  bool alive = false;
  int x = 0, y = 0;  // left column and top row (units); the box is 4 x 3
  int reload = 0;    // steps until it may fire again
};
struct GravitarTank {
  bool alive = false;
  int x = 0, y = 0;  // left column and top row (units); the box is 4 x 3
};
struct GravitarShot {
  bool alive = false;
  int x = 0, y = 0, vx = 0, vy = 0;  // 1/kSub units and 1/kSub units per step
  int life = 0;                      // steps left
};

// What a step did besides its reward.
struct GravitarStepInfo {
  GravitarLifeLoss life_lost = GravitarLifeLoss::None;
  int bunkers_destroyed = 0;
  int tanks_collected = 0;
  int shots_blocked = 0;  // bunker shots stopped by the shield
  int shots_fired = 0;    // by the ship (0 or 1)
  bool planet_cleared = false;
  bool truncated = false;  // the episode ended at max_steps
};

struct GravitarStepResult {
  std::vector<float> observation;  // (kObservationSize,)
  double reward = 0;
  bool done = false;
  GravitarStepInfo info;
};

class GravitarEnv : public Game {
 public:
  // Geometry (units; kSub sub-units each), physics (sub-units per step), fuel and scores.
  static constexpr int kSub = 128;
  static constexpr int kWidth = 80, kHeight = 64;
  static constexpr int kShipHalf = kSub;     // the ship's box is centre +- 1 unit
  static constexpr int kCeiling = 2 * kSub;  // the ship's centre stays below y 2
  static constexpr int kStartX = 40 * kSub, kStartY = 5 * kSub;
  static constexpr int kHeadings = 16;                  // heading 0 points up, 4 right, 8 down
  static constexpr int kMaxSpeed = 160;                 // per axis: 1.25 units per step
  static constexpr int kGravity0 = 3, kMaxGravity = 6;  // the first planet's, +1 per planet
  static constexpr int kBoxW = 4, kBoxH = 3;            // bunkers and tanks
  static constexpr int kMaxBunkers = 6, kFirstBunkers = 3, kTanks = 2;
  static constexpr int kMaxShots = 2, kReload = 4, kShotLife = 24;  // the ship's shots
  static constexpr int kMaxEnemyShots = 3, kEnemyShotSpeed = 96, kEnemyShotLife = 90;
  static constexpr int kBunkerRange = 30;                    // columns either side
  static constexpr int kBeamDepth = 14, kBeamHalfWidth = 3;  // the tractor beam (units)
  static constexpr int kMaxFuel = 800, kStartFuel = 500, kTankFuel = 300;
  static constexpr int kThrustFuel = 2, kShieldFuel = 3;
  static constexpr int kBunkerReward = 250, kPlanetBonus = 1000;
  static constexpr int kObservationSize = 64;
  static constexpr int kFrameW = 40, kFrameH = 32;

  explicit GravitarEnv(GameConfig config = {});

  // Game
  std::string_view name() const override { return "gravitar"; }
  std::vector<float> reset(uint64_t seed) override;
  GameStep advance(int action) override { return advance(action, nullptr); }
  std::vector<float> observation() const override;  // (kObservationSize,)
  int observation_size() const override { return kObservationSize; }
  const std::vector<std::string>& observation_names() const override;
  std::vector<uint8_t> render() const override;  // (kFrameH, kFrameW) row-major grayscale
  int frame_width() const override { return kFrameW; }
  int frame_height() const override { return kFrameH; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<GravitarEnv>(*this); }
  bool done() const override { return done_; }
  double score() const override { return score_; }
  int steps() const override { return steps_; }
  int lives() const override { return lives_; }

  // One step with the details; throws hm::Error for an action outside 0..17 or after the end.
  GameStep advance(int action, GravitarStepInfo* info);
  GravitarStepResult step(int action);  // advance plus the observation

  // The direction of heading h as a vector of length about 16 (x right, y down).
  static int heading_dx(int heading);
  static int heading_dy(int heading);
  // x_a - x_b on the wrapping planet, in [-kWidth kSub / 2, kWidth kSub / 2) sub-units.
  static int wrap_dx(int xa, int xb);
  // The bunker a shot fired from (x, y) (sub-units) along `heading` would destroy if nothing
  // moved, or -1: what the scripted policies aim with.
  int shot_target(int x, int y, int heading) const;

  const GameConfig& config() const { return config_; }
  int ship_x() const { return x_; }  // sub-units (centre)
  int ship_y() const { return y_; }
  int ship_vx() const { return vx_; }  // sub-units per step
  int ship_vy() const { return vy_; }
  int heading() const { return heading_; }
  int fuel() const { return fuel_; }
  int reload() const { return reload_; }
  int planet() const { return planet_; }   // 0 for the first
  int gravity() const;                     // sub-units per step per step
  bool shield() const { return shield_; }  // raised in the last step
  int ground(int column) const;            // the ground's top row (units) at a column (wraps)
  int bunkers_left() const;
  const std::array<GravitarBunker, kMaxBunkers>& bunkers() const { return bunkers_; }
  const std::array<GravitarTank, kTanks>& tanks() const { return tanks_; }
  const std::array<GravitarShot, kMaxShots>& shots() const { return shots_; }
  const std::array<GravitarShot, kMaxEnemyShots>& enemy_shots() const { return enemy_shots_; }

  // Set-ups for tests and demonstrations, checked (hm::Error names the values). Units are
  // columns and rows except where sub-units are said.
  void place_ship(int x, int y, int heading, int vx = 0, int vy = 0);  // x, y sub-units; v sub-units/step
  void flatten_terrain(int ground_y);                                  // every column's ground at ground_y (12..62)
  int place_bunker(int x, int reload = 0);                             // on the ground at left column x; its slot
  int place_tank(int x);                                               // on the ground at left column x; its slot
  void place_enemy_shot(int x, int y, int vx, int vy);                 // sub-units
  void set_fuel(int fuel);                                             // 1..kMaxFuel

 private:
  void new_planet();
  void restart_ship();
  int seat_box(int x, std::string_view fn);  // flattens the ground under a box at x; its top row
  double move_shots(GravitarStepInfo& info);
  void fire_bunkers();
  bool move_enemy_shots(GravitarStepInfo& info);  // true: the ship was hit unshielded
  bool crashed() const;
  int bunker_reload_draw();

  GameConfig config_;
  ArcadeRng rng_;
  int x_ = kStartX, y_ = kStartY, vx_ = 0, vy_ = 0, heading_ = 0;
  int fuel_ = kStartFuel, reload_ = 0, planet_ = 0, lives_ = 0, steps_ = 0;
  double score_ = 0;
  bool shield_ = false, done_ = true;
  std::array<int, kWidth> ground_{};
  std::array<GravitarBunker, kMaxBunkers> bunkers_{};
  std::array<GravitarTank, kTanks> tanks_{};
  std::array<GravitarShot, kMaxShots> shots_{};
  std::array<GravitarShot, kMaxEnemyShots> enemy_shots_{};
};

std::string_view gravitar_life_loss_name(GravitarLifeLoss cause);  // "none", "crash", "shot", "fuel"

}  // namespace hm::arcade
