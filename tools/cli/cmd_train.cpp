// `harmonic train|eval|grads`: the commands of tools/train/train_cli.h (a library, so user
// executables get the same commands from hm::train::train_main). `harmonic eval` adds the
// language-model modes (tools/tasks/lm_text.h):
//   eval --checkpoint X --text FILE   perplexity of FILE under the model X (a saved language
//                                     model directory, a kjv-lm run directory or checkpoint)
//   eval --checkpoint SAVED_DIR       the kjv-lm task's metrics of a saved language model
#include <fmt/format.h>

#include "harmonic/core/parallel.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/tasks/kjv_lm.h"
#include "harmonic/tools/tasks/lm_text.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/train_cli.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::cli {
namespace {

CLI::App* g_app = nullptr;   // the App the three commands were added to
CLI::App* g_eval = nullptr;  // its eval subcommand

struct LmEvalArgs {
  std::string text;
  int64_t max_tokens = 0, batch_size = 16;
} lm_args;

std::string option(const char* name) {
  const CLI::Option* o = g_eval->get_option(name);
  return o->count() ? o->as<std::string>() : "";
}

Device device() {
  const std::string d = option("--device");
  return Device::parse(d.empty() ? "cpu" : d);
}

void print_metrics(const Json& metrics) {
  for (const auto& [k, v] : metrics.items())
    fmt::print("  {:<20} {}\n", k, v.is_number_float() ? fmt::format("{:.6g}", v.get<double>()) : v.dump());
}

// `eval --text FILE`: the perplexity of a text file.
int eval_text(const std::string& checkpoint, const std::string& out) {
  const bool which = checkpoint.empty() || checkpoint == "last" || checkpoint == "best";
  const std::string path = which ? out : checkpoint;
  check(!path.empty(), "eval", "--text needs the model: --checkpoint DIR|FILE (or --out RUN_DIR)");
  train::LanguageModel lm =
      train::load_language_model(path, device(), which && !checkpoint.empty() ? checkpoint : "last");
  train::TextScore s = train::score_text(lm, data::read_text(lm_args.text), lm_args.max_tokens, lm_args.batch_size);
  fmt::print("{} ({}), text {}, block_size {} windows:\n", lm.source,
             lm.step >= 0 ? fmt::format("step {}", lm.step) : "saved model", lm_args.text, lm.gpt->config.block_size);
  fmt::print(
      "  tokens         {}\n  unk_rate       {:.6g}\n  scored_tokens  {}\n  loss           {:.6g}\n"
      "  ppl            {:.6g}\n",
      s.tokens, s.unk_rate(), s.score.tokens, s.score.loss, s.score.ppl());
  return 0;
}

// `eval --checkpoint SAVED_DIR`: the kjv-lm task built from the saved training config, with
// the saved weights, evaluated as `eval --out RUN` does.
int eval_saved(const std::string& dir) {
  train::LanguageModel lm = train::load_language_model(dir);
  check(lm.task_config.is_object(), "eval", "'{}' was saved without a training config; use --text FILE", dir);
  std::vector<std::string> sets;
  if (const CLI::Option* o = g_eval->get_option("--set"); o->count()) sets = o->as<std::vector<std::string>>();
  const Json config = train::resolve_config(lm.task_config, option("--config"), sets);
  const train::TaskSpec& spec = train::find_task(train::kKjvLmTask);
  std::unique_ptr<train::Task> task = train::build_task(spec, config, device());
  task->model().load_state_dict(lm.gpt->state_dict());
  train::Trainer trainer(*task, spec.name, config, "");
  trainer.log = nullptr;
  Json metrics = trainer.evaluate();
  fmt::print("{} (saved model):\n", lm.source);
  print_metrics(metrics);
  return 0;
}

int run() {
  if (g_app->got_subcommand("eval")) {
    const std::string checkpoint = option("--checkpoint"), threads = option("--threads");
    if (!threads.empty() && std::stoi(threads) > 0) set_num_threads(std::stoi(threads));
    if (!lm_args.text.empty()) return eval_text(checkpoint, option("--out"));
    if (!checkpoint.empty() && train::is_saved_language_model(checkpoint)) return eval_saved(checkpoint);
  }
  return train::run_train_commands(*g_app);
}

// "train" adds all three subcommands; "eval" and "grads" are listed so main() finds them.
Registration train_reg{{"train",
                        [](CLI::App& app) {
                          g_app = &app;
                          train::add_train_commands(app);
                          g_eval = app.get_subcommand("eval");
                          g_eval->add_option("--text", lm_args.text,
                                             "language models: the perplexity of this text file instead (with "
                                             "--checkpoint a saved model directory, run directory or checkpoint)");
                          g_eval
                              ->add_option("--max-tokens", lm_args.max_tokens,
                                           "with --text: score about this many tokens in evenly spaced windows "
                                           "(0: all)")
                              ->capture_default_str();
                          g_eval->add_option("--batch-size", lm_args.batch_size, "with --text: windows per forward")
                              ->capture_default_str();
                        },
                        run}};
Registration eval_reg{{"eval", [](CLI::App&) {}, run}};
Registration grads_reg{{"grads", [](CLI::App&) {}, run}};

}  // namespace
}  // namespace hm::cli
