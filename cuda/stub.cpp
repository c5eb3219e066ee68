// Built when Harmonic is compiled without CUDA: there is no device, and the kernel slots'
// `cuda` pointers stay empty, so any CUDA tensor op throws "built without CUDA".
#include "cuda/runtime.h"

#include "core/error.h"

namespace hm::cuda {

bool compiled() { return false; }
int device_count() { return 0; }
bool available() { return false; }
std::string describe() { return "built without CUDA"; }
void synchronize() { throw_error("cuda::synchronize", "Harmonic was built without CUDA"); }

}  // namespace hm::cuda
