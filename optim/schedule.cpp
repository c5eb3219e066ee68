// Learning-rate schedules and the scheduler that applies them to an optimizer's groups.
#include "harmonic/optim/schedule.h"

#include <cmath>
#include <numbers>

#include "harmonic/core/error.h"
#include "harmonic/optim/optimizer.h"

namespace hm::optim {

namespace {

void validate(const Schedule& s, std::string_view fn) {
  check(s.lr >= 0 && std::isfinite(s.lr), fn, "invalid lr {} (must be finite and >= 0)", s.lr);
  check(s.warmup_steps >= 0, fn, "invalid warmup_steps {} (must be >= 0)", s.warmup_steps);
  check(s.warmup_start >= 0 && s.warmup_start <= 1, fn, "invalid warmup start factor {} (must be in [0, 1])",
        s.warmup_start);
  switch (s.kind) {
    case Schedule::Kind::Constant:
      break;
    case Schedule::Kind::StepDecay:
      check(s.every >= 1, fn, "invalid step decay period {} (must be >= 1)", s.every);
      [[fallthrough]];
    case Schedule::Kind::Exponential:
      check(s.decay > 0 && std::isfinite(s.decay), fn, "invalid decay factor {} (must be finite and > 0)", s.decay);
      break;
    case Schedule::Kind::Cosine:
    case Schedule::Kind::Linear:
      check(s.steps >= 1, fn, "invalid decay length {} steps (must be >= 1)", s.steps);
      check(s.end_lr >= 0 && s.end_lr <= s.lr, fn, "invalid end_lr {} (must be in [0, lr = {}])", s.end_lr, s.lr);
      break;
  }
}

const char* kind_name(Schedule::Kind k) {
  switch (k) {
    case Schedule::Kind::Constant:
      return "constant";
    case Schedule::Kind::StepDecay:
      return "step_decay";
    case Schedule::Kind::Exponential:
      return "exponential";
    case Schedule::Kind::Cosine:
      return "cosine";
    case Schedule::Kind::Linear:
      return "linear";
  }
  return "?";
}

}  // namespace

double Schedule::lr_at(int64_t step) const {
  validate(*this, "lr_at");
  check(step >= 0, "lr_at", "negative step {}", step);
  if (step < warmup_steps) return lr * (warmup_start + (1 - warmup_start) * double(step + 1) / double(warmup_steps));
  const int64_t t = step - warmup_steps;
  switch (kind) {
    case Kind::Constant:
      return lr;
    case Kind::StepDecay:
      return lr * std::pow(decay, double(t / every));
    case Kind::Exponential:
      return lr * std::pow(decay, double(t));
    case Kind::Cosine: {
      if (t >= steps) return end_lr;
      double coeff = 0.5 * (1 + std::cos(std::numbers::pi * double(t) / double(steps)));
      return end_lr + coeff * (lr - end_lr);
    }
    case Kind::Linear:
      if (t >= steps) return end_lr;
      return lr + (end_lr - lr) * double(t) / double(steps);
  }
  return lr;
}

std::string Schedule::str() const {
  std::string out;
  switch (kind) {
    case Kind::Constant:
      out = fmt::format("constant(lr={})", lr);
      break;
    case Kind::StepDecay:
      out = fmt::format("step_decay(lr={}, decay={}, every={})", lr, decay, every);
      break;
    case Kind::Exponential:
      out = fmt::format("exponential(lr={}, gamma={})", lr, decay);
      break;
    case Kind::Cosine:
    case Kind::Linear:
      out = fmt::format("{}(lr={}, steps={}, end_lr={})", kind_name(kind), lr, steps, end_lr);
      break;
  }
  if (warmup_steps > 0) out += fmt::format(" after warmup({}, start={})", warmup_steps, warmup_start);
  return out;
}

Schedule constant_lr(double lr) {
  Schedule s{.kind = Schedule::Kind::Constant, .lr = lr};
  validate(s, "constant_lr");
  return s;
}

Schedule step_decay(double lr, double decay, int64_t every) {
  Schedule s{.kind = Schedule::Kind::StepDecay, .lr = lr, .decay = decay, .every = every};
  validate(s, "step_decay");
  return s;
}

Schedule exponential_decay(double lr, double gamma) {
  Schedule s{.kind = Schedule::Kind::Exponential, .lr = lr, .decay = gamma};
  validate(s, "exponential_decay");
  return s;
}

Schedule cosine_decay(double lr, int64_t steps, double end_lr) {
  Schedule s{.kind = Schedule::Kind::Cosine, .lr = lr, .steps = steps, .end_lr = end_lr};
  validate(s, "cosine_decay");
  return s;
}

Schedule linear_decay(double lr, int64_t steps, double end_lr) {
  Schedule s{.kind = Schedule::Kind::Linear, .lr = lr, .steps = steps, .end_lr = end_lr};
  validate(s, "linear_decay");
  return s;
}

Schedule with_warmup(Schedule schedule, int64_t warmup_steps, double start_factor) {
  schedule.warmup_steps = warmup_steps;
  schedule.warmup_start = start_factor;
  validate(schedule, "with_warmup");
  return schedule;
}

Schedule warmup_cosine(double lr, int64_t warmup_steps, int64_t total_steps, double end_lr) {
  check(total_steps > warmup_steps, "warmup_cosine", "total_steps {} must exceed warmup_steps {}", total_steps,
        warmup_steps);
  return with_warmup(cosine_decay(lr, total_steps - warmup_steps, end_lr), warmup_steps);
}

// -- LRScheduler ------------------------------------------------------------------------------

LRScheduler::LRScheduler(Optimizer& optimizer, Schedule schedule) : optimizer_(optimizer), schedule_(schedule) {
  validate(schedule_, "LRScheduler");
  check(schedule_.lr > 0, "LRScheduler", "the schedule's lr must be > 0 to scale the groups, got {}", schedule_.lr);
}

double LRScheduler::apply(int64_t step) {
  const double lr = schedule_.lr_at(step);
  for (int64_t g = 0; g < optimizer_.num_groups(); ++g) {
    const double initial = optimizer_.group(g).initial_lr;
    optimizer_.set_lr(g, initial == schedule_.lr ? lr : initial * (lr / schedule_.lr));
  }
  return lr;
}

double LRScheduler::apply() { return apply(optimizer_.steps()); }

}  // namespace hm::optim
