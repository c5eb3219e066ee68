// A BankHeist-like arcade game with Atari's 18-action space: the stand-in for the Atari
// BankHeist column of the Fourier head paper's Decision Transformer study (Gillman et al.,
// section 5, Table 2), since no emulator or ROM exists here. Deterministic given the reset
// seed: every random draw (the city's streets, banks, police noise) comes from one Philox
// stream (arcade_rng.h), so an episode is a function of (seed, actions).
//
// A city is a 19 x 13 grid of tiles, y growing downwards: streets run along every third row
// and column (intersections at x, y multiples of 3), and each city closes kClosedSegments of
// the street segments between neighbouring intersections, keeping the streets connected and
// every intersection on at least two of them. The getaway car moves one tile a step and keeps
// driving in its heading until a wall stops it (NOOP drives on). A move action turns the car
// that way where the street allows it, else it drives on; a diagonal takes whichever of its
// components is open, the turn (the component across the heading) first. Fuel (kMaxFuel)
// drains one unit a tile; running out costs a life.
//
// Up to kMaxBanks banks stand on street tiles, each appearing after a random pause. Driving
// into one robs it: 10 points for the first bank robbed in the city, 20 for the second, ... up
// to 90, and the bank becomes a police car that waits kPoliceWake steps (harmless) and then
// chases the car along the streets: at each move it takes the neighbouring tile nearest the car
// by street distance, or with a small probability (lower in later cities) a random open one.
// Police move a fraction of the steps (4/8 in the first city, one more eighth per city, up to
// 7/8). Touching an awake police car (sharing a tile, or swapping tiles) costs a life.
// FIRE (and the moves with FIRE) drops dynamite on the tile the car leaves (one stick at a
// time, none while the car stands); kFuse steps later it explodes, destroying every police car
// on its tile or next to it (kBlastRadius, Manhattan) for kPoliceReward each, and the car too
// if it lingers that close.
//
// Driving off the right edge at the exit row leads to the next city: kExitBonusPerBank per
// bank robbed in this city, full fuel, a new street plan, the bank values start again at 10 and
// the police are faster. The car enters the new city at the left edge on the row it left by.
// A lost life puts the car back at the city's entrance with full fuel and no police or
// dynamite (banks stay). The episode ends at 0 lives or after max_steps steps (truncation);
// the score is the sum of the rewards.
//
// Observation: a kObservationSize-float feature vector (bankheist_view.cpp) holding what the
// rules depend on except the timers of empty bank slots and the random stream: the car, its
// fuel and open directions, the exit, the difficulty, the dynamite, and per bank and police slot
// its offset and street distance from the car. render() draws a 40 x 32 grayscale frame.
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

class BankHeistEnv : public Game {
 public:
  // Geometry (tiles), limits and scores; the header comment explains them.
  static constexpr int kCols = 19, kRows = 13, kBlock = 3;  // intersections every kBlock tiles
  static constexpr int kClosedSegments = 14;                // of the 58 segments of the full grid
  static constexpr int kMaxFuel = 200;
  static constexpr int kMaxBanks = 3, kMaxPolice = 4;
  static constexpr int kPoliceWake = 3, kFuse = 4, kBlastRadius = 1;
  static constexpr int kBankReward = 10, kMaxBankReward = 90, kPoliceReward = 50, kExitBonusPerBank = 20;
  static constexpr int kBankMinDistance = 6;  // a new bank stands at least this far (streets) from the car
  static constexpr int kObservationSize = 50;
  static constexpr int kFrameW = 40, kFrameH = 32;

  // Headings and the four street directions, in this order.
  enum Dir : int { kWest = 0, kNorth, kEast, kSouth };
  static constexpr std::array<int, 4> kDirDx = {-1, 0, 1, 0}, kDirDy = {0, -1, 0, 1};

  enum class LifeLoss { None, Police, Dynamite, Fuel };

  struct Bank {
    bool alive = false;
    int x = 0, y = 0;
  };
  struct Police {
    bool alive = false;
    int x = 0, y = 0;
    int wake = 0;   // steps before it starts chasing (harmless until then)
    int phase = 0;  // eighths of a tile accumulated towards its next move
  };
  struct Dynamite {
    bool alive = false;
    int x = 0, y = 0, fuse = 0;  // steps until it explodes
  };

  // What a step did besides its reward.
  struct Info {
    LifeLoss life_lost = LifeLoss::None;
    int banks_robbed = 0;
    int police_destroyed = 0;
    bool city_cleared = false;  // drove out of the exit into the next city
    bool truncated = false;
  };
  struct StepResult {
    std::vector<float> observation;  // (kObservationSize,)
    double reward = 0;
    bool done = false;
    Info info;
  };

  // One city's streets, shared (read-only) by the copies a planner makes.
  struct CityMap {
    std::array<int16_t, kCols * kRows> node{};  // street index of a tile, -1 for a block
    std::vector<int> streets;                   // tile index (y * kCols + x) of each street
    std::vector<uint16_t> distance;             // streets x streets shortest street distances
    int entry_row = 0, exit_row = 0;
  };

  explicit BankHeistEnv(const GameConfig& config = {});

  // Game
  std::string_view name() const override { return "bankheist"; }
  std::vector<float> reset(uint64_t seed) override;
  GameStep advance(int action) override { return advance(action, nullptr); }
  std::vector<float> observation() const override;
  int observation_size() const override { return kObservationSize; }
  const std::vector<std::string>& observation_names() const override;
  std::vector<uint8_t> render() const override;
  int frame_width() const override { return kFrameW; }
  int frame_height() const override { return kFrameH; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<BankHeistEnv>(*this); }
  bool done() const override { return done_; }
  double score() const override { return score_; }
  int steps() const override { return steps_; }
  int lives() const override { return lives_; }

  // The same with what happened (info may be null), and with the observation.
  GameStep advance(int action, Info* info);
  StepResult step(int action);

  const GameConfig& config() const { return config_; }
  int car_x() const { return car_x_; }
  int car_y() const { return car_y_; }
  int heading() const { return heading_; }
  int fuel() const { return fuel_; }
  int city() const { return city_; }                 // 0 for the first
  int banks_robbed() const { return robbed_; }       // in this city
  int bank_value() const;                            // the next bank's reward
  int police_speed() const;                          // eighths of a tile a step
  double police_noise() const;                       // chance of a random turn per move
  int exit_row() const { return map_->exit_row; }    // leave by driving east from (kCols - 1, exit_row)
  int entry_row() const { return map_->entry_row; }  // enter at (0, entry_row)
  const std::array<Bank, kMaxBanks>& banks() const { return banks_; }
  const std::array<Police, kMaxPolice>& police() const { return police_; }
  const Dynamite& dynamite() const { return dynamite_; }

  bool is_street(int x, int y) const;
  // The car can move from street tile (x, y) towards dir (the exit counts as open).
  bool open(int x, int y, int dir) const;
  // Tiles driven along the streets between two street tiles (throws for a block).
  int street_distance(int x0, int y0, int x1, int y1) const;
  bool is_exit(int x, int y) const { return x == kCols - 1 && y == map_->exit_row; }
  // The direction the car would drive with `action` now, or -1 where it would stand still.
  int direction_of(int action) const;

  // Set-ups for tests and demonstrations (checked: street tiles, slots, ranges).
  void use_full_grid();  // every street segment open (the exit and entry rows kept)
  void place_car(int x, int y, int heading);
  void place_bank(int slot, int x, int y);
  void place_police(int slot, int x, int y, int wake = 0);
  void place_dynamite(int x, int y, int fuse);
  void set_fuel(int fuel);

 private:
  void enter_city(int entry_row);
  void lose_life(LifeLoss cause, Info& info);
  void move_police(Police& p);
  void spawn_banks();
  int node_of(int x, int y) const { return map_->node[static_cast<size_t>(y * kCols + x)]; }
  int distance_between_nodes(int a, int b) const {
    return map_->distance[static_cast<size_t>(a) * map_->streets.size() + static_cast<size_t>(b)];
  }

  GameConfig config_;
  ArcadeRng rng_;
  std::shared_ptr<const CityMap> map_;
  int car_x_ = 0, car_y_ = 0, heading_ = kEast;
  int fuel_ = kMaxFuel, lives_ = 0, city_ = 0, robbed_ = 0, steps_ = 0;
  double score_ = 0;
  bool done_ = true;
  std::array<Bank, kMaxBanks> banks_{};
  std::array<int, kMaxBanks> bank_timer_{};  // steps until an empty slot gets a bank
  std::array<Police, kMaxPolice> police_{};
  Dynamite dynamite_;
};

std::string_view bankheist_life_loss_name(BankHeistEnv::LifeLoss cause);  // "none", "police", "dynamite", "fuel"

}  // namespace hm::arcade
