// A Seaquest-like arcade game with Atari's 18-action space: the stand-in for the Atari
// Seaquest of the Fourier head paper's Decision Transformer study (section 5, Appendix D.1),
// since no emulator or ROM exists here. Deterministic given the reset seed (every random draw
// comes from one Philox stream, arcade_rng.h).
//
// The field is 80 x 64 units, y growing downwards. The player's submarine (8 x 4) moves 2 units
// per step in the action's direction (actions.h), between the surface (y = 8) and the sea bed
// (y = 56), and faces the way it last moved horizontally. Four lanes (rows 18, 28, 38, 48, each
// 4 high) carry at most one enemy (a shark or an enemy sub, 8 x 4, 1..4 units per step) and
// one diver (8 x 4, 1 unit per step) each, entering from either side after a random pause.
// Between the lanes are safe corridors. FIRE launches a torpedo (one at a time, 6 units per
// step, the height of the submarine's middle) in the facing direction; it kills the first
// enemy whose box it sweeps: +20 for a shark, +30 for a sub. Touching a diver picks it up
// (at most 6). Oxygen (160) drains 1 per step underwater and refills 8 per step at the
// surface. Coming back to the surface with divers scores 50 per diver, +200 more with all 6
// (and speeds the enemies up: the wave); coming back with none, running out of oxygen or
// touching an enemy costs a life, which puts the submarine back at the surface with full
// oxygen and empties the sea. The episode ends at 0 lives (3 at the start) or after
// max_steps steps (truncation). The score is the sum of the rewards.
//
// Observation: a 40-float feature vector (observation_names() says what each is), not pixels.
// It is the whole state that matters to the agent (own position, facing, oxygen, divers held,
// lives, torpedo, and per lane the enemy's and the diver's offset and velocity), so the game
// is fully observed as Atari's frame stack nearly is, and a 6-layer Decision Transformer over
// 30 steps of 40 floats trains on this 2-core CPU where one over 84 x 84 x 4 frames would not.
// render() draws a 40 x 32 grayscale frame for pictures.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/data/arcade/actions.h"
#include "harmonic/data/arcade/arcade_rng.h"
#include "harmonic/data/arcade/game.h"

namespace hm::arcade {

// max_steps, lives, spawn (false: nothing enters the sea by itself; tests place entities).
using SeaquestConfig = GameConfig;

enum class LifeLoss { None, Collision, Oxygen, EmptySurface };

struct Enemy {
  bool alive = false;
  int x = 0, dir = 1, speed = 1;  // left edge, direction (+1 right, -1 left), units per step
  int kind = 0;                   // 0 shark, 1 sub
};
struct Diver {
  bool alive = false;
  int x = 0, dir = 1;
};
struct Torpedo {
  bool alive = false;
  int x = 0, y = 0, dir = 1;  // left edge, top, direction
};

// What a step did besides its reward.
struct StepInfo {
  LifeLoss life_lost = LifeLoss::None;
  int kills = 0;           // enemies hit by the torpedo this step
  int divers_picked = 0;   // divers picked up this step
  int divers_rescued = 0;  // divers brought to the surface this step
  bool truncated = false;  // the episode ended at max_steps
};

struct StepResult {
  std::vector<float> observation;  // (kObservationSize,)
  double reward = 0;
  bool done = false;
  StepInfo info;
};

// The game through the Game interface (game.h) and, for its policies and tests, its state and
// set-ups.
class SeaquestEnv final : public Game {
 public:
  // Geometry (units), speeds and scores; the header comment explains them.
  static constexpr int kWidth = 80, kHeight = 64;
  static constexpr int kSubW = 8, kSubH = 4, kSubSpeed = 2;
  static constexpr int kSurfaceY = 8, kBottomY = 56;
  static constexpr int kLanes = 4, kLaneTop0 = 18, kLaneGap = 10, kEntityW = 8, kEntityH = 4;
  static constexpr int kTorpedoW = 4, kTorpedoH = 2, kTorpedoSpeed = 6;
  static constexpr int kMaxOxygen = 160, kOxygenRefill = 8, kMaxDivers = 6;
  static constexpr int kSharkReward = 20, kSubReward = 30, kDiverBonus = 50, kFullCrewBonus = 200;
  static constexpr int kObservationSize = 40;
  static constexpr int kFrameW = 40, kFrameH = 32;

  explicit SeaquestEnv(SeaquestConfig config = {});

  std::string_view name() const override { return "seaquest"; }
  // A new episode; returns the first observation.
  std::vector<float> reset(uint64_t seed) override;
  // One step with an action in the paper's order. Throws after the episode ended.
  StepResult step(int action);
  // The same without building the observation (policies simulate on copies of the game): the
  // reward, with what else happened in *info.
  double advance(int action, StepInfo* info);
  GameStep advance(int action) override;

  std::vector<float> observation() const override;  // (kObservationSize,)
  int observation_size() const override { return kObservationSize; }
  const std::vector<std::string>& observation_names() const override;
  std::vector<uint8_t> render() const override;  // (kFrameH, kFrameW) row-major grayscale
  int frame_width() const override { return kFrameW; }
  int frame_height() const override { return kFrameH; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<SeaquestEnv>(*this); }
  std::vector<GameTally> tallies() const override;  // "kills", "divers rescued"

  static int lane_top(int lane) { return kLaneTop0 + lane * kLaneGap; }

  const SeaquestConfig& config() const { return config_; }
  int sub_x() const { return sub_x_; }
  int sub_y() const { return sub_y_; }
  int facing() const { return facing_; }
  int oxygen() const { return oxygen_; }
  int divers_held() const { return divers_held_; }
  int lives() const override { return lives_; }
  int wave() const { return wave_; }
  int steps() const override { return steps_; }
  double score() const override { return score_; }
  bool submerged() const { return submerged_; }
  bool done() const override { return done_; }
  int kills() const { return kills_; }                    // this episode's
  int divers_rescued() const { return divers_rescued_; }  // this episode's
  const std::array<Enemy, kLanes>& enemies() const { return enemies_; }
  const std::array<Diver, kLanes>& divers() const { return divers_; }
  const Torpedo& torpedo() const { return torpedo_; }

  // Set-ups for tests and demonstrations (checked: positions inside the field, lanes 0..3).
  void place_submarine(int x, int y, int facing);
  void place_enemy(int lane, int x, int dir, int speed, int kind);
  void place_diver(int lane, int x, int dir);
  void set_oxygen(int oxygen);
  void set_divers_held(int divers);

 private:
  void clear_sea();
  void spawn(int lane);
  double move_torpedo(StepInfo& info);
  void lose_life(LifeLoss cause, StepInfo& info);
  int enemy_speed();

  SeaquestConfig config_;
  ArcadeRng rng_;
  int sub_x_ = 0, sub_y_ = 0, facing_ = 1;
  int oxygen_ = kMaxOxygen, divers_held_ = 0, lives_ = 0, wave_ = 0, steps_ = 0;
  int kills_ = 0, divers_rescued_ = 0;
  double score_ = 0;
  bool submerged_ = false, done_ = true;
  std::array<Enemy, kLanes> enemies_{};
  std::array<Diver, kLanes> divers_{};
  std::array<int, kLanes> enemy_timer_{}, diver_timer_{};  // steps until an empty lane spawns
  Torpedo torpedo_;
};

std::string_view life_loss_name(LifeLoss cause);  // "none", "collision", "oxygen", "empty-surface"

}  // namespace hm::arcade
