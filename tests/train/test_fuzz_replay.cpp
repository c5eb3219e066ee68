// The fuzz corpora replayed through their targets (tests/fuzz/): every committed seed and
// every input the fuzzer once found a bug with must be rejected cleanly (an hm::Error inside
// the target) or accepted; any other exception fails here, a crash fails the process.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/fuzz/fuzz_targets.h"
#include "tests/helpers.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus_files(const std::string& target) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(HARMONIC_SOURCE_DIR) / "tests/fuzz/corpus" / target;
  if (fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replays tests/fuzz/corpus/<target>/ through the target of that name.
void replay(const std::string& name) {
  const auto& table = hm::fuzz::fuzz_targets();
  const auto target = std::find_if(table.begin(), table.end(), [&](const auto& t) { return t.name == name; });
  REQUIRE(target != table.end());
  const std::vector<fs::path> files = corpus_files(name);
  CHECK_MESSAGE(files.size() >= 3, "fewer than 3 corpus files in tests/fuzz/corpus/", name);
  for (const fs::path& file : files) {
    const std::string bytes = file_bytes(file);
    INFO(name, ": ", file.filename().string());
    try {
      CHECK(target->fn(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) == 0);
    } catch (const std::exception& e) {
      FAIL_CHECK("escaped the parser as ", typeid(e).name(), ": ", e.what());
    }
  }
}

}  // namespace

TEST_CASE("fuzz replay: the table's targets are the ones replayed below") {
  std::vector<std::string> names;
  for (const hm::fuzz::FuzzTarget& t : hm::fuzz::fuzz_targets()) names.emplace_back(t.name);
  CHECK(names == std::vector<std::string>{"safetensors", "checkpoint", "resume", "idx", "csv", "config",
                                          "study_results", "metrics", "text", "tokenizer", "op_attrs",
                                          "forecast_csv", "arcade_dataset"});
}

TEST_CASE("fuzz replay: safetensors") { replay("safetensors"); }
TEST_CASE("fuzz replay: checkpoint") { replay("checkpoint"); }
TEST_CASE("fuzz replay: resume") { replay("resume"); }
TEST_CASE("fuzz replay: idx") { replay("idx"); }
TEST_CASE("fuzz replay: csv") { replay("csv"); }
TEST_CASE("fuzz replay: config") { replay("config"); }
TEST_CASE("fuzz replay: study_results") { replay("study_results"); }
TEST_CASE("fuzz replay: metrics") { replay("metrics"); }
TEST_CASE("fuzz replay: text") { replay("text"); }
TEST_CASE("fuzz replay: tokenizer") { replay("tokenizer"); }
TEST_CASE("fuzz replay: op_attrs") { replay("op_attrs"); }
TEST_CASE("fuzz replay: forecast_csv") { replay("forecast_csv"); }
TEST_CASE("fuzz replay: arcade_dataset") { replay("arcade_dataset"); }
