#include "harmonic/tools/train/grad_over_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harmonic/nn/module.h"
#include "harmonic/ops/ops.h"

namespace hm::train {
namespace {

constexpr const char* kGradOverTime = "gradient_over_time";

// L1, L2, Linf of a (S) float64 gradient.
GradNorms norms_of(const std::vector<double>& g) {
  GradNorms n;
  double sq = 0;
  for (double v : g) {
    const double a = std::abs(v);
    n.l1 += a;
    sq += v * v;
    n.linf = std::max(n.linf, a);
  }
  n.l2 = std::sqrt(sq);
  return n;
}

}  // namespace

std::vector<GradWindow> window_means(const std::vector<GradNorms>& steps, int64_t window) {
  check(window > 0, "window_means", "window must be positive, got {}", window);
  std::vector<GradWindow> out;
  const int64_t T = std::ssize(steps);
  for (int64_t b = 0; b < T; b += window) {
    GradWindow w{b, std::min(b + window, T), {}};
    for (int64_t t = w.begin; t < w.end; ++t) {
      w.mean.l1 += steps[t].l1;
      w.mean.l2 += steps[t].l2;
      w.mean.linf += steps[t].linf;
    }
    const double n = double(w.end - w.begin);
    w.mean = {w.mean.l1 / n, w.mean.l2 / n, w.mean.linf / n};
    out.push_back(w);
  }
  return out;
}

GradOverTime gradient_over_time(RecurrentProbe& probe, const data::Batch& batch, int64_t window) {
  check(window > 0, kGradOverTime, "window must be positive, got {}", window);
  Tensor h0 = probe.initial_state(batch);
  HM_CHECK(h0.defined() && h0.dim() == 2, kGradOverTime, "initial_state must be (B, S), got {}",
           h0.defined() ? h0.desc() : std::string("an undefined tensor"));
  h0 = h0.detach().clone().requires_grad_(true);
  GradOverTime r;
  r.batch = h0.size(0);
  r.state_size = h0.size(1);
  r.window = window;
  std::vector<Tensor> losses = probe.step_losses(batch, h0);
  const int64_t T = std::ssize(losses);
  check(T > 0, kGradOverTime, "step_losses returned no losses");
  for (int64_t t = 0; t < T; ++t)
    HM_CHECK(losses[t].defined() && losses[t].numel() == 1, kGradOverTime, "step loss {} of {} must be a scalar, got {}", t, T,
             losses[t].defined() ? losses[t].desc() : std::string("an undefined tensor"));
  r.steps.reserve(T);
  const std::vector<double> zero(r.state_size, 0.0);
  for (int64_t t = 0; t < T; ++t) {
    h0.zero_grad();
    if (losses[t].requires_grad()) losses[t].backward({}, /*retain_graph=*/t + 1 < T);
    Tensor g = h0.grad();  // (B, S); undefined when loss_t does not depend on h0
    r.steps.push_back(g.defined() ? norms_of(sum(g.detach().to(DType::Float64), {0}).to_vector()) : norms_of(zero));
  }
  h0.zero_grad();
  r.windows = window_means(r.steps, window);
  return r;
}

GradOverTime gradient_over_time(Task& task, const data::Batch& batch, int64_t window) {
  RecurrentProbe* probe = task.recurrent_probe();
  check(probe != nullptr, kGradOverTime, "the task has no recurrent probe (Task::recurrent_probe)");
  nn::Module& model = task.model();
  auto params = model.parameters();
  const Device device = params.empty() ? batch.input.device() : params.front().device();
  data::Batch b{batch.input.to(device), batch.target.defined() ? batch.target.to(device) : Tensor()};
  model.eval();
  model.zero_grad();
  GradOverTime r = gradient_over_time(*probe, b, window);
  model.zero_grad();  // the per-step backward passes also filled the parameters' gradients
  return r;
}

Json to_json(const GradOverTime& g) {
  Json l1 = Json::array(), l2 = Json::array(), linf = Json::array(), windows = Json::array();
  for (const GradNorms& n : g.steps) {
    l1.push_back(n.l1);
    l2.push_back(n.l2);
    linf.push_back(n.linf);
  }
  for (const GradWindow& w : g.windows)
    windows.push_back(
        {{"begin", w.begin}, {"end", w.end}, {"l1", w.mean.l1}, {"l2", w.mean.l2}, {"linf", w.mean.linf}});
  return {{"batch_size", g.batch},
          {"state_size", g.state_size},
          {"window", g.window},
          {"num_steps", std::ssize(g.steps)},
          {"reduction", "d loss_t / d h0 summed over the batch (one initial state shared by every example)"},
          {"steps", {{"l1", l1}, {"l2", l2}, {"linf", linf}}},
          {"windows", windows}};
}

std::string format_table(const GradOverTime& g) {
  std::string s = fmt::format("{:>13}  {:>12}  {:>12}  {:>12}\n", "steps", "|g|_1", "|g|_2", "|g|_inf");
  for (const GradWindow& w : g.windows)
    s += fmt::format("{:>13}  {:>12.4e}  {:>12.4e}  {:>12.4e}\n", fmt::format("[{}, {})", w.begin, w.end), w.mean.l1,
                     w.mean.l2, w.mean.linf);
  return s;
}

report::LinePlot plot_over_time(const GradOverTime& g, const std::string& title) {
  report::LinePlot p;
  p.title = title.empty() ? fmt::format("d loss_t / d h0, {}-step means", g.window) : title;
  p.x_label = "step t";
  p.y_label = "norm of d loss_t / d h0";
  p.log_y = true;
  const bool few = g.windows.size() < 3;
  const char* labels[3] = {"L1", "L2", "Linf"};
  for (int k = 0; k < 3; ++k) {
    report::Series s;
    s.label = labels[k];
    s.markers = few;
    for (const GradWindow& w : g.windows) {
      s.x.push_back(0.5 * double(w.begin + w.end - 1));
      s.y.push_back(k == 0 ? w.mean.l1 : k == 1 ? w.mean.l2 : w.mean.linf);
    }
    p.series.push_back(std::move(s));
  }
  return p;
}

}  // namespace hm::train
