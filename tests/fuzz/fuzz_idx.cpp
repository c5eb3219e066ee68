// Target "idx": IDX files (Fashion-MNIST images and labels), plain or gzip-compressed, read as
// the data sets and `harmonic info` read them.
#include "harmonic/data/idx.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_idx(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("input.idx", as_text(data, size));
  reject_errors([&] {
    Tensor t = data::read_idx(path, DType::Float64, 0.5);
    (void)t.to_vector();
  });
  // The loaders' readers: ubyte (N, H, W) images and ubyte (N,) labels.
  reject_errors([&] { (void)data::read_idx_images(path); });
  return reject_errors([&] { (void)data::read_idx_labels(path); });
}

}  // namespace hm::fuzz
