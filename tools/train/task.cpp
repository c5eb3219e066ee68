// The task registry.
#include "harmonic/tools/train/task.h"

#include "harmonic/core/error.h"
#include "harmonic/core/random.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {

std::vector<TaskSpec>& tasks() {
  static std::vector<TaskSpec> registry;  // filled by TaskRegistration objects at static init
  return registry;
}

const TaskSpec& find_task(const std::string& name) {
  std::vector<std::string> names;
  for (const TaskSpec& spec : tasks()) {
    if (spec.name == name) return spec;
    names.push_back(spec.name);
  }
  throw_error("task", fmt::format("unknown task '{}' (tasks: {})", name, fmt::join(names, ", ")));
}

Json default_config(const TaskSpec& spec) {
  Json config = {{"seed", 0}, {"trainer", TrainerOptions{}.to_json()}};
  check(spec.defaults.is_object(), "task", "task '{}': defaults must be a JSON object", spec.name);
  for (const auto& [k, v] : spec.defaults.items()) {
    if (k == "trainer") {
      for (const auto& [tk, tv] : v.items()) {
        check(config["trainer"].contains(tk), "task", "task '{}' sets unknown trainer option '{}'", spec.name, tk);
        config["trainer"][tk] = tv;
      }
    } else {
      config[k] = v;
    }
  }
  return config;
}

std::unique_ptr<Task> build_task(const TaskSpec& spec, const Json& config, Device device) {
  check(config.contains("seed") && config["seed"].is_number_integer(), "build_task",
        "task '{}': the config has no integer 'seed'", spec.name);
  manual_seed(config["seed"].get<uint64_t>());
  return spec.make(config, device);
}

Json smoke_config(const TaskSpec& spec, const std::string& scratch) {
  Json config = default_config(spec);
  if (spec.smoke) merge_config(config, spec.smoke(scratch), fmt::format("task '{}': its smoke config", spec.name));
  return config;
}

}  // namespace hm::train
