#include "harmonic/tools/demos/spiral_sgd.h"
#include "tests/helpers.h"

using namespace hm;

TEST_CASE("end to end: SGD MLP on spirals reaches a low loss, deterministically") {
  demos::SpiralDemoConfig cfg;
  cfg.epochs = 300;
  demos::SpiralDemoResult a = demos::train_spiral_mlp(cfg);
  // Chance level for 3 classes is log(3) = 1.0986; a network that learned the spirals is far below.
  CHECK(a.losses.front() > 1.0);
  CHECK(a.losses.back() < 0.35);
  CHECK(a.accuracy > 0.85);
  demos::SpiralDemoResult b = demos::train_spiral_mlp(cfg);
  CHECK(a.losses == b.losses);  // same seed, bit-identical run
}
