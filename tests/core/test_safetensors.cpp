// safetensors I/O: round trips of every dtype, metadata, atomic replacement, every kind of
// malformed file, and a file written by plain Python (tests/reference/make_safetensors_reference.py).
#include <atomic>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/safetensors.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::ScratchDir;
using hm::test::throws_with;
namespace fs = std::filesystem;

namespace {

// Writes a raw safetensors file: header length (the real one unless given), header text, data.
void write_raw(const std::string& path, const std::string& header, const std::string& data = "", int64_t length = -1) {
  std::ofstream f(path, std::ios::binary);
  uint64_t n = length < 0 ? header.size() : static_cast<uint64_t>(length);
  f.write(reinterpret_cast<const char*>(&n), 8);
  f << header << data;
}

std::vector<uint16_t> halves(const Tensor& t) {
  const auto* p = static_cast<const uint16_t*>(t.raw_data());
  return std::vector<uint16_t>(p, p + t.numel());
}

}  // namespace

TEST_CASE("safetensors: round trip of every dtype, shapes and metadata") {
  ScratchDir tmp;
  Generator gen(11);
  Tensor f32 = randn({3, 4}, {}, &gen);
  Tensor f64 = randn({2, 1, 3}, {.dtype = DType::Float64}, &gen);
  Tensor i64 = from_vector(std::vector<int64_t>{-5, 0, (int64_t{1} << 53) + 1, INT64_MAX}, {2, 2});
  Tensor b = tensor({1, 0, 0, 1, 1}).to(DType::Bool);
  Tensor bf = tensor({1.5, -2.0, 0.15625}).to(DType::BFloat16);
  Tensor f16 = Tensor::empty({2}, DType::Float16);
  const uint16_t f16_bits[2] = {0x3800, 0xC200};  // 0.5, -3.0
  std::memcpy(f16.raw_data(), f16_bits, 4);
  Tensor scalar = scalar_tensor(2.5, {.dtype = DType::Float64});
  Tensor empty = zeros({0, 3});
  Tensor grad_leaf = randn({2}, {.requires_grad = true}, &gen);
  std::string path = tmp.file("all.safetensors");
  save_safetensors(path,
                   {{"f32", f32},
                    {"f64", f64},
                    {"i64", i64},
                    {"bool", b},
                    {"bf16", bf},
                    {"f16", f16},
                    {"scalar", scalar},
                    {"empty", empty},
                    {"leaf", grad_leaf}},
                   {{"format", "pt"}, {"step", "100"}});
  SafetensorsFile file = load_safetensors(path);
  REQUIRE(file.tensors.size() == 9);
  std::vector<std::string> order;
  for (const auto& [name, t] : file.tensors) order.push_back(name);
  CHECK(order == std::vector<std::string>{"f32", "f64", "i64", "bool", "bf16", "f16", "scalar", "empty", "leaf"});
  CHECK(file.metadata == std::map<std::string, std::string>{{"format", "pt"}, {"step", "100"}});
  CHECK(allclose(file.at("f32"), f32, 0, 0));
  CHECK(file.at("f64").shape() == Shape{2, 1, 3});
  CHECK(allclose(file.at("f64"), f64, 0, 0));
  CHECK(file.at("i64").to_vector_as<int64_t>() == i64.to_vector_as<int64_t>());
  CHECK(file.at("bool").dtype() == DType::Bool);
  CHECK(allclose(file.at("bool").to(DType::Float32), {1, 0, 0, 1, 1}));
  CHECK(file.at("bf16").dtype() == DType::BFloat16);
  CHECK(allclose(file.at("bf16").to(DType::Float32), {1.5, -2.0, 0.15625}, 0, 0));
  CHECK(file.at("f16").dtype() == DType::Float16);
  CHECK(halves(file.at("f16")) == std::vector<uint16_t>{0x3800, 0xC200});
  CHECK(file.at("scalar").shape() == Shape{});
  CHECK(file.at("scalar").item<double>() == 2.5);
  CHECK(file.at("empty").shape() == Shape{0, 3});
  CHECK_FALSE(file.at("leaf").requires_grad());
  // The data is laid out by decreasing element size, so each tensor starts aligned.
  std::ifstream in(path, std::ios::binary);
  uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  std::string text(n, ' ');
  in.read(text.data(), static_cast<std::streamsize>(n));
  CHECK(n % 8 == 0);
  nlohmann::json header = nlohmann::json::parse(text);
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    int64_t begin = info["data_offsets"][0];
    CHECK(begin % static_cast<int64_t>(dtype_size(file.at(name).dtype())) == 0);
  }
  CHECK(file.contains("f32"));
  CHECK_FALSE(file.contains("nope"));
  CHECK(throws_with([&] { file.at("nope"); }, {"nope", "f32"}));
}

TEST_CASE("safetensors: non-contiguous inputs are written as their values") {
  ScratchDir tmp;
  Tensor x = arange(0.0, 12.0, 1.0, {.dtype = DType::Float32});
  Tensor t = transpose(reshape(x, {3, 4}), 0, 1);  // (4, 3) view
  Tensor s = slice(x, 0, 1, 12, 4);                // (3,) stride 4
  std::string path = tmp.file("views.safetensors");
  save_safetensors(path, {{"t", t}, {"s", s}});
  SafetensorsFile file = load_safetensors(path);
  CHECK(file.at("t").shape() == Shape{4, 3});
  CHECK(allclose(file.at("t"), {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  CHECK(allclose(file.at("s"), {1, 5, 9}));
}

TEST_CASE("safetensors: reads the file written by plain Python") {
  // tests/reference/make_safetensors_reference.py: struct + json; its data order differs from
  // its header order, and tensors come back in header order.
  SafetensorsFile file = load_safetensors(std::string(HARMONIC_SOURCE_DIR) + "/tests/reference/sample.safetensors");
  std::vector<std::string> order;
  for (const auto& [name, t] : file.tensors) order.push_back(name);
  CHECK(order == std::vector<std::string>{"weight", "b_ints", "scale", "mask", "half_bf16", "half_f16", "empty"});
  CHECK(file.metadata.at("format") == "pt");
  CHECK(file.metadata.at("producer") == "make_safetensors_reference.py");
  const Tensor& w = file.at("weight");
  CHECK(w.dtype() == DType::Float32);
  CHECK(w.shape() == Shape{2, 3});
  CHECK(w.to_vector_as<float>() == std::vector<float>{1.5f, -2.25f, 3.0f, 0.1f, -0.0f, 1e-3f});
  CHECK(file.at("b_ints").to_vector_as<int64_t>() ==
        std::vector<int64_t>{-7, 0, (int64_t{1} << 40) + 1, 9007199254740993});
  CHECK(file.at("scale").shape() == Shape{});
  CHECK(file.at("scale").item<double>() == 3.141592653589793);
  CHECK(allclose(file.at("mask").to(DType::Int64).to(DType::Float64), {1, 0, 1}));
  CHECK(allclose(file.at("half_bf16").to(DType::Float32), {1.5, -2.0}, 0, 0));
  CHECK(halves(file.at("half_f16")) == std::vector<uint16_t>{0x3800, 0xC200});  // struct.pack("<e", 0.5), -3.0
  CHECK(file.at("empty").shape() == Shape{0, 3});
}

TEST_CASE("safetensors: writes are atomic and replace the old file") {
  ScratchDir tmp;
  std::string path = tmp.file("ckpt.safetensors");
  save_safetensors(path, {{"a", tensor({1.0, 2.0})}});
  save_safetensors(path, {{"b", tensor({3.0})}});
  SafetensorsFile file = load_safetensors(path);
  CHECK(file.tensors.size() == 1);
  CHECK(file.at("b").item<double>() == 3);
  CHECK(tmp.entries().size() == 1);  // no "<path>.tmp.<pid>" left behind
  // A failing write names the path and leaves the old file alone.
  CHECK(throws_with([&] { write_file_atomic(tmp.file("missing_dir/x.bin"), "abc"); },
                    {"[write_file_atomic]", "missing_dir", "does not exist"}));
  write_file_atomic(tmp.file("raw.bin"), std::vector<std::string_view>{"ab", "", "cd"});
  std::ifstream in(tmp.file("raw.bin"), std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  CHECK(content == "abcd");
  // Bad arguments to save.
  CHECK(throws_with(
      [&] {
        save_safetensors(path, {{"x", tensor({1.0})}, {"x", tensor({2.0})}});
      },
      {"[save_safetensors]", "twice"}));
  CHECK(throws_with(
      [&] {
        save_safetensors(path, {{"__metadata__", tensor({1.0})}});
      },
      {"[save_safetensors]", "invalid"}));
  CHECK(load_safetensors(path).at("b").item<double>() == 3);
}

TEST_CASE("safetensors: malformed files raise errors naming the file and the problem") {
  ScratchDir tmp;
  std::string p = tmp.file("bad.safetensors");
  auto load_fails = [&](std::vector<std::string> fragments) {
    fragments.push_back("[load_safetensors]");
    fragments.push_back(p);
    return throws_with([&] { load_safetensors(p); }, fragments);
  };
  const std::string ok_entry = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string eight(8, '\0');

  CHECK(throws_with([&] { load_safetensors(tmp.file("absent")); }, {"[load_safetensors]", "absent", "cannot open"}));
  { std::ofstream(p, std::ios::binary) << "abc"; }
  CHECK(load_fails({"truncated", "3 bytes"}));
  write_raw(p, ok_entry, eight, 1000);
  CHECK(load_fails({"header length 1000"}));
  write_raw(p, ok_entry, eight, 200'000'000);
  CHECK(load_fails({"header length 200000000", "limit"}));
  CHECK(throws_with([&] { load_safetensors(tmp.str()); }, {"[load_safetensors]", "directory"}));
  write_raw(p, R"({"t":{"dtype":"F32",)", eight);
  CHECK(load_fails({"not valid JSON"}));
  write_raw(p, "[1, 2]");
  CHECK(load_fails({"JSON object"}));
  write_raw(p, R"({"t":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", eight);
  CHECK(load_fails({"unknown", "Q7"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[2]}})", eight);
  CHECK(load_fails({"'t'", "data_offsets"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight);
  CHECK(load_fails({"negative"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", eight);
  CHECK(load_fails({"integers"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight);
  CHECK(load_fails({"span 8 bytes", "needs 12"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", eight);
  CHECK(load_fails({"out of range", "8 bytes"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight);
  CHECK(load_fails({"end before begin"}));
  write_raw(
      p,
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I64","shape":[1],"data_offsets":[4,12]}})",
      std::string(12, '\0'));
  CHECK(load_fails({"overlap", "'a'", "'b'"}));
  write_raw(p, R"({"__metadata__":{"k":1}})");
  CHECK(load_fails({"__metadata__", "'k'"}));
  write_raw(p, R"({"t":{"dtype":"F32","shape":[99999999999,99999999999,99999999999],"data_offsets":[0,8]}})", eight);
  CHECK(load_fails({"too large"}));
  // A valid minimal file still loads, and non-0/1 BOOL bytes read as true.
  write_raw(p, R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})", std::string("\x00\x07\x01", 3));
  CHECK(allclose(load_safetensors(p).at("m").to(DType::Float32), {0, 1, 1}));
  write_raw(p, "{}");
  CHECK(load_safetensors(p).tensors.empty());
}

TEST_CASE("append_line: a full disk or a bad path throws naming the file and the reason") {
  // Metrics.jsonl was appended through a stream checked before its buffer was
  // flushed, so a full disk went unnoticed. /dev/full fails every write with ENOSPC.
  if (std::filesystem::exists("/dev/full")) {
    CHECK(throws_with([] { append_line("/dev/full", R"({"step": 1})"); },
                      {"[append_line]", "'/dev/full': write failed: No space left on device"}));
    CHECK(throws_with([] { append_line_durable("/dev/full", "x"); }, {"[append_line_durable]", "No space left"}));
  }
  CHECK(throws_with([] { append_line("/nonexistent-dir/metrics.jsonl", "x"); }, {"open failed"}));
  ScratchDir dir;
  const std::string path = (dir.path / "m.jsonl").string();
  append_line(path, "a");
  append_line(path, "b");
  CHECK(hm::test::read_text(path) == "a\nb\n");
  CHECK(throws_with([&] { append_line(path, "two\nlines"); }, {"contains a newline"}));
}

TEST_CASE("write_file_atomic: threads replacing one file at once never lose a temporary") {
  // Two runs of a study generating the same cached data set wrote "<path>.tmp.<pid>" together:
  // the first rename took the shared temporary and the second failed.
  ScratchDir dir;
  const std::string path = dir.file("shared.bin");
  std::atomic<int> failures{0};
  auto writer = [&](char c) {
    for (int i = 0; i < 50; ++i) try {
        write_file_atomic(path, std::string(4096, c));
      } catch (const std::exception&) {
        ++failures;
      }
  };
  std::thread a(writer, 'a'), b(writer, 'b');
  a.join(), b.join();
  CHECK(failures.load() == 0);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(bytes.size() == 4096);
  CHECK((bytes == std::string(4096, 'a') || bytes == std::string(4096, 'b')));
  CHECK(dir.entries().size() == 1);  // no temporary left behind
}

TEST_CASE("remove_orphaned_temporaries: a killed writer's temporaries go, a live one's stay") {
  ScratchDir dir;
  auto touch = [&](const std::string& name) { std::ofstream(dir.path / name) << "x"; };
  // A child that exits at once: its pid names no live process afterwards.
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  REQUIRE(dead > 0);
  int status = 0;
  waitpid(dead, &status, 0);
  touch(fmt::format("checkpoint_last.safetensors.tmp.{}", dead));
  touch(fmt::format("metrics.json.tmp.{}.17", dead));                 // today's name: pid.sequence
  touch(fmt::format("model.safetensors.tmp.{}.3", ::getpid()));       // this process's, alive
  touch(fmt::format("odd.tmp.{}.x1", dead));                          // not a temporary's name
  touch(fmt::format("config.json.tmp.{}", ::getpid()));  // this process: alive
  touch("notes.tmp.txt");                                // not a temporary's name
  touch("metrics.jsonl");
  const auto removed = remove_orphaned_temporaries(dir.str());
  CHECK(removed == std::vector<std::string>{fmt::format("checkpoint_last.safetensors.tmp.{}", dead),
                                            fmt::format("metrics.json.tmp.{}.17", dead)});
  CHECK(std::filesystem::exists(dir.path / fmt::format("model.safetensors.tmp.{}.3", ::getpid())));
  CHECK(std::filesystem::exists(dir.path / fmt::format("odd.tmp.{}.x1", dead)));
  CHECK(std::filesystem::exists(dir.path / fmt::format("config.json.tmp.{}", ::getpid())));
  CHECK(std::filesystem::exists(dir.path / "notes.tmp.txt"));
  CHECK(std::filesystem::exists(dir.path / "metrics.jsonl"));
  CHECK(remove_orphaned_temporaries((dir.path / "nosuch").string()).empty());
}
