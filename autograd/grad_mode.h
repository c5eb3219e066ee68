// Thread-local grad mode and the global anomaly mode, with RAII guards.
#pragma once

namespace hm {

bool grad_enabled();
void set_grad_enabled(bool on);

// Disables recording for the scope: { NoGradGuard g; ... } (like torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard() : previous_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

class EnableGradGuard {
 public:
  EnableGradGuard() : previous_(grad_enabled()) { set_grad_enabled(true); }
  ~EnableGradGuard() { set_grad_enabled(previous_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

// Anomaly mode: every op checks its output, and backward every gradient, for NaN/Inf and
// throws naming the op that produced the first one. Costs a pass over each result.
bool anomaly_enabled();
void set_anomaly_enabled(bool on);

class AnomalyGuard {
 public:
  AnomalyGuard() : previous_(anomaly_enabled()) { set_anomaly_enabled(true); }
  ~AnomalyGuard() { set_anomaly_enabled(previous_); }
  AnomalyGuard(const AnomalyGuard&) = delete;
  AnomalyGuard& operator=(const AnomalyGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace hm
