// Tests of resuming with a changed config: the resume-safe keys are applied (steps, lr), the
// others are refused naming the key; the best-metric bookkeeping carries over.
#include <functional>

#include "harmonic/core/safetensors.h"
#include "harmonic/optim/checkpoint.h"
#include "tests/helpers.h"
#include "tests/trainer_helpers.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;

TEST_CASE("trainer resume config: safe keys pass, others are refused naming the key") {
  Json c = small_spirals(10);
  Json ok = c;
  for (const char* s : {"trainer.steps=20", "trainer.log_every=1", "trainer.eval_every=2", "trainer.monitor=val_loss",
                        "trainer.early_stopping_patience=3", "lr=0.05", "trainer.clip_grad_norm=1"})
    apply_override(ok, s);
  check_resume_config(c, ok);
  for (const char* s : {"batch_size=16", "hidden=8", "seed=5", "trainer.accumulate=2", "momentum=0.5"}) {
    CAPTURE(s);
    Json bad = c;
    apply_override(bad, s);
    const std::string key = std::string(s).substr(0, std::string(s).find('='));
    CHECK(throws_with([&] { check_resume_config(c, bad); },
                      {"[resume] cannot change '" + key + "' when resuming", "Resume may change: trainer.steps"}));
  }
  // A key newer than the checkpoint (absent from its config) is fine at the task's default only.
  const Json defaults = default_config(find_task("mlp-spirals"));
  Json older = defaults;
  older.erase("momentum");
  check_resume_config(older, defaults, defaults);
  CHECK(throws_with([&] { check_resume_config(older, defaults); }, {"cannot change 'momentum'", "absent"}));
  Json changed = defaults;
  apply_override(changed, fmt::format("momentum={}", defaults["momentum"].get<double>() + 0.25));
  CHECK(throws_with([&] { check_resume_config(older, changed, defaults); }, {"cannot change 'momentum'", "absent"}));
  // Trainer::resume applies the same rule.
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  {
    auto task = build_task(spec, c, Device::cpu());
    Trainer t(*task, spec.name, c, dir.str());
    t.log = nullptr;
    t.fit();
  }
  Json bad = c;
  apply_override(bad, "points_per_class=60");
  auto task = build_task(spec, bad, Device::cpu());
  Trainer t(*task, spec.name, bad, dir.str());
  t.log = nullptr;
  CHECK(throws_with([&] { t.resume(dir / "checkpoint_last.safetensors"); }, {"cannot change 'points_per_class'"}));
}

TEST_CASE("trainer resume: more steps and a new lr take effect, across a second resume") {
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(3);
  std::vector<double> lrs;
  auto run = [&](const Json& config, bool resume) {
    auto task = build_task(spec, config, Device::cpu());
    Trainer t(*task, spec.name, config, dir.str());
    t.log = nullptr;
    t.on_step = [&](const StepRecord& r) { lrs.push_back(r.lr); };
    if (resume) t.resume(dir / "checkpoint_last.safetensors");
    return t.fit();
  };
  run(c, false);
  Json more = c;
  apply_override(more, "trainer.steps=5");
  apply_override(more, "lr=0.05");
  CHECK(run(more, true).step == 5);
  apply_override(more, "trainer.steps=6");  // lr stays 0.05: the scale is kept in the checkpoint
  CHECK(run(more, true).step == 6);
  CHECK(lrs == std::vector<double>{0.1, 0.1, 0.1, 0.05, 0.05, 0.05});
  CHECK(optim::read_checkpoint_info(dir / "checkpoint_last.safetensors").config["lr"] == 0.05);
}

TEST_CASE("trainer resume: the best metric and the patience count carry over") {
  ScratchDir dir;
  Json c = ScriptedTask::config(
      {"trainer.steps=2", "trainer.eval_every=1", "trainer.monitor=val_loss", "trainer.early_stopping_patience=2"});
  {
    ScriptedTask task({0.5, 0.7});  // best 0.5 at step 1, one evaluation without improvement
    Trainer t(task, "scripted", c, dir.str());
    t.log = nullptr;
    t.fit();
  }
  apply_override(c, "trainer.steps=10");
  ScriptedTask task({0.6, 0.4});  // step 3: 0.6 is not better than 0.5 -> the second miss stops
  Trainer t(task, "scripted", c, dir.str());
  t.log = nullptr;
  t.resume(dir / "checkpoint_last.safetensors");
  FitResult r = t.fit();
  CHECK(r.stopped_early);
  CHECK(r.step == 3);
  CHECK(r.best == 0.5);
  CHECK(r.best_step == 1);
  CHECK(optim::read_checkpoint_info(dir / "checkpoint_best.safetensors").step == 1);
}

// Found by fuzzing (tests/fuzz/corpus/resume/): a checkpoint whose "extra" lacks a field or
// holds one of another type let a bare nlohmann error escape ("key 'batch_in_epoch' not found").
TEST_CASE("trainer resume: malformed trainer metadata in a checkpoint is refused naming the file") {
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  const Json c = small_spirals(2);
  {
    auto task = build_task(spec, c, Device::cpu());
    Trainer t(*task, spec.name, c, dir.str());
    t.log = nullptr;
    t.fit();
  }
  const std::string good = dir / "checkpoint_last.safetensors", bad = dir / "edited.safetensors";
  auto resume_with_extra = [&](const std::function<void(Json&)>& edit) {
    SafetensorsFile file = load_safetensors(good);
    Json extra = Json::parse(file.metadata.at("extra"));
    edit(extra);
    file.metadata["extra"] = extra.dump();
    save_safetensors(bad, file.tensors, file.metadata);
    auto task = build_task(spec, c, Device::cpu());
    Trainer t(*task, spec.name, c, dir.str());
    t.log = nullptr;
    t.resume(bad);
  };
  CHECK(throws_with([&] { resume_with_extra([](Json& x) { x.erase("batch_in_epoch"); }); },
                    {"[Trainer::resume]", bad, "\"extra\" metadata", "batch_in_epoch"}));
  CHECK(throws_with([&] { resume_with_extra([](Json& x) { x["elapsed"] = "soon"; }); },
                    {"[Trainer::resume]", bad, "malformed", "number"}));
  CHECK(throws_with([&] { resume_with_extra([](Json& x) { x["best_step"] = Json::array(); }); },
                    {"[Trainer::resume]", bad, "malformed"}));
  // A "task" that is not a string: the checkpoint belongs to no task (was a bare type error).
  CHECK(throws_with([&] { resume_with_extra([](Json& x) { x["task"] = 3; }); },
                    {"[Trainer::resume]", "is a checkpoint of task '?', not 'mlp-spirals'"}));
  CHECK(checkpoint_task(optim::read_checkpoint_info(bad)).empty());
  CHECK(checkpoint_task(optim::read_checkpoint_info(good)) == "mlp-spirals");
  resume_with_extra([](Json&) {});  // the unedited metadata resumes
}

TEST_CASE("trainer: checkpoint_seconds checkpoints during the run, and the caller state comes back from resume") {
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(6);
  apply_override(c, "trainer.checkpoint_seconds=1e-9");  // due after every step
  const std::string last = dir / "checkpoint_last.safetensors";
  {
    auto task = build_task(spec, c, Device::cpu());
    Trainer t(*task, spec.name, c, dir.str());
    t.log = nullptr;
    std::vector<int64_t> on_disk;  // the checkpoint's step as each step begins its callback
    t.on_step = [&](const StepRecord& r) {
      if (r.step > 1) on_disk.push_back(optim::read_checkpoint_info(last).step);
    };
    int64_t calls = 0;
    t.checkpoint_state = [&] { return Json{{"calls", ++calls}, {"step", t.step()}}; };
    t.fit();
    CHECK(on_disk == std::vector<int64_t>{1, 2, 3, 4, 5});
    CHECK(calls == 6);
  }
  // Resume returns the state saved with the checkpoint; a checkpoint written without one gives null.
  Json more = c;
  apply_override(more, "trainer.steps=7");
  apply_override(more, "trainer.checkpoint_seconds=0");
  auto task = build_task(spec, more, Device::cpu());
  Trainer t(*task, spec.name, more, dir.str());
  t.log = nullptr;
  CHECK(t.resume(last) == Json{{"calls", 6}, {"step", 6}});
  t.fit();  // no checkpoint_state: the final checkpoint carries none
  Trainer again(*task, spec.name, more, dir.str());
  CHECK(again.resume(last).is_null());
  CHECK(again.elapsed_seconds() > 0);

  apply_override(c, "trainer.checkpoint_seconds=-1");
  CHECK(throws_with([&] { Trainer bad(*task, spec.name, c, ""); }, {"trainer.checkpoint_seconds", "-1"}));
}

TEST_CASE("trainer: a late trainer key is left out of default configs but --set and config files set it") {
  Json c = small_spirals(2);
  CHECK_FALSE(c.at("trainer").contains("checkpoint_seconds"));  // recorded study configs stay as they were
  apply_override(c, "trainer.checkpoint_seconds=60");
  CHECK(c.at("trainer").at("checkpoint_seconds") == 60.0);
  Json d = small_spirals(2);
  merge_config(d, Json{{"trainer", {{"checkpoint_seconds", 30}}}}, "test.json");
  CHECK(d.at("trainer").at("checkpoint_seconds") == 30.0);
  CHECK(TrainerOptions::from_json(d.at("trainer")).checkpoint_seconds == 30.0);
  CHECK(throws_with([&] { apply_override(d, "trainer.checkpoint_second=1"); },
                    {"unknown key 'trainer.checkpoint_second'"}));
  CHECK(throws_with(
      [&] {
        merge_config(d, Json{{"checkpoint_seconds", 1}}, "x.json");
      },
      {"unknown key 'checkpoint_seconds'"}));
  CHECK(throws_with([&] { apply_override(d, "trainer.checkpoint_seconds=soon"); }, {"checkpoint_seconds", "a number"}));
}
