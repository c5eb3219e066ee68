// A thread that watches the collectives in flight and calls `on_timeout` once with a message
// naming the rank, the collective and its age when one has run longer than the timeout. The
// MPI and NCCL backends abort the job from there, so a dead or raising peer never leaves the
// other ranks waiting forever.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace hm::dist {

class CollectiveWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  // timeout_seconds <= 0: never fires.
  CollectiveWatchdog(int rank, double timeout_seconds, std::function<void(const std::string&)> on_timeout);
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog&) = delete;
  CollectiveWatchdog& operator=(const CollectiveWatchdog&) = delete;

  void set_timeout(double seconds);

  // Marks one collective as in flight for its lifetime.
  class Scope {
   public:
    Scope(CollectiveWatchdog& dog, std::string what);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CollectiveWatchdog& dog_;
    uint64_t id_;
  };

 private:
  struct InFlight {
    std::string what;
    Clock::time_point start;
  };
  void loop();

  const int rank_;
  std::function<void(const std::string&)> on_timeout_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<uint64_t, InFlight> in_flight_;
  uint64_t next_id_ = 0;
  double timeout_ = 0;
  bool stop_ = false, fired_ = false;
  std::thread thread_;
};

}  // namespace hm::dist
