// Target "study_results": `harmonic study NAME --from DIR`, which rebuilds a study's report from
// DIR/study.json and DIR/results.jsonl without training. The input's first '\0'-separated field
// is study.json, the rest results.jsonl; the study is the first whose name study.json mentions.
#include <filesystem>

#include "tests/fuzz/fuzz_targets.h"
#include "harmonic/tools/studies/driver/driver.h"

namespace hm::fuzz {

int fuzz_study_results(const uint8_t* data, size_t size) {
  const std::vector<std::string> fields = split_fields(as_text(data, size), 2);
  const std::vector<studies::StudySpec> specs = studies::all_studies();
  const studies::StudySpec* spec = &specs.front();
  for (const studies::StudySpec& s : specs)
    if (fields[0].find("\"" + s.name + "\"") != std::string::npos) {
      spec = &s;
      break;
    }
  std::filesystem::create_directories(scratch_dir() + "/study");
  write_scratch("study/study.json", fields[0]);
  write_scratch("study/results.jsonl", fields.size() > 1 ? fields[1] : "");
  studies::StudyArgs args;
  args.from = scratch_dir() + "/study";
  args.out = scratch_dir() + "/report";
  return reject_errors([&] { (void)studies::run_study(*spec, args, nullptr); });
}

}  // namespace hm::fuzz
