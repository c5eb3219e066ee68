// An installed Harmonic's user: trains the README's example and fails unless the loss fell.
#include <cstdio>

#include "readme_example.h"  // train_xor_like(epochs), written at configure time

int main() {
  double loss = train_xor_like(40);
  std::printf("README example through find_package(Harmonic): final loss %.4f\n", loss);
  return loss < 0.3 ? 0 : 1;  // chance level is log 2 = 0.69; the bound of tests/train/test_readme_example.cpp
}
