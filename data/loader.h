// DataLoader: batches of a Dataset per epoch, optionally shuffled and prefetched.
//
//   data::DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .seed = 1});
//   for (int64_t e = 0; e < epochs; ++e)
//     for (data::Batch& b : loader.epoch(e)) train_step(b.input, b.target);
//
// The sample order of epoch e depends only on (seed, e), so runs repeat exactly whatever
// the thread count and whether prefetching is on. With prefetch, one worker thread builds
// the next batches (a bounded queue of 2) while the caller trains on the current one; an
// exception in the worker is re-thrown by the iterator, and leaving the loop early stops
// and joins the worker.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "harmonic/data/dataset.h"

namespace hm::data {

// The example order of an epoch, a pure function of (dataset size, epoch) so runs resume
// exactly: a custom sampler replaces the built-in shuffle (e.g. a study keeping the batch order
// of its own generator stream, or one rank's shard of a distributed run).
using Sampler = std::function<std::vector<int64_t>(int64_t size, int64_t epoch)>;

struct LoaderOptions {
  int64_t batch_size = 32;
  bool shuffle = false;    // seeded_permutation(size, seed, epoch) per epoch (ignored with a sampler)
  bool drop_last = false;  // drop a final batch smaller than batch_size
  uint64_t seed = 0;
  bool prefetch = true;  // build batches on a worker thread
  Sampler sampler = {};  // when set, the order of every epoch (last: older designated initialisers still fit)
};

class Epoch;

class DataLoader {
 public:
  DataLoader(std::shared_ptr<const Dataset> dataset, LoaderOptions options);
  DataLoader(std::shared_ptr<const Dataset> dataset, int64_t batch_size, bool shuffle = false, bool drop_last = false,
             uint64_t seed = 0, bool prefetch = true);

  // The batches of epoch `epoch`; iterate it once.
  Epoch epoch(int64_t epoch) const;
  // Batches per epoch.
  int64_t num_batches() const;
  // The example order of an epoch (the sampler's, a seeded shuffle, or the identity).
  std::vector<int64_t> order(int64_t epoch) const;
  const LoaderOptions& options() const { return options_; }
  const Dataset& dataset() const { return *dataset_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  LoaderOptions options_;
};

// One pass over the data. Movable, not copyable; the destructor stops the worker.
class Epoch {
 public:
  Epoch(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> order, int64_t batch_size, int64_t num_batches,
        bool prefetch);
  // Batches given one by one (a rank's shards, data/shard.h); an empty one yields an empty
  // Batch (undefined input and target).
  Epoch(std::shared_ptr<const Dataset> dataset, std::vector<std::vector<int64_t>> batches, bool prefetch);
  ~Epoch();
  Epoch(Epoch&&) noexcept = default;
  Epoch& operator=(Epoch&&) = delete;
  Epoch(const Epoch&) = delete;
  Epoch& operator=(const Epoch&) = delete;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    explicit Iterator(Epoch* epoch) : epoch_(epoch) {}
    Batch& operator*() const { return epoch_->current_; }
    Batch* operator->() const { return &epoch_->current_; }
    Iterator& operator++() {
      epoch_->advance();
      return *this;
    }
    bool operator==(std::default_sentinel_t) const { return epoch_->done_; }

   private:
    Epoch* epoch_;
  };

  // Fetches the first batch; call once.
  Iterator begin();
  std::default_sentinel_t end() const { return {}; }
  int64_t size() const { return shared_->num_batches; }

 private:
  // Everything the worker touches lives here, on the heap, so the Epoch can move while the
  // worker runs.
  struct Shared {
    std::shared_ptr<const Dataset> dataset;
    std::vector<int64_t> order;
    std::vector<std::vector<int64_t>> batches;  // when set, the batches themselves (order unused)
    int64_t batch_size = 0, num_batches = 0;
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<Batch> queue;   // built batches in order, at most kQueueDepth
    std::exception_ptr error;  // the worker's failure, re-thrown after the queued batches
    bool stop = false;         // set by the consumer when the Epoch dies
    bool finished = false;     // the worker produced its last batch or failed

    Batch build(int64_t k) const;  // batch k, on whichever thread
    void worker_loop();
  };
  static constexpr size_t kQueueDepth = 2;

  void advance();  // current_ = next batch, or done_ = true

  std::unique_ptr<Shared> shared_;
  bool prefetch_;
  int64_t next_ = 0;  // batches handed to the consumer so far
  bool started_ = false;
  bool done_ = false;
  Batch current_;
  std::thread worker_;
};

}  // namespace hm::data
