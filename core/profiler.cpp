// The op-level profiler (see core/profiler.h).
#include "harmonic/core/profiler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace hm {
namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct PendingRange {
  int row;
  void *start, *end;
};

struct State {
  std::mutex mutex;
  std::vector<ProfileRow> kernels, phases;
  std::map<std::pair<std::string, std::string>, int> kernel_rows;
  std::map<std::string, int> phase_rows;
  std::vector<PendingRange> pending;
  double start_ms = 0;
  bool device_events = false;
};

State& state() {
  static State* s = new State;  // leaked: ranges may end during static destruction
  return *s;
}

thread_local int kernel_depth = 0;
// The thread that started the Profiler. Kernels called on other threads (a data loader's
// prefetch thread gathering the next batch) run beside its kernels: summed with them they
// would exceed the wall time (shares above 100%), so they are left out; the wait for them
// shows as the trainer's "data" phase.
std::atomic<std::thread::id> profiled_thread;

int row_of(std::vector<ProfileRow>& rows, std::map<std::pair<std::string, std::string>, int>& index,
           std::string_view name, const std::string& device) {
  auto [it, added] = index.try_emplace({std::string(name), device}, static_cast<int>(rows.size()));
  if (added) rows.push_back({std::string(name), device, 0, 0.0});
  return it->second;
}

void release_pending(State& s) {
  if (profiler::device_clock.release)
    for (const PendingRange& p : s.pending) profiler::device_clock.release(p.start), profiler::device_clock.release(p.end);
  s.pending.clear();
}

}  // namespace

namespace profiler {

KernelRange::KernelRange(std::string_view name, Device device) {
  if (kernel_depth++ > 0 || std::this_thread::get_id() != profiled_thread.load(std::memory_order_relaxed)) return;
  State& s = state();
  {
    std::lock_guard lock(s.mutex);
    slot_ = row_of(s.kernels, s.kernel_rows, name, device.str());
  }
  device_ = device.index;
  if (device.is_cuda() && device_clock.record) start_event_ = device_clock.record(device.index);
  if (!start_event_) start_ms_ = now_ms();
}

KernelRange::~KernelRange() {
  --kernel_depth;
  if (slot_ < 0) return;
  State& s = state();
  if (start_event_) {
    void* end = device_clock.record(device_);
    std::lock_guard lock(s.mutex);
    ++s.kernels[slot_].calls;
    s.pending.push_back({slot_, start_event_, end});
    s.device_events = true;
    return;
  }
  const double ms = now_ms() - start_ms_;
  std::lock_guard lock(s.mutex);
  ++s.kernels[slot_].calls;
  s.kernels[slot_].total_ms += ms;
}

}  // namespace profiler

Profiler::Profiler() {
  check(!profiler::active.load(), "Profiler", "a Profiler is already recording (one at a time)");
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.kernels.clear(), s.phases.clear(), s.kernel_rows.clear(), s.phase_rows.clear();
  release_pending(s);
  s.device_events = false;
  s.start_ms = now_ms();
  profiled_thread.store(std::this_thread::get_id());
  profiler::active.store(true);
}

Profiler::~Profiler() {
  if (stopped_) return;
  profiler::active.store(false);
  State& s = state();
  std::lock_guard lock(s.mutex);
  release_pending(s);
}

ProfileReport Profiler::report() {
  check(!stopped_, "Profiler::report", "the report was already taken");
  stopped_ = true;
  profiler::active.store(false);
  State& s = state();
  std::lock_guard lock(s.mutex);
  ProfileReport r;
  r.wall_ms = now_ms() - s.start_ms;
  for (const PendingRange& p : s.pending) s.kernels[p.row].total_ms += profiler::device_clock.elapsed_ms(p.start, p.end);
  release_pending(s);
  r.device_time = s.device_events ? "CUDA events (device time)" : "wall time";
  r.kernels = s.kernels;
  std::stable_sort(r.kernels.begin(), r.kernels.end(),
                   [](const ProfileRow& a, const ProfileRow& b) { return a.total_ms > b.total_ms; });
  r.phases = s.phases;
  return r;
}

ProfilePhase::ProfilePhase(std::string_view name) {
  if (!profiler::active.load(std::memory_order_relaxed) ||
      std::this_thread::get_id() != profiled_thread.load(std::memory_order_relaxed))
    return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto [it, added] = s.phase_rows.try_emplace(std::string(name), static_cast<int>(s.phases.size()));
  if (added) s.phases.push_back({std::string(name), "host", 0, 0.0});
  slot_ = it->second;
  start_ = now_ms();
}

ProfilePhase::~ProfilePhase() {
  if (slot_ < 0) return;
  const double ms = now_ms() - start_;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (slot_ >= static_cast<int>(s.phases.size())) return;  // a new Profiler started meanwhile
  ++s.phases[slot_].calls;
  s.phases[slot_].total_ms += ms;
}

std::string format_profile(const ProfileReport& r, size_t max_kernels) {
  const double wall = std::max(r.wall_ms, 1e-9);
  auto line = [&](const ProfileRow& row) {
    if (row.calls == 0)  // a total
      return fmt::format("  {:<38} {:<7} {:>8} {:>12.3f} {:>11} {:>7.1f}%\n", row.name, row.device, "", row.total_ms, "",
                         100.0 * row.total_ms / wall);
    return fmt::format("  {:<38} {:<7} {:>8} {:>12.3f} {:>11.4f} {:>7.1f}%\n", row.name, row.device, row.calls,
                       row.total_ms, row.mean_ms(), 100.0 * row.total_ms / wall);
  };
  std::string out = fmt::format("profile: {:.1f} ms of wall time{}; kernel time by {}\n", r.wall_ms,
                                r.steps > 0 ? fmt::format(" over {} steps ({:.2f} ms/step)", r.steps, r.wall_ms / r.steps) : "",
                                r.device_time);
  out += fmt::format("  {:<38} {:<7} {:>8} {:>12} {:>11} {:>8}\n", "kernel", "device", "calls", "total ms", "mean ms",
                     "share");
  double kernel_total = 0;
  for (const ProfileRow& row : r.kernels) kernel_total += row.total_ms;
  for (size_t i = 0; i < r.kernels.size() && i < max_kernels; ++i) out += line(r.kernels[i]);
  if (r.kernels.size() > max_kernels) {
    ProfileRow rest{fmt::format("({} more kernels)", r.kernels.size() - max_kernels), "", 0, 0.0};
    for (size_t i = max_kernels; i < r.kernels.size(); ++i)
      rest.calls += r.kernels[i].calls, rest.total_ms += r.kernels[i].total_ms;
    out += line(rest);
  }
  out += line({"all kernels", "", 0, kernel_total});
  if (!r.phases.empty()) {
    out += fmt::format("  {:<38} {:<7} {:>8} {:>12} {:>11} {:>8}\n", "phase (host wall time)", "", "calls", "total ms",
                       "mean ms", "share");
    for (const ProfileRow& row : r.phases) out += line(row);
  }
  return out;
}

nlohmann::json profile_json(const ProfileReport& r) {
  auto rows = [](const std::vector<ProfileRow>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const ProfileRow& row : v)
      a.push_back({{"name", row.name}, {"device", row.device}, {"calls", row.calls}, {"total_ms", row.total_ms},
                   {"mean_ms", row.mean_ms()}});
    return a;
  };
  return {{"wall_ms", r.wall_ms}, {"steps", r.steps}, {"device_time", r.device_time},
          {"kernels", rows(r.kernels)}, {"phases", rows(r.phases)}};
}

}  // namespace hm
