// The study driver (tools/studies/driver/driver.h) on a fake study: durable results, interruption
// and resume, torn lines, refusals, report-only rebuilds.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_lock.h"
#include "harmonic/optim/checkpoint.h"
#include "tests/helpers.h"
#include "tests/trainer_helpers.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/studies/driver/projection.h"
#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;
namespace fs = std::filesystem;

namespace {

std::atomic<int> g_runs{0};
std::atomic<int> g_stop_after{-1};  // request a stop (as Ctrl-C does) when this many runs started

// 3 runs per seed (quick: 1 seed, full: 2); the result is a pure function of the config.
StudySpec fake_study() {
  StudySpec s;
  s.name = "fake-study";
  s.description = "a test study";
  s.modes = "quick: 3 runs; full: 6";
  s.options = {{"scale", 2}};
  s.grid = [](const StudyContext& c) {
    std::vector<uint64_t> seeds = c.seeds.empty() ? std::vector<uint64_t>(c.quick ? 1 : 2, 0) : c.seeds;
    if (c.seeds.empty())
      for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = i + 1;
    std::vector<StudyRun> runs;
    for (uint64_t seed : seeds)
      for (int k = 0; k < 3; ++k)
        runs.push_back({fmt::format("k={} seed={}", k, seed),
                        {{"k", k}, {"seed", seed}, {"scale", c.options.at("scale")}},
                        static_cast<double>(k)});
    return runs;
  };
  s.run = [](const StudyRun& r) {
    const int started = ++g_runs;
    if (g_stop_after.load() >= 0 && started > g_stop_after.load()) {
      train::request_stop();
      throw train::RunInterrupted{};  // what a Trainer-based run does when the stop arrives
    }
    const int v = r.config.at("k").get<int>() * r.config.at("scale").get<int>() + r.config.at("seed").get<int>();
    return Json{{"value", v}};
  };
  s.describe = [](const RunRecord& r) { return fmt::format("value {}", r.result.at("value").get<int>()); };
  s.report = [](const ReportInput& in) {
    std::string text = fmt::format("{} runs{}\n", in.records.size(), in.info.quick ? " (quick)" : "");
    for (const RunRecord& r : in.records) text += fmt::format("{} {}\n", r.label, r.result.at("value").get<int>());
    fs::create_directories(in.dir);
    write_file_atomic(in.dir + "/summary.md", text);
    return StudyReport{{"summary.md"}, {}};
  };
  return s;
}

const StudyRegistration registration{fake_study()};

std::atomic<int64_t> g_stop_at_step{-1};  // request a stop when a run finishes this step
std::atomic<int64_t> g_first_eval{-1};    // the first step evaluated by the last run started
std::atomic<int> g_step_sleep_ms{0};      // slows each training step (a first session worth counting)

// One small spirals run per seed, checkpointing in its work directory (StudyFit): its result
// is the evaluation curve, so a resumed run must end with the uninterrupted run's curve. With
// the option nested=true the run returns {"train": curve} (as rng-lm nests its fine-tuning).
StudySpec checkpointed_study() {
  StudySpec s;
  s.name = "fake-checkpointed-study";
  s.description = "a test study whose runs checkpoint";
  s.modes = "quick = full: 2 runs";
  s.options = {{"nested", false}};
  s.grid = [](const StudyContext& c) {
    std::vector<StudyRun> runs;
    for (uint64_t seed : c.seeds.empty() ? std::vector<uint64_t>{1, 2} : c.seeds)
      runs.push_back({fmt::format("seed={}", seed), {{"seed", seed}, {"nested", c.options.at("nested")}}});
    return runs;
  };
  s.run = [](const StudyRun& r) {
    const train::TaskSpec& spec = train::find_task("mlp-spirals");
    Json config = hm::test::small_spirals(12);
    config["seed"] = r.config.at("seed");
    StudyFit::configure(config, r.work_dir);
    auto task = train::build_task(spec, config, Device::cpu());
    train::Trainer trainer(*task, spec.name, config, r.work_dir);
    quiet_study_trainer(trainer);
    Json result = {{"curve", Json::array()}};
    g_first_eval = -1;
    trainer.on_eval = [&](int64_t step, const Json& m) {
      if (g_first_eval.load() < 0) g_first_eval = step;
      record_eval(result, step, m, {"val_loss"});
    };
    StudyFit fit(trainer, result);
    // The mean training loss between evaluations, its running sum kept in fit.state (as the FRU
    // and FourierFormer runs keep it): a stop between evaluations must not lose it.
    fit.on_step = [&](const train::StepRecord& r) {
      if (const auto mean = interval_mean_loss(fit.state, r, 5)) result["train_loss"].push_back(*mean);
      if (r.step == g_stop_at_step.load()) train::request_stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(g_step_sleep_ms.load()));
    };
    fit.fit("items_per_second");
    return r.config.at("nested").get<bool>() ? Json{{"train", result}} : result;
  };
  s.report = [](const ReportInput&) { return StudyReport{}; };
  return s;
}

const StudyRegistration checkpointed_registration{checkpointed_study()};

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / fmt::format("hm_study_{}_{}", name, ::getpid());
  fs::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("study driver: a registered study runs, records every run durably and writes its report") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-study");
  CHECK(throws_with([] { find_study("nope"); }, {"unknown study 'nope'", "fake-study", "fourier-toy"}));
  const fs::path dir = fresh_dir("full");
  StudyOutcome out = run_study(spec, {.jobs = 2, .out = dir.string()}, nullptr);
  CHECK_FALSE(out.interrupted);
  CHECK(out.done == 6);
  CHECK(out.total == 6);
  CHECK(read_results((dir / "results.jsonl").string()).size() == 6);
  CHECK(read_text(dir / "summary.md") ==
        "6 runs\nk=0 seed=1 1\nk=1 seed=1 3\nk=2 seed=1 5\nk=0 seed=2 2\nk=1 seed=2 4\nk=2 seed=2 6\n");
  // The same command again only re-reports (nothing is missing); other settings are refused.
  g_runs = 0;
  out = run_study(spec, {.jobs = 2, .out = dir.string()}, nullptr);
  CHECK(g_runs.load() == 0);
  CHECK(out.done == 6);
  CHECK(throws_with([&] { run_study(spec, {.quick = true, .out = dir.string()}, nullptr); },
                    {"earlier study with other settings", "--resume", "--force"}));
  // --force starts over; --set reaches the grid.
  out = run_study(spec, {.jobs = 1, .sets = {"scale=10"}, .out = dir.string(), .force = true}, nullptr);
  CHECK(read_text(dir / "summary.md").find("k=2 seed=2 22") != std::string::npos);
  CHECK(throws_with([&] { run_study(spec, {.sets = {"scale=x"}, .out = (dir / "x").string()}, nullptr); }, {"scale"}));
  fs::remove_all(dir);
}

TEST_CASE("study driver: --only trains the matching runs now and the rest later, then the report") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-study");
  const fs::path reference = fresh_dir("only_reference"), dir = fresh_dir("only");
  run_study(spec, {.jobs = 2, .out = reference.string()}, nullptr);

  g_runs = 0;
  StudyOutcome part = run_study(spec, {.jobs = 2, .out = dir.string(), .only = "seed=2$"}, nullptr);
  CHECK(g_runs.load() == 3);
  CHECK_FALSE(part.interrupted);  // its selection is done: not a Ctrl-C
  CHECK(part.done == 3);
  CHECK_FALSE(fs::exists(dir / "summary.md"));  // the grid is not
  for (const RunRecord& r : read_results((dir / "results.jsonl").string()))
    CHECK(r.label.find("seed=2") != std::string::npos);
  CHECK(throws_with([&] { run_study(spec, {.resume = dir.string(), .only = "k=("}, nullptr); },
                    {"--only 'k=('", "not a regular expression"}));
  CHECK(throws_with([&] { run_study(spec, {.resume = dir.string(), .only = "seed=9"}, nullptr); },
                    {"--only 'seed=9' matches none of the grid's 6 run labels", "'k=0 seed=1'"}));
  g_runs = 0;  // --only with --resume; recorded runs that match are not run again
  part = run_study(spec, {.jobs = 1, .resume = dir.string(), .only = "k=0"}, nullptr);
  CHECK(g_runs.load() == 1);
  CHECK(part.done == 4);
  g_runs = 0;  // the same study without --only finishes the grid and reports it
  part = run_study(spec, {.jobs = 2, .resume = dir.string()}, nullptr);
  CHECK(g_runs.load() == 2);
  CHECK(part.done == 6);
  CHECK(read_text(dir / "summary.md") == read_text(reference / "summary.md"));
  fs::remove_all(reference);
  fs::remove_all(dir);
}

TEST_CASE("study driver: an interrupted study resumes to the same report, a torn line is re-run") {
  const StudySpec& spec = find_study("fake-study");
  const fs::path reference = fresh_dir("reference"), dir = fresh_dir("resume");
  g_stop_after = -1;
  run_study(spec, {.quick = true, .seeds = {3, 4}, .out = reference.string()}, nullptr);

  g_runs = 0;
  g_stop_after = 2;  // Ctrl-C arrives while the third run trains
  StudyOutcome cut = run_study(spec, {.quick = true, .jobs = 1, .seeds = {3, 4}, .out = dir.string()}, nullptr);
  CHECK(cut.interrupted);
  CHECK(cut.done == 2);
  CHECK_FALSE(fs::exists(dir / "summary.md"));
  CHECK_FALSE(train::stop_requested());  // the driver leaves the flag clear for the next study
  {  // --status: two recorded, one cut, three to run, what is left estimated from the recorded runs
    const std::string text = capture_log([&](std::FILE* log) { run_study(spec, {.status = dir.string()}, log); });
    INFO(text);
    CHECK(text.find("2 of 6 runs recorded") != std::string::npos);
    CHECK(text.find("in progress  k=1 seed=3 | started, no checkpoint yet") != std::string::npos);  // the cut one
    CHECK(text.find("to run       3 run(s)") != std::string::npos);
    CHECK(text.find("of training,") != std::string::npos);
    CHECK(text.find("on 1 job (") != std::string::npos);  // singular
  }
  CHECK(throws_with([&] { run_study(spec, {.quick = true, .resume = dir.string()}, nullptr); },
                    {"--resume takes its settings", "study.json"}));

  // A process killed mid-write leaves a torn last line: it is not a finished run.
  {
    std::ofstream torn(dir / "results.jsonl", std::ios::app);
    torn << R"({"label": "k=2 seed=3", "config": {"k")";
  }
  g_runs = 0;
  g_stop_after = -1;
  StudyOutcome resumed = run_study(spec, {.jobs = 2, .resume = dir.string()}, nullptr);
  CHECK_FALSE(resumed.interrupted);
  CHECK(resumed.done == 6);
  CHECK(g_runs.load() == 4);  // only the missing runs
  CHECK(read_text(dir / "summary.md") == read_text(reference / "summary.md"));
  CHECK(read_results((dir / "results.jsonl").string()).size() == 6);

  // --from rebuilds the report without training.
  fs::remove(dir / "summary.md");
  g_runs = 0;
  run_study(spec, {.from = dir.string()}, nullptr);
  CHECK(g_runs.load() == 0);
  CHECK(read_text(dir / "summary.md") == read_text(reference / "summary.md"));
  fs::remove_all(reference);
  fs::remove_all(dir);
}

// The estimate of what is left: seconds per unit of cost from the recorded runs, over the jobs,
// but never below the longest run left (fewer runs than jobs leave jobs idle).
TEST_CASE("study driver: --status estimates the training left, bounded by the longest run") {
  const StudySpec& spec = find_study("fake-study");
  const fs::path dir = fresh_dir("status_estimate");
  fs::create_directories(dir);
  write_file_atomic((dir / "study.json").string(),
                    R"({"study": "fake-study", "quick": true, "seeds": [3, 4], "options": {"scale": 2},
                        "sessions": [{"jobs": 4, "wall_seconds": 100}]})");
  // k=1 seed=3 (cost 1) took 100 s; left: costs 0, 2, 0, 1, 2 = 500 s, the longest 200 s.
  write_file_atomic((dir / "results.jsonl").string(),
                    R"({"label": "k=1 seed=3", "config": {"k": 1, "seed": 3, "scale": 2}, "result": {"value": 5},)"
                    R"( "seconds": 100})"
                    "\n");
  const std::string text = capture_log([&](std::FILE* log) { run_study(spec, {.status = dir.string()}, log); });
  INFO(text);
  CHECK(text.find("1 of 6 runs recorded") != std::string::npos);
  CHECK(text.find("about 8m20s of training, 3m20s on 4 jobs") != std::string::npos);  // not 500 / 4 = 2m05s
  fs::remove_all(dir);
}

TEST_CASE("study driver: results recorded under other settings are refused, not mixed in") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-study");
  const fs::path dir = fresh_dir("mismatch");
  run_study(spec, {.quick = true, .out = dir.string()}, nullptr);
  // Edit the recorded settings as if the grid had been made with another scale.
  std::string settings = read_text(dir / "study.json");
  settings.replace(settings.find("\"scale\": 2"), 10, "\"scale\": 5");
  write_file_atomic((dir / "study.json").string(), settings);
  CHECK(throws_with([&] { run_study(spec, {.resume = dir.string()}, nullptr); },
                    {"was recorded with config", "k=0 seed=1"}));
  CHECK(throws_with([&] { run_study(spec, {.resume = (dir / "missing").string()}, nullptr); },
                    {"cannot read", "study.json"}));
  fs::remove_all(dir);
}

TEST_CASE("study driver: a directory written before the study gained an option resumes with its default") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-study");
  const fs::path dir = fresh_dir("older-options");
  run_study(spec, {.quick = true, .out = dir.string()}, nullptr);
  const std::string summary = read_text(dir / "summary.md");
  // As written before the option "scale" existed.
  Json settings = Json::parse(read_text(dir / "study.json"));
  settings["options"].erase("scale");
  write_file_atomic((dir / "study.json").string(), settings.dump(2));
  CHECK_NOTHROW(run_study(spec, {.resume = dir.string()}, nullptr));
  settings["options"] = Json::object();
  write_file_atomic((dir / "study.json").string(), settings.dump(2));
  CHECK_NOTHROW(run_study(spec, {.quick = true, .out = dir.string()}, nullptr));  // the same command again
  CHECK(read_text(dir / "summary.md") == summary);
  // A stored value other than the default is still another study.
  settings["options"] = {{"scale", 3}};
  write_file_atomic((dir / "study.json").string(), settings.dump(2));
  CHECK(throws_with([&] { run_study(spec, {.quick = true, .out = dir.string()}, nullptr); }, {"other settings"}));
  fs::remove_all(dir);
}

TEST_CASE("study driver: Ctrl-C delivered twice at once (timeout -s INT signals the child and its group) is one stop") {
  train::clear_stop();
  {
    train::SigintScope scope;
    std::raise(SIGINT);
    std::raise(SIGINT);  // within half a second: the same request, not a second Ctrl-C that kills
    CHECK(train::stop_requested());
  }
  train::clear_stop();
}

// Found by fuzzing `study --from` (tests/fuzz/corpus/study_results/): options or records the
// study cannot read (an older version's study.json, edited results) let bare nlohmann errors
// escape ("key 'released_settings' not found"); they now name the study and the file.
TEST_CASE("study driver: --from with options or records the study cannot read names the file") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-study");
  const fs::path dir = fresh_dir("from_bad");
  run_study(spec, {.quick = true, .out = dir.string()}, nullptr);
  const std::string settings_text = read_text(dir / "study.json"), results_text = read_text(dir / "results.jsonl");
  const auto rewrite = [&](const fs::path& file, const std::string& text) { write_file_atomic(file.string(), text); };
  const auto from = [&] { run_study(spec, {.out = (dir / "report").string(), .from = dir.string()}, nullptr); };
  from();  // the study as written reports

  // An option the study gained after study.json was written takes its default, as for --resume.
  Json settings = Json::parse(settings_text);
  settings["options"].erase("scale");
  rewrite(dir / "study.json", settings.dump());
  CHECK_NOTHROW(from());
  settings["options"] = Json::array({2});
  rewrite(dir / "study.json", settings.dump());
  CHECK(throws_with(from, {"[study]", "the options of study 'fake-study'", (dir / "study.json").string()}));

  settings = Json::parse(settings_text);
  settings["sessions"] = Json::array({1});
  rewrite(dir / "study.json", settings.dump());
  CHECK(throws_with(from, {"[study]", (dir / "study.json").string(), "a session must be an object"}));
  settings["sessions"] = Json::array({{{"jobs", "two"}}});
  rewrite(dir / "study.json", settings.dump());
  CHECK(throws_with(from, {"[study]", (dir / "study.json").string(), "not a study's settings file"}));

  rewrite(dir / "study.json", settings_text);
  std::string edited = results_text;
  edited.replace(edited.find("\"value\":1"), 9, "\"value\":\"one\"");
  rewrite(dir / "results.jsonl", edited);
  CHECK(throws_with(from, {"[study]", "the results of study 'fake-study' in", (dir / "results.jsonl").string(),
                           "do not fit its report"}));
  fs::remove_all(dir);
}

TEST_CASE("study driver: a run stopped mid-training resumes from its work directory's checkpoint") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-checkpointed-study");
  const fs::path reference = fresh_dir("ckpt_reference"), dir = fresh_dir("ckpt_resume");
  g_stop_at_step = -1;
  run_study(spec, {.jobs = 1, .seeds = {7}, .out = reference.string()}, nullptr);
  const std::vector<RunRecord> want = read_results((reference / "results.jsonl").string());
  REQUIRE(want.size() == 1);
  CHECK(want[0].result.at("steps") == 12);
  CHECK_FALSE(fs::exists(reference / "in_progress"));

  g_stop_at_step = 7;  // Ctrl-C while the run is at step 7 of 12, between evaluations
  StudyOutcome cut = run_study(spec, {.jobs = 1, .seeds = {7}, .out = dir.string()}, nullptr);
  CHECK(cut.interrupted);
  CHECK(cut.done == 0);
  REQUIRE(fs::exists(dir / "in_progress"));
  const fs::path work = fs::directory_iterator(dir / "in_progress")->path();
  CHECK(optim::read_checkpoint_info((work / "checkpoint_last.safetensors").string()).step == 7);
  {  // --status shows the run in flight and runs nothing
    g_first_eval = -1;
    StudyOutcome status;
    const std::string text =
        capture_log([&](std::FILE* log) { status = run_study(spec, {.status = dir.string()}, log); });
    CHECK(status.done == 0);
    CHECK(status.total == 1);
    CHECK(g_first_eval.load() == -1);
    INFO(text);
    CHECK(text.find("0 of 1 runs recorded") != std::string::npos);
    CHECK(text.find("in progress  seed=7 | checkpoint at step 7 of 12") != std::string::npos);
    CHECK(text.find("metrics to step 6") != std::string::npos);  // logged every 3 steps
    CHECK(text.find("--resume") != std::string::npos);
  }

  g_stop_at_step = -1;
  run_study(spec, {.jobs = 1, .seeds = {7}, .out = dir.string()}, nullptr);
  CHECK(g_first_eval.load() == 10);  // continued after step 7 (evaluations every 5 steps), not from step 0
  // Nothing was recorded before, yet the first session is kept (its wall time counts).
  CHECK(Json::parse(read_text(dir / "study.json")).at("sessions").size() == 2);
  const std::vector<RunRecord> got = read_results((dir / "results.jsonl").string());
  REQUIRE(got.size() == 1);
  CHECK(got[0].result.at("curve") == want[0].result.at("curve"));
  REQUIRE(want[0].result.at("train_loss").size() == 2);  // steps 1-5 and 6-10
  CHECK(got[0].result.at("train_loss") == want[0].result.at("train_loss"));
  CHECK(got[0].result.at("steps") == 12);
  // The recorded wall time covers the training before the resume too.
  REQUIRE(got[0].result.contains("resumed"));
  CHECK(got[0].result.at("resumed").at("step") == 7);
  const double before = got[0].result.at("resumed").at("train_seconds").get<double>();
  CHECK(before > 0);
  CHECK(got[0].result.at("train_seconds").get<double>() > before);
  CHECK(got[0].seconds > before);
  CHECK_FALSE(want[0].result.contains("resumed"));
  CHECK_FALSE(fs::exists(dir / "in_progress"));  // removed once recorded

  // A work directory made for another config is not resumed; --force discards them all.
  g_stop_at_step = 5;
  run_study(spec, {.jobs = 1, .seeds = {8}, .out = (dir / "b").string()}, nullptr);
  const fs::path other = fs::directory_iterator(dir / "b" / "in_progress")->path();
  std::string marker = read_text(other / "study_run.json");
  marker.replace(marker.find('8'), 1, "9");
  write_file_atomic((other / "study_run.json").string(), marker);
  g_stop_at_step = -1;
  run_study(spec, {.jobs = 1, .seeds = {8}, .out = (dir / "b").string()}, nullptr);
  CHECK(g_first_eval.load() == 5);  // from step 0
  g_stop_at_step = 5;
  run_study(spec, {.jobs = 1, .seeds = {9}, .out = (dir / "c").string()}, nullptr);
  g_stop_at_step = -1;
  run_study(spec, {.jobs = 1, .seeds = {9}, .out = (dir / "c").string(), .force = true}, nullptr);
  CHECK(g_first_eval.load() == 5);
  fs::remove_all(reference);
  fs::remove_all(dir);
}

TEST_CASE("study driver: a resumed run's recorded time covers its earlier training when its result nests the fit") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-checkpointed-study");
  const fs::path dir = fresh_dir("ckpt_nested");
  const StudyArgs args{.jobs = 1, .seeds = {7}, .sets = {"nested=true"}, .out = dir.string()};
  g_stop_at_step = 7;
  g_step_sleep_ms = 40;  // the first session trains 7 steps for at least 0.28 s
  CHECK(run_study(spec, args, nullptr).interrupted);
  const double before = train::Trainer::checkpoint_training_seconds(
      work_checkpoint_of(fs::directory_iterator(dir / "in_progress")->path()).string());
  CHECK(before >= 0.28);
  g_stop_at_step = -1;
  g_step_sleep_ms = 0;  // the second session's 5 steps take far less than the first's 7
  run_study(spec, args, nullptr);
  const std::vector<RunRecord> got = read_results((dir / "results.jsonl").string());
  REQUIRE(got.size() == 1);
  const Json& fit = got[0].result.at("train");
  CHECK(fit.at("resumed").at("train_seconds").get<double>() == before);
  // The record covers both sessions' training: without the earlier session's seconds it would
  // hold only the second session's part, far less than the run's training across resumes.
  CHECK(got[0].seconds >= fit.at("train_seconds").get<double>());
  CHECK(got[0].seconds >= before);
  fs::remove_all(dir);
}

TEST_CASE("study driver: a second study process in the same directory is refused, not run twice") {
  g_stop_after = -1;
  const StudySpec& spec = find_study("fake-study");
  const fs::path dir = fresh_dir("locked");
  run_study(spec, {.quick = true, .out = dir.string()}, nullptr);
  {
    FileLock running((dir / "study.lock").string(), "test");  // as the first process holds it
    g_runs = 0;
    CHECK(throws_with([&] { run_study(spec, {.quick = true, .out = dir.string()}, nullptr); },
                      {"[study]", "study.lock", "locked by another process"}));
    CHECK(throws_with([&] { run_study(spec, {.resume = dir.string()}, nullptr); }, {"locked by another process"}));
    CHECK(g_runs.load() == 0);
    CHECK_NOTHROW(run_study(spec, {.status = dir.string()}, nullptr));  // looking needs no lock
    CHECK_NOTHROW(run_study(spec, {.from = dir.string()}, nullptr));
  }
  CHECK_NOTHROW(run_study(spec, {.quick = true, .out = dir.string()}, nullptr));  // released with its holder
  fs::remove_all(dir);
}

TEST_CASE("study driver: --project measures a run's steps, prices its whole length and records nothing") {
  const StudySpec& spec = find_study("fake-checkpointed-study");
  const fs::path dir = fresh_dir("project");
  StudyArgs args;
  args.out = dir.string();
  args.project = 3;
  const std::vector<RunProjection> rows = project_study(spec, args, nullptr);
  REQUIRE(rows.size() == 1);  // the grid's first run by default
  CHECK(rows[0].label == "seed=1");
  CHECK(rows[0].error.empty());
  CHECK(rows[0].task == "mlp-spirals");
  CHECK(rows[0].measured_steps == 3);
  CHECK(rows[0].total_steps == 12);  // small_spirals(12): the run's own length, not the measured steps
  CHECK(rows[0].ms_per_step > 0);
  CHECK(rows[0].projected_hours() == doctest::Approx(rows[0].ms_per_step * 12 / 3.6e6));
  CHECK_FALSE(fs::exists(dir));  // nothing written where the study would record
  args.only = "seed=";
  CHECK(project_study(spec, args, nullptr).size() == 2);
  args.only = "no such run";
  CHECK(throws_with([&] { project_study(spec, args, nullptr); }, {"--only 'no such run' matches none"}));
  args.only.clear();
  args.resume = dir.string();
  CHECK(throws_with([&] { project_study(spec, args, nullptr); }, {"--project measures a new grid"}));
  // A run that trains nothing says so.
  args.resume.clear();
  CHECK(project_study(find_study("fake-study"), args, nullptr)[0].error.find("without a training fit") !=
        std::string::npos);
}
