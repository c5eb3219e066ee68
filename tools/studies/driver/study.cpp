#include "harmonic/tools/studies/driver/study.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm::studies {
namespace {

std::vector<StudySpec>& registry() {
  static std::vector<StudySpec> studies;  // filled by StudyRegistration objects at static init
  return studies;
}

}  // namespace

StudyRegistration::StudyRegistration(StudySpec spec) {
  check(!spec.name.empty() && spec.grid && spec.run && spec.report, "StudyRegistration",
        "study '{}' needs a name, a grid, a run and a report function", spec.name);
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
