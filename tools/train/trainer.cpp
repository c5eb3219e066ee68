// The training loop: micro-batches, optimizer steps, evaluation, checkpoints, Ctrl-C.
#include "harmonic/tools/train/trainer.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/atomic_file.h"
#include "harmonic/core/factories.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/data/shard.h"
#include "harmonic/nn/distributed/data_parallel.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/clip.h"
#include "harmonic/optim/schedule.h"
#include "harmonic/tools/train/tensorboard.h"
#include "harmonic/tools/train/trainer_internal.h"

namespace hm::train {
namespace {

volatile std::sig_atomic_t g_stop = 0;
std::atomic<int64_t> g_first_sigint_ns{0};  // when the pending stop was asked (lock-free: safe in a handler)
static_assert(std::atomic<int64_t>::is_always_lock_free);

int64_t monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The first Ctrl-C asks for a stop; a second one, a moment later, ends the process as Ctrl-C
// would. One keypress can arrive twice: `timeout -s INT` signals the child and then its whole
// process group, so a repeat within half a second is the same request, not a second Ctrl-C.
extern "C" void on_sigint(int) {
  const int64_t now = monotonic_ns();
  if (!g_stop) {
    g_first_sigint_ns = now;
    g_stop = 1;
  } else if (now - g_first_sigint_ns.load() > 500'000'000) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);  // blocked while this handler runs; delivered, and fatal, when it returns
  }
}

// Batches first_batch.. of `epoch` (skipping consumed ones without building them); in a group of
// several ranks, this rank's shard of each.
data::Epoch epoch_from(const data::DataLoader& loader, int64_t epoch, int64_t first_batch, int rank, int world) {
  std::vector<int64_t> order = loader.order(epoch);
  const int64_t b = loader.options().batch_size;
  if (world > 1) {
    std::vector<std::vector<int64_t>> shards = data::shard_batches(order, b, loader.num_batches(), rank, world);
    shards.erase(shards.begin(), shards.begin() + first_batch);
    auto dataset = std::shared_ptr<const data::Dataset>(&loader.dataset(), [](const data::Dataset*) {});
    return data::Epoch(dataset, std::move(shards), loader.options().prefetch);
  }
  order.erase(order.begin(), order.begin() + std::min<int64_t>(first_batch * b, std::ssize(order)));
  auto dataset = std::shared_ptr<const data::Dataset>(&loader.dataset(), [](const data::Dataset*) {});
  return data::Epoch(dataset, std::move(order), b, loader.num_batches() - first_batch, loader.options().prefetch);
}

// The trainer's lr schedule (a pure function of the step) relative to `base`.
optim::Schedule make_schedule(const TrainerOptions& o, double base, int64_t total) {
  const int64_t decay_steps = std::max<int64_t>(1, total - o.warmup_steps);
  const double end_lr = base * o.end_lr_factor;
  optim::Schedule s = o.lr_schedule == "cosine"      ? optim::cosine_decay(base, decay_steps, end_lr)
                      : o.lr_schedule == "linear"    ? optim::linear_decay(base, decay_steps, end_lr)
                      : o.lr_schedule == "staircase" ? optim::step_decay(base, o.lr_decay, o.lr_decay_every)
                                                     : optim::constant_lr(base);
  if (o.warmup_steps > 0) s = optim::with_warmup(s, o.warmup_steps);
  return s;
}

}  // namespace

SigintScope::SigintScope() { previous_ = std::signal(SIGINT, on_sigint); }
SigintScope::~SigintScope() { std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_); }

void request_stop() {
  g_first_sigint_ns = monotonic_ns();
  g_stop = 1;
}
bool stop_requested() { return g_stop != 0; }
void clear_stop() { g_stop = 0; }

Trainer::Trainer(Task& task, std::string task_name, Json config, std::string out_dir)
    : task_(task), task_name_(std::move(task_name)), config_(std::move(config)), out_dir_(std::move(out_dir)) {
  check(config_.contains("trainer"), "Trainer", "the config has no 'trainer' section");
  options_ = TrainerOptions::from_json(config_["trainer"]);
  device_ = task_.model().device();
  tty = log && ::isatty(::fileno(log));
}

int64_t Trainer::steps_per_epoch() const {
  return (task_.train_loader().num_batches() + options_.accumulate - 1) / options_.accumulate;
}

int64_t Trainer::total_steps() const {
  return options_.steps > 0 ? options_.steps : options_.epochs * steps_per_epoch();
}

void Trainer::apply_lr(int64_t step) {
  // Every group at initial_lr * lr_scale * schedule(step) / schedule.lr, as LRScheduler does.
  optim::Optimizer& opt = task_.optimizer();
  const double base = schedule_.lr;
  const double lr = schedule_.lr_at(step);
  for (int64_t g = 0; g < opt.num_groups(); ++g) {
    const double initial = opt.group(g).initial_lr * lr_scale_;
    opt.set_lr(g, initial == base ? lr : initial * (lr / base));
  }
}

Trainer::~Trainer() = default;

Tensor Trainer::micro_step(const data::Batch& batch, int64_t batch_index, int64_t group, int world) {
  if (!batch.input.defined()) return Tensor();  // a rank may get no example of a short last batch
  // With several ranks, this rank's mean loss weighs local/global of the batch: scaled by
  // world * local / global, the average over ranks of the gradients is the gradient of the
  // global mean.
  const double weight = world > 1 ? static_cast<double>(world * batch.input.size(0)) /
                                        static_cast<double>(global_batch_items(batch_index))
                                  : 1.0;
  // Inside a capture (trainer_graph.cpp) the capture's own deferred checks hold the step's, and
  // nothing is read on the host.
  const bool capturing = device_.is_cuda() && cuda::capturing(device_.index);
  // On CUDA the step's index checks (embedding, the loss's targets) report where the loss is read
  // (HARMONIC_DEFER_INDEX_CHECKS=0: at each op instead).
  std::optional<cuda::DeferredChecks> deferred;
  if (device_.is_cuda() && !capturing)
    deferred.emplace(fmt::format("training step {} (epoch {}, batch {})", step_ + 1, epoch_ + 1, batch_index + 1));
  data::Batch b;
  {
    ProfilePhase phase("to device");
    b = {batch.input.to(device_), batch.target.defined() ? batch.target.to(device_) : Tensor()};
  }
  std::optional<AutocastGuard> autocast;
  if (const auto products = autocast_for_precision(options_.precision, "Trainer"))
    autocast.emplace(DType::BFloat16, *products);
  Tensor loss;
  {
    ProfilePhase phase("forward");
    loss = task_.loss(b);
  }
  HM_CHECK(loss.numel() == 1, "Trainer", "task '{}' returned a loss of shape {}, expected a scalar", task_name_,
           str(loss.shape()));
  Tensor value = loss.detach().reshape({}).to(DType::Float64);
  if (read_each_step_ && !capturing) {
    ProfilePhase phase("loss to host (sync)");
    const double v = value.item<double>();
    if (!std::isfinite(v))
      throw NonFiniteLoss(fmt::format("[Trainer] task '{}': the loss is {} at step {} (epoch {}, batch {})", task_name_,
                                      v, step_ + 1, epoch_ + 1, batch_index + 1),
                          step_ + 1, v);
    value = scalar_tensor(v, {.dtype = DType::Float64});
  }
  {
    ProfilePhase phase("backward");
    const double scale = weight / static_cast<double>(group);
    if (scale != 1.0) loss = mul(loss, scale);
    loss.backward();
  }
  const auto g = static_cast<double>(group);
  return world > 1 ? div(div(mul(value, weight), world), g) : div(value, g);
}

int64_t Trainer::global_batch_items(int64_t batch_index) const {
  const data::DataLoader& loader = task_.train_loader();
  const int64_t b = loader.options().batch_size;
  return std::min(b, loader.dataset().size() - batch_index * b);
}

// Fault injection for the data-parallel tests: HARMONIC_TEST_RAISE_AT=RANK:STEP makes that
// rank raise when it starts that (1-based) step.
static void maybe_injected_fault(const dist::ProcessGroup& group, int64_t step) {
  static const char* spec = std::getenv("HARMONIC_TEST_RAISE_AT");
  if (!spec) return;
  int rank = -1;
  long long at = -1;
  if (std::sscanf(spec, "%d:%lld", &rank, &at) == 2 && rank == group.rank() && at == step)
    throw_error("Trainer", fmt::format("injected fault at step {} (HARMONIC_TEST_RAISE_AT={})", step, spec));
}

Tensor Trainer::update() {
  ProfilePhase phase("clip + optimizer");
  Tensor norm;
  if (options_.clip_grad_norm > 0)
    norm = optim::clip_grad_norm_on_device_(params_, options_.clip_grad_norm);
  else if (measure_grad_norm)
    norm = optim::clip_grad_norm_on_device_(params_, std::numeric_limits<double>::infinity());
  task_.optimizer().step();
  return norm;
}

Trainer::PendingStep Trainer::pending_step(Tensor loss, Tensor grad_norm, int64_t items, int64_t first_batch) const {
  PendingStep p;
  p.loss = std::move(loss);
  p.grad_norm = std::move(grad_norm);
  p.first_batch = first_batch;
  StepRecord& r = p.record;
  r.items = items;
  r.lr = task_.optimizer().lr(0);
  r.epoch = epoch_ + 1;
  r.step = step_ + 1;
  return p;
}

StepRecord Trainer::settle_pending() {
  if (pending_.empty()) return {};
  std::vector<PendingStep> steps = std::move(pending_);
  pending_.clear();
  std::vector<Tensor> losses, norms;
  for (const PendingStep& p : steps) {
    losses.push_back(p.loss);
    if (p.grad_norm.defined()) norms.push_back(p.grad_norm);
  }
  std::vector<double> loss, norm;
  {
    ProfilePhase phase("loss to host (sync)");
    loss = stack(losses).to(Device::cpu()).to_vector();
    if (!norms.empty()) norm = stack(norms).to(Device::cpu()).to_vector();
  }
  size_t k = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    StepRecord& r = steps[i].record;
    r.loss = loss[i];
    if (steps[i].grad_norm.defined()) r.grad_norm = norm[k++];
    if (!std::isfinite(r.loss))
      throw NonFiniteLoss(fmt::format("[Trainer] task '{}': the loss is {} at step {} (epoch {}, batch {}; read at "
                                      "step {}: on {} the loss is read where the trainer logs, evaluates or saves)",
                                      task_name_, r.loss, r.step, r.epoch, steps[i].first_batch + 1, step_, device_),
                          r.step, r.loss);
    loss_sum_ += r.loss, grad_norm_sum_ += r.grad_norm, ++log_count_;
  }
  return steps.back().record;
}

FitResult Trainer::fit() {
  const double t0 = now_seconds();
  session_start_ = t0;
  if (handle_sigint) clear_stop();
  session_steps_ = session_items_ = 0;
  stop_reason_.clear();
  check(options_.precision == "fp32" || device_.is_cuda(), "Trainer",
        "--precision {} needs a CUDA device: the CPU GEMMs have no bf16 kernel (task '{}' is on {})",
        options_.precision, task_name_, device_);
  const data::DataLoader& loader = task_.train_loader();
  const int64_t nb = loader.num_batches(), k = options_.accumulate;
  check(nb > 0, "Trainer::fit", "task '{}': the training loader has no batches", task_name_);
  const int64_t total = total_steps();
  // A run that ends inside its warmup never trains at the set learning rate.
  check(options_.warmup_steps == 0 || options_.warmup_steps < total, "Trainer::fit",
        "task '{}': trainer.warmup_steps={} but the run has {} steps, so it would end inside the warmup; lower "
        "trainer.warmup_steps or raise trainer.steps (or trainer.epochs)",
        task_name_, options_.warmup_steps, total);
  const int64_t session_start_step = step_;
  params_ = task_.model().parameters();
  optim::Optimizer& opt = task_.optimizer();
  schedule_ = make_schedule(options_, opt.group(0).initial_lr * lr_scale_, total);
  nn::Module& model = task_.model();
  // Data parallelism: every rank starts from rank 0's state and averages its gradients.
  const int world = process_group ? process_group->world_size() : 1, rank = process_group ? process_group->rank() : 0;
  std::unique_ptr<dist::DataParallel> ddp = world > 1 ? start_data_parallel() : nullptr;
  // The stop every rank agrees on (Ctrl-C on any rank, exchanged once per step), so all ranks
  // leave the loop after the same step.
  read_each_step_ = device_.is_cpu() || static_cast<bool>(on_step) || world > 1;
  pending_.clear();
  bool agreed_stop = false;
  auto stopping = [&] {
    return (world > 1 ? agreed_stop : stop_requested()) || (session_step_limit > 0 && session_steps_ >= session_step_limit);
  };

  if (!out_dir_.empty()) {
    create_output_directory(out_dir_, "train");
    // A run killed mid-checkpoint leaves checkpoint_last.safetensors.tmp.<pid> behind.
    for (const std::string& name : remove_orphaned_temporaries(out_dir_))
      if (log) fmt::print(log, "removed {}, the temporary of a killed earlier run\n", name);
    write_file_atomic(out_dir_ + "/config.json", config_.dump(2) + "\n");
    if (step_ == 0) write_file_atomic(out_dir_ + "/metrics.jsonl", "");  // a fresh run starts a fresh file
  }
  print_start(total, nb);
  if (log && world > 1)
    fmt::print(log, "data parallel: {} ranks ({}), global batch {} split across them, {} gradient bucket(s){}\n", world,
               process_group->backend(), loader.options().batch_size, ddp->num_buckets(),
               options_.ddp_overlap ? " reduced during backward" : " reduced after backward");

  FitResult result;
  std::optional<SigintScope> sigint;
  if (handle_sigint) sigint.emplace();
  last_checkpoint_step_ = -1;
  last_checkpoint_time_ = now_seconds();
  bool early_stop = false;
  model.train();
  // A rank that raises ends the whole job (naming itself) at once: unwinding would wait on
  // collectives the other ranks never join.
  try {
    while (step_ < total && !stopping() && !early_stop) {
      data::Epoch epoch = epoch_from(loader, epoch_, batch_, rank, world);
      int64_t pos = batch_;  // the next micro-batch's index in the epoch
      int64_t in_group = 0, group = 0, items = 0, first_batch = 0;
      Tensor loss;  // the step's loss: the sum of its micro-batches' shares (micro_step), 0-d float64
      auto add_loss = [&loss](const Tensor& part) {
        if (part.defined()) loss = loss.defined() ? add(loss, part) : part;
      };
      auto begin_eager = [&] {
        apply_lr(step_);
        model.zero_grad();
        opt.zero_grad();
      };
      auto eager_micro_step = [&](const data::Batch& b, int64_t index) {
        const bool sync = world > 1 && index + 1 == first_batch + group;  // the group's last backward all-reduces
        if (sync) ddp->begin_sync();
        add_loss(micro_step(b, index, group, world));
        if (sync) ddp->finish();
      };
      // trainer.cuda_graph: a step due for a replay holds its batches until the last one, then
      // replays the captured step on them (or, failing that, runs them eagerly).
      bool replay_due = false;
      std::vector<data::Batch> held;
      std::optional<ProfilePhase> fetching(std::in_place, "data");  // the loader's next batch
      for (data::Batch& batch : epoch) {
        fetching.reset();
        if (in_group == 0) {
          // A new optimizer step: its group is k batches, or what is left of the epoch.
          profile_before_step(total - session_start_step);
          group = std::min(k, nb - pos);
          loss = Tensor(), items = 0, first_batch = pos;
          if (world > 1) maybe_injected_fault(*process_group, step_ + 1);
          replay_due = graph_due(group);
          if (!replay_due) begin_eager();
        }
        if (world > 1)
          items += global_batch_items(pos);
        else
          items += batch.input.dim() > 0 ? batch.input.size(0) : 1;
        if (replay_due)
          held.push_back(std::move(batch));
        else
          eager_micro_step(batch, pos);
        ++pos;
        if (++in_group < group) {
          fetching.emplace("data");
          continue;
        }
        in_group = 0;
        std::optional<PendingStep> replayed;
        if (replay_due) {
          replayed = graph_step(held, first_batch, world, ddp.get(), items);
          if (!replayed) {
            begin_eager();
            for (int64_t i = 0; i < group; ++i) eager_micro_step(held[static_cast<size_t>(i)], first_batch + i);
          }
          held.clear();
        }
        PendingStep taken;
        if (replayed) {
          taken = std::move(*replayed);
        } else {
          Tensor norm = update();
          taken = pending_step(loss, norm, items, first_batch);
        }
        if (world > 1) agreed_stop = share_across_ranks(taken);
        pending_.push_back(std::move(taken));
        ++step_, ++session_steps_;
        batch_ = pos;
        if (batch_ == nb) ++epoch_, batch_ = 0;  // the position of the next batch, saved by checkpoints
        session_items_ += items;

        StepDue due;
        due.done = step_ >= total;
        due.log = step_ % options_.log_every == 0 || due.done;
        due.eval = (options_.eval_every > 0 && step_ % options_.eval_every == 0) || due.done;
        due.checkpoint =
            (options_.checkpoint_every > 0 && step_ % options_.checkpoint_every == 0) ||
            (options_.checkpoint_seconds > 0 && now_seconds() - last_checkpoint_time_ >= options_.checkpoint_seconds);
        StepRecord r = pending_.back().record;
        // A diverged step is found here, before anything is logged, evaluated or saved after it.
        if (read_each_step_ || due.log || due.eval || due.checkpoint || stopping()) r = settle_pending();
        if (on_step) on_step(r);
        profile_after_step();
        early_stop = record_step(r, due, result);
        if (due.done || early_stop || stopping()) break;
        fetching.emplace("data");
      }
    }
  } catch (const std::exception& e) {
    if (world > 1) dist::abort_job_on_error(e.what());
    throw;
  }
  settle_pending();                 // steps a Ctrl-C or early stop ended after
  if (profiler_) finish_profile();  // the run ended before the profile's last step
  result.interrupted = stopping() && step_ < total && !early_stop;
  result.stopped_early = early_stop;
  result.step = step_;
  result.best = best_, result.best_step = best_step_;
  if (!out_dir_.empty() && last_checkpoint_step_ != step_) {
    save_checkpoint(checkpoint_path());
    if (options_.keep_checkpoints) save_checkpoint(fmt::format("{}/checkpoint_step{}.safetensors", out_dir_, step_));
  }
  result.seconds = now_seconds() - t0;
  if (log) {
    end_progress_line();
    const std::string saved = out_dir_.empty() ? "" : fmt::format(", checkpoint {}", checkpoint_path());
    if (result.interrupted)
      fmt::print(
          log, "interrupted at step {}/{}{}\n", step_, total,
          out_dir_.empty() ? "" : fmt::format(": checkpoint saved to {}; continue with --resume", checkpoint_path()));
    else if (early_stop)
      fmt::print(log, "early stopping at step {}/{}: {}{}\n", step_, total, stop_reason_, saved);
    else
      fmt::print(log, "done: {} steps in {:.1f} s{}\n", session_steps_, result.seconds, saved);
    if (best_step_ > 0 && !out_dir_.empty())
      fmt::print(log, "best {} {:.6g} at step {}: {}\n", options_.monitor, best_, best_step_, best_checkpoint_path());
  }
  if (handle_sigint) clear_stop();
  elapsed_before_ += result.seconds;
  session_start_ = 0;
  return result;
}

void Trainer::profile_before_step(int64_t session_total) {
  if (profile_steps <= 0 || profiler_ || profile_from_ >= 0) return;
  // One warm-up step first when the session has room for it: the first step's allocations
  // and library set-up are not the steady state.
  const int64_t done = session_steps_;
  if (done == 0 && session_total > profile_steps) return;
  if (device_.is_cuda()) cuda::synchronize();  // earlier work stays out of the profile's wall time
  profile_from_ = step_;
  profiler_ = std::make_unique<Profiler>();
}

void Trainer::profile_after_step() {
  if (profiler_ && step_ - profile_from_ >= profile_steps) finish_profile();
}

void Trainer::finish_profile() {
  if (device_.is_cuda()) cuda::synchronize();  // the steps' queued kernels count in the wall time
  last_profile = profiler_->report();
  last_profile.steps = step_ - profile_from_;
  profiler_.reset();
  if (log) {
    end_progress_line();
    fmt::print(log, "{}", format_profile(last_profile));
  }
  if (!out_dir_.empty()) write_file_atomic(out_dir_ + "/profile.json", profile_json(last_profile).dump(2) + "\n");
}

}  // namespace hm::train
