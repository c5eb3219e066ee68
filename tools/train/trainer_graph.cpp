// trainer.cuda_graph: one whole optimizer step (zero_grad, forward, backward, clip, optimizer
// step) captured into a CUDA graph (cuda/runtime/graph.h) after kGraphWarmupSteps eager steps,
// then replayed: each step copies its batch into the capture's static buffers, sets the lr
// outside the graph, replays, and hands copies of the static loss and gradient norm to the
// pending list, so logging reads them as it reads eager steps'.
#include <limits>
#include <optional>

#include "harmonic/core/storage.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/optim/clip.h"
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

}  // namespace

std::optional<Trainer::PendingStep> Trainer::graph_step(const data::Batch& batch, int64_t batch_index, int world,
                                                        int64_t group) {
  if (options_.cuda_graph == "off" || !graph_fallback_.empty()) return std::nullopt;
  const bool required = options_.cuda_graph == "on";
  auto give_up = [&](const std::string& why) -> std::optional<PendingStep> {
    graph_.reset();
    if (required)
      throw_error("Trainer", fmt::format("trainer.cuda_graph=on: task '{}' cannot run its step as a CUDA graph: {} "
                                         "(trainer.cuda_graph=auto runs it eagerly instead)",
                                         task_name_, why));
    graph_fallback_ = why;
    if (log) {
      end_progress_line();
      fmt::print(log, "trainer.cuda_graph=auto: eager steps from step {}: {}\n", step_ + 1, why);
    }
    return std::nullopt;
  };
  if (!device_.is_cuda()) return give_up(fmt::format("the model is on {}, not a CUDA device", device_));
  if (world > 1) return give_up("data-parallel runs are not captured yet");
  if (options_.accumulate > 1) return give_up("trainer.accumulate > 1 is not captured yet");
  if (group != 1) return std::nullopt;
  if (!graph_) {
    if (session_steps_ < kGraphWarmupSteps) return std::nullopt;
    // Step counters and lrs in device tensors, so a replayed step advances them.
    if (!task_.optimizer().capturable()) task_.optimizer().set_capturable(true);
    try {
      capture_step(batch, batch_index);
    } catch (const Error& e) {
      return give_up(fmt::format("capturing the step failed: {}", e.what()));
    }
  } else {
    // A batch of another shape (the short last batch of an epoch) runs eagerly.
    if (!trainer_graph_fill(graph_->input, batch.input) || !trainer_graph_fill(graph_->target, batch.target))
      return std::nullopt;
  }
  apply_lr(step_);  // outside the graph: the capturable optimizer writes its lr tensors
  {
    std::optional<cuda::DeferredChecks> deferred;  // the emulated device's twins check at replay
    deferred.emplace(fmt::format("training step {} (epoch {}, batch {}; CUDA graph replay)", step_ + 1, epoch_ + 1,
                                 batch_index + 1));
    graph_->graph.replay();
  }
  ++graph_replays_;
  PendingStep p;
  p.loss = graph_->loss.clone();
  if (graph_->grad_norm.defined()) p.grad_norm = graph_->grad_norm.clone();
  p.first_batch = batch_index;
  StepRecord& r = p.record;
  r.items = batch.input.dim() > 0 ? batch.input.size(0) : 1;
  r.lr = task_.optimizer().lr(0);
  r.epoch = epoch_ + 1;
  r.step = step_ + 1;
  return p;
}

void Trainer::capture_step(const data::Batch& batch, int64_t batch_index) {
  auto g = std::make_unique<StepGraph>();
  g->input = batch.input.to(device_);  // the static buffers: allocated before the capture, kept by the trainer
  if (batch.target.defined()) g->target = batch.target.to(device_);
  optim::Optimizer& opt = task_.optimizer();
  nn::Module& model = task_.model();
  cuda::DeferredChecks deferred(
      fmt::format("training step {} (epoch {}, batch {}; CUDA graph capture)", step_ + 1, epoch_ + 1, batch_index + 1));
  apply_lr(step_);
  g->graph.begin_capture(device_.index);
  try {
    model.zero_grad();
    opt.zero_grad();
    std::optional<AutocastGuard> autocast;
    if (options_.precision == "bf16") autocast.emplace(DType::BFloat16);
    Tensor loss = task_.loss({g->input, g->target});
    HM_CHECK(loss.numel() == 1, "Trainer", "task '{}' returned a loss of shape {}, expected a scalar", task_name_,
             str(loss.shape()));
    g->loss = loss.detach().reshape({}).to(DType::Float64);
    autocast.reset();
    loss.backward();
    loss = Tensor();
    if (options_.clip_grad_norm > 0)
      g->grad_norm = optim::clip_grad_norm_on_device_(params_, options_.clip_grad_norm);
    else if (measure_grad_norm)
      g->grad_norm = optim::clip_grad_norm_on_device_(params_, std::numeric_limits<double>::infinity());
    opt.step();
    g->graph.end_capture();
  } catch (...) {
    g->graph.abort_capture();
    throw;
  }
  graph_ = std::move(g);
}

}  // namespace hm::train
