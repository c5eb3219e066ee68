#include "harmonic/tools/train/grad_inspect.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/ops/ops.h"

namespace hm::train {

GradReport gradient_report(Task& task, const data::Batch& batch) {
  nn::Module& model = task.model();
  auto named = model.named_parameters();
  check(!named.empty(), "gradient_report", "the model has no parameters");
  const Device device = named.front().second.device();
  model.train();
  model.zero_grad();
  data::Batch b{batch.input.to(device), batch.target.defined() ? batch.target.to(device) : Tensor()};
  Tensor loss = task.loss(b);
  loss.backward();

  NoGradGuard no_grad;
  GradReport report;
  report.loss = loss.item<double>();
  double total_sq = 0;
  for (const auto& [name, p] : named) {
    GradStat s{name, p.shape()};
    s.param_norm = norm(p.detach().to(DType::Float64), 2.0).item<double>();
    Tensor g = p.grad();
    if (g.defined()) {
      Tensor g64 = g.to(DType::Float64);
      s.has_grad = true;
      s.grad_norm = norm(g64, 2.0).item<double>();
      s.grad_max = g.numel() > 0 ? amax(abs(g64)).item<double>() : 0.0;
      total_sq += s.grad_norm * s.grad_norm;
    }
    report.params.push_back(std::move(s));
  }
  report.total_norm = std::sqrt(total_sq);
  return report;
}

std::string format_table(const GradReport& r) {
  size_t w = 9;
  for (const auto& s : r.params) w = std::max(w, s.name.size());
  std::string out = fmt::format("{:<{}}  {:<14} {:>11} {:>11} {:>11} {:>11}\n", "parameter", w, "shape", "|param|",
                                "|grad|", "max|grad|", "|g|/|p|");
  for (const auto& s : r.params) {
    if (!s.has_grad) {
      out += fmt::format("{:<{}}  {:<14} {:>11.4e} {:>11}\n", s.name, w, str(s.shape), s.param_norm, "no grad");
      continue;
    }
    const double ratio = s.param_norm > 0 ? s.grad_norm / s.param_norm : 0.0;
    out += fmt::format("{:<{}}  {:<14} {:>11.4e} {:>11.4e} {:>11.4e} {:>11.4e}\n", s.name, w, str(s.shape),
                       s.param_norm, s.grad_norm, s.grad_max, ratio);
  }
  out += fmt::format("loss {:.6g}, total gradient norm {:.6g}\n", r.loss, r.total_norm);
  return out;
}

Json to_json(const GradReport& r) {
  Json params = Json::array();
  for (const auto& s : r.params)
    params.push_back({{"name", s.name},
                      {"shape", s.shape},
                      {"param_norm", s.param_norm},
                      {"grad_norm", s.has_grad ? Json(s.grad_norm) : Json()},
                      {"grad_max", s.has_grad ? Json(s.grad_max) : Json()}});
  return {{"loss", r.loss}, {"total_norm", r.total_norm}, {"params", params}};
}

}  // namespace hm::train
