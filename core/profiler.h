// Op-level profiler, like torch.profiler's key_averages: while a Profiler is alive, every
// kernel call (core/dispatch.h) is timed per slot name and device, device time from CUDA
// events on a GPU and wall time on the CPU (and on the emulated device), and named phases
// (ProfilePhase: the trainer's data, forward, backward, optimizer, ...) are timed on the
// host. Kernel calls nested in another kernel call count in the outer one only, and only the
// thread that started the Profiler is timed (a loader's prefetch thread runs beside it), so
// shares of the wall time never sum past 100%.
//
//   hm::Profiler prof;
//   for (...) { hm::ProfilePhase p("forward"); ... }
//   hm::ProfileReport r = prof.report();
//   fmt::print("{}", format_profile(r));
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/core/device.h"
#include "harmonic/core/dispatch.h"

namespace hm {

struct ProfileRow {
  std::string name;
  std::string device;  // "cpu", "cuda:0"; phases: "host"
  int64_t calls = 0;
  double total_ms = 0;
  double mean_ms() const { return calls ? total_ms / static_cast<double>(calls) : 0.0; }
};

struct ProfileReport {
  std::vector<ProfileRow> kernels;  // by total time, largest first
  std::vector<ProfileRow> phases;   // in first-use order
  double wall_ms = 0;               // from the Profiler's start to report()
  int64_t steps = 0;                // set by the caller (shares per step)
  std::string device_time;          // how kernel time was measured ("CUDA events", "wall time")
};

class Profiler {
 public:
  Profiler();  // starts recording; one at a time per process
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;
  // Stops recording, waits for the devices' pending events and returns the tables.
  ProfileReport report();

 private:
  bool stopped_ = false;
};

// Times a named host phase while a Profiler records (free when none does).
class ProfilePhase {
 public:
  explicit ProfilePhase(std::string_view name);
  ~ProfilePhase();
  ProfilePhase(const ProfilePhase&) = delete;
  ProfilePhase& operator=(const ProfilePhase&) = delete;

 private:
  int slot_ = -1;
  double start_ = 0;
};

// The table: kernels then phases, with calls, total and mean ms and the share of wall time.
std::string format_profile(const ProfileReport& r, size_t max_kernels = 30);
nlohmann::json profile_json(const ProfileReport& r);

namespace profiler {
// Device timestamps for kernel ranges, bound by the CUDA library: record() queues an event
// on the device's stream (nullptr: time this range on the host), elapsed_ms() waits for both
// events, release() returns one to the pool.
struct DeviceClock {
  void* (*record)(int device) = nullptr;
  double (*elapsed_ms)(void* start, void* end) = nullptr;
  void (*release)(void* event) = nullptr;
};
inline DeviceClock device_clock;
}  // namespace profiler

}  // namespace hm
