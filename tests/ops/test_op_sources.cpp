// Every op of the registry is found by its stem alone (ops/registry/sources.h): its API header,
// autograd file, kernel slots, CPU and CUDA kernels and its test file exist where the stem says,
// no layer the stem calls kernel-less has a file, the header declares the op's function and the
// test file names the op.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "harmonic/ops/registry/registry.h"
#include "harmonic/ops/registry/sources.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::ops;

namespace {

const std::filesystem::path kRoot = HARMONIC_SOURCE_DIR;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool names_word(const std::string& text, const std::string& word, const std::string& after = "") {
  return std::regex_search(text, std::regex("\\b" + word + "\\b" + after));
}

}  // namespace

TEST_CASE("op sources: each stem's files exist in every layer it has, and none where it has none") {
  std::set<std::string> stems;
  for (const OpStem& s : op_stems()) {
    CAPTURE(s.stem);
    CHECK(stems.insert(s.stem).second);
    CHECK(std::filesystem::exists(kRoot / "ops" / (s.stem + ".h")));
    CHECK(std::filesystem::exists(kRoot / "ops" / (s.stem + ".cpp")));
    CHECK(std::filesystem::exists(kRoot / "ops" / (s.stem + "_kernels.h")) == s.slots);
    CHECK(std::filesystem::exists(kRoot / "ops" / "cpu" / (s.stem + ".cpp")) == s.cpu);
    CHECK(std::filesystem::exists(kRoot / "cuda" / (s.stem + ".cu")) == s.cuda);
    CHECK(std::filesystem::exists(kRoot / "tests" / "ops" / ("test_" + s.stem + ".cpp")));
  }
}

TEST_CASE("op sources: the stem's header declares each op and its test file names it") {
  for (const OpSpec& op : op_table()) {
    CAPTURE(op.name);
    const OpStem& s = stem_of(op.name);
    CAPTURE(s.stem);
    const std::string header = read_text(kRoot / "ops" / (s.stem + ".h"));
    const std::string tests = read_text(kRoot / "tests" / "ops" / ("test_" + s.stem + ".cpp"));
    // The C++ function: the entry's name, or the function its errors name (add_scalar -> add).
    CHECK((names_word(header, op.name, "\\s*\\(") || names_word(header, op.function, "\\s*\\(")));
    CHECK((names_word(tests, op.name) || names_word(tests, op.function)));
  }
}

TEST_CASE("op sources: --where lines name the stem's files, and an unknown op is an error") {
  const std::vector<std::string> lines = source_lines(stem_of("log_softmax"));
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].find("ops/softmax.h") != std::string::npos);
  CHECK(lines[3].find("ops/cpu/softmax.cpp") != std::string::npos);
  CHECK(lines[4].find("cuda/softmax.cu") != std::string::npos);
  CHECK(lines[5].find("tests/ops/test_softmax.cpp") != std::string::npos);
  CHECK(source_lines(stem_of("gmm_nll"))[4].find("cuda/head_losses.cu") != std::string::npos);
  // A stem without a CUDA kernel says so.
  CHECK(source_lines(hm::ops::OpStem{"kernel_less", {"kernel_less"}, true, true, false})[4].find("composed") !=
        std::string::npos);
  CHECK(hm::test::throws_with([] { stem_of("no_such_op"); }, {"no_such_op"}));
}
