// Datasets: indexed collections of (input, target) examples. A batch is the same pair with
// a leading batch dim, so one struct serves images (N, C, H, W) + labels (N,), language
// modelling (B, T) tokens + (B, T) next tokens, and time series (B, W, F) + (B, H, F).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::data {

// One example; `target` is undefined for unlabelled data.
struct Example {
  Tensor input;
  Tensor target;
};
// A batch: the examples' tensors stacked along a new leading dim.
using Batch = Example;

// Stacks examples into a batch (inputs with inputs, targets with targets). All examples
// must agree in shape and in whether they have a target.
Batch collate(const std::vector<Example>& examples);

// The interface a DataLoader reads. get()/get_batch() are const and must be safe to call
// from the loader's worker thread while the caller trains.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t i) const = 0;
  // The batch of the given example indices. The default collates get(i); datasets backed
  // by stacked tensors override it with one gather.
  virtual Batch get_batch(const std::vector<int64_t>& indices) const;
  // Examples 0 .. min(count, size()) - 1 as one batch (a whole held-out split, a fixed probe
  // batch). count must be >= 1 and the dataset non-empty.
  Batch head(int64_t count) const;
};

// Rows of stacked tensors: example i is (inputs[i], targets[i]). get_batch is one
// index_select per tensor, no per-example tensors.
class TensorDataset : public Dataset {
 public:
  TensorDataset(Tensor inputs, Tensor targets = {});  // (N, ...), (N, ...) or undefined
  int64_t size() const override { return inputs_.size(0); }
  Example get(int64_t i) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;
  const Tensor& inputs() const { return inputs_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor inputs_;   // (N, ...)
  Tensor targets_;  // (N, ...) or undefined
};

// Windows over a sequence (N, ...) along dim 0. Example i starts at s = i * stride:
//   input  = series[s : s + input_len]
//   target = series[s + target_offset : s + target_offset + target_len]   (when target_len > 0)
// Language modelling: input_len = target_len = T, target_offset = 1 (next token).
// Forecasting: input_len = W, target_offset = W, target_len = horizon.
class WindowDataset : public Dataset {
 public:
  WindowDataset(Tensor series, int64_t input_len, int64_t target_len, int64_t target_offset, int64_t stride);
  int64_t size() const override { return count_; }
  Example get(int64_t i) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;
  const Tensor& series() const { return series_; }

 private:
  Tensor gather_windows(const std::vector<int64_t>& starts, int64_t len) const;  // (B, len, ...)
  Tensor series_;                                                                // (N, ...) contiguous
  int64_t input_len_, target_len_, target_offset_, stride_, count_;
};

// A view of another dataset through an index list (train/validation splits).
class Subset : public Dataset {
 public:
  Subset(std::shared_ptr<const Dataset> base, std::vector<int64_t> indices);
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example get(int64_t i) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::shared_ptr<const Dataset> base_;
  std::vector<int64_t> indices_;
};

// Splits a dataset into disjoint random subsets of the given sizes (which must sum to its
// size), from a permutation seeded by `seed`.
std::vector<std::shared_ptr<Subset>> random_split(std::shared_ptr<const Dataset> dataset,
                                                  const std::vector<int64_t>& sizes, uint64_t seed);

// A random permutation of 0..n-1 that depends only on (seed, stream): Fisher-Yates driven
// by Philox counters. The loader uses stream = epoch.
std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, uint64_t stream);

// A labelled image set as readers return it.
struct LabeledImages {
  Tensor images;                     // (N, C, H, W) or (N, H, W) float32 in [0, 1]
  Tensor labels;                     // (N,) int64
  std::vector<std::string> classes;  // class name per label value
};

}  // namespace hm::data
