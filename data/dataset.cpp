#include "harmonic/data/dataset.h"

#include <algorithm>
#include <numeric>

#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/ops/indexing.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::data {
namespace {

Tensor index_tensor(const std::vector<int64_t>& indices) {
  return from_vector(indices, {static_cast<int64_t>(indices.size())});
}

void check_index(int64_t i, int64_t size, std::string_view fn) {
  check(i >= 0 && i < size, fn, "index {} out of range for a dataset of {} examples", i, size);
}

// (len,) + rest of shape -> (B, len, rest...)
Shape batched(int64_t b, int64_t len, const Shape& series_shape) {
  Shape out{b, len};
  out.insert(out.end(), series_shape.begin() + 1, series_shape.end());
  return out;
}

}  // namespace

Batch collate(const std::vector<Example>& examples) {
  check(!examples.empty(), "collate", "no examples");
  const bool has_target = examples[0].target.defined();
  std::vector<Tensor> inputs, targets;
  inputs.reserve(examples.size());
  for (size_t i = 0; i < examples.size(); ++i) {
    check(examples[i].target.defined() == has_target, "collate", "example {} {} a target but example 0 {}", i,
          examples[i].target.defined() ? "has" : "lacks", has_target ? "has one" : "does not");
    inputs.push_back(examples[i].input);
    if (has_target) targets.push_back(examples[i].target);
  }
  return {stack(inputs, 0), has_target ? stack(targets, 0) : Tensor()};
}

Batch Dataset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<Example> examples;
  examples.reserve(indices.size());
  for (int64_t i : indices) examples.push_back(get(i));
  return collate(examples);
}

Batch Dataset::head(int64_t count) const {
  HM_CHECK(count >= 1 && size() >= 1, "Dataset::head", "need count >= 1 of a non-empty dataset, got {} of {}", count,
           size());
  std::vector<int64_t> rows(static_cast<size_t>(std::min(count, size())));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  return get_batch(rows);
}

// -- TensorDataset ------------------------------------------------------------------------

TensorDataset::TensorDataset(Tensor inputs, Tensor targets) : inputs_(std::move(inputs)), targets_(std::move(targets)) {
  HM_CHECK(inputs_.defined() && inputs_.dim() >= 1, "TensorDataset", "inputs must have a leading example dim, got {}",
           inputs_.desc());
  HM_CHECK(!targets_.defined() || (targets_.dim() >= 1 && targets_.size(0) == inputs_.size(0)), "TensorDataset",
           "inputs {} and targets {} differ in example count", inputs_.desc(),
           targets_.defined() ? targets_.desc() : "");
}

Example TensorDataset::get(int64_t i) const {
  check_index(i, size(), "TensorDataset::get");
  return {select(inputs_, 0, i), targets_.defined() ? select(targets_, 0, i) : Tensor()};
}

Batch TensorDataset::get_batch(const std::vector<int64_t>& indices) const {
  Tensor idx = index_tensor(indices);  // index_select range-checks every index
  return {index_select(inputs_, 0, idx), targets_.defined() ? index_select(targets_, 0, idx) : Tensor()};
}

// -- WindowDataset ------------------------------------------------------------------------

WindowDataset::WindowDataset(Tensor series, int64_t input_len, int64_t target_len, int64_t target_offset,
                             int64_t stride)
    : input_len_(input_len), target_len_(target_len), target_offset_(target_offset), stride_(stride) {
  HM_CHECK(series.defined() && series.dim() >= 1, "WindowDataset", "series must be at least 1-d, got {}",
           series.desc());
  check(input_len >= 1 && target_len >= 0 && target_offset >= 0 && stride >= 1, "WindowDataset",
        "need input_len >= 1, target_len >= 0, target_offset >= 0, stride >= 1; got {}, {}, {}, {}", input_len,
        target_len, target_offset, stride);
  series_ = series.contiguous();
  const int64_t span = std::max(input_len, target_len > 0 ? target_offset + target_len : 0);
  const int64_t n = series_.size(0);
  check(n >= span, "WindowDataset",
        "a series of {} steps is shorter than one window ({} steps: input {}, target {} at +{})", n, span, input_len,
        target_len, target_offset);
  count_ = (n - span) / stride + 1;
}

Tensor WindowDataset::gather_windows(const std::vector<int64_t>& starts, int64_t len) const {
  std::vector<int64_t> rows;
  rows.reserve(starts.size() * static_cast<size_t>(len));
  for (int64_t s : starts)
    for (int64_t t = 0; t < len; ++t) rows.push_back(s + t);
  return reshape(index_select(series_, 0, index_tensor(rows)),
                 batched(static_cast<int64_t>(starts.size()), len, series_.shape()));
}

Example WindowDataset::get(int64_t i) const {
  check_index(i, count_, "WindowDataset::get");
  const int64_t s = i * stride_;
  return {narrow(series_, 0, s, input_len_),
          target_len_ > 0 ? narrow(series_, 0, s + target_offset_, target_len_) : Tensor()};
}

Batch WindowDataset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<int64_t> starts;
  starts.reserve(indices.size());
  for (int64_t i : indices) {
    check_index(i, count_, "WindowDataset::get_batch");
    starts.push_back(i * stride_);
  }
  Batch b{gather_windows(starts, input_len_), Tensor()};
  if (target_len_ > 0) {
    for (int64_t& s : starts) s += target_offset_;
    b.target = gather_windows(starts, target_len_);
  }
  return b;
}

// -- Subset and splits --------------------------------------------------------------------

Subset::Subset(std::shared_ptr<const Dataset> base, std::vector<int64_t> indices)
    : base_(std::move(base)), indices_(std::move(indices)) {
  check(base_ != nullptr, "Subset", "null base dataset");
  for (int64_t i : indices_) check_index(i, base_->size(), "Subset");
}

Example Subset::get(int64_t i) const {
  check_index(i, size(), "Subset::get");
  return base_->get(indices_[i]);
}

Batch Subset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<int64_t> mapped;
  mapped.reserve(indices.size());
  for (int64_t i : indices) {
    check_index(i, size(), "Subset::get_batch");
    mapped.push_back(indices_[i]);
  }
  return base_->get_batch(mapped);
}

std::vector<std::shared_ptr<Subset>> random_split(std::shared_ptr<const Dataset> dataset,
                                                  const std::vector<int64_t>& sizes, uint64_t seed) {
  check(dataset != nullptr, "random_split", "null dataset");
  int64_t total = 0;
  for (int64_t s : sizes) {
    check(s >= 0, "random_split", "negative split size {}", s);
    total += s;
  }
  check(total == dataset->size(), "random_split", "split sizes sum to {} but the dataset has {} examples", total,
        dataset->size());
  std::vector<int64_t> perm = seeded_permutation(total, seed, 0);
  std::vector<std::shared_ptr<Subset>> out;
  auto it = perm.begin();
  for (int64_t s : sizes) {
    out.push_back(std::make_shared<Subset>(dataset, std::vector<int64_t>(it, it + s)));
    it += s;
  }
  return out;
}

std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, uint64_t stream) {
  check(n >= 0, "seeded_permutation", "n must be >= 0, got {}", n);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  // Counter = (stream << 32) + i: every (seed, stream) pair owns its own counter range.
  const uint64_t base = stream << 32;
  for (int64_t i = n - 1; i > 0; --i) {
    philox::Block r = philox::generate(seed, base + static_cast<uint64_t>(i));
    uint64_t bits = (static_cast<uint64_t>(r.v[0]) << 32) | r.v[1];
    // Multiply-shift maps 64 random bits onto [0, i] without a modulo bias worth noting.
    auto j = static_cast<int64_t>((static_cast<unsigned __int128>(bits) * static_cast<uint64_t>(i + 1)) >> 64);
    std::swap(perm[i], perm[j]);
  }
  return perm;
}

}  // namespace hm::data
