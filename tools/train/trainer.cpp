// The training loop, its progress output, metrics file, checkpoints and Ctrl-C handling.
#include "tools/train/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "autograd/grad_mode.h"
#include "core/atomic_file.h"
#include "optim/clip.h"
#include "optim/schedule.h"

namespace hm::train {
namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_sigint(int) {
  g_stop = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

// Batches first_batch.. of `epoch` (skipping consumed ones without building them).
data::Epoch epoch_from(const data::DataLoader& loader, int64_t epoch, int64_t first_batch) {
  std::vector<int64_t> order = loader.order(epoch);
  const int64_t b = loader.options().batch_size;
  order.erase(order.begin(), order.begin() + std::min<int64_t>(first_batch * b, std::ssize(order)));
  auto dataset = std::shared_ptr<const data::Dataset>(&loader.dataset(), [](const data::Dataset*) {});
  return data::Epoch(dataset, std::move(order), b, loader.num_batches() - first_batch, loader.options().prefetch);
}

Device model_device(const nn::Module& model) {
  for (const auto& [name, t] : model.state_dict()) return t.device();
  return Device::cpu();
}

}  // namespace

SigintScope::SigintScope() { previous_ = std::signal(SIGINT, on_sigint); }
SigintScope::~SigintScope() { std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_); }

void request_stop() { g_stop = 1; }
bool stop_requested() { return g_stop != 0; }
void clear_stop() { g_stop = 0; }

// -- options ----------------------------------------------------------------------------------

Json TrainerOptions::to_json() const {
  return {{"steps", steps},
          {"epochs", epochs},
          {"log_every", log_every},
          {"eval_every", eval_every},
          {"checkpoint_every", checkpoint_every},
          {"keep_checkpoints", keep_checkpoints},
          {"clip_grad_norm", clip_grad_norm},
          {"lr_schedule", lr_schedule},
          {"warmup_steps", warmup_steps},
          {"end_lr_factor", end_lr_factor}};
}

TrainerOptions TrainerOptions::from_json(const Json& j) {
  TrainerOptions o;
  try {
    o.steps = j.at("steps").get<int64_t>();
    o.epochs = j.at("epochs").get<int64_t>();
    o.log_every = j.at("log_every").get<int64_t>();
    o.eval_every = j.at("eval_every").get<int64_t>();
    o.checkpoint_every = j.at("checkpoint_every").get<int64_t>();
    o.keep_checkpoints = j.at("keep_checkpoints").get<bool>();
    o.clip_grad_norm = j.at("clip_grad_norm").get<double>();
    o.lr_schedule = j.at("lr_schedule").get<std::string>();
    o.warmup_steps = j.at("warmup_steps").get<int64_t>();
    o.end_lr_factor = j.at("end_lr_factor").get<double>();
  } catch (const Json::exception& e) {
    throw_error("Trainer", fmt::format("bad trainer section {}: {}", j.dump(), e.what()));
  }
  check(o.steps >= 0 && o.epochs >= 0 && o.warmup_steps >= 0, "Trainer",
        "trainer.steps, trainer.epochs and trainer.warmup_steps must be >= 0");
  check(o.log_every >= 1, "Trainer", "trainer.log_every must be >= 1, got {}", o.log_every);
  check(o.eval_every >= 0 && o.checkpoint_every >= 0, "Trainer", "eval_every/checkpoint_every must be >= 0");
  check(o.clip_grad_norm >= 0, "Trainer", "trainer.clip_grad_norm must be >= 0, got {}", o.clip_grad_norm);
  check(o.lr_schedule == "constant" || o.lr_schedule == "cosine" || o.lr_schedule == "linear", "Trainer",
        "trainer.lr_schedule '{}' is not one of constant, cosine, linear", o.lr_schedule);
  return o;
}

std::unique_ptr<Task> build_task(const TaskSpec& spec, const Json& config, Device device) {
  check(config.contains("seed") && config["seed"].is_number_integer(), "build_task",
        "task '{}': the config has no integer 'seed'", spec.name);
  manual_seed(config["seed"].get<uint64_t>());
  return spec.make(config, device);
}

// -- the trainer ------------------------------------------------------------------------------

Trainer::Trainer(Task& task, std::string task_name, Json config, std::string out_dir)
    : task_(task), task_name_(std::move(task_name)), config_(std::move(config)), out_dir_(std::move(out_dir)) {
  check(config_.contains("trainer"), "Trainer", "the config has no 'trainer' section");
  options_ = TrainerOptions::from_json(config_["trainer"]);
  tty = log && ::isatty(::fileno(log));
}

int64_t Trainer::total_steps() const {
  return options_.steps > 0 ? options_.steps : options_.epochs * task_.train_loader().num_batches();
}

std::string Trainer::checkpoint_path() const { return out_dir_ + "/checkpoint_last.safetensors"; }

void Trainer::save_checkpoint(const std::string& path) const {
  optim::CheckpointInfo info;
  info.step = step_;
  info.epoch = epoch_;
  info.config = config_;
  info.extra = {{"task", task_name_},
                {"batch_in_epoch", batch_},
                {"elapsed", elapsed_before_ + (session_start_ > 0 ? now_seconds() - session_start_ : 0.0)},
                {"loss_sum", loss_sum_},
                {"grad_norm_sum", grad_norm_sum_},
                {"log_count", log_count_}};
  optim::save_checkpoint(path, {&task_.model(), &task_.optimizer(), task_.generators()}, info);
}

void Trainer::resume(const std::string& path) {
  optim::CheckpointInfo info = optim::load_checkpoint(path, {&task_.model(), &task_.optimizer(), task_.generators()});
  const Json& x = info.extra;
  check(x.is_object() && x.value("task", "") == task_name_, "Trainer::resume",
        "'{}' is a checkpoint of task '{}', not '{}'", path, x.is_object() ? x.value("task", "?") : "?", task_name_);
  step_ = info.step;
  epoch_ = info.epoch;
  batch_ = x.at("batch_in_epoch").get<int64_t>();
  elapsed_before_ = x.at("elapsed").get<double>();
  loss_sum_ = x.at("loss_sum").get<double>();
  grad_norm_sum_ = x.at("grad_norm_sum").get<double>();
  log_count_ = x.at("log_count").get<int64_t>();
  check(batch_ >= 0 && batch_ < task_.train_loader().num_batches(), "Trainer::resume",
        "'{}': batch {} of epoch {} is outside the loader's {} batches (did the batch size change?)", path, batch_,
        epoch_, task_.train_loader().num_batches());
  // Drop metrics the interrupted run wrote after this checkpoint.
  if (out_dir_.empty()) return;
  const std::string metrics = out_dir_ + "/metrics.jsonl";
  std::ifstream in(metrics);
  std::string kept, line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      if (Json::parse(line).value("step", int64_t{0}) > step_) continue;
    } catch (const Json::exception&) {
      continue;  // a torn last line of a killed run
    }
    kept += line + "\n";
  }
  write_file_atomic(metrics, kept);
}

Json Trainer::evaluate() {
  NoGradGuard no_grad;
  nn::Module& model = task_.model();
  model.eval();
  Json metrics = task_.evaluate();
  model.train();
  check(metrics.is_object(), "Trainer::evaluate", "task '{}' returned {} instead of a JSON object", task_name_,
        metrics.dump());
  return metrics;
}

StepRecord Trainer::train_step(const data::Batch& batch) {
  nn::Module& model = task_.model();
  optim::Optimizer& opt = task_.optimizer();
  const Device device = device_;
  data::Batch b{batch.input.to(device), batch.target.defined() ? batch.target.to(device) : Tensor()};

  model.zero_grad();
  opt.zero_grad();
  Tensor loss = task_.loss(b);
  HM_CHECK(loss.numel() == 1, "Trainer", "task '{}' returned a loss of shape {}, expected a scalar", task_name_,
           str(loss.shape()));
  StepRecord r;
  r.loss = loss.item<double>();
  check(std::isfinite(r.loss), "Trainer", "task '{}': the loss is {} at step {} (epoch {}, batch {})", task_name_,
        r.loss, step_ + 1, epoch_, batch_);
  loss.backward();
  if (options_.clip_grad_norm > 0)
    r.grad_norm = optim::clip_grad_norm_(model.parameters(), options_.clip_grad_norm);
  else if (measure_grad_norm)
    r.grad_norm = optim::clip_grad_norm_(model.parameters(), std::numeric_limits<double>::infinity());
  opt.step();
  r.epoch = epoch_;
  r.step = step_ + 1;
  return r;
}

FitResult Trainer::fit() {
  const double t0 = now_seconds();
  session_start_ = t0;
  if (handle_sigint) clear_stop();
  device_ = model_device(task_.model());
  session_steps_ = session_items_ = 0;
  const data::DataLoader& loader = task_.train_loader();
  const int64_t nb = loader.num_batches();
  check(nb > 0, "Trainer::fit", "task '{}': the training loader has no batches", task_name_);
  const int64_t total = total_steps();

  // The lr schedule, relative to each group's initial lr (a pure function of the step).
  optim::Optimizer& opt = task_.optimizer();
  const double base = opt.group(0).initial_lr;
  const int64_t decay_steps = std::max<int64_t>(1, total - options_.warmup_steps);
  const double end_lr = base * options_.end_lr_factor;
  optim::Schedule schedule = options_.lr_schedule == "cosine"   ? optim::cosine_decay(base, decay_steps, end_lr)
                             : options_.lr_schedule == "linear" ? optim::linear_decay(base, decay_steps, end_lr)
                                                                : optim::constant_lr(base);
  if (options_.warmup_steps > 0) schedule = optim::with_warmup(schedule, options_.warmup_steps);
  optim::LRScheduler scheduler(opt, schedule);

  if (!out_dir_.empty()) {
    std::filesystem::create_directories(out_dir_);
    write_file_atomic(out_dir_ + "/config.json", config_.dump(2) + "\n");
    if (step_ == 0) write_file_atomic(out_dir_ + "/metrics.jsonl", "");  // a fresh run starts a fresh file
  }
  if (log)
    fmt::print(log, "{} {}: {} steps ({} batches per epoch){}\n", step_ > 0 ? "resuming" : "training", task_name_,
               total, nb, step_ > 0 ? fmt::format(", from step {} (epoch {}, batch {})", step_, epoch_, batch_) : "");

  FitResult result;
  std::optional<SigintScope> sigint;
  if (handle_sigint) sigint.emplace();
  int64_t last_checkpoint = -1;
  task_.model().train();
  while (step_ < total && !stop_requested()) {
    data::Epoch epoch = epoch_from(loader, epoch_, batch_);
    for (data::Batch& batch : epoch) {
      scheduler.apply(step_);
      StepRecord r = train_step(batch);
      r.lr = opt.lr(0);
      ++step_, ++session_steps_;
      if (++batch_ == nb) ++epoch_, batch_ = 0;  // the position of the next batch, saved by checkpoints
      session_items_ += batch.input.dim() > 0 ? batch.input.size(0) : 1;
      loss_sum_ += r.loss, grad_norm_sum_ += r.grad_norm, ++log_count_;
      if (on_step) on_step(r);

      const bool done = step_ >= total;
      const bool log_now = step_ % options_.log_every == 0 || done;
      const bool eval_now = (options_.eval_every > 0 && step_ % options_.eval_every == 0) || done;
      nlohmann::ordered_json record;
      if (log_now) {
        const double n = static_cast<double>(log_count_);
        record = {{"step", step_},
                  {"epoch", r.epoch},
                  {"loss", loss_sum_ / n},
                  {"lr", r.lr},
                  {"grad_norm", grad_norm_sum_ / n}};
        loss_sum_ = grad_norm_sum_ = 0, log_count_ = 0;
        progress(r, record["loss"].get<double>());
      }
      if (eval_now) {
        result.eval = evaluate();
        if (record.empty()) record = {{"step", step_}, {"epoch", r.epoch}};
        for (const auto& [k, v] : result.eval.items()) record[k] = v;
        if (log) {
          std::string line;
          for (const auto& [k, v] : result.eval.items())
            line += fmt::format("  {} {}", k, v.is_number_float() ? fmt::format("{:.4f}", v.get<double>()) : v.dump());
          end_progress_line();
          fmt::print(log, "eval at step {}:{}\n", step_, line);
        }
      }
      if (!record.empty()) write_metrics(record);
      if (options_.checkpoint_every > 0 && step_ % options_.checkpoint_every == 0 && !out_dir_.empty()) {
        save_checkpoint(checkpoint_path());
        if (options_.keep_checkpoints)
          save_checkpoint(fmt::format("{}/checkpoint_step{}.safetensors", out_dir_, step_));
        last_checkpoint = step_;
      }
      if (done || stop_requested()) break;
    }
  }
  result.interrupted = stop_requested() && step_ < total;
  result.step = step_;
  if (!out_dir_.empty() && last_checkpoint != step_) {
    save_checkpoint(checkpoint_path());
    if (options_.keep_checkpoints) save_checkpoint(fmt::format("{}/checkpoint_step{}.safetensors", out_dir_, step_));
  }
  result.seconds = now_seconds() - t0;
  if (log) {
    end_progress_line();
    if (result.interrupted)
      fmt::print(
          log, "interrupted at step {}/{}{}\n", step_, total,
          out_dir_.empty() ? "" : fmt::format(": checkpoint saved to {}; continue with --resume", checkpoint_path()));
    else
      fmt::print(log, "done: {} steps in {:.1f} s{}\n", session_steps_, result.seconds,
                 out_dir_.empty() ? "" : fmt::format(", checkpoint {}", checkpoint_path()));
  }
  if (handle_sigint) clear_stop();
  elapsed_before_ += result.seconds;
  session_start_ = 0;
  return result;
}

void Trainer::end_progress_line() {
  if (log && line_open_) fmt::print(log, "\n");
  line_open_ = false;
}

void Trainer::write_metrics(const nlohmann::ordered_json& record) {
  if (out_dir_.empty()) return;
  nlohmann::ordered_json line = record;
  const double session = now_seconds() - session_start_;
  line["time"] = elapsed_before_ + session;
  line["items_per_s"] = session > 0 ? static_cast<double>(session_items_) / session : 0.0;
  std::ofstream out(out_dir_ + "/metrics.jsonl", std::ios::app);
  out << line.dump() << "\n";
  check(out.good(), "Trainer", "cannot append to {}/metrics.jsonl", out_dir_);
}

void Trainer::progress(const StepRecord& r, double mean_loss) {
  if (!log) return;
  const double session = now_seconds() - session_start_;
  const double items_per_s = session > 0 ? static_cast<double>(session_items_) / session : 0.0;
  const double eta = session_steps_ > 0 ? (total_steps() - step_) * session / static_cast<double>(session_steps_) : 0;
  std::string line = fmt::format("step {}/{} | epoch {} | loss {:.4f} | lr {:.3g} | {:.0f} items/s | ETA {}", r.step,
                                 total_steps(), r.epoch, mean_loss, r.lr, items_per_s, format_duration(eta));
  if (tty)
    fmt::print(log, "\r{}\x1b[K", line);  // rewritten in place
  else
    fmt::print(log, "{}\n", line);
  line_open_ = tty;
  std::fflush(log);
}

}  // namespace hm::train
