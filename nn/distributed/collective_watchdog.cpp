#include "harmonic/nn/distributed/collective_watchdog.h"

#include <fmt/format.h>

#include <algorithm>

namespace hm::dist {

CollectiveWatchdog::CollectiveWatchdog(int rank, double timeout_seconds,
                                       std::function<void(const std::string&)> on_timeout)
    : rank_(rank), on_timeout_(std::move(on_timeout)), timeout_(timeout_seconds) {
  thread_ = std::thread([this] { loop(); });
}

CollectiveWatchdog::~CollectiveWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void CollectiveWatchdog::set_timeout(double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    timeout_ = seconds;
  }
  cv_.notify_all();
}

CollectiveWatchdog::Scope::Scope(CollectiveWatchdog& dog, std::string what) : dog_(dog) {
  std::lock_guard<std::mutex> lock(dog_.mutex_);
  id_ = dog_.next_id_++;
  dog_.in_flight_[id_] = {std::move(what), Clock::now()};
}

CollectiveWatchdog::Scope::~Scope() {
  std::lock_guard<std::mutex> lock(dog_.mutex_);
  dog_.in_flight_.erase(id_);
}

void CollectiveWatchdog::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    // Poll at a tenth of the timeout (between 10 ms and 1 s): the abort comes at most 10% late.
    const double poll = timeout_ > 0 ? std::clamp(timeout_ / 10, 0.01, 1.0) : 1.0;
    cv_.wait_for(lock, std::chrono::duration<double>(poll));
    if (stop_ || fired_ || timeout_ <= 0 || in_flight_.empty()) continue;
    const auto oldest = std::min_element(in_flight_.begin(), in_flight_.end(),
                                         [](const auto& a, const auto& b) { return a.second.start < b.second.start; });
    const double age = std::chrono::duration<double>(Clock::now() - oldest->second.start).count();
    if (age < timeout_) continue;
    fired_ = true;
    const std::string message = fmt::format(
        "[distributed] rank {}: {} has not completed after {:.1f} s (timeout {} s): another rank has died, "
        "raised or hangs; aborting the job",
        rank_, oldest->second.what, age, timeout_);
    lock.unlock();
    on_timeout_(message);  // normally does not return (MPI_Abort)
    lock.lock();
  }
}

}  // namespace hm::dist
