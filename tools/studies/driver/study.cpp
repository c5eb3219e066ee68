#include "harmonic/tools/studies/driver/study.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "harmonic/core/device.h"
#include "harmonic/core/error.h"

namespace hm::studies {
namespace {

std::vector<StudySpec>& registry() {
  static std::vector<StudySpec> studies;  // filled by StudyRegistration objects at static init
  return studies;
}

}  // namespace

StudyCommon StudyContext::common() const {
  // JSON errors (options that are not an object, a device that is not a string) propagate: the
  // driver names the study and the file the options came from (make_grid).
  StudyCommon c{.quick = quick,
                .seeds = seeds,
                .device = options.value("device", std::string("cpu")),
                .paper_scale = options.value("paper_scale", false)};
  Device::parse(c.device);  // a bad name fails before any run starts
  return c;
}

Json StudyContext::task_keys(const std::string& key, const std::string& study) const {
  const Json& keys = options.at(key);
  check(keys.is_object(), study, "option '{}' must be an object of task keys, got {}", key, keys.dump());
  return keys;
}

StudyRegistration::StudyRegistration(StudySpec spec) {
  check(!spec.name.empty() && spec.grid && spec.run && spec.report, "StudyRegistration",
        "study '{}' needs a name, a grid, a run and a report function", spec.name);
  check(!spec.options.contains("device") && !spec.options.contains("paper_scale"), "StudyRegistration",
        "study '{}': 'device' and 'paper_scale' are the driver's options, not the study's", spec.name);
  spec.options["device"] = "cpu";
  if (spec.has_paper_scale) spec.options["paper_scale"] = false;
  for (const StudySpec& s : registry())
    check(s.name != spec.name, "StudyRegistration", "study '{}' is registered twice", spec.name);
  registry().push_back(std::move(spec));
}

std::vector<StudySpec> all_studies() {
  std::vector<StudySpec> out = registry();
  std::sort(out.begin(), out.end(), [](const StudySpec& a, const StudySpec& b) { return a.name < b.name; });
  return out;
}

const StudySpec& find_study(const std::string& name) {
  std::vector<std::string> names;
  for (const StudySpec& s : registry()) {
    if (s.name == name) return s;
    names.push_back(s.name);
  }
  std::sort(names.begin(), names.end());
  throw_error("study", fmt::format("unknown study '{}' (studies: {})", name, fmt::join(names, ", ")));
}

}  // namespace hm::studies
