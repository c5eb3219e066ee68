// `harmonic sample`: text from a language model (a saved model directory, or a kjv-lm run
// directory or checkpoint) continuing a prompt, through GPT::generate with the KV cache.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harmonic/core/parallel.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/train/threads_option.h"
#include "harmonic/tools/tasks/lm_text.h"

namespace hm::cli {
namespace {

struct SampleArgs {
  std::string checkpoint, which = "last", prompt, device = "cpu", save_model;
  int64_t tokens = 100, top_k = 0;
  double temperature = 1.0, top_p = 1.0;
  uint64_t seed = 0;
  int threads = 0;
  bool no_cache = false;
} args;

int run_sample() {
  if (args.threads > 0) set_num_threads(args.threads);
  train::LanguageModel lm = train::load_language_model(args.checkpoint, Device::parse(args.device), args.which);
  if (!args.save_model.empty()) {
    train::save_language_model(args.save_model, *lm.gpt, *lm.tokenizer, lm.task_config);
    fmt::print(stderr, "saved the model to {}\n", args.save_model);
  }
  train::EncodedText prompt = train::encode_text(*lm.tokenizer, args.prompt);
  check(prompt.ids.numel() > 0, "sample", "the prompt \"{}\" has no token; give --prompt TEXT", args.prompt);
  if (prompt.unk > 0)
    fmt::print(stderr, "{} of the prompt's {} tokens are not in the vocabulary and became <unk>: {}\n", prompt.unk,
               prompt.ids.numel(), fmt::join(prompt.unknown, ", "));
  train::GenerateOptions o{.tokens = args.tokens,
                           .sampling = {.temperature = args.temperature, .top_k = args.top_k, .top_p = args.top_p},
                           .seed = args.seed,
                           .use_cache = !args.no_cache};
  fmt::print("{}\n", train::generate_text(lm, prompt, o));
  return 0;
}

Registration reg{
    {"sample",
     [](CLI::App& app) {
       auto* cmd = app.add_subcommand("sample", "Generate text from a language model (saved directory or kjv-lm run)");
       cmd->add_option("--checkpoint", args.checkpoint,
                       "a saved language model directory, a kjv-lm run directory, or a kjv-lm checkpoint file")
           ->required();
       cmd->add_option("--which", args.which, "of a run directory: last or best checkpoint")->capture_default_str();
       cmd->add_option("--prompt", args.prompt, "the text to continue (unknown words become <unk>)")->required();
       cmd->add_option("--tokens", args.tokens, "new tokens to generate")->capture_default_str();
       cmd->add_option("--temperature", args.temperature, "softmax temperature; 0 = greedy")->capture_default_str();
       cmd->add_option("--top-k", args.top_k, "sample among the k most likely tokens (0: all)")->capture_default_str();
       cmd->add_option("--top-p", args.top_p, "nucleus sampling: the most likely tokens of mass p (1: all)")
           ->capture_default_str();
       cmd->add_option("--seed", args.seed, "sampling seed")->capture_default_str();
       cmd->add_option("--device", args.device, "cpu, cuda or cuda:N")->capture_default_str();
       train::add_threads_option(cmd, args.threads);
       cmd->add_flag("--no-cache", args.no_cache, "recompute the whole context every step instead of the KV cache");
       cmd->add_option("--save-model", args.save_model,
                       "also write the loaded model as a saved language model directory (model.safetensors, "
                       "config.json, tokenizer.json)");
     },
     run_sample}};

}  // namespace
}  // namespace hm::cli
