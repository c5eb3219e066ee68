// Decision Transformer context windows over the offline data set (offline_dataset.h): example
// i is the K (= 30 in the paper) steps ending at step i, as (return-to-go, state, action)
// triples with their timesteps. A window never reaches into the previous episode: when step i
// is fewer than K - 1 steps into its episode, the window is left-padded, which is what the
// model sees at the start of an evaluation episode. (minGPT's DT shifts such windows right
// instead of padding them; one window per step, padded, also trains the early steps of every
// episode.) The mask says which positions are real.
//
// As a data::Dataset (for DataLoader's shuffling and prefetching), an example packs the
// window into input (K, 3 + F) float32 = [rtg, timestep, mask, state (F)] and target (K,)
// int64 = actions with kIgnoreAction (cross_entropy's default ignore_index) on padding;
// unpack_dt_batch splits a batch back into named tensors.
#pragma once
#include <cstdint>
#include <memory>

#include "harmonic/data/arcade/offline_dataset.h"
#include "harmonic/data/dataset.h"

namespace hm::arcade {

inline constexpr int64_t kDefaultContext = 30;
inline constexpr int64_t kIgnoreAction = -100;

class DecisionTransformerWindows : public data::Dataset {
 public:
  // Checks the data set's episodes are consistent (timesteps count from 0 after each done).
  explicit DecisionTransformerWindows(std::shared_ptr<const OfflineDataset> data, int64_t context = kDefaultContext);
  int64_t size() const override { return data_->size(); }  // one window ending at each step
  data::Example get(int64_t i) const override;
  data::Batch get_batch(const std::vector<int64_t>& indices) const override;
  int64_t context() const { return context_; }
  const OfflineDataset& offline() const { return *data_; }

 private:
  std::shared_ptr<const OfflineDataset> data_;
  int64_t context_;
};

struct DecisionTransformerBatch {
  Tensor returns_to_go;  // (B, K, 1) float32, 0 on padding
  Tensor states;         // (B, K, F) float32, 0 on padding
  Tensor actions;        // (B, K) int64 model input, 0 on padding
  Tensor targets;        // (B, K) int64 the same actions, kIgnoreAction on padding
  Tensor timesteps;      // (B, K) int64, 0 on padding
  Tensor mask;           // (B, K) float32: 1 a real step, 0 padding
};

// batch: input (B, K, 3 + F) float32, target (B, K) int64 as DecisionTransformerWindows makes them.
DecisionTransformerBatch unpack_dt_batch(const data::Batch& batch);

}  // namespace hm::arcade
