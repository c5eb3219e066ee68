// Target "arcade_dataset": a cached offline data set of the Decision Transformer study
// (data/arcade/offline_dataset.h) read back as load_or_generate does, then cut into the
// study's K-step windows and returns-to-go recomputed, as the arcade-dt task would.
#include <algorithm>
#include <memory>

#include "harmonic/data/arcade/dt_windows.h"
#include "harmonic/data/arcade/offline_dataset.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_arcade_dataset(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("arcade.safetensors", as_text(data, size));
  return reject_errors([&] {
    auto offline = std::make_shared<const arcade::OfflineDataset>(arcade::load_offline_dataset(path));
    (void)arcade::compute_returns_to_go(offline->rewards, offline->dones);
    arcade::DecisionTransformerWindows windows(offline, 4);
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < std::min<int64_t>(windows.size(), 16); ++i) indices.push_back(i);
    indices.push_back(windows.size() - 1);
    (void)arcade::unpack_dt_batch(windows.get_batch(indices));
  });
}

}  // namespace hm::fuzz
