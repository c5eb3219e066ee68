#include "models/mlp_demo.h"
#include "tests/helpers.h"

using namespace hm;

TEST_CASE("end to end: SGD MLP on spirals reaches a low loss, deterministically") {
  models::SpiralDemoConfig cfg;
  cfg.epochs = 300;
  models::SpiralDemoResult a = models::train_spiral_mlp(cfg);
  // Chance level for 3 classes is log(3) = 1.0986; a network that learned the spirals is far below.
  CHECK(a.losses.front() > 1.0);
  CHECK(a.losses.back() < 0.35);
  CHECK(a.accuracy > 0.85);
  models::SpiralDemoResult b = models::train_spiral_mlp(cfg);
  CHECK(a.losses == b.losses);  // same seed, bit-identical run
}
