// The environment table (core/environment.h) against the sources and the document that lists it,
// and deterministic mode (core/deterministic.h), the switch the table's HARMONIC_DETERMINISTIC sets.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "harmonic/core/deterministic.h"
#include "harmonic/core/environment.h"
#include "tests/helpers.h"

namespace fs = std::filesystem;
using namespace hm;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<std::string> table_names() {
  std::set<std::string> names;
  for (const EnvironmentVariable& v : environment_variables()) names.insert(std::string(v.name));
  return names;
}

}  // namespace

TEST_CASE("environment table: every HARMONIC_ variable the sources read is in it, and it names where") {
  const fs::path root = HARMONIC_SOURCE_DIR;
  // std::getenv and data/datasets.cpp's env_or wrapper, with a HARMONIC_ name as their argument.
  const std::regex read(R"((getenv|env_or)\(\s*"(HARMONIC_[A-Z0-9_]+)\")");
  const std::set<std::string> table = table_names();
  std::vector<std::string> missing;
  std::set<std::string> found;
  int64_t scanned = 0;
  for (const char* top : {"core", "autograd", "ops", "nn", "optim", "data", "models", "cuda", "tools"})
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".cu" && ext != ".cuh")) continue;
      ++scanned;
      const std::string text = read_text(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), read); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[2];
        found.insert(name);
        if (!table.count(name))
          missing.push_back(fmt::format("{} ({})", name, fs::relative(entry.path(), root).string()));
      }
    }
  CHECK(scanned > 300);
  CHECK_MESSAGE(missing.empty(), fmt::format("add to core/environment.cpp: {}", fmt::join(missing, ", ")));
  // And no row outlives its reader: each names the file that reads it.
  std::string previous;
  for (const EnvironmentVariable& v : environment_variables()) {
    CAPTURE(v.name);
    CHECK(found.count(std::string(v.name)) == 1);
    CHECK(read_text(root / std::string(v.read_in)).find(std::string(v.name)) != std::string::npos);
    CHECK(std::string(v.name) > previous);  // sorted, no name twice
    CHECK_FALSE(v.default_value.empty());
    CHECK_FALSE(v.effect.empty());
    previous = v.name;
  }
}

TEST_CASE("environment table: tools/README.md lists every variable") {
  const std::string doc = read_text(fs::path(HARMONIC_SOURCE_DIR) / "tools/README.md");
  for (const EnvironmentVariable& v : environment_variables()) {
    CAPTURE(v.name);
    CHECK(doc.find(fmt::format("| `{}` |", v.name)) != std::string::npos);
  }
}

TEST_CASE("deterministic mode: a guard sets it and restores the setting before it") {
  const bool start = deterministic();
  {
    DeterministicGuard on(true);
    CHECK(deterministic());
    {
      DeterministicGuard off(false);
      CHECK_FALSE(deterministic());
    }
    CHECK(deterministic());
  }
  CHECK(deterministic() == start);
}
