// The files every paper study's report writes (tools/studies/driver/summary_files.h): the summary
// header's counts and the partial-report note of a study whose grid is not all recorded.
#include <doctest/doctest.h>

#include "tests/helpers.h"
#include "harmonic/tools/studies/driver/summary_files.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

TEST_CASE("summary files: a report of fewer runs than the grid says so in summary.json and below the title") {
  const report::MetricStats a = report::seed_stats({1, 2}, {10.0, 30.0});
  const report::MetricStats b = report::seed_stats({1}, {5.0});
  StudyInfo info{.name = "x", .jobs = 2, .wall_seconds = 40, .grid_runs = 6, .recorded_runs = 3};
  const Json partial = summary_header("x", info, {&a, &b});
  CHECK(partial.at("runs") == 3);
  CHECK(partial.at("run_seconds_total").get<double>() == doctest::Approx(45.0));
  CHECK(partial.at("partial") == Json{{"runs", 3}, {"grid_runs", 6}});
  ScratchDir dir;
  const auto no_figures = [](const std::string&) { return std::vector<std::string>{}; };
  write_summary_files(dir.str(), partial, "# X study (full mode)\n\nintro\n", no_figures, {});
  CHECK(read_text(dir.str() + "/summary.md") ==
        "# X study (full mode)\n\n**Partial report: 3 of the grid's 6 runs are recorded**; the rest are still to run, "
        "so rows and seeds are missing and the claims cover only the recorded runs.\n\nintro\n");

  // Complete (or the grid not known): no note, no key.
  for (size_t grid : {3, 0}) {
    info.grid_runs = grid;  // recorded_runs stays 3
    const Json complete = summary_header("x", info, {&a, &b});
    CHECK_FALSE(complete.contains("partial"));
    write_summary_files(dir.str(), complete, "# X study (full mode)\n\nintro\n", no_figures, {});
    CHECK(read_text(dir.str() + "/summary.md") == "# X study (full mode)\n\nintro\n");
  }
}
