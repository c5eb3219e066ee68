// `--project`: a few measured steps of a study's runs and their projected training time (projection.h).
#include "harmonic/tools/studies/driver/projection.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/study_dir.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace fs = std::filesystem;
namespace {

// The run being measured on this thread (null outside project_study).
struct Probe {
  int64_t steps = 0;
  RunProjection* row = nullptr;
  std::chrono::steady_clock::time_point start;
};
thread_local Probe* g_probe = nullptr;

// The scratch directory of the measured runs (their files, e.g. a shared pretraining), removed after.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / fmt::format("harmonic-projection-{}", ::getpid());
  ScratchDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string duration_text(double hours) {
  if (hours <= 0) return "-";
  if (hours < 1.0 / 60) return fmt::format("{:.0f} s", hours * 3600);
  if (hours < 1) return fmt::format("{:.1f} min", hours * 60);
  if (hours < 48) return fmt::format("{:.1f} h", hours);
  return fmt::format("{:.1f} days", hours / 24);
}

}  // namespace

void projection_limit(train::Trainer& trainer) {
  if (!g_probe) return;
  trainer.profile_steps = g_probe->steps;
  trainer.session_step_limit = g_probe->steps + 1;  // one warm-up step, then the profiled ones
}

bool projection_measure(const train::Trainer& trainer) {
  if (!g_probe) return false;
  RunProjection& row = *g_probe->row;
  row.task = trainer.task_name();
  row.total_steps = trainer.total_steps();
  row.measured_steps = trainer.last_profile.steps;
  row.ms_per_step = row.measured_steps > 0 ? trainer.last_profile.wall_ms / static_cast<double>(row.measured_steps) : 0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_probe->start).count();
  row.setup_seconds = std::max(0.0, wall - trainer.last_profile.wall_ms / 1e3);
  return true;
}

std::vector<RunProjection> project_study(const StudySpec& spec, const StudyArgs& args, std::FILE* log) {
  check(args.project >= 1, "study", "--project must be >= 1 steps, got {}", args.project);
  check(args.resume.empty() && args.from.empty() && args.status.empty(), "study",
        "--project measures a new grid from --quick, --seeds and --set: not with --resume, --from or --status");
  StudyContext context;
  context.quick = args.quick;
  context.seeds = args.seeds;
  context.options = train::resolve_config(spec.options, "", args.sets);
  const std::vector<StudyRun> grid = make_grid(spec, context, "--set");
  check(!grid.empty(), "study", "study '{}' has an empty grid with these settings", spec.name);
  std::vector<size_t> all(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) all[i] = i;
  const std::vector<size_t> chosen = args.only.empty() ? std::vector<size_t>{0} : only_matching(grid, all, args.only);
  const ScratchDir scratch;
  train::SigintScope sigint;  // Ctrl-C stops the run in flight; the scratch directory still goes
  train::clear_stop();
  if (log)
    fmt::print(log, "{} ({}): {} of the grid's {} runs, {} measured steps each after one warm-up step\n", spec.name,
               context.common().paper_scale ? "paper scale" : (context.quick ? "quick" : "full"), chosen.size(),
               grid.size(), args.project);
  std::vector<RunProjection> rows;
  for (size_t i : chosen) {
    StudyRun run = grid[i];
    run.dir = (scratch.path / std::to_string(i)).string();
    run.work_dir = "";  // from step 0, no checkpoints
    fs::create_directories(run.dir);
    RunProjection row;
    row.label = run.label;
    Probe probe{args.project, &row, std::chrono::steady_clock::now()};
    g_probe = &probe;
    try {
      spec.run(run);
    } catch (const train::RunInterrupted&) {  // stopped after its measured steps (or Ctrl-C)
    } catch (const Error& e) {
      row.error = e.what();
    }
    g_probe = nullptr;
    if (row.task.empty() && row.error.empty()) row.error = "the run ended without a training fit to measure";
    if (log) {
      if (!row.error.empty())
        fmt::print(log, "  {}: not measured: {}\n", row.label, row.error);
      else
        fmt::print(log, "  {}: {} {:.2f} ms/step over {} steps; {} steps -> {} of training (set-up {:.1f} s)\n",
                   row.label, row.task, row.ms_per_step, row.measured_steps, row.total_steps,
                   duration_text(row.projected_hours()), row.setup_seconds);
      std::fflush(log);
    }
    rows.push_back(std::move(row));
    if (train::stop_requested()) break;
  }
  return rows;
}

}  // namespace hm::studies
