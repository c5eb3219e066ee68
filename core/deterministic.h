// Deterministic mode, as torch.use_deterministic_algorithms: where an op has two kernels that
// differ only in the order of their sums (one adds with atomics, whose order depends on thread
// timing; one keeps a fixed order at some cost in speed), the mode picks the fixed-order one, so
// two runs on one device give the same bits. Off by default; HARMONIC_DETERMINISTIC=1 turns it on
// at start-up (read once), set_deterministic() or a DeterministicGuard at any time.
//
// The ops with such a choice:
//   scaled_dot_product_attention's tiled CUDA backward: one pass with dq summed by atomics, or
//     (deterministic) a pass for dq and one for dk, dv, each summing in a fixed order.
// Ops whose CUDA kernels add with atomics and have no fixed-order variant (the mode does not
// change them): embedding's backward and index_add (cuda/embedding.cu, cuda/indexing.cu).
// Every other CUDA and CPU kernel sums in a fixed order whatever the mode.
#pragma once

namespace hm {

bool deterministic();
void set_deterministic(bool on);

// Sets the mode for a scope (tests, benchmarks), then restores it. Not thread-safe.
class DeterministicGuard {
 public:
  explicit DeterministicGuard(bool on) : previous_(deterministic()) { set_deterministic(on); }
  ~DeterministicGuard() { set_deterministic(previous_); }
  DeterministicGuard(const DeterministicGuard&) = delete;
  DeterministicGuard& operator=(const DeterministicGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace hm
