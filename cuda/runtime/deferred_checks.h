// Device-side index checks whose verdict the host reads at its next wait.
//
// An index or class-target check on a CUDA device that throws at once costs a copy back and a
// stream synchronisation per op, so a language-model step would wait for the device twice (its
// embedding and its loss). Inside a DeferredChecks scope (the trainer opens one around each
// step) such a check instead records its first offending position and value in device memory,
// the kernels after it skip out-of-range entries (a gathered row reads 0, a scattered one is
// dropped) so nothing touches memory outside a tensor, and the host reads every pending verdict
// at its next wait for that device: a copy to the host or a synchronisation. There the first
// failed check throws the hm::Error the op would have thrown at once, with the scope's label.
// Outside a scope, and on the CPU, checks throw at once; so do they inside one with
// HARMONIC_DEFER_INDEX_CHECKS=0 (read once), which finds the op of a failed check at the cost of a
// wait for the device per check.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "harmonic/core/tensor.h"

namespace hm::cuda {

class DeferredChecks {
 public:
  explicit DeferredChecks(std::string label);  // what ran, for the error: "training step 12"
  ~DeferredChecks();
  DeferredChecks(const DeferredChecks&) = delete;
  DeferredChecks& operator=(const DeferredChecks&) = delete;

 private:
  std::string previous_label_;
  bool previous_on_;
};

// True inside a DeferredChecks scope on this thread (unless HARMONIC_DEFER_INDEX_CHECKS=0).
bool checks_deferred();

// False with HARMONIC_DEFER_INDEX_CHECKS=0: DeferredChecks scopes then defer nothing.
bool index_checks_deferrable();

// The error text of a failed check from its first bad position and value.
using CheckMessage = std::function<std::string(int64_t position, int64_t value)>;

// Where a deferred check's kernel reports a failure: it lowers the device's word at `flag` to
// `ticket` (so the host, reading one word, finds the earliest failed check).
struct CheckTicket {
  unsigned long long* flag;
  unsigned long long ticket;
};

// Registers a check on cuda:device whose kernel writes {first bad position, its value} into
// `verdict` (two int64 words on the device, the position all ones while none failed). The
// registry keeps `verdict` alive until the host's next wait reads it.
CheckTicket defer_check(int device, Tensor verdict, std::string_view fn, CheckMessage message);

// Reads the pending verdicts of cuda:device and throws the first failure's error (the runtime
// calls it after each copy to the host and synchronisation). A no-op when none is pending.
void resolve_deferred_checks(int device);

// Checks registered on cuda:device and not yet read.
size_t pending_checks(int device);

// CUDA graphs (cuda/runtime/graph.h). On a GPU a captured check registers once, at capture,
// while every replay runs its kernels again: between begin and end of recording, the checks
// registered on cuda:device are also kept by the graph, and after each replay rearm_checks
// registers them again (with their captured tickets), so the host's next wait reads the
// verdicts that replay wrote. (On the emulated device the host twins register at replay.)
struct CapturedChecks;
std::shared_ptr<CapturedChecks> new_captured_checks();
void record_checks(int device, std::shared_ptr<CapturedChecks> sink);  // nullptr: stop recording
void rearm_checks(int device, const CapturedChecks& checks);

}  // namespace hm::cuda
