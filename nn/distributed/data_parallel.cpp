#include "harmonic/nn/distributed/data_parallel.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/grad_ready.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"

namespace hm::dist {

void broadcast_tensors(ProcessGroup& group, const std::vector<Tensor>& tensors, int root) {
  if (group.world_size() == 1) return;
  NoGradGuard no_grad;  // parameters are overwritten in place, as an optimizer does
  for (const Tensor& t : tensors) {
    if (t.is_contiguous()) {
      group.broadcast(t, root);
    } else {
      Tensor c = t.contiguous();
      group.broadcast(c, root);
      Tensor target = t;
      target.copy_(c);
    }
  }
}

DataParallel::DataParallel(std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group, DataParallelOptions options)
    : params_(std::move(params)), group_(std::move(group)), options_(options) {
  check(group_ != nullptr, "DataParallel", "null process group");
  check(options_.bucket_mb > 0, "DataParallel", "bucket_mb must be > 0, got {}", options_.bucket_mb);
  const auto limit = static_cast<int64_t>(options_.bucket_mb * 1024 * 1024);
  where_.resize(params_.size());
  param_ready_.assign(params_.size(), false);
  // Reverse registration order: the last layers' gradients are ready first.
  int64_t bytes = 0;
  for (int64_t i = std::ssize(params_) - 1; i >= 0; --i) {
    const Tensor& p = params_[static_cast<size_t>(i)];
    HM_CHECK(p.defined() && p.requires_grad() && p.is_leaf(), "DataParallel",
             "parameter {} is not a leaf that requires grad", i);
    const int64_t size = p.numel() * static_cast<int64_t>(dtype_size(p.dtype()));
    const auto same_kind = [&](int64_t j) {
      const Tensor& q = params_[static_cast<size_t>(j)];
      return q.dtype() == p.dtype() && q.device() == p.device();
    };
    if (buckets_.empty() || (bytes > 0 && bytes + size > limit) || !same_kind(buckets_.back().params.front())) {
      buckets_.emplace_back();
      bytes = 0;
    }
    Bucket& b = buckets_.back();
    const int64_t offset =
        b.offsets.empty() ? 0 : b.offsets.back() + params_[static_cast<size_t>(b.params.back())].numel();
    where_[static_cast<size_t>(i)] = {std::ssize(buckets_) - 1, std::ssize(b.params)};
    b.params.push_back(i);
    b.offsets.push_back(offset);
    bytes += size;
  }
  for (Bucket& b : buckets_) {
    const Tensor& last = params_[static_cast<size_t>(b.params.back())];
    b.flat = zeros({b.offsets.back() + last.numel()}, {.dtype = last.dtype(), .device = last.device()});
  }
  self_ = std::make_shared<DataParallel*>(this);
  std::weak_ptr<DataParallel*> weak = self_;
  for (size_t i = 0; i < params_.size(); ++i)
    autograd::register_grad_ready_hook(params_[i], [weak, i](const Tensor&) {
      if (auto self = weak.lock()) (*self)->on_ready(static_cast<int64_t>(i));
    });
  if (options_.overlap && group_->world_size() > 1) comm_ = std::thread([this] { comm_loop(); });
}

DataParallel::~DataParallel() {
  self_.reset();  // the hooks stay on the tensors, now inert
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (comm_.joinable()) comm_.join();
}

void DataParallel::begin_sync() {
  check(!syncing_, "DataParallel::begin_sync", "called twice without finish()");
  syncing_ = true;
  next_launch_ = 0, launched_in_backward_ = 0;
  param_ready_.assign(params_.size(), false);
  for (Bucket& b : buckets_) b.ready = 0, b.launched = false;
}

// (numel,) view of the parameter's slice of its bucket.
static Tensor slice_of(const Tensor& flat, int64_t offset, const Tensor& p) {
  return Tensor::view_of(flat.storage(), p.shape(), contiguous_strides(p.shape()), flat.offset() + offset, p.dtype());
}

void DataParallel::copy_in(int64_t param) {
  const auto [bucket, index] = where_[static_cast<size_t>(param)];
  Bucket& b = buckets_[static_cast<size_t>(bucket)];
  const Tensor& p = params_[static_cast<size_t>(param)];
  Tensor slice = slice_of(b.flat, b.offsets[static_cast<size_t>(index)], p);
  const Tensor g = p.grad();
  if (g.defined())
    slice.copy_(g);
  else
    slice.zero_();
  param_ready_[static_cast<size_t>(param)] = true;
  ++b.ready;
}

void DataParallel::on_ready(int64_t param) {
  if (!syncing_ || param_ready_[static_cast<size_t>(param)]) return;
  copy_in(param);
  launch_in_order(true);
}

void DataParallel::launch_in_order(bool from_backward) {
  while (next_launch_ < num_buckets()) {
    Bucket& b = buckets_[static_cast<size_t>(next_launch_)];
    if (b.ready < std::ssize(b.params)) return;
    b.launched = true;
    if (from_backward) ++launched_in_backward_;
    if (comm_.joinable()) {  // else finish() reduces every bucket
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(next_launch_);
      ++pending_;
      cv_.notify_all();
    }
    ++next_launch_;
  }
}

void DataParallel::comm_loop() {
  for (;;) {
    int64_t index = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_ && queue_.empty()) return;
      index = queue_.front();
      queue_.pop_front();
    }
    try {
      if (!error_) group_->all_reduce(buckets_[static_cast<size_t>(index)].flat, ReduceOp::Sum);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --pending_;
    cv_.notify_all();
  }
}

void DataParallel::wait_all() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return pending_ == 0; });
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void DataParallel::finish() {
  check(syncing_, "DataParallel::finish", "no begin_sync() before this backward");
  syncing_ = false;
  // Parameters backward did not reach: their current gradient (or zeros) joins the reduction.
  for (size_t i = 0; i < params_.size(); ++i)
    if (!param_ready_[i]) copy_in(static_cast<int64_t>(i));
  launch_in_order(false);
  if (comm_.joinable())
    wait_all();
  else
    all_reduce_buckets();
  unpack_grads();
}

void DataParallel::pack_grads() {
  check(!syncing_, "DataParallel::pack_grads", "called between begin_sync() and finish()");
  param_ready_.assign(params_.size(), false);
  for (Bucket& b : buckets_) b.ready = 0;
  for (size_t i = 0; i < params_.size(); ++i) copy_in(static_cast<int64_t>(i));
}

void DataParallel::all_reduce_buckets() {
  for (Bucket& b : buckets_) group_->all_reduce(b.flat, ReduceOp::Sum);
}

void DataParallel::unpack_grads() {
  const double inv_world = 1.0 / group_->world_size();
  for (Bucket& b : buckets_) {
    mul_(b.flat, inv_world);
    for (size_t k = 0; k < b.params.size(); ++k) {
      const Tensor& p = params_[static_cast<size_t>(b.params[k])];
      // A fresh tensor, never written in place: backward may have handed one gradient
      // tensor to several leaves (add's inputs share grad_output).
      p.set_grad(slice_of(b.flat, b.offsets[k], p).clone());
    }
  }
}

}  // namespace hm::dist
