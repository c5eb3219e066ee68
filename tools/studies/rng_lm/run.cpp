#include "harmonic/tools/studies/rng_lm/run.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"
#include "harmonic/core/file_lock.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/tasks/kjv_lm.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/tasks/rng_lm.h"
#include "harmonic/tools/tasks/rng_lm_data.h"
#include "harmonic/tools/tasks/rng_lm_metrics.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace {

constexpr const char* kRngLmStudy = "study rng-lm";
namespace fs = std::filesystem;

// An exclusive flock held for the object's life (released on close, also if the process dies).
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Json read_json(const std::string& path) {
  std::ifstream in(path);
  check(in.good(), kRngLmStudy, "cannot read '{}'", path);
  return parse_json(in, kRngLmStudy, fmt::format("'{}'", path));
}

}  // namespace

std::string ensure_rng_base_model(const std::string& study_dir, const Json& pretrain, Device device) {
  check(!study_dir.empty(), kRngLmStudy, "the base model needs a study directory");
  fs::create_directories(study_dir);
  const std::string dir = (fs::path(study_dir) / "base_model").string();
  const std::string info_path = (fs::path(study_dir) / "base_model.json").string();
  FileLock lock((fs::path(study_dir) / "base_model.lock").string(), kRngLmStudy);  // one pretraining per study
  if (train::is_saved_language_model(dir) && fs::exists(info_path)) {
    const Json info = read_json(info_path);
    check(info.at("config") == pretrain, kRngLmStudy,
          "'{}' was pretrained with another config; use a new study directory (or --force)", dir);
    return dir;
  }
  const auto t0 = std::chrono::steady_clock::now();
  train::KjvLmTask task(pretrain, device);
  // Checkpointed in DIR/pretrain (every trainer.checkpoint_every steps and on Ctrl-C), so an
  // interrupted study resumes its pretraining rather than starting it over.
  const std::string run_dir = (fs::path(study_dir) / "pretrain").string();
  train::Trainer trainer(task, train::kKjvLmTask, pretrain, run_dir);
  quiet_study_trainer(trainer);
  if (fs::exists(trainer.checkpoint_path())) trainer.resume(trainer.checkpoint_path());
  const train::FitResult fit = fit_or_interrupt(trainer);
  const Json metrics = trainer.evaluate();
  train::save_language_model(dir, task.gpt(), task.tokenizer(), pretrain);
  Json info = {{"config", pretrain},
               {"seconds", seconds_since(t0)},
               {"vocab", task.tokenizer().vocab_size()},
               {"parameters", task.gpt().num_parameters()},
               {"train_tokens", task.corpus().train.size()},
               {"val_loss", metrics.value("val_loss", NAN)},
               {"val_ppl", metrics.value("val_ppl", NAN)},
               {"test_ppl", metrics.value("test_ppl", NAN)}};
  write_file_atomic(info_path, info.dump(2) + "\n");
  fs::remove_all(run_dir);  // the saved model is what the runs read
  return dir;
}

Json run_rng_lm(const Json& config, const std::string& study_dir, const std::string& work_dir) {
  const std::string model = config.at("model").get<std::string>();
  const auto seed = config.at("seed").get<uint64_t>();
  const int64_t samples = config.at("samples").get<int64_t>();
  const Device device = Device::parse(config.value("device", "cpu"));
  const std::string base_dir = ensure_rng_base_model(study_dir, config.at("pretrain"), device);

  Json result = {{"model", model}, {"seed", seed}, {"train", nullptr}};
  std::unique_ptr<train::RngLmTask> task;
  train::LanguageModel base;
  if (model == "base") {
    base = train::load_language_model(base_dir);
    base.gpt->to(device);
  } else {
    Json ft = config.at("finetune");
    ft["seed"] = seed;
    ft["base_model"] = base_dir;
    ft["head"] = model.starts_with("fourier") ? "fourier" : "token";
    ft["trainer"]["epochs"] = config.at("epochs");
    task = std::make_unique<train::RngLmTask>(ft, device);
    StudyFit::configure(ft, work_dir);
    train::Trainer trainer(*task, train::kRngLmTask, ft, work_dir);
    quiet_study_trainer(trainer);
    Json fine_tuning = {{"epochs", config.at("epochs")}, {"trainable_parameters", task->trainable_parameters()}};
    StudyFit fit(trainer, fine_tuning);
    if (!fit.resumed()) fine_tuning["loss_before"] = task->evaluate().at("train_loss");
    fit.fit();
    fine_tuning["loss_after"] = task->evaluate().at("train_loss");
    fine_tuning["seconds"] = fine_tuning.at("train_seconds");
    result["train"] = fine_tuning;
  }
  models::GPT& gpt = task ? task->gpt() : *base.gpt;
  const data::Tokenizer& tok = task ? task->tokenizer() : *base.tokenizer;

  const auto& dists = train::rng_distributions();
  double tvd_p = 0, tvd_1 = 0, unique = 0, invalid = 0;
  for (size_t d = 0; d < dists.size(); ++d) {
    // The evaluation prompt: x1, x2 drawn per (seed, distribution), the same for every model.
    std::mt19937_64 rng(1000003 * seed + d);
    const double x1 = train::draw_rng_value(dists[d], rng), x2 = train::draw_rng_value(dists[d], rng);
    const std::string prompt = train::rng_prompt(dists[d], x1, x2);
    const uint64_t sample_seed = 7919 * seed + d;
    std::vector<double> valid;
    int64_t bad = 0;
    if (task && task->fourier()) {
      valid = train::sample_fourier_values(gpt, task->head(), tok, prompt, samples, sample_seed);
    } else {
      // " X.XX," is at most 7 characters; 8 leave room for one more digit to be refused.
      for (const std::string& text : train::sample_continuations(gpt, tok, prompt, samples, 8, sample_seed)) {
        if (auto v = train::parse_rng_sample(text))
          valid.push_back(*v);
        else
          ++bad;
      }
    }
    const std::vector<double> truth = train::quantised_gaussian_histogram(dists[d].mu, dists[d].sigma);
    const std::vector<double> hist = train::empirical_histogram(valid, samples);
    Json r = {{"mu", dists[d].mu},
              {"sigma", dists[d].sigma},
              {"prompt", prompt},
              {"tvd_paper", train::tvd_paper(truth, hist)},
              {"tvd_l1", train::tvd_l1(truth, hist)},
              {"unique", train::unique_samples(valid)},
              {"invalid", bad},
              {"samples", samples},
              {"histogram", hist},
              {"truth", truth}};
    tvd_p += r["tvd_paper"].get<double>() / dists.size();
    tvd_1 += r["tvd_l1"].get<double>() / dists.size();
    unique += static_cast<double>(r["unique"].get<int64_t>()) / dists.size();
    invalid += static_cast<double>(bad) / dists.size();
    result["distributions"].push_back(r);
  }
  result["tvd_paper"] = tvd_p;
  result["tvd_l1"] = tvd_1;
  result["unique"] = unique;
  result["invalid"] = invalid;
  return result;
}

}  // namespace hm::studies
