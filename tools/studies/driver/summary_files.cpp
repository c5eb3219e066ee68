#include "harmonic/tools/studies/driver/summary_files.h"

#include <fmt/format.h>

#include <filesystem>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"

namespace hm::studies {

Json summary_header(const std::string& study, const StudyInfo& info,
                    const std::vector<const report::MetricStats*>& group_seconds) {
  double run_seconds = 0;
  size_t runs = 0;
  for (const report::MetricStats* s : group_seconds) {
    run_seconds += s->mean * static_cast<double>(s->count);
    runs += s->count;
  }
  Json header = {{"study", study},
                 {"mode", info.quick ? "quick" : "full"},
                 {"jobs", info.jobs},
                 {"runs", runs},
                 {"wall_seconds", info.wall_seconds},
                 {"run_seconds_total", run_seconds},
                 {"std", "population (ddof = 0, numpy.std default) over seeds"}};
  if (info.recorded_runs < info.grid_runs)
    header["partial"] = {{"runs", info.recorded_runs}, {"grid_runs", info.grid_runs}};
  return header;
}

namespace {

// Below the title (the markdown's first line), so a reader of a study still running is told
// before any table that the seeds and rows are not all there.
std::string with_partial_note(const Json& summary, const std::string& markdown) {
  if (!summary.contains("partial")) return markdown;
  const Json& p = summary.at("partial");
  const std::string note = fmt::format(
      "**Partial report: {} of the grid's {} runs are recorded**; the rest are still to run, so rows and seeds are "
      "missing and the claims cover only the recorded runs.\n\n",
      p.at("runs").get<size_t>(), p.at("grid_runs").get<size_t>());
  const size_t title_end = markdown.find("\n\n");
  if (markdown.rfind("# ", 0) != 0 || title_end == std::string::npos) return note + markdown;
  return markdown.substr(0, title_end + 2) + note + markdown.substr(title_end + 2);
}

}  // namespace

StudyReport write_summary_files(const std::string& dir, const Json& summary, const std::string& markdown,
                                const std::function<std::vector<std::string>(const std::string&)>& figures,
                                const std::vector<report::ClaimResult>& claims, int claim_width) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  check(!ec, "study report", "cannot create directory '{}': {}", dir, ec.message());
  const auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  write_file_atomic(path("summary.json"), summary.dump(2) + "\n");
  write_file_atomic(path("summary.md"), with_partial_note(summary, markdown));
  StudyReport out{{"summary.json", "summary.md"}, {}};
  for (const std::string& f : figures(dir)) out.files.push_back(f);
  for (const report::ClaimResult& c : claims)
    out.headline.push_back(fmt::format("  {:<{}} {}", c.claim, claim_width, report::claim_verdict(c)));
  return out;
}

}  // namespace hm::studies
