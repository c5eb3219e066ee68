// Target "config": run configurations from the command line. The input's '\0'-separated fields
// are a --config file (empty: none) and up to 8 --set strings; they are resolved against every
// registered task's defaults, as `harmonic train` does, then read as the trainer's options;
// the --set strings also go to every study's options and grid, as `harmonic study --set` does.
#include "tests/fuzz/fuzz_targets.h"
#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/task.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::fuzz {

int fuzz_config(const uint8_t* data, size_t size) {
  std::vector<std::string> fields = split_fields(as_text(data, size), 9);
  const std::string config_file = fields[0].empty() ? "" : write_scratch("config.json", fields[0]);
  const std::vector<std::string> sets(fields.begin() + 1, fields.end());
  for (const train::TaskSpec& spec : train::tasks())
    reject_errors([&] {
      const train::Json config = train::resolve_config(train::default_config(spec), config_file, sets);
      (void)train::TrainerOptions::from_json(config.at("trainer"));
    });
  for (const studies::StudySpec& spec : studies::all_studies())
    reject_errors([&] {
      studies::StudyContext context{.quick = true, .seeds = {1}, .options = train::resolve_config(spec.options, "", sets)};
      (void)spec.grid(context);
    });
  return 0;
}

}  // namespace hm::fuzz
