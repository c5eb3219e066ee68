#include "harmonic/tools/studies/driver/head_run.h"

#include <fmt/format.h>

namespace hm::studies {

std::string HeadChoice::name() const { return fourier() ? fmt::format("fourier-{}", frequencies) : "linear"; }

Json HeadChoice::task_keys() const {
  if (!fourier()) return {{"head", "linear"}};
  return {{"head", "fourier"}, {"fourier_frequencies", frequencies}};
}

HeadChoice HeadChoice::parse(const std::string& name, std::string_view where) {
  if (name == "linear") return {};
  if (name.starts_with("fourier-")) {
    try {
      size_t used = 0;
      const int64_t n = std::stoll(name.substr(8), &used);
      if (used == name.size() - 8 && n >= 1) return {n};
    } catch (const std::exception&) {  // not a number, or out of range: the error below
    }
  }
  throw_error(where, fmt::format("head '{}' is neither 'linear' nor 'fourier-N' with N >= 1", name));
}

Json head_run_json(const HeadRunSpec& run) {
  Json j = {{"head", run.head.name()}, {"seed", run.seed}, {"device", run.device}, {"task_config", run.task_config}};
  if (!run.ablation.empty()) j["ablation"] = run.ablation;  // only where set: older records stay as they are
  return j;
}

HeadRunSpec head_run_from_json(const Json& j, std::string_view where) {
  return read_run_config(j, where, [&] {
    return HeadRunSpec{.head = HeadChoice::parse(j.at("head").get<std::string>(), where),
                       .seed = j.at("seed").get<uint64_t>(),
                       .device = j.at("device").get<std::string>(),
                       .task_config = j.at("task_config"),
                       .ablation = j.value("ablation", std::string())};
  });
}

}  // namespace hm::studies
