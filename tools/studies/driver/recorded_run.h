// One recorded run as a study's report reads it, and the records turned into such runs: the
// spec parsed back from the run's config, its result (checked for the keys the report needs)
// and its wall time. Every paper study's report starts from these.
#pragma once
#include <initializer_list>
#include <string_view>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

template <class Spec>
struct RecordedRun {
  Spec spec;
  Json result;
  double seconds = 0;
};

// parse(config) -> Spec; a result without one of `keys` is an error naming `report` and the run.
template <class Spec, class Parse>
std::vector<RecordedRun<Spec>> recorded_runs_of(const std::vector<RunRecord>& records, Parse parse,
                                                std::string_view report, std::initializer_list<const char*> keys) {
  std::vector<RecordedRun<Spec>> runs;
  runs.reserve(records.size());
  for (const RunRecord& r : records) {
    RecordedRun<Spec> run{parse(r.config), r.result, r.seconds};
    for (const char* key : keys)
      check(run.result.contains(key), report, "run '{}' has no '{}' in its result", r.label, key);
    runs.push_back(std::move(run));
  }
  return runs;
}

// recorded_runs_of for a study whose runs end with an evaluation: result["final"] (a key of
// `keys`) must also be an object.
template <class Spec, class Parse>
std::vector<RecordedRun<Spec>> evaluated_runs_of(const std::vector<RunRecord>& records, Parse parse,
                                                 std::string_view report, std::initializer_list<const char*> keys) {
  std::vector<RecordedRun<Spec>> runs = recorded_runs_of<Spec>(records, parse, report, keys);
  for (size_t i = 0; i < runs.size(); ++i)
    check(runs[i].result.at("final").is_object(), report, "run '{}' has no final evaluation", records[i].label);
  return runs;
}

}  // namespace hm::studies
