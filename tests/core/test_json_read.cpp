// JSON nesting is bounded before any tree is built (core/json_read.h): the helper itself, each
// reader handed 60,000 levels (which overflowed the stack through dump() and the readers'
// recursive walks), and a scan that no source parses JSON around the helper.
#include <cstring>
#include <fstream>
#include <sstream>

#include "harmonic/core/json_read.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/data/text.h"
#include "harmonic/optim/checkpoint.h"
#include "harmonic/optim/sgd.h"
#include "tests/helpers.h"
#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/driver/study_dir.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/train/config.h"

namespace fs = std::filesystem;
using namespace hm;
using hm::test::ScratchDir;
using hm::test::throws_with;

namespace {

// n nested arrays: "[[...]]".
std::string nested(int64_t n) { return std::string(n, '[') + std::string(n, ']'); }

// The issue's case: 60,000 levels, deeper than an 8 MiB stack takes through dump().
constexpr int64_t kDeep = 60000;
const std::string kDeepMessage = "JSON nested 60000 levels deep, beyond the limit of 64";
const std::string kDeepInObject = "JSON nested 60001 levels deep, beyond the limit of 64";  // {"key": [[...]]}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("json_read: depth counts arrays and objects, not brackets inside strings") {
  CHECK(json_depth("1") == 0);
  CHECK(json_depth(R"({"a": [[1], {"b": []}]})") == 4);  // { [ { [
  CHECK(json_depth(R"(["[[[", "{{", "]]]]"])") == 1);
  CHECK(json_depth(R"(["\"[[", "\\", [2]])") == 2);  // an escaped quote does not end the string
  CHECK(json_depth(R"(["\\"], [[3]])") == 2);         // an escaped backslash does not escape the quote
  CHECK(json_depth(nested(kDeep)) == kDeep);
}

TEST_CASE("json_read: 64 levels parse, 65 are refused naming the source, the depth and where") {
  CHECK(parse_json(nested(kMaxJsonDepth), "f", "src").is_array());
  CHECK(throws_with([] { parse_json(nested(kMaxJsonDepth + 1), "f", "--attrs"); },
                    {"[f] --attrs: JSON nested 65 levels deep, beyond the limit of 64", "level 65 opens at byte 64"}));
  CHECK(throws_with([] { parse_json(R"({"dim": )" + nested(kDeep) + "}", "op", "--attrs"); },
                    {"[op] --attrs: " + kDeepInObject, "level 65 opens at byte 71"}));
  CHECK(throws_with([] { parse_json<nlohmann::ordered_json>(nested(kDeep), "f", "src"); }, {kDeepMessage}));
  // Syntax errors stay nlohmann's, for the caller to word; an unbalanced text is one of them.
  CHECK_THROWS_AS(parse_json("{]", "f", "src"), nlohmann::json::parse_error);
  CHECK_THROWS_AS(parse_json("]]]]", "f", "src"), nlohmann::json::parse_error);
}

TEST_CASE("json_read: a stream is read whole up to a bound") {
  std::istringstream in(R"({"a": [1, 2]})");
  CHECK(parse_json(in, "f", "src").at("a").size() == 2);
  if (fs::exists("/dev/zero")) {
    std::ifstream zero("/dev/zero", std::ios::binary);
    CHECK(throws_with([&] { parse_json(zero, "config", "'/dev/zero'"); },
                      {"[config] '/dev/zero': larger than 67108864 bytes"}));
  }
}

TEST_CASE("json readers: 60,000 levels are refused naming the file, tensor files and checkpoints") {
  ScratchDir dir;
  // A safetensors header.
  const std::string header = R"({"t": )" + nested(kDeep) + "}";
  std::string bytes(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(bytes.data(), &n, 8);
  write(dir / "deep.safetensors", bytes + header);
  CHECK(throws_with([&] { load_safetensors(dir / "deep.safetensors"); },
                    {"[load_safetensors]", dir / "deep.safetensors", "header", kDeepInObject}));
  CHECK(throws_with([&] { optim::read_checkpoint_info(dir / "deep.safetensors"); },
                    {"[read_checkpoint_info]", dir / "deep.safetensors", kDeepInObject}));
  // A checkpoint's metadata values are JSON of their own.
  save_safetensors(dir / "meta.safetensors", {},
                   {{"format", "harmonic.checkpoint"}, {"version", "1"}, {"step", nested(kDeep)}, {"epoch", "0"}});
  CHECK(throws_with([&] { optim::read_checkpoint_info(dir / "meta.safetensors"); },
                    {"[load_checkpoint]", dir / "meta.safetensors", "metadata 'step'", kDeepMessage}));
  save_safetensors(dir / "optim.safetensors", {}, {{"optimizer", nested(kDeep)}});
  optim::SGD sgd(std::vector<Tensor>{zeros({2}).requires_grad_(true)}, optim::SGDOptions{.lr = 0.1});
  CHECK(throws_with([&] { sgd.load(dir / "optim.safetensors"); },
                    {dir / "optim.safetensors", "metadata 'optimizer'", kDeepMessage}));
}

TEST_CASE("json readers: 60,000 levels are refused naming the file, configs, logs and saved models") {
  ScratchDir dir;
  write(dir / "deep.json", R"({"trainer": )" + nested(kDeep) + "}");
  train::Json config = {{"trainer", {{"steps", 1}}}, {"dims", {1, 2}}};
  CHECK(throws_with([&] { train::merge_config_file(config, dir / "deep.json"); },
                    {"[config]", dir / "deep.json", kDeepInObject}));
  CHECK(throws_with([&] { train::resolve_config(config, "", {"dims=" + nested(kDeep)}); },
                    {"[config] --set dims: " + kDeepMessage}));

  write(dir / "tokenizer.json", R"({"type": "char", "tokens": )" + nested(kDeep) + "}");
  CHECK(throws_with([&] { data::load_tokenizer(dir / "tokenizer.json"); },
                    {"[load_tokenizer]", dir / "tokenizer.json", kDeepInObject}));

  write(dir / "metrics.jsonl", "{\"step\": 1, \"loss\": 2}\n{\"step\": " + nested(kDeep) + "}\n");
  CHECK(throws_with([&] { report::metrics_plot(dir / "metrics.jsonl", "step", {"loss"}); },
                    {"[metrics_plot]", dir / "metrics.jsonl" + "' line 2", kDeepInObject}));

  write(dir / "results.jsonl", R"({"label": "a", "config": {}, "result": )" + nested(kDeep) + R"(, "seconds": 1})");
  CHECK(throws_with([&] { studies::read_results(dir / "results.jsonl"); },
                    {"[study]", dir / "results.jsonl" + "' line 1", kDeepInObject}));
  write(dir / "study.json", R"({"study": "fourier-toy", "options": )" + nested(kDeep) + "}");
  CHECK(throws_with([&] { studies::StudySettings::read(dir / "study.json"); },
                    {"[study]", dir / "study.json", kDeepInObject}));

  // Saved models: config.json beside model.safetensors.
  for (const char* kind : {"lm", "chronos"}) {
    fs::create_directories(dir.path / kind);
    write(dir / (std::string(kind) + "/model.safetensors"), "");
    write(dir / (std::string(kind) + "/config.json"), R"({"format": )" + nested(kDeep) + "}");
  }
  CHECK(throws_with([&] { train::load_language_model(dir / "lm"); },
                    {"[load_language_model]", dir / "lm/config.json", kDeepInObject}));
  CHECK(throws_with([&] { train::load_chronos(dir / "chronos"); },
                    {"[load_chronos]", dir / "chronos/config.json", kDeepInObject}));
}

// Every reader goes through parse_json: a new nlohmann::json::parse (or a stream read into a
// json) elsewhere would read without the bound.
TEST_CASE("json readers: no source parses JSON except through core/json_read.h") {
  const fs::path root = HARMONIC_SOURCE_DIR;
  const std::vector<std::string> calls = {"::parse(", "::accept(", "::sax_parse(", "::from_cbor(", "::from_msgpack(",
                                          "::from_bson(", "::from_ubjson(", "::from_bjdata("};
  std::vector<std::string> offenders;
  int64_t scanned = 0;
  for (const char* top : {"core", "autograd", "ops", "nn", "optim", "data", "models", "cuda", "tools", "tests/fuzz"})
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".cu" && ext != ".cuh")) continue;
      const std::string rel = fs::relative(entry.path(), root).string();
      if (rel == "core/json_read.h") continue;
      ++scanned;
      std::ifstream in(entry.path());
      std::string line;
      for (int64_t lineno = 1; std::getline(in, line); ++lineno) {
        const bool json = line.find("json::") != std::string::npos || line.find("Json::") != std::string::npos;
        bool call = false;
        for (const std::string& c : calls) call = call || line.find(c) != std::string::npos;
        const bool extract = line.find(">> j;") != std::string::npos || line.find(">> config;") != std::string::npos;
        if ((json && call) || extract) offenders.push_back(fmt::format("{}:{}: {}", rel, lineno, line));
      }
    }
  CHECK(scanned > 300);
  CHECK_MESSAGE(offenders.empty(), fmt::format("parse through hm::parse_json:\n{}", fmt::join(offenders, "\n")));
}
