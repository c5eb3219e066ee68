// What a new user of `harmonic train` trips over: the shorthands --steps/--epochs/--lr/
// --batch-size, "did you mean" for unknown options and config keys, a warmup longer than the
// run, a negative --threads, --checkpoint best of a run without a monitor, and the unit of the
// progress line.
#include <filesystem>
#include <fstream>

#include "harmonic/optim/checkpoint.h"
#include "tests/helpers.h"
#include "tests/trainer_helpers.h"
#include "harmonic/tools/train/did_you_mean.h"
#include "harmonic/tools/train/train_cli.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;
namespace fs = std::filesystem;

namespace {

// train_main on the words of a command line (argv[0] added); its exit code and stderr.
std::pair<int, std::string> cli(std::vector<std::string> words) {
  words.insert(words.begin(), "harmonic");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  int code = -1;
  const std::string err = capture_stderr([&] { code = train_main(static_cast<int>(argv.size()), argv.data()); });
  return {code, err};
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

// A small mlp-spirals run in dir, then the test's own words.
std::vector<std::string> spirals(const std::string& dir, std::initializer_list<std::string> extra = {}) {
  std::vector<std::string> words = {"train", "mlp-spirals", "--out", dir, "--set", "points_per_class=20",
                                    "--set", "hidden=8", "--set", "trainer.log_every=100"};
  words.insert(words.end(), extra);
  return words;
}

Json saved_config(const fs::path& dir) {
  std::ifstream in(dir / "config.json");
  return Json::parse(in);
}

}  // namespace

TEST_CASE("train hints: --steps, --lr and --batch-size set their config keys, --epochs trains by epochs") {
  ScratchDir dir;
  auto args = spirals(dir.str(), {"--steps", "3", "--lr", "0.05", "--batch-size", "16"});
  REQUIRE(cli(args).first == 0);
  const Json c = saved_config(dir.path);
  CHECK(c["trainer"]["steps"] == 3);
  CHECK(c["lr"].get<double>() == 0.05);
  CHECK(c["batch_size"] == 16);
  CHECK(optim::read_checkpoint_info(dir.file("checkpoint_last.safetensors")).step == 3);

  ScratchDir by_epochs;
  args = spirals(by_epochs.str(), {"--epochs", "2", "--batch-size", "0"});  // full batch: one step per epoch
  auto [epochs_code, epochs_err] = cli(args);
  REQUIRE(epochs_code == 0);
  CHECK(saved_config(by_epochs.path)["trainer"]["steps"] == 0);  // else the default steps would win
  CHECK(optim::read_checkpoint_info(by_epochs.file("checkpoint_last.safetensors")).step == 2);

  ScratchDir both;
  args = spirals(both.str(), {"--steps", "3", "--epochs", "2"});
  auto [code, err] = cli(args);
  CHECK(code == 1);
  CHECK(has(err, "give --steps or --epochs, not both"));
}

TEST_CASE("train hints: unknown options and config keys get suggestions") {
  ScratchDir dir;
  auto args = spirals(dir.str(), {"--step", "3"});
  auto [code, err] = cli(args);
  CHECK(code != 0);
  CHECK(has(err, "train: unknown option '--step' (did you mean '--steps'?)"));
  CHECK_FALSE(fs::exists(dir.file("config.json")));

  Json c = hm::test::small_spirals(2);
  CHECK(throws_with([&] { apply_override(c, "trainer.step=3"); },
                    {"unknown key 'trainer.step' (did you mean 'trainer.steps'?)"}));
  CHECK(throws_with([&] { apply_override(c, "steps=3"); }, {"unknown key 'steps' (did you mean 'trainer.steps'?)"}));
  CHECK(throws_with([&] { apply_override(c, "trainer.warmup=3"); }, {"did you mean 'trainer.warmup_steps'?"}));
  CHECK(throws_with([&] { apply_override(c, "zzz=3"); }, {"unknown key 'zzz' (valid keys:"}));  // nothing close

  CHECK(close_names("lr", {"lr", "trainer.lr_decay", "hidden"}).empty());  // itself is not a suggestion
  CHECK(close_names("--treads", {"--threads", "--steps", "--out"}) == std::vector<std::string>{"--threads"});
  CHECK(did_you_mean("batchsize", {"batch_size", "seed"}) == " (did you mean 'batch_size'?)");
}

TEST_CASE("train hints: a warmup as long as the run is refused") {
  ScriptedTask task({1.0});
  Trainer t(task, "scripted", ScriptedTask::config({"trainer.steps=4", "trainer.warmup_steps=4"}), "");
  t.log = nullptr;
  CHECK(throws_with([&] { t.fit(); }, {"[Trainer::fit]", "trainer.warmup_steps=4", "has 4 steps", "inside the warmup"}));
  ScriptedTask ok_task({1.0});
  Trainer ok(ok_task, "scripted", ScriptedTask::config({"trainer.steps=4", "trainer.warmup_steps=3"}), "");
  ok.log = nullptr;
  CHECK(ok.fit().step == 4);
}

TEST_CASE("train hints: a shortened run scales the task's default warmup and says so, a set warmup is kept") {
  // kjv-lm: 200 warmup steps of 2000; --steps 60 keeps the share, 6 (was refused: 200 >= 60).
  const Json kjv = default_config(find_task("kjv-lm"));
  REQUIRE(kjv["trainer"]["warmup_steps"] == 200);
  Json shortened = kjv;
  apply_override(shortened, "trainer.steps=60");
  CHECK(has(scale_default_warmup(shortened, kjv, 1), "trainer.warmup_steps: 200 -> 6"));
  CHECK(shortened["trainer"]["warmup_steps"] == 6);
  Json two = kjv;
  apply_override(two, "trainer.steps=2");
  scale_default_warmup(two, kjv, 1);
  CHECK(two["trainer"]["warmup_steps"] == 0);  // below the run's length
  Json longer = kjv;
  apply_override(longer, "trainer.steps=4000");
  CHECK(scale_default_warmup(longer, kjv, 1).empty());  // only a shortened run
  CHECK(longer["trainer"]["warmup_steps"] == 200);

  // Through the command: audio-bpm's smoke run has 3 steps with 1 of warmup; one step runs.
  ScratchDir dir;
  std::vector<std::string> args = {"train", "audio-bpm", "--smoke", "--steps", "1", "--out", dir.str()};
  int code = -1;
  const std::string out = hm::test::capture_stdout([&] { code = cli(args).first; });
  CHECK(code == 0);
  CHECK(has(out, "trainer.warmup_steps: 1 -> 0, the task's 1 of 3 steps scaled to this run's 1"));
  CHECK(saved_config(dir.path)["trainer"]["warmup_steps"] == 0);
  // The user's own warmup is theirs: refused when it does not fit.
  args.insert(args.end(), {"--force", "--set", "trainer.warmup_steps=1"});
  auto [refused, err] = cli(args);
  CHECK(refused == 1);
  CHECK(has(err, "trainer.warmup_steps=1 but the run has 1 steps"));
}

TEST_CASE("train hints: --threads must be >= 0") {
  ScratchDir dir;
  auto args = spirals(dir.str(), {"--threads", "-3", "--print-config"});
  auto [code, err] = cli(args);
  CHECK(code != 0);
  CHECK(has(err, "thread count must be an integer >= 0 (0: all cores), got '-3'"));
}

TEST_CASE("train hints: --checkpoint best of a run without trainer.monitor says so") {
  ScratchDir dir;
  auto args = spirals(dir.str(), {"--steps", "2"});
  REQUIRE(cli(args).first == 0);
  auto [code, err] = cli({"eval", "--out", dir.str(), "--checkpoint", "best"});
  CHECK(code == 1);
  CHECK(has(err, "trained without trainer.monitor"));
  CHECK(has(err, "--checkpoint last"));
  CHECK_FALSE(has(err, "train first"));
}

TEST_CASE("train hints: the progress line counts the task's unit (tokens for a language model)") {
  struct TokenTask : ScriptedTask {
    TokenTask() : ScriptedTask({1.0}) {}
    Throughput throughput() const override { return {"tokens", 16}; }
  } task;
  ScratchDir dir;
  Trainer t(task, "tokens", ScriptedTask::config({"trainer.steps=2", "trainer.log_every=1"}), dir.str());
  const std::string out = hm::test::capture_log([&](std::FILE* log) {
    t.log = log;
    t.fit();
  });
  CHECK(has(out, " tokens/s | "));
  CHECK_FALSE(has(out, "items/s"));
  const auto lines = hm::test::read_jsonl(dir.file("metrics.jsonl"));
  const auto& last = lines.back();
  REQUIRE(last.contains("tokens_per_s"));
  CHECK(last["tokens_per_s"].get<double>() == doctest::Approx(16 * last["items_per_s"].get<double>()));
}

TEST_CASE("train hints: the start line counts in the singular too") {
  ScriptedTask task({1.0});
  Trainer t(task, "scripted", ScriptedTask::config({"trainer.steps=1"}), "");
  const std::string out = hm::test::capture_log([&](std::FILE* log) {
    t.log = log;
    t.fit();
  });
  CHECK(has(out, "training scripted: 1 step (2 batches per epoch)"));
}

TEST_CASE("train hints: the start line is followed by the model summary: parameters, device, threads, precision") {
  ScriptedTask task({1.0});  // nn::Linear(2, 1): 2 weights and a bias
  Trainer t(task, "scripted", ScriptedTask::config({"trainer.steps=1"}), "");
  const std::string out = hm::test::capture_log([&](std::FILE* log) {
    t.log = log;
    t.fit();
  });
  const int threads = get_num_threads();
  CHECK(has(out, fmt::format("training scripted: 1 step (2 batches per epoch)\nmodel: 3 parameters (12 B) | device "
                             "cpu, {} CPU thread{} | precision fp32\n",
                             threads, threads == 1 ? "" : "s")));
  // The emulated CUDA device says what it is (its kernels run on the host, far slower than a GPU).
  CHECK(run_summary_line({zeros({1000, 1000}), zeros({24}, {.dtype = DType::Float64})}, Device::cuda(), true, "bf16",
                         1) ==
        "model: 1,000,024 parameters (3.8 MiB) | device cuda:0 (emulated: its kernels run on the host, no GPU), 1 CPU "
        "thread | precision bf16 autocast (fp32 weights)");
  CHECK(has(run_summary_line({}, Device::cuda(), false, "fp32", 4), "| device cuda:0, 4 CPU threads |"));
}

TEST_CASE("train hints: trainer.eval_every on a task without a validation split warns once, not silently") {
  struct NoValidation : ScriptedTask {
    NoValidation() : ScriptedTask({1.0}) {}
    Json validate() override { return Json::object(); }
  } task;
  Trainer t(task, "noval", ScriptedTask::config({"trainer.steps=6", "trainer.eval_every=2"}), "");
  const std::string out = hm::test::capture_log([&](std::FILE* log) {
    t.log = log;
    t.fit();
  });
  const std::string warning = "warning: trainer.eval_every=2 but task 'noval' has no validation split";
  CHECK(has(out, warning));
  CHECK(out.find(warning) == out.rfind(warning));  // once
  CHECK(has(out, "eval at step 6:  test_metric 1.0000"));  // the last evaluation still runs the test split
}

TEST_CASE("train hints: --list prints a table of the tasks, --list --json their configs as JSON") {
  int code = -1;
  const std::string table = hm::test::capture_stdout([&] { code = cli({"train", "--list"}).first; });
  CHECK(code == 0);
  CHECK(table.rfind("task ", 0) == 0);
  CHECK(has(table, "length"));
  CHECK(has(table, "2000 steps"));  // kjv-lm's row
  CHECK(table.find("\"trainer\"") == std::string::npos);  // no config JSON in the table
  const std::string json = hm::test::capture_stdout([&] { code = cli({"train", "--list", "--json"}).first; });
  CHECK(code == 0);
  const Json tasks = Json::parse(json);
  REQUIRE(tasks.is_array());
  const auto kjv = std::find_if(tasks.begin(), tasks.end(), [](const Json& t) { return t["name"] == "kjv-lm"; });
  REQUIRE(kjv != tasks.end());
  CHECK((*kjv)["config"]["trainer"]["warmup_steps"] == 200);
  CHECK(has(cli({"train", "kjv-lm", "--json"}).second, "--json goes with --list"));
}
