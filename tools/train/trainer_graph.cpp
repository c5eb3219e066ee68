// trainer.cuda_graph: one whole optimizer step (zero_grad, the forward and backward of each of
// its trainer.accumulate micro-batches, clip, optimizer step) captured into a CUDA graph
// (cuda/runtime/graph.h) after kGraphWarmupSteps eager steps, then replayed: each step copies
// its batches into the capture's static buffers, sets the lr outside the graph, replays, and
// hands copies of the static loss and gradient norm to the pending list, so logging reads them
// as it reads eager steps'.
//
// One graph holds all the micro-batches of a step rather than one graph per micro-batch:
// backward adds a leaf's gradient out of place, so a graph replayed for the second and third
// micro-batch would read the gradient buffer its capture saw, not the one the replay before
// wrote. With several ranks the gradients' all-reduce is a collective, which no graph holds:
// the step is two graphs, the micro-batches ending with the gradients packed into the
// data-parallel buckets, and the buckets' mean unpacked into the gradients, clip and optimizer
// step; between them the buckets are all-reduced eagerly.
#include <limits>
#include <optional>

#include "harmonic/core/storage.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/nn/distributed/data_parallel.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/train/trainer.h"
#include "harmonic/tools/train/trainer_internal.h"

namespace hm::train {
namespace {

// The batch's tensor copied into the static buffer of the capture (one host-to-device copy
// into existing memory: no allocation). False when its shape or dtype differ.
bool trainer_graph_fill(const Tensor& dst, const Tensor& src) {
  if (!dst.defined() || !src.defined()) return dst.defined() == src.defined();
  if (src.shape() != dst.shape() || src.dtype() != dst.dtype()) return false;
  const Tensor s = src.device() == dst.device() ? src : src.contiguous();
  if (s.device().is_cpu())
    device_copy_kernel(dst.device(), dst.raw_data(), dst.device(), s.raw_data(), s.device(),
                       static_cast<size_t>(s.numel()) * dtype_size(s.dtype()));
  else
    const_cast<Tensor&>(dst).copy_(s);
  return true;
}

// Records `work` into `graph` on `device` (dropping what was recorded when it throws).
template <class Work>
void trainer_graph_capture(cuda::Graph& graph, int device, Work&& work) {
  graph.begin_capture(device);
  try {
    work();
    graph.end_capture();
  } catch (...) {
    graph.abort_capture();
    throw;
  }
}

}  // namespace

void Trainer::graph_give_up(const std::string& why) {
  graph_.reset();
  if (options_.cuda_graph == "on")
    throw_error("Trainer", fmt::format("trainer.cuda_graph=on: task '{}' cannot run its step as a CUDA graph: {} "
                                       "(trainer.cuda_graph=auto runs it eagerly instead)",
                                       task_name_, why));
  graph_fallback_ = why;
  if (log) {
    end_progress_line();
    fmt::print(log, "trainer.cuda_graph=auto: eager steps from step {}: {}\n", step_ + 1, why);
  }
}

bool Trainer::graph_due(int64_t group) {
  if (options_.cuda_graph == "off" || !graph_fallback_.empty()) return false;
  if (!device_.is_cuda()) {
    graph_give_up(fmt::format("the model is on {}, not a CUDA device", device_));
    return false;
  }
  // An epoch's short last group (fewer micro-batches, each scaled by 1/group) runs eagerly.
  if (group != options_.accumulate) return false;
  return graph_ != nullptr || session_steps_ >= kGraphWarmupSteps;
}

std::optional<Trainer::PendingStep> Trainer::graph_step(std::span<const data::Batch> group, int64_t first_batch,
                                                        int world, dist::DataParallel* ddp, int64_t items) {
  if (!graph_) {
    // An epoch's short last batch is not captured (later batches would not fit its buffers),
    // nor is a batch of which this rank has no example.
    const int64_t full = task_.train_loader().options().batch_size;
    for (size_t i = 0; i < group.size(); ++i)
      if (!group[i].input.defined() || global_batch_items(first_batch + static_cast<int64_t>(i)) != full)
        return std::nullopt;
    // Step counters and lrs in device tensors, so a replayed step advances them.
    if (!task_.optimizer().capturable()) task_.optimizer().set_capturable(true);
    try {
      capture_step(group, first_batch, world, ddp);
    } catch (const Error& e) {
      graph_give_up(fmt::format("capturing the step failed: {}", e.what()));
      return std::nullopt;
    }
  } else {
    for (size_t i = 0; i < group.size(); ++i) {
      const StepGraph::Micro& m = graph_->micro[i];
      // A batch of another shape (an epoch's short last batch) runs eagerly; so does, with
      // several ranks, a global batch of another size: its weight is a constant of the graph.
      if (!trainer_graph_fill(m.input, group[i].input) || !trainer_graph_fill(m.target, group[i].target))
        return std::nullopt;
      if (world > 1 && m.global_items != global_batch_items(first_batch + static_cast<int64_t>(i))) return std::nullopt;
    }
  }
  apply_lr(step_);  // outside the graph: the capturable optimizer writes its lr tensors
  auto replay = [&](cuda::Graph& graph) {
    // The emulated device's twins check at replay.
    cuda::DeferredChecks deferred(fmt::format("training step {} (epoch {}, batches {}-{}; CUDA graph replay)",
                                              step_ + 1, epoch_ + 1, first_batch + 1, first_batch + std::ssize(group)));
    graph.replay();
  };
  replay(graph_->graph);
  if (world > 1) {
    ddp->all_reduce_buckets();
    replay(graph_->update);
  }
  ++graph_replays_;
  return pending_step(graph_->loss.clone(), graph_->grad_norm.defined() ? graph_->grad_norm.clone() : Tensor(), items,
                      first_batch);
}

void Trainer::capture_step(std::span<const data::Batch> group, int64_t first_batch, int world,
                           dist::DataParallel* ddp) {
  auto g = std::make_unique<StepGraph>();
  for (size_t i = 0; i < group.size(); ++i) {
    StepGraph::Micro m;
    m.input = group[i].input.to(device_);  // the static buffers: allocated before the capture, kept by the trainer
    if (group[i].target.defined()) m.target = group[i].target.to(device_);
    if (world > 1) m.global_items = global_batch_items(first_batch + static_cast<int64_t>(i));
    g->micro.push_back(std::move(m));
  }
  optim::Optimizer& opt = task_.optimizer();
  nn::Module& model = task_.model();
  const auto n = std::ssize(group);
  cuda::DeferredChecks deferred(fmt::format("training step {} (epoch {}, batches {}-{}; CUDA graph capture)", step_ + 1,
                                            epoch_ + 1, first_batch + 1, first_batch + n));
  apply_lr(step_);
  trainer_graph_capture(g->graph, device_.index, [&] {
    model.zero_grad();
    opt.zero_grad();
    Tensor loss;  // the sum of the micro-batches' shares, added in eager's order
    for (int64_t i = 0; i < n; ++i) {
      const StepGraph::Micro& m = g->micro[static_cast<size_t>(i)];
      const Tensor part = micro_step({m.input, m.target}, first_batch + i, n, world);
      loss = loss.defined() ? add(loss, part) : part;
    }
    g->loss = loss;
    if (world > 1)
      ddp->pack_grads();
    else
      g->grad_norm = update();
  });
  if (world > 1)
    trainer_graph_capture(g->update, device_.index, [&] {
      ddp->unpack_grads();
      g->grad_norm = update();
    });
  graph_ = std::move(g);
}

}  // namespace hm::train
