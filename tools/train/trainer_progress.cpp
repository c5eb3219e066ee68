// The trainer's output: the progress line (in place on a terminal), evaluation lines and
// metrics.jsonl.
#include <chrono>
#include <cmath>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/parallel.h"
#include "harmonic/tools/train/tensorboard.h"
#include "harmonic/tools/train/trainer.h"
#include "harmonic/tools/train/trainer_internal.h"

namespace hm::train {

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

namespace {

std::string with_thousands(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  for (; u < 3 && bytes >= 1024; ++u) bytes /= 1024;
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

}  // namespace

std::string run_summary_line(const std::vector<Tensor>& parameters, Device device, bool emulated_cuda,
                             const std::string& precision, int threads) {
  int64_t count = 0, bytes = 0;
  for (const Tensor& p : parameters)
    count += p.numel(), bytes += p.numel() * static_cast<int64_t>(dtype_size(p.dtype()));
  const std::string where =
      device.is_cuda() && emulated_cuda ? fmt::format("{} (emulated: its kernels run on the host, no GPU)", device)
                                        : device.str();
  return fmt::format("model: {} parameter{} ({}) | device {}, {} CPU thread{} | precision {}", with_thousands(count),
                     count == 1 ? "" : "s", bytes_text(static_cast<double>(bytes)), where, threads,
                     threads == 1 ? "" : "s", precision == "bf16"               ? "bf16 autocast (fp32 weights)"
                     : precision == "bf16-activations" ? "bf16 autocast, bf16 activations (fp32 weights)"
                                                       : precision);
}

void Trainer::print_start(int64_t total, int64_t batches_per_epoch) const {
  if (!log) return;
  const int64_t nb = batches_per_epoch, k = options_.accumulate;
  fmt::print(log, "{} {}: {} step{} ({} batch{} per epoch{}){}\n", step_ > 0 ? "resuming" : "training", task_name_,
             total, total == 1 ? "" : "s", nb, nb == 1 ? "" : "es", k > 1 ? fmt::format(", {} per step", k) : "",
             step_ > 0 ? fmt::format(", from step {} (epoch {}, batch {})", step_, epoch_ + 1, batch_ + 1) : "");
  fmt::print(log, "{}\n", run_summary_line(params_, device_, device_.is_cuda() && cuda_emulated(), options_.precision,
                                          get_num_threads()));
}

void Trainer::end_progress_line() {
  if (log && line_open_) fmt::print(log, "\n");
  line_open_ = false;
}

void Trainer::write_metrics(const nlohmann::ordered_json& record) {
  if (!options_.tensorboard.empty()) {
    if (!tensorboard_) {
      tensorboard_ = std::make_unique<TensorBoardWriter>(options_.tensorboard);
      tensorboard_->text(step_, "config", "```\n" + config_.dump(2) + "\n```");  // markdown, as TensorBoard shows text
    }
    std::vector<std::pair<std::string, double>> scalars;
    for (const auto& [k, v] : record.items())
      if (v.is_number() && k != "step" && k != "epoch") scalars.emplace_back(k, v.get<double>());
    tensorboard_->scalars(step_, scalars);
  }
  if (out_dir_.empty()) return;
  nlohmann::ordered_json line = record;
  const double session = now_seconds() - session_start_;
  line["time"] = elapsed_before_ + session;
  if (!line.contains("items_per_s"))  // an evaluation-only line: the rate up to now
    line["items_per_s"] = session > 0 ? static_cast<double>(session_items_) / session : 0.0;
  if (const Task::Throughput t = task_.throughput(); t.unit != "items")
    line[t.unit + "_per_s"] = line["items_per_s"].get<double>() * static_cast<double>(t.per_item);
  append_line(out_dir_ + "/metrics.jsonl", line.dump());
}

void Trainer::progress(const StepRecord& r, double mean_loss) {
  if (!log) return;
  const double session = now_seconds() - session_start_;
  const Task::Throughput unit = task_.throughput();
  const double per_s =
      session > 0 ? static_cast<double>(session_items_) * static_cast<double>(unit.per_item) / session : 0.0;
  const double eta = session_steps_ > 0 ? (total_steps() - step_) * session / static_cast<double>(session_steps_) : 0;
  std::string line = fmt::format("step {}/{} | epoch {} | loss {:.4f} | lr {:.3g} | {:.0f} {}/s | ETA {}", r.step,
                                 total_steps(), r.epoch, mean_loss, r.lr, per_s, unit.unit, format_duration(eta));
  if (tty)
    fmt::print(log, "\r{}\x1b[K", line);  // rewritten in place
  else
    fmt::print(log, "{}\n", line);
  line_open_ = tty;
  std::fflush(log);
}

void Trainer::warn_no_validation() {
  if (warned_no_validation_ || !log) return;
  warned_no_validation_ = true;
  end_progress_line();
  fmt::print(log,
             "warning: trainer.eval_every={} but task '{}' has no validation split, so the evaluations before the "
             "last compute nothing; its test metrics come at the end (trainer.test_metrics=every computes them at "
             "every evaluation)\n",
             options_.eval_every, task_name_);
}

void Trainer::print_eval(const Json& metrics) {
  if (!log) return;
  // Scalars in full; a list or table (a task's example pmfs, hundreds of numbers) by its size: the
  // values are in metrics.jsonl.
  std::string line;
  for (const auto& [k, v] : metrics.items()) {
    std::string shown = v.is_number_float()                     ? fmt::format("{:.4f}", v.get<double>())
                        : v.is_array() && v.dump().size() > 60  ? fmt::format("[{} values]", v.size())
                        : v.is_object() && v.dump().size() > 60 ? fmt::format("{{{} keys}}", v.size())
                                                                : v.dump();
    line += fmt::format("  {} {}", k, shown);
  }
  end_progress_line();
  fmt::print(log, "eval at step {}:{}{}\n", step_, line,
             best_step_ == step_ && !options_.monitor.empty() ? "  (best)" : "");
}

}  // namespace hm::train
