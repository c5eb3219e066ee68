#include "harmonic/data/loader.h"

#include <omp.h>

#include <algorithm>
#include <numeric>

#include "harmonic/autograd/grad_mode.h"

namespace hm::data {

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, LoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  check(dataset_ != nullptr, "DataLoader", "null dataset");
  check(options_.batch_size >= 1, "DataLoader", "batch_size must be >= 1, got {}", options_.batch_size);
}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, int64_t batch_size, bool shuffle, bool drop_last,
                       uint64_t seed, bool prefetch)
    : DataLoader(std::move(dataset), LoaderOptions{.batch_size = batch_size,
                                                   .shuffle = shuffle,
                                                   .drop_last = drop_last,
                                                   .seed = seed,
                                                   .prefetch = prefetch}) {}

int64_t DataLoader::num_batches() const {
  const int64_t n = dataset_->size(), b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

std::vector<int64_t> DataLoader::order(int64_t epoch) const {
  check(epoch >= 0, "DataLoader::order", "epoch must be >= 0, got {}", epoch);
  if (options_.sampler) {
    std::vector<int64_t> order = options_.sampler(dataset_->size(), epoch);
    const int64_t n = dataset_->size();
    // num_batches() counts on one index per example.
    check(std::ssize(order) == n, "DataLoader::order", "the sampler gave {} indices for a dataset of {} examples",
          order.size(), n);
    for (int64_t i : order)
      check(i >= 0 && i < n, "DataLoader::order", "the sampler gave index {} for a dataset of {} examples", i, n);
    return order;
  }
  if (options_.shuffle) return seeded_permutation(dataset_->size(), options_.seed, static_cast<uint64_t>(epoch));
  std::vector<int64_t> identity(static_cast<size_t>(dataset_->size()));
  std::iota(identity.begin(), identity.end(), int64_t{0});
  return identity;
}

Epoch DataLoader::epoch(int64_t epoch) const {
  return Epoch(dataset_, order(epoch), options_.batch_size, num_batches(), options_.prefetch);
}

// -- Epoch --------------------------------------------------------------------------------

Epoch::Epoch(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> order, int64_t batch_size,
             int64_t num_batches, bool prefetch)
    : shared_(std::make_unique<Shared>()), prefetch_(prefetch) {
  shared_->dataset = std::move(dataset);
  shared_->order = std::move(order);
  shared_->batch_size = batch_size;
  shared_->num_batches = num_batches;
  if (prefetch_ && num_batches > 0) worker_ = std::thread([s = shared_.get()] { s->worker_loop(); });
}

Epoch::Epoch(std::shared_ptr<const Dataset> dataset, std::vector<std::vector<int64_t>> batches, bool prefetch)
    : shared_(std::make_unique<Shared>()), prefetch_(prefetch) {
  shared_->dataset = std::move(dataset);
  shared_->num_batches = std::ssize(batches);
  shared_->batches = std::move(batches);
  if (prefetch_ && shared_->num_batches > 0) worker_ = std::thread([s = shared_.get()] { s->worker_loop(); });
}

Epoch::~Epoch() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stop = true;
  }
  shared_->cv.notify_all();
  worker_.join();  // the worker finishes at most the batch it is building
}

Batch Epoch::Shared::build(int64_t k) const {
  NoGradGuard no_grad;  // batches are data, never part of a graph
  if (!batches.empty()) {
    const std::vector<int64_t>& indices = batches[static_cast<size_t>(k)];
    return indices.empty() ? Batch{} : dataset->get_batch(indices);
  }
  const int64_t begin = k * batch_size;
  const int64_t end = std::min<int64_t>(begin + batch_size, static_cast<int64_t>(order.size()));
  std::vector<int64_t> indices(order.begin() + begin, order.begin() + end);
  return dataset->get_batch(indices);
}

void Epoch::Shared::worker_loop() {
  // Gathers on this thread stay serial: the training thread's OpenMP team owns the cores,
  // and a second team would oversubscribe them. (Only the per-thread OpenMP setting is
  // changed; an explicit hm::set_num_threads() still applies everywhere.)
  omp_set_num_threads(1);
  for (int64_t k = 0; k < num_batches; ++k) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      cv.wait(lock, [&] { return stop || queue.size() < kQueueDepth; });
      if (stop) return;
    }
    Batch batch;
    try {
      batch = build(k);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      error = std::current_exception();
      finished = true;
      cv.notify_all();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(batch));
    }
    cv.notify_all();
  }
  std::lock_guard<std::mutex> lock(mutex);
  finished = true;
  cv.notify_all();
}

Epoch::Iterator Epoch::begin() {
  check(shared_ != nullptr && !started_, "Epoch::begin", "an epoch can be iterated only once");
  started_ = true;
  advance();
  return Iterator(this);
}

void Epoch::advance() {
  Shared& s = *shared_;
  if (next_ >= s.num_batches) {
    done_ = true;
    current_ = {};
    return;
  }
  if (!prefetch_) {
    current_ = s.build(next_++);
    return;
  }
  std::unique_lock<std::mutex> lock(s.mutex);
  s.cv.wait(lock, [&] { return !s.queue.empty() || s.finished; });
  if (!s.queue.empty()) {
    current_ = std::move(s.queue.front());
    s.queue.pop_front();
    ++next_;
    lock.unlock();
    s.cv.notify_all();  // room for the worker's next batch
    return;
  }
  done_ = true;
  current_ = {};
  check(s.error != nullptr, "Epoch", "worker stopped after {} of {} batches without an error", next_, s.num_batches);
  std::rethrow_exception(s.error);
}

}  // namespace hm::data
