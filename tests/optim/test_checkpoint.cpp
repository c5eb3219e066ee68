// Tests of optim/checkpoint: round trip of model + optimizer + generators + info, exact
// continuation, atomic replacement, and the errors for mismatched files.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harmonic/core/safetensors.h"
#include "harmonic/nn/sequential.h"
#include "harmonic/optim/checkpoint.h"
#include "harmonic/optim/optim.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::optim;
using namespace hm::test;
namespace fs = std::filesystem;

namespace {

// A tiny model and Adam with state: `steps` updates on a fixed regression batch.
struct Setup {
  std::shared_ptr<nn::Sequential> model;
  std::unique_ptr<Adam> opt;
  Generator dropout_gen{7};

  Setup(std::vector<int64_t> dims, uint64_t seed) {
    Generator gen(seed);
    model = nn::make_mlp(dims, "tanh", 0.0, &gen);
    opt = std::make_unique<Adam>(model->named_parameters(), AdamOptions{.lr = 1e-2});
  }
  TrainingState state() { return {model.get(), opt.get(), {{"dropout", &dropout_gen}}}; }
  double step(uint64_t batch_seed) {
    Generator g(batch_seed);
    const Tensor w0 = model->named_parameters()[0].second;  // (hidden, in); a handle: the list is a temporary
    Tensor x = randn({8, w0.size(1)}, {.dtype = w0.dtype()}, &g);
    Tensor loss = mean(mul(model->forward(x), model->forward(x)));
    opt->zero_grad();
    loss.backward();
    opt->step();
    return loss.item<double>();
  }
};

CheckpointInfo at_step(int64_t step) {
  CheckpointInfo info;
  info.step = step;
  return info;
}

}  // namespace

TEST_CASE("checkpoint: round trip restores model, optimizer, generators and info exactly") {
  ScratchDir dir;
  Setup a({3, 5, 2}, 1);
  for (uint64_t s = 0; s < 3; ++s) a.step(s);
  a.dropout_gen.reserve(10);
  manual_seed(123);
  default_generator().reserve(6);
  const uint64_t default_offset = default_generator().offset();
  CheckpointInfo info{
      .step = 3, .epoch = 1, .config = {{"lr", 0.01}, {"trainer", {{"steps", 9}}}}, .extra = {{"note", "x"}}};
  save_checkpoint(dir.file("c.safetensors"), a.state(), info);

  // The file: one safetensors with prefixed tensor names and JSON metadata.
  SafetensorsFile file = load_safetensors(dir.file("c.safetensors"));
  CHECK(file.contains("model.0.weight"));
  CHECK(file.contains("optim.group0.param0.exp_avg"));
  CHECK(file.metadata.at("format") == "harmonic.checkpoint");
  CHECK(nlohmann::json::parse(file.metadata.at("rng"))["dropout"] ==
        nlohmann::json::array({7, a.dropout_gen.offset()}));

  // Fresh objects with other values and generator states.
  Setup b({3, 5, 2}, 99);
  manual_seed(5);
  CHECK(flat_params(*a.model) != flat_params(*b.model));
  CheckpointInfo got = load_checkpoint(dir.file("c.safetensors"), b.state());
  CHECK(got.step == 3);
  CHECK(got.epoch == 1);
  CHECK(got.config == info.config);
  CHECK(got.extra == info.extra);
  CHECK(flat_params(*a.model) == flat_params(*b.model));
  CHECK(a.opt->state_json() == b.opt->state_json());
  auto sa = a.opt->state_tensors(), sb = b.opt->state_tensors();
  REQUIRE(sa.size() == sb.size());
  for (size_t i = 0; i < sa.size(); ++i) CHECK(sa[i].second.to_vector() == sb[i].second.to_vector());
  CHECK(b.dropout_gen.seed() == 7);
  CHECK(b.dropout_gen.offset() == a.dropout_gen.offset());
  CHECK(default_generator().seed() == 123);
  CHECK(default_generator().offset() == default_offset);

  // Continuing both gives bit-identical losses and parameters (the Adam moments and step
  // counters came back exactly).
  for (uint64_t s = 10; s < 13; ++s) CHECK(a.step(s) == b.step(s));
  CHECK(flat_params(*a.model) == flat_params(*b.model));

  // The info alone, from the header.
  CheckpointInfo header = read_checkpoint_info(dir.file("c.safetensors"));
  CHECK(header.step == 3);
  CHECK(header.config == info.config);
}

TEST_CASE("checkpoint: a model-only load ignores the optimizer state, float64 models round trip") {
  ScratchDir dir;
  Setup a({2, 4, 1}, 3);
  a.model->to(DType::Float64);
  a.opt = std::make_unique<Adam>(a.model->named_parameters());
  a.step(1);
  save_checkpoint(dir.file("c.safetensors"), a.state(), {});
  Setup b({2, 4, 1}, 4);
  b.model->to(DType::Float64);
  load_checkpoint(dir.file("c.safetensors"), {b.model.get(), nullptr, {}});
  CHECK(flat_params(*a.model) == flat_params(*b.model));
  CHECK(b.model->named_parameters()[0].second.dtype() == DType::Float64);
}

TEST_CASE("checkpoint: writes are atomic, a failed save leaves the old file and no temporary") {
  ScratchDir dir;
  Setup a({3, 4, 2}, 1);
  a.step(0);
  const std::string path = dir.file("checkpoint_last.safetensors");
  save_checkpoint(path, a.state(), at_step(1));
  a.step(1);
  save_checkpoint(path, a.state(), at_step(2));  // replaces it
  CHECK(read_checkpoint_info(path).step == 2);
  CHECK(dir.entries() == std::vector<std::string>{"checkpoint_last.safetensors"});

  // Simulated failure after the bytes are written: the final rename cannot replace a
  // directory. The temporary is removed and the directory untouched.
  fs::create_directories(dir.path / "blocked" / "inner");
  CHECK(throws_with([&] { save_checkpoint(dir.file("blocked"), a.state(), at_step(3)); },
                    {"write_file_atomic", "rename"}));
  CHECK(dir.entries() == std::vector<std::string>{"blocked", "checkpoint_last.safetensors"});
  CHECK(fs::is_directory(dir.path / "blocked" / "inner"));
  // Failure before anything is written (no such directory): nothing appears.
  CHECK(throws_with([&] { save_checkpoint(dir.file("missing/c.safetensors"), a.state(), {}); }, {"missing", "does not exist"}));
  CHECK(dir.entries() == std::vector<std::string>{"blocked", "checkpoint_last.safetensors"});
  // The last good checkpoint still loads.
  Setup b({3, 4, 2}, 5);
  CHECK(load_checkpoint(path, b.state()).step == 2);

  // A torn file (as a crash during a non-atomic write would leave) is rejected clearly.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(dir.file("torn.safetensors"), std::ios::binary).write(bytes.data(), std::ssize(bytes) / 2);
  CHECK(throws_with([&] { load_checkpoint(dir.file("torn.safetensors"), b.state()); },
                    {"load_safetensors", "torn.safetensors"}));
}

TEST_CASE("checkpoint: negative step or epoch metadata names the checkpoint") {
  ScratchDir dir;
  Setup a({3, 2}, 1);
  for (auto [step, epoch] : {std::pair<int64_t, int64_t>{-1, 0}, {5, -3}}) {
    const std::string path = dir.file(fmt::format("neg{}{}.safetensors", step, epoch));
    save_checkpoint(path, a.state(), {.step = step, .epoch = epoch});
    CHECK(throws_with(
        [&] { read_checkpoint_info(path); },
        {"[load_checkpoint]", path, fmt::format("step {} and epoch {} must not be negative", step, epoch)}));
  }
}

TEST_CASE("checkpoint: missing, unexpected and mis-shaped tensors are named, nothing changes") {
  ScratchDir dir;
  Setup a({3, 4, 2}, 1);
  a.step(0);
  const std::string path = dir.file("c.safetensors");
  save_checkpoint(path, a.state(), {});

  Setup wider({3, 4, 5}, 2);  // last layer (5, 4) instead of (2, 4)
  const auto before = flat_params(*wider.model);
  CHECK(throws_with([&] { load_checkpoint(path, wider.state()); },
                    {"[load_checkpoint]", "c.safetensors",
                     "shape mismatch [model.2.weight (model (5, 4), file (2, 4)), "
                     "model.2.bias (model (5,), file (2,))]"}));
  CHECK(flat_params(*wider.model) == before);

  Setup deeper({3, 4, 4, 2}, 2);  // an extra layer: 4.weight/4.bias missing, 2.* shaped differently
  CHECK(throws_with([&] { load_checkpoint(path, deeper.state()); },
                    {"missing [model.4.weight, model.4.bias]", "model.2.weight (model (4, 4), file (2, 4))"}));
  Setup shallow({3, 2}, 2);  // one layer: the file's 2.* are unexpected
  CHECK(throws_with([&] { load_checkpoint(path, shallow.state()); },
                    {"unexpected [model.2.bias, model.2.weight]", "model.0.weight (model (2, 3), file (4, 3))"}));

  // The optimizer must match too (type, parameter count).
  Setup same({3, 4, 2}, 2);
  SGD sgd(same.model->named_parameters(), SGDOptions{.lr = 0.1});
  CHECK(throws_with(
      [&] {
        load_checkpoint(path, {same.model.get(), &sgd, {}});
      },
      {"optimizer state", "state is from a Adam optimizer, not SGD"}));
  // Generators the caller expects must be in the file.
  Generator extra(1);
  CHECK(throws_with(
      [&] {
        load_checkpoint(path, {same.model.get(), same.opt.get(), {{"noise", &extra}}});
      },
      {"no state for generator 'noise'"}));
  CHECK(throws_with(
      [&] {
        load_checkpoint(path, {same.model.get(), same.opt.get(), {{"default", &extra}}});
      },
      {"reserved"}));

  // A parameter past its first step without one of its Adam moments is refused.
  SafetensorsFile file = load_safetensors(path);
  std::vector<std::pair<std::string, Tensor>> kept;
  for (const auto& [name, t] : file.tensors)
    if (name.find("param0.exp_avg_sq") == std::string::npos) kept.emplace_back(name, t);
  REQUIRE(kept.size() + 1 == file.tensors.size());
  save_safetensors(dir.file("no_moment.safetensors"), kept, file.metadata);
  CHECK(throws_with([&] { load_checkpoint(dir.file("no_moment.safetensors"), same.state()); },
                    {"no_moment.safetensors", "group0.param0.exp_avg_sq", "at step 1"}));
  kept.clear();  // both moments of one parameter gone (the case)
  for (const auto& [name, t] : file.tensors)
    if (name.find("param0.exp_avg") == std::string::npos) kept.emplace_back(name, t);
  REQUIRE(kept.size() + 2 == file.tensors.size());
  save_safetensors(dir.file("no_moments.safetensors"), kept, file.metadata);
  CHECK(throws_with([&] { load_checkpoint(dir.file("no_moments.safetensors"), same.state()); },
                    {"group0.param0.exp_avg", "at step 1"}));

  // A plain tensor file is not a checkpoint.
  save_safetensors(dir.file("plain.safetensors"), same.model->state_dict());
  CHECK(throws_with([&] { load_checkpoint(dir.file("plain.safetensors"), same.state()); },
                    {"not a Harmonic checkpoint"}));
  CHECK(throws_with([&] { read_checkpoint_info(dir.file("nope.safetensors")); }, {"cannot open"}));
}

// A header length beyond the file (a 12-byte file claiming 99,999,999 header bytes) is refused
// before its buffer is allocated; found while fuzzing (each such input allocated 100 MB).
TEST_CASE("checkpoint: a header length beyond the file is refused naming the file") {
  hm::test::ScratchDir dir;
  const std::string path = dir / "short.safetensors";
  const uint64_t n = 99'999'999;
  std::string bytes(reinterpret_cast<const char*>(&n), 8);
  bytes += "{\"a\"";
  std::ofstream(path, std::ios::binary) << bytes;
  CHECK(hm::test::throws_with([&] { hm::optim::read_checkpoint_info(path); },
                              {"[read_checkpoint_info]", path, "header length 99999999 is beyond the file's 12 bytes"}));
}
