// Target "safetensors": any file given to `harmonic op --inputs`, `harmonic info`, a saved
// model or a checkpoint goes through load_safetensors first.
#include "harmonic/core/safetensors.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_safetensors(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("input.safetensors", as_text(data, size));
  return reject_errors([&] {
    SafetensorsFile file = load_safetensors(path);
    // Read every element back, as a consumer of the tensors would.
    for (const auto& [name, t] : file.tensors)
      if (t.dtype() != DType::Float16 && t.dtype() != DType::BFloat16) (void)t.to_vector();
  });
}

}  // namespace hm::fuzz
