// The registry of deferred device checks (cuda/runtime/deferred_checks.h), in both builds: a
// build without CUDA has no device, so nothing is ever registered there.
#include "harmonic/cuda/runtime/deferred_checks.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/cuda/runtime/context.h"

namespace hm::cuda {
namespace {

constexpr int kMaxDevices = 64;
// A host that never waits would let the registry grow without bound: past this many pending
// checks the next one reads them all first (one counted wait).
constexpr size_t kMaxPending = 4096;
constexpr unsigned long long kNone = ULLONG_MAX;

struct Pending {
  unsigned long long ticket;
  Tensor verdict;  // {position, value}
  std::string fn, label;
  CheckMessage message;
};

}  // namespace

struct CapturedChecks {
  std::vector<Pending> checks;
};

namespace {

struct Registry {
  std::mutex mutex;
  std::shared_ptr<CapturedChecks> recording;  // a graph being captured keeps its checks here
  Tensor flag;  // one word: the earliest failed ticket, kNone while none failed
  unsigned long long next_ticket = 0;
  std::vector<Pending> pending;
};

// Leaked on purpose: its tensors must not go back to the device allocator during static
// destruction, after the driver may have shut down.
Registry& registry(int device) {
  static auto* registries = new std::array<Registry, kMaxDevices>;
  check(device >= 0 && device < kMaxDevices, "defer_check", "device index {} outside [0, {})", device, kMaxDevices);
  return (*registries)[device];
}

struct Scope {
  bool on = false;
  std::string label;
};
thread_local Scope scope;
thread_local bool resolving = false;  // reading the verdicts copies from the device too

void set_flag(int device, const Tensor& flag) {
  const unsigned long long none = kNone;
  copy_words_to_device(device, flag.raw_data(), &none, sizeof(none));
}

struct Failure {
  std::string fn, message;  // empty fn: every check passed
};

// Reads every pending verdict of `r` (its lock held); returns the first failed one's error.
Failure read_verdicts(int device, Registry& r) {
  std::vector<Pending> pending = std::move(r.pending);
  r.pending.clear();
  unsigned long long failed = kNone;
  copy_words_from_device(device, &failed, r.flag.raw_data(), sizeof(failed));
  if (failed == kNone) return {};
  set_flag(device, r.flag);
  for (const Pending& p : pending) {
    if (p.ticket != failed) continue;
    int64_t words[2];
    copy_words_from_device(device, words, p.verdict.raw_data(), sizeof(words));
    return {p.fn, fmt::format("{} (found on cuda:{} at the host's next wait for it; the check ran during {})",
                              p.message(words[0], words[1]), device, p.label)};
  }
  return {"resolve_deferred_checks", fmt::format("a check on cuda:{} failed, but its record is gone", device)};
}

}  // namespace

bool index_checks_deferrable() {
  static const bool on = [] {
    const char* v = std::getenv("HARMONIC_DEFER_INDEX_CHECKS");
    return !(v && std::string_view(v) == "0");
  }();
  return on;
}

DeferredChecks::DeferredChecks(std::string label)
    : previous_label_(std::exchange(scope.label, std::move(label))),
      previous_on_(std::exchange(scope.on, index_checks_deferrable())) {}

DeferredChecks::~DeferredChecks() {
  scope.on = previous_on_;
  scope.label = std::move(previous_label_);
}

bool checks_deferred() { return scope.on; }

CheckTicket defer_check(int device, Tensor verdict, std::string_view fn, CheckMessage message) {
  Registry& r = registry(device);
  std::unique_lock lock(r.mutex);
  if (r.pending.size() >= kMaxPending) {
    lock.unlock();
    synchronize_device(device);  // counted; reads the verdicts (and throws a failure)
    lock.lock();
  }
  if (!r.flag.defined()) {
    r.flag = Tensor::empty({1}, DType::Int64, Device::cuda(device));
    set_flag(device, r.flag);
  }
  const unsigned long long ticket = r.next_ticket++;
  r.pending.push_back({ticket, std::move(verdict), std::string(fn), scope.label, std::move(message)});
  if (r.recording) r.recording->checks.push_back(r.pending.back());
  return {static_cast<unsigned long long*>(r.flag.raw_data()), ticket};
}

void resolve_deferred_checks(int device) {
  if (resolving || device < 0 || device >= kMaxDevices) return;
  Registry& r = registry(device);
  Failure failure;
  {
    std::lock_guard lock(r.mutex);
    if (r.pending.empty()) return;
    resolving = true;
    struct Done {
      ~Done() { resolving = false; }
    } done;
    failure = read_verdicts(device, r);
  }
  if (!failure.fn.empty()) throw_error(failure.fn, failure.message);
}

std::shared_ptr<CapturedChecks> new_captured_checks() { return std::make_shared<CapturedChecks>(); }

void record_checks(int device, std::shared_ptr<CapturedChecks> sink) {
  Registry& r = registry(device);
  std::lock_guard lock(r.mutex);
  r.recording = std::move(sink);
}

void rearm_checks(int device, const CapturedChecks& checks) {
  if (checks.checks.empty()) return;
  Registry& r = registry(device);
  std::lock_guard lock(r.mutex);
  for (const Pending& c : checks.checks) {
    const bool pending = std::any_of(r.pending.begin(), r.pending.end(),
                                     [&](const Pending& p) { return p.ticket == c.ticket; });
    if (!pending) r.pending.push_back(c);
  }
}

size_t pending_checks(int device) {
  Registry& r = registry(device);
  std::lock_guard lock(r.mutex);
  return r.pending.size();
}

}  // namespace hm::cuda
