// clang's libFuzzer entry for ONE target, chosen at compile time: built as
// harmonic_fuzz_<parser> with -DHM_FUZZ_TARGET=fuzz_<parser> (CMake option HARMONIC_FUZZ).
// Run through tests/fuzz/run.sh TARGET MINUTES.
#include <cstdio>

#include "harmonic/core/parallel.h"
#include "tests/fuzz/fuzz_targets.h"

#ifndef HM_FUZZ_TARGET
#error "define HM_FUZZ_TARGET as the target function, e.g. -DHM_FUZZ_TARGET=fuzz_safetensors"
#endif

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  hm::set_num_threads(1);  // one core per fuzzer process; OpenMP teams would only add noise
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return hm::fuzz::HM_FUZZ_TARGET(data, size);
}
