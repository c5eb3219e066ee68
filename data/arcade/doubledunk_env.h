// A DoubleDunk-like arcade game with Atari's 18-action space: the stand-in for the Atari
// DoubleDunk of the Fourier head paper's Decision Transformer study (Gillman et al., section 5,
// Table 2), since no emulator or ROM exists here. Two-on-two half-court basketball; you control
// one player of your team, your teammate and both opponents are scripted. Deterministic given
// the reset seed: every random draw (shot outcomes, steals, interceptions, rebounds, the
// formation after a change of possession) comes from one Philox stream (arcade_rng.h), and the
// scripted players decide from the state alone.
//
// The court is 80 x 64 units, y growing downwards, the basket at (40, 6); players are points
// kept inside x 2..78, y 4..60. You move 2 units a step per axis (actions.h); scripted players
// move 2 units a step off the ball and 1 while they dribble or defend. FIRE does what the
// situation asks:
//   you hold the ball   UP*FIRE or FIRE (towards the basket, or standing) shoots; LEFT, RIGHT or
//                       DOWN* with FIRE (sideways or away) passes to your teammate;
//   teammate holds it   FIRE calls for the ball: the teammate passes to you at once;
//   opponents hold it   FIRE tries to steal it, 15% when within 4 units of the holder.
// A shot goes in with probability (0.95 - 0.02 d) clamped to 0.03..0.9 for a shooter d units
// from the basket, times a defence factor rising from 0.35 (nearest defender within 3 units)
// to 1 (12 or more); it scores 3 from beyond the arc (d > 24), else 2. The ball flies (shots 5,
// passes 6 units a step); a defender within 3 units of a pass intercepts it with probability
// 0.3 a step, and any defender within 3 units of the ball holder steals it with probability
// 0.06 a step. A miss is rebounded by a player drawn by nearness to the basket, the defence
// weighted 1.5. A 24-second shot clock (48 steps) turns the ball over when it runs out with no
// shot in the air. After a basket, a defensive rebound, a steal, an interception or a
// shot-clock turnover the other team gets the ball, cleared back: the players line up again
// around the top of the arc (with a random jitter).
//
// Reward: + the points of your team's baskets, - the opponents', so the return is the score
// difference. No lives: the match ends when a team reaches the target score (21) or after
// max_steps steps (truncation). The score is the sum of the rewards.
//
// Observation: a 48-float feature vector (observation_names()); everything the rules and the
// scripts read except the random stream, so the game is nearly fully observed.
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

struct DoubleDunkPos {
  int x = 0, y = 0;
};

enum class DoubleDunkBallState { Held, Pass, Shot };

struct DoubleDunkBall {
  DoubleDunkBallState state = DoubleDunkBallState::Held;
  int holder = 0;    // Held: the player holding it
  int x = 0, y = 0;  // Pass, Shot: where it is
  int target = -1;   // Pass: the receiver
  int shooter = -1;  // Shot: who shot, its chance and its worth (fixed at release)
  double shot_p = 0;
  int shot_points = 0;
};

// What a step did besides its reward. Players are 0 (you), 1 (teammate), 2, 3 (opponents).
struct DoubleDunkStepInfo {
  int points_for = 0, points_against = 0;  // baskets this step
  int shooter = -1;                        // a shot released this step, its chance and worth
  double shot_p = 0;
  int shot_points = 0;
  int passer = -1, receiver = -1;  // a pass thrown this step
  int caught_by = -1;              // a pass caught by its receiver this step
  int stolen_by = -1;              // a steal from the holder this step
  int intercepted_by = -1;         // a pass intercepted this step
  int rebound_by = -1;             // a missed shot rebounded this step
  bool shot_clock_turnover = false;
  bool possession_changed = false;  // the other team has the ball (cleared back)
  bool target_reached = false;      // a team reached the target score: the match is over
  bool truncated = false;           // the episode ended at max_steps
  // Planning mode only (set_planning): the chance events that were skipped, as the probability
  // that the holder (or the pass) is lost this step, and by which team's gain.
  double loss_chance = 0;
  int loss_team = -1;  // the team that would lose the ball
};

struct DoubleDunkStepResult {
  std::vector<float> observation;  // (kObservationSize,)
  double reward = 0;
  bool done = false;
  DoubleDunkStepInfo info;
};

class DoubleDunkEnv : public Game {
 public:
  // Geometry (units), speeds, chances and clocks; the header comment explains them.
  static constexpr int kWidth = 80, kHeight = 64;
  static constexpr int kMinX = 2, kMaxX = 78, kMinY = 4, kMaxY = 60;
  static constexpr int kBasketX = 40, kBasketY = 6;
  static constexpr double kArcRadius = 24;
  static constexpr int kYouSpeed = 2, kRunSpeed = 2, kDribbleSpeed = 1, kGuardSpeed = 1;
  static constexpr int kShotSpeed = 5, kPassSpeed = 6;
  static constexpr double kStealReach = 3, kStealChance = 0.06;
  static constexpr double kSwipeReach = 4, kSwipeChance = 0.15;
  static constexpr double kInterceptReach = 3, kInterceptChance = 0.3;
  static constexpr double kGuardDistance = 4;  // scripted defenders stand this far goal-side
  static constexpr int kStepsPerSecond = 2, kShotClock = 24 * kStepsPerSecond;
  static constexpr int kTargetScore = 21;
  static constexpr int kPlayers = 4, kYou = 0, kMate = 1, kOpp1 = 2, kOpp2 = 3;
  static constexpr int kObservationSize = 48;
  static constexpr int kFrameW = 40, kFrameH = 32;

  explicit DoubleDunkEnv(GameConfig config = {}, int target_score = kTargetScore);

  // Game
  std::string_view name() const override { return "doubledunk"; }
  std::vector<float> reset(uint64_t seed) override;
  GameStep advance(int action) override { return advance(action, nullptr); }
  std::vector<float> observation() const override;
  int observation_size() const override { return kObservationSize; }
  const std::vector<std::string>& observation_names() const override { return names(); }
  std::vector<uint8_t> render() const override;  // (kFrameH, kFrameW) row-major grayscale
  int frame_width() const override { return kFrameW; }
  int frame_height() const override { return kFrameH; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<DoubleDunkEnv>(*this); }
  bool done() const override { return done_; }
  double score() const override { return score_; }
  int steps() const override { return steps_; }
  int lives() const override { return 0; }

  // One step, with what happened. Throws for an action outside 0..17 or after the end.
  GameStep advance(int action, DoubleDunkStepInfo* info);
  DoubleDunkStepResult step(int action);
  static const std::vector<std::string>& names();  // the observation's features

  static int team_of(int player) { return player < 2 ? 0 : 1; }  // 0 yours, 1 the opponents'
  static double distance(DoubleDunkPos a, DoubleDunkPos b);
  static double basket_distance(DoubleDunkPos p);
  // A shot's chance from d units with the nearest defender `guard` units away (header comment).
  static double shot_chance(double d, double guard);
  static int shot_value(DoubleDunkPos p) { return basket_distance(p) > kArcRadius ? 3 : 2; }
  // The chance and worth of a shot by `player` from where it stands now.
  double shot_probability(int player) const;
  double nearest_defender(int player) const;  // distance to the nearest player of the other team

  int target_score() const { return target_score_; }
  int max_steps() const { return config_.max_steps; }
  const std::array<DoubleDunkPos, kPlayers>& players() const { return pos_; }
  DoubleDunkPos player(int p) const { return pos_.at(p); }
  int offense() const { return offense_; }  // the team with the ball
  const DoubleDunkBall& ball() const { return ball_; }
  // The holder, or -1 while the ball flies.
  int holder() const { return ball_.state == DoubleDunkBallState::Held ? ball_.holder : -1; }
  int shot_clock() const { return shot_clock_; }
  int hold_steps() const { return hold_steps_; }  // steps the holder has had the ball
  bool ball_called() const { return called_; }    // you called for the ball this step
  int points(int team) const { return points_.at(team); }

  // Set-ups for tests and demonstrations (checked: inside the court, valid players).
  void place_player(int player, int x, int y);
  void give_ball(int player);  // that player's team attacks, shot clock full
  void set_shot_clock(int steps);
  void set_points(int ours, int theirs);
  // Planning mode (the expert's model): no chance event happens, a shot reaching the basket
  // stays there unresolved, and the step info reports the chance of losing the ball instead.
  void set_planning(bool on) { planning_ = on; }

 private:
  void line_up(int team);  // the formation after a change of possession, `team` attacking
  void change_possession(DoubleDunkStepInfo& info);
  void script_player(int p, DoubleDunkPos goal, int speed);
  DoubleDunkPos guard_spot(int defender) const;
  DoubleDunkPos open_spot(int p) const;
  int scripted_choice(int p) const;  // 0 keep dribbling, 1 shoot, 2 pass
  void release_shot(int shooter, DoubleDunkStepInfo& info);
  void throw_pass(int passer, int receiver, DoubleDunkStepInfo& info);
  int fly_ball(DoubleDunkStepInfo& info);  // returns the reward of a resolved shot
  void run_chances(int swiper, DoubleDunkStepInfo& info);

  GameConfig config_;
  int target_score_ = kTargetScore;
  ArcadeRng rng_;
  std::array<DoubleDunkPos, kPlayers> pos_{};
  DoubleDunkBall ball_;
  std::array<int, 2> points_{};
  int offense_ = 0, shot_clock_ = kShotClock, hold_steps_ = 0, steps_ = 0;
  double score_ = 0;
  bool called_ = false, planning_ = false, done_ = true;
};

}  // namespace hm::arcade
